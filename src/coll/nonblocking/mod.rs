//! Nonblocking collectives as schedules of point-to-point steps, the way
//! MPICH builds them (`MPIR_Sched`): one file per collective, each
//! algorithm a named function that writes the schedule for this rank, and
//! a selection table ([`select`]) with MPICH 4.0.2's defaults.
//!
//! A [`Schedule`] is a list of rounds over a few byte buffers the schedule
//! owns. A round is a set of sends and receives started together, then
//! local work (a reduction, a copy) once all of them are complete; round
//! k + 1 starts when round k is complete (MPICH's `MPIR_SCHED_BARRIER`).
//! The engine runs it as a compound request (`crate::p2p::Progress`).
//!
//! Timing rules (see also `p2p::core::compound`):
//! * round 0 starts in the call that starts the collective, at tV: its
//!   receives are posted, then its sends start one after the other (each at
//!   the end of the previous one's copy, as consecutive MPI_Isend calls);
//!   the call returns when the last of them has copied its data. Rounds of
//!   local work alone (a copy of the send buffer) before the first round
//!   that sends or receives run within the call too, and that round counts
//!   as round 0 (MPICH's starting call runs local entries at once and stops
//!   at the first barrier after a send or receive);
//! * round k + 1 starts at the time round k completed (the latest completion
//!   of its requests: a receive completes when its message, handled at
//!   ttemp of Algorithm 3, has been copied out) plus the CPU time of its
//!   local work (scaled by `cpu.scale`, like a reduction in a blocking
//!   collective). Messages are only handled inside MPI calls (waits, tests,
//!   probes, blocking calls), so a round whose messages arrive while the
//!   rank computes is complete at the start of the rank's next waiting
//!   activity, and the next round's sends leave then;
//! * the request completes when the last round has, and a wait on it ends
//!   then.
//!
//! Each collective gets a tag of its own (`NBC_TAG_BASE` + a sequence number
//! per communicator, as MPICH's `tag_base`), so several outstanding
//! nonblocking collectives, and blocking ones, on one communicator never
//! match each other's messages.
use crate::model::VTime;
use crate::p2p::record::{CompoundDesc, RoundDesc, XferDesc, XferKind};
use crate::p2p::{Core, Link, Poll, Progress, ReqId};

pub mod iallgather;
pub mod iallgatherv;
pub mod iallreduce;
pub mod ialltoall;
pub mod ialltoallv;
pub mod ibarrier;
pub mod ibcast;
pub mod iexscan;
pub mod igather;
pub mod igatherv;
pub mod inter;
pub mod ireduce;
pub mod ireduce_scatter;
pub mod iscan;
pub mod iscatter;
pub mod iscatterv;
pub mod select;

/// Tags of nonblocking collectives start here (blocking ones use 1..=16).
pub const NBC_TAG_BASE: i32 = 64;

/// The tag of the `seq`-th nonblocking collective on a communicator.
pub fn nbc_tag(seq: u32) -> i32 {
    NBC_TAG_BASE + (seq % (i32::MAX as u32 - NBC_TAG_BASE as u32)) as i32
}

/// A place in one of the schedule's buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At {
    pub buf: usize,
    pub off: usize,
}

/// Buffer `buf` at offset `off`.
pub fn at(buf: usize, off: usize) -> At {
    At { buf, off }
}

/// A point-to-point step (ranks are communicator ranks).
#[derive(Debug, Clone, Copy)]
pub enum Xfer {
    /// Send `len` bytes from `from`, read when the round starts.
    Send { from: At, len: usize, to: usize },
    /// The same in synchronous mode (always the rendezvous protocol).
    Ssend { from: At, len: usize, to: usize },
    /// Receive exactly `len` bytes into `into`.
    Recv { into: At, len: usize, from: usize },
}

/// Local work after a round's transfers.
#[derive(Debug, Clone, Copy)]
pub enum Local {
    /// `inout = input (op) inout` over `len` bytes.
    Reduce { input: At, inout: At, len: usize },
    /// Copy `len` bytes.
    Copy { from: At, to: At, len: usize },
}

