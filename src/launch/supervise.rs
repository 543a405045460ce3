//! Watching the running ranks until the job completes, one rank fails, or the
//! launcher is interrupted. Sleeps in `sigtimedwait` (woken by SIGCHLD or an
//! interrupt) and looks at the board once per tick for recorded aborts: no
//! busy polling.

use super::board::{first_abort, RankBoard};
use super::hosts::Block;
use super::outcome::Failure;
use super::progress::{Progress, Snapshot};
use super::spawn::Spawned;
use crate::transport::process::{self as os, SignalSet, WaitStatus};
use std::collections::HashMap;
use std::io;
use std::time::{Duration, Instant};

/// How often the board is read for aborts of ranks that are still alive.
pub const TICK: Duration = Duration::from_millis(100);

/// How the supervised job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every rank completed MPI_Finalize and exited 0; `ended` is when the last
    /// one was reaped.
    Completed {
        ended: Instant,
    },
    Failed(Failure),
    /// The launcher got this signal.
    Interrupted(i32),
    /// The job ran past its wall-clock limit (MPIEXEC_TIMEOUT).
    TimedOut(Duration),
}

/// Processes still to be reaped, by pid, with the ranks each runs: one
/// rank, or a host's block (`--ranks-per-process`).
pub struct Live {
    pgid: u32,
    procs: HashMap<u32, Block>,
    /// The process group has no child of ours left (processes that changed
    /// group are then looked at one by one).
    group_empty: bool,
}

impl Live {
    pub fn new(sp: &Spawned) -> Live {
        Live {
            pgid: sp.pgid,
            procs: sp
                .pids
                .iter()
                .enumerate()
                .map(|(i, &pid)| (pid, sp.ranks_of(i)))
                .collect(),
            group_empty: sp.pids.is_empty(),
        }
    }

    pub fn pgid(&self) -> u32 {
        self.pgid
    }

    /// Pids of the processes not reaped yet.
    pub fn pids(&self) -> Vec<u32> {
        self.procs.keys().copied().collect()
    }

    pub fn is_empty(&self) -> bool {
        self.procs.is_empty()
    }

    /// Reap one process that has ended, without blocking: `(its ranks,
    /// pid, status)`.
    pub fn reap_one(&mut self) -> Option<(Block, u32, WaitStatus)> {
        while !self.group_empty {
            match os::try_wait_group(self.pgid) {
                Ok(Some((pid, st))) => match self.procs.remove(&pid) {
                    Some(ranks) => return Some((ranks, pid, st)),
                    None => continue, // an orphan of a rank, reaped as subreaper
                },
                Ok(None) => return None,
                Err(e) if e.raw_os_error() == Some(libc::ECHILD) => self.group_empty = true,
                Err(_) => return None,
            }
        }
        let found = self
            .procs
            .iter()
            .find_map(|(&pid, &ranks)| match os::try_wait_pid(pid) {
                Ok(Some(st)) => Some((ranks, pid, st)),
                _ => None,
            });
        if let Some((_, pid, _)) = found {
            self.procs.remove(&pid);
        }
        found
    }

