//! The many-ranks mode's launcher side (`mpirun --ranks-per-process
//! K|auto`): which contiguous block of ranks each host process runs, and
//! starting the host processes. A host is the `vaced` executable itself
//! under the name `vaced-host`, given the program and its arguments; what
//! it runs is said in its environment (see [`host_command`]).

use super::args::RanksPerProcess;
use super::job::{JobSpec, ENV_HOSTED, ENV_HOST_ARGV0, ENV_RANK};
use super::memory::JobCgroup;
use super::spawn::{start_each, SpawnStop, Spawned};
use crate::transport::process::{self as os, SignalSet};
use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The name a host process is started under (its argv[0]).
pub const HOST_ARGV0: &str = crate::ranks::entry::HOST_ARGV0;

/// The environment variable that gives `--ranks-per-process` when the
/// command line does not (e.g. to run a whole test suite in the mode).
pub const ENV_RANKS_PER_PROCESS: &str = "VACED_RANKS_PER_PROCESS";

/// A contiguous block of ranks: `first..first + count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Block {
    pub first: u32,
    pub count: u32,
}

impl Block {
    /// The block of rank `rank` alone.
    pub fn one(rank: u32) -> Block {
        Block {
            first: rank,
            count: 1,
        }
    }

    pub fn ranks(&self) -> std::ops::Range<u32> {
        self.first..self.first + self.count
    }

    pub fn contains(&self, rank: u32) -> bool {
        self.ranks().contains(&rank)
    }

    /// `ranks 4-7`, or `rank 4` for a block of one.
    pub fn describe(&self) -> String {
        match self.count {
            1 => format!("rank {}", self.first),
            _ => format!("ranks {}-{}", self.first, self.first + self.count - 1),
        }
    }
}

/// The blocks of ranks the host processes run, by host, for `nranks` ranks
/// on `cores` cores (at least 1). `Auto`: min(cores, nranks) hosts, the
/// ranks split as evenly as possible (the first blocks one larger).
/// `Fixed(K)`: ceil(nranks / K) hosts of K ranks (the last fewer); more
/// hosts than cores share the core tokens ([`shares_tokens`]).
pub fn split(nranks: u32, cores: u32, rpp: RanksPerProcess) -> Vec<Block> {
    let cores = cores.max(1);
    let sizes: Vec<u32> = match rpp {
        RanksPerProcess::Auto => {
            let h = cores.min(nranks);
            let (base, extra) = (nranks / h, nranks % h);
            (0..h).map(|i| base + u32::from(i < extra)).collect()
        }
        RanksPerProcess::Fixed(k) => {
            let k = k.max(1);
            let h = nranks.div_ceil(k);
            (0..h).map(|i| k.min(nranks - i * k)).collect()
        }
    };
    let mut first = 0;
    sizes
        .into_iter()
        .map(|count| {
            let b = Block { first, count };
            first += count;
            b
        })
        .collect()
}

/// Whether `hosts` host processes on `cores` cores share the job's core
/// tokens (more hosts than cores: each holds a token while one of its ranks
/// runs), rather than each owning a core.
pub fn shares_tokens(hosts: usize, cores: u32) -> bool {
    hosts > cores.max(1) as usize
}

/// Remove the directories where the started hosts write the copies of the
/// program while they load (a host removes its own once loaded; one killed
/// meanwhile leaves it).
pub fn remove_copies(spawned: &Spawned) {
    for (&pid, b) in spawned.pids.iter().zip(&spawned.hosts) {
        let _ = std::fs::remove_dir_all(crate::ranks::host::copies_dir_of(pid, b.first));
    }
}

/// The largest block of `blocks` (the report's ranks per process).
pub fn largest(blocks: &[Block]) -> u32 {
    blocks.iter().map(|b| b.count).max().unwrap_or(0)
}

