//! Every collective and every algorithm of it, forced one at a time, gives
//! the right data on communicators of 1 to 17, 32, 33 and 64 ranks and on
//! sub-communicators (odd world ranks in reverse order), with message sizes
//! on both sides of the selection thresholds, and rank-ordered results for a
//! non-commutative operator (2x2 matrix product).
use super::{all, check_all, Shape};
use crate::coll::select::*;
use crate::coll::*;
use crate::p2p::testing::MemLink;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

type C<'a, 'b> = &'a mut Comm<'b, MemLink>;

/// Communicator sizes of the issue, world and sub-communicators.
fn shapes() -> Vec<Shape> {
    let mut v: Vec<Shape> = (1..=17).chain([32, 33, 64]).map(Shape::world).collect();
    v.extend(
        [1, 2, 3, 5, 6, 8, 11, 17]
            .into_iter()
            .map(Shape::odd_reversed),
    );
    v
}

/// A few shapes for the large-message cases.
fn few() -> Vec<Shape> {
    vec![Shape::world(3), Shape::world(8), Shape::odd_reversed(5)]
}

/// Deterministic bytes for (rank, seed).
fn fill(rank: usize, seed: usize, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| {
            (i.wrapping_mul(131) ^ rank.wrapping_mul(29) ^ seed.wrapping_mul(7)).wrapping_add(rank)
                as u8
        })
        .collect()
}

/// `fill(r, seed, len)` of ranks r = 0..n, one after the other.
fn blocks(n: usize, seed: usize, len: usize) -> Vec<u8> {
    (0..n).flat_map(|r| fill(r, seed, len)).collect()
}

/// `want` on the root, `len` bytes of junk elsewhere: the buffer a rooted
/// collective starts from.
fn rooted(me: usize, root: usize, want: &[u8], len: usize) -> Vec<u8> {
    if me == root {
        want.to_vec()
    } else {
        vec![0xEE; len]
    }
}

fn check(fails: &mut Vec<String>, ok: bool, what: impl FnOnce() -> String) {
    if !ok {
        fails.push(what());
    }
}

// ---- reduction operators -----------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// Predefined (commutative) sum of u64.
    Sum,
    /// The same sum as a commutative user-defined operator.
    UserSum,
    /// Product of 2x2 u64 matrices (wrapping): associative, not commutative.
    MatMul,
}
const KINDS: [Kind; 3] = [Kind::Sum, Kind::UserSum, Kind::MatMul];

