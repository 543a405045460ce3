//! MPI_Scan (MPICH 3.2 scan.c, MPIR_Scan_generic): recursive doubling. Each
//! rank keeps the partial reduction of its aligned subtree; in step `mask`
//! it exchanges it with `rank ^ mask` and, if the partner is below, folds
//! it into its result. (MPICH's SMP-aware scan for node-consecutive
//! communicators is not modelled.)
use super::select::{self, Coll, ScanAlgo};
use super::{tag, Comm, Op};
use crate::p2p::Link;

/// Inclusive prefix reduction: `buf` holds my contribution and receives the
/// reduction over ranks 0..=me.
pub fn scan<L: Link>(c: &mut Comm<L>, buf: &mut [u8], elem: usize, op: &mut Op) {
    let algo = select::forced(c.core.model(), Coll::Scan).unwrap_or(ScanAlgo::RecursiveDoubling);
    scan_with(c, buf, elem, op, algo);
}

pub fn scan_with<L: Link>(
    c: &mut Comm<L>,
    buf: &mut [u8],
    _elem: usize,
    op: &mut Op,
    algo: ScanAlgo,
) {
    if buf.is_empty() {
        return;
    }
    match algo {
        ScanAlgo::RecursiveDoubling => recursive_doubling(c, buf, op),
    }
}

pub fn recursive_doubling<L: Link>(c: &mut Comm<L>, buf: &mut [u8], op: &mut Op) {
    let mut partial = buf.to_vec();
    doubling(c, &mut partial, op, tag::SCAN, |c, op, tmp| {
        c.reduce_local(op, tmp, buf)
    });
}

/// The recursive doubling of Scan and Exscan: `partial` (my contribution
/// at first) becomes the reduction over my aligned subtree. In step `mask`
/// it is exchanged with `rank ^ mask` and the partner's is folded into it
/// in rank order; the partner's data from a lower rank is also handed to
/// `from_below`.
pub(crate) fn doubling<L: Link>(
    c: &mut Comm<L>,
    partial: &mut [u8],
    op: &mut Op,
    tag: i32,
    mut from_below: impl FnMut(&mut Comm<L>, &mut Op, &[u8]),
) {
    let (n, me, len) = (c.size(), c.me, partial.len());
    let mut mask = 1;
    while mask < n {
        let dst = me ^ mask;
        if dst < n {
            let mut tmp = c.sendrecv(partial, dst, len, dst, tag);
            if me > dst {
                c.reduce_local(op, &tmp, partial);
                from_below(c, op, &tmp);
            } else {
                c.combine(op, &mut tmp, partial, false);
            }
        }
        mask <<= 1;
    }
}
