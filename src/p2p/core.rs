//! The per-rank point-to-point state machine: starting phases of sends and
//! receives (eager and rendezvous), matching in arrival / post order, the
//! early queue, the waiting activity (Algorithm 2) and DealMessage
//! (Algorithm 3). Host I/O goes through a [`Link`].
//!
//! Cancelling a send (MPI_Cancel, as MPICH's CH3 device does it): the
//! sender sends a cancel request naming the message by its serial number;
//! the receiver handles it, like every protocol message, only inside its MPI
//! calls, removes the message if no receive has matched it (eager DATA in
//! the unexpected queue, a REQ not answered) and answers; the send request is
//! incomplete until the answer comes, and its status says whether it was
//! cancelled. Timing, for `H = header_bytes`, `h = hop(s, r)`:
//! * the request leaves at the sender's tV, which becomes `tr = tV + M(H)`,
//!   and arrives at `max(tr + L(H, h), ta(message))` (a pair's channel keeps
//!   its order: the request never overtakes the message it names);
//! * the receiver handles it at its handling time `t1` (Algorithm 3: at the
//!   arrival inside a progress interval, else at the start of the next one;
//!   a rank in MPI_Finalize answers the requests it has received, in the
//!   interval it opens there) and answers at `t1` (`ta = t1 + M(H) + L(H, h)`;
//!   its clock does not move, as for an ACK);
//! * the sender handles the answer at `t2`; the send completes at `t2`
//!   (cancelled, or an eager send out already), or when its rendezvous ends
//!   (the DATA copied out) if that is later.
//!
//! Nothing is asked when the answer is known: a rendezvous send whose ACK
//! came (matched), a second cancel, a receiver that has finalized (a correct
//! program completes every receive first: the message was matched; the send
//! stays as it was). A rank in MPI_Finalize answers every cancel request
//! that reached it before it closed its inbox. Whether a request reaches a
//! receiver that finalizes with nothing ordering the two depends on the
//! host, and so does the send's completion time then (in a correct
//! program not its outcome: the message was matched).
//!
//! Who wins, the cancel or a receive, is decided by the receiver when it
//! handles the request, against the matching it has done so far. In exact
//! mode a conservative decision at `T` (wildcard receive or probe, test)
//! has seen every cancel request arriving by `T` (an ordinary timed
//! message), so it never takes a message whose cancel came first. A receive
//! with a specific source takes a message from the unexpected queue without
//! a decision, as it always does: if the host delivers a cancel request late,
//! after the receiver posted a receive later in virtual time than the
//! request's arrival, the receive wins. Deciding that case exactly would make
//! every match from the unexpected queue a conservative decision (every
//! program would pay for a rare call), so the rule is: the outcome is exact
//! and host-independent whenever the program orders the cancel and the
//! receive (the receive is posted after something that follows the cancel's
//! completion, as in MPICH's tests, or the receive matched before the cancel
//! was asked); when they race — the target's outcome then depends on timing
//! too — the host's order decides.
use super::decide;
use super::link::{Link, Next, Taken};
use super::record::Call;
use super::request::{Cancel, Op, ReqId, Request, Sent, Table, Target};
use super::{SendMode, Status};
use crate::engine::wire::{self, Body, Decoder, Kind, Msg, Payload};
use crate::engine::{Breakdown, Clock, History};
use crate::model::{Model, VTime};
use crate::transport::segment::ABORT_MESSAGE_BYTES;
use crate::transport::{RecvBuf, SendBuf};
use std::fmt::Write;
use std::time::Instant;

#[path = "compound.rs"]
mod compound;
pub use compound::{Poll, Progress};
mod active;
pub use active::{Active, Reply, ACTIVE_CTX_BIT};
mod contention;
mod pending;
mod posted;
mod recording;
mod yielding;

/// A message taken from the host inbox and not yet finished with.
struct Held {
    msg: Msg,
    /// Eager DATA / REQ: the receive it matched.
    bound: Option<ReqId>,
    /// Eager DATA / REQ not matched when handled: it sits in the unexpected
    /// queue since this time.
    unexpected_since: Option<VTime>,
}

/// What a waiting activity waits for.
#[derive(Clone, Copy)]
enum Goal<'a> {
    All(&'a [ReqId]),
    Any(&'a [ReqId]),
    /// The first message matching (src, tag, ctx) in arrival order is in the
    /// unexpected queue.
    Probe(Option<u32>, Option<i32>, u32),
}

/// Counters for the report.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counters {
    pub msgs_sent: u64,
    pub bytes_sent: u64,
    /// Conservative decisions taken (each waited for a safe snapshot).
    pub decisions: u64,
    /// Host time spent waiting for them, in ns.
    pub decide_wait_ns: u64,
}

pub struct Core<L: Link> {
    pub(crate) link: L,
    model: Model,
    me: u32,
    clock: Clock,
    hist: History,
    reqs: Table,
    /// Posted receives not yet matched, in post order.
    posted: posted::Posted,
    /// Held messages by id.
    held: Vec<Option<Held>>,
    held_free: Vec<usize>,
    /// Unmatched eager DATA / REQ (early or unexpected), in arrival order.
    pending: pending::Pending,
    /// The early queue, in arrival order.
    early: Vec<usize>,
    decoder: Decoder,
    scratch: Vec<u8>,
    pub counters: Counters,
    /// Conservative decisions (exact mode); off: decide on host arrival.
    exact: bool,
    /// tV as last published (a lower bound on what we send next).
    tv_pub: VTime,
    /// Our own bound word as last published (see `decide`).
    own_pub: u64,
    /// Inside a blocking waiting activity.
    blocking: bool,
    /// The time of the decision we wait to take.
    deciding: Option<VTime>,
    /// The MPI call in progress (deadlock reports).
    call: String,
    /// Earliest completion (or entry into the unexpected queue) during the
    /// blocking wait in progress: a wait deciding at T may end this early.
    floor: Option<VTime>,
    /// Compound requests (nonblocking collectives) in progress.
    compounds: Vec<compound::Compound<L>>,
    /// A compound request started a round since this was last cleared.
    compound_moved: bool,
    /// A compound request changed what others may do (a context-id
    /// agreement released this process's mask): poll them all again.
    compound_resweep: bool,
    /// The handler of active messages (one-sided communication), if any.
    active: Option<Box<dyn Active>>,
    /// Several host threads (MPI_THREAD_MULTIPLE): see `yielding`.
    mt: yielding::Threads,
    /// Serial number of the next DATA / REQ we send (see `cancel`).
    next_serial: u32,
    /// Our entries in the flow registry (contention).
    flows: super::flows::Owned,
    /// A flow the waiting activity needs waits for its window to close:
    /// the poke count seen before the scan that found it open.
    flow_wait: Option<u32>,
    /// The call log, when this run is replayed under other targets.
    rec: Option<Box<super::record::Recorder>>,
    /// The next compound request's serial number, and the compound being
    /// polled with how many local steps it measured (see `compound`).
    compound_serial: u64,
    polling: Option<(u64, u32)>,
    /// A replay: the run's measurements of compound requests' local steps.
    replay_measures: Option<std::collections::HashMap<(u64, u32), u64>>,
}

fn matches(m: &Msg, src: Option<u32>, tag: Option<i32>, ctx: u32) -> bool {
    m.ctx == ctx && src.is_none_or(|s| s == m.src) && tag.is_none_or(|t| t == m.tag)
}

impl<L: Link> Core<L> {
    /// The start event (end of MPI_Init): tV = 0.
    pub fn new(link: L, model: Model) -> Core<L> {
        let clock = Clock::start(model.cpu_scale, link.cpu_now_ns());
        let me = link.rank();
        Core {
            link,
            model,
            me,
            clock,
            hist: History::new(),
            reqs: Table::default(),
            posted: posted::Posted::default(),
            held: Vec::new(),
            held_free: Vec::new(),
            pending: Default::default(),
            early: Vec::new(),
            decoder: Decoder::default(),
            scratch: Vec::new(),
            counters: Counters::default(),
            exact: true,
            tv_pub: VTime::ZERO,
            own_pub: 0,
            blocking: false,
            deciding: None,
            call: String::new(),
            floor: None,
            compounds: Vec::new(),
            compound_moved: false,
            compound_resweep: false,
            active: None,
            mt: Default::default(),
            next_serial: 1,
            flows: Default::default(),
            flow_wait: None,
            rec: None,
            compound_serial: 0,
            polling: None,
            replay_measures: None,
        }
    }

    /// Exact mode (conservative decisions, the default) or fast mode
    /// (non-deterministic operations decided on host arrival).
    pub fn set_exact(&mut self, on: bool) {
        self.exact = on;
        debug_assert!(self.rec.is_none(), "exact mode is set before recording");
    }
    pub fn is_exact(&self) -> bool {
        self.exact
    }

    pub fn rank(&self) -> u32 {
        self.me
    }
    pub fn size(&self) -> u32 {
        self.link.size()
    }
    pub fn model(&self) -> &Model {
        &self.model
    }
    pub fn breakdown(&self) -> Breakdown {
        self.clock.spent
    }

