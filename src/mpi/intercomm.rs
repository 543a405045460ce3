//! Intercommunicators: a local group (the communicator's `group`, my rank
//! in it), a remote group, and two context ids as in MPICH: messages from
//! the remote group arrive on the communicator's own id (`Comm::ctx`, agreed
//! over the local group, MPICH's `recvcontext_id`) and are sent on the
//! remote group's (`Inter::send_ctx`, MPICH's `context_id`). Point-to-point
//! ranks name members of the remote group; `MPI_Comm_group` is the local
//! group. The group's local communicator (MPICH's `local_comm`) needs no
//! communication to exist: it runs on `ctx | coll::inter::LOCAL_CTX_BIT`.
//!
//! The constructors send the messages MPICH 4.0.2 (CH3) sends, so they cost
//! what they cost there:
//! * MPI_Intercomm_create: the leaders exchange group sizes and the members'
//!   process ids over the peer communicator (MPIC_Sendrecv, 4 bytes, then 8
//!   per member), broadcast them in their local group (8 bytes, then 8 per
//!   remote member), the local group allreduces a flag (4 bytes, MPI_LAND,
//!   `MPIDI_PG_ForwardPGInfo`), agrees on a context id (the mask allreduce
//!   of `mpi::context`), the leaders swap the ids (2 bytes, with the
//!   program's tag) and broadcast the remote one (4 bytes);
//! * MPI_Intercomm_merge: the ranks 0 swap `high` (4 bytes) and broadcast
//!   it locally, after MPICH's check that every member of a group passed the
//!   same `high` (a 4-byte MPI_SUM allreduce in the local group); the merged
//!   group (the low group first) agrees on a context id over a temporary
//!   context derived from the high group's receive context;
//! * MPI_Comm_dup / split / create of an intercommunicator: a context id
//!   agreed in the local group, the ranks 0 swap the ids (2 bytes) and
//!   broadcast the remote one; Comm_split first allgathers (color, key) in
//!   the local group and across (an intercommunicator Allgather), and
//!   Comm_create swaps the groups' sizes, ids and member lists.
//!
//! Timing: all of these are ordinary messages of the engine.
use crate::coll::inter::{symmetric, Inter as InterView, LOCAL_CTX_BIT, MERGE_CTX_BIT};
use crate::coll::{self, Op, COLL_CTX_BIT};
use crate::mpi::agree::Agree;
use crate::mpi::attr::NewValue;
use crate::mpi::backend::Backend;
use crate::mpi::comm::{check_send_tag, Comm, CommTable, Group};
use crate::mpi::context::lowest_free;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::group;
use crate::mpi::state::World;
use crate::p2p::{Core, Link};
use crate::sys::{self, MPI_Comm, MPI_Group};
use std::os::raw::c_int;
use std::sync::Arc;

/// What makes a communicator an intercommunicator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inter {
    pub remote: Arc<Group>,
    /// The context id the remote group receives on.
    pub send_ctx: u32,
    /// MPICH's `is_low_group`: whether my group's rank 0 has the lower
    /// world rank of the two groups' ranks 0.
    pub is_low: bool,
}

/// Tag of the context-id exchange of MPI_Comm_dup on an intercommunicator
/// (MPICH's MPIR_Get_intercomm_contextid).
const DUP_TAG: i32 = 31567;

/// An intercommunicator's members and contexts, owned (for building a
/// [`crate::coll::inter::Inter`] on the engine).
#[derive(Debug, Clone)]
pub struct InterComm {
    pub local: Vec<u32>,
    pub remote: Vec<u32>,
    pub me: usize,
    pub ctx: u32,
    pub send_ctx: u32,
    pub is_low: bool,
}

impl InterComm {
    /// The intercommunicator `c`; None for an intracommunicator.
    pub fn of(c: &Comm) -> Option<InterComm> {
        let i = c.inter.as_ref()?;
        Some(InterComm {
            local: c.group.ranks().to_vec(),
            remote: i.remote.ranks().to_vec(),
            me: c.my_rank as usize,
            ctx: c.ctx,
            send_ctx: i.send_ctx,
            is_low: i.is_low,
        })
    }

