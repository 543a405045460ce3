//! MPI_Cancel of sends, end to end (tests/programs/cancel_send.c): every
//! printed MPI_Wtime is compared to the picosecond with the model's
//! equations (tests/common/model.rs; ranks 0 and 1 share a node, hop 0), on
//! CORE_VARIANTS. The cancel protocol's timing (src/p2p/core.rs,
//! `Core::cancel_send`): the cancel request is a control message of H bytes
//! sent at the sender's tV (its tV becomes tr = tV + M(H)), arriving at
//! max(tr + L(H), ta of the message it cancels); the receiver, blocked in a
//! wait, handles it at that arrival and answers with H bytes at once; the
//! send completes when the sender handles the answer.
mod common;

use common::model::{is_eager, link, m, H};
use common::{fmt_ps, program, times_by_rank_op, Run, CORE_VARIANTS};
use std::collections::HashMap;

const HOP: u32 = 0;

/// Run one scenario and compare its `cx` lines with `expected`.
fn check(scenario: &str, mode: &str, size: u64, expected: &[(i64, &str, u64)]) {
    let prog = program("cancel_send");
    let want: HashMap<(i64, String), u64> = expected
        .iter()
        .map(|&(r, op, t)| ((r, op.to_string()), t))
        .collect();
    for cores in CORE_VARIANTS {
        let job = Run::exact(2, &prog)
            .cores(cores)
            .args(&[scenario, mode, &size.to_string()])
            .run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
        let got = times_by_rank_op(&job.stdout, "cx");
        let what = format!("{scenario} {mode} {size} cores={cores:?}");
        for (k, &e) in &want {
            match got.get(k) {
                Some(&g) if g == e => {}
                Some(&g) => panic!(
                    "{what}: {k:?}: got {}, expected {} (diff {} ps)\n{}",
                    fmt_ps(g),
                    fmt_ps(e),
                    g as i128 - e as i128,
                    job.stdout
                ),
                None => panic!("{what}: {k:?} missing\n{}", job.stdout),
            }
        }
        assert_eq!(got.len(), want.len(), "{what}\n{}", job.stdout);
    }
}

/// The starting phase of a send of `size` bytes in `mode` at `t`: (the
/// sender's tV after it, the arrival of its DATA or REQ).
fn start(mode: &str, size: u64, t: u64) -> (u64, u64) {
    // buffered modes copy the data into the attached buffer first
    let t = if mode.contains('b') { t + m(size) } else { t };
    let wire = if mode == "issend" || !is_eager(size) {
        H
    } else {
        size
    };
    let tr = t + m(wire);
    (tr, tr + link(wire, HOP))
}

/// The cancel of a message that arrives at `ta_msg`, asked at `t` while the
/// receiver waits: the time its answer reaches the sender.
fn cancel_answer(t: u64, ta_msg: u64) -> u64 {
    let tr = t + m(H);
    let ta = (tr + link(H, HOP)).max(ta_msg);
    ta + m(H) + link(H, HOP)
}

#[test]
fn unmatched_sends_are_cancelled_exact() {
    for (mode, size) in [
        ("isend", 8u64),
        ("isend", 200_000),
        ("issend", 8),
        ("irsend", 8),
        ("ibsend", 8),
        ("ibsend", 200_000),
        ("psend", 1000),
        ("pbsend", 200_000),
    ] {
        // Rank 1 waits in MPI_Recv from 0: each cancel request is handled at
        // its arrival; each send completes (cancelled) when the answer
        // comes, and the next starts there.
        let mut t = 0;
        let mut exp = Vec::new();
        for op in ["cancel0", "cancel1"] {
            let (tr, ta) = start(mode, size, t);
            t = cancel_answer(tr, ta);
            exp.push((0, op, t));
        }
        // then an int with tag 9 (eager)
        exp.push((0, "end", t + m(4)));
        exp.push((1, "end", t + m(4) + link(4, HOP) + m(4)));
        check("unmatched", mode, size, &exp);
    }
}

#[test]
fn matched_sends_are_not_cancelled_exact() {
    // Eager: rank 1 has the data at 3M(b) and sends "go" (an int), which
    // rank 0 receives at T; the cancel is asked then and refused (rank 1
    // waits for tag 8 and answers at once): the send completes with the
    // answer.
    let b = 8;
    let go = 3 * m(b) + m(4) + link(4, HOP) + m(4);
    let done = cancel_answer(go, 0);
    let eager = [
        (0, "cancel0", done),
        (0, "end", done + m(4)),
        (1, "end", done + m(4) + link(4, HOP) + m(4)),
    ];
    check("matched", "isend", b, &eager);
    // Rendezvous: REQ at 2M(H), ACK back at 4M(H), handled by rank 0 (idle
    // in its MPI_Recv) there: the DATA arrives at 4M(H) + 2M(b) and is
    // received M(b) later; "go" follows. The ACK came: nothing to ask, the
    // send is complete.
    for (mode, b) in [("isend", 200_000u64), ("issend", 8)] {
        let go = 2 * (m(H) + link(H, HOP)) + m(b) + link(b, HOP) + m(b);
        let go = go + m(4) + link(4, HOP) + m(4);
        let exp = [
            (0, "cancel0", go),
            (0, "end", go + m(4)),
            (1, "end", go + m(4) + link(4, HOP) + m(4)),
        ];
        check("matched", mode, b, &exp);
    }
}

#[test]
fn send_to_self_is_cancelled_exact() {
    for (mode, b) in [("isend", 8u64), ("issend", 8), ("ibsend", 100)] {
        // The receiver is the sender itself, waiting in MPI_Wait. Messages
        // to oneself take no time (no copy out, no transfer), nor do the
        // cancel request and its answer: the cancel completes when it is
        // asked, after the buffered modes' copy into the attached buffer.
        let asked = if mode.contains('b') { m(b) } else { 0 };
        check("self", mode, b, &[(0, "cancel0", asked)]);
    }
}