    /// The rank's figures for the report; `sleeps`: how often its host
    /// thread slept (the transport counts them).
    pub fn result(&self, sleeps: u64) -> crate::transport::RankResult {
        let b = self.breakdown();
        crate::transport::RankResult {
            vtime_ps: self.vtime().ps(),
            compute_ps: b.compute.ps(),
            comm_ps: b.comm.ps(),
            wait_ps: b.wait.ps(),
            host_cpu_ns: b.app_cpu_ns,
            msgs_sent: self.counters.msgs_sent,
            bytes_sent: self.counters.bytes_sent,
            decisions: self.counters.decisions,
            decide_wait_ns: self.counters.decide_wait_ns,
            sleeps,
        }
    }

    // ---- clock events -----------------------------------------------------

    /// Entering the library: charge the computation since the last call.
    pub fn enter(&mut self) {
        let now = self.link.cpu_now_ns();
        self.note(|_| Call::Enter { cpu: now });
        self.switch_thread(now);
        self.clock.enter(now);
        self.tv_pub = self.clock.now();
        self.publish_own();
    }
    /// [`Core::enter`] for MPI call `name` (named in deadlock reports).
    pub fn enter_call(&mut self, name: &str) {
        self.call.clear();
        self.call.push_str(name);
        self.enter();
    }
    /// Leaving the library.
    pub fn leave(&mut self) {
        let now = self.link.cpu_leave_ns();
        self.note(|_| Call::Leave { cpu: now });
        self.clock.leave(now);
    }
    pub fn vtime(&self) -> VTime {
        self.clock.now()
    }
    pub fn compute(&mut self, t: VTime) {
        self.note(|_| Call::Compute { ps: t.ps() });
        self.clock.compute(t);
    }

    /// Run `f` as application computation (its CPU time is charged like user
    /// code): e.g. applying a reduction operator inside a collective.
    pub fn as_computation<R>(&mut self, f: impl FnOnce() -> R) -> R {
        self.leave();
        let r = f();
        self.enter();
        r
    }

    // ---- sending -----------------------------------------------------------

    fn emit(&mut self, dest: u32, m: &Msg, body: Body) -> bool {
        let ta = self.noted(m);
        self.link.send_msg(dest, m, body, ta)
    }

    /// The arrival time to note for `m` at its destination (exact mode).
    fn noted(&self, m: &Msg) -> Option<VTime> {
        (self.exact && m.kind != Kind::Nudge).then_some(m.ta)
    }

    fn header(&self, kind: Kind, ctx: u32, tag: i32, size: u64, ta: VTime) -> Msg {
        Msg {
            kind,
            src: self.me,
            ctx,
            tag,
            size,
            ta,
            sreq: 0,
            rreq: 0,
            flow: None,
            payload: Payload::None,
        }
    }

    /// Starting phase of a send (ADS for eager, ARS for rendezvous).
    pub fn isend(&mut self, buf: SendBuf, dest: u32, tag: i32, ctx: u32, mode: SendMode) -> ReqId {
        let len = buf.len() as u64;
        let id = if mode == SendMode::Buffered {
            self.bsend(buf, dest, tag, ctx)
        } else {
            self.isend_op(buf, None, dest, tag, ctx, mode == SendMode::Synchronous)
        };
        self.note_send(len, dest, tag, ctx, mode, false, id);
        id
    }

    /// A standard-mode send of bytes the request owns (used by collectives).
    pub fn isend_vec(&mut self, data: Vec<u8>, dest: u32, tag: i32, ctx: u32) -> ReqId {
        self.isend_owned(data, dest, tag, ctx, SendMode::Standard)
    }

    /// A synchronous-mode send (always rendezvous) of bytes the request owns.
    pub fn issend_vec(&mut self, data: Vec<u8>, dest: u32, tag: i32, ctx: u32) -> ReqId {
        self.isend_owned(data, dest, tag, ctx, SendMode::Synchronous)
    }

    fn isend_owned(
        &mut self,
        data: Vec<u8>,
        dest: u32,
        tag: i32,
        ctx: u32,
        mode: SendMode,
    ) -> ReqId {
        let len = data.len() as u64;
        let sync = mode == SendMode::Synchronous;
        let id = self.isend_op(SendBuf::empty(), Some(data), dest, tag, ctx, sync);
        self.note_send(len, dest, tag, ctx, mode, true, id);
        id
    }

    #[allow(clippy::too_many_arguments)]
    fn note_send(
        &mut self,
        len: u64,
        dest: u32,
        tag: i32,
        ctx: u32,
        mode: SendMode,
        owned: bool,
        id: ReqId,
    ) {
        self.note(|_| Call::Send {
            len,
            dest,
            tag,
            ctx,
            mode: mode.into(),
            owned,
            id,
        });
    }

    fn isend_op(
        &mut self,
        buf: SendBuf,
        owned: Option<Vec<u8>>,
        dest: u32,
        tag: i32,
        ctx: u32,
        sync: bool,
    ) -> ReqId {
        let ts = self.clock.now() + self.model.o_send;
        self.clock.advance_comm(ts);
        let op = Op::Send {
            dest,
            buf,
            owned,
            remote: false,
        };
        let id = self.reqs.insert(Request::new(op, ts));
        self.start_send(id, dest, tag, ctx, sync);
        id
    }

    fn start_send(&mut self, id: ReqId, dest: u32, tag: i32, ctx: u32, sync: bool) {
        let ts = self.clock.now();
        let tr = self.start_send_at(id, dest, tag, ctx, sync, ts);
        self.clock.advance_comm(tr);
    }

    /// The starting phase of send `id` at `ts` (the clock does not move).
    /// Returns tr, when the copy into the message (eager) or the REQ ends.
    fn start_send_at(
        &mut self,
        id: ReqId,
        dest: u32,
        tag: i32,
        ctx: u32,
        sync: bool,
        ts: VTime,
    ) -> VTime {
        let size = self.reqs.get(id).send_len() as u64;
        self.counters.msgs_sent += 1;
        self.counters.bytes_sent += size;
        let serial = self.next_serial;
        self.next_serial = self.next_serial.wrapping_add(1).max(1);
        let eager = !sync && size <= self.model.eager_limit_for(self.me, dest);
        let hb = self.model.header_bytes;
        let (tr, ta) = self
            .model
            .send_times(ts, if eager { size } else { hb }, self.me, dest);
        self.reqs.get_mut(id).sent = Some(Sent {
            dest,
            ctx,
            tag,
            serial,
            ta,
            eager,
        });
        if eager {
            let mut m = self.header(Kind::Eager, ctx, tag, size, ta);
            m.rreq = serial;
            m.flow = self.register_flow(tr, size, self.model.net_bandwidth, dest);
            crate::timeline::message(dest, &m, ts);
            // The request owns the bytes; the link borrows them.
            let req = self.reqs.get(id);
            let ta = self.noted(&m);
            self.link
                .send_msg(dest, &m, Body::Inline(req.send_bytes()), ta);
            self.complete(id, tr, Status::default());
            tr
        } else {
            let mut m = self.header(Kind::Req, ctx, tag, size, ta);
            m.sreq = id;
            m.rreq = serial;
            crate::timeline::message(dest, &m, ts);
            // Large payloads are pulled by the receiver straight from our
            // memory when we can allow it; otherwise they follow the ACK.
            let single_copy = self
                .link
                .pull_pid()
                .filter(|_| size as usize > self.inline_limit());
            let body = match single_copy {
                Some(pid) => {
                    let addr = self.reqs.get(id).send_bytes().as_ptr() as u64;
                    if let Op::Send { remote, .. } = &mut self.reqs.get_mut(id).op {
                        *remote = true;
                    }
                    Body::Remote { pid, addr }
                }
                None => Body::None,
            };
            self.emit(dest, &m, body);
            tr
        }
    }

    /// Payloads up to this size travel in one record.
    fn inline_limit(&self) -> usize {
        self.link.max_record() - wire::HEADER
    }

    /// Buffered mode: copy the data out (costs size/Bmem), send it from the
    /// copy in the background, and return a request complete at once.
    fn bsend(&mut self, buf: SendBuf, dest: u32, tag: i32, ctx: u32) -> ReqId {
        let len = buf.len() as u64;
        // a replay's buffer has no bytes to copy
        let data = (!buf.is_phantom()).then(|| buf.as_slice().to_vec());
        let t = self.clock.now() + self.model.mem_time(len);
        self.clock.advance_comm(t);
        let ts = self.clock.now() + self.model.o_send;
        self.clock.advance_comm(ts);
        let op = Op::Send {
            dest,
            buf,
            owned: data,
            remote: false,
        };
        let inner = self.reqs.insert(Request::new(op, ts));
        self.start_send(inner, dest, tag, ctx, false);
        // The facade keeps the message for MPI_Cancel: the inner request
        // goes once its protocol ends (eager: now).
        let sent = self.reqs.get(inner).sent;
        self.detach(inner);
        let facade = self.reqs.insert(Request::new(Op::Nothing, ts));
        self.reqs.get_mut(facade).sent = sent;
        self.complete(facade, ts, Status::default());
        facade
    }

    // ---- receiving ---------------------------------------------------------

    /// Starting phase of a receive: take a matching message from the
    /// unexpected queue (ADR / AAS), bind an early one, or post.
    pub fn irecv(&mut self, buf: RecvBuf, src: Option<u32>, tag: Option<i32>, ctx: u32) -> ReqId {
        let len = buf.len() as u64;
        let id = self.irecv_into(Target::User(buf), src, tag, ctx);
        self.note_recv(len, src, tag, ctx, false, id);
        id
    }

