//! `vaced-bench scale` (bench/scale): how close large runs on this host come
//! to the physical limit. vaced at each ranks x --cores x execution mode (one
//! process per rank, or many ranks per process), SimGrid's SMPI on the same
//! kernel and ranks, the system MPICH natively oversubscribed; for each run
//! the host wall time, total computation, efficiency, peak memory of the
//! whole job, start-up, vaced's host CPU per message and the prediction; then
//! the checks of issue 6 (prediction across --cores and modes, speed-up,
//! hosted vs process, vaced vs SMPI, per-rank overhead in each mode).
use crate::case::{self, Case, Measurement, Mode};
use crate::env::Env;
use crate::kernels::{self, Runner};
use crate::memory::MemMethod;
use crate::metrics::{self, mib, opt, percent, ratio, secs};
use crate::proc::{self, Exit, JobSpec};
use crate::table::Table;
use clap::Args;
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct ScaleArgs {
    /// Kernels, comma-separated (a compute-heavy and a communication-heavy one).
    #[arg(long, value_delimiter = ',', default_value = "cg,is")]
    pub kernels: Vec<String>,
    /// NPB class.
    #[arg(long, default_value = "A")]
    pub class: String,
    /// Rank counts for vaced, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "64,256,1024")]
    pub ranks: Vec<u32>,
    /// Host cores for vaced (`mpirun --cores`), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    pub cores: Vec<u32>,
    /// vaced's execution modes, comma-separated: `process` (one process per
    /// rank), `hosted` (`--ranks-per-process auto`: one host process per
    /// --cores); every vaced case and the overhead run once in each.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "process,hosted",
        value_enum
    )]
    pub modes: Vec<Mode>,
    /// Rank counts for SMPI (default: the same as --ranks; 0: none).
    #[arg(long, value_delimiter = ',')]
    pub smpi_ranks: Option<Vec<u32>>,
    /// Rank counts for the system MPICH, natively oversubscribed (0: none).
    #[arg(long, value_delimiter = ',', default_value = "16,64")]
    pub mpich_ranks: Vec<u32>,
    /// Ranks of the trivial program (tests/programs/ring.c `token 1 1`) whose
    /// peak memory / ranks is the per-rank overhead (0: skip).
    #[arg(long, default_value_t = 1024)]
    pub overhead_ranks: u32,
    /// Target machine: a preset name or a target file.
    #[arg(long, default_value = "tianhe1a")]
    pub target: String,
    /// Wall-clock limit of one run, seconds (a run past it is reported as "> S s").
    #[arg(long, default_value_t = 900)]
    pub timeout: u64,
    /// Output directory (default: bench/results).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Run vaced this many times at each --cores and mode, interleaved
    /// (cores 1 in each mode, cores 2 in each mode, then again): the
    /// prediction's spread then covers the repetitions too.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Also draw slowdown and efficiency against ranks into DIR/scale-<time>.svg.
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
}

pub const HEADERS: [&str; 15] = [
    "kernel",
    "class",
    "ranks",
    "runner",
    "mode",
    "host cores",
    "host wall s",
    "computation s",
    "efficiency",
    "peak MiB",
    "MiB/rank",
    "start-up s",
    "host CPU/msg µs",
    "prediction s",
    "note",
];
/// The columns of HEADERS the progress line and --repeat use.
const WALL: usize = 6;
const PREDICTION: usize = 13;
const NOTE: usize = 14;

pub fn row(m: &Measurement, host_cores: u32) -> Vec<String> {
    let c = &m.case;
    let timed_out = m.job.exit == Exit::TimedOut;
    let mem = m.job.peak_mem.map(|(b, _)| b);
    let mut notes = Vec::new();
    if c.runner == Runner::Mpich {
        notes.push(if c.ranks > host_cores {
            format!(
                "real time, oversubscribed {} ranks on {host_cores} cores",
                c.ranks
            )
        } else {
            "real time".to_string()
        });
    }
    if let (Mode::Hosted, Some(h)) = (c.mode, m.report.as_ref().and_then(|r| r.host_processes)) {
        notes.push(format!("{h} host processes"));
    }
    if let Some(p) = &m.problem {
        notes.push(p.clone());
    } else if m.verified() == Some(false) {
        notes.push("verification FAILED".into());
    }
    vec![
        c.kernel.clone(),
        c.class.clone(),
        c.ranks.to_string(),
        c.runner.name().into(),
        c.mode_name().into(),
        c.cores.to_string(),
        if timed_out {
            format!("> {}", m.timeout.as_secs())
        } else {
            secs(m.wall_s())
        },
        opt(m.computation_s(), secs),
        opt(m.efficiency(), ratio),
        mem.map_or("-".into(), mib),
        mem.map_or("-".into(), |b| {
            format!("{:.2}", b as f64 / (1 << 20) as f64 / c.ranks as f64)
        }),
        opt(m.report.as_ref().and_then(|r| r.startup_s), secs),
        opt(m.report.as_ref().and_then(|r| r.cpu_per_msg_us()), secs),
        opt(m.timer_s(), secs),
        notes.join("; "),
    ]
}

