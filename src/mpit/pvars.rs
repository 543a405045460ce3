//! MPI_T performance variables: this rank's engine counters and virtual-time
//! breakdown, all MPI_UNSIGNED_LONG_LONG, none continuous (a handle starts
//! stopped and counts only while started), none atomic.
//!
//! Counters (MPI_T_PVAR_CLASS_COUNTER): messages sent by this rank (every
//! point-to-point send, those of collectives included, eager or
//! rendezvous: the protocol's REQ, ACK and DATA of one message count once)
//! and their payload bytes, conservative decisions taken. Timers (MPI_T_PVAR_CLASS_TIMER, picoseconds of virtual
//! time): the virtual clock, and its computation / communication (starting
//! phases) / waiting parts.
//!
//! Session semantics: a handle's value is what the variable accumulated
//! while the handle was started (the sum over its start..stop intervals,
//! plus the running interval), from the real counters read at each call.
//! MPI_T_pvar_reset / MPI_T_pvar_write set the handle's value (0, or the
//! value written): the variable's accumulation then continues from it. The
//! engine's counters themselves are never changed, so sessions and handles
//! are independent of each other. Before MPI_Init every variable reads 0
//! (nothing happened yet); after MPI_Finalize they keep their final values.
use super::{PvarHandle, TResult};
use crate::sys;
use std::os::raw::c_int;

/// The raw values of every performance variable at one moment, in the
/// order of [`all`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub msgs_sent: u64,
    pub bytes_sent: u64,
    pub decisions: u64,
    pub vtime_ps: u64,
    pub compute_ps: u64,
    pub comm_ps: u64,
    pub wait_ps: u64,
}

impl Snapshot {
    /// The raw value of variable `i`.
    pub fn get(&self, i: usize) -> u64 {
        [
            self.msgs_sent,
            self.bytes_sent,
            self.decisions,
            self.vtime_ps,
            self.compute_ps,
            self.comm_ps,
            self.wait_ps,
        ][i]
    }
}

/// A performance variable.
#[derive(Debug)]
pub struct Pvar {
    pub name: &'static str,
    pub desc: &'static str,
    pub verbosity: c_int,
    pub class: c_int,
    /// The category it belongs to (see `categories`).
    pub category: &'static str,
}

impl Pvar {
    pub fn datatype(&self) -> sys::MPI_Datatype {
        sys::MPI_UNSIGNED_LONG_LONG
    }
    pub fn bind(&self) -> c_int {
        sys::MPI_T_BIND_NO_OBJECT
    }
    pub const READONLY: bool = false;
    pub const CONTINUOUS: bool = false;
    pub const ATOMIC: bool = false;
}

pub const P2P: &str = "vaced_p2p";
pub const TIME: &str = "vaced_time";

/// Every performance variable, in [`Snapshot`] order.
pub fn all() -> Vec<Pvar> {
    use sys::{
        MPI_T_PVAR_CLASS_COUNTER as COUNTER, MPI_T_PVAR_CLASS_TIMER as TIMER,
        MPI_T_VERBOSITY_USER_BASIC as USER, MPI_T_VERBOSITY_USER_DETAIL as DETAIL,
    };
    let p = |name, desc, verbosity, class, category| Pvar {
        name,
        desc,
        verbosity,
        class,
        category,
    };
    vec![
        p(
            "vaced_msgs_sent",
            "messages sent by this rank (point-to-point sends, those of collectives included)",
            USER,
            COUNTER,
            P2P,
        ),
        p(
            "vaced_bytes_sent",
            "payload bytes of the messages sent by this rank",
            USER,
            COUNTER,
            P2P,
        ),
        p(
            "vaced_decisions",
            "conservative decisions taken (non-deterministic operations decided in virtual-time order)",
            DETAIL,
            COUNTER,
            P2P,
        ),
        p(
            "vaced_virtual_time_ps",
            "virtual time of this rank, in picoseconds (what MPI_Wtime returns)",
            USER,
            TIMER,
            TIME,
        ),
        p(
            "vaced_compute_time_ps",
            "virtual time spent computing (measured CPU time x cpu scale), in picoseconds",
            USER,
            TIMER,
            TIME,
        ),
        p(
            "vaced_comm_time_ps",
            "virtual time spent in the starting phases of messages, in picoseconds",
            USER,
            TIMER,
            TIME,
        ),
        p(
            "vaced_wait_time_ps",
            "virtual time spent in waiting activities, in picoseconds",
            USER,
            TIMER,
            TIME,
        ),
    ]
}

impl PvarHandle {
    /// The handle's value given the variable's raw value `now`.
    pub fn value(&self, now: u64) -> u64 {
        if self.running {
            self.acc + (now - self.base)
        } else {
            self.acc
        }
    }
    /// MPI_T_pvar_start (starting a started handle changes nothing).
    pub fn start(&mut self, now: u64) {
        if !self.running {
            self.running = true;
            self.base = now;
        }
    }
    /// MPI_T_pvar_stop.
    pub fn stop(&mut self, now: u64) {
        self.acc = self.value(now);
        self.running = false;
    }
    /// MPI_T_pvar_write (MPI_T_pvar_reset writes 0).
    pub fn write(&mut self, now: u64, v: u64) {
        self.acc = v;
        self.base = now;
    }
}

/// The error for a call that needs one handle given
/// MPI_T_PVAR_ALL_HANDLES (read, write, readreset).
pub fn one_handle(h: usize) -> TResult<usize> {
    if h == super::ALL_HANDLES {
        Err(sys::MPI_T_ERR_INVALID_HANDLE)
    } else {
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_stop_accumulates_only_while_started() {
        let mut h = PvarHandle {
            session: 0,
            pvar: 0,
            running: false,
            acc: 0,
            base: 0,
        };
        assert_eq!(h.value(5), 0);
        h.start(5);
        assert_eq!(h.value(8), 3);
        h.stop(9);
        assert_eq!(h.value(20), 4);
        h.start(20);
        h.start(21);
        assert_eq!(h.value(22), 6);
        h.write(22, 0);
        assert_eq!(h.value(25), 3);
        h.stop(30);
        h.write(30, 100);
        assert_eq!(h.value(40), 100);
    }
}
