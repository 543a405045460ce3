//! The MPI semantics of the collective calls on top of `crate::coll`: user
//! buffers packed into the bytes the algorithms work on (so any datatype
//! works), MPI_IN_PLACE turned into the algorithms' in-place forms, results
//! unpacked into the user's buffers. Arguments are checked before (see
//! `coll_args`); a send buffer of `None` is MPI_IN_PLACE.
//!
//! Reductions take a ready `coll::Op` (its `apply` may call user code, which
//! only `crate::abi` can do); `elem` for the algorithms is the packed size of
//! one element, so a buffer is only split between whole elements.
use crate::coll::select::{self, AlltoallvAlgo, Coll};
use crate::coll::{self, Op};
use crate::mpi::coll_args::{consecutive, whole, Block, CollComm, Packed, UserBuf};
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::p2p::{Core, Link};
use crate::sys;
use std::sync::Arc;

/// `count` elements of `ty`.
#[derive(Clone, Copy)]
pub struct Data<'a> {
    pub count: usize,
    pub ty: &'a Arc<Datatype>,
}

impl Data<'_> {
    fn bytes(&self) -> usize {
        self.ty.packed_size(self.count)
    }
    fn blocks(&self) -> Vec<Block> {
        whole(self.count, self.ty)
    }
    /// The blocks of `count` consecutive elements.
    pub fn ty_blocks(&self) -> Vec<Block> {
        self.blocks()
    }
}

fn comm<'a, L: Link>(core: &'a mut Core<L>, cc: &'a CollComm) -> coll::Comm<'a, L> {
    coll::Comm {
        core,
        ranks: &cc.ranks,
        me: cc.me,
        ctx: cc.ctx,
    }
}

/// My contribution: the send buffer, or with MPI_IN_PLACE `blocks` of the
/// receive buffer.
fn own(send: Option<(&dyn UserBuf, Data)>, recv: &dyn UserBuf, blocks: &[Block]) -> Vec<u8> {
    match send {
        Some((s, d)) => s.pack(&d.blocks()),
        None => recv.pack(blocks),
    }
}

pub fn barrier<L: Link>(core: &mut Core<L>, cc: &CollComm) {
    coll::barrier::barrier(&mut comm(core, cc));
}

pub fn bcast<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    buf: &mut dyn UserBuf,
    d: Data,
    root: usize,
) {
    let blocks = d.blocks();
    let mut data = if cc.me == root {
        buf.pack(&blocks)
    } else {
        vec![0; d.bytes()]
    };
    coll::bcast::bcast(&mut comm(core, cc), &mut data, root);
    if cc.me != root {
        buf.unpack(&blocks, &data);
    }
}

/// MPI_Reduce: `send` None is MPI_IN_PLACE at the root; `recv` matters at
/// the root only.
pub fn reduce<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<&dyn UserBuf>,
    recv: &mut dyn UserBuf,
    d: Data,
    root: usize,
    op: &mut Op,
) {
    if d.bytes() == 0 {
        return;
    }
    let blocks = d.blocks();
    let mut data = own(send.map(|s| (s, d)), recv, &blocks);
    coll::reduce::reduce(&mut comm(core, cc), &mut data, d.ty.size(), op, root);
    if cc.me == root {
        recv.unpack(&blocks, &data);
    }
}

pub fn allreduce<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<&dyn UserBuf>,
    recv: &mut dyn UserBuf,
    d: Data,
    op: &mut Op,
) {
    if d.bytes() == 0 {
        return;
    }
    let blocks = d.blocks();
    let mut data = own(send.map(|s| (s, d)), recv, &blocks);
    coll::allreduce::allreduce(&mut comm(core, cc), &mut data, d.ty.size(), op);
    recv.unpack(&blocks, &data);
}

/// MPI_Scan: the inclusive prefix reduction over ranks 0..=me.
pub fn scan<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<&dyn UserBuf>,
    recv: &mut dyn UserBuf,
    d: Data,
    op: &mut Op,
) {
    if d.bytes() == 0 {
        return;
    }
    let blocks = d.blocks();
    let mut data = own(send.map(|s| (s, d)), recv, &blocks);
    coll::scan::scan(&mut comm(core, cc), &mut data, d.ty.size(), op);
    recv.unpack(&blocks, &data);
}

/// MPI_Exscan: the reduction over ranks 0..me; rank 0's `recv` is left as
/// it is (the standard leaves it undefined).
pub fn exscan<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<&dyn UserBuf>,
    recv: &mut dyn UserBuf,
    d: Data,
    op: &mut Op,
) {
    if d.bytes() == 0 {
        return;
    }
    let blocks = d.blocks();
    let input = own(send.map(|s| (s, d)), recv, &blocks);
    let mut out = vec![0; input.len()];
    coll::exscan::exscan(&mut comm(core, cc), &input, &mut out, d.ty.size(), op);
    if cc.me != 0 {
        recv.unpack(&blocks, &out);
    }
}

