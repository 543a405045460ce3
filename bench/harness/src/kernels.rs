//! The bench-npb kernels: which exist, which rank counts NPB allows each, and
//! how to build one for a runner (vaced, the system MPICH, SMPI).
use crate::proc::run_tool;
use std::path::{Path, PathBuf};

/// The eight NPB 3.3 kernels and applications, in NPB's order.
pub const ALL: [&str; 8] = ["ep", "is", "cg", "mg", "ft", "lu", "sp", "bt"];

/// Who runs a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Runner {
    Vaced,
    Mpich,
    Smpi,
}

impl Runner {
    pub fn name(self) -> &'static str {
        match self {
            Runner::Vaced => "vaced",
            Runner::Mpich => "mpich",
            Runner::Smpi => "smpi",
        }
    }
    /// bench-npb/<bin dir> the runner's binaries go to.
    pub fn bin_dir(self) -> &'static str {
        match self {
            Runner::Vaced => "bin-vaced",
            Runner::Mpich => "bin-mpich",
            Runner::Smpi => "bin-smpi",
        }
    }
}

/// The C and Fortran compiler wrappers of a runner.
pub struct Compilers {
    pub mpicc: PathBuf,
    pub mpif90: PathBuf,
}

/// Why NPB does not run `kernel` at `ranks` ranks in class `class`, if it
/// does not (NPB 3.3-MPI: CG, FT, IS, MG, LU need powers of two, SP and BT
/// squares, EP any count; IS class S at most 128).
pub fn forbidden(kernel: &str, class: &str, ranks: u32) -> Option<String> {
    if ranks == 0 {
        return Some("needs at least one rank".into());
    }
    match kernel {
        "cg" | "ft" | "is" | "mg" | "lu" if !ranks.is_power_of_two() => Some(format!(
            "{} needs a power of two ranks",
            kernel.to_uppercase()
        )),
        "sp" | "bt" if (ranks as f64).sqrt().round().powi(2) as u32 != ranks => Some(format!(
            "{} needs a square number of ranks",
            kernel.to_uppercase()
        )),
        "is" if class == "S" && ranks > 128 => Some("IS class S runs on at most 128 ranks".into()),
        _ => None,
    }
}

/// bench-npb/<kernel>/ exists (kernels are being added by others).
pub fn present(npb: &Path, kernel: &str) -> bool {
    npb.join(kernel).is_dir()
}

/// Builds `kernel` for a runner with `make`, into bench-npb/<bin dir>/<kernel>;
/// returns the binary. A kernel with its own Makefile (bench-npb/cg/Makefile)
/// is built with it (MPIF90, MPICC, BIN); the C kernels with bench-npb/Makefile.
pub fn build(npb: &Path, kernel: &str, runner: Runner, cc: &Compilers) -> Result<PathBuf, String> {
    let bin = npb.join(runner.bin_dir());
    let exe = bin.join(kernel);
    let own = npb.join(kernel).join("Makefile");
    let dir = if own.is_file() {
        npb.join(kernel)
    } else {
        npb.to_path_buf()
    };
    let vars = [
        format!("MPICC={}", cc.mpicc.display()),
        format!("MPIF90={}", cc.mpif90.display()),
        format!("BIN={}", bin.display()),
    ];
    let target = exe.display().to_string();
    let mut args: Vec<&str> = vars.iter().map(String::as_str).collect();
    args.push(&target);
    run_tool(Path::new("make"), &args, &dir, &[])
        .map_err(|e| format!("building {kernel} for {}: {e}", runner.name()))?;
    if !exe.is_file() {
        return Err(format!(
            "building {kernel} for {}: make succeeded but {} is missing",
            runner.name(),
            exe.display()
        ));
    }
    Ok(exe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npb_rank_rules() {
        assert_eq!(forbidden("ep", "A", 3), None);
        assert_eq!(forbidden("cg", "S", 16), None);
        assert_eq!(
            forbidden("cg", "S", 12).as_deref(),
            Some("CG needs a power of two ranks")
        );
        assert_eq!(forbidden("bt", "A", 16), None);
        assert_eq!(
            forbidden("sp", "A", 8).as_deref(),
            Some("SP needs a square number of ranks")
        );
        assert_eq!(
            forbidden("is", "S", 256).as_deref(),
            Some("IS class S runs on at most 128 ranks")
        );
        assert_eq!(forbidden("is", "A", 256), None);
        assert_eq!(
            forbidden("ep", "S", 0).as_deref(),
            Some("needs at least one rank")
        );
    }
}
