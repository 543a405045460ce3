//! Point-to-point calls: the blocking and non-blocking sends in every mode,
//! receives, MPI_Sendrecv / MPI_Sendrecv_replace, probes, and the
//! buffered-send buffer (MPI_Buffer_attach / MPI_Buffer_detach). Each call
//! with a count has its MPI-4 large-count twin (`MPI_Send_c`, ...: an
//! `MPI_Count` count) sharing the same code, generic over the count type.
use crate::abi::buffers::{out, packed_payload, put_status, recv_target, send_payload};
use crate::abi::state::{call, call_mut};
use crate::abi::typed_mem::elems;
use crate::mpi::blocking::Parked;
use crate::p2p::SendMode;
use crate::sys::{self, MPI_Comm, MPI_Count, MPI_Datatype, MPI_Request, MPI_Status};
use std::os::raw::{c_int, c_void};

/// A blocking send in `mode`.
///
/// # Safety
/// MPI's contract for `buf` (count elements of datatype, readable).
#[allow(clippy::too_many_arguments)]
unsafe fn send(
    name: &str,
    buf: *const c_void,
    count: impl Into<i64> + Copy,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    mode: SendMode,
) -> c_int {
    let mut parked: Parked = None;
    call_mut(name, comm, |w| {
        let reqs = match parked.take() {
            Some(r) => r,
            None => {
                let a = w.send_args(comm, count, datatype, dest, tag, buf.is_null())?;
                // SAFETY: buf holds the checked elements and is not modified
                // until this blocking call returns.
                let p = unsafe { send_payload(buf, &a) };
                vec![w.start_send(&a, p, mode)?]
            }
        };
        match w.wait_reqs(reqs, &mut parked)?.remove(0).error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    })
}

/// A non-blocking send in `mode`.
///
/// # Safety
/// MPI's contract for `buf` (valid and unmodified until the request
/// completes) and `request` (null or writable).
#[allow(clippy::too_many_arguments)]
unsafe fn isend(
    name: &str,
    buf: *const c_void,
    count: impl Into<i64> + Copy,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
    mode: SendMode,
) -> c_int {
    call(name, comm, |w| {
        let a = w.send_args(comm, count, datatype, dest, tag, buf.is_null())?;
        // SAFETY: null or a valid request pointer (caller).
        let r = unsafe { out(request, "request") }?;
        // SAFETY: buf holds the checked elements and stays valid and
        // unmodified until the request completes (MPI's rule).
        let p = unsafe { send_payload(buf, &a) };
        let req = w.start_send(&a, p, mode)?;
        *r = w.reqs.insert(req);
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Send / PMPI_Send(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { send("MPI_Send", buf, count, datatype, dest, tag, comm, SendMode::Standard) }
    }
}

mpi_fn! {
    fn MPI_Send_c / PMPI_Send_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { send("MPI_Send_c", buf, count, datatype, dest, tag, comm, SendMode::Standard) }
    }
}

mpi_fn! {
    fn MPI_Ssend / PMPI_Ssend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { send("MPI_Ssend", buf, count, datatype, dest, tag, comm, SendMode::Synchronous) }
    }
}

mpi_fn! {
    fn MPI_Ssend_c / PMPI_Ssend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { send("MPI_Ssend_c", buf, count, datatype, dest, tag, comm, SendMode::Synchronous) }
    }
}

mpi_fn! {
    fn MPI_Rsend / PMPI_Rsend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { send("MPI_Rsend", buf, count, datatype, dest, tag, comm, SendMode::Ready) }
    }
}

mpi_fn! {
    fn MPI_Rsend_c / PMPI_Rsend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { send("MPI_Rsend_c", buf, count, datatype, dest, tag, comm, SendMode::Ready) }
    }
}

mpi_fn! {
    fn MPI_Bsend / PMPI_Bsend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { send("MPI_Bsend", buf, count, datatype, dest, tag, comm, SendMode::Buffered) }
    }
}

