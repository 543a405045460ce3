//! Fortran bindings of the intercommunicator calls, MPI_Comm_idup and the
//! nonblocking neighbourhood collectives.

fortran! {
    mpi_intercomm_create_ = PMPI_Intercomm_create(local_comm: Int, local_leader: Int, peer_comm: Int, remote_leader: Int, tag: Int, newintercomm: IntOut);
    mpi_intercomm_merge_ = PMPI_Intercomm_merge(intercomm: Int, high: Logical, newintracomm: IntOut);
    mpi_comm_remote_size_ = PMPI_Comm_remote_size(comm: Int, size: IntOut);
    mpi_comm_remote_group_ = PMPI_Comm_remote_group(comm: Int, group: IntOut);
    mpi_comm_idup_ = PMPI_Comm_idup(comm: Int, newcomm: IntOut, request: IntOut);
    mpi_comm_idup_with_info_ = PMPI_Comm_idup_with_info(comm: Int, info: Int, newcomm: IntOut, request: IntOut);
}
