//! `bench-npb/run --shaped RATE[:DELAY],...`: vaced against the system MPICH
//! running for real across two emulated nodes (netns.rs: two network
//! namespaces joined by a shaped veth pair, one rank in each, MPICH over TCP).
//!
//! For each shaping:
//! 1. the veth's egress is shaped at both ends (tbf rate; netem delay where
//!    the kernel has sch_netem, else a shaping with a delay is skipped);
//! 2. [`calibrate`] runs vaced-calibrate across the namespaces under MPICH,
//!    one rank each: it measures the shaped link as its off-node pair and
//!    writes a target file of 2 nodes of 1 rank;
//! 3. each kernel and class runs `--repeat` times (3 by default), interleaved: under
//!    MPICH across the namespaces (real time), then under vaced on the host
//!    with that target (predicted time); RE = predicted / real - 1 of the
//!    same repetition, and the median |RE| per shaping.
//!
//! The veth's byte counters are read around every MPICH run: the
//! calibration ping-pong must have sent at least the sum of its message
//! sizes each way (else the run stops: MPICH did not use the link); each
//! kernel row shows the bytes beside vaced's count of bytes sent.
use crate::case::{self, Case, Measurement, Mode};
use crate::env::{now_stamp, which, Env};
use crate::kernels::{self, Runner};
use crate::metrics::{self, opt, percent, secs};
use crate::netns::{self, NsPair, Shaping};
use crate::npb::NpbArgs;
use crate::npbout;
use crate::proc::{self, Exit, JobSpec};
use crate::table::Table;
use crate::target::Target;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The tools the mode needs, found on PATH (and `tc`, which netns.rs runs
/// inside the namespaces).
pub struct Tools {
    pub ip: PathBuf,
    pub unshare: PathBuf,
    pub mpiexec: PathBuf,
}

impl Tools {
    fn find() -> Result<Tools, String> {
        let f = |n: &str| which(n).ok_or_else(|| format!("--shaped needs `{n}` on PATH"));
        f("tc")?;
        Ok(Tools {
            ip: f("ip")?,
            unshare: f("unshare")?,
            mpiexec: f("mpiexec.mpich")?,
        })
        .and_then(|t| {
            // vaced-calibrate and the kernels are built with it
            f("mpicc.mpich")?;
            Ok(t)
        })
    }
}

/// MPICH across the two namespaces.
pub struct Nodes<'a> {
    pub pair: &'a NsPair,
    pub tools: &'a Tools,
    /// The Hydra launcher script (netns::launcher_script).
    pub launcher: PathBuf,
}

/// UCX over TCP only (no shared memory). The namespaces have no interface
/// but `lo` and the veth, so the ranks can only reach each other over the
/// veth. (`UCX_NET_DEVICES=<veth>` as well made MPICH 4.0.2 / UCX hang in
/// MPI_Finalize here, busy-polling after the program's last output.)
pub fn ucx_env() -> Vec<(String, String)> {
    vec![("UCX_TLS".into(), "self,tcp".into())]
}

