//! The point-to-point engine without processes: ranks are threads over an
//! in-memory link, and host timing is perturbed on purpose. Expected times are
//! derived from the model's equations (tianhe1a, scale 0).
use super::testing::{self, late_send, m, rbuf, run, sbuf, MemLink, US};
use super::{Core, SendMode};
use crate::model::{transfer_time, VTime};
use std::time::Duration;

fn send(c: &mut Core<MemLink>, data: &[u8], dest: u32, mode: SendMode) {
    let r = c.isend(sbuf(data), dest, 0, 0, mode);
    c.wait_all(&[r]);
    c.free(r);
}
fn recv(c: &mut Core<MemLink>, buf: &mut [u8], src: u32) {
    let r = c.irecv(rbuf(buf), Some(src), None, 0);
    c.wait_all(&[r]);
    assert!(!c.status(r).truncated);
    c.free(r);
}

// M(b) = b/Bmem (testing::m), N(b) = b/Bnet, l(h) = 15 us + h * 0.6 us
// (tianhe1a).
fn l_(b: u64, h: u64) -> u64 {
    if h == 0 {
        m(b)
    } else {
        transfer_time(b, 4_160_000_000).ps() + 15_000_000 + h * 600_000
    }
}

fn pingpong(size: usize, peer: u32, n: u32, max_record: usize, delay_ms: u64) -> Vec<u64> {
    run(n, max_record, move |c| {
        let me = c.rank();
        let data: Vec<u8> = (0..size).map(|i| (i * 31 + me as usize) as u8).collect();
        let mut buf = vec![0u8; size];
        if me == 0 {
            std::thread::sleep(Duration::from_millis(delay_ms));
            send(c, &data, peer, SendMode::Standard);
            recv(c, &mut buf, peer);
            assert!(buf
                .iter()
                .enumerate()
                .all(|(i, &b)| b == (i * 31 + peer as usize) as u8));
        } else if me == peer {
            recv(c, &mut buf, 0);
            assert!(buf.iter().enumerate().all(|(i, &b)| b == (i * 31) as u8));
            std::thread::sleep(Duration::from_millis(delay_ms));
            send(c, &data, 0, SendMode::Standard);
        }
    })
}

#[test]
fn eager_pingpong_matches_the_equations() {
    for (size, peer, h) in [
        (8u64, 1u32, 0u64),
        (1024, 12, 3),
        (131072, 1, 0),
        (131072, 12, 3),
    ] {
        // One way: sender's copy M, the link L, the receiver's copy M.
        let e = 2 * m(size) + l_(size, h);
        for max_record in [1 << 20, 4096] {
            let t = pingpong(size as usize, peer, 13, max_record, 0);
            assert_eq!(t[0], 2 * e, "size {size} hops {h}");
            assert_eq!(t[peer as usize], e + m(size), "size {size} hops {h}");
        }
    }
}

#[test]
fn rendezvous_pingpong_matches_the_equations() {
    let hb = 64;
    for (size, peer, h) in [(131073u64, 1u32, 0u64), (4 << 20, 12, 3)] {
        // REQ there and ACK back, then DATA: R = 2(M(H)+L(H)) + 2M(b) + L(b).
        let hs = m(hb) + l_(hb, h);
        let r = 2 * hs + 2 * m(size) + l_(size, h);
        for delay in [0, 30] {
            let t = pingpong(size as usize, peer, 13, 1 << 16, delay);
            assert_eq!(t[0], 2 * r, "size {size} hops {h} delay {delay}");
            // The responder's send completes when it has handled the ACK and
            // copied the data out: R + 2(M(H)+L(H)) + M(b).
            assert_eq!(t[peer as usize], r + 2 * hs + m(size));
        }
    }
}

