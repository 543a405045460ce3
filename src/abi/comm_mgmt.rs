//! Communicator management: MPI_Comm_dup (with the attributes' copy
//! callbacks), MPI_Comm_split, MPI_Comm_split_type, MPI_Comm_create,
//! MPI_Comm_free (with the delete callbacks), MPI_Comm_compare,
//! MPI_Comm_group, MPI_Comm_test_inter, MPI_Comm_get_name / set_name.
use crate::abi::buffers::{input, out, put_cstr};
use crate::abi::callbacks::{call_with, callback_error, raise, run_copy, run_deletes};
use crate::abi::state::call;
use crate::mpi::error::fail;
use crate::sys::{self, MPI_Comm, MPI_Group, MPI_Info};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

mpi_fn! {
    /// Copy callbacks first (outside the lock), then the collective
    /// context-id agreement over `comm`.
    fn MPI_Comm_dup / PMPI_Comm_dup(comm: MPI_Comm, newcomm: *mut MPI_Comm) -> c_int {
        // MPI_THREAD_MULTIPLE: MPI_Comm_idup and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::comm_idup::PMPI_Comm_idup(comm, newcomm, req) }
        }) {
            return rc;
        }
        let name = "MPI_Comm_dup";
        let calls = match call_with(name, comm, |w| {
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(newcomm, "newcomm") }?;
            let calls = w.comms.copy_calls(comm)?;
            if calls.is_empty() {
                // no callback to run: done in one step
                *o = w.comm_dup(comm, Vec::new())?;
            }
            Ok(calls)
        }) {
            Ok(c) if c.is_empty() => return sys::MPI_SUCCESS,
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
            let h = w.comm_dup(comm, attrs)?;
            // SAFETY: checked non-null above; valid by the caller's contract.
            unsafe { newcomm.write(h) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Comm_split / PMPI_Comm_split(comm: MPI_Comm, color: c_int, key: c_int, newcomm: *mut MPI_Comm) -> c_int {
        call("MPI_Comm_split", comm, |w| {
            w.comms.get(comm)?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(newcomm, "newcomm") }?;
            *o = w.comm_split(comm, color, key)?;
            Ok(())
        })
    }
}

