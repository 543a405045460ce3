//! One benchmark case (kernel, class, ranks, runner, cores, vaced's
//! execution mode) run to a measurement: the launcher command of each
//! runner, the NPB result block, vaced's JSON report, the job's wall, CPU and
//! memory.
use crate::env::Env;
use crate::kernels::Runner;
use crate::npbout::{self, NpbResult};
use crate::proc::{self, Exit, JobResult, JobSpec};
use crate::smpi;
use crate::target::Target;
use crate::vreport::{self, VacedReport};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How vaced's `mpirun` runs the ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum Mode {
    /// One process per rank (mpirun's default).
    Process,
    /// Many ranks per process: `--ranks-per-process auto` (one host process
    /// per --cores).
    Hosted,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Process => "process",
            Mode::Hosted => "hosted",
        }
    }
    /// mpirun's options for the mode.
    pub fn mpirun_args(self) -> &'static [&'static str] {
        match self {
            Mode::Process => &[],
            Mode::Hosted => &["--ranks-per-process", "auto"],
        }
    }
    /// mpirun's environment for the mode: in process mode an empty
    /// `$VACED_RANKS_PER_PROCESS`, so that one inherited from the caller does
    /// not turn the run into the other mode (the option wins over it).
    pub fn mpirun_env(self) -> Vec<(String, String)> {
        match self {
            Mode::Process => vec![("VACED_RANKS_PER_PROCESS".into(), String::new())],
            Mode::Hosted => Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Case {
    pub kernel: String,
    pub class: String,
    pub ranks: u32,
    pub runner: Runner,
    /// vaced: --cores; MPICH: the host's cores; SMPI: 1 (it runs ranks in turn).
    pub cores: u32,
    /// vaced's execution mode (`Process` for the other runners, which have
    /// none).
    pub mode: Mode,
}

impl Case {
    /// A file-name stem: "cg-S-4-vaced-c2" (process mode, and the other
    /// runners), "cg-S-4-vaced-hosted-c2".
    pub fn stem(&self) -> String {
        let mode = match (self.runner, self.mode) {
            (Runner::Vaced, Mode::Hosted) => "-hosted",
            _ => "",
        };
        format!(
            "{}-{}-{}-{}{mode}-c{}",
            self.kernel,
            self.class,
            self.ranks,
            self.runner.name(),
            self.cores
        )
    }
    /// The mode column: the mode's name for vaced, "-" for the others.
    pub fn mode_name(&self) -> &'static str {
        match self.runner {
            Runner::Vaced => self.mode.name(),
            _ => "-",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Measurement {
    pub case: Case,
    pub job: JobResult,
    pub npb: Option<NpbResult>,
    pub report: Option<VacedReport>,
    /// Why a figure is missing (a failed run, an unreadable block).
    pub problem: Option<String>,
    pub timeout: Duration,
}

impl Measurement {
    /// The kernel's own timer: virtual time under vaced and SMPI, real time
    /// under MPICH.
    pub fn timer_s(&self) -> Option<f64> {
        self.npb.as_ref().map(|n| n.time_s)
    }
    /// Host wall time (vaced: as its report gives it).
    pub fn wall_s(&self) -> f64 {
        self.report
            .as_ref()
            .map_or(self.job.wall_s, |r| r.host_wall_s)
    }
    /// Total computation: vaced's measured application CPU time; MPICH and
    /// SMPI: user + system CPU of the job's processes.
    pub fn computation_s(&self) -> Option<f64> {
        match (&self.report, self.job.exit) {
            (Some(r), _) => Some(r.app_cpu_s),
            (None, Exit::TimedOut) => None,
            (None, _) => Some(self.job.cpu_s),
        }
    }
    pub fn efficiency(&self) -> Option<f64> {
        match &self.report {
            Some(r) => r.efficiency,
            None => {
                crate::metrics::efficiency(self.computation_s()?, self.case.cores, self.wall_s())
            }
        }
    }
    pub fn verified(&self) -> Option<bool> {
        self.npb.as_ref().map(|n| n.verified)
    }
}

/// What every case of one table shares.
pub struct Setup<'a> {
    pub env: &'a Env,
    pub target: &'a Target,
    /// The --target argument for vaced's mpirun (a name, or an absolute file).
    pub target_arg: &'a str,
    /// Logs (stdout, stderr, report, SMPI platform) go here.
    pub logs: &'a Path,
    pub timeout: Duration,
    /// Measure the job's peak memory.
    pub memory: bool,
}

/// The logs directory of run `i` (from 0) of `n` repeated runs: `logs`
/// itself for a single run, else `logs/run<i+1>/` (created).
pub fn run_logs(logs: &Path, i: u32, n: u32) -> Result<PathBuf, String> {
    if n <= 1 {
        return Ok(logs.to_path_buf());
    }
    let d = logs.join(format!("run{}", i + 1));
    std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    Ok(d)
}

/// Runs `case` with binary `exe`.
pub fn run(s: &Setup, case: &Case, exe: &Path) -> Result<Measurement, String> {
    let (env, target, target_arg, logs, timeout) =
        (s.env, s.target, s.target_arg, s.logs, s.timeout);
    let memory = s.memory;
    let stem = case.stem();
    let launcher = env.launcher(case.runner)?;
    let n = case.ranks.to_string();
    let mut args: Vec<OsString> = Vec::new();
    let mut job_env = Vec::new();
    let report_path = logs.join(format!("{stem}.json"));
    match case.runner {
        Runner::Vaced => {
            let _ = std::fs::remove_file(&report_path);
            for a in [
                "-n",
                &n,
                "--target",
                target_arg,
                "--cores",
                &case.cores.to_string(),
            ] {
                args.push(a.into());
            }
            args.extend(case.mode.mpirun_args().iter().map(OsString::from));
            job_env = case.mode.mpirun_env();
            args.push("--report".into());
            args.push(report_path.clone().into());
        }
        Runner::Mpich => {
            args.push("-n".into());
            args.push(n.into());
        }
        Runner::Smpi => {
            let s = smpi::setup(target, case.ranks)?;
            if s.nodes > smpi::MANY_NODES {
                eprintln!(
                    "vaced-bench: SMPI platform of {} nodes ({} ranks each): {} routes to load",
                    s.nodes,
                    s.ranks_per_node,
                    s.nodes as u64 * (s.nodes as u64 + 1) / 2
                );
            }
            let platform = logs.join(format!("{stem}.platform.xml"));
            let hostfile = logs.join(format!("{stem}.hosts"));
            std::fs::write(&platform, &s.platform_xml)
                .map_err(|e| format!("{}: {e}", platform.display()))?;
            std::fs::write(&hostfile, &s.hostfile)
                .map_err(|e| format!("{}: {e}", hostfile.display()))?;
            args.extend(s.cfg.iter().map(OsString::from));
            for a in ["-np".into(), n, "-platform".into()] {
                args.push(a.into());
            }
            args.push(platform.into());
            args.push("-hostfile".into());
            args.push(hostfile.into());
        }
    }
    args.push(exe.into());
    args.push(case.class.clone().into());
    let spec = JobSpec {
        program: launcher,
        args,
        cwd: logs.to_path_buf(),
        env: job_env,
        stdout: logs.join(format!("{stem}.out")),
        stderr: logs.join(format!("{stem}.err")),
        timeout,
        memory,
    };
    let job = proc::run(&spec).map_err(|e| format!("{stem}: {e}"))?;
    let stdout = std::fs::read_to_string(&spec.stdout).unwrap_or_default();
    let mut problem = None;
    let npb = if job.exit == Exit::TimedOut {
        problem = Some(job.exit.describe(timeout));
        None
    } else {
        match npbout::parse(&stdout) {
            Ok(r) => Some(r),
            Err(e) => {
                problem = Some(format!(
                    "{}; {e} (see {})",
                    job.exit.describe(timeout),
                    spec.stderr.display()
                ));
                None
            }
        }
    };
    if problem.is_none() && !job.exit.ok() {
        problem = Some(job.exit.describe(timeout));
    }
    let report = if case.runner == Runner::Vaced && report_path.is_file() {
        let text = std::fs::read_to_string(&report_path)
            .map_err(|e| format!("{}: {e}", report_path.display()))?;
        Some(vreport::parse(&text).map_err(|e| format!("{}: {e}", report_path.display()))?)
    } else {
        None
    };
    if let Some(why) = report.as_ref().and_then(|r| mode_mismatch(case.mode, r)) {
        problem.get_or_insert(why);
    }
    Ok(Measurement {
        case: case.clone(),
        job,
        npb,
        report,
        problem,
        timeout,
    })
}

/// Why a vaced report does not show the case's mode (its
/// `ranks_per_process` is null exactly in process mode), if it does not.
pub fn mode_mismatch(mode: Mode, r: &VacedReport) -> Option<String> {
    match (mode, r.ranks_per_process) {
        (Mode::Process, Some(k)) => Some(format!(
            "ran in the many-ranks mode ({k} ranks per process), not one process per rank"
        )),
        (Mode::Hosted, None) => Some("ran one process per rank, not in the many-ranks mode".into()),
        _ => None,
    }
}

/// The logs directory of one table under an output directory, created:
/// `<out>/logs/<table>` (`npb-<UTC time>`, the table's own file name), so
/// that a later run does not overwrite the logs of an earlier table.
/// Where a benchmark's results go (`out`, else `default`), its time stamp
/// and its logs directory (`<out>/logs/<name>-<stamp>`).
pub fn results(
    out: Option<&Path>,
    default: PathBuf,
    name: &str,
) -> Result<(PathBuf, String, PathBuf), String> {
    let out = out.map_or(default, Path::to_path_buf);
    let stamp = crate::env::now_stamp();
    let logs = logs_dir(&out, &format!("{name}-{stamp}"))?;
    Ok((out, stamp, logs))
}

pub fn logs_dir(out: &Path, table: &str) -> Result<PathBuf, String> {
    let d = out.join("logs").join(table);
    std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(runner: Runner, mode: Mode) -> Case {
        Case {
            kernel: "cg".into(),
            class: "S".into(),
            ranks: 4,
            runner,
            cores: 2,
            mode,
        }
    }

    #[test]
    fn modes_in_stems_and_command_lines() {
        assert_eq!(case(Runner::Vaced, Mode::Process).stem(), "cg-S-4-vaced-c2");
        assert_eq!(
            case(Runner::Vaced, Mode::Hosted).stem(),
            "cg-S-4-vaced-hosted-c2"
        );
        assert_eq!(case(Runner::Smpi, Mode::Process).stem(), "cg-S-4-smpi-c2");
        assert_eq!(case(Runner::Vaced, Mode::Hosted).mode_name(), "hosted");
        assert_eq!(case(Runner::Mpich, Mode::Process).mode_name(), "-");
        assert!(Mode::Process.mpirun_args().is_empty());
        assert_eq!(Mode::Hosted.mpirun_args(), ["--ranks-per-process", "auto"]);
        assert_eq!(
            Mode::Process.mpirun_env(),
            [("VACED_RANKS_PER_PROCESS".to_string(), String::new())]
        );
        assert!(Mode::Hosted.mpirun_env().is_empty());
    }

    #[test]
    fn report_must_show_the_mode() {
        let mut r = vreport::parse(
            r#"{"target":"t","nranks":4,"cores":2,"predicted_s":0,"predicted_ps":0,
            "host_wall_s":0,"host_cpu_s":0,"app_cpu_s":0,"startup_s":null,"efficiency":null,
            "ranks_per_process":null,"host_processes":4}"#,
        )
        .unwrap();
        assert_eq!(mode_mismatch(Mode::Process, &r), None);
        assert_eq!(
            mode_mismatch(Mode::Hosted, &r).as_deref(),
            Some("ran one process per rank, not in the many-ranks mode")
        );
        r.ranks_per_process = Some(2);
        assert_eq!(mode_mismatch(Mode::Hosted, &r), None);
        assert_eq!(
            mode_mismatch(Mode::Process, &r).as_deref(),
            Some("ran in the many-ranks mode (2 ranks per process), not one process per rank")
        );
    }

    #[test]
    fn each_table_has_its_own_logs() {
        let out = std::env::temp_dir().join(format!("vaced-bench-logs-{}", std::process::id()));
        let a = logs_dir(&out, "npb-20261122-055704").unwrap();
        let b = logs_dir(&out, "npb-20261122-060421").unwrap();
        assert_eq!(a, out.join("logs/npb-20261122-055704"));
        assert_eq!(b, out.join("logs/npb-20261122-060421"));
        assert!(a.is_dir() && b.is_dir());
        std::fs::remove_dir_all(&out).unwrap();
    }
}
