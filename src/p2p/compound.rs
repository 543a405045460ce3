//! Compound requests: one request completed by a schedule of point-to-point
//! steps that the schedule itself starts (the nonblocking collectives of
//! `crate::coll::nonblocking`). The engine owns the schedule while it runs
//! and lets it move on each time a message is dealt with
//! ([`Core::progress_compounds`] at the end of DealMessage), so progress
//! happens only inside MPI calls, as in a library without a progress
//! thread.
//!
//! Timing rules:
//! * the schedule's first steps start in the call that creates it, at tV;
//!   that call's clock ends where the last send it started ends its copy
//!   (as consecutive `MPI_Isend`s would);
//! * later steps start at the virtual time the steps they follow completed
//!   (a completion is a message handled at ttemp, Algorithm 3), without
//!   moving the clock; the compound request completes when its last step
//!   does, and a wait on it ends then;
//! * a step is only ever started in reaction to a message this rank deals
//!   with (or in the creating call), at or after that message's arrival
//!   time, so the lower bound this rank publishes on what it may still send
//!   (its clock, or while blocked the arrivals it has not dealt with) stays
//!   a true lower bound.
use super::{Core, Link, ReqId};
use crate::model::VTime;
use crate::p2p::request::{Op, Request, Target};
use crate::p2p::Status;

/// What a [`Progress::poll`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poll {
    /// Nothing could start.
    Idle,
    /// New steps started.
    Moved,
    /// Every step is complete, at this time.
    Done(VTime),
}

/// A schedule of point-to-point steps.
pub trait Progress<L: Link> {
    /// Start every step whose predecessors are complete.
    fn poll(&mut self, core: &mut Core<L>) -> Poll;
    /// The requests in flight (part of a wait on the compound request).
    fn live(&self) -> &[ReqId];
    /// When the last send started so far ends its copy (tr).
    fn cursor(&self) -> VTime;
    /// What a replay needs to run it again (see `p2p::record`), before it
    /// starts; None if it cannot be replayed.
    fn describe(&self) -> Option<crate::p2p::record::CompoundDesc> {
        None
    }
}

pub(super) struct Compound<L: Link> {
    facade: ReqId,
    prog: Box<dyn Progress<L>>,
    /// Its number among this rank's compound requests, and how many local
    /// steps it has measured (the keys of its measurements).
    serial: u64,
    measured: u32,
}

impl<L: Link> Core<L> {
    /// Start a compound request: its first steps start now.
    pub fn start_compound(&mut self, mut prog: Box<dyn Progress<L>>) -> ReqId {
        let desc = if self.is_recording() {
            let d = prog.describe();
            if d.is_none() {
                self.refuse_if_recording("MPI_Comm_idup");
            }
            d
        } else {
            None
        };
        let serial = self.compound_serial;
        self.compound_serial += 1;
        let now = self.clock.now();
        let facade = self.reqs.insert(Request::new(Op::Nothing, now));
        if let Some(desc) = desc {
            self.note(|_| crate::p2p::record::Call::Compound {
                desc: Box::new(desc),
                id: facade,
            });
        }
        self.polling = Some((serial, 0));
        let poll = prog.poll(self);
        let measured = self.polling.take().map_or(0, |p| p.1);
        self.clock.advance_comm(prog.cursor());
        match poll {
            Poll::Done(t) => self.complete(facade, t.max(now), Status::default()),
            _ => self.compounds.push(Compound {
                facade,
                prog,
                serial,
                measured,
            }),
        }
        if self.compound_resweep {
            self.progress_compounds();
        }
        facade
    }

    /// Let every compound request start what it can; complete those done.
    pub(super) fn progress_compounds(&mut self) {
        if self.compounds.is_empty() {
            return;
        }
        loop {
            self.compound_resweep = false;
            let mut list = std::mem::take(&mut self.compounds);
            list.retain_mut(|c| {
                self.polling = Some((c.serial, c.measured));
                let poll = c.prog.poll(self);
                c.measured = self.polling.take().map_or(0, |p| p.1);
                match poll {
                    Poll::Done(t) => {
                        self.complete(c.facade, t, Status::default());
                        false
                    }
                    Poll::Moved => {
                        self.compound_moved = true;
                        true
                    }
                    Poll::Idle => true,
                }
            });
            list.append(&mut self.compounds);
            self.compounds = list;
            if !self.compound_resweep || self.compounds.is_empty() {
                break;
            }
        }
        self.mark_compounds();
    }

    /// A compound request changed what the others may start (a context-id
    /// agreement let go of this process's mask, see `mpi::comm_idup`):
    /// [`Core::progress_compounds`] polls them all once more.
    pub fn resweep_compounds(&mut self) {
        self.compound_resweep = true;
    }

