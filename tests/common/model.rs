//! Reference model for the exact tests: the network equations of the VACED
//! paper (Eq. 3-5) with the `tianhe1a` parameters, written here from the
//! specification (DESIGN.md, "Virtual time rules") and NOT taken from the
//! crate, so that the tests check the crate against the equations.
//!
//! All times are integer picoseconds.
//!
//! * M(b) = b / Bmem and N(b) = b / Bnet, rounded to the nearest picosecond
//!   (ties up): (b * 1e12 * 2 + B) / (2 * B) in 128-bit integers.
//! * l(h) = latency + h * hop_latency = 15 us + h * 0.6 us.
//! * L(b, h) = N(b) + l(h) for h > 0, M(b) for h = 0 (Eq. 4).
//! * hop(x, y) = 0 if x / 12 == y / 12, 3 if x / 192 == y / 192, else 5 (Eq. 5).
//! * A message of b bytes sent at ts: tr = ts + M(b), ta = tr + L(b, h) (Eq. 3).
//! * Eager iff b <= 128 KiB; REQ and ACK are H = 64 bytes.

/// The `tianhe1a` preset with `cpu.scale = 0`: computation is free, so every
/// virtual time depends on the model alone.
pub const TARGET_TOML: &str = r#"name = "tianhe1a-scale0"
[cpu]
scale = 0.0
[network]
mem_bandwidth = "6.38 GB/s"
net_bandwidth = "4.16 GB/s"
latency = "15 us"
hop_latency = "0.6 us"
eager_limit = "128 KiB"
header_bytes = 64
[topology]
levels = [ { ranks = 12, hops = 0 }, { ranks = 192, hops = 3 } ]
default_hops = 5
"#;

/// Bmem, bytes per second ("6.38 GB/s", decimal GB).
pub const BMEM: u64 = 6_380_000_000;
/// Bnet, bytes per second ("4.16 GB/s").
pub const BNET: u64 = 4_160_000_000;
/// "15 us" in picoseconds.
pub const LATENCY: u64 = 15_000_000;
/// "0.6 us" in picoseconds.
pub const HOP_LATENCY: u64 = 600_000;
/// "128 KiB".
pub const EAGER_LIMIT: u64 = 128 * 1024;
/// Size of REQ and ACK messages.
pub const H: u64 = 64;

/// bytes / bandwidth in picoseconds, rounded to nearest (ties up).
pub fn xfer(bytes: u64, bytes_per_sec: u64) -> u64 {
    let num = bytes as u128 * 1_000_000_000_000u128;
    let bw = bytes_per_sec as u128;
    ((num * 2 + bw) / (bw * 2)) as u64
}

/// M(b) = b / Bmem.
pub fn m(b: u64) -> u64 {
    xfer(b, BMEM)
}

/// N(b) = b / Bnet.
pub fn n(b: u64) -> u64 {
    xfer(b, BNET)
}

/// l(h) = latency + h * hop_latency.
pub fn l(h: u32) -> u64 {
    LATENCY + h as u64 * HOP_LATENCY
}

/// L(b, h) of Eq. 4.
pub fn link(b: u64, h: u32) -> u64 {
    if h == 0 {
        m(b)
    } else {
        n(b) + l(h)
    }
}

/// hop(x, y) of Eq. 5 for the tianhe1a topology.
pub fn hop(x: u32, y: u32) -> u32 {
    if x / 12 == y / 12 {
        0
    } else if x / 192 == y / 192 {
        3
    } else {
        5
    }
}

pub fn is_eager(b: u64) -> bool {
    b <= EAGER_LIMIT
}

/// One rank's clock in the reference: its virtual time `t` and the end of its
/// last completed waiting interval (AWTend[num - 1] of Algorithm 2).
#[derive(Debug, Clone, Copy, Default)]
pub struct Clock {
    pub t: u64,
    last_wait_end: Option<u64>,
}

impl Clock {
    pub fn new() -> Clock {
        Clock::default()
    }

    /// MPIX_Vaced_compute(c) (and, at scale 0, nothing else advances tV).
    pub fn compute(&mut self, c: u64) {
        self.t += c;
    }