    /// Kill every remaining process (and anything else in their group) and
    /// reap them.
    pub fn kill_and_reap(&mut self) {
        if self.procs.is_empty() {
            return;
        }
        os::kill_group(self.pgid, libc::SIGKILL);
        for &pid in self.procs.keys() {
            os::kill_pid(pid, libc::SIGKILL);
        }
        while !self.group_empty {
            match os::wait_group(self.pgid) {
                Ok((pid, _)) => {
                    self.procs.remove(&pid);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => self.group_empty = true,
            }
        }
        for pid in self.pids() {
            let _ = os::wait_pid(pid);
            self.procs.remove(&pid);
        }
    }
}

/// Is `sig` one that interrupts the job (as opposed to SIGCHLD)?
fn is_interrupt(sig: i32) -> bool {
    sig != libc::SIGCHLD
}

/// Watch the ranks in `live` until the job ends, drawing `progress` on
/// stderr when it is due (the caller erases it), or until `limit` of wall
/// time from `progress`'s start has passed. `signals` must hold SIGCHLD and
/// the interrupting signals, blocked in this thread.
pub fn supervise(
    board: &dyn RankBoard,
    nranks: u32,
    live: &mut Live,
    signals: &SignalSet,
    progress: &mut Progress,
    limit: Option<Duration>,
) -> Outcome {
    let deadline = limit.map(|l| (l, progress.began() + l));
    loop {
        while let Some((ranks, pid, status)) = live.reap_one() {
            if let Some(f) = judge(board, nranks, ranks, pid, status) {
                return Outcome::Failed(f);
            }
            if live.is_empty() {
                return Outcome::Completed {
                    ended: Instant::now(),
                };
            }
        }
        if live.is_empty() {
            return Outcome::Completed {
                ended: Instant::now(),
            };
        }
        let now = Instant::now();
        if let Some((l, d)) = deadline {
            if now >= d {
                return Outcome::TimedOut(l);
            }
        }
        if progress.due(now) {
            let ranks = (0..nranks).map(|r| board.clock(r));
            let snap = Snapshot::gather(ranks, now - progress.began());
            progress.draw(&mut io::stderr(), now, &snap);
        }
        let mut nap = progress.until_due(now).map_or(TICK, |d| d.min(TICK));
        if let Some((_, d)) = deadline {
            nap = nap.min(d - now);
        }
        match signals.wait(nap.max(Duration::from_millis(1))) {
            Some(sig) if is_interrupt(sig) => return Outcome::Interrupted(sig),
            Some(_) => {} // SIGCHLD: reap on the next pass
            None => {
                if let Some((rank, a)) = first_abort(board, nranks) {
                    return Outcome::Failed(Failure::Aborted {
                        rank,
                        code: a.code,
                        message: a.message,
                    });
                }
            }
        }
    }
}

/// What the ranks recorded as the job's end, if anything: an abort recorded
/// anywhere (MPI_Abort may kill its peers), else the fatal signal a rank of
/// `ranks` that another launcher started (vaced's MPICH: this process is
/// its mpiexec) recorded (`transport::fatal`).
pub fn recorded(
    board: &dyn RankBoard,
    nranks: u32,
    mut ranks: impl Iterator<Item = u32>,
) -> Option<Failure> {
    if let Some((rank, a)) = first_abort(board, nranks) {
        return Some(Failure::Aborted {
            rank,
            code: a.code,
            message: a.message,
        });
    }
    ranks
        .find_map(|r| board.signaled(r).map(|s| (r, s)))
        .map(|(rank, (pid, sig))| Failure::RankSignaled { rank, pid, sig })
}

/// What the end of process `pid`, which ran `ranks`, means for the job:
/// `None` if it ended normally (exit status 0, every rank of it finalized).
fn judge(
    board: &dyn RankBoard,
    nranks: u32,
    ranks: Block,
    pid: u32,
    status: WaitStatus,
) -> Option<Failure> {
    let unfinished = ranks.ranks().find(|&r| !board.finalized(r));
    if status == WaitStatus::Exited(0) && unfinished.is_none() {
        return None;
    }
    if let Some(f) = recorded(board, nranks, ranks.ranks()) {
        return Some(f);
    }
    // A host names the rank it was running when it died, or the rank whose
    // end ended it (see `crate::ranks::host`).
    let running = board
        .host_running(ranks.first)
        .filter(|&r| ranks.contains(r));
    Some(match status {
        WaitStatus::Signaled { sig, core } => Failure::Signaled {
            rank: running.or(unfinished).unwrap_or(ranks.first),
            pid,
            sig,
            core,
        },
        WaitStatus::Exited(status) => match unfinished {
            None => Failure::BadExitAfterFinalize {
                rank: running.unwrap_or(ranks.first),
                pid,
                status,
            },
            Some(first_unfinished) => {
                // a host process of several ranks, some of which never
                // joined (MPICH's launcher: it names no rank of its own)
                let never_joined: Vec<u32> = match (ranks.count > 1, running) {
                    (true, None) => ranks.ranks().filter(|&r| !board.joined(r)).collect(),
                    _ => Vec::new(),
                };
                if never_joined.is_empty() {
                    Failure::NoFinalize {
                        rank: running
                            .filter(|&r| !board.finalized(r))
                            .unwrap_or(first_unfinished),
                        pid,
                        status,
                    }
                } else {
                    Failure::NeverJoined {
                        ranks: never_joined,
                        block: ranks,
                        pid,
                        status,
                    }
                }
            }
        },
    })
}

#[cfg(test)]
mod tests {
    /// A bound that only catches hangs: promptness (well under a second) is
    /// measured by benchmarks, not asserted where a busy machine could flake.
    const HANG_GUARD_S: u64 = 10;
    use super::super::board::Abort;
    use super::super::hosts::spawn_hosts;
    use super::super::job::JobSpec;
    use super::super::spawn::spawn_ranks;
    use super::*;
    use std::ffi::{OsStr, OsString};
    use std::path::{Path, PathBuf};
    use std::process::Stdio;

