//! Peak memory of a whole job (every process, shared memory included): a
//! memory cgroup made for the job when this host lets us (cgroup v1
//! `memory.max_usage_in_bytes`, or cgroup v2 `memory.peak`), else the sum of
//! `Pss` over the job's processes, sampled from `/proc/<pid>/smaps_rollup`.
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// How a peak was measured (printed with the figures).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MemMethod {
    CgroupV1,
    CgroupV2,
    PssSampling,
}

impl MemMethod {
    pub fn describe(self) -> &'static str {
        match self {
            MemMethod::CgroupV1 => "memory cgroup v1 (memory.max_usage_in_bytes of a cgroup made for the job: every process, shared memory and page cache it charged)",
            MemMethod::CgroupV2 => "memory cgroup v2 (memory.peak of a cgroup made for the job: every process, shared memory and page cache it charged)",
            MemMethod::PssSampling => "sum of Pss over the job's process group, from /proc/<pid>/smaps_rollup sampled at 5 Hz (peaks between samples can be missed)",
        }
    }
    pub fn short(self) -> &'static str {
        match self {
            MemMethod::CgroupV1 => "cgroup-v1",
            MemMethod::CgroupV2 => "cgroup-v2",
            MemMethod::PssSampling => "pss-5hz",
        }
    }
}

/// A memory cgroup made for one job, a child of the cgroup this process is in
/// (so the limits set above us still apply). Removed on drop.
pub struct JobCgroup {
    dir: PathBuf,
    pub method: MemMethod,
}

/// The line of /proc/self/cgroup for the v1 memory controller, or the v2 one.
fn own_cgroup(proc_cgroup: &str, v1: bool) -> Option<String> {
    proc_cgroup.lines().find_map(|l| {
        let mut it = l.splitn(3, ':');
        let (_id, ctrls, path) = (it.next()?, it.next()?, it.next()?);
        let hit = if v1 {
            ctrls.split(',').any(|c| c == "memory")
        } else {
            ctrls.is_empty()
        };
        hit.then(|| path.to_string())
    })
}

impl JobCgroup {
    /// Makes `<own memory cgroup>/<name>`; None when neither v1 nor v2 works.
    pub fn create(name: &str) -> Option<JobCgroup> {
        let pc = fs::read_to_string("/proc/self/cgroup").ok()?;
        if let Some(p) = own_cgroup(&pc, true) {
            let dir = Path::new("/sys/fs/cgroup/memory")
                .join(p.trim_start_matches('/'))
                .join(name);
            if fs::create_dir(&dir).is_ok() {
                if dir.join("memory.max_usage_in_bytes").exists() {
                    return Some(JobCgroup {
                        dir,
                        method: MemMethod::CgroupV1,
                    });
                }
                let _ = fs::remove_dir(&dir);
            }
        }
        if let Some(p) = own_cgroup(&pc, false) {
            for root in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                let parent = Path::new(root).join(p.trim_start_matches('/'));
                let ctrls =
                    fs::read_to_string(parent.join("cgroup.subtree_control")).unwrap_or_default();
                if !ctrls.split_whitespace().any(|c| c == "memory") {
                    continue;
                }
                let dir = parent.join(name);
                if fs::create_dir(&dir).is_ok() {
                    if dir.join("memory.peak").exists() {
                        return Some(JobCgroup {
                            dir,
                            method: MemMethod::CgroupV2,
                        });
                    }
                    let _ = fs::remove_dir(&dir);
                }
            }
        }
        None
    }

    /// `cgroup.procs`, opened for the child to write its own pid into before exec.
    pub fn procs_file(&self) -> std::io::Result<fs::File> {
        fs::OpenOptions::new()
            .write(true)
            .open(self.dir.join("cgroup.procs"))
    }

    /// Pids still in the cgroup.
    pub fn pids(&self) -> Vec<i32> {
        fs::read_to_string(self.dir.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// The peak so far, in bytes.
    pub fn peak(&self) -> Option<u64> {
        let f = match self.method {
            MemMethod::CgroupV1 => "memory.max_usage_in_bytes",
            _ => "memory.peak",
        };
        fs::read_to_string(self.dir.join(f))
            .ok()?
            .trim()
            .parse()
            .ok()
    }
}

impl Drop for JobCgroup {
    fn drop(&mut self) {
        // Processes that just exited may linger a moment as zombies.
        for _ in 0..50 {
            if fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = writeln!(
            std::io::stderr(),
            "vaced-bench: could not remove the job cgroup {}",
            self.dir.display()
        );
    }
}

/// Sum of `Pss:` (kB) in an smaps_rollup text, in bytes.
pub fn pss_bytes(smaps_rollup: &str) -> u64 {
    smaps_rollup
        .lines()
        .filter_map(|l| l.strip_prefix("Pss:"))
        .filter_map(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .sum::<u64>()
        * 1024
}

/// The process group of a `/proc/<pid>/stat` line (field 5; the command name
/// in parentheses may hold spaces).
pub fn stat_pgrp(stat: &str) -> Option<i32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(2)?.parse().ok()
}

/// Sum of Pss over every process of process group `pgid`, in bytes.
pub fn group_pss(pgid: i32) -> u64 {
    let Ok(dir) = fs::read_dir("/proc") else {
        return 0;
    };
    let mut sum = 0;
    for e in dir.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat_pgrp(&stat) == Some(pgid) {
            sum += pss_bytes(
                &fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default(),
            );
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_own_cgroups() {
        let pc = "9:name=systemd:/\n4:memory:/process_api/e23\n3:cpuset:/\n0::/user.slice/x\n";
        assert_eq!(own_cgroup(pc, true).as_deref(), Some("/process_api/e23"));
        assert_eq!(own_cgroup(pc, false).as_deref(), Some("/user.slice/x"));
        assert_eq!(own_cgroup("2:cpu,cpuacct:/a\n", true), None);
        assert_eq!(own_cgroup("5:cpu,memory:/b\n", true).as_deref(), Some("/b"));
    }

    #[test]
    fn sums_pss() {
        let t = "55d0-7ffd ---p 00000000 00:00 0 [rollup]\nRss: 900 kB\nPss: 300 kB\nPss_Anon: 120 kB\nPss_Shmem: 10 kB\n";
        assert_eq!(pss_bytes(t), 300 * 1024);
    }

    #[test]
    fn reads_pgrp_past_spaces_in_the_name() {
        assert_eq!(stat_pgrp("1234 (a b) c) S 1 4321 4321 0 -1"), Some(4321));
        assert_eq!(stat_pgrp("7 (cg) R 1 99 5"), Some(99));
    }
}
