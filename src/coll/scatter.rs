//! MPI_Scatter (MPICH 3.2 scatter.c, MPIR_Scatter_intra): binomial tree on
//! ranks relative to the root. A rank receives its whole subtree's blocks in
//! one message, then hands the upper halves down for decreasing masks.
use super::select::{self, Coll, ScatterAlgo};
use super::{tag, Comm};
use crate::p2p::Link;

/// Scatter `send` (at `root`: `p` blocks in rank order) so that `recv` (one
/// block) gets rank i's block on rank i.
pub fn scatter<L: Link>(c: &mut Comm<L>, send: &[u8], recv: &mut [u8], root: usize) {
    let algo = select::forced(c.core.model(), Coll::Scatter).unwrap_or(ScatterAlgo::Binomial);
    scatter_with(c, send, recv, root, algo);
}

pub fn scatter_with<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    root: usize,
    algo: ScatterAlgo,
) {
    match algo {
        ScatterAlgo::Binomial => binomial(c, send, recv, root),
    }
}

pub fn binomial<L: Link>(c: &mut Comm<L>, send: &[u8], recv: &mut [u8], root: usize) {
    let (n, me, block) = (c.size(), c.me, recv.len());
    if block == 0 {
        return;
    }
    let rel = (me + n - root) % n;
    // Blocks of relative ranks rel, rel+1, ... that I hold.
    let mut tmp: Vec<u8> = Vec::new();
    if me == root {
        tmp.extend_from_slice(&send[root * block..]);
        tmp.extend_from_slice(&send[..root * block]);
    }
    let mut mask = 1;
    while mask < n {
        if rel & mask != 0 {
            let src = (me + n - mask) % n;
            // Leaves (odd relative ranks) receive exactly their block; the
            // others post for up to half the blocks, as MPICH does.
            let want = if !rel.is_multiple_of(2) {
                block
            } else {
                block * n.div_ceil(2)
            };
            tmp = c.recv(want, src, tag::SCATTER);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    let mut curr = tmp.len();
    while mask > 0 {
        if rel + mask < n {
            let dst = (me + mask) % n;
            let send_cnt = curr - block * mask;
            c.send(
                &tmp[block * mask..block * mask + send_cnt],
                dst,
                tag::SCATTER,
            );
            curr -= send_cnt;
        }
        mask >>= 1;
    }
    if tmp.len() < block {
        panic!("vaced: MPI_Scatter: rank {me} received {} bytes, expected {block} (the ranks passed different counts)", tmp.len());
    }
    recv.copy_from_slice(&tmp[..block]);
}
