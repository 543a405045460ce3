//! MPI_Reduce (MPICH 3.2 reduce.c): binomial tree, and Rabenseifner's
//! reduce-scatter (recursive halving) + binomial gather ("redscat_gather").
use super::select::{self, Coll, ReduceAlgo};
use super::{pof2_floor, tag, Comm, Op};
use crate::p2p::Link;

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

/// Element counts of the `pof2` pieces of the reduce-scatter and their
/// displacements (the last piece takes the remainder).
pub(crate) fn pieces(count: usize, pof2: usize) -> (Vec<usize>, Vec<usize>) {
    let mut cnts = vec![count / pof2; pof2];
    cnts[pof2 - 1] = count - (count / pof2) * (pof2 - 1);
    let mut disps = vec![0; pof2];
    for i in 1..pof2 {
        disps[i] = disps[i - 1] + cnts[i - 1];
    }
    (cnts, disps)
}

/// MPIR_Reduce_redscat_gather. Non-power-of-two: odd ranks below 2*rem send
/// their data to rank-1 and sit out. Recursive halving (distance 1 first)
/// leaves each of the pof2 ranks one reduced piece, then a binomial gather
/// brings the pieces to the root (rank 0 hands its piece to an odd excluded
/// root, which takes its place). MPICH runs this only for predefined
/// (commutative) ops and always combines as `received (op) mine`; when it is
/// forced with a non-commutative op the same messages are combined in rank
/// order instead.
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
    let (cnts, disps) = pieces(count, pof2);
    let bytes = |a: usize, b: usize| cnts[a..b].iter().sum::<usize>() * elem;
    let at = |i: usize| disps[i] * elem;
    let mut send_idx = 0;
    let mut last_idx = pof2;
    if let Some(nr) = newrank {
        let mut recv_idx = 0;
        let mut mask = 1;
        while mask < pof2 {
            let newdst = nr ^ mask;
            let dst = real(newdst);
            let (send_len, recv_len);
            if nr < newdst {
                send_idx = recv_idx + pof2 / (mask * 2);
                send_len = bytes(send_idx, last_idx);
                recv_len = bytes(recv_idx, send_idx);
            } else {
                recv_idx = send_idx + pof2 / (mask * 2);
                send_len = bytes(send_idx, recv_idx);
                recv_len = bytes(recv_idx, last_idx);
            }
            let so = at(send_idx);
            let mut tmp = c.sendrecv(&buf[so..so + send_len], dst, recv_len, dst, tag::REDUCE);
            let ro = at(recv_idx);
            c.combine(op, &mut tmp, &mut buf[ro..ro + recv_len], newdst < nr);
            send_idx = recv_idx;
            mask <<= 1;
            if mask < pof2 {
                last_idx = recv_idx + pof2 / mask;
            }
        }
    }

    // Gather to the root.
    let newroot;
    if root < 2 * rem {
        if !root.is_multiple_of(2) {
            if me == root {
                let v = c.recv(cnts[0] * elem, 0, tag::REDUCE);
                buf[..v.len()].copy_from_slice(&v);
                newrank = Some(0);
                send_idx = 0;
                last_idx = 2;
            } else if newrank == Some(0) {
                c.send(&buf[..cnts[0] * elem], root, tag::REDUCE);
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
        let (recv_idx, send_len, recv_len);
        if nr < newdst {
            if mask != pof2 / 2 {
                last_idx += pof2 / (mask * 2);
            }
            recv_idx = send_idx + pof2 / (mask * 2);
            send_len = bytes(send_idx, recv_idx);
            recv_len = bytes(recv_idx, last_idx);
        } else {
            recv_idx = send_idx - pof2 / (mask * 2);
            send_len = bytes(send_idx, last_idx);
            recv_len = bytes(recv_idx, send_idx);
        }
        if newdst_tree_root == newroot_tree_root {
            let so = at(send_idx);
            c.send(&buf[so..so + send_len], dst, tag::REDUCE);
            break;
        } else {
            let v = c.recv(recv_len, dst, tag::REDUCE);
            let ro = at(recv_idx);
            buf[ro..ro + v.len()].copy_from_slice(&v);
        }
        if nr > newdst {
            send_idx = recv_idx;
        }
        mask >>= 1;
        j = j.wrapping_sub(1);
    }
}
