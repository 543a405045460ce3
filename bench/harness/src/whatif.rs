//! `vaced-bench whatif` (bench/whatif): what a what-if run costs. For each
//! kernel, class and ranks, vaced runs the kernel with one target (A) and
//! with the same target swept over `--configs` values of the network
//! latency (B: one execution, the other configurations replayed), in turn
//! A B A B ... `--repeat` times; the table has each one's median host wall
//! time and the ratio B / A (issue 13 asks for at most 1.5 with 8
//! configurations), and checks, on a target at `cpu.scale = 0`, that B's first
//! configuration predicts what A does.
use crate::case;
use crate::env::Env;
use crate::kernels::{self, Runner};
use crate::metrics::{ratio, secs};
use crate::proc::{self, JobSpec};
use crate::table::Table;
use clap::Args;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Args, Debug)]
pub struct WhatIfArgs {
    /// Kernels, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "cg,is,mg")]
    pub kernels: Vec<String>,
    /// NPB class.
    #[arg(long, default_value = "S")]
    pub class: String,
    /// Rank counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "16,64")]
    pub ranks: Vec<u32>,
    /// Host cores (`mpirun --cores`).
    #[arg(long, default_value_t = 2)]
    pub cores: u32,
    /// Configurations of the what-if run (network.latency = 1 us, 2 us, ...).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(2..))]
    pub configs: u32,
    /// Pairs of runs (A B) per case.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Target machine: a preset name or a target file.
    #[arg(long, default_value = "bench-npb/targets/fat-tree-2pn.toml")]
    pub target: String,
    /// Wall-clock limit of one run, seconds.
    #[arg(long, default_value_t = 900)]
    pub timeout: u64,
    /// Output directory (default: bench/results).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

const HEADERS: [&str; 8] = [
    "kernel",
    "class",
    "ranks",
    "host cores",
    "configurations",
    "one target: wall s",
    "what-if run: wall s",
    "ratio",
];

/// One run: its host wall time and the report's predicted time (ps).
fn one(
    launcher: &Path,
    args: Vec<OsString>,
    logs: &Path,
    name: &str,
    timeout: Duration,
) -> Result<(f64, u64), String> {
    let report = logs.join(format!("{name}.json"));
    let _ = std::fs::remove_file(&report);
    let mut all: Vec<OsString> = vec!["--report".into(), report.clone().into()];
    all.extend(args);
    let spec = JobSpec {
        program: launcher.to_path_buf(),
        args: all,
        cwd: logs.to_path_buf(),
        env: vec![("VACED_PROGRESS".into(), "0".into())],
        stdout: logs.join(format!("{name}.out")),
        stderr: logs.join(format!("{name}.err")),
        timeout,
        memory: false,
    };
    let r = proc::run(&spec).map_err(|e| format!("{name}: {e}"))?;
    if !r.exit.ok() {
        return Err(format!(
            "{name}: {} (see {})",
            r.exit.describe(timeout),
            spec.stderr.display()
        ));
    }
    let text =
        std::fs::read_to_string(&report).map_err(|e| format!("{}: {e}", report.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", report.display()))?;
    let ps = v["predicted_ps"]
        .as_u64()
        .ok_or_else(|| format!("{}: no predicted_ps", report.display()))?;
    Ok((r.wall_s, ps))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn run(a: WhatIfArgs) -> Result<(), String> {
    let env = Env::discover()?;
    let npb_dir = env.npb_dir();
    let (out, stamp, logs) =
        case::results(a.out.as_deref(), env.repo.join("bench/results"), "whatif")?;
    let target = crate::env::target_arg(&a.target)?;
    let launcher = env.launcher(Runner::Vaced)?;
    // at cpu.scale = 0 both runs must predict the same (otherwise the
    // measured computation differs from run to run)
    let exact = env.target(&a.target)?.cpu_scale == 0.0;
    let class = a.class.to_uppercase();
    let timeout = Duration::from_secs(a.timeout);
    let sweep = format!(
        "network.latency={}",
        (1..=a.configs)
            .map(|i| format!("{i}us"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut table = Table::new(&HEADERS);
    let mut notes = Vec::new();
    for k in &a.kernels {
        let k = k.to_lowercase();
        let exe = env
            .compilers(Runner::Vaced)
            .and_then(|cc| kernels::build(&npb_dir, &k, Runner::Vaced, &cc))?;
        for &ranks in &a.ranks {
            if let Some(why) = kernels::forbidden(&k, &class, ranks) {
                notes.push(format!(
                    "{k} class {class} at {ranks} ranks: skipped, {why}"
                ));
                continue;
            }
            let base = |first: &str| -> Vec<OsString> {
                let mut v: Vec<OsString> = vec![
                    "-n".into(),
                    ranks.to_string().into(),
                    "--cores".into(),
                    a.cores.to_string().into(),
                    "--target".into(),
                    target.clone().into(),
                    "--sweep".into(),
                    first.into(),
                ];
                v.push(exe.clone().into());
                v.push(class.clone().into());
                v
            };
            let (mut wa, mut wb) = (Vec::new(), Vec::new());
            for i in 0..a.repeat {
                let stem = format!("{k}.{class}.{ranks}.{i}");
                eprint!("vaced-bench: {stem} ... ");
                let (ta, pa) = one(
                    &launcher,
                    base("network.latency=1us"),
                    &logs,
                    &format!("{stem}.one"),
                    timeout,
                )?;
                let (tb, pb) = one(
                    &launcher,
                    base(&sweep),
                    &logs,
                    &format!("{stem}.whatif"),
                    timeout,
                )?;
                if exact && pa != pb {
                    return Err(format!(
                        "{stem}: the what-if run's first configuration predicts {pb} ps, the run alone {pa} ps"
                    ));
                }
                eprintln!(
                    "one target {} s, {} configurations {} s",
                    secs(ta),
                    a.configs,
                    secs(tb)
                );
                wa.push(ta);
                wb.push(tb);
            }
            let (ma, mb) = (median(wa), median(wb));
            table.push(vec![
                k.clone(),
                class.clone(),
                ranks.to_string(),
                a.cores.to_string(),
                a.configs.to_string(),
                secs(ma),
                secs(mb),
                ratio(mb / ma),
            ]);
        }
    }
    let mut text = format!(
        "vaced-bench whatif, {stamp}: host wall time of one target against {} configurations \
         in one execution (network.latency swept; medians of {} A B pairs; target {})\n\n{}",
        a.configs,
        a.repeat,
        a.target,
        table.text()
    );
    for n in &notes {
        text.push_str(&format!("note: {n}\n"));
    }
    print!("{text}");
    let md = out.join(format!("whatif-{stamp}.md"));
    std::fs::write(
        &md,
        format!(
            "{}\n{}",
            text.lines().next().unwrap_or(""),
            table.markdown()
        ),
    )
    .map_err(|e| format!("{}: {e}", md.display()))?;
    eprintln!("vaced-bench: {}", md.display());
    Ok(())
}
