//! bench-npb LU (bench-npb/lu/lu.f90) under vaced: class S on 4 ranks
//! (a 2 x 2 grid) verifies against NPB's reference norms and surface
//! integral, sends exactly NPB LU's messages, and its virtual time does not
//! depend on the host cores.
//!
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

/// Class S: a 12^3 grid, 50 SSOR steps (inorm = itmax), dt = 0.5.
const N: u64 = 12;
const ITMAX: u64 = 50;
/// NPB's surface integral for class S, as verify prints it (e20.13).
const XCI: &str = "0.7841892886594E+01";

fn have_gfortran() -> bool {
    static HAVE: OnceLock<bool> = OnceLock::new();
    *HAVE.get_or_init(|| {
        let ok = Command::new("gfortran")
            .arg("-dumpversion")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!(
                "SKIPPED: gfortran not found; the LU tests need it \
                 (scripts/deps.sh installs it)"
            );
        }
        ok
    })
}

/// `mpif90 -O2 -J <scratch>/.mod-lu bench-npb/lu/lu.f90 -o <scratch>/lu`,
/// once per test binary (None without gfortran).
fn lu() -> Option<PathBuf> {
    if !have_gfortran() {
        return None;
    }
    static BUILT: Mutex<Option<PathBuf>> = Mutex::new(None);
    let mut built = common::lock(&BUILT);
    if let Some(p) = built.as_ref() {
        return Some(p.clone());
    }
    ensure_fresh_library();
    let out = scratch().join("lu");
    let moddir = scratch().join(".mod-lu");
    std::fs::create_dir_all(&moddir).unwrap();
    let o = Command::new(vaced())
        .arg0("mpif90")
        .arg("-O2")
        .arg("-J")
        .arg(&moddir)
        .arg(repo_root().join("bench-npb/lu/lu.f90"))
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
        "bench-npb LU needs Fortran bindings that libvaced.so lacks: {missing:?}\n{err}"
    );
    assert!(
        o.status.success(),
        "mpif90 bench-npb/lu/lu.f90 failed ({}):\n{}{err}",
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

/// The checks every class S, 4-rank run must pass: the result block, the
/// surface integral to NPB's printed digits, and NPB's verdict (all of
/// xcr, xce, xci within 1e-8).
fn assert_verified(job: &Job) {
    job.assert_success();
    assert!(
        job.stdout.contains(" LU Benchmark Completed."),
        "{}",
        job.dump()
    );
    assert_eq!(field(job, "Class"), "S");
    assert_eq!(field(job, "Size"), format!("{N}x  {N}x  {N}"));
    assert_eq!(field(job, "Iterations"), ITMAX.to_string());
    assert_eq!(field(job, "Total processes"), "4");
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
    assert_eq!(
        field(job, "Verification"),
        "SUCCESSFUL",
        "LU class S did not verify\n{}",
        job.dump()
    );
}

#[test]
fn lu_class_s_verifies_on_4_ranks_of_tianhe1a() {
    let Some(prog) = lu() else {
        return;
    };
    let rep = scratch().join("lu_tianhe1a.json");
    let job = Run::new(4, "tianhe1a", &prog)
        .args(&["S"])
        .report(&rep)
        .run();
    assert_verified(&job);
    // The timed SSOR loop (MPI_Wtime, max over ranks) lies within the run.
    let t = secs_to_ps(field(&job, "Time exact (s)"));
    let predicted = report::predicted_ps(&report::read(&rep));
    assert!(
        t > 0 && t <= predicted,
        "Time exact {t} ps not in (0, predicted {predicted} ps]\n{}",
        job.dump()
    );
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
    // MPI_Allreduce by recursive doubling (2 messages per rank): the
    // 5 norms of l2norm (once in ssor(1), three times in ssor(itmax):
    // before the loop, then delunm and rsdnm at istep = inorm = itmax) and
    // error(); one double for the 3 surface integrals and the 2 timings.
    let allreduce = (2 * (5 + 5), 2 * (5 * 5 * dbl + 5 * dbl));
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
    // Hand check of the formula: 4646 messages and 3,307,324 bytes in all
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
            (1172, 826_728),
            (1154, 826_784),
            (1164, 826_836),
            (1156, 826_976)
        ]
    );
    let Some(prog) = lu() else {
        return;
    };
    let mut first: Option<(u64, u64)> = None;
    for cores in CORE_VARIANTS {
        let rep = scratch().join(format!("lu_exact_{cores:?}.json"));
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
                got, per_rank[i],
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
