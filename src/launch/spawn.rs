//! Starting the rank processes: one process group for the whole job, the job's
//! environment, rank 0 on our stdin, death with the launcher; by exec, or by
//! executing rank 0 alone and letting it fork the others (`zygote`).

use super::hosts::Block;
use super::job::JobSpec;
use super::memory::JobCgroup;
use super::zygote;
use crate::transport::process::{self as os, SignalSet};
use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The processes that were started: the ranks, or the host processes of the
/// many-ranks mode (`--ranks-per-process`, see `hosts`).
#[derive(Debug)]
pub struct Spawned {
    /// Process id of each process started so far, in order: by rank, or by
    /// host.
    pub pids: Vec<u32>,
    /// The block of ranks each host runs, by host (every host, started or
    /// not); empty when each rank is a process.
    pub hosts: Vec<Block>,
    /// Their process group (the first process's pid); 0 if none was started.
    pub pgid: u32,
    /// When spawning began.
    pub began: Instant,
    /// From `began` until the last rank was started.
    pub startup: Duration,
}

impl Spawned {
    /// The ranks that the `i`th process started runs.
    pub fn ranks_of(&self, i: usize) -> Block {
        match self.hosts.get(i) {
            Some(&b) => b,
            None => Block::one(i as u32),
        }
    }
}

/// Why spawning stopped before every rank was started.
#[derive(Debug)]
pub enum SpawnStop {
    /// The launcher got this signal (SIGINT, SIGTERM, SIGHUP).
    Interrupted(i32),
    /// Rank `rank` could not be started.
    Failed { rank: u32, error: io::Error },
    /// The host process of `host` could not be started.
    HostFailed { host: Block, error: io::Error },
}

/// How often (in processes) the spawn loop looks for a pending interrupt.
pub(super) const INTERRUPT_CHECK_EVERY: u32 = 32;

/// Start `job.nranks` processes of `program` (`argv0` as their argv[0]).
/// `stdin0` is rank 0's stdin; the other ranks get /dev/null. `signals`, if
/// given, is polled for interrupts (any other signal taken from it is dropped:
/// the supervisor reaps on its own first pass anyway). A program linked with
/// our library is executed once and forks its other ranks (see `zygote`);
/// anything else is executed once per rank. With `cgroup`, every process
/// started joins it.
pub fn spawn_ranks(
    program: &Path,
    argv0: &OsStr,
    args: &[OsString],
    job: &JobSpec,
    stdin0: Stdio,
    signals: Option<&SignalSet>,
    cgroup: Option<&JobCgroup>,
) -> (Spawned, Option<SpawnStop>) {
    let began = Instant::now();
    let mut out = Spawned {
        pids: Vec::with_capacity(job.nranks as usize),
        hosts: Vec::new(),
        pgid: 0,
        began,
        startup: Duration::ZERO,
    };
    let mut stdin0 = Some(stdin0);
    let fork_env = std::env::var_os(zygote::ENV_FORK);
    if job.nranks > 1 && zygote::wanted(program, fork_env.as_deref()) {
        let stdin = stdin0.take().expect("rank 0's stdin");
        let mut cmd = rank_command(program, argv0, args, job, 0, 0, stdin);
        if let Some(cg) = cgroup {
            cg.join_at_exec(&mut cmd);
        }
        let started = start_by_fork(cmd, job.nranks, signals, &mut out);
        out.startup = began.elapsed();
        match started {
            Ok(true) => return (out, None),
            Ok(false) => {} // rank 0 runs; the others by exec
            Err(stop) => return (out, Some(stop)),
        }
    }
    let first = out.pids.len() as u32;
    let stop = start_each(
        &mut out,
        first..job.nranks,
        |rank, pgid| {
            let stdin = stdin0.take().unwrap_or_else(Stdio::null);
            rank_command(program, argv0, args, job, rank, pgid, stdin)
        },
        |rank, error| SpawnStop::Failed { rank, error },
        signals,
        cgroup,
    );
    out.startup = began.elapsed();
    (out, stop)
}

