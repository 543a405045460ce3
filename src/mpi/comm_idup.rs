//! MPI_Comm_idup and MPI_Comm_idup_with_info: a nonblocking context-id
//! agreement, run by the engine as a compound request, the way MPICH 4.0.2
//! runs it (`sched_get_cid_nonblock`): an MPI_Iallreduce (bitwise AND) of
//! the 64-int context mask over the parent (over the local group for an
//! intercommunicator, whose ranks 0 then swap the new ids, 2 bytes, and
//! broadcast the remote one in their group with an MPI_Ibcast), the
//! lowest id free everywhere taken when the reduction completes. The new
//! communicator's handle exists from the call; its context ids are set
//! when the request completes (inside the MPI call that completes it), and
//! the program may use it only then. Under MPI_THREAD_MULTIPLE the
//! blocking MPI_Comm_create (over the parent) and MPI_Comm_create_group
//! (over the group, in the parent's group context with the program's tag)
//! run the same agreement as a request and wait for it.
//!
//! Several agreements in flight on one process (overlapping
//! communicators, several threads), and blocking constructors meanwhile,
//! must not pick the same id on a process: as MPICH does with its
//! `eager_in_use` and `mask_in_use` flags, the ids an attempt contributes
//! (its pledge) are its own until it completes. A first attempt
//! contributes the lowest 64 free ids that no retry pledged (MPICH's eager
//! segment) if no other first attempt holds them; a retry contributes the
//! free ids no first attempt pledged, and only if no other retry holds
//! them and its agreement comes first, in an order every process agrees on
//! (the parent's context id, then the collective's tag), among the
//! agreements here that already failed an attempt (so every process of
//! their group has started them), so the first of them succeeds
//! everywhere. An attempt that
//! holds nothing contributes zeros, which makes the reduction empty on
//! every member, and they all try again. The two kinds of pledge are
//! independent, so a first attempt never waits for a retry elsewhere
//! (MPICH's deadlock avoidance). A process outside the new communicator
//! (MPI_Comm_create) contributes every id and takes none; a communicator
//! of one process takes its id at once. A blocking constructor leaves out
//! every pledged id and waits while a retry holds the rest.
//!
//! Timing: the messages of the schedules (`coll::nonblocking`), each
//! attempt starting when the previous one completes.
use crate::coll::nonblocking::{iallreduce, ibcast, NbcComm, OwnedOp, Schedule};
use crate::coll::COLL_CTX_BIT;
use crate::model::VTime;
use crate::mpi::attr::NewValue;
use crate::mpi::backend::Backend;
use crate::mpi::comm::{Comm, CommTable};
use crate::mpi::comm_info::Hints;
use crate::mpi::context::{band, lowest_free, SharedMask, MASK_BYTES};
use crate::mpi::error::MpiResult;
use crate::mpi::info::Info;
use crate::mpi::intercomm::{Inter, InterComm};
use crate::mpi::request::{Kind, Req, ReqState};
use crate::mpi::World;
use crate::p2p::{Core, Endpoint, Link, Poll, Progress, ReqId};
use crate::sys::{self, MPI_Comm, MPI_Request};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::sync::Arc;

/// An agreement's place in the order every process agrees on: the
/// parent's (receive) context id and the collective's tag.
type Key = (u32, i32);

/// The context id of a communicator whose agreement is still running.
const PENDING_CTX: u32 = u32::MAX >> 5;

/// The agreements of this process (shared with the engine's compound
/// requests).
#[derive(Debug, Clone, Default)]
pub struct Idups(Rc<RefCell<Registry>>);

#[derive(Debug, Default)]
struct Registry {
    /// The first attempt in flight that holds the eager ids, and the ids
    /// it contributed (mask bytes).
    eager: Option<(Key, Vec<u8>)>,
    /// The retry in flight that holds the other free ids, and those ids.
    main: Option<(Key, Vec<u8>)>,
    /// Agreements in flight and their compound requests.
    pending: BTreeMap<Key, ReqId>,
    /// Agreements of members whose attempt failed (MPICH's list of those
    /// waiting for the mask): only the first may take the free ids. An
    /// agreement joins it only once an attempt of it completed, that is
    /// once every process of its group has started it, so the first never
    /// waits for a process that has not.
    waiting: BTreeSet<Key>,
    /// Finished: (new communicator, receive context, send context).
    done: Vec<(MPI_Comm, u32, u32)>,
    /// The requests in flight of each agreement.
    lives: BTreeMap<Key, Vec<ReqId>>,
}

