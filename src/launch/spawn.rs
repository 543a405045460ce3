//! Starting the rank processes: one process group for the whole job, the job's
//! environment, rank 0 on our stdin, death with the launcher.

use super::job::JobSpec;
use crate::transport::process::{self as os, SignalSet};
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The ranks that were started.
#[derive(Debug)]
pub struct Spawned {
    /// Process id of each rank started so far, by rank.
    pub pids: Vec<u32>,
    /// Their process group (rank 0's pid); 0 if none was started.
    pub pgid: u32,
    /// When spawning began.
    pub began: Instant,
    /// From `began` until the last rank was started.
    pub startup: Duration,
}

/// Why spawning stopped before every rank was started.
#[derive(Debug)]
pub enum SpawnStop {
    /// The launcher got this signal (SIGINT, SIGTERM, SIGHUP).
    Interrupted(i32),
    /// Rank `rank` could not be started.
    Failed { rank: u32, error: io::Error },
}

/// How often (in ranks) the spawn loop looks for a pending interrupt.
const INTERRUPT_CHECK_EVERY: u32 = 32;

/// Start `job.nranks` processes of `program` (`argv0` as their argv[0]).
/// `stdin0` is rank 0's stdin; the other ranks get /dev/null. `signals`, if
/// given, is polled for interrupts (any other signal taken from it is dropped:
/// the supervisor reaps on its own first pass anyway).
pub fn spawn_ranks(
    program: &Path,
    argv0: &OsStr,
    args: &[OsString],
    job: &JobSpec,
    stdin0: Stdio,
    signals: Option<&SignalSet>,
) -> (Spawned, Option<SpawnStop>) {
    let began = Instant::now();
    let mut out = Spawned {
        pids: Vec::with_capacity(job.nranks as usize),
        pgid: 0,
        began,
        startup: Duration::ZERO,
    };
    let mut stdin0 = Some(stdin0);
    for rank in 0..job.nranks {
        if rank % INTERRUPT_CHECK_EVERY == INTERRUPT_CHECK_EVERY - 1 {
            if let Some(sig) = signals.and_then(interrupt_pending) {
                out.startup = began.elapsed();
                return (out, Some(SpawnStop::Interrupted(sig)));
            }
        }
        let mut cmd = Command::new(program);
        cmd.arg0(argv0).args(args).envs(job.rank_env(rank));
        cmd.process_group(out.pgid as i32);
        match stdin0.take() {
            Some(s) => cmd.stdin(s),
            None => cmd.stdin(Stdio::null()),
        };
        os::die_with_parent(&mut cmd);
        match cmd.spawn() {
            Ok(child) => {
                let pid = child.id();
                if rank == 0 {
                    out.pgid = pid;
                }
                out.pids.push(pid);
                // Dropping `child` neither waits nor kills: the supervisor reaps it.
            }
            Err(error) => {
                out.startup = began.elapsed();
                return (out, Some(SpawnStop::Failed { rank, error }));
            }
        }
    }
    out.startup = began.elapsed();
    (out, None)
}

fn interrupt_pending(signals: &SignalSet) -> Option<i32> {
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
        );
        assert!(stop.is_none());
        assert_eq!(sp.pids.len(), 1024);
        for &pid in &sp.pids {
            assert_eq!(os::wait_pid(pid).unwrap(), os::WaitStatus::Exited(0));
        }
        assert!(sp.startup > Duration::ZERO);
    }
}