    /// A receive into a buffer of `len` bytes the request owns; collect the
    /// data with [`Core::take_vec`] once it is complete.
    pub fn irecv_vec(&mut self, len: usize, src: Option<u32>, tag: Option<i32>, ctx: u32) -> ReqId {
        let id = self.irecv_into(Target::Owned(vec![0; len]), src, tag, ctx);
        self.note_recv(len as u64, src, tag, ctx, true, id);
        id
    }

    fn note_recv(
        &mut self,
        len: u64,
        src: Option<u32>,
        tag: Option<i32>,
        ctx: u32,
        owned: bool,
        id: ReqId,
    ) {
        self.note(|_| Call::Recv {
            len,
            src,
            tag,
            ctx,
            owned,
            id,
        });
    }

    /// The data of a completed [`Core::irecv_vec`] (truncated to what arrived);
    /// frees the request.
    pub fn take_vec(&mut self, r: ReqId) -> Vec<u8> {
        debug_assert!(self.is_done(r));
        self.note(|_| Call::TakeVec { id: r });
        let req = self.reqs.remove(r);
        match req.op {
            Op::Recv {
                buf: Target::Owned(mut v),
                ..
            } => {
                v.truncate(req.status.bytes as usize);
                v
            }
            _ => panic!("take_vec on a request without an owned buffer"),
        }
    }

    fn irecv_into(&mut self, buf: Target, src: Option<u32>, tag: Option<i32>, ctx: u32) -> ReqId {
        let t = self.clock.now();
        self.irecv_into_at(buf, src, tag, ctx, t)
    }

    /// The starting phase of a receive posted at `t`.
    fn irecv_into_at(
        &mut self,
        buf: Target,
        src: Option<u32>,
        tag: Option<i32>,
        ctx: u32,
        t: VTime,
    ) -> ReqId {
        let op = Op::Recv {
            src,
            tag,
            ctx,
            buf,
            bound: false,
        };
        let id = self.reqs.insert(Request::new(op, t));
        if self.exact && src.is_none() {
            // A wildcard-source receive is decided later (conservatively).
            self.posted.push(id, src, tag, ctx, true);
            return id;
        }
        let found = self.pending.first_match(src, tag, ctx);
        // An undecided wildcard posted earlier may take that message.
        let found = found.filter(|&h| !self.behind_wildcard(h));
        match found {
            None => self.posted.push(id, src, tag, ctx, false),
            Some(h) => {
                self.pending.remove(h);
                self.bind(h, id);
                if let Some(u) = self.held[h].as_ref().unwrap().unexpected_since {
                    // In the unexpected queue: handled in the starting phase
                    // (a receive a schedule posts at a past time takes it
                    // once it is there).
                    let held = self.take_held(h);
                    self.receive_unexpected(id, held, t.max(u));
                }
            }
        }
        id
    }

    /// A posted receive with MPI_ANY_SOURCE that nothing is bound to yet
    /// (exact mode): messages it could take wait in `pending` until it is
    /// decided, and no later receive may take them (non-overtaking).
    fn undecided(&self, r: ReqId) -> bool {
        let q = self.reqs.get(r);
        self.exact
            && q.done.is_none()
            && matches!(
                q.op,
                Op::Recv {
                    src: None,
                    bound: false,
                    ..
                }
            )
    }

    /// The first undecided wildcard receive, in post order.
    fn first_undecided(&self) -> Option<ReqId> {
        self.posted
            .wild_ids(usize::MAX)
            .find(|&r| self.undecided(r))
    }

    /// Whether held message `h` matches an undecided wildcard receive.
    fn behind_wildcard(&self, h: usize) -> bool {
        let m = self.msg(h);
        self.posted.wild_ids(usize::MAX).any(|r| {
            self.undecided(r)
                && matches!(&self.reqs.get(r).op, Op::Recv { tag, ctx, .. } if matches(m, None, *tag, *ctx))
        })
    }

    /// The first posted receive (post order) that `m` matches, unless an
    /// undecided wildcard comes first, or, behind an undecided wildcard, that
    /// receive also matches an earlier pending message from the same source
    /// (one that arrived before arrival number `before`; None: any pending
    /// message precedes `m`): which of the two it takes depends on what the
    /// wildcard takes (non-overtaking).
    fn posted_match(&self, m: &Msg, before: Option<pending::Seq>) -> Option<usize> {
        let p = self.posted.first_match(m)?;
        let r = self.posted.get(p);
        if self.undecided(r) {
            return None;
        }
        if self.exact && self.posted.wild_ids(p).any(|w| self.undecided(w)) {
            let Op::Recv { src, tag, ctx, .. } = self.reqs.get(r).op else {
                unreachable!()
            };
            // `m` matches the receive: `src` is None or m's source
            debug_assert!(src.is_none_or(|s| s == m.src));
            if self.pending.any_before(m.src, tag, ctx, before) {
                return None;
            }
        }
        Some(p)
    }

    /// Bind pending messages to posted receives again (after a wildcard was
    /// decided or cancelled), in arrival order; messages already in the
    /// unexpected queue are received as if at the time the receive was posted.
    fn rematch(&mut self) {
        let mut from = 0;
        while let Some((seq, h)) = self.pending.next_from(from) {
            from = seq + 1;
            if self.posted.is_empty() {
                // no receive to take it, nor any later one
                break;
            }
            if let Some(p) = self.posted_match(self.msg(h), Some(seq)) {
                let r = self.posted.remove(p);
                self.pending.remove(h);
                self.bind(h, r);
                if let Some(u) = self.held[h].as_ref().unwrap().unexpected_since {
                    let held = self.take_held(h);
                    let t = u.max(self.reqs.get(r).t_post);
                    self.receive_unexpected(r, held, t);
                }
            }
        }
    }

    /// The message a wildcard-source receive or probe takes (exact mode):
    /// among the first matching pending message of each source (per-pair
    /// order), the earliest arrival, ties to the lower rank.
    fn pick_any(&self, tag: Option<i32>, ctx: u32) -> Option<usize> {
        // (arrival, source) differs between sources: the order the sources
        // come in does not matter
        self.pending
            .first_of_each_source(tag, ctx)
            .min_by_key(|&i| (self.msg(i).ta, self.msg(i).src))
    }

    /// Decide undecided wildcard receives in post order. `by`: in a test at
    /// that time (already settled): only with a message arriving by then.
    /// Otherwise (a blocking wait) each decision waits until no message
    /// arriving by the candidate's arrival can still come. Returns whether
    /// one was bound.
    fn decide_wildcards(&mut self, goal: Goal, by: Option<VTime>) -> bool {
        let mut progressed = false;
        while let Some(w) = self.first_undecided() {
            let Op::Recv { tag, ctx, .. } = self.reqs.get(w).op else {
                unreachable!()
            };
            let Some(c) = self.pick_any(tag, ctx) else {
                break;
            };
            let ta = self.msg(c).ta;
            match by {
                Some(t) if ta > t => break,
                Some(_) => {}
                None => {
                    self.settle(ta, true, goal);
                    if self.pick_any(tag, ctx) != Some(c) {
                        continue;
                    }
                }
            }
            let was = self.pending.remove(c);
            debug_assert!(was, "the message a wildcard takes is pending");
            self.posted.remove_req(w);
            self.bind(c, w);
            self.counters.decisions += 1;
            if let Some(u) = self.held[c].as_ref().unwrap().unexpected_since {
                let held = self.take_held(c);
                let t = u.max(self.reqs.get(w).t_post);
                self.receive_unexpected(w, held, t);
            }
            self.rematch();
            progressed = true;
        }
        progressed
    }

    fn bind(&mut self, h: usize, r: ReqId) {
        let held = self.held[h].as_mut().unwrap();
        held.bound = Some(r);
        let src = held.msg.src;
        let q = self.reqs.get_mut(r);
        q.matched = Some(src);
        if let Op::Recv { bound, .. } = &mut q.op {
            *bound = true;
        }
    }

    /// The sender of the message matched to receive `r`, once one is (a
    /// wildcard-source receive is matched when it is decided).
    pub fn matched_source(&self, r: ReqId) -> Option<u32> {
        self.reqs.get(r).matched
    }

    /// A receive posted while its message is in the unexpected queue: ADR
    /// (eager DATA: the copy to the user buffer, size/Bmem) or AAS (REQ: the
    /// ACK goes out now). Unlike the paper, tV does not move here: the copy
    /// is charged when the receive completes (at t_post + size/Bmem) and the
    /// ACK's own copy is not charged. Otherwise the result would depend on
    /// whether the host delivered the message before the receive was posted
    /// or after (then it is handled in a later wait, where no starting phase
    /// can be charged any more); both paths now give the same times.
    fn receive_unexpected(&mut self, r: ReqId, held: Held, now: VTime) {
        let m = held.msg;
        match m.kind {
            Kind::Eager => {
                let t =
                    now + self.model.copy_out(m.size, m.src, self.me, false) + self.model.o_recv;
                let st = self.store(r, &m, None);
                self.complete(r, t, st);
            }
            Kind::Req => {
                self.answer_req(r, &m, now);
            }
            _ => unreachable!("only DATA and REQ are unexpected"),
        }
    }

