//! Shared helpers of the bench-npb tests (tests/npb*.rs): build a kernel of
//! `bench-npb/` with our mpicc or mpif90 once per test binary (the Fortran
//! ones skipped, with a message, without gfortran), read NPB's result block
//! (`key = value` lines), check its header and verdict, and check a run at
//! cpu.scale = 0 against the exact messages and bytes each rank must send.

use super::{ensure_fresh_library, lock, mpicc, repo_root, report, scratch, secs_to_ps, vaced};
use super::{Job, Run, CORE_VARIANTS};
use serde_json::Value;
use std::collections::HashMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// Builds `out` once per test binary with `build` (the tests run in
/// parallel and must not rewrite a binary another one is running).
fn once(name: &str, build: impl FnOnce(&Path)) -> PathBuf {
    static BUILT: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);
    let mut built = lock(&BUILT);
    let map = built.get_or_insert_with(HashMap::new);
    if let Some(p) = map.get(name) {
        return p.clone();
    }
    let out = scratch().join(name);
    build(&out);
    map.insert(name.to_string(), out.clone());
    out
}

/// `bench-npb/<name>/<name>.c` with the shared sources, built with our
/// mpicc as the Makefile builds it, once per test binary.
pub fn c_kernel(name: &str) -> PathBuf {
    once(name, |out| {
        let dir = repo_root().join("bench-npb");
        let common = |f: &str| dir.join("common").join(f).to_string_lossy().into_owned();
        mpicc(
            &dir.join(name).join(format!("{name}.c")),
            out,
            &[
                &common("randdp.c"),
                &common("results.c"),
                "-ffp-contract=off",
                "-lm",
            ],
        );
    })
}

/// Whether gfortran is there; without it says once that the tests of
/// `kernel` are skipped, as tests/fortran.rs does.
fn have_gfortran(kernel: &str) -> bool {
    static HAVE: OnceLock<bool> = OnceLock::new();
    *HAVE.get_or_init(|| {
        let ok = Command::new("gfortran")
            .arg("-dumpversion")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!(
                "SKIPPED: gfortran not found; the {kernel} tests need it \
                 (scripts/deps.sh installs it)"
            );
        }
        ok
    })
}

/// `mpif90 -O2 -J <scratch>/.mod-<name> EXTRA bench-npb/<name>/SOURCES -o
/// <scratch>/<name>` (the sources in compilation order, modules first),
/// once per test binary; None without gfortran. A link that fails on
/// missing MPI symbols names the Fortran bindings libvaced.so lacks.
pub fn fortran_kernel(name: &str, sources: &[&str], extra: &[&str]) -> Option<PathBuf> {
    let kernel = name.to_uppercase();
    if !have_gfortran(&kernel) {
        return None;
    }
    Some(once(name, |out| {
        ensure_fresh_library();
        let moddir = scratch().join(format!(".mod-{name}"));
        std::fs::create_dir_all(&moddir).unwrap();
        let dir = repo_root().join("bench-npb").join(name);
        let o = Command::new(vaced())
            .arg0("mpif90")
            .arg("-O2")
            .arg("-J")
            .arg(&moddir)
            .args(extra)
            .args(sources.iter().map(|s| dir.join(s)))
            .arg("-o")
            .arg(out)
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
            "bench-npb {kernel} needs Fortran bindings that libvaced.so lacks: {missing:?}\n{err}"
        );
        assert!(
            o.status.success(),
            "mpif90 bench-npb/{name}/{{{}}} failed ({}):\n{}{err}",
            sources.join(","),
            o.status,
            String::from_utf8_lossy(&o.stdout)
        );
    }))
}

/// The value after `key =` in NPB's result block.
pub fn field<'a>(job: &'a Job, key: &str) -> &'a str {
    job.stdout
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == key).then(|| v.trim())
        })
        .unwrap_or_else(|| panic!("no `{key} =` line\n{}", job.dump()))
}

/// The value after `key =` as a number.
pub fn number(job: &Job, key: &str) -> f64 {
    let v = field(job, key);
    v.parse()
        .unwrap_or_else(|_| panic!("`{key}` is not a number: `{v}`\n{}", job.dump()))
}

/// The job succeeded and printed NPB's result block for benchmark `name`
/// (`CG`, ...) of `class` on `ranks` processes. The kernel's own checks and
/// then `assert_verdict` follow.
pub fn assert_completed(job: &Job, name: &str, class: &str, ranks: u32) {
    job.assert_success();
    assert!(
        job.stdout
            .contains(&format!(" {name} Benchmark Completed.")),
        "{}",
        job.dump()
    );
    assert_eq!(field(job, "Class"), class, "{}", job.dump());
    assert_eq!(
        field(job, "Total processes"),
        ranks.to_string(),
        "{}",
        job.dump()
    );
}

/// NPB's verdict in the result block is `SUCCESSFUL`.
pub fn assert_verdict(job: &Job, name: &str, class: &str) {
    assert_eq!(
        field(job, "Verification"),
        "SUCCESSFUL",
        "{name} class {class} did not verify\n{}",
        job.dump()
    );
}

