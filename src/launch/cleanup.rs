//! Removing what a job leaves in shared memory: its segment and every spill
//! file, i.e. every `/dev/shm/vaced-<job>*`; through vaced's MPICH, also
//! MPICH's own files its ranks left (see [`remove_unheld_mpich_files`]).

use crate::transport::Segment;
use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Where POSIX shared-memory objects live on Linux.
pub const SHM_DIR: &str = "/dev/shm";

/// Remove every entry of `dir` whose name starts with `prefix`; returns how
/// many were removed.
pub fn remove_prefixed(dir: &Path, prefix: &str) -> io::Result<usize> {
    let mut n = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry
            .file_name()
            .as_encoded_bytes()
            .starts_with(prefix.as_bytes())
        {
            match std::fs::remove_file(entry.path()) {
                Ok(()) => n += 1,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(n)
}

/// Unlink the job's segment `segment` (`/vaced-<job>`) and every other shm file
/// of the job (`prefix` = `vaced-<job>`). Errors are printed, not fatal: the
/// job is over either way.
pub fn remove_job_files(cmd: &str, segment: &str, prefix: &str) {
    if let Err(e) = Segment::unlink(segment) {
        if e.kind() != io::ErrorKind::NotFound {
            eprintln!("{cmd}: warning: cannot remove the segment {segment}: {e}");
        }
    }
    if let Err(e) = remove_prefixed(Path::new(SHM_DIR), prefix) {
        eprintln!("{cmd}: warning: cannot remove {SHM_DIR}/{prefix}*: {e}");
    }
}

/// MPICH's shared-memory files (`MPL_shm`: the segment nemesis shares
/// among the processes of a node), `/dev/shm/mpich_shar_tmpXXXXXX`.
/// MPICH unlinks one once every process of the node has mapped it; a rank
/// that dies inside MPI_Init before then leaves it behind.
pub const MPICH_SHM_PREFIX: &str = "mpich_shar_tmp";

/// Remove MPICH's shared-memory files in [`SHM_DIR`] made since `since`
/// (the job's start) that no process holds, open or mapped: those a job's
/// ranks left by dying inside MPI_Init. A file some process holds (another
/// job still starting: its maker holds it until it unlinks it) stays.
/// Returns how many were removed.
pub fn remove_unheld_mpich_files(since: SystemTime) -> usize {
    remove_unheld_mpich_files_in(Path::new(SHM_DIR), since)
}

/// [`remove_unheld_mpich_files`] in directory `dir`.
pub fn remove_unheld_mpich_files_in(dir: &Path, since: SystemTime) -> usize {
    unheld_mpich_files(dir, since)
        .iter()
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count()
}

/// MPICH's shared-memory files in `dir` made since `since` that no process
/// holds (see [`remove_unheld_mpich_files`]).
pub fn unheld_mpich_files(dir: &Path, since: SystemTime) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let made_since = |e: &std::fs::DirEntry| {
        e.metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= since)
    };
    let found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .as_encoded_bytes()
                .starts_with(MPICH_SHM_PREFIX.as_bytes())
                && made_since(e)
        })
        .map(|e| e.path())
        .collect();
    if found.is_empty() {
        return found;
    }
    let held = held_among(&found);
    found.into_iter().filter(|p| !held.contains(p)).collect()
}

/// Which of `paths` some process has open (`/proc/PID/fd`) or mapped
/// (`/proc/PID/maps`).
fn held_among(paths: &[PathBuf]) -> HashSet<PathBuf> {
    let wanted: HashSet<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let mut held = HashSet::new();
    for pid in crate::transport::process::pids() {
        let dir = PathBuf::from(format!("/proc/{pid}"));
        if let Ok(fds) = std::fs::read_dir(dir.join("fd")) {
            for fd in fds.flatten() {
                if let Ok(t) = std::fs::read_link(fd.path()) {
                    if wanted.contains(t.as_path()) {
                        held.insert(t);
                    }
                }
            }
        }
        if let Ok(maps) = std::fs::read_to_string(dir.join("maps")) {
            for line in maps.lines() {
                // the path, the last field, starts at the line's first '/'
                // (the fields before it hold none)
                if let Some(i) = line.find('/') {
                    let path = Path::new(&line[i..]);
                    if wanted.contains(path) {
                        held.insert(path.to_path_buf());
                    }
                }
            }
        }
    }
    held
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unheld_recent_mpich_files_are_removed() {
        let d = std::env::temp_dir().join(format!("vaced-mpich-shm-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let old = d.join("mpich_shar_tmpOLD");
        std::fs::write(&old, "x").unwrap();
        let old_time = SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(old_time)
            .unwrap();
        let since = SystemTime::now() - std::time::Duration::from_secs(60);
        for f in ["mpich_shar_tmpLEFT", "mpich_shar_tmpHELD", "other"] {
            std::fs::write(d.join(f), "x").unwrap();
        }
        let holder = std::fs::File::open(d.join("mpich_shar_tmpHELD")).unwrap();
        assert_eq!(remove_unheld_mpich_files_in(&d, since), 1);
        let mut left: Vec<String> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["mpich_shar_tmpHELD", "mpich_shar_tmpOLD", "other"]);
        drop(holder);
        assert_eq!(remove_unheld_mpich_files_in(&d, since), 1);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn removes_only_the_jobs_files() {
        let d = std::env::temp_dir().join(format!("vaced-cleanup-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        for f in [
            "vaced-1-00000000000000aa",
            "vaced-1-00000000000000aa-spill-3",
            "vaced-1-00000000000000bb",
            "other",
        ] {
            std::fs::write(d.join(f), "x").unwrap();
        }
        assert_eq!(remove_prefixed(&d, "vaced-1-00000000000000aa").unwrap(), 2);
        let mut left: Vec<String> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["other", "vaced-1-00000000000000bb"]);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
