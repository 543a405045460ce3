//! Exact predictions under the model's pair rules and topologies (issue 12):
//! a message to oneself (one copy), on-node parameters (`[network.node]`)
//! and the hop counts of fat-trees, tori, meshes and dragonflies with their
//! rank placements. Real C programs, `cpu.scale = 0`, every printed
//! `MPI_Wtime` checked to the picosecond against the equations written out
//! below (not taken from the crate), on the default, 1 and 2 host cores.
//!
//! Notation (ps): M(b) = b/Bmem, N(b) = b/Bnet, l(h) = latency + h
//! hop_latency; between nodes L(b, h) = N(b) + l(h); on one node
//! L(b) = node.latency + b/node.bandwidth; H = header bytes.
mod common;

use common::model::xfer;
use common::{assert_times, program, records, write_target, Run, CORE_VARIANTS};
use std::collections::BTreeMap;

/// The parameters of a target, as the tests' reference model sees them.
#[derive(Clone, Copy)]
struct P {
    bmem: u64,
    bnet: u64,
    lat: u64,
    hop_lat: u64,
    eager: u64,
    hb: u64,
    node_lat: u64,
    node_bw: u64,
    node_eager: u64,
    single: bool,
    /// rendezvous_overhead and rendezvous_bandwidth between nodes, then on
    /// one node
    rdv_over: u64,
    rdv_bw: u64,
    node_rdv_over: u64,
    node_rdv_bw: u64,
}

const BASE: P = P {
    bmem: 6_380_000_000,
    bnet: 4_160_000_000,
    lat: 15_000_000,
    hop_lat: 600_000,
    eager: 128 * 1024,
    hb: 64,
    node_lat: 0,
    node_bw: 6_380_000_000,
    node_eager: 128 * 1024,
    single: false,
    rdv_over: 0,
    rdv_bw: 4_160_000_000,
    node_rdv_over: 0,
    node_rdv_bw: 6_380_000_000,
};

const NETWORK: &str = "[cpu]\nscale = 0.0\n[network]\nmem_bandwidth = \"6.38 GB/s\"\n\
    net_bandwidth = \"4.16 GB/s\"\nlatency = \"15 us\"\nhop_latency = \"0.6 us\"\n\
    eager_limit = \"128 KiB\"\nheader_bytes = 64\n";

impl P {
    fn m(&self, b: u64) -> u64 {
        xfer(b, self.bmem)
    }
    /// L(b) between two ranks `h` hops apart (h = 0: one node).
    fn link(&self, b: u64, h: u32) -> u64 {
        if h == 0 {
            self.node_lat + xfer(b, self.node_bw)
        } else {
            xfer(b, self.bnet) + self.lat + h as u64 * self.hop_lat
        }
    }
    /// The rendezvous DATA of `b` bytes, `h` hops: (D, sc), D from the
    /// ACK's handling to the data in the receiver's buffer, sc from the
    /// ACK's handling to the send's completion. It leaves after the
    /// overhead O, crosses at the rendezvous bandwidth Br: two copies,
    /// D = O + M(b) + lat + b/Br + M(b), sc = O + M(b); a single on-node
    /// copy, D = sc = O + lat + b/Br.
    fn data(&self, b: u64, h: u32) -> (u64, u64) {
        let (over, wire) = if h == 0 {
            (
                self.node_rdv_over,
                self.node_lat + xfer(b, self.node_rdv_bw),
            )
        } else {
            (
                self.rdv_over,
                xfer(b, self.rdv_bw) + self.lat + h as u64 * self.hop_lat,
            )
        };
        if h == 0 && self.single {
            (over + wire, over + wire)
        } else {
            (over + 2 * self.m(b) + wire, over + self.m(b))
        }
    }
    fn eager_for(&self, h: u32) -> u64 {
        if h == 0 {
            self.node_eager
        } else {
            self.eager
        }
    }
}

// ---------------------------------------------------------------------------
// 1. A message to oneself: one copy
// ---------------------------------------------------------------------------

type SmKey = (u32, u64, u32, String); // (rank, size, case, op)

/// `self_msg 131072 SIZES...` on the exact target: a message to oneself is
/// neither copied into a message nor carried (tr = ta = ts); the receive
/// copies it once into the user's buffer, M(b). Every case moves each
/// rank's clock by exactly M(b): the send completes when it starts (eager,
/// or rendezvous whose REQ and ACK take no time), the receive M(b) after
/// the later of its posting and the send.
fn expected_self(sizes: &[u64], eager: u64) -> BTreeMap<SmKey, u64> {
    let mut out = BTreeMap::new();
    for rank in 0..2 {
        let mut t = 0;
        for &b in sizes {
            let m = BASE.m(b);
            let mut put = |c: u32, op: &str, v: u64| {
                out.insert((rank, b, c, op.to_string()), v);
            };
            put(0, "isend", t);
            put(0, "recv", t + m);
            put(0, "wait", t + m);
            t += m;
            put(1, "irecv", t);
            put(1, "send", t);
            put(1, "wait", t + m);
            t += m;
            put(2, "sendrecv", t + m);
            t += m;
            if b <= eager {
                put(3, "send", t);
                put(3, "recv", t + m);
                t += m;
            }
        }
    }
    out
}