/// Start one host process per block of `hosts`: `exe` (the `vaced`
/// executable) as `vaced-host`, given `program` and `args`; the ranks get
/// `argv0` as their argv[0]. `stdin0` is host 0's stdin (rank 0's); the
/// others get /dev/null. Every host is in the job's process group (host
/// 0's pid), dies with the launcher and joins `cgroup`. `signals`, if
/// given, is polled for interrupts as in [`super::spawn::spawn_ranks`].
/// With `shared_tokens` the hosts share the job's core tokens
/// ([`shares_tokens`]).
#[allow(clippy::too_many_arguments)]
pub fn spawn_hosts(
    exe: &Path,
    program: &Path,
    argv0: &OsStr,
    args: &[OsString],
    job: &JobSpec,
    hosts: &[Block],
    shared_tokens: bool,
    stdin0: Stdio,
    signals: Option<&SignalSet>,
    cgroup: Option<&JobCgroup>,
) -> (Spawned, Option<SpawnStop>) {
    let began = Instant::now();
    let mut out = Spawned {
        pids: Vec::with_capacity(hosts.len()),
        hosts: hosts.to_vec(),
        pgid: 0,
        began,
        startup: Duration::ZERO,
    };
    let mut stdin0 = Some(stdin0);
    let stop = start_each(
        &mut out,
        0..hosts.len() as u32,
        |i, pgid| {
            let stdin = stdin0.take().unwrap_or_else(Stdio::null);
            host_command(
                exe,
                program,
                argv0,
                args,
                job,
                hosts[i as usize],
                shared_tokens,
                pgid,
                stdin,
            )
        },
        |i, error| SpawnStop::HostFailed {
            host: hosts[i as usize],
            error,
        },
        signals,
        cgroup,
    );
    out.startup = began.elapsed();
    (out, stop)
}

