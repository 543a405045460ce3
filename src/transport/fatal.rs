//! Fatal signals recorded in the rank's own slot, for a rank whose launcher
//! is not its parent (vaced's MPICH: Hydra starts the ranks, so `mpirun`
//! cannot learn from `waitpid` which rank died of what). The rank's
//! handler stores the signal number in its slot, gives the signal back the
//! action it had before (the program's own handler, or the default) and
//! raises it again: the rank still dies of it (a core dump too, where
//! enabled), or the program's handler runs as it would have, and the
//! launcher names the rank.
use super::Segment;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::OnceLock;

/// The signals a program dies of by its own doing.
const FATAL: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGILL,
    libc::SIGABRT,
];

/// The slot's signal word of this process's rank (null: none), in the
/// mapping `KEPT` keeps alive until the process ends.
static WORD: AtomicPtr<AtomicU32> = AtomicPtr::new(std::ptr::null_mut());
static KEPT: OnceLock<Segment> = OnceLock::new();
/// This process's rank (with [`KEPT`]).
static RANK: OnceLock<u32> = OnceLock::new();
/// The action each of [`FATAL`] had before [`record`] (same order).
static BEFORE: OnceLock<[libc::sigaction; 5]> = OnceLock::new();

extern "C" fn on_fatal(sig: libc::c_int) {
    let w = WORD.load(Ordering::Acquire);
    if !w.is_null() {
        // SAFETY: WORD points into the mapping KEPT holds until the process
        // ends; an atomic store is async-signal-safe.
        unsafe { (*w).store(sig as u32, Ordering::Release) };
    }
    let before = BEFORE
        .get()
        .and_then(|b| FATAL.iter().position(|&s| s == sig).map(|k| &b[k]));
    // SAFETY: sigaction and raise are async-signal-safe; `before` is an
    // action the kernel gave us (or none: the default is restored).
    unsafe {
        match before {
            Some(b) => {
                libc::sigaction(sig, b, std::ptr::null_mut());
            }
            None => {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
        libc::raise(sig);
    }
}

/// Record this process's fatal signals in rank `rank`'s slot of `seg`
/// (one rank per process; a second call does nothing).
pub fn record(seg: &Segment, rank: u32) {
    if KEPT.set(seg.clone()).is_err() {
        return;
    }
    let _ = RANK.set(rank);
    let kept = KEPT.get().expect("just set");
    let word: *const AtomicU32 = kept.slot(rank).signal_word();
    WORD.store(word.cast_mut(), Ordering::Release);
    // SAFETY: a zeroed sigaction is a valid value to be overwritten.
    let mut before: [libc::sigaction; 5] = unsafe { std::mem::zeroed() };
    for (k, sig) in FATAL.into_iter().enumerate() {
        // SAFETY: reading the current action into a valid sigaction.
        unsafe { libc::sigaction(sig, std::ptr::null(), &mut before[k]) };
    }
    let _ = BEFORE.set(before);
    for sig in FATAL {
        // SAFETY: a zeroed sigaction with a plain handler, an empty mask and
        // SA_NODEFER (the handler raises the signal again) is a valid
        // argument; the old action was saved above.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_fatal as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_NODEFER;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// The other library aborts the job (MPI_Abort, or a fatal MPI error
/// under its default handler): record `code` and `message` in this
/// process's rank's slot, so that the launcher names the rank and its
/// code, whatever the library's process manager then kills first. Any
/// thread, inside engine calls too. False before [`record`].
pub fn record_abort(code: i32, message: &str) -> bool {
    match (KEPT.get(), RANK.get()) {
        (Some(seg), Some(&rank)) => {
            let slot = seg.slot(rank);
            slot.set_abort_message(message);
            slot.set_abort(code);
            true
        }
        _ => false,
    }
}