/// The command that runs `exe args` on 2 ranks, one per namespace: Hydra's
/// mpiexec runs in namespace a under node 0's hostname, starts the proxy of
/// node 1 through the launcher script, and listens on the veth (`-iface`).
pub fn mpiexec_argv(
    ip: &str,
    unshare: &str,
    mpiexec: &str,
    launcher: &str,
    pair: (&str, &str, &str),
    exe: &str,
    args: &[String],
) -> Vec<String> {
    let (ns_a, host_a, dev) = pair;
    let mut v: Vec<String> = [
        ip,
        "netns",
        "exec",
        ns_a,
        unshare,
        "--uts",
        "/bin/sh",
        "-c",
        "hostname \"$0\" && exec \"$@\"",
        host_a,
        mpiexec,
        "-launcher",
        "ssh",
        "-launcher-exec",
        launcher,
        "-iface",
        dev,
        "-hosts",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(format!("{}:1,{}:1", netns::ADDRS[0], netns::ADDRS[1]));
    v.extend(["-n".into(), "2".into(), exe.into()]);
    v.extend(args.iter().cloned());
    v
}

/// How long a job may go on after its output is complete (`done`) before
/// it is taken as hung in MPI_Finalize and killed.
pub const FINALIZE_GRACE: Duration = Duration::from_secs(10);

/// What one MPICH run across the namespaces gave: its exit, stdout, and the
/// bytes each veth end sent meanwhile.
pub struct CrossRun {
    pub job: proc::JobResult,
    /// The job still ran FINALIZE_GRACE after its output was complete and
    /// was killed (MPICH 4.0.2 over UCX's TCP transport sometimes spins in
    /// MPI_Finalize after the program's last output).
    pub killed_after_output: bool,
    pub stdout: String,
    pub stderr_path: PathBuf,
    pub veth: [u64; 2],
    pub timeout: Duration,
}

impl Nodes<'_> {
    /// Runs `exe args` under MPICH, one rank per namespace. `done` tells
    /// when its stdout is complete: a job still running FINALIZE_GRACE
    /// later is killed (every process in the namespaces) and flagged.
    pub fn run(
        &self,
        exe: &Path,
        args: &[String],
        logs: &Path,
        stem: &str,
        timeout: Duration,
        done: impl Fn(&str) -> bool + Send + Sync,
    ) -> Result<CrossRun, String> {
        let argv = mpiexec_argv(
            &self.tools.ip.display().to_string(),
            &self.tools.unshare.display().to_string(),
            &self.tools.mpiexec.display().to_string(),
            &self.launcher.display().to_string(),
            (&self.pair.ns[0], &self.pair.hostnames[0], &self.pair.dev),
            &exe.display().to_string(),
            args,
        );
        std::fs::write(logs.join(format!("{stem}.cmd")), argv.join(" ") + "\n")
            .map_err(|e| format!("{}: {e}", logs.display()))?;
        let spec = JobSpec {
            program: PathBuf::from(&argv[0]),
            args: argv[1..].iter().map(OsString::from).collect(),
            cwd: logs.to_path_buf(),
            env: ucx_env(),
            stdout: logs.join(format!("{stem}.out")),
            stderr: logs.join(format!("{stem}.err")),
            timeout,
            memory: false,
        };
        let before = self.pair.tx_bytes()?;
        let mut killed_after_output = false;
        let job = std::thread::scope(|sc| {
            let h = sc.spawn(|| proc::run(&spec));
            let mut complete: Option<std::time::Instant> = None;
            while !h.is_finished() {
                std::thread::sleep(Duration::from_millis(100));
                match complete {
                    None => {
                        let out = std::fs::read_to_string(&spec.stdout).unwrap_or_default();
                        if done(&out) {
                            complete = Some(std::time::Instant::now());
                        }
                    }
                    Some(t) if t.elapsed() >= FINALIZE_GRACE && !killed_after_output => {
                        self.pair.kill_leftovers();
                        killed_after_output = true;
                    }
                    _ => {}
                }
            }
            h.join().expect("the job thread does not panic")
        })
        .map_err(|e| format!("{stem}: {e}"))?;
        let left = self.pair.kill_leftovers();
        if left > 0 {
            eprintln!("vaced-bench: {stem}: killed {left} process(es) left in the namespaces");
        }
        let after = self.pair.tx_bytes()?;
        Ok(CrossRun {
            job,
            killed_after_output,
            stdout: std::fs::read_to_string(&spec.stdout).unwrap_or_default(),
            stderr_path: spec.stderr,
            veth: [after[0] - before[0], after[1] - before[1]],
            timeout,
        })
    }
}

/// A target fitted to the shaped link.
pub struct Calibration {
    pub path: PathBuf,
    pub target: Target,
    /// The file's text (comment included).
    pub toml: String,
    /// Bytes each veth end sent during the calibration, and the least the
    /// program had to send each way.
    pub veth: [u64; 2],
    pub least: u64,
}

fn fmt_time(s: f64) -> String {
    format!("{:.3} us", s * 1e6)
}

fn fmt_bandwidth(b: f64) -> String {
    format!("{:.3} MB/s", b / 1e6)
}

