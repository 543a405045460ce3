//! Point-to-point completions: persistent and partitioned requests, matched probes,
//! MPI_Isendrecv(_replace), generalized requests, MPI_Request_get_status and
//! the status setters. Exact tests compare every printed MPI_Wtime to the
//! picosecond with the model's equations (see tests/exact_p2p.rs for the
//! notation), on CORE_VARIANTS; functional tests check results exactly.
mod common;

use common::model::{self, link, m, Clock, H};
use common::{program, ps_arg, times_by_rank_op, Run, CORE_VARIANTS};
use std::collections::{BTreeMap, HashMap};

/// Compare expected and printed `(rank, op) -> ps` times, all at once.
fn assert_times(what: &str, expected: &HashMap<(i64, String), u64>, stdout: &str, tag: &str) {
    let sorted = |m: &HashMap<(i64, String), u64>| -> BTreeMap<(i64, String), u64> {
        m.iter().map(|(k, v)| (k.clone(), *v)).collect()
    };
    let got = times_by_rank_op(stdout, tag);
    common::assert_times(what, &sorted(expected), &sorted(&got), stdout);
}

/// Every check of `names` printed `ok NAME rank=R` on both ranks.
fn assert_oks(job: &common::Job, names: &[&str]) {
    for name in names {
        for rank in 0..2 {
            let line = format!("ok {name} rank={rank}");
            assert!(
                job.stdout.lines().any(|l| l == line),
                "missing `{line}`\n{}",
                job.dump()
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Persistent exchange
// ---------------------------------------------------------------------------

/// One iteration of the persistent exchange, both ranks starting their
/// MPI_Startall {recv, send} at their current tV (rank 1 is the later one:
/// it computed). A Start is exactly MPI_Irecv + MPI_Isend at that moment.
///
/// Eager: each send's DATA leaves at once (ta = t + M(b) + L(b, h); tV
/// becomes tr); the Waitall begins at w = tr; the partner's DATA is dealt
/// with at deal(ta, w) and the receive completes M(b) later. The Waitall
/// ends at the later of the send (tr) and the receive.
///
/// Rendezvous: each sends its REQ (tV = tr of the REQ, the Waitall begins
/// there); each answers the other's REQ with an ACK at deal(ta_req, w); an
/// ACK dealt with at s sends the DATA (the send completes at s + M(b));
/// the DATA dealt with at d completes the receive at d + M(b).
fn exchange(a: &mut Clock, b: &mut Clock, size: u64, h: u32) -> (u64, u64) {
    if model::is_eager(size) {
        let ta0 = a.send(size, h);
        let w0 = a.t;
        let ta1 = b.send(size, h);
        let w1 = b.t;
        let r0 = a.deal(ta1, w0) + m(size);
        let r1 = b.deal(ta0, w1) + m(size);
        a.end_wait(w0, r0.max(w0));
        b.end_wait(w1, r1.max(w1));
    } else {
        let hs = |t: u64| t + m(H) + link(H, h);
        let ta_req0 = a.send(H, h);
        let w0 = a.t;
        let ta_req1 = b.send(H, h);
        let w1 = b.t;
        let ta_ack1 = hs(b.deal(ta_req0, w1));
        let ta_ack0 = hs(a.deal(ta_req1, w0));
        let s0 = a.deal(ta_ack1, w0);
        let s1 = b.deal(ta_ack0, w1);
        let ta_data0 = s0 + m(size) + link(size, h);
        let ta_data1 = s1 + m(size) + link(size, h);
        let r0 = a.deal(ta_data1, w0) + m(size);
        let r1 = b.deal(ta_data0, w1) + m(size);
        a.end_wait(w0, r0.max(s0 + m(size)));
        b.end_wait(w1, r1.max(s1 + m(size)));
    }
    (a.t, b.t)
}

#[test]
fn persistent_exchange_exact() {
    let sizes: [u64; 3] = [8, 131_072, 1 << 20];
    let iters = 3;
    let compute = 40_000_000; // 40 us
    let h = model::hop(0, 1);
    let (mut a, mut b) = (Clock::new(), Clock::new());
    let mut expected = HashMap::new();
    for &s in &sizes {
        for it in 0..iters {
            b.compute(compute);
            let (t0, t1) = exchange(&mut a, &mut b, s, h);
            expected.insert((0, format!("{s}-{it}")), t0);
            expected.insert((1, format!("{s}-{it}")), t1);
        }
    }
    let prog = program("persist");
    let mut args = vec![ps_arg(compute), iters.to_string()];
    args.extend(sizes.iter().map(|s| s.to_string()));
    for cores in CORE_VARIANTS {
        let job = Run::exact(2, &prog).cores(cores).args(&args).run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
        assert_times(
            &format!("persist cores={cores:?}"),
            &expected,
            &job.stdout,
            "px",
        );
    }
}

// ---------------------------------------------------------------------------
// Partitioned communication
// ---------------------------------------------------------------------------

/// tests/programs/partitioned.c: rank 0 computes C before marking each of
/// P partitions ready (the last two after 2C, together), so its last
/// MPI_Pready comes P * C after its MPI_Start; that call sends the whole
/// buffer (P * COUNT bytes) as MPI_Isend would then, and rank 0's MPI_Wait
/// follows at once. Rank 1 started its receive at its own tV and waits
/// from there: exactly a blocking transfer (eager, or rendezvous with
/// rank 0 waiting from the end of its REQ). Twice, eager and rendezvous.
#[test]
fn partitioned_exact() {
    let compute = 40_000_000; // 40 us
    let (iters, parts) = (2, 4u64);
    let h = model::hop(0, 1);
    for count in [16u64, 65_536] {
        let total = parts * count;
        let (mut a, mut b) = (Clock::new(), Clock::new());
        let mut expected = HashMap::new();
        for it in 0..iters {
            a.compute(parts * compute);
            model::blocking_transfer(&mut a, &mut b, total, h);
            expected.insert((0, it.to_string()), a.t);
            expected.insert((1, it.to_string()), b.t);
        }
        let prog = program("partitioned");
        let args = [
            ps_arg(compute),
            iters.to_string(),
            parts.to_string(),
            count.to_string(),
        ];
        for cores in CORE_VARIANTS {
            let job = Run::exact(2, &prog).cores(cores).args(&args).run();
            job.assert_success();
            assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
            assert_times(
                &format!("partitioned {total} bytes cores={cores:?}"),
                &expected,
                &job.stdout,
                "pt",
            );
        }
    }
}

/// The checks of `partitioned check`, each on both ranks.
const PARTITIONED_CHECKS: [&str; 17] = [
    "ordinary_not_matched",
    "test_before_last_partition",
    "pready_twice",
    "pready_out_of_range",
    "pready_range_reversed",
    "pready_on_receive",
    "parrived_on_send",
    "parrived_out_of_range",
    "free_waiting_send",
    "wait_waiting_send",
    "data",
    "pready_inactive",
    "parrived_inactive",
    "parrived_null",
    "precv_any_source",
    "precv_any_tag",
    "psend_no_partitions",
];

#[test]
fn partitioned_functional() {
    let job = Run::exact(2, &program("partitioned"))
        .args(&["check"])
        .run();
    job.assert_success();
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
    assert_oks(&job, &PARTITIONED_CHECKS);
}

// ---------------------------------------------------------------------------
// Functional checks
// ---------------------------------------------------------------------------

/// The checks tests/programs/completions.c makes, each on both ranks.
const COMPLETION_CHECKS: [&str; 20] = [
    "isendrecv",
    "isendrecv_replace",
    "get_status_inactive",
    "start_active_is_error",
    "get_status_complete",
    "wait_after_get_status",
    "start_null_is_error",
    "greq_not_complete",
    "greq_wait_incomplete_is_error",
    "greq_cancel_callback",
    "greq_complete_twice_is_error",
    "greq_get_status",
    "greq_wait",
    "greq_waitall",
    "status_setters",
    "status_set_elements",
    "waitany_mix",
    "waitany_all_inactive",
    "waitsome_persistent",
    "send_cancel_matched",
];

#[test]
fn completion_calls_functional() {
    let prog = program("completions");
    for cores in [None, Some(1)] {
        let job = Run::exact(2, &prog).cores(cores).run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
        assert_oks(&job, &COMPLETION_CHECKS);
        let oks = job.stdout.lines().filter(|l| l.starts_with("ok ")).count();
        assert_eq!(oks, 2 * COMPLETION_CHECKS.len(), "{}", job.dump());
    }
}

// ---------------------------------------------------------------------------
// Matched probes
// ---------------------------------------------------------------------------

/// tests/programs/mprobe_timing.c. Rank 0 sends an eager message (tag 1)
/// and a rendezvous one (tag 2) at once; rank 1 computes C1, which both the
/// eager DATA and the REQ arrive during: each is dealt with at the start of
/// the first progress interval after its arrival, the Mprobe at C1, where
/// it enters the unexpected queue. So:
/// * probe1 = C1 (the message is unexpected since then);
/// * mrecv1 = C1 + C2 + M(b1): the copy out, as a receive posted at the
///   Mrecv that finds its message in the unexpected queue;
/// * probe2 = mrecv1 (the REQ is unexpected since C1: the Improbe finds it
///   at once);
/// * the Imrecv at T = probe2 + C3 answers the REQ: the ACK leaves at T,
///   rank 0 (waiting in MPI_Send since its REQ left) deals with it on
///   arrival and sends the DATA: send2 = ta_ack + M(b2); the receive
///   completes at ta_data + M(b2).
#[test]
fn mprobe_mrecv_exact() {
    let (b1, b2) = (1000u64, 1u64 << 20);
    let (c1, c2, c3) = (100_000_000u64, 10_000_000u64, 20_000_000u64);
    let h = model::hop(0, 1);
    let (mut a, mut b) = (Clock::new(), Clock::new());
    let mut expected = HashMap::new();
    let ta1 = a.send(b1, h);
    expected.insert((0, "send1".to_string()), a.t);
    let ta_req = a.send(H, h);
    let ws = a.t;
    b.compute(c1);
    assert!(
        ta1 < b.t && ta_req < b.t,
        "both arrive while rank 1 computes"
    );
    expected.insert((1, "probe1".to_string()), b.t);
    b.compute(c2);
    let w = b.t;
    b.end_wait(w, w + m(b1));
    expected.insert((1, "mrecv1".to_string()), b.t);
    expected.insert((1, "probe2".to_string()), b.t);
    b.compute(c3);
    let t = b.t;
    let ta_ack = t + m(H) + link(H, h);
    let s = a.deal(ta_ack, ws);
    a.end_wait(ws, s + m(b2));
    expected.insert((0, "send2".to_string()), a.t);
    let ta_data = s + m(b2) + link(b2, h);
    let d = b.deal(ta_data, t);
    b.end_wait(t, d + m(b2));
    expected.insert((1, "mrecv2".to_string()), b.t);

    let prog = program("mprobe_timing");
    let args = [
        b1.to_string(),
        b2.to_string(),
        ps_arg(c1),
        ps_arg(c2),
        ps_arg(c3),
    ];
    for cores in CORE_VARIANTS {
        let job = Run::exact(2, &prog).cores(cores).args(&args).run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
        assert_times(
            &format!("mprobe cores={cores:?}"),
            &expected,
            &job.stdout,
            "mp",
        );
    }
}

// ---------------------------------------------------------------------------
// Fortran
// ---------------------------------------------------------------------------

/// tests/programs/f90_completions.f90 built with our mpif90 (skipped, with
/// a message, when there is no gfortran).
#[test]
fn fortran_completion_calls() {
    let Some(out) = common::fortran_program("f90_completions.f90", &[]) else {
        return;
    };
    let job = Run::exact(2, &out).run();
    job.assert_success();
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
    for name in [
        "persistent",
        "request_free",
        "isendrecv",
        "mprobe",
        "greq_incomplete",
        "grequest",
    ] {
        for rank in 0..2 {
            let line = format!("ok {name} rank={rank}");
            assert!(
                job.stdout.lines().any(|l| l.trim() == line),
                "missing `{line}`\n{}",
                job.dump()
            );
        }
    }
}