#[test]
fn req_arriving_while_receiver_computes_is_answered_at_its_next_wait() {
    let size = 1 << 20;
    let c_ps = 1_000_000_000u64; // 1 ms of computation, far beyond the REQ's arrival
    for delay in [0u64, 40] {
        let t = run(2, 1 << 16, move |c| {
            let mut buf = vec![0u8; size];
            if c.rank() == 0 {
                std::thread::sleep(Duration::from_millis(delay));
                send(c, &buf, 1, SendMode::Standard);
            } else {
                let r = c.irecv(rbuf(&mut buf), Some(0), None, 0);
                c.compute(VTime::from_ps(c_ps));
                c.wait_all(&[r]);
                c.free(r);
            }
        });
        let hs = m(64) + l_(64, 0);
        // ACK leaves at the start of the wait (t = C).
        let ack_arrives = c_ps + hs;
        assert_eq!(t[0], ack_arrives + m(size as u64), "delay {delay}");
        assert_eq!(t[1], ack_arrives + 2 * m(size as u64) + l_(size as u64, 0));
    }
}

#[test]
fn message_late_on_the_host_is_handled_inside_the_wait_that_covered_it() {
    // Rank 1 waits for A (from rank 0, arrives ~30 us); B from rank 2 arrives
    // in virtual time during that wait (~16 us) but on the host only later.
    // Waiting for B afterwards must complete at ta(B) + M, not at the start
    // of the second wait (Fig. 4c of the paper).
    let t = run(14, 1 << 16, |c| {
        let x = [7u8; 8];
        match c.rank() {
            0 => {
                c.compute(VTime::from_ps(20_000_000));
                send(c, &x, 1, SendMode::Standard);
            }
            13 => {
                std::thread::sleep(Duration::from_millis(60));
                send(c, &x, 1, SendMode::Standard);
            }
            1 => {
                let mut a = [0u8; 8];
                let mut b = [0u8; 8];
                let ra = c.irecv(rbuf(&mut a), Some(0), None, 0);
                let rb = c.irecv(rbuf(&mut b), Some(13), None, 0);
                c.wait_all(&[ra]);
                c.compute(VTime::from_ps(100_000_000));
                c.wait_all(&[rb]);
                c.free(ra);
                c.free(rb);
            }
            _ => {}
        }
    });
    let ta_b = m(8) + l_(8, 3); // rank 13 is on another node, same board
    let ta_a = 20_000_000 + m(8) + l_(8, 0);
    assert!(ta_b < ta_a);
    // Rank 1: wait for A ends at ta_a + M; then 100 us of computation; B was
    // handled during the first wait at ta_b, so it is complete already.
    assert_eq!(t[1], ta_a + m(8) + 100_000_000);
}

#[test]
fn unexpected_eager_is_received_in_the_starting_phase() {
    // Rank 1 computes long enough for the message to arrive, then does a
    // zero-length test (moving it to the unexpected queue), then receives.
    let t = run(2, 1 << 16, |c| {
        let x = [1u8; 100];
        if c.rank() == 0 {
            send(c, &x, 1, SendMode::Standard);
        } else {
            let mut y = [0u8; 100];
            c.compute(VTime::from_ps(50_000_000));
            // Make sure the message is on the host before probing.
            std::thread::sleep(Duration::from_millis(30));
            let st = c.iprobe(Some(0), None, 0).expect("message is there");
            assert_eq!(st.bytes, 100);
            recv(c, &mut y, 0);
            assert_eq!(y, x);
        }
    });
    assert_eq!(t[1], 50_000_000 + m(100));
}

#[test]
fn nonovertaking_order_holds_with_wildcard_tags() {
    let t = run(2, 1 << 16, |c| {
        if c.rank() == 0 {
            for k in 0..20u8 {
                let r = c.isend(sbuf(&[k]), 1, k as i32, 0, SendMode::Standard);
                c.wait_all(&[r]);
                c.free(r);
            }
        } else {
            for k in 0..20u8 {
                let mut y = [255u8];
                let r = c.irecv(rbuf(&mut y), Some(0), None, 0);
                c.wait_all(&[r]);
                assert_eq!(c.status(r).tag, k as i32);
                assert_eq!(y[0], k);
                c.free(r);
            }
        }
    });
    assert!(t[1] > 0);
}

