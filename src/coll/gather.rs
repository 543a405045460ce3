//! MPI_Gather (MPICH 3.2 gather.c, MPIR_Gather_intra): binomial tree on
//! ranks relative to the root. Each rank collects its subtree's blocks (its
//! own first, in relative order) and sends them to its parent in one
//! message. (MPICH's GATHER_VSMALL_MSG_SIZE only changes its local
//! buffering, not the messages.)
use super::select::{self, Coll, GatherAlgo};
use super::{tag, Comm};
use crate::p2p::Link;

/// Gather `send` (one block per rank) into `recv` at `root` (`p` blocks in
/// rank order; ignored elsewhere).
pub fn gather<L: Link>(c: &mut Comm<L>, send: &[u8], recv: &mut [u8], root: usize) {
    let algo = select::forced(c.core.model(), Coll::Gather).unwrap_or(GatherAlgo::Binomial);
    gather_with(c, send, recv, root, algo);
}

pub fn gather_with<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    root: usize,
    algo: GatherAlgo,
) {
    match algo {
        GatherAlgo::Binomial => binomial(c, send, recv, root),
    }
}

pub fn binomial<L: Link>(c: &mut Comm<L>, send: &[u8], recv: &mut [u8], root: usize) {
    let (n, me, block) = (c.size(), c.me, send.len());
    if block == 0 {
        return;
    }
    let rel = (me + n - root) % n;
    // Blocks of relative ranks rel, rel+1, ... gathered so far.
    let mut acc = send.to_vec();
    let mut mask = 1;
    while mask < n {
        if mask & rel == 0 {
            let src_rel = rel | mask;
            if src_rel < n {
                let blocks = mask.min(n - src_rel);
                let v = c.recv(blocks * block, (src_rel + root) % n, tag::GATHER);
                acc.extend_from_slice(&v);
            }
        } else {
            let dst = ((rel ^ mask) + root) % n;
            c.send(&acc, dst, tag::GATHER);
            break;
        }
        mask <<= 1;
    }
    if me == root {
        for i in 0..n {
            let r = (i + root) % n;
            recv[r * block..(r + 1) * block].copy_from_slice(&acc[i * block..(i + 1) * block]);
        }
    }
}
