//! Fortran bindings of the nonblocking collectives.

fortran! {
    mpi_ibarrier_ = PMPI_Ibarrier(comm: Int, request: IntOut);
    mpi_ibcast_ = PMPI_Ibcast(buffer: Buf, count: Int, datatype: Int, root: Int, comm: Int, request: IntOut);
    mpi_ireduce_ = PMPI_Ireduce(sendbuf: Buf, recvbuf: Buf, count: Int, datatype: Int, op: Int, root: Int, comm: Int, request: IntOut);
    mpi_iallreduce_ = PMPI_Iallreduce(sendbuf: Buf, recvbuf: Buf, count: Int, datatype: Int, op: Int, comm: Int, request: IntOut);
    mpi_igather_ = PMPI_Igather(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, root: Int, comm: Int, request: IntOut);
    mpi_iscatter_ = PMPI_Iscatter(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, root: Int, comm: Int, request: IntOut);
    mpi_iallgather_ = PMPI_Iallgather(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, comm: Int, request: IntOut);
    mpi_ialltoall_ = PMPI_Ialltoall(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, comm: Int, request: IntOut);
    mpi_iscan_ = PMPI_Iscan(sendbuf: Buf, recvbuf: Buf, count: Int, datatype: Int, op: Int, comm: Int, request: IntOut);
    mpi_iexscan_ = PMPI_Iexscan(sendbuf: Buf, recvbuf: Buf, count: Int, datatype: Int, op: Int, comm: Int, request: IntOut);
    mpi_igatherv_ = PMPI_Igatherv(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcounts: Ints, displs: Ints, recvtype: Int, root: Int, comm: Int, request: IntOut);
    mpi_iscatterv_ = PMPI_Iscatterv(sendbuf: Buf, sendcounts: Ints, displs: Ints, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, root: Int, comm: Int, request: IntOut);
    mpi_iallgatherv_ = PMPI_Iallgatherv(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcounts: Ints, displs: Ints, recvtype: Int, comm: Int, request: IntOut);
    mpi_ialltoallv_ = PMPI_Ialltoallv(sendbuf: Buf, sendcounts: Ints, sdispls: Ints, sendtype: Int, recvbuf: Buf, recvcounts: Ints, rdispls: Ints, recvtype: Int, comm: Int, request: IntOut);
    mpi_ialltoallw_ = PMPI_Ialltoallw(sendbuf: Buf, sendcounts: Ints, sdispls: Ints, sendtypes: Ints, recvbuf: Buf, recvcounts: Ints, rdispls: Ints, recvtypes: Ints, comm: Int, request: IntOut);
    mpi_ireduce_scatter_ = PMPI_Ireduce_scatter(sendbuf: Buf, recvbuf: Buf, recvcounts: Ints, datatype: Int, op: Int, comm: Int, request: IntOut);
    mpi_ireduce_scatter_block_ = PMPI_Ireduce_scatter_block(sendbuf: Buf, recvbuf: Buf, recvcount: Int, datatype: Int, op: Int, comm: Int, request: IntOut);
}
