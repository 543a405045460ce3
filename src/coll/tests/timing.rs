//! Predicted times at `cpu.scale = 0` equal the algorithm's message schedule
//! walked through the model equations (tianhe1a), one configuration per
//! algorithm; and the entry points pick MPICH's algorithm on both sides of
//! each threshold.
//!
//! Most tests use a communicator of ranks on distinct nodes of one board
//! (world ranks 0, 12, 24, ...), so every pair is `h = 3` hops apart:
//! * `M(b) = b / Bmem` (Bmem = 6.38 GB/s): copying b bytes out or in;
//! * `L(b) = b / Bnet + l(3)` (Bnet = 4.16 GB/s, l(3) = 15 us + 3 x 0.6 us):
//!   the link; a message to oneself has h = 0, so `L = M(b)`;
//! * an eager send started at `t` completes at `tr = t + M(b)` and arrives at
//!   `ta = tr + L(b)` (Eq. 3-4);
//! * a sendrecv (MPIC_Sendrecv) posts the receive, starts the send, waits
//!   for the send (eager: done at once, a zero-length wait at `tr`), then
//!   waits for the receive from `s = tr`;
//! * a receive is handled at `ta` when the message arrives during its wait
//!   (`ta >= s`), at `s` when it arrived after the receiver's previous
//!   waiting activity ended but before this one began (Algorithm 3:
//!   progress intervals are half-open), and at the moment the receive is
//!   posted when it arrived before the previous waiting activity ended (the
//!   copy out of the unexpected queue is charged from there, wherever the
//!   host delivered it); it completes `M(b)` later. A blocking send's wait
//!   counts as a (zero-length) waiting activity. So a rank leaving its
//!   previous wait at `t`, sending `x` bytes and receiving `y` bytes sent
//!   at `u`, leaves at `max(t + M(x), h + M(y))` with `h = t` if
//!   `ta = u + M(y) + L(y) < t`, else `h = max(t + M(x), ta)` ([`leave`]);
//!   the one-way eager time is `E(b) = 2 M(b) + L(b)`.
//!
//! All messages here are eager (at most 128 KiB). One case still depends on
//! the host: a message arriving exactly when the receiver's previous wait
//! ended (`ta = t`) while the receiver sends first (`x > 0`). If the host
//! delivered it during that wait, it was handled there at `ta` and the
//! receive completes at `t + M(y)`; if later, it is handled at `s` and
//! completes at `s + M(y)`. [`leave`] asserts that a configuration avoids
//! it; [`leave_behind`] takes the one form of it that the host cannot
//! decide: the message trails, from the same sender, the eager message
//! whose receive ended the previous wait, and that wait was the receiver's
//! first (messages from one sender are read in order, and the wait stopped
//! reading at the earlier one), so it is handled at `s`. The scatter +
//! allgather broadcasts have it at every odd relative rank: its scatter
//! parent's last scatter message and first allgather message (pieces of
//! the same size) come back to back.
use super::{all, on_comm, Shape};
use crate::coll::select::*;
use crate::coll::*;
use crate::model::transfer_time;
use crate::p2p::testing::MemLink;

type C<'a, 'b> = &'a mut Comm<'b, MemLink>;

/// M(b) = b / Bmem.
fn m(b: usize) -> u64 {
    transfer_time(b as u64, 6_380_000_000).ps()
}
/// L(b) between ranks 3 hops apart: b / Bnet + 15 us + 3 x 0.6 us.
fn l(b: usize) -> u64 {
    transfer_time(b as u64, 4_160_000_000).ps() + 15_000_000 + 3 * 600_000
}
/// One-way eager time E(b) = M(b) + L(b) + M(b).
fn e(b: usize) -> u64 {
    2 * m(b) + l(b)
}

/// When a rank that left its previous waiting activity at `t` leaves a
/// sendrecv in which it sends `x` bytes and receives `y` bytes whose sender
/// started sending at `u` (a plain receive is `x = 0`).
fn leave(t: u64, x: usize, u: u64, y: usize) -> u64 {
    arrive(t, x, u, y, false)
}

/// [`leave`] for a message that may arrive exactly at `t` because it trails,
/// from the same sender, the message whose receive ended the receiver's
/// first wait, at `t`.
fn leave_behind(t: u64, x: usize, u: u64, y: usize) -> u64 {
    arrive(t, x, u, y, true)
}

fn arrive(t: u64, x: usize, u: u64, y: usize, behind: bool) -> u64 {
    let s = t + m(x); // the send's tr: the wait for the receive starts there
    let ta = u + m(y) + l(y);
    assert!(
        ta != t || s == t || behind,
        "a {y}-byte message sent at {u} would arrive exactly when the previous wait \
         ended ({t}), before a {x}-byte send: its handling time depends on when the \
         host delivers it"
    );
    let h = if ta < t { t } else { s.max(ta) };
    s.max(h + m(y))
}

/// A sendrecv with oneself of `b` bytes entered at `t`: the message arrives
/// at t + M(b) + M(b) (h = 0) and is copied in: t + 3 M(b).
fn self_exchange(t: u64, b: usize) -> u64 {
    t + 3 * m(b)
}

/// `n` ranks on distinct nodes of one board: all pairs 3 hops apart.
fn spread(n: usize) -> Shape {
    let ranks: Vec<u32> = (0..n as u32).map(|i| 12 * i).collect();
    Shape::of(12 * (n as u32 - 1) + 1, &ranks)
}

/// Final virtual time of each communicator rank.
fn times<F>(shape: &Shape, f: F) -> Vec<u64>
where
    F: Fn(C) + Send + Sync + 'static,
{
    let (t, fails) = on_comm(shape, move |c, _| f(c));
    assert!(fails.is_empty());
    shape.ranks.iter().map(|&w| t[w as usize]).collect()
}

