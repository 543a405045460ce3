//! bench-npb under vaced: EP and IS class S on 4 ranks verify (NPB's own
//! checks) and print a "Time in seconds" that is the simulator's virtual
//! time: inside the predicted run time, and for EP (all but a few
//! microseconds of its work is timed) equal to the prediction at the
//! printed precision. At cpu.scale = 0, EP's timed region is its
//! communication alone: exactly the virtual time of the same MPI calls
//! without the computation.
mod common;

use common::{mpicc, repo_root, report, scratch, Job, Run};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// `bench-npb/<kernel>/<kernel>.c` with the shared sources, built with our
/// mpicc as the Makefile builds it, once per test binary (the tests run in
/// parallel and must not rewrite a binary another one is running).
fn kernel(name: &str) -> PathBuf {
    static BUILT: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);
    let mut built = common::lock(&BUILT);
    let map = built.get_or_insert_with(HashMap::new);
    if let Some(p) = map.get(name) {
        return p.clone();
    }
    let dir = repo_root().join("bench-npb");
    let out = scratch().join(name);
    let common = |f: &str| dir.join("common").join(f).to_string_lossy().into_owned();
    mpicc(
        &dir.join(name).join(format!("{name}.c")),
        &out,
        &[
            &common("randdp.c"),
            &common("results.c"),
            "-ffp-contract=off",
            "-lm",
        ],
    );
    map.insert(name.to_string(), out.clone());
    out
}

/// The value after `label =` on the line that starts with `label`.
fn field<'a>(job: &'a Job, label: &str) -> &'a str {
    job.stdout
        .lines()
        .map(str::trim)
        .find_map(|l| {
            l.strip_prefix(label)
                .and_then(|r| r.trim_start().strip_prefix('='))
        })
        .map(str::trim)
        .unwrap_or_else(|| panic!("no `{label} =` line:\n{}", job.dump()))
}

fn secs(job: &Job, label: &str) -> f64 {
    let v = field(job, label);
    v.parse()
        .unwrap_or_else(|_| panic!("`{label}` is not a number: `{v}`\n{}", job.dump()))
}

/// Runs `kernel S` on 4 ranks with a report; returns the job and the
/// predicted time in seconds.
fn run_class_s(prog: &Path, target: &str, tag: &str) -> (Job, u64) {
    let rep = scratch().join(format!("{tag}.json"));
    let _ = std::fs::remove_file(&rep);
    let job = Run::new(4, target, prog).report(&rep).args(&["S"]).run();
    job.assert_success();
    assert_eq!(field(&job, "Verification"), "SUCCESSFUL", "{}", job.dump());
    assert_eq!(field(&job, "Class"), "S");
    assert_eq!(field(&job, "Total processes"), "4");
    let predicted = report::predicted_ps(&report::read(&rep));
    (job, predicted)
}

/// The two printed times agree (2 decimals vs all digits), and the timed
/// region lies inside the run: exact <= predicted.
fn check_times(job: &Job, predicted_ps: u64) -> f64 {
    let printed = secs(job, "Time in seconds");
    let exact = secs(job, "Time exact (s)");
    assert_eq!(
        format!("{exact:.2}"),
        format!("{printed:.2}"),
        "{}",
        job.dump()
    );
    let predicted = predicted_ps as f64 / 1e12;
    assert!(
        exact > 0.0 && exact <= predicted,
        "timed {exact} s is not inside the predicted run of {predicted} s\n{}",
        job.dump()
    );
    exact
}

#[test]
fn ep_class_s_verifies_and_times_the_prediction() {
    let prog = kernel("ep");
    let (job, predicted) = run_class_s(&prog, "tianhe1a", "ep-s");
    assert_eq!(field(&job, "Size"), "33554432");
    assert_eq!(field(&job, "Iterations"), "0");
    // NPB's class S results: the number of Gaussian pairs and the counts in
    // the annuli are exact integers.
    assert_eq!(field(&job, "No. Gaussian Pairs"), "13176389");
    let counts: Vec<&str> = job
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Counts:"))
        .skip(1)
        .take(10)
        .map(|l| l.split_whitespace().nth(1).unwrap_or(""))
        .collect();
    assert_eq!(
        counts,
        ["6140517", "5865300", "1100361", "68546", "1648", "17", "0", "0", "0", "0"],
        "{}",
        job.dump()
    );
    let exact = check_times(&job, predicted);
    // Outside the timed region EP only fills its work array, allreduces one
    // double and finalizes: the prediction shows to the printed digit.
    let predicted_s = predicted as f64 / 1e12;
    assert!(
        predicted_s - exact < 0.005,
        "printed {exact} s, predicted {predicted_s} s\n{}",
        job.dump()
    );
}

#[test]
fn is_class_s_verifies_and_times_inside_the_prediction() {
    let prog = kernel("is");
    let (job, predicted) = run_class_s(&prog, "tianhe1a", "is-s");
    assert_eq!(field(&job, "Size"), "65536");
    assert_eq!(field(&job, "Iterations"), "10");
    assert!(
        !job.stdout.contains("Failed partial verification"),
        "{}",
        job.dump()
    );
    check_times(&job, predicted);
}

/// EP's MPI calls without its computation, in the same order.
const EP_COMM_ONLY: &str = r#"
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    double a = 1.0, b, q[10] = {0}, r[10], t;
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(q, r, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(&dt, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf(" Time exact (s)  = %.17g\n", t);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn ep_at_scale_0_times_exactly_its_allreduce_schedule() {
    let prog = kernel("ep");
    let target = common::exact_target();
    let target = target.to_str().unwrap();
    let (job, predicted) = run_class_s(&prog, target, "ep-s-scale0");

    let src = scratch().join("ep_comm_only.c");
    std::fs::write(&src, EP_COMM_ONLY).unwrap();
    let reference = scratch().join("ep_comm_only");
    mpicc(&src, &reference, &[]);
    let rep = scratch().join("ep-comm-only.json");
    let _ = std::fs::remove_file(&rep);
    let comm = Run::new(4, target, &reference).report(&rep).run();
    comm.assert_success();

    let timed = common::secs_to_ps(field(&job, "Time exact (s)"));
    let comm_timed = common::secs_to_ps(field(&comm, "Time exact (s)"));
    assert!(timed > 0, "{}", job.dump());
    assert_eq!(
        timed,
        comm_timed,
        "EP's timed region at scale 0 is not its communication alone:\n{}\n{}",
        job.dump(),
        comm.dump()
    );
    assert_eq!(
        predicted,
        report::predicted_ps(&report::read(&rep)),
        "whole run at scale 0"
    );
}