/// Ids a first attempt contributes (MPICH's eager segment: its
/// MPIR_CVAR_CTXID_EAGER_SIZE is 2 ints).
const EAGER_IDS: u32 = 64;

/// The lowest `EAGER_IDS` ids set in `mask`.
fn eager(mut mask: Vec<u8>) -> Vec<u8> {
    let mut left = EAGER_IDS;
    for b in mask.chunks_exact_mut(4) {
        let mut w = u32::from_ne_bytes((&*b).try_into().expect("4 bytes"));
        let mut keep = 0u32;
        while w != 0 && left > 0 {
            let bit = w & w.wrapping_neg();
            keep |= bit;
            w &= !bit;
            left -= 1;
        }
        b.copy_from_slice(&keep.to_ne_bytes());
    }
    mask
}

/// `mask` without the ids of `pledge`.
fn minus(mut mask: Vec<u8>, pledge: Option<&(Key, Vec<u8>)>) -> Vec<u8> {
    if let Some((_, p)) = pledge {
        for (a, b) in mask.iter_mut().zip(p) {
            *a &= !b;
        }
    }
    mask
}

impl Registry {
    /// Let go of what the attempt of agreement `key` held.
    fn release(&mut self, key: Key) {
        if self.eager.as_ref().is_some_and(|e| e.0 == key) {
            self.eager = None;
        }
        if self.main.as_ref().is_some_and(|m| m.0 == key) {
            self.main = None;
        }
    }
}

impl Idups {
    /// The compound request of the retry holding the free ids no first
    /// attempt holds, if any: a blocking constructor waits for it.
    fn holder(&self) -> Option<ReqId> {
        let r = self.0.borrow();
        r.main
            .as_ref()
            .and_then(|(k, _)| r.pending.get(k).copied())
            .filter(|&id| id != u32::MAX)
    }

    /// `free` (this process's free ids) without the ids attempts in flight
    /// hold.
    fn unpledged(&self, free: Vec<u8>) -> Vec<u8> {
        let r = self.0.borrow();
        minus(minus(free, r.eager.as_ref()), r.main.as_ref())
    }
}

enum Stage {
    /// About to start an attempt.
    Start,
    /// The mask reduction of an attempt (whether it contributed the mask).
    Reduce(Box<Schedule>, bool),
    /// Intercommunicator: rank 0's swap with the remote rank 0 (receive,
    /// send).
    Swap(ReqId, ReqId),
    /// Intercommunicator: the broadcast of the remote id.
    Bcast(Box<Schedule>),
}

/// One MPI_Comm_idup on this process.
struct Agreement {
    reg: Idups,
    mask: SharedMask,
    key: Key,
    handle: MPI_Comm,
    /// The group the mask is reduced over, my index, its context.
    ranks: Vec<u32>,
    me: usize,
    ctx: u32,
    tag: i32,
    /// Intercommunicator: (world rank of the remote rank 0, the
    /// intercommunicator's send and receive contexts).
    inter: Option<(u32, u32, u32)>,
    /// This process is in the new communicator (else it contributes every
    /// id and takes none, MPICH's `ignore_id`).
    member: bool,
    first: bool,
    /// When the next attempt starts (a retry: when the last one ended).
    retry_at: Option<VTime>,
    stage: Stage,
    recv_ctx: u32,
    cursor: VTime,
    live: Vec<ReqId>,
}

fn band_op() -> OwnedOp {
    OwnedOp {
        commutative: true,
        builtin: true,
        apply: Box::new(band),
    }
}