/// MPI_Reduce_scatter: `counts[i]` elements of the result go to rank i;
/// with MPI_IN_PLACE the input is the whole `recv` buffer.
pub fn reduce_scatter<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<&dyn UserBuf>,
    recv: &mut dyn UserBuf,
    counts: &[usize],
    ty: &Arc<Datatype>,
    op: &mut Op,
) {
    let total: usize = counts.iter().sum();
    let input_d = Data { count: total, ty };
    if input_d.bytes() == 0 {
        return;
    }
    let input = own(
        send.map(|s| (s, Data { count: total, ty })),
        recv,
        &input_d.blocks(),
    );
    let bytes: Vec<usize> = counts.iter().map(|&c| ty.packed_size(c)).collect();
    let mut out = vec![0; bytes[cc.me]];
    coll::reduce_scatter::reduce_scatter(
        &mut comm(core, cc),
        &input,
        &mut out,
        &bytes,
        ty.size(),
        op,
    );
    recv.unpack(&whole(counts[cc.me], ty), &out);
}

/// MPI_Reduce_scatter_block: `count` elements of the result per rank.
pub fn reduce_scatter_block<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<&dyn UserBuf>,
    recv: &mut dyn UserBuf,
    d: Data,
    op: &mut Op,
) {
    let n = cc.size();
    if d.bytes() == 0 {
        return;
    }
    let input_blocks = whole(d.count * n, d.ty);
    let input = own(
        send.map(|s| {
            (
                s,
                Data {
                    count: d.count * n,
                    ty: d.ty,
                },
            )
        }),
        recv,
        &input_blocks,
    );
    let mut out = vec![0; d.bytes()];
    coll::reduce_scatter_block::reduce_scatter_block(
        &mut comm(core, cc),
        &input,
        &mut out,
        d.ty.size(),
        op,
    );
    recv.unpack(&d.blocks(), &out);
}

/// MPI_Gather: at the root `recv` gets `rd.count` elements from each rank,
/// in rank order; `send` None is MPI_IN_PLACE at the root. The caller has
/// checked that the root's own block has the receive block's size.
pub fn gather<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<(&dyn UserBuf, Data)>,
    recv: &mut dyn UserBuf,
    rd: Data,
    root: usize,
) {
    let n = cc.size();
    let rblocks = if cc.me == root {
        consecutive(n, rd.count, rd.ty)
    } else {
        Vec::new()
    };
    let mine = own(send, recv, rblocks.get(cc.me..cc.me + 1).unwrap_or(&[]));
    let mut all = if cc.me == root {
        vec![0; n * rd.bytes()]
    } else {
        Vec::new()
    };
    coll::gather::gather(&mut comm(core, cc), &mine, &mut all, root);
    if cc.me == root {
        recv.unpack(&rblocks, &all);
    }
}

/// MPI_Gatherv: at the root, rank i's data lands in `rblocks[i]`.
pub fn gatherv<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<(&dyn UserBuf, Data)>,
    recv: &mut dyn UserBuf,
    rblocks: &[Block],
    root: usize,
) {
    let mine = own(send, recv, rblocks.get(cc.me..cc.me + 1).unwrap_or(&[]));
    let packed = Packed::of(rblocks);
    let mut all = vec![0; packed.total()];
    coll::gatherv::gatherv(&mut comm(core, cc), &mine, &mut all, packed.layout(), root);
    if cc.me == root {
        recv.unpack(rblocks, &all);
    }
}

/// MPI_Scatter: the root's `send` holds `sd.count` elements for each rank;
/// `recv` None is MPI_IN_PLACE at the root.
pub fn scatter<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<(&dyn UserBuf, Data)>,
    recv: Option<(&mut dyn UserBuf, Data)>,
    root: usize,
) {
    let n = cc.size();
    let (all, block) = match &send {
        Some((s, d)) if cc.me == root => (s.pack(&consecutive(n, d.count, d.ty)), d.bytes()),
        _ => (Vec::new(), recv.as_ref().map_or(0, |r| r.1.bytes())),
    };
    let mut mine = vec![0; block];
    coll::scatter::scatter(&mut comm(core, cc), &all, &mut mine, root);
    if let Some((r, d)) = recv {
        r.unpack(&d.blocks(), &mine);
    }
}

/// MPI_Scatterv: rank i gets the root's `sblocks[i]`.
pub fn scatterv<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<(&dyn UserBuf, &[Block])>,
    recv: Option<(&mut dyn UserBuf, Data)>,
    root: usize,
) {
    let (all, packed, block) = match send {
        Some((s, sblocks)) if cc.me == root => {
            let p = Packed::of(sblocks);
            let b = p.counts[cc.me];
            (s.pack(sblocks), p, b)
        }
        _ => (
            Vec::new(),
            Packed {
                counts: Vec::new(),
                displs: Vec::new(),
            },
            recv.as_ref().map_or(0, |r| r.1.bytes()),
        ),
    };
    let mut mine = vec![0; block];
    coll::scatterv::scatterv(&mut comm(core, cc), &all, packed.layout(), &mut mine, root);
    if let Some((r, d)) = recv {
        r.unpack(&d.blocks(), &mine);
    }
}

