//! MPI_Ibcast (MPICH 4.0.2 ibcast/): a binomial tree
//! (`MPIR_Ibcast_intra_sched_binomial`: receive from the parent, then one
//! round of sends to every child, with no barrier between them); a binomial
//! scatter of `ceil(nbytes / p)`-byte pieces followed by a recursive-doubling
//! allgather (power-of-two sizes) or a ring allgather of the pieces, the
//! scatter's sends in the allgather's first round (MPICH puts no barrier
//! between them). Buffer 0 holds the data (packed bytes).
use super::select::{self, IbcastAlgo};
use super::{at, NbcComm, Schedule, Xfer};

pub fn ibcast(c: &NbcComm, data: Vec<u8>, root: usize) -> Schedule {
    let algo = select::ibcast(c.size(), data.len());
    ibcast_with(c, data, root, algo)
}

pub fn ibcast_with(c: &NbcComm, data: Vec<u8>, root: usize, algo: IbcastAlgo) -> Schedule {
    if c.size() == 1 || data.is_empty() {
        return Schedule::new(c, "MPI_Ibcast", vec![data]);
    }
    match algo {
        IbcastAlgo::Binomial => binomial(c, data, root),
        IbcastAlgo::ScatterRecursiveDoublingAllgather if c.size().is_power_of_two() => {
            scatter_recursive_doubling_allgather(c, data, root)
        }
        // MPICH takes this one only for powers of two; forced on another
        // size, the ring is used.
        IbcastAlgo::ScatterRecursiveDoublingAllgather | IbcastAlgo::ScatterRingAllgather => {
            scatter_ring_allgather(c, data, root)
        }
    }
}

