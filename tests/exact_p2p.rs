//! Exact point-to-point predictions: real C programs built with our `mpicc`,
//! run with our `mpirun` on the tianhe1a target at `cpu.scale = 0`, every
//! printed `MPI_Wtime` checked to the picosecond against the value the
//! model's equations give (derived in `common::model` and below), with the
//! default number of cores, `--cores 1` and `--cores 2`.
//!
//! Notation (all in ps): M(b) = b/Bmem, N(b) = b/Bnet, l(h) = 15 us + h 0.6 us,
//! L(b, h) = N(b) + l(h) (h > 0) or M(b) (h = 0), H = 64 (REQ/ACK bytes).
mod common;

use common::model::{self, blocking_transfer, link, m, rendezvous_transfer, Clock, H};
use common::{fmt_ps, program, ps_arg, times_by_rank_op, Run, CORE_VARIANTS};
use std::collections::BTreeMap;

/// Compares expected and printed times; reports every difference at once.
fn assert_times<K: Ord + std::fmt::Debug>(
    what: &str,
    expected: &BTreeMap<K, u64>,
    got: &BTreeMap<K, u64>,
    dump: &str,
) {
    let mut errors = Vec::new();
    for (k, &e) in expected {
        match got.get(k) {
            None => errors.push(format!("{k:?}: missing, expected {}", fmt_ps(e))),
            Some(&g) if g != e => errors.push(format!(
                "{k:?}: got {}, expected {} (diff {} ps)",
                fmt_ps(g),
                fmt_ps(e),
                g as i128 - e as i128
            )),
            _ => {}
        }
    }
    for k in got.keys() {
        if !expected.contains_key(k) {
            errors.push(format!("{k:?}: printed but not expected"));
        }
    }
    assert!(
        errors.is_empty(),
        "{what}: {} wrong times:\n{}\n{dump}",
        errors.len(),
        errors.join("\n")
    );
}

// ---------------------------------------------------------------------------
// 1. Ping-pong
// ---------------------------------------------------------------------------

/// 8 B, 1 KiB, exactly the eager limit, one byte over it, 4 MiB.
const SIZES: [u64; 5] = [8, 1024, 131_072, 131_073, 4 << 20];
const REPS: u32 = 2;

type PpKey = (u32, u64, u32, &'static str); // (rank, size, rep, op)

/// Expected times of `pingpong PEER REPS SIZES...`: for each size in turn,
/// REPS round trips. Within one round trip (see `model::blocking_transfer`):
/// rank 0 MPI_Send -> peer MPI_Recv (blocked since its previous call), then
/// peer MPI_Send -> rank 0 MPI_Recv (blocked since its own send returned).
///
/// Closed forms, checked here against the step-by-step reference, for a
/// round trip that rank 0 starts at T (the peer is then already waiting):
///
/// Eager, one way E = M(b) + L(b, h) + M(b) (copy in, wire, copy out):
/// rank 0's send returns at T + M(b); the peer's recv at T + E; the peer's
/// send returns at T + E + M(b); rank 0's recv at T + 2E.
///
/// Rendezvous, one way R = 2 (M(H) + L(H, h)) + 2 M(b) + L(b, h) (REQ there,
/// ACK back, DATA copied in, over the wire, copied out): rank 0's send
/// returns at T + 2 (M(H) + L(H, h)) + M(b) (ACK handled, DATA copied); the
/// peer's recv at T + R; the peer's REQ leaves at T + R while rank 0 is
/// waiting, so the peer's send returns at T + R + 2 (M(H) + L(H, h)) + M(b);
/// rank 0's recv at T + 2R.
fn expected_pingpong(peer: u32) -> BTreeMap<PpKey, u64> {
    let h = model::hop(0, peer);
    let (mut a, mut p) = (Clock::new(), Clock::new());
    let mut out = BTreeMap::new();
    for &b in &SIZES {
        for rep in 0..REPS {
            let t = a.t;
            blocking_transfer(&mut a, &mut p, b, h);
            out.insert((0, b, rep, "send"), a.t);
            out.insert((peer, b, rep, "recv"), p.t);
            blocking_transfer(&mut p, &mut a, b, h);
            out.insert((peer, b, rep, "send"), p.t);
            out.insert((0, b, rep, "recv"), a.t);

            // Cross-check against the closed forms.
            let rel = |k: PpKey| out[&k] - t;
            if model::is_eager(b) {
                let e = m(b) + link(b, h) + m(b);
                assert_eq!(rel((0, b, rep, "send")), m(b));
                assert_eq!(rel((peer, b, rep, "recv")), e);
                assert_eq!(rel((peer, b, rep, "send")), e + m(b));
                assert_eq!(rel((0, b, rep, "recv")), 2 * e);
            } else {
                let hs = m(H) + link(H, h);
                let r = 2 * hs + 2 * m(b) + link(b, h);
                assert_eq!(rel((0, b, rep, "send")), 2 * hs + m(b));
                assert_eq!(rel((peer, b, rep, "recv")), r);
                assert_eq!(rel((peer, b, rep, "send")), r + 2 * hs + m(b));
                assert_eq!(rel((0, b, rep, "recv")), 2 * r);
            }
        }
    }
    out
}

fn pingpong(nranks: u32, peer: u32, expected_hops: u32) {
    assert_eq!(model::hop(0, peer), expected_hops);
    let expected = expected_pingpong(peer);
    let prog = program("pingpong");
    let mut args = vec![peer.to_string(), REPS.to_string()];
    args.extend(SIZES.iter().map(|s| s.to_string()));
    for cores in CORE_VARIANTS {
        let job = Run::exact(nranks, &prog).cores(cores).args(&args).run();
        job.assert_success();
        let mut got = BTreeMap::new();
        for r in common::records(&job.stdout, "pp") {
            let op: &'static str = match r.get("op") {
                "send" => "send",
                "recv" => "recv",
                other => panic!("unexpected op {other}"),
            };
            let key = (
                r.int("rank") as u32,
                r.int("size") as u64,
                r.int("rep") as u32,
                op,
            );
            assert!(got.insert(key, r.ps("t")).is_none(), "duplicate {key:?}");
        }
        assert_times(
            &format!("ping-pong 0 <-> {peer} ({expected_hops} hops), cores {cores:?}"),
            &expected,
            &got,
            &job.dump(),
        );
    }
}