/// The checks printed under the table, for one kernel at one rank count.
pub fn checks<'a>(kernel: &str, ranks: u32, ms: &[&'a Measurement]) -> Vec<String> {
    let mut out = Vec::new();
    let vaced: Vec<&'a Measurement> = ms
        .iter()
        .copied()
        .filter(|m| m.case.runner == Runner::Vaced && m.report.is_some() && m.problem.is_none())
        .collect();
    let modes: BTreeSet<Mode> = vaced.iter().map(|m| m.case.mode).collect();
    let of_mode = |mode: Mode| -> Vec<&'a Measurement> {
        vaced
            .iter()
            .copied()
            .filter(|m| m.case.mode == mode)
            .collect()
    };
    if vaced.len() > 1 {
        out.push(prediction_check(kernel, ranks, &vaced, &modes));
    }
    // Speed-up in each mode (process mode: the wording of one mode alone).
    for &mode in &modes {
        let vm = of_mode(mode);
        let wall_at = |c: u32| vm.iter().find(|m| m.case.cores == c).map(|m| m.wall_s());
        if let (Some(w1), Some(w2)) = (wall_at(1), wall_at(2)) {
            let which = match mode {
                Mode::Process => "",
                Mode::Hosted => "hosted ",
            };
            out.push(format!(
                "{kernel} {ranks} ranks: {which}speed-up wall(cores 1) / wall(cores 2) = {}",
                ratio(w1 / w2)
            ));
        }
    }
    // Hosted vs process at each --cores both ran (medians over --repeat).
    let (process, hosted) = (of_mode(Mode::Process), of_mode(Mode::Hosted));
    let mut cores_seen = Vec::new();
    for m in &hosted {
        let c = m.case.cores;
        if cores_seen.contains(&c) {
            continue;
        }
        cores_seen.push(c);
        let at = |v: &[&'a Measurement]| -> Vec<&'a Measurement> {
            v.iter().copied().filter(|m| m.case.cores == c).collect()
        };
        let (p, h) = (at(&process), at(&hosted));
        if p.is_empty() {
            continue;
        }
        let med = |v: &[&Measurement], f: fn(&Measurement) -> Option<f64>| {
            crate::npb::median(&v.iter().filter_map(|m| f(m)).collect::<Vec<_>>())
        };
        let (pw, hw) = (med(&p, |m| Some(m.wall_s())), med(&h, |m| Some(m.wall_s())));
        let runs = if p.len() > 1 || h.len() > 1 {
            format!(
                " (medians of {} process and {} hosted runs)",
                p.len(),
                h.len()
            )
        } else {
            String::new()
        };
        out.push(format!(
            "{kernel} {ranks} ranks: hosted vs process: wall ratio {} (--cores {c}); efficiency process {}, hosted {}{runs}",
            opt(pw.zip(hw).map(|(p, h)| p / h), ratio),
            opt(med(&p, Measurement::efficiency), ratio),
            opt(med(&h, Measurement::efficiency), ratio),
        ));
    }
    // vaced vs SMPI: the run at the most --cores of each mode.
    let smpi = ms.iter().find(|m| m.case.runner == Runner::Smpi);
    for &mode in &modes {
        let vm = of_mode(mode);
        let (Some(s), Some(v)) = (smpi, vm.iter().max_by_key(|m| m.case.cores)) else {
            continue;
        };
        let (name, short) = match mode {
            Mode::Process => ("vaced", "vaced"),
            Mode::Hosted => ("vaced hosted", "hosted"),
        };
        if s.job.exit == Exit::TimedOut {
            out.push(format!(
                "{kernel} {ranks} ranks: SMPI ran past {} s; {name} (--cores {}) took {} s",
                s.timeout.as_secs(),
                v.case.cores,
                secs(v.wall_s())
            ));
        } else if let (Some(ts), Some(tv)) = (s.timer_s(), v.timer_s()) {
            out.push(format!(
                "{kernel} {ranks} ranks: {name} / SMPI prediction - 1 = {}; SMPI wall / {short} wall (--cores {}) = {}",
                opt(metrics::relative_error(tv, ts), percent),
                v.case.cores,
                ratio(s.wall_s() / v.wall_s())
            ));
        }
    }
    out
}

