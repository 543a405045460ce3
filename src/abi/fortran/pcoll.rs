//! Fortran bindings of the persistent collectives (MPI-4).

fortran! {
    mpi_barrier_init_ = PMPI_Barrier_init(comm: Int, info: Int, request: IntOut);
    mpi_bcast_init_ = PMPI_Bcast_init(buffer: Buf, count: Int, datatype: Int, root: Int, comm: Int, info: Int, request: IntOut);
    mpi_reduce_init_ = PMPI_Reduce_init(sendbuf: Buf, recvbuf: Buf, count: Int, datatype: Int, op: Int, root: Int, comm: Int, info: Int, request: IntOut);
    mpi_allreduce_init_ = PMPI_Allreduce_init(sendbuf: Buf, recvbuf: Buf, count: Int, datatype: Int, op: Int, comm: Int, info: Int, request: IntOut);
    mpi_gather_init_ = PMPI_Gather_init(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, root: Int, comm: Int, info: Int, request: IntOut);
    mpi_scatter_init_ = PMPI_Scatter_init(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, root: Int, comm: Int, info: Int, request: IntOut);
    mpi_allgather_init_ = PMPI_Allgather_init(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, comm: Int, info: Int, request: IntOut);
    mpi_alltoall_init_ = PMPI_Alltoall_init(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, comm: Int, info: Int, request: IntOut);
    mpi_scan_init_ = PMPI_Scan_init(sendbuf: Buf, recvbuf: Buf, count: Int, datatype: Int, op: Int, comm: Int, info: Int, request: IntOut);
    mpi_exscan_init_ = PMPI_Exscan_init(sendbuf: Buf, recvbuf: Buf, count: Int, datatype: Int, op: Int, comm: Int, info: Int, request: IntOut);
    mpi_gatherv_init_ = PMPI_Gatherv_init(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcounts: Ints, displs: Ints, recvtype: Int, root: Int, comm: Int, info: Int, request: IntOut);
    mpi_scatterv_init_ = PMPI_Scatterv_init(sendbuf: Buf, sendcounts: Ints, displs: Ints, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, root: Int, comm: Int, info: Int, request: IntOut);
    mpi_allgatherv_init_ = PMPI_Allgatherv_init(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcounts: Ints, displs: Ints, recvtype: Int, comm: Int, info: Int, request: IntOut);
    mpi_alltoallv_init_ = PMPI_Alltoallv_init(sendbuf: Buf, sendcounts: Ints, sdispls: Ints, sendtype: Int, recvbuf: Buf, recvcounts: Ints, rdispls: Ints, recvtype: Int, comm: Int, info: Int, request: IntOut);
    mpi_alltoallw_init_ = PMPI_Alltoallw_init(sendbuf: Buf, sendcounts: Ints, sdispls: Ints, sendtypes: Ints, recvbuf: Buf, recvcounts: Ints, rdispls: Ints, recvtypes: Ints, comm: Int, info: Int, request: IntOut);
    mpi_reduce_scatter_init_ = PMPI_Reduce_scatter_init(sendbuf: Buf, recvbuf: Buf, recvcounts: Ints, datatype: Int, op: Int, comm: Int, info: Int, request: IntOut);
    mpi_reduce_scatter_block_init_ = PMPI_Reduce_scatter_block_init(sendbuf: Buf, recvbuf: Buf, recvcount: Int, datatype: Int, op: Int, comm: Int, info: Int, request: IntOut);
}
