//! bench-npb under vaced: EP and IS class S on 4 ranks verify (NPB's own
//! checks) and print a "Time in seconds" that is the simulator's virtual
//! time: inside the predicted run time, and for EP (all but a few
//! microseconds of its work is timed) equal to the prediction at the
//! printed precision. At cpu.scale = 0, EP's timed region is its
//! communication alone: exactly the virtual time of the same MPI calls
//! without the computation.
mod common;

use common::npb::{assert_completed, assert_verdict, c_kernel, field, number};
use common::{mpicc, report, scratch, Job, Run};
use std::path::Path;

/// Runs `kernel S` on 4 ranks with a report; returns the job and the
/// predicted time in seconds.
fn run_class_s(prog: &Path, target: &str, tag: &str) -> (Job, u64) {
    let rep = scratch().join(format!("{tag}.json"));
    let _ = std::fs::remove_file(&rep);
    let job = Run::new(4, target, prog).report(&rep).args(&["S"]).run();
    let name = prog.file_name().unwrap().to_string_lossy().to_uppercase();
    assert_completed(&job, &name, "S", 4);
    assert_verdict(&job, &name, "S");
    let predicted = report::predicted_ps(&report::read(&rep));
    (job, predicted)
}

/// The two printed times agree (2 decimals vs all digits), and the timed
/// region lies inside the run: exact <= predicted.
fn check_times(job: &Job, predicted_ps: u64) -> f64 {
    let printed = number(job, "Time in seconds");
    let exact = number(job, "Time exact (s)");
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
    let prog = c_kernel("ep");
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
    let prog = c_kernel("is");
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
    let prog = c_kernel("ep");
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