mpi_fn! {
    fn MPI_Bsend_c / PMPI_Bsend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { send("MPI_Bsend_c", buf, count, datatype, dest, tag, comm, SendMode::Buffered) }
    }
}

mpi_fn! {
    fn MPI_Isend / PMPI_Isend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { isend("MPI_Isend", buf, count, datatype, dest, tag, comm, request, SendMode::Standard) }
    }
}

mpi_fn! {
    fn MPI_Isend_c / PMPI_Isend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { isend("MPI_Isend_c", buf, count, datatype, dest, tag, comm, request, SendMode::Standard) }
    }
}

mpi_fn! {
    fn MPI_Issend / PMPI_Issend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { isend("MPI_Issend", buf, count, datatype, dest, tag, comm, request, SendMode::Synchronous) }
    }
}

mpi_fn! {
    fn MPI_Issend_c / PMPI_Issend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { isend("MPI_Issend_c", buf, count, datatype, dest, tag, comm, request, SendMode::Synchronous) }
    }
}

mpi_fn! {
    fn MPI_Irsend / PMPI_Irsend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { isend("MPI_Irsend", buf, count, datatype, dest, tag, comm, request, SendMode::Ready) }
    }
}

mpi_fn! {
    fn MPI_Irsend_c / PMPI_Irsend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { isend("MPI_Irsend_c", buf, count, datatype, dest, tag, comm, request, SendMode::Ready) }
    }
}

mpi_fn! {
    fn MPI_Ibsend / PMPI_Ibsend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { isend("MPI_Ibsend", buf, count, datatype, dest, tag, comm, request, SendMode::Buffered) }
    }
}

mpi_fn! {
    fn MPI_Ibsend_c / PMPI_Ibsend_c(buf: *const c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { isend("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm, request, SendMode::Buffered) }
    }
}

/// MPI_Recv(_c).
///
/// # Safety
/// MPI's contract for `buf` (room for count elements of datatype) and
/// `status` (null, MPI_STATUS_IGNORE or writable).
#[allow(clippy::too_many_arguments)]
unsafe fn recv(
    name: &str,
    buf: *mut c_void,
    count: impl Into<i64> + Copy,
    datatype: MPI_Datatype,
    source: c_int,
    tag: c_int,
    comm: MPI_Comm,
    status: *mut MPI_Status,
) -> c_int {
    let mut parked: Parked = None;
    call_mut(name, comm, |w| {
        let reqs = match parked.take() {
            Some(r) => r,
            None => {
                let a = w.recv_args(comm, count, datatype, source, tag, buf.is_null())?;
                // SAFETY: buf has room for the checked elements and is not
                // touched by the program until this blocking call returns.
                let t = unsafe { recv_target(buf, &a) };
                vec![w.start_recv(&a, t)]
            }
        };
        let c = w.wait_reqs(reqs, &mut parked)?.remove(0);
        // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
        unsafe { put_status(status, &c.status) };
        c.error.map_or(Ok(()), Err)
    })
}

mpi_fn! {
    fn MPI_Recv / PMPI_Recv(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, status: *mut MPI_Status) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { recv("MPI_Recv", buf, count, datatype, source, tag, comm, status) }
    }
}

mpi_fn! {
    fn MPI_Recv_c / PMPI_Recv_c(buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, status: *mut MPI_Status) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { recv("MPI_Recv_c", buf, count, datatype, source, tag, comm, status) }
    }
}