/// The command that starts the host of `host`, in process group `pgid` (0:
/// its own): `exe` as `vaced-host` with arguments `program args...`, and
/// the environment of the block's first rank without `VACED_RANK`, plus
/// `VACED_HOSTED=<first>,<count>` (`,shared` with `shared_tokens`) and
/// `VACED_HOST_ARGV0=<argv0>`.
#[allow(clippy::too_many_arguments)]
fn host_command(
    exe: &Path,
    program: &Path,
    argv0: &OsStr,
    args: &[OsString],
    job: &JobSpec,
    host: Block,
    shared_tokens: bool,
    pgid: u32,
    stdin: Stdio,
) -> Command {
    let mut cmd = Command::new(exe);
    cmd.arg0(HOST_ARGV0).arg(program).args(args);
    cmd.envs(
        job.rank_env(host.first)
            .into_iter()
            .filter(|(k, _)| *k != ENV_RANK),
    );
    cmd.env_remove(ENV_RANK);
    let shared = if shared_tokens { ",shared" } else { "" };
    cmd.env(ENV_HOSTED, format!("{},{}{shared}", host.first, host.count));
    cmd.env(ENV_HOST_ARGV0, argv0);
    cmd.process_group(pgid as i32).stdin(stdin);
    os::die_with_parent(&mut cmd);
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(v: &[(u32, u32)]) -> Vec<Block> {
        v.iter()
            .map(|&(first, count)| Block { first, count })
            .collect()
    }

    #[test]
    fn auto_splits_evenly_first_blocks_larger() {
        let auto = RanksPerProcess::Auto;
        assert_eq!(
            split(10, 4, auto),
            blocks(&[(0, 3), (3, 3), (6, 2), (8, 2)])
        );
        assert_eq!(split(8, 4, auto), blocks(&[(0, 2), (2, 2), (4, 2), (6, 2)]));
        assert_eq!(split(1000, 1, auto), blocks(&[(0, 1000)]));
        // never more hosts than ranks
        assert_eq!(split(3, 16, auto), blocks(&[(0, 1), (1, 1), (2, 1)]));
        assert_eq!(split(7, 3, auto), blocks(&[(0, 3), (3, 2), (5, 2)]));
        assert_eq!(split(1, 1, auto), blocks(&[(0, 1)]));
    }

    #[test]
    fn fixed_blocks_of_k_the_last_smaller() {
        let k = RanksPerProcess::Fixed;
        assert_eq!(
            split(10, 4, k(3)),
            blocks(&[(0, 3), (3, 3), (6, 3), (9, 1)])
        );
        assert_eq!(split(8, 2, k(4)), blocks(&[(0, 4), (4, 4)]));
        assert_eq!(split(5, 1, k(64)), blocks(&[(0, 5)]));
        assert_eq!(split(3, 3, k(1)), blocks(&[(0, 1), (1, 1), (2, 1)]));
        assert_eq!(largest(&split(10, 4, k(3))), 3);
        assert_eq!(largest(&split(10, 4, RanksPerProcess::Auto)), 3);
    }

    #[test]
    fn more_hosts_than_cores_share_tokens() {
        let b = split(10, 2, RanksPerProcess::Fixed(3));
        assert_eq!(b, blocks(&[(0, 3), (3, 3), (6, 3), (9, 1)]));
        assert!(shares_tokens(b.len(), 2));
        assert!(shares_tokens(
            split(4, 1, RanksPerProcess::Fixed(2)).len(),
            1
        ));
        assert!(!shares_tokens(
            split(8, 2, RanksPerProcess::Fixed(4)).len(),
            2
        ));
        assert!(!shares_tokens(
            split(1000, 2, RanksPerProcess::Auto).len(),
            2
        ));
    }

    #[test]
    fn block_names() {
        assert_eq!(Block { first: 4, count: 4 }.describe(), "ranks 4-7");
        assert_eq!(Block::one(3).describe(), "rank 3");
        assert!(Block { first: 4, count: 4 }.contains(7));
        assert!(!Block { first: 4, count: 4 }.contains(8));
    }

    /// A host gets the vaced executable under its own name, the program
    /// and its arguments, the job's environment without VACED_RANK, its
    /// block and the ranks' argv[0]; all hosts share host 0's group.
    #[test]
    fn hosts_see_their_block_and_environment() {
        let dir = std::env::temp_dir().join(format!("vaced-hosts-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let job = JobSpec {
            id: "1-0000000000000004".into(),
            nranks: 5,
            target: "tianhe1a".into(),
            cma: true,
        };
        // `sh SCRIPT ARG` with argv[0] vaced-host: the script is the "program"
        let script = dir.join("prog.sh");
        std::fs::write(
            &script,
            format!(
                "echo \"$(tr '\\0' '\\n' < /proc/$$/cmdline | head -n1) $0 $1 rank=${{VACED_RANK-unset}} $VACED_HOSTED $VACED_HOST_ARGV0 $VACED_SIZE $VACED_SEGMENT $VACED_JOB $VACED_TARGET $VACED_CMA $(cut -d' ' -f5 /proc/$$/stat)\" > {}/out.${{VACED_HOSTED%,*}}\n",
                dir.display()
            ),
        )
        .unwrap();
        let hosts = blocks(&[(0, 3), (3, 2)]);
        let (sp, stop) = spawn_hosts(
            Path::new("/bin/sh"),
            &script,
            OsStr::new("./app"),
            &[OsString::from("arg1")],
            &job,
            &hosts,
            false,
            Stdio::null(),
            None,
            None,
        );
        assert!(stop.is_none());
        assert_eq!(sp.pids.len(), 2);
        assert_eq!(sp.hosts, hosts);
        assert_eq!(sp.pgid, sp.pids[0]);
        assert_eq!(sp.ranks_of(1), Block { first: 3, count: 2 });
        for &pid in &sp.pids {
            assert_eq!(os::wait_pid(pid).unwrap(), os::WaitStatus::Exited(0));
        }
        for (first, count) in [(0, 3), (3, 2)] {
            let line = std::fs::read_to_string(dir.join(format!("out.{first}"))).unwrap();
            assert_eq!(
                line.trim(),
                format!(
                    "vaced-host {} arg1 rank=unset {first},{count} ./app 5 \
                     /vaced-1-0000000000000004 1-0000000000000004 tianhe1a 1 {}",
                    script.display(),
                    sp.pgid
                )
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_host_that_cannot_start_is_named() {
        let job = JobSpec {
            id: "1-0000000000000005".into(),
            nranks: 4,
            target: "tianhe1a".into(),
            cma: false,
        };
        let (sp, stop) = spawn_hosts(
            Path::new("/nonexistent/vaced"),
            Path::new("/bin/true"),
            OsStr::new("true"),
            &[],
            &job,
            &blocks(&[(0, 2), (2, 2)]),
            false,
            Stdio::null(),
            None,
            None,
        );
        assert!(sp.pids.is_empty());
        match stop {
            Some(SpawnStop::HostFailed { host, error }) => {
                assert_eq!(host, Block { first: 0, count: 2 });
                assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