fn sum_op<R>(f: impl FnOnce(&mut Op) -> R) -> R {
    let mut g = |a: &[u8], b: &mut [u8]| {
        for (x, y) in a.chunks(8).zip(b.chunks_mut(8)) {
            let s = u64::from_le_bytes(x.try_into().unwrap())
                .wrapping_add(u64::from_le_bytes((&*y).try_into().unwrap()));
            y.copy_from_slice(&s.to_le_bytes());
        }
    };
    f(&mut Op {
        commutative: true,
        builtin: true,
        apply: &mut g,
    })
}

/// A non-commutative user operator (its result does not matter here).
fn noncomm_op<R>(f: impl FnOnce(&mut Op) -> R) -> R {
    let mut g = |a: &[u8], b: &mut [u8]| {
        for (x, y) in a.iter().zip(b.iter_mut()) {
            *y = x.wrapping_mul(3).wrapping_add(*y);
        }
    };
    f(&mut Op {
        commutative: false,
        builtin: false,
        apply: &mut g,
    })
}

#[test]
fn barrier_dissemination() {
    // 5 ranks: ceil(lg 5) = 3 steps; in each, every rank sends 0 bytes to
    // rank+2^k and receives from rank-2^k, all in step: 3 l(3).
    let t = times(&spread(5), |c| {
        barrier::barrier_with(c, BarrierAlgo::Dissemination)
    });
    let step = leave(0, 0, 0, 0);
    assert_eq!(step, l(0));
    assert_eq!(t, vec![3 * l(0); 5]);
}

#[test]
fn bcast_binomial() {
    // 16 ranks, 1000 bytes from rank 0. A rank receives at R (its parent's
    // k-th send starts at R_parent + k M and takes E), then sends to its
    // children for decreasing masks, M each. The deepest leaf, rank 15
    // (0 -> 8 -> 12 -> 14 -> 15, each the first send), gets it at 4 E.
    let (n, b) = (16, 1000);
    let t = times(&spread(n), move |c| {
        let mut buf = vec![7u8; b];
        bcast::bcast_with(c, &mut buf, 0, BcastAlgo::Binomial);
    });
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
    assert_eq!(want[15], 4 * e(b));
    assert_eq!(want[0], 4 * m(b));
    assert_eq!(t, want);
}

/// Both scatter + allgather broadcasts on 2 ranks, 1999 bytes from rank 0
/// (pieces of 1000 and 999 bytes): rank 0 sends piece 1 (999 bytes), then
/// one exchange: piece 0 to rank 1, piece 1 back. Piece 0 arrives after
/// rank 1's scatter wait ended but before its exchange wait began (it first
/// copies its own 999 bytes out): handled when that wait begins.
fn bcast_two_ranks(algo: BcastAlgo) {
    let t = times(&spread(2), move |c| {
        let mut buf = vec![1u8; 1999];
        bcast::bcast_with(c, &mut buf, 0, algo);
    });
    let (t0, r1) = (m(999), leave(0, 0, 0, 999));
    let want = vec![leave(t0, 1000, r1, 999), leave(r1, 999, t0, 1000)];
    assert_eq!(want[1], r1 + m(999) + m(1000), "{algo:?}");
    let ring = algo == BcastAlgo::ScatterRingAllgather;
    assert_eq!(scatter_allgather_want(2, 1999, ring), want, "{algo:?}");
    assert_eq!(t, want, "{algo:?}");
}

/// Both scatter + allgather broadcasts of `nbytes` from rank 0 on `n` ranks
/// (a power of two), walked step by step; pieces of `ss = ceil(nbytes / n)`
/// bytes, the last one shorter.
/// * Scatter (binomial): rank r, whose lowest set bit is `low` (`n` for the
///   root), holds pieces r..r + low. It receives them from r - low, then for
///   mask = low / 2 down to 1 hands pieces r + mask..r + 2 mask to r + mask,
///   one blocking send (M) after the other.
/// * Doubling allgather: in step `mask`, r exchanges the pieces of its
///   aligned subtree of `mask` ranks with r ^ mask.
/// * Ring allgather: in step i, r sends piece r + 1 - i to r + 1 and
///   receives piece r - i from r - 1.
///
/// In both, the first allgather message to an odd rank r comes from r - 1,
/// its scatter parent, right after the scatter message; with pieces of the
/// same size it arrives exactly when that receive ended ([`leave_behind`]).
fn scatter_allgather_want(n: usize, nbytes: usize, ring: bool) -> Vec<u64> {
    let ss = nbytes.div_ceil(n);
    let piece = |r: usize| ss.min(nbytes.saturating_sub(r * ss));
    let pieces = |a: usize, b: usize| (a..b.min(n)).map(piece).sum::<usize>();
    let first = |r: usize| -> fn(u64, usize, u64, usize) -> u64 {
        if r % 2 == 1 {
            leave_behind
        } else {
            leave
        }
    };
    // Scatter: a parent comes before its children in rank order.
    let mut got = vec![0; n];
    let mut t = vec![0; n];
    for r in 0..n {
        let low = if r == 0 { n } else { r & r.wrapping_neg() };
        let mut now = got[r];
        let mut mask = low / 2;
        while mask > 0 {
            let b = pieces(r + mask, r + 2 * mask);
            got[r + mask] = leave(0, 0, now, b);
            now += m(b);
            mask /= 2;
        }
        t[r] = now;
    }
    if ring {
        for i in 1..n {
            let prev = t.clone();
            for r in 0..n {
                let left = (r + n - 1) % n;
                let (x, y) = (piece((r + n + 1 - i) % n), piece((r + n - i) % n));
                let f = if i == 1 { first(r) } else { leave };
                t[r] = f(prev[r], x, prev[left], y);
            }
        }
    } else {
        let mut mask = 1;
        while mask < n {
            let prev = t.clone();
            let subtree = |r: usize| pieces(r & !(mask - 1), (r & !(mask - 1)) + mask);
            for r in 0..n {
                let q = r ^ mask;
                let f = if mask == 1 { first(r) } else { leave };
                t[r] = f(prev[r], subtree(r), prev[q], subtree(q));
            }
            mask *= 2;
        }
    }
    t
}

