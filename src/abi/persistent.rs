//! Persistent requests: MPI_Send_init, MPI_Bsend_init, MPI_Ssend_init,
//! MPI_Rsend_init, MPI_Recv_init, MPI_Start, MPI_Startall. The arguments
//! are checked at the init call; each Start reads (or packs) the user's
//! buffer anew, as MPI_Isend / MPI_Irecv would at that moment.
use crate::abi::buffers::{out, recv_target, send_payload};
use crate::abi::state::call;
use crate::p2p::SendMode;
use crate::sys::{MPI_Comm, MPI_Datatype, MPI_Request};
use std::os::raw::{c_int, c_void};

/// A persistent send in `mode`.
///
/// # Safety
/// MPI's contract for `buf` (count elements of datatype, valid whenever the
/// request is started and until it completes) and `request` (null or
/// writable).
#[allow(clippy::too_many_arguments)]
unsafe fn send_init(
    name: &str,
    buf: *const c_void,
    count: c_int,
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
        let (addr, args) = (buf as usize, a.clone());
        let payload = Box::new(move || {
            // SAFETY: MPI's rule for persistent sends: the buffer holds the
            // checked elements when the request is started and stays valid
            // and unmodified until it completes.
            unsafe { send_payload(addr as *const c_void, &args) }
        });
        *r = w.send_init(a, mode, payload);
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Send_init / PMPI_Send_init(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { send_init("MPI_Send_init", buf, count, datatype, dest, tag, comm, request, SendMode::Standard) }
    }
}

mpi_fn! {
    fn MPI_Bsend_init / PMPI_Bsend_init(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { send_init("MPI_Bsend_init", buf, count, datatype, dest, tag, comm, request, SendMode::Buffered) }
    }
}

mpi_fn! {
    fn MPI_Ssend_init / PMPI_Ssend_init(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { send_init("MPI_Ssend_init", buf, count, datatype, dest, tag, comm, request, SendMode::Synchronous) }
    }
}

mpi_fn! {
    fn MPI_Rsend_init / PMPI_Rsend_init(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { send_init("MPI_Rsend_init", buf, count, datatype, dest, tag, comm, request, SendMode::Ready) }
    }
}

mpi_fn! {
    fn MPI_Recv_init / PMPI_Recv_init(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        call("MPI_Recv_init", comm, |w| {
            let a = w.recv_args(comm, count, datatype, source, tag, buf.is_null())?;
            // SAFETY: null or a valid request pointer (caller).
            let r = unsafe { out(request, "request") }?;
            let (addr, args) = (buf as usize, a.clone());
            let target = Box::new(move || {
                // SAFETY: MPI's rule for persistent receives: the buffer has
                // room for the checked elements whenever the request is
                // started, and is not touched by the program until it completes.
                unsafe { recv_target(addr as *mut c_void, &args) }
            });
            *r = w.recv_init(a, target);
            Ok(())
        })
    }
}

/// Start persistent request `*h`: a collective through its nonblocking
/// call, with the lock released (that call takes it), the request it
/// starts then becoming `*h`'s active state; anything else as MPI_Isend /
/// MPI_Irecv would start.
///
/// # Safety
/// `h` points to a request handle (checked by the caller).
unsafe fn start_one(name: &str, h: MPI_Request) -> c_int {
    let mut starter = None;
    let rc = call(name, crate::sys::MPI_COMM_WORLD, |w| {
        starter = w.coll_starter(h)?;
        if starter.is_none() {
            w.start(h)?;
        }
        Ok(())
    });
    let Some(starter) = starter.filter(|_| rc == crate::sys::MPI_SUCCESS) else {
        return rc;
    };
    let mut started = crate::sys::MPI_REQUEST_NULL;
    let rc = starter(&mut started);
    if rc != crate::sys::MPI_SUCCESS {
        return rc;
    }
    call(name, crate::sys::MPI_COMM_WORLD, |w| {
        w.adopt_started(h, started)
    })
}

mpi_fn! {
    fn MPI_Start / PMPI_Start(request: *mut MPI_Request) -> c_int {
        let mut h = crate::sys::MPI_REQUEST_NULL;
        let rc = call("MPI_Start", crate::sys::MPI_COMM_WORLD, |_| {
            // SAFETY: null or a valid request pointer (caller).
            h = *unsafe { out(request, "request") }?;
            Ok(())
        });
        if rc != crate::sys::MPI_SUCCESS {
            return rc;
        }
        // SAFETY: a handle read from the caller's pointer.
        unsafe { start_one("MPI_Start", h) }
    }
}

mpi_fn! {
    /// Every request is checked first, then each is started in order.
    fn MPI_Startall / PMPI_Startall(count: c_int, array_of_requests: *mut MPI_Request) -> c_int {
        let mut hs = Vec::new();
        let rc = call("MPI_Startall", crate::sys::MPI_COMM_WORLD, |w| {
            // SAFETY: null or an array of count requests (caller).
            hs = unsafe { crate::abi::buffers::requests(array_of_requests, count) }?.to_vec();
            w.start_all_check(&hs)
        });
        if rc != crate::sys::MPI_SUCCESS {
            return rc;
        }
        for h in hs {
            // SAFETY: handles read from the caller's array.
            let rc = unsafe { start_one("MPI_Startall", h) };
            if rc != crate::sys::MPI_SUCCESS {
                return rc;
            }
        }
        crate::sys::MPI_SUCCESS
    }
}
