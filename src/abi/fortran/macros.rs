//! `fortran!`: the binding table. One line per routine,
//!
//! ```text
//! fortran! {
//!     mpi_send_ = PMPI_Send(buf: Buf, count: Int, datatype: Int, dest: Int, tag: Int, comm: Int);
//!     mpi_get_processor_name_ = PMPI_Get_processor_name(name: StrOut[name_len], resultlen: IntOut);
//!     mpi_waitsome_ = PMPI_Waitsome(..., outcount: IntOut, array_of_indices: Ints, ...)
//!         then indices_to_fortran(outcount, array_of_indices);   // (on one line)
//! }
//! ```
//!
//! defines `mpi_send_` and `pmpi_send_` (gfortran's names: lower case, one
//! trailing underscore) taking every argument by reference, then IERROR,
//! then the hidden length (`usize`, named in brackets) of each CHARACTER
//! argument. Each argument goes through its kind (`kinds`): the C call is
//! type-checked against bindgen's prototype of mpi.h, so a wrong kind is a
//! compile error. `then f(args)` runs `f` on the Fortran arguments after
//! the call. build.rs reads the same lines (`generator.rs`) to write the explicit
//! interfaces of the `mpi` module, so the table is the only description.
//!
//! Each line also defines the `mpi_f08` bindings `mpi_send_f08` and
//! `pmpi_send_f08` (the binding labels of the module's `BIND(C)`
//! interfaces, `generator_f08.rs`): the same conversions, but choice
//! buffers and strings arrive as C descriptors (`kinds::Arg::new_f08`), and
//! a buffer that is not contiguous fails with MPI_ERR_BUFFER (through the
//! error handler of the `comm` argument, else MPI_COMM_WORLD's) without
//! calling C. IERROR is OPTIONAL there: gfortran passes null when it is
//! absent.
//!
//! Keep each binding on one line and `fortran! {` / `}` on lines of their
//! own: generator.rs reads the block line by line.