    /// Copy an eager payload (or pull a rendezvous one) into receive `r`;
    /// returns the status of the receive.
    fn store(&mut self, r: ReqId, m: &Msg, data: Option<&[u8]>) -> Status {
        let req = self.reqs.get_mut(r);
        let Op::Recv { buf, .. } = &mut req.op else {
            unreachable!("storing into a send")
        };
        // (a phantom buffer has a length and no bytes: its status counts
        // what it would have stored)
        let n = (m.size as usize).min(buf.len());
        let dst = buf.as_mut_slice();
        let inline = match (&m.payload, data) {
            (_, Some(d)) => Some(d),
            (Payload::Inline(v), None) => Some(v.as_slice()),
            _ => None,
        };
        if let Some(d) = inline {
            // (a replay's message has a length and no bytes)
            let k = n.min(d.len()).min(dst.len());
            dst[..k].copy_from_slice(&d[..k]);
        }
        if let Payload::Remote { pid, addr } = m.payload {
            // (a phantom buffer is never offered a pull: no single copy
            // for sends without bytes)
            let n = n.min(dst.len());
            if n > 0 {
                if let Err(e) = self.link.pull(pid, addr, &mut dst[..n]) {
                    panic!(
                        "vaced: rank {}: cannot copy {} bytes from rank {} (pid {}): {}",
                        self.me, n, m.src, pid, e
                    );
                }
            }
        }
        Status {
            source: m.src as i32,
            tag: m.tag,
            bytes: n as u64,
            cancelled: false,
            truncated: (m.size as usize) > n,
        }
    }

    /// Handle a REQ matched to receive `r` at `t`: pull the data if the sender
    /// offered it, send the ACK. Returns tr of the ACK.
    fn answer_req(&mut self, r: ReqId, m: &Msg, t: VTime) -> VTime {
        let st = if matches!(m.payload, Payload::Remote { .. }) {
            self.store(r, m, None)
        } else {
            // The data follows; fix source / tag / size now.
            let Op::Recv { buf, .. } = &mut self.reqs.get_mut(r).op else {
                unreachable!()
            };
            let n = (m.size as usize).min(buf.len());
            Status {
                source: m.src as i32,
                tag: m.tag,
                bytes: n as u64,
                cancelled: false,
                truncated: m.size as usize > n,
            }
        };
        self.reqs.get_mut(r).status = st;
        let hb = self.model.header_bytes;
        let (tr, ta) = self.model.send_times(t, hb, self.me, m.src);
        let mut ack = self.header(Kind::Ack, m.ctx, m.tag, m.size, ta);
        ack.sreq = m.sreq;
        ack.rreq = r;
        crate::timeline::message(m.src, &ack, t);
        self.emit(m.src, &ack, Body::None);
        tr
    }

    // ---- completion --------------------------------------------------------

    fn complete(&mut self, r: ReqId, t: VTime, st: Status) {
        if self.blocking && self.reqs.get(r).waited {
            self.lower_floor(t);
        }
        self.note_parked_done(r);
        if crate::timeline::on() && matches!(self.reqs.get(r).op, Op::Recv { .. }) {
            crate::timeline::received(&st);
        }
        let req = self.reqs.get_mut(r);
        req.done = Some(t);
        req.status = st;
        if req.detached {
            self.reqs.discard(r);
        }
    }

    pub fn is_done(&self, r: ReqId) -> bool {
        self.reqs.get(r).done.is_some()
    }
    /// Whether `r` names a request started and not freed.
    pub fn is_request(&self, r: ReqId) -> bool {
        self.reqs.is_active(r)
    }

    pub fn status(&self, r: ReqId) -> Status {
        self.reqs.get(r).status
    }
    pub fn free(&mut self, r: ReqId) {
        debug_assert!(self.is_done(r));
        self.note(|_| Call::Free { id: r });
        self.reqs.discard(r);
    }
    pub fn detach(&mut self, r: ReqId) {
        self.note(|_| Call::Detach { id: r });
        if self.is_done(r) {
            self.reqs.discard(r);
        } else {
            self.reqs.get_mut(r).detached = true;
        }
    }
    /// MPI_Cancel. A receive that nothing has matched yet is cancelled at
    /// once (true). A send asks its receiver (see [`Core::cancel_send`]):
    /// the answer comes later, the status tells.
    pub fn cancel(&mut self, r: ReqId) -> bool {
        let cancelled = self.cancel_op(r);
        self.note(|_| Call::Cancel { id: r, cancelled });
        cancelled
    }

    fn cancel_op(&mut self, r: ReqId) -> bool {
        if !matches!(self.reqs.get(r).op, Op::Recv { .. }) {
            self.cancel_send(r);
            return false;
        }
        let unmatched = matches!(self.reqs.get(r).op, Op::Recv { bound: false, .. });
        if !unmatched || self.is_done(r) {
            return false;
        }
        self.posted.remove_req(r);
        let t = self.clock.now();
        let st = Status {
            cancelled: true,
            ..Status::default()
        };
        self.complete(r, t, st);
        self.rematch();
        true
    }
    /// The cancel of send `r` (or of a buffered send's facade), as in
    /// MPICH's CH3 device: a cancel request goes to the receiver, which
    /// removes the message in its own progress if no receive has matched it
    /// and answers; `r` is incomplete until the answer comes (even an eager
    /// send, complete already). Nothing is asked when the answer is known:
    /// a rendezvous send whose ACK came (matched), a second cancel.
    ///
    /// Times: the request leaves at tV (the clock moves to its tr, as for a
    /// REQ) and, the channel keeping a pair's order, arrives no earlier
    /// than the message it names: `ta = max(tr + L(h, hop), ta(message))`,
    /// `h = header_bytes`. The receiver handles it at its handling time
    /// (Algorithm 3) and the answer, of `h` bytes, leaves then (the
    /// receiver's clock does not move, as for an ACK). The sender handles
    /// the answer at its handling time `t`: the send completes at `t`
    /// (cancelled, or an eager send already out), or when its rendezvous
    /// ends if that is later.
    fn cancel_send(&mut self, r: ReqId) {
        let q = self.reqs.get(r);
        let Some(s) = q.sent else { return };
        if q.cancel != Cancel::No {
            return;
        }
        let pending = match q.op {
            Op::Send { .. } => s.eager || q.done.is_none(),
            // A facade: its rendezvous is pending while the inner request lives.
            _ => s.eager || self.inner_send(r, s.serial).is_some(),
        };
        if !pending {
            self.reqs.get_mut(r).cancel = Cancel::Over;
            return;
        }
        let t = self.clock.now();
        let hb = self.model.header_bytes;
        let (tr, ta) = self.model.send_times(t, hb, self.me, s.dest);
        let mut m = self.header(Kind::Cancel, s.ctx, s.tag, 0, ta.max(s.ta));
        m.sreq = r;
        m.rreq = s.serial;
        crate::timeline::message(s.dest, &m, t);
        let delivered = self.emit(s.dest, &m, Body::None);
        self.clock.advance_comm(tr);
        let q = self.reqs.get_mut(r);
        if !delivered {
            // The receiver has finalized: it had matched the message (a
            // correct program completes every communication first).
            q.cancel = Cancel::Over;
            return;
        }
        q.cancel = Cancel::Asked { done: q.done };
        q.done = None;
    }

    /// The background request of buffered send `facade` (serial `serial`),
    /// while its protocol runs.
    fn inner_send(&self, facade: ReqId, serial: u32) -> Option<ReqId> {
        self.reqs.ids().find(|&i| {
            let q = self.reqs.get(i);
            i != facade
                && q.detached
                && matches!(q.op, Op::Send { .. })
                && q.sent.is_some_and(|s| s.serial == serial)
        })
    }

    /// A cancel request handled at `t` (receiver): remove the message if it
    /// is still unmatched (in the unexpected queue, or not yet handled) and
    /// answer.
    fn answer_cancel(&mut self, c: &Msg, t: VTime) {
        let found = self.pending.iter().find(|&h| {
            let m = self.msg(h);
            m.src == c.src && m.rreq == c.rreq && matches!(m.kind, Kind::Eager | Kind::Req)
        });
        let cancelled = found.is_some();
        if let Some(h) = found {
            self.pending.remove(h);
            self.early.retain(|&e| e != h);
            self.take_held(h);
            // receives behind it may take later messages now
            self.rematch();
        }
        let hb = self.model.header_bytes;
        let (_, ta) = self.model.send_times(t, hb, self.me, c.src);
        let mut a = self.header(Kind::CancelAnswer, c.ctx, c.tag, cancelled as u64, ta);
        a.sreq = c.sreq;
        a.rreq = c.rreq;
        crate::timeline::message(c.src, &a, t);
        self.emit(c.src, &a, Body::None);
    }

    /// The answer to our cancel request, handled at `t` (sender).
    fn cancel_answered(&mut self, a: &Msg, t: VTime) {
        let r = a.sreq;
        let q = self.reqs.get_mut(r);
        let Cancel::Asked { done } = q.cancel else {
            panic!(
                "vaced: rank {}: a cancel answer for request {r}, which asked none",
                self.me
            )
        };
        q.cancel = Cancel::Over;
        if a.size != 0 {
            // Removed unmatched: no ACK will come for a rendezvous.
            if let Some(inner) = self.inner_send(r, a.rreq) {
                self.reqs.discard(inner);
            }
            let st = Status {
                source: -1,
                tag: -1,
                cancelled: true,
                ..Status::default()
            };
            self.complete(r, t, st);
            return;
        }
        match done {
            Some(d) => {
                let st = self.reqs.get(r).status;
                self.complete(r, d.max(t), st);
            }
            None => self.reqs.get_mut(r).cancel = Cancel::Refused { at: t },
        }
    }

    /// Requests not yet freed (the user's and background ones).
    pub fn active_requests(&self) -> usize {
        self.reqs.active()
    }

