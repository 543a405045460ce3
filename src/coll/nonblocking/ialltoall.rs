//! MPI_Ialltoall (MPICH 4.0.2 ialltoall/): in place (`..._inplace`: each
//! pair of ranks exchanges its two blocks in turn), permuted sendrecv
//! (batches of up to `ALLTOALL_THROTTLE` receives and sends, a barrier
//! after each batch), Bruck's algorithm, pairwise exchange. Buffer 0 holds
//! the packed send blocks (unused in place), buffer 1 the receive blocks.
use super::select::{self, IalltoallAlgo};
use super::{at, Local, NbcComm, Schedule, Xfer};

/// MPIR_CVAR_ALLTOALL_THROTTLE's default.
pub const ALLTOALL_THROTTLE: usize = 32;

/// `send` None: MPI_IN_PLACE (`recv` holds the data to send).
pub fn ialltoall(c: &NbcComm, send: Option<Vec<u8>>, recv: Vec<u8>) -> Schedule {
    let n = c.size();
    let block = recv.len() / n;
    let algo = select::ialltoall(n, block, send.is_none());
    ialltoall_with(c, send, recv, algo)
}

pub fn ialltoall_with(
    c: &NbcComm,
    send: Option<Vec<u8>>,
    recv: Vec<u8>,
    algo: IalltoallAlgo,
) -> Schedule {
    let (n, me) = (c.size(), c.me);
    let block = recv.len() / n;
    let in_place = send.is_none();
    let mut s = Schedule::new(c, "MPI_Ialltoall", vec![send.unwrap_or_default(), recv]);
    if block == 0 {
        return s;
    }
    if in_place {
        inplace(&mut s, n, me, block);
        return s;
    }
    match algo {
        IalltoallAlgo::Inplace | IalltoallAlgo::PermutedSendrecv => {
            permuted_sendrecv(&mut s, n, me, block)
        }
        IalltoallAlgo::Brucks => brucks(&mut s, n, me, block),
        IalltoallAlgo::Pairwise => pairwise(&mut s, n, me, block),
    }
    s
}

/// For every pair (i, j), i <= j, in order: the two ranks swap blocks
/// through a copy of the outgoing one.
pub fn inplace(s: &mut Schedule, n: usize, me: usize, block: usize) {
    s.bufs.push(vec![0; block]);
    for i in 0..n {
        for j in i..n {
            if (me == i) == (me == j) {
                continue;
            }
            let peer = if me == i { j } else { i };
            s.local(Local::Copy {
                from: at(1, peer * block),
                to: at(2, 0),
                len: block,
            });
            s.xfers(vec![
                Xfer::Send {
                    from: at(2, 0),
                    len: block,
                    to: peer,
                },
                Xfer::Recv {
                    into: at(1, peer * block),
                    len: block,
                    from: peer,
                },
            ]);
        }
    }
}

/// Batches of receives from me + i and sends to me - i (myself included).
pub fn permuted_sendrecv(s: &mut Schedule, n: usize, me: usize, block: usize) {
    let mut ii = 0;
    while ii < n {
        let ss = (n - ii).min(ALLTOALL_THROTTLE);
        let mut x = Vec::new();
        for i in 0..ss {
            let src = (me + i + ii) % n;
            x.push(Xfer::Recv {
                into: at(1, src * block),
                len: block,
                from: src,
            });
        }
        for i in 0..ss {
            let dst = (me + 2 * n - i - ii) % n;
            x.push(Xfer::Send {
                from: at(0, dst * block),
                len: block,
                to: dst,
            });
        }
        s.xfers(x);
        ii += ALLTOALL_THROTTLE;
    }
}

/// My own block copied, then n - 1 exchanges: with me ^ i on a power of
/// two, else sending to me + i and receiving from me - i.
pub fn pairwise(s: &mut Schedule, n: usize, me: usize, block: usize) {
    s.local(Local::Copy {
        from: at(0, me * block),
        to: at(1, me * block),
        len: block,
    });
    for i in 1..n {
        let (src, dst) = if n.is_power_of_two() {
            (me ^ i, me ^ i)
        } else {
            ((me + n - i) % n, (me + i) % n)
        };
        s.xfers(vec![
            Xfer::Send {
                from: at(0, dst * block),
                len: block,
                to: dst,
            },
            Xfer::Recv {
                into: at(1, src * block),
                len: block,
                from: src,
            },
        ]);
    }
}

/// Bruck: rotate so block i is for rank me + i; in step 2^k send the blocks
/// whose index has bit k to me + 2^k (packed), receive theirs from
/// me - 2^k into the same places; then undo the rotation (block i lands at
/// rank me - i).
pub fn brucks(s: &mut Schedule, n: usize, me: usize, block: usize) {
    // buffer 2: the rotated blocks; buffer 3: packing scratch.
    s.bufs.push(vec![0; n * block]);
    s.bufs.push(vec![0; n * block]);
    for i in 0..n {
        s.local(Local::Copy {
            from: at(0, ((me + i) % n) * block),
            to: at(2, i * block),
            len: block,
        });
    }
    let mut pof2 = 1;
    while pof2 < n {
        let dst = (me + pof2) % n;
        let src = (me + n - pof2) % n;
        let idx: Vec<usize> = (1..n).filter(|b| b & pof2 != 0).collect();
        for (k, &b) in idx.iter().enumerate() {
            s.local(Local::Copy {
                from: at(2, b * block),
                to: at(3, k * block),
                len: block,
            });
        }
        let len = idx.len() * block;
        // Received packed into the upper half of buffer 3, then spread.
        let off = n.div_ceil(2) * block;
        if s.bufs[3].len() < off + len {
            s.bufs[3].resize(off + len, 0);
        }
        s.xfers(vec![
            Xfer::Send {
                from: at(3, 0),
                len,
                to: dst,
            },
            Xfer::Recv {
                into: at(3, off),
                len,
                from: src,
            },
        ]);
        for (k, &b) in idx.iter().enumerate() {
            s.local(Local::Copy {
                from: at(3, off + k * block),
                to: at(2, b * block),
                len: block,
            });
        }
        pof2 *= 2;
    }
    // Block i of buffer 2 now came from rank me - i.
    for i in 0..n {
        s.local(Local::Copy {
            from: at(2, i * block),
            to: at(1, ((me + n - i) % n) * block),
            len: block,
        });
    }
}