#[test]
fn pingpong_0_hops() {
    pingpong(2, 1, 0);
}

#[test]
fn pingpong_3_hops() {
    pingpong(13, 12, 3);
}

#[test]
fn pingpong_5_hops() {
    // hop(0, 192) = 5 needs 193 ranks; ranks 1..191 only Init and Finalize.
    pingpong(193, 192, 5);
}

// ---------------------------------------------------------------------------
// 2. A receiver that is computing when the message arrives (Algorithm 3)
// ---------------------------------------------------------------------------

type Key = (u32, &'static str); // (rank, op)

/// `late_receiver PEER MODE BYTES C`: rank 0 sends at tV = 0; the peer posts
/// MPI_Irecv at 0 (nothing has arrived yet: it is posted), computes C
/// (prints op=compute = C), then MPI_Wait from w = C.
///
/// * Eager DATA: ta = M(b) + L(b, h). If ta < C the data came in while the
///   peer computed; no waiting interval of the peer covers ta, so it is dealt
///   with at the start of the wait: done = C + M(b). Else done = ta + M(b).
/// * Rendezvous (b > 128 KiB, or MPI_Ssend of any size): REQ arrives at
///   ta_req = M(H) + L(H, h). If ta_req < C the ACK goes out at the start of
///   the wait, t1 = C (Algorithm 3), else at t1 = ta_req;
///   ta_ack = t1 + M(H) + L(H, h); rank 0 (waiting since M(H)) sends DATA at
///   ta_ack and its send returns at ta_ack + M(b); the peer's wait ends at
///   ta_ack + M(b) + L(b, h) + M(b).
fn expected_late_receiver(peer: u32, sync: bool, b: u64, c: u64) -> BTreeMap<Key, u64> {
    let h = model::hop(0, peer);
    let (mut s, mut r) = (Clock::new(), Clock::new());
    r.compute(c);
    let mut out = BTreeMap::new();
    out.insert((peer, "compute"), r.t);
    let w = r.t;
    if model::is_eager(b) && !sync {
        let ta = s.send(b, h);
        let done = r.deal(ta, w) + m(b);
        r.end_wait(w, done);
        // closed form
        assert_eq!(r.t, (m(b) + link(b, h)).max(c) + m(b));
    } else {
        rendezvous_transfer(&mut s, &mut r, b, h, w);
        // closed form
        let t1 = (m(H) + link(H, h)).max(c);
        let ta_ack = t1 + m(H) + link(H, h);
        assert_eq!(s.t, ta_ack + m(b));
        assert_eq!(r.t, ta_ack + m(b) + link(b, h) + m(b));
    }
    out.insert((0, "send"), s.t);
    out.insert((peer, "wait"), r.t);
    out
}

fn late_receiver(nranks: u32, peer: u32, mode: &str, b: u64, c_ps: u64, late: bool) {
    let h = model::hop(0, peer);
    // The scenario is what its name says: the message (REQ for rendezvous)
    // arrives before (late = true) or after the receiver starts waiting.
    let first = if model::is_eager(b) && mode == "send" {
        m(b) + link(b, h)
    } else {
        m(H) + link(H, h)
    };
    assert_eq!(
        first < c_ps,
        late,
        "C does not fall where the scenario needs it"
    );
    let expected = expected_late_receiver(peer, mode == "ssend", b, c_ps);
    let prog = program("late_receiver");
    let args = [
        peer.to_string(),
        mode.to_string(),
        b.to_string(),
        ps_arg(c_ps),
    ];
    for cores in CORE_VARIANTS {
        let job = Run::exact(nranks, &prog).cores(cores).args(&args).run();
        job.assert_success();
        let got: BTreeMap<Key, u64> = times_by_rank_op(&job.stdout, "rc")
            .into_iter()
            .map(|((rank, op), t)| ((rank as u32, op_name(op)), t))
            .collect();
        assert_times(
            &format!("late receiver {mode} {b} B, {h} hops, C = {c_ps} ps, cores {cores:?}"),
            &expected,
            &got,
            &job.dump(),
        );
    }
}

/// Op names as `&'static str` keys (a handful per test).
fn op_name(s: String) -> &'static str {
    match s.as_str() {
        "send" => "send",
        "compute" => "compute",
        "wait" => "wait",
        "start" => "start",
        "waitall" => "waitall",
        _ => panic!("unexpected op {s}"),
    }
}

