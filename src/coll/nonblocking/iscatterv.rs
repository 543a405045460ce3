//! MPI_Iscatterv (MPICH 4.0.2 `MPIR_Iscatterv_allcomm_sched_linear`): the
//! root sends every other rank its block (those with data) in one step, in
//! rank order; the others receive theirs. Buffer 0 holds the root's packed
//! blocks (`l`), elsewhere my block.
use super::{at, NbcComm, Schedule, Xfer};
use crate::coll::Layout;

/// `mine`: the bytes I receive (elsewhere than at the root).
pub fn iscatterv(c: &NbcComm, all: Vec<u8>, l: Layout, mine: usize, root: usize) -> Schedule {
    linear(c, all, l, mine, root)
}

pub fn linear(c: &NbcComm, all: Vec<u8>, l: Layout, mine: usize, root: usize) -> Schedule {
    let (n, me) = (c.size(), c.me);
    if me == root {
        let mut s = Schedule::new(c, "MPI_Iscatterv", vec![all]);
        let x = (0..n)
            .filter(|&i| i != me && l.counts[i] > 0)
            .map(|i| Xfer::Send {
                from: at(0, l.displs[i]),
                len: l.counts[i],
                to: i,
            })
            .collect();
        s.xfers(x);
        s
    } else {
        let mut s = Schedule::new(c, "MPI_Iscatterv", vec![vec![0; mine]]);
        if mine > 0 {
            s.xfers(vec![Xfer::Recv {
                into: at(0, 0),
                len: mine,
                from: root,
            }]);
        }
        s
    }
}