    // ---- held messages -------------------------------------------------------

    fn hold(&mut self, h: Held) -> usize {
        match self.held_free.pop() {
            Some(i) => {
                self.held[i] = Some(h);
                i
            }
            None => {
                self.held.push(Some(h));
                self.held.len() - 1
            }
        }
    }
    fn take_held(&mut self, i: usize) -> Held {
        self.held_free.push(i);
        self.held[i].take().unwrap()
    }
    fn msg(&self, i: usize) -> &Msg {
        &self.held[i].as_ref().unwrap().msg
    }

    /// Is held message `i` related to the communication being waited for?
    fn related(&self, i: usize, goal: Goal) -> bool {
        let h = self.held[i].as_ref().unwrap();
        let waited = |r: ReqId| self.reqs.is_active(r) && self.reqs.get(r).waited;
        if active::is_active(&h.msg) {
            return self.active_related(&h.msg);
        }
        match h.msg.kind {
            Kind::Eager | Kind::Req => match h.bound {
                Some(r) => waited(r),
                None => match goal {
                    Goal::Probe(s, t, c) => self.first_pending(s, t, c) == Some(i),
                    _ => false,
                },
            },
            Kind::Ack | Kind::CancelAnswer => waited(h.msg.sreq),
            Kind::Data => waited(h.msg.rreq),
            // handled when the receiver's progress covers its arrival
            Kind::Nudge | Kind::Cancel => false,
        }
    }

    fn first_pending(&self, s: Option<u32>, t: Option<i32>, c: u32) -> Option<usize> {
        if self.exact && s.is_none() {
            return self.pick_any(t, c);
        }
        self.pending.first_match(s, t, c)
    }

    /// Take a message from the host: match it if it is DATA / REQ.
    fn access(&mut self, m: Msg) -> usize {
        let data_or_req = matches!(m.kind, Kind::Eager | Kind::Req) && !active::is_active(&m);
        let i = self.hold(Held {
            msg: m,
            bound: None,
            unexpected_since: None,
        });
        if data_or_req {
            match self.posted_match(self.msg(i), None) {
                Some(p) => {
                    let r = self.posted.remove(p);
                    self.bind(i, r);
                }
                None => {
                    let m = self.msg(i);
                    let key = pending::Key {
                        src: m.src,
                        tag: m.tag,
                        ctx: m.ctx,
                    };
                    self.pending.push_back(i, key);
                }
            }
        }
        self.resolve_at_once(i);
        i
    }

    /// DealMessage (Algorithm 3) for held message `i`. Returns the completion
    /// time of a request it completed, if any.
    fn deal(&mut self, i: usize) {
        self.deal_message(i);
        self.progress_compounds();
    }

    fn deal_message(&mut self, i: usize) {
        let h = self.held[i].as_ref().unwrap();
        let now = self.clock.now();
        let t = self.hist.handling_time(h.msg.ta, now);
        if active::is_active(&h.msg) {
            let held = self.take_held(i);
            self.deal_active(held.msg, t);
            return;
        }
        match (h.msg.kind, h.bound) {
            (Kind::Eager | Kind::Req, None) => {
                // No receive yet: into the unexpected queue (it stays in
                // `pending`, in arrival order).
                self.held[i].as_mut().unwrap().unexpected_since = Some(t);
                if self.blocking {
                    self.lower_floor(t);
                }
            }
            (Kind::Eager, Some(r)) => {
                let held = self.take_held(i);
                let t = t.max(self.reqs.get(r).t_post);
                let copy = self
                    .model
                    .copy_out(held.msg.size, held.msg.src, self.me, false);
                let done = t + copy + self.model.o_recv;
                let st = self.store(r, &held.msg, None);
                self.complete(r, done, st);
            }
            (Kind::Req, Some(r)) => {
                let held = self.take_held(i);
                let t = t.max(self.reqs.get(r).t_post);
                self.answer_req(r, &held.msg, t);
            }
            (Kind::Ack, _) => {
                let held = self.take_held(i);
                self.answer_ack(&held.msg, t);
            }
            (Kind::Nudge, _) => {
                self.take_held(i);
            }
            (Kind::Cancel, _) => {
                let held = self.take_held(i);
                self.answer_cancel(&held.msg, t);
            }
            (Kind::CancelAnswer, _) => {
                let held = self.take_held(i);
                self.cancel_answered(&held.msg, t);
            }
            (Kind::Data, _) => {
                let held = self.take_held(i);
                let r = held.msg.rreq;
                let copy = self
                    .model
                    .copy_out(held.msg.size, held.msg.src, self.me, true);
                let done = t + copy + self.model.o_recv;
                // (the status counts min(size, buffer) since the REQ, a
                // phantom buffer's too)
                let st = self.reqs.get(r).status;
                if let Payload::Inline(d) = &held.msg.payload {
                    let Op::Recv { buf, .. } = &mut self.reqs.get_mut(r).op else {
                        unreachable!()
                    };
                    let dst = buf.as_mut_slice();
                    let n = dst.len().min(d.len());
                    dst[..n].copy_from_slice(&d[..n]);
                }
                self.complete(r, done, st);
            }
        }
    }

    /// An ACK handled at `t`: send the DATA; the send completes at its tr
    /// (t + size/Bmem, or its arrival for a single on-node copy).
    fn answer_ack(&mut self, ack: &Msg, t: VTime) {
        let s = ack.sreq;
        let dest = ack.src;
        let size = ack.size;
        let (tr, ta) = self.model.data_times(t, size, self.me, dest);
        let mut m = self.header(Kind::Data, ack.ctx, ack.tag, size, ta);
        m.sreq = s;
        m.rreq = ack.rreq;
        m.flow = self.register_flow(tr, size, self.model.rendezvous.bandwidth, dest);
        crate::timeline::message(dest, &m, t);
        let req = self.reqs.get(s);
        let remote = matches!(req.op, Op::Send { remote: true, .. });
        let ta = self.noted(&m);
        let body = if remote {
            Body::None
        } else {
            Body::Inline(req.send_bytes())
        };
        self.link.send_msg(dest, &m, body, ta);
        match self.reqs.get(s).cancel {
            // complete once the cancel's answer comes
            Cancel::Asked { .. } => {
                let q = self.reqs.get_mut(s);
                q.cancel = Cancel::Asked { done: Some(tr) };
                q.status = Status::default();
            }
            Cancel::Refused { at } => {
                self.reqs.get_mut(s).cancel = Cancel::Over;
                self.complete(s, tr.max(at), Status::default());
            }
            _ => self.complete(s, tr, Status::default()),
        }
    }

    // ---- the waiting activity (Algorithm 2) ----------------------------------

    /// Next message from the host, sleeping for one if `block`.
    fn fetch(&mut self, block: bool) -> Option<Msg> {
        loop {
            match self.next_msg() {
                Some(m) if m.kind == Kind::Nudge => continue,
                Some(m) => return Some(m),
                None => {}
            }
            if self.exact {
                // Everything read is handled: publish what we hold, then
                // forget the arrivals we were told of.
                self.publish_own();
                if self.decoder.is_idle() {
                    if let Some(old) = self.link.settle_unread() {
                        self.unread_forgotten(old);
                    }
                }
            }
            if !block {
                return None;
            }
            self.link.wait_incoming();
        }
    }

    /// The next whole message the link has for us, if any now.
    #[inline]
    fn next_msg(&mut self) -> Option<Msg> {
        loop {
            match self.link.take_msg() {
                Taken::Msg(m) => return Some(m),
                Taken::Empty => return None,
                Taken::Records => {}
            }
            let mut body = Vec::new();
            if !self
                .link
                .try_recv_split(wire::HEADER, &mut self.scratch, &mut body)
            {
                return None;
            }
            match self.decoder.feed_split(&self.scratch, body) {
                Ok(Some(m)) => return Some(m),
                Ok(None) => continue,
                Err(e) => panic!("vaced: rank {}: corrupt message: {e}", self.me),
            }
        }
    }

    /// Read what the host delivered into the early queue, dealing with
    /// none of it: no waiting activity, so the clock and the progress
    /// history stay as they are; the next waiting activity deals with each
    /// as if it had read it then (its early queue comes first, in arrival
    /// order). For a rank that waits in another library's own code (the
    /// library's internal messages of a one-sided call, `abi::engine_api`):
    /// what its peers' engines send it meanwhile must not fill its inbox
    /// and block them.
    pub fn absorb(&mut self) {
        while let Some(m) = self.fetch(false) {
            let i = self.access(m);
            self.note_parked_probe(i);
            self.early.push(i);
        }
    }

    fn goal_met(&self, goal: Goal, by: Option<VTime>) -> bool {
        let ok = |r: &ReqId| {
            self.reqs
                .get(*r)
                .done
                .is_some_and(|d| by.is_none_or(|b| d <= b))
        };
        match goal {
            Goal::All(rs) => rs.iter().all(ok),
            Goal::Any(rs) => rs.iter().any(ok),
            Goal::Probe(s, t, c) => self.first_pending(s, t, c).is_some_and(|i| {
                let u = self.held[i].as_ref().unwrap().unexpected_since;
                u.is_some_and(|u| by.is_none_or(|b| u <= b))
            }),
        }
    }

