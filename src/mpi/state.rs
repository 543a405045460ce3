//! The per-process MPI state (`World`): the p2p endpoint and every object
//! table, and the MPI semantics of point-to-point calls on top of p2p:
//! argument checking, null processes, buffered-send space, starting and
//! completing requests, the Wait / Test families, cancel and probe.
//!
//! User memory never appears here: the ABI layer turns raw pointers into
//! p2p buffers ([`SendPayload`], [`RecvTarget`]) after the arguments have been
//! checked by [`World::send_args`] / [`World::recv_args`].
use crate::mpi::backend::Backend;
use crate::mpi::bsend::BsendBuffer;
use crate::mpi::comm::{check_recv_tag, check_send_tag, CommTable, Group, Source};
use crate::mpi::datatype::{Datatype, TypeTable};
use crate::mpi::errhandler::{ErrhandlerTable, ObjKind};
use crate::mpi::error::{fail, MpiError, MpiResult};
use crate::mpi::f90types::F90Cache;
use crate::mpi::request::{Kind, Req, ReqState, RequestTable, Staging};
use crate::mpi::status::{empty_status, make_status, proc_null_status};
use crate::mpi::type_names::TypeNames;
use crate::p2p::{Endpoint, ReqId, SendMode, Status};
use crate::sys::{self, MPI_Comm, MPI_Datatype, MPI_Errhandler, MPI_Request, MPI_Status};
use std::os::raw::c_int;
use std::sync::Arc;
use std::thread::ThreadId;

/// Checked arguments of a send.
#[derive(Debug, Clone)]
pub struct SendArgs {
    pub comm: MPI_Comm,
    pub group: Arc<Group>,
    pub ctx: u32,
    /// World rank; None for MPI_PROC_NULL.
    pub dest: Option<u32>,
    pub tag: i32,
    pub ty: Arc<Datatype>,
    pub count: usize,
    /// Packed bytes of the message.
    pub bytes: usize,
}

/// Checked arguments of a receive.
#[derive(Debug, Clone)]
pub struct RecvArgs {
    pub comm: MPI_Comm,
    pub group: Arc<Group>,
    pub ctx: u32,
    pub src: Source,
    /// None for MPI_ANY_TAG.
    pub tag: Option<i32>,
    pub ty: Arc<Datatype>,
    pub count: usize,
    /// Packed bytes the buffer holds.
    pub bytes: usize,
}

/// What p2p sends from, and the packed copy it points into (if any), which
/// must live until the send completes.
pub struct SendPayload<B> {
    pub buf: B,
    pub keep: Option<Vec<u8>>,
}

/// Where p2p receives into, and the staging buffer it points into (if any).
pub struct RecvTarget<B> {
    pub buf: B,
    pub staging: Option<Staging>,
}

/// A completed request: its status (MPI_ERROR filled) and its error, if any.
#[derive(Debug, Clone)]
pub struct Completion {
    pub status: MPI_Status,
    pub error: Option<MpiError>,
}

impl Completion {
    fn ok(status: MPI_Status) -> Completion {
        Completion {
            status,
            error: None,
        }
    }
}

/// A slot of a request array, resolved.
#[derive(Clone, Copy)]
enum Slot {
    /// MPI_REQUEST_NULL (or an inactive persistent request).
    Inactive,
    /// Complete already (null process, completed generalized request).
    Done,
    Active(ReqId),
    /// Complete when both p2p requests are (MPI_Isendrecv).
    Pair(ReqId, ReqId),
    /// A generalized request not completed yet: only MPI_Grequest_complete
    /// completes it, and no other MPI call can run while this one waits.
    Stuck,
}

impl Slot {
    /// Append the p2p requests this slot waits for.
    fn push_ids(&self, v: &mut Vec<ReqId>) {
        match *self {
            Slot::Active(id) => v.push(id),
            Slot::Pair(a, b) => v.extend([a, b]),
            _ => {}
        }
    }
}