    /// A board kept in files: `fin.R` exists once rank R "finalized";
    /// `abort.R` holds "CODE MESSAGE"; `cur.F` the rank that the host whose
    /// first rank is F runs.
    struct FileBoard(PathBuf);

    impl RankBoard for FileBoard {
        fn finalized(&self, rank: u32) -> bool {
            self.0.join(format!("fin.{rank}")).exists()
        }
        fn abort(&self, rank: u32) -> Option<Abort> {
            let s = std::fs::read_to_string(self.0.join(format!("abort.{rank}"))).ok()?;
            let (code, msg) = s.trim().split_once(' ').unwrap_or((s.trim(), ""));
            Some(Abort {
                code: code.parse().ok()?,
                message: (!msg.is_empty()).then(|| msg.to_string()),
            })
        }
        fn host_running(&self, first: u32) -> Option<u32> {
            let s = std::fs::read_to_string(self.0.join(format!("cur.{first}"))).ok()?;
            s.trim().parse().ok()
        }
    }

    struct Run {
        outcome: Outcome,
        elapsed: Duration,
        pgid: u32,
        pids: Vec<u32>,
    }

    /// Run `nranks` copies of `sh -c script` (with $D the board directory),
    /// supervise them, then kill and reap whatever is left.
    fn run(name: &str, nranks: u32, script: &str) -> Run {
        run_limited(name, nranks, script, None)
    }

    fn run_limited(name: &str, nranks: u32, script: &str, limit: Option<Duration>) -> Run {
        run_job(name, nranks, &[], script, limit)
    }

    /// Run one host process per block of `hosts` (`--ranks-per-process`):
    /// `sh` given a script file holding `script`, with $D the board
    /// directory and $F, $C the host's first rank and rank count (from
    /// VACED_HOSTED); supervise them, then kill and reap whatever is left.
    fn run_hosts(name: &str, nranks: u32, hosts: &[(u32, u32)], script: &str) -> Run {
        let hosts: Vec<Block> = hosts
            .iter()
            .map(|&(first, count)| Block { first, count })
            .collect();
        run_job(name, nranks, &hosts, script, None)
    }

    /// A fake host's script: mark every rank of its block finalized.
    const HOST_FINALIZES_ALL: &str =
        "r=$F; while [ $r -lt $((F + C)) ]; do touch $D/fin.$r; r=$((r + 1)); done";

