//! Start-up by forking. Executing the program once per rank makes every rank
//! pay for exec, the dynamic linker and the CPU-feature probing of ld.so and
//! libgcc (CPUID traps to the hypervisor on virtual machines): about 1.5 ms of
//! CPU per rank. Instead the launcher executes rank 0 only; when the program is
//! linked with our library, the library's load-time hook in rank 0 (before
//! `main`, after every library was loaded and relocated) forks the other ranks
//! from that ready image.
//!
//! Protocol (two pipes, `VACED_ZYGOTE=<report fd>,<answer fd>;<flags>` in
//! rank 0's environment, removed at once by the hook; rank 0 also gets
//! `LD_BIND_NOW=1`, removed by the hook if the launcher added it):
//! 1. rank 0 writes `Z` on the report pipe; the launcher answers `Y` on the
//!    answer pipe (anything else, or its end of file, means "do not fork": the
//!    launcher then starts the other ranks by exec);
//! 2. rank 0 forks a helper, which forks ranks 1..n-1 and reports each pid
//!    (u32, little endian, in rank order) on the report pipe, or
//!    `u32::MAX, rank, errno` when a fork fails, then exits;
//! 3. the new ranks sleep until the helper is gone (they are then children of
//!    the launcher, a subreaper: they wait for the helper's parent-death
//!    signal, sent after the reparenting), ask to die with the launcher, give
//!    themselves /dev/null as stdin and `VACED_RANK`, and run `main`.

use super::job::ENV_RANK;
use crate::transport::process as os;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::OwnedFd;
use std::path::Path;

/// Rank 0's environment variable naming the two pipe descriptors.
pub const ENV_ZYGOTE: &str = "VACED_ZYGOTE";
/// `VACED_FORK=0` in mpirun's environment: start every rank by exec.
pub const ENV_FORK: &str = "VACED_FORK";
/// The dynamic linker's variable for binding every symbol at load time: set
/// for rank 0, so that the ranks it forks find their symbols bound already
/// instead of each resolving them on first call.
pub const ENV_BIND_NOW: &str = "LD_BIND_NOW";
const FLAG_BIND_NOW: &str = "unset-bind-now";
/// What the pid stream carries instead of a pid when a fork failed.
pub const FORK_FAILED: u32 = u32::MAX;
/// How much of the program file is searched for the library's name.
const SNIFF_BYTES: u64 = 1 << 20;

/// Whether to start the ranks of `program` by forking rank 0: it is an ELF
/// file that names our library (its DT_NEEDED entry) near its start, and
/// `fork_env` (`$VACED_FORK`) is not "0". A wrong guess only costs the
/// launcher's wait for rank 0's hello.
pub fn wanted(program: &Path, fork_env: Option<&OsStr>) -> bool {
    if fork_env.is_some_and(|v| v == "0") {
        return false;
    }
    let mut head = Vec::new();
    let read = File::open(program).and_then(|f| f.take(SNIFF_BYTES).read_to_end(&mut head));
    read.is_ok()
        && head.starts_with(b"\x7fELF")
        && head.windows(b"libvaced.".len()).any(|w| w == b"libvaced.")
}

/// Rank 0's side, run by the library's load-time hook.
#[used]
#[link_section = ".init_array"]
static AT_LOAD: extern "C" fn() = at_load;

extern "C" fn at_load() {
    let Some(spec) = std::env::var_os(ENV_ZYGOTE) else {
        return;
    };
    // Nothing started from the ranks (a nested mpirun) may see it.
    std::env::remove_var(ENV_ZYGOTE);
    let Some(spec) = spec.to_str() else {
        return;
    };
    let (fds, flags) = spec.split_once(';').unwrap_or((spec, ""));
    if flags.contains(FLAG_BIND_NOW) {
        // Every symbol was bound at load for the ranks to inherit; what the
        // ranks start binds lazily again.
        std::env::remove_var(ENV_BIND_NOW);
    }
    let Some((report, answer)) = parse_fds(fds) else {
        return;
    };
    zygote(report, answer);
}

/// The value of [`ENV_ZYGOTE`]: the two descriptors, and whether the launcher
/// added [`ENV_BIND_NOW`] (to be removed again).
pub fn zygote_env(report: i32, answer: i32, bind_now_added: bool) -> String {
    let flags = if bind_now_added { FLAG_BIND_NOW } else { "" };
    format!("{report},{answer};{flags}")
}

fn parse_fds(s: &str) -> Option<(OwnedFd, OwnedFd)> {
    let (a, b) = s.split_once(',')?;
    let report = os::adopt_fd(a.parse().ok()?)?;
    let answer = os::adopt_fd(b.parse().ok()?)?;
    Some((report, answer))
}

fn env_u32(name: &str) -> Option<u32> {
    std::env::var(name).ok()?.parse().ok()
}

