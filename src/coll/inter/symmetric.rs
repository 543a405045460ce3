//! The collectives of both groups of an intercommunicator (MPICH 4.0.2's
//! defaults). The low group (MPICH's `is_low_group`) goes first wherever
//! the two groups take turns:
//! * Barrier `bcast`: a local barrier, then a one-byte intercommunicator
//!   Bcast from the low group to the high one and one back;
//! * Allgather `local_gather_remote_bcast`: a local gather to rank 0, then
//!   intercommunicator Bcasts of the gathered blocks, low group first;
//! * Allgatherv `remote_gather_local_bcast`: intercommunicator Gathervs to
//!   rank 0 of each group (the low group's first), then a local Bcast of
//!   the gathered blocks;
//! * Allreduce `reduce_exchange_bcast`: a local Reduce to rank 0, the two
//!   ranks 0 exchange results (MPIC_Sendrecv), a local Bcast;
//! * Reduce_scatter(_block) `remote_reduce_local_scatter`: intercommunicator
//!   Reduces of the whole vector to rank 0 of each group (to the low group
//!   first), then a local Scatterv (Scatter);
//! * Alltoall(v,w) `pairwise_exchange`: max(local, remote size) steps; in
//!   step i rank r sends to remote rank (r + i) mod max and receives from
//!   (r - i) mod max, a rank beyond the remote group being MPI_PROC_NULL.
use super::rooted::{bcast, gatherv, reduce};
use super::{Inter, Root};
use crate::coll::{self, tag, Layout, Op};
use crate::p2p::Link;

/// The root argument of rank 0 of the group that gives (MPI_ROOT) and of
/// the others (MPI_PROC_NULL).
fn giver<L: Link>(ic: &Inter<L>) -> Root {
    if ic.me == 0 {
        Root::Me
    } else {
        Root::Null
    }
}

/// MPI_Barrier.
pub fn barrier<L: Link>(ic: &mut Inter<L>) {
    coll::barrier::barrier(&mut ic.local());
    let mut b = [0u8; 1];
    let g = giver(ic);
    if ic.is_low {
        bcast(ic, &mut b, g);
        bcast(ic, &mut b, Root::Remote(0));
    } else {
        bcast(ic, &mut b, Root::Remote(0));
        bcast(ic, &mut b, g);
    }
}

/// MPI_Allgather: `recv` gets the remote group's blocks in rank order.
pub fn allgather<L: Link>(ic: &mut Inter<L>, send: &[u8], recv: &mut [u8]) {
    let n = ic.local_size();
    let mut all = if ic.me == 0 && !send.is_empty() {
        vec![0; n * send.len()]
    } else {
        Vec::new()
    };
    if !send.is_empty() {
        coll::gather::gather(&mut ic.local(), send, &mut all, 0);
    }
    let g = giver(ic);
    for step in 0..2 {
        if (step == 0) == ic.is_low {
            if !send.is_empty() {
                bcast(ic, &mut all, g);
            }
        } else if !recv.is_empty() {
            bcast(ic, recv, Root::Remote(0));
        }
    }
}

/// MPI_Allgatherv: remote rank i's block lands at `layout.range(i)` of
/// `recv` (packed blocks); `send` is my block.
pub fn allgatherv<L: Link>(ic: &mut Inter<L>, send: &[u8], recv: &mut [u8], layout: Layout) {
    let g = giver(ic);
    if ic.is_low {
        gatherv(ic, send, recv, layout, g);
        gatherv(ic, send, recv, layout, Root::Remote(0));
    } else {
        gatherv(ic, send, recv, layout, Root::Remote(0));
        gatherv(ic, send, recv, layout, g);
    }
    coll::bcast::bcast(&mut ic.local(), recv, 0);
}

