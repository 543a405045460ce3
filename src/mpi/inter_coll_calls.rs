//! The MPI semantics of the collective calls on an intercommunicator, on
//! top of `crate::coll::inter`: user buffers packed into the bytes the
//! algorithms work on and results unpacked, as `coll_calls` does for
//! intracommunicators. Arguments are checked before (`abi::inter_coll`);
//! MPI_IN_PLACE is not allowed on intercommunicators.
use crate::coll::inter::{rooted, symmetric, Root};
use crate::coll::Op;
use crate::mpi::coll_args::{consecutive, Block, Packed, UserBuf};
use crate::mpi::coll_calls::Data;
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::intercomm::InterComm;
use crate::p2p::{Core, Link};
use crate::sys;
use std::os::raw::c_int;
use std::sync::Arc;

/// The root argument of a rooted intercommunicator collective: MPI_ROOT,
/// MPI_PROC_NULL or a rank of the remote group (MPI_ERR_ROOT otherwise).
pub fn root(root: c_int, ic: &InterComm) -> MpiResult<Root> {
    match root {
        sys::MPI_ROOT => Ok(Root::Me),
        sys::MPI_PROC_NULL => Ok(Root::Null),
        r => match usize::try_from(r) {
            Ok(r) if r < ic.remote.len() => Ok(Root::Remote(r)),
            _ => fail(
                sys::MPI_ERR_ROOT,
                format!(
                    "invalid root {root} on an intercommunicator (MPI_ROOT, MPI_PROC_NULL or \
                     a rank of the remote group of size {})",
                    ic.remote.len()
                ),
            ),
        },
    }
}

pub fn barrier<L: Link>(core: &mut Core<L>, ic: &InterComm) {
    symmetric::barrier(&mut ic.on(core));
}

/// MPI_Bcast: the root's buffer is sent, the other group's written.
pub fn bcast<L: Link>(
    core: &mut Core<L>,
    ic: &InterComm,
    buf: &mut dyn UserBuf,
    d: Data,
    root: Root,
) {
    let blocks = d.ty_blocks();
    let mut data = match root {
        Root::Me => buf.pack(&blocks),
        Root::Null => Vec::new(),
        Root::Remote(_) => vec![0; d.ty.packed_size(d.count)],
    };
    rooted::bcast(&mut ic.on(core), &mut data, root);
    if let Root::Remote(_) = root {
        buf.unpack(&blocks, &data);
    }
}

/// MPI_Gather: at the root `recv` gets `rd.count` elements from each
/// remote rank; `short` is MPICH's choice of algorithm.
pub fn gather<L: Link>(
    core: &mut Core<L>,
    ic: &InterComm,
    send: Option<(&dyn UserBuf, Data)>,
    recv: Option<(&mut dyn UserBuf, Data)>,
    root: Root,
    short: bool,
) {
    let mine = send.map_or(Vec::new(), |(s, d)| s.pack(&d.ty_blocks()));
    match recv {
        Some((r, rd)) if root == Root::Me => {
            let n = ic.remote.len();
            let blocks = consecutive(n, rd.count, rd.ty);
            let mut all = vec![0; n * rd.ty.packed_size(rd.count)];
            rooted::gather(&mut ic.on(core), &mine, &mut all, root, short);
            r.unpack(&blocks, &all);
        }
        _ => rooted::gather(&mut ic.on(core), &mine, &mut [], root, short),
    }
}

/// MPI_Gatherv: at the root remote rank i's data lands in `rblocks[i]`.
pub fn gatherv<L: Link>(
    core: &mut Core<L>,
    ic: &InterComm,
    send: Option<(&dyn UserBuf, Data)>,
    recv: Option<(&mut dyn UserBuf, &[Block])>,
    root: Root,
) {
    let mine = send.map_or(Vec::new(), |(s, d)| s.pack(&d.ty_blocks()));
    match recv {
        Some((r, rblocks)) if root == Root::Me => {
            let p = Packed::of(rblocks);
            let mut all = vec![0; p.total()];
            rooted::gatherv(&mut ic.on(core), &mine, &mut all, p.layout(), root);
            r.unpack(rblocks, &all);
        }
        _ => {
            let p = Packed {
                counts: Vec::new(),
                displs: Vec::new(),
            };
            rooted::gatherv(&mut ic.on(core), &mine, &mut [], p.layout(), root);
        }
    }
}

