//! Fortran bindings of communicator management: duplication, splitting,
//! creation from groups, comparison, names.

fortran! {
    mpi_comm_dup_ = PMPI_Comm_dup(comm: Int, newcomm: IntOut);
    mpi_comm_split_ = PMPI_Comm_split(comm: Int, color: Int, key: Int, newcomm: IntOut);
    mpi_comm_split_type_ = PMPI_Comm_split_type(comm: Int, split_type: Int, key: Int, info: Int, newcomm: IntOut);
    mpi_comm_create_ = PMPI_Comm_create(comm: Int, group: Int, newcomm: IntOut);
    mpi_comm_free_ = PMPI_Comm_free(comm: IntOut);
    mpi_comm_compare_ = PMPI_Comm_compare(comm1: Int, comm2: Int, result: IntOut);
    mpi_comm_group_ = PMPI_Comm_group(comm: Int, group: IntOut);
    mpi_comm_test_inter_ = PMPI_Comm_test_inter(comm: Int, flag: Flag);
    mpi_comm_get_name_ = PMPI_Comm_get_name(comm: Int, comm_name: StrOut[name_len], resultlen: IntOut);
    mpi_comm_set_name_ = PMPI_Comm_set_name(comm: Int, comm_name: StrIn[name_len]);
}
