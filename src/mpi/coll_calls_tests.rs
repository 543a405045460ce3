//! The collective calls over the in-memory link (ranks as threads), with
//! user buffers held in vectors: packing of padded datatypes, displacements,
//! MPI_IN_PLACE, sub-communicators, operator order.
use super::*;
use crate::mpi::coll_args::{displaced, Block, CollComm, UserBuf};
use crate::mpi::datatype::TypeTable;
use crate::p2p::testing::{run, MemLink};
use crate::sys;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// A user buffer in a vector (blocks at non-negative offsets).
struct VecBuf(Vec<u8>);

impl UserBuf for VecBuf {
    fn pack(&self, blocks: &[Block]) -> Vec<u8> {
        blocks
            .iter()
            .flat_map(|b| b.ty.pack(&self.0[b.off as usize..], b.count))
            .collect()
    }
    fn unpack(&mut self, blocks: &[Block], data: &[u8]) {
        let mut at = 0;
        for b in blocks {
            let n = b.bytes();
            b.ty.unpack(&data[at..at + n], &mut self.0[b.off as usize..], b.count);
            at += n;
        }
    }
}

fn ty(h: sys::MPI_Datatype) -> Arc<Datatype> {
    TypeTable::new().get(h).unwrap()
}

/// Runs `f(core, comm)` on the members `ranks` (world ranks in communicator
/// order) of a world of `world` ranks; returns what each member returned,
/// by communicator rank.
fn on<F>(world: u32, ranks: &[u32], f: F) -> BTreeMap<usize, Vec<u8>>
where
    F: Fn(&mut Core<MemLink>, &CollComm) -> Vec<u8> + Send + Sync + 'static,
{
    let out = Arc::new(Mutex::new(BTreeMap::new()));
    let (o, ranks) = (out.clone(), ranks.to_vec());
    run(world, 1 << 16, move |core| {
        let w = core.rank();
        if let Some(me) = ranks.iter().position(|&r| r == w) {
            let cc = CollComm {
                ranks: ranks.clone(),
                me,
                ctx: 9,
            };
            let v = f(core, &cc);
            o.lock().unwrap().insert(me, v);
        }
    });
    let m = std::mem::take(&mut *out.lock().unwrap());
    m
}

/// A packed MPI_SHORT_INT element {short s; pad[2]; int i} in memory.
fn short_int(s: i16, i: i32) -> Vec<u8> {
    let mut v = s.to_ne_bytes().to_vec();
    v.extend([0xee, 0xee]);
    v.extend(i.to_ne_bytes());
    v
}

#[test]
fn gatherv_in_place_with_padded_type_and_reversed_displacements() {
    // communicator: world ranks 5, 3, 1 of 6; root is communicator rank 1
    let res = on(6, &[5, 3, 1], |core, cc| {
        let t = ty(sys::MPI_SHORT_INT);
        let me = cc.me;
        // rank i contributes i + 1 elements; blocks placed in reverse order
        let counts = [1usize, 2, 3];
        let displs = [5, 3, 0];
        if me == 1 {
            // in place: my 2 elements already at displacement 3
            let mut mem = vec![0xeeu8; 6 * 8];
            for k in 0..2 {
                mem[(3 + k) * 8..(4 + k) * 8].copy_from_slice(&short_int(10 + k as i16, 1));
            }
            let mut rb = VecBuf(mem);
            let blocks = displaced(&counts, &displs, &t);
            gatherv(core, cc, None, &mut rb, &blocks, 1);
            rb.0
        } else {
            let mem: Vec<u8> = (0..counts[me])
                .flat_map(|k| short_int(10 * me as i16 + k as i16, me as i32))
                .collect();
            let sb = VecBuf(mem);
            let d = Data {
                count: counts[me],
                ty: &t,
            };
            gatherv(core, cc, Some((&sb, d)), &mut VecBuf(Vec::new()), &[], 1);
            Vec::new()
        }
    });
    let mut want = Vec::new();
    for (s, i) in [(20, 2), (21, 2), (22, 2), (10, 1), (11, 1), (0, 0)] {
        want.extend(short_int(s, i));
    }
    assert_eq!(res[&1], want);
}

