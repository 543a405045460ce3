//! bench-npb SP (bench-npb/sp/*.f90) under vaced: class S on 4 ranks (two
//! cells per rank, NPB's multi-partition) meets NPB's reference norms,
//! sends exactly NPB SP's messages, and its virtual time does not depend on
//! the host cores.
//!
//! Without gfortran the tests say so and pass, as tests/fortran.rs does.
mod common;

use common::npb::{self, assert_completed, assert_verdict, field};
use common::{Job, Run};
use std::path::PathBuf;

/// Class S: a 12^3 grid, 100 time steps.
const N: u64 = 12;
const NITER: u64 = 100;

/// NPB's reference RMS norms of the residual (xcr) and of the solution
/// error (xce) for class S, and its relative tolerance. The literals are
/// NPB's, digit for digit (more than a double holds).
#[allow(clippy::excessive_precision)]
const XCR: [f64; 5] = [
    2.7470315451339479e-02,
    1.0360746705285417e-02,
    1.6235745065095532e-02,
    1.5840557224455615e-02,
    3.4849040609362460e-02,
];
#[allow(clippy::excessive_precision)]
const XCE: [f64; 5] = [
    2.7289258557377227e-05,
    1.0364446640837285e-05,
    1.6154798287166471e-05,
    1.5750704994480102e-05,
    3.4177666183390531e-05,
];
const EPSILON: f64 = 1.0e-8;

/// The sources in compilation order (the module file first).
const SOURCES: [&str; 6] = [
    "sp_data.f90",
    "sp_setup.f90",
    "sp_rhs.f90",
    "sp_lhs.f90",
    "sp_solve.f90",
    "sp.f90",
];

/// `mpif90 -O2 -J <scratch>/.mod-sp bench-npb/sp/*.f90 -o <scratch>/sp` as
/// bench-npb/sp/Makefile builds it, once per test binary (None without gfortran).
fn sp() -> Option<PathBuf> {
    npb::fortran_kernel("sp", &SOURCES, &[])
}

/// The five computed norms printed under `heading` by NPB's verify (lines
/// `m computed reference difference`).
fn norms(job: &Job, heading: &str) -> [f64; 5] {
    let mut lines = job
        .stdout
        .lines()
        .skip_while(|l| l.trim() != heading)
        .skip(1);
    let mut got = [0.0; 5];
    for (m, x) in got.iter_mut().enumerate() {
        let l = lines
            .next()
            .unwrap_or_else(|| panic!("no line {} under `{heading}`\n{}", m + 1, job.dump()));
        let w: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(w.first(), Some(&(m + 1).to_string().as_str()), "{l}");
        *x = w[1].parse().unwrap_or_else(|_| panic!("not a norm: `{l}`"));
    }
    got
}

/// The checks every class S, 4-rank run must pass: the result block, each
/// printed norm within NPB's tolerance of NPB's reference value (checked
/// here, not only by the program), and NPB's verdict.
fn assert_verified(job: &Job) {
    assert_completed(job, "SP", "S", 4);
    assert_eq!(field(job, "Size"), "12x  12x  12");
    assert_eq!(field(job, "Iterations"), NITER.to_string());
    for (heading, reference) in [
        ("Comparison of RMS-norms of residual", XCR),
        ("Comparison of RMS-norms of solution error", XCE),
    ] {
        let got = norms(job, heading);
        for m in 0..5 {
            // the printed values have 13 significant digits
            let rel = ((got[m] - reference[m]) / reference[m]).abs();
            assert!(
                rel <= EPSILON,
                "{heading}, variable {}: {} vs NPB's {} (relative {rel:e})\n{}",
                m + 1,
                got[m],
                reference[m],
                job.dump()
            );
        }
    }
    assert!(job.stdout.contains(" Verification Successful"));
    assert_verdict(job, "SP", "S");
}

#[test]
fn sp_class_s_verifies_on_4_ranks_of_tianhe1a() {
    let Some(prog) = sp() else {
        return;
    };
    // The timed section (MPI_Wtime, max over ranks) lies within the run.
    npb::check_class_s_on("tianhe1a", 4, &prog, assert_verified);
}

/// Points of a direction per cell coordinate (NPB's make_set): n / nc each,
/// the first n % nc cells one more.
fn cell_sizes(n: u64, nc: u64) -> Vec<u64> {
    (0..nc).map(|c| n / nc + u64::from(c < n % nc)).collect()
}

