//! `mpirun`: spawn the ranks, wire them to the job's segment, supervise them,
//! collect their results and clean up. Also the compiler wrappers (`mpicc`...)
//! and `vaced env`, the other faces of the `vaced` command, and `vaced
//! calibrate` (builds and runs vaced-calibrate under the system MPI).

pub mod across;
pub mod args;
pub mod board;
pub mod calibrate;
pub mod cleanup;
pub mod dashes;
pub mod hosts;
pub mod job;
pub mod memory;
pub mod mpich;
pub mod outcome;
pub mod program;
pub mod progress;
pub mod shellenv;
pub mod signame;
pub mod spawn;
pub mod stdin;
pub mod summary;
pub mod supervise;
pub mod whatif;
pub mod wrappers;
pub mod zygote;

use crate::model::Model;
use crate::transport::process::{self as os, SignalSet};
use crate::transport::{cma, Segment, SegmentConfig};
use args::RunArgs;
use job::JobSpec;
use spawn::SpawnStop;
use std::ffi::OsString;
use summary::JobSummary;
use supervise::{Live, Outcome};

/// Exit status for a bad command line or target.
pub const EXIT_USAGE: i32 = 2;
/// Exit status when the program cannot be found or run.
pub const EXIT_NOT_FOUND: i32 = 127;

/// Signals that end the job (Ctrl-C and friends).
const INTERRUPTS: [i32; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// Run `mpirun` with `argv` (the arguments after the command name); `cmd` is
/// the name used in messages. Returns the exit status. Must be called before
/// the process starts any thread (it blocks signals that threads inherit).
pub fn mpirun(cmd: &str, argv: &[OsString]) -> i32 {
    match args::parse(cmd, argv) {
        Ok(a) => run(cmd, &a),
        Err(e) => args::usage_error(cmd, &e),
    }
}

/// Run the job `a` asks for (`mpirun`, `vaced run`); `cmd` is the name used
/// in messages. Returns the exit status. Must be called before the process
/// starts any thread (it blocks signals that threads inherit).
pub fn run(cmd: &str, a: &RunArgs) -> i32 {
    let job_id = job::new_job_id();
    let whatif = match whatif::plan(a, &job_id) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("{cmd}: invalid target: {e}");
            return EXIT_USAGE;
        }
    };
    let env_target = std::env::var("VACED_TARGET").ok();
    let target = match &whatif {
        Some(w) => w.primary_target(),
        None => job::resolve_target(a.targets.first().map(String::as_str), env_target.as_deref()),
    };
    // Runs the rest; removes the what-if files whatever happens.
    let code = run_job(cmd, a, job_id, target, whatif.as_ref());
    if let Some(w) = &whatif {
        w.remove();
    }
    code
}