#[test]
fn synchronous_send_uses_the_rendezvous_even_when_small() {
    let t = run(2, 1 << 16, |c| {
        let mut x = [3u8; 8];
        if c.rank() == 0 {
            send(c, &x, 1, SendMode::Synchronous);
        } else {
            recv(c, &mut x, 0);
        }
    });
    let hs = m(64) + l_(64, 0);
    assert_eq!(t[0], 2 * hs + m(8));
    assert_eq!(t[1], 2 * hs + 2 * m(8) + l_(8, 0));
}

#[test]
fn truncation_and_cancel() {
    run(2, 1 << 16, |c| {
        if c.rank() == 0 {
            send(c, &[9u8; 16], 1, SendMode::Standard);
        } else {
            let mut small = [0u8; 4];
            let mut other = [0u8; 4];
            let rc = c.irecv(rbuf(&mut other), Some(0), Some(77), 0);
            assert!(c.cancel(rc));
            assert!(c.status(rc).cancelled);
            c.free(rc);
            let r = c.irecv(rbuf(&mut small), Some(0), None, 0);
            c.wait_all(&[r]);
            let st = c.status(r);
            assert!(st.truncated);
            assert_eq!(st.bytes, 4);
            assert_eq!(small, [9u8; 4]);
            c.free(r);
        }
    });
}

#[test]
fn buffered_send_completes_at_once_and_delivers_later() {
    let t = run(2, 1 << 16, |c| {
        let size = 200_000; // rendezvous in the background
        if c.rank() == 0 {
            let data = vec![5u8; size];
            let r = c.isend(sbuf(&data), 1, 0, 0, SendMode::Buffered);
            assert!(c.is_done(r));
            c.free(r);
            drop(data);
            c.drain_background();
        } else {
            let mut y = vec![0u8; size];
            recv(c, &mut y, 0);
            assert!(y.iter().all(|&b| b == 5));
        }
    });
    // Sender: the copy into the buffer, then the REQ's tr.
    assert_eq!(t[0], m(200_000) + m(64));
}

#[test]
fn symmetric_rendezvous_waiting_on_the_send_first_does_not_deadlock() {
    // REQ: ts 0, tr M(H), ta 2M(H) (same node: L = M). ACK at 2M(H)
    // arrives 4M(H); DATA leaves at 4M(H) (send done 4M(H) + M(b)),
    // arrives 4M(H) + 2M(b), received at 4M(H) + 3M(b).
    let expect = 4 * m(64) + 3 * m(testing::SYMMETRIC_BYTES as u64);
    for (delay, t) in [
        (
            0,
            run(2, 1 << 16, testing::symmetric_rendezvous::<MemLink, 0>),
        ),
        (
            25,
            run(2, 1 << 16, testing::symmetric_rendezvous::<MemLink, 25>),
        ),
    ] {
        assert_eq!(t, vec![expect, expect], "delay {delay}");
    }
}

#[test]
fn synchronous_send_to_self_then_receive() {
    let t = run(1, 1 << 16, |c| {
        let a = [42u8; 8];
        let mut b = [0u8; 8];
        let rs = c.isend(sbuf(&a), 0, 12, 0, SendMode::Synchronous);
        recv(c, &mut b, 0);
        c.wait_all(&[rs]);
        c.free(rs);
        assert_eq!(b, a);
    });
    // A message to oneself is neither copied out nor carried: REQ, ACK and
    // DATA all leave and arrive at 0; the receive copies the data in once.
    assert_eq!(t[0], m(8));
}

