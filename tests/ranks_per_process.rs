//! The many-ranks mode (`mpirun --ranks-per-process`): the same predictions
//! as one process per rank, to the picosecond at `cpu.scale = 0`, with one
//! host process, with two, and with more host processes than cores; each
//! rank's global data its own (C globals
//! and statics; Fortran COMMON, SAVE and module variables); what a rank
//! ending, crashing or aborting does; what the mode refuses (threads, fork,
//! a program that is not position-independent), each with the rank named.
//!
//! (`./test.sh` also runs the exact-timing and NPB suites a second time
//! with `VACED_RANKS_PER_PROCESS=auto`.)
mod common;

use common::{exit_code, fortran_program, mpicc, program, report, scratch, Job, Run};
use std::path::Path;

/// The modes compared: one process per rank, then hosts (`auto`) on one
/// core (one host process) and on two (two host processes), then hosts of
/// 3 ranks on one core and of 2 ranks on two (more hosts than cores: they
/// share the core tokens).
fn modes() -> [(&'static str, u32, Option<&'static str>); 5] {
    [
        ("processes", 2, None),
        ("1 host", 1, Some("auto")),
        ("2 hosts", 2, Some("auto")),
        ("hosts of 3 on 1 core", 1, Some("3")),
        ("hosts of 2 on 2 cores", 2, Some("2")),
    ]
}

fn hosted(run: Run, rpp: Option<&str>) -> Run {
    match rpp {
        Some(k) => run.option(&["--ranks-per-process", k]),
        None => run,
    }
}

/// Runs `prog args` on `n` ranks in every mode; each must print the same
/// lines (sorted: ranks' lines interleave differently) and report the same
/// virtual time for every rank.
fn same_prediction(prog: &Path, n: u32, args: &[&str], env: &[(&str, &str)]) {
    let mut first: Option<(String, Vec<u64>, Job)> = None;
    for (name, cores, rpp) in modes() {
        let rep = scratch().join(format!(
            "{}-{n}-{}.json",
            prog.file_name().unwrap().to_string_lossy(),
            name.replace(' ', "-")
        ));
        let mut run = hosted(Run::exact(n, prog), rpp)
            .cores(Some(cores))
            .args(args)
            .report(&rep);
        run.env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let job = run.run();
        job.assert_success();
        if rpp.is_some() {
            assert!(
                job.stderr.contains("host process"),
                "the summary does not say the mode:\n{}",
                job.dump()
            );
        }
        let mut lines: Vec<&str> = job.stdout.lines().collect();
        lines.sort_unstable();
        let lines = lines.join("\n");
        let r = report::read(&rep);
        let times: Vec<u64> = report::ranks(&r).iter().map(report::vtime_ps).collect();
        match &first {
            None => first = Some((lines, times, job)),
            Some((l0, t0, j0)) => {
                assert_eq!(
                    &lines,
                    l0,
                    "{name}: other output than one process per rank\n{}\n{}",
                    j0.dump(),
                    job.dump()
                );
                assert_eq!(
                    &times, t0,
                    "{name}: other virtual times than one process per rank"
                );
            }
        }
    }
}

#[test]
fn pingpong_predictions_equal_one_process_per_rank() {
    // eager and rendezvous, 0 and 3 hops
    same_prediction(
        &program("pingpong"),
        16,
        &["12", "2", "8", "131073", "4194304"],
        &[],
    );
    same_prediction(
        &program("pingpong"),
        2,
        &["1", "2", "8", "1024", "131073"],
        &[],
    );
}

#[test]
fn collective_predictions_equal_one_process_per_rank() {
    same_prediction(&program("coll_timing"), 37, &[], &[]);
    same_prediction(
        &program("coll_timing_all"),
        181,
        &[],
        &[
            ("VACED_COLL_ALLREDUCE", "recursive_doubling"),
            ("VACED_COLL_ALLTOALL", "pairwise"),
        ],
    );
}

#[test]
fn nonblocking_exchange_predictions_equal_one_process_per_rank() {
    same_prediction(&program("exchange"), 13, &["12", "1000000", "0.001"], &[]);
}

#[test]
fn c_globals_are_private_to_each_rank() {
    for cores in [1, 2] {
        let job = Run::exact(7, &program("hosted"))
            .option(&["--ranks-per-process", "auto"])
            .cores(Some(cores))
            .args(&["globals"])
            .run();
        job.assert_success();
        assert!(
            job.stdout.contains("globals private ranks=7"),
            "{}",
            job.dump()
        );
    }
}

#[test]
fn fortran_common_save_and_module_data_are_private_to_each_rank() {
    let Some(prog) = fortran_program("hosted_common.f90", &["-O1"]) else {
        return;
    };
    let job = Run::exact(5, &prog)
        .option(&["--ranks-per-process", "auto"])
        .cores(Some(2))
        .run();
    job.assert_success();
    assert!(
        job.stdout.contains("fortran globals private ranks=5"),
        "{}",
        job.dump()
    );
}

