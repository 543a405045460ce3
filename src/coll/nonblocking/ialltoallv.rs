//! MPI_Ialltoallv and MPI_Ialltoallw (MPICH 4.0.2 ialltoallv/, ialltoallw/):
//! in place (`..._inplace`: each pair of ranks swaps its blocks in turn)
//! and blocked (`..._blocked`: batches of up to `ALLTOALL_THROTTLE`
//! receives and sends, skipping empty blocks, a barrier after each batch).
//! Alltoallw's blocks are packed like Alltoallv's. Buffer 0: the packed send
//! blocks (unused in place); 1: the receive blocks.
use super::ialltoall::ALLTOALL_THROTTLE;
use super::{at, Local, NbcComm, Schedule, Xfer};
use crate::coll::Layout;

/// `send` None: MPI_IN_PLACE (`recv` holds the data to send, laid out as
/// `rl`).
pub fn ialltoallv(
    c: &NbcComm,
    name: &'static str,
    send: Option<(Vec<u8>, Layout)>,
    recv: Vec<u8>,
    rl: Layout,
) -> Schedule {
    match send {
        None => inplace(c, name, recv, rl),
        Some((data, sl)) => blocked(c, name, data, sl, recv, rl),
    }
}

pub fn blocked(
    c: &NbcComm,
    name: &'static str,
    send: Vec<u8>,
    sl: Layout,
    recv: Vec<u8>,
    rl: Layout,
) -> Schedule {
    let (n, me) = (c.size(), c.me);
    let mut s = Schedule::new(c, name, vec![send, recv]);
    let mut ii = 0;
    while ii < n {
        let ss = (n - ii).min(ALLTOALL_THROTTLE);
        let mut x = Vec::new();
        for i in 0..ss {
            let src = (me + i + ii) % n;
            if rl.counts[src] > 0 {
                x.push(Xfer::Recv {
                    into: at(1, rl.displs[src]),
                    len: rl.counts[src],
                    from: src,
                });
            }
        }
        for i in 0..ss {
            let dst = (me + 2 * n - i - ii) % n;
            if sl.counts[dst] > 0 {
                x.push(Xfer::Send {
                    from: at(0, sl.displs[dst]),
                    len: sl.counts[dst],
                    to: dst,
                });
            }
        }
        s.xfers(x);
        ii += ALLTOALL_THROTTLE;
    }
    s
}

/// For every pair (i, j), i < j, in order: the two ranks swap their blocks
/// through a copy of the outgoing one.
pub fn inplace(c: &NbcComm, name: &'static str, recv: Vec<u8>, rl: Layout) -> Schedule {
    let (n, me) = (c.size(), c.me);
    let most = rl.counts.iter().copied().max().unwrap_or(0);
    let mut s = Schedule::new(c, name, vec![Vec::new(), recv, vec![0; most]]);
    for i in 0..n {
        for j in i..n {
            if (me == i) == (me == j) {
                continue;
            }
            let peer = if me == i { j } else { i };
            let (off, len) = (rl.displs[peer], rl.counts[peer]);
            s.local(Local::Copy {
                from: at(1, off),
                to: at(2, 0),
                len,
            });
            s.xfers(vec![
                Xfer::Send {
                    from: at(2, 0),
                    len,
                    to: peer,
                },
                Xfer::Recv {
                    into: at(1, off),
                    len,
                    from: peer,
                },
            ]);
        }
    }
    s
}