#[test]
fn rendezvous_ack_at_start_of_wait_3_hops() {
    // REQ arrives at M(64) + N(64) + l(3) ~ 16.8 us, the receiver computes 100 us.
    late_receiver(13, 12, "send", 256 * 1024, 100_000_000, true);
}

#[test]
fn rendezvous_receiver_waiting_3_hops() {
    // C = 5 us < arrival of the REQ: the receiver is already waiting.
    late_receiver(13, 12, "send", 256 * 1024, 5_000_000, false);
}

#[test]
fn rendezvous_ack_at_start_of_wait_0_hops() {
    // One byte over the eager limit, same node: REQ arrives after 2 M(64) ~ 20 ns.
    late_receiver(2, 1, "send", 131_073, 1_000_000, true);
}

#[test]
fn ssend_small_is_rendezvous() {
    // MPI_Ssend of 8 B uses REQ/ACK/DATA: its timing is the rendezvous one.
    late_receiver(13, 12, "ssend", 8, 100_000_000, true);
}

#[test]
fn eager_data_arrived_while_computing() {
    late_receiver(13, 12, "send", 1024, 100_000_000, true);
}

// ---------------------------------------------------------------------------
// 3. Non-blocking exchange overlapping computation
// ---------------------------------------------------------------------------

/// `exchange PEER BYTES C` on ranks x in {0, PEER} (symmetric):
/// MPI_Irecv (posted), MPI_Isend at 0 (eager DATA or REQ: tV = M(size) and the
/// message arrives at M(size) + L(size, h); prints op=start), compute C, then
/// MPI_Waitall from w = start + C, which ends at the latest completion:
/// * eager: the eager send is complete at its tr <= w; the peer's DATA
///   arrives at ta = M(b) + L(b, h): done = max(ta, w) + M(b)
///   = 2 M(b) + max(L(b, h), C).
/// * rendezvous: the peer's REQ (ta_req = M(H) + L(H, h)) is dealt with at
///   t1 = max(ta_req, w) (Algorithm 3: at the start of the wait when it came
///   in during the computation); ACK arrives back at t1 + M(H) + L(H, h) (the
///   peer is waiting by then) and the peer sends DATA at once, so our own
///   ACK comes at the same time by symmetry and our DATA leaves then too;
///   the receive completes at t1 + M(H) + L(H, h) + 2 M(b) + L(b, h).
#[allow(clippy::needless_range_loop)] // i and 1 - i index several arrays
fn expected_exchange(peer: u32, b: u64, c: u64) -> BTreeMap<Key, u64> {
    let h = model::hop(0, peer);
    let ranks = [0, peer];
    let mut x = [Clock::new(), Clock::new()];
    let mut out = BTreeMap::new();
    // Starting phase: the first message of each rank's send (DATA or REQ).
    let first = if model::is_eager(b) { b } else { H };
    let ta_first = [x[0].send(first, h), x[1].send(first, h)];
    let mut w = [0; 2];
    for i in 0..2 {
        out.insert((ranks[i], "start"), x[i].t);
        x[i].compute(c);
        w[i] = x[i].t;
    }
    if model::is_eager(b) {
        for i in 0..2 {
            // The own send completed at tr <= w; the peer's DATA decides.
            let done = x[i].deal(ta_first[1 - i], w[i]) + m(b);
            x[i].end_wait(w[i], done);
            assert_eq!(x[i].t, 2 * m(b) + link(b, h).max(c));
        }
    } else {
        // Rank i deals with the peer's REQ and sends the ACK to it.
        let t1 = [x[0].deal(ta_first[1], w[0]), x[1].deal(ta_first[0], w[1])];
        let ta_ack_from = [t1[0] + m(H) + link(H, h), t1[1] + m(H) + link(H, h)];
        // Rank i deals with the ACK of its own send and sends DATA.
        let t2 = [
            x[0].deal(ta_ack_from[1], w[0]),
            x[1].deal(ta_ack_from[0], w[1]),
        ];
        let ta_data_from = [t2[0] + m(b) + link(b, h), t2[1] + m(b) + link(b, h)];
        for i in 0..2 {
            let send_done = t2[i] + m(b);
            let recv_done = x[i].deal(ta_data_from[1 - i], w[i]) + m(b);
            x[i].end_wait(w[i], send_done.max(recv_done));
            let t1_closed = m(H) + link(H, h).max(c);
            assert_eq!(t1[i], t1_closed);
            assert_eq!(
                x[i].t,
                t1_closed + m(H) + link(H, h) + 2 * m(b) + link(b, h)
            );
        }
    }
    for i in 0..2 {
        out.insert((ranks[i], "waitall"), x[i].t);
    }
    out
}

