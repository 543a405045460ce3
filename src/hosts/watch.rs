//! The watchdog of a host's side (`vaced host-side-watch`): a process of
//! its own that cleans up after a host side killed without warning
//! (SIGKILL, the OOM killer), which cannot clean up itself.
//!
//! The side starts it once its segment exists, in a process group of its
//! own, its stdin a pipe whose write end only the side holds. A side that
//! ends its own way (normally, or ended by a signal it handles) writes a
//! byte first: the watchdog then exits without doing anything. End of file
//! without that byte means the side died: the watchdog kills every process
//! started for this host's segment (MPICH's proxy and the ranks: their
//! environment names the segment, `VACED_SEGMENT`), removes the segment and
//! MPICH's files the ranks left (`launch::cleanup`), and says so. The
//! launcher learns of the side's end from its registry connection.
use crate::launch::cleanup;
use crate::launch::job::ENV_SEGMENT;
use crate::transport::process as os;
use crate::transport::Segment;
use std::io::{Read, Write};
use std::time::{Duration, Instant, SystemTime};

/// What the side writes when it ends its own way.
pub const ALL_WELL: u8 = b'k';

/// How long the killed processes are given to go before MPICH's files are
/// looked at (a mapping goes with its process).
const GONE_WAIT: Duration = Duration::from_secs(2);

/// Watch the side whose segment is `segment` (started at `since`); the
/// exit status.
pub fn run(segment: &str, since: SystemTime) -> i32 {
    let mut b = [0u8; 1];
    let well = loop {
        match std::io::stdin().read(&mut b) {
            Ok(0) => break false,
            Ok(_) => break b[0] == ALL_WELL,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break false,
        }
    };
    if well {
        return 0;
    }
    let pids = started_for(segment);
    for &p in &pids {
        os::kill_pid(p, libc::SIGKILL);
    }
    let t = Instant::now();
    while t.elapsed() < GONE_WAIT && pids.iter().any(|&p| os::running(p)) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = Segment::unlink(segment);
    cleanup::remove_unheld_mpich_files(since);
    // (stderr may be gone with the side: a failed write is no matter)
    let _ = writeln!(
        std::io::stderr(),
        "vaced host-side-watch: the host's side of {segment} died without a word: its {} \
         processes (MPICH's proxy and ranks) are killed and its segment removed",
        pids.len()
    );
    0
}

/// The processes whose environment says they were started for `segment`.
fn started_for(segment: &str) -> Vec<u32> {
    let want = format!("{ENV_SEGMENT}={segment}");
    let me = os::getpid();
    os::pids()
        .into_iter()
        .filter(|&p| p != me)
        .filter(|&p| os::environ_has(p, |kv| kv == want.as_bytes()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processes_are_found_by_the_segment_in_their_environment() {
        let seg = format!("/vaced-watch-test-{}", std::process::id());
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .env(ENV_SEGMENT, &seg)
            .spawn()
            .unwrap();
        let mut other = std::process::Command::new("sleep")
            .arg("30")
            .env(ENV_SEGMENT, format!("{seg}x"))
            .spawn()
            .unwrap();
        // the environment is readable once the child has exec'ed
        let t = Instant::now();
        while started_for(&seg).is_empty() && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(started_for(&seg), vec![child.id()]);
        assert!(os::running(child.id()));
        child.kill().unwrap();
        other.kill().unwrap();
        child.wait().unwrap();
        other.wait().unwrap();
        assert!(!os::running(child.id()));
    }
}
