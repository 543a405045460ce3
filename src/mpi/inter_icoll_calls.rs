//! The MPI semantics of the nonblocking collective calls on an
//! intercommunicator, on top of `coll::nonblocking::inter`: send data
//! packed when the call starts, results unpacked into the user's buffers
//! when the schedule completes (as `icoll_calls` does for
//! intracommunicators). Arguments are checked by `abi::inter_icoll`.
use crate::coll::inter::Root;
use crate::coll::nonblocking::inter::{self as nb, InterNbc};
use crate::coll::nonblocking::{OwnedOp, Schedule};
use crate::mpi::coll_args::{consecutive, Block, Packed, UserBuf};
use crate::mpi::coll_calls::Data;
use crate::mpi::icoll_calls::OutBuf;
use crate::mpi::intercomm::InterComm;

fn view(ic: &InterComm, tag: i32) -> InterNbc<'_> {
    InterNbc {
        local: &ic.local,
        remote: &ic.remote,
        me: ic.me,
        ctx: ic.ctx,
        send_ctx: ic.send_ctx,
        is_low: ic.is_low,
        tag,
    }
}

pub fn ibarrier(ic: &InterComm, tag: i32) -> Schedule {
    nb::ibarrier(&view(ic, tag))
}

/// MPI_Ibcast: the root's data packed now, the other group's buffers
/// written at completion.
pub fn ibcast(ic: &InterComm, tag: i32, mut buf: OutBuf, d: Data, root: Root) -> Schedule {
    let blocks = d.ty_blocks();
    let data = match root {
        Root::Me => buf.pack(&blocks),
        Root::Null => Vec::new(),
        Root::Remote(_) => vec![0; d.ty.packed_size(d.count)],
    };
    let mut s = nb::ibcast(&view(ic, tag), data, root);
    if let Root::Remote(_) = root {
        s.on_finish(Box::new(move |b| buf.unpack(&blocks, &b[0])));
    }
    s
}

/// MPI_Ireduce: the other group's `send` data reduced into the root's
/// `recv`.
pub fn ireduce(
    ic: &InterComm,
    tag: i32,
    send: &dyn UserBuf,
    mut recv: OutBuf,
    d: Data,
    op: OwnedOp,
    root: Root,
) -> Schedule {
    let blocks = d.ty_blocks();
    let data = match root {
        Root::Remote(_) => send.pack(&blocks),
        Root::Me => vec![0; d.ty.packed_size(d.count)],
        Root::Null => Vec::new(),
    };
    let mut s = nb::ireduce(&view(ic, tag), data, d.ty.size().max(1), op, root);
    if root == Root::Me {
        s.on_finish(Box::new(move |b| recv.unpack(&blocks, &b[0])));
    }
    s
}

/// MPI_Iallreduce: `recv` gets the remote group's reduction.
pub fn iallreduce(
    ic: &InterComm,
    tag: i32,
    send: &dyn UserBuf,
    mut recv: OutBuf,
    d: Data,
    op: OwnedOp,
) -> Schedule {
    let blocks = d.ty_blocks();
    let data = send.pack(&blocks);
    let mut s = nb::iallreduce(&view(ic, tag), data, d.ty.size().max(1), op);
    s.on_finish(Box::new(move |b| recv.unpack(&blocks, &b[1])));
    s
}

/// MPI_Ireduce_scatter(_block): `counts[i]` elements of the remote group's
/// reduction to local rank i.
pub fn ireduce_scatter(
    ic: &InterComm,
    tag: i32,
    send: &dyn UserBuf,
    mut recv: OutBuf,
    counts: &[usize],
    d: Data,
    op: OwnedOp,
) -> Schedule {
    let total: usize = counts.iter().sum();
    let data = send.pack(
        &Data {
            count: total,
            ty: d.ty,
        }
        .ty_blocks(),
    );
    let bytes: Vec<usize> = counts.iter().map(|&c| d.ty.packed_size(c)).collect();
    let mine = Data {
        count: counts[ic.me],
        ty: d.ty,
    }
    .ty_blocks();
    let mut s = nb::ireduce_scatter(&view(ic, tag), data, &bytes, d.ty.size().max(1), op);
    s.on_finish(Box::new(move |b| recv.unpack(&mine, &b[2])));
    s
}

/// MPI_Igather: at the root `recv` gets `rd.count` elements from each
/// remote rank.
pub fn igather(
    ic: &InterComm,
    tag: i32,
    send: Option<(&dyn UserBuf, Data)>,
    recv: Option<(OutBuf, Data)>,
    root: Root,
    short: bool,
) -> Schedule {
    let mine = send.map_or(Vec::new(), |(s, d)| s.pack(&d.ty_blocks()));
    match recv {
        Some((mut r, rd)) if root == Root::Me => {
            let n = ic.remote.len();
            let blocks = consecutive(n, rd.count, rd.ty);
            let total = n * rd.ty.packed_size(rd.count);
            let mut s = nb::igather(&view(ic, tag), mine, total, root, short);
            s.on_finish(Box::new(move |b| r.unpack(&blocks, &b[0])));
            s
        }
        _ => nb::igather(&view(ic, tag), mine, 0, root, short),
    }
}

