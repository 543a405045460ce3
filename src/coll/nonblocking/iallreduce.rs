//! MPI_Iallreduce (MPICH 4.0.2 iallreduce/): recursive doubling
//! (`MPIR_Iallreduce_intra_sched_recursive_doubling`) and a
//! reduce-scatter by recursive halving followed by a recursive-doubling
//! allgather (`..._reduce_scatter_allgather`). On a size that is not a
//! power of two, the first 2 rem ranks fold pairwise first (the even rank
//! sends to the odd one) and the odd ones hand the result back at the end.
//! Buffer 0 holds my data and ends with the result; buffer 1 is scratch of
//! the same size.
use super::select;
use super::{at, NbcComm, OwnedOp, Schedule, Xfer};
use crate::coll::pof2_floor;
use crate::coll::reduce::Pieces;

pub fn iallreduce(c: &NbcComm, data: Vec<u8>, elem: usize, op: OwnedOp) -> Schedule {
    let count = data.len() / elem.max(1);
    let algo = select::iallreduce(c.size(), count, data.len(), op.builtin);
    iallreduce_with(c, data, elem, op, algo)
}

pub fn iallreduce_with(
    c: &NbcComm,
    data: Vec<u8>,
    elem: usize,
    op: OwnedOp,
    algo: select::IallreduceAlgo,
) -> Schedule {
    let len = data.len();
    let mut s = Schedule::new(c, "MPI_Iallreduce", vec![data, vec![0; len]]).with_op(op);
    if len == 0 || c.size() == 1 {
        return s;
    }
    let (n, me) = (c.size(), c.me);
    let pof2 = pof2_floor(n);
    let rem = n - pof2;
    if let Some(nr) = fold(&mut s, me, len, rem) {
        match algo {
            select::IallreduceAlgo::RecursiveDoubling => {
                recursive_doubling(&mut s, me, len, nr, rem, pof2)
            }
            select::IallreduceAlgo::ReduceScatterAllgather => {
                reduce_scatter_allgather(&mut s, len, elem, nr, rem, pof2)
            }
        }
    }
    if me < 2 * rem {
        if me % 2 == 1 {
            s.xfers(vec![Xfer::Send {
                from: at(0, 0),
                len,
                to: me - 1,
            }]);
        } else {
            s.xfers(vec![Xfer::Recv {
                into: at(0, 0),
                len,
                from: me + 1,
            }]);
        }
    }
    s
}

/// The pairwise fold of the first 2 rem ranks; my rank among the pof2
/// that go on, if I do.
pub(crate) fn fold(s: &mut Schedule, me: usize, len: usize, rem: usize) -> Option<usize> {
    if me >= 2 * rem {
        Some(me - rem)
    } else if me.is_multiple_of(2) {
        s.xfers(vec![Xfer::Send {
            from: at(0, 0),
            len,
            to: me + 1,
        }]);
        None
    } else {
        s.xfers(vec![Xfer::Recv {
            into: at(1, 0),
            len,
            from: me - 1,
        }]);
        s.combine(at(1, 0), at(0, 0), len, true);
        Some(me / 2)
    }
}

/// The real rank of rank `nr` among the pof2 that go on.
pub(crate) fn real(nr: usize, rem: usize) -> usize {
    if nr < rem {
        nr * 2 + 1
    } else {
        nr + rem
    }
}

/// Exchange everything with `nr ^ mask` for each mask, reducing each time.
pub fn recursive_doubling(
    s: &mut Schedule,
    me: usize,
    len: usize,
    nr: usize,
    rem: usize,
    pof2: usize,
) {
    let mut mask = 1;
    while mask < pof2 {
        let dst = real(nr ^ mask, rem);
        s.xfers(vec![
            Xfer::Recv {
                into: at(1, 0),
                len,
                from: dst,
            },
            Xfer::Send {
                from: at(0, 0),
                len,
                to: dst,
            },
        ]);
        s.combine(at(1, 0), at(0, 0), len, dst < me);
        mask <<= 1;
    }
}

/// Recursive halving: after it, piece `send_idx..last_idx` of buffer 0 is
/// reduced over the pof2 ranks (MPICH's index arithmetic, as in the
/// blocking `coll::reduce::redscat_phase`).
pub(crate) fn reduce_scatter_phase(
    s: &mut Schedule,
    len: usize,
    elem: usize,
    nr: usize,
    pof2: usize,
    real: impl Fn(usize) -> usize,
) -> Pieces {
    let mut p = Pieces::new(len / elem, elem, pof2);
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
        s.xfers(vec![
            Xfer::Recv {
                into: at(1, recv.start),
                len: recv.len(),
                from: dst,
            },
            Xfer::Send {
                from: at(0, send.start),
                len: send.len(),
                to: dst,
            },
        ]);
        s.combine(
            at(1, recv.start),
            at(0, recv.start),
            recv.len(),
            newdst < nr,
        );
        p.send_idx = recv_idx;
        mask <<= 1;
        if mask < pof2 {
            p.last_idx = recv_idx + pof2 / mask;
        }
    }
    p
}

/// Reduce-scatter by recursive halving, then allgather by recursive
/// doubling of the reduced pieces.
pub fn reduce_scatter_allgather(
    s: &mut Schedule,
    len: usize,
    elem: usize,
    nr: usize,
    rem: usize,
    pof2: usize,
) {
    let real = |newdst: usize| real(newdst, rem);
    let mut pieces = reduce_scatter_phase(s, len, elem, nr, pof2, real);
    let mut mask = pof2 >> 1;
    while mask > 0 {
        let newdst = nr ^ mask;
        let dst = real(newdst);
        let (send, recv) = pieces.gather_step(nr, newdst, mask);
        s.xfers(vec![
            Xfer::Recv {
                into: at(0, recv.start),
                len: recv.len(),
                from: dst,
            },
            Xfer::Send {
                from: at(0, send.start),
                len: send.len(),
                to: dst,
            },
        ]);
        mask >>= 1;
    }
}