/// MPI_Irecv(_c).
///
/// # Safety
/// MPI's contract for `buf` (valid and untouched until the request
/// completes) and `request` (null or writable).
#[allow(clippy::too_many_arguments)]
unsafe fn irecv(
    name: &str,
    buf: *mut c_void,
    count: impl Into<i64> + Copy,
    datatype: MPI_Datatype,
    source: c_int,
    tag: c_int,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    call(name, comm, |w| {
        let a = w.recv_args(comm, count, datatype, source, tag, buf.is_null())?;
        // SAFETY: null or a valid request pointer (caller).
        let r = unsafe { out(request, "request") }?;
        // SAFETY: buf has room for the checked elements and stays valid
        // and untouched until the request completes (MPI's rule).
        let t = unsafe { recv_target(buf, &a) };
        let req = w.start_recv(&a, t);
        *r = w.reqs.insert(req);
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Irecv / PMPI_Irecv(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { irecv("MPI_Irecv", buf, count, datatype, source, tag, comm, request) }
    }
}

mpi_fn! {
    fn MPI_Irecv_c / PMPI_Irecv_c(buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { irecv("MPI_Irecv_c", buf, count, datatype, source, tag, comm, request) }
    }
}

/// MPI_Sendrecv(_c).
///
/// # Safety
/// MPI's contract for both buffers and `status`.
#[allow(clippy::too_many_arguments)]
unsafe fn sendrecv<C: Into<i64> + Copy>(
    name: &str,
    sendbuf: *const c_void,
    sendcount: C,
    sendtype: MPI_Datatype,
    dest: c_int,
    sendtag: c_int,
    recvbuf: *mut c_void,
    recvcount: C,
    recvtype: MPI_Datatype,
    source: c_int,
    recvtag: c_int,
    comm: MPI_Comm,
    status: *mut MPI_Status,
) -> c_int {
    let mut parked: Parked = None;
    call_mut(name, comm, |w| {
        let reqs = match parked.take() {
            Some(r) => r,
            None => {
                let sa =
                    w.send_args(comm, sendcount, sendtype, dest, sendtag, sendbuf.is_null())?;
                let ra = w.recv_args(
                    comm,
                    recvcount,
                    recvtype,
                    source,
                    recvtag,
                    recvbuf.is_null(),
                )?;
                // SAFETY: both buffers hold / have room for their checked
                // elements for the duration of this blocking call (MPI's rule).
                let (sp, rt) = unsafe { (send_payload(sendbuf, &sa), recv_target(recvbuf, &ra)) };
                // the receive first, as MPICH's MPIR_Sendrecv_impl posts it
                // (a standard send cannot fail here: nothing is left
                // posted by an error)
                let r = w.start_recv(&ra, rt);
                let s = w.start_send(&sa, sp, crate::p2p::SendMode::Standard)?;
                vec![s, r]
            }
        };
        let c = w.finish_sendrecv(reqs, &mut parked)?;
        // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
        unsafe { put_status(status, &c.status) };
        c.error.map_or(Ok(()), Err)
    })
}

mpi_fn! {
    fn MPI_Sendrecv / PMPI_Sendrecv(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, dest: c_int, sendtag: c_int,
        recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, source: c_int, recvtag: c_int,
        comm: MPI_Comm, status: *mut MPI_Status,
    ) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe {
            sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag,
                     recvbuf, recvcount, recvtype, source, recvtag, comm, status)
        }
    }
}

mpi_fn! {
    fn MPI_Sendrecv_c / PMPI_Sendrecv_c(
        sendbuf: *const c_void, sendcount: MPI_Count, sendtype: MPI_Datatype, dest: c_int, sendtag: c_int,
        recvbuf: *mut c_void, recvcount: MPI_Count, recvtype: MPI_Datatype, source: c_int, recvtag: c_int,
        comm: MPI_Comm, status: *mut MPI_Status,
    ) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe {
            sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag,
                     recvbuf, recvcount, recvtype, source, recvtag, comm, status)
        }
    }
}

