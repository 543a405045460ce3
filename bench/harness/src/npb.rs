//! `vaced-bench npb` (bench-npb/run): bench-npb kernels under vaced at each
//! --cores, and when asked under the system MPICH (real time) and SimGrid's
//! SMPI; a table of predicted and real times, RE, host wall, slowdown and
//! efficiency, printed and saved as CSV and Markdown. With `--repeat N`
//! every case runs N times, its runners interleaved (MPICH, vaced, MPICH,
//! vaced, ...), and a summary gives the medians, the RE of the medians and
//! the median and largest |RE| over the cases.
use crate::case::{self, Case, Measurement, Mode};
use crate::env::Env;
use crate::kernels::{self, Runner};
use crate::metrics::{self, opt, percent, ratio, secs};
use crate::netns::Shaping;
use crate::table::Table;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct NpbArgs {
    /// Kernels, comma-separated (default: all eight; absent ones are noted and skipped).
    #[arg(long, value_delimiter = ',', default_value = "ep,is,cg,mg,ft,lu,sp,bt")]
    pub kernels: Vec<String>,
    /// NPB classes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "S")]
    pub classes: Vec<String>,
    /// Rank counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "4")]
    pub ranks: Vec<u32>,
    /// Host cores for vaced (`mpirun --cores`), comma-separated (default: this host's cores).
    #[arg(long, value_delimiter = ',')]
    pub cores: Vec<u32>,
    /// Also run each case under the system MPICH (mpirun.mpich), for real.
    #[arg(long)]
    pub mpich: bool,
    /// Also run each case under SimGrid's SMPI on the same target parameters.
    #[arg(long)]
    pub smpi: bool,
    /// Target machine: a preset name or a target file.
    #[arg(long, default_value = "tianhe1a")]
    pub target: String,
    /// Output directory (default: bench-npb/results).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Wall-clock limit of one run, seconds.
    #[arg(long, default_value_t = 600)]
    pub timeout: u64,
    /// Run each case this many times, the runners interleaved; the summary
    /// compares medians (default 1, and 3 with --shaped).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: Option<u32>,
    /// Instead of this host: MPICH for real across two emulated nodes (network
    /// namespaces joined by a veth pair shaped to RATE, and DELAY where the kernel
    /// has sch_netem), one rank each, against vaced with a target calibrated on
    /// that link; comma-separated, e.g. `1gbit,10gbit:20us`. Needs root and
    /// --ranks 2; --target and --smpi do not apply. See bench/README.md.
    #[arg(long, value_delimiter = ',', value_name = "RATE[:DELAY]", value_parser = Shaping::parse)]
    pub shaped: Vec<Shaping>,
    /// --shaped: tbf bucket in bytes (default: 20 us of the rate, at least two frames).
    #[arg(long)]
    pub shaped_burst: Option<u64>,
    /// Also draw SVG figures into DIR: predicted vs real time per case
    /// (npb-<time>-time.svg) and, with --mpich, the RE per case (npb-<time>-re.svg).
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
}

/// The summary of repeated runs: per (kernel, class, ranks), the median of
/// MPICH's timer and of each vaced --cores' timer, the RE of the medians and
/// the range of RE over the repetitions (rep i against MPICH's rep i).
pub const SUMMARY_HEADERS: [&str; 8] = [
    "kernel",
    "class",
    "ranks",
    "host cores",
    "real s (median)",
    "predicted s (median)",
    "RE of medians",
    "RE per run (min .. max)",
];

/// (kernel, class, ranks, runner, cores): one case of one runner.
pub type CaseKey = (String, String, u32, Runner, u32);

