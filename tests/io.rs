//! MPI-IO end to end: file contents and error classes (`io_basic` on 1, 3
//! and 4 ranks, `io_fortran` from Fortran), and the exact timing of an
//! independent write and of a two-phase collective write under the `[io]`
//! model (`io_timing`, on every core variant).
//!
//! Notation (ps): M(b) = b / Bmem; ranks 0 and 1 share a node (h = 0), so
//! a message of b bytes costs M(b) to copy in, M(b) on the wire and M(b) to
//! copy out. io(b) = latency + b / bandwidth of the test target's `[io]`
//! (20 us, 2 GB/s).
mod common;

use common::model::{m, xfer, TARGET_TOML};
use common::{program, scratch, Run, CORE_VARIANTS};

const IO_LATENCY: u64 = 20_000_000;
const IO_BANDWIDTH: u64 = 2_000_000_000;

fn io(b: u64) -> u64 {
    IO_LATENCY + xfer(b, IO_BANDWIDTH)
}

fn target() -> std::path::PathBuf {
    common::write_target(
        "io-target.toml",
        &format!("{TARGET_TOML}[io]\nlatency = \"20 us\"\nbandwidth = \"2 GB/s\"\n"),
    )
}

#[test]
fn data_views_shared_pointers_and_errors() {
    let prog = program("io_basic");
    for n in [1, 3, 4] {
        let file = scratch().join(format!("io_basic_{n}.dat"));
        let job = Run::exact(n, &prog).args(&[file.display()]).run();
        job.assert_success();
        assert!(
            job.stdout.trim_end().ends_with("No Errors") && !job.stdout.contains("rank"),
            "{}",
            job.dump()
        );
        assert!(!file.exists(), "MPI_MODE_DELETE_ON_CLOSE left the file");
    }
}

/// `io_timing` (see the program) on 2 ranks of one node, both leaving a
/// barrier at T.
///
/// "I": rank 0's MPI_File_write_at of 1 000 000 bytes costs io(1e6); rank
/// 1 does nothing.
///
/// "C": MPI_File_write_all of 1000 ints per rank, interleaved (two-phase,
/// one aggregator: rank 0). From T: two allgathers of 8 bytes (each an
/// exchange: 3 M(8)); an alltoall of 4-byte counts (MPICH's isend/irecv
/// schedule, a message to itself first, which costs only its copy in,
/// M(4), while the other rank's block takes 3 M(4)) -> T2 = T + 6 M(8) +
/// 3 M(4). Rank 1 sends its offset list (16 000 bytes): rank 1 at
/// T2 + M(16000), rank 0 receives at R0 = T2 + 3 M(16000). The allreduce
/// of the round count (4 bytes, one exchange): rank 0 finds rank 1's value
/// waiting, done R0 + M(4); rank 1 gets rank 0's at E1 = R0 + 3 M(4). The
/// round's alltoall of sizes: rank 1 (the later) sends to itself (arriving
/// at E1) and to rank 0 (its send returns at E1 + M(4)); rank 0's block,
/// sent at R0 + 2 M(4), also arrived at E1, the end of rank 1's previous
/// wait, which deals with both (Algorithm 2); each is copied in from E1, so
/// rank 1 ends at F1 = E1 + M(4) and sends its 4000 bytes, which rank 0 has at G0 = F1 + 3 M(4000); no
/// holes, so rank 0 writes the 8000-byte window: H0 = G0 + io(8000); the
/// error code is broadcast from the aggregator: rank 0 ends at H0 + M(4),
/// rank 1 at H0 + 3 M(4).
#[test]
fn independent_and_collective_writes_are_exact() {
    let prog = program("io_timing");
    let tgt = target();
    for cores in CORE_VARIANTS {
        let file = scratch().join("io_timing.dat");
        let job = Run::new(2, &tgt, &prog)
            .cores(cores)
            .args(&[file.display()])
            .run();
        job.assert_success();
        let mut i = [(0u64, 0u64); 2];
        let mut c = [(0u64, 0u64); 2];
        for line in job.stdout.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            match f[0] {
                "OK" => continue,
                "I" | "C" => {
                    let r: usize = f[1].parse().unwrap();
                    let t = (f[2].parse().unwrap(), f[3].parse().unwrap());
                    if f[0] == "I" {
                        i[r] = t;
                    } else {
                        assert_eq!(f[4], "1000", "count: {}", job.dump());
                        c[r] = t;
                    }
                }
                _ => panic!("unexpected line {line}\n{}", job.dump()),
            }
        }
        assert!(job.stdout.contains("OK"), "{}", job.dump());
        assert_eq!(i[0].1 - i[0].0, io(1_000_000), "{}", job.dump());
        assert_eq!(i[1].1, i[1].0);
        let t = c[0].0;
        assert_eq!(c[1].0, t);
        let t2 = t + 6 * m(8) + 3 * m(4);
        let r0 = t2 + 3 * m(16_000);
        let e1 = r0 + 3 * m(4);
        let f1 = e1 + m(4);
        let g0 = f1 + 3 * m(4000);
        let h0 = g0 + io(8000);
        assert_eq!(c[0].1, h0 + m(4), "rank 0\n{}", job.dump());
        assert_eq!(c[1].1, h0 + 3 * m(4), "rank 1\n{}", job.dump());
        std::fs::remove_file(&file).unwrap();
    }
}

#[test]
fn fortran_file_access() {
    let Some(out) = common::fortran_program("io_fortran.f90", &[]) else {
        return;
    };
    let file = scratch().join("io_fortran.dat");
    let job = Run::exact(3, &out).args(&[file.display()]).run();
    job.assert_success();
    assert_eq!(job.stdout.trim(), "No Errors", "{}", job.dump());
    assert!(!file.exists());
}
