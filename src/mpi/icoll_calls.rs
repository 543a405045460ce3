//! The MPI semantics of the nonblocking collective calls on top of
//! `crate::coll::nonblocking`: the user's send data packed when the call
//! starts (MPI forbids changing it before completion), the schedule run by
//! the engine as a compound request, the results unpacked into the user's
//! buffers when the schedule completes (inside the MPI call that completes
//! it). Arguments are checked before (see `coll_args`).
use crate::coll::nonblocking::{
    self as nbc, iallgather, iallgatherv, iallreduce, ialltoall, ialltoallv, ibarrier, ibcast,
    iexscan, igather, igatherv, ireduce, iscan, iscatter, iscatterv, NbcComm, OwnedOp, Schedule,
};
use crate::mpi::coll_args::{consecutive, whole, Block, CollComm, Packed, UserBuf};
use crate::mpi::coll_calls::Data;
use crate::mpi::error::MpiResult;
use crate::mpi::request::{Kind, Req, ReqState};
use crate::mpi::World;
use crate::p2p::Endpoint;
use crate::ranks::local::{PerThread, RankCell};
use crate::sys::{MPI_Comm, MPI_Request};
use std::cell::Cell;

/// A user buffer the schedule writes when it completes.
pub type OutBuf = Box<dyn UserBuf>;

/// The tag of the next nonblocking collective on `comm` (inside
/// [`with_tag`], that tag; inside [`validating`], recorded).
pub fn next_tag(w: &mut World<Endpoint>, comm: MPI_Comm) -> MpiResult<i32> {
    if let Some(t) = FIXED_TAG.get() {
        return Ok(t);
    }
    let c = w.comms.get_mut(comm)?;
    let seq = c.nbc_seq;
    c.nbc_seq = c.nbc_seq.wrapping_add(1);
    let tag = nbc::nbc_tag(seq);
    if VALIDATING.get() {
        INIT_TAG.set(Some(tag));
    }
    Ok(tag)
}

fn nbc_comm(cc: &CollComm, tag: i32) -> NbcComm<'_> {
    NbcComm {
        ranks: &cc.ranks,
        me: cc.me,
        ctx: cc.ctx,
        tag,
    }
}

// The flags below are per thread, and per rank in the many-ranks mode
// (`crate::ranks`); these are their thread-locals.
thread_local! {
    static VALIDATING_THREAD: Cell<bool> = const { Cell::new(false) };
    static INIT_TAG_THREAD: Cell<Option<i32>> = const { Cell::new(None) };
    static FIXED_TAG_THREAD: Cell<Option<i32>> = const { Cell::new(None) };
}

/// Set while a persistent collective's init checks its arguments
/// through the nonblocking call (see [`validating`]).
static VALIDATING: PerThread<bool> = PerThread::new(&VALIDATING_THREAD, || RankCell::new(false));
/// The tag the validated call took.
static INIT_TAG: PerThread<Option<i32>> = PerThread::new(&INIT_TAG_THREAD, || RankCell::new(None));
/// The tag a persistent collective's Start uses (see [`with_tag`]).
static FIXED_TAG: PerThread<Option<i32>> =
    PerThread::new(&FIXED_TAG_THREAD, || RankCell::new(None));

/// Run `f` (a nonblocking collective call of this thread) so that it checks
/// its arguments and builds its schedule but starts nothing: its request
/// comes back as MPI_REQUEST_NULL (MPI_X_init's checks). Also the tag the
/// call took: a persistent collective is matched by the order of the init
/// calls (MPI-4), so every Start of it uses that tag.
pub fn validating<R>(f: impl FnOnce() -> R) -> (R, Option<i32>) {
    VALIDATING.set(true);
    INIT_TAG.set(None);
    let r = f();
    VALIDATING.set(false);
    (r, INIT_TAG.replace(None))
}

/// Run `f` (a nonblocking collective call) with `tag` as its tag, not the
/// communicator's next one (a persistent collective's Start).
pub fn with_tag<R>(tag: i32, f: impl FnOnce() -> R) -> R {
    FIXED_TAG.set(Some(tag));
    let r = f();
    FIXED_TAG.set(None);
    r
}

/// Start `s` on `comm`'s behalf: the request handle (MPI_REQUEST_NULL,
/// nothing started, inside [`validating`]).
pub fn start(w: &mut World<Endpoint>, comm: MPI_Comm, s: Schedule) -> MpiResult<MPI_Request> {
    if VALIDATING.get() {
        return Ok(crate::sys::MPI_REQUEST_NULL);
    }
    let group = w.comms.get(comm)?.group.clone();
    let id = s.start(&mut w.ep);
    Ok(w.reqs.insert(Req {
        kind: Kind::Coll,
        comm,
        group,
        state: ReqState::Active(id),
        keep: None,
        staging: None,
        capacity: 0,
    }))
}

