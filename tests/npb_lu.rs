//! bench-npb LU (bench-npb/lu/lu.f90) under vaced: class S on 4 ranks
//! (a 2 x 2 grid) verifies against NPB's reference norms and surface
//! integral, sends exactly NPB LU's messages, and its virtual time does not
//! depend on the host cores.
//!
//! Without gfortran the tests say so and pass, as tests/fortran.rs does.
mod common;

use common::npb::{self, assert_completed, assert_verdict, field};
use common::{Job, Run};
use std::path::PathBuf;

/// Class S: a 12^3 grid, 50 SSOR steps (inorm = itmax), dt = 0.5.
const N: u64 = 12;
const ITMAX: u64 = 50;
/// NPB's surface integral for class S, as verify prints it (e20.13).
const XCI: &str = "0.7841892886594E+01";

/// `mpif90 -O2 -J <scratch>/.mod-lu bench-npb/lu/lu.f90 -o <scratch>/lu`,
/// once per test binary (None without gfortran).
fn lu() -> Option<PathBuf> {
    npb::fortran_kernel("lu", &["lu.f90"], &[])
}

/// The checks every class S, 4-rank run must pass: the result block, the
/// surface integral to NPB's printed digits, and NPB's verdict (all of
/// xcr, xce, xci within 1e-8).
fn assert_verified(job: &Job) {
    assert_completed(job, "LU", "S", 4);
    assert_eq!(field(job, "Size"), format!("{N}x  {N}x  {N}"));
    assert_eq!(field(job, "Iterations"), ITMAX.to_string());
    assert_eq!(field(job, "Process grid"), "2 x 2");
    let integral = job
        .stdout
        .lines()
        .skip_while(|l| !l.contains("Comparison of surface integral"))
        .nth(1)
        .unwrap_or_else(|| panic!("no surface integral line\n{}", job.dump()));
    assert_eq!(integral.split_whitespace().next(), Some(XCI), "{integral}");
    assert!(
        !job.stdout.contains("FAILURE"),
        "a norm missed NPB's reference\n{}",
        job.dump()
    );
    assert_verdict(job, "LU", "S");
}

#[test]
fn lu_class_s_verifies_on_4_ranks_of_tianhe1a() {
    let Some(prog) = lu() else {
        return;
    };
    // The timed SSOR loop (MPI_Wtime, max over ranks) lies within the run.
    npb::check_class_s_on("tianhe1a", 4, &prog, assert_verified);
}

/// What NPB LU sends on a 2 x 2 grid of class S, by kind: (messages,
/// bytes) per rank. Rank r has row r % 2 (i) and column r / 2 (j), so each
/// rank owns 6 x 6 x 12 points and has one neighbour in i and one in j:
/// rank 0 south 1 and east 2, rank 1 north 0 and east 3, rank 2 south 3
/// and west 0, rank 3 north 2 and west 1.
struct Traffic {
    msgs: u64,
    bytes: u64,
}

fn expected_traffic(rank: u64) -> Traffic {
    let (nx, ny, nz) = (N / 2, N / 2, N);
    let dbl = 8;
    // SSOR steps: one untimed step, then itmax.
    let steps = 1 + ITMAX;
    // The operator (rhs, erhs) runs once in erhs and, per ssor call, once
    // before the loop and once per step; each run sends two ghost planes
    // to its i neighbour and to its j neighbour (exchange_3).
    let operator_runs = 1 + (1 + 1) + (1 + ITMAX);
    let ex3 = (2 * operator_runs, operator_runs * 10 * (ny + nx) * nz * dbl);
    // exchange_1: per step and k-plane 2..nz-1, one line of the 5
    // non-boundary points (5 values each) to each neighbour (the lower
    // sweep sends south/east, the upper sweep north/west).
    let line = 5 * (N / 2 - 1) * dbl;
    let ex1 = (steps * (nz - 2) * 2, steps * (nz - 2) * 2 * line);
    // MPI_Bcast of the 10 inputs from rank 0, binomially: rank 0 sends to
    // 2 and 1, rank 2 to 3. Items: ipr, inorm, itmax (ints), dt, omega,
    // tolrsd(5) (doubles), nx0, ny0, nz0 (ints), timeron (logical).
    let inputs = 3 * 4 + 2 * 8 + 5 * 8 + 3 * 4 + 4;
    let bcast = match rank {
        0 => (20, 2 * inputs),
        2 => (10, inputs),
        _ => (0, 0),
    };
    // MPI_Allreduce: the 5 norms of l2norm (once in ssor(1), three times
    // in ssor(itmax): before the loop, then delunm and rsdnm at istep =
    // inorm = itmax) and error(), by reduce-scatter + allgather (MPICH
    // 4.0.2 above 8 bytes; pieces of 2, 1, 1, 1 doubles: 4 messages, 64
    // bytes from even ranks, 56 from odd ones); one double for the 3
    // surface integrals and the 2 timings, by recursive doubling (2
    // messages of 8 bytes).
    let norms = if rank.is_multiple_of(2) { 64 } else { 56 };
    let allreduce = (4 * 5 + 2 * 5, 5 * norms + 2 * 5 * dbl);
    // MPI_Barrier (dissemination, 2 empty messages) in each ssor call.
    let barrier = (2 * 2, 0);
    // pintgr: exchange_4 sends the two k faces' first line west (2*nx) and
    // first row north (2*(ny+2)); exchange_5/6 one edge of nz values north
    // resp. west. Which rank sends what follows from the integration box
    // 2..11 x 2..10 x 3..11.
    let (e4w, e4n, e56) = (2 * nx * dbl, 2 * (ny + 2) * dbl, nz * dbl);
    let pintgr = match rank {
        0 => (0, 0),
        1 => (2, e4n + e56),
        2 => (2, e4w + e56),
        _ => (4, e4w + e4n + 2 * e56),
    };
    let parts = [ex3, ex1, bcast, allreduce, barrier, pintgr];
    Traffic {
        msgs: parts.iter().map(|p| p.0).sum(),
        bytes: parts.iter().map(|p| p.1).sum(),
    }
}

#[test]
fn lu_class_s_messages_and_virtual_time_are_exact() {
    // Hand check of the formula: 4686 messages and 3,306,924 bytes in all
    // (the 3.2 MiB vaced prints for the 4 ranks).
    let per_rank: Vec<(u64, u64)> = (0..4)
        .map(|r| {
            let t = expected_traffic(r);
            (t.msgs, t.bytes)
        })
        .collect();
    assert_eq!(
        per_rank,
        [
            (1182, 826_648),
            (1164, 826_664),
            (1174, 826_756),
            (1166, 826_856)
        ]
    );
    let Some(prog) = lu() else {
        return;
    };
    npb::check_exact_traffic(&prog, 4, assert_verified, |r| per_rank[r as usize]);
}

#[test]
fn lu_rejects_a_rank_count_npb_does_not_allow() {
    let Some(prog) = lu() else {
        return;
    };
    // Class S has 12 points per direction: 32 ranks (8 x 4) would leave
    // 1 point per rank in i.
    let job = Run::exact(32, &prog).args(&["S"]).run();
    assert!(
        !job.status.success(),
        "32 ranks of class S must fail\n{}",
        job.dump()
    );
    assert!(
        job.stderr.contains(
            "LU class S cannot run on 32 processes; allowed (powers of two \
             leaving at least 3x3 points per rank): 1 2 4 8 16"
        ),
        "{}",
        job.dump()
    );
}
