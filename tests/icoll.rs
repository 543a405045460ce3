//! Nonblocking collectives: exact virtual times of schedules overlapping
//! computation (progress only inside MPI calls), and results.
//!
//! The timing tests run on a target like the exact one but with one rank
//! per node (every pair of ranks is 3 hops apart), so every message crosses
//! the network.
mod common;

use common::model::{link, m, TARGET_TOML};
use common::{fmt_ps, program, times_by_rank_op, write_target, Job, Run, CORE_VARIANTS};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Hops between two different ranks of the one-rank-per-node target.
const HOPS: u32 = 3;

fn one_per_node() -> PathBuf {
    static TARGET: OnceLock<PathBuf> = OnceLock::new();
    TARGET
        .get_or_init(|| {
            let text = TARGET_TOML.replace("{ ranks = 12, hops = 0 }", "{ ranks = 1, hops = 0 }");
            assert_ne!(text, TARGET_TOML);
            write_target("icoll-one-per-node.toml", &text)
        })
        .clone()
}

/// The computation of rank r between the starting call and MPI_Wait.
fn compute(r: usize, n: usize) -> u64 {
    ((37 * r % n) as u64 + 1) * 10_000_000
}

/// MPI_Ibcast of `b` eager bytes from rank 0 (MPICH's binomial schedule:
/// receive from the parent, then one round of sends to the children,
/// largest subtree first). The root's sends all start in MPI_Ibcast (each
/// copy takes M(b)), so it returns after k M(b) for k children and its
/// MPI_Wait has nothing left to do. Another rank r receives nothing before
/// its MPI_Wait at W = c(r): the message its parent sent at s arrives at
/// ta = s + M(b) + L(b, h) and is dealt with at max(ta, W) (no earlier
/// waiting activity covers ta); the receive completes M(b) later, at R,
/// and only then, inside the wait, does r forward to its children (at R,
/// R + M(b), ...): the wait ends when its last send has copied its data.
/// Returns (start, wait) per rank.
fn ibcast_times(n: usize, b: u64) -> Vec<(u64, u64)> {
    let mut out = vec![(0, 0); n];
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&r| r.count_ones());
    let mut sent_at: Vec<Option<u64>> = vec![None; n];
    for &r in &order {
        let low = if r == 0 {
            n.next_power_of_two()
        } else {
            1 << r.trailing_zeros()
        };
        let w = compute(r, n);
        let mut t = if r == 0 {
            0
        } else {
            let ta = sent_at[r].expect("parent sent") + m(b) + link(b, HOPS);
            ta.max(w) + m(b)
        };
        let mut mask = low >> 1;
        while mask > 0 {
            if r + mask < n {
                sent_at[r + mask] = Some(t);
                t += m(b);
            }
            mask >>= 1;
        }
        out[r] = if r == 0 { (t, t + w) } else { (0, t) };
    }
    out
}

/// MPI_Ibarrier (MPICH's dissemination schedule): round k sends a zero-byte
/// message to r + 2^k and receives one from r - 2^k; round 0's send leaves
/// in MPI_Ibarrier at 0, and each later round starts when the previous
/// one's receive completed. A receive completes at max(round start, W,
/// ta) (M(0) = 0) with W = c(r) the start of MPI_Wait: before W the rank
/// computes and handles nothing.
fn ibarrier_times(n: usize) -> Vec<(u64, u64)> {
    let w: Vec<u64> = (0..n).map(|r| compute(r, n)).collect();
    let mut start = vec![0u64; n];
    let mut mask = 1;
    while mask < n {
        let prev = start.clone();
        for (r, s) in start.iter_mut().enumerate() {
            let j = (r + n - mask) % n;
            let ta = prev[j] + m(0) + link(0, HOPS);
            *s = prev[r].max(w[r]).max(ta) + m(0);
        }
        mask <<= 1;
    }
    (0..n).map(|r| (0, start[r].max(w[r]))).collect()
}

fn check_times(job: &Job, expected: &[(u64, u64)], what: &str) {
    let got: BTreeMap<_, _> = times_by_rank_op(&job.stdout, "t").into_iter().collect();
    let mut want = BTreeMap::new();
    for (r, &(s, w)) in expected.iter().enumerate() {
        want.insert((r as i64, "start".to_string()), s);
        want.insert((r as i64, "wait".to_string()), w);
    }
    let diffs: Vec<String> = want
        .iter()
        .filter(|(k, v)| got.get(*k) != Some(*v))
        .map(|(k, v)| {
            format!(
                "{k:?}: got {}, expected {}",
                got.get(k).map_or("nothing".into(), |g| fmt_ps(*g)),
                fmt_ps(*v)
            )
        })
        .collect();
    assert!(
        diffs.is_empty() && got.len() == want.len(),
        "{what}:\n{}\n{}",
        diffs.join("\n"),
        job.dump()
    );
    assert!(!job.stdout.contains("FAIL"), "{what}:\n{}", job.dump());
}

