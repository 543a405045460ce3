//! bench-npb CG (bench-npb/cg/cg.f90) under vaced: class S on 4 ranks
//! (a 2 x 2 grid) verifies against NPB's zeta, sends exactly NPB CG's
//! messages, and its virtual time does not depend on the host cores.
//!
//! Needs the Fortran bindings of MPI_Barrier and MPI_Reduce (mpi_barrier_,
//! mpi_reduce_): without them the build fails and the test says which
//! symbol is missing.
//! Without gfortran the tests say so and pass, as tests/fortran.rs does.
mod common;

use common::report;
use common::{
    ensure_fresh_library, repo_root, scratch, secs_to_ps, vaced, Job, Run, CORE_VARIANTS,
};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// Class S: na = 1400, 15 iterations, NPB's zeta_verify_value.
const NA: u64 = 1400;
const NITER: u64 = 15;
const ZETA: &str = "8.5971775078648";

fn have_gfortran() -> bool {
    static HAVE: OnceLock<bool> = OnceLock::new();
    *HAVE.get_or_init(|| {
        let ok = Command::new("gfortran")
            .arg("-dumpversion")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!(
                "SKIPPED: gfortran not found; the CG tests need it \
                 (scripts/deps.sh installs it)"
            );
        }
        ok
    })
}

/// `mpif90 -O2 bench-npb/cg/cg.f90 -o <scratch>/cg`, once per test binary
/// (None without gfortran).
fn cg() -> Option<PathBuf> {
    if !have_gfortran() {
        return None;
    }
    static BUILT: Mutex<Option<PathBuf>> = Mutex::new(None);
    let mut built = common::lock(&BUILT);
    if let Some(p) = built.as_ref() {
        return Some(p.clone());
    }
    ensure_fresh_library();
    let out = scratch().join("cg");
    let o = Command::new(vaced())
        .arg0("mpif90")
        .arg("-O2")
        .arg(repo_root().join("bench-npb/cg/cg.f90"))
        .arg("-o")
        .arg(&out)
        .current_dir(scratch())
        .output()
        .expect("cannot run vaced as mpif90");
    let err = String::from_utf8_lossy(&o.stderr);
    let missing: Vec<&str> = err
        .lines()
        .filter_map(|l| l.split("undefined reference to `").nth(1))
        .filter_map(|s| s.split('\'').next())
        .collect();
    assert!(
        missing.is_empty(),
        "bench-npb CG needs Fortran bindings that libvaced.so lacks: {missing:?}\n{err}"
    );
    assert!(
        o.status.success(),
        "mpif90 bench-npb/cg/cg.f90 failed ({}):\n{}{err}",
        o.status,
        String::from_utf8_lossy(&o.stdout)
    );
    *built = Some(out.clone());
    Some(out)
}

/// The value after `key =` in NPB's result block.
fn field<'a>(job: &'a Job, key: &str) -> &'a str {
    job.stdout
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == key).then(|| v.trim())
        })
        .unwrap_or_else(|| panic!("no `{key} =` line\n{}", job.dump()))
}

/// The checks every class S, 4-rank run must pass: the header of the
/// result block, the zeta of the last iteration to NPB's 13 decimals, and
/// NPB's verdict.
fn assert_verified(job: &Job) {
    job.assert_success();
    assert!(
        job.stdout.contains(" CG Benchmark Completed."),
        "{}",
        job.dump()
    );
    assert_eq!(field(job, "Class"), "S");
    assert_eq!(field(job, "Size"), NA.to_string());
    assert_eq!(field(job, "Iterations"), NITER.to_string());
    assert_eq!(field(job, "Total processes"), "4");
    assert_eq!(field(job, "Process grid"), "2 x 2");
    let last = job
        .stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(&NITER.to_string()))
        .unwrap_or_else(|| panic!("no line for iteration {NITER}\n{}", job.dump()));
    assert_eq!(last.split_whitespace().nth(2), Some(ZETA), "{last}");
    assert_eq!(
        field(job, "Verification"),
        "SUCCESSFUL",
        "CG class S did not verify\n{}",
        job.dump()
    );
}

#[test]
fn cg_class_s_verifies_on_4_ranks_of_tianhe1a() {
    let Some(prog) = cg() else {
        return;
    };
    let rep = scratch().join("cg_tianhe1a.json");
    let job = Run::new(4, "tianhe1a", &prog)
        .args(&["S"])
        .report(&rep)
        .run();
    assert_verified(&job);
    // The timed section (MPI_Wtime, max over ranks) lies within the run.
    let t = secs_to_ps(field(&job, "Time exact (s)"));
    let predicted = report::predicted_ps(&report::read(&rep));
    assert!(
        t > 0 && t <= predicted,
        "Time exact {t} ps not in (0, predicted {predicted} ps]\n{}",
        job.dump()
    );
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
    let mut first: Option<(u64, u64)> = None;
    for cores in CORE_VARIANTS {
        let rep = scratch().join(format!("cg_exact_{cores:?}.json"));
        let job = Run::exact(4, &prog)
            .args(&["S"])
            .cores(cores)
            .report(&rep)
            .run();
        assert_verified(&job);
        let r = report::read(&rep);
        for (i, rank) in report::ranks(&r).iter().enumerate() {
            let got = (
                report::uint(rank, "msgs_sent"),
                report::uint(rank, "bytes_sent"),
            );
            assert_eq!(
                got,
                expected_traffic(i as u64),
                "rank {i} (messages, bytes), cores {cores:?}"
            );
            // cpu.scale = 0: the whole run is communication.
            assert_eq!(report::float(rank, "compute_s"), 0.0, "rank {i}");
        }
        let predicted = report::predicted_ps(&r);
        let timed = secs_to_ps(field(&job, "Time exact (s)"));
        assert!(timed > 0 && timed <= predicted, "{}", job.dump());
        match &first {
            None => first = Some((predicted, timed)),
            Some((p, t)) => {
                assert_eq!(predicted, *p, "predicted ps with cores {cores:?}");
                assert_eq!(timed, *t, "Time exact (s) with cores {cores:?}");
            }
        }
    }
}
