//! Writing the fitted parameters as a vaced target file: every value quoted
//! with a unit (`header_bytes` a plain integer), and comments that record
//! where each figure comes from: the host, the MPI library, the command, every
//! measurement, the fit and its error per message size.
use crate::fit::{Costs, Link, PairFit};
use std::fmt::Write;

/// Where a section's figures come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Its own pair of ranks was measured.
    Measured,
    /// Off-node, without a second node in the run: the on-node ping-pong
    /// fitted with the off-node equations.
    FromOnNode,
    /// On-node, without a second rank on rank 0's node: the off-node fit.
    FromOffNode,
}

/// One section's fit (`[network]` or `[network.node]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub fit: PairFit,
    pub origin: Origin,
    /// The two ranks whose ping-pong was fitted.
    pub pair: (i32, i32),
}

/// Who, where and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Host {
    pub hostname: String,
    /// `MPI_Get_library_version`
    pub library: String,
    /// "2026-11-27 22:41:07 UTC"
    pub date: String,
    pub command: String,
    pub ranks: i32,
    pub nodes: usize,
}

/// Everything the target file says.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    pub name: String,
    pub host: Host,
    pub costs: Costs,
    /// (buffer bytes, bytes per second) of each memcpy size.
    pub memcpy: Vec<(u64, f64)>,
    /// The buffer size whose copy gave mem_bandwidth.
    pub mem_bytes: u64,
    /// Bursts x messages of the overhead tests, and the pair they ran on.
    pub burst: (usize, usize),
    pub overhead_pair: (i32, i32),
    pub net: Section,
    pub node: Section,
    /// Ranks per target node (`topology.levels[0].ranks`).
    pub node_ranks: u32,
    /// Where node_ranks comes from.
    pub node_ranks_origin: String,
}

/// Bytes per second in GB/s or MB/s, 3 decimals (MB/s or kB/s resolution).
pub fn fmt_bandwidth(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{} GB/s", decimals(bps / 1e9, 3))
    } else {
        format!("{} MB/s", decimals(bps / 1e6, 3))
    }
}

/// Seconds rounded to whole picoseconds (what vaced keeps), in ns below 1 us
/// and in us above.
pub fn fmt_time(s: f64) -> String {
    let ps = (s * 1e12).round().max(0.0) as u64;
    match ps {
        0 => "0 s".into(),
        1..=999_999 => format!("{} ns", exact(ps, 3)),
        _ => format!("{} us", exact(ps, 6)),
    }
}

/// Bytes as "N MiB", "N KiB" or "N B", exactly.
pub fn fmt_size(b: u64) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{} MiB", b >> 20)
    } else if b >= 1 << 10 && b.is_multiple_of(1 << 10) {
        format!("{} KiB", b >> 10)
    } else {
        format!("{b} B")
    }
}

/// Seconds for tables: 3 significant decimals in ns, us or ms.
fn human_time(s: f64) -> String {
    if s < 1e-6 {
        format!("{:.1} ns", s * 1e9)
    } else if s < 1e-3 {
        format!("{:.3} us", s * 1e6)
    } else {
        format!("{:.3} ms", s * 1e3)
    }
}

/// Seconds per byte as ns per KiB.
fn per_kib(s: f64) -> String {
    format!("{:.2} ns/KiB", s * 1024.0 * 1e9)
}

/// `x` with at most `d` decimals, trailing zeros dropped.
fn decimals(x: f64, d: usize) -> String {
    let s = format!("{x:.d$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').into()
    } else {
        s
    }
}

/// `n / 10^k` written exactly, trailing zeros dropped.
fn exact(n: u64, k: u32) -> String {
    let p = 10u64.pow(k);
    let frac = format!("{:0w$}", n % p, w = k as usize);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        (n / p).to_string()
    } else {
        format!("{}.{frac}", n / p)
    }
}