fn run_job(
    cmd: &str,
    a: &RunArgs,
    job_id: String,
    target: String,
    whatif: Option<&whatif::WhatIf>,
) -> i32 {
    // a run with one configuration needs no call log
    let whatif = whatif.filter(|w| w.replays());
    match whatif {
        Some(w) => std::env::set_var(crate::p2p::record::ENV_DIR, w.logs()),
        None => std::env::remove_var(crate::p2p::record::ENV_DIR),
    }
    let model = match Model::load(&target) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{cmd}: invalid target: {e}");
            return EXIT_USAGE;
        }
    };
    if let Err(e) = crate::coll::select::validate(&model) {
        eprintln!("{cmd}: {e}");
        return EXIT_USAGE;
    }
    if let Err(e) = model.topology.check_ranks(a.nranks) {
        eprintln!("{cmd}: target `{}`: {e}", model.name);
        return EXIT_USAGE;
    }

    let path_var = std::env::var_os("PATH");
    let program = match program::resolve(&a.cmd.program, path_var.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{cmd}: {e}");
            return EXIT_NOT_FOUND;
        }
    };

    // MPIEXEC_TIMEOUT: the job's wall-clock limit in seconds, as MPICH's
    // mpiexec reads it (MPICH's test suite sets it)
    let limit = match timeout_limit(std::env::var("MPIEXEC_TIMEOUT").ok().as_deref()) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{cmd}: {e}");
            return EXIT_USAGE;
        }
    };

    let mpiexec_wanted = match (&a.mpich, std::env::var_os(mpich::ENV_MPICH)) {
        (Some(p), _) => Some(mpich::prefix(p.as_deref())),
        (None, Some(v)) if !v.is_empty() => Some(std::path::PathBuf::from(v)),
        _ => None,
    };
    // --hosts / --hostfile: vaced's MPICH across several hosts
    let across_hosts = match across::host_list(a) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("{cmd}: {e}");
            return EXIT_USAGE;
        }
    };
    if across_hosts.is_some() && mpiexec_wanted.is_none() {
        eprintln!(
            "{cmd}: --hosts and --hostfile need --mpich: vaced's own library runs every rank on \
             this host"
        );
        return EXIT_USAGE;
    }
    if across_hosts.is_some() && model.contention_window().is_some() {
        eprintln!(
            "{cmd}: target `{}`: the contention model (network.contention) needs every rank on \
             one host",
            model.name
        );
        return EXIT_USAGE;
    }

    // --mpich / $VACED_MPICH: a program built with vaced's MPICH, started
    // by MPICH's launcher
    let mpiexec = mpiexec_wanted.map(|prefix| mpich::mpiexec(&prefix));
    let mpiexec = match mpiexec {
        None => None,
        Some(Ok(e)) => Some(e),
        Some(Err(e)) => {
            eprintln!("{cmd}: {e}");
            return 1;
        }
    };

    let host_cores = std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(1);
    let cores = a.cores.unwrap_or(host_cores).min(a.nranks);

    // --ranks-per-process: the block of ranks each host process runs (none:
    // one process per rank), and the executable hosts are (ourselves)
    let rpp = match a.ranks_per_process {
        Some(k) => Some(k),
        None => match std::env::var(hosts::ENV_RANKS_PER_PROCESS) {
            Ok(v) if v.is_empty() => None,
            Ok(v) => match args::parse_ranks_per_process(&v) {
                Ok(k) => Some(k),
                Err(e) => {
                    eprintln!("{cmd}: {}={v:?}: {e}", hosts::ENV_RANKS_PER_PROCESS);
                    return EXIT_USAGE;
                }
            },
            Err(_) => None,
        },
    };
    let rpp = rpp.filter(|_| mpiexec.is_none());
    let hosts = rpp.map_or_else(Vec::new, |k| hosts::split(a.nranks, cores, k));
    let host_exe = if let Some(e) = &mpiexec {
        Some(e.clone())
    } else if hosts.is_empty() {
        None
    } else {
        match std::env::current_exe() {
            Ok(e) => Some(e),
            Err(e) => {
                eprintln!("{cmd}: cannot find the vaced executable to start host processes: {e}");
                return 1;
            }
        }
    };

    // The ranks inherit the synchronisation mode (and VACED_HOST_JITTER).
    let sync_mode = if a.sync_fast { "fast" } else { "exact" };
    std::env::set_var("VACED_SYNC", sync_mode);

    // Before any thread exists, so every thread keeps these blocked and they
    // reach only our sigtimedwait.
    let mut sigs = INTERRUPTS.to_vec();
    sigs.push(libc::SIGCHLD);
    let signals = match SignalSet::block(&sigs) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{cmd}: cannot block signals: {e}");
            return 1;
        }
    };
    os::become_subreaper();

    let job = JobSpec {
        id: job_id,
        nranks: a.nranks,
        target,
        cma: cma::available(),
    };
    let seg_name = job.segment_name();
    let timeline_dir = match start_timeline(a.timeline.as_deref(), &job.id) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{cmd}: {e}");
            return 1;
        }
    };
    let cfg = SegmentConfig {
        nranks: a.nranks,
        cores,
        inbox_bytes: job::INBOX_BYTES,
        flow_slots: if model.contention_window().is_some() {
            job::FLOW_SLOTS
        } else {
            0
        },
    };
    let seg = match Segment::create(&seg_name, &cfg) {
        Ok(s) => s,
        Err(e) => {
            cleanup::remove_job_files(cmd, &seg_name, &job.shm_prefix());
            remove_timeline_dir(timeline_dir.as_deref());
            eprintln!("{cmd}: cannot create the job's shared-memory segment {seg_name}: {e}");
            return 1;
        }
    };

    for b in &hosts {
        seg.assign_host(b.first, b.count);
    }

    let across = match &across_hosts {
        None => None,
        Some(h) => match across::prepare(
            &job,
            h,
            cores,
            job::INBOX_BYTES,
            &seg,
            a.launcher_exec.as_deref(),
        ) {
            Ok(x) => Some(x),
            Err(e) => {
                cleanup::remove_job_files(cmd, &seg_name, &job.shm_prefix());
                remove_timeline_dir(timeline_dir.as_deref());
                eprintln!("{cmd}: {e}");
                return 1;
            }
        },
    };

    let (stdin0, forward) = match stdin::rank0_stdin() {
        Ok(x) => x,
        Err(e) => {
            cleanup::remove_job_files(cmd, &seg_name, &job.shm_prefix());
            remove_timeline_dir(timeline_dir.as_deref());
            eprintln!("{cmd}: cannot set up stdin for rank 0: {e}");
            return 1;
        }
    };
    let cgroup = memory::JobCgroup::create(&job.id);
    // MPICH's own shared-memory files its ranks may leave (dying in MPI_Init)
    let started = std::time::SystemTime::now();
    let mpich_files = || {
        if mpiexec.is_some() {
            cleanup::remove_unheld_mpich_files(started);
        }
    };
    let (spawned, stop) = match &host_exe {
        Some(exe) if mpiexec.is_some() => mpich::spawn(
            exe,
            &program,
            &a.cmd.args,
            &job,
            model.eager_limit.max(model.node.eager_limit),
            across.as_ref(),
            stdin0,
            Some(&signals),
            cgroup.as_ref(),
        ),
        None => spawn::spawn_ranks(
            &program,
            &a.cmd.program,
            &a.cmd.args,
            &job,
            stdin0,
            Some(&signals),
            cgroup.as_ref(),
        ),
        Some(exe) => hosts::spawn_hosts(
            exe,
            &program,
            &a.cmd.program,
            &a.cmd.args,
            &job,
            &hosts,
            hosts::shares_tokens(hosts.len(), cores),
            stdin0,
            Some(&signals),
            cgroup.as_ref(),
        ),
    };
    let mut live = Live::new(&spawned);

    let end = |live: &mut Live, msg: String, code: i32| -> i32 {
        live.kill_and_reap();
        cleanup::remove_job_files(cmd, &seg_name, &job.shm_prefix());
        mpich_files();
        hosts::remove_copies(&spawned);
        remove_timeline_dir(timeline_dir.as_deref());
        eprintln!("{cmd}: {msg}");
        code
    };
    match stop {
        None => {}
        Some(SpawnStop::Interrupted(sig)) => {
            let (msg, code) = outcome::interrupted(sig);
            return end(&mut live, msg, code);
        }
        Some(SpawnStop::Failed { rank, error }) => {
            let msg = format!(
                "cannot start rank {rank} of {} (`{}`): {error}",
                a.nranks,
                program.display()
            );
            return end(&mut live, msg, 1);
        }
        Some(SpawnStop::HostFailed { host, error }) => {
            let exe = host_exe.as_deref().unwrap_or(std::path::Path::new("vaced"));
            let msg = format!(
                "cannot start the host process of {} of {} (`{}`): {error}",
                host.describe(),
                a.nranks,
                exe.display()
            );
            return end(&mut live, msg, 1);
        }
    }
    if let Some(w) = forward {
        stdin::start_forwarding(w);
    }

    let progress_env = std::env::var(progress::ENV_PROGRESS).ok();
    let mut line = progress::Progress::new(spawned.began, a.quiet, progress_env.as_deref());
    let outcome = supervise::supervise(&seg, a.nranks, &mut live, &signals, &mut line, limit);
    line.erase(&mut std::io::stderr());
    match outcome {
        Outcome::TimedOut(l) => {
            let (msg, code) = outcome::timed_out(l);
            end(&mut live, msg, code)
        }
        Outcome::Failed(f) => {
            // across hosts, the hosts' last words may come after MPICH's
            // launcher has ended
            let f = match &across {
                Some(x) => x.judge_again(&seg, a.nranks, f),
                None => f,
            };
            end(&mut live, f.message_in(&spawned.hosts), f.exit_code())
        }
        Outcome::Interrupted(sig) => {
            let (msg, code) = outcome::interrupted(sig);
            end(&mut live, msg, code)
        }
        Outcome::Completed { ended } => {
            let summary = JobSummary {
                target: model.name.clone(),
                ranks: a.nranks,
                cores,
                wall: ended.duration_since(spawned.began),
                host_cpu_ns: os::children_cpu_ns(),
                startup: spawned.startup,
                peak_memory: memory::job_peak(cgroup.as_ref()),
                sync_fast: a.sync_fast,
                ranks_per_process: (!hosts.is_empty()).then(|| hosts::largest(&hosts)),
                processes: if hosts.is_empty() {
                    a.nranks
                } else {
                    hosts.len() as u32
                },
                results: (0..a.nranks).map(|r| seg.slot(r).result()).collect(),
            };
            cleanup::remove_job_files(cmd, &seg_name, &job.shm_prefix());
            mpich_files();
            hosts::remove_copies(&spawned);
            // the replays use the cores the ranks had
            if let (Some(w), false) = (whatif, a.quiet) {
                let others = match w.configs.len() - 1 {
                    1 => "the other configuration".to_string(),
                    n => format!("the {n} other configurations"),
                };
                eprintln!("{cmd}: the run is over; replaying it under {others} (Ctrl-C stops)");
            }
            let replayed =
                match whatif.map(|w| w.replay_others(a.nranks, cores, &signals, &INTERRUPTS)) {
                    Some(Err(sig)) => {
                        eprintln!(
                            "{cmd}: interrupted by {} while replaying the other configurations",
                            signame::name(sig)
                        );
                        return 128 + sig;
                    }
                    Some(Ok(r)) => Some(r),
                    None => None,
                };
            let part = whatif
                .zip(replayed.as_deref())
                .map(|(w, r)| summary::WhatIfPart {
                    first_label: w.label(0),
                    replayed: r,
                });
            let mut code = match summary::emit_report(&summary, a.report.as_deref(), part) {
                Ok(()) => 0,
                Err(e) => {
                    let path = a.report.as_deref().unwrap_or(std::path::Path::new("?"));
                    eprintln!("{cmd}: cannot write the report {}: {e}", path.display());
                    1
                }
            };
            if let (Some(out), Some(dir)) = (&a.timeline, &timeline_dir) {
                let info = crate::timeline::JobInfo {
                    nranks: a.nranks,
                    program: a.cmd.program.to_string_lossy().into_owned(),
                    target: model.name.clone(),
                };
                if let Err(e) = crate::timeline::write(dir, out, a.timeline_format, &info) {
                    eprintln!("{cmd}: cannot write the timeline: {e}");
                    code = 1;
                }
                remove_timeline_dir(Some(dir));
            }
            code
        }
    }
}