/// Start process `i` for each `i` of `range` in turn, by the command
/// `command(i, pgid)` makes (`pgid`: the job's process group, 0 until the
/// first process started, whose pid it then becomes), each joining `cgroup`;
/// their pids go to `out`. Stops at an interrupt found in `signals` (looked
/// for every [`INTERRUPT_CHECK_EVERY`] processes) or at the first process
/// that cannot be started (`failed` says which).
pub(super) fn start_each(
    out: &mut Spawned,
    range: std::ops::Range<u32>,
    mut command: impl FnMut(u32, u32) -> Command,
    failed: impl Fn(u32, io::Error) -> SpawnStop,
    signals: Option<&SignalSet>,
    cgroup: Option<&JobCgroup>,
) -> Option<SpawnStop> {
    for i in range {
        if i % INTERRUPT_CHECK_EVERY == INTERRUPT_CHECK_EVERY - 1 {
            if let Some(sig) = signals.and_then(interrupt_pending) {
                return Some(SpawnStop::Interrupted(sig));
            }
        }
        let mut cmd = command(i, out.pgid);
        if let Some(cg) = cgroup {
            cg.join_at_exec(&mut cmd);
        }
        match cmd.spawn() {
            Ok(child) => {
                let pid = child.id();
                if out.pgid == 0 {
                    out.pgid = pid;
                }
                out.pids.push(pid);
                // Dropping `child` neither waits nor kills: the supervisor reaps it.
            }
            Err(error) => return Some(failed(i, error)),
        }
    }
    None
}

/// The command that starts `rank` by exec, in process group `pgid` (0: its own).
fn rank_command(
    program: &Path,
    argv0: &OsStr,
    args: &[OsString],
    job: &JobSpec,
    rank: u32,
    pgid: u32,
    stdin: Stdio,
) -> Command {
    let mut cmd = Command::new(program);
    cmd.arg0(argv0).args(args).envs(job.rank_env(rank));
    cmd.process_group(pgid as i32).stdin(stdin);
    os::die_with_parent(&mut cmd);
    cmd
}

/// How long rank 0 may take to say it can fork the others before they are
/// started by exec instead (only a program that looked linked with our
/// library but was not waits this long).
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// How often interrupts are looked for while waiting on rank 0.
const POLL_SLICE: Duration = Duration::from_millis(100);

/// Execute rank 0 and have it fork ranks 1..n-1 (see `zygote`). `Ok(true)`:
/// every rank was started; `Ok(false)`: only rank 0 was (it declined).
/// `cmd` is rank 0's command as [`rank_command`] makes it.
fn start_by_fork(
    mut cmd: Command,
    nranks: u32,
    signals: Option<&SignalSet>,
    out: &mut Spawned,
) -> Result<bool, SpawnStop> {
    let failed = |rank, error| SpawnStop::Failed { rank, error };
    let (mut report, report_w) = io::pipe().map_err(|e| failed(0, e))?;
    let (answer_r, mut answer) = io::pipe().map_err(|e| failed(0, e))?;
    let add_bind_now = std::env::var_os(zygote::ENV_BIND_NOW).is_none();
    if add_bind_now {
        cmd.env(zygote::ENV_BIND_NOW, "1");
    }
    let spec = zygote::zygote_env(report_w.as_raw_fd(), answer_r.as_raw_fd(), add_bind_now);
    cmd.env(zygote::ENV_ZYGOTE, spec);
    os::keep_fd_across_exec(&mut cmd, report_w.as_raw_fd());
    os::keep_fd_across_exec(&mut cmd, answer_r.as_raw_fd());
    let pid = cmd.spawn().map_err(|e| failed(0, e))?.id();
    out.pgid = pid;
    out.pids.push(pid);
    // Only rank 0 (and what it forks) may hold the ends it writes or reads.
    drop(cmd);
    drop(report_w);
    drop(answer_r);

    let mut hello = [0u8; 1];
    let waited = Instant::now();
    loop {
        if let Some(sig) = signals.and_then(interrupt_pending) {
            return Err(SpawnStop::Interrupted(sig));
        }
        if waited.elapsed() >= HELLO_TIMEOUT {
            return Ok(false); // dropping `answer` tells rank 0 not to fork
        }
        if os::wait_readable(&report, POLL_SLICE).map_err(|e| failed(1, e))? {
            break;
        }
    }
    // End of file: rank 0 ended or declined (it runs without forking).
    if !matches!(report.read(&mut hello), Ok(1)) || hello != *b"Z" {
        return Ok(false);
    }
    if answer.write_all(b"Y").is_err() {
        return Ok(false);
    }
    drop(answer);

    let mut bytes = Vec::with_capacity(4 * nranks as usize);
    let mut buf = [0u8; 4096];
    loop {
        if let Some(r) = zygote::decode(&bytes, nranks) {
            return match r {
                zygote::Report::Started(pids) => {
                    out.pids.extend(pids);
                    Ok(true)
                }
                zygote::Report::Failed {
                    started,
                    rank,
                    errno,
                } => {
                    out.pids.extend(started);
                    Err(failed(rank, io::Error::from_raw_os_error(errno)))
                }
            };
        }
        if let Some(sig) = signals.and_then(interrupt_pending) {
            out.pids.extend(zygote::whole_words(&bytes));
            return Err(SpawnStop::Interrupted(sig));
        }
        if !os::wait_readable(&report, POLL_SLICE).map_err(|e| failed(1, e))? {
            continue;
        }
        match report.read(&mut buf) {
            Ok(0) | Err(_) => {
                let started = zygote::whole_words(&bytes);
                let rank = 1 + started.len() as u32;
                out.pids.extend(started);
                let e = io::Error::other("rank 0 ended before it could start this rank by fork");
                return Err(failed(rank, e));
            }
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
        }
    }
}

