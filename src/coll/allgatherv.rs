//! MPI_Allgatherv (MPICH 3.2 allgatherv.c, MPIR_Allgatherv_intra):
//! recursive doubling, Bruck's algorithm, and a ring that moves blocks in
//! chunks (pipelined).
use super::allgather::doubling;
use super::select::{self, AllgathervAlgo, Coll, ALLGATHERV_PIPELINE_MSG_SIZE};
use super::{put, tag, Comm, Layout};
use crate::p2p::Link;

/// In-place allgatherv: rank i's block is `buf[layout.range(i)]`, mine
/// already in place; `elem` bytes per element.
pub fn allgatherv<L: Link>(c: &mut Comm<L>, buf: &mut [u8], layout: Layout, elem: usize) {
    let algo = select::forced(c.core.model(), Coll::Allgatherv)
        .unwrap_or_else(|| select::allgatherv(c.size(), layout.total()));
    allgatherv_with(c, buf, layout, elem, algo);
}

pub fn allgatherv_with<L: Link>(
    c: &mut Comm<L>,
    buf: &mut [u8],
    layout: Layout,
    elem: usize,
    algo: AllgathervAlgo,
) {
    if layout.total() == 0 || c.size() == 1 {
        return;
    }
    match algo {
        AllgathervAlgo::RecursiveDoubling => recursive_doubling(c, buf, layout),
        AllgathervAlgo::Bruck => bruck(c, buf, layout),
        AllgathervAlgo::Ring => ring(c, buf, layout, elem),
    }
}

/// Recursive doubling over a contiguous copy of the blocks in rank order
/// (as MPICH does, since displacements may make `buf` non-contiguous): the
/// exchanges of Allgather's recursive doubling ([`doubling`]).
pub fn recursive_doubling<L: Link>(c: &mut Comm<L>, buf: &mut [u8], layout: Layout) {
    let (n, me) = (c.size(), c.me);
    let total = layout.total();
    let pos: Vec<usize> = (0..=n).map(|i| layout.counts[..i].iter().sum()).collect();
    let mut tmp = vec![0u8; total];
    put(&mut tmp, pos[me], &buf[layout.range(me)]);
    doubling(
        c,
        &mut tmp,
        total,
        me,
        |r| r,
        |r| pos[r],
        layout.counts[me],
        tag::ALLGATHERV,
    );
    for j in 0..n {
        if j != me {
            buf[layout.range(j)].copy_from_slice(&tmp[pos[j]..pos[j + 1]]);
        }
    }
}

/// Bruck: blocks gathered in the order me, me+1, ...; the receive is posted
/// for everything still missing.
pub fn bruck<L: Link>(c: &mut Comm<L>, buf: &mut [u8], layout: Layout) {
    let (n, me) = (c.size(), c.me);
    let total = layout.total();
    let mut tmp = vec![0u8; total];
    put(&mut tmp, 0, &buf[layout.range(me)]);
    let mut curr = layout.counts[me];
    let mut pof2 = 1;
    while pof2 <= n / 2 {
        let src = (me + pof2) % n;
        let dst = (me + n - pof2) % n;
        let v = c.sendrecv(&tmp[..curr], dst, total - curr, src, tag::ALLGATHERV);
        put(&mut tmp, curr, &v);
        curr += v.len();
        pof2 *= 2;
    }
    let rem = n - pof2;
    if rem > 0 {
        let src = (me + pof2) % n;
        let dst = (me + n - pof2) % n;
        let send_cnt: usize = (0..rem).map(|i| layout.counts[(me + i) % n]).sum();
        let v = c.sendrecv(&tmp[..send_cnt], dst, total - curr, src, tag::ALLGATHERV);
        put(&mut tmp, curr, &v);
    }
    let mut off = 0;
    for i in 0..n {
        let j = (me + i) % n;
        let cnt = layout.counts[j];
        buf[layout.range(j)].copy_from_slice(&tmp[off..off + cnt]);
        off += cnt;
    }
}

/// The pipelined ring (MPICH 4.0.2 `MPIR_Allgatherv_intra_ring`): each block
/// moves right one chunk at a time, a chunk being
/// ALLGATHERV_PIPELINE_MSG_SIZE bytes when the largest block is longer, else
/// the largest block (counted in whole elements; MPICH counts the pipeline
/// size in extents, taken here as the packed element size). MPICH 3.2 cut
/// chunks of the smallest block, at least the pipeline size.
pub fn ring<L: Link>(c: &mut Comm<L>, buf: &mut [u8], layout: Layout, elem: usize) {
    let (n, me) = (c.size(), c.me);
    let left = (n + me - 1) % n;
    let right = (me + 1) % n;
    let max = layout.counts.iter().copied().max().unwrap_or(0) / elem;
    let chunk = if max * elem > ALLGATHERV_PIPELINE_MSG_SIZE {
        (ALLGATHERV_PIPELINE_MSG_SIZE / elem).max(1)
    } else {
        max.max(1)
    } * elem;
    for [(sb, sendnow), (rb, recvnow)] in layout.ring_steps(n, me, chunk) {
        match (sendnow, recvnow) {
            // Two consecutive empty blocks: nothing to do.
            (0, 0) => {}
            (0, _) => {
                let v = c.recv(recvnow, left, tag::ALLGATHERV);
                put(buf, rb, &v);
            }
            (_, 0) => c.send(&buf[sb..sb + sendnow], right, tag::ALLGATHERV),
            _ => {
                let v = c.sendrecv(
                    &buf[sb..sb + sendnow],
                    right,
                    recvnow,
                    left,
                    tag::ALLGATHERV,
                );
                put(buf, rb, &v);
            }
        }
    }
}