/// MPI_Igatherv: at the root remote rank i's data lands in `rblocks[i]`.
pub fn igatherv(
    ic: &InterComm,
    tag: i32,
    send: Option<(&dyn UserBuf, Data)>,
    recv: Option<(OutBuf, Vec<Block>)>,
    root: Root,
) -> Schedule {
    let mine = send.map_or(Vec::new(), |(s, d)| s.pack(&d.ty_blocks()));
    match recv {
        Some((mut r, rblocks)) if root == Root::Me => {
            let p = Packed::of(&rblocks);
            let mut s = nb::igatherv(&view(ic, tag), mine, p.total(), p.layout(), root);
            s.on_finish(Box::new(move |b| r.unpack(&rblocks, &b[0])));
            s
        }
        _ => {
            let p = Packed {
                counts: Vec::new(),
                displs: Vec::new(),
            };
            nb::igatherv(&view(ic, tag), mine, 0, p.layout(), root)
        }
    }
}

/// MPI_Iscatter: the root's `send` holds `sd.count` elements per remote
/// rank.
pub fn iscatter(
    ic: &InterComm,
    tag: i32,
    send: Option<(&dyn UserBuf, Data)>,
    recv: Option<(OutBuf, Data)>,
    root: Root,
    short: bool,
) -> Schedule {
    let all = match send {
        Some((s, d)) if root == Root::Me => s.pack(&consecutive(ic.remote.len(), d.count, d.ty)),
        _ => Vec::new(),
    };
    match recv {
        Some((mut r, rd)) if matches!(root, Root::Remote(_)) => {
            let blocks = rd.ty_blocks();
            let block = rd.ty.packed_size(rd.count);
            let mut s = nb::iscatter(&view(ic, tag), all, block, root, short);
            s.on_finish(Box::new(move |b| r.unpack(&blocks, &b[0][..block])));
            s
        }
        _ => nb::iscatter(&view(ic, tag), all, 0, root, short),
    }
}

/// MPI_Iscatterv: remote rank i gets the root's `sblocks[i]`.
pub fn iscatterv(
    ic: &InterComm,
    tag: i32,
    send: Option<(&dyn UserBuf, &[Block])>,
    recv: Option<(OutBuf, Data)>,
    root: Root,
) -> Schedule {
    let (all, p) = match send {
        Some((s, b)) if root == Root::Me => (s.pack(b), Packed::of(b)),
        _ => (
            Vec::new(),
            Packed {
                counts: Vec::new(),
                displs: Vec::new(),
            },
        ),
    };
    match recv {
        Some((mut r, rd)) if matches!(root, Root::Remote(_)) => {
            let blocks = rd.ty_blocks();
            let mine = rd.ty.packed_size(rd.count);
            let mut s = nb::iscatterv(&view(ic, tag), all, p.layout(), mine, root);
            s.on_finish(Box::new(move |b| r.unpack(&blocks, &b[0])));
            s
        }
        _ => nb::iscatterv(&view(ic, tag), all, p.layout(), 0, root),
    }
}

/// MPI_Iallgather: `recv` gets `rd.count` elements from each remote rank.
pub fn iallgather(
    ic: &InterComm,
    tag: i32,
    send: (&dyn UserBuf, Data),
    mut recv: OutBuf,
    rd: Data,
) -> Schedule {
    let mine = send.0.pack(&send.1.ty_blocks());
    let n = ic.remote.len();
    let blocks = consecutive(n, rd.count, rd.ty);
    let mut s = nb::iallgather(&view(ic, tag), mine, n * rd.ty.packed_size(rd.count));
    s.on_finish(Box::new(move |b| recv.unpack(&blocks, &b[1])));
    s
}

/// MPI_Iallgatherv: remote rank i's data lands in `rblocks[i]`.
pub fn iallgatherv(
    ic: &InterComm,
    tag: i32,
    send: (&dyn UserBuf, Data),
    mut recv: OutBuf,
    rblocks: Vec<Block>,
) -> Schedule {
    let mine = send.0.pack(&send.1.ty_blocks());
    let p = Packed::of(&rblocks);
    let mut s = nb::iallgatherv(&view(ic, tag), mine, p.total(), p.layout());
    s.on_finish(Box::new(move |b| recv.unpack(&rblocks, &b[1])));
    s
}

/// MPI_Ialltoall(v,w): `sblocks[j]` go to remote rank j, `rblocks[j]` come
/// from it.
pub fn ialltoallv(
    ic: &InterComm,
    tag: i32,
    send: (&dyn UserBuf, &[Block]),
    mut recv: OutBuf,
    rblocks: Vec<Block>,
) -> Schedule {
    let out = send.0.pack(send.1);
    let (sp, rp) = (Packed::of(send.1), Packed::of(&rblocks));
    let mut s = nb::ialltoallv(&view(ic, tag), out, sp.layout(), rp.layout(), rp.total());
    s.on_finish(Box::new(move |b| recv.unpack(&rblocks, &b[1])));
    s
}