/// The timed section NPB prints (`Time exact (s)`, MPI_Wtime) in ps, after
/// checking that it lies within the predicted run: in (0, predicted].
pub fn timed_within(job: &Job, predicted_ps: u64) -> u64 {
    let t = secs_to_ps(field(job, "Time exact (s)"));
    assert!(
        t > 0 && t <= predicted_ps,
        "Time exact {t} ps not in (0, predicted {predicted_ps} ps]\n{}",
        job.dump()
    );
    t
}

/// The file name of a kernel binary, to name its reports.
fn tag(prog: &Path) -> String {
    prog.file_name().unwrap().to_string_lossy().into_owned()
}

/// Runs `prog S` on `nranks` ranks of `target` with a report, checks it with
/// `verify` and checks that its timed section lies within the predicted
/// run; returns the job.
pub fn check_class_s_on(target: &str, nranks: u32, prog: &Path, verify: impl Fn(&Job)) -> Job {
    let rep = scratch().join(format!("{}_{target}.json", tag(prog)));
    let job = Run::new(nranks, target, prog)
        .args(&["S"])
        .report(&rep)
        .run();
    verify(&job);
    timed_within(&job, report::predicted_ps(&report::read(&rep)));
    job
}

/// The report's messages and bytes sent by each rank are `expected(rank)`,
/// and (cpu.scale = 0) no rank computed.
pub fn assert_traffic(r: &Value, nranks: u32, expected: impl Fn(u64) -> (u64, u64), what: &str) {
    let ranks = report::ranks(r);
    assert_eq!(ranks.len(), nranks as usize, "ranks in the report, {what}");
    for (i, rank) in ranks.iter().enumerate() {
        let got = (
            report::uint(rank, "msgs_sent"),
            report::uint(rank, "bytes_sent"),
        );
        assert_eq!(
            got,
            expected(i as u64),
            "rank {i} (messages, bytes), {what}"
        );
        // cpu.scale = 0: the whole run is communication.
        assert_eq!(report::float(rank, "compute_s"), 0.0, "rank {i}, {what}");
    }
}

/// Runs `prog S` on `nranks` ranks of the exact target (cpu.scale = 0) with
/// each of CORE_VARIANTS: every run passes `verify`, every rank sends
/// exactly `expected(rank)` (messages, bytes), the timed section lies
/// within the run, and the predicted time and the timed section are the
/// same picoseconds whatever the host cores.
pub fn check_exact_traffic(
    prog: &Path,
    nranks: u32,
    verify: impl Fn(&Job),
    expected: impl Fn(u64) -> (u64, u64),
) {
    let mut first: Option<(u64, u64)> = None;
    for cores in CORE_VARIANTS {
        let rep = scratch().join(format!("{}_exact_{cores:?}.json", tag(prog)));
        let job = Run::exact(nranks, prog)
            .args(&["S"])
            .cores(cores)
            .report(&rep)
            .run();
        verify(&job);
        let r = report::read(&rep);
        assert_traffic(&r, nranks, &expected, &format!("cores {cores:?}"));
        let predicted = report::predicted_ps(&r);
        let timed = timed_within(&job, predicted);
        match &first {
            None => first = Some((predicted, timed)),
            Some((p, t)) => {
                assert_eq!(predicted, *p, "predicted ps with cores {cores:?}");
                assert_eq!(timed, *t, "Time exact (s) with cores {cores:?}");
            }
        }
    }
}

/// (messages, bytes) rank `r` of `p` (a power of two) sends when MPICH
/// 4.0.2 agrees on a context id over `p` ranks: an allreduce (MPI_BAND) of
/// 65 ints (the 64-int mask and its flag int). By reduce-scatter +
/// allgather when 65 >= p (pieces of 65 / p ints, the first 65 % p of
/// them one more): a rank sends, over the two phases, the range it holds
/// before each halving step (all 65 ints, then the half it keeps, ...): 2
/// log2(p) messages. Else by recursive doubling: log2(p) messages of 260
/// bytes.
pub fn context_id_traffic(r: u64, p: u64) -> (u64, u64) {
    const INTS: u64 = 65;
    let k = u64::from(p.trailing_zeros());
    if INTS < p {
        return (k, 4 * INTS * k);
    }
    let piece = |i: u64| INTS / p + u64::from(i < INTS % p);
    let (mut lo, mut hi, mut sent) = (0, p, 0);
    let mut mask = 1;
    while mask < p {
        sent += (lo..hi).map(piece).sum::<u64>();
        let mid = lo + (hi - lo) / 2;
        if r & mask == 0 {
            hi = mid;
        } else {
            lo = mid;
        }
        mask <<= 1;
    }
    (2 * k, 4 * sent)
}

/// (messages, bytes) rank `r` of a new communicator of `p` ranks (a power
/// of two) sends for MPICH 4.0.2's sequence number of that communicator:
/// a binomial broadcast of one int from its rank 0 (the root sends
/// log2(p) messages, rank r the trailing zeros of r).
pub fn seq_bcast_traffic(r: u64, p: u64) -> (u64, u64) {
    let n = if r == 0 {
        u64::from(p.trailing_zeros())
    } else {
        u64::from(r.trailing_zeros()).min(u64::from(p.trailing_zeros()))
    };
    (n, 4 * n)
}
