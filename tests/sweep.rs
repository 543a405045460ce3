//! `vaced sweep` end to end: a ping-pong swept over the network latency and
//! bandwidth at `cpu.scale = 0` predicts, for every configuration, exactly
//! what the model's equations give and what a plain `mpirun` with that
//! target predicts; the fit T = a + b·L + c/BW finds b = the number of
//! one-way latencies on the critical path, c = the bytes crossing the
//! network on it, a = the rest, exactly; bad keys, values and empty sweeps
//! are errors naming what is wrong. The sweep is one execution replayed
//! under the other configurations, or with `--separate` one run each: both
//! are checked.
mod common;

use common::model as tianhe;
use common::{program, report, write_target, Run};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Two nodes, one rank each, 1 hop apart; bandwidths that make every
/// transfer a whole number of picoseconds (M(b) = 100 b ps).
const TWO_NODES: &str = r#"name = "two-nodes"
[cpu]
scale = 0
[network]
mem_bandwidth = "10 GB/s"
net_bandwidth = "2 GB/s"
latency = "3 us"
hop_latency = "0.5 us"
eager_limit = "64 KiB"
header_bytes = 64
[topology]
levels = [ { ranks = 1, hops = 0 } ]
default_hops = 1
"#;

const HOP_LATENCY: u64 = 500_000;
const H: u64 = 64;
/// `pingpong 1 REPS 8 100000`: an eager and a rendezvous size.
const REPS: u64 = 2;
const EAGER: u64 = 8;
const RDV: u64 = 100_000;

/// A time T(L, BW) = a + b·L + c/BW: a in ps, b latencies, c bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Cost {
    a: u64,
    b: u64,
    c: u64,
}

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(self, o: Cost) -> Cost {
        Cost {
            a: self.a + o.a,
            b: self.b + o.b,
            c: self.c + o.c,
        }
    }
}

impl std::ops::Mul<u64> for Cost {
    type Output = Cost;
    fn mul(self, k: u64) -> Cost {
        Cost {
            a: self.a * k,
            b: self.b * k,
            c: self.c * k,
        }
    }
}

impl Cost {
    /// At latency `l` ps and bandwidth `bw` B/s (dividing 1e12 * c).
    fn at(self, l: u64, bw: u64) -> u64 {
        let c = self.c as u128 * 1_000_000_000_000 / bw as u128;
        assert_eq!(c * bw as u128, self.c as u128 * 1_000_000_000_000);
        self.a + self.b * l + c as u64
    }
}

/// M(b) on the two-node target: b / 10 GB/s = 100 b ps.
fn m(b: u64) -> u64 {
    100 * b
}

/// L(b, 1) = b/BW + L + hop_latency: one latency, b bytes, the hop.
fn link(b: u64) -> Cost {
    Cost {
        a: HOP_LATENCY,
        b: 1,
        c: b,
    }
}

fn fixed(a: u64) -> Cost {
    Cost { a, b: 0, c: 0 }
}

/// The ping-pong's final times (rank 0, rank 1) from the model's equations
/// (tests/exact_p2p.rs derives them): an eager one-way trip is
/// E = M(b) + L(b) + M(b); a rendezvous one is R = 2 (M(H) + L(H)) +
/// 2 M(b) + L(b) (REQ, ACK, DATA copied in, carried, copied out). Each rep
/// of each size is a round trip, 2 E or 2 R, rank 0 ending with its last
/// receive; rank 1 ends with its last send, which returns 2 (M(H) + L(H)) +
/// M(b) after its receive (REQ out, ACK back, DATA copied in).
fn expected() -> (Cost, Cost) {
    let e = fixed(2 * m(EAGER)) + link(EAGER);
    let hs = fixed(m(H)) + link(H);
    let r = hs * 2 + fixed(2 * m(RDV)) + link(RDV);
    let rank0 = (e * 2 + r * 2) * REPS;
    // Rank 1's last send starts when the last round trip's first half ends.
    let rank1_at_recv = Cost {
        a: rank0.a - r.a,
        b: rank0.b - r.b,
        c: rank0.c - r.c,
    };
    let rank1 = rank1_at_recv + hs * 2 + fixed(m(RDV));
    (rank0, rank1)
}

fn sweep(args: &[&str]) -> Output {
    Command::new(common::vaced())
        .arg("sweep")
        .args(args)
        .output()
        .expect("run vaced sweep")
}

