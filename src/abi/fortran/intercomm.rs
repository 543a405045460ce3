//! Fortran bindings of the intercommunicator calls, MPI_Comm_idup and the
//! nonblocking neighbourhood collectives.

fortran! {
    mpi_intercomm_create_ = PMPI_Intercomm_create(local_comm: Int, local_leader: Int, peer_comm: Int, remote_leader: Int, tag: Int, newintercomm: IntOut);
    mpi_intercomm_merge_ = PMPI_Intercomm_merge(intercomm: Int, high: Logical, newintracomm: IntOut);
    mpi_comm_remote_size_ = PMPI_Comm_remote_size(comm: Int, size: IntOut);
    mpi_comm_remote_group_ = PMPI_Comm_remote_group(comm: Int, group: IntOut);
    mpi_comm_idup_ = PMPI_Comm_idup(comm: Int, newcomm: IntOut, request: IntOut);
    mpi_comm_idup_with_info_ = PMPI_Comm_idup_with_info(comm: Int, info: Int, newcomm: IntOut, request: IntOut);
    mpi_ineighbor_allgather_ = PMPI_Ineighbor_allgather(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, comm: Int, request: IntOut);
    mpi_ineighbor_allgatherv_ = PMPI_Ineighbor_allgatherv(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcounts: Ints, displs: Ints, recvtype: Int, comm: Int, request: IntOut);
    mpi_ineighbor_alltoall_ = PMPI_Ineighbor_alltoall(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, comm: Int, request: IntOut);
    mpi_ineighbor_alltoallv_ = PMPI_Ineighbor_alltoallv(sendbuf: Buf, sendcounts: Ints, sdispls: Ints, sendtype: Int, recvbuf: Buf, recvcounts: Ints, rdispls: Ints, recvtype: Int, comm: Int, request: IntOut);
    mpi_ineighbor_alltoallw_ = PMPI_Ineighbor_alltoallw(sendbuf: Buf, sendcounts: Ints, sdispls: Aints, sendtypes: Ints, recvbuf: Buf, recvcounts: Ints, rdispls: Aints, recvtypes: Ints, comm: Int, request: IntOut);
}
