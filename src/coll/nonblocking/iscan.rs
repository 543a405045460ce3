//! MPI_Iscan (MPICH 4.0.2 `MPIR_Iscan_intra_sched_recursive_doubling`):
//! in step `mask` exchange the partial reduction with `me ^ mask`; a
//! partial from below is folded into both my partial and my result, one
//! from above into my partial only (in rank order). Buffer 0: my data,
//! then the result; 1: the partial reduction; 2: scratch.
use super::{at, Local, NbcComm, OwnedOp, Schedule, Xfer};

pub fn iscan(c: &NbcComm, data: Vec<u8>, op: OwnedOp) -> Schedule {
    recursive_doubling(c, data, op)
}

pub fn recursive_doubling(c: &NbcComm, data: Vec<u8>, op: OwnedOp) -> Schedule {
    let len = data.len();
    let partial = data.clone();
    let mut s = Schedule::new(c, "MPI_Iscan", vec![data, partial, vec![0; len]]).with_op(op);
    if len == 0 {
        return s;
    }
    doubling(&mut s, c.size(), c.me, len, |s| {
        s.local(Local::Reduce {
            input: at(2, 0),
            inout: at(0, 0),
            len,
        })
    });
    s
}

/// The exchanges shared with MPI_Iexscan: `from_below` adds the local work
/// for a partial received from a lower rank (in buffer 2), after it has
/// been folded into the partial (buffer 1).
pub(crate) fn doubling(
    s: &mut Schedule,
    n: usize,
    me: usize,
    len: usize,
    mut from_below: impl FnMut(&mut Schedule),
) {
    let mut mask = 1;
    while mask < n {
        let dst = me ^ mask;
        if dst < n {
            s.xfers(vec![
                Xfer::Recv {
                    into: at(2, 0),
                    len,
                    from: dst,
                },
                Xfer::Send {
                    from: at(1, 0),
                    len,
                    to: dst,
                },
            ]);
            if me > dst {
                s.local(Local::Reduce {
                    input: at(2, 0),
                    inout: at(1, 0),
                    len,
                });
                from_below(s);
            } else {
                s.combine(at(2, 0), at(1, 0), len, false);
            }
        }
        mask <<= 1;
    }
}
