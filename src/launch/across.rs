//! A job of vaced's MPICH across several hosts (`mpirun --mpich --hosts
//! LIST` or `--hostfile FILE`): the launcher's part. It opens the hosts'
//! registry (`crate::hosts::registry`) with the job's segment as the board
//! the hosts' results are copied into, and has MPICH's launcher start its
//! proxies through the agent (`crate::hosts::agent`, this executable under
//! the name `vaced-hostexec`, linked in a directory of the job's own).

use super::args::RunArgs;
use super::board::RankBoard;
use super::job::JobSpec;
use super::outcome::Failure;
use super::supervise;
use crate::hosts::agent::{AGENT_ARGV0, ENV_EXE, ENV_REGISTRY_PORT, ENV_REMOTE_EXEC};
use crate::hosts::placement::{self, HostSlots};
use crate::hosts::registry::{self, HostConfig, Reports};
use crate::transport::Segment;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The hosts `--hosts` or `--hostfile` name, if any.
pub fn host_list(a: &RunArgs) -> Result<Option<Vec<HostSlots>>, String> {
    match (&a.hosts, &a.hostfile) {
        (Some(l), _) => placement::parse_list(l).map(Some),
        (None, Some(f)) => {
            let text = std::fs::read_to_string(f)
                .map_err(|e| format!("--hostfile {}: {e}", f.display()))?;
            placement::parse_file(&text, &f.display().to_string()).map(Some)
        }
        (None, None) => Ok(None),
    }
}

/// What MPICH's launcher needs to start a job across hosts; the agent's
/// directory goes when this is dropped.
pub struct Across {
    /// Hydra's host list.
    pub list: String,
    /// The agent (`-launcher-exec`).
    pub agent: PathBuf,
    /// The environment MPICH's launcher passes the agent.
    pub env: Vec<(&'static str, String)>,
    /// Whether every host has given its last word (see `registry`).
    pub reports: Arc<Reports>,
}

/// How long a failed job waits for the hosts' last words (see `registry`).
pub const LAST_WORDS: Duration = Duration::from_secs(2);

impl Across {
    /// `f`, judged when MPICH's launcher ended, judged again once the hosts
    /// have given their last words ([`LAST_WORDS`] at most): what a rank
    /// recorded, else a host's side that was ended from outside, else one
    /// that ended without a word, else `f`.
    pub fn judge_again(&self, board: &dyn RankBoard, nranks: u32, f: Failure) -> Failure {
        // (also when `f` is already what a rank recorded: the hosts'
        // sides end and remove their segments meanwhile)
        self.reports.wait(LAST_WORDS);
        if matches!(f, Failure::Aborted { .. } | Failure::RankSignaled { .. }) {
            return f;
        }
        // the launcher's board holds no rank's state while the job runs
        // (each host's segment does): which joined is not known here
        let f = match f {
            Failure::NeverJoined {
                block, pid, status, ..
            } => Failure::NoFinalize {
                rank: block.first,
                pid,
                status,
            },
            f => f,
        };
        let code = f.exit_code();
        supervise::recorded(board, nranks, 0..nranks)
            .or_else(|| {
                let (host, why, code) = self.reports.gone()?;
                Some(Failure::HostGone { host, why, code })
            })
            .or_else(|| {
                let host = self.reports.silent()?;
                let why = "lost without a word (killed by SIGKILL or the OOM killer, or it \
                           failed: its message is above)"
                    .to_string();
                Some(Failure::HostGone { host, why, code })
            })
            .unwrap_or(f)
    }
}

impl Drop for Across {
    fn drop(&mut self) {
        if let Some(dir) = self.agent.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Open the registry (results into `board`) and link the agent.
pub fn prepare(
    job: &JobSpec,
    hosts: &[HostSlots],
    cores: u32,
    inbox_bytes: u32,
    board: &Segment,
    remote_exec: Option<&str>,
) -> Result<Across, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find the vaced executable for the hosts: {e}"))?;
    let dir = std::env::temp_dir().join(format!("vaced-{}-agent", job.id));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let agent = dir.join(AGENT_ARGV0);
    std::os::unix::fs::symlink(&exe, &agent).map_err(|e| format!("{}: {e}", agent.display()))?;
    let listener = TcpListener::bind(("0.0.0.0", 0))
        .map_err(|e| format!("cannot open the hosts' registry: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let cfg = HostConfig {
        job: job.id.clone(),
        nranks: job.nranks,
        cores,
        inbox_bytes,
        host_of: placement::place(hosts, job.nranks),
        bridges: vec![String::new(); hosts.len()],
    };
    let reports = registry::serve(listener, board.clone(), cfg);
    let remote = remote_exec
        .map(String::from)
        .or_else(|| std::env::var(ENV_REMOTE_EXEC).ok())
        .unwrap_or_else(|| "ssh".into());
    Ok(Across {
        list: placement::to_list(hosts),
        agent,
        env: vec![
            (ENV_REGISTRY_PORT, port.to_string()),
            (ENV_EXE, exe.display().to_string()),
            (ENV_REMOTE_EXEC, remote),
        ],
        reports,
    })
}