/// MPI_Scatter: the root's `send` holds `sd.count` elements for each remote
/// rank.
pub fn scatter<L: Link>(
    core: &mut Core<L>,
    ic: &InterComm,
    send: Option<(&dyn UserBuf, Data)>,
    recv: Option<(&mut dyn UserBuf, Data)>,
    root: Root,
    short: bool,
) {
    let all = match send {
        Some((s, d)) if root == Root::Me => s.pack(&consecutive(ic.remote.len(), d.count, d.ty)),
        _ => Vec::new(),
    };
    match recv {
        Some((r, rd)) if matches!(root, Root::Remote(_)) => {
            let blocks = rd.ty_blocks();
            let mut mine = vec![0; rd.ty.packed_size(rd.count)];
            rooted::scatter(&mut ic.on(core), &all, &mut mine, root, short);
            r.unpack(&blocks, &mine);
        }
        _ => rooted::scatter(&mut ic.on(core), &all, &mut [], root, short),
    }
}

/// MPI_Scatterv: remote rank i gets the root's `sblocks[i]`.
pub fn scatterv<L: Link>(
    core: &mut Core<L>,
    ic: &InterComm,
    send: Option<(&dyn UserBuf, &[Block])>,
    recv: Option<(&mut dyn UserBuf, Data)>,
    root: Root,
) {
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
        Some((r, rd)) if matches!(root, Root::Remote(_)) => {
            let mut mine = vec![0; rd.ty.packed_size(rd.count)];
            rooted::scatterv(&mut ic.on(core), &all, p.layout(), &mut mine, root);
            r.unpack(&rd.ty_blocks(), &mine);
        }
        _ => rooted::scatterv(&mut ic.on(core), &all, p.layout(), &mut [], root),
    }
}

/// MPI_Allgather: `recv` gets `rd.count` elements from each remote rank.
pub fn allgather<L: Link>(
    core: &mut Core<L>,
    ic: &InterComm,
    send: (&dyn UserBuf, Data),
    recv: (&mut dyn UserBuf, Data),
) {
    let mine = send.0.pack(&send.1.ty_blocks());
    let (r, rd) = recv;
    let n = ic.remote.len();
    let blocks = consecutive(n, rd.count, rd.ty);
    let mut all = vec![0; n * rd.ty.packed_size(rd.count)];
    symmetric::allgather(&mut ic.on(core), &mine, &mut all);
    r.unpack(&blocks, &all);
}

/// MPI_Allgatherv: remote rank i's data lands in `rblocks[i]`.
pub fn allgatherv<L: Link>(
    core: &mut Core<L>,
    ic: &InterComm,
    send: (&dyn UserBuf, Data),
    recv: &mut dyn UserBuf,
    rblocks: &[Block],
) {
    let mine = send.0.pack(&send.1.ty_blocks());
    let p = Packed::of(rblocks);
    let mut all = vec![0; p.total()];
    symmetric::allgatherv(&mut ic.on(core), &mine, &mut all, p.layout());
    recv.unpack(rblocks, &all);
}

/// MPI_Alltoall(v,w): `sblocks[j]` go to remote rank j, `rblocks[j]` come
/// from it.
pub fn alltoallv<L: Link>(
    core: &mut Core<L>,
    ic: &InterComm,
    send: (&dyn UserBuf, &[Block]),
    recv: &mut dyn UserBuf,
    rblocks: &[Block],
    tag: i32,
) {
    let out = send.0.pack(send.1);
    let (sp, rp) = (Packed::of(send.1), Packed::of(rblocks));
    let mut all = vec![0; rp.total()];
    symmetric::alltoallv(
        &mut ic.on(core),
        &out,
        sp.layout(),
        &mut all,
        rp.layout(),
        tag,
    );
    recv.unpack(rblocks, &all);
}