    /// [`Core::goal_met`] for a blocking wait's loop (`by` None), resuming
    /// at `from`, the first request of a `Goal::All` it found incomplete
    /// before: a request stays complete, so a wait on n requests checks
    /// each about once, not n times (an all-to-all's wait is on hundreds).
    fn goal_met_from(&self, goal: Goal, by: Option<VTime>, from: &mut usize) -> bool {
        match (goal, by) {
            (Goal::All(rs), None) => {
                while let Some(&r) = rs.get(*from) {
                    if self.reqs.get(r).done.is_none() {
                        return false;
                    }
                    *from += 1;
                }
                true
            }
            _ => self.goal_met(goal, by),
        }
    }

    fn goal_end(&self, goal: Goal, start: VTime) -> VTime {
        let done = |r: &ReqId| self.reqs.get(*r).done;
        let end = match goal {
            Goal::All(rs) => rs.iter().filter_map(done).max(),
            Goal::Any(rs) => rs.iter().filter_map(done).min(),
            Goal::Probe(s, t, c) => self
                .first_pending(s, t, c)
                .and_then(|i| self.held[i].as_ref().unwrap().unexpected_since),
        };
        end.unwrap_or(start).max(start)
    }

    fn mark(&mut self, goal: Goal, on: bool) {
        if let Goal::All(rs) | Goal::Any(rs) = goal {
            for &r in rs {
                self.reqs.get_mut(r).waited = on;
            }
            self.mark_compounds();
        }
    }

    /// One waiting activity. `block`: a wait (sleeps until the goal is met);
    /// otherwise a test (a zero-length wait at tV). Returns AWTend.
    fn waiting(&mut self, goal: Goal, block: bool) -> VTime {
        self.unpark_goal(goal);
        let start = self.clock.now();
        self.hist.begin(start);
        self.link.publish_vtime(start);
        self.tv_pub = start;
        self.blocking = block;
        self.floor = None;
        self.mark(goal, true);
        let by = if block { None } else { Some(start) };
        if !self.goal_met(goal, by) {
            // Lines 5-10: the early queue first.
            self.deal_ready_early(start, block, goal);
        }
        // Lines 11-20: the host inbox, in arrival order.
        let mut suspended = false;
        let mut met = 0;
        while !self.goal_met_from(goal, by, &mut met) {
            if block && self.suspend_now() {
                suspended = true;
                break;
            }
            if block && std::mem::take(&mut self.compound_moved) {
                // A compound request started a round: messages held early
                // for its new receives are now related.
                self.deal_related_early(goal);
                continue;
            }
            if block && self.exact && self.decide_wildcards(goal, None) {
                self.deal_related_early(goal);
                continue;
            }
            if self.exact && self.contended() && self.try_flows(start, block, goal) {
                continue;
            }
            match self.fetch(false) {
                Some(m) => {
                    let i = self.access(m);
                    self.note_parked_probe(i);
                    if self.ready(i, start, block, goal) {
                        self.deal(i);
                    } else {
                        self.early.push(i);
                    }
                }
                None if !block => break,
                None if self.yield_wanted() => {
                    suspended = true;
                    break;
                }
                // The inbox is settled now: a flow we need may have waited
                // on our own unread arrivals.
                None if self.exact && self.contended() && self.try_flows(start, block, goal) => {}
                None => self.idle(goal),
            }
        }
        self.stop_flow_wait();
        if suspended {
            return self.suspend(goal, start);
        }
        // Exact mode: an outcome that depends on what has arrived by a time
        // waits until nothing arriving by then can still come.
        if self.exact && !self.is_final(goal, block, start) {
            let t = if block {
                self.decision_time(goal, start)
            } else {
                start
            };
            self.settle(t, block, goal);
            self.counters.decisions += 1;
            if !block {
                self.decide_wildcards(goal, Some(t));
            }
        }
        let end = if block {
            self.goal_end(goal, start)
        } else {
            start
        };
        // Lines 22-27: what arrived while we waited.
        if self.exact && self.contended() {
            self.settle_flows(end, false, goal);
        }
        self.deal_ready_early(end, false, goal);
        self.mark(goal, false);
        self.hist.end(end);
        if self.exact && self.hist.wants_trim() {
            self.trim_history(end);
        }
        self.clock.advance_wait(end);
        self.link.publish_vtime(end);
        self.tv_pub = end;
        self.blocking = false;
        self.publish_own();
        end
    }

    /// Forget the progress intervals no message can still need: those ending
    /// before anything unread can arrive, before our early queue, and `now`.
    fn trim_history(&mut self, now: VTime) {
        let early = self.early.iter().map(|&i| self.msg(i).ta.ps()).min();
        let t = super::horizon::earliest_arrival(&self.link, &self.model, self.me)
            .min(early.unwrap_or(u64::MAX))
            .min(now.ps());
        self.hist.trim_before(VTime::from_ps(t));
    }

    /// Closed progress intervals kept (see [`History::trim_before`]).
    pub fn history_len(&self) -> usize {
        self.hist.len()
    }

    /// Whether held message `i` is dealt with now by a waiting activity that
    /// has reached `by`: it arrived by then, or it is related to a blocking
    /// wait's `goal` (an unresolved flow never is: its arrival is not known).
    fn ready(&self, i: usize, by: VTime, block: bool, goal: Goal) -> bool {
        !self.is_unresolved(i) && (self.msg(i).ta <= by || (block && self.related(i, goal)))
    }

    /// Deal with the early-queued messages that are [`Core::ready`] at
    /// `by`; the others stay early queued.
    fn deal_ready_early(&mut self, by: VTime, block: bool, goal: Goal) {
        let early = std::mem::take(&mut self.early);
        for i in early {
            if self.ready(i, by, block, goal) {
                self.deal(i);
            } else {
                self.early.push(i);
            }
        }
    }

    /// Take in what the host holds for us: deal with what is
    /// [`Core::ready`] at `by`, early-queue the rest.
    fn take_in(&mut self, by: VTime, block: bool, goal: Goal) {
        while let Some(m) = self.fetch(false) {
            let i = self.access(m);
            if self.ready(i, by, block, goal) {
                self.deal(i);
            } else {
                self.early.push(i);
            }
        }
    }

    /// Held early messages now related to the wait: deal them.
    fn deal_related_early(&mut self, goal: Goal) {
        let early = std::mem::take(&mut self.early);
        for i in early {
            if !self.is_unresolved(i) && self.related(i, goal) {
                self.deal(i);
            } else {
                self.early.push(i);
            }
        }
    }

    /// Whether the outcome of a waiting activity whose goal is met (or, for
    /// a test, that found nothing more to read) cannot depend on messages
    /// still to come.
    fn is_final(&self, goal: Goal, block: bool, start: VTime) -> bool {
        let all_done = |rs: &[ReqId]| {
            rs.iter()
                .all(|&r| self.reqs.get(r).done.is_some_and(|d| block || d <= start))
        };
        match goal {
            // Met: every request is complete (wildcards were decided on the way).
            Goal::All(_) if block => true,
            Goal::All(rs) | Goal::Any(rs) => all_done(rs),
            Goal::Probe(Some(_), ..) => block || self.goal_met(goal, Some(start)),
            Goal::Probe(None, ..) => false,
        }
    }

    /// The time a met blocking goal's outcome is decided at: the earliest
    /// completion (Waitany) or the arrival of the probed message.
    fn decision_time(&self, goal: Goal, start: VTime) -> VTime {
        match goal {
            Goal::Probe(s, t, c) => self
                .first_pending(s, t, c)
                .map_or(start, |i| self.msg(i).ta),
            _ => self.goal_end(goal, start),
        }
    }

    // ---- conservative decisions (see `decide`) --------------------------------

    fn lower_floor(&mut self, t: VTime) {
        self.floor = Some(self.floor.map_or(t, |f| f.min(t)));
    }

    /// Our own bound word now (see `decide`).
    fn own_word(&self) -> u64 {
        let held = self.early.iter().map(|&i| self.msg(i).ta).min();
        let base = if self.blocking && !self.link.others_running() {
            // Deciding at T, the wait ends at T or, if something completed
            // meanwhile, possibly as early as that (Waitany, Probe).
            self.deciding.map(|t| self.floor.map_or(t, |f| f.min(t)))
        } else {
            Some(self.tv_pub)
        };
        let lb = match (base, held) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let tie = match (self.deciding, lb) {
            (Some(t), Some(l)) => t == l && held.is_none_or(|h| h > t),
            _ => false,
        };
        decide::encode(lb, tie)
    }

    /// Publish our own bound if it changed; poke the deciders a rise frees.
    fn publish_own(&mut self) {
        if !self.exact {
            return;
        }
        let new = self.own_word();
        self.set_own(new);
    }

    fn set_own(&mut self, new: u64) {
        let old = self.own_pub;
        if new == old {
            return;
        }
        self.link.publish_bound(old, new);
        self.own_pub = new;
        if new > old {
            let (u, _) = self.link.peer_bound(self.me);
            decide::poke_unblocked(&self.link, &self.model, self.me, (old, u), (new, u));
        }
    }

    /// The arrivals noted in our inbox, the earliest at `old`, were
    /// forgotten: our effective bound rose; poke the deciders that frees.
    fn unread_forgotten(&mut self, old: VTime) {
        let own = self.own_pub;
        decide::poke_unblocked(
            &self.link,
            &self.model,
            self.me,
            (own, Some(old.ps())),
            (own, None),
        );
    }

