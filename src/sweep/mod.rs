//! `vaced sweep`: what-if studies over target configurations. The
//! configurations are the cartesian product of `--sweep KEY=V1,V2,...`
//! lists applied to each base target (`--target`, repeatable); each is
//! written as a target file, and the program runs once: `vaced run` with
//! every target replays it under the others (see `crate::replay`; with
//! `--separate`, one run per configuration). Then the table of predictions
//! (approximate ones marked), the sensitivity fit
//! T = a + b·L + c/BW when the latency or the bandwidth is swept, and a
//! figure per swept key. `config` builds the configurations, `run` runs
//! them, `fit` is the least-squares fit, `results` prints and writes
//! `sweep.json`, `plot` draws.
pub mod config;
pub mod fit;
pub mod plot;
pub mod results;
pub mod run;

use crate::launch::args::Program;
use clap::Args;
use std::path::PathBuf;

/// The end of `vaced sweep --help`.
pub const AFTER_HELP: &str = "\
One execution: the program runs under the first configuration and is
replayed under the others (mpirun's what-if run: computation measured once
and scaled per configuration; a deterministic program gets exactly what a
run per configuration would give; a configuration under which a
timing-dependent outcome the program saw comes out differently is marked
approximate). --separate runs the program once per configuration instead,
for programs a replay refuses (MPI_Comm_idup, one-sided communication,
MPI-IO, MPI calls from several threads).

The configurations: for each --target (default: $VACED_TARGET, else
tianhe1a), the cartesian product of the --sweep lists (the first --sweep
varying slowest). KEY is any numeric key of a target file, dotted, with
array indexes where needed (network.latency, network.net_bandwidth,
cpu.scale, network.node.latency, topology.levels[0].ranks); each value is
written as in a target file, with its unit (1us, 2 GB/s, 64 KiB) or a plain
number (cpu.scale=0,1). Every configuration is checked by loading it: a bad
key or value gets the target file's error, naming the key.

Written into DIR:
  config-NNN.toml   each configuration's target file
  config-NNN.json   its report (mpirun --report; replayed configurations:
                    the replay's)
  whatif.json       the one execution's report, every configuration in it
  sweep.json        every configuration: its key values, report, predicted
                    time per rank and for the job; the fits
  sweep-KEY.svg     per swept key: predicted time against the key, one line
                    per combination of the other keys

Sensitivity fit (the DIMEMAS linear-model method): when network.latency (L)
and/or network.net_bandwidth (BW) is swept, T = a + b*L + c/BW is fitted by
least squares (exactly, over the rationals) per rank and for the job, for
each combination of the other keys: a in time, b a count of latencies, c in
bytes, the residuals, and the shares of the fitted time at the base target's
L and BW that are constant (computation...), latency-bound and
bandwidth-bound. A parameter that is not swept stays in a.

Example:
  vaced sweep -n 4 --target tianhe1a --sweep network.latency=1us,2us,5us \\
      --sweep network.net_bandwidth=1GB/s,2GB/s -o study -- ./app args...";

/// Run a program once per target configuration (a sweep of target keys)
/// and fit its sensitivity to latency and bandwidth
#[derive(Debug, Clone, Args)]
#[command(after_help = AFTER_HELP)]
pub struct SweepArgs {
    /// A key and its values: every configuration takes one of them
    /// (repeatable)
    #[arg(long = "sweep", value_name = "KEY=V1,V2,...", value_parser = config::parse_sweep)]
    pub sweeps: Vec<config::Sweep>,
    /// A base target: a preset name or a target file (repeatable; each is
    /// swept) [default: $VACED_TARGET, else tianhe1a]
    #[arg(long = "target", value_name = "NAME|FILE")]
    pub targets: Vec<String>,
    /// Where the configurations, reports, sweep.json and figures go
    #[arg(
        short = 'o',
        long = "out",
        value_name = "DIR",
        default_value = "vaced-sweep"
    )]
    pub out: PathBuf,
    /// Number of ranks (also -np N)
    #[arg(short = 'n', alias = "np", value_name = "N", default_value = "1",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub nranks: u32,
    /// At most C ranks compute at the same time (mpirun --cores)
    #[arg(long, value_name = "C", value_parser = clap::value_parser!(u32).range(1..))]
    pub cores: Option<u32>,
    /// mpirun --sync
    #[arg(long = "sync", value_name = "MODE", default_value = "exact",
          value_parser = ["exact", "fast"])]
    pub sync: String,
    /// No live progress line (mpirun --quiet)
    #[arg(short, long)]
    pub quiet: bool,
    /// One run per configuration instead of one execution replayed
    #[arg(long)]
    pub separate: bool,
    #[command(flatten)]
    pub cmd: Program,
}

