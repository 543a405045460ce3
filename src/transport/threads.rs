//! The host threads of this rank's process that call MPI, for
//! MPI_THREAD_MULTIPLE: which are running (outside the library, or inside a
//! call that is not parked), whether one waits to enter the library, and how
//! such a thread wakes the rank's engine when another thread sleeps in a
//! blocking wait (a poke of the rank's own slot).
//!
//! Every value is process-wide (one rank per process). With a single thread,
//! or below MPI_THREAD_MULTIPLE, [`yield_requested`] and [`others_running`]
//! are always false and nothing here changes what the engine does.
use super::segment::Segment;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

/// MPI_THREAD_MULTIPLE was provided: blocking waits may be suspended.
static MULTI: AtomicBool = AtomicBool::new(false);
/// Threads waiting to enter the library.
static WANT: AtomicUsize = AtomicUsize::new(0);
/// Registered threads that are not parked in a blocking call.
static RUNNING: AtomicUsize = AtomicUsize::new(0);
/// Registered threads alive.
static REGISTERED_ALIVE: AtomicUsize = AtomicUsize::new(0);
/// Threads of the process that never called MPI, at the last [`refresh`]:
/// they may (a thread's first call), so they count as running.
static UNREGISTERED: AtomicUsize = AtomicUsize::new(0);
/// The rank's segment and rank, to wake the engine from any thread.
static WAKER: OnceLock<(Segment, u32)> = OnceLock::new();
/// The release generation, bumped whenever the library is released in
/// MPI_THREAD_MULTIPLE mode (parked threads wait for it to change before
/// they try again), and the number of threads parked since the last bump.
static GEN: Mutex<(u64, usize)> = Mutex::new((0, 0));
static GEN_CV: Condvar = Condvar::new();

thread_local! {
    static REGISTERED: Registration = const { Registration(Cell::new(false)) };
}

/// A thread's registration; dropped (and the thread no longer counted) when
/// the thread exits.
struct Registration(Cell<bool>);

impl Drop for Registration {
    fn drop(&mut self) {
        if self.0.get() {
            RUNNING.fetch_sub(1, Ordering::SeqCst);
            REGISTERED_ALIVE.fetch_sub(1, Ordering::SeqCst);
            wake_self();
        }
    }
}

/// Turn MPI_THREAD_MULTIPLE mode on, with the rank's segment for wake-ups.
pub fn enable(seg: Segment, rank: u32) {
    let _ = WAKER.set((seg, rank));
    MULTI.store(true, Ordering::SeqCst);
}

/// Whether MPI_THREAD_MULTIPLE mode is on.
pub fn multi() -> bool {
    MULTI.load(Ordering::Relaxed)
}

/// Count the calling thread as one that calls MPI (idempotent).
pub fn register() {
    let _ = REGISTERED.try_with(|r| {
        if !r.0.get() {
            r.0.set(true);
            RUNNING.fetch_add(1, Ordering::SeqCst);
            REGISTERED_ALIVE.fetch_add(1, Ordering::SeqCst);
        }
    });
}

/// A thread is about to wait for the library: wake the engine so that a
/// thread asleep in a blocking wait suspends it and lets this one in.
pub fn want_begin() {
    WANT.fetch_add(1, Ordering::SeqCst);
    wake_self();
}

/// The thread that waited has entered the library.
pub fn want_end() {
    WANT.fetch_sub(1, Ordering::SeqCst);
}

/// Another thread waits to enter the library (MULTIPLE mode only).
pub fn yield_requested() -> bool {
    multi() && WANT.load(Ordering::SeqCst) > 0
}

/// Some other thread is running: it may call MPI at any time, so the rank
/// is not blocked (MULTIPLE mode only). A thread that never called MPI
/// counts as running (see [`refresh`]): it may be about to make its first
/// call.
pub fn others_running() -> bool {
    multi() && (RUNNING.load(Ordering::SeqCst) > 1 || UNREGISTERED.load(Ordering::SeqCst) > 0)
}

/// Count the process's threads that never called MPI (read from
/// /proc/self/stat), before a blocked rank decides whether it is idle.
pub fn refresh() {
    if !multi() {
        return;
    }
    let n = process_threads().unwrap_or(1);
    let known = REGISTERED_ALIVE.load(Ordering::SeqCst);
    UNREGISTERED.store(n.saturating_sub(known), Ordering::SeqCst);
}

/// The number of threads of this process (`num_threads` of /proc/self/stat).
fn process_threads() -> Option<usize> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    // the command name (2nd field) may hold spaces: count after its ')'
    let rest = &s[s.rfind(')')? + 1..];
    rest.split_whitespace().nth(17)?.parse().ok()
}

/// The calling thread's blocking call is suspended and it is about to
/// release the library: the library counts as released (parked threads
/// count as running again, see [`bump`]), this thread parks (it no longer
/// counts as running) and the engine is woken to see it. Returns the
/// generation to wait past ([`wait_generation`]).
pub fn suspend() -> u64 {
    let seen = {
        let mut g = GEN.lock().unwrap_or_else(|e| e.into_inner());
        g.0 += 1;
        let woken = std::mem::replace(&mut g.1, 1);
        RUNNING.fetch_add(woken, Ordering::SeqCst);
        RUNNING.fetch_sub(1, Ordering::SeqCst);
        GEN_CV.notify_all();
        g.0
    };
    wake_self();
    seen
}

/// The library was released: the parked threads go on (they count as
/// running from now on, before they are scheduled, so that the rank does
/// not look blocked meanwhile) and try again.
pub fn bump() {
    let mut g = GEN.lock().unwrap_or_else(|e| e.into_inner());
    g.0 += 1;
    let woken = std::mem::take(&mut g.1);
    RUNNING.fetch_add(woken, Ordering::SeqCst);
    GEN_CV.notify_all();
}

/// Sleep until the release generation is no longer `seen`.
pub fn wait_generation(seen: u64) {
    super::futex::note_nap();
    let mut g = GEN.lock().unwrap_or_else(|e| e.into_inner());
    while g.0 == seen {
        g = GEN_CV.wait(g).unwrap_or_else(|e| e.into_inner());
    }
}

/// Poke the rank's own slot (wakes its engine if it sleeps).
pub fn wake_self() {
    if let Some((seg, rank)) = WAKER.get() {
        super::poke_rank(seg, *rank);
    }
}
