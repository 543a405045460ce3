//! bench-npb FT (bench-npb/ft/ft.f90) under vaced: class S verifies against
//! NPB's checksums in the 1D layout (4 ranks, slabs) and the 2D layout (128
//! ranks, 64 x 2 pencils), sends exactly NPB FT's messages, its virtual
//! time does not depend on the host cores, and a rank count NPB does not
//! allow is refused.
//!
//! Without gfortran the tests say so and pass, as tests/fortran.rs does.
mod common;

use common::npb::{self, assert_completed, assert_verdict, field};
use common::{report, scratch, Job, Run};
use std::path::PathBuf;

/// Class S: a 64 x 64 x 64 grid, 6 time steps.
const N: u64 = 64;
const NITER: u64 = 6;

/// The checksums NPB 3.3 FT prints for class S (` T =    i     Checksum =`
/// lines, 1P2D22.12), one per time step.
const CHECKSUMS: [(&str, &str); NITER as usize] = [
    ("5.546087004964D+02", "4.845363331978D+02"),
    ("5.546385409190D+02", "4.865304269511D+02"),
    ("5.546148406171D+02", "4.883910722337D+02"),
    ("5.545423607415D+02", "4.901273169046D+02"),
    ("5.544255039624D+02", "4.917475857993D+02"),
    ("5.542683411903D+02", "4.932597244941D+02"),
];

/// `mpif90 -O2 bench-npb/ft/ft.f90 -o <scratch>/ft`, once per test binary
/// (None without gfortran).
fn ft() -> Option<PathBuf> {
    npb::fortran_kernel("ft", &["ft.f90"], &[])
}

/// The layout rank 0 announces (`Layout type : 1D`).
fn layout(job: &Job) -> &str {
    job.stdout
        .lines()
        .find_map(|l| l.strip_prefix(" Layout type")?.split(':').nth(1))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no `Layout type` line\n{}", job.dump()))
}

/// The checks every class S run must pass: the result block, NPB's
/// printed checksum of every time step, and NPB's verdict.
fn assert_verified(job: &Job, ranks: u32, grid: &str) {
    assert_completed(job, "FT", "S", ranks);
    assert_eq!(field(job, "Size"), "64x  64x  64");
    assert_eq!(field(job, "Iterations"), NITER.to_string());
    assert_eq!(field(job, "Process grid"), grid);
    let got: Vec<(String, String)> = job
        .stdout
        .lines()
        .filter(|l| l.starts_with(" T ="))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[w.len() - 2].to_string(), w[w.len() - 1].to_string())
        })
        .collect();
    let want: Vec<(String, String)> = CHECKSUMS
        .iter()
        .map(|(re, im)| (re.to_string(), im.to_string()))
        .collect();
    assert_eq!(got, want, "checksums\n{}", job.dump());
    assert!(
        job.stdout.contains(" Result verification successful"),
        "{}",
        job.dump()
    );
    assert_verdict(job, "FT", "S");
}

/// The checks of a class S run on 4 ranks: the 1D layout's 1 x 4 grid.
fn assert_verified_1d(job: &Job) {
    assert_verified(job, 4, "1 x 4");
}

#[test]
fn ft_class_s_verifies_on_4_ranks_of_tianhe1a() {
    let Some(prog) = ft() else {
        return;
    };
    // The timed section (MPI_Wtime on rank 0) lies within the run.
    let job = npb::check_class_s_on("tianhe1a", 4, &prog, assert_verified_1d);
    assert_eq!(layout(&job), "1D");
}

/// Children of rank r in MPICH's binomial tree rooted at 0 on p = 2**k
/// ranks (MPI_Bcast sends): k for the root, else the trailing zeros of r.
fn binomial_children(r: u64, p: u64) -> u64 {
    if r == 0 {
        u64::from(p.trailing_zeros())
    } else {
        u64::from(r.trailing_zeros())
    }
}