    /// The collectives' view of it on `core`.
    pub fn on<'a, L: Link>(&'a self, core: &'a mut Core<L>) -> InterView<'a, L> {
        InterView {
            core,
            local: &self.local,
            remote: &self.remote,
            me: self.me,
            ctx: self.ctx,
            send_ctx: self.send_ctx,
            is_low: self.is_low,
        }
    }

    /// Its local communicator, as the agreement calls name one.
    fn local_ctx(&self) -> u32 {
        self.ctx | LOCAL_CTX_BIT
    }
}

/// The messages the intercommunicator constructors exchange, besides the
/// context-mask agreement of [`Agree`].
pub trait InterOps {
    /// MPIC_Sendrecv with world rank `peer`: `data` sent on `send_ctx`,
    /// exactly `len` bytes received on `recv_ctx` (both collective
    /// contexts), with `tag`.
    fn exchange(
        &mut self,
        peer: u32,
        send_ctx: u32,
        recv_ctx: u32,
        tag: i32,
        data: &[u8],
        len: usize,
    ) -> Vec<u8>;
    /// MPI_Bcast of `buf` from `root` over the intracommunicator (`ranks`,
    /// my index `me`, context `ctx`).
    fn bcast(&mut self, ranks: &[u32], me: usize, ctx: u32, buf: &mut [u8], root: usize);
    /// MPI_Allreduce of one int with MPI_LAND (`sum` false) or MPI_SUM.
    fn allreduce_int(&mut self, ranks: &[u32], me: usize, ctx: u32, v: c_int, sum: bool) -> c_int;
    /// The intercommunicator MPI_Allgather: my `send` block to every remote
    /// rank, `recv` gets theirs.
    fn inter_allgather(&mut self, ic: &InterComm, send: &[u8], recv: &mut [u8]);
}

impl<L: Link> InterOps for Core<L> {
    fn exchange(
        &mut self,
        peer: u32,
        send_ctx: u32,
        recv_ctx: u32,
        tag: i32,
        data: &[u8],
        len: usize,
    ) -> Vec<u8> {
        let rr = self.irecv_vec(len, Some(peer), Some(tag), recv_ctx | COLL_CTX_BIT);
        let sr = self.isend_vec(data.to_vec(), peer, tag, send_ctx | COLL_CTX_BIT);
        self.wait_all(&[sr]);
        self.free(sr);
        self.wait_all(&[rr]);
        let st = self.status(rr);
        let v = self.take_vec(rr);
        if st.truncated || v.len() != len {
            panic!(
                "vaced: intercommunicator construction: world rank {} sent {} bytes, {} \
                 expected (the two groups called different constructors)",
                peer, st.bytes, len
            );
        }
        v
    }

    fn bcast(&mut self, ranks: &[u32], me: usize, ctx: u32, buf: &mut [u8], root: usize) {
        let mut c = coll::Comm {
            core: self,
            ranks,
            me,
            ctx,
        };
        coll::bcast::bcast(&mut c, buf, root);
    }

    fn allreduce_int(&mut self, ranks: &[u32], me: usize, ctx: u32, v: c_int, sum: bool) -> c_int {
        let mut c = coll::Comm {
            core: self,
            ranks,
            me,
            ctx,
        };
        let mut f = |input: &[u8], inout: &mut [u8]| {
            let a = c_int::from_ne_bytes(input.try_into().expect("4 bytes"));
            let b = c_int::from_ne_bytes((&*inout).try_into().expect("4 bytes"));
            let r = if sum {
                a.wrapping_add(b)
            } else {
                c_int::from(a != 0 && b != 0)
            };
            inout.copy_from_slice(&r.to_ne_bytes());
        };
        let mut op = Op {
            commutative: true,
            builtin: true,
            apply: &mut f,
        };
        let mut buf = v.to_ne_bytes();
        coll::allreduce::allreduce(&mut c, &mut buf, 4, &mut op);
        c_int::from_ne_bytes(buf)
    }

    fn inter_allgather(&mut self, ic: &InterComm, send: &[u8], recv: &mut [u8]) {
        symmetric::allgather(&mut ic.on(self), send, recv);
    }
}