    fn run_job(
        name: &str,
        nranks: u32,
        hosts: &[Block],
        script: &str,
        limit: Option<Duration>,
    ) -> Run {
        let dir =
            std::env::temp_dir().join(format!("vaced-sup-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        os::become_subreaper();
        let signals = SignalSet::block(&[libc::SIGCHLD]).unwrap();
        let job = JobSpec {
            id: format!("0-{name}"),
            nranks,
            target: "tianhe1a".into(),
            cma: false,
        };
        let (sp, stop) = if hosts.is_empty() {
            let script = format!("D={}; {script}", dir.display());
            let args = [OsString::from("-c"), script.into()];
            spawn_ranks(
                Path::new("/bin/sh"),
                OsStr::new("sh"),
                &args,
                &job,
                Stdio::null(),
                None,
                None,
            )
        } else {
            let file = dir.join("host.sh");
            let text = format!(
                "D={}; F=${{VACED_HOSTED%,*}}; C=${{VACED_HOSTED#*,}}\n{script}\n",
                dir.display()
            );
            std::fs::write(&file, text).unwrap();
            spawn_hosts(
                Path::new("/bin/sh"),
                &file,
                OsStr::new("prog"),
                &[],
                &job,
                hosts,
                false,
                Stdio::null(),
                None,
                None,
            )
        };
        assert!(stop.is_none());
        let board = FileBoard(dir.clone());
        let t = Instant::now();
        let mut live = Live::new(&sp);
        let mut progress = Progress::with(t, false);
        let outcome = supervise(&board, nranks, &mut live, &signals, &mut progress, limit);
        let elapsed = t.elapsed();
        live.kill_and_reap();
        assert!(live.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
        Run {
            outcome,
            elapsed,
            pgid: sp.pgid,
            pids: sp.pids,
        }
    }

    fn assert_nothing_left(r: &Run) {
        assert!(!os::group_exists(r.pgid), "a process of the job survived");
        for &pid in &r.pids {
            assert!(!Path::new(&format!("/proc/{pid}")).exists() || pid_reused(pid, r.pgid));
        }
    }

    fn pid_reused(pid: u32, pgid: u32) -> bool {
        // Still a process with this pid: fine only if it is someone else's now.
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                s.rsplit(')').next().unwrap().split_whitespace().nth(2) != Some(&pgid.to_string())
            })
            .unwrap_or(true)
    }

    #[test]
    fn a_job_past_its_limit_is_ended() {
        let r = run_limited("limit", 3, "sleep 30", Some(Duration::from_millis(300)));
        assert_eq!(r.outcome, Outcome::TimedOut(Duration::from_millis(300)));
        assert!(r.elapsed >= Duration::from_millis(300));
        assert!(r.elapsed < Duration::from_secs(10), "{:?}", r.elapsed);
        assert_nothing_left(&r);
    }

    #[test]
    fn all_finalize_and_exit_zero() {
        let r = run("ok", 4, "touch $D/fin.$VACED_RANK; exit 0");
        assert!(
            matches!(r.outcome, Outcome::Completed { .. }),
            "{:?}",
            r.outcome
        );
        assert_nothing_left(&r);
    }

    #[test]
    fn a_crash_ends_the_job_within_a_second() {
        let r = run(
            "segv",
            4,
            "if [ $VACED_RANK = 2 ]; then kill -SEGV $$; fi; sleep 30; touch $D/fin.$VACED_RANK",
        );
        let Outcome::Failed(f) = &r.outcome else {
            panic!("{:?}", r.outcome)
        };
        assert_eq!(
            f,
            &Failure::Signaled {
                rank: 2,
                pid: r.pids[2],
                sig: libc::SIGSEGV,
                core: false
            }
        );
        assert!(
            r.elapsed < Duration::from_secs(HANG_GUARD_S),
            "took {:?}",
            r.elapsed
        );
        assert_eq!(f.exit_code(), 139);
        assert_nothing_left(&r);
    }

    #[test]
    fn exit_without_finalize() {
        let r = run(
            "nofin",
            3,
            "if [ $VACED_RANK = 1 ]; then exit 0; fi; sleep 30",
        );
        assert_eq!(
            r.outcome,
            Outcome::Failed(Failure::NoFinalize {
                rank: 1,
                pid: r.pids[1],
                status: 0
            })
        );
        assert!(
            r.elapsed < Duration::from_secs(HANG_GUARD_S),
            "took {:?}",
            r.elapsed
        );
        assert_nothing_left(&r);
    }

    #[test]
    fn abort_recorded_by_a_live_rank() {
        let r = run(
            "abort",
            4,
            "if [ $VACED_RANK = 3 ]; then echo '7 bad input' > $D/abort.3; fi; sleep 30",
        );
        assert_eq!(
            r.outcome,
            Outcome::Failed(Failure::Aborted {
                rank: 3,
                code: 7,
                message: Some("bad input".into())
            })
        );
        assert!(
            r.elapsed < Duration::from_secs(HANG_GUARD_S),
            "took {:?}",
            r.elapsed
        );
        assert_nothing_left(&r);
    }

    #[test]
    fn abort_wins_over_the_kill_it_caused() {
        // Rank 1 records an abort and kills the whole group, like MPI_Abort may.
        let r = run(
            "abortkill",
            3,
            "if [ $VACED_RANK = 1 ]; then echo 3 > $D/abort.1; sleep 0.2; kill -KILL 0; fi; sleep 30",
        );
        assert_eq!(
            r.outcome,
            Outcome::Failed(Failure::Aborted {
                rank: 1,
                code: 3,
                message: None
            })
        );
        assert_nothing_left(&r);
    }

    #[test]
    fn nonzero_exit_after_finalize() {
        let r = run(
            "badexit",
            2,
            "touch $D/fin.$VACED_RANK; if [ $VACED_RANK = 0 ]; then exit 5; fi; sleep 30",
        );
        assert_eq!(
            r.outcome,
            Outcome::Failed(Failure::BadExitAfterFinalize {
                rank: 0,
                pid: r.pids[0],
                status: 5
            })
        );
        assert_nothing_left(&r);
    }

    #[test]
    fn grandchildren_are_killed_too() {
        // Every rank leaves a background child behind; rank 0 then crashes.
        let r = run(
            "grandkids",
            2,
            "sleep 30 & if [ $VACED_RANK = 0 ]; then sleep 0.2; kill -BUS $$; fi; wait",
        );
        assert_eq!(
            r.outcome,
            Outcome::Failed(Failure::Signaled {
                rank: 0,
                pid: r.pids[0],
                sig: libc::SIGBUS,
                core: false
            })
        );
        assert_nothing_left(&r);
    }

    #[test]
    fn hosts_that_finalize_all_their_ranks_complete_the_job() {
        let r = run_hosts(
            "hosts-ok",
            7,
            &[(0, 3), (3, 2), (5, 2)],
            &format!("{HOST_FINALIZES_ALL}; exit 0"),
        );
        assert!(
            matches!(r.outcome, Outcome::Completed { .. }),
            "{:?}",
            r.outcome
        );
        assert_eq!(r.pids.len(), 3);
        assert_nothing_left(&r);
    }

    #[test]
    fn a_host_killed_names_the_rank_it_runs() {
        let r = run_hosts(
            "hosts-segv",
            6,
            &[(0, 3), (3, 3)],
            "if [ $F = 3 ]; then touch $D/fin.3; echo 4 > $D/cur.3; kill -SEGV $$; fi; sleep 30",
        );
        assert_eq!(
            r.outcome,
            Outcome::Failed(Failure::Signaled {
                rank: 4,
                pid: r.pids[1],
                sig: libc::SIGSEGV,
                core: false
            })
        );
        assert!(
            r.elapsed < Duration::from_secs(HANG_GUARD_S),
            "took {:?}",
            r.elapsed
        );
        assert_nothing_left(&r);
    }

    /// Without a running rank published (or with one not its own), a killed
    /// host names the first of its ranks that did not finalize.
    #[test]
    fn a_host_killed_between_ranks_names_its_first_unfinished_rank() {
        let r = run_hosts(
            "hosts-bus",
            6,
            &[(0, 3), (3, 3)],
            "if [ $F = 0 ]; then touch $D/fin.0 $D/fin.2; echo 5 > $D/cur.0; kill -BUS $$; fi; sleep 30",
        );
        assert_eq!(
            r.outcome,
            Outcome::Failed(Failure::Signaled {
                rank: 1,
                pid: r.pids[0],
                sig: libc::SIGBUS,
                core: false
            })
        );
        assert_nothing_left(&r);
    }

    #[test]
    fn a_host_exiting_with_an_unfinished_rank() {
        let r = run_hosts(
            "hosts-nofin",
            6,
            &[(0, 2), (2, 2), (4, 2)],
            "if [ $F = 2 ]; then touch $D/fin.2; exit 0; fi; sleep 30",
        );
        assert_eq!(
            r.outcome,
            Outcome::Failed(Failure::NoFinalize {
                rank: 3,
                pid: r.pids[1],
                status: 0
            })
        );
        assert_nothing_left(&r);
    }

    #[test]
    fn a_host_exiting_nonzero_after_its_ranks_finalized() {
        let r = run_hosts(
            "hosts-badexit",
            4,
            &[(0, 2), (2, 2)],
            &format!("{HOST_FINALIZES_ALL}; if [ $F = 2 ]; then exit 6; fi; sleep 30"),
        );
        assert_eq!(
            r.outcome,
            Outcome::Failed(Failure::BadExitAfterFinalize {
                rank: 2,
                pid: r.pids[1],
                status: 6
            })
        );
        assert_nothing_left(&r);
    }

    #[test]
    fn an_abort_by_a_hosted_rank_wins() {
        let r = run_hosts(
            "hosts-abort",
            6,
            &[(0, 3), (3, 3)],
            "if [ $F = 3 ]; then echo '9 oops' > $D/abort.5; exit 1; fi; sleep 30",
        );
        assert_eq!(
            r.outcome,
            Outcome::Failed(Failure::Aborted {
                rank: 5,
                code: 9,
                message: Some("oops".into())
            })
        );
        assert_nothing_left(&r);
    }

    #[test]
    fn hosts_past_the_limit_are_ended_with_what_they_started() {
        let hosts = [Block { first: 0, count: 2 }, Block { first: 2, count: 1 }];
        let r = run_job(
            "hosts-limit",
            3,
            &hosts,
            "sleep 30 & wait",
            Some(Duration::from_millis(300)),
        );
        assert_eq!(r.outcome, Outcome::TimedOut(Duration::from_millis(300)));
        assert_eq!(r.pids.len(), 2);
        assert_nothing_left(&r);
    }
}