pub fn ibarrier(cc: &CollComm, tag: i32) -> Schedule {
    ibarrier::ibarrier(&nbc_comm(cc, tag))
}

/// MPI_Ibcast: the root's data is packed now; the others' buffers are
/// written when the broadcast completes.
pub fn ibcast(cc: &CollComm, tag: i32, mut buf: OutBuf, d: Data, root: usize) -> Schedule {
    let blocks = d.ty_blocks();
    let data = if cc.me == root {
        buf.pack(&blocks)
    } else {
        vec![0; d.ty.packed_size(d.count)]
    };
    let mut s = ibcast::ibcast(&nbc_comm(cc, tag), data, root);
    if cc.me != root {
        s.on_finish(Box::new(move |b| buf.unpack(&blocks, &b[0])));
    }
    s
}

/// My contribution: the send buffer's data (packed now), or with
/// MPI_IN_PLACE `blocks` of the receive buffer.
fn own(send: Option<(&dyn UserBuf, &[Block])>, recv: &dyn UserBuf, blocks: &[Block]) -> Vec<u8> {
    match send {
        Some((s, b)) => s.pack(b),
        None => recv.pack(blocks),
    }
}

/// MPI_Ireduce: `send` None is MPI_IN_PLACE at the root; `recv` is written
/// at the root only.
pub fn ireduce(
    cc: &CollComm,
    tag: i32,
    send: Option<&dyn UserBuf>,
    mut recv: OutBuf,
    d: Data,
    op: OwnedOp,
    root: usize,
) -> Schedule {
    let blocks = d.ty_blocks();
    let data = own(send.map(|s| (s, &blocks[..])), &*recv, &blocks);
    let mut s = ireduce::ireduce(&nbc_comm(cc, tag), data, d.ty.size().max(1), op, root);
    if cc.me == root && !blocks.is_empty() {
        s.on_finish(Box::new(move |b| recv.unpack(&blocks, &b[0])));
    }
    s
}

/// MPI_Iallreduce: `send` None is MPI_IN_PLACE.
pub fn iallreduce(
    cc: &CollComm,
    tag: i32,
    send: Option<&dyn UserBuf>,
    mut recv: OutBuf,
    d: Data,
    op: OwnedOp,
) -> Schedule {
    let blocks = d.ty_blocks();
    let data = own(send.map(|s| (s, &blocks[..])), &*recv, &blocks);
    let mut s = iallreduce::iallreduce(&nbc_comm(cc, tag), data, d.ty.size().max(1), op);
    s.on_finish(Box::new(move |b| recv.unpack(&blocks, &b[0])));
    s
}

/// MPI_Igather: at the root `recv` gets `rd.count` elements from each rank
/// in rank order; `send` None is MPI_IN_PLACE at the root.
pub fn igather(
    cc: &CollComm,
    tag: i32,
    send: Option<(&dyn UserBuf, Data)>,
    mut recv: OutBuf,
    rd: Data,
    root: usize,
) -> Schedule {
    let n = cc.size();
    let rblocks = if cc.me == root {
        consecutive(n, rd.count, rd.ty)
    } else {
        Vec::new()
    };
    let mine = match send {
        Some((s, d)) => s.pack(&whole(d.count, d.ty)),
        None => recv.pack(&rblocks[cc.me..cc.me + 1]),
    };
    let mut s = igather::igather(&nbc_comm(cc, tag), mine, root);
    if cc.me == root {
        // Buffer 0 holds the blocks in relative rank order.
        let rel: Vec<Block> = (0..n).map(|i| rblocks[(i + root) % n].clone()).collect();
        s.on_finish(Box::new(move |b| recv.unpack(&rel, &b[0])));
    }
    s
}

/// MPI_Iscatter: the root's `send` holds `sd.count` elements for each rank
/// (packed now); `recv` None is MPI_IN_PLACE at the root.
pub fn iscatter(
    cc: &CollComm,
    tag: i32,
    send: Option<(&dyn UserBuf, Data)>,
    recv: Option<(OutBuf, Data)>,
    root: usize,
) -> Schedule {
    let n = cc.size();
    let (rotated, block) = match &send {
        Some((s, d)) if cc.me == root => {
            let sb = consecutive(n, d.count, d.ty);
            let rel: Vec<Block> = (0..n).map(|i| sb[(i + root) % n].clone()).collect();
            (s.pack(&rel), d.ty.packed_size(d.count))
        }
        _ => (
            Vec::new(),
            recv.as_ref().map_or(0, |r| r.1.ty.packed_size(r.1.count)),
        ),
    };
    let mut s = iscatter::iscatter(&nbc_comm(cc, tag), rotated, block, root);
    if let Some((mut r, d)) = recv {
        let blocks = d.ty_blocks();
        s.on_finish(Box::new(move |b| r.unpack(&blocks, &b[0][..block])));
    }
    s
}

