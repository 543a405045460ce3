//! MPI_Igather (MPICH 4.0.2 `MPIR_Igather_intra_sched_binomial`, its only
//! intra-communicator schedule): a binomial tree on ranks relative to the
//! root; each rank receives its children's subtrees after its own block,
//! then sends everything it holds to its parent. Buffer 0 holds the blocks
//! of relative ranks `rel..` in order (at the root: all n, relative rank
//! order).
use super::{at, NbcComm, Schedule, Xfer};

pub fn igather(c: &NbcComm, mine: Vec<u8>, root: usize) -> Schedule {
    binomial(c, mine, root)
}

pub fn binomial(c: &NbcComm, mine: Vec<u8>, root: usize) -> Schedule {
    let (n, me, block) = (c.size(), c.me, mine.len());
    let rel = (me + n - root) % n;
    // The blocks of my subtree: rel .. rel + its size.
    let low = if rel == 0 {
        n.next_power_of_two()
    } else {
        1 << rel.trailing_zeros()
    };
    let subtree = low.min(n - rel);
    let mut acc = mine;
    acc.resize(subtree * block, 0);
    let mut s = Schedule::new(c, "MPI_Igather", vec![acc]);
    if block == 0 || n == 1 {
        return s;
    }
    let mut have = 1;
    let mut mask = 1;
    while mask < n {
        if mask & rel == 0 {
            let src_rel = rel | mask;
            if src_rel < n {
                let blocks = mask.min(n - src_rel);
                s.xfers(vec![Xfer::Recv {
                    into: at(0, mask * block),
                    len: blocks * block,
                    from: (src_rel + root) % n,
                }]);
                have = mask + blocks;
            }
        } else {
            s.xfers(vec![Xfer::Send {
                from: at(0, 0),
                len: have * block,
                to: ((rel ^ mask) + root) % n,
            }]);
            break;
        }
        mask <<= 1;
    }
    s
}
