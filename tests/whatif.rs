//! What-if runs end to end: `mpirun --target A --target B ...` and
//! `--sweep KEY=V1,V2` run the program once and replay the ranks' call logs
//! under every other configuration (src/replay/). At `cpu.scale = 0` each
//! configuration of a deterministic program must predict exactly what a
//! separate run with that target predicts (every rank's final time, to the
//! picosecond, and where it went), on 1 and 2 host cores; a program whose
//! timing-dependent outcomes (MPI_ANY_SOURCE, MPI_Test) come out
//! differently under a configuration gets that configuration flagged
//! approximate, and a separate run confirms that the outcomes do differ;
//! what a replay cannot reproduce is refused with a message naming it.
mod common;

use common::report::{predicted_ps, ranks, read, uint, vtime_ps};
use common::{program, scratch, write_target, Run};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Four targets at `cpu.scale = 0` that differ in every way the model
/// has: latency, bandwidths, eager limit, ranks per node, hop counts
/// (written once: the tests run at once).
fn targets() -> Vec<PathBuf> {
    static FILES: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    FILES.get_or_init(write_targets).clone()
}

fn write_targets() -> Vec<PathBuf> {
    let t = |name: &str, mem: &str, net: &str, lat: &str, eager: &str, per_node: u32, hops: u32| {
        write_target(
            &format!("whatif-{name}.toml"),
            &format!(
                r#"name = "{name}"
[cpu]
scale = 0
[network]
mem_bandwidth = "{mem}"
net_bandwidth = "{net}"
latency = "{lat}"
hop_latency = "0.6 us"
eager_limit = "{eager}"
header_bytes = 64
[topology]
levels = [ {{ ranks = {per_node}, hops = 0 }}, {{ ranks = 8, hops = {hops} }} ]
default_hops = 5
"#
            ),
        )
    };
    vec![
        t("base", "6.38 GB/s", "4.16 GB/s", "15 us", "128 KiB", 2, 3),
        t("fast-net", "6.38 GB/s", "25 GB/s", "1 us", "128 KiB", 2, 1),
        t("small-eager", "10 GB/s", "2 GB/s", "3 us", "1 KiB", 4, 3),
        t(
            "one-a-node",
            "6.38 GB/s",
            "4.16 GB/s",
            "15 us",
            "64 KiB",
            1,
            2,
        ),
    ]
}

/// `mpirun` with every target of `ts` (the first one runs), its report.
fn whatif(n: u32, prog: &str, args: &[&str], ts: &[PathBuf], extra: &[&str], cores: u32) -> Value {
    whatif_of(n, &program(prog), args, ts, extra, cores)
}

/// [`whatif`] of the program at `exe`.
fn whatif_of(
    n: u32,
    exe: &Path,
    args: &[&str],
    ts: &[PathBuf],
    extra: &[&str],
    cores: u32,
) -> Value {
    let prog = exe.file_name().unwrap().to_string_lossy();
    let json = scratch().join(format!("whatif-{prog}-{}-{cores}.json", ts.len()));
    let mut opts: Vec<String> = Vec::new();
    for t in &ts[1..] {
        opts.push("--target".into());
        opts.push(t.display().to_string());
    }
    opts.extend(extra.iter().map(|s| s.to_string()));
    let job = Run::new(n, ts[0].as_os_str(), exe)
        .option(&opts)
        .args(args)
        .cores(Some(cores))
        .report(&json)
        .run();
    job.assert_success();
    assert!(job.stderr.contains("what-if:"), "{}", job.dump());
    read(&json)
}

/// A separate run of `prog` on target `t`: its report and stdout.
fn alone(n: u32, prog: &str, args: &[&str], t: &Path) -> (Value, String) {
    alone_of(n, &program(prog), args, t)
}

/// [`alone`] of the program at `exe`.
fn alone_of(n: u32, exe: &Path, args: &[&str], t: &Path) -> (Value, String) {
    let prog = exe.file_name().unwrap().to_string_lossy();
    let json = scratch().join(format!(
        "whatif-alone-{prog}-{}.json",
        t.file_stem().unwrap().to_string_lossy()
    ));
    let job = Run::new(n, t.as_os_str(), exe)
        .args(args)
        .report(&json)
        .run();
    job.assert_success();
    (read(&json), job.stdout)
}

fn configurations(doc: &Value) -> Vec<Value> {
    doc.get("configurations")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("no `configurations` in {doc}"))
        .clone()
}

/// Every rank's (final time, computation, communication, waiting) in ps.
fn per_rank(report: &Value) -> Vec<[u64; 4]> {
    ranks(report)
        .iter()
        .map(|r| {
            let ps = |k: &str| (r[k].as_f64().unwrap() * 1e12).round() as u64;
            [vtime_ps(r), ps("compute_s"), ps("comm_s"), ps("wait_s")]
        })
        .collect()
}

/// Each configuration of one execution predicts what its own run does.
fn check_deterministic(n: u32, prog: &str, args: &[&str]) {
    check_deterministic_of(n, &program(prog), args)
}