/// MPI_Iallgather: `recv` gets `rd.count` elements from each rank in rank
/// order; `send` None is MPI_IN_PLACE (my block is already in `recv`).
pub fn iallgather(
    cc: &CollComm,
    tag: i32,
    send: Option<(&dyn UserBuf, Data)>,
    mut recv: OutBuf,
    rd: Data,
) -> Schedule {
    let n = cc.size();
    let rblocks = consecutive(n, rd.count, rd.ty);
    let mine = match send {
        Some((s, d)) => s.pack(&whole(d.count, d.ty)),
        None => recv.pack(&rblocks[cc.me..cc.me + 1]),
    };
    let b = rd.ty.packed_size(rd.count);
    let mut all = vec![0; n * b];
    crate::coll::put(&mut all, cc.me * b, &mine);
    let mut s = iallgather::iallgather(&nbc_comm(cc, tag), all);
    s.on_finish(Box::new(move |bufs| recv.unpack(&rblocks, &bufs[0])));
    s
}

/// MPI_Ialltoall: block j of `send` goes to rank j, block j of `recv`
/// comes from rank j; `send` None is MPI_IN_PLACE.
pub fn ialltoall(
    cc: &CollComm,
    tag: i32,
    send: Option<(&dyn UserBuf, Data)>,
    mut recv: OutBuf,
    rd: Data,
) -> Schedule {
    let n = cc.size();
    let rblocks = consecutive(n, rd.count, rd.ty);
    let (out, all) = match send {
        None => (None, recv.pack(&rblocks)),
        Some((s, sd)) => (
            Some(s.pack(&consecutive(n, sd.count, sd.ty))),
            vec![0; n * rd.ty.packed_size(rd.count)],
        ),
    };
    let mut s = ialltoall::ialltoall(&nbc_comm(cc, tag), out, all);
    s.on_finish(Box::new(move |bufs| recv.unpack(&rblocks, &bufs[1])));
    s
}

/// MPI_Iscan: `send` None is MPI_IN_PLACE.
pub fn iscan(
    cc: &CollComm,
    tag: i32,
    send: Option<&dyn UserBuf>,
    mut recv: OutBuf,
    d: Data,
    op: OwnedOp,
) -> Schedule {
    let blocks = d.ty_blocks();
    let data = own(send.map(|s| (s, &blocks[..])), &*recv, &blocks);
    let mut s = iscan::iscan(&nbc_comm(cc, tag), data, op);
    s.on_finish(Box::new(move |b| recv.unpack(&blocks, &b[0])));
    s
}

/// MPI_Iexscan: `send` None is MPI_IN_PLACE; rank 0's `recv` is left as
/// it is.
pub fn iexscan(
    cc: &CollComm,
    tag: i32,
    send: Option<&dyn UserBuf>,
    mut recv: OutBuf,
    d: Data,
    op: OwnedOp,
) -> Schedule {
    let blocks = d.ty_blocks();
    let data = own(send.map(|s| (s, &blocks[..])), &*recv, &blocks);
    let mut s = iexscan::iexscan(&nbc_comm(cc, tag), data, op);
    if cc.me != 0 && d.count > 0 {
        s.on_finish(Box::new(move |b| recv.unpack(&blocks, &b[0])));
    }
    s
}

/// MPI_Igatherv: at the root, rank i's data lands in `rblocks[i]`.
pub fn igatherv(
    cc: &CollComm,
    tag: i32,
    send: Option<(&dyn UserBuf, Data)>,
    mut recv: OutBuf,
    rblocks: Vec<Block>,
    root: usize,
) -> Schedule {
    let mine = match send {
        Some((s, d)) => s.pack(&whole(d.count, d.ty)),
        None => recv.pack(&rblocks[cc.me..cc.me + 1]),
    };
    let c = nbc_comm(cc, tag);
    if cc.me != root {
        let empty = Packed::of(&[]);
        return igatherv::igatherv(&c, mine, empty.layout(), root);
    }
    let packed = Packed::of(&rblocks);
    let mut all = vec![0; packed.total()];
    crate::coll::put(&mut all, packed.displs[cc.me], &mine);
    let mut s = igatherv::igatherv(&c, all, packed.layout(), root);
    s.on_finish(Box::new(move |b| recv.unpack(&rblocks, &b[0])));
    s
}