macro_rules! fortran {
    ($(
        $fname:ident = $cname:ident ( $($arg:ident : $kind:ident $([$len:ident])?),* $(,)? )
        $(then $hook:ident ( $($harg:ident),* ))? ;
    )*) => {
        $(
            fortran!(@one $fname = $cname ( $($arg : $kind $([$len])?),* ) $(then $hook ( $($harg),* ))?);
        )*
    };

    (@one $fname:ident = $cname:ident ( $($arg:ident : $kind:ident $([$len:ident])?),* )
        $(then $hook:ident ( $($harg:ident),* ))?) => {
        #[doc = concat!("Fortran `", stringify!($fname), "`: calls [`crate::sys::", stringify!($cname), "`].")]
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $fname(
            $($arg: <$crate::abi::fortran::kinds::$kind as $crate::abi::fortran::kinds::Arg>::F,)*
            ierror: *mut $crate::sys::MPI_Fint,
            $($($len: usize,)?)*
        ) {
            let rc = {
                $(
                    // SAFETY: gfortran passes every argument by reference
                    // (and CHARACTER lengths after them), as this kind reads it.
                    let mut $arg = unsafe {
                        <$crate::abi::fortran::kinds::$kind as $crate::abi::fortran::kinds::Arg>::new(
                            $arg,
                            fortran!(@len $($len)?),
                        )
                    };
                )*
                // SAFETY: the arguments converted as the C prototype (checked
                // by the compiler) and MPI's contract for it require.
                let rc = unsafe {
                    $crate::sys::$cname($($crate::abi::fortran::kinds::Arg::c(&mut $arg)),*)
                };
                $(
                    // SAFETY: the same Fortran argument, after the call.
                    unsafe { $crate::abi::fortran::kinds::Arg::finish($arg) };
                )*
                rc
            };
            $(
                // SAFETY: the Fortran arguments the hook is written for.
                unsafe { $hook($($harg),*) };
            )?
            // SAFETY: IERROR is the INTEGER gfortran passes after the others.
            unsafe { $crate::abi::fortran::kinds::put_ierror(ierror, rc) };
        }

        #[allow(non_snake_case)]
        mod $fname {
            #[doc = concat!("Profiling entry point `p", stringify!($fname), "`.")]
            #[export_name = concat!("p", stringify!($fname))]
            #[allow(clippy::too_many_arguments)]
            pub unsafe extern "C" fn pmpi(
                $($arg: <$crate::abi::fortran::kinds::$kind as $crate::abi::fortran::kinds::Arg>::F,)*
                ierror: *mut $crate::sys::MPI_Fint,
                $($($len: usize,)?)*
            ) {
                // SAFETY: the same contract as the binding's (the caller's).
                unsafe { super::$fname($($arg,)* ierror, $($($len,)?)*) }
            }

            #[doc = concat!("mpi_f08 binding `", stringify!($fname), "f08`.")]
            #[export_name = concat!(stringify!($fname), "f08")]
            #[allow(clippy::too_many_arguments)]
            pub unsafe extern "C" fn f08(
                $($arg: <fortran!(@k08 $arg $kind) as $crate::abi::fortran::kinds::Arg>::F08,)*
                ierror: *mut $crate::sys::MPI_Fint,
            ) {
                let comm: Option<$crate::sys::MPI_Comm> = None $(.or(fortran!(@comm $arg $arg)))*;
                let rc = {
                    $(
                        // SAFETY: gfortran passes every argument by
                        // reference, buffers and strings as descriptors, as
                        // this kind reads them.
                        let mut $arg = unsafe {
                            <fortran!(@k08 $arg $kind) as $crate::abi::fortran::kinds::Arg>::new_f08($arg)
                        };
                    )*
                    let refused = false $(|| $crate::abi::fortran::kinds::Arg::noncontiguous(&$arg))*;
                    let rc = if refused {
                        $crate::abi::fortran::f08::noncontiguous(&stringify!($cname)[1..], comm)
                    } else {
                        // SAFETY: as in the mpi module's binding.
                        unsafe {
                            $crate::sys::$cname($($crate::abi::fortran::kinds::Arg::c(&mut $arg)),*)
                        }
                    };
                    $(
                        // SAFETY: the same argument, after the call.
                        unsafe { $crate::abi::fortran::kinds::Arg::finish($arg) };
                    )*
                    (rc, refused)
                };
                $(
                    if !rc.1 {
                        // SAFETY: the Fortran arguments the hook is written
                        // for (none is a buffer or a string).
                        unsafe { super::$hook($($harg),*) };
                    }
                )?
                // SAFETY: IERROR is null (absent) or the INTEGER passed.
                unsafe { $crate::abi::fortran::kinds::put_ierror(ierror, rc.0) };
            }

            #[doc = concat!("Profiling entry point `p", stringify!($fname), "f08`.")]
            #[export_name = concat!("p", stringify!($fname), "f08")]
            #[allow(clippy::too_many_arguments)]
            pub unsafe extern "C" fn pmpi_f08(
                $($arg: <fortran!(@k08 $arg $kind) as $crate::abi::fortran::kinds::Arg>::F08,)*
                ierror: *mut $crate::sys::MPI_Fint,
            ) {
                // SAFETY: the same contract as the binding's (the caller's).
                unsafe { f08($($arg,)* ierror) }
            }
        }
    };

    // The kind of an argument in the mpi_f08 binding (see kinds.rs).
    (@k08 baseptr Buf) => { $crate::abi::fortran::kinds::BufAddr };
    (@k08 location Buf) => { $crate::abi::fortran::kinds::Location };
    (@k08 $arg:ident $kind:ident) => { $crate::abi::fortran::kinds::$kind };

    // The communicator whose error handler a refused buffer goes to.
    (@comm comm $v:ident) => {
        // SAFETY: gfortran passes the INTEGER by reference.
        Some(unsafe { *$v })
    };
    (@comm $arg:ident $v:ident) => { None };

    (@len) => { 0 };
    (@len $len:ident) => { $len };
}

/// Defines the profiling twin `p<name>` of a hand-written binding.
macro_rules! pmpi_twin {
    ($fname:ident ( $($arg:ident : $ty:ty),* ) $(-> $ret:ty)?) => {
        #[allow(non_snake_case)]
        mod $fname {
            #[allow(unused_imports)]
            use super::*;
            #[doc = concat!("Profiling entry point `p", stringify!($fname), "`.")]
            #[export_name = concat!("p", stringify!($fname))]
            pub unsafe extern "C" fn pmpi($($arg: $ty),*) $(-> $ret)? {
                // SAFETY: the same contract as the binding's (the caller's).
                unsafe { super::$fname($($arg),*) }
            }
        }
    };
}