    /// The requests in flight of a compound request are waited for when it
    /// is.
    pub(super) fn mark_compounds(&mut self) {
        for c in &self.compounds {
            let w = self.reqs.is_active(c.facade) && self.reqs.get(c.facade).waited;
            for &r in c.prog.live() {
                if self.reqs.is_active(r) {
                    self.reqs.get_mut(r).waited = w;
                }
            }
        }
    }

    /// A standard-mode (`sync`: synchronous-mode) send of bytes the request
    /// owns, started at `t` (plus o_send) without moving the clock. Returns
    /// the request and tr.
    pub fn isend_vec_at(
        &mut self,
        data: Vec<u8>,
        dest: u32,
        tag: i32,
        ctx: u32,
        t: VTime,
        sync: bool,
    ) -> (ReqId, VTime) {
        let buf = (crate::transport::SendBuf::empty(), Some(data));
        self.compound_send_at(buf, dest, tag, ctx, t, sync)
    }

    /// A receive of at most `len` bytes into a buffer the request owns,
    /// posted at `t` without moving the clock.
    pub fn irecv_vec_at(&mut self, len: usize, src: u32, tag: i32, ctx: u32, t: VTime) -> ReqId {
        self.irecv_into_at(Target::Owned(vec![0; len]), Some(src), Some(tag), ctx, t)
    }

    /// A send of `len` bytes that carries none (a phantom buffer: another
    /// library moves the data, `crate::abi::engine_api`), started at `t`
    /// (plus o_send) without moving the clock, as [`Core::isend_vec_at`].
    /// Returns the request and tr.
    pub fn isend_phantom_at(
        &mut self,
        len: usize,
        dest: u32,
        tag: i32,
        ctx: u32,
        t: VTime,
        sync: bool,
    ) -> (ReqId, VTime) {
        let buf = (crate::transport::SendBuf::phantom(len), None);
        self.compound_send_at(buf, dest, tag, ctx, t, sync)
    }

    /// A receive of at most `len` bytes into a phantom buffer, posted at `t`
    /// without moving the clock.
    pub fn irecv_phantom_at(
        &mut self,
        len: usize,
        src: u32,
        tag: i32,
        ctx: u32,
        t: VTime,
    ) -> ReqId {
        let buf = Target::User(crate::transport::RecvBuf::phantom(len));
        self.irecv_into_at(buf, Some(src), Some(tag), ctx, t)
    }

    /// A send of `buf` (the buffer, and the bytes the request owns if any)
    /// started at `t` plus o_send, the clock unmoved: the request and tr.
    fn compound_send_at(
        &mut self,
        buf: (crate::transport::SendBuf, Option<Vec<u8>>),
        dest: u32,
        tag: i32,
        ctx: u32,
        t: VTime,
        sync: bool,
    ) -> (ReqId, VTime) {
        let ts = t + self.model.o_send;
        let op = Op::Send {
            dest,
            buf: buf.0,
            owned: buf.1,
            remote: false,
        };
        let id = self.reqs.insert(Request::new(op, ts));
        let tr = self.start_send_at(id, dest, tag, ctx, sync, ts);
        (id, tr)
    }

    /// The completion time of a complete request.
    pub fn done_at(&self, r: ReqId) -> Option<VTime> {
        self.reqs.get(r).done
    }

    /// Run `f` (local work of a schedule, e.g. a reduction) and return its
    /// CPU time as virtual computation time, without touching the clock.
    pub fn measure(&mut self, f: impl FnOnce()) -> VTime {
        // keyed by the compound being polled and the measurement's index
        let key = self.polling;
        if let Some(p) = self.polling.as_mut() {
            p.1 += 1;
        }
        let ns = match (key, &self.replay_measures) {
            // a replay: the run's own measurement (its steps have no data)
            (Some(k), Some(m)) => {
                f();
                m.get(&k).copied().unwrap_or(0)
            }
            _ => {
                let a = self.link.cpu_now_ns();
                f();
                let b = self.link.cpu_now_ns();
                b.saturating_sub(a)
            }
        };
        if let (Some((serial, k)), Some(r)) = (key, self.rec.as_mut()) {
            r.measure(serial, k, ns);
        }
        self.clock.scaled(ns)
    }

    /// A replay: the run's measurements of compound requests' local steps
    /// (see `p2p::record::measures_path`), used instead of the CPU clock.
    pub fn use_measures(&mut self, m: std::collections::HashMap<(u64, u32), u64>) {
        self.replay_measures = Some(m);
    }
}