#[test]
fn unexpected_message_gives_the_same_times_whenever_the_host_delivers_it() {
    // Rank 1 waits for rank 0 (a long wait in virtual time); rank 2's message
    // arrives (virtually) during that wait; then rank 1 posts the receive for
    // it, sends, and waits for both. Whether the host delivered rank 2's
    // message during the first wait or only later must not matter.
    let mut outcomes = Vec::new();
    for (d0, d2) in [(40u64, 0u64), (0, 40)] {
        let t = run(3, 1 << 16, move |c| {
            let x = [5u8; 1000];
            let mut y = [0u8; 1000];
            match c.rank() {
                0 => {
                    std::thread::sleep(Duration::from_millis(d0));
                    c.compute(VTime::from_ps(1_000_000));
                    send(c, &x, 1, SendMode::Standard);
                }
                2 => {
                    std::thread::sleep(Duration::from_millis(d2));
                    send(c, &x, 1, SendMode::Standard);
                }
                _ => {
                    recv(c, &mut y, 0);
                    let r = c.irecv(rbuf(&mut y), Some(2), None, 0);
                    let s = c.isend(sbuf(&x), 0, 1, 0, SendMode::Standard);
                    c.wait_all(&[r, s]);
                    c.free(r);
                    c.free(s);
                }
            }
        });
        outcomes.push(t[1]);
    }
    // First wait ends at 1 us + 3M(1000); the receive from rank 2 completes
    // at its posting + M(1000); the send (eager) completes at its tr.
    let t1 = 1_000_000 + 3 * m(1000);
    assert_eq!(outcomes, vec![t1 + m(1000), t1 + m(1000)]);
}

// ---- conservative decisions --------------------------------------------------

#[test]
fn wildcard_receive_takes_earliest_arrival_not_first_on_host() {
    let t = run(3, 1 << 16, testing::wildcard_first_arrival);
    assert_eq!(t[0], 20 * US + 3 * m(8));
}

#[test]
fn waitany_and_test_decide_by_virtual_time() {
    let t = run(4, 1 << 16, testing::waitany_and_test);
    assert_eq!(t[0], 55 * US);
}

#[test]
fn probe_any_source_and_iprobe_decide_by_virtual_time() {
    // Rank 1 sends tag 7 at 10 us (60 ms late on the host), rank 2 tag 8 at
    // 5 us. A blocking MPI_Probe(ANY_SOURCE) sees rank 2's first (earliest
    // arrival), whatever the host order; an MPI_Iprobe at 8 us sees rank 2's
    // only; at 12 us it sees rank 1's (rank 2's taken meanwhile).
    run(3, 1 << 16, |c| match c.rank() {
        0 => {
            let st = c.iprobe(None, None, 0);
            assert_eq!(st, None, "nothing arrives by 0");
            let st = c.probe(None, None, 0);
            assert_eq!((st.source, st.tag), (2, 8));
            let mut b = [0u8; 8];
            let now = c.vtime().ps();
            c.compute(VTime::from_ps(8 * US - now));
            let st = c.iprobe(None, None, 0).expect("rank 2's message by 8 us");
            assert_eq!(st.source, 2);
            recv(c, &mut b, 2);
            let now = c.vtime().ps();
            c.compute(VTime::from_ps(12 * US - now));
            let st = c.iprobe(None, None, 0).expect("rank 1's message by 12 us");
            assert_eq!((st.source, st.tag), (1, 7));
            recv(c, &mut b, 1);
        }
        1 => late_send(c, 0, 7, 10, 60),
        _ => late_send(c, 0, 8, 5, 0),
    });
}

#[test]
fn receive_behind_undecided_wildcard_keeps_per_source_order() {
    // Rank 0 posts W = (ANY_SOURCE, tag 5) then R = (rank 2, any tag). Rank 2
    // sends tag 5 at 1 us then tag 6 later; rank 1 sends tag 5 at 0 us, but
    // 60 ms late on the host. W takes rank 1's (earliest arrival), so R must
    // take rank 2's first message (tag 5), not its second, although the
    // second is on the host long before W can be decided.
    run(3, 1 << 16, |c| match c.rank() {
        0 => {
            let (mut a, mut b, mut d) = ([0u8; 8], [0u8; 8], [0u8; 8]);
            let w = c.irecv(rbuf(&mut a), None, Some(5), 0);
            let r = c.irecv(rbuf(&mut b), Some(2), None, 0);
            c.wait_all(&[r, w]);
            assert_eq!((c.status(w).source, c.status(w).tag), (1, 5));
            assert_eq!((c.status(r).source, c.status(r).tag), (2, 5));
            let x = c.irecv(rbuf(&mut d), Some(2), None, 0);
            c.wait_all(&[x]);
            assert_eq!(c.status(x).tag, 6);
            for q in [w, r, x] {
                c.free(q);
            }
        }
        1 => late_send(c, 0, 5, 0, 60),
        _ => {
            late_send(c, 0, 5, 1, 0);
            late_send(c, 0, 6, 1, 0);
        }
    });
}

