//! Intercommunicators end to end: `tests/programs/inter_*.c` built with our
//! `mpicc`, run with our `mpirun`. Every printed value is checked against
//! what the MPI standard (MPICH where it leaves a choice) gives, computed
//! here; the timing tests derive the prediction from the model's equations
//! to the picosecond, on 1 and 2 host cores.
mod common;

use common::model::{m, Node};
use common::{fmt_ps, program, Run, CORE_VARIANTS};
use std::collections::BTreeSet;

/// Group A: world ranks 0, 1; group B: 2, 3, 4.
const A: [i64; 2] = [0, 1];
const B: [i64; 3] = [2, 3, 4];

fn join(v: &[i64]) -> String {
    if v.is_empty() {
        "-".to_string()
    } else {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// The lines `inter_results` must print on world rank `w`.
fn expected(w: i64) -> BTreeSet<String> {
    let in_a = w < 2;
    let (local, remote): (&[i64], &[i64]) = if in_a { (&A, &B) } else { (&B, &A) };
    let lr = local.iter().position(|&x| x == w).unwrap() as i64;
    let (ls, rs) = (local.len() as i64, remote.len() as i64);
    let mut out = BTreeSet::new();
    macro_rules! c {
        ($op:expr, $v:expr $(,)?) => {
            out.insert(format!("c rank={w} op={} v={}", $op, join($v)))
        };
    }
    // Bcast from A's rank 1 (world 1) and from B's rank 2 (world 4): the
    // other group gets the data, the root keeps it, the root's group is
    // untouched.
    c!("bcast_a", if w == 0 { &[-1, -1, -1] } else { &[7, 8, 9] },);
    c!("bcast_b", if !in_a && w != 4 { &[-1, -1] } else { &[5, 6] });
    let sum = |g: &[i64], f: &dyn Fn(i64) -> i64| g.iter().map(|&x| f(x)).sum::<i64>();
    // Reduce of [W, 2W] over the other group to A's rank 0 / B's rank 1.
    c!(
        "reduce_a",
        &if w == 0 {
            vec![sum(&B, &|x| x), sum(&B, &|x| 2 * x)]
        } else {
            vec![-1, -1]
        },
    );
    c!(
        "reduce_b",
        &if w == 3 {
            vec![sum(&A, &|x| x), sum(&A, &|x| 2 * x)]
        } else {
            vec![-1, -1]
        },
    );
    c!("allreduce", &[sum(remote, &|x| x + 1)]);
    let gather_a: Vec<i64> = B.iter().flat_map(|&x| [x, x * x]).collect();
    c!("gather_a", if w == 1 { &gather_a } else { &[] });
    let gatherv: Vec<i64> = B
        .iter()
        .enumerate()
        .flat_map(|(i, &x)| vec![x; i + 1])
        .collect();
    c!("gatherv", if w == 0 { &gatherv } else { &[] });
    c!(
        "scatter",
        match w {
            0 => &[10, 11],
            1 => &[12, 13],
            _ => &[],
        },
    );
    let sv: Vec<i64> = (20..26).collect();
    c!(
        "scatterv",
        match w {
            2 => &sv[0..1],
            3 => &sv[1..3],
            4 => &sv[3..6],
            _ => &[],
        },
    );
    c!("allgather", remote);
    let agv: Vec<i64> = remote
        .iter()
        .enumerate()
        .flat_map(|(i, &x)| vec![x; i + 1])
        .collect();
    c!("allgatherv", &agv);
    let a2a: Vec<i64> = remote.iter().map(|&x| x * 10 + lr).collect();
    c!("alltoall", &a2a);
    let a2av: Vec<i64> = remote
        .iter()
        .flat_map(|&x| vec![x * 10 + lr; lr as usize + 1])
        .collect();
    c!("alltoallv", &a2av);
    c!("alltoallw", &a2av);
    // Reduce_scatter(_block) of 6-int vectors: A's ranks get 3 (2, 4), B's
    // 2 (1, 2, 3) elements of the other group's sum.
    let blk = 6 / ls;
    let rsb: Vec<i64> = (blk * lr..blk * lr + blk)
        .map(|i| sum(remote, &|x| x + i))
        .collect();
    c!("reduce_scatter_block", &rsb);
    let counts: &[i64] = if in_a { &[2, 4] } else { &[1, 2, 3] };
    let start: i64 = counts[..lr as usize].iter().sum();
    let rs_: Vec<i64> = (start..start + counts[lr as usize])
        .map(|i| sum(remote, &|x| x * i))
        .collect();
    c!("reduce_scatter", &rs_);
    // Merges: the group that passed high = true comes second; with equal
    // values the low group (A: world 0 < 2) first.
    let a_first: Vec<i64> = A.iter().chain(&B).copied().collect();
    let b_first: Vec<i64> = B.iter().chain(&A).copied().collect();
    for (t, order) in [(0, &b_first), (1, &a_first), (2, &a_first)] {
        c!(&format!("merge{t}"), order);
        let nr = order.iter().position(|&x| x == w).unwrap();
        out.insert(format!("merge rank={w} test={t} size=5 newrank={nr}"));
    }
    // Split by W % 2, key -W: color 0 = A {0}, B {4, 2}; color 1 = A {1}, B {3}.
    let part = |g: &[i64]| -> Vec<i64> {
        let mut v: Vec<i64> = g.iter().copied().filter(|x| x % 2 == w % 2).collect();
        v.sort_by_key(|x| -x);
        v
    };
    let (sl, sr) = (part(local), part(remote));
    let slr = sl.iter().position(|&x| x == w).unwrap();
    out.insert(format!(
        "split rank={w} lsize={} rsize={} lrank={slr}",
        sl.len(),
        sr.len()
    ));
    c!("split_remote", &sr);
    // Create from each local group without its rank 0: A {1}, B {3, 4}.
    if lr == 0 {
        out.insert(format!("create rank={w} null=1"));
    } else {
        let r: &[i64] = if in_a { &[3, 4] } else { &[1] };
        out.insert(format!(
            "create rank={w} null=0 lsize={} rsize={}",
            ls - 1,
            r.len()
        ));
        c!("create_remote", r);
    }
    c!("rgroup", remote);
    out.insert(format!(
        "info rank={w} lsize={ls} rsize={rs} inter=1 lrank={lr}"
    ));
    // MPI_CONGRUENT = 1; B's rank 0 last receives A's rank 0's ping.
    let ping = if w == 2 { 0 } else { -1 };
    out.insert(format!("dup rank={w} inter=1 cmp=1 v={ping}"));
    for (call, class) in [
        ("scan", 5),
        ("exscan", 5),
        ("bcast_root", 7),
        ("cart_create", 5),
        ("send_rank", 6),
        ("merge_intra", 5),
    ] {
        out.insert(format!("err rank={w} call={call} class={class}"));
    }
    out.insert(format!("attr rank={w} key=universe flag=1 v=5"));
    out.insert(format!("attr rank={w} key=appnum flag=1 v=0"));
    for (j, &x) in remote.iter().enumerate() {
        out.insert(format!("p2p rank={w} from={j} v={}", x * 10 + lr));
    }
    if w == 2 {
        // 1024 ints of W * 1000 + i from world ranks 0 and 1, weighted by
        // their position in the receive buffer.
        let s: i64 = (0..2048i64)
            .map(|k| ((k / 1024) * 1000 + k % 1024) * (k + 1))
            .sum();
        out.insert(format!("c rank=2 op=gather_long v={s}"));
    }
    out.insert(format!("done rank={w}"));
    out
}

/// Every collective on an intercommunicator of 2 + 3 ranks, both root
/// sides, the merge orders, point-to-point with MPI_ANY_SOURCE across the
/// groups, dup / split / create, the error classes and the predefined
/// attributes.
#[test]
fn intercommunicator_results() {
    let job = Run::exact(5, &program("inter_results")).run();
    job.assert_success();
    for w in 0..5 {
        let got: BTreeSet<String> = job
            .stdout
            .lines()
            .filter(|l| l.contains(&format!(" rank={w} ")) || l.ends_with(&format!(" rank={w}")))
            .map(str::to_string)
            .collect();
        let want = expected(w);
        let missing: Vec<_> = want.difference(&got).collect();
        let extra: Vec<_> = got.difference(&want).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "rank {w}: missing {missing:#?}\nunexpected {extra:#?}\n{}",
            job.dump()
        );
    }
}

/// At cpu.scale = 0, 4 ranks on one node, A = {0, 1}, B = {2, 3} (made by
/// MPI_Comm_split of the world; every rank then computes until 1 us).
///
/// MPI_Intercomm_create (leaders: local rank 0, peer MPI_COMM_WORLD) sends,
/// in MPICH's order: the leaders exchange sizes (4 bytes) and process ids
/// (2 x 8 bytes); each leader broadcasts (remote size, is_low) (8 bytes) and
/// the remote ids (16 bytes) to its partner (a binomial Bcast on 2 ranks is
/// one send); the PG-info allreduce (4 bytes) is one exchange in a group of
/// 2, the context-mask allreduce (65 ints with MPICH 4.0.2's flag: pieces
/// of 33 and 32 ints) two (reduce-scatter + allgather, which MPICH 4.0.2
/// takes above 8 bytes: the lower rank sends 128 bytes, then 132; the
/// higher 132, then 128); the local group gets no sequence number (MPICH
/// marks it tainted) nor does the intercommunicator; the leaders
/// swap context ids (2 bytes) and broadcast the remote one (4 bytes).
///
/// Then MPI_Bcast of b bytes from A's rank 0 (MPI_ROOT) to B: the root
/// sends to B's rank 0, which broadcasts to B's rank 1; A's rank 1
/// (MPI_PROC_NULL) does nothing. b = 1000 (eager).
///
/// Identical with 1 and 2 host cores.
#[test]
fn intercomm_create_and_bcast_cost_their_messages() {
    let b = 1000u64;
    let prog = program("inter_timing");
    for cores in CORE_VARIANTS {
        let job = Run::exact(4, &prog).cores(cores).args(&[b]).run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
        let t = common::times_by_rank_op(&job.stdout, "t");
        let t0 = t[&(0, "start".to_string())];
        assert_eq!(t0, 1_000_000, "the program computes until 1 us");
        let mut n = Node::new(4, t0);
        n.exchange(0, 2, 4);
        n.exchange(0, 2, 16);
        n.send(0, 1, 8);
        n.send(2, 3, 8);
        n.send(0, 1, 16);
        n.send(2, 3, 16);
        n.exchange(0, 1, 4);
        n.exchange(2, 3, 4);
        for (lower, higher) in [(128, 132), (132, 128)] {
            n.exchange_sizes(0, 1, lower, higher);
            n.exchange_sizes(2, 3, lower, higher);
        }
        n.exchange(0, 2, 2);
        n.send(0, 1, 4);
        n.send(2, 3, 4);
        let create = n.t.clone();
        n.send(0, 2, b);
        n.send(2, 3, b);
        for r in 0..4usize {
            for (op, want) in [("start", t0), ("create", create[r]), ("bcast", n.t[r])] {
                let got = t[&(r as i64, op.to_string())];
                assert_eq!(
                    got,
                    want,
                    "cores {cores:?} rank {r} {op}: got {}, expected {}\n{}",
                    fmt_ps(got),
                    fmt_ps(want),
                    job.dump()
                );
            }
        }
    }
}

/// MPI_Comm_idup on 4 ranks: of the world, two outstanding at once
/// (completed in the reverse order), overlapping pair communicators (each
/// rank duplicates the pair it shares with its right neighbour, then the
/// one with its left: MPICH's comm_idup_overlap, which a blocking dup
/// would deadlock), an intercommunicator, and MPI_Comm_idup_with_info.
/// Every duplicate is congruent to its parent (MPI_CONGRUENT = 1) and
/// works: an allreduce of W + 1 over it, pings over the pairs. Last, a
/// blocking MPI_Comm_create_group while an idup is in flight on the odd
/// ranks (before it on the even ones; MPICH's comm_create_group_idup).
#[test]
fn comm_idup_results() {
    let job = Run::exact(4, &program("inter_idup")).run();
    job.assert_success();
    let mut want = BTreeSet::new();
    for w in 0..4i64 {
        for t in [
            "world",
            "two_a",
            "two_b",
            "with_info",
            "mixed_idup",
            "mixed_group",
        ] {
            want.insert(format!(
                "idup rank={w} test={t} size=4 rank={w} cmp=1 inter=0 sum=10"
            ));
        }
        // groups {0, 1} and {2, 3}: the remote group's sum of W + 1
        let (lr, sum) = if w < 2 { (w, 3 + 4) } else { (w - 2, 1 + 2) };
        want.insert(format!(
            "idup rank={w} test=inter size=2 rank={lr} cmp=1 inter=1 sum={sum}"
        ));
        want.insert(format!(
            "pair rank={w} right={} left={} cmp=1,1",
            (w + 1) % 4,
            (w + 3) % 4
        ));
        want.insert(format!("info rank={w} flag=1 v=true"));
        want.insert(format!("done rank={w}"));
    }
    let got: BTreeSet<String> = job
        .stdout
        .lines()
        .filter(|l| !l.starts_with("FAIL"))
        .map(str::to_string)
        .collect();
    assert_eq!(got, want, "{}", job.dump());
}

/// The nonblocking neighbourhood collectives on a periodic ring of 4: the
/// data of each (equal to the blocking form's, which the program checks),
/// and the exact time of an MPI_Ineighbor_alltoall of b bytes per
/// neighbour followed by MPI_Wait, from a common start on one node: each
/// rank starts its send to the left neighbour at T (copy to T + M), then
/// to the right one (to T + 2M) and waits from T + 2M; the right
/// neighbour's first message (to me) arrives at T + 2M, the left one's
/// second at T + 3M; copied out by T + 3M and T + 4M: 4 M(b).
#[test]
fn ineighbor_results_and_timing() {
    let b = 1000u64;
    let prog = program("ineighbor");
    for cores in CORE_VARIANTS {
        let job = Run::exact(4, &prog).cores(cores).args(&[b]).run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
        let t = common::times_by_rank_op(&job.stdout, "t");
        for r in 0..4i64 {
            let got = t[&(r, "ialltoall".to_string())] - t[&(r, "start".to_string())];
            assert_eq!(got, 4 * m(b), "cores {cores:?} rank {r}\n{}", job.dump());
            let (l, rt) = ((r + 3) % 4, (r + 1) % 4);
            let want = [
                ("allgather", vec![10 * l, 10 * rt]),
                ("allgatherv", vec![10 * rt + 1, 0, 10 * l + 1]),
                ("alltoall", vec![10 * l + 1, 10 * rt]),
                ("alltoallv", vec![100 * rt, 100 * l + 1, 100 * l + 2]),
                ("alltoallw", vec![100 * rt, 100 * l + 1, 100 * l + 2]),
            ];
            for (op, v) in want {
                let line = format!("nb rank={r} op={op} v={}", join(&v));
                assert!(
                    job.stdout.lines().any(|x| x == line),
                    "no `{line}`\n{}",
                    job.dump()
                );
            }
        }
    }
}

/// Every nonblocking collective on the intercommunicator of 2 + 3 ranks
/// (both root sides, the short and long algorithms of Igather / Iscatter)
/// gives the blocking form's result, which `intercommunicator_results`
/// checks against the standard's.
#[test]
fn nonblocking_intercommunicator_collectives() {
    let job = Run::exact(5, &program("inter_icoll")).run();
    job.assert_success();
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
    let mut ops: Vec<String> = vec![
        "ibarrier",
        "iallreduce",
        "iallgather",
        "iallgatherv",
        "ialltoall",
        "ialltoallv",
        "ialltoallw",
        "ireduce_scatter_block",
        "ireduce_scatter",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    for k in 0..2 {
        for op in ["ibcast", "ireduce", "igatherv", "iscatterv"] {
            ops.push(format!("{op}{k}"));
        }
        for big in 0..2 {
            ops.push(format!("igather{k}_{big}"));
            ops.push(format!("iscatter{k}_{big}"));
        }
    }
    for w in 0..5 {
        for op in &ops {
            let line = format!("ok rank={w} op={op}");
            assert!(
                job.stdout.lines().any(|l| l == line),
                "no `{line}`\n{}",
                job.dump()
            );
        }
    }
}
