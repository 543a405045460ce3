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
//! * a receive waited for from `s` is handled at `ta` when `ta >= s` and at
//!   `s` when the message arrived after the receiver's previous waiting
//!   activity ended but before this one began (Algorithm 3; a waiting
//!   activity covers arrivals up to and including its end); it completes
//!   `M(b)` later. So a rank leaving
//!   its previous wait at `t`, sending `x` bytes and receiving `y` bytes
//!   sent at `u`, leaves at `max(t + M(x), u + M(y) + L(y)) + M(y)`
//!   ([`leave`]); the one-way eager time is `E(b) = 2 M(b) + L(b)`.
//!
//! All messages here are eager (at most 128 KiB). The configurations avoid
//! a message arriving (in virtual time) inside, or exactly at the end of, an
//! earlier waiting activity of its receiver, whose derivation differs
//! (handled inside that wait, the copy charged from the receive's posting):
//! [`leave`] asserts it; the engine itself now times both host orders alike. This is why the scatter + allgather broadcasts are
//! timed on 2 ranks: with more, the root's last scatter piece and its first
//! allgather piece go to the same rank back to back, and the second arrives
//! exactly when the first has been received.
use super::schedules::{e, expected, l, leave, m, self_exchange};
use super::{all, on_comm, Shape};
use crate::coll::select::*;
use crate::coll::*;
use crate::p2p::testing::MemLink;

type C<'a, 'b> = &'a mut Comm<'b, MemLink>;

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

