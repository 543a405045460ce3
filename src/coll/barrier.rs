//! MPI_Barrier: the dissemination algorithm (MPICH 3.2 barrier.c,
//! MPIR_Barrier_intra): in step k, rank i sends a zero-byte message to
//! (i + 2^k) mod p and receives one from (i - 2^k) mod p; ceil(lg p) steps.
use super::select::{self, BarrierAlgo, Coll};
use super::{tag, Comm};
use crate::p2p::Link;

pub fn barrier<L: Link>(c: &mut Comm<L>) {
    let algo = select::forced(c.core.model(), Coll::Barrier).unwrap_or(BarrierAlgo::Dissemination);
    barrier_with(c, algo);
}

pub fn barrier_with<L: Link>(c: &mut Comm<L>, algo: BarrierAlgo) {
    match algo {
        BarrierAlgo::Dissemination => dissemination(c),
    }
}

pub fn dissemination<L: Link>(c: &mut Comm<L>) {
    let (n, me) = (c.size(), c.me);
    let mut mask = 1;
    while mask < n {
        let dst = (me + mask) % n;
        let src = (me + n - mask) % n;
        c.sendrecv(&[], dst, 0, src, tag::BARRIER);
        mask <<= 1;
    }
}
