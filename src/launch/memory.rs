//! Peak memory of the whole job for the report. Where the host lets us make
//! a memory cgroup next to our own (cgroup v1's memory controller, or v2 with
//! `memory.peak`), the ranks start in one of their own and its peak usage is
//! the answer: everything the job held at once, kernel memory, page tables
//! and its shared-memory segment included. Elsewhere the ranks' peak resident
//! sizes are summed: an upper bound (shared pages count once per rank).

use crate::transport::process as os;
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A peak memory figure and how it was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeakMemory {
    /// The job's memory cgroup peak, in bytes.
    Cgroup(u64),
    /// Sum of the ranks' peak resident set sizes, in bytes (upper bound).
    RssSum(u64),
}

impl PeakMemory {
    pub fn bytes(&self) -> u64 {
        match *self {
            PeakMemory::Cgroup(b) | PeakMemory::RssSum(b) => b,
        }
    }
    /// Whether the figure is only an upper bound.
    pub fn upper_bound(&self) -> bool {
        matches!(self, PeakMemory::RssSum(_))
    }
}

/// The job's memory cgroup, removed on drop.
pub struct JobCgroup {
    dir: PathBuf,
    peak: PathBuf,
    procs: File,
}

/// Prefix of our cgroups' names (`vaced-<job id>`, the id starting with the
/// launcher's pid).
const PREFIX: &str = "vaced-";

impl JobCgroup {
    /// Make the cgroup `vaced-<job>` beside ours, if the host allows it.
    pub fn create(job: &str) -> Option<JobCgroup> {
        let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        let (parent, peak_file) = parent_dir(&own, Path::new(CGROUP_ROOT))?;
        remove_stale(&parent);
        let dir = parent.join(format!("{PREFIX}{job}"));
        std::fs::create_dir(&dir).ok()?;
        let peak = dir.join(peak_file);
        let procs = OpenOptions::new()
            .write(true)
            .open(dir.join("cgroup.procs"));
        match procs {
            Ok(procs) if peak.exists() => Some(JobCgroup { dir, peak, procs }),
            _ => {
                let _ = std::fs::remove_dir(&dir);
                None
            }
        }
    }

    /// `cmd`'s child joins the cgroup before exec (what it forks stays in).
    pub fn join_at_exec(&self, cmd: &mut Command) {
        os::write_at_exec(cmd, self.procs.as_raw_fd(), b"0");
    }

    /// The peak usage so far, in bytes.
    pub fn peak(&self) -> Option<u64> {
        std::fs::read_to_string(&self.peak)
            .ok()?
            .trim()
            .parse()
            .ok()
    }
}

impl Drop for JobCgroup {
    fn drop(&mut self) {
        // Empty once every rank is reaped; charges left (the segment's
        // pages) move to the parent.
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Where cgroup hierarchies are mounted.
const CGROUP_ROOT: &str = "/sys/fs/cgroup";

/// The directory to create our cgroup in, and its peak file's name, from
/// `/proc/self/cgroup` (`own`): the v1 memory hierarchy if mounted under
/// `root`, else v2 (at `root` or `root/unified`).
fn parent_dir(own: &str, root: &Path) -> Option<(PathBuf, &'static str)> {
    let mut v2 = None;
    for line in own.lines() {
        let mut f = line.splitn(3, ':');
        let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
        let path = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "memory") {
            let d = root.join("memory").join(path);
            if d.is_dir() {
                return Some((d, "memory.max_usage_in_bytes"));
            }
        } else if controllers.is_empty() {
            v2 = Some(path.to_string());
        }
    }
    let path = v2?;
    [root.to_path_buf(), root.join("unified")]
        .iter()
        .map(|r| r.join(&path))
        .find(|d| d.join("cgroup.controllers").exists())
        .map(|d| (d, "memory.peak"))
}

/// Remove cgroups of ours whose launcher is gone (killed before cleaning up).
fn remove_stale(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PREFIX))
            .and_then(|id| id.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

/// The job's peak memory: the cgroup's if there is one, else the sum of the
/// reaped ranks' peak resident sizes.
pub fn job_peak(cgroup: Option<&JobCgroup>) -> Option<PeakMemory> {
    if let Some(b) = cgroup.and_then(JobCgroup::peak) {
        return Some(PeakMemory::Cgroup(b));
    }
    let sum = os::reaped_maxrss_sum();
    (sum > 0).then_some(PeakMemory::RssSum(sum))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cgroup_paths() {
        let root = std::env::temp_dir().join(format!("vaced-cg-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("memory/a/b")).unwrap();
        std::fs::create_dir_all(root.join("unified/c")).unwrap();
        std::fs::write(root.join("unified/c/cgroup.controllers"), "").unwrap();
        let v1 = "4:memory:/a/b\n1:cpu,cpuacct:/x\n0::/c\n";
        assert_eq!(
            parent_dir(v1, &root),
            Some((root.join("memory/a/b"), "memory.max_usage_in_bytes"))
        );
        let v2 = "1:cpu:/x\n0::/c\n";
        assert_eq!(
            parent_dir(v2, &root),
            Some((root.join("unified/c"), "memory.peak"))
        );
        assert_eq!(parent_dir("0::/none\n", &root), None);
        assert_eq!(parent_dir("garbage", &root), None);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn peak_kinds() {
        assert_eq!(PeakMemory::Cgroup(5).bytes(), 5);
        assert!(!PeakMemory::Cgroup(5).upper_bound());
        assert!(PeakMemory::RssSum(7).upper_bound());
    }
}