#[test]
fn message_to_oneself_is_one_copy() {
    let sizes = [0u64, 8, 1000, 131_072, 131_073, 1 << 20];
    let expected = expected_self(&sizes, BASE.eager);
    let prog = program("self_msg");
    let mut args = vec![BASE.eager.to_string()];
    args.extend(sizes.iter().map(|s| s.to_string()));
    for cores in CORE_VARIANTS {
        let job = Run::exact(2, &prog).cores(cores).args(&args).run();
        job.assert_success();
        let mut got = BTreeMap::new();
        for r in records(&job.stdout, "sm") {
            let key = (
                r.int("rank") as u32,
                r.int("size") as u64,
                r.int("case") as u32,
                r.get("op").to_string(),
            );
            assert!(got.insert(key.clone(), r.ps("t")).is_none(), "{key:?}");
        }
        assert_times(
            &format!("self messages, cores {cores:?}"),
            &expected,
            &got,
            &job.dump(),
        );
    }
}

// ---------------------------------------------------------------------------
// 2. Ping-pong with on-node parameters
// ---------------------------------------------------------------------------

type PpKey = (u32, u64, u32, &'static str); // (rank, size, rep, op)

/// `pingpong PEER REPS SIZES...` (tests/programs/pingpong.c): round trips
/// of blocking MPI_Send / MPI_Recv, the peer always waiting first. For a
/// round trip that rank 0 starts at T, with `h` the hops:
///
/// Eager (b <= the pair's eager limit), one way E = M(b) + L(b) + M(b):
/// rank 0's send returns at T + M(b), the peer's recv at T + E, the peer's
/// send at T + E + M(b), rank 0's recv at T + 2E.
///
/// Rendezvous: the REQ and the ACK take hs = M(H) + L(H) each; the DATA
/// takes D from the ACK's handling to the receiver's buffer and the send
/// completes sc after the ACK ([`P::data`]: without rendezvous parameters
/// D = M(b) + L(b) + M(b) and sc = M(b); with a single on-node copy,
/// D = sc = L(b): the data lands in the receiver's buffer, the send
/// completes then). One way R = 2 hs + D: rank 0's send returns at T + 2 hs + sc, the peer's recv at
/// T + R, the peer's send at T + R + 2 hs + sc, rank 0's recv at T + 2R.
fn expected_pingpong(p: &P, peer: u32, h: u32, sizes: &[u64], reps: u32) -> BTreeMap<PpKey, u64> {
    let mut out = BTreeMap::new();
    let mut t = 0;
    for &b in sizes {
        for rep in 0..reps {
            if b <= p.eager_for(h) {
                let e = p.m(b) + p.link(b, h) + p.m(b);
                out.insert((0, b, rep, "send"), t + p.m(b));
                out.insert((peer, b, rep, "recv"), t + e);
                out.insert((peer, b, rep, "send"), t + e + p.m(b));
                out.insert((0, b, rep, "recv"), t + 2 * e);
                t += 2 * e;
            } else {
                let hs = p.m(p.hb) + p.link(p.hb, h);
                let (d, sc) = p.data(b, h);
                let r = 2 * hs + d;
                out.insert((0, b, rep, "send"), t + 2 * hs + sc);
                out.insert((peer, b, rep, "recv"), t + r);
                out.insert((peer, b, rep, "send"), t + r + 2 * hs + sc);
                out.insert((0, b, rep, "recv"), t + 2 * r);
                t += 2 * r;
            }
        }
    }
    out
}

fn run_pingpong(what: &str, target: &str, p: &P, nranks: u32, peer: u32, h: u32, sizes: &[u64]) {
    let reps = 2;
    let expected = expected_pingpong(p, peer, h, sizes, reps);
    let file = write_target(&format!("{what}.toml"), target);
    let prog = program("pingpong");
    let mut args = vec![peer.to_string(), reps.to_string()];
    args.extend(sizes.iter().map(|s| s.to_string()));
    for cores in CORE_VARIANTS {
        let job = Run::new(nranks, file.as_os_str(), &prog)
            .cores(cores)
            .args(&args)
            .run();
        job.assert_success();
        let mut got = BTreeMap::new();
        for r in records(&job.stdout, "pp") {
            let op: &'static str = if r.get("op") == "send" {
                "send"
            } else {
                "recv"
            };
            let key = (
                r.int("rank") as u32,
                r.int("size") as u64,
                r.int("rep") as u32,
                op,
            );
            assert!(got.insert(key, r.ps("t")).is_none(), "{key:?}");
        }
        assert_times(
            &format!("{what}, cores {cores:?}"),
            &expected,
            &got,
            &job.dump(),
        );
    }
}

