//! MPI_Iscatter (MPICH 4.0.2 `MPIR_Iscatter_intra_sched_binomial`, its
//! only intra-communicator schedule): a binomial tree on ranks relative to
//! the root; each rank receives the blocks of its subtree from its parent,
//! then hands each child its subtree's blocks, largest first, one send
//! after the other (a barrier after each, as in MPICH). Buffer 0
//! holds the blocks of relative ranks `rel..` in order; mine is the first.
use super::{at, NbcComm, Schedule, Xfer};

/// `rotated`: at the root, the n blocks in relative rank order (block i
/// for rank (i + root) mod n); elsewhere ignored.
pub fn iscatter(c: &NbcComm, rotated: Vec<u8>, block: usize, root: usize) -> Schedule {
    binomial(c, rotated, block, root)
}

pub fn binomial(c: &NbcComm, rotated: Vec<u8>, block: usize, root: usize) -> Schedule {
    let (n, me) = (c.size(), c.me);
    let rel = (me + n - root) % n;
    let low = if rel == 0 {
        n.next_power_of_two()
    } else {
        1 << rel.trailing_zeros()
    };
    let subtree = low.min(n - rel);
    let buf = if me == root {
        rotated
    } else {
        vec![0; subtree * block]
    };
    let mut s = Schedule::new(c, "MPI_Iscatter", vec![buf]);
    if block == 0 || n == 1 {
        return s;
    }
    if rel != 0 {
        s.xfers(vec![Xfer::Recv {
            into: at(0, 0),
            len: subtree * block,
            from: (me + n - low) % n,
        }]);
    }
    let mut curr = subtree * block;
    let mut mask = low >> 1;
    while mask > 0 {
        if rel + mask < n {
            // One send per round (MPICH puts a barrier after each).
            let cnt = curr - block * mask;
            s.xfers(vec![Xfer::Send {
                from: at(0, block * mask),
                len: cnt,
                to: (me + mask) % n,
            }]);
            curr -= cnt;
        }
        mask >>= 1;
    }
    s
}