#[test]
fn bcast_scatter_allgather_on_4_and_8_ranks() {
    // 7999 bytes: pieces of 2000 (4 ranks) or 1000 (8 ranks) bytes, the
    // last one byte shorter. Not the doubling allgather on 8 ranks: there
    // rank 0's second-step message to rank 2 (and rank 4's to rank 6)
    // arrives exactly when the receiver's first step ended, after a message
    // from another rank, and the engine's time still depends on the host.
    for (algo, sizes) in [
        (BcastAlgo::ScatterDoublingAllgather, &[4][..]),
        (BcastAlgo::ScatterRingAllgather, &[4, 8][..]),
    ] {
        for &n in sizes {
            let t = times(&spread(n), move |c| {
                let mut buf = vec![1u8; 7999];
                bcast::bcast_with(c, &mut buf, 0, algo);
            });
            let ring = algo == BcastAlgo::ScatterRingAllgather;
            assert_eq!(
                t,
                scatter_allgather_want(n, 7999, ring),
                "{algo:?} {n} ranks"
            );
        }
    }
}

#[test]
fn bcast_scatter_doubling_allgather() {
    bcast_two_ranks(BcastAlgo::ScatterDoublingAllgather);
}

#[test]
fn bcast_scatter_ring_allgather() {
    bcast_two_ranks(BcastAlgo::ScatterRingAllgather);
}

#[test]
fn reduce_binomial() {
    // 4 ranks, 100 u64 to rank 0: 1 -> 0 and 3 -> 2 at once, then 2 -> 0.
    let b = 800;
    let t = times(&spread(4), move |c| {
        let mut buf = vec![1u8; b];
        sum_op(|op| reduce::reduce_with(c, &mut buf, 8, op, 0, ReduceAlgo::Binomial));
    });
    let r2 = leave(0, 0, 0, b);
    let r0 = leave(0, 0, 0, b);
    assert_eq!(t, vec![leave(r0, 0, r2, b), m(b), r2 + m(b), m(b)]);
    assert_eq!(t[0], 2 * e(b));
}

#[test]
fn reduce_redscat_gather() {
    // 4 ranks, 8 u64 (four 16-byte pieces) to rank 0. Recursive halving:
    // 32 bytes with rank ^ 1, 16 with rank ^ 2, everyone in step. Gather:
    // 2 -> 0 and 3 -> 1 (16 bytes), then 1 -> 0 (32 bytes).
    let t = times(&spread(4), |c| {
        let mut buf = vec![1u8; 64];
        sum_op(|op| reduce::reduce_with(c, &mut buf, 8, op, 0, ReduceAlgo::RedscatGather));
    });
    let h = e(32) + e(16);
    let r1 = leave(h, 0, h, 16);
    let r0 = leave(h, 0, h, 16);
    assert_eq!(
        t,
        vec![leave(r0, 0, r1, 32), r1 + m(32), h + m(16), h + m(16)]
    );
    assert_eq!(t[0], 2 * e(32) + 2 * e(16));
}

#[test]
fn allreduce_recursive_doubling() {
    // 4 ranks, 800 bytes: two symmetric exchanges of the whole buffer.
    let t = times(&spread(4), |c| {
        let mut buf = vec![1u8; 800];
        sum_op(|op| {
            allreduce::allreduce_with(c, &mut buf, 8, op, AllreduceAlgo::RecursiveDoubling)
        });
    });
    assert_eq!(t, vec![2 * e(800); 4]);
}

#[test]
fn allreduce_redscat_allgather() {
    // 4 ranks, 8 u64: halving exchanges 32 then 16 bytes, the allgather 16
    // then 32, everyone in step.
    let t = times(&spread(4), |c| {
        let mut buf = vec![1u8; 64];
        sum_op(|op| allreduce::allreduce_with(c, &mut buf, 8, op, AllreduceAlgo::RedscatAllgather));
    });
    assert_eq!(t, vec![2 * e(32) + 2 * e(16); 4]);
}

/// Allreduce by recursive doubling of `b` bytes on `n` ranks, walked step
/// by step: even ranks r < 2 rem (rem = n - pof2) send their data to r + 1
/// (a blocking send) and sit out; the other pof2 ranks exchange the whole
/// buffer with new rank `nr ^ mask` for mask = 1, 2, ...; then r + 1 sends
/// the result back to r.
fn allreduce_doubling_want(n: usize, b: usize) -> Vec<u64> {
    let pof2 = 1 << (usize::BITS - 1 - n.leading_zeros());
    let rem = n - pof2;
    let real = |nr: usize| if nr < rem { 2 * nr + 1 } else { nr + rem };
    let mut t = vec![0; n];
    for r in (0..2 * rem).step_by(2) {
        t[r] = m(b);
        t[r + 1] = leave(0, 0, 0, b);
    }
    let mut mask = 1;
    while mask < pof2 {
        let prev = t.clone();
        for nr in 0..pof2 {
            let (a, q) = (real(nr), real(nr ^ mask));
            t[a] = leave(prev[a], b, prev[q], b);
        }
        mask *= 2;
    }
    for r in (0..2 * rem).step_by(2) {
        t[r] = leave(t[r], 0, t[r + 1], b);
        t[r + 1] += m(b);
    }
    t
}

