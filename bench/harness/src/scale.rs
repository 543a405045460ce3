//! `vaced-bench scale` (bench/scale): how close large runs on this host come
//! to the physical limit. vaced at each ranks x --cores, SimGrid's SMPI on
//! the same kernel and ranks, the system MPICH natively oversubscribed; for
//! each run the host wall time, total computation, efficiency, peak memory of
//! the whole job, start-up and the prediction; then the checks of issue 6
//! (prediction across --cores, speed-up, vaced vs SMPI, per-rank overhead).
use crate::case::{self, Case, Measurement};
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
    /// Run vaced this many times at each --cores, interleaved (cores 1, 2,
    /// 1, 2, ...): the prediction's spread then covers the repetitions too.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Also draw slowdown and efficiency against ranks into DIR/scale-<time>.svg.
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
}

pub const HEADERS: [&str; 13] = [
    "kernel",
    "class",
    "ranks",
    "runner",
    "host cores",
    "host wall s",
    "computation s",
    "efficiency",
    "peak MiB",
    "MiB/rank",
    "start-up s",
    "prediction s",
    "note",
];

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
        opt(m.timer_s(), secs),
        notes.join("; "),
    ]
}

/// The checks printed under the table, for one kernel at one rank count.
pub fn checks(kernel: &str, ranks: u32, ms: &[&Measurement]) -> Vec<String> {
    let mut out = Vec::new();
    let vaced: Vec<&&Measurement> = ms
        .iter()
        .filter(|m| m.case.runner == Runner::Vaced && m.report.is_some() && m.problem.is_none())
        .collect();
    if vaced.len() > 1 {
        let ps: Vec<u64> = vaced
            .iter()
            .map(|m| m.report.as_ref().unwrap().predicted_ps)
            .collect();
        let cores: Vec<String> = vaced.iter().map(|m| m.case.cores.to_string()).collect();
        if ps.iter().all(|p| *p == ps[0]) {
            out.push(format!(
                "{kernel} {ranks} ranks: vaced prediction identical across --cores {} ({} ps)",
                cores.join(","),
                ps[0]
            ));
        } else {
            let s: Vec<f64> = vaced
                .iter()
                .map(|m| m.report.as_ref().unwrap().predicted_s)
                .collect();
            let t: Vec<f64> = vaced.iter().filter_map(|m| m.timer_s()).collect();
            out.push(format!(
                "{kernel} {ranks} ranks: vaced prediction across --cores {}: {} s, spread {} (kernel timer spread {})",
                cores.join(","),
                s.iter().map(|x| format!("{x:.9}")).collect::<Vec<_>>().join(" / "),
                opt(metrics::spread(&s), percent),
                opt(metrics::spread(&t), percent)
            ));
        }
    }
    let wall_at = |c: u32| vaced.iter().find(|m| m.case.cores == c).map(|m| m.wall_s());
    if let (Some(w1), Some(w2)) = (wall_at(1), wall_at(2)) {
        out.push(format!(
            "{kernel} {ranks} ranks: speed-up wall(cores 1) / wall(cores 2) = {}",
            ratio(w1 / w2)
        ));
    }
    let smpi = ms.iter().find(|m| m.case.runner == Runner::Smpi);
    let best = vaced.iter().max_by_key(|m| m.case.cores);
    if let (Some(s), Some(v)) = (smpi, best) {
        if s.job.exit == Exit::TimedOut {
            out.push(format!(
                "{kernel} {ranks} ranks: SMPI ran past {} s; vaced (--cores {}) took {} s",
                s.timeout.as_secs(),
                v.case.cores,
                secs(v.wall_s())
            ));
        } else if let (Some(ts), Some(tv)) = (s.timer_s(), v.timer_s()) {
            out.push(format!(
                "{kernel} {ranks} ranks: vaced / SMPI prediction - 1 = {}; SMPI wall / vaced wall (--cores {}) = {}",
                opt(metrics::relative_error(tv, ts), percent),
                v.case.cores,
                ratio(s.wall_s() / v.wall_s())
            ));
        }
    }
    out
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
                        cases.push((Runner::Vaced, c, run));
                    }
                }
            }
            if smpi_ranks.contains(&ranks) {
                cases.push((Runner::Smpi, 1, 0));
            }
            if mpich_ranks.contains(&ranks) {
                cases.push((Runner::Mpich, env.host_cores, 0));
            }
            let first = all.len();
            for (r, c, run) in cases {
                let Some(exe) = exes.get(&r) else { continue };
                let case = Case {
                    kernel: k.clone(),
                    class: class.clone(),
                    ranks,
                    runner: r,
                    cores: c,
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
                    row[12] = if row[12].is_empty() {
                        tag
                    } else {
                        format!("{tag}; {}", row[12])
                    };
                }
                eprintln!(
                    "wall {} s, prediction {} s{}",
                    row[5],
                    row[11],
                    if row[12].is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", row[12])
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
        match overhead(&env, &logs, a.overhead_ranks, &target_arg, timeout) {
            Ok(line) => checks_out.push(line),
            Err(e) => checks_out.push(format!("per-rank overhead: {e}")),
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
    let spec = JobSpec {
        program: env.vaced_bin.join("mpirun"),
        args: [
            "-n",
            &ranks.to_string(),
            "--target",
            target,
            &o,
            "token",
            "1",
            "1",
        ]
        .iter()
        .map(Into::into)
        .collect(),
        cwd: logs.to_path_buf(),
        env: Vec::new(),
        stdout: logs.join(format!("ring-{ranks}.out")),
        stderr: logs.join(format!("ring-{ranks}.err")),
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
        "per-rank overhead: ring.c `token 1 1` at {ranks} ranks: peak job memory {} MiB = {:.2} MiB per rank ({}), wall {} s",
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
        Measurement {
            case: Case {
                kernel: "cg".into(),
                class: "A".into(),
                ranks: 64,
                runner,
                cores,
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
            }),
            problem: None,
            timeout: Duration::from_secs(100),
        }
    }

    #[test]
    fn rows() {
        assert_eq!(
            row(&meas(Runner::Vaced, 2, 1.0, 500_000_000_000), 2),
            [
                "cg", "A", "64", "vaced", "2", "1.000", "1.800", "0.90", "64.0", "1.00", "0.1250",
                "0.5000", ""
            ]
        );
        assert_eq!(
            row(&meas(Runner::Mpich, 2, 4.0, 2_000_000_000_000), 2),
            [
                "cg",
                "A",
                "64",
                "mpich",
                "2",
                "4.000",
                "3.000",
                "0.38",
                "64.0",
                "1.00",
                "-",
                "2.000",
                "real time, oversubscribed 64 ranks on 2 cores"
            ]
        );
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
}
