//! Communicator info and group-collective creation: MPI_Comm_set_info,
//! MPI_Comm_get_info, MPI_Comm_dup_with_info (with the attributes' copy
//! callbacks, as MPI_Comm_dup), MPI_Comm_create_group. The semantics are
//! in `mpi::comm_info` and `mpi::comm_group`.
use crate::abi::buffers::out;
use crate::abi::callbacks::{call_with, callback_error, raise, run_copy};
use crate::abi::state::call;
use crate::mpi::error::MpiResult;
use crate::mpi::info::{infos, Info};
use crate::sys::{self, MPI_Comm, MPI_Group, MPI_Info};
use std::os::raw::c_int;

/// A copy of the info object behind `h` (None for MPI_INFO_NULL when
/// `null_ok`); MPI_ERR_ARG / MPI_ERR_INFO for a bad handle.
pub(crate) fn info_arg(h: MPI_Info, null_ok: bool) -> MpiResult<Option<Info>> {
    let t = infos();
    if null_ok {
        Ok(t.get_or_null(h)?.cloned())
    } else {
        Ok(Some(t.get(h)?.clone()))
    }
}

mpi_fn! {
    fn MPI_Comm_set_info / PMPI_Comm_set_info(comm: MPI_Comm, info: MPI_Info) -> c_int {
        call("MPI_Comm_set_info", comm, |w| {
            w.comms.get(comm)?;
            let i = info_arg(info, false)?.expect("not null");
            w.comm_set_info(comm, &i)
        })
    }
}

mpi_fn! {
    /// A new info object with every hint vaced honours and its value.
    fn MPI_Comm_get_info / PMPI_Comm_get_info(comm: MPI_Comm, info_used: *mut MPI_Info) -> c_int {
        call("MPI_Comm_get_info", comm, |w| {
            let i = w.comm_get_info(comm)?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(info_used, "info_used") }?;
            *o = infos().insert(i);
            Ok(())
        })
    }
}

mpi_fn! {
    /// As MPI_Comm_dup (copy callbacks outside the lock, then the context-id
    /// agreement over `comm`), with the hints of `info` instead of the
    /// parent's.
    fn MPI_Comm_dup_with_info / PMPI_Comm_dup_with_info(comm: MPI_Comm, info: MPI_Info, newcomm: *mut MPI_Comm) -> c_int {
        // MPI_THREAD_MULTIPLE: MPI_Comm_idup and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::comm_idup::PMPI_Comm_idup_with_info(comm, info, newcomm, req) }
        }) {
            return rc;
        }
        let name = "MPI_Comm_dup_with_info";
        let (calls, hints) = match call_with(name, comm, |w| {
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(newcomm, "newcomm") }?;
            let calls = w.comms.copy_calls(comm)?;
            let i = info_arg(info, true)?;
            if calls.is_empty() {
                *o = w.comm_dup_with_info(comm, Vec::new(), i.as_ref())?;
            }
            Ok((calls, i))
        }) {
            Ok((c, _)) if c.is_empty() => return sys::MPI_SUCCESS,
            Ok(x) => x,
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
            let h = w.comm_dup_with_info(comm, attrs, hints.as_ref())?;
            // SAFETY: checked non-null above; valid by the caller's contract.
            unsafe { newcomm.write(h) };
            Ok(())
        })
    }
}

mpi_fn! {
    /// Collective over the members of `group` only (see `mpi::comm_group`).
    fn MPI_Comm_create_group / PMPI_Comm_create_group(comm: MPI_Comm, group: MPI_Group, tag: c_int, newcomm: *mut MPI_Comm) -> c_int {
        let name = "MPI_Comm_create_group";
        // MPI_THREAD_MULTIPLE: the agreement as a request, and a wait
        let mt = crate::abi::threads::via_request(|req| {
            call(name, comm, |w| {
                w.comms.get(comm)?;
                // SAFETY: null or a valid handle pointer (caller).
                let o = unsafe { out(newcomm, "newcomm") }?;
                let (h, r) = w.comm_create_group_start(comm, group, tag)?;
                *o = h;
                // SAFETY: `req` points to via_request's own request.
                unsafe { req.write(r) };
                Ok(())
            })
        });
        if let Some(rc) = mt {
            return rc;
        }
        call(name, comm, |w| {
            w.comms.get(comm)?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(newcomm, "newcomm") }?;
            *o = w.comm_create_group(comm, group, tag)?;
            Ok(())
        })
    }
}
