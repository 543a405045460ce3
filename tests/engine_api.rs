//! The engine's C API for another MPI library (`include/vaced_engine.h`,
//! `src/abi/engine_api.rs`, used by `mpich-patch/`): a program that mirrors
//! its traffic through it, lengths only, gets the predictions vaced's own
//! library gives the same MPI program, to the picosecond at `cpu.scale = 0`,
//! on 1 and 2 host cores; misuse fails with the reason.
mod common;

use common::{lines_and_times, program, scratch, Run};

/// Sorted stdout lines and every rank's virtual time (ps) of `prog args` on
/// `n` ranks and `cores` cores.
fn outcome(prog: &str, n: u32, cores: u32, args: &[&str]) -> (Vec<String>, Vec<u64>) {
    let rep = scratch().join(format!("{prog}-{n}-{cores}.json"));
    let run = Run::exact(n, &program(prog)).cores(Some(cores)).args(args);
    lines_and_times(run, &rep)
}

#[test]
fn pingpong_through_the_engine_api_predicts_what_mpi_does() {
    // eager and rendezvous; 0 and 3 hops (16 ranks: rank 12 is on another
    // node), and two ranks on one node
    for (n, args) in [
        (16, ["12", "2", "8", "131073", "4194304"].as_slice()),
        (2, ["1", "2", "8", "1024", "131073"].as_slice()),
    ] {
        let mpi = outcome("pingpong", n, 2, args);
        assert!(mpi.0.len() > 8, "{:?}", mpi.0);
        for cores in [1, 2] {
            let eng = outcome("engine_pingpong", n, cores, args);
            assert_eq!(eng.0, mpi.0, "{n} ranks, {cores} cores: other lines");
            assert_eq!(
                eng.1, mpi.1,
                "{n} ranks, {cores} cores: other virtual times"
            );
        }
    }
}

#[test]
fn misuse_fails_with_the_reason() {
    let job = Run::exact(1, &program("engine_misuse")).run();
    job.assert_success();
    for line in [
        "before init: -1 vaced_eng_isend: called before vaced_eng_init",
        "init: 0",
        "twice: -1 vaced_eng_init: called twice",
        "bad dest: -1 vaced_eng_isend: rank 5 is not one of the job's 1",
        "bad mode: -1 vaced_eng_isend: mode 9 is none of 0-3",
        "bad request: -1 vaced_eng_wait: 77 is not an active request",
        "leave without enter: -1 vaced_eng_leave: no call to leave",
        "bad compute: -1 vaced_eng_compute: invalid computation time -1 s (must be finite and >= 0)",
        "self: 1 source=0 tag=3 bytes=8",
        "bad step kind: -1 vaced_eng_sched: step 0: kind 7 is none of 0-3",
        "bad step peer: -1 vaced_eng_sched: step 0: peer 3 is not a rank of the job",
        "deferred receive: -1 vaced_eng_sched: step 0: only a send's length can be deferred",
        "deferred length: 0",
        "schedule: 0",
        "finalize: 0",
        "after: -1 vaced_eng_wait: called after vaced_eng_finalize",
    ] {
        assert!(
            job.stdout.lines().any(|l| l == line),
            "missing `{line}`:\n{}",
            job.dump()
        );
    }
}
