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
use common::{assert_times, program, ps_arg, times_by_rank_op, Run, CORE_VARIANTS};
use std::collections::BTreeMap;

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

/// A late-receiver scenario.
struct Late {
    nranks: u32,
    peer: u32,
    /// "send" or "ssend"
    mode: &'static str,
    bytes: u64,
    compute_ps: u64,
    /// The message (the REQ for rendezvous) arrives while the receiver is
    /// still computing (else when it already waits).
    late: bool,
}

impl Late {
    /// The expected times, after checking the scenario is what it says.
    fn expected(&self) -> BTreeMap<Key, u64> {
        let h = model::hop(0, self.peer);
        let first = if model::is_eager(self.bytes) && self.mode == "send" {
            m(self.bytes) + link(self.bytes, h)
        } else {
            m(H) + link(H, h)
        };
        assert_eq!(
            first < self.compute_ps,
            self.late,
            "C does not fall where the scenario needs it"
        );
        expected_late_receiver(self.peer, self.mode == "ssend", self.bytes, self.compute_ps)
    }

    fn run(&self) {
        let expected = self.expected();
        let prog = program("late_receiver");
        let args = [
            self.peer.to_string(),
            self.mode.to_string(),
            self.bytes.to_string(),
            ps_arg(self.compute_ps),
        ];
        for cores in CORE_VARIANTS {
            let job = Run::exact(self.nranks, &prog)
                .cores(cores)
                .args(&args)
                .run();
            job.assert_success();
            let got: BTreeMap<Key, u64> = times_by_rank_op(&job.stdout, "rc")
                .into_iter()
                .map(|((rank, op), t)| ((rank as u32, op_name(op)), t))
                .collect();
            assert_times(
                &format!(
                    "late receiver {} {} B to rank {}, C = {} ps, cores {cores:?}",
                    self.mode, self.bytes, self.peer, self.compute_ps
                ),
                &expected,
                &got,
                &job.dump(),
            );
        }
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

/// REQ arrives at M(64) + N(64) + l(3) ~ 16.8 us, the receiver computes 100 us.
const RNDV_ACK_AT_WAIT_3_HOPS: Late = Late {
    nranks: 13,
    peer: 12,
    mode: "send",
    bytes: 256 * 1024,
    compute_ps: 100_000_000,
    late: true,
};
/// C = 5 us, before the REQ arrives: the receiver is already waiting.
const RNDV_RECEIVER_WAITING_3_HOPS: Late = Late {
    compute_ps: 5_000_000,
    late: false,
    ..RNDV_ACK_AT_WAIT_3_HOPS
};
/// One byte over the eager limit, same node: the REQ arrives after
/// 2 M(64) ~ 20 ns, the receiver computes 1 us.
const RNDV_ACK_AT_WAIT_0_HOPS: Late = Late {
    nranks: 2,
    peer: 1,
    mode: "send",
    bytes: 131_073,
    compute_ps: 1_000_000,
    late: true,
};
/// MPI_Ssend of 8 B uses REQ/ACK/DATA: its timing is the rendezvous one.
const SSEND_SMALL_ACK_AT_WAIT: Late = Late {
    mode: "ssend",
    bytes: 8,
    ..RNDV_ACK_AT_WAIT_3_HOPS
};
/// Eager DATA that came in while the receiver computed: dealt with at the
/// start of its wait.
const EAGER_ARRIVED_WHILE_COMPUTING: Late = Late {
    bytes: 1024,
    ..RNDV_ACK_AT_WAIT_3_HOPS
};

#[test]
fn rendezvous_ack_at_start_of_wait_3_hops() {
    RNDV_ACK_AT_WAIT_3_HOPS.run();
}

#[test]
fn rendezvous_receiver_waiting_3_hops() {
    RNDV_RECEIVER_WAITING_3_HOPS.run();
}

#[test]
fn rendezvous_ack_at_start_of_wait_0_hops() {
    RNDV_ACK_AT_WAIT_0_HOPS.run();
}

#[test]
fn ssend_small_is_rendezvous() {
    SSEND_SMALL_ACK_AT_WAIT.run();
}

#[test]
fn eager_data_arrived_while_computing() {
    EAGER_ARRIVED_WHILE_COMPUTING.run();
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

/// An exchange scenario. `late`: the peer's first message (DATA or REQ)
/// arrives while this rank is still computing (C > L(first, h)), else when it
/// already waits.
struct Exchange {
    nranks: u32,
    peer: u32,
    bytes: u64,
    compute_ps: u64,
    late: bool,
}

impl Exchange {
    fn expected(&self) -> BTreeMap<Key, u64> {
        let first = if model::is_eager(self.bytes) {
            self.bytes
        } else {
            H
        };
        assert_eq!(
            link(first, model::hop(0, self.peer)) < self.compute_ps,
            self.late,
            "C does not fall where the scenario needs it"
        );
        expected_exchange(self.peer, self.bytes, self.compute_ps)
    }

    fn run(&self) {
        let expected = self.expected();
        let prog = program("exchange");
        let args = [
            self.peer.to_string(),
            self.bytes.to_string(),
            ps_arg(self.compute_ps),
        ];
        for cores in CORE_VARIANTS {
            let job = Run::exact(self.nranks, &prog)
                .cores(cores)
                .args(&args)
                .run();
            job.assert_success();
            let got: BTreeMap<Key, u64> = times_by_rank_op(&job.stdout, "ex")
                .into_iter()
                .map(|((rank, op), t)| ((rank as u32, op_name(op)), t))
                .collect();
            assert_times(
                &format!(
                    "exchange {} B with rank {}, C = {} ps, cores {cores:?}",
                    self.bytes, self.peer, self.compute_ps
                ),
                &expected,
                &got,
                &job.dump(),
            );
        }
    }
}

// L(1 KiB, 0) = M(1024) ~ 160.5 ns; L(1 KiB, 3) ~ 17.05 us;
// L(64, 0) = M(64) ~ 10 ns; L(64, 3) ~ 16.8 us.
const EX_EAGER_0_SHORT: Exchange = Exchange {
    nranks: 2,
    peer: 1,
    bytes: 1024,
    compute_ps: 5_000,
    late: false,
};
const EX_EAGER_0_LONG: Exchange = Exchange {
    compute_ps: 10_000_000,
    late: true,
    ..EX_EAGER_0_SHORT
};
const EX_EAGER_3_SHORT: Exchange = Exchange {
    nranks: 13,
    peer: 12,
    bytes: 1024,
    compute_ps: 5_000_000,
    late: false,
};
const EX_EAGER_3_LONG: Exchange = Exchange {
    compute_ps: 50_000_000,
    late: true,
    ..EX_EAGER_3_SHORT
};
const EX_RNDV_0_SHORT: Exchange = Exchange {
    bytes: 256 * 1024,
    ..EX_EAGER_0_SHORT
};
const EX_RNDV_0_LONG: Exchange = Exchange {
    bytes: 256 * 1024,
    ..EX_EAGER_0_LONG
};
const EX_RNDV_3_SHORT: Exchange = Exchange {
    bytes: 256 * 1024,
    ..EX_EAGER_3_SHORT
};
const EX_RNDV_3_LONG: Exchange = Exchange {
    bytes: 256 * 1024,
    ..EX_EAGER_3_LONG
};

#[test]
fn exchange_eager_0_hops_short_compute() {
    EX_EAGER_0_SHORT.run();
}

#[test]
fn exchange_eager_0_hops_long_compute() {
    EX_EAGER_0_LONG.run();
}

#[test]
fn exchange_eager_3_hops_short_compute() {
    EX_EAGER_3_SHORT.run();
}

#[test]
fn exchange_eager_3_hops_long_compute() {
    EX_EAGER_3_LONG.run();
}

#[test]
fn exchange_rendezvous_0_hops_short_compute() {
    EX_RNDV_0_SHORT.run();
}

#[test]
fn exchange_rendezvous_0_hops_long_compute() {
    EX_RNDV_0_LONG.run();
}

#[test]
fn exchange_rendezvous_3_hops_short_compute() {
    EX_RNDV_3_SHORT.run();
}

#[test]
fn exchange_rendezvous_3_hops_long_compute() {
    EX_RNDV_3_LONG.run();
}

// ---------------------------------------------------------------------------
// The derivations alone (no job): every scenario's expected times agree with
// the closed forms, and each scenario is in the regime its name says.
// ---------------------------------------------------------------------------

#[test]
fn reference_derivations() {
    for peer in [1, 12, 192] {
        let e = expected_pingpong(peer);
        assert_eq!(e.len(), SIZES.len() * REPS as usize * 4);
    }
    // Hand-computed first round trips of 8 B: M(8) = 1254 ps.
    // 0 hops: E = 3 M(8) = 3762, 2E = 7524.
    // 3 hops: E = 1254 + (N(8) = 1923) + 16_800_000 + 1254 = 16_804_431.
    // 5 hops: E = 1254 + 1923 + 18_000_000 + 1254 = 18_004_431.
    assert_eq!(expected_pingpong(1)[&(0, 8, 0, "recv")], 7524);
    assert_eq!(expected_pingpong(1)[&(1, 8, 0, "send")], 3762 + 1254);
    assert_eq!(expected_pingpong(12)[&(0, 8, 0, "recv")], 33_608_862);
    assert_eq!(expected_pingpong(192)[&(0, 8, 0, "recv")], 36_008_862);
    for s in [
        &RNDV_ACK_AT_WAIT_3_HOPS,
        &RNDV_RECEIVER_WAITING_3_HOPS,
        &RNDV_ACK_AT_WAIT_0_HOPS,
        &SSEND_SMALL_ACK_AT_WAIT,
        &EAGER_ARRIVED_WHILE_COMPUTING,
    ] {
        let e = s.expected();
        assert_eq!(e[&(s.peer, "compute")], s.compute_ps);
        // The wait ends after the computation and after the send.
        assert!(e[&(s.peer, "wait")] > s.compute_ps);
    }
    // A hand-computed value: the 8-byte Ssend, 3 hops, receiver computing
    // 100 us. M(64) = 10031, L(64, 3) = 15385 + 16_800_000 = 16_815_385,
    // M(8) = 1254, L(8, 3) = N(8) + l(3) = 1923 + 16_800_000 = 16_801_923.
    // ACK sent at C = 100_000_000, arrives 10031 + 16_815_385 later =
    // 116_825_416; rank 0's send returns at + M(8) = 116_826_670; the
    // DATA arrives at 116_826_670 + 16_801_923 = 133_628_593 and is copied
    // out at + 1254 = 133_629_847.
    let e = SSEND_SMALL_ACK_AT_WAIT.expected();
    assert_eq!(e[&(0, "send")], 116_826_670);
    assert_eq!(e[&(12, "wait")], 133_629_847);
    for s in [
        &EX_EAGER_0_SHORT,
        &EX_EAGER_0_LONG,
        &EX_EAGER_3_SHORT,
        &EX_EAGER_3_LONG,
        &EX_RNDV_0_SHORT,
        &EX_RNDV_0_LONG,
        &EX_RNDV_3_SHORT,
        &EX_RNDV_3_LONG,
    ] {
        let e = s.expected();
        assert_eq!(e[&(0, "waitall")], e[&(s.peer, "waitall")]);
    }
}

/// MPI_Sendrecv posts its receive before it starts its send, as MPICH's
/// `MPIR_Sendrecv_impl` does (`sendrecv_posted`, 2 ranks of one node,
/// 4-byte messages, M = M(4), L(4, 0) = M): rank 0 sends tag 2 at 0
/// (arriving at 2M, while rank 1 waits in its receive of tag 1: queued
/// unexpected), computes 1 us and sends tag 1 at C = 1 us + M (arriving at
/// C + 2M, copied out by rank 1 at C + 3M). Rank 1's MPI_Sendrecv then
/// posts its receive of tag 2 at C + 3M: taken from the unexpected queue,
/// complete at C + 4M, when the copy of its own send (tag 3) ends too. That
/// send arrives at C + 5M, and rank 0, waiting since C + M, has it by
/// C + 6M. (Had the send been started first, the receive would have been
/// posted only after its copy: C + 5M.)
#[test]
fn sendrecv_posts_its_receive_first() {
    let c = 1_000_000 + m(4);
    let want = BTreeMap::from([((0u32, "end"), c + 6 * m(4)), ((1u32, "end"), c + 4 * m(4))]);
    assert_eq!(link(4, 0), m(4));
    let prog = program("sendrecv_posted");
    for cores in CORE_VARIANTS {
        let job = Run::exact(2, &prog).cores(cores).run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
        let t = times_by_rank_op(&job.stdout, "t");
        for (&(r, op), &w) in &want {
            let got = t[&(i64::from(r), op.to_string())];
            assert_eq!(got, w, "cores {cores:?} rank {r} {op}\n{}", job.dump());
        }
    }
}
