//! MPI_Allreduce (MPICH 3.2 allreduce.c): recursive doubling, and
//! Rabenseifner's reduce-scatter (recursive halving) + allgather (recursive
//! doubling) ("redscat_allgather"). Both reduce a non-power-of-two size to
//! the nearest lower power of two first: even ranks below 2*rem send their
//! data to rank+1, and get the result back from it at the end.
use super::reduce::redscat_phase;
use super::select::{self, AllreduceAlgo, Coll};
use super::{pof2_floor, tag, Comm, Op};
use crate::p2p::Link;

/// Reduce `buf` (my contribution, `elem` bytes per element) on all ranks;
/// `buf` receives the result.
pub fn allreduce<L: Link>(c: &mut Comm<L>, buf: &mut [u8], elem: usize, op: &mut Op) {
    let count = buf.len() / elem;
    let algo = select::forced(c.core.model(), Coll::Allreduce)
        .unwrap_or_else(|| select::allreduce(c.size(), count, buf.len(), op.builtin));
    allreduce_with(c, buf, elem, op, algo);
}

pub fn allreduce_with<L: Link>(
    c: &mut Comm<L>,
    buf: &mut [u8],
    elem: usize,
    op: &mut Op,
    algo: AllreduceAlgo,
) {
    if buf.is_empty() {
        return;
    }
    let (n, me) = (c.size(), c.me);
    let pof2 = pof2_floor(n);
    let rem = n - pof2;
    let len = buf.len();
    if let Some(nr) = fold(c, buf, op, rem, tag::ALLREDUCE) {
        match algo {
            AllreduceAlgo::RecursiveDoubling => recursive_doubling(c, buf, op, nr, rem, pof2),
            AllreduceAlgo::RedscatAllgather => redscat_allgather(c, buf, elem, op, nr, rem, pof2),
        }
    }
    if me < 2 * rem {
        if !me.is_multiple_of(2) {
            c.send(buf, me - 1, tag::ALLREDUCE);
        } else {
            let v = c.recv(len, me + 1, tag::ALLREDUCE);
            buf.copy_from_slice(&v);
        }
    }
}

/// Fold the first `2 * rem` ranks pairwise: even ranks send `buf` to
/// rank + 1 and sit out (`None`), odd ones combine it into theirs; returns
/// my new rank among the remaining power of two.
pub(crate) fn fold<L: Link>(
    c: &mut Comm<L>,
    buf: &mut [u8],
    op: &mut Op,
    rem: usize,
    tag: i32,
) -> Option<usize> {
    let me = c.me;
    if me >= 2 * rem {
        Some(me - rem)
    } else if me.is_multiple_of(2) {
        c.send(buf, me + 1, tag);
        None
    } else {
        let mut tmp = c.recv(buf.len(), me - 1, tag);
        // The sender is below me: the order is right for any op.
        c.combine(op, &mut tmp, buf, true);
        Some(me / 2)
    }
}

/// Real rank of new rank `nr` after [`fold`].
pub(crate) fn real(nr: usize, rem: usize) -> usize {
    if nr < rem {
        nr * 2 + 1
    } else {
        nr + rem
    }
}

/// The recursive-doubling core among the pof2 remaining ranks: exchange the
/// whole buffer with `newrank ^ mask` for mask = 1, 2, 4, ...
pub fn recursive_doubling<L: Link>(
    c: &mut Comm<L>,
    buf: &mut [u8],
    op: &mut Op,
    nr: usize,
    rem: usize,
    pof2: usize,
) {
    let len = buf.len();
    let me = c.me;
    let mut mask = 1;
    while mask < pof2 {
        let dst = real(nr ^ mask, rem);
        let mut tmp = c.sendrecv(buf, dst, len, dst, tag::ALLREDUCE);
        c.combine(op, &mut tmp, buf, dst < me);
        mask <<= 1;
    }
}

/// The reduce-scatter + allgather core among the pof2 remaining ranks:
/// [`redscat_phase`], then an allgather by recursive doubling in the reverse
/// order of the halving.
pub fn redscat_allgather<L: Link>(
    c: &mut Comm<L>,
    buf: &mut [u8],
    elem: usize,
    op: &mut Op,
    nr: usize,
    rem: usize,
    pof2: usize,
) {
    let real = |newdst: usize| real(newdst, rem);
    let mut pieces = redscat_phase(c, buf, elem, op, nr, pof2, real, tag::ALLREDUCE);
    let mut mask = pof2 >> 1;
    while mask > 0 {
        let newdst = nr ^ mask;
        let dst = real(newdst);
        let (send, recv) = pieces.gather_step(nr, newdst, mask);
        let v = c.sendrecv(&buf[send], dst, recv.len(), dst, tag::ALLREDUCE);
        buf[recv.start..recv.start + v.len()].copy_from_slice(&v);
        mask >>= 1;
    }
}
