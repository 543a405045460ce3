//! Generalized requests: MPI_Grequest_start, MPI_Grequest_complete, and the
//! program's callbacks, run with the state lock released (they may call MPI,
//! e.g. MPI_Status_set_elements): [`around`] wraps every Wait / Test /
//! Request_get_status call, running the query callbacks of the completed
//! generalized requests it names before it and the free callbacks of those
//! it finished after it (see `mpi::grequest`). Time spent in a callback is
//! the program's own computation.
use crate::abi::buffers::out;
use crate::abi::callbacks::raise;
use crate::abi::state::{call, lock};
use crate::mpi::error::MpiError;
use crate::mpi::grequest::Hooks;
use crate::mpi::status::empty_status;
use crate::ranks::local::RankLocal;
use crate::sys::{self, MPI_Request, MPI_Status};
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Set by the rank's first MPI_Grequest_start: until then [`around`] does
/// nothing.
static IN_USE: RankLocal<AtomicBool> = RankLocal::new(|| AtomicBool::new(false));

pub(crate) fn mark_in_use() {
    IN_USE.get().store(true, Ordering::Relaxed);
}

/// Run `body`, a Wait / Test call on the `count` requests at `hs`, with the
/// query callbacks of completed generalized requests run before it and the
/// free callbacks of the ones it finished (or freed) after it. A free
/// callback's error code becomes the call's error.
pub(crate) fn around(
    hs: *const MPI_Request,
    count: c_int,
    name: &str,
    body: impl FnOnce() -> c_int,
) -> c_int {
    if !IN_USE.get().load(Ordering::Relaxed) {
        return body();
    }
    if crate::abi::threads::multi() && name.starts_with("MPI_Wait") {
        wait_for_other_threads(hs, count, name != "MPI_Waitany" && name != "MPI_Waitsome");
    }
    let todo = {
        let g = lock();
        match g.0.as_ref() {
            Some(w) if w.running() && !hs.is_null() && count > 0 => {
                // SAFETY: MPI's contract for the call's request array: `count`
                // readable handles (the call itself validates them).
                let v = unsafe { std::slice::from_raw_parts(hs, count as usize) };
                w.greqs_to_query(v)
            }
            _ => Vec::new(),
        }
    };
    for (gi, hooks) in todo {
        let mut st = empty_status();
        let rc = hooks.query(&mut st);
        let mut g = lock();
        if let Some(w) = g.0.as_mut() {
            w.greqs.get_mut(gi).queried = Some((st, rc));
        }
    }
    let rc = body();
    run_frees(name, rc)
}

/// MPI_THREAD_MULTIPLE: while a Wait on the `count` requests at `hs` would
/// wait for a generalized request that is not complete, and another thread
/// may complete it, park until another call has released the library.
fn wait_for_other_threads(hs: *const MPI_Request, count: c_int, all: bool) {
    loop {
        let seen = {
            let g = lock();
            let stuck = match g.0.as_ref() {
                Some(w) if w.running() && !hs.is_null() && count > 0 => {
                    // SAFETY: as in `around`.
                    let v = unsafe { std::slice::from_raw_parts(hs, count as usize) };
                    w.waits_for_greq(v, all) && w.ep.others_may_call()
                }
                _ => false,
            };
            if !stuck {
                return;
            }
            crate::abi::threads::suspend_begin()
        };
        crate::abi::threads::suspend_end(seen);
    }
}

/// Run the free callbacks due; the call's return code (or a callback's).
pub(crate) fn run_frees(name: &str, mut rc: c_int) -> c_int {
    let due = {
        let mut g = lock();
        match g.0.as_mut() {
            Some(w) => std::mem::take(&mut w.greqs.due_free),
            None => Vec::new(),
        }
    };
    for h in due {
        let r = h.free();
        if r != sys::MPI_SUCCESS && rc == sys::MPI_SUCCESS {
            let e = MpiError::new(
                r,
                format!("the free callback of a generalized request returned error code {r}"),
            );
            rc = raise(name, sys::MPI_COMM_WORLD, e);
        }
    }
    rc
}

/// The C callbacks of a generalized request.
struct CHooks {
    query: sys::MPI_Grequest_query_function,
    free: sys::MPI_Grequest_free_function,
    cancel: sys::MPI_Grequest_cancel_function,
    extra: usize,
}

impl Hooks for CHooks {
    fn query(&self, st: &mut MPI_Status) -> c_int {
        match self.query {
            // SAFETY: the program's query function, called as the standard
            // says: its extra_state and a status it may fill.
            Some(f) => unsafe { f(self.extra as *mut c_void, st) },
            None => sys::MPI_SUCCESS,
        }
    }
    fn free(&self) -> c_int {
        match self.free {
            // SAFETY: the program's free function with its extra_state.
            Some(f) => unsafe { f(self.extra as *mut c_void) },
            None => sys::MPI_SUCCESS,
        }
    }
    fn cancel(&self, complete: bool) -> c_int {
        match self.cancel {
            // SAFETY: the program's cancel function with its extra_state.
            Some(f) => unsafe { f(self.extra as *mut c_void, complete as c_int) },
            None => sys::MPI_SUCCESS,
        }
    }
}

/// Start a generalized request with `hooks`.
///
/// # Safety
/// `request` is null or writable.
pub(crate) unsafe fn start(name: &str, hooks: Arc<dyn Hooks>, request: *mut MPI_Request) -> c_int {
    call(name, sys::MPI_COMM_WORLD, |w| {
        // SAFETY: null or a valid request pointer (caller).
        let r = unsafe { out(request, "request") }?;
        *r = w.grequest_start(hooks)?;
        mark_in_use();
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Grequest_start / PMPI_Grequest_start(
        query_fn: sys::MPI_Grequest_query_function,
        free_fn: sys::MPI_Grequest_free_function,
        cancel_fn: sys::MPI_Grequest_cancel_function,
        extra_state: *mut c_void,
        request: *mut MPI_Request,
    ) -> c_int {
        let hooks = Arc::new(CHooks { query: query_fn, free: free_fn, cancel: cancel_fn, extra: extra_state as usize });
        // SAFETY: the caller's request pointer, passed on.
        unsafe { start("MPI_Grequest_start", hooks, request) }
    }
}

mpi_fn! {
    fn MPI_Grequest_complete / PMPI_Grequest_complete(request: MPI_Request) -> c_int {
        call("MPI_Grequest_complete", sys::MPI_COMM_WORLD, |w| w.grequest_complete(request))
    }
}

/// MPI_Cancel's part for generalized requests: run the cancel callback
/// (lock released). None when `h` is not a generalized request.
pub(crate) fn cancel(h: MPI_Request) -> Option<c_int> {
    let (hooks, complete) = {
        let g = lock();
        g.0.as_ref()?.greq_cancel_hook(h)?
    };
    let r = hooks.cancel(complete);
    if r == sys::MPI_SUCCESS {
        return Some(r);
    }
    let e = MpiError::new(
        r,
        format!("the cancel callback of generalized request {h:#x} returned error code {r}"),
    );
    Some(raise("MPI_Cancel", sys::MPI_COMM_WORLD, e))
}
