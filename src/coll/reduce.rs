//! MPI_Reduce (MPICH 3.2 reduce.c): binomial tree, and Rabenseifner's
//! reduce-scatter (recursive halving) + binomial gather ("redscat_gather").
use super::select::{self, Coll, ReduceAlgo};
use super::{pof2_floor, tag, Comm, Op};
use crate::p2p::Link;
use std::ops::Range;

/// Reduce `buf` (my contribution, `elem` bytes per element) to `root`,
/// where `buf` receives the result; on other ranks `buf` is scratch.
pub fn reduce<L: Link>(c: &mut Comm<L>, buf: &mut [u8], elem: usize, op: &mut Op, root: usize) {
    let count = buf.len() / elem;
    let algo = select::forced(c.core.model(), Coll::Reduce)
        .unwrap_or_else(|| select::reduce(c.size(), count, buf.len(), op.builtin));
    reduce_with(c, buf, elem, op, root, algo);
}

pub fn reduce_with<L: Link>(
    c: &mut Comm<L>,
    buf: &mut [u8],
    elem: usize,
    op: &mut Op,
    root: usize,
    algo: ReduceAlgo,
) {
    if buf.is_empty() {
        return;
    }
    match algo {
        ReduceAlgo::Binomial => binomial(c, buf, op, root),
        ReduceAlgo::RedscatGather => redscat_gather(c, buf, elem, op, root),
    }
}

/// MPIR_Reduce_binomial: relative to the root (to rank 0 for a
/// non-commutative op, which then sends the result to the root), receive
/// from `rel | mask` while my bit at `mask` is clear, then send to the
/// parent. Children are above their parent, so the received data is the
/// right operand.
pub fn binomial<L: Link>(c: &mut Comm<L>, buf: &mut [u8], op: &mut Op, root: usize) {
    let (n, me, len) = (c.size(), c.me, buf.len());
    let lroot = if op.commutative { root } else { 0 };
    let rel = (me + n - lroot) % n;
    let mut mask = 1;
    while mask < n {
        if mask & rel == 0 {
            let src = rel | mask;
            if src < n {
                let src = (src + lroot) % n;
                let mut tmp = c.recv(len, src, tag::REDUCE);
                c.combine(op, &mut tmp, buf, false);
            }
        } else {
            let parent = ((rel & !mask) + lroot) % n;
            c.send(buf, parent, tag::REDUCE);
            break;
        }
        mask <<= 1;
    }
    if !op.commutative && root != 0 {
        if me == 0 {
            c.send(buf, root, tag::REDUCE);
        } else if me == root {
            let v = c.recv(len, 0, tag::REDUCE);
            buf.copy_from_slice(&v);
        }
    }
}

/// Rabenseifner's split of a buffer of `count` elements into `pof2` pieces
/// (the first `count % pof2` take one element more, as MPICH 4.0.2 splits;
/// MPICH 3.2 gave the last piece the remainder), and the pieces a rank
/// holds:
/// `[send_idx, last_idx)` in MPICH's names, as the reduce-scatter phase
/// ([`redscat_phase`]) leaves them and the gather phase
/// ([`Pieces::gather_step`]) grows them back.
pub(crate) struct Pieces {
    cnts: Vec<usize>,
    disps: Vec<usize>,
    elem: usize,
    pof2: usize,
    pub(crate) send_idx: usize,
    pub(crate) last_idx: usize,
}

impl Pieces {
    /// The split, with all pieces held.
    pub(crate) fn new(count: usize, elem: usize, pof2: usize) -> Pieces {
        let mut cnts = vec![count / pof2; pof2];
        for c in cnts.iter_mut().take(count % pof2) {
            *c += 1;
        }
        let mut disps = vec![0; pof2];
        for i in 1..pof2 {
            disps[i] = disps[i - 1] + cnts[i - 1];
        }
        Pieces {
            cnts,
            disps,
            elem,
            pof2,
            send_idx: 0,
            last_idx: pof2,
        }
    }

    /// The bytes of pieces `a..b`.
    pub(crate) fn range(&self, a: usize, b: usize) -> Range<usize> {
        let at = self.disps[a] * self.elem;
        at..at + self.cnts[a..b].iter().sum::<usize>() * self.elem
    }

    /// One step of the gather phase, which undoes the halving step of
    /// distance `mask` (pof2/2 first) between new ranks `nr` and `newdst`:
    /// the bytes `nr` sends and those it receives. Updates the held pieces
    /// to what `nr` holds once the step is done.
    pub(crate) fn gather_step(
        &mut self,
        nr: usize,
        newdst: usize,
        mask: usize,
    ) -> (Range<usize>, Range<usize>) {
        let half = self.pof2 / (mask * 2);
        if nr < newdst {
            if mask != self.pof2 / 2 {
                self.last_idx += half;
            }
            let recv_idx = self.send_idx + half;
            (
                self.range(self.send_idx, recv_idx),
                self.range(recv_idx, self.last_idx),
            )
        } else {
            let recv_idx = self.send_idx - half;
            let step = (
                self.range(self.send_idx, self.last_idx),
                self.range(recv_idx, self.send_idx),
            );
            self.send_idx = recv_idx;
            step
        }
    }
}

