//! MPI_THREAD_MULTIPLE and calls made from inside callbacks: real C
//! programs with POSIX threads (`tests/programs/threads.c`), built with our
//! `mpicc` and run with our `mpirun` at `cpu.scale = 0`.
//!
//! Timing rule checked (see `p2p::core::yielding`, `engine::clock`): the
//! rank has one virtual clock; a thread's call starts at the later of the
//! clock and where the thread's own computation has reached (its position
//! when it last left the library plus its computation since, here
//! MPIX_Vaced_compute); a blocking wait that another thread interrupts ends
//! at the time it had reached and starts again after that thread's call.
mod common;

use common::model::{self, blocking_transfer, hop, rendezvous_transfer, Clock};
use common::{fmt_ps, program, ps_arg, times_by_rank_op, Job, Run, CORE_VARIANTS};

fn ok_ranks(job: &Job, n: u32) {
    job.assert_success();
    for r in 0..n {
        assert!(
            job.stdout.contains(&format!("OK rank={r}\n")),
            "rank {r} did not finish cleanly\n{}",
            job.dump()
        );
    }
}

#[test]
fn thread_levels_and_thread_main() {
    let job = Run::exact(2, &program("threads")).args(&["query"]).run();
    ok_ranks(&job, 2);
}

/// Expected final times of `threads blocked B C`: rank 0's second thread
/// computes C, then sends B bytes to rank 1 (while rank 0's main thread is
/// blocked in MPI_Recv since tV = 0); rank 1, blocked in MPI_Recv since 0,
/// receives and sends them back; the main thread's receive completes.
fn blocked_expected(b: u64, c: u64) -> [u64; 2] {
    let h = hop(0, 1);
    let (mut r0, mut r1) = (Clock::new(), Clock::new());
    r0.compute(c);
    if model::is_eager(b) {
        blocking_transfer(&mut r0, &mut r1, b, h);
    } else {
        let wr = r1.t;
        rendezvous_transfer(&mut r0, &mut r1, b, h, wr);
    }
    // the reply: rank 0's main thread waits in MPI_Recv from the end of
    // the second thread's send on (its wait was interrupted until then)
    blocking_transfer(&mut r1, &mut r0, b, h);
    [r0.t, r1.t]
}

#[test]
fn a_thread_sends_while_the_main_thread_is_blocked_in_recv() {
    let prog = program("threads");
    let c = 1_234_567_000; // 1.234567 ms of computation by the second thread
    for b in [1000u64, 200_000] {
        let want = blocked_expected(b, c);
        for cores in CORE_VARIANTS {
            let job = Run::exact(2, &prog)
                .cores(cores)
                .args(&["blocked".to_string(), b.to_string(), ps_arg(c)])
                .run();
            ok_ranks(&job, 2);
            let got = times_by_rank_op(&job.stdout, "T");
            for r in 0..2 {
                let g = got[&(r as i64, "end".to_string())];
                assert_eq!(
                    g,
                    want[r],
                    "{b} B, cores {cores:?}, rank {r}: got {}, expected {}\n{}",
                    fmt_ps(g),
                    fmt_ps(want[r]),
                    job.dump()
                );
            }
        }
    }
}

#[test]
fn many_threads_do_sendrecv_rings() {
    let prog = program("threads");
    for cores in [Some(1), Some(2)] {
        let job = Run::exact(3, &prog)
            .cores(cores)
            .args(&["ring", "4", "50"])
            .run();
        ok_ranks(&job, 3);
    }
}

#[test]
fn a_user_operator_calls_mpi() {
    let job = Run::exact(4, &program("threads")).args(&["op"]).run();
    ok_ranks(&job, 4);
}

#[test]
fn an_error_handler_calls_mpi() {
    let job = Run::exact(2, &program("threads")).args(&["errh"]).run();
    ok_ranks(&job, 2);
}

/// Two threads of each rank run collectives, communicator constructors and
/// fences at the same time, each on a communicator and a window of its own, starting in
/// opposite orders on even and odd ranks: each blocking call releases the
/// library while it waits (under MPI_THREAD_MULTIPLE a blocking collective
/// or constructor is its nonblocking form and a wait), so neither thread
/// holds up the other's collective on another rank. Checks every result.
#[test]
fn threads_run_collectives_on_their_own_communicators() {
    let prog = program("threads");
    let iters = 3i64;
    for (n, cores) in [(2i64, Some(1)), (3, Some(2)), (4, None)] {
        let job = Run::exact(n as u32, &prog)
            .cores(cores)
            .args(&["colls".to_string(), iters.to_string()])
            .run();
        ok_ranks(&job, n as u32);
        for r in 0..n {
            for id in 0..2i64 {
                // Allreduce of 10 rank + id + it over the ranks, summed
                let sum: i64 = (0..iters)
                    .map(|it| 10 * n * (n - 1) / 2 + n * (id + it))
                    .sum();
                // per round: the duplicate, the created communicator (even
                // ranks) and the group communicator
                let made = iters * (2 + i64::from(r % 2 == 0));
                let line = format!("C rank={r} thread={id} sum={sum} ctx={made}\n");
                assert!(
                    job.stdout.contains(&line),
                    "{n} ranks: no line {line:?}\n{}",
                    job.dump()
                );
            }
        }
    }
}