fn dump(o: &Output) -> String {
    format!(
        "{}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn out_dir(name: &str) -> PathBuf {
    let d = common::scratch().join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

const LATENCIES: [(&str, u64); 3] = [("1us", 1_000_000), ("2us", 2_000_000), ("5us", 5_000_000)];
const BANDWIDTHS: [(&str, u64); 3] = [
    ("1GB/s", 1_000_000_000),
    ("2GB/s", 2_000_000_000),
    ("4GB/s", 4_000_000_000),
];

/// A plain `mpirun` on the two-node target with latency `l` and bandwidth
/// `bw`: the final virtual time of each rank.
fn plain_run(l: &str, bw: &str, dir: &Path) -> Vec<u64> {
    let text = TWO_NODES
        .replace("latency = \"3 us\"", &format!("latency = \"{l}\""))
        .replace(
            "net_bandwidth = \"2 GB/s\"",
            &format!("net_bandwidth = \"{bw}\""),
        );
    let name = format!("plain-{}-{}.toml", l, bw.replace('/', "_"));
    let target = write_target(&name, &text);
    let rep = dir.join(name.replace(".toml", ".json"));
    Run::new(2, target.as_os_str(), &program("pingpong"))
        .args(&["1", "2", "8", "100000"])
        .report(&rep)
        .run()
        .assert_success();
    let r = report::read(&rep);
    report::ranks(&r).iter().map(report::vtime_ps).collect()
}

#[test]
fn latency_and_bandwidth_sweep_of_a_pingpong_is_exact() {
    let (e0, e1) = expected();
    // The critical path: per rep, 2 eager trips (1 latency each) and 2
    // rendezvous trips (REQ, ACK, DATA: 3 each).
    assert_eq!(e0.b, REPS * (2 + 2 * 3));
    assert_eq!(e0.c, REPS * (2 * EAGER + 2 * (2 * H + RDV)));
    assert_eq!((e0.b, e0.c), (16, 400_544));
    assert_eq!((e1.b, e1.c), (15, 300_544));
    let target = write_target("two-nodes.toml", TWO_NODES);
    let prog = program("pingpong");
    let plain_dir = out_dir("plain");
    std::fs::create_dir_all(&plain_dir).unwrap();
    let mut plain = std::collections::HashMap::new();
    for (cores, separate) in [("1", false), ("2", false), ("2", true)] {
        let dir = out_dir(&format!("pp-cores{cores}-{separate}"));
        let mode: &[&str] = if separate { &["--separate"] } else { &[] };
        let o = sweep(
            &[
                mode,
                &[
                    "-n",
                    "2",
                    "--cores",
                    cores,
                    "--target",
                    target.to_str().unwrap(),
                    "--sweep",
                    "network.latency=1us,2us,5us",
                    "--sweep",
                    "network.net_bandwidth=1GB/s,2GB/s,4GB/s",
                    "-o",
                    dir.to_str().unwrap(),
                    "--",
                    prog.to_str().unwrap(),
                    "1",
                    "2",
                    "8",
                    "100000",
                ],
            ]
            .concat(),
        );
        assert!(o.status.success(), "{}", dump(&o));
        let stdout = String::from_utf8_lossy(&o.stdout);
        let stderr = String::from_utf8_lossy(&o.stderr);
        let note = if separate {
            "one run per configuration"
        } else {
            "one execution (the first configuration ran, the others were replayed)"
        };
        assert!(
            stdout.contains(note) && stderr.contains(note),
            "{}",
            dump(&o)
        );
        let doc = read_json(&dir.join("sweep.json"));
        assert_eq!(doc["note"], note);
        let configs = doc["configurations"].as_array().unwrap();
        assert_eq!(configs.len(), 9);
        for (i, c) in configs.iter().enumerate() {
            let (ls, l) = LATENCIES[i / 3];
            let (bs, bw) = BANDWIDTHS[i % 3];
            assert_eq!(c["values"]["network.latency"], ls);
            assert_eq!(c["values"]["network.net_bandwidth"], bs);
            let ranks: Vec<u64> = c["ranks_ps"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            // The model's equations...
            assert_eq!(
                ranks,
                [e0.at(l, bw), e1.at(l, bw)],
                "configuration {i}: {ls} {bs}"
            );
            assert_eq!(c["predicted_ps"], e0.at(l, bw));
            assert_eq!(c["exact"], true, "configuration {i}");
            // ... the configuration's own report ...
            let rep = report::read(Path::new(c["report"].as_str().unwrap()));
            assert_eq!(report::predicted_ps(&rep), e0.at(l, bw));
            // ... and a plain mpirun with that target.
            let p = plain
                .entry(i)
                .or_insert_with(|| plain_run(ls, bs, &plain_dir));
            assert_eq!(&ranks, p, "configuration {i} against plain mpirun");
            // The written target file is the configuration.
            let t = std::fs::read_to_string(c["target_file"].as_str().unwrap()).unwrap();
            assert!(t.contains(&format!("latency = \"{ls}\"")), "{t}");
        }
        // The fits: one group (nothing else swept), exact.
        let fits = doc["fits"].as_array().unwrap();
        assert_eq!(fits.len(), 1);
        let f = &fits[0];
        assert_eq!(f["configurations"].as_array().unwrap().len(), 9);
        for (name, got, want) in [
            ("job", &f["job"], e0),
            ("rank 0", &f["ranks"][0], e0),
            ("rank 1", &f["ranks"][1], e1),
        ] {
            assert_eq!(got["a_ps"], want.a as f64, "{name}: {got}");
            assert_eq!(got["a_s"], want.a as f64 / 1e12, "{name}");
            assert_eq!(got["b_latencies"], want.b as f64, "{name}");
            assert_eq!(got["c_bytes"], want.c as f64, "{name}");
            let res = got["residuals_ps"].as_array().unwrap();
            assert_eq!(res.len(), 9);
            assert!(res.iter().all(|r| r == 0.0), "{name}: {res:?}");
            assert_eq!(got["max_residual_s"], 0.0);
            // Shares at the base: L = 3 us, BW = 2 GB/s.
            let t = want.at(3_000_000, 2_000_000_000) as f64;
            let s = &got["shares_at_base"];
            assert_eq!(s["constant"], want.a as f64 / t, "{name}");
            assert_eq!(s["latency"], (want.b * 3_000_000) as f64 / t, "{name}");
            assert_eq!(s["bandwidth"], (want.c * 500) as f64 / t, "{name}");
        }
        // The text says the same.
        assert!(stdout.contains("T = a + b*L + c/BW"), "{stdout}");
        let job_line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with("job "))
            .unwrap_or_else(|| panic!("no job line:\n{stdout}"));
        let cols: Vec<&str> = job_line.split("  ").filter(|s| !s.is_empty()).collect();
        assert_eq!(cols[2].trim(), "16", "{job_line}");
        assert_eq!(cols[3].trim(), "400544", "{job_line}");
        // A figure per swept key, one line per value of the other key.
        for (key, others) in [
            ("network.latency", ["1GB/s", "2GB/s", "4GB/s"]),
            ("network.net_bandwidth", ["1us", "2us", "5us"]),
        ] {
            let svg = std::fs::read_to_string(dir.join(format!("sweep-{key}.svg"))).unwrap();
            let doc = roxmltree::Document::parse(&svg).unwrap();
            let texts: Vec<String> = doc
                .descendants()
                .filter(|n| n.has_tag_name("text"))
                .map(|n| n.text().unwrap_or("").trim().to_string())
                .collect();
            for o in others {
                assert!(
                    texts.iter().any(|t| t == o),
                    "{key}: no line for {o}: {texts:?}"
                );
            }
            let other = if key == "network.latency" {
                "network.net_bandwidth"
            } else {
                "network.latency"
            };
            assert!(texts.iter().any(|t| t == other), "{texts:?}");
            assert!(texts.iter().any(|t| t.starts_with(key)), "{texts:?}");
        }
    }
}

/// On a preset (tianhe1a, ranks 0 and 12 three hops apart), swept over the
/// latency with `cpu.scale=0` set by the sweep: b = 16, and a is the
/// rest of the time (the bandwidth is not swept: its part is in a).
#[test]
fn latency_sweep_on_a_preset_at_scale_0() {
    let dir = out_dir("preset");
    let prog = program("pingpong");
    let o = sweep(&[
        "-n",
        "13",
        "--sweep",
        "cpu.scale=0",
        "--sweep",
        "network.latency=5us,10us,15us",
        "--target",
        "tianhe1a",
        "-o",
        dir.to_str().unwrap(),
        prog.to_str().unwrap(),
        "12",
        "2",
        "8",
        "200000",
    ]);
    assert!(o.status.success(), "{}", dump(&o));
    let doc = read_json(&dir.join("sweep.json"));
    // The reference model of the exact tests, at latency `l`.
    let h = tianhe::hop(0, 12);
    assert_eq!(h, 3);
    let hops = h as u64 * tianhe::HOP_LATENCY;
    let one_way = |b: u64| -> (u64, u64) {
        // (ps without the latencies, latencies)
        if tianhe::is_eager(b) {
            (2 * tianhe::m(b) + tianhe::n(b) + hops, 1)
        } else {
            let hs = tianhe::m(tianhe::H) + tianhe::n(tianhe::H) + hops;
            (2 * hs + 2 * tianhe::m(b) + tianhe::n(b) + hops, 3)
        }
    };
    let (ae, be) = one_way(8);
    let (ar, br) = one_way(200_000);
    let (a, b) = (2 * 2 * (ae + ar), 2 * 2 * (be + br));
    assert_eq!(b, 16);
    let configs = doc["configurations"].as_array().unwrap();
    for (c, l) in configs.iter().zip([5_000_000u64, 10_000_000, 15_000_000]) {
        assert_eq!(c["predicted_ps"], a + b * l, "{c}");
    }
    // At 15 us this is the exact tests' ping-pong (tianhe1a at scale 0).
    let plain = common::scratch().join("preset-plain.json");
    Run::exact(13, &prog)
        .args(&["12", "2", "8", "200000"])
        .report(&plain)
        .run()
        .assert_success();
    let p = report::read(&plain);
    assert_eq!(configs[2]["predicted_ps"], report::predicted_ps(&p));
    let f = &doc["fits"][0];
    assert_eq!(f["fixed"]["cpu.scale"], "0");
    assert_eq!(f["job"]["b_latencies"], 16.0);
    assert_eq!(f["job"]["a_ps"], a as f64);
    assert_eq!(f["job"]["c_bytes"], Value::Null);
    assert_eq!(f["job"]["shares_at_base"]["bandwidth"], Value::Null);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("BW was not swept"), "{stdout}");
    // Only the latency has two values: one figure.
    assert!(dir.join("sweep-network.latency.svg").is_file());
    assert!(!dir.join("sweep-cpu.scale.svg").exists());
}

/// An error and nothing run: exit status 2, the message on stderr.
fn refused(args: &[&str], dir: &Path) -> String {
    let mut v = args.to_vec();
    v.extend(["-o", dir.to_str().unwrap(), "/bin/true"]);
    let o = sweep(&v);
    assert_eq!(o.status.code(), Some(2), "{}", dump(&o));
    assert!(!dir.join("config-000.json").exists(), "something ran");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn bad_keys_values_and_empty_sweeps_are_refused() {
    let dir = out_dir("errors");
    let e = refused(&["--sweep", "network.latncy=1us,2us"], &dir);
    assert!(e.starts_with("vaced sweep: "), "{e}");
    assert!(e.contains("key `network.latncy`"), "{e}");
    assert!(e.contains("did you mean `latency`"), "{e}");
    let e = refused(&["--sweep", "network.latency=1us,fast"], &dir);
    assert!(e.contains("key `network.latency`"), "{e}");
    assert!(e.contains("`fast` does not start with a number"), "{e}");
    let e = refused(&["--sweep", "network.net_bandwidth=2"], &dir);
    assert!(
        e.contains("key `network.net_bandwidth`: missing unit"),
        "{e}"
    );
    let e = refused(&["--sweep", "cpu.scale=-1"], &dir);
    assert!(e.contains("key `cpu.scale`"), "{e}");
    let e = refused(&["--sweep", "name=a,b"], &dir);
    assert!(e.contains("not a number or a quantity"), "{e}");
    let e = refused(&[], &dir);
    assert!(e.contains("no configurations"), "{e}");
    let e = refused(&["--sweep", "network.latency"], &dir);
    assert!(e.contains("--sweep <KEY=V1,V2,...>"), "{e}");
    assert!(e.contains("no `=`"), "{e}");
    let e = refused(&["--sweep", "network.latency=1us,,2us"], &dir);
    assert!(e.contains("empty value"), "{e}");
    let e = refused(&["--target", "nosuch"], &dir);
    assert!(e.contains("invalid target") && e.contains("nosuch"), "{e}");
}

#[test]
fn help_says_one_run_per_configuration() {
    let o = sweep(&["--help"]);
    assert!(o.status.success());
    let h = String::from_utf8_lossy(&o.stdout);
    for s in [
        "One execution: the program runs under the first configuration and is",
        "--separate",
        "--sweep <KEY=V1,V2,...>",
        "--target <NAME|FILE>",
        "sweep.json",
        "T = a + b*L + c/BW",
    ] {
        assert!(h.contains(s), "`{s}` missing:\n{h}");
    }
    let top = Command::new(common::vaced())
        .arg("--help")
        .output()
        .unwrap();
    let top = String::from_utf8_lossy(&top.stdout);
    assert!(top.contains("sweep"), "{top}");
}