#[derive(Debug, Default)]
pub struct Round {
    pub xfers: Vec<Xfer>,
    pub local: Vec<Local>,
}

/// `apply(in, inout)` of an [`OwnedOp`].
pub type Apply = Box<dyn FnMut(&[u8], &mut [u8])>;

/// An owned reduction operator: `apply(in, inout)` is `inout = in (op)
/// inout` over whole elements.
pub struct OwnedOp {
    pub commutative: bool,
    pub builtin: bool,
    pub apply: Apply,
}

/// Writes the results into the user's buffers once the schedule is done.
pub type Finish = Box<dyn FnOnce(&mut [Vec<u8>])>;

/// A nonblocking collective on one rank, ready to run.
pub struct Schedule {
    /// World rank of each communicator rank.
    ranks: Vec<u32>,
    /// The (send, receive) context of each peer, collective bit included:
    /// the communicator's for an intracommunicator; for a schedule of an
    /// intercommunicator (`inter`), the local communicator's for the local
    /// group (peers 0..local size) and the two groups' for the remote one.
    ctxs: Vec<(u32, u32)>,
    tag: i32,
    /// What the collective is (error messages).
    name: std::borrow::Cow<'static, str>,
    pub bufs: Vec<Vec<u8>>,
    rounds: Vec<Round>,
    next: usize,
    /// Requests of the round in flight, with where received data goes.
    live: Vec<ReqId>,
    recvs: Vec<(ReqId, At, usize)>,
    sends: Vec<ReqId>,
    started: bool,
    /// When the first round starts (None: at the starting call's tV).
    start_time: Option<VTime>,
    cursor: VTime,
    /// The cursor once round 0's sends have started (see `cursor()`).
    call_cursor: Option<VTime>,
    op: Option<OwnedOp>,
    finish: Option<Finish>,
}

/// The communicator a schedule runs on.
pub struct NbcComm<'a> {
    /// World rank of each communicator rank.
    pub ranks: &'a [u32],
    pub me: usize,
    /// The communicator's point-to-point context id.
    pub ctx: u32,
    /// This collective's tag ([`nbc_tag`]).
    pub tag: i32,
}

impl NbcComm<'_> {
    pub fn size(&self) -> usize {
        self.ranks.len()
    }
}

impl Schedule {
    pub fn new(c: &NbcComm, name: &'static str, bufs: Vec<Vec<u8>>) -> Schedule {
        Schedule {
            ranks: c.ranks.to_vec(),
            ctxs: vec![
                (
                    c.ctx | crate::coll::COLL_CTX_BIT,
                    c.ctx | crate::coll::COLL_CTX_BIT
                );
                c.ranks.len()
            ],
            tag: c.tag,
            name: name.into(),
            bufs,
            rounds: Vec::new(),
            next: 0,
            live: Vec::new(),
            recvs: Vec::new(),
            sends: Vec::new(),
            started: false,
            start_time: None,
            cursor: VTime::ZERO,
            call_cursor: None,
            op: None,
            finish: None,
        }
    }

    /// Append a round.
    pub fn round(&mut self, xfers: Vec<Xfer>, local: Vec<Local>) {
        self.rounds.push(Round { xfers, local });
    }

    /// A round of transfers only (empty rounds are dropped).
    pub fn xfers(&mut self, xfers: Vec<Xfer>) {
        if !xfers.is_empty() {
            self.round(xfers, Vec::new());
        }
    }

    /// Local work after the last round (or first, if there is none yet).
    pub fn local(&mut self, l: Local) {
        match self.rounds.last_mut() {
            Some(r) => r.local.push(l),
            None => self.round(Vec::new(), vec![l]),
        }
    }

    /// Combine `other` (the data of ranks ordered before mine when
    /// `other_first`, after mine otherwise) into `mine`, after the last
    /// round, respecting the order for a non-commutative operator (as
    /// `coll::Comm::combine`).
    pub fn combine(&mut self, other: At, mine: At, len: usize, other_first: bool) {
        let commutative = self.op.as_ref().is_none_or(|o| o.commutative);
        if commutative || other_first {
            self.local(Local::Reduce {
                input: other,
                inout: mine,
                len,
            });
        } else {
            self.local(Local::Reduce {
                input: mine,
                inout: other,
                len,
            });
            self.local(Local::Copy {
                from: other,
                to: mine,
                len,
            });
        }
    }

