//! MPI_Isendrecv / MPI_Isendrecv_replace, MPI_Request_get_status and the
//! status setters (MPI_Status_set_elements(_x), MPI_Status_set_cancelled).
use crate::abi::buffers::{out, packed_payload, put_status, recv_target, send_payload};
use crate::abi::grequest::around;
use crate::abi::state::call;
use crate::abi::typed_mem::elems;
use crate::mpi::error::fail;
use crate::mpi::status::{elements_bytes, set_bytes, set_cancelled};
use crate::sys::{self, MPI_Comm, MPI_Count, MPI_Datatype, MPI_Request, MPI_Status};
use std::os::raw::{c_int, c_void};

const WORLD: MPI_Comm = sys::MPI_COMM_WORLD;

mpi_fn! {
    fn MPI_Isendrecv / PMPI_Isendrecv(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, dest: c_int, sendtag: c_int,
        recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, source: c_int, recvtag: c_int,
        comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Isendrecv", comm, |w| {
            let sa = w.send_args(comm, sendcount, sendtype, dest, sendtag, sendbuf.is_null())?;
            let ra = w.recv_args(comm, recvcount, recvtype, source, recvtag, recvbuf.is_null())?;
            // SAFETY: null or a valid request pointer (caller).
            let r = unsafe { out(request, "request") }?;
            // SAFETY: both buffers hold / have room for their checked elements
            // and stay valid (the receive buffer untouched, the send buffer
            // unmodified) until the request completes (MPI's rule).
            let (sp, rt) = unsafe { (send_payload(sendbuf, &sa), recv_target(recvbuf, &ra)) };
            let req = w.isendrecv(&sa, sp, &ra, rt)?;
            *r = w.reqs.insert(req);
            Ok(())
        })
    }
}

mpi_fn! {
    /// The outgoing data is packed into a private copy at the call, so the
    /// receive can land in the same buffer.
    fn MPI_Isendrecv_replace / PMPI_Isendrecv_replace(
        buf: *mut c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, sendtag: c_int,
        source: c_int, recvtag: c_int, comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Isendrecv_replace", comm, |w| {
            let sa = w.send_args(comm, count, datatype, dest, sendtag, buf.is_null())?;
            let ra = w.recv_args(comm, count, datatype, source, recvtag, buf.is_null())?;
            // SAFETY: null or a valid request pointer (caller).
            let r = unsafe { out(request, "request") }?;
            // SAFETY: buf holds count elements of datatype (checked non-null
            // unless empty); they are copied out now.
            let src = unsafe { elems(buf, &sa.ty, sa.count) };
            let sp = packed_payload(sa.ty.pack(src, sa.count));
            // SAFETY: buf has room for the elements and is not touched by the
            // program until the request completes (MPI's rule).
            let rt = unsafe { recv_target(buf, &ra) };
            let req = w.isendrecv(&sa, sp, &ra, rt)?;
            *r = w.reqs.insert(req);
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Request_get_status / PMPI_Request_get_status(request: MPI_Request, flag: *mut c_int, status: *mut MPI_Status) -> c_int {
        around(&request, 1, "MPI_Request_get_status", || {
            call("MPI_Request_get_status", WORLD, |w| {
                // SAFETY: null or a valid int pointer (caller).
                let f = unsafe { out(flag, "flag") }?;
                match w.request_get_status(request)? {
                    None => {
                        *f = 0;
                        Ok(())
                    }
                    Some(c) => {
                        *f = 1;
                        // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
                        unsafe { put_status(status, &c.status) };
                        c.error.map_or(Ok(()), Err)
                    }
                }
            })
        })
    }
}

/// The status a setter writes to (MPI_STATUS_IGNORE is not one).
///
/// # Safety
/// `status` is null, MPI_STATUS_IGNORE or valid for reads and writes.
unsafe fn status_out<'a>(status: *mut MPI_Status) -> crate::mpi::MpiResult<&'a mut MPI_Status> {
    if status == crate::abi::MPI_STATUS_IGNORE {
        return fail(sys::MPI_ERR_ARG, "MPI_STATUS_IGNORE passed as status");
    }
    // SAFETY: by the contract.
    unsafe { out(status, "status") }
}

/// MPI_Status_set_elements(_x).
///
/// # Safety
/// `status` is null, MPI_STATUS_IGNORE or valid for reads and writes.
unsafe fn set_elements(
    name: &str,
    status: *mut MPI_Status,
    datatype: MPI_Datatype,
    count: MPI_Count,
) -> c_int {
    call(name, WORLD, |w| {
        // SAFETY: by the contract.
        let st = unsafe { status_out(status) }?;
        let ty = w.types.get_any(datatype)?;
        let n = u64::try_from(count).or_else(|_| {
            fail(
                sys::MPI_ERR_COUNT,
                format!("invalid count {count} (negative)"),
            )
        })?;
        set_bytes(st, elements_bytes(&ty, n));
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Status_set_elements / PMPI_Status_set_elements(status: *mut MPI_Status, datatype: MPI_Datatype, count: c_int) -> c_int {
        // SAFETY: the caller's status pointer, passed on.
        unsafe { set_elements("MPI_Status_set_elements", status, datatype, count as MPI_Count) }
    }
}

mpi_fn! {
    fn MPI_Status_set_elements_x / PMPI_Status_set_elements_x(status: *mut MPI_Status, datatype: MPI_Datatype, count: MPI_Count) -> c_int {
        // SAFETY: the caller's status pointer, passed on.
        unsafe { set_elements("MPI_Status_set_elements_x", status, datatype, count) }
    }
}

mpi_fn! {
    fn MPI_Status_set_cancelled / PMPI_Status_set_cancelled(status: *mut MPI_Status, flag: c_int) -> c_int {
        call("MPI_Status_set_cancelled", WORLD, |_| {
            // SAFETY: the caller's status pointer.
            let st = unsafe { status_out(status) }?;
            set_cancelled(st, flag != 0);
            Ok(())
        })
    }
}
