//! MPI_Iallgather (MPICH 4.0.2 iallgather/): recursive doubling (power-of-
//! two sizes), Bruck's algorithm, a ring. Buffer 0 holds the n blocks in
//! rank order, mine filled in before the start.
use super::select::{self, IallgatherAlgo};
use super::{at, Local, NbcComm, Schedule, Xfer};

pub fn iallgather(c: &NbcComm, all: Vec<u8>) -> Schedule {
    let algo = select::iallgather(c.size(), all.len());
    iallgather_with(c, all, algo)
}

pub fn iallgather_with(c: &NbcComm, all: Vec<u8>, algo: IallgatherAlgo) -> Schedule {
    let n = c.size();
    let block = all.len() / n;
    let mut s = Schedule::new(c, "MPI_Iallgather", vec![all]);
    if block == 0 || n == 1 {
        return s;
    }
    match algo {
        IallgatherAlgo::RecursiveDoubling if n.is_power_of_two() => {
            recursive_doubling(&mut s, n, c.me, block)
        }
        IallgatherAlgo::Brucks => brucks(&mut s, n, c.me, block),
        // MPICH takes recursive doubling only on powers of two.
        IallgatherAlgo::RecursiveDoubling | IallgatherAlgo::Ring => ring(&mut s, n, c.me, block),
    }
    s
}

/// Step `mask`: exchange my aligned subtree of `mask` blocks with that of
/// `me ^ mask`.
pub fn recursive_doubling(s: &mut Schedule, n: usize, me: usize, block: usize) {
    let mut mask = 1;
    while mask < n {
        let dst = me ^ mask;
        let mine = me & !(mask - 1);
        let theirs = dst & !(mask - 1);
        s.xfers(vec![
            Xfer::Recv {
                into: at(0, theirs * block),
                len: mask * block,
                from: dst,
            },
            Xfer::Send {
                from: at(0, mine * block),
                len: mask * block,
                to: dst,
            },
        ]);
        mask <<= 1;
    }
}

/// Bruck: in buffer 1, block i is that of rank me + i; step k passes the
/// first 2^k blocks to me - 2^k; then the blocks go to their places.
pub fn brucks(s: &mut Schedule, n: usize, me: usize, block: usize) {
    s.bufs.push(vec![0; n * block]);
    s.local(Local::Copy {
        from: at(0, me * block),
        to: at(1, 0),
        len: block,
    });
    let mut curr = 1;
    let mut pof2 = 1;
    while pof2 <= n / 2 {
        let src = (me + pof2) % n;
        let dst = (me + n - pof2) % n;
        s.xfers(vec![
            Xfer::Recv {
                into: at(1, curr * block),
                len: curr * block,
                from: src,
            },
            Xfer::Send {
                from: at(1, 0),
                len: curr * block,
                to: dst,
            },
        ]);
        curr *= 2;
        pof2 *= 2;
    }
    let rem = n - pof2;
    if rem > 0 {
        let src = (me + pof2) % n;
        let dst = (me + n - pof2) % n;
        s.xfers(vec![
            Xfer::Recv {
                into: at(1, curr * block),
                len: rem * block,
                from: src,
            },
            Xfer::Send {
                from: at(1, 0),
                len: rem * block,
                to: dst,
            },
        ]);
    }
    for i in 0..n {
        s.local(Local::Copy {
            from: at(1, i * block),
            to: at(0, ((me + i) % n) * block),
            len: block,
        });
    }
}

/// n - 1 steps; in step i each rank passes right the block it got in step
/// i - 1.
pub fn ring(s: &mut Schedule, n: usize, me: usize, block: usize) {
    let left = (n + me - 1) % n;
    let right = (me + 1) % n;
    let (mut j, mut jnext) = (me, left);
    for _ in 1..n {
        s.xfers(vec![
            Xfer::Send {
                from: at(0, j * block),
                len: block,
                to: right,
            },
            Xfer::Recv {
                into: at(0, jnext * block),
                len: block,
                from: left,
            },
        ]);
        j = jnext;
        jnext = (n + jnext - 1) % n;
    }
}