/// [`check_deterministic`] of the program at `exe`.
fn check_deterministic_of(n: u32, exe: &Path, args: &[&str]) {
    let prog = exe.file_name().unwrap().to_string_lossy().into_owned();
    let ts = targets();
    let separate: Vec<Value> = ts.iter().map(|t| alone_of(n, exe, args, t).0).collect();
    for cores in [1, 2] {
        let doc = whatif_of(n, exe, args, &ts, &[], cores);
        let cs = configurations(&doc);
        assert_eq!(cs.len(), ts.len());
        for (i, (c, own)) in cs.iter().zip(&separate).enumerate() {
            assert_eq!(uint(c, "index"), i as u64);
            assert_eq!(c["replayed"], Value::Bool(i > 0), "{c}");
            assert_eq!(c["exact"], Value::Bool(true), "{prog} #{i}: {c}");
            assert_eq!(uint(c, "differing_outcomes"), 0);
            let rep = &c["report"];
            assert_eq!(
                predicted_ps(rep),
                predicted_ps(own),
                "{prog} on {} ({cores} cores)",
                ts[i].display()
            );
            assert_eq!(per_rank(rep), per_rank(own), "{prog} #{i} ({cores} cores)");
        }
        // the report's own prediction is the first configuration's
        assert_eq!(predicted_ps(&doc), predicted_ps(&separate[0]));
    }
}

#[test]
fn pingpong_eager_and_rendezvous() {
    check_deterministic(2, "pingpong", &["1", "3", "8", "4000", "300000"]);
}

#[test]
fn ring_of_sendrecv() {
    check_deterministic(8, "ring", &["shift", "3", "3000"]);
}

#[test]
fn collectives() {
    check_deterministic(8, "coll_timing", &[]);
}

#[test]
fn nonblocking_collectives_overlapping_computation() {
    // schedules of MPI_Ibcast and MPI_Ibarrier, replayed from their
    // description (eager and rendezvous sizes)
    check_deterministic(8, "icoll_overlap", &["bcast", "300000"]);
    check_deterministic(8, "icoll_overlap", &["barrier", "0"]);
    check_deterministic(8, "icoll_overlap", &["pbcast", "3000"]);
}

#[test]
fn nonblocking_reductions_gathers_and_scans() {
    // schedules with local steps (reductions: their CPU time is measured in
    // the run and taken from the measurement file by the replay)
    check_deterministic(5, "icoll_results2", &[]);
    check_deterministic(5, "icoll_results3", &[]);
}

#[test]
fn nonblocking_collectives_completed_by_testany_are_flagged() {
    // icoll_results completes outstanding collectives one by one with
    // MPI_Testany: how many tests fail depends on the target
    let ts = targets();
    let doc = whatif(5, "icoll_results", &[], &ts, &[], 2);
    let cs = configurations(&doc);
    assert_eq!(cs[0]["exact"], Value::Bool(true));
    assert!(
        cs[1..].iter().any(|c| c["exact"] == Value::Bool(false)),
        "{doc}"
    );
    assert!(cs.iter().all(|c| c["failure"].is_null()), "{doc}");
}

#[test]
fn npb_is_class_s() {
    check_deterministic_of(4, &common::npb::c_kernel("is"), &["S"]);
}

#[test]
fn npb_cg_class_s_in_fortran() {
    // (skipped without gfortran, as the other Fortran tests)
    if let Some(cg) = common::npb::fortran_kernel("cg", &["cg.f90"], &[]) {
        check_deterministic_of(4, &cg, &["S"]);
    }
}

#[test]
fn nonblocking_exchange_with_computation() {
    check_deterministic(2, "exchange", &["1", "200000", "0.00002"]);
}

/// The `got<k> src=S` lines of nd_master's rank 0: the order its
/// MPI_ANY_SOURCE receives took the workers' results.
fn sources(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.starts_with("nd rank=0 op=got"))
        .map(|l| l.split_whitespace().nth(3).unwrap().to_string())
        .collect()
}