pub(super) fn interrupt_pending(signals: &SignalSet) -> Option<i32> {
    while let Some(sig) = signals.poll() {
        if sig != libc::SIGCHLD {
            return Some(sig);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_share_a_group_and_see_their_environment() {
        let dir = std::env::temp_dir().join(format!("vaced-spawn-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let job = JobSpec {
            id: "1-0000000000000001".into(),
            nranks: 3,
            target: "tianhe1a".into(),
            cma: true,
        };
        let script = format!(
            "echo \"$(tr '\\0' '\\n' < /proc/$$/cmdline | head -n1) $0 $VACED_RANK $VACED_SIZE $VACED_SEGMENT $VACED_JOB $VACED_TARGET $VACED_CMA $(cut -d' ' -f5 /proc/$$/stat)\" > {}/$VACED_RANK",
            dir.display()
        );
        let args = [OsString::from("-c"), script.into(), "arg1".into()];
        let (sp, stop) = spawn_ranks(
            Path::new("/bin/sh"),
            OsStr::new("myname"),
            &args,
            &job,
            Stdio::null(),
            None,
            None,
        );
        assert!(stop.is_none());
        assert_eq!(sp.pids.len(), 3);
        assert_eq!(sp.pgid, sp.pids[0]);
        for &pid in &sp.pids {
            assert_eq!(os::wait_pid(pid).unwrap(), os::WaitStatus::Exited(0));
        }
        for r in 0..3 {
            let line = std::fs::read_to_string(dir.join(r.to_string())).unwrap();
            assert_eq!(
                line.trim(),
                format!(
                    "myname arg1 {r} 3 /vaced-1-0000000000000001 1-0000000000000001 tianhe1a 1 {}",
                    sp.pgid
                )
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_program_stops_at_rank_0() {
        let job = JobSpec {
            id: "1-0000000000000002".into(),
            nranks: 2,
            target: "tianhe1a".into(),
            cma: false,
        };
        let (sp, stop) = spawn_ranks(
            Path::new("/nonexistent/prog"),
            OsStr::new("prog"),
            &[],
            &job,
            Stdio::null(),
            None,
            None,
        );
        assert!(sp.pids.is_empty());
        match stop {
            Some(SpawnStop::Failed { rank, error }) => {
                assert_eq!(rank, 0);
                assert_eq!(error.kind(), io::ErrorKind::NotFound);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    /// Many ranks are spawned and each is exec'd (start-up time is measured
    /// by the scale benchmark, not asserted here).
    #[test]
    fn spawns_many_ranks() {
        let job = JobSpec {
            id: "1-0000000000000003".into(),
            nranks: 1024,
            target: "tianhe1a".into(),
            cma: true,
        };
        let (sp, stop) = spawn_ranks(
            Path::new("/bin/true"),
            OsStr::new("true"),
            &[],
            &job,
            Stdio::null(),
            None,
            None,
        );
        assert!(stop.is_none());
        assert_eq!(sp.pids.len(), 1024);
        for &pid in &sp.pids {
            assert_eq!(os::wait_pid(pid).unwrap(), os::WaitStatus::Exited(0));
        }
        assert!(sp.startup > Duration::ZERO);
    }
}
