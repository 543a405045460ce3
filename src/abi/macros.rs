//! `mpi_fn!`: defines one MPI entry point once, exported twice (`PMPI_X` with
//! the body, `MPI_X` forwarding to it so tools that interpose `MPI_X` still
//! reach us through `PMPI_X`), and checks at compile time that both have
//! exactly the prototype bindgen read from include/mpi.h (`crate::sys`).

/// `mpi_fn! { fn MPI_X / PMPI_X(arg: Type, ...) -> Ret { body } }`
macro_rules! mpi_fn {
    (
        $(#[doc = $doc:expr])*
        fn $name:ident / $pname:ident ( $($arg:ident : $ty:ty),* $(,)? ) -> $ret:ty $body:block
    ) => {
        $(#[doc = $doc])*
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $pname($($arg: $ty),*) -> $ret $body

        #[doc = concat!("Profiling entry point: forwards to [`", stringify!($pname), "`].")]
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
            // SAFETY: same contract as the PMPI entry point (the caller's).
            unsafe { $pname($($arg),*) }
        }

        // The prototypes of include/mpi.h: a mismatch is a compile error.
        const _: unsafe extern "C" fn($($ty),*) -> $ret = crate::sys::$pname;
        const _: unsafe extern "C" fn($($ty),*) -> $ret = crate::sys::$name;
    };
}