#[test]
fn allreduce_recursive_doubling_non_power_of_two() {
    // 3 ranks, 800 bytes: rank 1 gets rank 0's data at E. Rank 2's first
    // exchange message arrives at M + L, inside that wait: rank 1 receives
    // it from when it posts the receive (E) and is done at E + M, with its
    // own send. Rank 2 gets rank 1's at E + M + L + M = 2E; rank 0 gets the
    // result E after rank 1 leaves.
    let b = 800;
    let run = |n: usize| {
        times(&spread(n), move |c| {
            let mut buf = vec![1u8; b];
            sum_op(|op| {
                allreduce::allreduce_with(c, &mut buf, 8, op, AllreduceAlgo::RecursiveDoubling)
            });
        })
    };
    let want = allreduce_doubling_want(3, b);
    assert_eq!(want, vec![2 * e(b) + m(b), e(b) + 2 * m(b), 2 * e(b)]);
    assert_eq!(run(3), want);
    // (Not 7 ranks: there rank 5's second-step message to rank 1 arrives
    // exactly when rank 1's first step ended, after rank 3's message, and
    // the engine's time still depends on the host.)
    for n in [5, 6] {
        assert_eq!(run(n), allreduce_doubling_want(n, b), "{n} ranks");
    }
}

#[test]
fn allreduce_redscat_allgather_non_power_of_two() {
    // 3 ranks, 101 u64 (808 bytes): rank 0 folds into rank 1; new ranks 0
    // (rank 1) and 1 (rank 2) hold pieces of 50 and 51 elements (400 and
    // 408 bytes). Halving: rank 1 sends piece 1 and gets piece 0, rank 2
    // the other way; the allgather swaps the reduced pieces back; rank 1
    // returns the result to rank 0.
    let t = times(&spread(3), |c| {
        let mut buf = vec![1u8; 808];
        sum_op(|op| allreduce::allreduce_with(c, &mut buf, 8, op, AllreduceAlgo::RedscatAllgather));
    });
    let r1 = leave(0, 0, 0, 808);
    // Rank 2's piece 0 arrived during rank 1's fold wait: received from
    // r1, done r1 + M(400), before rank 1's own send of 408 bytes.
    let h1 = leave(r1, 408, 0, 400);
    assert_eq!(h1, r1 + m(408));
    let h2 = leave(0, 400, r1, 408);
    let g1 = leave(h1, 400, h2, 408);
    // Rank 1's piece 0 arrives during rank 2's halving wait.
    let g2 = leave(h2, 408, h1, 400);
    assert_eq!(g2, h2 + m(408));
    assert_eq!(t, vec![leave(m(808), 0, g1, 808), g1 + m(808), g2]);
}

#[test]
fn gather_binomial() {
    // 4 ranks, 500-byte blocks to rank 0: 1 -> 0 and 3 -> 2, then 2 -> 0
    // with two blocks.
    let b = 500;
    let t = times(&spread(4), move |c| {
        let mut recv = vec![0u8; 4 * b];
        gather::gather_with(c, &vec![1u8; b], &mut recv, 0, GatherAlgo::Binomial);
    });
    let r2 = leave(0, 0, 0, b);
    let r0 = leave(0, 0, 0, b);
    assert_eq!(t, vec![leave(r0, 0, r2, 2 * b), m(b), r2 + m(2 * b), m(b)]);
    assert_eq!(t[0], e(b) + e(2 * b));
}

#[test]
fn gatherv_linear() {
    // The root waits for all three at once; each message takes E(count).
    let counts = [100, 300, 50, 700];
    let displs = [0, 100, 400, 450];
    let t = times(&spread(4), move |c| {
        let mut recv = vec![0u8; 1150];
        let layout = Layout {
            counts: &counts,
            displs: &displs,
        };
        let mine = vec![1u8; counts[c.me]];
        gatherv::gatherv_with(c, &mine, &mut recv, layout, 0, GathervAlgo::Linear);
    });
    assert_eq!(t, vec![e(700), m(300), m(50), m(700)]);
}

#[test]
fn scatter_binomial() {
    // 4 ranks, 500-byte blocks from rank 0: 0 sends blocks 2-3 to 2, then
    // block 1 to 1; 2 sends block 3 to 3.
    let b = 500;
    let t = times(&spread(4), move |c| {
        let send = vec![1u8; if c.me == 0 { 4 * b } else { 0 }];
        let mut recv = vec![0u8; b];
        scatter::scatter_with(c, &send, &mut recv, 0, ScatterAlgo::Binomial);
    });
    let r2 = leave(0, 0, 0, 2 * b);
    assert_eq!(
        t,
        vec![
            m(2 * b) + m(b),
            leave(0, 0, m(2 * b), b),
            r2 + m(b),
            leave(0, 0, r2, b)
        ]
    );
}

#[test]
fn scatterv_linear() {
    // The root starts its three sends one after the other (M each), then
    // waits; rank i's message leaves when the root's i-th send starts.
    let counts = [100, 300, 50, 700];
    let displs = [0, 100, 400, 450];
    let t = times(&spread(4), move |c| {
        let layout = Layout {
            counts: &counts,
            displs: &displs,
        };
        let send = vec![1u8; 1150];
        let mut recv = vec![0u8; counts[c.me]];
        scatterv::scatterv_with(c, &send, layout, &mut recv, 0, ScattervAlgo::Linear);
    });
    let start = [0, 0, m(300), m(300) + m(50)];
    let want: Vec<u64> = (0..4)
        .map(|i| {
            if i == 0 {
                m(300) + m(50) + m(700)
            } else {
                leave(0, 0, start[i], counts[i])
            }
        })
        .collect();
    assert_eq!(t, want);
}