/// Affine maps x -> a x + b as (a, b) pairs of i32: `in . inout`, a
/// non-commutative operator (composition).
fn affine(input: &[u8], inout: &mut [u8]) {
    for (x, y) in input.chunks_exact(8).zip(inout.chunks_exact_mut(8)) {
        let g = |b: &[u8], i: usize| i32::from_ne_bytes(b[i..i + 4].try_into().unwrap());
        let (p, q, r, s) = (g(x, 0), g(x, 4), g(y, 0), g(y, 4));
        y[..4].copy_from_slice(&p.wrapping_mul(r).to_ne_bytes());
        y[4..].copy_from_slice(&p.wrapping_mul(s).wrapping_add(q).to_ne_bytes());
    }
}

fn affine_of(rank: usize, k: usize) -> (i32, i32) {
    ((rank as i32 % 3) + 2, (7 * rank + k) as i32)
}

fn pairs(v: &[(i32, i32)]) -> Vec<u8> {
    v.iter()
        .flat_map(|(a, b)| a.to_ne_bytes().into_iter().chain(b.to_ne_bytes()))
        .collect()
}

/// x_lo . x_(lo+1) ... x_(hi-1) for element k.
fn composed(lo: usize, hi: usize, k: usize) -> (i32, i32) {
    let mut acc = affine_of(hi - 1, k);
    for r in (lo..hi - 1).rev() {
        let (p, q) = affine_of(r, k);
        acc = (p.wrapping_mul(acc.0), p.wrapping_mul(acc.1).wrapping_add(q));
    }
    acc
}

#[test]
fn non_commutative_reductions_follow_rank_order() {
    const N: usize = 5;
    const COUNT: usize = 300; // 2400 bytes: past the short-message thresholds
    let res = on(N as u32, &[0, 1, 2, 3, 4], |core, cc| {
        let t = ty(sys::MPI_2INT);
        let mine: Vec<(i32, i32)> = (0..COUNT).map(|k| affine_of(cc.me, k)).collect();
        let d = Data {
            count: COUNT,
            ty: &t,
        };
        let mut f = affine;
        let mut out = Vec::new();
        // Allreduce in place
        let mut rb = VecBuf(pairs(&mine));
        let mut op = Op {
            commutative: false,
            builtin: false,
            apply: &mut f,
        };
        allreduce(core, cc, None, &mut rb, d, &mut op);
        out.extend(rb.0);
        // Scan and Exscan from a separate send buffer
        let sb = VecBuf(pairs(&mine));
        let mut rb = VecBuf(vec![0; COUNT * 8]);
        scan(core, cc, Some(&sb), &mut rb, d, &mut op);
        out.extend(rb.0);
        let mut rb = VecBuf(vec![0xab; COUNT * 8]);
        exscan(core, cc, Some(&sb), &mut rb, d, &mut op);
        out.extend(rb.0);
        // Reduce to root 3
        let mut rb = VecBuf(vec![0; COUNT * 8]);
        reduce(core, cc, Some(&sb), &mut rb, d, 3, &mut op);
        out.extend(rb.0);
        out
    });
    for (me, got) in res {
        let b = COUNT * 8;
        let all: Vec<_> = (0..COUNT).map(|k| composed(0, N, k)).collect();
        assert_eq!(got[..b], pairs(&all)[..], "allreduce on rank {me}");
        let pre: Vec<_> = (0..COUNT).map(|k| composed(0, me + 1, k)).collect();
        assert_eq!(got[b..2 * b], pairs(&pre)[..], "scan on rank {me}");
        if me == 0 {
            assert!(
                got[2 * b..3 * b].iter().all(|&x| x == 0xab),
                "exscan touched rank 0"
            );
        } else {
            let ex: Vec<_> = (0..COUNT).map(|k| composed(0, me, k)).collect();
            assert_eq!(got[2 * b..3 * b], pairs(&ex)[..], "exscan on rank {me}");
        }
        if me == 3 {
            assert_eq!(got[3 * b..], pairs(&all)[..], "reduce at the root");
        } else {
            assert!(
                got[3 * b..].iter().all(|&x| x == 0),
                "reduce wrote a non-root"
            );
        }
    }
}