/// MPI_Allreduce: `data` is my contribution; the result (the reduction
/// over the remote group) comes back in it.
pub fn allreduce<L: Link>(ic: &mut Inter<L>, data: &mut [u8], elem: usize, op: &mut Op) {
    if !data.is_empty() {
        coll::reduce::reduce(&mut ic.local(), data, elem, op, 0);
    }
    if ic.me == 0 {
        let v = ic
            .sendrecv(Some((data, 0)), Some((data.len(), 0)), tag::REDUCE)
            .expect("a receive");
        data.copy_from_slice(&v);
    }
    coll::bcast::bcast(&mut ic.local(), data, 0);
}

/// The reductions of MPI_Reduce_scatter(_block): the remote group's
/// vectors reduced into `tmp` at my rank 0 and mine sent to theirs.
fn remote_reduce<L: Link>(ic: &mut Inter<L>, input: &[u8], elem: usize, op: &mut Op) -> Vec<u8> {
    let g = giver(ic);
    let mut tmp = vec![0; input.len()];
    let mut mine = input.to_vec();
    for step in 0..2 {
        if (step == 0) == ic.is_low {
            reduce(ic, &mut tmp, elem, op, g);
        } else {
            reduce(ic, &mut mine, elem, op, Root::Remote(0));
        }
    }
    tmp
}

/// MPI_Reduce_scatter: `input` is my vector (the sum of `counts`, bytes
/// per rank of my group); `out` gets my block of the remote group's
/// reduction.
pub fn reduce_scatter<L: Link>(
    ic: &mut Inter<L>,
    input: &[u8],
    out: &mut [u8],
    counts: &[usize],
    elem: usize,
    op: &mut Op,
) {
    let tmp = remote_reduce(ic, input, elem, op);
    let mut displs = Vec::with_capacity(counts.len());
    let mut at = 0;
    for &c in counts {
        displs.push(at);
        at += c;
    }
    let layout = Layout {
        counts,
        displs: &displs,
    };
    coll::scatterv::scatterv(&mut ic.local(), &tmp, layout, out, 0);
}

/// MPI_Reduce_scatter_block: `input` holds one block per rank of my group.
pub fn reduce_scatter_block<L: Link>(
    ic: &mut Inter<L>,
    input: &[u8],
    out: &mut [u8],
    elem: usize,
    op: &mut Op,
) {
    let tmp = remote_reduce(ic, input, elem, op);
    coll::scatter::scatter(&mut ic.local(), &tmp, out, 0);
}

/// MPI_Alltoall(v,w): remote rank j gets `send[slayout.range(j)]`, and
/// its block for me lands at `rlayout.range(j)` of `recv`.
pub fn alltoallv<L: Link>(
    ic: &mut Inter<L>,
    send: &[u8],
    slayout: Layout,
    recv: &mut [u8],
    rlayout: Layout,
    t: i32,
) {
    let (l, r, me) = (ic.local_size(), ic.remote_size(), ic.me);
    let max = l.max(r);
    for i in 0..max {
        let src = (me + max - i) % max;
        let dst = (me + i) % max;
        let s = (dst < r).then(|| (&send[slayout.range(dst)], dst));
        let rv = (src < r).then(|| (rlayout.counts[src], src));
        if let Some(v) = ic.sendrecv(s, rv, t) {
            coll::put(recv, rlayout.displs[src], &v);
        }
    }
}

/// MPI_Alltoall: equal blocks (`send.len() / remote size` bytes each way).
pub fn alltoall<L: Link>(ic: &mut Inter<L>, send: &[u8], recv: &mut [u8]) {
    let r = ic.remote_size().max(1);
    let (sb, rb) = (send.len() / r, recv.len() / r);
    let n = ic.remote_size();
    let sc = vec![sb; n];
    let sd: Vec<usize> = (0..n).map(|i| i * sb).collect();
    let rc = vec![rb; n];
    let rd: Vec<usize> = (0..n).map(|i| i * rb).collect();
    alltoallv(
        ic,
        send,
        Layout {
            counts: &sc,
            displs: &sd,
        },
        recv,
        Layout {
            counts: &rc,
            displs: &rd,
        },
        tag::ALLTOALL,
    );
}
