//! The contention model end to end (`[network] contention = "links"`,
//! issue 12): real C programs whose transfers into one node share its
//! link, `cpu.scale = 0`, every printed `MPI_Wtime` checked to the
//! picosecond against times derived below from the rule of
//! `model::contention` (not taken from the crate), on the default, 1 and 2
//! host cores and under random host delays.
//!
//! The target: a 2-ary 2-tree (4 nodes, nodes 0-1 and 2-3 on a leaf
//! switch, whose links up are 2 wide), one rank per node; Bmem = 10 GB/s
//! (M(b) = 100 ps a byte), Bnet = 1 GB/s (N(b) = 1000 ps a byte), l(h) =
//! 1 us + h x 0.5 us: l(2) = 2 us (same leaf), l(4) = 3 us; H = 0; eager up
//! to 64 KiB. The window W is the least latency between nodes, l(2).
mod common;

use common::{assert_times, program, records, write_target, Run, CORE_VARIANTS};
use std::collections::BTreeMap;

const TARGET: &str = "name = \"contended\"\n[cpu]\nscale = 0\n[network]\n\
    mem_bandwidth = \"10 GB/s\"\nnet_bandwidth = \"1 GB/s\"\nlatency = \"1 us\"\n\
    hop_latency = \"0.5 us\"\neager_limit = \"64 KiB\"\nheader_bytes = 0\n\
    contention = \"links\"\n[topology]\nkind = \"fat-tree\"\nk = 2\nn = 2\n";

const US: u64 = 1_000_000;

fn m(b: u64) -> u64 {
    b * 100
}
fn n(b: u64) -> u64 {
    b * 1000
}
/// l(h) for rank k to rank 0: k = 1 shares the leaf (2 hops), 2 and 3 not.
fn l(k: u64) -> u64 {
    if k == 1 {
        2 * US
    } else {
        3 * US
    }
}

/// Run `flows` with `args` and compare with `expected`: (rank, op, from).
fn check(what: &str, args: &[&str], expected: &BTreeMap<(i64, String, i64), u64>) {
    // one file per test: the tests run at once
    let file = write_target(
        &format!("contended-{}.toml", what.replace(' ', "-")),
        TARGET,
    );
    let prog = program("flows");
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let jitter = [("VACED_HOST_JITTER".to_string(), "7".to_string())];
    let variants = CORE_VARIANTS
        .iter()
        .map(|c| (*c, false))
        .chain([(Some(2), true)]);
    for (cores, jit) in variants {
        let mut run = Run::new(4, file.as_os_str(), &prog)
            .cores(cores)
            .args(&args);
        if jit {
            run.env = jitter.to_vec();
        }
        let job = run.run();
        job.assert_success();
        let got: BTreeMap<(i64, String, i64), u64> = records(&job.stdout, "fl")
            .iter()
            .map(|r| {
                let from = if r.get("op") == "recv" {
                    r.int("from")
                } else {
                    -1
                };
                ((r.int("rank"), r.get("op").to_string(), from), r.ps("t"))
            })
            .collect();
        assert_times(
            &format!("{what}, cores {cores:?}, jitter {jit}"),
            expected,
            &got,
            &job.dump(),
        );
    }
}

fn send(k: i64) -> (i64, String, i64) {
    (k, "send".into(), -1)
}
fn recv(k: i64) -> (i64, String, i64) {
    (0, "recv".into(), k)
}

/// Three eager flows of 1000 B into node 0 at once: each leaves at tr =
/// M(1000) = 0.1 us, in window [0, 2 us), all three through node 0's
/// ejection link (1 wide): a third each, d = 3 N(1000) = 3 us (the leaf
/// uplink 2 -> 0 carries two, it is 2 wide). ta_k = 0.1 + 3 + l(k).
/// Rank 0 receives in turn: from 1 at ta_1 + M; from 2 at ta_2 + M (later
/// than the first); from 3 (arrived at ta_3 = ta_2, in the unexpected
/// queue) on posting, at ta_2 + 2M.
#[test]
fn three_flows_into_one_node_share_its_link() {
    let tr = m(1000);
    let d = 3 * n(1000);
    let ta = |k| tr + d + l(k);
    let expected: BTreeMap<_, _> = [
        (send(1), tr),
        (send(2), tr),
        (send(3), tr),
        (recv(1), ta(1) + m(1000)),
        (recv(2), ta(2) + m(1000)),
        (recv(3), ta(2) + 2 * m(1000)),
    ]
    .into_iter()
    .collect();
    check("three at once", &["1000", "1000", "1000"], &expected);
}