fn overlap(mode: &str, n: usize, bytes: u64, expected: &[(u64, u64)]) {
    let target = one_per_node();
    let prog = program("icoll_overlap");
    for cores in CORE_VARIANTS {
        let job = Run::new(n as u32, target.as_os_str(), &prog)
            .args(&[mode.to_string(), bytes.to_string()])
            .cores(cores)
            .run();
        job.assert_success();
        check_times(
            &job,
            expected,
            &format!("{mode} on {n} ranks, cores {cores:?}"),
        );
    }
}

#[test]
fn ibcast_overlaps_computation_exactly() {
    // 8 ranks, 8 bytes: c(r) = ((37 r mod 8) + 1) * 10 us. Rank 2 (c = 30
    // us) gets its message (sent by the root at M(8)) long before its wait,
    // handles it at 30 us and forwards to rank 3 only then.
    let t = ibcast_times(8, 8);
    assert_eq!(t[0], (3 * m(8), 3 * m(8) + 10_000_000));
    assert_eq!(t[2], (0, 30_000_000 + 2 * m(8)));
    let ta3 = 30_000_000 + m(8) + m(8) + link(8, HOPS);
    assert_eq!(t[3], (0, ta3.max(compute(3, 8)) + m(8)));
    for n in [4, 5, 8] {
        overlap("bcast", n, 8, &ibcast_times(n, 8));
    }
}

#[test]
fn persistent_bcast_is_timed_as_ibcast() {
    // MPI_Bcast_init (local) + MPI_Start at 0 start the schedule MPI_Ibcast
    // starts: the same times to the picosecond.
    for n in [4, 5] {
        overlap("pbcast", n, 8, &ibcast_times(n, 8));
    }
}

#[test]
fn persistent_collectives_restart_with_new_data() {
    for n in [1, 2, 3, 5] {
        let job = Run::exact(n, &program("pcoll_results")).run();
        job.assert_success();
        for r in 0..n {
            assert!(
                job.stdout.contains(&format!("ok rank={r}\n")),
                "{}",
                job.dump()
            );
        }
    }
}

#[test]
fn ibarrier_overlaps_computation_exactly() {
    let t = ibarrier_times(4);
    // c = 10, 20, 30, 40 us (37 r mod 4 = 0, 1, 2, 3). Rank 0's round 0
    // message from rank 3 left in rank 3's MPI_Ibarrier at 0; its round 1
    // message from rank 2 leaves only when rank 2 enters MPI_Wait at 30 us.
    assert_eq!(t[0], (0, 30_000_000 + link(0, HOPS)));
    for n in [2, 3, 4, 7, 8] {
        overlap("barrier", n, 0, &ibarrier_times(n));
    }
}

#[test]
fn results_equal_the_blocking_collectives() {
    // Every size class of MPI_Ibcast (binomial, scatter + recursive
    // doubling or ring allgather, eager and rendezvous), outstanding
    // collectives completed out of order, a derived datatype, errors.
    let prog = program("icoll_results");
    for n in [1u32, 2, 3, 4, 5, 8, 13] {
        let job = Run::new(n, one_per_node().as_os_str(), &prog).run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{n} ranks:\n{}", job.dump());
        for r in 0..n {
            assert!(
                job.stdout.contains(&format!("ok rank={r} checks=26\n")),
                "{n} ranks, rank {r}:\n{}",
                job.dump()
            );
        }
    }
}

#[test]
fn reductions_gathers_scatters_alltoalls_equal_the_blocking_ones() {
    // MPI_Ireduce / MPI_Iallreduce (both schedules each), MPI_Igather,
    // MPI_Iscatter, MPI_Iallgather and MPI_Ialltoall (every schedule of
    // each on 8 and 13 ranks): counts 0 .. 40000 pairs, builtin and user-defined
    // non-commutative operators, MPI_IN_PLACE, a vector datatype.
    let prog = program("icoll_results2");
    for n in [1u32, 2, 3, 4, 5, 8, 13] {
        let job = Run::new(n, one_per_node().as_os_str(), &prog).run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{n} ranks:\n{}", job.dump());
        for r in 0..n {
            assert!(
                job.stdout.contains(&format!("ok rank={r} checks=")),
                "{n} ranks, rank {r}:\n{}",
                job.dump()
            );
        }
    }
}

