//! The per-rank virtual clock: tV, the CPU mark, and where time went.
//!
//! Entering an MPI call charges `scale x (cpu_now - cpu_mark)` of computation;
//! leaving it restarts the mark (library time is host overhead, not target
//! time). CPU readings are passed in, so the clock is pure and testable.
//!
//! Several host threads (MPI_THREAD_MULTIPLE, see `p2p::core::yielding`):
//! the rank keeps this one clock, and each thread its own CPU mark and
//! position (tV when it last left the library). A thread's computation ends
//! at `pos + scale x (cpu_now - cpu_mark)` of its own CPU clock; its call
//! starts at the later of that and tV (the library runs calls one at a
//! time), so threads that compute side by side overlap: the rank's
//! computation over an interval is its busiest thread's. With one thread,
//! `pos` is tV at every entry and this is the rule above.
use crate::model::VTime;

/// Where a rank's virtual time went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Breakdown {
    /// Sequential computation (measured and scaled, plus MPIX_Vaced_compute).
    pub compute: VTime,
    /// Starting phases: sending DATA / REQ, receiving unexpected DATA, sending ACK.
    pub comm: VTime,
    /// Waiting activities (AWTend - AWTstart).
    pub wait: VTime,
    /// Host CPU nanoseconds spent in application code (unscaled).
    pub app_cpu_ns: u64,
}

#[derive(Debug, Clone)]
pub struct Clock {
    tv: VTime,
    cpu_mark_ns: u64,
    /// tV when the current thread last left the library.
    pos: VTime,
    /// Where the current thread's own computation has reached in this call
    /// (MPIX_Vaced_compute adds to it).
    thread_tv: VTime,
    /// Several threads have called MPI (see [`Clock::set_thread_marks`]).
    threaded: bool,
    scale: f64,
    inside: bool,
    pub spent: Breakdown,
}

impl Clock {
    /// The start event: tV = 0, mark = now.
    pub fn start(scale: f64, cpu_now_ns: u64) -> Clock {
        Clock {
            tv: VTime::ZERO,
            cpu_mark_ns: cpu_now_ns,
            pos: VTime::ZERO,
            thread_tv: VTime::ZERO,
            threaded: false,
            scale,
            inside: false,
            spent: Breakdown::default(),
        }
    }

    pub fn now(&self) -> VTime {
        self.tv
    }

    /// Virtual time if the rank entered the library at `cpu_now_ns`.
    pub fn peek(&self, cpu_now_ns: u64) -> VTime {
        if self.inside {
            self.tv
        } else {
            self.tv
                .max(self.pos + self.scaled(cpu_now_ns.saturating_sub(self.cpu_mark_ns)))
        }
    }

    pub fn scaled(&self, ns: u64) -> VTime {
        VTime::from_ps((ns as f64 * 1000.0 * self.scale).round() as u64)
    }

    /// A communication start event (entering the library).
    pub fn enter(&mut self, cpu_now_ns: u64) {
        if self.inside {
            return;
        }
        let ns = cpu_now_ns.saturating_sub(self.cpu_mark_ns);
        let t = self.scaled(ns);
        self.thread_tv = self.pos + t;
        self.reach(self.thread_tv);
        self.spent.app_cpu_ns += ns;
        self.inside = true;
    }

    /// tV moves to the current thread's computation `t` if that is later.
    fn reach(&mut self, t: VTime) {
        if t > self.tv {
            self.spent.compute += t - self.tv;
            self.tv = t;
        }
    }

    /// A communication end event (leaving the library).
    pub fn leave(&mut self, cpu_now_ns: u64) {
        self.cpu_mark_ns = cpu_now_ns;
        self.pos = self.tv;
        self.inside = false;
    }

    /// Virtual computation that burns no host CPU. Once several threads
    /// have called MPI, by the calling thread (from where its own
    /// computation has reached); before, from tV.
    pub fn compute(&mut self, t: VTime) {
        if !self.threaded {
            self.thread_tv = self.tv;
        }
        self.thread_tv += t;
        self.reach(self.thread_tv);
    }

    /// The current thread's CPU mark and position (to switch threads).
    pub fn thread_marks(&self) -> (u64, VTime) {
        (self.cpu_mark_ns, self.pos)
    }

    /// Make another thread current: its CPU mark and position.
    pub fn set_thread_marks(&mut self, cpu_mark_ns: u64, pos: VTime) {
        self.threaded = true;
        self.cpu_mark_ns = cpu_mark_ns;
        self.pos = pos;
    }

    /// A starting phase advanced tV to `t` (never backwards).
    pub fn advance_comm(&mut self, t: VTime) {
        if t > self.tv {
            self.spent.comm += t - self.tv;
            self.tv = t;
        }
    }

    /// A waiting activity ended at `t` (never backwards).
    pub fn advance_wait(&mut self, t: VTime) {
        if t > self.tv {
            self.spent.wait += t - self.tv;
            self.tv = t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn cpu_between_calls_is_scaled_library_time_is_not() {
        let mut c = Clock::start(2.0, 1_000);
        c.enter(4_000); // 3000 ns of application code, x2
        assert_eq!(c.now(), VTime::from_ps(6_000_000));
        c.leave(9_000); // 5000 ns in the library: not charged
        c.enter(9_500);
        assert_eq!(c.now(), VTime::from_ps(7_000_000));
        assert_eq!(c.spent.app_cpu_ns, 3_500);
        c.advance_comm(VTime::from_ps(8_000_000));
        c.advance_wait(VTime::from_ps(7_500_000)); // never backwards
        assert_eq!(c.now(), VTime::from_ps(8_000_000));
        assert_eq!(c.spent.comm, VTime::from_ps(1_000_000));
        assert_eq!(c.spent.wait, VTime::ZERO);
    }
    #[test]
    fn threads_that_compute_side_by_side_overlap() {
        let mut c = Clock::start(1.0, 0);
        // thread A: 3000 ns, then a call that takes tV to 5 ns of comm
        c.enter(3_000);
        c.advance_comm(VTime::from_ps(5_000_000));
        c.leave(3_000);
        let a = c.thread_marks();
        // thread B, which left at tV = 0 with CPU mark 100: 4000 ns
        c.set_thread_marks(100, VTime::ZERO);
        c.enter(4_100);
        assert_eq!(c.now(), VTime::from_ps(5_000_000), "B's call starts at tV");
        // B's own computation goes on from 4 ns, not from tV
        c.compute(VTime::from_ps(2_000_000)); // B: 4 + 2 = 6 ns
        assert_eq!(c.now(), VTime::from_ps(6_000_000));
        c.leave(4_100);
        // A again: 1000 ns more after its own exit at 5 ns
        c.set_thread_marks(a.0, a.1);
        c.enter(4_000);
        assert_eq!(c.now(), VTime::from_ps(6_000_000));
        assert_eq!(c.spent.compute, VTime::from_ps(4_000_000));
    }
    #[test]
    fn scale_zero_charges_nothing() {
        let mut c = Clock::start(0.0, 0);
        c.enter(123_456_789);
        assert_eq!(c.now(), VTime::ZERO);
        c.compute(VTime::from_ps(5));
        assert_eq!(c.peek(999), VTime::from_ps(5));
    }
}