#[test]
fn waitany_over_rendezvous_receives() {
    // 200 KB messages (rendezvous: REQ, ACK, DATA; hop 0 so L(b, 0) = M(b)).
    // Rank 1 starts its send at 10 us (60 ms late on the host), rank 2 at
    // 20 us. Rank 0 waits from 0: rank 1's REQ arrives at 10 us + 2 M(H), the
    // ACK reaches rank 1 at 10 us + 4 M(H), the DATA leaves then and is
    // received at 10 us + 4 M(H) + 3 M(b): Waitany returns rank 1's first.
    const B: usize = 200_000;
    let t = run(3, 1 << 16, |c| match c.rank() {
        0 => {
            let mut a = vec![0u8; B];
            let mut b = vec![0u8; B];
            let r1 = c.irecv(rbuf(&mut a), Some(1), None, 0);
            let r2 = c.irecv(rbuf(&mut b), Some(2), None, 0);
            assert_eq!(c.wait_any(&[r2, r1]), vec![1]);
            assert_eq!(c.vtime().ps(), 10 * US + 4 * m(64) + 3 * m(B as u64));
            c.wait_all(&[r2]);
            assert!(a.iter().all(|&x| x == 1) && b.iter().all(|&x| x == 2));
            c.free(r1);
            c.free(r2);
        }
        r => {
            std::thread::sleep(Duration::from_millis(if r == 1 { 60 } else { 0 }));
            c.compute(VTime::from_ps(if r == 1 { 10 } else { 20 } * US));
            let data = vec![r as u8; B];
            send(c, &data, 0, SendMode::Standard);
        }
    });
    assert_eq!(t[0], 20 * US + 4 * m(64) + 3 * m(B as u64));
}

#[test]
fn message_arriving_exactly_at_the_end_of_a_wait_is_timed_alike_whenever_delivered() {
    // Rank 1 waits for A (1000 B from rank 0, sent at 0: ta = 2M, the wait
    // ends at 3M). Rank 2 sends B (1000 B) at M, so ta(B) = 3M: exactly the
    // end of that wait. Rank 1 then posts the receive of B, sends 8 B to
    // rank 0 and waits for B. Delivered during the first wait, B is dealt
    // with at its end (lines 22-27 of Algorithm 2) and sits in the unexpected
    // queue; delivered later, the history lookup must find it covered by the
    // same wait (ends are covered). Either way B completes at 3M + M = 4M.
    let x = 1000u64;
    let mut outcomes = Vec::new();
    for (d0, d2) in [(0u64, 40u64), (40, 0)] {
        let t = run(3, 1 << 16, move |c| {
            let a = vec![1u8; x as usize];
            let mut y = vec![0u8; x as usize];
            match c.rank() {
                0 => {
                    std::thread::sleep(Duration::from_millis(d0));
                    send(c, &a, 1, SendMode::Standard);
                }
                2 => {
                    std::thread::sleep(Duration::from_millis(d2));
                    c.compute(VTime::from_ps(m(x)));
                    send(c, &a, 1, SendMode::Standard);
                }
                _ => {
                    recv(c, &mut y, 0);
                    let r = c.irecv(rbuf(&mut y), Some(2), None, 0);
                    send(c, &[0u8; 8], 0, SendMode::Standard);
                    c.wait_all(&[r]);
                    c.free(r);
                }
            }
        });
        outcomes.push(t[1]);
    }
    assert_eq!(outcomes, vec![4 * m(x), 4 * m(x)]);
}