/// Everything MPI knows in this process.
pub struct World<E: Backend = Endpoint> {
    pub ep: E,
    pub comms: CommTable,
    pub types: TypeTable,
    pub reqs: RequestTable,
    pub bsend: BsendBuffer,
    /// The program's error handlers.
    pub errhandlers: ErrhandlerTable,
    /// Datatype names the program set.
    pub type_names: TypeNames,
    /// The Fortran 90 parameterised types handed out.
    pub f90_types: F90Cache,
    /// The thread level MPI_Init_thread provided.
    pub thread_level: c_int,
    /// The thread that called MPI_Init.
    pub main_thread: ThreadId,
    /// The world model was initialized (MPI_Init / MPI_Init_thread).
    pub world_init: bool,
    /// MPI_Finalize was called (the world model ended).
    pub finalized: bool,
    /// The active sessions (see `mpi::session`).
    pub sessions: crate::mpi::session::Sessions,
    /// The endpoint is closed: the rank's result is published and it takes
    /// no part in the job any more.
    pub ep_closed: bool,
    /// Packed buffers of sends released with MPI_Request_free while p2p may
    /// still read them: kept until MPI_Finalize.
    retired: Vec<Vec<u8>>,
    /// Persistent requests: what each Start starts (see `mpi::persistent`).
    pub persist: crate::mpi::persistent::Templates<E>,
    /// Generalized requests (see `mpi::grequest`).
    pub greqs: crate::mpi::grequest::Greqs,
    /// Messages matched by MPI_Mprobe / MPI_Improbe (see `mpi::message`).
    pub messages: crate::mpi::message::Messages,
    /// One-sided communication: windows (see `crate::rma`).
    pub rma: crate::rma::Rma,
    /// MPI-IO: open files (see `crate::io`).
    pub io: crate::io::Io,
    /// Attributes on datatypes and windows (see `mpi::obj_attr`).
    pub type_attrs: crate::mpi::obj_attr::ObjAttrs,
    pub win_attrs: crate::mpi::obj_attr::ObjAttrs,
}

/// A count (`int`, or `MPI_Count` for the large-count `_c` calls):
/// MPI_ERR_COUNT if negative.
fn check_count(count: i64) -> MpiResult<usize> {
    usize::try_from(count).or_else(|_| {
        fail(
            sys::MPI_ERR_COUNT,
            format!("invalid count {count} (negative)"),
        )
    })
}

impl<E: Backend> World<E> {
    pub fn new(ep: E, thread_level: c_int) -> World<E> {
        let comms = CommTable::new(ep.rank(), ep.size());
        World {
            ep,
            comms,
            types: TypeTable::new(),
            reqs: RequestTable::default(),
            bsend: BsendBuffer::default(),
            errhandlers: ErrhandlerTable::default(),
            type_names: TypeNames::default(),
            f90_types: F90Cache::default(),
            thread_level,
            main_thread: std::thread::current().id(),
            world_init: false,
            finalized: false,
            sessions: Default::default(),
            ep_closed: false,
            retired: Vec::new(),
            persist: Default::default(),
            greqs: Default::default(),
            messages: Default::default(),
            rma: Default::default(),
            io: Default::default(),
            type_attrs: crate::mpi::obj_attr::ObjAttrs::types(),
            win_attrs: crate::mpi::obj_attr::ObjAttrs::windows(),
        }
    }

    /// Whether MPI calls may run: the world model or a session is active
    /// (and the endpoint is open).
    pub fn running(&self) -> bool {
        !self.ep_closed && ((self.world_init && !self.finalized) || self.sessions.active() > 0)
    }

    /// World rank of this process.
    pub fn rank(&self) -> u32 {
        self.ep.rank()
    }

    /// The error handler that handles an error of a call on `comm` (that of
    /// MPI_COMM_WORLD when `comm` is not a valid communicator).
    pub fn errhandler_for(&self, comm: MPI_Comm) -> MPI_Errhandler {
        self.comms
            .get(comm)
            .or_else(|_| self.comms.get(sys::MPI_COMM_WORLD))
            .map(|c| c.errhandler)
            .unwrap_or(sys::MPI_ERRORS_ARE_FATAL)
    }

