//! The SimGrid/SMPI side of a comparison: a platform built from the SAME
//! target parameters vaced uses, and the smpirun options that make SMPI
//! charge time the way vaced's model does.
//!
//! * Nodes: the target's first topology level with `hops = 0` (12 ranks on
//!   tianhe1a) becomes one host with that many cores; a hostfile lists each
//!   node once per rank, so rank r lands on node r / P as in vaced.
//! * Network: one flat zone with full routing; every pair of nodes gets a
//!   route through a link of its hop class h = hop(x, y) (vaced's rule),
//!   latency l(h) = latency + h * hop_latency and bandwidth Bnet; a node to
//!   itself (h = 0) goes through a link of bandwidth Bmem and no latency.
//!   Links are FATPIPE: like vaced's model, no contention between messages.
//! * Copies: the b/Bmem copy into and out of the message buffer is SMPI's
//!   per-byte send / receive overhead (smpi/os, smpi/ois, smpi/or), with the
//!   target's o_send / o_recv as the constant part.
//! * Protocols: messages up to eager_limit are sent eagerly
//!   (smpi/async-small-thresh = smpi/send-is-detached-thresh = eager_limit).
//! * Computation: SMPI times each computation burst on the host and charges
//!   (host seconds x smpi/host-speed) flops on a host of speed `speed`:
//!   smpi/host-speed = 1 Gf and speed = 1 Gf / cpu.scale charges it like
//!   vaced (cpu.scale = 1: 1:1); cpu.scale = 0 turns simulated computation off.
//!   Bursts are all charged (smpi/cpu-threshold = 0).
//! * Network model CM02 (no slow-start corrections), collectives chosen as
//!   MPICH does (smpi/coll-selector = mpich), like vaced.
use crate::target::Target;
use std::fmt::Write;

/// What smpirun needs for one run.
#[derive(Debug)]
pub struct SmpiSetup {
    pub platform_xml: String,
    pub hostfile: String,
    /// `--cfg=...` options for smpirun.
    pub cfg: Vec<String>,
    pub nodes: u32,
    pub ranks_per_node: u32,
}

/// Ranks per node: the largest level with hops = 0 among the leading ones.
pub fn ranks_per_node(t: &Target) -> u32 {
    t.levels
        .iter()
        .take_while(|l| l.hops == 0)
        .last()
        .map_or(1, |l| l.ranks)
}

/// Nodes beyond which the all-pairs route table gets large (printed as a note).
pub const MANY_NODES: u32 = 512;