/// `late`: the peer's first message (DATA or REQ) arrives while this rank is
/// still computing (C > L(first, h)), else while it is already waiting.
fn exchange(nranks: u32, peer: u32, b: u64, c_ps: u64, late: bool) {
    let first = if model::is_eager(b) { b } else { H };
    assert_eq!(
        link(first, model::hop(0, peer)) < c_ps,
        late,
        "C does not fall where the scenario needs it"
    );
    let expected = expected_exchange(peer, b, c_ps);
    let prog = program("exchange");
    let args = [peer.to_string(), b.to_string(), ps_arg(c_ps)];
    for cores in CORE_VARIANTS {
        let job = Run::exact(nranks, &prog).cores(cores).args(&args).run();
        job.assert_success();
        let got: BTreeMap<Key, u64> = times_by_rank_op(&job.stdout, "ex")
            .into_iter()
            .map(|((rank, op), t)| ((rank as u32, op_name(op)), t))
            .collect();
        assert_times(
            &format!("exchange {b} B with rank {peer}, C = {c_ps} ps, cores {cores:?}"),
            &expected,
            &got,
            &job.dump(),
        );
    }
}

// L(1 KiB, 0) = M(1024) ~ 160.5 ns; L(1 KiB, 3) ~ 17.05 us;
// L(64, 0) = M(64) ~ 10 ns; L(64, 3) ~ 16.8 us.

#[test]
fn exchange_eager_0_hops_short_compute() {
    exchange(2, 1, 1024, 5_000, false);
}

#[test]
fn exchange_eager_0_hops_long_compute() {
    exchange(2, 1, 1024, 10_000_000, true);
}

#[test]
fn exchange_eager_3_hops_short_compute() {
    exchange(13, 12, 1024, 5_000_000, false);
}

#[test]
fn exchange_eager_3_hops_long_compute() {
    exchange(13, 12, 1024, 50_000_000, true);
}

#[test]
fn exchange_rendezvous_0_hops_short_compute() {
    exchange(2, 1, 256 * 1024, 5_000, false);
}

#[test]
fn exchange_rendezvous_0_hops_long_compute() {
    exchange(2, 1, 256 * 1024, 10_000_000, true);
}

#[test]
fn exchange_rendezvous_3_hops_short_compute() {
    exchange(13, 12, 256 * 1024, 5_000_000, false);
}

#[test]
fn exchange_rendezvous_3_hops_long_compute() {
    exchange(13, 12, 256 * 1024, 50_000_000, true);
}
