//! MPI_Scatterv (MPICH 3.2 scatterv.c, MPIR_Scatterv): linear. The root
//! starts a send to every other rank with a non-zero count and waits for
//! all; the others receive.
use super::select::{self, Coll, ScattervAlgo};
use super::{tag, Comm, Layout};
use crate::p2p::Link;

/// Scatter rank i's block `send[layout.range(i)]` (significant at the root)
/// into `recv` on rank i.
pub fn scatterv<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    layout: Layout,
    recv: &mut [u8],
    root: usize,
) {
    let algo = select::forced(c.core.model(), Coll::Scatterv).unwrap_or(ScattervAlgo::Linear);
    scatterv_with(c, send, layout, recv, root, algo);
}

pub fn scatterv_with<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    layout: Layout,
    recv: &mut [u8],
    root: usize,
    algo: ScattervAlgo,
) {
    match algo {
        ScattervAlgo::Linear => linear(c, send, layout, recv, root),
    }
}

pub fn linear<L: Link>(c: &mut Comm<L>, send: &[u8], layout: Layout, recv: &mut [u8], root: usize) {
    let (n, me) = (c.size(), c.me);
    if me == root {
        let mut reqs = Vec::new();
        for i in 0..n {
            if layout.counts[i] == 0 {
                continue;
            }
            if i == me {
                recv.copy_from_slice(&send[layout.range(i)]);
            } else {
                reqs.push(c.isend(&send[layout.range(i)], i, tag::SCATTERV));
            }
        }
        c.wait_all(&reqs, &[], tag::SCATTERV);
    } else if !recv.is_empty() {
        let v = c.recv(recv.len(), root, tag::SCATTERV);
        recv[..v.len()].copy_from_slice(&v);
    }
}