impl Agreement {
    fn comm(&self) -> NbcComm<'_> {
        NbcComm {
            ranks: &self.ranks,
            me: self.me,
            ctx: self.ctx,
            tag: self.tag,
        }
    }

    /// Start an attempt: a first one contributes the eager ids if no other
    /// first attempt holds them; a retry the other free ids if no other
    /// retry holds them and this agreement comes first. Whether it holds
    /// ids.
    fn attempt(&mut self) -> bool {
        let (own, data) = if !self.member {
            (false, vec![0xff; MASK_BYTES])
        } else {
            let mut r = self.reg.0.borrow_mut();
            let free = self.mask.contribution(true);
            if self.first && r.eager.is_none() {
                let p = eager(minus(free, r.main.as_ref()));
                r.eager = Some((self.key, p.clone()));
                (true, p)
            } else if !self.first && r.main.is_none() && r.waiting.first() == Some(&self.key) {
                let p = minus(free, r.eager.as_ref());
                r.main = Some((self.key, p.clone()));
                (true, p)
            } else {
                (false, vec![0; MASK_BYTES])
            }
        };
        self.first = false;
        // MPICH 4.0.2 reduces one more int, its ALL_OWN_MASK_FLAG (1: the
        // mask is this agreement's own, or ignored), dropped once reduced
        let mut data = data;
        data.extend_from_slice(&u32::from(own || !self.member).to_ne_bytes());
        let mut s = iallreduce::iallreduce(&self.comm(), data, 4, band_op());
        if let Some(t) = self.retry_at {
            s.start_at(t);
        }
        self.stage = Stage::Reduce(Box::new(s), own);
        own
    }

    fn finish<L: Link>(&mut self, core: &mut Core<L>, send_ctx: u32, t: VTime) -> Poll {
        // the next agreement in the order may now take the mask
        core.resweep_compounds();
        let mut r = self.reg.0.borrow_mut();
        r.pending.remove(&self.key);
        r.waiting.remove(&self.key);
        r.done.push((self.handle, self.recv_ctx, send_ctx));
        self.live.clear();
        Poll::Done(t)
    }
}

impl<L: Link> Progress<L> for Agreement {
    /// One step of the agreement; then its requests in flight are those of
    /// every agreement of this process, so that waiting for one of them
    /// deals with the messages of all (as MPICH's progress engine runs
    /// every schedule): an attempt that holds the mask always completes.
    fn poll(&mut self, core: &mut Core<L>) -> Poll {
        let p = self.step(core);
        let mut r = self.reg.0.borrow_mut();
        if matches!(p, Poll::Done(_)) {
            r.lives.remove(&self.key);
            self.live.clear();
        } else {
            r.lives.insert(self.key, std::mem::take(&mut self.live));
            self.live = r.lives.values().flatten().copied().collect();
        }
        p
    }

    fn live(&self) -> &[ReqId] {
        &self.live
    }

    fn cursor(&self) -> VTime {
        self.cursor
    }
}

