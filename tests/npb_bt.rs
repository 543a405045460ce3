//! bench-npb BT (bench-npb/bt/*.f90) under vaced: class S on 4 ranks (2
//! cells per rank and direction) verifies against NPB's xcr and xce, sends
//! exactly NPB BT's messages, its virtual time does not depend on the host
//! cores, and rank counts NPB BT cannot run on are refused.
//!
//! Without gfortran the tests say so and pass, as tests/fortran.rs does.
mod common;

use common::npb::{self, assert_completed, assert_verdict, field};
use common::{Job, Run};
use std::path::PathBuf;

/// Class S: a 12^3 grid, 60 time steps.
const N: u64 = 12;
const NITER: u64 = 60;

/// The sources in compilation order (the module first).
const SOURCES: [&str; 4] = ["bt_data.f90", "rhs.f90", "solve.f90", "bt.f90"];

/// `mpif90 -O2 -J <scratch>/.mod-bt bench-npb/bt/*.f90 -o <scratch>/bt`, once per test binary (None without gfortran).
fn bt() -> Option<PathBuf> {
    npb::fortran_kernel("bt", &SOURCES, &[])
}

/// The checks every class S, 4-rank run must pass: the result block, the
/// ten norms each within NPB's 1e-8 of its reference (the verification
/// table has one line per norm: index, computed, reference, relative
/// difference), and NPB's verdict.
fn assert_verified(job: &Job) {
    assert_completed(job, "BT", "S", 4);
    assert_eq!(field(job, "Size"), format!("{N}x  {N}x  {N}"));
    assert_eq!(field(job, "Iterations"), NITER.to_string());
    assert!(
        job.stdout
            .contains(" Verification being performed for class S"),
        "{}",
        job.dump()
    );
    let norms: Vec<f64> = job
        .stdout
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() == 4 && w[0].parse::<u32>().is_ok())
                .then(|| w[3].parse::<f64>().expect("relative difference"))
        })
        .collect();
    assert_eq!(
        norms.len(),
        10,
        "5 residual + 5 error norms\n{}",
        job.dump()
    );
    for (i, d) in norms.iter().enumerate() {
        assert!(*d <= 1e-8, "norm {i} off by {d}\n{}", job.dump());
    }
    assert!(
        job.stdout.contains(" Verification Successful"),
        "{}",
        job.dump()
    );
    assert_verdict(job, "BT", "S");
}

#[test]
fn bt_class_s_verifies_on_4_ranks_of_tianhe1a() {
    let Some(prog) = bt() else {
        return;
    };
    // The timed section (MPI_Wtime, max over ranks) lies within the run.
    npb::check_class_s_on("tianhe1a", 4, &prog, assert_verified);
}

