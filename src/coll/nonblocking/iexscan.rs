//! MPI_Iexscan (MPICH 4.0.2 `MPIR_Iexscan_intra_sched_recursive_doubling`):
//! the exchanges of MPI_Iscan; the result is the reduction of the partials
//! received from below only. Buffer 0: the result (untouched on rank 0); 1:
//! the partial reduction (my data first); 2: scratch.
use super::iscan::doubling;
use super::{at, Local, NbcComm, OwnedOp, Schedule};

pub fn iexscan(c: &NbcComm, data: Vec<u8>, op: OwnedOp) -> Schedule {
    recursive_doubling(c, data, op)
}

pub fn recursive_doubling(c: &NbcComm, data: Vec<u8>, op: OwnedOp) -> Schedule {
    let len = data.len();
    let mut s = Schedule::new(c, "MPI_Iexscan", vec![vec![0; len], data, vec![0; len]]).with_op(op);
    if len == 0 {
        return s;
    }
    let mut have = false;
    doubling(&mut s, c.size(), c.me, len, |s| {
        if have {
            s.local(Local::Reduce {
                input: at(2, 0),
                inout: at(0, 0),
                len,
            });
        } else {
            s.local(Local::Copy {
                from: at(2, 0),
                to: at(0, 0),
                len,
            });
            have = true;
        }
    });
    s
}
