//! bench-npb MG (bench-npb/mg/mg.f90) under vaced: class S on 4 ranks
//! verifies against NPB's L2 norm, sends exactly NPB MG's messages, and its
//! virtual time does not depend on the host cores.
//!
//! Without gfortran the tests say so and pass, as tests/fortran.rs does.
mod common;

use common::npb::{self, assert_completed, assert_verdict, field};
use common::{Job, Run};
use std::path::PathBuf;

/// Class S: a 32^3 grid (levels lt = 5 .. 1), 4 iterations.
const N: u64 = 32;
const LT: u32 = 5;
const NIT: u64 = 4;
/// NPB's verify_value for class S and its tolerance.
const RNM2_REF: f64 = 0.5307707005734e-04;
const EPSILON: f64 = 1.0e-8;

/// `mpif90 -O2 bench-npb/mg/mg.f90 -o <scratch>/mg`, once per test binary
/// (None without gfortran).
fn mg() -> Option<PathBuf> {
    npb::fortran_kernel("mg", &["mg.f90"], &[])
}

/// The checks every class S, 4-rank run must pass: the result block's
/// header, the final L2 norm within NPB's tolerance of NPB's value, and
/// NPB's verdict.
fn assert_verified(job: &Job) {
    assert_completed(job, "MG", "S", 4);
    assert_eq!(field(job, "Size"), "32x  32x  32");
    assert_eq!(field(job, "Iterations"), NIT.to_string());
    let norm = job
        .stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("L2 Norm is"))
        .unwrap_or_else(|| panic!("no `L2 Norm is` line\n{}", job.dump()));
    let rnm2: f64 = norm
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("L2 norm `{norm}` is not a number"));
    let err = (rnm2 - RNM2_REF).abs() / RNM2_REF;
    assert!(err <= EPSILON, "L2 norm {rnm2}: relative error {err}");
    assert_verdict(job, "MG", "S");
}

#[test]
fn mg_class_s_verifies_on_4_ranks_of_tianhe1a() {
    let Some(prog) = mg() else {
        return;
    };
    // The timed section (MPI_Wtime, max over ranks) lies within the run.
    npb::check_class_s_on("tianhe1a", 4, &prog, assert_verified);
}

/// Bytes of one ghost exchange (comm3) of a rank on a level of global size
/// g^3 with 4 ranks: NPB splits 4 = 1 x 2 x 2, so the local block is
/// g x g/2 x g/2 points, (g+2) x (g/2+2) x (g/2+2) with ghost cells. Per axis
/// two faces of doubles go out: axis 1 without the ghost cells of axes 2
/// and 3, axis 2 with those of axis 1, axis 3 whole.
fn comm3_bytes(g: u64) -> u64 {
    let (m1, m2, m3) = (g + 2, g / 2 + 2, g / 2 + 2);
    2 * 8 * ((m2 - 2) * (m3 - 2) + m1 * (m3 - 2) + m1 * m2)
}

/// Messages and bytes sent per rank by NPB MG class S on 4 ranks.
///
/// Point to point: every comm3 sends 6 messages (all ranks hold points on
/// every level, so there are no "_ex" exchanges; axis 1 is not split and
/// its faces go to the rank itself, as in NPB). A V-cycle exchanges twice
/// on level 1 (rprj3, psinv), three times on levels 2..lt-1 (rprj3, resid,
/// psinv) and twice on lt (resid, psinv); there are 1 + nit V-cycles. On lt
/// also: zran3 twice, resid before the warm-up V-cycle, after it, at the
/// start of the timed part and after each of the nit V-cycles.
///
/// Collectives (src/coll, MPICH's algorithms for 4 ranks): 6 MPI_Barrier
/// (start, 2 in each zran3, before the timed part) by dissemination, 2
/// empty messages each; 7 MPI_Bcast of the parameters (5 integers, 8
/// integers of debug flags, 1 logical: 56 bytes) binomially from rank 0,
/// which sends each twice, rank 2 once; MPI_Allreduce: 4 norm2u3 calls of
/// 2 doubles (each its own allreduce) and, in each zran3, 10 rounds of a
/// double (MAX), 4 integers, a double (MIN), 4 integers; those of 8 bytes
/// by recursive doubling (2 messages), those of 4 integers by
/// reduce-scatter + allgather (MPICH 4.0.2 above 8 bytes: 4 messages of 8,
/// 4, 4 and 8 bytes); MPI_Reduce of the time, one double from each of ranks
/// 1..3.
fn expected_traffic(rank: u64) -> (u64, u64) {
    let v_cycles = 1 + NIT;
    let mut calls = 0;
    let mut bytes = 0;
    for level in 1..=LT {
        let g = N >> (LT - level);
        let per_cycle = if level == 1 || level == LT { 2 } else { 3 };
        let mut n = per_cycle * v_cycles;
        if level == LT {
            n += 2 + 3 + NIT;
        }
        calls += n;
        bytes += n * comm3_bytes(g);
    }
    let mut msgs = 6 * calls;

    msgs += 6 * 2;
    let (bcast_msgs, bcast_bytes) = match rank {
        0 => (14, 2 * 56),
        2 => (7, 56),
        _ => (0, 0),
    };
    msgs += bcast_msgs;
    bytes += bcast_bytes;
    let allreduce_8 = 4 * 2 + 2 * 10 * 2;
    let allreduce_16 = 2 * 10 * 2;
    msgs += 2 * allreduce_8 + 4 * allreduce_16;
    bytes += 2 * allreduce_8 * 8 + allreduce_16 * (8 + 4 + 4 + 8);
    if rank != 0 {
        msgs += 1;
        bytes += 8;
    }
    (msgs, bytes)
}

#[test]
fn mg_class_s_messages_and_virtual_time_are_exact() {
    // Hand check of the formula: 74 exchanges (19 on level 5, 15 on each
    // of levels 4..2, 10 on level 1) of 22592, 6208, 1856, 640 and 272
    // bytes; 2552 messages in all, as vaced prints for the 4 ranks.
    assert_eq!(
        [32, 16, 8, 4, 2].map(comm3_bytes),
        [22592, 6208, 1856, 640, 272]
    );
    assert_eq!(expected_traffic(0), (726, 564_368));
    assert_eq!(expected_traffic(1), (713, 564_264));
    assert_eq!(expected_traffic(2), (720, 564_320));
    let Some(prog) = mg() else {
        return;
    };
    npb::check_exact_traffic(&prog, 4, assert_verified, expected_traffic);
}

/// A rank count that is not a power of two is refused with a message that
/// names the allowed counts, and so is an unknown class.
#[test]
fn mg_refuses_bad_rank_counts_and_classes() {
    let Some(prog) = mg() else {
        return;
    };
    let job = Run::exact(3, &prog).args(&["S"]).run();
    assert_ne!(job.status.code(), Some(0), "{}", job.dump());
    assert!(
        job.stderr
            .contains("MG runs on a power-of-two number of processes, 1 to 1024"),
        "{}",
        job.dump()
    );
    assert!(job.stderr.contains("not 3 ranks"), "{}", job.dump());
    let job = Run::exact(2, &prog).args(&["X"]).run();
    assert_ne!(job.status.code(), Some(0), "{}", job.dump());
    assert!(
        job.stderr
            .contains("unknown MG class \"X\" (expected S, W, A, B or C)"),
        "{}",
        job.dump()
    );
}