/// Receive from the rank whose relative rank has my lowest set bit
/// cleared; then send to relative ranks `rel + mask` for decreasing masks,
/// all in one round.
pub fn binomial(c: &NbcComm, data: Vec<u8>, root: usize) -> Schedule {
    let (n, me, nbytes) = (c.size(), c.me, data.len());
    let rel = (me + n - root) % n;
    let mut s = Schedule::new(c, "MPI_Ibcast", vec![data]);
    let mut mask = 1;
    while mask < n {
        if rel & mask != 0 {
            let src = (me + n - mask) % n;
            s.xfers(vec![Xfer::Recv {
                into: at(0, 0),
                len: nbytes,
                from: src,
            }]);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    let mut sends = Vec::new();
    while mask > 0 {
        if rel + mask < n {
            sends.push(Xfer::Send {
                from: at(0, 0),
                len: nbytes,
                to: (me + mask) % n,
            });
        }
        mask >>= 1;
    }
    s.xfers(sends);
    s
}

/// `MPII_Iscatter_for_bcast_sched`: binomial scatter of `ss`-byte pieces;
/// relative rank r ends with piece r at offset `r * ss`. The receive from
/// the parent is a round of its own; the sends to the children follow with
/// no barrier between them nor before the allgather's first step, so they
/// are returned for the caller to put in that step's round. Returns `ss`
/// and the sends.
fn scatter(
    s: &mut Schedule,
    n: usize,
    me: usize,
    nbytes: usize,
    root: usize,
) -> (usize, Vec<Xfer>) {
    let rel = (me + n - root) % n;
    let ss = nbytes.div_ceil(n);
    if rel != 0 {
        let low = rel & rel.wrapping_neg();
        let parent = rel - low;
        let len = scatter_sends(parent, n, nbytes, ss)
            .into_iter()
            .find(|&(child, _)| child == rel)
            .map_or(0, |(_, len)| len);
        if len > 0 {
            s.xfers(vec![Xfer::Recv {
                into: at(0, rel * ss),
                len,
                from: (parent + root) % n,
            }]);
        }
    }
    let sends = scatter_sends(rel, n, nbytes, ss)
        .into_iter()
        .map(|(child, len)| Xfer::Send {
            from: at(0, ss * child),
            len,
            to: (child + root) % n,
        })
        .collect();
    (ss, sends)
}

/// The sends of MPICH's binomial scatter at relative rank `rel`: (the
/// child's relative rank, bytes), in order. MPICH takes as a rank's share
/// everything from its piece to the end of the data (`recv_size = nbytes -
/// rel * ss`, "the exact recv_size"), not its subtree's pieces, so a rank
/// whose parent sent it less passes its children more bytes than their
/// pieces (the allgather then overwrites them): 8 ranks, 100000 bytes,
/// relative rank 2 sends 62500 bytes to rank 3, not 12500.
fn scatter_sends(rel: usize, n: usize, nbytes: usize, ss: usize) -> Vec<(usize, usize)> {
    let (mut curr, mut mask) = if rel == 0 {
        (nbytes, n.next_power_of_two() >> 1)
    } else {
        (
            nbytes.saturating_sub(rel * ss),
            (rel & rel.wrapping_neg()) >> 1,
        )
    };
    let mut out = Vec::new();
    while mask > 0 {
        if rel + mask < n {
            let send = curr.saturating_sub(ss * mask);
            if send > 0 {
                out.push((rel + mask, send));
                curr -= send;
            }
        }
        mask >>= 1;
    }
    out
}

/// Bytes of piece `r` of `nbytes` cut in `ss`-byte pieces.
fn piece(nbytes: usize, ss: usize, r: usize) -> usize {
    ss.min(nbytes.saturating_sub(r * ss))
}

/// `MPIR_Ibcast_intra_sched_scatter_recursive_doubling_allgather` on a
/// power-of-two size: in step `mask`, exchange with relative rank
/// `rel ^ mask` the pieces of my aligned subtree of `mask` ranks.
pub fn scatter_recursive_doubling_allgather(c: &NbcComm, data: Vec<u8>, root: usize) -> Schedule {
    let (n, me, nbytes) = (c.size(), c.me, data.len());
    debug_assert!(n.is_power_of_two());
    let rel = (me + n - root) % n;
    let mut s = Schedule::new(c, "MPI_Ibcast", vec![data]);
    let (ss, mut first) = scatter(&mut s, n, me, nbytes, root);
    let span = |first: usize, count: usize| -> (usize, usize) {
        let off = (first * ss).min(nbytes);
        let end = ((first + count) * ss).min(nbytes);
        (off, end - off)
    };
    let mut mask = 1;
    while mask < n {
        let partner = rel ^ mask;
        let (soff, slen) = span(rel & !(mask - 1), mask);
        let (roff, rlen) = span(partner & !(mask - 1), mask);
        let mut xfers = std::mem::take(&mut first);
        xfers.extend([
            Xfer::Send {
                from: at(0, soff),
                len: slen,
                to: (partner + root) % n,
            },
            Xfer::Recv {
                into: at(0, roff),
                len: rlen,
                from: (partner + root) % n,
            },
        ]);
        s.xfers(xfers);
        mask <<= 1;
    }
    s
}

/// `MPIR_Ibcast_intra_sched_scatter_ring_allgather`: scatter, then p - 1
/// ring steps; in step i each rank passes right the piece it got in step
/// i - 1 (a send and a receive per round).
pub fn scatter_ring_allgather(c: &NbcComm, data: Vec<u8>, root: usize) -> Schedule {
    let (n, me, nbytes) = (c.size(), c.me, data.len());
    let mut s = Schedule::new(c, "MPI_Ibcast", vec![data]);
    let (ss, mut first) = scatter(&mut s, n, me, nbytes, root);
    let left = (n + me - 1) % n;
    let right = (me + 1) % n;
    let (mut j, mut jnext) = (me, left);
    for _ in 1..n {
        let rel_j = (j + n - root) % n;
        let rel_jnext = (jnext + n - root) % n;
        let rc = piece(nbytes, ss, rel_j);
        let lc = piece(nbytes, ss, rel_jnext);
        let mut xfers = std::mem::take(&mut first);
        xfers.extend([
            Xfer::Send {
                from: at(0, (rel_j * ss).min(nbytes)),
                len: rc,
                to: right,
            },
            Xfer::Recv {
                into: at(0, (rel_jnext * ss).min(nbytes)),
                len: lc,
                from: left,
            },
        ]);
        s.xfers(xfers);
        j = jnext;
        jnext = (n + jnext - 1) % n;
    }
    s
}