mpi_fn! {
    /// The hints of `info` (MPI_INFO_NULL or an info object) go to the new
    /// communicator, as MPICH does (see `mpi::comm_info`).
    fn MPI_Comm_split_type / PMPI_Comm_split_type(comm: MPI_Comm, split_type: c_int, key: c_int, info: MPI_Info, newcomm: *mut MPI_Comm) -> c_int {
        call("MPI_Comm_split_type", comm, |w| {
            w.comms.get(comm)?;
            let i = crate::abi::comm_info::info_arg(info, true)?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(newcomm, "newcomm") }?;
            let resource = i
                .as_ref()
                .and_then(|i| i.get("mpi_hw_resource_type"))
                .map(str::to_string);
            *o = w.comm_split_type(comm, split_type, key, resource.as_deref())?;
            if split_type == sys::MPI_COMM_TYPE_HW_UNGUIDED
                && *o != sys::MPI_COMM_NULL
                && info != sys::MPI_INFO_NULL
            {
                // MPI-4: the info (in and out) names the resource type
                crate::mpi::info::with_infos(|t| {
                    t.get_mut(info)?
                        .set("mpi_hw_resource_type", crate::mpi::comm_create::HW_SHARED_MEMORY)
                })?;
            }
            if let (Some(i), true) = (i, *o != sys::MPI_COMM_NULL) {
                w.comm_set_info(*o, &i)?;
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Comm_create / PMPI_Comm_create(comm: MPI_Comm, group: MPI_Group, newcomm: *mut MPI_Comm) -> c_int {
        // MPI_THREAD_MULTIPLE, on an intracommunicator: the agreement as a
        // request, and a wait
        let mt = crate::abi::threads::via_request(|req| {
            call("MPI_Comm_create", comm, |w| {
                let inter = w.comms.get(comm)?.is_inter();
                // SAFETY: null or a valid handle pointer (caller).
                let o = unsafe { out(newcomm, "newcomm") }?;
                let r = if inter {
                    *o = w.comm_create(comm, group)?;
                    sys::MPI_REQUEST_NULL
                } else {
                    let (h, r) = w.comm_create_start(comm, group)?;
                    *o = h;
                    r
                };
                // SAFETY: `req` points to via_request's own request.
                unsafe { req.write(r) };
                Ok(())
            })
        });
        if let Some(rc) = mt {
            return rc;
        }
        call("MPI_Comm_create", comm, |w| {
            w.comms.get(comm)?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(newcomm, "newcomm") }?;
            *o = w.comm_create(comm, group)?;
            Ok(())
        })
    }
}

mpi_fn! {
    /// Delete callbacks first (outside the lock, in the reverse order of
    /// setting); if one fails, the communicator stays (without the
    /// attributes already deleted) and its error is returned.
    fn MPI_Comm_free / PMPI_Comm_free(comm: *mut MPI_Comm) -> c_int {
        let name = "MPI_Comm_free";
        // SAFETY: null or a valid handle pointer (caller).
        let h = match unsafe { input(comm, "comm") } {
            Ok(h) => *h,
            Err(e) => return raise(name, sys::MPI_COMM_WORLD, e),
        };
        let calls = match call_with(name, h, |w| {
            w.comms.freeable(h)?;
            let calls = w.comms.delete_calls(h)?;
            if calls.iter().all(|d| d.delete.is_none()) {
                // no callback to run: done in one step
                w.comms.free(h)?;
                // SAFETY: read above, so valid for writing too (caller's contract).
                unsafe { comm.write(sys::MPI_COMM_NULL) };
                return Ok(None);
            }
            Ok(Some(calls))
        }) {
            Ok(Some(c)) => c,
            Ok(None) => return sys::MPI_SUCCESS,
            Err(rc) => return rc,
        };
        // SAFETY: callbacks the program registered.
        let (done, failed) = unsafe { run_deletes(h, &calls) };
        call(name, h, |w| {
            if let Some(e) = failed {
                w.comms.drop_attrs(h, &done)?;
                return Err(e);
            }
            w.comms.free(h)?;
            // SAFETY: read above, so valid for writing too (caller's contract).
            unsafe { comm.write(sys::MPI_COMM_NULL) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Comm_compare / PMPI_Comm_compare(comm1: MPI_Comm, comm2: MPI_Comm, result: *mut c_int) -> c_int {
        call("MPI_Comm_compare", comm1, |w| {
            let r = w.comms.compare(comm1, comm2)?;
            // SAFETY: null or a valid int pointer (caller).
            *unsafe { out(result, "result") }? = r;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Comm_group / PMPI_Comm_group(comm: MPI_Comm, group: *mut MPI_Group) -> c_int {
        call("MPI_Comm_group", comm, |w| {
            let g = w.comms.get(comm)?.group.clone();
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(group, "group") }?;
            *o = w.comms.groups.insert(g);
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Comm_test_inter / PMPI_Comm_test_inter(comm: MPI_Comm, flag: *mut c_int) -> c_int {
        call("MPI_Comm_test_inter", comm, |w| {
            let inter = w.comms.get(comm)?.is_inter();
            // SAFETY: null or a valid int pointer (caller).
            *unsafe { out(flag, "flag") }? = c_int::from(inter);
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Comm_get_name / PMPI_Comm_get_name(comm: MPI_Comm, comm_name: *mut c_char, resultlen: *mut c_int) -> c_int {
        call("MPI_Comm_get_name", comm, |w| {
            let c = w.comms.get(comm)?;
            if comm_name.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as comm_name");
            }
            // SAFETY: null or a valid int pointer (caller).
            let len = unsafe { out(resultlen, "resultlen") }?;
            // SAFETY: MPI requires comm_name to hold MPI_MAX_OBJECT_NAME chars.
            *len = unsafe { put_cstr(comm_name, sys::MPI_MAX_OBJECT_NAME as usize, &c.name) };
            Ok(())
        })
    }
}

mpi_fn! {
    /// Names longer than MPI_MAX_OBJECT_NAME - 1 bytes are truncated.
    fn MPI_Comm_set_name / PMPI_Comm_set_name(comm: MPI_Comm, comm_name: *const c_char) -> c_int {
        call("MPI_Comm_set_name", comm, |w| {
            let c = w.comms.get_mut(comm)?;
            if comm_name.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as comm_name");
            }
            // SAFETY: non-null; MPI requires a NUL-terminated string.
            let s = unsafe { CStr::from_ptr(comm_name) }.to_string_lossy();
            let mut end = s.len().min(sys::MPI_MAX_OBJECT_NAME as usize - 1);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            c.name = s[..end].to_string();
            Ok(())
        })
    }
}