/// MPI_Iscatterv: rank i gets the root's `sblocks[i]` (packed now).
pub fn iscatterv(
    cc: &CollComm,
    tag: i32,
    send: Option<(&dyn UserBuf, &[Block])>,
    recv: Option<(OutBuf, Data)>,
    root: usize,
) -> Schedule {
    let c = nbc_comm(cc, tag);
    let mine = recv.as_ref().map_or(0, |r| r.1.ty.packed_size(r.1.count));
    let (mut s, my_off) = match send {
        Some((sb, sblocks)) if cc.me == root => {
            let p = Packed::of(sblocks);
            let off = p.displs[cc.me];
            (
                iscatterv::iscatterv(&c, sb.pack(sblocks), p.layout(), mine, root),
                off,
            )
        }
        _ => {
            let empty = Packed::of(&[]);
            (
                iscatterv::iscatterv(&c, Vec::new(), empty.layout(), mine, root),
                0,
            )
        }
    };
    if let Some((mut r, d)) = recv {
        let blocks = d.ty_blocks();
        s.on_finish(Box::new(move |b| {
            r.unpack(&blocks, &b[0][my_off..my_off + mine])
        }));
    }
    s
}

/// MPI_Iallgatherv: rank i's data lands in `rblocks[i]`.
pub fn iallgatherv(
    cc: &CollComm,
    tag: i32,
    send: Option<(&dyn UserBuf, Data)>,
    mut recv: OutBuf,
    rblocks: Vec<Block>,
) -> Schedule {
    let mine = match send {
        Some((s, d)) => s.pack(&whole(d.count, d.ty)),
        None => recv.pack(&rblocks[cc.me..cc.me + 1]),
    };
    let packed = Packed::of(&rblocks);
    let mut all = vec![0; packed.total()];
    crate::coll::put(&mut all, packed.displs[cc.me], &mine);
    let elem = rblocks.first().map_or(1, |b| b.ty.size());
    let mut s = iallgatherv::iallgatherv(&nbc_comm(cc, tag), all, packed.layout(), elem);
    s.on_finish(Box::new(move |b| recv.unpack(&rblocks, &b[0])));
    s
}

/// MPI_Ialltoallv / MPI_Ialltoallw: `sblocks[j]` go to rank j, `rblocks[j]`
/// come from rank j; `send` None is MPI_IN_PLACE.
pub fn ialltoallv(
    cc: &CollComm,
    tag: i32,
    name: &'static str,
    send: Option<(&dyn UserBuf, &[Block])>,
    mut recv: OutBuf,
    rblocks: Vec<Block>,
) -> Schedule {
    let rp = Packed::of(&rblocks);
    let c = nbc_comm(cc, tag);
    let mut s = match send {
        None => {
            let all = recv.pack(&rblocks);
            ialltoallv::ialltoallv(&c, name, None, all, rp.layout())
        }
        Some((sb, sblocks)) => {
            let sp = Packed::of(sblocks);
            let out = sb.pack(sblocks);
            let all = vec![0; rp.total()];
            ialltoallv::ialltoallv(&c, name, Some((out, sp.layout())), all, rp.layout())
        }
    };
    s.on_finish(Box::new(move |b| recv.unpack(&rblocks, &b[1])));
    s
}

/// MPI_Ireduce_scatter / MPI_Ireduce_scatter_block: `counts[i]` elements of
/// the result go to rank i; with MPI_IN_PLACE the input is the whole `recv`
/// buffer.
#[allow(clippy::too_many_arguments)]
pub fn ireduce_scatter(
    cc: &CollComm,
    tag: i32,
    name: &'static str,
    send: Option<&dyn UserBuf>,
    mut recv: OutBuf,
    counts: &[usize],
    ty: &std::sync::Arc<crate::mpi::datatype::Datatype>,
    op: OwnedOp,
) -> Schedule {
    let total: usize = counts.iter().sum();
    let in_blocks = whole(total, ty);
    let input = own(send.map(|s| (s, &in_blocks[..])), &*recv, &in_blocks);
    let bytes: Vec<usize> = counts.iter().map(|&c| ty.packed_size(c)).collect();
    // MPICH selects MPI_Ireduce_scatter_block's schedule by its element
    // count (see `ireduce_scatter_sized`)
    let select = if name == "MPI_Ireduce_scatter_block" {
        total
    } else {
        bytes.iter().sum()
    };
    let mut s = nbc::ireduce_scatter::ireduce_scatter_sized(
        &nbc_comm(cc, tag),
        name,
        input,
        &bytes,
        op,
        select,
    );
    let out = whole(counts[cc.me], ty);
    if bytes.iter().sum::<usize>() > 0 {
        s.on_finish(Box::new(move |b| recv.unpack(&out, &b[2])));
    }
    s
}
