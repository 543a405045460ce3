//! The engine across hosts without processes: each host is a segment of
//! its own with a bridge thread, hosts are joined by socket pairs, ranks are
//! threads on their host's segment. Every program gives the times it gives
//! on one host (the in-memory link), to the picosecond, whatever the host
//! delays.
use super::bridge::{Bridge, Peer};
use crate::model::VTime;
use crate::p2p::testing::{self, m, rbuf, sbuf, MemLink, US};
use crate::p2p::{Core, Link, PortLink, SendMode};
use crate::transport::remote::HostSide;
use crate::transport::{Port, RankState, Segment, SegmentConfig};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

const MAX_RECORD_INBOX: u32 = 1 << 16;

/// Run `n` ranks, rank r on host `host_of[r]`, each running `f`; returns
/// every rank's final virtual time and the bridges' statistics.
fn run_hosts(host_of: &[u32], f: fn(&mut Core<PortLink>)) -> (Vec<u64>, Vec<super::Stats>) {
    static JOB: AtomicU32 = AtomicU32::new(0);
    let job = JOB.fetch_add(1, Ordering::Relaxed);
    let n = host_of.len() as u32;
    let nhosts = *host_of.iter().max().unwrap() + 1;
    let mut segs = Vec::new();
    for h in 0..nhosts {
        let name = format!("/vaced-hosts-test-{}-{job}-{h}", std::process::id());
        let cfg = SegmentConfig {
            nranks: n,
            cores: n,
            inbox_bytes: MAX_RECORD_INBOX,
            flow_slots: 0,
        };
        let seg = Segment::create(&name, &cfg).unwrap();
        Segment::unlink(&name).unwrap();
        segs.push(seg);
    }
    // one stream per pair of hosts
    let mut peers: Vec<Vec<Peer>> = (0..nhosts).map(|_| Vec::new()).collect();
    for a in 0..nhosts {
        for b in a + 1..nhosts {
            let (sa, sb) = UnixStream::pair().unwrap();
            for (me, other, s) in [(a, b, sa), (b, a, sb)] {
                peers[me as usize].push(Peer {
                    host: other,
                    stream: Box::new(s),
                });
            }
        }
    }
    let bridges: Vec<_> = peers
        .into_iter()
        .enumerate()
        .map(|(h, p)| {
            let hosts = host_of.to_vec();
            let side = HostSide::adopt(segs[h].clone(), |r| hosts[r as usize] == h as u32).unwrap();
            std::thread::spawn(move || Bridge::new(side, h as u32, hosts, p)?.run())
        })
        .collect();
    let ranks: Vec<_> = (0..n)
        .map(|r| {
            let seg = segs[host_of[r as usize] as usize].clone();
            std::thread::spawn(move || {
                let mut port = Port::new(seg, r);
                port.acquire_token();
                port.segment().slot(r).set_state(RankState::Running);
                let mut c = Core::new(PortLink::new(port), testing::model());
                c.enter();
                f(&mut c);
                testing::finish(&mut c)
            })
        })
        .collect();
    let times = ranks.into_iter().map(|h| h.join().unwrap()).collect();
    let stats = bridges
        .into_iter()
        .map(|b| b.join().unwrap().unwrap())
        .collect();
    (times, stats)
}

/// `f` on one host (the in-memory link) and across `host_of`'s hosts:
/// the same times. Returns them.
fn same_on_hosts(
    host_of: &[u32],
    one: fn(&mut Core<MemLink>),
    many: fn(&mut Core<PortLink>),
) -> Vec<u64> {
    let want = testing::run(host_of.len() as u32, 1 << 14, one);
    let (got, stats) = run_hosts(host_of, many);
    assert_eq!(got, want, "hosts {host_of:?}");
    assert!(stats.iter().all(|s| s.frames_sent > 0), "{stats:?}");
    want
}