impl Agreement {
    fn step<L: Link>(&mut self, core: &mut Core<L>) -> Poll {
        let mut moved = false;
        loop {
            match &mut self.stage {
                Stage::Start if self.ranks.len() == 1 && self.inter.is_none() && self.member => {
                    // alone: any free id no attempt in flight holds
                    let free = self.reg.unpledged(self.mask.contribution(true));
                    let id = match lowest_free(&free) {
                        Ok(id) => id,
                        // none left: wait until an attempt lets go of some
                        Err(_) => return if moved { Poll::Moved } else { Poll::Idle },
                    };
                    self.mask.take(id);
                    self.recv_ctx = id;
                    let t = self.retry_at.unwrap_or(VTime::ZERO).max(self.cursor);
                    return self.finish(core, id, t);
                }
                Stage::Start => {
                    self.attempt();
                    moved = true;
                }
                Stage::Reduce(s, own) => {
                    let p = s.poll(core);
                    self.live = Progress::<L>::live(&**s).to_vec();
                    self.cursor = self.cursor.max(Progress::<L>::cursor(&**s));
                    let t = match p {
                        Poll::Done(t) => t,
                        other => return if moved { Poll::Moved } else { other },
                    };
                    self.cursor = self.cursor.max(t);
                    let own = *own;
                    let mut reduced = std::mem::take(&mut s.bufs[0]);
                    reduced.truncate(MASK_BYTES);
                    if own {
                        self.reg.0.borrow_mut().release(self.key);
                        core.resweep_compounds();
                    }
                    let id = match lowest_free(&reduced) {
                        Ok(id) if own || reduced.iter().any(|&b| b != 0) => id,
                        // someone contributed zeros: try again
                        _ => {
                            if self.member {
                                self.reg.0.borrow_mut().waiting.insert(self.key);
                            }
                            self.retry_at = Some(t);
                            self.stage = Stage::Start;
                            continue;
                        }
                    };
                    if self.member {
                        self.mask.take(id);
                    }
                    self.recv_ctx = id;
                    match self.inter {
                        None => return self.finish(core, id, t),
                        Some((r0, send_ctx, recv_ctx)) => {
                            if self.me == 0 {
                                let rr =
                                    core.irecv_vec_at(2, r0, self.tag, recv_ctx | COLL_CTX_BIT, t);
                                let bytes = (id as u16).to_ne_bytes().to_vec();
                                let (sr, tr) = core.isend_vec_at(
                                    bytes,
                                    r0,
                                    self.tag,
                                    send_ctx | COLL_CTX_BIT,
                                    t,
                                    false,
                                );
                                self.cursor = self.cursor.max(tr);
                                self.live = vec![rr, sr];
                                self.stage = Stage::Swap(rr, sr);
                            } else {
                                let mut b = ibcast::ibcast(&self.comm(), vec![0; 2], 0);
                                b.start_at(t);
                                self.stage = Stage::Bcast(Box::new(b));
                            }
                            moved = true;
                        }
                    }
                }
                Stage::Swap(rr, sr) => {
                    let (rr, sr) = (*rr, *sr);
                    if !(core.is_done(rr) && core.is_done(sr)) {
                        return if moved { Poll::Moved } else { Poll::Idle };
                    }
                    let t = core
                        .done_at(rr)
                        .expect("complete")
                        .max(core.done_at(sr).expect("complete"));
                    self.cursor = self.cursor.max(t);
                    let data = core.take_vec(rr);
                    core.free(sr);
                    let mut b = ibcast::ibcast(&self.comm(), data, 0);
                    // the broadcast starts when the swap is complete
                    b.start_at(t);
                    self.stage = Stage::Bcast(Box::new(b));
                    moved = true;
                }
                Stage::Bcast(b) => {
                    let p = b.poll(core);
                    self.live = Progress::<L>::live(&**b).to_vec();
                    self.cursor = self.cursor.max(Progress::<L>::cursor(&**b));
                    match p {
                        Poll::Done(t) => {
                            let v = &b.bufs[0];
                            let send_ctx = u16::from_ne_bytes([v[0], v[1]]) as u32;
                            return self.finish(core, send_ctx, t);
                        }
                        other => return if moved { Poll::Moved } else { other },
                    }
                }
            }
        }
    }
}

impl CommTable {
    /// This process's contribution to a blocking context-id agreement
    /// (`ContextMask::contribution`) without the ids an MPI_Comm_idup
    /// attempt in flight contributed: the two cannot pick the same id.
    pub fn free_mask(&self, member: bool) -> Vec<u8> {
        let m = self.ctx_mask.contribution(member);
        if member {
            self.idups.unpledged(m)
        } else {
            m
        }
    }

    /// Give the communicators of finished MPI_Comm_idup agreements their
    /// context ids.
    pub fn settle_idups(&mut self) {
        let done = std::mem::take(&mut self.idups.0.borrow_mut().done);
        for (h, recv_ctx, send_ctx) in done {
            if let Ok(c) = self.get_mut(h) {
                c.ctx = recv_ctx;
                if let Some(i) = &c.inter {
                    c.inter = Some(Arc::new(Inter {
                        send_ctx,
                        ..(**i).clone()
                    }));
                }
            }
        }
    }
}

