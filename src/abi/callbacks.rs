//! The program's attribute callbacks (copy and delete functions of
//! keyvals), run with the state lock released (a callback may itself call
//! MPI), and the MPI calls that run in steps around them: check and collect
//! the callbacks under the lock, run them, then finish under the lock again.
//! Time spent in a callback is the program's own computation.
use crate::abi::fortran::attr::is_trampoline;
use crate::abi::state::{call, lock};
use crate::mpi::attr::{CopyCall, DeleteCall, NewValue};
use crate::mpi::error::{MpiError, MpiResult};
use crate::mpi::World;
use crate::sys::{self, MPI_Comm};
use std::os::raw::{c_int, c_void};

/// [`call`] for a body that returns a value: Err(the return code) when it
/// failed (under MPI_ERRORS_RETURN; a fatal error does not come back).
pub(crate) fn call_with<T>(
    name: &str,
    comm: MPI_Comm,
    f: impl FnOnce(&mut World) -> MpiResult<T>,
) -> Result<T, c_int> {
    let mut value = None;
    let rc = call(name, comm, |w| {
        value = Some(f(w)?);
        Ok(())
    });
    match value {
        Some(v) if rc == sys::MPI_SUCCESS => Ok(v),
        _ => Err(rc),
    }
}

/// Raise `e` from `name` on `comm`'s error handler; the return code.
pub(crate) fn raise(name: &str, comm: MPI_Comm, e: MpiError) -> c_int {
    call(name, comm, |_| Err(e))
}

/// A callback's error code as an MPI error.
pub(crate) fn callback_error(what: &str, keyval: c_int, code: c_int) -> MpiError {
    MpiError::new(
        code,
        format!("the {what} callback of keyval {keyval:#x} returned error code {code}"),
    )
}

/// The value a callback gets: C's view, or, for a Fortran callback (a
/// keyval made from Fortran) and for the predefined MPI_*_DUP_FN (which
/// copies the value as it is), the integer of an attribute set from
/// Fortran.
fn value_for(callback: usize, value: usize, integer: Option<isize>) -> *mut c_void {
    let dup = crate::abi::attr::MPIR_Dup_fn as *const () as usize;
    match integer {
        Some(i) if callback == dup || is_trampoline(callback) => i as *mut c_void,
        _ => value as *mut c_void,
    }
}

/// Run a copy callback for MPI_Comm_dup of `oldcomm` (or a datatype or
/// window duplication): the new value (of the kind of the old one, as in
/// MPICH), None when the callback says not to copy, Err(its code) when it
/// fails.
///
/// # Safety
/// The callback is one the program registered with MPI_Comm_create_keyval;
/// MPI's contract is that it may be called this way.
pub(crate) unsafe fn run_copy(oldcomm: MPI_Comm, c: &CopyCall) -> Result<Option<NewValue>, c_int> {
    let Some(f) = c.copy else {
        return Ok(None);
    };
    let value = value_for(f as usize, c.value, c.integer);
    let mut out: *mut c_void = std::ptr::null_mut();
    let mut flag: c_int = 0;
    // SAFETY: the program's callback, called with the arguments the standard
    // specifies: attribute_val_out points to a void *, flag to an int, both
    // live across the call.
    let rc = unsafe {
        f(
            oldcomm,
            c.keyval,
            c.extra_state as *mut c_void,
            value,
            &mut out as *mut *mut c_void as *mut c_void,
            &mut flag,
        )
    };
    if rc != sys::MPI_SUCCESS {
        return Err(rc);
    }
    Ok((flag != 0).then_some(NewValue {
        keyval: c.keyval,
        value: out as usize,
        integer: c.integer.is_some(),
    }))
}

/// Run a delete callback (none: nothing to do); Err(its code) on failure.
///
/// # Safety
/// As for [`run_copy`].
pub(crate) unsafe fn run_delete(comm: MPI_Comm, d: &DeleteCall) -> Result<(), c_int> {
    let Some(f) = d.delete else {
        return Ok(());
    };
    let value = value_for(f as usize, d.value, d.integer);
    // SAFETY: the program's callback, called as the standard specifies.
    let rc = unsafe { f(comm, d.keyval, value, d.extra_state as *mut c_void) };
    if rc == sys::MPI_SUCCESS {
        Ok(())
    } else {
        Err(rc)
    }
}

/// Run delete callbacks in order, stopping at the first failure: the
/// keyvals whose callbacks succeeded, and the failure (error) if any.
///
/// # Safety
/// As for [`run_copy`].
pub(crate) unsafe fn run_deletes(
    comm: MPI_Comm,
    calls: &[DeleteCall],
) -> (Vec<c_int>, Option<MpiError>) {
    let mut done = Vec::with_capacity(calls.len());
    for d in calls {
        // SAFETY: forwarded contract.
        if let Err(code) = unsafe { run_delete(comm, d) } {
            return (done, Some(callback_error("delete", d.keyval, code)));
        }
        done.push(d.keyval);
    }
    (done, None)
}

/// Start of MPI_Finalize: the attributes of MPI_COMM_SELF, then those of
/// MPI_COMM_WORLD, are deleted (MPI_COMM_SELF as if freed, in the reverse
/// order of setting), so that libraries that hang clean-up on them run it.
pub(crate) fn finalize_attributes() -> c_int {
    let name = "MPI_Finalize";
    let any = {
        let g = lock();
        g.0.as_ref().is_some_and(|w| {
            [sys::MPI_COMM_SELF, sys::MPI_COMM_WORLD]
                .iter()
                .any(|&c| w.comms.get(c).is_ok_and(|c| !c.attrs.is_empty()))
        })
    };
    if !any {
        // nothing to delete: no MPI activity (the virtual clock is untouched)
        return sys::MPI_SUCCESS;
    }
    for comm in [sys::MPI_COMM_SELF, sys::MPI_COMM_WORLD] {
        let calls = match call_with(name, comm, |w| w.comms.delete_calls(comm)) {
            Ok(c) => c,
            Err(rc) => return rc,
        };
        if calls.is_empty() {
            continue;
        }
        // SAFETY: callbacks the program registered.
        let (done, failed) = unsafe { run_deletes(comm, &calls) };
        let rc = call(name, comm, |w| {
            w.comms.drop_attrs(comm, &done)?;
            failed.map_or(Ok(()), Err)
        });
        if rc != sys::MPI_SUCCESS {
            return rc;
        }
    }
    sys::MPI_SUCCESS
}