#[test]
fn allgather_recursive_doubling() {
    // 4 ranks, 500-byte blocks: exchange 1 block with rank ^ 1, 2 with
    // rank ^ 2.
    let t = times(&spread(4), |c| {
        let mut buf = vec![1u8; 2000];
        allgather::allgather_with(c, &mut buf, AllgatherAlgo::RecursiveDoubling);
    });
    assert_eq!(t, vec![e(500) + e(1000); 4]);
}

#[test]
fn allgather_bruck() {
    // 5 ranks, 500-byte blocks: receive 1 block from rank+1, 2 from rank+2,
    // then the last 5 - 4 = 1 from rank+4, everyone in step.
    let t = times(&spread(5), |c| {
        let mut buf = vec![1u8; 2500];
        allgather::allgather_with(c, &mut buf, AllgatherAlgo::Bruck);
    });
    assert_eq!(t, vec![2 * e(500) + e(1000); 5]);
}

#[test]
fn allgather_ring() {
    // 4 ranks: 3 steps of one 500-byte block to the right.
    let t = times(&spread(4), |c| {
        let mut buf = vec![1u8; 2000];
        allgather::allgather_with(c, &mut buf, AllgatherAlgo::Ring);
    });
    assert_eq!(t, vec![3 * e(500); 4]);
}

const COUNTS: [usize; 4] = [400, 600, 200, 800];

fn allgatherv_times(n: usize, algo: AllgathervAlgo) -> Vec<u64> {
    times(&spread(n), move |c| {
        let counts = &COUNTS[..c.size()];
        let displs: Vec<usize> = (0..counts.len())
            .map(|i| counts[..i].iter().sum())
            .collect();
        let layout = Layout {
            counts,
            displs: &displs,
        };
        let mut buf = vec![1u8; layout.total()];
        allgatherv::allgatherv_with(c, &mut buf, layout, 4, algo);
    })
}

#[test]
fn allgatherv_recursive_doubling() {
    // 4 ranks, blocks of 400, 600, 200, 800 bytes: exchange my block with
    // rank ^ 1, then both blocks with rank ^ 2.
    let c = COUNTS;
    let t = allgatherv_times(4, AllgathervAlgo::RecursiveDoubling);
    let a = [
        leave(0, c[0], 0, c[1]),
        leave(0, c[1], 0, c[0]),
        leave(0, c[2], 0, c[3]),
        leave(0, c[3], 0, c[2]),
    ];
    let (lo, hi) = (c[0] + c[1], c[2] + c[3]);
    let want = vec![
        leave(a[0], lo, a[2], hi),
        leave(a[1], lo, a[3], hi),
        leave(a[2], hi, a[0], lo),
        leave(a[3], hi, a[1], lo),
    ];
    assert_eq!(t, want);
}

#[test]
fn allgatherv_bruck() {
    // 3 ranks, blocks of 400, 600, 200 bytes: rank r sends its block to r-1
    // and gets block r+1; then, the last step, sends its block to r+1 and
    // gets block r+2.
    let c = &COUNTS[..3];
    let t = allgatherv_times(3, AllgathervAlgo::Bruck);
    let b: Vec<u64> = (0..3).map(|r| leave(0, c[r], 0, c[(r + 1) % 3])).collect();
    let want: Vec<u64> = (0..3)
        .map(|r| leave(b[r], c[r], b[(r + 2) % 3], c[(r + 2) % 3]))
        .collect();
    assert_eq!(t, want);
}

#[test]
fn allgatherv_ring() {
    // 3 ranks, blocks smaller than the 32 KiB chunk: two steps, rank r
    // sending right block r then block r-1, receiving blocks r-1 and r-2
    // from the left.
    let c = &COUNTS[..3];
    let t = allgatherv_times(3, AllgathervAlgo::Ring);
    let u: Vec<u64> = (0..3).map(|r| leave(0, c[r], 0, c[(r + 2) % 3])).collect();
    let want: Vec<u64> = (0..3)
        .map(|r| leave(u[r], c[(r + 2) % 3], u[(r + 2) % 3], c[(r + 1) % 3]))
        .collect();
    assert_eq!(t, want);
}

#[test]
fn allgatherv_ring_pipelines_long_blocks() {
    // 2 ranks, blocks of 70 000 and 40 000 bytes: the chunk is the smallest
    // block, 40 000 bytes. Step 1 exchanges 40 000 bytes each way; then
    // rank 0 sends the last 30 000 bytes of its block, which rank 1
    // receives.
    let t = times(&spread(2), |c| {
        let counts = [70_000, 40_000];
        let displs = [0, 70_000];
        let layout = Layout {
            counts: &counts,
            displs: &displs,
        };
        let mut buf = vec![1u8; 110_000];
        allgatherv::allgatherv_with(c, &mut buf, layout, 4, AllgathervAlgo::Ring);
    });
    let x = e(40_000);
    assert_eq!(t, vec![x + m(30_000), leave(x, 0, x, 30_000)]);
}

#[test]
fn alltoall_bruck() {
    // 5 ranks, 100-byte blocks: steps k = 1, 2, 4 send the blocks whose
    // index has bit k set (2, 2 and 1 blocks) to rank+k, in step.
    let t = times(&spread(5), |c| {
        let send = vec![1u8; 500];
        let mut recv = vec![0u8; 500];
        alltoall::alltoall_with(c, Some(&send), &mut recv, AlltoallAlgo::Bruck);
    });
    assert_eq!(t, vec![2 * e(200) + e(100); 5]);
}

