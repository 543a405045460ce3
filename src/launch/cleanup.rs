//! Removing what a job leaves in shared memory: its segment and every spill
//! file, i.e. every `/dev/shm/vaced-<job>*`.

use crate::transport::Segment;
use std::io;
use std::path::Path;

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

#[cfg(test)]
mod tests {
    use super::*;

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
