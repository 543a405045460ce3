//! Running a sweep's configurations: one `vaced run` (a child process: the
//! launcher must own its process) with every configuration's target file,
//! which runs the program once and replays it under the others (a what-if
//! run, see `crate::replay`); or, with `--separate`, one `vaced run` per
//! configuration. The figures are read back from the `--report` JSON.
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

/// What `vaced run` is asked besides the target and the report.
#[derive(Debug, Clone)]
pub struct Job {
    pub nranks: u32,
    pub cores: Option<u32>,
    pub sync: String,
    pub quiet: bool,
    pub program: OsString,
    pub args: Vec<OsString>,
}

/// The predictions of one configuration, from its report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub predicted_ps: u64,
    pub slowest_rank: u64,
    /// Each rank's final virtual time (ps).
    pub ranks_ps: Vec<u64>,
    /// Replayed with timing-dependent outcomes that came out differently:
    /// how many (0: exact).
    pub differing: u64,
}

impl Job {
    /// The arguments of `vaced run` for the target files `targets` (several:
    /// a what-if run) and report `report`.
    pub fn argv_all(&self, targets: &[&Path], report: &Path) -> Vec<OsString> {
        let mut v: Vec<OsString> = vec!["run".into(), "-n".into(), self.nranks.to_string().into()];
        for t in targets {
            v.extend(["--target".into(), t.as_os_str().to_owned()]);
        }
        v.extend(["--report".into(), report.as_os_str().to_owned()]);
        if let Some(c) = self.cores {
            v.extend(["--cores".into(), c.to_string().into()]);
        }
        v.extend(["--sync".into(), self.sync.clone().into()]);
        if self.quiet {
            v.push("--quiet".into());
        }
        v.push("--".into());
        v.push(self.program.clone());
        v.extend(self.args.iter().cloned());
        v
    }

    /// Runs the program on `target`, its output passed through; the
    /// launcher's exit status.
    pub fn run(&self, exe: &Path, targets: &[&Path], report: &Path) -> Result<i32, String> {
        let status = Command::new(exe)
            .args(self.argv_all(targets, report))
            .status()
            .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
        Ok(crate::transport::process::shell_status(&status))
    }
}

/// Reads a `--report` JSON file.
pub fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))
}

/// Reads the figures of a `--report` JSON file.
pub fn read_report(path: &Path) -> Result<Outcome, String> {
    outcome(&read_json(path)?, 0, &path.display().to_string())
}

/// The figures of report `v` (from `whence`), replayed with `differing`
/// outcomes that came out differently.
pub fn outcome(v: &serde_json::Value, differing: u64, whence: &str) -> Result<Outcome, String> {
    let bad = |what: &str| format!("{whence}: {what}");
    let field = |v: &serde_json::Value, k: &str| {
        v[k].as_u64()
            .ok_or_else(|| bad(&format!("no whole number `{k}`")))
    };
    let ranks = v["ranks"]
        .as_array()
        .ok_or_else(|| bad("no `ranks` list"))?
        .iter()
        .map(|r| field(r, "vtime_ps"))
        .collect::<Result<Vec<u64>, String>>()?;
    Ok(Outcome {
        predicted_ps: field(v, "predicted_ps")?,
        slowest_rank: field(v, "slowest_rank")?,
        ranks_ps: ranks,
        differing,
    })
}

/// Each configuration of a what-if run's report: its figures and its own
/// report; a configuration whose replay failed is an error naming it.
pub fn read_configurations(path: &Path) -> Result<Vec<(Outcome, serde_json::Value)>, String> {
    let v = read_json(path)?;
    let cs = v["configurations"]
        .as_array()
        .ok_or_else(|| format!("{}: no `configurations` list", path.display()))?;
    cs.iter()
        .enumerate()
        .map(|(i, c)| {
            let whence = format!("{}: configuration {i}", path.display());
            if let Some(f) = c["failure"].as_str() {
                return Err(format!("{whence}: its replay failed: {f}"));
            }
            let differing = c["differing_outcomes"].as_u64().unwrap_or(0);
            Ok((
                outcome(&c["report"], differing, &whence)?,
                c["report"].clone(),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_command_line() {
        let j = Job {
            nranks: 4,
            cores: Some(2),
            sync: "exact".into(),
            quiet: true,
            program: "./a".into(),
            args: vec!["--x".into(), "1".into()],
        };
        let v: Vec<String> = j
            .argv_all(&[Path::new("d/c.toml")], Path::new("d/c.json"))
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            v,
            [
                "run", "-n", "4", "--target", "d/c.toml", "--report", "d/c.json", "--cores", "2",
                "--sync", "exact", "--quiet", "--", "./a", "--x", "1"
            ]
        );
    }

    #[test]
    fn reports_are_read_back() {
        let dir = std::env::temp_dir().join(format!("vaced-sweep-run-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("r.json");
        std::fs::write(
            &p,
            r#"{"predicted_ps": 30, "slowest_rank": 1,
                "ranks": [{"vtime_ps": 20}, {"vtime_ps": 30}]}"#,
        )
        .unwrap();
        assert_eq!(
            read_report(&p).unwrap(),
            Outcome {
                predicted_ps: 30,
                slowest_rank: 1,
                ranks_ps: vec![20, 30],
                differing: 0,
            }
        );
        std::fs::write(&p, r#"{"predicted_ps": 30, "ranks": []}"#).unwrap();
        assert!(read_report(&p).unwrap_err().contains("`slowest_rank`"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
