//! MPI_Gatherv (MPICH 3.2 gatherv.c, MPIR_Gatherv): linear. The root posts a
//! receive from every other rank with a non-zero count and waits for all;
//! the others send (synchronously on communicators of at least
//! GATHERV_INTER_SSEND_MIN_PROCS ranks, as MPICH does).
use super::select::{self, Coll, GathervAlgo, GATHERV_INTER_SSEND_MIN_PROCS};
use super::{tag, Comm, Layout};
use crate::p2p::Link;

/// Gather `send` from every rank into `recv` at `root`, rank i's block at
/// `layout.range(i)` (layout significant at the root only).
pub fn gatherv<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    layout: Layout,
    root: usize,
) {
    let algo = select::forced(c.core.model(), Coll::Gatherv).unwrap_or(GathervAlgo::Linear);
    gatherv_with(c, send, recv, layout, root, algo);
}

pub fn gatherv_with<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    layout: Layout,
    root: usize,
    algo: GathervAlgo,
) {
    match algo {
        GathervAlgo::Linear => linear(c, send, recv, layout, root),
    }
}

pub fn linear<L: Link>(c: &mut Comm<L>, send: &[u8], recv: &mut [u8], layout: Layout, root: usize) {
    let (n, me) = (c.size(), c.me);
    if me == root {
        let mut from = Vec::new();
        let mut reqs = Vec::new();
        for i in 0..n {
            if layout.counts[i] == 0 {
                continue;
            }
            if i == me {
                recv[layout.range(i)].copy_from_slice(send);
            } else {
                reqs.push(c.irecv(layout.counts[i], i, tag::GATHERV));
                from.push(i);
            }
        }
        let data = c.wait_all(&[], &reqs, tag::GATHERV);
        for (i, v) in from.into_iter().zip(data) {
            recv[layout.displs[i]..layout.displs[i] + v.len()].copy_from_slice(&v);
        }
    } else if !send.is_empty() {
        if n >= GATHERV_INTER_SSEND_MIN_PROCS {
            c.ssend(send, root, tag::GATHERV);
        } else {
            c.send(send, root, tag::GATHERV);
        }
    }
}
