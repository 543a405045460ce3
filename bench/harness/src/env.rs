//! Where things are: the repository, vaced's release build and its
//! `vaced env` wrappers, the system MPICH and SimGrid tools, the host.
use crate::kernels::{Compilers, Runner};
use crate::proc::run_tool;
use crate::target::Target;
use std::path::{Path, PathBuf};

pub struct Env {
    pub repo: PathBuf,
    /// target/release/vaced
    pub vaced: PathBuf,
    /// the directory of vaced's mpicc / mpif90 / mpirun (from `vaced env`)
    pub vaced_bin: PathBuf,
    pub host_cores: u32,
}

/// The directory of an `export PATH="<dir>:$PATH"` line.
pub fn path_of_export(line: &str) -> Option<PathBuf> {
    let rest = line.trim().strip_prefix("export PATH=\"")?;
    let dir = rest.strip_suffix(":$PATH\"")?;
    let mut out = String::new();
    let mut esc = false;
    for c in dir.chars() {
        if !esc && c == '\\' {
            esc = true;
            continue;
        }
        esc = false;
        out.push(c);
    }
    Some(PathBuf::from(out))
}

/// Finds `name` on PATH.
/// `--target` as vaced is given it: a target file by its absolute path
/// (runs start in their log directory), a preset name as it is.
pub fn target_arg(spec: &str) -> Result<String, String> {
    if std::path::Path::new(spec).is_file() {
        Ok(std::fs::canonicalize(spec)
            .map_err(|e| format!("{spec}: {e}"))?
            .display()
            .to_string())
    } else {
        Ok(spec.to_string())
    }
}

pub fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|f| f.is_file())
    })
}

impl Env {
    pub fn discover() -> Result<Env, String> {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .canonicalize()
            .map_err(|e| format!("cannot find the repository root: {e}"))?;
        let vaced = repo.join("target/release/vaced");
        if !vaced.is_file() {
            return Err(format!(
                "{} is missing: run `cargo build --release` first (bench-npb/run and bench/scale do)",
                vaced.display()
            ));
        }
        let out = run_tool(&vaced, &["env"], &repo, &[])?;
        let vaced_bin = path_of_export(&out)
            .ok_or_else(|| format!("unexpected output of `vaced env`: {out}"))?;
        let host_cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        Ok(Env {
            repo,
            vaced,
            vaced_bin,
            host_cores,
        })
    }

    pub fn npb_dir(&self) -> PathBuf {
        self.repo.join("bench-npb")
    }

    /// A runner's compiler wrappers, or why it is not available.
    pub fn compilers(&self, r: Runner) -> Result<Compilers, String> {
        let (cc, fc) = match r {
            Runner::Vaced => {
                // MPICH's wrappers' code generation flags, so that both
                // sides of an RE are compiled alike (none without MPICH).
                let show = |w: &str| {
                    which(w)
                        .and_then(|p| std::process::Command::new(p).arg("-show").output().ok())
                        .map(|o| crate::kernels::codegen_flags(&String::from_utf8_lossy(&o.stdout)))
                        .unwrap_or_default()
                };
                return Ok(Compilers {
                    mpicc: self.vaced_bin.join("mpicc"),
                    mpif90: self.vaced_bin.join("mpif90"),
                    cflags: show("mpicc.mpich"),
                    fflags: show("mpif90.mpich"),
                });
            }
            Runner::Mpich => ("mpicc.mpich", "mpif90.mpich"),
            Runner::Smpi => ("smpicc", "smpif90"),
        };
        let find = |n: &str| {
            which(n).ok_or_else(|| format!("{n} is not on PATH ({} runs skipped)", r.name()))
        };
        Ok(Compilers {
            mpicc: find(cc)?,
            mpif90: find(fc)?,
            cflags: Vec::new(),
            fflags: Vec::new(),
        })
    }

    /// The launcher of a runner.
    pub fn launcher(&self, r: Runner) -> Result<PathBuf, String> {
        match r {
            Runner::Vaced => Ok(self.vaced_bin.join("mpirun")),
            Runner::Mpich => {
                which("mpirun.mpich").ok_or_else(|| "mpirun.mpich is not on PATH".into())
            }
            Runner::Smpi => which("smpirun").ok_or_else(|| "smpirun is not on PATH".into()),
        }
    }

    /// `vaced target show NAME|FILE`, read back.
    pub fn target(&self, name: &str) -> Result<Target, String> {
        let text = run_tool(&self.vaced, &["target", "show", name], &self.repo, &[])?;
        Target::from_show(&text).map_err(|e| format!("{name}: {e}"))
    }

    /// The load average when the table was made: on a shared host other
    /// processes take cores from real runs and inflate walls.
    pub fn load_note() -> String {
        let l = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        let f: Vec<&str> = l.split_whitespace().take(3).collect();
        format!(
            "host load average (1, 5, 15 min) at the end: {}; a load above the host's cores slows real \
             (MPICH) runs and host walls, not vaced's predictions of computation (CPU time)",
            f.join(", ")
        )
    }

    /// The host's CPU model, for the notes.
    pub fn cpu_model() -> String {
        std::fs::read_to_string("/proc/cpuinfo")
            .unwrap_or_default()
            .lines()
            .find_map(|l| {
                l.strip_prefix("model name")
                    .and_then(|r| r.split_once(':'))
                    .map(|(_, m)| m.trim().to_string())
            })
            .unwrap_or_else(|| "unknown CPU".into())
    }
}

/// UTC "YYYYmmdd-HHMMSS" of a Unix time (for result file names).
pub fn stamp(unix: u64) -> String {
    let (days, secs) = (unix / 86400, unix % 86400);
    // Howard Hinnant's civil_from_days.
    let z = days as i64 + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

pub fn now_stamp() -> String {
    stamp(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_env_line() {
        assert_eq!(
            path_of_export("export PATH=\"/w/target/release/vaced-bin:$PATH\"\n"),
            Some(PathBuf::from("/w/target/release/vaced-bin"))
        );
        assert_eq!(
            path_of_export("export PATH=\"/a \\\"b\\\"/bin:$PATH\""),
            Some(PathBuf::from("/a \"b\"/bin"))
        );
        assert_eq!(path_of_export("PATH=/x"), None);
    }

    #[test]
    fn stamps() {
        assert_eq!(stamp(0), "19700101-000000");
        assert_eq!(stamp(951782400 + 3723), "20000229-010203");
        assert_eq!(stamp(1_700_000_000), "20231114-221320");
    }
}