    /// Finalizing, once the results are published: we send and read nothing
    /// more (our bound becomes +inf, records reaching us are dropped). We
    /// count as idle for good; if that leaves the job quiescent, the holder
    /// of its next event is woken, or, with none, every rank still waiting,
    /// to look for itself (a rank poked but not yet awake only looks idle; a
    /// real deadlock is reported by the last of them to go idle).
    pub(crate) fn retire(&mut self) {
        self.note(|_| Call::Retire);
        self.flush_record();
        self.link.publish_blocked(None, "");
        if self.exact {
            self.set_own(decide::FINAL);
        }
        self.link.close();
        self.answer_last_cancels();
        if let Some(old) = self.link.settle_unread() {
            if self.exact {
                self.unread_forgotten(old);
            }
        }
        if !self.link.idle_begin() {
            return;
        }
        loop {
            match self.link.next_event() {
                // Not delivered: `r` finalized after we read its event.
                Next::Event(_, _, r) if !self.nudge(r) => continue,
                Next::Event(..) | Next::Stirred => return,
                Next::Nothing => {
                    let report = self.link.waiting_report();
                    for (r, w) in report.iter().enumerate() {
                        if w.is_some() {
                            self.nudge(r as u32);
                        }
                    }
                    return;
                }
            }
        }
    }

    /// The records that reached us before we closed: cancel requests are
    /// answered at their handling time (a rank in MPI_Finalize makes
    /// progress; the DATA / REQ they may name are taken in first), the rest
    /// is discarded. The answers leave after the requests' arrivals, which
    /// are still noted in our inbox: our bound covers them.
    fn answer_last_cancels(&mut self) {
        let now = self.clock.now();
        while let Some(m) = self.next_msg() {
            match m.kind {
                Kind::Eager | Kind::Req if !active::is_active(&m) => {
                    self.access(m);
                }
                Kind::Cancel => {
                    let t = self.hist.handling_time(m.ta, now);
                    self.answer_cancel(&m, t);
                }
                _ => {}
            }
        }
    }

    /// Wait until no message arriving by `t` can still reach us, handling
    /// what arrives meanwhile as the waiting activity in progress does
    /// (arrivals by `t` are dealt with; in a blocking wait, related ones too).
    fn settle(&mut self, t: VTime, block: bool, goal: Goal) {
        let began = Instant::now();
        self.deciding = Some(t);
        self.link.set_deciding(Some(t));
        self.publish_own();
        loop {
            self.take_in(t, block, goal);
            // The flows arriving by t first: resolving them may bring more.
            if self.contended() && self.settle_flows(t, false, goal) {
                continue;
            }
            let seen = self.link.pokes();
            if decide::scan(&self.link, &self.model, self.me, t).is_ok() {
                break;
            }
            if self.sleep_deciding(seen, goal) {
                break;
            }
        }
        self.deciding = None;
        self.link.set_deciding(None);
        self.publish_own();
        self.counters.decide_wait_ns += began.elapsed().as_nanos() as u64;
    }

    /// Sleep until a record arrives or a bound we wait on rises. If our going
    /// idle leaves the job quiescent and our decision is its next event,
    /// return true: the decision is safe now.
    fn sleep_deciding(&mut self, seen: u32, goal: Goal) -> bool {
        let mine = self.earliest_early_index();
        let early_min = mine.map(|k| self.msg(self.early[k]).ta);
        self.link
            .publish_blocked(early_min, &self.waiting_text(goal));
        if !self.link.idle_begin() {
            self.link.wait_poked(seen);
            self.link.idle_end();
            return false;
        }
        match self.link.next_event() {
            Next::Event(_, 1, r) if r == self.me => {
                self.link.idle_end();
                true
            }
            Next::Event(_, _, r) if r == self.me => {
                self.link.idle_end();
                self.act_on_earliest(mine.expect("we published an early message"));
                false
            }
            Next::Event(_, _, r) => {
                // Not delivered: `r` finalized after we read its event; look
                // again (the caller scans and comes back here).
                if self.nudge(r) {
                    self.link.wait_poked(seen);
                }
                self.link.idle_end();
                false
            }
            Next::Stirred => {
                self.link.wait_poked(seen);
                self.link.idle_end();
                false
            }
            Next::Nothing => self.report_deadlock(),
        }
    }

    /// Nothing to read and the wait is not over: sleep until a message
    /// arrives. If our going idle leaves the whole job quiescent (every rank
    /// idle, nothing in flight), the job's earliest early-queued message is
    /// the next event on the target: its holder handles it now, inside the
    /// wait it is idle in (an extension of Algorithm 2, whose early queue
    /// otherwise deadlocks when two waits each hold what the other needs).
    /// With no such message anywhere, the program is deadlocked.
    fn idle(&mut self, goal: Goal) {
        let mine = self.earliest_early_index();
        let early_min = mine.map(|k| self.msg(self.early[k]).ta);
        self.link
            .publish_blocked(early_min, &self.waiting_text(goal));
        if self.mt.yielding {
            // Another thread of the rank may call MPI: sleep until a record
            // or a poke (such a thread pokes us to get in), and count as
            // idle only while every other thread is parked.
            let seen = self.flow_wait.unwrap_or_else(|| self.link.pokes());
            if self.link.yield_requested() {
                // a thread asked in before we read the poke count: its
                // poke would not wake us (the caller suspends the wait)
                return;
            }
            self.link.refresh_threads();
            if self.link.others_running() {
                self.link.wait_poked(seen);
                return;
            }
            if !self.link.idle_begin() {
                self.link.prefer_next(self.awaited_source(goal));
                self.link.wait_poked(seen);
                self.link.idle_end();
                return;
            }
        } else if !self.link.idle_begin() {
            self.link.prefer_next(self.awaited_source(goal));
            match self.flow_wait {
                // a flow we need waits for bounds to rise: pokes wake us
                Some(seen) => self.link.wait_poked(seen),
                None => self.link.wait_incoming(),
            }
            self.link.idle_end();
            return;
        }
        self.quiescent(mine, self.flow_wait);
    }

    /// The job is quiescent (we counted ourselves idle last): act on its
    /// next event if it is ours (our early message at `mine`), else nudge
    /// its holder and sleep until a record comes (or, with `poked`, a poke
    /// since that count); count ourselves busy again.
    fn quiescent(&mut self, mine: Option<usize>, poked: Option<u32>) {
        let sleep = |link: &mut L| match poked {
            Some(seen) => link.wait_poked(seen),
            None => link.wait_incoming(),
        };
        match self.link.next_event() {
            Next::Event(_, 0, r) if r == self.me => {
                self.link.idle_end();
                self.act_on_earliest(mine.expect("we published an early message"));
            }
            Next::Event(_, _, r) => {
                // Not delivered: `r` finalized after we read its event; the
                // caller comes back here and looks again. (Our own pending
                // decision is never first here: the messages it needs
                // arrive by its time.)
                if r != self.me && self.nudge(r) {
                    sleep(&mut self.link);
                }
                self.link.idle_end();
            }
            Next::Stirred => {
                sleep(&mut self.link);
                self.link.idle_end();
            }
            Next::Nothing => self.report_deadlock(),
        }
    }

    /// The one rank a wait for `goal` needs messages from: the peer of all
    /// its unfinished requests (receive sources, send destinations), if
    /// they name a single rank. A wait on many peers (an all-to-all) names
    /// none: any of them may come first.
    fn awaited_source(&self, goal: Goal) -> Option<u32> {
        let (Goal::All(rs) | Goal::Any(rs)) = goal else {
            return None;
        };
        let mut peer = None;
        for &r in rs {
            let q = self.reqs.get(r);
            let p = match &q.op {
                _ if q.done.is_some() => continue,
                Op::Recv { src, .. } => (*src)?,
                Op::Send { dest, .. } => *dest,
                Op::Nothing => continue,
            };
            if peer.is_some_and(|x| x != p) {
                return None;
            }
            peer = Some(p);
        }
        peer
    }

    /// Position in the early queue of our earliest message (ties: arrival).
    fn earliest_early_index(&self) -> Option<usize> {
        (0..self.early.len()).min_by_key(|&k| (self.msg(self.early[k]).ta, k))
    }

    /// Wake rank `r` with a host-only record (counted in flight until `r`
    /// reads it). False if `r` has finalized: it acts no more.
    pub(crate) fn nudge(&mut self, r: u32) -> bool {
        let m = Msg::nudge(self.me);
        self.link.send_msg(r, &m, Body::None, None)
    }

    pub(crate) fn report_deadlock(&mut self) -> ! {
        let mut out = String::from("deadlock: every rank is blocked and no message is in flight\n");
        let report = self.link.waiting_report();
        let blocked: Vec<_> = report
            .iter()
            .enumerate()
            .filter_map(|(r, w)| w.as_ref().map(|w| (r, w)))
            .collect();
        for (r, w) in blocked.iter().take(64) {
            out.push_str(&format!("  rank {r}: {w}\n"));
        }
        if blocked.len() > 64 {
            out.push_str(&format!("  ... and {} more ranks\n", blocked.len() - 64));
        }
        self.link.deadlock(&out)
    }

    /// What a waiting activity waits for, in words (deadlock reports).
    /// What to publish as what we wait for (see [`Link::describes_waits`]).
    fn waiting_text(&self, goal: Goal) -> String {
        if self.link.describes_waits() {
            self.describe(goal)
        } else {
            String::new()
        }
    }

    fn describe(&self, goal: Goal) -> String {
        let mut s = String::new();
        self.describe_goal(goal, &mut s);
        if !self.call.is_empty() {
            let _ = write!(s, " (in {})", self.call);
        }
        s
    }

