//! The predicted times of the timing cases at `cpu.scale = 0` (tianhe1a),
//! derived from each algorithm's message schedule through the model
//! equations; shared by the in-memory tests (`coll::tests::timing`) and the
//! real-process test (`tests/coll.rs`, program `coll_timing_all`), which run
//! the same cases. Each case is a communicator of `n` ranks at world ranks
//! 0, 12, 24, ... (every pair 3 hops apart), all starting at time 0; times
//! are per communicator rank, in picoseconds.
//!
//! Self-contained (no crate paths): the equations are written here from the
//! specification, as in `tests/common/model.rs`.
#![allow(dead_code)]

/// bytes / bandwidth in picoseconds, rounded to nearest (ties up).
fn xfer(bytes: usize, bytes_per_sec: u64) -> u64 {
    let num = bytes as u128 * 1_000_000_000_000u128;
    let bw = bytes_per_sec as u128;
    ((num * 2 + bw) / (bw * 2)) as u64
}

/// M(b) = b / Bmem (6.38 GB/s).
pub fn m(b: usize) -> u64 {
    xfer(b, 6_380_000_000)
}
/// L(b) between ranks 3 hops apart: b / Bnet + 15 us + 3 x 0.6 us.
pub fn l(b: usize) -> u64 {
    xfer(b, 4_160_000_000) + 15_000_000 + 3 * 600_000
}
/// One-way eager time E(b) = M(b) + L(b) + M(b).
pub fn e(b: usize) -> u64 {
    2 * m(b) + l(b)
}

/// When a rank that left its previous waiting activity at `t` leaves a
/// sendrecv in which it sends `x` bytes and receives `y` bytes whose sender
/// started sending at `u` (a plain receive is `x = 0`).
pub fn leave(t: u64, x: usize, u: u64, y: usize) -> u64 {
    let s = t + m(x); // the send's tr: the wait starts there
    let ta = u + m(y) + l(y);
    // Not before (nor exactly when) the previous wait ended: such a message
    // may be taken from the host inside that wait or after it, and the p2p
    // engine does not yet give both the same time.
    assert!(ta > t, "the message would arrive inside an earlier wait");
    s.max(ta) + m(y)
}

/// A sendrecv with oneself of `b` bytes entered at `t`: a message to
/// oneself is not copied out nor carried (it arrives at t) and is copied in
/// once: t + M(b).
pub fn self_exchange(t: u64, b: usize) -> u64 {
    t + m(b)
}

/// Gatherv / Scatterv byte counts and displacements (4 ranks).
pub const V_COUNTS: [usize; 4] = [100, 300, 50, 700];
pub const V_DISPLS: [usize; 4] = [0, 100, 400, 450];
/// Allgatherv byte counts (the first n).
pub const AGV_COUNTS: [usize; 4] = [400, 600, 200, 800];

/// Alltoallv bytes from rank s to rank d (symmetric, as in-place needs).
pub fn a2av_count(s: usize, d: usize) -> usize {
    100 * (1 + (s + d) % 3)
}

/// The communicator size of the case of (collective key, algorithm).
pub fn case_size(coll: &str, algo: &str) -> usize {
    match (coll, algo) {
        ("barrier", _) | ("allgather", "bruck") | ("alltoall", "bruck") => 5,
        ("bcast", "binomial") => 16,
        ("bcast", _) => 2,
        ("allgatherv", "bruck" | "ring")
        | ("reduce_scatter" | "reduce_scatter_block", "pairwise") => 3,
        ("alltoall", "pairwise_sendrecv_replace") => 2,
        ("alltoallv", "scattered") => 3,
        ("alltoallv", _) => 2,
        _ => 4,
    }
}

