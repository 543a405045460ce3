//! MPI_Reduce_scatter_block (MPICH 3.2 red_scat_block.c): the algorithms
//! and rules of MPI_Reduce_scatter with all counts equal, under their own
//! tag and `[collectives]` key.
use super::reduce_scatter::{default_algo, run};
use super::select::{self, Coll, ReduceScatterAlgo};
use super::{tag, Comm, Op};
use crate::p2p::Link;

/// Reduce `send` (`p` blocks of `recv.len()` bytes) over all ranks; block i
/// of the result lands in `recv` on rank i.
pub fn reduce_scatter_block<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    elem: usize,
    op: &mut Op,
) {
    let counts = vec![recv.len(); c.size()];
    let algo = select::forced(c.core.model(), Coll::ReduceScatterBlock)
        .unwrap_or_else(|| default_algo(c.size(), &counts, op));
    reduce_scatter_block_with(c, send, recv, elem, op, algo);
}

pub fn reduce_scatter_block_with<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    elem: usize,
    op: &mut Op,
    algo: ReduceScatterAlgo,
) {
    let counts = vec![recv.len(); c.size()];
    run(
        c,
        send,
        recv,
        &counts,
        elem,
        op,
        algo,
        tag::REDUCE_SCATTER_BLOCK,
    );
}