/// NPB SP's own messages and bytes from `rank` of `p` ranks: per time step
/// (niter + 1, with the untimed first one) copy_faces, one message to each
/// of the six neighbours holding the faces (two planes, five variables) of
/// all the cells that have a neighbour on that side, and for each of x, y,
/// z the line solves: the forward sweep sends 22 doubles per line of the
/// cell from every cell but the last of the row, the back-substitution 10
/// doubles per line from every cell but the first (lines: the interior
/// points of the cross-section); then verify's copy_faces.
fn sp_traffic(rank: u64, p: u64) -> (u64, u64) {
    let nc = (1..=p).find(|c| c * c == p).expect("a square");
    let size = cell_sizes(N, nc);
    let (i, j) = (rank % nc, rank / nc);
    // cell c: coordinates (i + c, j - c, c) mod nc, NPB's diagonal layout
    let cells: Vec<[u64; 3]> = (0..nc)
        .map(|c| [(i + c) % nc, (j + nc - c) % nc, c])
        .collect();
    let interior = |x: u64| size[x as usize] - u64::from(x == 0) - u64::from(x == nc - 1);
    let (mut face_msgs, mut face_bytes) = (0, 0);
    if nc > 1 {
        for d in 0..3 {
            let (a, b) = ((d + 1) % 3, (d + 2) % 3);
            for first in [true, false] {
                let doubles: u64 = cells
                    .iter()
                    .filter(|c| c[d] != if first { 0 } else { nc - 1 })
                    .map(|c| size[c[a] as usize] * size[c[b] as usize] * 5 * 2)
                    .sum();
                face_msgs += 1;
                face_bytes += doubles * 8;
            }
        }
    }
    let (mut solve_msgs, mut solve_bytes) = (0, 0);
    for d in 0..3 {
        let (a, b) = ((d + 1) % 3, (d + 2) % 3);
        for c in &cells {
            let lines = interior(c[a]) * interior(c[b]);
            if c[d] != nc - 1 {
                solve_msgs += 1;
                solve_bytes += 22 * lines * 8;
            }
            if c[d] != 0 {
                solve_msgs += 1;
                solve_bytes += 10 * lines * 8;
            }
        }
    }
    let steps = NITER + 1;
    (
        steps * (face_msgs + solve_msgs) + face_msgs,
        steps * (face_bytes + solve_bytes) + face_bytes,
    )
}

/// All messages per rank of SP class S on 4 ranks: SP's own (sp_traffic),
/// then the set-up and the collectives (src/coll, MPICH 4.0.2's algorithms
/// on 4 ranks): MPI_Comm_split (an allgather of 8 bytes per rank by
/// recursive doubling: 8 + 16 bytes sent, then a context id: an allreduce
/// of 65 ints by reduce-scatter + allgather, `npb::context_id_traffic`)
/// and two MPI_Comm_dup (a context id each), each new communicator with
/// its sequence number (`npb::seq_bcast_traffic`); four binomial
/// MPI_Bcast from rank 0 (4, 8, 12 and 4 bytes: rank 0 sends to 2 and 1,
/// rank 2 to 3); two MPI_Barrier (2 empty messages each); two MPI_Allreduce
/// of five doubles by reduce-scatter + allgather (pieces of 2, 1, 1, 1
/// doubles: 4 messages, 64 bytes from ranks 0 and 2, 56 from ranks 1 and
/// 3); MPI_Reduce of the time to rank 0 (ranks 1, 2 and 3 send 8 bytes).
fn expected_traffic(rank: u64) -> (u64, u64) {
    let (msgs, bytes) = sp_traffic(rank, 4);
    let (ctx, seq) = (
        npb::context_id_traffic(rank, 4),
        npb::seq_bcast_traffic(rank, 4),
    );
    let setup = (2 + 3 * (ctx.0 + seq.0), 8 + 16 + 3 * (ctx.1 + seq.1));
    let bcast = match rank {
        0 => (8, 2 * (4 + 8 + 12 + 4)),
        2 => (4, 4 + 8 + 12 + 4),
        _ => (0, 0),
    };
    let barriers = (4, 0);
    let allreduces = (2 * 4, 2 * if rank.is_multiple_of(2) { 64 } else { 56 });
    let reduce = if rank == 0 { (0, 0) } else { (1, 8) };
    let parts = [setup, bcast, barriers, allreduces, reduce];
    (
        msgs + parts.iter().map(|p| p.0).sum::<u64>(),
        bytes + parts.iter().map(|p| p.1).sum::<u64>(),
    )
}

#[test]
fn sp_class_s_messages_and_virtual_time_are_exact() {
    // Hand check of the formulas: on 4 ranks every cell is 6^3 with 5 x 5
    // interior lines across; per step 6 face messages of 6*6*10 doubles and
    // per direction one 22*25- and one 10*25-double message.
    assert_eq!(
        sp_traffic(0, 4),
        (102 * 6 + 101 * 6, 102 * 17_280 + 101 * 19_200)
    );
    assert_eq!(expected_traffic(0), (1258, 3_703_168));
    assert_eq!(expected_traffic(1), (1245, 3_703_068));
    assert_eq!(expected_traffic(2), (1252, 3_703_136));
    let Some(prog) = sp() else {
        return;
    };
    npb::check_exact_traffic(&prog, 4, assert_verified, expected_traffic);
}

/// A rank count that is not a square, and a class that does not exist, are
/// refused with a message naming what is allowed.
#[test]
fn sp_refuses_bad_rank_counts_and_classes() {
    let Some(prog) = sp() else {
        return;
    };
    for (n, class, says) in [
        (
            2,
            "S",
            "square number of processes (1, 4, 9, 16, ..., 1024), not 2 ranks",
        ),
        (1, "X", "unknown SP class \"X\" (expected S, W, A, B or C)"),
    ] {
        let job = Run::exact(n, &prog).args(&[class]).run();
        assert!(!job.status.success(), "{}", job.dump());
        assert!(job.stderr.contains(says), "{}", job.dump());
    }
}
