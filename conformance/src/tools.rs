//! vaced's wrappers: `<vaced> env` creates the links (mpicc, mpif77, mpif90,
//! mpirun, ...) and names their directory.

use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, Clone)]
pub struct Tools {
    pub mpicc: PathBuf,
    pub mpif77: PathBuf,
    pub mpif90: PathBuf,
    pub mpirun: PathBuf,
}

impl Tools {
    /// The wrappers of the `vaced` executable `vaced` (from `vaced env`).
    pub fn from_vaced(vaced: &Path) -> Result<Tools, String> {
        let o = Command::new(vaced)
            .arg("env")
            .output()
            .map_err(|e| format!("{}: {e}", vaced.display()))?;
        if !o.status.success() {
            return Err(format!(
                "`{} env` failed: {}",
                vaced.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
        // export PATH="<dir>:$PATH"
        let out = String::from_utf8_lossy(&o.stdout);
        let dir = out
            .split_once("PATH=\"")
            .and_then(|(_, r)| r.split_once(':'))
            .map(|(d, _)| PathBuf::from(d))
            .ok_or_else(|| format!("unexpected `vaced env` output: {}", out.trim()))?;
        let t = Tools {
            mpicc: dir.join("mpicc"),
            mpif77: dir.join("mpif77"),
            mpif90: dir.join("mpif90"),
            mpirun: dir.join("mpirun"),
        };
        if !t.mpirun.exists() {
            return Err(format!("{} does not exist", t.mpirun.display()));
        }
        Ok(t)
    }
}