#[test]
fn alltoall_scattered() {
    // 4 ranks, 500-byte blocks, one round: receives from rank+0..3 posted,
    // then sends to rank-0..3 started M apart (the first to myself). The
    // wait starts at 4M; my own block (h = 0) arrived at 2M and is copied
    // then (5M); rank+3's block, its fourth send, arrives last, at
    // 3M + M + L.
    let b = 500;
    let t = times(&spread(4), move |c| {
        let send = vec![1u8; 4 * b];
        let mut recv = vec![0u8; 4 * b];
        alltoall::alltoall_with(c, Some(&send), &mut recv, AlltoallAlgo::Scattered);
    });
    let wait = 4 * m(b);
    let own = wait.max(2 * m(b)) + m(b);
    let others = (1..4)
        .map(|k| leave(0, 0, k as u64 * m(b), b))
        .max()
        .unwrap();
    assert_eq!(t, vec![own.max(others).max(wait); 4]);
    assert_eq!(t[0], 5 * m(b) + l(b));
}

#[test]
fn alltoall_pairwise() {
    // 4 ranks (XOR partners) and 3 ranks (send to rank+i, receive from
    // rank-i): p-1 exchanges of one 500-byte block, in step.
    for n in [4, 3] {
        let t = times(&spread(n), |c| {
            let n = c.size();
            let send = vec![1u8; n * 500];
            let mut recv = vec![0u8; n * 500];
            alltoall::alltoall_with(c, Some(&send), &mut recv, AlltoallAlgo::Pairwise);
        });
        assert_eq!(t, vec![(n as u64 - 1) * e(500); n], "{n} ranks");
    }
}

/// MPICH's in-place alltoall(v) schedule walked step by step: pairs (i, j),
/// i <= j, in order, rank i sending `cnt(i, j)` bytes to rank j (a
/// sendrecv_replace; with itself when i = j). Each rank meets its pairs in
/// that order, so both ranks of a pair have finished the pairs before it.
fn in_place_want(n: usize, cnt: impl Fn(usize, usize) -> usize) -> Vec<u64> {
    let mut t = vec![0; n];
    for i in 0..n {
        for j in i..n {
            if i == j {
                t[i] = self_exchange(t[i], cnt(i, i));
            } else {
                let (ti, tj) = (t[i], t[j]);
                t[i] = leave(ti, cnt(i, j), tj, cnt(j, i));
                t[j] = leave(tj, cnt(j, i), ti, cnt(i, j));
            }
        }
    }
    t
}

#[test]
fn alltoall_pairwise_sendrecv_replace() {
    // 2 ranks, in place: pairs (0,0), (0,1), (1,1) in order. Rank 0 swaps
    // with itself, then with 1; rank 1 swaps with 0, then with itself.
    let b = 500;
    let t = times(&spread(2), move |c| {
        let mut buf = vec![1u8; 2 * b];
        alltoall::alltoall_with(c, None, &mut buf, AlltoallAlgo::PairwiseSendrecvReplace);
    });
    let s0 = self_exchange(0, b);
    let x1 = leave(0, b, s0, b);
    assert_eq!(t, vec![leave(s0, b, 0, b), self_exchange(x1, b)]);
    assert_eq!(t[0], 2 * m(b) + l(b));
    assert_eq!(in_place_want(2, |_, _| b), t);
}

#[test]
fn alltoall_pairwise_sendrecv_replace_3_ranks() {
    // 3 ranks: rank 0 swaps with itself (3M), with 1 (whose block, sent at
    // 0, arrives at M + L: done 2M + L), then with 2, whose block arrived
    // at M + L, inside rank 0's previous wait: done when posted + M. Rank 1
    // gets rank 0's block at 5M + L, swaps with itself (8M + L), then gets
    // rank 2's, sent after rank 2's pair with 0 (4M + 2L), at 6M + 3L.
    // Rank 2 gets rank 1's block at 10M + 2L, then swaps with itself.
    // (With equal blocks on 4 or more ranks some block arrives exactly when
    // its receiver's previous pair ended, after another rank's block, and
    // the engine's time still depends on the host; Alltoallv's test runs
    // the schedule on 3 and 4 ranks with unequal blocks.)
    let b = 500;
    let t = times(&spread(3), move |c| {
        let mut buf = vec![1u8; 3 * b];
        alltoall::alltoall_with(c, None, &mut buf, AlltoallAlgo::PairwiseSendrecvReplace);
    });
    let (mb, lb) = (m(b), l(b));
    let want = in_place_want(3, |_, _| b);
    assert_eq!(want, vec![3 * mb + lb, 6 * mb + 3 * lb, 13 * mb + 2 * lb]);
    assert_eq!(t, want);
}

/// Alltoallv test counts: rank s sends count(s, d) bytes to rank d
/// (symmetric, as in-place needs).
fn count(s: usize, d: usize) -> usize {
    100 * (1 + (s + d) % 3)
}

fn alltoallv_times(n: usize, algo: AlltoallvAlgo) -> Vec<u64> {
    times(&spread(n), move |c| {
        let n = c.size();
        let me = c.me;
        let counts: Vec<usize> = (0..n).map(|j| count(me, j)).collect();
        let displs: Vec<usize> = (0..n).map(|j| counts[..j].iter().sum()).collect();
        let layout = Layout {
            counts: &counts,
            displs: &displs,
        };
        let send = vec![1u8; layout.total()];
        let mut recv = vec![0u8; layout.total()];
        if algo == AlltoallvAlgo::PairwiseSendrecvReplace {
            alltoallv::alltoallv_with(c, None, &mut recv, layout, algo);
        } else {
            alltoallv::alltoallv_with(c, Some((&send, layout)), &mut recv, layout, algo);
        }
    })
}