impl<E: Backend> World<E> {
    /// Before a blocking constructor takes a context id: wait until no
    /// MPI_Comm_idup retry holds this process's whole mask (a first
    /// attempt holds only its lowest free ids, which `free_mask` leaves
    /// out: MPICH's eager segment).
    pub(crate) fn quiesce_idups(&mut self) {
        while let Some(r) = self.comms.idups.holder() {
            self.ep.wait_all(&[r]);
            if self.comms.idups.holder() == Some(r) {
                break;
            }
        }
    }
}

/// What a context-id agreement runs over (see [`Agreement`]).
pub(crate) struct Spec {
    pub key: Key,
    pub ranks: Vec<u32>,
    pub me: usize,
    pub ctx: u32,
    pub tag: i32,
    pub inter: Option<(u32, u32, u32)>,
    pub member: bool,
}

impl World<Endpoint> {
    /// Start the context-id agreement `spec` for the new communicator
    /// `handle` (its context set when it completes; MPI_COMM_NULL on a
    /// process outside it) as a request on `comm`.
    pub(crate) fn start_agreement(
        &mut self,
        comm: MPI_Comm,
        group: Arc<crate::mpi::comm::Group>,
        handle: MPI_Comm,
        spec: Spec,
    ) -> MPI_Request {
        let key = spec.key;
        let a = Agreement {
            reg: self.comms.idups.clone(),
            mask: self.comms.ctx_mask.clone(),
            key,
            handle,
            ranks: spec.ranks,
            me: spec.me,
            ctx: spec.ctx,
            tag: spec.tag,
            inter: spec.inter,
            member: spec.member,
            first: true,
            retry_at: None,
            stage: Stage::Start,
            recv_ctx: PENDING_CTX,
            cursor: VTime::ZERO,
            live: Vec::new(),
        };
        // registered before it starts: its first attempt may complete at once
        self.comms
            .idups
            .0
            .borrow_mut()
            .pending
            .insert(key, u32::MAX);
        let id = self.ep.start_compound(Box::new(a));
        if let Some(r) = self.comms.idups.0.borrow_mut().pending.get_mut(&key) {
            *r = id;
        }
        self.comms.settle_idups();
        self.reqs.insert(Req {
            kind: Kind::Coll,
            comm,
            group,
            state: ReqState::Active(id),
            keep: None,
            staging: None,
            capacity: 0,
        })
    }

    /// MPI_Comm_create under MPI_THREAD_MULTIPLE, on an intracommunicator:
    /// the new handle (MPI_COMM_NULL outside `group`), usable once the
    /// request (the context-id agreement over the parent) completes; the
    /// blocking form waits for it (`abi::threads::via_request`).
    pub fn comm_create_start(
        &mut self,
        comm: MPI_Comm,
        group: sys::MPI_Group,
    ) -> MpiResult<(MPI_Comm, MPI_Request)> {
        let p = self.comms.get(comm)?.clone();
        crate::mpi::intercomm::intra_only(&p)?;
        let g = self.comms.groups.get(group)?;
        crate::mpi::comm_group::subgroup(&g, &p)?;
        let tag = crate::mpi::icoll_calls::next_tag(self, comm)?;
        let mine = g.rank_of(self.rank());
        let handle = match mine {
            Some(r) => self
                .comms
                .insert(Comm::new(PENDING_CTX, g.clone(), r, p.errhandler)),
            None => sys::MPI_COMM_NULL,
        };
        let spec = Spec {
            key: (p.ctx, tag),
            ranks: p.group.ranks().to_vec(),
            me: p.my_rank as usize,
            ctx: p.ctx,
            tag,
            inter: None,
            member: mine.is_some(),
        };
        let req = self.start_agreement(comm, p.group.clone(), handle, spec);
        Ok((handle, req))
    }