/// The fitted link's large-message bandwidth and small-message latency,
/// read from a vaced-calibrate target file: `rendezvous_bandwidth` (the
/// DATA of large messages; `net_bandwidth` when absent) and `latency`.
pub fn link_of(toml_text: &str) -> Result<(f64, f64), String> {
    let v: toml::Table = toml_text
        .parse()
        .map_err(|e| format!("the calibrated target is not TOML: {e}"))?;
    let net = v
        .get("network")
        .and_then(|n| n.as_table())
        .ok_or("the calibrated target has no [network]")?;
    let get = |k: &str| net.get(k).and_then(|x| x.as_str());
    let bw = get("rendezvous_bandwidth")
        .or(get("net_bandwidth"))
        .ok_or("the calibrated target has no network.net_bandwidth")?;
    let lat = get("latency").ok_or("the calibrated target has no network.latency")?;
    Ok((
        crate::target::parse_bandwidth("network.rendezvous_bandwidth", bw)?,
        crate::target::parse_time("network.latency", lat)?,
    ))
}

/// Whether the calibration saw the shaping: large messages no faster than
/// the rate (2% allowed for tbf's bucket and timing), small ones no faster
/// than the delay. A shaping that did not take (a qdisc missing, a link
/// bypassed) is an error, not a target.
pub fn shaping_took(s: &Shaping, bandwidth: f64, latency: f64) -> Result<(), String> {
    if bandwidth > s.rate_bytes() * 1.02 {
        return Err(format!(
            "{}: large messages crossed at {:.3} MB/s, faster than the shaped {:.3} MB/s: the \
             shaping did not take",
            s.label(),
            bandwidth / 1e6,
            s.rate_bytes() / 1e6
        ));
    }
    let delay = s.delay_ns as f64 * 1e-9;
    if latency < delay {
        return Err(format!(
            "{}: small messages took {:.3} us one way, less than the {:.3} us delay: the delay \
             did not take",
            s.label(),
            latency * 1e6,
            delay * 1e6
        ));
    }
    Ok(())
}

/// Bytes a vaced-calibrate run sends each way at least: one message of each
/// ping-pong size up to its largest, 4 MiB.
pub const CALIBRATION_LEAST: u64 = 4 << 20;

/// The calibration step: runs vaced-calibrate (`exe`, built with the system
/// MPICH) across the two namespaces, one rank each (so its off-node pair is
/// the shaped link; `--node-ranks 1`: 2 nodes of 1 rank, one hop apart), and
/// returns the target file it wrote in `dir`, checked by `vaced target
/// show`.
pub fn calibrate(
    env: &Env,
    nodes: &Nodes,
    exe: &Path,
    s: &Shaping,
    dir: &Path,
    timeout: Duration,
) -> Result<Calibration, String> {
    eprintln!(
        "vaced-bench: {}: vaced-calibrate across the namespaces",
        s.label()
    );
    let name = format!("shaped-{}", s.file_label());
    let path = dir.join(format!("{name}.toml"));
    let _ = std::fs::remove_file(&path);
    let args: Vec<String> = [
        "--out",
        &path.display().to_string(),
        "--name",
        &name,
        "--node-ranks",
        "1",
    ]
    .iter()
    .map(|x| x.to_string())
    .collect();
    let written = path.clone();
    let r = nodes.run(exe, &args, dir, "calibrate", timeout, move |_| {
        written.exists()
    })?;
    if !r.job.exit.ok() && !r.killed_after_output {
        return Err(format!(
            "{}: vaced-calibrate across the namespaces: {} (see {})",
            s.label(),
            r.job.exit.describe(timeout),
            r.stderr_path.display()
        ));
    }
    if r.killed_after_output {
        eprintln!(
            "vaced-bench: {}: vaced-calibrate spun in MPI_Finalize after writing its target: killed",
            s.label()
        );
    }
    let least = CALIBRATION_LEAST;
    if r.veth[0] < least || r.veth[1] < least {
        return Err(format!(
            "{}: the calibration sent at least {least} B each way, but the veth carried only {} B \
             (a to b) and {} B (b to a): MPICH did not use the emulated link",
            s.label(),
            r.veth[0],
            r.veth[1]
        ));
    }
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !text.contains("# Off-node [network]: ping-pong between ranks 0 and 1") {
        return Err(format!(
            "{}: vaced-calibrate did not see two nodes (see {}): MPICH ran both ranks on one",
            s.label(),
            path.display()
        ));
    }
    let (bandwidth, latency) = link_of(&text)?;
    shaping_took(s, bandwidth, latency)?;
    let note = format!(
        "#\n# Two emulated nodes joined by a veth pair shaped {} (bench-npb/run --shaped, \
         bench/harness/src/shaped.rs), one rank each, UCX over TCP.\n# veth bytes during the \
         calibration: {} (a to b), {} (b to a).{}\n",
        s.label(),
        r.veth[0],
        r.veth[1],
        if r.killed_after_output {
            format!(
                "\n# MPICH spun in MPI_Finalize after the target was written: killed {} s later.",
                FINALIZE_GRACE.as_secs()
            )
        } else {
            String::new()
        }
    );
    let toml = format!("{note}{text}");
    std::fs::write(&path, &toml).map_err(|e| format!("{}: {e}", path.display()))?;
    let shown = env
        .target(&path.display().to_string())
        .map_err(|e| format!("the calibrated target does not load: {e}"))?;
    Ok(Calibration {
        path,
        target: shown,
        toml,
        veth: r.veth,
        least,
    })
}