    /// Whether the operator is commutative (true without one).
    pub fn commutative(&self) -> bool {
        self.op.as_ref().is_none_or(|o| o.commutative)
    }

    /// Whether the operator is a predefined one.
    pub fn builtin_op(&self) -> bool {
        self.op.as_ref().is_some_and(|o| o.builtin)
    }

    pub fn with_op(mut self, op: OwnedOp) -> Schedule {
        self.op = Some(op);
        self
    }

    pub fn on_finish(&mut self, f: Finish) {
        self.finish = Some(f);
    }

    pub fn rounds(&self) -> &[Round] {
        &self.rounds
    }

    /// Add peers after the communicator's (the remote group of an
    /// intercommunicator): world ranks and their (send, receive) contexts
    /// (collective bit included).
    pub fn add_peers(&mut self, ranks: &[u32], send_ctx: u32, recv_ctx: u32) {
        self.ranks.extend_from_slice(ranks);
        self.ctxs
            .extend(std::iter::repeat_n((send_ctx, recv_ctx), ranks.len()));
    }

    /// Append the rounds of `sub` (a schedule on the same first peers, e.g.
    /// an intracommunicator collective of an intercommunicator's local
    /// group), after this schedule's: buffer k of `sub` is this schedule's
    /// buffer `alias[k]` when given (its data in `sub` is dropped), else a
    /// new buffer. Takes `sub`'s operator if this one has none. Returns
    /// this schedule's index of each of `sub`'s buffers.
    pub fn append(&mut self, sub: Schedule, alias: &[Option<usize>]) -> Vec<usize> {
        let mut map = Vec::with_capacity(sub.bufs.len());
        for (k, b) in sub.bufs.into_iter().enumerate() {
            match alias.get(k).copied().flatten() {
                Some(i) => map.push(i),
                None => {
                    map.push(self.bufs.len());
                    self.bufs.push(b);
                }
            }
        }
        let m = |a: At| At {
            buf: map[a.buf],
            off: a.off,
        };
        for r in sub.rounds {
            let xfers = r
                .xfers
                .into_iter()
                .map(|x| match x {
                    Xfer::Send { from, len, to } => Xfer::Send {
                        from: m(from),
                        len,
                        to,
                    },
                    Xfer::Ssend { from, len, to } => Xfer::Ssend {
                        from: m(from),
                        len,
                        to,
                    },
                    Xfer::Recv { into, len, from } => Xfer::Recv {
                        into: m(into),
                        len,
                        from,
                    },
                })
                .collect();
            let local = r
                .local
                .into_iter()
                .map(|l| match l {
                    Local::Reduce { input, inout, len } => Local::Reduce {
                        input: m(input),
                        inout: m(inout),
                        len,
                    },
                    Local::Copy { from, to, len } => Local::Copy {
                        from: m(from),
                        to: m(to),
                        len,
                    },
                })
                .collect();
            self.round(xfers, local);
        }
        if self.op.is_none() {
            self.op = sub.op;
        }
        map
    }

    /// The schedule as a replay rebuilds it ([`Schedule::replayed`]):
    /// its transfers, buffer lengths and count of local steps.
    pub fn describe(&self) -> CompoundDesc {
        let at = |a: At| (a.buf as u32, a.off as u64);
        CompoundDesc {
            name: self.name.to_string(),
            ranks: self.ranks.clone(),
            ctxs: self.ctxs.clone(),
            tag: self.tag,
            bufs: self.bufs.iter().map(|b| b.len() as u64).collect(),
            start_ps: self.start_time.map(|t| t.ps()),
            rounds: self
                .rounds
                .iter()
                .map(|r| RoundDesc {
                    xfers: r
                        .xfers
                        .iter()
                        .map(|x| {
                            let (kind, (buf, off), len, peer) = match *x {
                                Xfer::Send { from, len, to } => (XferKind::Send, at(from), len, to),
                                Xfer::Ssend { from, len, to } => {
                                    (XferKind::Ssend, at(from), len, to)
                                }
                                Xfer::Recv { into, len, from } => {
                                    (XferKind::Recv, at(into), len, from)
                                }
                            };
                            XferDesc {
                                kind,
                                buf,
                                off,
                                len: len as u64,
                                peer: peer as u32,
                            }
                        })
                        .collect(),
                    locals: r.local.len() as u32,
                })
                .collect(),
        }
    }