/// Messages and bytes sent by each rank of NPB BT class S on 4 ranks: 2
/// cells per rank and direction, cells of 6^3 points, maxdim = 12/2 + 1 = 7.
///
/// Point to point, 61 ADI steps (one untimed + 60) and one more copy_faces
/// in the verification:
/// * copy_faces: 6 faces of one cell, 2 layers of 6 x 6 points of 5
///   doubles: 6 messages of 2,880 bytes;
/// * each of the 3 sweeps: one forward message (maxdim^2 x 30 doubles,
///   11,760 bytes) and one backward (maxdim^2 x 5 doubles, 1,960 bytes).
///
/// Collectives (src/coll, MPICH 4.0.2's algorithms): MPI_Comm_split, an
/// allgather of (color, key) by recursive doubling (8 then 16 bytes) and a
/// context id (an allreduce of 65 ints by reduce-scatter + allgather:
/// `npb::context_id_traffic`); each MPI_Comm_dup one more such allreduce;
/// each of the three new communicators (all 4 ranks) its sequence number
/// (`npb::seq_bcast_traffic`); six binomial
/// MPI_Bcast from rank 0 (4 + 8 + 12 + 4 + 4 + 4 bytes: rank 0 sends each
/// to ranks 2 and 1, rank 2 to rank 3); two MPI_Barrier by dissemination
/// (2 empty messages per rank each); two MPI_Allreduce of 5 doubles by
/// reduce-scatter + allgather (pieces of 2, 1, 1, 1 doubles; 4 messages,
/// 64 bytes from ranks 0 and 2, 56 from ranks 1 and 3); MPI_Reduce of one
/// double to rank 0 binomially (ranks 1, 2 and 3 send 8 bytes once).
fn expected_traffic(rank: u64) -> (u64, u64) {
    let adi_steps = NITER + 1;
    let face = (N / 2) * (N / 2) * 5 * 2 * 8;
    let maxdim = N / 2 + 1;
    let (fwd, back) = (maxdim * maxdim * 30 * 8, maxdim * maxdim * 5 * 8);
    let p2p_msgs = (adi_steps + 1) * 6 + adi_steps * 3 * 2;
    let p2p_bytes = (adi_steps + 1) * 6 * face + adi_steps * 3 * (fwd + back);

    let (ctx, seq) = (
        npb::context_id_traffic(rank, 4),
        npb::seq_bcast_traffic(rank, 4),
    );
    let comms = (2 + 3 * (ctx.0 + seq.0), 8 + 16 + 3 * (ctx.1 + seq.1));
    let bcast_bytes = 4 + 8 + 12 + 4 + 4 + 4;
    let bcasts = match rank {
        0 => (12, 2 * bcast_bytes),
        2 => (6, bcast_bytes),
        _ => (0, 0),
    };
    let barriers = (2 * 2, 0);
    let allreduces = (2 * 4, 2 * if rank.is_multiple_of(2) { 64 } else { 56 });
    let reduce = if rank == 0 { (0, 0) } else { (1, 8) };

    let parts = [comms, bcasts, barriers, allreduces, reduce];
    (
        p2p_msgs + parts.iter().map(|p| p.0).sum::<u64>(),
        p2p_bytes + parts.iter().map(|p| p.1).sum::<u64>(),
    )
}

#[test]
fn bt_class_s_messages_and_virtual_time_are_exact() {
    // Hand check of the formula: 3,077 messages and 14,333,796 bytes in
    // all (the 13.7 MiB vaced prints for the 4 ranks).
    // (each new communicator: a context id of 392 bytes from ranks 0 and
    // 2, 388 from 1 and 3; a sequence number: 2 x 4 bytes from rank 0, 4
    // from rank 2)
    assert_eq!(expected_traffic(0), (782, 3_583_544));
    assert_eq!(expected_traffic(1), (765, 3_583_428));
    assert_eq!(expected_traffic(2), (774, 3_583_504));
    assert_eq!(expected_traffic(3), (765, 3_583_428));
    let Some(prog) = bt() else {
        return;
    };
    npb::check_exact_traffic(&prog, 4, assert_verified, expected_traffic);
}

/// NPB BT runs on square process counts only, and class S's 12^3 grid
/// leaves cells of at least 3 points on at most 4 x 4 ranks: 2 and 25
/// ranks are refused by rank 0 naming the allowed counts, with MPI_Abort.
#[test]
fn bt_refuses_rank_counts_npb_does_not_allow() {
    let Some(prog) = bt() else {
        return;
    };
    for (n, why) in [(2, "2 processes"), (25, "25 processes")] {
        let job = Run::exact(n, &prog).args(&["S"]).run();
        assert!(!job.status.success(), "{}", job.dump());
        assert!(
            job.stderr
                .contains(&format!("ERROR: BT cannot run on {why}"))
                && job
                    .stderr
                    .contains("needs a square number of processes q*q with q <= 4: 1, 4, 9, 16"),
            "{}",
            job.dump()
        );
        assert!(
            !job.stdout.contains("Benchmark Completed"),
            "{}",
            job.dump()
        );
    }
}
