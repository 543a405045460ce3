//! Fortran bindings of the collectives and reduction operators. Choice
//! buffers recognise Fortran's MPI_IN_PLACE (a COMMON block) through the
//! `Buf` kind. A Fortran user function, `SUBROUTINE F(INVEC, INOUTVEC,
//! LEN, DATATYPE)`, takes every argument by reference, which is exactly
//! C's `MPI_User_function` (INTEGER = MPI_Datatype = int): its address is
//! registered as it is (`UserFunction` kind).

fortran! {
    mpi_op_create_ = PMPI_Op_create(user_fn: UserFunction, commute: Logical, op: IntOut);
    mpi_op_free_ = PMPI_Op_free(op: IntOut);
    mpi_op_commutative_ = PMPI_Op_commutative(op: Int, commute: Flag);
    mpi_reduce_local_ = PMPI_Reduce_local(inbuf: Buf, inoutbuf: Buf, count: Int, datatype: Int, op: Int);
    mpi_barrier_ = PMPI_Barrier(comm: Int);
    mpi_bcast_ = PMPI_Bcast(buffer: Buf, count: Int, datatype: Int, root: Int, comm: Int);
    mpi_bcast_c_ = PMPI_Bcast_c(buffer: Buf, count: Count, datatype: Int, root: Int, comm: Int);
    mpi_reduce_ = PMPI_Reduce(sendbuf: Buf, recvbuf: Buf, count: Int, datatype: Int, op: Int, root: Int, comm: Int);
    mpi_reduce_c_ = PMPI_Reduce_c(sendbuf: Buf, recvbuf: Buf, count: Count, datatype: Int, op: Int, root: Int, comm: Int);
    mpi_allreduce_ = PMPI_Allreduce(sendbuf: Buf, recvbuf: Buf, count: Int, datatype: Int, op: Int, comm: Int);
    mpi_allreduce_c_ = PMPI_Allreduce_c(sendbuf: Buf, recvbuf: Buf, count: Count, datatype: Int, op: Int, comm: Int);
    mpi_gather_ = PMPI_Gather(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, root: Int, comm: Int);
    mpi_gather_c_ = PMPI_Gather_c(sendbuf: Buf, sendcount: Count, sendtype: Int, recvbuf: Buf, recvcount: Count, recvtype: Int, root: Int, comm: Int);
    mpi_gatherv_ = PMPI_Gatherv(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcounts: Ints, displs: Ints, recvtype: Int, root: Int, comm: Int);
    mpi_scatter_ = PMPI_Scatter(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, root: Int, comm: Int);
    mpi_scatter_c_ = PMPI_Scatter_c(sendbuf: Buf, sendcount: Count, sendtype: Int, recvbuf: Buf, recvcount: Count, recvtype: Int, root: Int, comm: Int);
    mpi_scatterv_ = PMPI_Scatterv(sendbuf: Buf, sendcounts: Ints, displs: Ints, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, root: Int, comm: Int);
    mpi_allgather_ = PMPI_Allgather(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, comm: Int);
    mpi_allgather_c_ = PMPI_Allgather_c(sendbuf: Buf, sendcount: Count, sendtype: Int, recvbuf: Buf, recvcount: Count, recvtype: Int, comm: Int);
    mpi_allgatherv_ = PMPI_Allgatherv(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcounts: Ints, displs: Ints, recvtype: Int, comm: Int);
    mpi_alltoall_ = PMPI_Alltoall(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, comm: Int);
    mpi_alltoall_c_ = PMPI_Alltoall_c(sendbuf: Buf, sendcount: Count, sendtype: Int, recvbuf: Buf, recvcount: Count, recvtype: Int, comm: Int);
    mpi_alltoallv_ = PMPI_Alltoallv(sendbuf: Buf, sendcounts: Ints, sdispls: Ints, sendtype: Int, recvbuf: Buf, recvcounts: Ints, rdispls: Ints, recvtype: Int, comm: Int);
    mpi_alltoallv_c_ = PMPI_Alltoallv_c(sendbuf: Buf, sendcounts: Aints, sdispls: Aints, sendtype: Int, recvbuf: Buf, recvcounts: Aints, rdispls: Aints, recvtype: Int, comm: Int);
    mpi_alltoallw_ = PMPI_Alltoallw(sendbuf: Buf, sendcounts: Ints, sdispls: Ints, sendtypes: Ints, recvbuf: Buf, recvcounts: Ints, rdispls: Ints, recvtypes: Ints, comm: Int);
    mpi_reduce_scatter_ = PMPI_Reduce_scatter(sendbuf: Buf, recvbuf: Buf, recvcounts: Ints, datatype: Int, op: Int, comm: Int);
    mpi_reduce_scatter_block_ = PMPI_Reduce_scatter_block(sendbuf: Buf, recvbuf: Buf, recvcount: Int, datatype: Int, op: Int, comm: Int);
    mpi_scan_ = PMPI_Scan(sendbuf: Buf, recvbuf: Buf, count: Int, datatype: Int, op: Int, comm: Int);
    mpi_exscan_ = PMPI_Exscan(sendbuf: Buf, recvbuf: Buf, count: Int, datatype: Int, op: Int, comm: Int);
}
