//! A job's identity and the environment each rank is started with: job id,
//! segment name, target spec, CMA decision.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::path::Path;

/// Environment variables the launcher gives every rank.
pub const ENV_SEGMENT: &str = "VACED_SEGMENT";
pub const ENV_JOB: &str = "VACED_JOB";
pub const ENV_RANK: &str = "VACED_RANK";
pub const ENV_SIZE: &str = "VACED_SIZE";
pub const ENV_TARGET: &str = "VACED_TARGET";
pub const ENV_CMA: &str = "VACED_CMA";

/// Given to each host process of the many-ranks mode (`--ranks-per-process`)
/// instead of `VACED_RANK`: `<first>,<count>`, the block of ranks it runs.
pub const ENV_HOSTED: &str = crate::ranks::host::ENV_HOSTED;
/// Given to each host process: the argv[0] its ranks get (the program as
/// written on mpirun's command line).
pub const ENV_HOST_ARGV0: &str = crate::ranks::host::ENV_HOST_ARGV0;

/// The default target when neither `--target` nor `$VACED_TARGET` names one.
pub const DEFAULT_TARGET: &str = "tianhe1a";

/// Bytes of each rank's inbox ring.
pub const INBOX_BYTES: u32 = 256 * 1024;

/// Entries each rank owns in the flow registry when the target models
/// contention: the transfers between nodes it may have in flight at once
/// (an entry is touched only once used; 64 bytes each).
pub const FLOW_SLOTS: u32 = 1024;

/// What identifies a job and what every rank is told about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSpec {
    /// `<launcher pid>-<16 hex digits>`.
    pub id: String,
    pub nranks: u32,
    /// Target spec handed to the ranks: a preset name or an absolute file path.
    pub target: String,
    pub cma: bool,
}

impl JobSpec {
    /// The segment's shm name, `/vaced-<job>`.
    pub fn segment_name(&self) -> String {
        format!("/vaced-{}", self.id)
    }

    /// Prefix of every file the job may leave in /dev/shm (segment, spill files).
    pub fn shm_prefix(&self) -> String {
        format!("vaced-{}", self.id)
    }

    /// The variables rank `rank` is started with.
    pub fn rank_env(&self, rank: u32) -> [(&'static str, String); 6] {
        [
            (ENV_SEGMENT, self.segment_name()),
            (ENV_JOB, self.id.clone()),
            (ENV_RANK, rank.to_string()),
            (ENV_SIZE, self.nranks.to_string()),
            (ENV_TARGET, self.target.clone()),
            (ENV_CMA, if self.cma { "1" } else { "0" }.to_string()),
        ]
    }
}

/// A fresh job id: our pid and 64 random bits (so a reused pid never collides
/// with a job whose files were left behind).
pub fn new_job_id() -> String {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    format!("{}-{:016x}", std::process::id(), h.finish())
}

/// The target spec the ranks get: `--target`, else `$VACED_TARGET`, else the
/// default; a spec naming an existing file becomes its absolute path.
pub fn resolve_target(cli: Option<&str>, env: Option<&str>) -> String {
    let spec = cli
        .or(env.filter(|s| !s.is_empty()))
        .unwrap_or(DEFAULT_TARGET);
    let p = Path::new(spec);
    if p.is_file() {
        if let Ok(abs) = p.canonicalize() {
            return abs.to_string_lossy().into_owned();
        }
    }
    spec.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let a = new_job_id();
        let b = new_job_id();
        assert_ne!(a, b);
        let (pid, rnd) = a.split_once('-').unwrap();
        assert_eq!(pid, std::process::id().to_string());
        assert_eq!(rnd.len(), 16);
        assert!(rnd.chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn rank_environment() {
        let j = JobSpec {
            id: "12-00000000000000ab".into(),
            nranks: 4,
            target: "tianhe1a".into(),
            cma: false,
        };
        assert_eq!(j.segment_name(), "/vaced-12-00000000000000ab");
        assert_eq!(j.shm_prefix(), "vaced-12-00000000000000ab");
        let env = j.rank_env(3);
        let want = [
            ("VACED_SEGMENT", "/vaced-12-00000000000000ab"),
            ("VACED_JOB", "12-00000000000000ab"),
            ("VACED_RANK", "3"),
            ("VACED_SIZE", "4"),
            ("VACED_TARGET", "tianhe1a"),
            ("VACED_CMA", "0"),
        ];
        for (got, want) in env.iter().zip(want) {
            assert_eq!((got.0, got.1.as_str()), want);
        }
        // what the host processes read (`--ranks-per-process`)
        assert_eq!(
            (ENV_HOSTED, ENV_HOST_ARGV0),
            ("VACED_HOSTED", "VACED_HOST_ARGV0")
        );
    }

    #[test]
    fn target_precedence_and_files() {
        assert_eq!(resolve_target(None, None), "tianhe1a");
        assert_eq!(resolve_target(None, Some("")), "tianhe1a");
        assert_eq!(resolve_target(None, Some("other")), "other");
        assert_eq!(resolve_target(Some("cli"), Some("other")), "cli");
        // A missing file stays as given (the loader reports it).
        assert_eq!(resolve_target(Some("./none.toml"), None), "./none.toml");

        let dir = std::env::temp_dir().join(format!("vaced-job-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.toml");
        std::fs::write(&f, "name = \"x\"\n").unwrap();
        let abs = f.canonicalize().unwrap();
        let rel = format!("{}/./t.toml", dir.display());
        assert_eq!(resolve_target(Some(&rel), None), abs.to_string_lossy());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
