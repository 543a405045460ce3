//! Fortran bindings of the error-handler and error-class calls, and of the
//! datatype and operator extras (`crate::abi::errhandler`,
//! `crate::abi::dtype_extra`). A Fortran error handler,
//! `SUBROUTINE F(COMM, ERROR_CODE)`, is registered as it is: C calls it
//! with the same two INTEGERs by reference.

fortran! {
    mpi_comm_create_errhandler_ = PMPI_Comm_create_errhandler(comm_errhandler_fn: ErrhandlerFunction, errhandler: IntOut);
    mpi_errhandler_create_ = PMPI_Errhandler_create(function: ErrhandlerFunction, errhandler: IntOut);
    mpi_comm_call_errhandler_ = PMPI_Comm_call_errhandler(comm: Int, errorcode: Int);
    mpi_errhandler_get_ = PMPI_Errhandler_get(comm: Int, errhandler: IntOut);
    mpi_add_error_class_ = PMPI_Add_error_class(errorclass: IntOut);
    mpi_add_error_code_ = PMPI_Add_error_code(errorclass: Int, errorcode: IntOut);
    mpi_add_error_string_ = PMPI_Add_error_string(errorcode: Int, string: StrIn[string_len]);
}
