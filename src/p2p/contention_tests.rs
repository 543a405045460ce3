//! The contention model in the engine, without processes: flows of several
//! senders to one receiver, their times derived by hand from the rule of
//! `model::contention`, whatever the host order.
use super::testing::{run_on, MemLink};
use super::{Core, SendMode};
use crate::model::{Model, VTime};
use crate::transport::{RecvBuf, SendBuf};
use std::time::Duration;

/// One rank per node, every two nodes 1 hop apart: l(1) = 1 us = W;
/// Bnet = 1 GB/s (1 ps a byte... 1000 ps per byte), Bmem = 10 GB/s.
fn target() -> Model {
    Model::from_toml_str(
        "name = \"c\"\n[cpu]\nscale = 0\n[network]\nmem_bandwidth = \"10 GB/s\"\n\
         net_bandwidth = \"1 GB/s\"\nlatency = \"1 us\"\nhop_latency = \"0 s\"\n\
         eager_limit = \"64 KiB\"\nheader_bytes = 0\ncontention = \"links\"\n\
         [topology]\nlevels = [ { ranks = 1, hops = 0 } ]\ndefault_hops = 1\n",
        "c",
    )
    .unwrap()
}

fn sbuf(v: &[u8]) -> SendBuf {
    // SAFETY (test): the vector outlives the blocking call using it.
    unsafe { SendBuf::from_raw(v.as_ptr(), v.len()) }
}
fn rbuf(v: &mut [u8]) -> RecvBuf {
    // SAFETY (test): as above.
    unsafe { RecvBuf::from_raw(v.as_mut_ptr(), v.len()) }
}

/// Ranks 0 and 1 send `sizes[0]` and `sizes[1]` bytes to rank 2, rank 1
/// after computing `later_us`; rank 2 receives both in one Waitall. The
/// host order is perturbed by `delay` (ms) on rank `slow`.
fn two_to_one(sizes: [usize; 2], later_us: u64, slow: u32, delay: u64) -> Vec<u64> {
    run_on(target(), 16, 3, 1 << 20, move |c: &mut Core<MemLink>| {
        let me = c.rank();
        if me == slow {
            std::thread::sleep(Duration::from_millis(delay));
        }
        if me < 2 {
            if me == 1 {
                c.compute(VTime::from_ps(later_us * 1_000_000));
            }
            let data = vec![me as u8 + 1; sizes[me as usize]];
            let r = c.isend(sbuf(&data), 2, 0, 0, SendMode::Standard);
            c.wait_all(&[r]);
            c.free(r);
        } else {
            let mut a = vec![0u8; sizes[0]];
            let mut b = vec![0u8; sizes[1]];
            let ra = c.irecv(rbuf(&mut a), Some(0), None, 0);
            let rb = c.irecv(rbuf(&mut b), Some(1), None, 0);
            c.wait_all(&[ra, rb]);
            assert!(a.iter().all(|&x| x == 1) && b.iter().all(|&x| x == 2));
            c.free(ra);
            c.free(rb);
        }
    })
}

const US: u64 = 1_000_000;

#[test]
fn two_eager_flows_into_one_node_share_its_link() {
    // Each: tr = 1000 B / 10 GB/s = 0.1 us, 1 us alone; both start in
    // window [0, 1 us) and overlap, both through node 2's ejection link:
    // half each, 2 us. ta = 0.1 + 2 + 1 (l) = 3.1 us; the receive's copy
    // 0.1 us: rank 2 ends at 3.2 us (2.2 us alone). Senders end at tr.
    for (slow, delay) in [(0, 0), (0, 30), (1, 30), (2, 30)] {
        assert_eq!(
            two_to_one([1000, 1000], 0, slow, delay),
            vec![US / 10, US / 10, 3 * US + US / 5],
            "slow rank {slow}"
        );
    }
}

#[test]
fn a_later_flow_shares_with_one_in_flight_and_does_not_slow_it() {
    // Rank 0: 100 000 B, rendezvous. REQ at 0 lands at 1 us, ACK back at
    // 2 us; DATA tr = 2 + 10 (copy) = 12 us, 100 us alone: ta = 12 + 100 +
    // 1 = 113 us, received at 113 + 10 = 123 us.
    // Rank 1 computes 20 us, then 1000 B eager: tr = 20.1 us (window 20),
    // while rank 0's flow (window 12) is in flight: half, 2 us; ta = 23.1,
    // received at 23.2. Rank 0's flow is not slowed down.
    for (slow, delay) in [(0, 0), (0, 30), (1, 30), (2, 30)] {
        assert_eq!(
            two_to_one([100_000, 1000], 20, slow, delay),
            vec![12 * US, 20 * US + US / 10, 123 * US],
            "slow rank {slow}"
        );
    }
    // After rank 0's flow: alone. Rank 1 at 200 us: tr = 200.1, ta =
    // 202.1, received at 202.2.
    assert_eq!(
        two_to_one([100_000, 1000], 200, 2, 0),
        vec![12 * US, 200 * US + US / 10, 202 * US + US / 5]
    );
}

#[test]
fn registry_entries_are_freed_and_waited_for() {
    // 4 registry entries per rank, 20 transfers of 1000 B from rank 0 to
    // rank 1, 5 us of computation before each: transfer k (from 0) leaves
    // at tr_k = (k + 1) 5.1 us (5 us computed, 0.1 us copied each time),
    // alone (the one before ended 4.1 us earlier): ta = tr + 1 + 1 us; rank
    // 1 receives it at ta + 0.1 us. Rank 1 sleeps on the host before each
    // receive, so rank 0 must wait for its entries to be freed.
    for (delay, exact) in [(0, true), (30, true), (30, false)] {
        let t = run_on(target(), 4, 2, 1 << 20, move |c: &mut Core<MemLink>| {
            // fast mode publishes no bounds: entries are freed once consumed
            c.set_exact(exact);
            let data = vec![7u8; 1000];
            let mut buf = vec![0u8; 1000];
            for _ in 0..20 {
                if c.rank() == 0 {
                    c.compute(VTime::from_ps(5 * US));
                    let r = c.isend(sbuf(&data), 1, 0, 0, SendMode::Standard);
                    c.wait_all(&[r]);
                    c.free(r);
                } else {
                    if delay > 0 {
                        std::thread::sleep(Duration::from_millis(delay));
                    }
                    let r = c.irecv(rbuf(&mut buf), Some(0), None, 0);
                    c.wait_all(&[r]);
                    c.free(r);
                }
            }
        });
        // The last (k = 19): tr = 102 us, received at 102 + 2 + 0.1 us.
        // (flows one at a time: fast mode gives the same times here)
        assert_eq!(
            t,
            vec![102 * US, 104 * US + US / 10],
            "delay {delay}, exact {exact}"
        );
    }
}
