//! Matched probes: MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv (see
//! `mpi::message` for their semantics and timing).
use crate::abi::buffers::{out, put_status, recv_target};
use crate::abi::state::{call, call_mut};
use crate::mpi::blocking::Parked;
use crate::sys::{self, MPI_Comm, MPI_Datatype, MPI_Message, MPI_Request, MPI_Status};
use std::os::raw::{c_int, c_void};

mpi_fn! {
    fn MPI_Mprobe / PMPI_Mprobe(source: c_int, tag: c_int, comm: MPI_Comm, message: *mut MPI_Message, status: *mut MPI_Status) -> c_int {
        call_mut("MPI_Mprobe", comm, |w| {
            // SAFETY: null or a valid message pointer (caller).
            let m = unsafe { out(message, "message") }?;
            let (st, h) = w.mprobe(comm, source, tag)?;
            *m = h;
            // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
            unsafe { put_status(status, &st) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Improbe / PMPI_Improbe(source: c_int, tag: c_int, comm: MPI_Comm, flag: *mut c_int, message: *mut MPI_Message, status: *mut MPI_Status) -> c_int {
        call("MPI_Improbe", comm, |w| {
            // SAFETY: null or valid pointers (caller).
            let (f, m) = unsafe { (out(flag, "flag")?, out(message, "message")?) };
            match w.improbe(comm, source, tag)? {
                Some((st, h)) => {
                    *f = 1;
                    *m = h;
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
    fn MPI_Mrecv / PMPI_Mrecv(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, message: *mut MPI_Message, status: *mut MPI_Status) -> c_int {
        let mut parked: Parked = None;
        call_mut("MPI_Mrecv", sys::MPI_COMM_WORLD, |w| {
            let reqs = match parked.take() {
                Some(r) => r,
                None => {
                    // SAFETY: null or a valid message pointer (caller).
                    let m = unsafe { out(message, "message") }?;
                    let a = w.mrecv_args(*m, count, datatype, buf.is_null())?;
                    // SAFETY: buf has room for the checked elements and is not
                    // touched by the program until this blocking call returns.
                    let t = unsafe { recv_target(buf, &a) };
                    let req = w.start_mrecv(*m, &a, t);
                    *m = sys::MPI_MESSAGE_NULL;
                    vec![req]
                }
            };
            let c = w.wait_reqs(reqs, &mut parked)?.remove(0);
            // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
            unsafe { put_status(status, &c.status) };
            c.error.map_or(Ok(()), Err)
        })
    }
}

mpi_fn! {
    fn MPI_Imrecv / PMPI_Imrecv(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, message: *mut MPI_Message, request: *mut MPI_Request) -> c_int {
        call("MPI_Imrecv", sys::MPI_COMM_WORLD, |w| {
            // SAFETY: null or valid pointers (caller).
            let (m, r) = unsafe { (out(message, "message")?, out(request, "request")?) };
            let a = w.mrecv_args(*m, count, datatype, buf.is_null())?;
            // SAFETY: buf has room for the checked elements and stays valid
            // and untouched until the request completes (MPI's rule).
            let t = unsafe { recv_target(buf, &a) };
            let req = w.start_mrecv(*m, &a, t);
            *m = sys::MPI_MESSAGE_NULL;
            *r = w.reqs.insert(req);
            Ok(())
        })
    }
}

mpi_fn! {
    /// Handles are ints in C and Fortran alike: the identity.
    fn MPI_Message_c2f / PMPI_Message_c2f(message: MPI_Message) -> sys::MPI_Fint {
        message
    }
}

mpi_fn! {
    /// The identity (see MPI_Message_c2f).
    fn MPI_Message_f2c / PMPI_Message_f2c(message: sys::MPI_Fint) -> MPI_Message {
        message
    }
}