/// A node section: 0.4 us, 12 GB/s, eager up to 32 KiB.
fn node_target(single: bool) -> (String, P) {
    let text = format!(
        "name = \"node-{single}\"\n{NETWORK}[network.node]\nlatency = \"0.4 us\"\n\
         bandwidth = \"12 GB/s\"\neager_limit = \"32 KiB\"\nsingle_copy = {single}\n\
         [topology]\nlevels = [ {{ ranks = 12, hops = 0 }}, {{ ranks = 192, hops = 3 }} ]\n\
         default_hops = 5\n"
    );
    let p = P {
        node_lat: 400_000,
        node_bw: 12_000_000_000,
        node_eager: 32 * 1024,
        single,
        node_rdv_bw: 12_000_000_000,
        ..BASE
    };
    (text, p)
}

/// Rendezvous parameters on both paths: on one node the DATA leaves 2.5 us
/// after the ACK and crosses at 5 GB/s (single copy); between nodes it
/// leaves 7 us after and crosses at 2 GB/s.
fn rendezvous_target() -> (String, P) {
    let text = format!(
        "name = \"rdv\"\n{NETWORK}rendezvous_overhead = \"7 us\"\nrendezvous_bandwidth = \"2 GB/s\"\n\
         [network.node]\nlatency = \"0.4 us\"\nbandwidth = \"12 GB/s\"\neager_limit = \"32 KiB\"\n\
         single_copy = true\nrendezvous_overhead = \"2.5 us\"\nrendezvous_bandwidth = \"5 GB/s\"\n\
         [topology]\nlevels = [ {{ ranks = 12, hops = 0 }}, {{ ranks = 192, hops = 3 }} ]\n\
         default_hops = 5\n"
    );
    let p = P {
        node_lat: 400_000,
        node_bw: 12_000_000_000,
        node_eager: 32 * 1024,
        single: true,
        rdv_over: 7_000_000,
        rdv_bw: 2_000_000_000,
        node_rdv_over: 2_500_000,
        node_rdv_bw: 5_000_000_000,
        ..BASE
    };
    (text, p)
}

#[test]
fn rendezvous_parameters_on_node() {
    let (text, p) = rendezvous_target();
    run_pingpong("rdv-node", &text, &p, 2, 1, 0, &NODE_SIZES);
}

#[test]
fn rendezvous_parameters_between_nodes() {
    let (text, p) = rendezvous_target();
    run_pingpong("rdv-net", &text, &p, 13, 12, 3, &NODE_SIZES);
}

const NODE_SIZES: [u64; 5] = [8, 32_768, 32_769, 131_073, 1 << 20];

#[test]
fn on_node_single_copy() {
    let (text, p) = node_target(true);
    run_pingpong("node-single", &text, &p, 2, 1, 0, &NODE_SIZES);
}

#[test]
fn on_node_two_copies() {
    let (text, p) = node_target(false);
    run_pingpong("node-two", &text, &p, 2, 1, 0, &NODE_SIZES);
}

/// The node section changes nothing between nodes: 32 769 B is still eager
/// there (the network's 128 KiB limit), and rendezvous DATA is copied twice.
#[test]
fn node_section_leaves_other_nodes_alone() {
    let (text, p) = node_target(true);
    run_pingpong("node-off", &text, &p, 13, 12, 3, &NODE_SIZES);
}

// ---------------------------------------------------------------------------
// 3. Topologies: hop(x, y) seen through round trips
// ---------------------------------------------------------------------------

