//! MPI_Comm_idup and MPI_Comm_idup_with_info: the attributes' copy
//! callbacks run in the call (outside the lock, as for MPI_Comm_dup), then
//! the nonblocking context-id agreement starts (`mpi::comm_idup`).
use crate::abi::buffers::out;
use crate::abi::callbacks::{call_with, callback_error, raise, run_copy};
use crate::abi::comm_info::info_arg;
use crate::abi::state::call;
use crate::sys::{MPI_Comm, MPI_Info, MPI_Request};
use std::os::raw::c_int;

/// Both calls; `info` None for MPI_Comm_idup (the parent's hints).
///
/// # Safety
/// `newcomm` and `request` are null or writable (MPI's contract).
unsafe fn idup(
    name: &str,
    comm: MPI_Comm,
    info: Option<MPI_Info>,
    newcomm: *mut MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    let calls = match call_with(name, comm, |w| {
        // SAFETY: null or valid pointers (caller).
        unsafe { out(newcomm, "newcomm") }?;
        // SAFETY: as above.
        unsafe { out(request, "request") }?;
        if let Some(i) = info {
            info_arg(i, true)?;
        }
        w.comms.copy_calls(comm)
    }) {
        Ok(c) => c,
        Err(rc) => return rc,
    };
    let mut attrs = Vec::with_capacity(calls.len());
    for c in &calls {
        // SAFETY: a callback the program registered for this keyval.
        match unsafe { run_copy(comm, c) } {
            Ok(Some(v)) => attrs.push(v),
            Ok(None) => {}
            Err(code) => return raise(name, comm, callback_error("copy", c.keyval, code)),
        }
    }
    call(name, comm, |w| {
        let i = match info {
            Some(i) => Some(info_arg(i, true)?),
            None => None,
        };
        let (h, r) = w.comm_idup(comm, attrs, i.as_ref().map(|x| x.as_ref()))?;
        // SAFETY: checked non-null above; valid by the caller's contract.
        unsafe {
            newcomm.write(h);
            request.write(r);
        }
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Comm_idup / PMPI_Comm_idup(comm: MPI_Comm, newcomm: *mut MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { idup("MPI_Comm_idup", comm, None, newcomm, request) }
    }
}

mpi_fn! {
    /// The hints of `info` go to the new communicator (MPI-4).
    fn MPI_Comm_idup_with_info / PMPI_Comm_idup_with_info(comm: MPI_Comm, info: MPI_Info, newcomm: *mut MPI_Comm, request: *mut MPI_Request) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { idup("MPI_Comm_idup_with_info", comm, Some(info), newcomm, request) }
    }
}