    /// Starting phase of a send (DATA of an eager message, or a REQ):
    /// tr = tV + M(b), ta = tr + L(b, h); the sender's tV becomes tr.
    /// Returns ta, the arrival time carried by the message.
    pub fn send(&mut self, b: u64, h: u32) -> u64 {
        let tr = self.t + m(b);
        self.t = tr;
        tr + link(b, h)
    }

    /// Algorithm 3, ttemp: the time at which a message arriving at `ta` is
    /// dealt with by this rank inside the waiting interval that began at `w`.
    /// * ta >= w: the rank is waiting when the message arrives: ttemp = ta.
    /// * ta < w: the message arrived while the rank was doing something else.
    ///   If no earlier waiting interval covers ta, ttemp = w (the start of
    ///   the first waiting interval after ta). The tests are built so that
    ///   ta never falls in an earlier interval [AWTstart, AWTend]; this
    ///   asserts it, so a scenario outside that regime cannot slip in
    ///   unnoticed.
    pub fn deal(&self, ta: u64, w: u64) -> u64 {
        if ta >= w {
            return ta;
        }
        if let Some(end) = self.last_wait_end {
            // Strictly after: a message arriving exactly at AWTend of an
            // earlier wait would be dealt with by that wait (Algorithm 2,
            // line 23), a case these tests stay clear of.
            assert!(
                ta > end,
                "test scenario error: ta = {ta} falls inside an earlier waiting interval (ended at {end})"
            );
        }
        w
    }

    /// Ends the waiting interval [w, end]: tV = AWTend = max(w, end).
    pub fn end_wait(&mut self, w: u64, end: u64) {
        let end = end.max(w);
        self.t = end;
        self.last_wait_end = Some(end);
    }
}

/// A blocking `MPI_Send` of `b` bytes from `s` to a peer `r` that is blocked
/// in the matching `MPI_Recv` (posted at the peer's current tV, so the peer
/// has not dealt with the message before: it is handled in this wait),
/// ranks `h` hops apart. Updates both clocks.
///
/// Eager (b <= 128 KiB):
///   s: ta = s.t + M(b) + L(b, h); s.t = s.t + M(b) (MPI_Send returns at tr).
///   r: waits from w = r.t; deals with DATA at ttemp = deal(ta, w) and
///      completes at ttemp + M(b) (copy out of the message buffer).
/// Rendezvous (b > 128 KiB):
///   s: REQ: ta_req = s.t + M(H) + L(H, h); s.t = tr; s waits from ws = s.t.
///   r: waits from wr = r.t; deals with REQ at t1 = deal(ta_req, wr) and sends
///      the ACK at t1 (inside its wait, so its own clock does not move):
///      ta_ack = t1 + M(H) + L(H, h).
///   s: deals with the ACK at t2 = deal(ta_ack, ws), sends DATA at t2:
///      ta_data = t2 + M(b) + L(b, h); MPI_Send completes at t2 + M(b).
///   r: deals with DATA at t3 = deal(ta_data, wr), completes at t3 + M(b).
pub fn blocking_transfer(s: &mut Clock, r: &mut Clock, b: u64, h: u32) {
    if is_eager(b) {
        let ta = s.send(b, h);
        let wr = r.t;
        let done = r.deal(ta, wr) + m(b);
        r.end_wait(wr, done);
    } else {
        rendezvous_transfer(s, r, b, h, r.t);
    }
}

/// The rendezvous protocol of a send started at `s.t` whose receive is
/// already posted and whose receiver's waiting interval begins at `wr`
/// (for an MPI_Recv, wr = r.t; for an MPI_Irecv followed by computation and
/// MPI_Wait, wr is the start of the MPI_Wait). The sender is blocked from the
/// end of its REQ-sending activity on. See [`blocking_transfer`].
pub fn rendezvous_transfer(s: &mut Clock, r: &mut Clock, b: u64, h: u32, wr: u64) {
    let ta_req = s.send(H, h);
    let ws = s.t;
    let t1 = r.deal(ta_req, wr);
    let ta_ack = t1 + m(H) + link(H, h);
    let t2 = s.deal(ta_ack, ws);
    let ta_data = t2 + m(b) + link(b, h);
    s.end_wait(ws, t2 + m(b));
    let t3 = r.deal(ta_data, wr);
    r.end_wait(wr, t3 + m(b));
}