/// Bytes each rank sent, from vaced's JSON report (`ranks[i].bytes_sent`).
pub fn bytes_sent(report_json: &str) -> Option<Vec<u64>> {
    let v: serde_json::Value = serde_json::from_str(report_json).ok()?;
    v.get("ranks")?
        .as_array()?
        .iter()
        .map(|r| r.get("bytes_sent")?.as_u64())
        .collect()
}

/// Bytes the veth carried (both ways) over the bytes vaced counts the ranks
/// sent. vaced's count includes the messages a rank sends to itself (IS's
/// all-to-all keeps half of its keys at 2 ranks), the veth's includes
/// TCP/IP headers and Hydra's control traffic: a ratio near or above 1 says
/// the data went over the shaped link; below 1 it may only be self-messages
/// (the link's use is checked exactly by the calibration ping-pong, which
/// runs the same way).
pub fn veth_ratio(veth: [u64; 2], sent: Option<&[u64]>) -> Option<f64> {
    let total: u64 = sent?.iter().sum();
    (total > 0).then(|| (veth[0] + veth[1]) as f64 / total as f64)
}

pub const HEADERS: [&str; 14] = [
    "shaping",
    "kernel",
    "class",
    "rep",
    "predicted s",
    "real s",
    "RE",
    "veth a->b MB",
    "veth b->a MB",
    "vaced sent MB r0/r1",
    "veth / vaced bytes",
    "verified",
    "load 1 min",
    "note",
];

fn mb(b: u64) -> String {
    format!("{:.3}", b as f64 / 1e6)
}

/// One row of a repetition: the MPICH run and the vaced run of one case.
#[allow(clippy::too_many_arguments)]
pub fn row(
    shaping: &str,
    kernel: &str,
    class: &str,
    rep: u32,
    real: Option<f64>,
    predicted: Option<f64>,
    veth: [u64; 2],
    sent: Option<&[u64]>,
    verified: [Option<bool>; 2],
    load: &str,
    notes: &[String],
) -> Vec<String> {
    let re = predicted
        .zip(real)
        .and_then(|(p, r)| metrics::relative_error(p, r));
    let v = |x: Option<bool>| x.map_or("-", |v| if v { "yes" } else { "NO" });
    vec![
        shaping.into(),
        kernel.into(),
        class.into(),
        rep.to_string(),
        opt(predicted, secs),
        opt(real, secs),
        opt(re, percent),
        mb(veth[0]),
        mb(veth[1]),
        sent.map_or("-".into(), |s| {
            s.iter().map(|b| mb(*b)).collect::<Vec<_>>().join("/")
        }),
        opt(veth_ratio(veth, sent), metrics::ratio),
        format!("mpich {}, vaced {}", v(verified[0]), v(verified[1])),
        load.into(),
        notes.join("; "),
    ]
}

/// The host's 1-minute load average before a case (other users' processes
/// take cores from the MPICH ranks and the kernel's network work).
fn load_1min() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(String::from))
        .unwrap_or_else(|| "-".into())
}

/// The median of |RE| (fractions), None without any.
pub fn median_abs(v: &[f64]) -> Option<f64> {
    let mut a: Vec<f64> = v.iter().map(|x| x.abs()).collect();
    if a.is_empty() {
        return None;
    }
    a.sort_by(f64::total_cmp);
    let n = a.len();
    Some(if n % 2 == 1 {
        a[n / 2]
    } else {
        (a[n / 2 - 1] + a[n / 2]) / 2.0
    })
}

