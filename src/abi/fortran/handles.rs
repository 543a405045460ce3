//! C functions converting Fortran handles (the `Fortran handle conversion`
//! section of mpi.h): handles are ints on both sides, so the conversions
//! are the identity.
use crate::sys::{
    MPI_Comm, MPI_Datatype, MPI_Errhandler, MPI_Fint, MPI_Group, MPI_Info, MPI_Op, MPI_Request,
    MPI_Win,
};

/// `MPI_X_c2f` / `MPI_X_f2c` for a handle type (identity).
macro_rules! handle_conversions {
    ($($ty:ident: $c2f:ident / $pc2f:ident, $f2c:ident / $pf2c:ident;)*) => {$(
        mpi_fn! {
            fn $c2f / $pc2f(handle: $ty) -> MPI_Fint {
                handle
            }
        }
        mpi_fn! {
            fn $f2c / $pf2c(handle: MPI_Fint) -> $ty {
                handle
            }
        }
    )*};
}

handle_conversions! {
    MPI_Comm: MPI_Comm_c2f / PMPI_Comm_c2f, MPI_Comm_f2c / PMPI_Comm_f2c;
    MPI_Datatype: MPI_Type_c2f / PMPI_Type_c2f, MPI_Type_f2c / PMPI_Type_f2c;
    MPI_Group: MPI_Group_c2f / PMPI_Group_c2f, MPI_Group_f2c / PMPI_Group_f2c;
    MPI_Op: MPI_Op_c2f / PMPI_Op_c2f, MPI_Op_f2c / PMPI_Op_f2c;
    MPI_Request: MPI_Request_c2f / PMPI_Request_c2f, MPI_Request_f2c / PMPI_Request_f2c;
    MPI_Errhandler: MPI_Errhandler_c2f / PMPI_Errhandler_c2f, MPI_Errhandler_f2c / PMPI_Errhandler_f2c;
    MPI_Info: MPI_Info_c2f / PMPI_Info_c2f, MPI_Info_f2c / PMPI_Info_f2c;
    MPI_Win: MPI_Win_c2f / PMPI_Win_c2f, MPI_Win_f2c / PMPI_Win_f2c;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys;

    #[test]
    fn handle_conversions_are_the_identity() {
        // SAFETY: the conversions have no preconditions.
        unsafe {
            assert_eq!(MPI_Comm_c2f(sys::MPI_COMM_WORLD), sys::MPI_COMM_WORLD);
            assert_eq!(MPI_Comm_f2c(sys::MPI_COMM_SELF), sys::MPI_COMM_SELF);
            assert_eq!(PMPI_Type_f2c(sys::MPI_INTEGER), sys::MPI_INTEGER);
            assert_eq!(MPI_Type_c2f(sys::MPI_DOUBLE), sys::MPI_DOUBLE);
            assert_eq!(MPI_Group_c2f(sys::MPI_GROUP_EMPTY), sys::MPI_GROUP_EMPTY);
            assert_eq!(MPI_Group_f2c(sys::MPI_GROUP_NULL), sys::MPI_GROUP_NULL);
            assert_eq!(MPI_Op_c2f(sys::MPI_SUM), sys::MPI_SUM);
            assert_eq!(MPI_Op_f2c(sys::MPI_MAXLOC), sys::MPI_MAXLOC);
            assert_eq!(
                MPI_Request_c2f(sys::MPI_REQUEST_NULL),
                sys::MPI_REQUEST_NULL
            );
            assert_eq!(MPI_Request_f2c(0x2c000007), 0x2c000007);
            assert_eq!(
                MPI_Errhandler_c2f(sys::MPI_ERRORS_RETURN),
                sys::MPI_ERRORS_RETURN
            );
            assert_eq!(
                MPI_Errhandler_f2c(sys::MPI_ERRORS_ARE_FATAL),
                sys::MPI_ERRORS_ARE_FATAL
            );
            assert_eq!(MPI_Info_c2f(sys::MPI_INFO_NULL), sys::MPI_INFO_NULL);
            assert_eq!(PMPI_Info_f2c(sys::MPI_INFO_NULL), sys::MPI_INFO_NULL);
            assert_eq!(MPI_Win_c2f(sys::MPI_WIN_NULL), sys::MPI_WIN_NULL);
            assert_eq!(MPI_Win_f2c(0x20000003), 0x20000003);
        }
    }
}
