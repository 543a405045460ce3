//! MPI_Ireduce (MPICH 4.0.2 ireduce/): a binomial tree
//! (`MPIR_Ireduce_intra_sched_binomial`; for a non-commutative operator
//! rooted at 0, the result then sent to the root) and a reduce-scatter by
//! recursive halving followed by a binomial gather of the pieces to the
//! root (`..._reduce_scatter_gather`). Buffer 0 holds my data (the result
//! at the root); buffer 1 is scratch of the same size.
use super::iallreduce::reduce_scatter_phase;
use super::select;
use super::{at, NbcComm, OwnedOp, Schedule, Xfer};
use crate::coll::pof2_floor;
use crate::coll::reduce::Pieces;

pub fn ireduce(c: &NbcComm, data: Vec<u8>, elem: usize, op: OwnedOp, root: usize) -> Schedule {
    let count = data.len() / elem.max(1);
    let algo = select::ireduce(c.size(), count, data.len(), op.builtin);
    ireduce_with(c, data, elem, op, root, algo)
}

pub fn ireduce_with(
    c: &NbcComm,
    data: Vec<u8>,
    elem: usize,
    op: OwnedOp,
    root: usize,
    algo: select::IreduceAlgo,
) -> Schedule {
    let len = data.len();
    let mut s = Schedule::new(c, "MPI_Ireduce", vec![data, vec![0; len]]).with_op(op);
    if len == 0 || c.size() == 1 {
        return s;
    }
    match algo {
        select::IreduceAlgo::Binomial => binomial(&mut s, c.size(), c.me, len, root),
        select::IreduceAlgo::ReduceScatterGather => {
            reduce_scatter_gather(&mut s, c.size(), c.me, len, elem, root)
        }
    }
    s
}

pub fn binomial(s: &mut Schedule, n: usize, me: usize, len: usize, root: usize) {
    let commutative = s.commutative();
    let lroot = if commutative { root } else { 0 };
    let rel = (me + n - lroot) % n;
    let mut mask = 1;
    while mask < n {
        if mask & rel == 0 {
            let src = rel | mask;
            if src < n {
                s.xfers(vec![Xfer::Recv {
                    into: at(1, 0),
                    len,
                    from: (src + lroot) % n,
                }]);
                s.combine(at(1, 0), at(0, 0), len, false);
            }
        } else {
            s.xfers(vec![Xfer::Send {
                from: at(0, 0),
                len,
                to: ((rel & !mask) + lroot) % n,
            }]);
            break;
        }
        mask <<= 1;
    }
    if !commutative && root != 0 {
        if me == 0 {
            s.xfers(vec![Xfer::Send {
                from: at(0, 0),
                len,
                to: root,
            }]);
        } else if me == root {
            s.xfers(vec![Xfer::Recv {
                into: at(0, 0),
                len,
                from: 0,
            }]);
        }
    }
}

/// MPICH's reduce-scatter + gather (its index arithmetic, as the blocking
/// `coll::reduce::redscat_gather`): the first 2 rem ranks fold pairwise
/// (odd into even), the pof2 others reduce-scatter by recursive halving,
/// then the pieces travel down a binomial tree to the root.
pub fn reduce_scatter_gather(
    s: &mut Schedule,
    n: usize,
    me: usize,
    len: usize,
    elem: usize,
    root: usize,
) {
    let count = len / elem;
    let pof2 = pof2_floor(n);
    let rem = n - pof2;
    let mut newrank: Option<usize>;
    if me < 2 * rem {
        if me % 2 == 1 {
            s.xfers(vec![Xfer::Send {
                from: at(0, 0),
                len,
                to: me - 1,
            }]);
            newrank = None;
        } else {
            s.xfers(vec![Xfer::Recv {
                into: at(1, 0),
                len,
                from: me + 1,
            }]);
            s.combine(at(1, 0), at(0, 0), len, false);
            newrank = Some(me / 2);
        }
    } else {
        newrank = Some(me - rem);
    }
    let real = |nr: usize| if nr < rem { nr * 2 } else { nr + rem };
    let mut pieces = match newrank {
        Some(nr) => reduce_scatter_phase(s, len, elem, nr, pof2, real),
        None => Pieces::new(count, elem, pof2),
    };
    let newroot;
    if root < 2 * rem {
        if root % 2 == 1 {
            if me == root {
                let r = pieces.range(0, 1);
                s.xfers(vec![Xfer::Recv {
                    into: at(0, 0),
                    len: r.len(),
                    from: 0,
                }]);
                newrank = Some(0);
                pieces.send_idx = 0;
                pieces.last_idx = 2;
            } else if newrank == Some(0) {
                let r = pieces.range(0, 1);
                s.xfers(vec![Xfer::Send {
                    from: at(0, r.start),
                    len: r.len(),
                    to: root,
                }]);
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
    let mut j = (pof2.trailing_zeros() as usize).wrapping_sub(1);
    let mut mask = pof2 >> 1;
    while mask > 0 {
        let newdst = nr ^ mask;
        let mut dst = real(newdst);
        if newdst == 0 && root < 2 * rem && root % 2 == 1 {
            dst = root;
        }
        let newdst_tree_root = (newdst >> j) << j;
        let newroot_tree_root = (newroot >> j) << j;
        let (send, recv) = pieces.gather_step(nr, newdst, mask);
        if newdst_tree_root == newroot_tree_root {
            s.xfers(vec![Xfer::Send {
                from: at(0, send.start),
                len: send.len(),
                to: dst,
            }]);
            break;
        } else {
            s.xfers(vec![Xfer::Recv {
                into: at(0, recv.start),
                len: recv.len(),
                from: dst,
            }]);
        }
        mask >>= 1;
        j = j.wrapping_sub(1);
    }
}