/// The reduce-scatter phase of Rabenseifner's Reduce and Allreduce among the
/// `pof2` ranks left after folding: recursive halving, distance 1 first. New
/// rank `nr` exchanges with `nr ^ mask` (communicator rank `real(nr ^
/// mask)`) the half of its pieces that the partner keeps, and combines the
/// half it keeps with what it receives; it ends holding one reduced piece.
/// MPICH runs this only for predefined (commutative) ops and always
/// combines as `received (op) mine`; forced with a non-commutative op, the
/// same messages are combined in rank order.
#[allow(clippy::too_many_arguments)]
pub(crate) fn redscat_phase<L: Link>(
    c: &mut Comm<L>,
    buf: &mut [u8],
    elem: usize,
    op: &mut Op,
    nr: usize,
    pof2: usize,
    real: impl Fn(usize) -> usize,
    tag: i32,
) -> Pieces {
    let mut p = Pieces::new(buf.len() / elem, elem, pof2);
    let mut recv_idx = 0;
    let mut mask = 1;
    while mask < pof2 {
        let newdst = nr ^ mask;
        let dst = real(newdst);
        let half = pof2 / (mask * 2);
        let (send, recv);
        if nr < newdst {
            p.send_idx = recv_idx + half;
            send = p.range(p.send_idx, p.last_idx);
            recv = p.range(recv_idx, p.send_idx);
        } else {
            recv_idx = p.send_idx + half;
            send = p.range(p.send_idx, recv_idx);
            recv = p.range(recv_idx, p.last_idx);
        }
        let mut tmp = c.sendrecv(&buf[send], dst, recv.len(), dst, tag);
        c.combine(op, &mut tmp, &mut buf[recv], newdst < nr);
        p.send_idx = recv_idx;
        mask <<= 1;
        if mask < pof2 {
            p.last_idx = recv_idx + pof2 / mask;
        }
    }
    p
}

/// MPIR_Reduce_redscat_gather. Non-power-of-two: odd ranks below 2*rem send
/// their data to rank-1 and sit out. Recursive halving ([`redscat_phase`])
/// leaves each of the pof2 ranks one reduced piece, then a binomial gather
/// brings the pieces to the root (rank 0 hands its piece to an odd excluded
/// root, which takes its place).
pub fn redscat_gather<L: Link>(
    c: &mut Comm<L>,
    buf: &mut [u8],
    elem: usize,
    op: &mut Op,
    root: usize,
) {
    let (n, me, len) = (c.size(), c.me, buf.len());
    let count = len / elem;
    let pof2 = pof2_floor(n);
    let rem = n - pof2;
    let mut newrank: Option<usize>;
    if me < 2 * rem {
        if !me.is_multiple_of(2) {
            c.send(buf, me - 1, tag::REDUCE);
            newrank = None;
        } else {
            let mut tmp = c.recv(len, me + 1, tag::REDUCE);
            c.combine(op, &mut tmp, buf, false);
            newrank = Some(me / 2);
        }
    } else {
        newrank = Some(me - rem);
    }
    let real = |nr: usize| if nr < rem { nr * 2 } else { nr + rem };
    let mut pieces = match newrank {
        Some(nr) => redscat_phase(c, buf, elem, op, nr, pof2, real, tag::REDUCE),
        None => Pieces::new(count, elem, pof2),
    };

    // Gather to the root.
    let newroot;
    if root < 2 * rem {
        if !root.is_multiple_of(2) {
            if me == root {
                let v = c.recv(pieces.range(0, 1).len(), 0, tag::REDUCE);
                buf[..v.len()].copy_from_slice(&v);
                newrank = Some(0);
                pieces.send_idx = 0;
                pieces.last_idx = 2;
            } else if newrank == Some(0) {
                c.send(&buf[pieces.range(0, 1)], root, tag::REDUCE);
                newrank = None;
            }
            newroot = 0;
        } else {
            newroot = root / 2;
        }
    } else {
        newroot = root - rem;
    }
    let Some(nr) = newrank else { return };
    let mut j = pof2.trailing_zeros() as usize;
    let mut mask = pof2 >> 1;
    j = j.wrapping_sub(1);
    while mask > 0 {
        let newdst = nr ^ mask;
        let mut dst = real(newdst);
        if newdst == 0 && root < 2 * rem && !root.is_multiple_of(2) {
            dst = root;
        }
        let newdst_tree_root = (newdst >> j) << j;
        let newroot_tree_root = (newroot >> j) << j;
        let (send, recv) = pieces.gather_step(nr, newdst, mask);
        if newdst_tree_root == newroot_tree_root {
            c.send(&buf[send], dst, tag::REDUCE);
            break;
        } else {
            let v = c.recv(recv.len(), dst, tag::REDUCE);
            buf[recv.start..recv.start + v.len()].copy_from_slice(&v);
        }
        mask >>= 1;
        j = j.wrapping_sub(1);
    }
}
