//! MPI_Allgather (MPICH 3.2 allgather.c, MPIR_Allgather_intra): recursive
//! doubling, Bruck's algorithm, and the ring.
use super::select::{self, AllgatherAlgo, Coll};
use super::{missing_subtree, put, seg, tag, Comm, Hand};
use crate::p2p::Link;

/// In-place allgather: `buf` holds `p` equal blocks in rank order, mine
/// already at my position; on return every block is filled.
pub fn allgather<L: Link>(c: &mut Comm<L>, buf: &mut [u8]) {
    let algo = select::forced(c.core.model(), Coll::Allgather)
        .unwrap_or_else(|| select::allgather(c.size(), buf.len()));
    allgather_with(c, buf, algo);
}

pub fn allgather_with<L: Link>(c: &mut Comm<L>, buf: &mut [u8], algo: AllgatherAlgo) {
    if buf.is_empty() || c.size() == 1 {
        return;
    }
    match algo {
        AllgatherAlgo::RecursiveDoubling => recursive_doubling(c, buf),
        AllgatherAlgo::Bruck => bruck(c, buf),
        AllgatherAlgo::Ring => ring(c, buf),
    }
}

/// Recursive doubling: in step `mask`, exchange everything gathered so far
/// (the blocks of my aligned subtree) with `rank ^ mask`. For a size that is
/// not a power of two, ranks whose partner does not exist get the partner
/// subtree's blocks from those that have them, down a halving tree (MPICH's
/// "experimental" branch, which its default rule never reaches; kept so
/// that forcing this algorithm works for any size).
pub fn recursive_doubling<L: Link>(c: &mut Comm<L>, buf: &mut [u8]) {
    let (n, me) = (c.size(), c.me);
    let block = buf.len() / n;
    doubling(
        c,
        buf,
        n * block,
        me,
        |r| r,
        |r| r * block,
        block,
        tag::ALLGATHER,
    );
}

/// The recursive-doubling allgather of Allgather, Allgatherv and Bcast's
/// scatter + allgather, on ranks numbered `rel` in 0..n (communicator rank
/// `comm(rel)`): rank r's data lies at `buf[pos(r)..]`, contiguous in rank
/// order up to `total` bytes (positions past `total` hold nothing), and I
/// start with `curr` bytes at `pos(me)`. Each receive is posted for
/// everything from its position to `total`, as MPICH does. Returns the
/// bytes I hold at the end.
#[allow(clippy::too_many_arguments)]
pub(crate) fn doubling<L: Link>(
    c: &mut Comm<L>,
    buf: &mut [u8],
    total: usize,
    me: usize,
    comm: impl Fn(usize) -> usize,
    pos: impl Fn(usize) -> usize,
    mut curr: usize,
    tag: i32,
) -> usize {
    let n = c.size();
    let mut last_recv = 0;
    let mut mask = 1;
    while mask < n {
        let dst = me ^ mask;
        let my_tree_root = me & !(mask - 1);
        if dst < n {
            let dst_tree_root = dst & !(mask - 1);
            let recv_off = pos(dst_tree_root);
            let want = total.saturating_sub(recv_off);
            let v = c.sendrecv(
                seg(buf, pos(my_tree_root), curr),
                comm(dst),
                want,
                comm(dst),
                tag,
            );
            put(buf, recv_off, &v);
            last_recv = v.len();
            curr += last_recv;
        }
        for hand in missing_subtree(me, mask, n) {
            let offset = pos(my_tree_root + mask);
            match hand {
                Hand::To(r) => c.send(seg(buf, offset, last_recv), comm(r), tag),
                Hand::From(r) => {
                    let v = c.recv(total.saturating_sub(offset), comm(r), tag);
                    put(buf, offset, &v);
                    last_recv = v.len();
                    curr += last_recv;
                }
            }
        }
        mask <<= 1;
    }
    curr
}

/// Bruck: gather into a buffer that starts with my block; in step k receive
/// 2^k blocks from rank + 2^k and send mine to rank - 2^k (a last partial
/// step when p is not a power of two), then rotate into place.
pub fn bruck<L: Link>(c: &mut Comm<L>, buf: &mut [u8]) {
    let (n, me) = (c.size(), c.me);
    let block = buf.len() / n;
    let mut tmp = vec![0u8; buf.len()];
    tmp[..block].copy_from_slice(&buf[me * block..(me + 1) * block]);
    let mut curr = 1;
    let mut pof2 = 1;
    while pof2 <= n / 2 {
        let src = (me + pof2) % n;
        let dst = (me + n - pof2) % n;
        let v = c.sendrecv(&tmp[..curr * block], dst, curr * block, src, tag::ALLGATHER);
        put(&mut tmp, curr * block, &v);
        curr *= 2;
        pof2 *= 2;
    }
    let rem = n - pof2;
    if rem > 0 {
        let src = (me + pof2) % n;
        let dst = (me + n - pof2) % n;
        let v = c.sendrecv(&tmp[..rem * block], dst, rem * block, src, tag::ALLGATHER);
        put(&mut tmp, curr * block, &v);
    }
    // tmp block i belongs to rank (me + i) mod p.
    for i in 0..n {
        let r = (me + i) % n;
        buf[r * block..(r + 1) * block].copy_from_slice(&tmp[i * block..(i + 1) * block]);
    }
}

/// Ring: p-1 steps; send to the right the block received from the left in
/// the previous step (my own first).
pub fn ring<L: Link>(c: &mut Comm<L>, buf: &mut [u8]) {
    let (n, me) = (c.size(), c.me);
    let block = buf.len() / n;
    let left = (n + me - 1) % n;
    let right = (me + 1) % n;
    let (mut j, mut jnext) = (me, left);
    for _ in 1..n {
        let v = c.sendrecv(
            &buf[j * block..(j + 1) * block],
            right,
            block,
            left,
            tag::ALLGATHER,
        );
        put(buf, jnext * block, &v);
        j = jnext;
        jnext = (n + jnext - 1) % n;
    }
}