/// One run per configuration (`--separate`): their outcomes.
fn separate(
    who: &str,
    job: &run::Job,
    exe: &std::path::Path,
    bases: &[config::Base],
    configs: &[config::Config],
    targets: &[PathBuf],
) -> Result<Vec<run::Outcome>, (i32, String)> {
    let mut outcomes = Vec::new();
    for (i, (c, target)) in configs.iter().zip(targets).enumerate() {
        let report = target.with_extension("json");
        eprintln!(
            "{who}: configuration {i} of {} ({}): {}",
            configs.len(),
            c.label(bases),
            target.display()
        );
        let code = job
            .run(exe, &[target.as_path()], &report)
            .map_err(|e| (1, e))?;
        if code != 0 {
            return Err((
                code,
                format!(
                    "configuration {i} ({}): the run failed with status {code}; \
                     the sweep stops",
                    c.label(bases)
                ),
            ));
        }
        outcomes.push(run::read_report(&report).map_err(|e| (1, e))?);
    }
    Ok(outcomes)
}

/// `vaced sweep`: the exit status (2 for a bad sweep, the first failed
/// run's status, else 0).
pub fn command(who: &str, a: &SweepArgs) -> i32 {
    match sweep(who, a) {
        Ok(code) => code,
        Err((code, msg)) => {
            eprintln!("{who}: {msg}");
            code
        }
    }
}

fn sweep(who: &str, a: &SweepArgs) -> Result<i32, (i32, String)> {
    let usage = |m: String| (crate::launch::EXIT_USAGE, m);
    if a.sweeps.is_empty() && a.targets.is_empty() {
        return Err(usage(
            "no configurations: give --sweep KEY=V1,V2,... or --target (one per configuration)"
                .into(),
        ));
    }
    let specs: Vec<String> = if a.targets.is_empty() {
        let env = std::env::var("VACED_TARGET").ok();
        vec![crate::launch::job::resolve_target(None, env.as_deref())]
    } else {
        a.targets.clone()
    };
    let bases = specs
        .iter()
        .map(|s| config::Base::load(s).map_err(|e| format!("invalid target: {e}")))
        .collect::<Result<Vec<_>, _>>()
        .map_err(usage)?;
    let configs = config::build(&bases, &a.sweeps).map_err(usage)?;
    let io = |m: String| (1, m);
    std::fs::create_dir_all(&a.out).map_err(|e| io(format!("{}: {e}", a.out.display())))?;
    let exe = std::env::current_exe()
        .map_err(|e| io(format!("cannot locate the vaced executable: {e}")))?;
    let job = run::Job {
        nranks: a.nranks,
        cores: a.cores,
        sync: a.sync.clone(),
        quiet: a.quiet,
        program: a.cmd.program.clone(),
        args: a.cmd.args.clone(),
    };
    eprintln!(
        "{who}: {} configurations, {}",
        configs.len(),
        results::how(a.separate)
    );
    let mut targets = Vec::new();
    for (i, c) in configs.iter().enumerate() {
        let (target, report) = config::paths(&a.out, i);
        let header = format!(
            "# vaced sweep configuration {i}: {}\n",
            c.label(&bases).replace('\n', " ")
        );
        std::fs::write(&target, header + &c.toml)
            .map_err(|e| io(format!("{}: {e}", target.display())))?;
        let _ = std::fs::remove_file(&report);
        targets.push(target);
    }
    let outcomes = if a.separate {
        separate(who, &job, &exe, &bases, &configs, &targets)?
    } else {
        let all = a.out.join("whatif.json");
        let _ = std::fs::remove_file(&all);
        let ts: Vec<&std::path::Path> = targets.iter().map(|t| t.as_path()).collect();
        let code = job.run(&exe, &ts, &all).map_err(io)?;
        if code != 0 {
            return Err((
                code,
                format!("the run failed with status {code}; the sweep stops"),
            ));
        }
        let mut outcomes = Vec::new();
        for (i, (o, report)) in run::read_configurations(&all)
            .map_err(io)?
            .into_iter()
            .enumerate()
        {
            let path = config::paths(&a.out, i).1;
            let mut text = serde_json::to_string_pretty(&report).expect("JSON");
            text.push('\n');
            std::fs::write(&path, text).map_err(|e| io(format!("{}: {e}", path.display())))?;
            outcomes.push(o);
        }
        outcomes
    };
    let fits = results::fits(&bases, &configs, &outcomes);
    let mut command = vec![a.cmd.program.to_string_lossy().into_owned()];
    command.extend(a.cmd.args.iter().map(|s| s.to_string_lossy().into_owned()));
    let doc = results::Sweep {
        bases: &bases,
        configs: &configs,
        outcomes: &outcomes,
        fits: &fits,
        dir: &a.out,
        nranks: a.nranks,
        command,
        separate: a.separate,
    };
    print!("{}", doc.text());
    let path = a.out.join("sweep.json");
    let mut text = serde_json::to_string_pretty(&doc.to_json()).expect("JSON");
    text.push('\n');
    std::fs::write(&path, text).map_err(|e| io(format!("{}: {e}", path.display())))?;
    println!("\n{}", path.display());
    let program = std::path::Path::new(&a.cmd.program)
        .file_name()
        .map_or("program".into(), |n| n.to_string_lossy().into_owned());
    for f in plot::write_all(
        &a.out,
        &bases,
        &configs,
        &outcomes,
        &program,
        results::how(a.separate),
    )
    .map_err(io)?
    {
        println!("{}", f.display());
    }
    Ok(0)
}
