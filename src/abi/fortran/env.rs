//! Fortran bindings of the environment, communicator, error-handling and
//! datatype queries, and of the vaced extension MPIX_Vaced_compute.

fortran! {
    mpi_initialized_ = PMPI_Initialized(flag: Flag);
    mpi_finalize_ = PMPI_Finalize();
    mpi_finalized_ = PMPI_Finalized(flag: Flag);
    mpi_abort_ = PMPI_Abort(comm: Int, errorcode: Int);
    mpi_query_thread_ = PMPI_Query_thread(provided: IntOut);
    mpi_is_thread_main_ = PMPI_Is_thread_main(flag: Flag);
    mpi_get_processor_name_ = PMPI_Get_processor_name(name: StrOut[name_len], resultlen: IntOut);
    mpi_get_version_ = PMPI_Get_version(version: IntOut, subversion: IntOut);
    mpi_get_library_version_ = PMPI_Get_library_version(version: StrOut[version_len], resultlen: IntOut);
    mpi_comm_rank_ = PMPI_Comm_rank(comm: Int, rank: IntOut);
    mpi_comm_size_ = PMPI_Comm_size(comm: Int, size: IntOut);
    mpi_comm_set_errhandler_ = PMPI_Comm_set_errhandler(comm: Int, errhandler: Int);
    mpi_comm_get_errhandler_ = PMPI_Comm_get_errhandler(comm: Int, errhandler: IntOut);
    mpi_errhandler_set_ = PMPI_Errhandler_set(comm: Int, errhandler: Int);
    mpi_errhandler_free_ = PMPI_Errhandler_free(errhandler: IntOut);
    mpi_error_string_ = PMPI_Error_string(errorcode: Int, string: StrOut[string_len], resultlen: IntOut);
    mpi_error_class_ = PMPI_Error_class(errorcode: Int, errorclass: IntOut);
    mpi_type_size_ = PMPI_Type_size(datatype: Int, size: IntOut);
    mpi_get_count_ = PMPI_Get_count(status: Status, datatype: Int, count: IntOut);
    mpix_vaced_compute_ = PMPIX_Vaced_compute(seconds: Double);
}