/// Final virtual times of a token ring over `n` ranks: rank 0 sends a token of
/// `b` (eager) bytes to rank 1, each rank receives it from its left
/// neighbour and sends it on to its right neighbour, `laps` times around.
///
/// Derivation: rank i (i > 0) has been blocked in MPI_Recv since its previous
/// send (a whole lap earlier), so it deals with the token at its arrival
/// time. If the sender starts the send at ts, the receiver's MPI_Recv
/// completes at ts + M(b) + L(b, h) + M(b) and it sends at once from there.
/// So with T_0 = 0 and hop g_i = hop(i, (i+1) % n):
///   T_{k+1} = T_k + 2 M(b) + L(b, g_k)     (T_k = start of the k-th hop's send)
/// A lap lasts P = sum_i (2 M(b) + L(b, g_i)). Rank i > 0 last sends at
/// (laps - 1) P + T_i and its MPI_Send returns M(b) later; rank 0 ends
/// with its last MPI_Recv at laps * P.
pub fn token_ring(n: u32, laps: u32, b: u64) -> Vec<u64> {
    assert!(is_eager(b));
    let step = |i: u32| 2 * m(b) + link(b, hop(i, (i + 1) % n));
    let lap: u64 = (0..n).map(step).sum();
    let mut out = vec![laps as u64 * lap; n as usize];
    let mut t = (laps as u64 - 1) * lap;
    for i in 1..n {
        t += step(i - 1);
        out[i as usize] = t + m(b);
    }
    out
}

/// Final virtual times of a shift ring: `rounds` times, every rank calls
/// MPI_Sendrecv, sending `b` (eager) bytes to its right neighbour and
/// receiving from its left one.
///
/// Derivation for rank i in a round that starts at t_i (MPI_Sendrecv =
/// start the send, post the receive, wait for both):
///   send: tr = t_i + M(b); its wait begins at w_i = t_i + M(b) (the eager
///         send is complete at tr <= w_i);
///   the data from the left neighbour j = i - 1 arrives at
///         ta = t_j + M(b) + L(b, hop(j, i));
///   it is dealt with at ttemp = deal(ta, w_i) (ta itself if ta >= w_i, else
///   w_i, when it came in during the send's copy), and the receive completes
///   at ttemp + M(b), so t_i' = max(ta, w_i) + M(b).
pub fn shift_ring(n: u32, rounds: u32, b: u64) -> Vec<u64> {
    assert!(is_eager(b));
    let mut clocks = vec![Clock::new(); n as usize];
    for _ in 0..rounds {
        let starts: Vec<u64> = clocks.iter().map(|c| c.t).collect();
        for i in 0..n {
            let j = (i + n - 1) % n;
            let ta = starts[j as usize] + m(b) + link(b, hop(j, i));
            let c = &mut clocks[i as usize];
            c.t += m(b);
            let w = c.t;
            let done = c.deal(ta, w) + m(b);
            c.end_wait(w, done);
        }
    }
    clocks.iter().map(|c| c.t).collect()
}

#[test]
fn reference_model_sanity() {
    // 8 B / 6.38 GB/s = 1.2539 ns; 64 B / 4.16 GB/s = 15.3846 ns.
    assert_eq!(m(8), 1254);
    assert_eq!(n(64), 15385);
    assert_eq!(l(3), 16_800_000);
    assert_eq!(hop(0, 11), 0);
    assert_eq!(hop(0, 12), 3);
    assert_eq!(hop(191, 0), 3);
    assert_eq!(hop(0, 192), 5);
    assert!(is_eager(131_072) && !is_eager(131_073));
}

/// Clocks of ranks on one target node, advanced message by message with
/// the model's equations (eager messages only). A message of b bytes sent
/// at t arrives at ta = t + M(b) + L(b, 0) = t + 2 M(b). A receive posted at
/// p and waited for from w (Algorithm 3 and the unexpected-queue rule):
/// * ta >= w: dealt with on arrival, complete at ta + M(b);
/// * ta inside an earlier waiting interval of the receiver: dealt with then
///   (into the unexpected queue if the receive was not posted yet): the
///   receive completes at max(ta, p) + M(b);
/// * otherwise: dealt with at w, complete at w + M(b);
///
/// and the wait ends at the later of w and the completion.
pub struct Node {
    /// Each rank's clock.
    pub t: Vec<u64>,
    waits: Vec<Vec<(u64, u64)>>,
}