#[test]
fn alltoallv_scattered() {
    // 3 ranks: as Alltoall's round, with per-pair sizes. Rank r's k-th send
    // (to r-k) starts after its first k sends.
    let n = 3;
    let t = alltoallv_times(n, AlltoallvAlgo::Scattered);
    let start = |s: usize, k: usize| (0..k).map(|j| m(count(s, (s + n - j) % n))).sum::<u64>();
    let want: Vec<u64> = (0..n)
        .map(|r| {
            let wait = start(r, n);
            let own = wait.max(2 * m(count(r, r))) + m(count(r, r));
            let others = (1..n)
                .map(|k| {
                    let s = (r + k) % n;
                    leave(0, 0, start(s, k), count(s, r))
                })
                .max()
                .unwrap();
            own.max(others).max(wait)
        })
        .collect();
    assert_eq!(t, want);
}

#[test]
fn alltoallv_pairwise_sendrecv_replace() {
    // 2 ranks in place, as for Alltoall with per-pair sizes.
    let t = alltoallv_times(2, AlltoallvAlgo::PairwiseSendrecvReplace);
    let s0 = self_exchange(0, count(0, 0));
    let x1 = leave(0, count(1, 0), s0, count(0, 1));
    assert_eq!(
        t,
        vec![
            leave(s0, count(0, 1), 0, count(1, 0)),
            self_exchange(x1, count(1, 1))
        ]
    );
    assert_eq!(in_place_want(2, count), t);
    // 3 and 4 ranks: the same schedule.
    for n in [3, 4] {
        let t = alltoallv_times(n, AlltoallvAlgo::PairwiseSendrecvReplace);
        assert_eq!(t, in_place_want(n, count), "{n} ranks");
    }
}

fn reduce_scatter_times(n: usize, elem: usize, algo: ReduceScatterAlgo, block: bool) -> Vec<u64> {
    times(&spread(n), move |c| {
        let n = c.size();
        let counts = vec![2 * elem; n];
        let send = vec![1u8; 2 * elem * n];
        let mut recv = vec![0u8; 2 * elem];
        let mut run = |c: C, op: &mut Op| {
            if block {
                reduce_scatter_block::reduce_scatter_block_with(c, &send, &mut recv, elem, op, algo)
            } else {
                reduce_scatter::reduce_scatter_with(c, &send, &mut recv, &counts, elem, op, algo)
            }
        };
        if elem == 8 {
            sum_op(|op| run(c, op))
        } else {
            noncomm_op(|op| run(c, op))
        }
    })
}

#[test]
fn reduce_scatter_recursive_halving() {
    // 4 ranks, 16-byte blocks: exchange half (32 bytes) with rank ^ 2, then
    // a quarter with rank ^ 1.
    assert_eq!(
        reduce_scatter_times(4, 8, ReduceScatterAlgo::RecursiveHalving, false),
        vec![e(32) + e(16); 4]
    );
}

#[test]
fn reduce_scatter_recursive_halving_non_power_of_two() {
    // 3 ranks, 16-byte blocks: rank 0 sends all 48 bytes to rank 1 and sits
    // out. New ranks 0 (rank 1, blocks 0-1) and 1 (rank 2, block 2) swap
    // halves: rank 1 sends block 2 (16 bytes) and gets blocks 0-1 (32)
    // from rank 2, which sent them at 0: they arrived during rank 1's fold
    // wait and are received from when rank 1 posts the receive. Rank 1
    // then sends block 0 to rank 0.
    for block in [false, true] {
        let t = reduce_scatter_times(3, 8, ReduceScatterAlgo::RecursiveHalving, block);
        let r1 = leave(0, 0, 0, 48);
        let h1 = leave(r1, 16, 0, 32);
        assert_eq!(h1, r1 + m(32));
        let h2 = leave(0, 32, r1, 16);
        assert_eq!(
            t,
            vec![leave(m(48), 0, h1, 16), h1 + m(16), h2],
            "block {block}"
        );
    }
}

#[test]
fn reduce_scatter_pairwise() {
    // 3 ranks: send rank+i its 16-byte block, receive mine from rank-i.
    assert_eq!(
        reduce_scatter_times(3, 8, ReduceScatterAlgo::Pairwise, false),
        vec![2 * e(16); 3]
    );
}

#[test]
fn reduce_scatter_noncommutative() {
    // 4 ranks, 2-byte blocks of a non-commutative op: the butterfly halves
    // the 8 bytes each step: 4 bytes with rank ^ 1, 2 with rank ^ 2.
    assert_eq!(
        reduce_scatter_times(4, 1, ReduceScatterAlgo::Noncommutative, false),
        vec![e(4) + e(2); 4]
    );
    // Reduce_scatter_block runs the same schedule.
    assert_eq!(
        reduce_scatter_times(4, 1, ReduceScatterAlgo::Noncommutative, true),
        vec![e(4) + e(2); 4]
    );
}

#[test]
fn reduce_scatter_recursive_doubling() {
    // 4 ranks, 2-byte blocks: all blocks but mine (6 bytes) with rank ^ 1,
    // all but my pair's (4 bytes) with rank ^ 2.
    assert_eq!(
        reduce_scatter_times(4, 1, ReduceScatterAlgo::RecursiveDoubling, false),
        vec![e(6) + e(4); 4]
    );
}

#[test]
fn scan_and_exscan_recursive_doubling() {
    // 4 ranks, 800 bytes: exchange the partial result with rank ^ 1, rank ^ 2.
    let t = times(&spread(4), |c| {
        let mut buf = vec![1u8; 800];
        sum_op(|op| scan::scan_with(c, &mut buf, 8, op, ScanAlgo::RecursiveDoubling));
    });
    assert_eq!(t, vec![2 * e(800); 4]);
    let t = times(&spread(4), |c| {
        let send = vec![1u8; 800];
        let mut recv = vec![0u8; 800];
        sum_op(|op| exscan::exscan_with(c, &send, &mut recv, 8, op, ExscanAlgo::RecursiveDoubling));
    });
    assert_eq!(t, vec![2 * e(800); 4]);
}

