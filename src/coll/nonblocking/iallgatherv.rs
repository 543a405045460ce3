//! MPI_Iallgatherv (MPICH 4.0.2 iallgatherv/): recursive doubling (power-
//! of-two sizes), Bruck's algorithm, a ring, chosen like Iallgather's by the
//! total size (the ring pipelines blocks in chunks). Buffer 0 holds the packed blocks in rank order (layout `l`),
//! mine filled in before the start.
use super::select::{self, IallgatherAlgo};
use super::{at, Local, NbcComm, Schedule, Xfer};
use crate::coll::select::ALLGATHERV_PIPELINE_MSG_SIZE;
use crate::coll::Layout;

/// `elem`: bytes per element (the ring's chunks are whole elements).
pub fn iallgatherv(c: &NbcComm, all: Vec<u8>, l: Layout, elem: usize) -> Schedule {
    let algo = select::iallgather(c.size(), all.len());
    iallgatherv_with(c, all, l, elem, algo)
}

pub fn iallgatherv_with(
    c: &NbcComm,
    all: Vec<u8>,
    l: Layout,
    elem: usize,
    algo: IallgatherAlgo,
) -> Schedule {
    let n = c.size();
    let total = all.len();
    let mut s = Schedule::new(c, "MPI_Iallgatherv", vec![all]);
    if total == 0 || n == 1 {
        return s;
    }
    match algo {
        IallgatherAlgo::RecursiveDoubling if n.is_power_of_two() => {
            recursive_doubling(&mut s, n, c.me, l, total)
        }
        IallgatherAlgo::Brucks => brucks(&mut s, n, c.me, l, total),
        IallgatherAlgo::RecursiveDoubling | IallgatherAlgo::Ring => {
            ring(&mut s, n, c.me, l, elem.max(1))
        }
    }
    s
}

/// Bytes of the blocks of ranks `a..b` (contiguous in the packed layout).
fn span(l: &Layout, total: usize, a: usize, b: usize) -> (usize, usize) {
    let start = l.displs[a];
    let end = if b < l.counts.len() {
        l.displs[b]
    } else {
        total
    };
    (start, end - start)
}

pub fn recursive_doubling(s: &mut Schedule, n: usize, me: usize, l: Layout, total: usize) {
    let mut mask = 1;
    while mask < n {
        let dst = me ^ mask;
        let mine = me & !(mask - 1);
        let theirs = dst & !(mask - 1);
        let (so, sl) = span(&l, total, mine, mine + mask);
        let (ro, rl) = span(&l, total, theirs, theirs + mask);
        s.xfers(vec![
            Xfer::Recv {
                into: at(0, ro),
                len: rl,
                from: dst,
            },
            Xfer::Send {
                from: at(0, so),
                len: sl,
                to: dst,
            },
        ]);
        mask <<= 1;
    }
}

/// Bruck: buffer 1 holds the blocks of ranks me, me + 1, ... packed one
/// after the other; step k passes the first 2^k of them to me - 2^k.
pub fn brucks(s: &mut Schedule, n: usize, me: usize, l: Layout, total: usize) {
    s.bufs.push(vec![0; total]);
    // Offset in buffer 1 of the i-th block (rank me + i).
    let pos: Vec<usize> = std::iter::once(0)
        .chain((0..n).scan(0, |acc, i| {
            *acc += l.counts[(me + i) % n];
            Some(*acc)
        }))
        .collect();
    s.local(Local::Copy {
        from: at(0, l.displs[me]),
        to: at(1, 0),
        len: l.counts[me],
    });
    let mut curr = 1;
    let mut pof2 = 1;
    while pof2 < n {
        let cnt = pof2.min(n - pof2);
        let src = (me + pof2) % n;
        let dst = (me + n - pof2) % n;
        // What src holds first: the blocks of src, src + 1, ..., i.e. my
        // blocks curr .. curr + cnt.
        s.xfers(vec![
            Xfer::Recv {
                into: at(1, pos[curr]),
                len: pos[curr + cnt] - pos[curr],
                from: src,
            },
            Xfer::Send {
                from: at(1, 0),
                len: (0..cnt).map(|i| l.counts[(me + i) % n]).sum(),
                to: dst,
            },
        ]);
        curr += cnt;
        pof2 *= 2;
    }
    for (i, &p) in pos.iter().take(n).enumerate() {
        let r = (me + i) % n;
        s.local(Local::Copy {
            from: at(1, p),
            to: at(0, l.displs[r]),
            len: l.counts[r],
        });
    }
}

/// `MPIR_Iallgatherv_intra_sched_ring`: each block moves right one chunk at
/// a time, a round per chunk (a receive from the left and a send to the
/// right), a chunk being the smallest block but at least
/// `ALLGATHERV_PIPELINE_MSG_SIZE` bytes, in whole elements of `elem` bytes
/// (as the blocking ring, `coll::allgatherv::ring`).
pub fn ring(s: &mut Schedule, n: usize, me: usize, l: Layout, elem: usize) {
    let left = (n + me - 1) % n;
    let right = (me + 1) % n;
    let mut min = l.counts.iter().copied().min().unwrap_or(0) / elem;
    if min * elem < ALLGATHERV_PIPELINE_MSG_SIZE {
        min = ALLGATHERV_PIPELINE_MSG_SIZE / elem;
    }
    let chunk = min.max(1) * elem;
    for [(sb, sendnow), (rb, recvnow)] in l.ring_steps(n, me, chunk) {
        let mut xfers = Vec::new();
        if recvnow > 0 {
            xfers.push(Xfer::Recv {
                into: at(0, rb),
                len: recvnow,
                from: left,
            });
        }
        if sendnow > 0 {
            xfers.push(Xfer::Send {
                from: at(0, sb),
                len: sendnow,
                to: right,
            });
        }
        s.xfers(xfers);
    }
}