    /// Check the arguments of a send (in MPICH's order: communicator, count,
    /// datatype, rank, tag, buffer).
    pub fn send_args(
        &self,
        comm: MPI_Comm,
        count: impl Into<i64>,
        datatype: MPI_Datatype,
        dest: c_int,
        tag: c_int,
        buf_is_null: bool,
    ) -> MpiResult<SendArgs> {
        let c = self.comms.get(comm)?;
        let count = check_count(count.into())?;
        let ty = self.types.get(datatype)?;
        let dest = self.comms.dest(comm, dest)?;
        let tag = check_send_tag(tag)?;
        check_buffer(buf_is_null, count, &ty)?;
        Ok(SendArgs {
            comm,
            group: c.peer_group().clone(),
            ctx: c.send_ctx(),
            dest,
            tag,
            bytes: ty.packed_size(count),
            ty,
            count,
        })
    }

    /// Check the arguments of a receive.
    pub fn recv_args(
        &self,
        comm: MPI_Comm,
        count: impl Into<i64>,
        datatype: MPI_Datatype,
        source: c_int,
        tag: c_int,
        buf_is_null: bool,
    ) -> MpiResult<RecvArgs> {
        let c = self.comms.get(comm)?;
        let count = check_count(count.into())?;
        let ty = self.types.get(datatype)?;
        let src = self.comms.source(comm, source)?;
        let tag = check_recv_tag(tag)?;
        check_buffer(buf_is_null, count, &ty)?;
        Ok(RecvArgs {
            comm,
            group: c.peer_group().clone(),
            ctx: c.ctx,
            src,
            tag,
            bytes: ty.packed_size(count),
            ty,
            count,
        })
    }

    /// Start a send (the p2p starting phase); the request is not in the table.
    pub fn start_send(
        &mut self,
        a: &SendArgs,
        p: SendPayload<E::SendBuf>,
        mode: SendMode,
    ) -> MpiResult<Req> {
        let state = match a.dest {
            None => ReqState::Done(proc_null_status()),
            Some(dest) => {
                let space = match mode {
                    SendMode::Buffered => Some(self.bsend.reserve(a.bytes)?),
                    _ => None,
                };
                let id = self.ep.isend(p.buf, dest, a.tag, a.ctx, mode);
                // p2p copied a buffered send's data out as it started
                if let Some(space) = space {
                    self.bsend.release(space);
                }
                ReqState::Active(id)
            }
        };
        Ok(Req {
            kind: Kind::Send,
            comm: a.comm,
            group: a.group.clone(),
            state,
            keep: p.keep,
            staging: None,
            capacity: 0,
        })
    }

    /// Start a receive; the request is not in the table.
    pub fn start_recv(&mut self, a: &RecvArgs, t: RecvTarget<E::RecvBuf>) -> Req {
        let state = match a.src {
            Source::ProcNull => ReqState::Done(proc_null_status()),
            Source::Any => ReqState::Active(self.ep.irecv(t.buf, None, a.tag, a.ctx)),
            Source::Rank(w) => ReqState::Active(self.ep.irecv(t.buf, Some(w), a.tag, a.ctx)),
        };
        Req {
            kind: Kind::Recv,
            comm: a.comm,
            group: a.group.clone(),
            state,
            keep: None,
            staging: t.staging,
            capacity: a.bytes,
        }
    }

    /// Finish a request that is complete (in p2p, or Done): release it in
    /// p2p, unpack staged data, build its status.
    pub(crate) fn finish(&mut self, mut req: Req) -> Completion {
        self.comms.settle_idups();
        let id = match req.state {
            ReqState::Done(st) => return Completion::ok(st),
            ReqState::Inactive | ReqState::Parts => return Completion::ok(empty_status()),
            ReqState::Greq(g) => return self.greqs.finish(g),
            ReqState::Active(id) => id,
            ReqState::Pair(send, recv) => {
                self.ep.free(send);
                recv
            }
        };
        let c = self.p2p_completion(&req, id);
        self.deliver(&mut req, id);
        self.ep.free(id);
        drop(req.keep);
        c
    }