fn ints(v: &[c_int]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

fn int_at(b: &[u8], i: usize) -> c_int {
    c_int::from_ne_bytes(b[4 * i..4 * i + 4].try_into().expect("4 bytes"))
}

/// A context id as MPICH sends it (MPIR_CONTEXT_ID_T_DATATYPE, 16 bits).
fn ctx_bytes(id: u32) -> Vec<u8> {
    (id as u16).to_ne_bytes().to_vec()
}

fn ctx_of(b: &[u8]) -> u32 {
    u16::from_ne_bytes([b[0], b[1]]) as u32
}

/// MPI_ERR_COMM for an intercommunicator where only an intracommunicator
/// is allowed (MPICH's MPIR_ERRTEST_COMM_INTRA).
pub fn intra_only(c: &Comm) -> MpiResult<()> {
    if c.is_inter() {
        return fail(
            sys::MPI_ERR_COMM,
            "intercommunicator passed where an intracommunicator is required",
        );
    }
    Ok(())
}

fn inter_only(c: &Comm) -> MpiResult<&Inter> {
    match &c.inter {
        Some(i) => Ok(i),
        None => fail(
            sys::MPI_ERR_COMM,
            "intracommunicator passed where an intercommunicator is required",
        ),
    }
}

impl<E: Backend + Agree + InterOps> World<E> {
    /// Agree on a context id over the local group of intercommunicator `ic`
    /// (its local communicator); a non-member does not take it.
    fn local_context(&mut self, ic: &InterComm, member: bool) -> MpiResult<u32> {
        self.quiesce_idups();
        let mut mask = self.comms.free_mask(member);
        self.ep
            .allreduce_band(&ic.local, ic.me, ic.local_ctx(), &mut mask);
        let id = lowest_free(&mask)?;
        if member {
            self.comms.ctx_mask.take(id);
        }
        Ok(id)
    }

    /// The ranks 0 swap `mine` (2 bytes) over `ic` with `tag`, then broadcast
    /// the remote value in the local group.
    fn swap_ctx(&mut self, ic: &InterComm, mine: u32, tag: i32) -> u32 {
        let mut buf = if ic.me == 0 {
            let r = ic.remote[0];
            self.ep
                .exchange(r, ic.send_ctx, ic.ctx, tag, &ctx_bytes(mine), 2)
        } else {
            vec![0; 2]
        };
        self.ep.bcast(&ic.local, ic.me, ic.local_ctx(), &mut buf, 0);
        ctx_of(&buf)
    }

    /// MPI_Intercomm_create.
    pub fn intercomm_create(
        &mut self,
        local_comm: MPI_Comm,
        local_leader: c_int,
        peer_comm: MPI_Comm,
        remote_leader: c_int,
        tag: c_int,
    ) -> MpiResult<MPI_Comm> {
        let lc = self.comms.get(local_comm)?.clone();
        intra_only(&lc)?;
        let leader = match usize::try_from(local_leader) {
            Ok(l) if l < lc.size() as usize => l,
            _ => {
                return fail(
                    sys::MPI_ERR_RANK,
                    format!(
                        "invalid local_leader {local_leader} (local_comm size {})",
                        lc.size()
                    ),
                )
            }
        };
        let tag = check_send_tag(tag)?;
        let (ranks, me) = (lc.group.ranks().to_vec(), lc.my_rank as usize);
        // (remote size or -1 for overlapping groups, is_low), remote members
        let mut info = [0u8; 8];
        let mut remote_bytes = Vec::new();
        let mut peer = None;
        if me == leader {
            let p = self.comms.get(peer_comm)?;
            let pg = p.peer_group();
            let Some(rw) = u32::try_from(remote_leader)
                .ok()
                .and_then(|r| pg.world_rank(r))
            else {
                return fail(
                    sys::MPI_ERR_RANK,
                    format!(
                        "invalid remote_leader {remote_leader} (peer_comm size {})",
                        pg.size()
                    ),
                );
            };
            if rw == self.rank() {
                return fail(
                    sys::MPI_ERR_RANK,
                    "the local and remote leaders are the same process",
                );
            }
            let (sctx, rctx) = (p.send_ctx(), p.ctx);
            peer = Some((rw, sctx, rctx));
            let n = ranks.len() as c_int;
            let rn = self.ep.exchange(rw, sctx, rctx, 0, &n.to_ne_bytes(), 4);
            let rn = int_at(&rn, 0).max(0) as usize;
            // MPIDI_Gpid: (process group id, rank in it) per member
            let gpids: Vec<c_int> = ranks.iter().flat_map(|&w| [0, w as c_int]).collect();
            remote_bytes = self.ep.exchange(rw, sctx, rctx, 0, &ints(&gpids), 8 * rn);
            let remote: Vec<u32> = (0..rn)
                .map(|i| int_at(&remote_bytes, 2 * i + 1) as u32)
                .collect();
            let overlap = remote.iter().any(|w| lc.group.rank_of(*w).is_some());
            let size = if overlap { -1 } else { rn as c_int };
            let low = c_int::from(remote.first().is_some_and(|&r0| ranks[0] < r0));
            info = {
                let mut b = [0u8; 8];
                b[..4].copy_from_slice(&size.to_ne_bytes());
                b[4..].copy_from_slice(&low.to_ne_bytes());
                b
            };
        }
        self.ep.bcast(&ranks, me, lc.ctx, &mut info, leader);
        let rsize = int_at(&info, 0);
        if rsize < 0 {
            return fail(
                sys::MPI_ERR_COMM,
                "the local and remote groups of MPI_Intercomm_create overlap",
            );
        }
        let is_low = int_at(&info, 1) != 0;
        remote_bytes.resize(8 * rsize as usize, 0);
        self.ep.bcast(&ranks, me, lc.ctx, &mut remote_bytes, leader);
        let remote: Vec<u32> = (0..rsize as usize)
            .map(|i| int_at(&remote_bytes, 2 * i + 1) as u32)
            .collect();
        // MPIDI_PG_ForwardPGInfo: does every member know every process group?
        self.ep.allreduce_int(&ranks, me, lc.ctx, 1, false);
        let recv_ctx = self.new_context(&lc, true)?;
        let mut fin = [0u8; 4];
        if let Some((rw, sctx, rctx)) = peer {
            let r = self
                .ep
                .exchange(rw, sctx, rctx, tag, &ctx_bytes(recv_ctx), 2);
            fin = (ctx_of(&r) as c_int).to_ne_bytes();
        }
        self.ep.bcast(&ranks, me, lc.ctx, &mut fin, leader);
        let send_ctx = int_at(&fin, 0) as u32;
        let mut c = Comm::new(recv_ctx, lc.group.clone(), lc.my_rank, lc.errhandler);
        c.inter = Some(Arc::new(Inter {
            remote: Arc::new(Group::new(remote)),
            send_ctx,
            is_low,
        }));
        Ok(self.comms.insert(c))
    }

    /// MPI_Intercomm_merge: the group that passed `high` comes second (the
    /// low group first when both passed the same).
    pub fn intercomm_merge(&mut self, comm: MPI_Comm, high: bool) -> MpiResult<MPI_Comm> {
        let c = self.comms.get(comm)?.clone();
        let inter = inter_only(&c)?.clone();
        let ic = InterComm::of(&c).expect("an intercommunicator");
        let lctx = ic.local_ctx();
        let acthigh = self
            .ep
            .allreduce_int(&ic.local, ic.me, lctx, c_int::from(high), true);
        if acthigh != 0 && acthigh as usize != ic.local.len() {
            return fail(
                sys::MPI_ERR_ARG,
                "the members of a group passed different values of high to MPI_Intercomm_merge",
            );
        }
        let mut local_high = c_int::from(high).to_ne_bytes();
        if ic.me == 0 {
            let r = self
                .ep
                .exchange(ic.remote[0], ic.send_ctx, ic.ctx, 0, &local_high, 4);
            if r[..] == local_high[..] {
                local_high = c_int::from(!inter.is_low).to_ne_bytes();
            }
        }
        self.ep.bcast(&ic.local, ic.me, lctx, &mut local_high, 0);
        let local_high = c_int::from_ne_bytes(local_high) != 0;
        let (ranks, my_rank, temp) = if local_high {
            let mut r = ic.remote.clone();
            r.extend(&ic.local);
            (r, ic.remote.len() + ic.me, ic.ctx)
        } else {
            let mut r = ic.local.clone();
            r.extend(&ic.remote);
            (r, ic.me, ic.send_ctx)
        };
        self.quiesce_idups();
        let mut mask = self.comms.free_mask(true);
        self.ep
            .allreduce_band(&ranks, my_rank, temp | MERGE_CTX_BIT, &mut mask);
        let id = lowest_free(&mask)?;
        self.comms.ctx_mask.take(id);
        let n = Comm::new(
            id,
            Arc::new(Group::new(ranks)),
            my_rank as u32,
            c.errhandler,
        );
        Ok(self.commit(n, true))
    }

    /// MPI_Comm_dup of an intercommunicator (`p`), once the copy callbacks
    /// have given the attributes.
    pub(crate) fn inter_dup(&mut self, p: &Comm, attrs: Vec<NewValue>) -> MpiResult<MPI_Comm> {
        let ic = InterComm::of(p).expect("an intercommunicator");
        let recv_ctx = self.local_context(&ic, true)?;
        let send_ctx = self.swap_ctx(&ic, recv_ctx, DUP_TAG);
        let mut c = Comm::new(recv_ctx, p.group.clone(), p.my_rank, p.errhandler);
        let i = p.inter.as_ref().expect("an intercommunicator");
        c.inter = Some(Arc::new(Inter {
            remote: i.remote.clone(),
            send_ctx,
            is_low: i.is_low,
        }));
        c.hints = p.hints;
        c.attrs = self.comms.adopt_attrs(attrs);
        Ok(self.comms.insert(c))
    }

    /// MPI_Comm_split of an intercommunicator: MPI_COMM_NULL for
    /// MPI_UNDEFINED or when no process of the remote group has my color.
    pub(crate) fn inter_split(
        &mut self,
        p: &Comm,
        color: c_int,
        key: c_int,
    ) -> MpiResult<MPI_Comm> {
        if color < 0 && color != sys::MPI_UNDEFINED {
            return fail(
                sys::MPI_ERR_ARG,
                format!("invalid color {color} (must be non-negative or MPI_UNDEFINED)"),
            );
        }
        let ic = InterComm::of(p).expect("an intercommunicator");
        let (n, me) = (ic.local.len(), ic.me);
        let mut table = vec![0u8; 8 * n];
        table[8 * me..8 * me + 8].copy_from_slice(&ints(&[color, key]));
        self.ep.allgather(&ic.local, me, ic.local_ctx(), &mut table);
        let mut rtable = vec![0u8; 8 * ic.remote.len()];
        self.ep
            .inter_allgather(&ic, &ints(&[color, key]), &mut rtable);
        let pick = |t: &[u8], world: &[u32]| -> Vec<u32> {
            let mut v: Vec<(c_int, usize)> = (0..world.len())
                .filter(|&r| int_at(t, 2 * r) == color)
                .map(|r| (int_at(t, 2 * r + 1), r))
                .collect();
            v.sort_unstable();
            v.into_iter().map(|(_, r)| world[r]).collect()
        };
        let remote = pick(&rtable, &ic.remote);
        let member = color != sys::MPI_UNDEFINED && !remote.is_empty();
        let recv_ctx = self.local_context(&ic, member)?;
        let send_ctx = self.swap_ctx(&ic, recv_ctx, 0);
        if !member {
            return Ok(sys::MPI_COMM_NULL);
        }
        let local = pick(&table, &ic.local);
        let my_rank = local
            .iter()
            .position(|&w| w == self.rank())
            .expect("I am in my color") as u32;
        let mut c = Comm::new(recv_ctx, Arc::new(Group::new(local)), my_rank, p.errhandler);
        c.inter = Some(Arc::new(Inter {
            remote: Arc::new(Group::new(remote)),
            send_ctx,
            is_low: ic.is_low,
        }));
        Ok(self.comms.insert(c))
    }

    /// MPI_Comm_create of an intercommunicator: `group` is a subgroup of
    /// the local group; the remote group is the group the other side
    /// passed. MPI_COMM_NULL outside the group or when the other side's
    /// group is empty.
    pub(crate) fn inter_create(&mut self, p: &Comm, group: MPI_Group) -> MpiResult<MPI_Comm> {
        let g = self.comms.groups.get(group)?;
        if let Some(w) = g.ranks().iter().find(|&&w| p.group.rank_of(w).is_none()) {
            return fail(
                sys::MPI_ERR_GROUP,
                format!(
                    "the group is not a subgroup of the communicator's local group \
                     (process {w} of MPI_COMM_WORLD is not in it)"
                ),
            );
        }
        let ic = InterComm::of(p).expect("an intercommunicator");
        let recv_ctx = self.local_context(&ic, true)?;
        let mapping: Vec<c_int> = g
            .ranks()
            .iter()
            .map(|&w| p.group.rank_of(w).expect("checked") as c_int)
            .collect();
        let mut rinfo = vec![0u8; 8];
        let mut rmap;
        if ic.me == 0 {
            let r0 = ic.remote[0];
            let info = ints(&[recv_ctx as c_int, g.size() as c_int]);
            rinfo = self.ep.exchange(r0, ic.send_ctx, ic.ctx, 0, &info, 8);
            let rn = int_at(&rinfo, 1).max(0) as usize;
            rmap = self
                .ep
                .exchange(r0, ic.send_ctx, ic.ctx, 0, &ints(&mapping), 4 * rn);
            self.ep.bcast(&ic.local, 0, ic.local_ctx(), &mut rinfo, 0);
            self.ep.bcast(&ic.local, 0, ic.local_ctx(), &mut rmap, 0);
        } else {
            self.ep
                .bcast(&ic.local, ic.me, ic.local_ctx(), &mut rinfo, 0);
            rmap = vec![0u8; 4 * int_at(&rinfo, 1).max(0) as usize];
            self.ep
                .bcast(&ic.local, ic.me, ic.local_ctx(), &mut rmap, 0);
        }
        let Some(my_rank) = g.rank_of(self.rank()) else {
            self.comms.ctx_mask.release(recv_ctx);
            return Ok(sys::MPI_COMM_NULL);
        };
        let remote: Vec<u32> = (0..rmap.len() / 4)
            .map(|i| ic.remote[int_at(&rmap, i) as usize])
            .collect();
        if remote.is_empty() {
            self.comms.ctx_mask.release(recv_ctx);
            return Ok(sys::MPI_COMM_NULL);
        }
        let mut c = Comm::new(recv_ctx, g.clone(), my_rank, p.errhandler);
        c.inter = Some(Arc::new(Inter {
            remote: Arc::new(Group::new(remote)),
            send_ctx: int_at(&rinfo, 0) as u32,
            is_low: ic.is_low,
        }));
        Ok(self.comms.insert(c))
    }
}

impl CommTable {
    /// MPI_Comm_remote_size (the size of the group for an
    /// intracommunicator, as in MPICH).
    pub fn remote_size(&self, comm: MPI_Comm) -> MpiResult<c_int> {
        Ok(self.get(comm)?.peer_group().size() as c_int)
    }

    /// MPI_Comm_remote_group (the group for an intracommunicator, as in
    /// MPICH).
    pub fn remote_group(&mut self, comm: MPI_Comm) -> MpiResult<MPI_Group> {
        let g = self.get(comm)?.peer_group().clone();
        Ok(self.groups.insert(g))
    }
}

/// MPI_Comm_compare of two intercommunicators, or of an intercommunicator
/// and an intracommunicator (MPI_UNEQUAL); `None` when both are intra.
pub fn compare(a: &Comm, b: &Comm) -> Option<c_int> {
    match (&a.inter, &b.inter) {
        (None, None) => None,
        (Some(x), Some(y)) => {
            let l = group::compare(&a.group, &b.group);
            let r = group::compare(&x.remote, &y.remote);
            Some(match (l, r) {
                (sys::MPI_IDENT, sys::MPI_IDENT) => sys::MPI_CONGRUENT,
                (sys::MPI_UNEQUAL, _) | (_, sys::MPI_UNEQUAL) => sys::MPI_UNEQUAL,
                _ => sys::MPI_SIMILAR,
            })
        }
        _ => Some(sys::MPI_UNEQUAL),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::fake::Fake;

    /// The fake runs one rank: nothing here builds an intercommunicator.
    impl InterOps for Fake {
        fn exchange(&mut self, _: u32, _: u32, _: u32, _: i32, _: &[u8], _: usize) -> Vec<u8> {
            unreachable!("the fake has no second process")
        }
        fn bcast(&mut self, ranks: &[u32], _: usize, _: u32, _: &mut [u8], _: usize) {
            assert_eq!(ranks.len(), 1);
        }
        fn allreduce_int(&mut self, ranks: &[u32], _: usize, _: u32, v: c_int, _: bool) -> c_int {
            assert_eq!(ranks.len(), 1);
            v
        }
        fn inter_allgather(&mut self, _: &InterComm, _: &[u8], _: &mut [u8]) {
            unreachable!("the fake has no second process")
        }
    }

    fn comm(ranks: &[u32], remote: Option<&[u32]>) -> Comm {
        let mut c = Comm::new(
            3,
            Arc::new(Group::new(ranks.to_vec())),
            0,
            sys::MPI_ERRORS_ARE_FATAL,
        );
        c.inter = remote.map(|r| {
            Arc::new(Inter {
                remote: Arc::new(Group::new(r.to_vec())),
                send_ctx: 4,
                is_low: true,
            })
        });
        c
    }

    #[test]
    fn comparisons() {
        let a = comm(&[0, 1], Some(&[2, 3]));
        assert_eq!(
            compare(&a, &comm(&[0, 1], Some(&[2, 3]))),
            Some(sys::MPI_CONGRUENT)
        );
        assert_eq!(
            compare(&a, &comm(&[1, 0], Some(&[2, 3]))),
            Some(sys::MPI_SIMILAR)
        );
        assert_eq!(
            compare(&a, &comm(&[0, 1], Some(&[3, 2]))),
            Some(sys::MPI_SIMILAR)
        );
        assert_eq!(
            compare(&a, &comm(&[0, 1], Some(&[2]))),
            Some(sys::MPI_UNEQUAL)
        );
        assert_eq!(compare(&a, &comm(&[0, 1], None)), Some(sys::MPI_UNEQUAL));
        assert_eq!(compare(&comm(&[0], None), &comm(&[0], None)), None);
        assert_eq!(intra_only(&a).unwrap_err().class, sys::MPI_ERR_COMM);
        assert!(intra_only(&comm(&[0], None)).is_ok());
        assert_eq!(
            inter_only(&comm(&[0], None)).unwrap_err().class,
            sys::MPI_ERR_COMM
        );
        let ic = InterComm::of(&a).unwrap();
        assert_eq!(
            (ic.local.as_slice(), ic.remote.as_slice()),
            (&[0, 1][..], &[2, 3][..])
        );
        assert_eq!(ic.local_ctx(), 3 | LOCAL_CTX_BIT);
        assert_eq!(ctx_of(&ctx_bytes(2047)), 2047);
    }

    #[test]
    fn point_to_point_names_the_remote_group() {
        let mut t = CommTable::new(1, 4);
        let h = t.insert(comm(&[1, 0], Some(&[3, 2])));
        assert_eq!(t.dest(h, 0).unwrap(), Some(3));
        assert_eq!(t.dest(h, 1).unwrap(), Some(2));
        let e = t.dest(h, 2).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_RANK);
        assert_eq!(e.msg, "invalid destination rank 2 (remote group size 2)");
        assert_eq!(t.remote_size(h).unwrap(), 2);
        assert_eq!(t.remote_size(sys::MPI_COMM_WORLD).unwrap(), 4);
        let c = t.get(h).unwrap();
        assert_eq!((c.send_ctx(), c.ctx), (4, 3));
    }
}