/// (messages, bytes) rank r of p = 2**k sends in NPB FT class S on a grid
/// of p / np2 x np2 ranks, when the FFTs' transposes cost `per_fft` =
/// (messages, bytes) per rank:
/// * setup: 5 MPI_Bcast of 4 bytes from rank 0 (np1, np2, layout, niter,
///   the timer flag; binomial), and 2 MPI_Comm_split of MPI_COMM_WORLD,
///   each (as MPICH builds it) an allgather of (color, key), 8 bytes per
///   rank, by recursive doubling (k messages, 8 (p - 1) bytes), the
///   context id (`npb::context_id_traffic`), and the new communicator's
///   sequence number (`npb::seq_bcast_traffic`): commslice1 has np2 ranks,
///   r's rank r % np2 in it; commslice2 p / np2, r's rank r / np2;
/// * MPI_Barrier (dissemination): k empty messages;
/// * 2 + NITER 3-D FFTs (one untimed, one forward, one inverse per step);
/// * NITER checksums: MPI_Reduce of one double complex (16 bytes) to rank
///   0, binomially: one message from every other rank.
fn expected_traffic(r: u64, p: u64, np2: u64, per_fft: (u64, u64)) -> (u64, u64) {
    let k = u64::from(p.trailing_zeros());
    let bcast = binomial_children(r, p);
    let context = npb::context_id_traffic(r, p);
    let seq1 = npb::seq_bcast_traffic(r % np2, np2);
    let seq2 = npb::seq_bcast_traffic(r / np2, p / np2);
    let split = (
        2 * (k + context.0) + seq1.0 + seq2.0,
        2 * (8 * (p - 1) + context.1) + seq1.1 + seq2.1,
    );
    let reduce = u64::from(r != 0);
    let ffts = 2 + NITER;
    let msgs = 5 * bcast + split.0 + k + ffts * per_fft.0 + NITER * reduce;
    let bytes = 5 * 4 * bcast + split.1 + ffts * per_fft.1 + NITER * 16 * reduce;
    (msgs, bytes)
}

/// 1D layout on 4 ranks: one MPI_Alltoall per FFT over all 4 ranks, blocks
/// of 64*64*64/4/4 double complex (256 KiB, above MPICH's 32 KiB medium
/// limit: pairwise exchange, 3 messages).
fn traffic_1d(r: u64) -> (u64, u64) {
    let block = N * N * N / 4 / 4 * 16;
    expected_traffic(r, 4, 4, (3, 3 * block))
}

/// 2D layout on 128 ranks, a 64 x 2 grid: rank r holds (64, 1, 32) points.
/// Per FFT an x-y transpose, MPI_Alltoall over the 64 ranks of commslice2
/// with blocks of 2048/64 double complex (512 bytes: MPICH's isend/irecv
/// algorithm, 64 messages including the one to itself), and an x-z
/// transpose over the 2 ranks of commslice1, blocks of 1024 double complex
/// (16 KiB: isend/irecv, 2 messages).
fn traffic_2d(r: u64) -> (u64, u64) {
    let local = N * N * N / 128;
    let per_fft = (64 + 2, 64 * (local / 64 * 16) + 2 * (local / 2 * 16));
    expected_traffic(r, 128, 2, per_fft)
}

#[test]
fn ft_class_s_messages_and_virtual_time_are_exact() {
    // Hand check of the formula: rank 0 sends 5 x 2 bcast + 2 x 6 split +
    // 2 sequence numbers (commslice1 of 4 ranks) + 2 barrier + 8 x 3
    // alltoall messages, 6 MiB of them alltoall blocks; a split is 24
    // bytes of allgather and 392 of allreduce (388 from ranks 1 and 3).
    assert_eq!(traffic_1d(0), (50, 6 * 1024 * 1024 + 40 + 2 * 416 + 8));
    assert_eq!(traffic_1d(2), (50, 6 * 1024 * 1024 + 20 + 2 * 416 + 96 + 4));
    assert_eq!(traffic_1d(3), (44, 6 * 1024 * 1024 + 2 * 412 + 96));
    let Some(prog) = ft() else {
        return;
    };
    npb::check_exact_traffic(&prog, 4, assert_verified_1d, traffic_1d);
}

#[test]
fn ft_class_s_2d_layout_on_128_ranks_verifies_with_exact_messages() {
    // rank 0: 5 x 7 bcast + 2 x 14 split + 1 + 6 sequence numbers
    // (commslice1 of 2 ranks, commslice2 of 64) + 7 barrier + 8 x 66
    // alltoall (the split's context id: 65 ints on 128 ranks, recursive
    // doubling).
    assert_eq!(traffic_2d(0).0, 35 + 28 + 7 + 7 + 528);
    assert_eq!(
        traffic_2d(0).1,
        140 + 2 * (1016 + 7 * 260) + 7 * 4 + 8 * 65536
    );
    let Some(prog) = ft() else {
        return;
    };
    let rep = scratch().join("ft_2d.json");
    let job = Run::exact(128, &prog).args(&["S"]).report(&rep).run();
    assert_verified(&job, 128, "64 x 2");
    assert_eq!(layout(&job), "2D");
    npb::assert_traffic(&report::read(&rep), 128, traffic_2d, "128 ranks");
}

#[test]
fn ft_refuses_a_rank_count_npb_does_not_allow() {
    let Some(prog) = ft() else {
        return;
    };
    let job = Run::exact(3, &prog).args(&["S"]).run();
    assert!(!job.status.success(), "3 ranks ran\n{}", job.dump());
    assert!(
        job.stderr
            .contains("FT cannot run on 3 processes (class S): the count must be a power of two"),
        "{}",
        job.dump()
    );
}