    /// MPI_Comm_create_group under MPI_THREAD_MULTIPLE: as
    /// [`World::comm_create_start`], the agreement over the members of
    /// `group` only, in the group context of the parent with the
    /// program's tag (as the blocking form, `mpi::comm_group`). Outside
    /// the group: MPI_COMM_NULL and no request.
    pub fn comm_create_group_start(
        &mut self,
        comm: MPI_Comm,
        group: sys::MPI_Group,
        tag: std::os::raw::c_int,
    ) -> MpiResult<(MPI_Comm, MPI_Request)> {
        let p = self.comms.get(comm)?.clone();
        crate::mpi::intercomm::intra_only(&p)?;
        let g = self.comms.groups.get(group)?;
        let tag = crate::mpi::comm::check_send_tag(tag)?;
        crate::mpi::comm_group::subgroup(&g, &p)?;
        let Some(me) = g.rank_of(self.rank()) else {
            return Ok((sys::MPI_COMM_NULL, sys::MPI_REQUEST_NULL));
        };
        let handle = self
            .comms
            .insert(Comm::new(PENDING_CTX, g.clone(), me, p.errhandler));
        let ctx = p.ctx | crate::mpi::comm_group::GROUP_CTX_BIT;
        let spec = Spec {
            key: (ctx, tag),
            ranks: g.ranks().to_vec(),
            me: me as usize,
            ctx,
            tag,
            inter: None,
            member: true,
        };
        let req = self.start_agreement(comm, p.group.clone(), handle, spec);
        Ok((handle, req))
    }

    /// MPI_Comm_idup / MPI_Comm_idup_with_info (`hints`: the new
    /// communicator's, else the parent's), once the copy callbacks have
    /// given the attributes: the new handle and the request.
    pub fn comm_idup(
        &mut self,
        comm: MPI_Comm,
        attrs: Vec<NewValue>,
        hints: Option<Option<&Info>>,
    ) -> MpiResult<(MPI_Comm, MPI_Request)> {
        let p = self.comms.get(comm)?.clone();
        let tag = crate::mpi::icoll_calls::next_tag(self, comm)?;
        let mut c = Comm::new(PENDING_CTX, p.group.clone(), p.my_rank, p.errhandler);
        c.topo = p.topo.clone();
        c.graph = p.graph.clone();
        c.hints = match hints {
            Some(i) => Hints::from_info(i),
            None => p.hints,
        };
        c.inter = p.inter.clone();
        c.attrs = self.comms.adopt_attrs(attrs);
        let handle = self.comms.insert(c);
        let (ranks, me, ctx, inter) = match InterComm::of(&p) {
            None => (p.group.ranks().to_vec(), p.my_rank as usize, p.ctx, None),
            Some(ic) => (
                ic.local.clone(),
                ic.me,
                ic.ctx | crate::coll::inter::LOCAL_CTX_BIT,
                Some((ic.remote[0], ic.send_ctx, ic.ctx)),
            ),
        };
        let spec = Spec {
            key: (p.ctx, tag),
            ranks,
            me,
            ctx,
            tag,
            inter,
            member: true,
        };
        let req = self.start_agreement(comm, p.group.clone(), handle, spec);
        Ok((handle, req))
    }
}

impl World<Endpoint> {
    /// The nonblocking form of MPI_Comm_create_from_group (which
    /// `abi::session` runs with a wait under MPI_THREAD_MULTIPLE, so that
    /// other threads of the rank may call MPI meanwhile): the members of
    /// `group` (my index `me`) agree on a context id as MPI_Comm_idup's
    /// members do, on context `ctx` with tag `tag`. The new communicator's
    /// handle (usable once the request is complete) and the request.
    pub fn group_idup(
        &mut self,
        group: Arc<crate::mpi::comm::Group>,
        me: u32,
        ctx: u32,
        tag: i32,
        errhandler: crate::sys::MPI_Errhandler,
    ) -> (MPI_Comm, MPI_Request) {
        let handle = self
            .comms
            .insert(Comm::new(PENDING_CTX, group.clone(), me, errhandler));
        let spec = Spec {
            key: (ctx, tag),
            ranks: group.ranks().to_vec(),
            me: me as usize,
            ctx,
            tag,
            inter: None,
            member: true,
        };
        let req = self.start_agreement(handle, group, handle, spec);
        (handle, req)
    }
}