/// The median of `v` (the mean of the middle two for an even count).
pub fn median(v: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Summary rows and the |RE| of the medians of each case, from timers by
/// (kernel, class, ranks, runner, cores) in run order.
pub fn summary(timers: &[(CaseKey, Vec<f64>)]) -> (Vec<Vec<String>>, Vec<(String, f64)>) {
    let mut rows = Vec::new();
    let mut res = Vec::new();
    for ((k, class, ranks, runner, cores), pred) in timers {
        if *runner != Runner::Vaced {
            continue;
        }
        let real = timers
            .iter()
            .find(|((k2, c2, r2, run2, _), _)| {
                k2 == k && c2 == class && r2 == ranks && *run2 == Runner::Mpich
            })
            .map(|(_, v)| v.as_slice())
            .unwrap_or(&[]);
        let (mr, mp) = (median(real), median(pred));
        let re = mr.zip(mp).and_then(|(r, p)| metrics::relative_error(p, r));
        let per: Vec<f64> = pred
            .iter()
            .zip(real)
            .filter_map(|(p, r)| metrics::relative_error(*p, *r))
            .collect();
        let range = match (
            per.iter().copied().reduce(f64::min),
            per.iter().copied().reduce(f64::max),
        ) {
            (Some(a), Some(b)) => format!("{} .. {}", percent(a), percent(b)),
            _ => "-".into(),
        };
        if let Some(e) = re {
            res.push((format!("{k} {class} {ranks} (cores {cores})"), e.abs()));
        }
        rows.push(vec![
            k.clone(),
            class.clone(),
            ranks.to_string(),
            cores.to_string(),
            opt(mr, secs),
            opt(mp, secs),
            opt(re, percent),
            range,
        ]);
    }
    (rows, res)
}

pub const HEADERS: [&str; 13] = [
    "kernel",
    "class",
    "ranks",
    "runner",
    "host cores",
    "predicted s",
    "real s",
    "RE",
    "host wall s",
    "slowdown",
    "efficiency",
    "verified",
    "note",
];

/// One table row. `real` is the MPICH time of the same kernel, class and ranks.
pub fn row(m: &Measurement, real: Option<f64>, host_cores: u32) -> Vec<String> {
    let c = &m.case;
    let is_mpich = c.runner == Runner::Mpich;
    let timer = m.timer_s();
    let predicted = if is_mpich { None } else { timer };
    let re = predicted
        .zip(real)
        .and_then(|(p, r)| metrics::relative_error(p, r));
    let wall = (m.job.exit != crate::proc::Exit::TimedOut).then(|| m.wall_s());
    let slowdown = if is_mpich {
        None
    } else {
        wall.zip(predicted)
            .and_then(|(w, p)| metrics::slowdown(w, p))
    };
    let eff = if is_mpich { None } else { m.efficiency() };
    let mut notes = Vec::new();
    if is_mpich && c.ranks > host_cores {
        notes.push(format!(
            "oversubscribed: {} ranks on {host_cores} cores",
            c.ranks
        ));
    }
    if !is_mpich && re.is_some() && c.ranks > host_cores {
        notes.push(format!(
            "RE against an oversubscribed MPICH run ({} ranks on {host_cores} cores)",
            c.ranks
        ));
    }
    if let Some(p) = &m.problem {
        notes.push(p.clone());
    }
    vec![
        c.kernel.clone(),
        c.class.clone(),
        c.ranks.to_string(),
        c.runner.name().into(),
        c.cores.to_string(),
        opt(predicted, secs),
        opt(if is_mpich { timer } else { None }, secs),
        opt(re, percent),
        if m.job.exit == crate::proc::Exit::TimedOut {
            format!("> {}", m.timeout.as_secs())
        } else {
            opt(wall, secs)
        },
        opt(slowdown, ratio),
        opt(eff, ratio),
        m.verified()
            .map_or("-".into(), |v| if v { "yes".into() } else { "NO".into() }),
        notes.join("; "),
    ]
}

pub fn run(a: NpbArgs) -> Result<(), String> {
    let repeat = a.repeat.unwrap_or(1);
    if !a.shaped.is_empty() {
        if a.plot.is_some() {
            return Err("--plot does not apply to --shaped runs".into());
        }
        return crate::shaped::run(a);
    }
    let env = Env::discover()?;
    let npb_dir = env.npb_dir();
    let (out, stamp, logs) = case::results(a.out.as_deref(), npb_dir.join("results"), "npb")?;
    let target = env.target(&a.target)?;
    let target_arg = crate::env::target_arg(&a.target)?;
    let cores = if a.cores.is_empty() {
        vec![env.host_cores]
    } else {
        a.cores.clone()
    };
    let timeout = Duration::from_secs(a.timeout);
    let mut notes: Vec<String> = Vec::new();
    let mut runners = vec![];
    if a.mpich {
        runners.push(Runner::Mpich);
    }
    runners.push(Runner::Vaced);
    if a.smpi {
        runners.push(Runner::Smpi);
    }
    // Build what is needed, once per kernel and runner.
    let (exes, kernels_run) = kernels::build_all(&env, &a.kernels, &runners, &mut notes)?;
    let setup = case::Setup {
        env: &env,
        target: &target,
        target_arg: &target_arg,
        logs: &logs,
        timeout,
        memory: false,
    };
    let mut table = Table::new(&HEADERS);
    let mut all = Vec::new();
    let mut timers: Vec<(CaseKey, Vec<f64>)> = Vec::new();
    for k in &kernels_run {
        for class in &a.classes {
            let class = class.to_uppercase();
            for &ranks in &a.ranks {
                if let Some(why) = kernels::forbidden(k, &class, ranks) {
                    let n = format!("{k} class {class} at {ranks} ranks: skipped, {why}");
                    eprintln!("vaced-bench: {n}");
                    notes.push(n);
                    continue;
                }
                let mut real = None;
                for rep_i in 0..repeat {
                    for &r in &runners {
                        let Ok(exe) = &exes[&(k.clone(), r)] else {
                            continue;
                        };
                        let core_list = match r {
                            Runner::Vaced => cores.clone(),
                            Runner::Mpich => vec![env.host_cores],
                            Runner::Smpi => vec![1],
                        };
                        for c in core_list {
                            let case = Case {
                                kernel: k.clone(),
                                class: class.clone(),
                                ranks,
                                runner: r,
                                cores: c,
                                mode: Mode::Process,
                            };
                            if repeat > 1 {
                                eprint!("vaced-bench: {} (run {}) ... ", case.stem(), rep_i + 1);
                            } else {
                                eprint!("vaced-bench: {} ... ", case.stem());
                            }
                            let rep_logs = case::run_logs(&logs, rep_i, repeat)?;
                            let rep_setup = case::Setup {
                                logs: &rep_logs,
                                ..setup
                            };
                            let m = case::run(&rep_setup, &case, exe)?;
                            let key = (k.clone(), class.clone(), ranks, r, c);
                            match timers.iter_mut().find(|(k2, _)| *k2 == key) {
                                Some((_, v)) => v.push(m.timer_s().unwrap_or(f64::NAN)),
                                None => timers.push((key, vec![m.timer_s().unwrap_or(f64::NAN)])),
                            }
                            if r == Runner::Mpich {
                                real = m.timer_s();
                            }
                            let mut row = row(&m, real, env.host_cores);
                            if repeat > 1 {
                                let run = format!("run {} of {}", rep_i + 1, repeat);
                                row[12] = if row[12].is_empty() {
                                    run
                                } else {
                                    format!("{run}; {}", row[12])
                                };
                            }
                            let timer = if row[5] == "-" { &row[6] } else { &row[5] };
                            let note = if row[12].is_empty() {
                                String::new()
                            } else {
                                format!(" ({})", row[12])
                            };
                            eprintln!("timer {timer} s, wall {} s{note}", row[8]);
                            table.push(row);
                            all.push(m);
                        }
                    }
                }
            }
        }
    }
    if a.mpich {
        notes.push(format!(
            "MPICH rows are real runs on this host ({} cores, {}); with more ranks than cores they are \
             oversubscribed (flagged) and their real time is not what the target would take. RE compares a \
             prediction with the MPICH time of the same kernel, class and ranks: meaningful when the target \
             models this host (bench-npb/targets/this-host.toml, made by `vaced-bench calibrate`).",
            env.host_cores,
            Env::cpu_model()
        ));
    }
    notes.push(
        "predicted s: the kernel's own timer (MPI_Wtime), virtual under vaced and SMPI; real s: the same \
         timer under MPICH. slowdown = host wall / predicted; efficiency = total computation / (host cores x \
         host wall), computation being vaced's measured application CPU time, and for SMPI the CPU time of \
         the simulation (it runs ranks in turn on 1 core)."
            .into(),
    );
    if a.smpi {
        notes.push(
            "SMPI platform derived from the same target (see bench/harness/src/smpi.rs): nodes of the \
             target's hops=0 level, a link per hop class with l(h) and Bnet, Bmem inside a node, copies as \
             per-byte send/receive overheads, eager up to eager_limit, host speed so that computation is \
             charged like cpu.scale, MPICH collective selection."
                .into(),
        );
    }
    notes.push(Env::load_note());
    let cmdline: Vec<String> = std::env::args().skip(1).collect();
    let title = format!(
        "bench-npb/run {}  (target {}, host {} cores, {})",
        cmdline.join(" ").trim_start_matches("npb ").trim(),
        target.name,
        env.host_cores,
        Env::cpu_model()
    );
    println!("\n{title}\n\n{}", table.text());
    let (srows, res) = summary(&timers);
    let mut stable = Table::new(&SUMMARY_HEADERS);
    let show_summary = repeat > 1 && a.mpich;
    if show_summary {
        for r in srows {
            stable.push(r);
        }
        println!(
            "\nsummary of {} interleaved runs per case\n\n{}",
            repeat,
            stable.text()
        );
        let abs: Vec<f64> = res.iter().map(|r| r.1).collect();
        if let (Some(med), Some(worst)) =
            (median(&abs), res.iter().max_by(|x, y| x.1.total_cmp(&y.1)))
        {
            notes.insert(
                0,
                format!(
                    "over {} cases: median |RE of medians| {:.2}%, largest {:.2}% ({})",
                    res.len(),
                    med * 100.0,
                    worst.1 * 100.0,
                    worst.0
                ),
            );
        }
    }
    for n in &notes {
        println!("note: {n}");
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let csv = out.join(format!("npb-{stamp}.csv"));
    let md = out.join(format!("npb-{stamp}.md"));
    std::fs::write(&csv, table.csv()).map_err(|e| format!("{}: {e}", csv.display()))?;
    let mut mdtext = format!("# {title}\n\n{}\n", table.markdown());
    if show_summary {
        mdtext.push_str(&format!(
            "\n## Summary of {} interleaved runs per case\n\n{}\n",
            repeat,
            stable.markdown()
        ));
    }
    for n in &notes {
        mdtext.push_str(&format!("- {n}\n"));
    }
    std::fs::write(&md, mdtext).map_err(|e| format!("{}: {e}", md.display()))?;
    println!(
        "\nsaved {} and {} (logs in {})",
        csv.display(),
        md.display(),
        logs.display()
    );
    if let Some(dir) = &a.plot {
        for (name, svg) in crate::plot::npb::figures(&format!("npb-{stamp}"), &timers, repeat)? {
            println!(
                "figure: {}",
                crate::plot::write(dir, &name, &svg)?.display()
            );
        }
    }
    let failed = all
        .iter()
        .filter(|m| m.problem.is_some() || m.verified() == Some(false))
        .count();
    if failed > 0 {
        println!("{failed} case(s) failed or did not verify: see the note column and the logs");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npbout::NpbResult;
    use crate::proc::{Exit, JobResult};
    use crate::vreport::VacedReport;

    fn meas(runner: Runner, cores: u32, timer: f64, wall: f64) -> Measurement {
        Measurement {
            case: Case {
                kernel: "cg".into(),
                class: "S".into(),
                ranks: 4,
                runner,
                cores,
                mode: Mode::Process,
            },
            job: JobResult {
                exit: Exit::Code(0),
                wall_s: wall,
                cpu_s: 1.5,
                peak_mem: None,
            },
            npb: Some(NpbResult {
                name: "CG".into(),
                class: "S".into(),
                processes: Some(4),
                time_s: timer,
                mops: None,
                verified: true,
            }),
            report: None,
            problem: None,
            timeout: Duration::from_secs(60),
        }
    }

    #[test]
    fn mpich_row_is_real_and_flagged() {
        let m = meas(Runner::Mpich, 2, 0.5, 0.7);
        assert_eq!(
            row(&m, Some(0.5), 2),
            [
                "cg",
                "S",
                "4",
                "mpich",
                "2",
                "-",
                "0.5000",
                "-",
                "0.7000",
                "-",
                "-",
                "yes",
                "oversubscribed: 4 ranks on 2 cores"
            ]
        );
    }

    #[test]
    fn vaced_row_uses_its_report() {
        let mut m = meas(Runner::Vaced, 1, 0.55, 9.0);
        m.report = Some(VacedReport {
            target: "t".into(),
            nranks: 4,
            cores: 1,
            predicted_s: 0.6,
            predicted_ps: 600_000_000_000,
            host_wall_s: 1.1,
            host_cpu_s: 1.0,
            app_cpu_s: 0.88,
            startup_s: Some(0.01),
            efficiency: Some(0.8),
            msgs_sent: None,
            ranks_per_process: None,
            host_processes: None,
        });
        assert_eq!(
            row(&m, Some(0.5), 4),
            [
                "cg", "S", "4", "vaced", "1", "0.5500", "-", "+10.00%", "1.100", "2.00", "0.80",
                "yes", ""
            ]
        );
        // the MPICH run of 4 ranks on 2 host cores was oversubscribed
        assert_eq!(
            row(&m, Some(0.5), 2)[12],
            "RE against an oversubscribed MPICH run (4 ranks on 2 cores)"
        );
        // no MPICH run: no RE, no note
        assert_eq!(
            row(&m, None, 2)[7..13],
            ["-", "1.100", "2.00", "0.80", "yes", ""]
        );
    }

    #[test]
    fn smpi_row_and_timeout() {
        let m = meas(Runner::Smpi, 1, 0.25, 2.0);
        // efficiency from the job's CPU time: 1.5 / (1 x 2.0)
        assert_eq!(
            row(&m, None, 2),
            ["cg", "S", "4", "smpi", "1", "0.2500", "-", "-", "2.000", "8.00", "0.75", "yes", ""]
        );
        let mut t = meas(Runner::Smpi, 1, 0.0, 60.0);
        t.npb = None;
        t.job.exit = Exit::TimedOut;
        t.problem = Some(Exit::TimedOut.describe(t.timeout));
        assert_eq!(
            row(&t, Some(0.5), 2),
            [
                "cg",
                "S",
                "4",
                "smpi",
                "1",
                "-",
                "-",
                "-",
                "> 60",
                "-",
                "-",
                "-",
                "> 60 s (timeout)"
            ]
        );
    }

    #[test]
    fn medians_and_summary() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[f64::NAN]), None);
        let key = |r| ("is".to_string(), "W".to_string(), 2u32, r, 2u32);
        let timers = vec![
            (key(Runner::Mpich), vec![1.0, 1.2, 1.1]),
            (key(Runner::Vaced), vec![1.05, 1.0, 1.21]),
        ];
        let (rows, res) = summary(&timers);
        assert_eq!(rows.len(), 1);
        // medians 1.1 and 1.05: RE -4.55%; per run +5%, -16.67%, +10%
        assert_eq!(
            rows[0],
            [
                "is",
                "W",
                "2",
                "2",
                "1.100",
                "1.050",
                "-4.55%",
                "-16.67% .. +10.00%"
            ]
        );
        assert_eq!(res.len(), 1);
        assert!((res[0].1 - 0.05 / 1.1).abs() < 1e-12);
    }
}