/// `--timeline FILE`: create the directory of the ranks' timeline files and
/// hand it to the ranks (`VACED_TIMELINE_DIR`); without it, make sure no
/// inherited setting makes the ranks record one.
fn start_timeline(
    out: Option<&std::path::Path>,
    job_id: &str,
) -> Result<Option<std::path::PathBuf>, String> {
    let Some(out) = out else {
        std::env::remove_var(crate::timeline::ENV_DIR);
        return Ok(None);
    };
    // absolute: the ranks may run elsewhere
    let dir = std::path::absolute(crate::timeline::parts_dir(out, job_id))
        .map_err(|e| format!("--timeline {}: {e}", out.display()))?;
    std::fs::create_dir_all(&dir).map_err(|e| {
        format!(
            "--timeline {}: cannot create the directory {} for the ranks' files: {e}",
            out.display(),
            dir.display()
        )
    })?;
    std::env::set_var(crate::timeline::ENV_DIR, &dir);
    Ok(Some(dir))
}

fn remove_timeline_dir(dir: Option<&std::path::Path>) {
    if let Some(d) = dir {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// The wall-clock limit MPIEXEC_TIMEOUT asks for: unset or empty, none; a
/// positive whole number of seconds; anything else is an error.
fn timeout_limit(v: Option<&str>) -> Result<Option<std::time::Duration>, String> {
    match v.map(str::trim) {
        None | Some("") => Ok(None),
        Some(s) => match s.parse::<u64>() {
            Ok(n) if n > 0 => Ok(Some(std::time::Duration::from_secs(n))),
            _ => Err(format!(
                "invalid MPIEXEC_TIMEOUT `{s}` (a positive number of seconds)"
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpiexec_timeout_values() {
        use std::time::Duration;
        assert_eq!(timeout_limit(None), Ok(None));
        assert_eq!(timeout_limit(Some("")), Ok(None));
        assert_eq!(timeout_limit(Some(" 7 ")), Ok(Some(Duration::from_secs(7))));
        for bad in ["0", "-3", "2.5", "ten"] {
            assert!(timeout_limit(Some(bad)).unwrap_err().contains(bad), "{bad}");
        }
    }
}
