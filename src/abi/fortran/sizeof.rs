//! MPI_SIZEOF: the specific procedures of the `mpi` module's generic
//! MPI_SIZEOF(X, SIZE, IERROR) (generated interfaces, `SIZEOF_TYPES` in
//! the generator), one per type and kind, for a scalar and for an array
//! (`_v`). X is never read: SIZE is the size in bytes of one element of
//! that type (gfortran's storage size on x86-64). A local call.
use super::kinds::put_ierror;
use crate::sys::MPI_Fint;
use std::os::raw::c_void;

macro_rules! sizeof_procs {
    ($($scalar:ident, $array:ident = $size:expr;)*) => {
        $(
            #[doc = concat!("`", stringify!($scalar), "`: SIZE = ", stringify!($size), ".")]
            ///
            /// # Safety
            /// The arguments gfortran passes, by reference.
            #[no_mangle]
            pub unsafe extern "C" fn $scalar(_x: *const c_void, size: *mut MPI_Fint, ierror: *mut MPI_Fint) {
                // SAFETY: the caller's INTEGERs.
                unsafe {
                    size.write($size);
                    put_ierror(ierror, crate::sys::MPI_SUCCESS);
                }
            }

            #[doc = concat!("`", stringify!($array), "`: SIZE = ", stringify!($size), ".")]
            ///
            /// # Safety
            /// As above.
            #[no_mangle]
            pub unsafe extern "C" fn $array(x: *const c_void, size: *mut MPI_Fint, ierror: *mut MPI_Fint) {
                // SAFETY: forwarded contract.
                unsafe { $scalar(x, size, ierror) }
            }
        )*

        /// (procedure name, size) of every specific, for the tests.
        #[cfg(test)]
        pub const SIZES: &[(&str, MPI_Fint)] = &[$((stringify!($scalar), $size),)*];
    };
}

sizeof_procs! {
    mpi_sizeof_i1_, mpi_sizeof_i1v_ = 1;
    mpi_sizeof_i2_, mpi_sizeof_i2v_ = 2;
    mpi_sizeof_i4_, mpi_sizeof_i4v_ = 4;
    mpi_sizeof_i8_, mpi_sizeof_i8v_ = 8;
    mpi_sizeof_r4_, mpi_sizeof_r4v_ = 4;
    mpi_sizeof_r8_, mpi_sizeof_r8v_ = 8;
    mpi_sizeof_r10_, mpi_sizeof_r10v_ = 16;
    mpi_sizeof_r16_, mpi_sizeof_r16v_ = 16;
    mpi_sizeof_c4_, mpi_sizeof_c4v_ = 8;
    mpi_sizeof_c8_, mpi_sizeof_c8v_ = 16;
    mpi_sizeof_c16_, mpi_sizeof_c16v_ = 32;
    mpi_sizeof_l1_, mpi_sizeof_l1v_ = 1;
    mpi_sizeof_l2_, mpi_sizeof_l2v_ = 2;
    mpi_sizeof_l4_, mpi_sizeof_l4v_ = 4;
    mpi_sizeof_l8_, mpi_sizeof_l8v_ = 8;
    // CHARACTER: gfortran also passes the length (after IERROR), unused
    mpi_sizeof_ch_, mpi_sizeof_chv_ = 1;
}