/// Ask the launcher, and fork the ranks if it agrees. Returns in rank 0 and
/// in every new rank (which then runs `main`); the helper never returns.
fn zygote(report: OwnedFd, answer: OwnedFd) {
    let Some(nranks) = env_u32(super::job::ENV_SIZE) else {
        return;
    };
    let Ok(single) = os::SingleThreaded::check() else {
        return; // a constructor before ours started threads: no fork
    };
    let mut report = File::from(report);
    let mut answer = File::from(answer);
    if report.write_all(b"Z").is_err() {
        return;
    }
    let mut yes = [0u8; 1];
    if answer.read_exact(&mut yes).is_err() || yes != *b"Y" {
        return;
    }
    drop(answer);
    let launcher = os::parent_pid();
    match single.fork() {
        Ok(Some(helper)) => {
            drop(report);
            let _ = os::wait_pid(helper);
        }
        Ok(None) => fork_ranks(&single, report, nranks, launcher),
        Err(e) => send_failure(&mut report, 1, &e),
    }
}

fn send_failure(report: &mut File, rank: u32, e: &io::Error) {
    let errno = e.raw_os_error().unwrap_or(0) as u32;
    let mut rec = Vec::with_capacity(12);
    for w in [FORK_FAILED, rank, errno] {
        rec.extend(w.to_le_bytes());
    }
    let _ = report.write_all(&rec);
}

/// The helper: fork ranks 1..n-1, report them, exit. Returns only in a new
/// rank, ready to run `main`.
fn fork_ranks(single: &os::SingleThreaded, mut report: File, nranks: u32, launcher: u32) {
    let null = match File::open("/dev/null") {
        Ok(f) => f,
        Err(e) => {
            send_failure(&mut report, 1, &e);
            os::exit_now(1);
        }
    };
    let me = std::process::id();
    let mut pids = Vec::with_capacity(4 * nranks as usize);
    for rank in 1..nranks {
        match single.fork() {
            Ok(Some(pid)) => pids.extend(pid.to_le_bytes()),
            Ok(None) => {
                drop(report);
                become_rank(rank, null, me, launcher);
                return;
            }
            Err(e) => {
                let _ = report.write_all(&pids);
                send_failure(&mut report, rank, &e);
                os::exit_now(1);
            }
        }
        if pids.len() >= 4096 {
            if report.write_all(&pids).is_err() {
                os::exit_now(1);
            }
            pids.clear();
        }
    }
    let code = i32::from(report.write_all(&pids).is_err());
    os::exit_now(code);
}

/// A new rank: wait for the helper to end (we are then the launcher's
/// child), then take up our identity.
fn become_rank(rank: u32, null: File, helper: u32, launcher: u32) {
    if os::wait_parent_exit(helper).is_err() || !os::die_with(launcher) {
        os::exit_now(1); // the launcher is gone
    }
    if os::set_stdin(&null).is_err() {
        os::exit_now(1);
    }
    drop(null);
    std::env::set_var(ENV_RANK, rank.to_string());
}

/// The launcher's view of what rank 0's report pipe said.
#[derive(Debug, PartialEq, Eq)]
pub enum Report {
    /// Pids of ranks 1..n-1, in rank order.
    Started(Vec<u32>),
    /// Forking rank `rank` failed with `errno`; earlier ranks were started.
    Failed {
        started: Vec<u32>,
        rank: u32,
        errno: i32,
    },
}

/// The whole pids at the start of a stream cut short (no failure record).
pub fn whole_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .take_while(|&w| w != FORK_FAILED)
        .collect()
}

/// Decode the pid stream (see the module documentation) of a job of `nranks`.
pub fn decode(bytes: &[u8], nranks: u32) -> Option<Report> {
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    let want = nranks.saturating_sub(1) as usize;
    if let Some(i) = words.iter().position(|&w| w == FORK_FAILED) {
        let (rank, errno) = (*words.get(i + 1)?, *words.get(i + 2)?);
        return Some(Report::Failed {
            started: words[..i].to_vec(),
            rank,
            errno: errno as i32,
        });
    }
    (words.len() >= want).then(|| Report::Started(words[..want].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn pid_stream() {
        assert_eq!(
            decode(&words(&[7, 8]), 3),
            Some(Report::Started(vec![7, 8]))
        );
        assert_eq!(decode(&words(&[7]), 3), None);
        assert_eq!(decode(&[], 1), Some(Report::Started(vec![])));
        assert_eq!(
            decode(&words(&[7, FORK_FAILED, 2, 11]), 4),
            Some(Report::Failed {
                started: vec![7],
                rank: 2,
                errno: 11
            })
        );
        assert_eq!(decode(&words(&[7, FORK_FAILED, 2]), 4), None);
    }

    #[test]
    fn only_elf_files_naming_the_library_are_forked() {
        let dir = std::env::temp_dir().join(format!("vaced-zygote-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let linked = dir.join("linked");
        std::fs::write(&linked, b"\x7fELF....libc.so.6\0libvaced.so\0").unwrap();
        let script = dir.join("script");
        std::fs::write(&script, b"#!/bin/sh\n# libvaced.so\n").unwrap();
        assert!(wanted(&linked, None));
        assert!(wanted(&linked, Some(OsStr::new("1"))));
        assert!(!wanted(&linked, Some(OsStr::new("0"))));
        assert!(!wanted(&script, None));
        assert!(!wanted(Path::new("/bin/true"), None));
        assert!(!wanted(&dir.join("missing"), None));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
