//! MPI_Ibarrier: MPICH 4.0.2's `MPIR_Ibarrier_intra_sched_recursive_doubling`
//! (a dissemination barrier despite its name): in round k rank i sends a
//! zero-byte message to (i + 2^k) mod p and receives one from
//! (i - 2^k) mod p; ceil(lg p) rounds.
use super::{NbcComm, Schedule, Xfer};

pub fn ibarrier(c: &NbcComm) -> Schedule {
    dissemination(c)
}

pub fn dissemination(c: &NbcComm) -> Schedule {
    let (n, me) = (c.size(), c.me);
    let mut s = Schedule::new(c, "MPI_Ibarrier", vec![Vec::new()]);
    let mut mask = 1;
    while mask < n {
        let dst = (me + mask) % n;
        let src = (me + n - mask) % n;
        s.xfers(vec![
            Xfer::Send {
                from: super::at(0, 0),
                len: 0,
                to: dst,
            },
            Xfer::Recv {
                into: super::at(0, 0),
                len: 0,
                from: src,
            },
        ]);
        mask <<= 1;
    }
    s
}