/// Every algorithm of every collective has a case in the shared
/// derivations, of the size the tests here run it on.
#[test]
fn every_algorithm_has_a_shared_derivation() {
    for c in Coll::ALL {
        for a in c.algorithms() {
            let want = expected(c.key(), a).unwrap_or_else(|| panic!("no case for {c:?} {a}"));
            assert_eq!(
                want.len(),
                super::schedules::case_size(c.key(), a),
                "{c:?} {a}"
            );
        }
    }
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
    assert_eq!(
        t,
        expected("barrier", "dissemination").unwrap(),
        "the shared derivation"
    );
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
    let want = super::schedules::bcast_binomial(n, b);
    assert_eq!(want[15], 4 * e(b));
    assert_eq!(want[0], 4 * m(b));
    assert_eq!(t, want);
    assert_eq!(
        t,
        expected("bcast", "binomial").unwrap(),
        "the shared derivation"
    );
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
    assert_eq!(t, want, "{algo:?}");
    assert_eq!(
        Some(t),
        expected("bcast", algo.name()),
        "the shared derivation"
    );
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
    assert_eq!(
        t,
        expected("reduce", "binomial").unwrap(),
        "the shared derivation"
    );
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
    assert_eq!(
        t,
        expected("reduce", "redscat_gather").unwrap(),
        "the shared derivation"
    );
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
    assert_eq!(
        t,
        expected("allreduce", "recursive_doubling").unwrap(),
        "the shared derivation"
    );
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
    assert_eq!(
        t,
        expected("allreduce", "redscat_allgather").unwrap(),
        "the shared derivation"
    );
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
    assert_eq!(
        t,
        expected("gather", "binomial").unwrap(),
        "the shared derivation"
    );
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
    assert_eq!(
        t,
        expected("gatherv", "linear").unwrap(),
        "the shared derivation"
    );
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
    assert_eq!(
        t,
        expected("scatter", "binomial").unwrap(),
        "the shared derivation"
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
    assert_eq!(
        t,
        expected("scatterv", "linear").unwrap(),
        "the shared derivation"
    );
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
    assert_eq!(
        t,
        expected("allgather", "recursive_doubling").unwrap(),
        "the shared derivation"
    );
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
    assert_eq!(
        t,
        expected("allgather", "bruck").unwrap(),
        "the shared derivation"
    );
}

#[test]
fn allgather_ring() {
    // 4 ranks: 3 steps of one 500-byte block to the right.
    let t = times(&spread(4), |c| {
        let mut buf = vec![1u8; 2000];
        allgather::allgather_with(c, &mut buf, AllgatherAlgo::Ring);
    });
    assert_eq!(t, vec![3 * e(500); 4]);
    assert_eq!(
        t,
        expected("allgather", "ring").unwrap(),
        "the shared derivation"
    );
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
    assert_eq!(
        t,
        expected("allgatherv", "recursive_doubling").unwrap(),
        "the shared derivation"
    );
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
    assert_eq!(
        t,
        expected("allgatherv", "bruck").unwrap(),
        "the shared derivation"
    );
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
    assert_eq!(
        t,
        expected("allgatherv", "ring").unwrap(),
        "the shared derivation"
    );
}

#[test]
fn allgatherv_ring_pipelines_long_blocks() {
    // 2 ranks, blocks of 70 000 and 40 000 bytes: the largest block is
    // longer than the pipeline size, so the chunk is 32 768 bytes (MPICH
    // 4.0.2). Step 1 exchanges 32 768 bytes each way, step 2 32 768 from
    // rank 0 and the last 7 232 of rank 1's block, step 3 rank 0's last
    // 4 464 bytes, which rank 1 receives.
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
    let x = e(32_768);
    let r0 = leave(x, 32_768, x, 7_232);
    let r1 = leave(x, 7_232, x, 32_768);
    assert_eq!(t, vec![r0 + m(4_464), leave(r1, 0, r0, 4_464)]);
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
    assert_eq!(
        t,
        expected("alltoall", "bruck").unwrap(),
        "the shared derivation"
    );
}

#[test]
fn alltoall_scattered() {
    // 4 ranks, 500-byte blocks, one round: receives from rank+0..3 posted,
    // then sends to rank-0..3 (the first to myself, which takes no time:
    // a message to oneself is only copied in), the others M apart. The
    // wait starts at 3M; my own block arrived at 0 and is copied then (4M);
    // rank+3's block, its third send to another rank, arrives last, at
    // 2M + M + L.
    let b = 500;
    let t = times(&spread(4), move |c| {
        let send = vec![1u8; 4 * b];
        let mut recv = vec![0u8; 4 * b];
        alltoall::alltoall_with(c, Some(&send), &mut recv, AlltoallAlgo::Scattered);
    });
    let wait = 3 * m(b);
    let own = wait + m(b);
    let others = (1..4)
        .map(|k| leave(0, 0, (k as u64 - 1) * m(b), b))
        .max()
        .unwrap();
    assert_eq!(t, vec![own.max(others).max(wait); 4]);
    assert_eq!(t[0], 4 * m(b) + l(b));
    assert_eq!(
        t,
        expected("alltoall", "scattered").unwrap(),
        "the shared derivation"
    );
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
        if n == 4 {
            assert_eq!(
                Some(t),
                expected("alltoall", "pairwise"),
                "the shared derivation"
            );
        }
    }
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
    assert_eq!(
        t,
        expected("alltoall", "pairwise_sendrecv_replace").unwrap(),
        "the shared derivation"
    );
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
    // (to r-k) starts after its sends 1..k (send 0, to itself, takes no
    // time).
    let n = 3;
    let t = alltoallv_times(n, AlltoallvAlgo::Scattered);
    let start = |s: usize, k: usize| (1..k).map(|j| m(count(s, (s + n - j) % n))).sum::<u64>();
    let want: Vec<u64> = (0..n)
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
        .collect();
    assert_eq!(t, want);
    assert_eq!(
        t,
        expected("alltoallv", "scattered").unwrap(),
        "the shared derivation"
    );
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
    assert_eq!(
        t,
        expected("alltoallv", "pairwise_sendrecv_replace").unwrap(),
        "the shared derivation"
    );
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

/// Reduce_scatter and Reduce_scatter_block with `algo` on `n` ranks with
/// blocks of 2 elements of `elem` bytes give the shared derivation.
fn shared_reduce_scatter(algo: ReduceScatterAlgo, n: usize, elem: usize) {
    for (key, block) in [("reduce_scatter", false), ("reduce_scatter_block", true)] {
        assert_eq!(n, super::schedules::case_size(key, algo.name()));
        assert_eq!(
            Some(reduce_scatter_times(n, elem, algo, block)),
            expected(key, algo.name()),
            "{key} {algo:?}"
        );
    }
}

#[test]
fn reduce_scatter_recursive_halving() {
    shared_reduce_scatter(ReduceScatterAlgo::RecursiveHalving, 4, 8);
    // 4 ranks, 16-byte blocks: exchange half (32 bytes) with rank ^ 2, then
    // a quarter with rank ^ 1.
    assert_eq!(
        reduce_scatter_times(4, 8, ReduceScatterAlgo::RecursiveHalving, false),
        vec![e(32) + e(16); 4]
    );
}

#[test]
fn reduce_scatter_pairwise() {
    shared_reduce_scatter(ReduceScatterAlgo::Pairwise, 3, 8);
    // 3 ranks: send rank+i its 16-byte block, receive mine from rank-i.
    assert_eq!(
        reduce_scatter_times(3, 8, ReduceScatterAlgo::Pairwise, false),
        vec![2 * e(16); 3]
    );
}

#[test]
fn reduce_scatter_noncommutative() {
    shared_reduce_scatter(ReduceScatterAlgo::Noncommutative, 4, 1);
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
    shared_reduce_scatter(ReduceScatterAlgo::RecursiveDoubling, 4, 1);
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
    assert_eq!(Some(t), expected("scan", "recursive_doubling"));
    let t = times(&spread(4), |c| {
        let send = vec![1u8; 800];
        let mut recv = vec![0u8; 800];
        sum_op(|op| exscan::exscan_with(c, &send, &mut recv, 8, op, ExscanAlgo::RecursiveDoubling));
    });
    assert_eq!(t, vec![2 * e(800); 4]);
    assert_eq!(Some(t), expected("exscan", "recursive_doubling"));
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

#[test]
fn entry_points_pick_mpich_algorithms() {
    use AllgatherAlgo as G;
    use AlltoallAlgo as T;
    use BcastAlgo as B;
    for (n, len, want) in [
        (8, 12288, B::Binomial),
        (8, 12289, B::ScatterDoublingAllgather),
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
        let op = move |f: &mut dyn FnMut(&mut Op)| {
            let mut g = |_: &[u8], _: &mut [u8]| {};
            f(&mut Op {
                commutative: true,
                builtin,
                apply: &mut g,
            })
        };
        picks(
            &format!("reduce {count} u64 builtin {builtin}"),
            Shape::world(8),
            want,
            move |c| op(&mut |o| reduce::reduce(c, &mut vec![0u8; 8 * count], 8, o, 0)),
            move |c, a| op(&mut |o| reduce::reduce_with(c, &mut vec![0u8; 8 * count], 8, o, 0, a)),
        );
    }
    for (count, builtin, want) in [
        (7, true, AllreduceAlgo::RecursiveDoubling),
        (8, true, AllreduceAlgo::RedscatAllgather),
        (256, true, AllreduceAlgo::RedscatAllgather),
        (257, false, AllreduceAlgo::RecursiveDoubling),
    ] {
        let op = move |f: &mut dyn FnMut(&mut Op)| {
            let mut g = |_: &[u8], _: &mut [u8]| {};
            f(&mut Op {
                commutative: true,
                builtin,
                apply: &mut g,
            })
        };
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
        (9, 256, false, T::Bruck),
        (9, 257, false, T::Scattered),
        (8, 256, false, T::Scattered),
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
