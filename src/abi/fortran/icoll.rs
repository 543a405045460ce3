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
}