impl Node {
    pub fn new(n: usize, t0: u64) -> Node {
        Node {
            t: vec![t0; n],
            waits: vec![Vec::new(); n],
        }
    }
    fn arrive(&self, r: usize, ta: u64, p: u64, w: u64, b: u64) -> u64 {
        let done = if ta >= w {
            ta + m(b)
        } else if self.waits[r].iter().any(|&(s, e)| s <= ta && ta <= e) {
            ta.max(p) + m(b)
        } else {
            w + m(b)
        };
        done.max(w)
    }
    /// MPIC_Send from `s` to `r`, which is in the matching blocking receive.
    pub fn send(&mut self, s: usize, r: usize, b: u64) {
        let ta = self.t[s] + m(b) + link(b, 0);
        self.t[s] += m(b);
        let w = self.t[r];
        let done = self.arrive(r, ta, w, w, b);
        self.waits[r].push((w, done));
        self.t[r] = done;
    }
    /// MPIC_Sendrecv between `a` and `b`: the receive posted, the send
    /// started (complete at its copy), then the receive waited for.
    pub fn exchange(&mut self, a: usize, b: usize, n: u64) {
        self.exchange_sizes(a, b, n, n);
    }
    /// [`Node::exchange`] in which `a` sends `na` bytes and `b` sends `nb`.
    pub fn exchange_sizes(&mut self, a: usize, b: usize, na: u64, nb: u64) {
        let (pa, pb) = (self.t[a], self.t[b]);
        let (to_b, to_a) = (pa + m(na) + link(na, 0), pb + m(nb) + link(nb, 0));
        let da = self.arrive(a, to_a, pa, pa + m(na), nb);
        let db = self.arrive(b, to_b, pb, pb + m(nb), na);
        self.waits[a].push((pa + m(na), da));
        self.waits[b].push((pb + m(nb), db));
        self.t[a] = da;
        self.t[b] = db;
    }

    // ---- steps of MPICH 4.0.2's collectives on 4 ranks (0..4) ----------

    /// Recursive doubling: exchanges of `bytes[0]` between ranks 1 apart,
    /// then of `bytes[1]` between ranks 2 apart.
    pub fn doubling4(&mut self, bytes: [u64; 2]) {
        for (d, b) in [(1, bytes[0]), (2, bytes[1])] {
            self.step4(d, |_| b);
        }
    }

    /// One exchange step between ranks `d` apart, rank r sending `out(r)`.
    fn step4(&mut self, d: usize, out: impl Fn(usize) -> u64) {
        let pairs = if d == 1 {
            [(0, 1), (2, 3)]
        } else {
            [(0, 2), (1, 3)]
        };
        for (a, b) in pairs {
            self.exchange_sizes(a, b, out(a), out(b));
        }
    }

    /// The context-id agreement over 4 ranks by MPICH's reduce-scatter +
    /// allgather allreduce: 65 ints (the 64-int mask and its flag int),
    /// pieces of 17, 16, 16 and 16 ints (the first count % 4 pieces get one
    /// more); recursive halving (partners 1 apart, then 2), then recursive
    /// doubling back (2 apart, then 1). A rank sends the half it gives
    /// away, then the quarter, then the quarter it kept, then its half.
    pub fn mask_allreduce4(&mut self) {
        let piece = [68, 64, 64, 64];
        let lower = piece[0] + piece[1];
        let upper = piece[2] + piece[3];
        self.step4(1, |r| if r % 2 == 0 { upper } else { lower });
        self.step4(2, |r| [piece[1], piece[3], piece[0], piece[2]][r]);
        self.step4(2, |r| [piece[0], piece[2], piece[1], piece[3]][r]);
        self.step4(1, |r| if r % 2 == 0 { lower } else { upper });
    }

    /// MPICH 4.0.2's sequence number of a new communicator of 4 ranks
    /// (`init_comm_seq`): a binomial broadcast of 4 bytes from rank 0: to
    /// 2, then to 1; 2 to 3.
    pub fn seq_bcast4(&mut self) {
        self.send(0, 2, 4);
        self.send(0, 1, 4);
        self.send(2, 3, 4);
    }
}