fn sum_i32(input: &[u8], inout: &mut [u8]) {
    for (x, y) in input.chunks_exact(4).zip(inout.chunks_exact_mut(4)) {
        let s =
            i32::from_ne_bytes(x.try_into().unwrap()) + i32::from_ne_bytes(y.try_into().unwrap());
        y.copy_from_slice(&s.to_ne_bytes());
    }
}

fn ints(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_ne_bytes()).collect()
}

#[test]
fn in_place_scatter_reduce_scatter_and_alltoallv() {
    const N: usize = 4;
    let res = on(N as u32, &[0, 1, 2, 3], |core, cc| {
        let t = ty(sys::MPI_INT);
        let me = cc.me;
        let mut out = Vec::new();
        // Scatter from root 2, in place at the root: 3 ints per rank
        let sd = Data { count: 3, ty: &t };
        if me == 2 {
            let sb = VecBuf(ints(0..12));
            scatter(core, cc, Some((&sb, sd)), None, 2);
            out.extend(ints([-1, -1, -1]));
        } else {
            let mut rb = VecBuf(vec![0; 12]);
            scatter(core, cc, None, Some((&mut rb, sd)), 2);
            out.extend(rb.0);
        }
        // Reduce_scatter in place: rank i gets i + 1 sums
        let counts = [1usize, 2, 3, 4];
        let mut rb = VecBuf(ints((0..10).map(|k| k * 10 + me as i32)));
        let mut f = sum_i32;
        let mut op = Op {
            commutative: true,
            builtin: true,
            apply: &mut f,
        };
        reduce_scatter(core, cc, None, &mut rb, &counts, &t, &mut op);
        out.extend(&rb.0[..counts[me] * 4]);
        // Alltoallv in place: ranks i and j exchange i + j + 1 ints, stored
        // at displacement 10 j on rank i
        let rc: Vec<usize> = (0..N).map(|j| me + j + 1).collect();
        let rd: Vec<i32> = (0..N as i32).map(|j| 10 * j).collect();
        let blocks = displaced(&rc, &rd, &t);
        let mut mem = vec![0i32; 40];
        for j in 0..N {
            for k in 0..rc[j] {
                mem[10 * j + k] = (100 * me + 10 * j + k) as i32;
            }
        }
        let mut rb = VecBuf(ints(mem));
        alltoallv(core, cc, None, &mut rb, &blocks);
        out.extend(rb.0);
        out
    });
    let as_ints = |b: &[u8]| -> Vec<i32> {
        b.chunks_exact(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    };
    for (me, got) in res {
        let v = as_ints(&got);
        let want_scatter: Vec<i32> = if me == 2 {
            vec![-1; 3]
        } else {
            (3 * me as i32..3 * me as i32 + 3).collect()
        };
        assert_eq!(v[..3], want_scatter[..], "scatter on {me}");
        let first = [0usize, 1, 3, 6][me];
        let want_rs: Vec<i32> = (first..first + me + 1)
            .map(|k| (0..N as i32).map(|r| k as i32 * 10 + r).sum())
            .collect();
        assert_eq!(v[3..3 + me + 1], want_rs[..], "reduce_scatter on {me}");
        // Alltoallv: block j holds what rank j had in its block for me
        let a = &v[3 + me + 1..];
        for j in 0..N {
            for k in 0..10 {
                let want = if k < me + j + 1 {
                    (100 * j + 10 * me + k) as i32
                } else {
                    0
                };
                assert_eq!(
                    a[10 * j + k],
                    want,
                    "alltoallv on {me}: block {j} element {k}"
                );
            }
        }
    }
}