fn run_hosted(n: u32, prog: &Path, args: &[&str]) -> Job {
    Run::exact(n, prog)
        .option(&["--ranks-per-process", "auto"])
        .cores(Some(2))
        .args(args)
        .run()
}

#[test]
fn a_rank_that_exits_after_finalize_ends_alone() {
    let job = run_hosted(5, &program("hosted"), &["exit", "1", "0"]);
    job.assert_success();
    for r in [0, 2, 3, 4] {
        assert!(
            job.stdout.contains(&format!("exit rank={r} went on x=64")),
            "{}",
            job.dump()
        );
    }
}

#[test]
fn a_rank_that_exits_after_finalize_with_a_status_is_reported() {
    let job = run_hosted(5, &program("hosted"), &["exit", "3", "9"]);
    assert!(!job.status.success(), "{}", job.dump());
    assert!(
        job.stderr.contains("rank 3") && job.stderr.contains("status 9"),
        "{}",
        job.dump()
    );
}

#[test]
fn exit_before_mpi_init_ends_the_job() {
    let job = run_hosted(4, &program("hosted"), &["noinit", "5"]);
    assert_eq!(exit_code(&job.status), 5, "{}", job.dump());
    assert!(
        job.stderr.contains("without calling MPI_Finalize"),
        "{}",
        job.dump()
    );
}

#[test]
fn a_crash_names_the_rank_that_was_running() {
    let job = run_hosted(4, &program("crash"), &[]);
    assert!(!job.status.success(), "{}", job.dump());
    assert!(
        job.stderr.contains("rank 2") && job.stderr.contains("SIGSEGV"),
        "{}",
        job.dump()
    );
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
}

/// Four host processes of one rank on one core share its token: a crash
/// still names its rank, and a deadlock is still found and reported.
#[test]
fn hosts_sharing_a_core_report_crashes_and_deadlocks() {
    let shared = |n: u32, prog: &str, args: &[&str]| {
        Run::exact(n, &program(prog))
            .option(&["--ranks-per-process", "1"])
            .cores(Some(1))
            .args(args)
            .run()
    };
    let job = shared(4, "crash", &[]);
    assert!(!job.status.success(), "{}", job.dump());
    assert!(
        job.stderr.contains("rank 2") && job.stderr.contains("SIGSEGV"),
        "{}",
        job.dump()
    );
    let job = shared(3, "deadlock", &["any"]);
    assert!(!job.status.success(), "{}", job.dump());
    for r in 0..3 {
        let line = format!("rank {r}: waiting for: receive from any rank with tag 7 (in MPI_Recv)");
        assert!(
            job.stderr.contains(&line),
            "missing `{line}`:\n{}",
            job.dump()
        );
    }
}

#[test]
fn mpi_abort_ends_the_job_with_its_code() {
    let job = run_hosted(4, &program("abort"), &[]);
    assert_eq!(exit_code(&job.status), 7, "{}", job.dump());
    assert!(job.stderr.contains("rank 1"), "{}", job.dump());
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
}

#[test]
fn threads_and_fork_are_refused_naming_the_rank() {
    for what in ["thread", "fork"] {
        let job = run_hosted(4, &program("hosted"), &[what, "2"]);
        assert!(!job.status.success(), "{}", job.dump());
        let call = if what == "thread" {
            "pthread_create"
        } else {
            "fork"
        };
        assert!(
            job.stderr.contains("rank 2")
                && job.stderr.contains(call)
                && job.stderr.contains("one process per rank"),
            "{}",
            job.dump()
        );
        assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
        // the same program runs one process per rank
        let ok = Run::exact(4, &program("hosted")).args(&[what, "2"]).run();
        assert!(ok.status.success(), "{}", ok.dump());
    }
}

#[test]
fn a_program_that_is_not_position_independent_is_refused() {
    let exe = scratch().join("hosted-nopie");
    mpicc(&common::program_source("hosted"), &exe, &["-no-pie"]);
    let job = run_hosted(2, &exe, &["globals"]);
    assert!(!job.status.success(), "{}", job.dump());
    assert!(
        job.stderr.contains("not position-independent"),
        "{}",
        job.dump()
    );
    // one process per rank runs it
    Run::exact(2, &exe)
        .args(&["globals"])
        .run()
        .assert_success();
}

#[test]
fn fortran_stop_ends_that_rank_only() {
    let Some(prog) = fortran_program("hosted_stop.f90", &["-O1"]) else {
        return;
    };
    let job = run_hosted(4, &prog, &[]);
    job.assert_success();
    for r in [0, 2, 3] {
        assert!(
            job.stdout.contains(&format!("after rank={r} x=4")),
            "{}",
            job.dump()
        );
    }
    assert!(!job.stdout.contains("after rank=1 "), "{}", job.dump());
}