/// Rank 0 starts a send of 8 bytes (tag 5) to rank 1 in `mode`, cancels it
/// (after `delay` ms of host time) and waits; then sends 8 bytes with tag 9,
/// which rank 1 waits for from the start. Rank 1 then finds no tag-5
/// message. Returns the times and whether the send was cancelled.
fn cancel_unmatched(mode: SendMode, size: usize, delay: u64) -> (Vec<u64>, bool) {
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let f = flag.clone();
    let t = run(2, 1 << 16, move |c| {
        if c.rank() == 0 {
            let data = vec![3u8; size];
            let r = c.isend(sbuf(&data), 1, 5, 0, mode);
            std::thread::sleep(Duration::from_millis(delay));
            assert!(!c.cancel(r));
            c.wait_all(&[r]);
            let st = c.status(r);
            f.store(st.cancelled, std::sync::atomic::Ordering::SeqCst);
            c.free(r);
            c.drain_background();
            send_tag(c, 1, 9);
        } else {
            let mut buf = [0u8; 8];
            let r = c.irecv(rbuf(&mut buf), Some(0), Some(9), 0);
            c.wait_all(&[r]);
            c.free(r);
            assert_eq!(c.iprobe(Some(0), Some(5), 0), None);
        }
    });
    (t, flag.load(std::sync::atomic::Ordering::SeqCst))
}

fn send_tag(c: &mut Core<MemLink>, dest: u32, tag: i32) {
    let data = [1u8; 8];
    let r = c.isend(sbuf(&data), dest, tag, 0, SendMode::Standard);
    c.wait_all(&[r]);
    c.free(r);
}

#[test]
fn cancelled_unmatched_sends_match_the_equations() {
    let (m8, h) = (m(8), m(64));
    let b = 200_000u64;
    for delay in [0, 20] {
        // Eager: out at M(8); the cancel request leaves then (tr + M(H)) and
        // arrives at M(8) + 2M(H) (no earlier than the DATA, at 2M(8)),
        // handled there by rank 1 (in its wait); the answer arrives 2M(H)
        // later and completes the send. The tag-9 message follows.
        let ans = m8 + 4 * h;
        let (t, cancelled) = cancel_unmatched(SendMode::Standard, 8, delay);
        assert!(cancelled);
        assert_eq!(t, vec![ans + m8, ans + 3 * m8], "eager, delay {delay}");
        // Synchronous: the REQ is out at M(H), the cancel at 2M(H).
        let ans = 5 * h;
        let (t, cancelled) = cancel_unmatched(SendMode::Synchronous, 8, delay);
        assert!(cancelled);
        assert_eq!(t, vec![ans + m8, ans + 3 * m8], "sync, delay {delay}");
        // Buffered, rendezvous in the background: the copy, the REQ, then as
        // above (the facade waits for the answer; the inner send goes).
        let ans = m(b) + 5 * h;
        let (t, cancelled) = cancel_unmatched(SendMode::Buffered, b as usize, delay);
        assert!(cancelled);
        assert_eq!(t, vec![ans + m8, ans + 3 * m8], "buffered, delay {delay}");
        // Buffered eager: the copy, the DATA, then as the eager case.
        let ans = 2 * m8 + 4 * h;
        let (t, cancelled) = cancel_unmatched(SendMode::Buffered, 8, delay);
        assert!(cancelled);
        assert_eq!(
            t,
            vec![ans + m8, ans + 3 * m8],
            "buffered eager, delay {delay}"
        );
    }
}