/// A rendezvous flow, then two eager ones in later windows.
/// Rank 1, 100 000 B: REQ at 0 lands at l(1) = 2 us, rank 0 (waiting)
/// answers at once, the ACK lands at 4 us; DATA tr = 4 + M(100000) = 14 us
/// (MPI_Send ends there), 100 us alone, window [14, 16): ta_1 = 14 + 100 +
/// 2 = 116 us.
/// Rank 2 computes 20 us, sends 1000 B: tr = 20.1 us, window [20, 22):
/// rank 1's flow (earlier window, ends at 114 us) is crossing node 0's
/// ejection link: half, 2 us: ta_2 = 20.1 + 2 + 3 = 25.1 us. Rank 1's flow
/// is not slowed down.
/// Rank 3 computes 200 us: alone, ta_3 = 200.1 + 1 + 3 = 204.1 us.
/// Rank 0: from 1 at 116 + M(100000) = 126 us; from 2 (unexpected since
/// 25.1) on posting, 126 + M(1000); from 3 at 204.1 + M(1000).
#[test]
fn a_later_flow_shares_the_link_with_one_in_flight() {
    let expected: BTreeMap<_, _> = [
        (send(1), 14 * US),
        (send(2), 20 * US + m(1000)),
        (send(3), 200 * US + m(1000)),
        (recv(1), 126 * US),
        (recv(2), 126 * US + m(1000)),
        (recv(3), 204 * US + US / 10 + m(1000)),
    ]
    .into_iter()
    .collect();
    check(
        "rendezvous then eager",
        &["100000", "1000:20", "1000:200"],
        &expected,
    );
}

/// MPI_THREAD_MULTIPLE is not provided under contention (a rank whose
/// threads all wait keeps its clock as its bound, and windows could never
/// close): MPI_Init_thread provides MPI_THREAD_SERIALIZED, as the standard
/// allows; without contention, MULTIPLE.
#[test]
fn thread_multiple_becomes_serialized() {
    let prog = program("thread_level");
    let on = write_target("contended-threads.toml", TARGET);
    let off = write_target(
        "uncontended.toml",
        &TARGET.replace("contention = \"links\"\n", ""),
    );
    for (target, want) in [(&on, "serialized"), (&off, "multiple")] {
        let job = Run::new(2, target.as_os_str(), &prog).run();
        job.assert_success();
        let got = records(&job.stdout, "tl");
        assert_eq!(got.len(), 2, "{}", job.dump());
        for r in got {
            assert_eq!(r.get("provided"), want, "{}", job.dump());
            assert_eq!(r.get("query"), want, "{}", job.dump());
        }
    }
}

/// `vaced target hops` lists the links a transfer crosses when the target
/// models contention: rank 1 shares node 0's leaf switch, rank 3 does not
/// (up the leaf 0 subtree's 2 links, down leaf 1's).
#[test]
fn target_hops_lists_the_links() {
    let file = write_target("contended-hops.toml", TARGET);
    let o = std::process::Command::new(common::vaced())
        .args(["target", "hops"])
        .arg(&file)
        .args(["0", "1", "3"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "rank 0: node 0\n\
         rank 1: node 1, hop(0, 1) = 2, L(0) = 2 us, eager limit 64 KiB, links: node 0 up, node 1 down\n\
         rank 3: node 3, hop(0, 3) = 4, L(0) = 3 us, eager limit 64 KiB, links: node 0 up, tree 1.0 up x2, tree 1.1 down x2, node 3 down\n"
    );
}

/// The timeline shows a flow as its receiver resolved it: three eager
/// flows into node 0 (as in `three_flows_into_one_node_share_its_link`),
/// each an arrow from its sender at its send time (0) to rank 0 at its
/// shared arrival, in the Perfetto trace.
#[test]
fn timeline_shows_shared_arrivals() {
    let file = write_target("contended-timeline.toml", TARGET);
    let dir = common::scratch().join("contention-timeline");
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("flows.json");
    let prog = program("flows");
    let job = Run::new(4, file.as_os_str(), &prog)
        .option(&["--timeline".as_ref(), trace.as_os_str()])
        .args(&["1000", "1000", "1000"])
        .run();
    job.assert_success();
    let text = std::fs::read_to_string(&trace).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).expect("the trace is JSON");
    let events = v["traceEvents"].as_array().expect("traceEvents");
    let mut arrows: Vec<(u64, u64, u64, u64)> = events
        .iter()
        .filter(|e| e["ph"] == "s" && e["name"] == "eager")
        .map(|e| {
            let a = &e["args"];
            (
                a["from"].as_u64().unwrap(),
                a["to"].as_u64().unwrap(),
                a["ts_ps"].as_u64().unwrap(),
                a["ta_ps"].as_u64().unwrap(),
            )
        })
        .collect();
    arrows.sort();
    let ta = |k: u64| m(1000) + 3 * n(1000) + l(k);
    assert_eq!(
        arrows,
        vec![(1, 0, 0, ta(1)), (2, 0, 0, ta(2)), (3, 0, 0, ta(3))],
        "{}",
        job.dump()
    );
    // each starts on its sender's track and ends on rank 0's
    for e in events.iter().filter(|e| e["name"] == "eager") {
        let tid = e["tid"].as_u64().unwrap();
        let want = if e["ph"] == "s" {
            e["args"]["from"].as_u64()
        } else {
            Some(0)
        };
        assert_eq!(Some(tid), want, "{e}");
    }
}
