//! The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), and a cheap
//! estimate of it for the end of a library call.
//!
//! Reading the thread CPU clock is a system call (no vDSO: about 1.3 us on
//! this project's VM host), and the engine needs it twice per MPI call: on
//! entry (the computation since the last call ends there) and on exit (the
//! next computation starts there). The exit reading is estimated instead:
//! the entry reading plus the monotonic (vDSO) time elapsed since, which is
//! the CPU time used meanwhile as long as the thread did not sleep
//! (futex waits and deliberate host delays are counted by
//! [`super::futex::naps`]; after one, the clock is read for real). An
//! involuntary preemption inside the call (another process took the core)
//! makes the estimate too high by its length, i.e. the next computation
//! is charged that much less; on a host dedicated to the job it does not
//! happen while the rank holds a core token.
//!
//! An entry after a short computation (less than [`SHORT_NS`] since the
//! exit, within [`ANCHOR_NS`] of the last real reading, no sleep) is
//! estimated the same way: an involuntary preemption lasts far longer than
//! such a gap, so none hid in it. Communication-bound codes, whose MPI calls
//! follow each other closely, then make one system call per
//! [`ANCHOR_NS`] instead of two per call.

/// Longest computation between two MPI calls that is timed by the monotonic
/// clock instead of the thread CPU clock.
pub const SHORT_NS: u64 = 10_000;
/// Longest stretch over which estimates chain from one real reading.
pub const ANCHOR_NS: u64 = 1_000_000;

use super::futex;

/// Nanoseconds of CPU time this thread has used.
pub fn thread_cpu_ns() -> u64 {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CLOCK_MONOTONIC in nanoseconds (vDSO, no system call).
pub fn monotonic_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime({clock}) failed");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A real reading of the thread CPU clock, with what it takes to estimate
/// the clock later without a system call.
#[derive(Debug, Clone, Copy)]
struct Reading {
    cpu_ns: u64,
    mono_ns: u64,
    naps: u64,
}

thread_local! {
    /// The calling thread's last real reading of its CPU clock. It is the
    /// thread's, not a call clock's: in the many-ranks mode one host thread
    /// runs many ranks, each with its own [`CallClock`], and any rank's
    /// reading anchors the others' estimates (the thread's CPU clock is
    /// the same for all of them).
    static ANCHOR: std::cell::Cell<Option<Reading>> = const { std::cell::Cell::new(None) };
}

/// The thread's anchor, read anew when there is none, it is older than
/// [`ANCHOR_NS`] at `mono`, or the thread slept since.
fn anchor(mono: u64, naps: u64) -> Reading {
    match ANCHOR.get() {
        Some(a) if a.naps == naps && mono.saturating_sub(a.mono_ns) < ANCHOR_NS => a,
        _ => read_anchor(mono, naps),
    }
}

/// Read the thread CPU clock: the thread's new anchor.
fn read_anchor(mono: u64, naps: u64) -> Reading {
    let a = Reading {
        cpu_ns: thread_cpu_ns(),
        mono_ns: mono,
        naps,
    };
    ANCHOR.set(Some(a));
    a
}

/// The thread CPU clock for a library exit and the next entry (see the
/// module documentation): `leave` estimates, `enter` reads for real unless
/// the computation in between was short.
#[derive(Debug, Clone, Copy)]
pub struct CallClock {
    /// Monotonic time of the last exit.
    left_mono_ns: u64,
}

impl Default for CallClock {
    fn default() -> Self {
        Self::new()
    }
}

impl CallClock {
    pub fn new() -> CallClock {
        let mono = monotonic_ns();
        anchor(mono, futex::naps());
        CallClock { left_mono_ns: mono }
    }
    /// CPU time on entering the library.
    pub fn enter(&mut self) -> u64 {
        let mono = monotonic_ns();
        let naps = futex::naps();
        if mono.saturating_sub(self.left_mono_ns) < SHORT_NS {
            let a = anchor(mono, naps);
            return a.cpu_ns + (mono - a.mono_ns);
        }
        read_anchor(mono, naps).cpu_ns
    }
    /// CPU time on leaving the library: estimated from the thread's anchor
    /// unless the thread slept since (then read, and the new anchor).
    pub fn leave(&mut self) -> u64 {
        let naps = futex::naps();
        let mono = monotonic_ns();
        self.left_mono_ns = mono;
        let a = anchor(mono, naps);
        a.cpu_ns + (mono - a.mono_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leave_estimate_follows_the_cpu_clock_while_running() {
        let mut c = CallClock::new();
        let start = c.enter();
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        std::hint::black_box(x);
        let est = c.leave();
        let real = thread_cpu_ns();
        // Wall time >= CPU time; a busy loop uses the CPU all along (a test
        // thread may be preempted, hence the generous bound).
        assert!(est >= start);
        assert!(est + 50_000_000 >= real, "estimate {est} vs real {real}");
    }

    #[test]
    fn call_clock_is_monotone_and_reads_after_a_long_computation() {
        let mut c = CallClock::new();
        let e1 = c.enter();
        let l1 = c.leave();
        let e2 = c.enter(); // short gap: estimated
        assert!(e1 <= l1 && l1 <= e2, "{e1} {l1} {e2}");
        c.leave();
        let mut x = 0u64;
        let start = monotonic_ns();
        while monotonic_ns() - start < 2 * SHORT_NS {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let before = thread_cpu_ns();
        let e3 = c.enter(); // long gap: a real reading
        let after = thread_cpu_ns();
        assert!(before <= e3 && e3 <= after, "{before} <= {e3} <= {after}");
    }

    #[test]
    fn after_a_sleep_the_clock_is_read() {
        let mut c = CallClock::new();
        let start = c.enter();
        futex::note_nap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let t = c.leave();
        // Sleeping uses no CPU: a wall-time estimate would be >= 20 ms more.
        assert!(t < start + 10_000_000, "{t} vs {start}");
    }
}
