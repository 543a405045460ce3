//! bench-npb CG (bench-npb/cg/cg.f90) under vaced: class S on 4 ranks
//! (a 2 x 2 grid) verifies against NPB's zeta, sends exactly NPB CG's
//! messages, and its virtual time does not depend on the host cores.
//!
//! Needs the Fortran bindings of MPI_Barrier and MPI_Reduce (mpi_barrier_,
//! mpi_reduce_): without them the build fails and the test says which
//! symbol is missing.
//! Without gfortran the tests say so and pass, as tests/fortran.rs does.
mod common;

use common::npb::{self, assert_completed, assert_verdict, field};
use common::Job;
use std::path::PathBuf;

/// Class S: na = 1400, 15 iterations, NPB's zeta_verify_value.
const NA: u64 = 1400;
const NITER: u64 = 15;
const ZETA: &str = "8.5971775078648";

/// `mpif90 -O2 bench-npb/cg/cg.f90 -o <scratch>/cg`, once per test binary
/// (None without gfortran).
fn cg() -> Option<PathBuf> {
    npb::fortran_kernel("cg", &["cg.f90"], &[])
}

/// The checks every class S, 4-rank run must pass: the header of the
/// result block, the zeta of the last iteration to NPB's 13 decimals, and
/// NPB's verdict.
fn assert_verified(job: &Job) {
    assert_completed(job, "CG", "S", 4);
    assert_eq!(field(job, "Size"), NA.to_string());
    assert_eq!(field(job, "Iterations"), NITER.to_string());
    assert_eq!(field(job, "Process grid"), "2 x 2");
    let last = job
        .stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(&NITER.to_string()))
        .unwrap_or_else(|| panic!("no line for iteration {NITER}\n{}", job.dump()));
    assert_eq!(last.split_whitespace().nth(2), Some(ZETA), "{last}");
    assert_verdict(job, "CG", "S");
}

#[test]
fn cg_class_s_verifies_on_4_ranks_of_tianhe1a() {
    let Some(prog) = cg() else {
        return;
    };
    // The timed section (MPI_Wtime, max over ranks) lies within the run.
    npb::check_class_s_on("tianhe1a", 4, &prog, assert_verified);
}

/// Messages per rank of NPB CG on a 2 x 2 grid (l2npcols = 1), 16 outer
/// iterations (one untimed + 15): per conj_grad 1 + 25 x 4 + 3 (a row sum,
/// then per CG step a row-reduce step and a transpose exchange for A.p and
/// two row sums, then A.z and a row sum), plus the row sum of the norms.
/// Bytes: A.p pieces of na/2 = 700 doubles, row sums of 8 bytes, the norms
/// 16 bytes. Ranks 0 and 3 are their own transpose partners and send to
/// themselves, as in NPB. Then the collectives (src/coll, MPICH's
/// algorithms): MPI_Barrier by dissemination, 2 empty messages per rank;
/// MPI_Reduce of one double to rank 0 binomially, one 8-byte message from
/// each of ranks 1, 2 and 3.
fn expected_traffic(rank: u64) -> (u64, u64) {
    let piece = NA / 2 * 8;
    let per_cg_msgs = 1 + 25 * 4 + 3;
    let per_cg_bytes = 8 + 25 * (2 * piece + 2 * 8) + 2 * piece + 8;
    let outer = NITER + 1;
    let msgs = outer * (per_cg_msgs + 1) + 2 + u64::from(rank != 0);
    let bytes = outer * (per_cg_bytes + 16) + if rank != 0 { 8 } else { 0 };
    (msgs, bytes)
}

#[test]
fn cg_class_s_messages_and_virtual_time_are_exact() {
    // Hand check of the formula: 1682 messages and 4,666,112 bytes from
    // rank 0 (the 17.8 MiB total vaced prints for the 4 ranks).
    assert_eq!(expected_traffic(0), (1682, 4_666_112));
    assert_eq!(expected_traffic(3), (1683, 4_666_120));
    let Some(prog) = cg() else {
        return;
    };
    npb::check_exact_traffic(&prog, 4, assert_verified, expected_traffic);
}