fn send<L: Link>(c: &mut Core<L>, data: &[u8], dest: u32, tag: i32) {
    let r = c.isend(sbuf(data), dest, tag, 0, SendMode::Standard);
    c.wait_all(&[r]);
    c.free(r);
}
fn recv<L: Link>(c: &mut Core<L>, buf: &mut [u8], src: Option<u32>) -> i32 {
    let r = c.irecv(rbuf(buf), src, None, 0);
    c.wait_all(&[r]);
    let s = c.status(r).source;
    c.free(r);
    s
}
/// Ranks 0 and 1 exchange `size` bytes ten times, checking the data.
fn pingpong<L: Link>(c: &mut Core<L>, size: usize) {
    let me = c.rank();
    let peer = 1 - me;
    for round in 0..10u8 {
        let data: Vec<u8> = (0..size).map(|i| (i as u8) ^ round ^ me as u8).collect();
        let mut buf = vec![0u8; size];
        if me == 0 {
            send(c, &data, peer, 0);
            recv(c, &mut buf, Some(peer));
        } else {
            recv(c, &mut buf, Some(peer));
            send(c, &data, peer, 0);
        }
        assert!(buf
            .iter()
            .enumerate()
            .all(|(i, &b)| b == (i as u8) ^ round ^ peer as u8));
    }
}
fn pingpong_eager<L: Link>(c: &mut Core<L>) {
    pingpong(c, 1000)
}
fn pingpong_rendezvous<L: Link>(c: &mut Core<L>) {
    pingpong(c, 300_000)
}

#[test]
fn a_pingpong_between_two_hosts_is_timed_as_on_one() {
    let t = same_on_hosts(&[0, 1], pingpong_eager, pingpong_eager);
    // eager, same target node: a round trip is 6 M(b)
    assert_eq!(t[0], 10 * 6 * m(1000));
    same_on_hosts(&[0, 1], pingpong_rendezvous, pingpong_rendezvous);
}

#[test]
fn a_wildcard_receive_decides_alike_across_hosts() {
    for hosts in [[0, 1, 1], [0, 1, 0], [0, 1, 2]] {
        let t = same_on_hosts(
            &hosts,
            testing::wildcard_first_arrival,
            testing::wildcard_first_arrival,
        );
        assert_eq!(t[0], 20 * US + 3 * m(8));
    }
}

#[test]
fn waitany_and_test_decide_alike_across_hosts() {
    let t = same_on_hosts(
        &[0, 1, 0, 1],
        testing::waitany_and_test,
        testing::waitany_and_test,
    );
    assert_eq!(t[0], 55 * US);
}

#[test]
fn a_quiescent_job_finds_its_next_event_across_hosts() {
    let (t, stats) = run_hosts(&[0, 1], testing::symmetric_rendezvous::<PortLink, 20>);
    let expect = 4 * m(64) + 3 * m(testing::SYMMETRIC_BYTES as u64);
    assert_eq!(t, vec![expect, expect]);
    assert!(stats.iter().map(|s| s.goes).sum::<u64>() >= 1, "{stats:?}");
}

/// Six ranks pass tokens around a ring for a while, each round's receive
/// from MPI_ANY_SOURCE, with computation and host delays that differ by rank.
fn ring<L: Link>(c: &mut Core<L>) {
    let me = c.rank();
    let n = c.size();
    let mut buf = [0u8; 64];
    for round in 0..20u64 {
        c.compute(VTime::from_ps((me as u64 % 3 + 1) * US));
        if (round + me as u64).is_multiple_of(7) {
            std::thread::sleep(Duration::from_millis(2));
        }
        let r = c.irecv(rbuf(&mut buf), None, None, 0);
        send(c, &[me as u8; 64], (me + 1) % n, round as i32);
        c.wait_all(&[r]);
        assert_eq!(c.status(r).source, ((me + n - 1) % n) as i32);
        c.free(r);
    }
}

#[test]
fn a_ring_with_wildcards_predicts_alike_on_two_and_three_hosts() {
    same_on_hosts(&[0, 0, 0, 1, 1, 1], ring, ring);
    same_on_hosts(&[0, 1, 2, 0, 1, 2], ring, ring);
}