#[test]
fn matched_send_is_not_cancelled_and_completes_normally() {
    let (m8, h) = (m(8), m(64));
    for (mode, delay) in [
        (SendMode::Standard, 0u64),
        (SendMode::Standard, 20),
        (SendMode::Synchronous, 0),
    ] {
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let f = flag.clone();
        let t = run(2, 1 << 16, move |c| {
            if c.rank() == 0 {
                let data = [7u8; 8];
                let r = c.isend(sbuf(&data), 1, 5, 0, mode);
                let mut go = [0u8; 8];
                let g = c.irecv(rbuf(&mut go), Some(1), Some(7), 0);
                c.wait_all(&[g]);
                c.free(g);
                std::thread::sleep(Duration::from_millis(delay));
                c.cancel(r);
                c.wait_all(&[r]);
                f.store(c.status(r).cancelled, std::sync::atomic::Ordering::SeqCst);
                c.free(r);
                send_tag(c, 1, 8);
            } else {
                let mut buf = [0u8; 8];
                recv(c, &mut buf, 0);
                assert_eq!(buf, [7u8; 8]);
                send_tag(c, 0, 7);
                let r = c.irecv(rbuf(&mut buf), Some(0), Some(8), 0);
                c.wait_all(&[r]);
                c.free(r);
            }
        });
        assert!(!flag.load(std::sync::atomic::Ordering::SeqCst));
        if mode == SendMode::Standard {
            // Rank 1 has the data at 3M(8) and answers "go" (at 5M(8) + M(8)
            // on rank 0); the cancel leaves at 6M(8), is handled at
            // 6M(8) + 2M(H), answered 2M(H) later: the send completes then.
            let ans = 6 * m8 + 4 * h;
            assert_eq!(t, vec![ans + m8, ans + 3 * m8], "delay {delay}");
        } else {
            // The ACK came: matched, nothing is asked and the send stays
            // complete. REQ at 2M(H), ACK back at 4M(H), DATA at 4M(H) + 2M(8)
            // (received at + M(8)); "go" reaches rank 0 at + 2M(8), received
            // at + M(8): the cancel costs nothing.
            let go = 4 * h + 3 * m8 + 3 * m8;
            assert_eq!(t, vec![go + m8, go + 3 * m8]);
        }
    }
}

#[test]
fn send_to_self_cancelled_in_own_progress() {
    let (m8, h) = (m(8), m(64));
    let t = run(1, 1 << 16, |c| {
        let data = [4u8; 8];
        let r = c.isend(sbuf(&data), 0, 5, 0, SendMode::Standard);
        c.cancel(r);
        c.wait_all(&[r]);
        assert!(c.status(r).cancelled);
        c.free(r);
        assert_eq!(c.iprobe(Some(0), Some(5), 0), None);
    });
    // To oneself nothing takes time: the send completes at 0, the cancel
    // request and its answer leave and arrive at 0.
    let _ = (m8, h);
    assert_eq!(t, vec![0]);
}

#[test]
fn absorbing_what_arrived_changes_no_time() {
    // Rank 1 computes 2 us, then (in one variant) stores what the host has
    // delivered to it outside any waiting activity, as a rank waiting in
    // another library's code does (`Core::absorb`); then it receives rank
    // 0's message (sent at 0: unexpected, taken in the starting phase) and
    // rank 2's (sent after 3 us of computation: dealt with at its arrival).
    let mut outcomes = Vec::new();
    for absorb in [false, true] {
        let t = run(3, 1 << 16, move |c| {
            let x = [5u8; 1000];
            let mut y = [0u8; 1000];
            match c.rank() {
                0 => send(c, &x, 1, SendMode::Standard),
                2 => {
                    c.compute(VTime::from_ps(3 * US));
                    send(c, &x, 1, SendMode::Standard);
                }
                _ => {
                    c.compute(VTime::from_ps(2 * US));
                    // both messages are on the host by now
                    std::thread::sleep(Duration::from_millis(40));
                    if absorb {
                        c.absorb();
                    }
                    recv(c, &mut y, 0);
                    recv(c, &mut y, 2);
                }
            }
        });
        outcomes.push(t[1]);
    }
    // 2 us + M(1000) after the first receive; rank 2's message arrives at
    // 3 us + 2M(1000) and is copied in by + M(1000).
    let t1 = 3 * US + 3 * m(1000);
    assert_eq!(outcomes, vec![t1, t1]);
}