    /// What a wait for `goal` waits for, in words, appended to `s`. Only
    /// the first [`ABORT_MESSAGE_BYTES`] are published, so the list stops
    /// growing past that: a wait on thousands of requests (an all-to-all)
    /// would otherwise format every one each time it sleeps.
    fn describe_goal(&self, goal: Goal, s: &mut String) {
        // "from rank R with tag T", either part possibly "any".
        let from_with_tag = |s: &mut String, src: Option<u32>, tag: Option<i32>| {
            let _ = match src {
                Some(r) => write!(s, "from rank {r}"),
                None => write!(s, "from any rank"),
            };
            let _ = match tag {
                Some(t) => write!(s, " with tag {t}"),
                None => write!(s, " with tag any"),
            };
        };
        match goal {
            Goal::All(rs) | Goal::Any(rs) => {
                s.push_str(if matches!(goal, Goal::Any(_)) && rs.len() > 1 {
                    "waiting for any of: "
                } else {
                    "waiting for: "
                });
                let mut sep = "";
                for &r in rs {
                    if s.len() > ABORT_MESSAGE_BYTES {
                        break;
                    }
                    let q = self.reqs.get(r);
                    if q.done.is_some() {
                        continue;
                    }
                    match &q.op {
                        Op::Send { dest, .. } => {
                            let _ = write!(s, "{sep}send to rank {dest} (awaiting the receiver)");
                        }
                        Op::Recv { src, tag, .. } => {
                            let _ = write!(s, "{sep}receive ");
                            from_with_tag(s, *src, *tag);
                        }
                        Op::Nothing => continue,
                    }
                    sep = "; ";
                }
            }
            Goal::Probe(src, tag, _) => {
                s.push_str("probing for a message ");
                from_with_tag(s, src, tag);
            }
        }
    }

    /// MPI_Wait / Waitall: until every request is complete.
    pub fn wait_all(&mut self, reqs: &[ReqId]) {
        self.waiting(Goal::All(reqs), true);
        self.note_wait_all(reqs);
    }

    /// MPI_Waitany / Waitsome: indices complete when the wait ends, earliest
    /// completion first (ties: lower index).
    pub fn wait_any(&mut self, reqs: &[ReqId]) -> Vec<usize> {
        let end = self.waiting(Goal::Any(reqs), true);
        let done = self.done_by(reqs, end);
        self.note(|c| Call::WaitAny {
            ids: reqs.to_vec(),
            done: done.iter().map(|&k| k as u32).collect(),
            seen: c.seen(reqs),
        });
        done
    }

    /// MPI_Test*: a zero-length wait; indices complete now.
    pub fn test(&mut self, reqs: &[ReqId]) -> Vec<usize> {
        let end = self.waiting(Goal::Any(reqs), false);
        let done = self.done_by(reqs, end);
        self.note(|c| Call::Test {
            ids: reqs.to_vec(),
            done: done.iter().map(|&k| k as u32).collect(),
            seen: c.seen(reqs),
        });
        if done.is_empty() {
            self.link.yield_core();
        }
        done
    }

    fn done_by(&self, reqs: &[ReqId], t: VTime) -> Vec<usize> {
        let mut v: Vec<(VTime, usize)> = reqs
            .iter()
            .enumerate()
            .filter_map(|(k, r)| self.reqs.get(*r).done.filter(|&d| d <= t).map(|d| (d, k)))
            .collect();
        v.sort();
        v.into_iter().map(|(_, k)| k).collect()
    }

    fn probe_status(&self, s: Option<u32>, t: Option<i32>, c: u32) -> Option<Status> {
        let i = self.first_pending(s, t, c)?;
        let m = self.msg(i);
        Some(Status {
            source: m.src as i32,
            tag: m.tag,
            bytes: m.size,
            cancelled: false,
            truncated: false,
        })
    }

    /// MPI_Probe: wait until a matching message is in the unexpected queue.
    pub fn probe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Status {
        let st = self.probe_op(src, tag, ctx);
        self.note_probe(src, tag, ctx, true, Some(st), None);
        st
    }

    fn probe_op(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Status {
        self.waiting(Goal::Probe(src, tag, ctx), true);
        if self.suspended() {
            return Status::default();
        }
        self.probe_status(src, tag, ctx)
            .expect("probe ended without a message")
    }

    /// MPI_Iprobe: a zero-length wait for a matching unexpected message.
    pub fn iprobe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Option<Status> {
        let st = self.iprobe_op(src, tag, ctx);
        self.note_probe(src, tag, ctx, false, st, None);
        st
    }

    fn iprobe_op(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Option<Status> {
        let goal = Goal::Probe(src, tag, ctx);
        let t = self.waiting(goal, false);
        if self.goal_met(goal, Some(t)) {
            self.probe_status(src, tag, ctx)
        } else {
            self.link.yield_core();
            None
        }
    }

    fn note_probe(
        &mut self,
        src: Option<u32>,
        tag: Option<i32>,
        ctx: u32,
        blocking: bool,
        found: Option<Status>,
        matched: Option<usize>,
    ) {
        self.note(|_| Call::Probe {
            src,
            tag,
            ctx,
            blocking,
            found: found.map(|st| (st.source, st.tag)),
            matched: matched.map(|m| m as u64),
        });
    }

    /// MPI_Mprobe: MPI_Probe, then the message leaves matching (no receive
    /// can take it any more); returns it as a matched message for
    /// [`Core::mrecv`].
    pub fn mprobe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> (Status, usize) {
        let st = self.probe_op(src, tag, ctx);
        if self.suspended() {
            return (st, usize::MAX);
        }
        let m = self.take_matched(src, tag, ctx);
        self.note_probe(src, tag, ctx, true, Some(st), Some(m));
        (st, m)
    }

    /// MPI_Improbe: MPI_Iprobe, then as [`Core::mprobe`] when it found one.
    pub fn improbe(
        &mut self,
        src: Option<u32>,
        tag: Option<i32>,
        ctx: u32,
    ) -> Option<(Status, usize)> {
        let found = self
            .iprobe_op(src, tag, ctx)
            .map(|st| (st, self.take_matched(src, tag, ctx)));
        self.note_probe(src, tag, ctx, false, found.map(|f| f.0), found.map(|f| f.1));
        found
    }

    /// Take the message a probe just found out of the unexpected queue.
    fn take_matched(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> usize {
        let i = self
            .first_pending(src, tag, ctx)
            .expect("a probe found a message");
        self.pending.remove(i);
        // later receives may now match messages it held back
        self.rematch();
        i
    }

    /// MPI_Mrecv / MPI_Imrecv of matched message `m` into `buf`: received
    /// as a receive posted now would receive it from the unexpected queue
    /// (eager: complete after the copy out, M(b) from now; rendezvous: the
    /// ACK leaves now).
    pub fn mrecv(&mut self, buf: RecvBuf, m: usize) -> ReqId {
        let t = self.clock.now();
        let len = buf.len() as u64;
        let held = self.take_held(m);
        let op = Op::Recv {
            src: Some(held.msg.src),
            tag: Some(held.msg.tag),
            ctx: held.msg.ctx,
            buf: Target::User(buf),
            bound: true,
        };
        let id = self.reqs.insert(Request::new(op, t));
        self.reqs.get_mut(id).matched = Some(held.msg.src);
        self.receive_unexpected(id, held, t);
        self.note(|_| Call::Mrecv {
            m: m as u64,
            len,
            id,
        });
        id
    }

    /// Settle background sends (buffered mode, freed sends, cancels waiting
    /// for their answer) before the rank may exit: their data lives in this
    /// process. Cancel requests that reached us are answered first (the
    /// rank is in MPI_Finalize: they are handled at their handling time,
    /// in the progress interval it opens at tV). Host-side only: the clock
    /// does not move.
    pub fn drain_background(&mut self) {
        self.note(|_| Call::Drain);
        let start = self.clock.now();
        self.hist.begin(start);
        self.blocking = true;
        while let Some(m) = self.fetch(false) {
            let i = self.access(m);
            self.early.push(i);
        }
        // Protocol messages for our own requests and cancel requests are
        // handled; DATA / REQ nothing will receive stay.
        let early = std::mem::take(&mut self.early);
        for i in early {
            if matches!(self.msg(i).kind, Kind::Eager | Kind::Req) {
                self.early.push(i);
            } else {
                self.deal(i);
            }
        }
        let bg: Vec<ReqId> = self
            .reqs
            .ids()
            .filter(|&r| {
                let q = self.reqs.get(r);
                q.detached
                    && (matches!(q.op, Op::Send { .. })
                        || matches!(q.cancel, Cancel::Asked { .. } | Cancel::Refused { .. }))
            })
            .collect();
        for &r in &bg {
            self.reqs.get_mut(r).detached = false;
        }
        // an answered cancel removes the inner request of a buffered send
        let settled = |c: &Self, r: ReqId| !c.reqs.is_active(r) || c.reqs.get(r).done.is_some();
        while !bg.iter().all(|&r| settled(self, r)) {
            let m = self
                .fetch(true)
                .expect("a blocking fetch returns a message");
            let i = self.access(m);
            self.deal(i);
        }
        self.hist.end(start);
        self.blocking = false;
        for r in bg {
            if self.reqs.is_active(r) {
                self.reqs.discard(r);
            }
        }
    }
}