pub(super) fn bcast_binomial(n: usize, b: usize) -> Vec<u64> {
    let mut want = vec![0; n];
    fn walk(rel: usize, at: u64, n: usize, b: usize, want: &mut [u64]) {
        let top = if rel == 0 {
            n.next_power_of_two()
        } else {
            rel & rel.wrapping_neg()
        };
        let mut t = at;
        let mut mask = top >> 1;
        while mask > 0 {
            if rel + mask < n {
                walk(rel + mask, leave(0, 0, t, b), n, b, want);
                t += m(b);
            }
            mask >>= 1;
        }
        want[rel] = t;
    }
    walk(0, 0, n, b, &mut want);
    want
}

/// The predicted time of each rank of the case of (collective key,
/// algorithm); None for an algorithm without a case.
pub fn expected(coll: &str, algo: &str) -> Option<Vec<u64>> {
    let n = case_size(coll, algo);
    Some(match (coll, algo) {
        // 5 ranks: 3 steps of 0-byte messages, in step.
        ("barrier", "dissemination") => vec![3 * leave(0, 0, 0, 0); n],
        // 16 ranks, 1000 bytes from rank 0.
        ("bcast", "binomial") => bcast_binomial(n, 1000),
        // 2 ranks, 1999 bytes from rank 0 (pieces of 1000 and 999).
        ("bcast", "scatter_doubling_allgather" | "scatter_ring_allgather") => {
            let (t0, r1) = (m(999), leave(0, 0, 0, 999));
            vec![leave(t0, 1000, r1, 999), leave(r1, 999, t0, 1000)]
        }
        // 4 ranks, 100 u64 to rank 0.
        ("reduce", "binomial") => {
            let b = 800;
            let r2 = leave(0, 0, 0, b);
            let r0 = leave(0, 0, 0, b);
            vec![leave(r0, 0, r2, b), m(b), r2 + m(b), m(b)]
        }
        // 4 ranks, 8 u64 to rank 0.
        ("reduce", "redscat_gather") => {
            let h = e(32) + e(16);
            let r1 = leave(h, 0, h, 16);
            let r0 = leave(h, 0, h, 16);
            vec![leave(r0, 0, r1, 32), r1 + m(32), h + m(16), h + m(16)]
        }
        // 4 ranks, 100 u64, in place.
        ("allreduce", "recursive_doubling") => vec![2 * e(800); n],
        // 4 ranks, 8 u64, in place.
        ("allreduce", "redscat_allgather") => vec![2 * e(32) + 2 * e(16); n],
        // 4 ranks, 500-byte blocks to rank 0.
        ("gather", "binomial") => {
            let b = 500;
            let r2 = leave(0, 0, 0, b);
            let r0 = leave(0, 0, 0, b);
            vec![leave(r0, 0, r2, 2 * b), m(b), r2 + m(2 * b), m(b)]
        }
        ("gatherv", "linear") => vec![e(700), m(300), m(50), m(700)],
        // 4 ranks, 500-byte blocks from rank 0.
        ("scatter", "binomial") => {
            let b = 500;
            let r2 = leave(0, 0, 0, 2 * b);
            vec![
                m(2 * b) + m(b),
                leave(0, 0, m(2 * b), b),
                r2 + m(b),
                leave(0, 0, r2, b),
            ]
        }
        ("scatterv", "linear") => {
            let c = V_COUNTS;
            let start = [0, 0, m(300), m(300) + m(50)];
            (0..4)
                .map(|i| {
                    if i == 0 {
                        m(300) + m(50) + m(700)
                    } else {
                        leave(0, 0, start[i], c[i])
                    }
                })
                .collect()
        }
        // 500-byte blocks, in place.
        ("allgather", "recursive_doubling") => vec![e(500) + e(1000); n],
        ("allgather", "bruck") => vec![2 * e(500) + e(1000); n],
        ("allgather", "ring") => vec![3 * e(500); n],
        // AGV_COUNTS blocks, in place.
        ("allgatherv", "recursive_doubling") => {
            let c = AGV_COUNTS;
            let a = [
                leave(0, c[0], 0, c[1]),
                leave(0, c[1], 0, c[0]),
                leave(0, c[2], 0, c[3]),
                leave(0, c[3], 0, c[2]),
            ];
            let (lo, hi) = (c[0] + c[1], c[2] + c[3]);
            vec![
                leave(a[0], lo, a[2], hi),
                leave(a[1], lo, a[3], hi),
                leave(a[2], hi, a[0], lo),
                leave(a[3], hi, a[1], lo),
            ]
        }
        ("allgatherv", "bruck") => {
            let c = &AGV_COUNTS[..3];
            let b: Vec<u64> = (0..3).map(|r| leave(0, c[r], 0, c[(r + 1) % 3])).collect();
            (0..3)
                .map(|r| leave(b[r], c[r], b[(r + 2) % 3], c[(r + 2) % 3]))
                .collect()
        }
        ("allgatherv", "ring") => {
            let c = &AGV_COUNTS[..3];
            let u: Vec<u64> = (0..3).map(|r| leave(0, c[r], 0, c[(r + 2) % 3])).collect();
            (0..3)
                .map(|r| leave(u[r], c[(r + 2) % 3], u[(r + 2) % 3], c[(r + 1) % 3]))
                .collect()
        }
        // 5 ranks, 100-byte blocks.
        ("alltoall", "bruck") => vec![2 * e(200) + e(100); n],
        // 4 ranks, 500-byte blocks.
        ("alltoall", "scattered") => {
            // the first send, to oneself, takes no time; the k-th other
            // send starts at (k - 1) M
            let b = 500;
            let wait = 3 * m(b);
            let own = wait + m(b);
            let others = (1..4)
                .map(|k| leave(0, 0, (k as u64 - 1) * m(b), b))
                .max()
                .unwrap();
            vec![own.max(others).max(wait); n]
        }
        ("alltoall", "pairwise") => vec![(n as u64 - 1) * e(500); n],
        // 2 ranks, 500-byte blocks, in place.
        ("alltoall", "pairwise_sendrecv_replace") => {
            let b = 500;
            let s0 = self_exchange(0, b);
            let x1 = leave(0, b, s0, b);
            vec![leave(s0, b, 0, b), self_exchange(x1, b)]
        }
        ("alltoallv", "scattered") => {
            let count = a2av_count;
            // send j of rank s (to s - j) starts after sends 1..j (send 0,
            // to itself, takes no time)
            let start =
                |s: usize, k: usize| (1..k).map(|j| m(count(s, (s + n - j) % n))).sum::<u64>();
            (0..n)
                .map(|r| {
                    let wait = start(r, n);
                    let own = wait + m(count(r, r));
                    let others = (1..n)
                        .map(|k| {
                            let s = (r + k) % n;
                            leave(0, 0, start(s, k), count(s, r))
                        })
                        .max()
                        .unwrap();
                    own.max(others).max(wait)
                })
                .collect()
        }
        ("alltoallv", "pairwise_sendrecv_replace") => {
            let count = a2av_count;
            let s0 = self_exchange(0, count(0, 0));
            let x1 = leave(0, count(1, 0), s0, count(0, 1));
            vec![
                leave(s0, count(0, 1), 0, count(1, 0)),
                self_exchange(x1, count(1, 1)),
            ]
        }
        // recursive_halving, pairwise: 16-byte blocks of u64 (MPI_SUM);
        // noncommutative, recursive_doubling: 2-byte blocks of a
        // non-commutative operator.
        ("reduce_scatter" | "reduce_scatter_block", "recursive_halving") => {
            vec![e(32) + e(16); n]
        }
        ("reduce_scatter" | "reduce_scatter_block", "pairwise") => vec![2 * e(16); n],
        ("reduce_scatter" | "reduce_scatter_block", "noncommutative") => vec![e(4) + e(2); n],
        ("reduce_scatter" | "reduce_scatter_block", "recursive_doubling") => {
            vec![e(6) + e(4); n]
        }
        // 4 ranks, 100 u64.
        ("scan" | "exscan", "recursive_doubling") => vec![2 * e(800); n],
        _ => return None,
    })
}
