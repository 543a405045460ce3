//! The bundled demo (demo/jacobi.c) builds with our `mpicc` and runs with
//! our `mpirun`: on the `tianhe1a` preset it verifies its numerical result
//! and the time it prints is within the predicted run time; at
//! `cpu.scale = 0` its whole output is the same on one core and on two.
mod common;

use common::{mpicc, repo_root, report, scratch, Run};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The demo, built once.
fn demo() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let exe = scratch().join("jacobi");
        mpicc(&repo_root().join("demo/jacobi.c"), &exe, &["-lm"]);
        exe
    })
    .clone()
}

/// The "time in seconds = X" the demo prints, in picoseconds.
fn printed_time_ps(stdout: &str) -> u64 {
    let line = stdout
        .lines()
        .find(|l| l.contains("time in seconds = "))
        .unwrap_or_else(|| panic!("no time line:\n{stdout}"));
    let x = line
        .split("= ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    common::secs_to_ps(x)
}

#[test]
fn demo_on_tianhe1a() {
    let exe = demo();
    let rep = scratch().join("demo.json");
    let job = Run::new(16, "tianhe1a", &exe)
        .report(&rep)
        .args(&["40000", "200"])
        .run();
    job.assert_success();
    assert!(job.stdout.contains("VERIFIED"), "{}", job.dump());
    let json = report::read(&rep);
    let predicted = report::predicted_ps(&json);
    assert_eq!(report::ranks(&json).len(), 16);
    // The demo times its main loop; the slowest rank's loop fits within the
    // predicted run time (from MPI_Init to MPI_Finalize of the slowest rank).
    let t = printed_time_ps(&job.stdout);
    assert!(
        t > 0 && t <= predicted,
        "printed {t} ps, predicted {predicted} ps"
    );
    println!("{}", job.stdout);
    println!("{}", job.stderr);
}

#[test]
fn demo_at_scale_0_is_the_same_on_1_and_2_cores() {
    let exe = demo();
    let outs: Vec<String> = [1, 2]
        .iter()
        .map(|&c| {
            let job = Run::exact(16, &exe)
                .cores(Some(c))
                .args(&["40000", "200"])
                .run();
            job.assert_success();
            assert!(job.stdout.contains("VERIFIED"), "{}", job.dump());
            job.stdout
        })
        .collect();
    assert_eq!(outs[0], outs[1]);
    assert!(printed_time_ps(&outs[0]) > 0);
}