#[test]
fn scans_and_v_collectives_equal_the_blocking_ones() {
    // MPI_Iscan, MPI_Iexscan, MPI_Igatherv, MPI_Iscatterv, MPI_Iallgatherv
    // (every schedule), MPI_Ialltoallv / MPI_Ialltoallw (blocked and in
    // place): blocks of different sizes, some empty, with gaps between
    // them; a user-defined non-commutative operator; MPI_IN_PLACE.
    let prog = program("icoll_results3");
    for n in [1u32, 2, 3, 4, 5, 8, 13] {
        let job = Run::new(n, one_per_node().as_os_str(), &prog).run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{n} ranks:\n{}", job.dump());
        for r in 0..n {
            assert!(
                job.stdout.contains(&format!("ok rank={r} checks=")),
                "{n} ranks, rank {r}:\n{}",
                job.dump()
            );
        }
    }
}

#[test]
fn reduce_scatters_equal_the_blocking_ones() {
    // MPI_Ireduce_scatter and MPI_Ireduce_scatter_block: recursive halving,
    // pairwise, the noncommutative schedule and recursive doubling; empty
    // blocks; MPI_IN_PLACE.
    let prog = program("icoll_results4");
    for n in [1u32, 2, 3, 4, 5, 8, 13] {
        let job = Run::new(n, one_per_node().as_os_str(), &prog).run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{n} ranks:\n{}", job.dump());
        for r in 0..n {
            assert!(
                job.stdout.contains(&format!("ok rank={r} checks=35\n")),
                "{n} ranks, rank {r}:\n{}",
                job.dump()
            );
        }
    }
}

#[test]
fn any_source_decisions_with_collectives_in_progress_are_deterministic() {
    // Rank 0 takes MPI_ANY_SOURCE messages whose send times depend on when
    // other ranks' schedules make progress (inner nodes of the broadcast
    // tree forward only inside MPI_Wait). Every run, on every core count,
    // gives the same output, and rank 0 takes the messages in the order
    // they arrive (one hop class: send order; ties to the lower rank).
    let prog = program("icoll_anysource");
    let mut first: Option<String> = None;
    for cores in CORE_VARIANTS.into_iter().chain(CORE_VARIANTS) {
        let job = Run::new(8, one_per_node().as_os_str(), &prog)
            .cores(cores)
            .run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
        let mut lines: Vec<&str> = job.stdout.lines().filter(|l| !l.is_empty()).collect();
        let got: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| l.starts_with("got "))
            .collect();
        lines.sort();
        let out = lines.join("\n");
        match &first {
            None => first = Some(out),
            Some(f) => assert_eq!(f, &out, "cores {cores:?}:\n{}", job.dump()),
        }
        // (send time, rank) of every sender, in the order rank 0 got them.
        let sent: BTreeMap<i64, u64> = common::records(&job.stdout, "sent")
            .iter()
            .map(|r| (r.int("rank"), r.ps("t")))
            .collect();
        let order: Vec<i64> = got
            .iter()
            .map(|l| {
                l.split_whitespace()
                    .find_map(|w| w.strip_prefix("src="))
                    .unwrap()
                    .parse()
                    .unwrap()
            })
            .collect();
        let mut want: Vec<i64> = sent.keys().copied().collect();
        want.sort_by_key(|r| (sent[r], *r));
        assert_eq!(order, want, "{}", job.dump());
    }
}

/// A nonblocking collective racing a blocking one (icoll_racing.c): a later
/// round of the schedule starts inside the starting call when its message
/// was already unexpected, or in a later call; the call's own clock is
/// charged round 0's sends only, so every host order predicts the same, to
/// the picosecond, on 1 and 2 cores and with random host delays (this was
/// off by one 16- or 32-byte copy in about 1 run of 3 under jitter).
#[test]
fn a_schedule_racing_a_blocking_collective_is_host_independent() {
    let target = write_target(
        "icoll-racing.toml",
        &TARGET_TOML.replace("ranks = 12, hops = 0", "ranks = 2, hops = 0"),
    );
    let prog = program("icoll_racing");
    let mut seen: Option<(u64, String)> = None;
    let runs = CORE_VARIANTS
        .iter()
        .map(|&c| (c, None))
        .chain((1..=16u64).map(|s| (Some(1 + (s % 2) as u32), Some(s))));
    for (cores, jitter) in runs {
        let mut run = Run::new(5, target.as_os_str(), &prog)
            .args(&["4"])
            .cores(cores);
        if let Some(s) = jitter {
            run = run.jitter(s);
        }
        let job = run.run();
        job.assert_success();
        let ends: BTreeMap<_, _> = times_by_rank_op(&job.stdout, "t").into_iter().collect();
        assert_eq!(ends.len(), 5, "{}", job.dump());
        let key = format!("{ends:?}");
        let t = ends.values().copied().max().unwrap();
        match &seen {
            None => seen = Some((t, key)),
            Some((t0, k0)) => assert_eq!(
                (&key, t),
                (k0, *t0),
                "cores {cores:?} jitter {jitter:?}:\n{}",
                job.dump()
            ),
        }
    }
}