/// "2026-11-27 22:41:07 UTC" for seconds since the Unix epoch.
pub fn utc_date(unix: u64) -> String {
    let (days, secs) = ((unix / 86400) as i64, unix % 86400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// The comment lines about one section's ping-pong and fit.
fn section_comment(out: &mut Vec<String>, title: &str, s: &Section, c: &Costs) {
    let f = &s.fit;
    let l = &f.link;
    let (a, b) = s.pair;
    match s.origin {
        Origin::Measured => out.push(format!(
            "{title}: ping-pong between ranks {a} and {b}, best one-way time (half a round trip) per size."
        )),
        Origin::FromOnNode => {
            out.push(format!("{title}: no second node in this run: off-node values copied from on-node ones"));
            out.push(format!(
                "  (the on-node ping-pong of ranks {a} and {b}, fitted with the off-node equations: two copies, no single copy)."
            ));
        }
        Origin::FromOffNode => {
            out.push(format!(
                "{title}: no other rank on rank 0's node in this run: on-node values copied from off-node ones"
            ));
            out.push(format!("  (the off-node ping-pong of ranks {a} and {b})."));
        }
    }
    let sw = &f.switch;
    match (sw.first_rendezvous, sw.rendezvous) {
        (Some(first), Some(r)) => {
            out.push(format!(
                "  Eager/rendezvous switch between {} and {}: two lines with a break there leave a residual of {:.3e}",
                fmt_size(sw.eager_limit),
                fmt_size(first),
                sw.residual_two
            ));
            out.push(format!(
                "  (sum of squared relative errors; one line: {:.3e}), so eager_limit = {}, the largest eager size measured.",
                sw.residual_one,
                fmt_size(sw.eager_limit)
            ));
            out.push(format!(
                "  Eager line: {} + {}; rendezvous line: {} + {}.",
                human_time(sw.eager.intercept),
                per_kib(sw.eager.slope),
                human_time(r.intercept),
                per_kib(r.slope)
            ));
        }
        _ => {
            out.push(format!(
                "  No eager/rendezvous switch found (no jump in the times): every size is eager; eager_limit = {}, the largest size measured.",
                fmt_size(sw.eager_limit)
            ));
            out.push(format!(
                "  One line: {} + {}.",
                human_time(sw.eager.intercept),
                per_kib(sw.eager.slope)
            ));
        }
    }
    out.push(format!(
        "  latency = eager intercept {} - o_send - o_recv = {}{}.",
        human_time(sw.eager.intercept),
        human_time(l.latency),
        if l.latency == 0.0 {
            " (not below 0)"
        } else {
            ""
        }
    ));
    let copies = 2.0 / c.mem_bandwidth;
    if f.charged_all {
        out.push(format!(
            "  bandwidth = {}: the per-byte time is below two copies (2 / mem_bandwidth = {}), so all of it is",
            fmt_bandwidth(l.bandwidth),
            per_kib(copies)
        ));
        out.push("  charged to the bandwidth (the model still adds the copies: it overestimates large messages).".into());
    } else {
        out.push(format!(
            "  bandwidth = {}: least squares over every size of the time left after overheads, latencies and copies.",
            fmt_bandwidth(l.bandwidth)
        ));
    }
    if sw.rendezvous.is_some() {
        out.push(format!(
            "  rendezvous_overhead = {}, rendezvous_bandwidth = {}: a weighted line through the rendezvous sizes' time",
            human_time(l.rendezvous_overhead),
            fmt_bandwidth(l.rendezvous_bandwidth)
        ));
        out.push(format!(
            "  left after overheads, REQ and ACK, the DATA's latency{} (overhead not below 0).",
            if f.charged_all_rendezvous {
                " (per-byte time below the copies: all of it charged to the bandwidth)"
            } else if l.single_copy {
                ""
            } else {
                " and copies"
            }
        ));
    }
    if let (Some(other), Some(r)) = (f.rms_other, sw.rendezvous) {
        let (with, without) = if l.single_copy {
            (f.rms, other)
        } else {
            (other, f.rms)
        };
        out.push(format!(
            "  single_copy = {}: RMS error {:.1} % with one copy in rendezvous, {:.1} % with copies in and out",
            l.single_copy,
            with * 100.0,
            without * 100.0
        ));
        out.push(format!(
            "  (rendezvous slope {} against two copies 2 / mem_bandwidth = {}).",
            per_kib(r.slope),
            per_kib(copies)
        ));
    }
    out.push("        size     measured      modelled    error  protocol".into());
    for r in &f.rows {
        out.push(format!(
            "  {:>10}  {:>11}  {:>12}  {:>+6.1} %  {}",
            fmt_size(r.bytes),
            human_time(r.measured),
            human_time(r.modelled),
            r.rel_error() * 100.0,
            if r.rendezvous { "rendezvous" } else { "eager" }
        ));
    }
    out.push(format!(
        "  RMS relative error: {:.2} %; largest: {:.1} %.",
        f.rms * 100.0,
        f.rows
            .iter()
            .map(|r| r.rel_error().abs())
            .fold(0.0, f64::max)
            * 100.0
    ));
}

/// The target file.
pub fn to_toml(cal: &Calibration) -> String {
    let c = &cal.costs;
    let h = &cal.host;
    let mut cm: Vec<String> = vec![
        "Target file written by vaced-calibrate: this machine's MPI, measured, fitted to vaced's message model.".into(),
        format!("  host:    {} ({} ranks on {} node(s))", h.hostname, h.ranks, h.nodes),
    ];
    // The library's first lines (MPICH goes on with its configure line).
    let library = h.library.lines().map(str::trim).filter(|l| !l.is_empty());
    for (i, l) in library.take(4).enumerate() {
        let l: String = l.replace('\t', " ").chars().take(120).collect();
        let key = if i == 0 { "MPI:     " } else { "         " };
        cm.push(format!("  {key}{l}"));
    }
    cm.push(format!("  date:    {}", h.date));
    cm.push(format!("  command: {}", h.command));
    cm.push(String::new());
    let copies: Vec<String> = cal
        .memcpy
        .iter()
        .map(|(b, bw)| format!("{} {}", fmt_size(*b), fmt_bandwidth(*bw)))
        .collect();
    cm.push(format!(
        "memcpy (rank 0 alone, best copy): {}; mem_bandwidth is the {} copy's:",
        copies.join(", "),
        fmt_size(cal.mem_bytes)
    ));
    cm.push(
        "  the size of the largest ping-pong message, whose buffers are as warm in the caches as this copy's.".into(),
    );
    cm.push(format!(
        "o_send: best time per MPI_Send of 1 byte in {} bursts of {}, the receiver's receives posted beforehand;",
        cal.burst.0, cal.burst.1
    ));
    cm.push(format!(
        "o_recv: best time per MPI_Recv of 1 byte already arrived (the receiver sleeps 2 ms first); ranks {} and {}.",
        cal.overhead_pair.0, cal.overhead_pair.1
    ));
    cm.push(format!(
        "header_bytes (REQ and ACK) is not measured: {} bytes.",
        c.header_bytes
    ));
    cm.push(String::new());
    section_comment(&mut cm, "On-node [network.node]", &cal.node, c);
    cm.push(String::new());
    section_comment(&mut cm, "Off-node [network]", &cal.net, c);
    cm.push(String::new());
    cm.push(format!(
        "Topology: one node of {} ranks ({}); ranks on other nodes are one hop away, hop_latency 0.",
        cal.node_ranks, cal.node_ranks_origin
    ));

    let mut s = String::new();
    for l in &cm {
        if l.is_empty() {
            s.push_str("#\n");
        } else {
            writeln!(s, "# {l}").unwrap();
        }
    }
    let net: &Link = &cal.net.fit.link;
    let node: &Link = &cal.node.fit.link;
    let q = |v: String| format!("\"{v}\"");
    let kv = |s: &mut String, k: &str, v: String, note: &str| {
        let line = format!("{k} = {v}");
        writeln!(s, "{line:<31} # {note}").unwrap();
    };
    writeln!(s, "name = \"{}\"", cal.name.replace(['"', '\\'], "")).unwrap();
    s.push_str("\n[cpu]\n");
    kv(
        &mut s,
        "scale",
        "1.0".into(),
        "computation as fast as on this host",
    );
    s.push_str("\n[network]\n");
    kv(
        &mut s,
        "mem_bandwidth",
        q(fmt_bandwidth(c.mem_bandwidth)),
        "Bmem: memcpy (see above)",
    );
    kv(
        &mut s,
        "net_bandwidth",
        q(fmt_bandwidth(net.bandwidth)),
        "B between nodes (fit)",
    );
    kv(
        &mut s,
        "latency",
        q(fmt_time(net.latency)),
        "between nodes (fit)",
    );
    kv(
        &mut s,
        "hop_latency",
        q(fmt_time(0.0)),
        "one level of nodes: no hops",
    );
    kv(
        &mut s,
        "eager_limit",
        q(fmt_size(net.eager_limit)),
        "largest eager message between nodes",
    );
    kv(
        &mut s,
        "header_bytes",
        c.header_bytes.to_string(),
        "REQ and ACK size (not measured)",
    );
    kv(
        &mut s,
        "o_send",
        q(fmt_time(c.o_send)),
        "per MPI_Send (measured)",
    );
    kv(
        &mut s,
        "o_recv",
        q(fmt_time(c.o_recv)),
        "per MPI_Recv (measured)",
    );
    kv(
        &mut s,
        "rendezvous_overhead",
        q(fmt_time(net.rendezvous_overhead)),
        "from ACK to DATA between nodes (fit)",
    );
    kv(
        &mut s,
        "rendezvous_bandwidth",
        q(fmt_bandwidth(net.rendezvous_bandwidth)),
        "rendezvous DATA between nodes (fit)",
    );
    s.push_str("\n[network.node]                  # messages between ranks on the same node\n");
    kv(
        &mut s,
        "latency",
        q(fmt_time(node.latency)),
        "on-node (fit)",
    );
    kv(
        &mut s,
        "bandwidth",
        q(fmt_bandwidth(node.bandwidth)),
        "on-node (fit)",
    );
    kv(
        &mut s,
        "eager_limit",
        q(fmt_size(node.eager_limit)),
        "largest eager message on-node",
    );
    kv(
        &mut s,
        "single_copy",
        node.single_copy.to_string(),
        if node.single_copy {
            "rendezvous DATA copied once (smaller RMS error)"
        } else {
            "rendezvous DATA copied in and out"
        },
    );
    kv(
        &mut s,
        "rendezvous_overhead",
        q(fmt_time(node.rendezvous_overhead)),
        "from ACK to DATA on-node (fit)",
    );
    kv(
        &mut s,
        "rendezvous_bandwidth",
        q(fmt_bandwidth(node.rendezvous_bandwidth)),
        "rendezvous DATA on-node (fit)",
    );
    s.push_str("\n[topology]\n");
    kv(
        &mut s,
        "levels",
        format!("[ {{ ranks = {}, hops = 0 }} ]", cal.node_ranks),
        "one node of this many ranks",
    );
    kv(&mut s, "default_hops", "1".into(), "ranks on other nodes");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::{fit_pair, model_time};

    const COSTS: Costs = Costs {
        mem_bandwidth: 9.8e9,
        o_send: 150e-9,
        o_recv: 120e-9,
        header_bytes: 64,
    };

    fn section(link: Link, on_node: bool, origin: Origin) -> Section {
        let sizes = [0u64, 1, 64, 1024, 8192, 65536, 98304, 1 << 20, 4 << 20];
        let data: Vec<(u64, f64)> = sizes
            .iter()
            .map(|&b| (b, model_time(&COSTS, &link, b)))
            .collect();
        Section {
            fit: fit_pair(&data, &COSTS, on_node).unwrap(),
            origin,
            pair: (0, 1),
        }
    }

    fn calibration(net_origin: Origin) -> Calibration {
        let node = Link {
            latency: 0.3e-6,
            bandwidth: 10e9,
            eager_limit: 64 << 10,
            single_copy: true,
            rendezvous_overhead: 2e-6,
            rendezvous_bandwidth: 8e9,
        };
        let net = Link {
            latency: 1.9e-6,
            bandwidth: 3.2e9,
            eager_limit: 64 << 10,
            single_copy: false,
            rendezvous_overhead: 5e-6,
            rendezvous_bandwidth: 2e9,
        };
        Calibration {
            name: "this-host".into(),
            host: Host {
                hostname: "node1".into(),
                library: "MPICH Version:      4.0.2\nMPICH Release date: Thu May 26 2022\n".into(),
                date: utc_date(0),
                command: "vaced-calibrate --out host.toml".into(),
                ranks: 2,
                nodes: 1,
            },
            costs: COSTS,
            memcpy: vec![(4 << 20, 9.8e9), (64 << 20, 7e9)],
            mem_bytes: 4 << 20,
            burst: (20, 1000),
            overhead_pair: (0, 1),
            net: section(net, false, net_origin),
            node: section(node, true, Origin::Measured),
            node_ranks: 2,
            node_ranks_origin: "ranks on rank 0's node in this run".into(),
        }
    }

    /// A value with a unit, as vaced reads it, in base units.
    fn unit(v: &toml::Value) -> f64 {
        let s = v.as_str().unwrap();
        let (n, u) = s.split_once(' ').unwrap();
        let n: f64 = n.parse().unwrap();
        n * match u {
            "s" | "B" | "B/s" => 1.0,
            "ns" => 1e-9,
            "us" => 1e-6,
            "KiB" => 1024.0,
            "MiB" => 1048576.0,
            "MB/s" => 1e6,
            "GB/s" => 1e9,
            _ => panic!("unit {u}"),
        }
    }

    fn keys(t: &toml::Value) -> Vec<&str> {
        t.as_table().unwrap().keys().map(String::as_str).collect()
    }

    #[test]
    fn writes_a_complete_target_file() {
        let text = to_toml(&calibration(Origin::Measured));
        let t: toml::Value = toml::from_str(&text).unwrap();
        let mut top = keys(&t);
        top.sort_unstable();
        assert_eq!(top, ["cpu", "name", "network", "topology"]);
        assert_eq!(t["name"].as_str(), Some("this-host"));
        assert_eq!(t["cpu"]["scale"].as_float(), Some(1.0));
        let n = &t["network"];
        let mut nk = keys(n);
        nk.sort_unstable();
        assert_eq!(
            nk,
            [
                "eager_limit",
                "header_bytes",
                "hop_latency",
                "latency",
                "mem_bandwidth",
                "net_bandwidth",
                "node",
                "o_recv",
                "o_send",
                "rendezvous_bandwidth",
                "rendezvous_overhead"
            ]
        );
        let close = |v: &toml::Value, x: f64| {
            let got = unit(v);
            assert!((got - x).abs() <= 1e-3 * x.abs() + 1e-12, "{v} vs {x}");
        };
        close(&n["mem_bandwidth"], 9.8e9);
        close(&n["net_bandwidth"], 3.2e9);
        close(&n["latency"], 1.9e-6);
        close(&n["hop_latency"], 0.0);
        close(&n["eager_limit"], 65536.0);
        assert_eq!(n["header_bytes"].as_integer(), Some(64));
        close(&n["o_send"], 150e-9);
        close(&n["o_recv"], 120e-9);
        close(&n["rendezvous_overhead"], 5e-6);
        close(&n["rendezvous_bandwidth"], 2e9);
        let node = &n["node"];
        let mut k = keys(node);
        k.sort_unstable();
        assert_eq!(
            k,
            [
                "bandwidth",
                "eager_limit",
                "latency",
                "rendezvous_bandwidth",
                "rendezvous_overhead",
                "single_copy"
            ]
        );
        close(&node["rendezvous_overhead"], 2e-6);
        close(&node["rendezvous_bandwidth"], 8e9);
        close(&node["latency"], 0.3e-6);
        close(&node["bandwidth"], 10e9);
        close(&node["eager_limit"], 65536.0);
        assert_eq!(node["single_copy"].as_bool(), Some(true));
        let levels = t["topology"]["levels"].as_array().unwrap();
        assert_eq!(levels.len(), 1);
        assert_eq!(levels[0]["ranks"].as_integer(), Some(2));
        assert_eq!(levels[0]["hops"].as_integer(), Some(0));
        assert_eq!(t["topology"]["default_hops"].as_integer(), Some(1));

        // The comments: every one starts with '#', and records the host, the
        // library, the command and each size.
        let comments: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
        let all = comments.join("\n");
        for s in [
            "host:    node1",
            "MPI:     MPICH Version:      4.0.2",
            "date:    1970-01-01 00:00:00 UTC",
            "command: vaced-calibrate --out host.toml",
            "memcpy (rank 0 alone, best copy): 4 MiB 9.8 GB/s, 64 MiB 7 GB/s; mem_bandwidth is the 4 MiB copy's",
            "Eager/rendezvous switch between 64 KiB and 96 KiB",
            "single_copy = true",
            "RMS relative error: 0.00 %",
        ] {
            assert!(all.contains(s), "no `{s}` in\n{all}");
        }
        assert_eq!(
            comments.iter().filter(|l| l.ends_with("  eager")).count(),
            2 * 6
        );
        assert!(!all.contains("no second node"));
    }

    #[test]
    fn says_when_off_node_is_copied() {
        let text = to_toml(&calibration(Origin::FromOnNode));
        assert!(text.contains(
            "# Off-node [network]: no second node in this run: off-node values copied from on-node ones\n"
        ));
    }

    #[test]
    fn formats_exactly() {
        assert_eq!(fmt_time(0.0), "0 s");
        assert_eq!(fmt_time(150e-9), "150 ns");
        assert_eq!(fmt_time(150.1234e-9), "150.123 ns");
        assert_eq!(fmt_time(1.9e-6), "1.9 us");
        assert_eq!(fmt_time(12.345678e-6), "12.345678 us");
        assert_eq!(fmt_time(-1e-9), "0 s");
        assert_eq!(fmt_bandwidth(9.8e9), "9.8 GB/s");
        assert_eq!(fmt_bandwidth(3_214_567_891.0), "3.215 GB/s");
        assert_eq!(fmt_bandwidth(850e6), "850 MB/s");
        assert_eq!(fmt_size(0), "0 B");
        assert_eq!(fmt_size(1536), "1536 B");
        assert_eq!(fmt_size(64 << 10), "64 KiB");
        assert_eq!(fmt_size(3 << 20), "3 MiB");
        assert_eq!(utc_date(1_795_732_867), "2026-11-26 22:41:07 UTC");
        assert_eq!(utc_date(951_782_400), "2000-02-29 00:00:00 UTC");
    }
}