/// MPI_Reduce: the other group's `send` buffers reduced into the root's
/// `recv`.
pub fn reduce<L: Link>(
    core: &mut Core<L>,
    ic: &InterComm,
    send: Option<&dyn UserBuf>,
    recv: Option<&mut dyn UserBuf>,
    d: Data,
    root: Root,
    op: &mut Op,
) {
    let blocks = d.ty_blocks();
    let mut data = match (send, root) {
        (Some(s), Root::Remote(_)) => s.pack(&blocks),
        (_, Root::Me) => vec![0; d.ty.packed_size(d.count)],
        _ => Vec::new(),
    };
    rooted::reduce(&mut ic.on(core), &mut data, d.ty.size().max(1), op, root);
    if let (Some(r), Root::Me) = (recv, root) {
        r.unpack(&blocks, &data);
    }
}

/// MPI_Allreduce: `recv` gets the reduction over the remote group.
pub fn allreduce<L: Link>(
    core: &mut Core<L>,
    ic: &InterComm,
    send: &dyn UserBuf,
    recv: &mut dyn UserBuf,
    d: Data,
    op: &mut Op,
) {
    let blocks = d.ty_blocks();
    let mut data = send.pack(&blocks);
    symmetric::allreduce(&mut ic.on(core), &mut data, d.ty.size().max(1), op);
    recv.unpack(&blocks, &data);
}

/// MPI_Reduce_scatter: the remote group's vectors (the sum of `counts`
/// elements, one count per member of my group) reduced; my block to `recv`.
pub fn reduce_scatter<L: Link>(
    core: &mut Core<L>,
    ic: &InterComm,
    send: &dyn UserBuf,
    recv: &mut dyn UserBuf,
    counts: &[usize],
    ty: &Arc<Datatype>,
    op: &mut Op,
) {
    let total: usize = counts.iter().sum();
    let input = send.pack(&Data { count: total, ty }.ty_blocks());
    let bytes: Vec<usize> = counts.iter().map(|&c| ty.packed_size(c)).collect();
    let mut out = vec![0; bytes[ic.me]];
    symmetric::reduce_scatter(
        &mut ic.on(core),
        &input,
        &mut out,
        &bytes,
        ty.size().max(1),
        op,
    );
    recv.unpack(
        &Data {
            count: counts[ic.me],
            ty,
        }
        .ty_blocks(),
        &out,
    );
}

/// MPI_Reduce_scatter_block: `d.count` elements per member of my group.
pub fn reduce_scatter_block<L: Link>(
    core: &mut Core<L>,
    ic: &InterComm,
    send: &dyn UserBuf,
    recv: &mut dyn UserBuf,
    d: Data,
    op: &mut Op,
) {
    let n = ic.local.len();
    let input = send.pack(
        &Data {
            count: d.count * n,
            ty: d.ty,
        }
        .ty_blocks(),
    );
    let mut out = vec![0; d.ty.packed_size(d.count)];
    symmetric::reduce_scatter_block(&mut ic.on(core), &input, &mut out, d.ty.size().max(1), op);
    recv.unpack(&d.ty_blocks(), &out);
}

/// The count MPICH's selection looks at for Gather / Scatter (see
/// `coll::inter::rooted`): at the root the root's count times the remote
/// group's size, elsewhere the count times the local group's size.
pub fn short(ic: &InterComm, root: Root, root_count: usize, other_count: usize) -> bool {
    match root {
        Root::Me => rooted::short(root_count, ic.remote.len()),
        _ => rooted::short(other_count, ic.local.len()),
    }
}
