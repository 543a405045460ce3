//! Several host threads in one rank (MPI_THREAD_MULTIPLE).
//!
//! The library runs one MPI call at a time (the `abi` layer's lock). A
//! thread that blocks in a point-to-point wait (Wait*, Recv, Send, Probe,
//! ...) runs it *yielding*: when the wait has nothing to do and another
//! thread wants to enter the library, or when it completed what a parked
//! thread waits for, the waiting activity is **suspended**: it ends at the
//! time it has reached (its start, or for a Waitall the latest completion it
//! handled), its requests stay marked as waited for ("parked", so that the
//! thread that waits next handles their messages as related), and the call
//! returns to the `abi` layer, which releases the library, lets the other
//! thread in and starts the wait again later. Calls that block inside an
//! algorithm (the blocking collectives' `coll` code, one-sided
//! synchronisation, the constructors that agree through it) do not yield:
//! under MPI_THREAD_MULTIPLE the `abi` layer runs blocking collectives and
//! most constructors as compound requests and a yielding wait instead
//! (`abi::threads::via_request`).
//!
//! Time: the rank has one virtual clock; each thread its own CPU mark and
//! position (see `engine::clock`): a thread's call happens at the later of
//! tV and where its own computation has reached. Which thread's call comes
//! first is the host's order, so a program whose threads race for the same
//! messages may get a different (valid) prediction from run to run.
//!
//! While another thread of the rank runs (it may call MPI at any time), a
//! blocked rank publishes its clock as the bound on what it may still send
//! (not "blocked until a message comes") and does not count as idle for the
//! job's quiescence.
use super::{Core, Goal, Link, ReqId};
use crate::engine::wire::Kind;
use crate::model::VTime;
use std::thread::ThreadId;

/// The threads' part of a [`Core`].
#[derive(Default)]
pub(crate) struct Threads {
    /// Blocking waits may be suspended (set around a yielding call).
    pub yielding: bool,
    /// The last wait was suspended.
    suspended: bool,
    /// Requests of suspended waits.
    parked: Vec<ReqId>,
    /// Probes of suspended waits: (source, tag, context).
    parked_probes: Vec<(Option<u32>, Option<i32>, u32)>,
    /// Something a suspended wait waits for happened.
    parked_hit: bool,
    /// The thread whose CPU mark and position the clock holds.
    owner: Option<ThreadId>,
    /// The other threads' CPU marks and positions.
    marks: Vec<(ThreadId, u64, VTime)>,
}

impl<L: Link> Core<L> {
    /// Blocking waits started from now on may be suspended (`on`), or not.
    pub fn set_yielding(&mut self, on: bool) {
        self.mt.yielding = on;
        if on {
            self.mt.suspended = false;
        }
    }

    /// Whether another thread of the rank may make an MPI call (looked up
    /// afresh); only in MPI_THREAD_MULTIPLE mode.
    pub fn others_may_call(&self) -> bool {
        self.link.refresh_threads();
        self.link.others_running()
    }

    /// Whether the last blocking wait was suspended (its goal is not met).
    pub fn suspended(&self) -> bool {
        self.mt.suspended
    }

    /// Entering the library: make the calling thread's CPU mark and
    /// position current. A thread's first call charges nothing before it.
    pub(super) fn switch_thread(&mut self, now: u64) {
        let me = std::thread::current().id();
        let owner = *self.mt.owner.get_or_insert(me);
        if owner == me {
            return;
        }
        self.refuse_if_recording("MPI calls from several threads");
        let (mark, pos) = self.clock.thread_marks();
        let mine = match self.mt.marks.iter().position(|m| m.0 == me) {
            Some(k) => self.mt.marks.swap_remove(k),
            None => (me, now, self.clock.now()),
        };
        self.mt.marks.push((owner, mark, pos));
        self.clock.set_thread_marks(mine.1, mine.2);
        self.mt.owner = Some(me);
    }

    /// A request completed: note it if a suspended wait waits for it.
    pub(super) fn note_parked_done(&mut self, r: ReqId) {
        if !self.mt.parked.is_empty() && self.mt.parked.contains(&r) {
            self.mt.parked_hit = true;
        }
    }

    /// Held message `i` arrived: note it if a suspended probe looks for it.
    pub(super) fn note_parked_probe(&mut self, i: usize) {
        if self.mt.parked_probes.is_empty() {
            return;
        }
        let m = self.msg(i);
        if !matches!(m.kind, Kind::Eager | Kind::Req) {
            return;
        }
        let hit = self
            .mt
            .parked_probes
            .iter()
            .any(|&(s, t, c)| super::matches(m, s, t, c));
        self.mt.parked_hit |= hit;
    }

    /// A yielding wait should end now: what a parked wait waits for came.
    pub(super) fn suspend_now(&mut self) -> bool {
        self.mt.yielding && std::mem::take(&mut self.mt.parked_hit)
    }

    /// A yielding wait with nothing to do should end: a thread waits to
    /// enter the library.
    pub(super) fn yield_wanted(&self) -> bool {
        self.mt.yielding && self.link.yield_requested()
    }

    /// A wait starts (again): its goal is no longer parked.
    pub(super) fn unpark_goal(&mut self, goal: Goal) {
        self.mt.suspended = false;
        match goal {
            Goal::All(rs) | Goal::Any(rs) if !self.mt.parked.is_empty() => {
                self.mt.parked.retain(|r| !rs.contains(r));
            }
            Goal::Probe(s, t, c) if !self.mt.parked_probes.is_empty() => {
                if let Some(k) = self.mt.parked_probes.iter().position(|&p| p == (s, t, c)) {
                    self.mt.parked_probes.swap_remove(k);
                }
            }
            _ => {}
        }
        if self.mt.parked.is_empty() && self.mt.parked_probes.is_empty() {
            self.mt.parked_hit = false;
        }
    }

    /// End the blocking wait for `goal` (begun at `start`) before its goal
    /// is met: at the latest completion it handled (Waitall) or its start.
    /// Its requests stay marked as waited for and are parked.
    pub(super) fn suspend(&mut self, goal: Goal, start: VTime) -> VTime {
        let end = match goal {
            Goal::All(_) => self.goal_end(goal, start),
            _ => start,
        };
        let early = std::mem::take(&mut self.early);
        for i in early {
            if self.msg(i).ta <= end {
                self.deal(i);
            } else {
                self.early.push(i);
            }
        }
        match goal {
            Goal::All(rs) | Goal::Any(rs) => {
                let open = rs.iter().filter(|&&r| self.reqs.get(r).done.is_none());
                self.mt.parked.extend(open);
            }
            Goal::Probe(s, t, c) => self.mt.parked_probes.push((s, t, c)),
        }
        self.hist.end(end);
        self.clock.advance_wait(end);
        self.link.publish_vtime(end);
        self.tv_pub = end;
        self.blocking = false;
        self.publish_own();
        self.mt.suspended = true;
        end
    }
}
