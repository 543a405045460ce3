//! The intercommunicator algorithms over the in-memory link: world ranks
//! {0, 1} (the low group, receive context 5) and {2, 3, 4} (receive
//! context 6), every collective's data checked on every rank.
use super::rooted::{bcast, gather, gatherv, reduce, scatter, scatterv};
use super::symmetric::{
    allgather, allgatherv, allreduce, alltoall, barrier, reduce_scatter, reduce_scatter_block,
};
use super::{Inter, Root};
use crate::coll::{Layout, Op};
use crate::p2p::testing::run;
use std::sync::{Arc, Mutex};

const A: [u32; 2] = [0, 1];
const B: [u32; 3] = [2, 3, 4];

fn sum_u8(input: &[u8], inout: &mut [u8]) {
    for (o, i) in inout.iter_mut().zip(input) {
        *o = o.wrapping_add(*i);
    }
}

#[test]
fn every_collective_across_two_and_three_ranks() {
    let got = Arc::new(Mutex::new(Vec::new()));
    let g = got.clone();
    run(5, 1 << 16, move |core| {
        let w = core.rank();
        let in_a = w < 2;
        let (local, remote, ctx, send_ctx): (&[u32], &[u32], u32, u32) =
            if in_a { (&A, &B, 5, 6) } else { (&B, &A, 6, 5) };
        let me = local.iter().position(|&x| x == w).unwrap();
        let mut ic = Inter {
            core,
            local,
            remote,
            me,
            ctx,
            send_ctx,
            is_low: in_a,
        };
        let mut out = Vec::new();
        // Bcast from A's rank 1 to B, then from B's rank 2 to A.
        let mut b = vec![0u8; 3];
        let root = if in_a {
            if me == 1 {
                b = vec![7, 8, 9];
                Root::Me
            } else {
                Root::Null
            }
        } else {
            Root::Remote(1)
        };
        bcast(&mut ic, &mut b, root);
        out.push(("bcast A->B", b.clone()));
        let mut b = vec![0u8; 2];
        let root = if in_a {
            Root::Remote(2)
        } else if me == 2 {
            b = vec![5, 6];
            Root::Me
        } else {
            Root::Null
        };
        bcast(&mut ic, &mut b, root);
        out.push(("bcast B->A", b.clone()));
        barrier(&mut ic);
        // Reduce of B's values to A's rank 0.
        let mut and = sum_u8;
        let mut op = Op {
            commutative: true,
            builtin: true,
            apply: &mut and,
        };
        let mut r = vec![w as u8 + 1, 10];
        let root = match (in_a, me) {
            (true, 0) => Root::Me,
            (true, _) => Root::Null,
            (false, _) => Root::Remote(0),
        };
        reduce(&mut ic, &mut r, 1, &mut op, root);
        if root == Root::Me {
            out.push(("reduce", r));
        }
        // Allreduce: each group gets the other's sum.
        let mut r = vec![w as u8 + 1];
        allreduce(&mut ic, &mut r, 1, &mut op);
        out.push(("allreduce", r));
        // Allgather of one byte each.
        let mut all = vec![0u8; remote.len()];
        allgather(&mut ic, &[w as u8 * 10], &mut all);
        out.push(("allgather", all));
        // Allgatherv: rank i of the remote group sends i + 1 bytes.
        let mine = vec![w as u8; me + 1];
        let counts: Vec<usize> = (0..remote.len()).map(|i| i + 1).collect();
        let displs: Vec<usize> = (0..remote.len()).map(|i| i * (i + 1) / 2).collect();
        let mut all = vec![0u8; counts.iter().sum()];
        allgatherv(
            &mut ic,
            &mine,
            &mut all,
            Layout {
                counts: &counts,
                displs: &displs,
            },
        );
        out.push(("allgatherv", all));
        // Alltoall: byte 10 * w + j to remote rank j.
        let send: Vec<u8> = (0..remote.len()).map(|j| 10 * w as u8 + j as u8).collect();
        let mut recv = vec![0u8; remote.len()];
        alltoall(&mut ic, &send, &mut recv);
        out.push(("alltoall", recv));
        // Reduce_scatter_block: 6-byte vectors, 3 bytes per member of A,
        // 2 per member of B.
        let input: Vec<u8> = (0..6).map(|i| w as u8 + i as u8).collect();
        let mut o = vec![0u8; 6 / local.len()];
        reduce_scatter_block(&mut ic, &input, &mut o, 1, &mut op);
        out.push(("reduce_scatter_block", o));
        // Reduce_scatter: member i of my group gets i + 1 bytes (A: 1 + 2,
        // B: 1 + 2 + 3; the vectors are 6 bytes in B, 3 in A: both groups
        // must reduce equally long vectors, so A uses counts 2, 4 and B
        // 1, 2, 3).
        let counts: Vec<usize> = if in_a { vec![2, 4] } else { vec![1, 2, 3] };
        let input: Vec<u8> = (0..6).map(|i| w as u8 * i).collect();
        let mut o = vec![0u8; counts[me]];
        reduce_scatter(&mut ic, &input, &mut o, &counts, 1, &mut op);
        out.push(("reduce_scatter", o));
        // Gather to B's rank 0 (short and linear), scatter from it.
        for short in [true, false] {
            let root = match (in_a, me) {
                (false, 0) => Root::Me,
                (false, _) => Root::Null,
                (true, _) => Root::Remote(0),
            };
            let mut all = vec![0u8; if root == Root::Me { 4 } else { 0 }];
            gather(&mut ic, &[w as u8, 1], &mut all, root, short);
            if root == Root::Me {
                out.push(("gather", all.clone()));
            }
            let send: Vec<u8> = (20..24).collect();
            let mut mine = vec![0u8; if in_a { 2 } else { 0 }];
            scatter(&mut ic, &send, &mut mine, root, short);
            if in_a {
                out.push(("scatter", mine));
            }
        }
        // Gatherv / Scatterv from A's rank 1: B's rank i has i bytes.
        let root = match (in_a, me) {
            (true, 1) => Root::Me,
            (true, _) => Root::Null,
            (false, _) => Root::Remote(1),
        };
        let counts = [0usize, 1, 2];
        let displs = [0usize, 0, 1];
        let lay = Layout {
            counts: &counts,
            displs: &displs,
        };
        let mut all = vec![0u8; 3];
        let mine = vec![w as u8; if in_a { 0 } else { me }];
        gatherv(&mut ic, &mine, &mut all, lay, root);
        if root == Root::Me {
            out.push(("gatherv", all));
        }
        let mut mine = vec![0u8; if in_a { 0 } else { me }];
        scatterv(&mut ic, &[40, 41, 42], lay, &mut mine, root);
        if !in_a {
            out.push(("scatterv", mine));
        }
        g.lock().unwrap().push((w, out));
    });
    let mut v = got.lock().unwrap().clone();
    v.sort();
    let want = |w: u32, name: &str| -> Vec<u8> {
        let in_a = w < 2;
        match name {
            "bcast A->B" => {
                if in_a && w == 0 {
                    vec![0, 0, 0]
                } else {
                    vec![7, 8, 9]
                }
            }
            "bcast B->A" => {
                if !in_a && w != 4 {
                    vec![0, 0]
                } else {
                    vec![5, 6]
                }
            }
            "reduce" => vec![3 + 4 + 5, 30],
            "allreduce" => {
                if in_a {
                    vec![3 + 4 + 5]
                } else {
                    vec![1 + 2]
                }
            }
            "allgather" => {
                if in_a {
                    vec![20, 30, 40]
                } else {
                    vec![0, 10]
                }
            }
            "allgatherv" => {
                if in_a {
                    vec![2, 3, 3, 4, 4, 4]
                } else {
                    vec![0, 1, 1]
                }
            }
            "alltoall" => {
                let me = if in_a { w } else { w - 2 } as u8;
                let remote: &[u32] = if in_a { &B } else { &A };
                remote.iter().map(|&r| 10 * r as u8 + me).collect()
            }
            "reduce_scatter_block" => {
                // the remote group's vectors summed, my block
                let (me, remote, b): (u32, &[u32], u32) =
                    if in_a { (w, &B, 3) } else { (w - 2, &A, 2) };
                (b * me..b * me + b)
                    .map(|i| remote.iter().map(|&r| r + i).sum::<u32>() as u8)
                    .collect()
            }
            "reduce_scatter" => {
                let remote: &[u32] = if in_a { &B } else { &A };
                let total: Vec<u8> = (0..6u32)
                    .map(|i| remote.iter().map(|&r| r * i).sum::<u32>() as u8)
                    .collect();
                let (start, len) = match w {
                    0 => (0, 2),
                    1 => (2, 4),
                    2 => (0, 1),
                    3 => (1, 2),
                    _ => (3, 3),
                };
                total[start..start + len].to_vec()
            }
            "gather" => vec![0, 1, 1, 1],
            "scatter" => {
                if w == 0 {
                    vec![20, 21]
                } else {
                    vec![22, 23]
                }
            }
            "gatherv" => vec![3, 4, 4],
            "scatterv" => match w {
                2 => vec![],
                3 => vec![40],
                _ => vec![41, 42],
            },
            _ => unreachable!(),
        }
    };
    assert_eq!(v.len(), 5);
    for (w, out) in v {
        for (name, data) in out {
            assert_eq!(data, want(w, name), "{name} on world rank {w}");
        }
    }
}