fn bytes(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

impl Kind {
    fn elem(self) -> usize {
        match self {
            Kind::Sum | Kind::UserSum => 8,
            Kind::MatMul => 32,
        }
    }
    /// inout = input (op) inout.
    fn apply(self, input: &[u8], inout: &mut [u8]) {
        let e = self.elem();
        let rd = |b: &[u8], k: usize| u64::from_le_bytes(b[8 * k..8 * k + 8].try_into().unwrap());
        for (a, b) in input.chunks(e).zip(inout.chunks_mut(e)) {
            match self {
                Kind::Sum | Kind::UserSum => {
                    let r = rd(a, 0).wrapping_add(rd(b, 0));
                    b.copy_from_slice(&r.to_le_bytes());
                }
                Kind::MatMul => {
                    let m = |i: usize, j: usize| {
                        rd(a, 2 * i)
                            .wrapping_mul(rd(b, j))
                            .wrapping_add(rd(a, 2 * i + 1).wrapping_mul(rd(b, 2 + j)))
                    };
                    let r = [m(0, 0), m(0, 1), m(1, 0), m(1, 1)];
                    for (k, v) in r.iter().enumerate() {
                        b[8 * k..8 * k + 8].copy_from_slice(&v.to_le_bytes());
                    }
                }
            }
        }
    }
    /// Rank `r`'s contribution of `count` elements.
    fn contrib(self, r: usize, count: usize, seed: usize) -> Vec<u8> {
        let v: Vec<u64> = match self {
            Kind::Sum | Kind::UserSum => (0..count)
                .map(|i| ((r + 1) * 1_000_003 + i * 7919 + seed * 13) as u64)
                .collect(),
            Kind::MatMul => (0..count)
                .flat_map(|i| {
                    let k = (r * 7 + i * 3 + seed) as u64;
                    [1 + k % 5, 2 + (k / 5) % 3, k % 4, 1 + (k * 11) % 7]
                })
                .collect(),
        };
        bytes(&v)
    }
    /// x_lo (op) ... (op) x_(hi-1) over the ranks of `ranks` in order
    /// (computed once per process: every rank of a test asks for it).
    fn fold(self, ranks: std::ops::Range<usize>, count: usize, seed: usize) -> Option<Vec<u8>> {
        type Key = (u8, usize, usize, usize, usize);
        static CACHE: OnceLock<Mutex<HashMap<Key, Option<Vec<u8>>>>> = OnceLock::new();
        let key = (self as u8, ranks.start, ranks.end, count, seed);
        let cache = CACHE.get_or_init(Default::default);
        if let Some(v) = cache.lock().unwrap().get(&key) {
            return v.clone();
        }
        let mut acc: Option<Vec<u8>> = None;
        for r in ranks {
            let mut x = self.contrib(r, count, seed);
            if let Some(a) = &acc {
                self.apply(a, &mut x);
            }
            acc = Some(x);
        }
        cache.lock().unwrap().insert(key, acc.clone());
        acc
    }
    fn with<R>(self, f: impl FnOnce(&mut Op) -> R) -> R {
        let mut g = move |a: &[u8], b: &mut [u8]| self.apply(a, b);
        let mut op = Op {
            commutative: self != Kind::MatMul,
            builtin: self == Kind::Sum,
            apply: &mut g,
        };
        f(&mut op)
    }
}

#[test]
fn matmul_is_not_commutative() {
    let (a, b) = (Kind::MatMul.contrib(0, 1, 0), Kind::MatMul.contrib(1, 1, 0));
    let (mut ab, mut ba) = (b.clone(), a.clone());
    Kind::MatMul.apply(&a, &mut ab);
    Kind::MatMul.apply(&b, &mut ba);
    assert_ne!(ab, ba);
}

// ---- the collectives ---------------------------------------------------------

#[test]
fn barrier_waits_for_the_last_rank() {
    // Rank r computes r us first; nobody leaves before the last one arrived.
    check_all(&shapes(), |c: C, fails| {
        let n = c.size();
        c.core
            .compute(crate::model::VTime::from_ps(c.me as u64 * 1_000_000));
        barrier::barrier_with(c, BarrierAlgo::Dissemination);
        let t = c.core.vtime().ps();
        check(fails, t >= (n as u64 - 1) * 1_000_000, || {
            format!("rank {} left at {t}", c.me)
        });
    });
}

fn roots(n: usize) -> Vec<usize> {
    let mut r = vec![0, n / 2, n - 1, 1 % n];
    r.sort();
    r.dedup();
    r
}

#[test]
fn bcast_every_algorithm() {
    check_all(&shapes(), |c: C, fails| {
        let n = c.size();
        for algo in all::<BcastAlgo>() {
            for len in [1, 5, 64 + n, 1000] {
                for root in roots(n) {
                    let want = fill(root, len, len);
                    let mut buf = rooted(c.me, root, &want, len);
                    bcast::bcast_with(c, &mut buf, root, algo);
                    check(fails, buf == want, || {
                        format!("{algo:?} len {len} root {root} rank {}", c.me)
                    });
                }
            }
        }
    });
}

#[test]
fn bcast_large_and_default_selection() {
    let mut shapes = few();
    shapes.push(Shape::world(12));
    check_all(&shapes, |c: C, fails| {
        for algo in all::<BcastAlgo>() {
            let len = 300_001;
            let root = c.size() - 1;
            let want = fill(root, 1, len);
            let mut buf = rooted(c.me, root, &want, len);
            bcast::bcast_with(c, &mut buf, root, algo);
            check(fails, buf == want, || format!("{algo:?} rank {}", c.me));
        }
        for len in [12287, 12288, 524287, 524288] {
            let want = fill(0, len, len);
            let mut buf = rooted(c.me, 0, &want, len);
            bcast::bcast(c, &mut buf, 0);
            check(fails, buf == want, || {
                format!("default len {len} rank {}", c.me)
            });
        }
    });
}

#[test]
fn reduce_every_algorithm() {
    check_all(&shapes(), |c: C, fails| {
        let n = c.size();
        for algo in all::<ReduceAlgo>() {
            for kind in KINDS {
                for count in [1, 2, n, 2 * n + 3] {
                    for root in roots(n) {
                        let mut buf = kind.contrib(c.me, count, root);
                        kind.with(|op| {
                            reduce::reduce_with(c, &mut buf, kind.elem(), op, root, algo)
                        });
                        if c.me == root {
                            let want = kind.fold(0..n, count, root).unwrap();
                            check(fails, buf == want, || {
                                format!("{algo:?} {kind:?} count {count} root {root}")
                            });
                        }
                    }
                }
            }
        }
    });
}

#[test]
fn reduce_default_selection_both_sides() {
    check_all(
        &[Shape::world(6), Shape::world(8), Shape::odd_reversed(3)],
        |c: C, fails| {
            let n = c.size();
            for kind in KINDS {
                // 2048 bytes is the short-message limit (256 or 64 elements).
                let e = kind.elem();
                for count in [2048 / e, 2048 / e + 1, 1000] {
                    let root = n - 1;
                    let mut buf = kind.contrib(c.me, count, 1);
                    kind.with(|op| reduce::reduce(c, &mut buf, e, op, root));
                    if c.me == root {
                        let want = kind.fold(0..n, count, 1).unwrap();
                        check(fails, buf == want, || format!("{kind:?} count {count}"));
                    }
                }
            }
        },
    );
}

#[test]
fn allreduce_every_algorithm() {
    check_all(&shapes(), |c: C, fails| {
        let n = c.size();
        for algo in all::<AllreduceAlgo>() {
            for kind in KINDS {
                for count in [1, 3, n + 2, 40] {
                    let mut buf = kind.contrib(c.me, count, 2);
                    kind.with(|op| allreduce::allreduce_with(c, &mut buf, kind.elem(), op, algo));
                    let want = kind.fold(0..n, count, 2).unwrap();
                    check(fails, buf == want, || {
                        format!("{algo:?} {kind:?} count {count} rank {}", c.me)
                    });
                }
            }
        }
    });
}

#[test]
fn allreduce_default_selection_both_sides() {
    check_all(
        &[Shape::world(5), Shape::world(8), Shape::odd_reversed(6)],
        |c: C, fails| {
            let n = c.size();
            for kind in KINDS {
                let e = kind.elem();
                for count in [2048 / e, 2048 / e + 1, 5000] {
                    let mut buf = kind.contrib(c.me, count, 3);
                    kind.with(|op| allreduce::allreduce(c, &mut buf, e, op));
                    let want = kind.fold(0..n, count, 3).unwrap();
                    check(fails, buf == want, || {
                        format!("{kind:?} count {count} rank {}", c.me)
                    });
                }
            }
        },
    );
}

#[test]
fn gather_and_scatter() {
    check_all(&shapes(), |c: C, fails| {
        let n = c.size();
        for block in [1, 5, 64] {
            for root in roots(n) {
                let mine = fill(c.me, block, block);
                let mut recv = vec![0u8; if c.me == root { n * block } else { 0 }];
                gather::gather_with(c, &mine, &mut recv, root, GatherAlgo::Binomial);
                if c.me == root {
                    let want = blocks(n, block, block);
                    check(fails, recv == want, || {
                        format!("gather block {block} root {root}")
                    });
                }
                let all: Vec<u8> = if c.me == root {
                    blocks(n, root, block)
                } else {
                    Vec::new()
                };
                let mut got = vec![0u8; block];
                scatter::scatter_with(c, &all, &mut got, root, ScatterAlgo::Binomial);
                check(fails, got == fill(c.me, root, block), || {
                    format!("scatter block {block} root {root} rank {}", c.me)
                });
            }
        }
    });
}

/// Irregular counts (some zero) and displacements in reverse rank order with
/// gaps.
fn irregular(n: usize, seed: usize, unit: usize) -> (Vec<usize>, Vec<usize>, usize) {
    let counts: Vec<usize> = (0..n).map(|i| ((i * 5 + seed) % 7) * unit).collect();
    let mut displs = vec![0; n];
    let mut off = 0;
    for i in (0..n).rev() {
        displs[i] = off;
        off += counts[i] + 3;
    }
    (counts, displs, off)
}

#[test]
fn gatherv_and_scatterv() {
    check_all(&shapes(), |c: C, fails| {
        let n = c.size();
        for root in roots(n) {
            let (counts, displs, len) = irregular(n, root, 1);
            let layout = Layout {
                counts: &counts,
                displs: &displs,
            };
            let mine = fill(c.me, 9, counts[c.me]);
            let mut recv = vec![0u8; if c.me == root { len } else { 0 }];
            gatherv::gatherv_with(c, &mine, &mut recv, layout, root, GathervAlgo::Linear);
            if c.me == root {
                for r in 0..n {
                    check(
                        fails,
                        recv[layout.range(r)] == fill(r, 9, counts[r]),
                        || format!("gatherv root {root} block {r}"),
                    );
                }
            }
            let mut send = vec![0u8; if c.me == root { len } else { 0 }];
            if c.me == root {
                for r in 0..n {
                    send[layout.range(r)].copy_from_slice(&fill(r, 4, counts[r]));
                }
            }
            let mut got = vec![0u8; counts[c.me]];
            scatterv::scatterv_with(c, &send, layout, &mut got, root, ScattervAlgo::Linear);
            check(fails, got == fill(c.me, 4, counts[c.me]), || {
                format!("scatterv root {root} rank {}", c.me)
            });
        }
    });
}

#[test]
fn allgather_every_algorithm() {
    check_all(&shapes(), |c: C, fails| {
        let n = c.size();
        for algo in all::<AllgatherAlgo>() {
            for block in [1, 6] {
                let mut buf = vec![0u8; n * block];
                buf[c.me * block..(c.me + 1) * block].copy_from_slice(&fill(c.me, block, block));
                allgather::allgather_with(c, &mut buf, algo);
                let want = blocks(n, block, block);
                check(fails, buf == want, || {
                    format!("{algo:?} block {block} rank {}", c.me)
                });
            }
        }
    });
}

#[test]
fn allgather_large_and_default_selection() {
    check_all(&few(), |c: C, fails| {
        let n = c.size();
        // Totals on both sides of 81920 and 524288 bytes.
        for total in [81919, 81920, 524287, 524288, 700_000] {
            let block = total / n;
            let mut buf = vec![0u8; n * block];
            buf[c.me * block..(c.me + 1) * block].copy_from_slice(&fill(c.me, 2, block));
            allgather::allgather(c, &mut buf);
            let want = blocks(n, 2, block);
            check(fails, buf == want, || {
                format!("default total {total} rank {}", c.me)
            });
        }
    });
}

#[test]
fn allgatherv_every_algorithm() {
    check_all(&shapes(), |c: C, fails| {
        let n = c.size();
        for algo in all::<AllgathervAlgo>() {
            for seed in [0, 3] {
                let (counts, displs, len) = irregular(n, seed, 4);
                let layout = Layout {
                    counts: &counts,
                    displs: &displs,
                };
                let mut buf = vec![0u8; len];
                buf[layout.range(c.me)].copy_from_slice(&fill(c.me, seed, counts[c.me]));
                allgatherv::allgatherv_with(c, &mut buf, layout, 4, algo);
                for r in 0..n {
                    check(
                        fails,
                        buf[layout.range(r)] == fill(r, seed, counts[r]),
                        || format!("{algo:?} seed {seed} block {r} rank {}", c.me),
                    );
                }
            }
        }
    });
}

#[test]
fn allgatherv_pipelined_ring_and_defaults() {
    check_all(&few(), |c: C, fails| {
        let n = c.size();
        // Blocks of 10 000 to 70 000 bytes: the ring moves them in chunks of
        // at least 32 KiB; totals straddle the allgather thresholds.
        for (unit, algo) in [
            (10_000, Some(AllgathervAlgo::Ring)),
            (4, None),
            (20_000, None),
        ] {
            let counts: Vec<usize> = (0..n).map(|i| unit * (1 + (i * 3) % 7)).collect();
            let displs: Vec<usize> = (0..n).map(|i| counts[..i].iter().sum()).collect();
            let layout = Layout {
                counts: &counts,
                displs: &displs,
            };
            let mut buf = vec![0u8; layout.total()];
            buf[layout.range(c.me)].copy_from_slice(&fill(c.me, 8, counts[c.me]));
            match algo {
                Some(a) => allgatherv::allgatherv_with(c, &mut buf, layout, 4, a),
                None => allgatherv::allgatherv(c, &mut buf, layout, 4),
            }
            for r in 0..n {
                check(fails, buf[layout.range(r)] == fill(r, 8, counts[r]), || {
                    format!("unit {unit} block {r} rank {}", c.me)
                });
            }
        }
    });
}

/// Rank `s`'s block for rank `d` in an alltoall test.
fn a2a(s: usize, d: usize, len: usize) -> Vec<u8> {
    fill(s * 1000 + d, 5, len)
}

/// An alltoall of `b`-byte blocks (in place or not) by `algo`, or by the
/// entry point's choice: does every rank get its blocks?
fn alltoall_ok(c: C, b: usize, in_place: bool, algo: Option<AlltoallAlgo>) -> bool {
    let n = c.size();
    let send: Vec<u8> = (0..n).flat_map(|d| a2a(c.me, d, b)).collect();
    let mut recv = if in_place {
        send.clone()
    } else {
        vec![0u8; n * b]
    };
    let s = if in_place { None } else { Some(&send[..]) };
    match algo {
        Some(a) => alltoall::alltoall_with(c, s, &mut recv, a),
        None => alltoall::alltoall(c, s, &mut recv),
    }
    recv == (0..n).flat_map(|s| a2a(s, c.me, b)).collect::<Vec<u8>>()
}

#[test]
fn alltoall_every_algorithm_with_and_without_in_place() {
    check_all(&shapes(), |c: C, fails| {
        for algo in all::<AlltoallAlgo>() {
            for in_place in [false, true] {
                for b in [1, 7] {
                    check(fails, alltoall_ok(c, b, in_place, Some(algo)), || {
                        format!("{algo:?} in_place {in_place} block {b} rank {}", c.me)
                    });
                }
            }
        }
    });
}

#[test]
fn alltoall_large_and_default_selection() {
    let mut shapes = few();
    shapes.push(Shape::world(9));
    check_all(&shapes, |c: C, fails| {
        let n = c.size();
        // 140 000-byte blocks go by rendezvous; one small shape is enough.
        let large: &[usize] = if n <= 3 { &[140_000] } else { &[] };
        for &b in [256, 257, 32768, 32769].iter().chain(large) {
            for in_place in [false, true] {
                check(fails, alltoall_ok(c, b, in_place, None), || {
                    format!("block {b} in_place {in_place} rank {}", c.me)
                });
            }
        }
    });
}

#[test]
fn alltoallv_every_algorithm_with_and_without_in_place() {
    check_all(&shapes(), |c: C, fails| {
        let n = c.size();
        // Symmetric counts (in place needs count(i->j) == count(j->i)), some
        // zero, and receive blocks in reverse order with gaps.
        let cnt = |i: usize, j: usize| ((i + j) * 3 + i * j) % 5;
        let me = c.me;
        let rcounts: Vec<usize> = (0..n).map(|j| cnt(j, me)).collect();
        let mut rdispls = vec![0; n];
        let mut off = 1;
        for j in (0..n).rev() {
            rdispls[j] = off;
            off += rcounts[j] + 2;
        }
        let scounts: Vec<usize> = (0..n).map(|j| cnt(me, j)).collect();
        let sdispls: Vec<usize> = (0..n).map(|j| scounts[..j].iter().sum()).collect();
        let rl = Layout {
            counts: &rcounts,
            displs: &rdispls,
        };
        let sl = Layout {
            counts: &scounts,
            displs: &sdispls,
        };
        for algo in all::<AlltoallvAlgo>() {
            for in_place in [false, true] {
                let mut recv = vec![0u8; off];
                let send: Vec<u8> = (0..n).flat_map(|d| a2a(me, d, scounts[d])).collect();
                if in_place {
                    for d in 0..n {
                        recv[rl.range(d)].copy_from_slice(&a2a(me, d, rcounts[d]));
                    }
                    alltoallv::alltoallv_with(c, None, &mut recv, rl, algo);
                } else {
                    alltoallv::alltoallv_with(c, Some((&send, sl)), &mut recv, rl, algo);
                }
                for s in 0..n {
                    check(fails, recv[rl.range(s)] == a2a(s, me, rcounts[s]), || {
                        format!("{algo:?} in_place {in_place} from {s} rank {me}")
                    });
                }
            }
        }
    });
}

#[test]
fn reduce_scatter_every_algorithm() {
    check_all(&shapes(), |c: C, fails| {
        let n = c.size();
        for algo in all::<ReduceScatterAlgo>() {
            for kind in KINDS {
                let e = kind.elem();
                for irregular in [false, true] {
                    let counts: Vec<usize> = (0..n)
                        .map(|i| {
                            if irregular {
                                ((i * 3 + 1) % 4) * e
                            } else {
                                2 * e
                            }
                        })
                        .collect();
                    let total: usize = counts.iter().sum::<usize>() / e;
                    let send = kind.contrib(c.me, total, 4);
                    let mut recv = vec![0u8; counts[c.me]];
                    kind.with(|op| {
                        reduce_scatter::reduce_scatter_with(
                            c, &send, &mut recv, &counts, e, op, algo,
                        )
                    });
                    if total > 0 {
                        let full = kind.fold(0..n, total, 4).unwrap();
                        let at: usize = counts[..c.me].iter().sum();
                        check(fails, recv == full[at..at + counts[c.me]], || {
                            format!("{algo:?} {kind:?} irregular {irregular} rank {}", c.me)
                        });
                    }
                }
            }
        }
    });
}

#[test]
fn reduce_scatter_block_every_algorithm_and_defaults() {
    check_all(&shapes(), |c: C, fails| {
        let n = c.size();
        let algos: Vec<Option<ReduceScatterAlgo>> = all::<ReduceScatterAlgo>()
            .into_iter()
            .map(Some)
            .chain([None])
            .collect();
        for algo in algos {
            for kind in KINDS {
                let e = kind.elem();
                for block in [1, 3] {
                    let send = kind.contrib(c.me, n * block, 5);
                    let mut recv = vec![0u8; block * e];
                    kind.with(|op| match algo {
                        Some(a) => reduce_scatter_block::reduce_scatter_block_with(
                            c, &send, &mut recv, e, op, a,
                        ),
                        None => {
                            reduce_scatter_block::reduce_scatter_block(c, &send, &mut recv, e, op)
                        }
                    });
                    let full = kind.fold(0..n, n * block, 5).unwrap();
                    let at = c.me * block * e;
                    check(fails, recv == full[at..at + block * e], || {
                        format!("{algo:?} {kind:?} block {block} rank {}", c.me)
                    });
                }
            }
        }
    });
}

#[test]
fn reduce_scatter_long_and_default_selection() {
    check_all(&few(), |c: C, fails| {
        let n = c.size();
        for kind in [Kind::Sum, Kind::MatMul] {
            let e = kind.elem();
            // Whole input on both sides of 524288 bytes.
            for bytes_total in [524280, 524288 + 8 * e] {
                let per = bytes_total / e / n;
                let counts = vec![per * e; n];
                let send = kind.contrib(c.me, per * n, 6);
                let mut recv = vec![0u8; per * e];
                kind.with(|op| reduce_scatter::reduce_scatter(c, &send, &mut recv, &counts, e, op));
                let full = kind.fold(0..n, per * n, 6).unwrap();
                let at = c.me * per * e;
                check(fails, recv == full[at..at + per * e], || {
                    format!("{kind:?} total {bytes_total} rank {}", c.me)
                });
            }
        }
    });
}

#[test]
fn scan_and_exscan() {
    check_all(&shapes(), |c: C, fails| {
        for kind in KINDS {
            for count in [1, 4] {
                let mine = kind.contrib(c.me, count, 7);
                let mut buf = mine.clone();
                kind.with(|op| {
                    scan::scan_with(c, &mut buf, kind.elem(), op, ScanAlgo::RecursiveDoubling)
                });
                let want = kind.fold(0..c.me + 1, count, 7).unwrap();
                check(fails, buf == want, || {
                    format!("scan {kind:?} count {count} rank {}", c.me)
                });

                let mut recv = vec![0xAB; mine.len()];
                kind.with(|op| {
                    exscan::exscan_with(
                        c,
                        &mine,
                        &mut recv,
                        kind.elem(),
                        op,
                        ExscanAlgo::RecursiveDoubling,
                    )
                });
                let want = kind
                    .fold(0..c.me, count, 7)
                    .unwrap_or(vec![0xAB; mine.len()]);
                check(fails, recv == want, || {
                    format!("exscan {kind:?} count {count} rank {}", c.me)
                });
            }
        }
    });
}

#[test]
fn entry_points_with_default_selection_on_sub_communicators() {
    // Every non-_with entry point once, on a permuted sub-communicator.
    check_all(
        &[
            Shape::of(20, &[19, 4, 7, 0, 12, 3, 15]),
            Shape::odd_reversed(8),
        ],
        |c: C, fails| {
            let n = c.size();
            let me = c.me;
            barrier::barrier(c);
            let mut g = vec![0u8; n * 3];
            g[me * 3..me * 3 + 3].copy_from_slice(&fill(me, 0, 3));
            allgather::allgather(c, &mut g);
            check(fails, g == blocks(n, 0, 3), || "allgather".into());
            let mut recv = vec![0u8; n * 3];
            gather::gather(c, &fill(me, 1, 3), &mut recv, 2);
            if me == 2 {
                check(fails, recv == blocks(n, 1, 3), || "gather".into());
            }
            let all = blocks(n, 2, 3);
            let mut got = vec![0u8; 3];
            scatter::scatter(c, &all, &mut got, 1);
            check(fails, got == fill(me, 2, 3), || "scatter".into());
            let counts = vec![2; n];
            let displs: Vec<usize> = (0..n).map(|i| 2 * i).collect();
            let l = Layout {
                counts: &counts,
                displs: &displs,
            };
            let mut v = vec![0u8; 2 * n];
            gatherv::gatherv(c, &fill(me, 3, 2), &mut v, l, 0);
            if me == 0 {
                check(fails, v == blocks(n, 3, 2), || "gatherv".into());
            }
            let src = blocks(n, 4, 2);
            let mut got = vec![0u8; 2];
            scatterv::scatterv(c, &src, l, &mut got, n - 1);
            check(fails, got == fill(me, 4, 2), || "scatterv".into());
            let mut v = vec![0u8; 2 * n];
            v[l.range(me)].copy_from_slice(&fill(me, 5, 2));
            allgatherv::allgatherv(c, &mut v, l, 1);
            check(fails, v == blocks(n, 5, 2), || "allgatherv".into());
            let send: Vec<u8> = (0..n).flat_map(|d| a2a(me, d, 2)).collect();
            let want: Vec<u8> = (0..n).flat_map(|s| a2a(s, me, 2)).collect();
            let mut r = vec![0u8; 2 * n];
            alltoallv::alltoallv(c, Some((&send, l)), &mut r, l);
            check(fails, r == want, || "alltoallv".into());
            let mut r = send.clone();
            alltoallv::alltoallv(c, None, &mut r, l);
            check(fails, r == want, || "alltoallv in place".into());
            for kind in KINDS {
                let e = kind.elem();
                let mut buf = kind.contrib(me, 2, 8);
                kind.with(|op| scan::scan(c, &mut buf, e, op));
                check(fails, buf == kind.fold(0..me + 1, 2, 8).unwrap(), || {
                    format!("scan {kind:?}")
                });
                let mut buf = vec![0u8; 2 * e];
                kind.with(|op| exscan::exscan(c, &kind.contrib(me, 2, 8), &mut buf, e, op));
                if me > 0 {
                    check(fails, buf == kind.fold(0..me, 2, 8).unwrap(), || {
                        format!("exscan {kind:?}")
                    });
                }
            }
        },
    );
}