pub const SUMMARY_HEADERS: [&str; 7] = [
    "shaping",
    "target latency",
    "target net_bandwidth",
    "target mem_bandwidth",
    "cases with RE",
    "median |RE|",
    "max |RE|",
];

fn measurement_of(case: Case, r: &CrossRun) -> Measurement {
    let mut problem = None;
    let npb = if r.job.exit == Exit::TimedOut {
        problem = Some(r.job.exit.describe(r.timeout));
        None
    } else {
        match npbout::parse(&r.stdout) {
            Ok(n) => Some(n),
            Err(e) => {
                problem = Some(format!(
                    "{}; {e} (see {})",
                    r.job.exit.describe(r.timeout),
                    r.stderr_path.display()
                ));
                None
            }
        }
    };
    if problem.is_none() && !r.job.exit.ok() && !r.killed_after_output {
        problem = Some(r.job.exit.describe(r.timeout));
    }
    Measurement {
        case,
        job: r.job.clone(),
        npb,
        report: None,
        problem,
        timeout: r.timeout,
    }
}

pub fn run(a: NpbArgs) -> Result<(), String> {
    netns::require_root()?;
    netns::guard_signals();
    if a.ranks != [2] {
        return Err(format!(
            "--shaped runs one rank on each of two emulated nodes: give --ranks 2 (not {:?})",
            a.ranks
        ));
    }
    if a.smpi {
        return Err("--shaped compares with real MPICH runs; --smpi is not part of it".into());
    }
    let reps = a.repeat.unwrap_or(3);
    let tools = Tools::find()?;
    let env = Env::discover()?;
    let npb_dir = env.npb_dir();
    let out = a.out.clone().unwrap_or_else(|| npb_dir.join("results"));
    let stamp = now_stamp();
    let table_name = format!("shaped-{stamp}");
    let logs = case::logs_dir(&out, &table_name)?;
    let timeout = Duration::from_secs(a.timeout);
    let vaced_cores = a.cores.first().copied().unwrap_or(env.host_cores);
    let mut notes: Vec<String> = Vec::new();

    // Builds: the kernels for MPICH and vaced (a kernel runs where both built).
    let (built, present) = kernels::build_all(
        &env,
        &a.kernels,
        &[Runner::Mpich, Runner::Vaced],
        &mut notes,
    )?;
    let kernels_run: Vec<String> = present
        .into_iter()
        .filter(|k| {
            [Runner::Mpich, Runner::Vaced]
                .iter()
                .all(|r| built[&(k.clone(), *r)].is_ok())
        })
        .collect();
    let exes: HashMap<(String, Runner), PathBuf> = built
        .into_iter()
        .filter_map(|(key, exe)| exe.ok().map(|e| (key, e)))
        .collect();
    // vaced-calibrate, built with the system MPICH by `vaced calibrate`.
    eprintln!("vaced-bench: building vaced-calibrate (vaced calibrate)");
    proc::run_tool(&env.vaced, &["calibrate"], &env.repo, &[])?;
    let calibrator = env.repo.join("calibrate/target/release/vaced-calibrate");

    // The two nodes.
    let pair = NsPair::create()?;
    let launcher = logs.join("launcher.sh");
    std::fs::write(
        &launcher,
        netns::launcher_script(
            &tools.ip.display().to_string(),
            &tools.unshare.display().to_string(),
            &pair.ns,
            &pair.hostnames,
        ),
    )
    .map_err(|e| format!("{}: {e}", launcher.display()))?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("{}: {e}", launcher.display()))?;
    }
    let nodes = Nodes {
        pair: &pair,
        tools: &tools,
        launcher,
    };
    eprintln!(
        "vaced-bench: emulated nodes: namespaces {} ({}) and {} ({}), veth {} (MTU {}), hostnames {} and {}",
        pair.ns[0],
        netns::ADDRS[0],
        pair.ns[1],
        netns::ADDRS[1],
        pair.dev,
        netns::MTU,
        pair.hostnames[0],
        pair.hostnames[1]
    );
    let netem = pair.probe_netem();
    match &netem {
        Ok(()) => notes.push("sch_netem is available: delays are netem's".into()),
        Err(e) => notes.push(format!(
            "sch_netem is NOT available on this host (`tc qdisc add ... netem` said: {}): shapings \
             with a delay are skipped; rate shaping uses tbf",
            e.rsplit(": ").next().unwrap_or(e)
        )),
    }

    let mut table = Table::new(&HEADERS);
    let mut summary = Table::new(&SUMMARY_HEADERS);
    let mut appendix = String::new();
    let mut failed = 0;
    let mut hung = 0;
    for s in &a.shaped {
        let label = s.label();
        if s.delay_ns > 0 {
            if let Err(e) = &netem {
                let n = format!(
                    "shaping {label} skipped: its delay needs sch_netem, which this host's kernel \
                     lacks ({}); run it on a host with sch_netem, or give the rate alone ({})",
                    e.rsplit(": ").next().unwrap_or(e),
                    netns::fmt_rate(s.rate_bit)
                );
                eprintln!("vaced-bench: {n}");
                notes.push(n);
                continue;
            }
        }
        let burst = a
            .shaped_burst
            .unwrap_or_else(|| netns::default_burst(s.rate_bit));
        pair.shape(s, burst)?;
        let dir = logs.join(s.file_label());
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let cal = calibrate(&env, &nodes, &calibrator, s, &dir, timeout)?;
        eprintln!(
            "vaced-bench: {label}: target {}: latency {}, net_bandwidth {}, mem_bandwidth {}",
            cal.path.display(),
            fmt_time(cal.target.latency),
            fmt_bandwidth(cal.target.net_bandwidth),
            fmt_bandwidth(cal.target.mem_bandwidth)
        );
        let target_arg = cal.path.display().to_string();
        let mut res = Vec::new();
        for rep in 1..=reps {
            let rdir = dir.join(format!("rep{rep}"));
            std::fs::create_dir_all(&rdir).map_err(|e| format!("{}: {e}", rdir.display()))?;
            let setup = case::Setup {
                env: &env,
                target: &cal.target,
                target_arg: &target_arg,
                logs: &rdir,
                timeout,
                memory: false,
            };
            for k in &kernels_run {
                for class in &a.classes {
                    let class = class.to_uppercase();
                    if let Some(why) = kernels::forbidden(k, &class, 2) {
                        if rep == 1 {
                            let n = format!("{k} class {class} at 2 ranks: skipped, {why}");
                            eprintln!("vaced-bench: {n}");
                            notes.push(n);
                        }
                        continue;
                    }
                    let case_of = |runner, cores| Case {
                        kernel: k.clone(),
                        class: class.clone(),
                        ranks: 2,
                        runner,
                        cores,
                        mode: Mode::Process,
                    };
                    let mc = case_of(Runner::Mpich, 1);
                    let load = load_1min();
                    eprint!("vaced-bench: {label} rep {rep} {k} {class}: mpich ... ");
                    let cr = nodes.run(
                        &exes[&(k.clone(), Runner::Mpich)],
                        std::slice::from_ref(&class),
                        &rdir,
                        &mc.stem(),
                        timeout,
                        |o| npbout::parse(o).is_ok(),
                    )?;
                    let m = measurement_of(mc, &cr);
                    if cr.killed_after_output {
                        eprint!("(spun in MPI_Finalize after its output: killed) ");
                    }
                    eprint!("{} s; vaced ... ", opt(m.timer_s(), secs));
                    let vc = case_of(Runner::Vaced, vaced_cores);
                    let v = case::run(&setup, &vc, &exes[&(k.clone(), Runner::Vaced)])?;
                    eprintln!("{} s", opt(v.timer_s(), secs));
                    let sent = std::fs::read_to_string(rdir.join(format!("{}.json", vc.stem())))
                        .ok()
                        .and_then(|t| bytes_sent(&t));
                    let mut pn = Vec::new();
                    if cr.killed_after_output {
                        hung += 1;
                        pn.push(format!(
                            "mpich spun in MPI_Finalize after its results: killed {} s later",
                            FINALIZE_GRACE.as_secs()
                        ));
                    }
                    if let Some(p) = &m.problem {
                        pn.push(format!("mpich: {p}"));
                    }
                    if let Some(p) = &v.problem {
                        pn.push(format!("vaced: {p}"));
                    }
                    let r = row(
                        &label,
                        k,
                        &class,
                        rep,
                        m.timer_s(),
                        v.timer_s(),
                        cr.veth,
                        sent.as_deref(),
                        [m.verified(), v.verified()],
                        &load,
                        &pn,
                    );
                    if m.problem.is_some()
                        || v.problem.is_some()
                        || m.verified() == Some(false)
                        || v.verified() == Some(false)
                    {
                        failed += 1;
                    }
                    if let Some(re) = v
                        .timer_s()
                        .zip(m.timer_s())
                        .and_then(|(p, r)| metrics::relative_error(p, r))
                    {
                        res.push(re);
                    }
                    table.push(r);
                }
            }
        }
        summary.push(vec![
            label.clone(),
            format!("{:.3} us", cal.target.latency * 1e6),
            fmt_bandwidth(cal.target.net_bandwidth),
            fmt_bandwidth(cal.target.mem_bandwidth),
            res.len().to_string(),
            opt(median_abs(&res), percent),
            opt(res.iter().map(|x| x.abs()).reduce(f64::max), percent),
        ]);
        appendix.push_str(&format!(
            "\n## Shaping {label}\n\ntc qdiscs after the runs (both veth ends):\n\n```\n{}\n```\n\n\
             Target fitted by the calibration ({}; ping-pong veth bytes {} a to b, {} b to a, at \
             least {} each way):\n\n```toml\n{}```\n",
            pair.qdiscs(),
            cal.path.display(),
            cal.veth[0],
            cal.veth[1],
            cal.least,
            cal.toml
        ));
    }
    drop(nodes);
    drop(pair);

    notes.push(format!(
        "two emulated nodes: network namespaces joined by a veth pair (MTU {}), each end's egress \
         shaped (tbf rate, burst {} unless --shaped-burst; netem delay), hostnames of their own; \
         MPICH ({}) runs one rank in each (Hydra: -launcher ssh -launcher-exec <script running the \
         proxy with `ip netns exec`>, -iface on the veth), UCX_TLS=self,tcp.",
        netns::MTU,
        a.shaped_burst.map_or(
            "20 us of the rate, at least two frames".into(),
            |b| format!("{b} B")
        ),
        tools.mpiexec.display()
    ));
    notes.push(format!(
        "each shaping: vaced-calibrate across the namespaces (the shaped link as its off-node \
         pair) writes a target of 2 nodes of 1 rank; then each case {} times, interleaved: MPICH across the \
         namespaces (real s), vaced on this host with that target at --cores {vaced_cores} \
         (predicted s); RE = predicted / real - 1 of the same repetition; load 1 min: the \
         host's load average before the MPICH run.",
        reps
    ));
    notes.push(
        "veth a->b, b->a: bytes each veth end sent during the MPICH run (TCP/IP headers and \
         Hydra's control traffic included); vaced sent: ranks[i].bytes_sent of vaced's report, \
         which counts messages a rank sends to itself too (IS's all-to-all keeps half its keys at \
         2 ranks), so veth / vaced bytes may be below 1 without any shared memory. That MPICH's \
         messages cross the veth is checked exactly on the calibration ping-pong (same launch): \
         each way must carry at least the sum of its message sizes, or the run stops."
            .into(),
    );
    if hung > 0 {
        notes.push(format!(
            "{hung} MPICH run(s) went on spinning in MPI_Finalize after printing a complete result \
             block and were killed {} s later (MPICH 4.0.2 over UCX's TCP transport does this now \
             and then here); their real s is the kernel's own timer, taken before MPI_Finalize.",
            FINALIZE_GRACE.as_secs()
        ));
    }
    notes.push(Env::load_note());
    let cmdline: Vec<String> = std::env::args().skip(1).collect();
    let title = format!(
        "bench-npb/run {}  (host {} cores, {})",
        cmdline.join(" ").trim_start_matches("npb ").trim(),
        env.host_cores,
        Env::cpu_model()
    );
    println!("\n{title}\n\n{}\n{}", table.text(), summary.text());
    for n in &notes {
        println!("note: {n}");
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let csv = out.join(format!("{table_name}.csv"));
    let md = out.join(format!("{table_name}.md"));
    std::fs::write(&csv, table.csv()).map_err(|e| format!("{}: {e}", csv.display()))?;
    let mut mdtext = format!(
        "# {title}\n\n{}\n{}\n",
        table.markdown(),
        summary.markdown()
    );
    for n in &notes {
        mdtext.push_str(&format!("- {n}\n"));
    }
    mdtext.push_str(&appendix);
    std::fs::write(&md, mdtext).map_err(|e| format!("{}: {e}", md.display()))?;
    println!(
        "\nsaved {} and {} (logs in {})",
        csv.display(),
        md.display(),
        logs.display()
    );
    if failed > 0 {
        println!("{failed} case(s) failed or did not verify: see the table and the logs");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpiexec_across_the_namespaces() {
        let v = mpiexec_argv(
            "/usr/sbin/ip",
            "/usr/bin/unshare",
            "/usr/bin/mpiexec.mpich",
            "/l/launcher.sh",
            ("vaced-9-a", "vaced-9-node0", "vcd9"),
            "/b/cg",
            &["S".into()],
        );
        assert_eq!(
            v.join(" "),
            "/usr/sbin/ip netns exec vaced-9-a /usr/bin/unshare --uts /bin/sh -c hostname \"$0\" && exec \"$@\" \
             vaced-9-node0 /usr/bin/mpiexec.mpich -launcher ssh -launcher-exec /l/launcher.sh -iface vcd9 \
             -hosts 10.212.0.1:1,10.212.0.2:1 -n 2 /b/cg S"
        );
        assert_eq!(v[8], "hostname \"$0\" && exec \"$@\"");
        assert_eq!(ucx_env(), [("UCX_TLS".to_string(), "self,tcp".to_string())]);
    }

    #[test]
    fn the_link_of_a_calibrated_target() {
        let t = "[network]\nlatency = \"25 us\"\nnet_bandwidth = \"120 MB/s\"\n";
        assert_eq!(link_of(t).unwrap(), (1.2e8, 2.5e-5));
        let t = format!("{t}rendezvous_bandwidth = \"110 MB/s\"\n");
        assert_eq!(link_of(&t).unwrap(), (1.1e8, 2.5e-5));
        assert!(link_of("[cpu]\n").is_err());
    }

    #[test]
    fn the_shaping_must_show() {
        let g = Shaping::parse("1gbit").unwrap();
        // 110 MB/s under a 125 MB/s rate
        assert_eq!(shaping_took(&g, 110e6, 7e-6), Ok(()));
        assert_eq!(
            shaping_took(&g, 1.7e9, 7e-6).unwrap_err(),
            "1gbit: large messages crossed at 1700.000 MB/s, faster than the shaped 125.000 MB/s: \
             the shaping did not take"
        );
        let d = Shaping::parse("1gbit:50us").unwrap();
        assert_eq!(shaping_took(&d, 110e6, 57e-6), Ok(()));
        assert_eq!(
            shaping_took(&d, 110e6, 7e-6).unwrap_err(),
            "1gbit:50us: small messages took 7.000 us one way, less than the 50.000 us delay: the \
             delay did not take"
        );
    }

    #[test]
    fn report_bytes_and_veth_ratio() {
        let j =
            r#"{"target":"t","ranks":[{"rank":0,"bytes_sent":1000},{"rank":1,"bytes_sent":2000}]}"#;
        let s = bytes_sent(j).unwrap();
        assert_eq!(s, [1000, 2000]);
        assert_eq!(veth_ratio([1500, 1500], Some(&s)), Some(1.0));
        assert_eq!(veth_ratio([1500, 1500], None), None);
        assert_eq!(veth_ratio([1500, 1500], Some(&[0, 0])), None);
        assert_eq!(bytes_sent("{}"), None);
    }

    #[test]
    fn rows_and_median() {
        let r = row(
            "1gbit",
            "cg",
            "S",
            2,
            Some(0.5),
            Some(0.55),
            [3_000_000, 2_500_000],
            Some(&[2_000_000, 2_000_000]),
            [Some(true), Some(true)],
            "1.50",
            &[],
        );
        assert_eq!(
            r,
            [
                "1gbit",
                "cg",
                "S",
                "2",
                "0.5500",
                "0.5000",
                "+10.00%",
                "3.000",
                "2.500",
                "2.000/2.000",
                "1.38",
                "mpich yes, vaced yes",
                "1.50",
                ""
            ]
        );
        assert_eq!(median_abs(&[0.1, -0.3, 0.2]), Some(0.2));
        assert_eq!(median_abs(&[0.1, -0.3]), Some(0.2));
        assert_eq!(median_abs(&[]), None);
    }
}
