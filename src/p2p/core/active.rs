//! Active messages: unsolicited messages on an *active context* (a context
//! id with [`ACTIVE_CTX_BIT`] set, e.g. the packets of one-sided
//! communication) are never matched to receives. The rank that gets one
//! hands it to its [`Active`] handler when it deals with it (DealMessage,
//! Algorithm 3): at `ttemp`, inside one of its own waiting activities, so a
//! rank that computes answers only once it is back in an MPI call. What the
//! handler returns is carried out at that time: replies are eager messages
//! sent at `ttemp` (the handler's rank's clock does not move, as for the
//! ACK of a rendezvous), and requests of this rank it completes are
//! complete at the time it names.
//!
//! Conservative decisions stay exact: a reply leaves at `ttemp >= ta` of
//! the message that caused it, as an ACK does, so a blocked rank's bound
//! (what is unread in its inbox, what its early queue holds) still covers
//! everything it may send.
use super::Core;
use crate::engine::wire::{Body, Kind, Msg};
use crate::model::VTime;
use crate::p2p::link::Link;
use crate::p2p::request::{Op, ReqId, Request};
use crate::p2p::Status;

/// Context ids with this bit set carry active messages.
pub const ACTIVE_CTX_BIT: u32 = 0x4000_0000;

/// What an active-message handler asks the engine to do, at the time the
/// message was dealt with.
#[derive(Debug)]
pub enum Reply {
    /// An eager message of `data` to world rank `dest`, sent at the handling
    /// time (a plain message: the peer receives it with a matching receive),
    /// timed as `vsize` bytes.
    Send {
        dest: u32,
        ctx: u32,
        tag: i32,
        vsize: u64,
        data: Vec<u8>,
    },
    /// Complete this rank's request (made by [`Core::open_request`]) at `at`.
    Complete(ReqId, VTime),
}

/// The handler of a rank's active messages (one per rank).
pub trait Active {
    /// Whether active message `m` (not yet dealt with) is needed by a wait of
    /// this rank in progress: then it is dealt with as soon as it is read,
    /// like a message matched to a waited request.
    fn related(&self, m: &Msg) -> bool;
    /// Deal with `m` at `t`; push what must happen onto `out`.
    fn handle(&mut self, m: Msg, t: VTime, out: &mut Vec<Reply>);
}

pub(super) fn is_active(m: &Msg) -> bool {
    m.kind == Kind::Eager && m.ctx & ACTIVE_CTX_BIT != 0
}

impl<L: Link> Core<L> {
    /// Install the handler of active messages.
    pub fn set_active(&mut self, h: Box<dyn Active>) {
        self.refuse_if_recording("one-sided communication (an MPI window)");
        self.active = Some(h);
    }

    /// Whether a handler is installed.
    pub fn has_active(&self) -> bool {
        self.active.is_some()
    }

    /// The handler, to reach its state.
    pub fn active_mut(&mut self) -> Option<&mut (dyn Active + 'static)> {
        self.active.as_deref_mut()
    }

    /// Send an active message (or any eager message) of `data` with a
    /// virtual size of `vsize` bytes: the starting phase of an eager send
    /// (tr = tV + vsize/Bmem, ta = tr + L(vsize, h)); tV becomes tr. The
    /// message is complete locally at once. It arrives no earlier than
    /// `not_before` (the caller's previous message on a FIFO channel);
    /// returns its arrival time.
    pub fn send_active(
        &mut self,
        dest: u32,
        ctx: u32,
        tag: i32,
        vsize: u64,
        data: &[u8],
        not_before: VTime,
    ) -> VTime {
        self.refuse_if_recording("one-sided communication");
        let ts = self.clock.now() + self.model.o_send;
        self.clock.advance_comm(ts);
        let (tr, ta) = self.model.send_times(ts, vsize, self.me, dest);
        let ta = ta.max(not_before);
        self.counters.msgs_sent += 1;
        self.counters.bytes_sent += vsize;
        let m = self.header(Kind::Eager, ctx, tag, vsize, ta);
        crate::timeline::message(dest, &m, ts);
        self.emit(dest, &m, Body::Inline(data));
        self.clock.advance_comm(tr);
        ta
    }

    /// A copy of `bytes` bytes the rank makes itself between its memory and
    /// memory it shares with another process on the node (a direct
    /// one-sided operation on a shared-memory window): tV += bytes/Bmem.
    pub fn copy_local(&mut self, bytes: u64) {
        self.refuse_if_recording("an access to a shared-memory window (one-sided communication)");
        let t = self.clock.now() + self.model.mem_time(bytes);
        self.clock.advance_comm(t);
    }

    /// Give the core token to a rank waiting for one (a poll that found
    /// nothing to wait for: a direct one-sided read, MPI_Win_sync), as an
    /// MPI_Test that finds nothing does: a rank spinning on shared memory
    /// must not keep the rank it waits for off the cores.
    pub fn yield_core(&mut self) {
        self.link.yield_core();
    }

    /// A request that nothing completes but an active-message handler
    /// ([`Reply::Complete`]) or [`Core::complete_request`].
    pub fn open_request(&mut self) -> ReqId {
        self.refuse_if_recording("one-sided synchronization or MPI-IO");
        let t = self.clock.now();
        self.reqs.insert(Request::new(Op::Nothing, t))
    }

    /// Complete a request made by [`Core::open_request`] at `t`.
    pub fn complete_request(&mut self, r: ReqId, t: VTime) {
        self.complete(r, t, Status::default());
    }

    /// Complete a request made by [`Core::open_request`] at `t` with status
    /// `st` (a nonblocking file access: its byte count).
    pub fn complete_request_with(&mut self, r: ReqId, t: VTime, st: Status) {
        self.complete(r, t, st);
    }

    /// A file-system access of the target took tV to `t` (MPI-IO: local to
    /// the rank, charged as communication time).
    pub fn advance_io(&mut self, t: VTime) {
        self.refuse_if_recording("MPI-IO");
        self.clock.advance_comm(t);
    }

    /// Whether held active message `i` is related to the wait in progress.
    pub(super) fn active_related(&self, m: &Msg) -> bool {
        self.active.as_ref().is_some_and(|h| h.related(m))
    }

    /// Deal with an active message at `t` (see the module doc).
    pub(super) fn deal_active(&mut self, m: Msg, t: VTime) {
        let Some(mut h) = self.active.take() else {
            panic!(
                "vaced: rank {}: an active message (context {:#x}) reached a rank without a handler",
                self.me, m.ctx
            );
        };
        let mut out = Vec::new();
        h.handle(m, t, &mut out);
        self.active = Some(h);
        for r in out {
            match r {
                Reply::Send {
                    dest,
                    ctx,
                    tag,
                    vsize,
                    data,
                } => self.send_at(t, dest, ctx, tag, vsize, &data),
                Reply::Complete(r, at) => self.complete(r, at, Status::default()),
            }
        }
    }

    /// An eager message sent at `t` without moving tV (a reply made while
    /// dealing with a message).
    fn send_at(&mut self, t: VTime, dest: u32, ctx: u32, tag: i32, size: u64, data: &[u8]) {
        let (_, ta) = self
            .model
            .send_times(t + self.model.o_send, size, self.me, dest);
        self.counters.msgs_sent += 1;
        self.counters.bytes_sent += size;
        let m = self.header(Kind::Eager, ctx, tag, size, ta);
        crate::timeline::message(dest, &m, t + self.model.o_send);
        self.emit(dest, &m, Body::Inline(data));
    }
}