/// MPI_Sendrecv_replace(_c): the outgoing data is packed into a private
/// copy first, so the receive can land in the same buffer.
///
/// # Safety
/// MPI's contract for `buf` and `status`.
#[allow(clippy::too_many_arguments)]
unsafe fn sendrecv_replace(
    name: &str,
    buf: *mut c_void,
    count: impl Into<i64> + Copy,
    datatype: MPI_Datatype,
    dest: c_int,
    sendtag: c_int,
    source: c_int,
    recvtag: c_int,
    comm: MPI_Comm,
    status: *mut MPI_Status,
) -> c_int {
    let mut parked: Parked = None;
    call_mut(name, comm, |w| {
        let reqs = match parked.take() {
            Some(r) => r,
            None => {
                let sa = w.send_args(comm, count, datatype, dest, sendtag, buf.is_null())?;
                let ra = w.recv_args(comm, count, datatype, source, recvtag, buf.is_null())?;
                // SAFETY: buf holds count elements of datatype (checked
                // non-null unless empty); they are copied out before
                // anything is received.
                let src = unsafe { elems(buf, &sa.ty, sa.count) };
                let sp = packed_payload(sa.ty.pack(src, sa.count));
                // SAFETY: buf has room for the elements and is not touched
                // by the program until this blocking call returns.
                let rt = unsafe { recv_target(buf, &ra) };
                // the receive first, as MPICH's MPIR_Sendrecv_replace_impl
                let r = w.start_recv(&ra, rt);
                let s = w.start_send(&sa, sp, crate::p2p::SendMode::Standard)?;
                vec![s, r]
            }
        };
        let c = w.finish_sendrecv(reqs, &mut parked)?;
        // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
        unsafe { put_status(status, &c.status) };
        c.error.map_or(Ok(()), Err)
    })
}

mpi_fn! {
    fn MPI_Sendrecv_replace / PMPI_Sendrecv_replace(
        buf: *mut c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, sendtag: c_int,
        source: c_int, recvtag: c_int, comm: MPI_Comm, status: *mut MPI_Status,
    ) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe {
            sendrecv_replace("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag,
                             source, recvtag, comm, status)
        }
    }
}

mpi_fn! {
    fn MPI_Sendrecv_replace_c / PMPI_Sendrecv_replace_c(
        buf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, sendtag: c_int,
        source: c_int, recvtag: c_int, comm: MPI_Comm, status: *mut MPI_Status,
    ) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe {
            sendrecv_replace("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag,
                             source, recvtag, comm, status)
        }
    }
}

mpi_fn! {
    fn MPI_Probe / PMPI_Probe(source: c_int, tag: c_int, comm: MPI_Comm, status: *mut MPI_Status) -> c_int {
        call_mut("MPI_Probe", comm, |w| {
            let st = w.probe(comm, source, tag)?;
            // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
            unsafe { put_status(status, &st) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Iprobe / PMPI_Iprobe(source: c_int, tag: c_int, comm: MPI_Comm, flag: *mut c_int, status: *mut MPI_Status) -> c_int {
        call("MPI_Iprobe", comm, |w| {
            // SAFETY: null or a valid int pointer (caller).
            let f = unsafe { out(flag, "flag") }?;
            match w.iprobe(comm, source, tag)? {
                Some(st) => {
                    *f = 1;
                    // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
                    unsafe { put_status(status, &st) };
                }
                None => *f = 0,
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Buffer_attach / PMPI_Buffer_attach(buffer: *mut c_void, size: c_int) -> c_int {
        call("MPI_Buffer_attach", sys::MPI_COMM_WORLD, |w| w.bsend.attach(buffer as usize, size))
    }
}

mpi_fn! {
    /// `buffer_addr` is really a `void **` (MPI's signature says `void *`):
    /// the attached buffer's address is stored there.
    fn MPI_Buffer_detach / PMPI_Buffer_detach(buffer_addr: *mut c_void, size: *mut c_int) -> c_int {
        call("MPI_Buffer_detach", sys::MPI_COMM_WORLD, |w| {
            // SAFETY: MPI passes the address of a `void *` here; null is rejected.
            let addr = unsafe { out(buffer_addr as *mut *mut c_void, "buffer_addr") }?;
            // SAFETY: null or a valid int pointer (caller).
            let n = unsafe { out(size, "size") }?;
            let (a, s) = w.bsend.detach();
            *addr = a as *mut c_void;
            *n = s as c_int;
            Ok(())
        })
    }
}
