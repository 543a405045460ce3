//! MPI_Exscan (MPICH 3.2 exscan.c, MPIR_Exscan): recursive doubling as in
//! MPI_Scan ([`doubling`]), the result collecting only what comes from lower
//! ranks.
use super::scan::doubling;
use super::select::{self, Coll, ExscanAlgo};
use super::{tag, Comm, Op};
use crate::p2p::Link;

/// Exclusive prefix reduction: `recv` receives the reduction of `send` over
/// ranks 0..me (untouched on rank 0).
pub fn exscan<L: Link>(c: &mut Comm<L>, send: &[u8], recv: &mut [u8], elem: usize, op: &mut Op) {
    let algo =
        select::forced(c.core.model(), Coll::Exscan).unwrap_or(ExscanAlgo::RecursiveDoubling);
    exscan_with(c, send, recv, elem, op, algo);
}

pub fn exscan_with<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    _elem: usize,
    op: &mut Op,
    algo: ExscanAlgo,
) {
    if send.is_empty() {
        return;
    }
    match algo {
        ExscanAlgo::RecursiveDoubling => recursive_doubling(c, send, recv, op),
    }
}

pub fn recursive_doubling<L: Link>(c: &mut Comm<L>, send: &[u8], recv: &mut [u8], op: &mut Op) {
    let mut partial = send.to_vec();
    let mut have = false;
    doubling(c, &mut partial, op, tag::EXSCAN, |c, op, tmp| {
        if have {
            c.reduce_local(op, tmp, recv);
        } else {
            recv.copy_from_slice(tmp);
            have = true;
        }
    });
}