#[test]
fn wildcard_decisions_that_differ_are_flagged() {
    // One rank a node with 15 us or more of latency takes the results in
    // another order than 12 ranks a node (the run).
    let base = write_target("whatif-nd.toml", common::model::TARGET_TOML);
    let sweep = [
        "--sweep",
        "topology.levels[0].ranks=12,1,2",
        "--sweep",
        "network.latency=1us,40us",
    ];
    let doc = whatif(
        5,
        "nd_master",
        &["12"],
        std::slice::from_ref(&base),
        &sweep,
        2,
    );
    let cs = configurations(&doc);
    assert_eq!(cs.len(), 6);
    let (_, ran) = alone(5, "nd_master", &["12"], &base);
    let mut flagged = 0;
    for (i, c) in cs.iter().enumerate() {
        // this configuration's own run
        let label = c["label"].as_str().unwrap();
        let mut text = common::model::TARGET_TOML.to_string();
        let per = label
            .split_whitespace()
            .next()
            .unwrap()
            .split('=')
            .nth(1)
            .unwrap();
        let lat = label
            .split_whitespace()
            .nth(1)
            .unwrap()
            .split('=')
            .nth(1)
            .unwrap();
        text = text.replace("ranks = 12,", &format!("ranks = {per},"));
        text = text.replace("latency = \"15 us\"", &format!("latency = \"{lat}\""));
        let own = write_target(&format!("whatif-nd-{i}.toml"), &text);
        let (rep, out) = alone(5, "nd_master", &["12"], &own);
        if c["exact"] == Value::Bool(true) {
            assert_eq!(
                predicted_ps(&c["report"]),
                predicted_ps(&rep),
                "#{i} {label}"
            );
            assert_eq!(per_rank(&c["report"]), per_rank(&rep), "#{i} {label}");
        } else {
            flagged += 1;
            assert!(uint(c, "differing_outcomes") > 0, "{c}");
            assert_ne!(
                sources(&out),
                sources(&ran),
                "#{i} {label} is flagged, yet its run takes the results in the same order"
            );
        }
    }
    assert!(flagged > 0, "no configuration flagged: {doc}");
}

#[test]
fn test_polls_that_differ_are_flagged() {
    // nd_testpoll polls with MPI_Test every 5 us: with a slower memory the
    // message arrives later and more polls fail.
    let base = write_target("whatif-poll.toml", common::model::TARGET_TOML);
    let sweep = ["--sweep", "network.mem_bandwidth=6.38GB/s,1MB/s"];
    let doc = whatif(2, "nd_testpoll", &["20"], &[base], &sweep, 1);
    let cs = configurations(&doc);
    assert_eq!(cs[0]["exact"], Value::Bool(true));
    assert_eq!(cs[1]["exact"], Value::Bool(false), "{}", cs[1]);
    assert_eq!(uint(&cs[1], "differing_outcomes"), 1, "{}", cs[1]);
}

#[test]
fn what_a_replay_cannot_reproduce_is_refused() {
    let ts = targets();
    for (prog, n, what) in [
        ("inter_idup", 4, "MPI_Comm_idup"),
        ("rma_ops", 2, "one-sided communication"),
        ("rma_shared", 2, "one-sided communication"),
        ("io_basic", 2, "MPI-IO"),
    ] {
        let job = Run::new(n, ts[0].as_os_str(), &program(prog))
            .option(&["--target", &ts[1].display().to_string()])
            .run();
        assert!(!job.status.success(), "{}", job.dump());
        assert!(
            job.stderr.contains(what)
                && job
                    .stderr
                    .contains("cannot be replayed under other targets"),
            "{prog}: {}",
            job.dump()
        );
    }
}

#[test]
fn bad_sweeps_are_usage_errors() {
    let exe = program("pingpong");
    for (sweep, says) in [
        ("network.bogus=1,2", "bogus"),
        ("network.latency=1us,fast", "fast"),
        ("nokey", "expected KEY=V1,V2"),
    ] {
        let job = Run::exact(2, &exe)
            .option(&["--sweep", sweep])
            .args(&["1", "1", "8"])
            .run();
        assert_eq!(job.status.code(), Some(2), "{}", job.dump());
        assert!(job.stderr.contains(says), "{sweep}: {}", job.dump());
    }
}

#[test]
fn contended_links() {
    // The contention model's flows resolve in the replay as in a run: three
    // flows into one node of a 2-ary 2-tree, swept over the bandwidth.
    let text = "name = \"contended\"\n[cpu]\nscale = 0\n[network]\n\
        mem_bandwidth = \"10 GB/s\"\nnet_bandwidth = \"1 GB/s\"\nlatency = \"1 us\"\n\
        hop_latency = \"0.5 us\"\neager_limit = \"64 KiB\"\nheader_bytes = 0\n\
        contention = \"links\"\n[topology]\nkind = \"fat-tree\"\nk = 2\nn = 2\n";
    let base = write_target("whatif-contended.toml", text);
    let args = ["1000", "1000", "200000:1e-6"];
    let bws = ["1GB/s", "2GB/s", "0.5GB/s"];
    let sweep = format!("network.net_bandwidth={}", bws.join(","));
    for cores in [1, 2] {
        let doc = whatif(
            4,
            "flows",
            &args,
            std::slice::from_ref(&base),
            &["--sweep", &sweep],
            cores,
        );
        let cs = configurations(&doc);
        assert_eq!(cs.len(), bws.len());
        for (i, (c, bw)) in cs.iter().zip(bws).enumerate() {
            let own = write_target(
                &format!("whatif-contended-{i}.toml"),
                &text.replace(
                    "net_bandwidth = \"1 GB/s\"",
                    &format!("net_bandwidth = \"{bw}\""),
                ),
            );
            let (rep, _) = alone(4, "flows", &args, &own);
            assert_eq!(c["exact"], Value::Bool(true), "{c}");
            assert_eq!(
                per_rank(&c["report"]),
                per_rank(&rep),
                "#{i} {bw} ({cores} cores)"
            );
        }
    }
}