    /// A schedule that does what `d` describes, on buffers of zeros, its
    /// local steps doing nothing (a replay: their time is the run's
    /// measurement, see `Core::use_measures`).
    pub fn replayed(d: &CompoundDesc) -> Schedule {
        let at = |buf: u32, off: u64| At {
            buf: buf as usize,
            off: off as usize,
        };
        let nothing = Local::Copy {
            from: at(0, 0),
            to: at(0, 0),
            len: 0,
        };
        Schedule {
            ranks: d.ranks.clone(),
            ctxs: d.ctxs.clone(),
            tag: d.tag,
            name: d.name.clone().into(),
            bufs: d.bufs.iter().map(|&n| vec![0; n as usize]).collect(),
            rounds: d
                .rounds
                .iter()
                .map(|r| Round {
                    xfers: r
                        .xfers
                        .iter()
                        .map(|x| {
                            let (len, peer) = (x.len as usize, x.peer as usize);
                            match x.kind {
                                XferKind::Send => Xfer::Send {
                                    from: at(x.buf, x.off),
                                    len,
                                    to: peer,
                                },
                                XferKind::Ssend => Xfer::Ssend {
                                    from: at(x.buf, x.off),
                                    len,
                                    to: peer,
                                },
                                XferKind::Recv => Xfer::Recv {
                                    into: at(x.buf, x.off),
                                    len,
                                    from: peer,
                                },
                            }
                        })
                        .collect(),
                    local: vec![nothing; r.locals as usize],
                })
                .collect(),
            next: 0,
            live: Vec::new(),
            recvs: Vec::new(),
            sends: Vec::new(),
            started: false,
            start_time: d.start_ps.map(VTime::from_ps),
            cursor: VTime::ZERO,
            call_cursor: None,
            op: None,
            finish: None,
        }
    }

    /// Make the first round start at `t` instead of when the schedule is
    /// first polled (a schedule run as a later step of another one).
    pub fn start_at(&mut self, t: VTime) {
        self.start_time = Some(t);
    }

    /// Start the schedule: a compound request of `core`.
    pub fn start<L: Link>(self, core: &mut Core<L>) -> ReqId {
        core.start_compound(Box::new(self))
    }

    fn start_round<L: Link>(&mut self, core: &mut Core<L>) {
        let round = std::mem::take(&mut self.rounds[self.next]);
        self.next += 1;
        let t = self.cursor;
        for x in &round.xfers {
            if let Xfer::Recv { into, len, from } = *x {
                let r = core.irecv_vec_at(len, self.ranks[from], self.tag, self.ctxs[from].1, t);
                self.live.push(r);
                self.recvs.push((r, into, len));
            }
        }
        for x in &round.xfers {
            let (from, len, to, sync) = match *x {
                Xfer::Send { from, len, to } => (from, len, to, false),
                Xfer::Ssend { from, len, to } => (from, len, to, true),
                Xfer::Recv { .. } => continue,
            };
            {
                let data = self.bufs[from.buf][from.off..from.off + len].to_vec();
                let (r, tr) = core.isend_vec_at(
                    data,
                    self.ranks[to],
                    self.tag,
                    self.ctxs[to].0,
                    self.cursor,
                    sync,
                );
                self.cursor = tr;
                self.live.push(r);
                self.sends.push(r);
            }
        }
        // Keep the local work for when the transfers are complete.
        self.rounds[self.next - 1] = Round {
            xfers: Vec::new(),
            local: round.local,
        };
    }

