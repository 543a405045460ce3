//! Fortran bindings of the point-to-point and completion calls.
use super::kinds::indices_to_fortran;

fortran! {
    mpi_send_ = PMPI_Send(buf: Buf, count: Int, datatype: Int, dest: Int, tag: Int, comm: Int);
    mpi_ssend_ = PMPI_Ssend(buf: Buf, count: Int, datatype: Int, dest: Int, tag: Int, comm: Int);
    mpi_rsend_ = PMPI_Rsend(buf: Buf, count: Int, datatype: Int, dest: Int, tag: Int, comm: Int);
    mpi_bsend_ = PMPI_Bsend(buf: Buf, count: Int, datatype: Int, dest: Int, tag: Int, comm: Int);
    mpi_buffer_attach_ = PMPI_Buffer_attach(buffer: Buf, size: Int);
    mpi_recv_ = PMPI_Recv(buf: Buf, count: Int, datatype: Int, source: Int, tag: Int, comm: Int, status: Status);
    mpi_isend_ = PMPI_Isend(buf: Buf, count: Int, datatype: Int, dest: Int, tag: Int, comm: Int, request: IntOut);
    mpi_issend_ = PMPI_Issend(buf: Buf, count: Int, datatype: Int, dest: Int, tag: Int, comm: Int, request: IntOut);
    mpi_irsend_ = PMPI_Irsend(buf: Buf, count: Int, datatype: Int, dest: Int, tag: Int, comm: Int, request: IntOut);
    mpi_ibsend_ = PMPI_Ibsend(buf: Buf, count: Int, datatype: Int, dest: Int, tag: Int, comm: Int, request: IntOut);
    mpi_irecv_ = PMPI_Irecv(buf: Buf, count: Int, datatype: Int, source: Int, tag: Int, comm: Int, request: IntOut);
    mpi_sendrecv_ = PMPI_Sendrecv(sendbuf: Buf, sendcount: Int, sendtype: Int, dest: Int, sendtag: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, source: Int, recvtag: Int, comm: Int, status: Status);
    mpi_sendrecv_replace_ = PMPI_Sendrecv_replace(buf: Buf, count: Int, datatype: Int, dest: Int, sendtag: Int, source: Int, recvtag: Int, comm: Int, status: Status);
    mpi_send_c_ = PMPI_Send_c(buf: Buf, count: Count, datatype: Int, dest: Int, tag: Int, comm: Int);
    mpi_ssend_c_ = PMPI_Ssend_c(buf: Buf, count: Count, datatype: Int, dest: Int, tag: Int, comm: Int);
    mpi_rsend_c_ = PMPI_Rsend_c(buf: Buf, count: Count, datatype: Int, dest: Int, tag: Int, comm: Int);
    mpi_bsend_c_ = PMPI_Bsend_c(buf: Buf, count: Count, datatype: Int, dest: Int, tag: Int, comm: Int);
    mpi_recv_c_ = PMPI_Recv_c(buf: Buf, count: Count, datatype: Int, source: Int, tag: Int, comm: Int, status: Status);
    mpi_isend_c_ = PMPI_Isend_c(buf: Buf, count: Count, datatype: Int, dest: Int, tag: Int, comm: Int, request: IntOut);
    mpi_issend_c_ = PMPI_Issend_c(buf: Buf, count: Count, datatype: Int, dest: Int, tag: Int, comm: Int, request: IntOut);
    mpi_irsend_c_ = PMPI_Irsend_c(buf: Buf, count: Count, datatype: Int, dest: Int, tag: Int, comm: Int, request: IntOut);
    mpi_ibsend_c_ = PMPI_Ibsend_c(buf: Buf, count: Count, datatype: Int, dest: Int, tag: Int, comm: Int, request: IntOut);
    mpi_irecv_c_ = PMPI_Irecv_c(buf: Buf, count: Count, datatype: Int, source: Int, tag: Int, comm: Int, request: IntOut);
    mpi_sendrecv_c_ = PMPI_Sendrecv_c(sendbuf: Buf, sendcount: Count, sendtype: Int, dest: Int, sendtag: Int, recvbuf: Buf, recvcount: Count, recvtype: Int, source: Int, recvtag: Int, comm: Int, status: Status);
    mpi_sendrecv_replace_c_ = PMPI_Sendrecv_replace_c(buf: Buf, count: Count, datatype: Int, dest: Int, sendtag: Int, source: Int, recvtag: Int, comm: Int, status: Status);
    mpi_wait_ = PMPI_Wait(request: IntOut, status: Status);
    mpi_waitall_ = PMPI_Waitall(count: Int, array_of_requests: Ints, array_of_statuses: Statuses);
    mpi_waitany_ = PMPI_Waitany(count: Int, array_of_requests: Ints, index: Index, status: Status);
    mpi_waitsome_ = PMPI_Waitsome(incount: Int, array_of_requests: Ints, outcount: IntOut, array_of_indices: Ints, array_of_statuses: Statuses) then indices_to_fortran(outcount, array_of_indices);
    mpi_test_ = PMPI_Test(request: IntOut, flag: Flag, status: Status);
    mpi_testall_ = PMPI_Testall(count: Int, array_of_requests: Ints, flag: Flag, array_of_statuses: Statuses);
    mpi_testany_ = PMPI_Testany(count: Int, array_of_requests: Ints, index: Index, flag: Flag, status: Status);
    mpi_testsome_ = PMPI_Testsome(incount: Int, array_of_requests: Ints, outcount: IntOut, array_of_indices: Ints, array_of_statuses: Statuses) then indices_to_fortran(outcount, array_of_indices);
    mpi_probe_ = PMPI_Probe(source: Int, tag: Int, comm: Int, status: Status);
    mpi_iprobe_ = PMPI_Iprobe(source: Int, tag: Int, comm: Int, flag: Flag, status: Status);
    mpi_request_free_ = PMPI_Request_free(request: IntOut);
    mpi_cancel_ = PMPI_Cancel(request: IntOut);
    mpi_test_cancelled_ = PMPI_Test_cancelled(status: Status, flag: Flag);
}