/// Is vaced's prediction the same in every run (at every --cores, in every
/// mode)? One mode alone: the runs' --cores; both: each run's --cores and
/// mode, and the spread within each mode.
fn prediction_check(
    kernel: &str,
    ranks: u32,
    vaced: &[&Measurement],
    modes: &BTreeSet<Mode>,
) -> String {
    let pred_s = |m: &Measurement| m.report.as_ref().map_or(0.0, |r| r.predicted_s);
    let ps: Vec<u64> = vaced
        .iter()
        .filter_map(|m| m.report.as_ref().map(|r| r.predicted_ps))
        .collect();
    let s: Vec<f64> = vaced.iter().map(|m| pred_s(m)).collect();
    let t: Vec<f64> = vaced.iter().filter_map(|m| m.timer_s()).collect();
    let fmt_s = |s: &[f64]| {
        s.iter()
            .map(|x| format!("{x:.9}"))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    if modes.len() <= 1 {
        let cores: Vec<String> = vaced.iter().map(|m| m.case.cores.to_string()).collect();
        let which = match modes.first() {
            Some(Mode::Hosted) => "vaced (hosted)",
            _ => "vaced",
        };
        return if ps.iter().all(|p| *p == ps[0]) {
            format!(
                "{kernel} {ranks} ranks: {which} prediction identical across --cores {} ({} ps)",
                cores.join(","),
                ps[0]
            )
        } else {
            format!(
                "{kernel} {ranks} ranks: {which} prediction across --cores {}: {} s, spread {} (kernel timer spread {})",
                cores.join(","),
                fmt_s(&s),
                opt(metrics::spread(&s), percent),
                opt(metrics::spread(&t), percent)
            )
        };
    }
    let mut cores: Vec<String> = Vec::new();
    for m in vaced {
        let c = m.case.cores.to_string();
        if !cores.contains(&c) {
            cores.push(c);
        }
    }
    let names: Vec<&str> = modes.iter().map(|m| m.name()).collect();
    if ps.iter().all(|p| *p == ps[0]) {
        return format!(
            "{kernel} {ranks} ranks: vaced prediction identical across --cores {} and modes {} ({} ps)",
            cores.join(","),
            names.join(","),
            ps[0]
        );
    }
    let runs: Vec<String> = vaced
        .iter()
        .map(|m| format!("{} {}", m.case.cores, m.case.mode.name()))
        .collect();
    let within: Vec<String> = modes
        .iter()
        .filter_map(|&mode| {
            let v: Vec<f64> = vaced
                .iter()
                .filter(|m| m.case.mode == mode)
                .map(|m| pred_s(m))
                .collect();
            (v.len() > 1).then(|| {
                format!(
                    "within {}: {}",
                    mode.name(),
                    opt(metrics::spread(&v), percent)
                )
            })
        })
        .collect();
    format!(
        "{kernel} {ranks} ranks: vaced prediction across --cores and modes {}: {} s, spread {} (kernel timer spread {}){}",
        runs.join(" / "),
        fmt_s(&s),
        opt(metrics::spread(&s), percent),
        opt(metrics::spread(&t), percent),
        if within.is_empty() {
            String::new()
        } else {
            format!("; {}", within.join(", "))
        }
    )
}

pub fn run(a: ScaleArgs) -> Result<(), String> {
    let env = Env::discover()?;
    let npb_dir = env.npb_dir();
    let (out, stamp, logs) =
        case::results(a.out.as_deref(), env.repo.join("bench/results"), "scale")?;
    let target = env.target(&a.target)?;
    let target_arg = crate::env::target_arg(&a.target)?;
    let class = a.class.to_uppercase();
    let timeout = Duration::from_secs(a.timeout);
    let smpi_ranks: Vec<u32> = a
        .smpi_ranks
        .clone()
        .unwrap_or_else(|| a.ranks.clone())
        .into_iter()
        .filter(|r| *r > 0)
        .collect();
    let mpich_ranks: Vec<u32> = a.mpich_ranks.iter().copied().filter(|r| *r > 0).collect();
    // Each mode once, in the order given.
    let mut modes: Vec<Mode> = Vec::new();
    for &m in &a.modes {
        if !modes.contains(&m) {
            modes.push(m);
        }
    }
    let mut notes = Vec::new();
    let setup = case::Setup {
        env: &env,
        target: &target,
        target_arg: &target_arg,
        logs: &logs,
        timeout,
        memory: true,
    };
    let mut table = Table::new(&HEADERS);
    let mut all: Vec<Measurement> = Vec::new();
    let mut checks_out = Vec::new();
    let mut methods = BTreeSet::new();
    for k in &a.kernels {
        let k = k.to_lowercase();
        if !kernels::present(&npb_dir, &k) {
            notes.push(format!(
                "{k}: not present (bench-npb/{k}/ does not exist yet), skipped"
            ));
            continue;
        }
        let mut exes = HashMap::new();
        for r in [Runner::Vaced, Runner::Smpi, Runner::Mpich] {
            let wanted = match r {
                Runner::Vaced => true,
                Runner::Smpi => !smpi_ranks.is_empty(),
                Runner::Mpich => !mpich_ranks.is_empty(),
            };
            if wanted {
                eprintln!("vaced-bench: building {k} for {}", r.name());
                match env
                    .compilers(r)
                    .and_then(|cc| kernels::build(&npb_dir, &k, r, &cc))
                {
                    Ok(e) => {
                        exes.insert(r, e);
                    }
                    Err(e) => {
                        eprintln!("vaced-bench: {e}");
                        notes.push(e.lines().next().unwrap_or_default().to_string());
                    }
                }
            }
        }
        let all_ranks: BTreeSet<u32> = a
            .ranks
            .iter()
            .chain(&smpi_ranks)
            .chain(&mpich_ranks)
            .copied()
            .collect();
        for ranks in all_ranks {
            if let Some(why) = kernels::forbidden(&k, &class, ranks) {
                notes.push(format!(
                    "{k} class {class} at {ranks} ranks: skipped, {why}"
                ));
                continue;
            }
            let mut cases = Vec::new();
            if a.ranks.contains(&ranks) {
                for run in 0..a.repeat {
                    for &c in &a.cores {
                        for &mode in &modes {
                            cases.push((Runner::Vaced, c, mode, run));
                        }
                    }
                }
            }
            if smpi_ranks.contains(&ranks) {
                cases.push((Runner::Smpi, 1, Mode::Process, 0));
            }
            if mpich_ranks.contains(&ranks) {
                cases.push((Runner::Mpich, env.host_cores, Mode::Process, 0));
            }
            let first = all.len();
            for (r, c, mode, run) in cases {
                let Some(exe) = exes.get(&r) else { continue };
                let case = Case {
                    kernel: k.clone(),
                    class: class.clone(),
                    ranks,
                    runner: r,
                    cores: c,
                    mode,
                };
                eprint!("vaced-bench: {} ... ", case.stem());
                let run_logs = case::run_logs(&logs, run, a.repeat)?;
                let run_setup = case::Setup {
                    logs: &run_logs,
                    ..setup
                };
                let m = case::run(&run_setup, &case, exe)?;
                let mut row = row(&m, env.host_cores);
                if a.repeat > 1 && r == Runner::Vaced {
                    let tag = format!("run {} of {}", run + 1, a.repeat);
                    row[NOTE] = if row[NOTE].is_empty() {
                        tag
                    } else {
                        format!("{tag}; {}", row[NOTE])
                    };
                }
                eprintln!(
                    "wall {} s, prediction {} s{}",
                    row[WALL],
                    row[PREDICTION],
                    if row[NOTE].is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", row[NOTE])
                    }
                );
                if let Some((_, meth)) = m.job.peak_mem {
                    methods.insert(meth);
                }
                table.push(row);
                all.push(m);
            }
            let ms: Vec<&Measurement> = all[first..].iter().collect();
            checks_out.extend(checks(&k, ranks, &ms));
        }
    }
    // Per-rank overhead: a trivial program at many ranks.
    if a.overhead_ranks > 0 {
        for &mode in &modes {
            match overhead(&env, &logs, a.overhead_ranks, &target_arg, timeout, mode) {
                Ok(line) => checks_out.push(line),
                Err(e) => checks_out.push(format!("per-rank overhead ({}): {e}", mode.name())),
            }
        }
    }
    let mems: Vec<&str> = methods.iter().map(|m| m.describe()).collect();
    notes.push(format!(
        "peak memory: {}",
        if mems.is_empty() {
            "not measured".into()
        } else {
            mems.join("; ")
        }
    ));
    notes.push(
        "computation: vaced's measured application CPU time (app_cpu_s); MPICH and SMPI: user + system CPU \
         of all the job's processes (wait4), busy-polling included for MPICH. efficiency = computation / \
         (host cores x wall); SMPI runs every rank in turn on 1 core. prediction: the kernel's own timer \
         (virtual under vaced and SMPI, real under MPICH). start-up: vaced's report (spawn and wire-up); \
         others -."
            .into(),
    );
    notes.push(
        "mode (vaced): process = one process per rank (mpirun's default); hosted = `--ranks-per-process \
         auto`, the ranks as user-level contexts in one host process per --cores; others -. host CPU/msg \
         (vaced): (host_cpu_s - app_cpu_s) / msgs_sent of vaced's report, in microseconds: the CPU time \
         of the job's rank (or host) processes outside the application's own computation (vaced's \
         messaging, waiting, scheduling, start-up and exit), per message sent by any rank; others -."
            .into(),
    );
    notes.push(Env::load_note());
    let cmdline: Vec<String> = std::env::args().skip(2).collect();
    let title = format!(
        "bench/scale {}  (target {}, host {} cores, {})",
        cmdline.join(" "),
        target.name,
        env.host_cores,
        Env::cpu_model()
    );
    println!("\n{title}\n\n{}", table.text());
    for c in &checks_out {
        println!("check: {c}");
    }
    for n in &notes {
        println!("note: {n}");
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let csv = out.join(format!("scale-{stamp}.csv"));
    let md = out.join(format!("scale-{stamp}.md"));
    std::fs::write(&csv, table.csv()).map_err(|e| format!("{}: {e}", csv.display()))?;
    let mut text = format!("# {title}\n\n{}\n", table.markdown());
    for c in &checks_out {
        text.push_str(&format!("- {c}\n"));
    }
    text.push('\n');
    for n in &notes {
        text.push_str(&format!("- {n}\n"));
    }
    std::fs::write(&md, text).map_err(|e| format!("{}: {e}", md.display()))?;
    println!(
        "\nsaved {} and {} (logs in {})",
        csv.display(),
        md.display(),
        logs.display()
    );
    if let Some(dir) = &a.plot {
        let pts = crate::plot::scale::points(&all);
        let (name, svg) =
            crate::plot::scale::figure(&format!("scale-{stamp}"), &class, &pts, a.repeat)?;
        println!(
            "figure: {}",
            crate::plot::write(dir, &name, &svg)?.display()
        );
    }
    Ok(())
}

/// Peak memory of `tests/programs/ring.c token 1 1` at `ranks` ranks / ranks.
fn overhead(
    env: &Env,
    logs: &std::path::Path,
    ranks: u32,
    target: &str,
    timeout: Duration,
    mode: Mode,
) -> Result<String, String> {
    let progs = env.repo.join("tests/programs");
    let exe = logs.join("ring");
    let mpicc = env.vaced_bin.join("mpicc");
    let (src, inc, o) = (
        progs.join("ring.c"),
        format!("-I{}", progs.display()),
        exe.display().to_string(),
    );
    proc::run_tool(
        &mpicc,
        &["-O2", &inc, &src.display().to_string(), "-o", &o],
        &env.repo,
        &[],
    )?;
    let n = ranks.to_string();
    let args = ["-n", &n, "--target", target]
        .iter()
        .chain(mode.mpirun_args())
        .chain(&[o.as_str(), "token", "1", "1"])
        .map(Into::into)
        .collect();
    let suffix = match mode {
        Mode::Process => "",
        Mode::Hosted => "-hosted",
    };
    let spec = JobSpec {
        program: env.vaced_bin.join("mpirun"),
        args,
        cwd: logs.to_path_buf(),
        env: mode.mpirun_env(),
        stdout: logs.join(format!("ring-{ranks}{suffix}.out")),
        stderr: logs.join(format!("ring-{ranks}{suffix}.err")),
        timeout,
        memory: true,
    };
    let j = proc::run(&spec).map_err(|e| e.to_string())?;
    if !j.exit.ok() {
        return Err(format!(
            "ring at {ranks} ranks: {} (see {})",
            j.exit.describe(timeout),
            spec.stderr.display()
        ));
    }
    let (bytes, meth): (u64, MemMethod) = j.peak_mem.ok_or("no memory figure")?;
    Ok(format!(
        "per-rank overhead ({}): ring.c `token 1 1` at {ranks} ranks: peak job memory {} MiB = {:.2} MiB per rank ({}), wall {} s",
        mode.name(),
        mib(bytes),
        bytes as f64 / (1 << 20) as f64 / ranks as f64,
        meth.short(),
        secs(j.wall_s)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npbout::NpbResult;
    use crate::proc::JobResult;
    use crate::vreport::VacedReport;

    fn meas(runner: Runner, cores: u32, wall: f64, ps: u64) -> Measurement {
        meas_in(runner, Mode::Process, cores, wall, ps)
    }

    fn meas_in(runner: Runner, mode: Mode, cores: u32, wall: f64, ps: u64) -> Measurement {
        Measurement {
            case: Case {
                kernel: "cg".into(),
                class: "A".into(),
                ranks: 64,
                runner,
                cores,
                mode,
            },
            job: JobResult {
                exit: Exit::Code(0),
                wall_s: wall,
                cpu_s: 3.0,
                peak_mem: Some((64 << 20, MemMethod::CgroupV1)),
            },
            npb: Some(NpbResult {
                name: "CG".into(),
                class: "A".into(),
                processes: Some(64),
                time_s: ps as f64 / 1e12,
                mops: None,
                verified: true,
            }),
            report: (runner == Runner::Vaced).then(|| VacedReport {
                target: "t".into(),
                nranks: 64,
                cores,
                predicted_s: ps as f64 / 1e12,
                predicted_ps: ps,
                host_wall_s: wall,
                host_cpu_s: 3.0,
                app_cpu_s: 1.8,
                startup_s: Some(0.125),
                efficiency: Some(1.8 / (cores as f64 * wall)),
                msgs_sent: Some(1000),
                ranks_per_process: (mode == Mode::Hosted).then_some(64 / cores),
                host_processes: Some(if mode == Mode::Hosted { cores } else { 64 }),
            }),
            problem: None,
            timeout: Duration::from_secs(100),
        }
    }

    #[test]
    fn rows() {
        // host CPU/msg: (3.0 - 1.8) s / 1000 messages = 1200 us
        assert_eq!(
            row(&meas(Runner::Vaced, 2, 1.0, 500_000_000_000), 2),
            [
                "cg", "A", "64", "vaced", "process", "2", "1.000", "1.800", "0.90", "64.0", "1.00",
                "0.1250", "1200", "0.5000", ""
            ]
        );
        assert_eq!(
            row(
                &meas_in(Runner::Vaced, Mode::Hosted, 2, 1.0, 500_000_000_000),
                2
            ),
            [
                "cg",
                "A",
                "64",
                "vaced",
                "hosted",
                "2",
                "1.000",
                "1.800",
                "0.90",
                "64.0",
                "1.00",
                "0.1250",
                "1200",
                "0.5000",
                "2 host processes"
            ]
        );
        assert_eq!(
            row(&meas(Runner::Mpich, 2, 4.0, 2_000_000_000_000), 2),
            [
                "cg",
                "A",
                "64",
                "mpich",
                "-",
                "2",
                "4.000",
                "3.000",
                "0.38",
                "64.0",
                "1.00",
                "-",
                "-",
                "2.000",
                "real time, oversubscribed 64 ranks on 2 cores"
            ]
        );
        assert_eq!(HEADERS[WALL], "host wall s");
        assert_eq!(HEADERS[PREDICTION], "prediction s");
        assert_eq!(HEADERS[NOTE], "note");
    }

    #[test]
    fn checks_identical_speedup_and_smpi() {
        let a = meas(Runner::Vaced, 1, 2.0, 500_000_000_000);
        let b = meas(Runner::Vaced, 2, 1.0, 500_000_000_000);
        let s = meas(Runner::Smpi, 1, 5.0, 400_000_000_000);
        assert_eq!(
            checks("cg", 64, &[&a, &b, &s]),
            [
                "cg 64 ranks: vaced prediction identical across --cores 1,2 (500000000000 ps)",
                "cg 64 ranks: speed-up wall(cores 1) / wall(cores 2) = 2.00",
                "cg 64 ranks: vaced / SMPI prediction - 1 = +25.00%; SMPI wall / vaced wall (--cores 2) = 5.00",
            ]
        );
        let c = meas(Runner::Vaced, 2, 1.0, 550_000_000_000);
        assert_eq!(
            checks("cg", 64, &[&a, &c])[0],
            "cg 64 ranks: vaced prediction across --cores 1,2: 0.500000000 / 0.550000000 s, spread +10.00% (kernel timer spread +10.00%)"
        );
    }

    #[test]
    fn checks_hosted_vs_process() {
        let h = |c, wall, ps| meas_in(Runner::Vaced, Mode::Hosted, c, wall, ps);
        let p1 = meas(Runner::Vaced, 1, 4.0, 500_000_000_000);
        let h1 = h(1, 2.0, 500_000_000_000);
        let p2 = meas(Runner::Vaced, 2, 2.0, 500_000_000_000);
        let h2 = h(2, 1.0, 500_000_000_000);
        let s = meas(Runner::Smpi, 1, 5.0, 400_000_000_000);
        assert_eq!(
            checks("cg", 64, &[&p1, &h1, &p2, &h2, &s]),
            [
                "cg 64 ranks: vaced prediction identical across --cores 1,2 and modes process,hosted (500000000000 ps)",
                "cg 64 ranks: speed-up wall(cores 1) / wall(cores 2) = 2.00",
                "cg 64 ranks: hosted speed-up wall(cores 1) / wall(cores 2) = 2.00",
                "cg 64 ranks: hosted vs process: wall ratio 2.00 (--cores 1); efficiency process 0.45, hosted 0.90",
                "cg 64 ranks: hosted vs process: wall ratio 2.00 (--cores 2); efficiency process 0.45, hosted 0.90",
                "cg 64 ranks: vaced / SMPI prediction - 1 = +25.00%; SMPI wall / vaced wall (--cores 2) = 2.50",
                "cg 64 ranks: vaced hosted / SMPI prediction - 1 = +25.00%; SMPI wall / hosted wall (--cores 2) = 5.00",
            ]
        );
        // Predictions that differ: each run labelled, the spread within each
        // mode; repeated runs: medians.
        let h1b = h(1, 3.0, 510_000_000_000);
        let got = checks("cg", 64, &[&p1, &h1, &p2, &h1b]);
        assert_eq!(
            got[0],
            "cg 64 ranks: vaced prediction across --cores and modes 1 process / 1 hosted / 2 process / 1 hosted: \
             0.500000000 / 0.500000000 / 0.500000000 / 0.510000000 s, spread +2.00% (kernel timer spread +2.00%); \
             within process: +0.00%, within hosted: +2.00%"
        );
        assert_eq!(
            got[2],
            "cg 64 ranks: hosted vs process: wall ratio 1.60 (--cores 1); efficiency process 0.45, hosted 0.75 \
             (medians of 1 process and 2 hosted runs)"
        );
        assert_eq!(got.len(), 3, "{got:?}");
        // Only hosted runs: its own speed-up and SMPI lines; SMPI past its limit.
        let mut late = meas(Runner::Smpi, 1, 100.0, 0);
        late.job.exit = Exit::TimedOut;
        late.npb = None;
        assert_eq!(
            checks("cg", 64, &[&h1, &h2, &late]),
            [
                "cg 64 ranks: vaced (hosted) prediction identical across --cores 1,2 (500000000000 ps)",
                "cg 64 ranks: hosted speed-up wall(cores 1) / wall(cores 2) = 2.00",
                "cg 64 ranks: SMPI ran past 100 s; vaced hosted (--cores 2) took 1.000 s",
            ]
        );
    }
}