/// `hops 8 PEERS...` on a target whose `[topology]` is `topo`, with rank 0's
/// hops to each peer computed by hand in `pairs` (peer, h): rank 0 starts
/// the round trip with peer k at T_k (T_0 = 0), the peer (waiting since 0)
/// receives at T_k + E(h), rank 0 at T_k + 2E(h) = T_{k+1}, E(h) = M(8) +
/// L(8, h) + M(8).
fn hops_case(what: &str, topo: &str, nranks: u32, pairs: &[(u32, u32)]) {
    let text = format!("name = \"{what}\"\n{NETWORK}[topology]\n{topo}");
    let file = write_target(&format!("{what}.toml"), &text);
    let mut expected = BTreeMap::new();
    let mut t = 0;
    for &(peer, h) in pairs {
        let e = 2 * BASE.m(8) + BASE.link(8, h);
        expected.insert((peer, peer), t + e);
        expected.insert((0, peer), t + 2 * e);
        t += 2 * e;
    }
    let prog = program("hops");
    let mut args = vec!["8".to_string()];
    args.extend(pairs.iter().map(|(p, _)| p.to_string()));
    for cores in CORE_VARIANTS {
        let job = Run::new(nranks, file.as_os_str(), &prog)
            .cores(cores)
            .args(&args)
            .run();
        job.assert_success();
        let got: BTreeMap<(u32, u32), u64> = records(&job.stdout, "hp")
            .iter()
            .map(|r| ((r.int("rank") as u32, r.int("peer") as u32), r.ps("t")))
            .collect();
        assert_times(
            &format!("{what}, cores {cores:?}"),
            &expected,
            &got,
            &job.dump(),
        );
    }
}

/// A 4-ary 3-tree of 64 nodes, one rank each: the same leaf switch is 2
/// hops, the same pod of 16 is 4, otherwise 6.
#[test]
fn fat_tree_hops() {
    hops_case(
        "fat-tree",
        "kind = \"fat-tree\"\nk = 4\nn = 3\n",
        64,
        &[(3, 2), (4, 4), (15, 4), (16, 6), (63, 6)],
    );
}

/// A 4 x 4 x 2 torus, two ranks per node placed round-robin over the 32
/// nodes: rank r on node r % 32 at (n % 4, n / 4 % 4, n / 16). Rank 32
/// shares node 0 with rank 0 (on-node: L = M(8), h = 0); node 3 is one
/// wrap-around hop away; 21 = (1, 1, 1) is 3; 10 = (2, 2, 0) is 4;
/// 26 = (2, 2, 1) is 5.
#[test]
fn torus_round_robin_hops() {
    hops_case(
        "torus",
        "kind = \"torus\"\ndims = [4, 4, 2]\nranks_per_node = 2\nplacement = \"round-robin\"\n",
        64,
        &[(32, 0), (3, 1), (21, 3), (10, 4), (26, 5)],
    );
}

/// The same grid as a mesh, block placement of 2 ranks per node: rank r on
/// node r / 2; node 3 = (3, 0, 0) is 3 hops, 31 = (3, 3, 1) is 7.
#[test]
fn mesh_block_hops() {
    hops_case(
        "mesh",
        "kind = \"mesh\"\ndims = [4, 4, 2]\nranks_per_node = 2\n",
        64,
        &[(1, 0), (2, 1), (6, 3), (62, 7)],
    );
}

/// A dragonfly of 9 groups of 4 routers with 2 nodes and 2 global links
/// each (72 nodes): same router 2, same group 3; group 0 to 1 through
/// router 0 at both ends 3; to group 8 (nodes 64-71) group 0 leaves from
/// router 3 (+1 local link) and arrives at router 0 of group 8 (node 64:
/// none more, node 70 on router 3: +1).
#[test]
fn dragonfly_hops() {
    hops_case(
        "dragonfly",
        "kind = \"dragonfly\"\nrouters = 4\nnodes_per_router = 2\nglobal_links = 2\n",
        71,
        &[(1, 2), (2, 3), (8, 3), (64, 4), (70, 5)],
    );
}

/// A placement file (relative to the target file): ranks 0 and 1 on node
/// 5, rank 2 on node 0, rank 3 on node 7 of a 2-ary 3-tree: hops 0, 6, 4.
#[test]
fn placement_file_hops() {
    std::fs::write(
        common::scratch().join("placement.txt"),
        "# node of each rank\n5\n5\n0\n7\n",
    )
    .unwrap();
    hops_case(
        "placed",
        "kind = \"fat-tree\"\nk = 2\nn = 3\nranks_per_node = 2\nplacement = \"file\"\nplacement_file = \"placement.txt\"\n",
        4,
        &[(1, 0), (2, 6), (3, 4)],
    );
}

/// A job larger than the placement holds is refused at launch, naming the
/// target and the limit.
#[test]
fn too_many_ranks_for_the_topology() {
    let text = format!("name = \"small\"\n{NETWORK}[topology]\nkind = \"torus\"\ndims = [2, 2]\n");
    let file = write_target("small.toml", &text);
    let job = Run::new(5, file.as_os_str(), &program("hops"))
        .args(&["8", "1"])
        .run();
    assert_eq!(common::exit_code(&job.status), 2, "{}", job.dump());
    assert!(
        job.stderr
            .contains("target `small`: the target's topology holds 4 ranks (4 nodes of 1), not 5"),
        "{}",
        job.dump()
    );
}
