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
    mpi_type_create_darray_ = PMPI_Type_create_darray(size: Int, rank: Int, ndims: Int, array_of_gsizes: Ints, array_of_distribs: Ints, array_of_dargs: Ints, array_of_psizes: Ints, order: Int, oldtype: Int, newtype: IntOut);
    mpi_type_get_name_ = PMPI_Type_get_name(datatype: Int, type_name: StrOut[type_name_len], resultlen: IntOut);
    mpi_type_set_name_ = PMPI_Type_set_name(datatype: Int, type_name: StrIn[type_name_len]);
    mpi_type_match_size_ = PMPI_Type_match_size(typeclass: Int, size: Int, datatype: IntOut);
    mpi_type_create_f90_real_ = PMPI_Type_create_f90_real(p: Int, r: Int, newtype: IntOut);
    mpi_type_create_f90_complex_ = PMPI_Type_create_f90_complex(p: Int, r: Int, newtype: IntOut);
    mpi_type_create_f90_integer_ = PMPI_Type_create_f90_integer(r: Int, newtype: IntOut);
    mpi_type_size_c_ = PMPI_Type_size_c(datatype: Int, size: CountOut);
    mpi_type_get_extent_c_ = PMPI_Type_get_extent_c(datatype: Int, lb: CountOut, extent: CountOut);
    mpi_type_get_true_extent_c_ = PMPI_Type_get_true_extent_c(datatype: Int, true_lb: CountOut, true_extent: CountOut);
    mpi_get_count_c_ = PMPI_Get_count_c(status: Status, datatype: Int, count: CountOut);
    mpi_get_elements_c_ = PMPI_Get_elements_c(status: Status, datatype: Int, count: CountOut);
    mpi_pack_external_size_ = PMPI_Pack_external_size(datarep: StrIn[datarep_len], incount: Int, datatype: Int, size: AintOut);
    mpi_pack_external_ = PMPI_Pack_external(datarep: StrIn[datarep_len], inbuf: Buf, incount: Int, datatype: Int, outbuf: Buf, outsize: Aint, position: AintOut);
    mpi_unpack_external_ = PMPI_Unpack_external(datarep: StrIn[datarep_len], inbuf: Buf, insize: Aint, position: AintOut, outbuf: Buf, outcount: Int, datatype: Int);
}
