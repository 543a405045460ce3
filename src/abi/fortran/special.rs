//! Fortran bindings that the table cannot express (listed in
//! `generator::HAND_WRITTEN` for the `mpi` module's interfaces): MPI_INIT and
//! MPI_INIT_THREAD (no argc / argv), the DOUBLE PRECISION functions
//! MPI_WTIME and MPI_WTICK (virtual time), MPI_PCONTROL (no IERROR) and
//! MPI_BUFFER_DETACH (the buffer address means nothing in Fortran).
use super::kinds::put_ierror;
use crate::sys::{self, MPI_Fint};
use std::os::raw::{c_int, c_void};

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

/// `MPI_INIT(IERROR)`
#[no_mangle]
pub unsafe extern "C" fn mpi_init_(ierror: *mut MPI_Fint) {
    // SAFETY: MPI_Init accepts null argc / argv.
    let rc = unsafe { sys::PMPI_Init(std::ptr::null_mut(), std::ptr::null_mut()) };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_init_(ierror: *mut MPI_Fint));

/// `MPI_INIT_THREAD(REQUIRED, PROVIDED, IERROR)`
#[no_mangle]
pub unsafe extern "C" fn mpi_init_thread_(
    required: *const MPI_Fint,
    provided: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: gfortran passes the INTEGERs by reference; MPI_Init_thread
    // accepts null argc / argv and writes `provided`.
    let rc = unsafe {
        sys::PMPI_Init_thread(
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            *required,
            provided,
        )
    };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_init_thread_(required: *const MPI_Fint, provided: *mut MPI_Fint, ierror: *mut MPI_Fint));

/// `DOUBLE PRECISION MPI_WTIME()`: virtual time while MPI runs.
#[no_mangle]
pub unsafe extern "C" fn mpi_wtime_() -> f64 {
    // SAFETY: no arguments, no preconditions.
    unsafe { sys::PMPI_Wtime() }
}
pmpi_twin!(mpi_wtime_() -> f64);

/// `DOUBLE PRECISION MPI_WTICK()`
#[no_mangle]
pub unsafe extern "C" fn mpi_wtick_() -> f64 {
    // SAFETY: no arguments, no preconditions.
    unsafe { sys::PMPI_Wtick() }
}
pmpi_twin!(mpi_wtick_() -> f64);

/// `MPI_PCONTROL(LEVEL)`: the standard gives it no IERROR, so nothing after
/// LEVEL is touched (programs may pass more arguments).
#[no_mangle]
pub unsafe extern "C" fn mpi_pcontrol_(level: *const MPI_Fint) {
    // SAFETY: gfortran passes LEVEL by reference; MPI_Pcontrol reads only
    // its named argument.
    unsafe { sys::PMPI_Pcontrol(*level) };
}
pmpi_twin!(mpi_pcontrol_(level: *const MPI_Fint));

/// `MPI_BUFFER_DETACH(BUFFER_ADDR, SIZE, IERROR)`: the address of the
/// detached buffer cannot be returned to Fortran; BUFFER_ADDR is untouched
/// (as in MPICH).
#[no_mangle]
pub unsafe extern "C" fn mpi_buffer_detach_(
    _buffer_addr: *mut c_void,
    size: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    let mut addr: *mut c_void = std::ptr::null_mut();
    // SAFETY: addr is a local `void *` for the C call to store into; size
    // is the INTEGER gfortran passes.
    let rc: c_int =
        unsafe { sys::PMPI_Buffer_detach(&mut addr as *mut *mut c_void as *mut c_void, size) };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_buffer_detach_(buffer_addr: *mut c_void, size: *mut MPI_Fint, ierror: *mut MPI_Fint));
