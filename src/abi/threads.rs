//! Thread support at the ABI: the thread levels (MPI_Init_thread provides
//! up to MPI_THREAD_MULTIPLE; MPI_Query_thread, MPI_Is_thread_main live in
//! `abi::env`) and the bookkeeping `abi::state` does around each call under
//! MPI_THREAD_MULTIPLE (see `transport::threads` and
//! `p2p::core::yielding`): threads that call MPI are registered, parked
//! while their blocking call is suspended, and woken when another call
//! releases the library.
use crate::transport::threads as t;

pub(crate) use t::multi;

/// Count the calling thread as one that calls MPI (MULTIPLE mode).
pub(crate) fn register() {
    if t::multi() {
        t::register();
    }
}

/// A thread waits for the lock: wake its holder.
pub(crate) fn want_begin() {
    t::want_begin();
}

/// The waiting thread has the lock.
pub(crate) fn want_end() {
    t::want_end();
}

/// A call released the library: parked threads try again.
pub(crate) fn released() {
    if t::multi() {
        t::bump();
    }
}

/// The calling thread's blocking call was suspended and it is about to
/// release the library: the generation to wait past.
pub(crate) fn suspend_begin() -> u64 {
    t::suspend()
}

/// Wait, the library released, until another call has released it after
/// ours (something may have changed for our wait), then go on.
pub(crate) fn suspend_end(seen: u64) {
    t::wait_generation(seen);
}

/// A blocking collective or communicator constructor under
/// MPI_THREAD_MULTIPLE: it runs as its nonblocking form (`start` writes
/// the request, e.g. PMPI_Iallreduce) followed by MPI_Wait, whose wait
/// other threads of the rank may interrupt (see `abi::state::call_mut`),
/// so two threads of a rank can each block in a collective on its own
/// communicator at the same time. MPI allows it: a blocking collective
/// behaves as the nonblocking one completed at once. Timing is then the
/// nonblocking schedule's (`coll::nonblocking`). None outside MULTIPLE
/// (the caller runs the blocking algorithm).
pub(crate) fn via_request(
    start: impl FnOnce(*mut crate::sys::MPI_Request) -> std::os::raw::c_int,
) -> Option<std::os::raw::c_int> {
    use crate::sys;
    if !t::multi() {
        return None;
    }
    let mut req = sys::MPI_REQUEST_NULL;
    let rc = start(&mut req);
    if rc != sys::MPI_SUCCESS || req == sys::MPI_REQUEST_NULL {
        return Some(rc);
    }
    // SAFETY: `req` is the live request `start` just wrote; the status is
    // ignored (MPI_STATUS_IGNORE is the sentinel PMPI_Wait accepts).
    Some(unsafe { crate::abi::wait::PMPI_Wait(&mut req, crate::abi::MPI_STATUS_IGNORE) })
}
