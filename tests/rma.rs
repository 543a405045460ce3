//! One-sided communication: exact timing of a Put + fence epoch and of a
//! passive-target Get whose target computes (on the default core count,
//! `--cores 1` and `--cores 2`), and the results of every operation and
//! synchronization mode on several rank counts, with the RMA error classes.
//!
//! Notation (ps): M(b) = b/Bmem; ranks 0 and 1 share a node (h = 0), so
//! L(b, 0) = M(b); H = 64 (control packets).
mod common;

use common::model::{m, H};
use common::{program, Run, CORE_VARIANTS};

const B: u64 = 1_048_576;
const G: u64 = 80_000;
/// MPIX_Vaced_compute(0.001) in ps.
const C: u64 = 1_000_000_000;

/// `rma_timing` (see the program). Both ranks leave the opening fence (a
/// barrier) at the same time T.
///
/// A, rank 0: PUT sent at T (tV = T + M(B), ta = T + 2 M(B)); the closing
/// fence's Reduce_scatter_block (2 ranks: one exchange of 4 bytes): its
/// send leaves at T + M(B) (tV + M(4)), rank 1's 4 bytes arrived at
/// T + 2 M(4), long before, so they are dealt with at the start of the
/// wait and done M(4) later: T + M(B) + 2 M(4). Nothing is aimed at rank 0.
/// A, rank 1: its reduce-scatter ends at T + M(B) + 3 M(4); the PUT is dealt
/// with at its arrival T + 2 M(B) (rank 1 is in the fence then) and done at
/// T + 3 M(B), which ends the fence.
///
/// B, rank 0 (both leave the barrier at T'): LOCK at T' (ta = T' + 2 M(H));
/// the GET is queued. Rank 1 computes C and enters the barrier at T' + C:
/// the LOCK is dealt with then, LOCK_GRANTED arrives at T' + C + 2 M(H) and
/// is done at + M(H). The GET request leaves at g = T' + C + 3 M(H) (tV +
/// M(H)), then UNLOCK (tV + M(H)); rank 1, waiting in its barrier, answers
/// the GET at its arrival g + 2 M(H): the response arrives at
/// g + 2 M(H) + 2 M(G) and is done at + M(G); the ACK of the UNLOCK is done at
/// g + 6 M(H). Unlock returns at the later: g + 2 M(H) + 3 M(G).
#[test]
fn put_fence_and_passive_get_are_exact() {
    let prog = program("rma_timing");
    for cores in CORE_VARIANTS {
        let job = Run::exact(2, &prog).cores(cores).run();
        job.assert_success();
        let mut a = [(0u64, 0u64); 2];
        let mut b = None;
        for line in job.stdout.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (r, t0, t1): (usize, u64, u64) = (
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            );
            match f[0] {
                "A" => a[r] = (t0, t1),
                "B" => b = Some((t0, t1)),
                _ => panic!("unexpected line {line}\n{}", job.dump()),
            }
        }
        let t = a[0].0;
        assert_eq!(
            a[1].0,
            t,
            "cores {cores:?}: both ranks start at T\n{}",
            job.dump()
        );
        assert_eq!(
            a[0].1,
            t + m(B) + 2 * m(4),
            "cores {cores:?}: rank 0 fence\n{}",
            job.dump()
        );
        assert_eq!(
            a[1].1,
            t + 3 * m(B),
            "cores {cores:?}: rank 1 fence\n{}",
            job.dump()
        );
        let (b0, b1) = b.expect("B line");
        let g = b0 + C + 3 * m(H);
        assert_eq!(
            b1,
            g + (2 * m(H) + 3 * m(G)).max(6 * m(H)),
            "cores {cores:?}: passive get\n{}",
            job.dump()
        );
    }
}

#[test]
fn every_operation_and_mode_gives_the_right_results() {
    let prog = program("rma_ops");
    for n in [1, 2, 3, 4, 5] {
        let job = Run::exact(n, &prog).run();
        job.assert_success();
        assert!(
            job.stdout.lines().any(|l| l == "ok 0"),
            "{n} ranks:\n{}",
            job.dump()
        );
    }
    let job = Run::exact(3, &prog).cores(Some(1)).run();
    job.assert_success();
    assert!(job.stdout.lines().any(|l| l == "ok 0"), "{}", job.dump());
}

/// `use mpi` from Fortran: fence + Put / Get / Accumulate, a lock with
/// Fetch_and_op, Win_get_attr values, Win_allocate's base address (skipped
/// without gfortran).
#[test]
fn fortran_bindings_work() {
    let Some(out) = common::fortran_program("f90_rma.f90", &[]) else {
        return;
    };
    for n in [1, 3] {
        let job = Run::exact(n, &out).run();
        job.assert_success();
        assert!(
            job.stdout.lines().any(|l| l.trim() == "f90 rma ok"),
            "{}",
            job.dump()
        );
        assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
    }
}

/// `rma_many`: every rank an origin and a target of many small operations
/// (lock_all with Put, Accumulate and Get to everyone, flush_all; a fence
/// epoch): the data is right on every rank, and the prediction is the same
/// on 1 and 2 host cores.
#[test]
fn many_small_operations_among_every_pair_are_right() {
    let prog = program("rma_many");
    let mut ends = Vec::new();
    for cores in CORE_VARIANTS {
        let job = Run::exact(16, &prog).cores(cores).args(&["6", "8"]).run();
        job.assert_success();
        let mut v: Vec<&str> = job.stdout.lines().collect();
        v.sort();
        assert_eq!(v.len(), 16, "cores {cores:?}\n{}", job.dump());
        assert!(v.iter().all(|l| l.starts_with("ok ")), "{}", job.dump());
        ends.push(v.join("\n"));
    }
    assert!(ends.windows(2).all(|w| w[0] == w[1]), "{ends:?}");
}