/// MPI_Allgather: `recv` gets `rd.count` elements from each rank in rank
/// order; `send` None is MPI_IN_PLACE (my block is already in `recv`).
pub fn allgather<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<(&dyn UserBuf, Data)>,
    recv: &mut dyn UserBuf,
    rd: Data,
) {
    let n = cc.size();
    let rblocks = consecutive(n, rd.count, rd.ty);
    let mine = own(send, recv, &rblocks[cc.me..cc.me + 1]);
    let b = rd.bytes();
    let mut all = vec![0; n * b];
    coll::put(&mut all, cc.me * b, &mine);
    coll::allgather::allgather(&mut comm(core, cc), &mut all);
    recv.unpack(&rblocks, &all);
}

/// MPI_Allgatherv: rank i's data lands in `rblocks[i]`.
pub fn allgatherv<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<(&dyn UserBuf, Data)>,
    recv: &mut dyn UserBuf,
    rblocks: &[Block],
    elem: usize,
) {
    let mine = own(send, recv, &rblocks[cc.me..cc.me + 1]);
    let packed = Packed::of(rblocks);
    let mut all = vec![0; packed.total()];
    coll::put(&mut all, packed.displs[cc.me], &mine);
    coll::allgatherv::allgatherv(&mut comm(core, cc), &mut all, packed.layout(), elem.max(1));
    recv.unpack(rblocks, &all);
}

/// MPI_Alltoall: block j of `send` goes to rank j, block j of `recv` comes
/// from rank j; `send` None is MPI_IN_PLACE.
pub fn alltoall<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<(&dyn UserBuf, Data)>,
    recv: &mut dyn UserBuf,
    rd: Data,
) {
    let n = cc.size();
    let rblocks = consecutive(n, rd.count, rd.ty);
    match send {
        None => {
            let mut all = recv.pack(&rblocks);
            coll::alltoall::alltoall(&mut comm(core, cc), None, &mut all);
            recv.unpack(&rblocks, &all);
        }
        Some((s, sd)) => {
            let out = s.pack(&consecutive(n, sd.count, sd.ty));
            let mut all = vec![0; n * rd.bytes()];
            coll::alltoall::alltoall(&mut comm(core, cc), Some(&out), &mut all);
            recv.unpack(&rblocks, &all);
        }
    }
}

/// MPI_Alltoallv / MPI_Alltoallw: `sblocks[j]` go to rank j, `rblocks[j]`
/// come from rank j; `send` None is MPI_IN_PLACE.
pub fn alltoallv<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    send: Option<(&dyn UserBuf, &[Block])>,
    recv: &mut dyn UserBuf,
    rblocks: &[Block],
) {
    let rp = Packed::of(rblocks);
    match send {
        None => {
            let mut all = recv.pack(rblocks);
            coll::alltoallv::alltoallv(&mut comm(core, cc), None, &mut all, rp.layout());
            recv.unpack(rblocks, &all);
        }
        Some((s, sblocks)) => {
            let sp = Packed::of(sblocks);
            let out = s.pack(sblocks);
            let mut all = vec![0; rp.total()];
            coll::alltoallv::alltoallv(
                &mut comm(core, cc),
                Some((&out, sp.layout())),
                &mut all,
                rp.layout(),
            );
            recv.unpack(rblocks, &all);
        }
    }
}

/// An Alltoallv / Alltoallw with a send buffer forced (VACED_COLL_ALLTOALLV
/// or `[collectives]`) to `pairwise_sendrecv_replace` runs MPICH's in-place
/// algorithm on a copy of the send data, which exchanges each pair's blocks
/// in place: it needs as many bytes for each rank as from it (MPI_ERR_ARG
/// otherwise, naming the forcing).
pub fn check_alltoallv_forcing<L: Link>(
    core: &Core<L>,
    sblocks: &[Block],
    rblocks: &[Block],
) -> MpiResult<()> {
    let forced = select::forced::<AlltoallvAlgo>(core.model(), Coll::Alltoallv);
    if forced != Some(AlltoallvAlgo::PairwiseSendrecvReplace) {
        return Ok(());
    }
    for (j, (s, r)) in sblocks.iter().zip(rblocks).enumerate() {
        if s.bytes() != r.bytes() {
            return fail(
                sys::MPI_ERR_ARG,
                format!(
                    "the forced algorithm pairwise_sendrecv_replace ({}) needs equal send and \
                     receive sizes per rank, but rank {j} gets {} bytes and sends {}",
                    Coll::Alltoallv.env_var(),
                    s.bytes(),
                    r.bytes()
                ),
            );
        }
    }
    Ok(())
}

/// MPI_Reduce_local: `inout = in (op) inout`, as application computation.
pub fn reduce_local<L: Link>(
    core: &mut Core<L>,
    input: &dyn UserBuf,
    inout: &mut dyn UserBuf,
    d: Data,
    op: &mut Op,
) {
    if d.bytes() == 0 {
        return;
    }
    let blocks = d.blocks();
    let a = input.pack(&blocks);
    let mut b = inout.pack(&blocks);
    let f = &mut *op.apply;
    core.as_computation(|| f(&a, &mut b));
    inout.unpack(&blocks, &b);
}

#[cfg(test)]
#[path = "coll_calls_tests.rs"]
mod tests;