    /// Unpack the staged data of a complete receive into the user's buffer
    /// (once: the staging buffer goes).
    pub(crate) fn deliver(&mut self, req: &mut Req, id: ReqId) {
        if let Some(stg) = req.staging.take() {
            let s = self.ep.status(id);
            let n = (s.bytes as usize).min(stg.tmp.len());
            (stg.deliver)(&stg.tmp[..n]);
        }
    }

    /// The completion of `req`, complete in p2p as `id`; nothing is freed.
    pub(crate) fn p2p_completion(&self, req: &Req, id: ReqId) -> Completion {
        let s = self.ep.status(id);
        if req.kind != Kind::Recv || s.cancelled {
            let st = empty_status();
            return Completion::ok(make_status(
                st.MPI_SOURCE,
                st.MPI_TAG,
                sys::MPI_SUCCESS,
                s.bytes,
                s.cancelled,
            ));
        }
        let source = comm_source(&req.group, &s);
        if s.truncated {
            let err = MpiError::new(
                sys::MPI_ERR_TRUNCATE,
                format!(
                    "message from rank {} with tag {} truncated: it is longer than \
                     the receive buffer of {} bytes",
                    source, s.tag, req.capacity
                ),
            )
            .on_comm(req.comm);
            return Completion {
                status: make_status(source, s.tag, sys::MPI_ERR_TRUNCATE, s.bytes, false),
                error: Some(err),
            };
        }
        Completion::ok(make_status(source, s.tag, sys::MPI_SUCCESS, s.bytes, false))
    }

    /// Block until `req` completes, then finish it (blocking calls).
    pub fn wait_req(&mut self, req: Req) -> Completion {
        if let ReqState::Active(id) = req.state {
            self.ep.wait_all(&[id]);
        }
        self.finish(req)
    }