    /// The round in flight is complete: collect its data, run its local
    /// work; the next round may start at the returned time.
    fn end_round<L: Link>(&mut self, core: &mut Core<L>) -> VTime {
        let mut t = self.cursor;
        for &r in &self.live {
            t = t.max(core.done_at(r).expect("complete request"));
        }
        let recvs = std::mem::take(&mut self.recvs);
        for (r, into, len) in recvs {
            let st = core.status(r);
            let data = core.take_vec(r);
            if st.truncated || data.len() != len {
                panic!(
                    "vaced: {}: rank {} received {} bytes from world rank {}, expected {} (the \
                     ranks passed different counts)",
                    self.name,
                    core.rank(),
                    st.bytes.max(data.len() as u64),
                    st.source,
                    len
                );
            }
            crate::coll::put(&mut self.bufs[into.buf], into.off, &data);
        }
        for r in std::mem::take(&mut self.sends) {
            core.free(r);
        }
        self.live.clear();
        let local = std::mem::take(&mut self.rounds[self.next - 1].local);
        if local.is_empty() {
            return t;
        }
        let (bufs, op) = (&mut self.bufs, &mut self.op);
        let dt = core.measure(|| {
            for l in local {
                run_local(bufs, op, l);
            }
        });
        t + dt
    }
}

/// Two places of the buffers, one read and one written.
fn split(bufs: &mut [Vec<u8>], a: At, b: At, len: usize) -> (&[u8], &mut [u8]) {
    if a.buf == b.buf {
        let v = &mut bufs[a.buf];
        assert!(
            a.off + len <= b.off || b.off + len <= a.off,
            "overlapping local step"
        );
        if a.off < b.off {
            let (x, y) = v.split_at_mut(b.off);
            (&x[a.off..a.off + len], &mut y[..len])
        } else {
            let (x, y) = v.split_at_mut(a.off);
            (&y[..len], &mut x[b.off..b.off + len])
        }
    } else if a.buf < b.buf {
        let (x, y) = bufs.split_at_mut(b.buf);
        (&x[a.buf][a.off..a.off + len], &mut y[0][b.off..b.off + len])
    } else {
        let (x, y) = bufs.split_at_mut(a.buf);
        (&y[0][a.off..a.off + len], &mut x[b.buf][b.off..b.off + len])
    }
}

fn run_local(bufs: &mut [Vec<u8>], op: &mut Option<OwnedOp>, l: Local) {
    match l {
        Local::Copy { from, to, len } => {
            if len > 0 {
                let (a, b) = split(bufs, from, to, len);
                b.copy_from_slice(a);
            }
        }
        Local::Reduce { input, inout, len } => {
            if len > 0 {
                let (a, b) = split(bufs, input, inout, len);
                let op = op.as_mut().expect("a reduction schedule has an operator");
                (op.apply)(a, b);
            }
        }
    }
}

impl<L: Link> Progress<L> for Schedule {
    fn poll(&mut self, core: &mut Core<L>) -> Poll {
        let mut moved = false;
        loop {
            if self.started {
                if !self.live.iter().all(|&r| core.is_done(r)) {
                    return if moved { Poll::Moved } else { Poll::Idle };
                }
                self.cursor = self.end_round(core);
            } else {
                self.started = true;
                self.cursor = self.start_time.unwrap_or_else(|| core.vtime());
            }
            if self.next == self.rounds.len() {
                if let Some(f) = self.finish.take() {
                    f(&mut self.bufs);
                }
                return Poll::Done(self.cursor);
            }
            self.start_round(core);
            // MPICH's starting call runs a schedule's local work at once
            // and stops after the first round that sends or receives
            if self.call_cursor.is_none() && !self.live.is_empty() {
                self.call_cursor = Some(self.cursor);
            }
            moved = true;
        }
    }

    fn live(&self) -> &[ReqId] {
        &self.live
    }

    /// Where the starting call's own sends (those of the first round that
    /// sends or receives) end their copy:
    /// later rounds that start within that call, because their messages
    /// were already in the unexpected queue, progress in the background
    /// and do not move the caller's clock (whether they start there or in
    /// a later call depends on when the host delivered those messages).
    fn cursor(&self) -> VTime {
        self.call_cursor.unwrap_or(self.cursor)
    }

    fn describe(&self) -> Option<CompoundDesc> {
        Some(Schedule::describe(self))
    }
}
