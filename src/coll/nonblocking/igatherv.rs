//! MPI_Igatherv (MPICH 4.0.2 `MPIR_Igatherv_allcomm_sched_linear`): the
//! root posts a receive from every other rank with data, in rank order; the
//! others send theirs in one step, synchronous mode from
//! `GATHERV_INTER_SSEND_MIN_PROCS` (32) ranks on, as MPICH does. Buffer 0
//! (at the root) holds the packed blocks in rank order, mine included by
//! the caller.
use super::{at, NbcComm, Schedule, Xfer};
use crate::coll::select::GATHERV_INTER_SSEND_MIN_PROCS;
use crate::coll::Layout;

/// `all`: at the root, the packed layout `l` with my block filled in;
/// elsewhere my data.
pub fn igatherv(c: &NbcComm, all: Vec<u8>, l: Layout, root: usize) -> Schedule {
    linear(c, all, l, root)
}

pub fn linear(c: &NbcComm, all: Vec<u8>, l: Layout, root: usize) -> Schedule {
    let (n, me) = (c.size(), c.me);
    let len = all.len();
    let mut s = Schedule::new(c, "MPI_Igatherv", vec![all]);
    if me == root {
        let x = (0..n)
            .filter(|&i| i != me && l.counts[i] > 0)
            .map(|i| Xfer::Recv {
                into: at(0, l.displs[i]),
                len: l.counts[i],
                from: i,
            })
            .collect();
        s.xfers(x);
    } else if len > 0 {
        let from = at(0, 0);
        s.xfers(vec![if n >= GATHERV_INTER_SSEND_MIN_PROCS {
            Xfer::Ssend {
                from,
                len,
                to: root,
            }
        } else {
            Xfer::Send {
                from,
                len,
                to: root,
            }
        }]);
    }
    s
}
