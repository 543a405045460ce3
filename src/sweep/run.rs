//! Running a sweep's configurations: for now one `vaced run` per
//! configuration (a child process: the launcher must own its process), each
//! with the configuration's target file and `--report`, then the figures
//! read back from that report. A single execution predicting every
//! configuration at once is planned (issue 13); this is its stand-in.
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

/// The predictions of one configuration's run, from its report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub predicted_ps: u64,
    pub slowest_rank: u64,
    /// Each rank's final virtual time (ps).
    pub ranks_ps: Vec<u64>,
}

impl Job {
    /// The arguments of `vaced run` for target file `target` and report
    /// `report`.
    pub fn argv(&self, target: &Path, report: &Path) -> Vec<OsString> {
        let mut v: Vec<OsString> = vec!["run".into(), "-n".into(), self.nranks.to_string().into()];
        v.extend(["--target".into(), target.as_os_str().to_owned()]);
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
    pub fn run(&self, exe: &Path, target: &Path, report: &Path) -> Result<i32, String> {
        let status = Command::new(exe)
            .args(self.argv(target, report))
            .status()
            .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
        use std::os::unix::process::ExitStatusExt;
        Ok(status
            .code()
            .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
    }
}

/// Reads the figures of a `--report` JSON file.
pub fn read_report(path: &Path) -> Result<Outcome, String> {
    let bad = |what: &str| format!("{}: {what}", path.display());
    let text = std::fs::read_to_string(path).map_err(|e| bad(&format!("cannot read: {e}")))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(&format!("not JSON: {e}")))?;
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
        predicted_ps: field(&v, "predicted_ps")?,
        slowest_rank: field(&v, "slowest_rank")?,
        ranks_ps: ranks,
    })
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
            .argv(Path::new("d/c.toml"), Path::new("d/c.json"))
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
                ranks_ps: vec![20, 30]
            }
        );
        std::fs::write(&p, r#"{"predicted_ps": 30, "ranks": []}"#).unwrap();
        assert!(read_report(&p).unwrap_err().contains("`slowest_rank`"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