    /// MPI_Send and friends: start and wait.
    pub fn send(
        &mut self,
        a: &SendArgs,
        p: SendPayload<E::SendBuf>,
        mode: SendMode,
    ) -> MpiResult<()> {
        let req = self.start_send(a, p, mode)?;
        match self.wait_req(req).error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// MPI_Sendrecv: both started, then waited together. The status is the
    /// receive's.
    pub fn sendrecv(
        &mut self,
        sa: &SendArgs,
        sp: SendPayload<E::SendBuf>,
        ra: &RecvArgs,
        rt: RecvTarget<E::RecvBuf>,
    ) -> MpiResult<Completion> {
        let sreq = self.start_send(sa, sp, SendMode::Standard)?;
        let rreq = self.start_recv(ra, rt);
        let ids: Vec<ReqId> = [&sreq, &rreq]
            .iter()
            .filter_map(|r| match r.state {
                ReqState::Active(id) => Some(id),
                _ => None,
            })
            .collect();
        if !ids.is_empty() {
            self.ep.wait_all(&ids);
        }
        let sc = self.finish(sreq);
        let rc = self.finish(rreq);
        match sc.error {
            Some(e) => Err(e),
            None => Ok(rc),
        }
    }

    /// Resolve a request handle (MPI_REQUEST_NULL is inactive).
    fn slot(&self, h: MPI_Request) -> MpiResult<Slot> {
        if h == sys::MPI_REQUEST_NULL {
            return Ok(Slot::Inactive);
        }
        Ok(match self.reqs.get(h)?.state {
            ReqState::Done(_) => Slot::Done,
            ReqState::Active(id) => Slot::Active(id),
            ReqState::Inactive => Slot::Inactive,
            ReqState::Pair(a, b) => Slot::Pair(a, b),
            ReqState::Greq(g) if self.greqs.is_complete(g) => Slot::Done,
            ReqState::Greq(_) | ReqState::Parts => Slot::Stuck,
        })
    }

    fn slots(&self, hs: &[MPI_Request]) -> MpiResult<Vec<Slot>> {
        hs.iter()
            .enumerate()
            .map(|(i, &h)| {
                self.slot(h).map_err(|mut e| {
                    e.msg = format!("array_of_requests[{i}]: {}", e.msg);
                    e
                })
            })
            .collect()
    }

    /// Remove a complete request from the table, set its handle to
    /// MPI_REQUEST_NULL and finish it. A persistent request stays, inactive.
    fn take(&mut self, h: &mut MPI_Request) -> Completion {
        if let Some(idle) = self.persist.inactive(*h) {
            let slot = self.reqs.get_mut(*h).expect("validated request handle");
            let req = std::mem::replace(slot, idle);
            return self.finish(req);
        }
        let req = self.reqs.remove(*h).expect("validated request handle");
        *h = sys::MPI_REQUEST_NULL;
        self.finish(req)
    }

    /// A wait on generalized requests (or partitioned sends) nothing can
    /// complete any more.
    fn stuck(&self, hs: &[MPI_Request], slots: &[Slot]) -> MpiError {
        let i = slots
            .iter()
            .position(|s| matches!(s, Slot::Stuck))
            .expect("a stuck slot");
        if self.waits_for_partitions(hs[i]) {
            return MpiError::new(
                sys::MPI_ERR_REQUEST,
                format!(
                    "waiting for partitioned send {:#x}, whose partitions are not all \
                     marked ready: only MPI_Pready marks them, and no MPI call can be \
                     made while this one waits (the program would hang)",
                    hs[i]
                ),
            );
        }
        MpiError::new(
            sys::MPI_ERR_REQUEST,
            format!(
                "waiting for generalized request {:#x}, which is not complete: only \
                 MPI_Grequest_complete completes it, and no MPI call can be made \
                 while this one waits (the program would hang)",
                hs[i]
            ),
        )
    }

    /// MPI_Wait.
    pub fn wait(&mut self, h: &mut MPI_Request) -> MpiResult<Completion> {
        let s = self.slot(*h)?;
        match s {
            Slot::Inactive => Ok(Completion::ok(empty_status())),
            Slot::Done => Ok(self.take(h)),
            Slot::Stuck => Err(self.stuck(&[*h], &[s])),
            Slot::Active(_) | Slot::Pair(..) => {
                let mut ids = Vec::new();
                s.push_ids(&mut ids);
                self.ep.wait_all(&ids);
                self.check_suspended()?;
                Ok(self.take(h))
            }
        }
    }

    /// MPI_Test: None if not complete.
    pub fn test(&mut self, h: &mut MPI_Request) -> MpiResult<Option<Completion>> {
        let s = self.slot(*h)?;
        match s {
            Slot::Inactive => Ok(Some(Completion::ok(empty_status()))),
            Slot::Done => Ok(Some(self.take(h))),
            Slot::Stuck => {
                // a zero-length wait still makes progress
                self.ep.test(&[]);
                Ok(None)
            }
            Slot::Active(_) | Slot::Pair(..) => {
                let mut ids = Vec::new();
                s.push_ids(&mut ids);
                if self.ep.test(&ids).len() < ids.len() {
                    Ok(None)
                } else {
                    Ok(Some(self.take(h)))
                }
            }
        }
    }

    /// (slot position, p2p id) of every p2p request the slots wait for.
    fn active(slots: &[Slot]) -> (Vec<usize>, Vec<ReqId>) {
        let mut pos = Vec::new();
        let mut ids = Vec::new();
        for (i, s) in slots.iter().enumerate() {
            s.push_ids(&mut ids);
            pos.resize(ids.len(), i);
        }
        (pos, ids)
    }

    fn done(slots: &[Slot]) -> Vec<usize> {
        (0..slots.len())
            .filter(|&i| matches!(slots[i], Slot::Done))
            .collect()
    }

    /// The slots whose every p2p request is in `done` (distinct positions
    /// in `ids`), in the order their last request appears in `done`.
    fn complete_slots(pos: &[usize], done: &[usize]) -> Vec<usize> {
        let mut left = vec![0u32; pos.last().map_or(0, |&p| p + 1)];
        for &p in pos {
            left[p] += 1;
        }
        let mut out = Vec::new();
        for &d in done {
            let slot = pos[d];
            left[slot] -= 1;
            if left[slot] == 0 {
                out.push(slot);
            }
        }
        out
    }

    /// MPI_Waitall: one completion per entry (empty status for inactive ones).
    pub fn wait_all(&mut self, hs: &mut [MPI_Request]) -> MpiResult<Vec<Completion>> {
        let slots = self.slots(hs)?;
        if slots.iter().any(|s| matches!(s, Slot::Stuck)) {
            return Err(self.stuck(hs, &slots));
        }
        let (_, ids) = Self::active(&slots);
        if !ids.is_empty() {
            self.ep.wait_all(&ids);
            self.check_suspended()?;
        }
        Ok(self.take_all(hs, &slots))
    }

    fn take_all(&mut self, hs: &mut [MPI_Request], slots: &[Slot]) -> Vec<Completion> {
        let mut out = Vec::with_capacity(hs.len());
        for (h, s) in hs.iter_mut().zip(slots) {
            out.push(match s {
                Slot::Inactive => Completion::ok(empty_status()),
                _ => self.take(h),
            });
        }
        out
    }

    /// MPI_Testall: Some (all complete, all finished) or None (none finished).
    pub fn test_all(&mut self, hs: &mut [MPI_Request]) -> MpiResult<Option<Vec<Completion>>> {
        let slots = self.slots(hs)?;
        let (_, ids) = Self::active(&slots);
        let stuck = slots.iter().any(|s| matches!(s, Slot::Stuck));
        if !ids.is_empty() || stuck {
            let n = self.ep.test(&ids).len();
            if n < ids.len() || stuck {
                return Ok(None);
            }
        }
        Ok(Some(self.take_all(hs, &slots)))
    }

    /// Positions in `hs` complete now (Done ones first, then those p2p
    /// reports, in its order), after a zero-length wait on the active ones.
    fn complete_now(&mut self, slots: &[Slot]) -> Vec<usize> {
        let (pos, ids) = Self::active(slots);
        let mut out = Self::done(slots);
        if !ids.is_empty() {
            let done = self.ep.test(&ids);
            out.extend(Self::complete_slots(&pos, &done));
        } else if slots.iter().any(|s| matches!(s, Slot::Stuck)) && out.is_empty() {
            self.ep.test(&[]);
        }
        out
    }

    /// Wait until at least one slot that waits for p2p requests is complete
    /// (none may be already): their positions, earliest completion first.
    fn wait_some_slots(&mut self, slots: &[Slot]) -> MpiResult<Vec<usize>> {
        let (pos, ids) = Self::active(slots);
        let mut finished: Vec<usize> = Vec::new();
        let mut is_done = vec![false; ids.len()];
        loop {
            let open: Vec<usize> = (0..ids.len()).filter(|&k| !is_done[k]).collect();
            let sub: Vec<ReqId> = open.iter().map(|&k| ids[k]).collect();
            for j in self.ep.wait_any(&sub) {
                is_done[open[j]] = true;
                finished.push(open[j]);
            }
            self.check_suspended()?;
            let c = Self::complete_slots(&pos, &finished);
            if !c.is_empty() {
                return Ok(c);
            }
        }
    }

    /// MPI_Waitany: None when every entry is inactive (index MPI_UNDEFINED).
    pub fn wait_any(&mut self, hs: &mut [MPI_Request]) -> MpiResult<Option<(usize, Completion)>> {
        let slots = self.slots(hs)?;
        let (_, ids) = Self::active(&slots);
        let i = match Self::done(&slots).first() {
            Some(&i) => i,
            None if ids.is_empty() && slots.iter().any(|s| matches!(s, Slot::Stuck)) => {
                return Err(self.stuck(hs, &slots))
            }
            None if ids.is_empty() => return Ok(None),
            None => self.wait_some_slots(&slots)?[0],
        };
        Ok(Some((i, self.take(&mut hs[i]))))
    }

    /// MPI_Testany: Ok(None) when nothing completed; Some((None, _)) when every
    /// entry is inactive (flag true, index MPI_UNDEFINED, empty status).
    #[allow(clippy::type_complexity)]
    pub fn test_any(
        &mut self,
        hs: &mut [MPI_Request],
    ) -> MpiResult<Option<(Option<usize>, Completion)>> {
        let slots = self.slots(hs)?;
        if slots.iter().all(|s| matches!(s, Slot::Inactive)) {
            return Ok(Some((None, Completion::ok(empty_status()))));
        }
        match self.complete_now(&slots).first() {
            None => Ok(None),
            Some(&i) => Ok(Some((Some(i), self.take(&mut hs[i])))),
        }
    }

    /// MPI_Waitsome: None when every entry is inactive (outcount
    /// MPI_UNDEFINED); else the completed (index, completion) pairs.
    pub fn wait_some(
        &mut self,
        hs: &mut [MPI_Request],
    ) -> MpiResult<Option<Vec<(usize, Completion)>>> {
        let slots = self.slots(hs)?;
        let (_, ids) = Self::active(&slots);
        let done = Self::done(&slots);
        let idx: Vec<usize> = if !done.is_empty() {
            self.complete_now(&slots)
        } else if ids.is_empty() && slots.iter().any(|s| matches!(s, Slot::Stuck)) {
            return Err(self.stuck(hs, &slots));
        } else if ids.is_empty() {
            return Ok(None);
        } else {
            self.wait_some_slots(&slots)?
        };
        Ok(Some(self.take_list(hs, &idx)))
    }

    /// MPI_Testsome: like wait_some, but may return an empty list.
    pub fn test_some(
        &mut self,
        hs: &mut [MPI_Request],
    ) -> MpiResult<Option<Vec<(usize, Completion)>>> {
        let slots = self.slots(hs)?;
        if slots.iter().all(|s| matches!(s, Slot::Inactive)) {
            return Ok(None);
        }
        let idx = self.complete_now(&slots);
        Ok(Some(self.take_list(hs, &idx)))
    }

    fn take_list(&mut self, hs: &mut [MPI_Request], idx: &[usize]) -> Vec<(usize, Completion)> {
        idx.iter().map(|&i| (i, self.take(&mut hs[i]))).collect()
    }

    /// MPI_Request_free: an active request completes in the background; a
    /// persistent one stops being persistent (freed once it completes).
    pub fn request_free(&mut self, h: &mut MPI_Request) -> MpiResult<()> {
        let req = self.reqs.get(*h)?;
        let active = matches!(req.state, ReqState::Active(_) | ReqState::Pair(..));
        if active && req.staging.is_some() {
            return fail(
                sys::MPI_ERR_REQUEST,
                format!(
                    "freeing an active receive with non-contiguous datatype is not \
                     supported (request {:#x}: complete it with MPI_Wait or cancel it first)",
                    *h
                ),
            );
        }
        if let ReqState::Greq(g) = req.state {
            self.greqs.release(g);
        }
        if let ReqState::Parts = req.state {
            return fail(
                sys::MPI_ERR_REQUEST,
                format!(
                    "partitioned send {:#x} is active and waits for MPI_Pready of some \
                     partitions: mark them all ready (or complete it) before freeing it",
                    *h
                ),
            );
        }
        self.persist.forget(*h);
        let req = self.reqs.remove(*h)?;
        *h = sys::MPI_REQUEST_NULL;
        let ids = match req.state {
            ReqState::Active(id) => vec![id],
            ReqState::Pair(a, b) => vec![a, b],
            _ => vec![],
        };
        for &id in &ids {
            self.ep.detach(id);
        }
        if let (false, Some(k)) = (ids.is_empty(), req.keep) {
            self.retired.push(k);
        }
        Ok(())
    }

    /// MPI_Cancel: receives that nothing has matched yet are cancelled;
    /// a send (any mode, persistent ones once started) asks its receiver,
    /// which removes the message if no receive has matched it (see
    /// `p2p::Core::cancel`): the request completes when the answer comes and
    /// MPI_Test_cancelled tells. A buffered send's space in the attached
    /// buffer is released already (p2p copied the data out as it started).
    /// Generalized requests run their cancel callback (in the ABI layer).
    pub fn cancel(&mut self, h: MPI_Request) -> MpiResult<()> {
        let req = self.reqs.get(h)?;
        match (req.kind, req.state) {
            (_, ReqState::Done(_) | ReqState::Inactive | ReqState::Greq(_)) => Ok(()),
            (_, ReqState::Parts) => fail(
                sys::MPI_ERR_REQUEST,
                format!("cancelling a partitioned send is not supported by vaced (request {h:#x})"),
            ),
            (_, ReqState::Pair(..)) => fail(
                sys::MPI_ERR_REQUEST,
                format!(
                    "cancelling an MPI_Isendrecv request is not supported by vaced \
                     (request {h:#x})"
                ),
            ),
            (Kind::Coll, ReqState::Active(_)) => fail(
                sys::MPI_ERR_REQUEST,
                format!("request {h:#x} is a nonblocking collective, which cannot be cancelled"),
            ),
            (Kind::Send | Kind::Recv, ReqState::Active(id)) => {
                // a receive: false when it has matched already (it completes
                // normally); a send: the answer comes later
                self.ep.cancel(id);
                Ok(())
            }
        }
    }

    fn probe_args(
        &self,
        comm: MPI_Comm,
        source: c_int,
        tag: c_int,
    ) -> MpiResult<(Arc<Group>, u32, Source, Option<i32>)> {
        let c = self.comms.get(comm)?;
        let src = self.comms.source(comm, source)?;
        let tag = check_recv_tag(tag)?;
        Ok((c.peer_group().clone(), c.ctx, src, tag))
    }

    /// MPI_Probe.
    pub fn probe(&mut self, comm: MPI_Comm, source: c_int, tag: c_int) -> MpiResult<MPI_Status> {
        let (group, ctx, src, tag) = self.probe_args(comm, source, tag)?;
        let src = match src {
            Source::ProcNull => return Ok(proc_null_status()),
            Source::Any => None,
            Source::Rank(w) => Some(w),
        };
        let s = self.ep.probe(src, tag, ctx);
        self.check_suspended()?;
        Ok(probe_status(&group, &s))
    }

    /// MPI_Iprobe: None when no message matches now.
    pub fn iprobe(
        &mut self,
        comm: MPI_Comm,
        source: c_int,
        tag: c_int,
    ) -> MpiResult<Option<MPI_Status>> {
        let (group, ctx, src, tag) = self.probe_args(comm, source, tag)?;
        let src = match src {
            Source::ProcNull => return Ok(Some(proc_null_status())),
            Source::Any => None,
            Source::Rank(w) => Some(w),
        };
        Ok(self
            .ep
            .iprobe(src, tag, ctx)
            .map(|s| probe_status(&group, &s)))
    }

    /// MPI_Comm_set_errhandler / MPI_Errhandler_set.
    pub fn set_errhandler(&mut self, comm: MPI_Comm, eh: MPI_Errhandler) -> MpiResult<()> {
        self.comms.get(comm)?;
        self.errhandlers.check_for(eh, ObjKind::Comm)?;
        self.comms.get_mut(comm)?.errhandler = eh;
        Ok(())
    }

    /// Release what was kept for p2p (MPI_Finalize: p2p is done with it).
    pub fn release_retired(&mut self) {
        self.retired.clear();
    }
}

/// A null buffer is MPI_BOTTOM, valid for a type whose data is not at
/// displacement 0 (absolute addresses), as MPICH decides.
fn check_buffer(buf_is_null: bool, count: usize, ty: &Datatype) -> MpiResult<()> {
    ty.check_count(count)?;
    if buf_is_null && count > 0 && ty.size() > 0 && ty.true_lb() == 0 {
        return fail(
            sys::MPI_ERR_BUFFER,
            format!("null buffer for {} elements of {}", count, ty.name()),
        );
    }
    Ok(())
}

/// Comm rank of the sender of a received message.
fn comm_source(group: &Group, s: &Status) -> c_int {
    u32::try_from(s.source)
        .ok()
        .and_then(|w| group.rank_of(w))
        .map_or(sys::MPI_UNDEFINED, |r| r as c_int)
}

fn probe_status(group: &Group, s: &Status) -> MPI_Status {
    make_status(
        comm_source(group, s),
        s.tag,
        sys::MPI_SUCCESS,
        s.bytes,
        false,
    )
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