pub fn setup(t: &Target, nranks: u32) -> Result<SmpiSetup, String> {
    if t.kind != "levels" {
        return Err(format!(
            "target {}: a `{}` topology: the SMPI platform is made from `levels` topologies only",
            t.name, t.kind
        ));
    }
    let p = ranks_per_node(t);
    for l in &t.levels {
        if l.ranks % p != 0 {
            return Err(format!(
                "target {}: topology level of {} ranks is not a whole number of {p}-rank nodes; \
                 the SMPI platform needs nested levels",
                t.name, l.ranks
            ));
        }
    }
    if !(t.mem_bandwidth > 0.0 && t.net_bandwidth > 0.0) {
        return Err(format!(
            "target {}: bandwidths must be positive for SMPI",
            t.name
        ));
    }
    let nodes = nranks.div_ceil(p);
    let speed = if t.cpu_scale > 0.0 {
        1e9 / t.cpu_scale
    } else {
        1e9
    };
    let mut x = String::new();
    writeln!(x, "<?xml version='1.0'?>").unwrap();
    writeln!(
        x,
        "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">"
    )
    .unwrap();
    writeln!(x, "<platform version=\"4.1\">").unwrap();
    writeln!(
        x,
        "<!-- vaced-bench: target {} for {nranks} ranks, {nodes} nodes of {p} cores (see bench/harness/src/smpi.rs) -->",
        t.name
    )
    .unwrap();
    writeln!(x, "<zone id=\"target\" routing=\"Full\">").unwrap();
    for n in 0..nodes {
        writeln!(
            x,
            "  <host id=\"node{n}\" speed=\"{speed}f\" core=\"{p}\"/>"
        )
        .unwrap();
    }
    // The hop class of every pair of nodes (vaced's rule on their first ranks).
    let mut classes = std::collections::BTreeSet::new();
    let mut routes = String::new();
    for a in 0..nodes {
        for b in a..nodes {
            let h = if a == b { 0 } else { t.hops(a * p, b * p) };
            classes.insert(h);
            writeln!(
                routes,
                "  <route src=\"node{a}\" dst=\"node{b}\"><link_ctn id=\"h{h}\"/></route>"
            )
            .unwrap();
        }
    }
    for h in &classes {
        let (bw, lat) = if *h == 0 {
            (t.mem_bandwidth, 0.0)
        } else {
            (t.net_bandwidth, t.wire_latency(*h))
        };
        writeln!(
            x,
            "  <link id=\"h{h}\" bandwidth=\"{bw}Bps\" latency=\"{lat}s\" sharing_policy=\"FATPIPE\"/>"
        )
        .unwrap();
    }
    x.push_str(&routes);
    writeln!(x, "</zone>\n</platform>").unwrap();

    let mut hostfile = String::new();
    for r in 0..nranks {
        writeln!(hostfile, "node{}", r / p).unwrap();
    }
    let per_byte = 1.0 / t.mem_bandwidth;
    let mut cfg = vec![
        "smpi/host-speed:1Gf".to_string(),
        "network/model:CM02".into(),
        "network/crosstraffic:0".into(),
        format!("smpi/os:0:{}:{per_byte}", t.o_send),
        format!("smpi/ois:0:{}:{per_byte}", t.o_send),
        format!("smpi/or:0:{}:{per_byte}", t.o_recv),
        format!("smpi/async-small-thresh:{}", t.eager_limit),
        format!("smpi/send-is-detached-thresh:{}", t.eager_limit),
        "smpi/coll-selector:mpich".into(),
        "smpi/cpu-threshold:0".into(),
        "smpi/display-timing:1".into(),
    ];
    if t.cpu_scale == 0.0 {
        cfg.push("smpi/simulate-computation:0".into());
    }
    Ok(SmpiSetup {
        platform_xml: x,
        hostfile,
        // SimGrid's per-message info lines (sleeps below its 1 ns precision,
        // collective choices) would fill the logs at 1024 ranks.
        cfg: cfg
            .into_iter()
            .map(|c| format!("--cfg={c}"))
            .chain(
                ["s4u_actor", "smpi_coll", "xbt_cfg"].map(|c| format!("--log={c}.thres:warning")),
            )
            .collect(),
        nodes,
        ranks_per_node: p,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::tests::tianhe;
    use crate::target::Level;

    #[test]
    fn tianhe_platform_for_200_ranks() {
        let s = setup(&tianhe(), 200).unwrap();
        assert_eq!((s.nodes, s.ranks_per_node), (17, 12));
        let x = &s.platform_xml;
        assert!(x.contains("  <host id=\"node16\" speed=\"1000000000f\" core=\"12\"/>\n"));
        assert!(!x.contains("node17"));
        assert!(x.contains(
            "  <link id=\"h0\" bandwidth=\"6380000000Bps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n"
        ));
        let l3 = 15e-6 + 3.0 * 600e-9;
        assert!(x.contains(&format!(
            "  <link id=\"h3\" bandwidth=\"4160000000Bps\" latency=\"{l3}s\" sharing_policy=\"FATPIPE\"/>\n"
        )));
        // nodes 0..15 share a 192-rank board (3 hops), node 16 is on the next (5)
        assert!(x.contains("<route src=\"node0\" dst=\"node0\"><link_ctn id=\"h0\"/></route>"));
        assert!(x.contains("<route src=\"node0\" dst=\"node15\"><link_ctn id=\"h3\"/></route>"));
        assert!(x.contains("<route src=\"node15\" dst=\"node16\"><link_ctn id=\"h5\"/></route>"));
        assert_eq!(x.matches("<route ").count(), 17 * 18 / 2);
        let lines: Vec<&str> = s.hostfile.lines().collect();
        assert_eq!(lines.len(), 200);
        assert_eq!(
            (lines[11], lines[12], lines[199]),
            ("node0", "node1", "node16")
        );
        let bmem = 1.0 / 6.38e9;
        assert_eq!(s.cfg[3], format!("--cfg=smpi/os:0:0:{bmem}"));
        assert_eq!(s.cfg[6], "--cfg=smpi/async-small-thresh:131072");
        assert!(!s.cfg.iter().any(|c| c.contains("simulate-computation")));
    }

    #[test]
    fn scale_and_node_size() {
        let mut t = tianhe();
        t.cpu_scale = 0.5;
        t.levels = vec![Level { ranks: 4, hops: 2 }];
        let s = setup(&t, 8).unwrap();
        assert_eq!((s.nodes, s.ranks_per_node), (8, 1));
        assert!(s.platform_xml.contains("speed=\"2000000000f\" core=\"1\""));
        assert!(s
            .platform_xml
            .contains("<route src=\"node0\" dst=\"node3\"><link_ctn id=\"h2\"/>"));
        assert!(s
            .platform_xml
            .contains("<route src=\"node3\" dst=\"node4\"><link_ctn id=\"h5\"/>"));
        t.cpu_scale = 0.0;
        t.levels = vec![Level { ranks: 4, hops: 0 }, Level { ranks: 6, hops: 1 }];
        assert_eq!(
            setup(&t, 8).unwrap_err(),
            "target tianhe1a: topology level of 6 ranks is not a whole number of 4-rank nodes; \
             the SMPI platform needs nested levels"
        );
        t.levels.pop();
        let s = setup(&t, 8).unwrap();
        assert_eq!(s.cfg[11], "--cfg=smpi/simulate-computation:0");
        assert_eq!(
            s.cfg[12..],
            [
                "--log=s4u_actor.thres:warning",
                "--log=smpi_coll.thres:warning",
                "--log=xbt_cfg.thres:warning"
            ]
        );
    }
}