// ---- the entry points pick MPICH's algorithm ---------------------------------

/// (messages, bytes) each rank sent: a fingerprint of the schedule that does
/// not depend on host timing.
fn traffic<F>(shape: &Shape, f: F) -> Vec<(u64, u64)>
where
    F: Fn(C) + Send + Sync + 'static,
{
    let counters = std::sync::Arc::new(std::sync::Mutex::new(vec![(0, 0); shape.ranks.len()]));
    let cl = counters.clone();
    let (_, fails) = on_comm(shape, move |c, _| {
        f(c);
        let k = c.core.counters;
        cl.lock().unwrap()[c.me] = (k.msgs_sent, k.bytes_sent);
    });
    assert!(fails.is_empty());
    let v = counters.lock().unwrap().clone();
    v
}

/// The entry point's traffic equals that of `expected`, and some other
/// algorithm's traffic differs (so the comparison tells them apart).
fn picks<A, F, G>(what: &str, shape: Shape, expected: A, entry: F, with: G)
where
    A: Algorithm + PartialEq + std::fmt::Debug + Send + Sync,
    F: Fn(C) + Send + Sync + 'static,
    G: Fn(C, A) + Send + Sync + Clone + 'static,
{
    let got = traffic(&shape, entry);
    let mut differs = false;
    for algo in all::<A>() {
        let w = with.clone();
        let t = traffic(&shape, move |c| w(c, algo));
        if algo == expected {
            assert_eq!(got, t, "{what}: not {algo:?}");
        } else {
            differs |= got != t;
        }
    }
    assert!(differs, "{what}: every algorithm sends the same");
}

/// A commutative operator that computes nothing (only the schedule matters),
/// predefined or not.
fn null_op(builtin: bool, f: &mut dyn FnMut(&mut Op)) {
    let mut g = |_: &[u8], _: &mut [u8]| {};
    f(&mut Op {
        commutative: true,
        builtin,
        apply: &mut g,
    })
}

#[test]
fn entry_points_pick_mpich_algorithms() {
    use AllgatherAlgo as G;
    use AlltoallAlgo as T;
    use BcastAlgo as B;
    for (n, len, want) in [
        (8, 12287, B::Binomial),
        (8, 12288, B::ScatterDoublingAllgather),
        (7, 20000, B::Binomial),
        (12, 20000, B::ScatterRingAllgather),
    ] {
        picks(
            &format!("bcast {n} ranks {len} bytes"),
            Shape::world(n),
            want,
            move |c| bcast::bcast(c, &mut vec![0u8; len], 0),
            move |c, a| bcast::bcast_with(c, &mut vec![0u8; len], 0, a),
        );
    }
    for (count, builtin, want) in [
        (256, true, ReduceAlgo::Binomial),
        (257, true, ReduceAlgo::RedscatGather),
        (257, false, ReduceAlgo::Binomial),
    ] {
        let op = move |f: &mut dyn FnMut(&mut Op)| null_op(builtin, f);
        picks(
            &format!("reduce {count} u64 builtin {builtin}"),
            Shape::world(8),
            want,
            move |c| op(&mut |o| reduce::reduce(c, &mut vec![0u8; 8 * count], 8, o, 0)),
            move |c, a| op(&mut |o| reduce::reduce_with(c, &mut vec![0u8; 8 * count], 8, o, 0, a)),
        );
    }
    for (count, builtin, want) in [
        (256, true, AllreduceAlgo::RecursiveDoubling),
        (257, true, AllreduceAlgo::RedscatAllgather),
        (257, false, AllreduceAlgo::RecursiveDoubling),
    ] {
        let op = move |f: &mut dyn FnMut(&mut Op)| null_op(builtin, f);
        picks(
            &format!("allreduce {count} u64 builtin {builtin}"),
            Shape::world(8),
            want,
            move |c| op(&mut |o| allreduce::allreduce(c, &mut vec![0u8; 8 * count], 8, o)),
            move |c, a| {
                op(&mut |o| allreduce::allreduce_with(c, &mut vec![0u8; 8 * count], 8, o, a))
            },
        );
    }
    for (n, block, want) in [
        (8, 1000, G::RecursiveDoubling),
        (6, 13653, G::Bruck),
        (6, 13654, G::Ring),
    ] {
        picks(
            &format!("allgather {n} ranks {block}-byte blocks"),
            Shape::world(n),
            want,
            move |c| allgather::allgather(c, &mut vec![0u8; n * block]),
            move |c, a| allgather::allgather_with(c, &mut vec![0u8; n * block], a),
        );
    }
    // (In place, Scattered and PairwiseSendrecvReplace send the same
    // messages; select's unit test covers that rule.)
    for (n, block, in_place, want) in [
        (8, 256, false, T::Bruck),
        (8, 257, false, T::Scattered),
        (7, 100, false, T::Scattered),
        (4, 32769, false, T::Pairwise),
    ] {
        let run = move |c: C, a: Option<T>| {
            let send = vec![0u8; n * block];
            let mut recv = vec![0u8; n * block];
            let s = if in_place { None } else { Some(&send[..]) };
            match a {
                Some(a) => alltoall::alltoall_with(c, s, &mut recv, a),
                None => alltoall::alltoall(c, s, &mut recv),
            }
        };
        picks(
            &format!("alltoall {n} ranks {block}-byte blocks in place {in_place}"),
            Shape::world(n),
            want,
            move |c| run(c, None),
            move |c, a| run(c, Some(a)),
        );
    }
}
