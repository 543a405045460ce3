//! The bench-npb kernels: which exist, which rank counts NPB allows each, and
//! how to build one for a runner (vaced, the system MPICH, SMPI).
use crate::env::Env;
use crate::proc::run_tool;
use std::collections::HashMap;
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

/// The C and Fortran compiler wrappers of a runner, and the code
/// generation flags to add to the Makefiles' own (`-O2`) so that every
/// runner's binaries are compiled alike.
pub struct Compilers {
    pub mpicc: PathBuf,
    pub mpif90: PathBuf,
    pub cflags: Vec<String>,
    pub fflags: Vec<String>,
}

/// The code generation flags (`-O...`, `-f...`) a wrapper adds, from its
/// `-show` line: Debian's `mpif90.mpich` adds `-O2 -fstack-protector-strong`
/// and more, which change how fast the same kernel runs (BT W: 5 % slower
/// with them), so vaced's builds get them too.
pub fn codegen_flags(show: &str) -> Vec<String> {
    show.split_whitespace()
        .skip(1)
        .filter(|t| {
            t.starts_with("-O") || (t.starts_with("-f") && !t.starts_with("-ffile-prefix-map"))
        })
        .map(str::to_string)
        .collect()
}

/// Grid points per side of LU, SP and BT in a class (NPB's problem_size).
fn grid_points(kernel: &str, class: &str) -> Option<u32> {
    let sizes: [u32; 5] = match kernel {
        "lu" => [12, 33, 64, 102, 162],
        "sp" => [12, 36, 64, 102, 162],
        "bt" => [12, 24, 64, 102, 162],
        _ => return None,
    };
    let i = ["S", "W", "A", "B", "C"].iter().position(|c| *c == class)?;
    Some(sizes[i])
}

/// LU's process grid leaves every rank at least 3 points in i and j at
/// `ranks` (a power of two): xdim = 2^(e/2), doubled when e is odd, ydim =
/// ranks / xdim (lu.f90's check_ranks, as NPB's subdomain check).
fn lu_fits(n: u32, ranks: u32) -> bool {
    let e = ranks.trailing_zeros();
    let xd = (1u32 << (e / 2)) * if e % 2 == 1 { 2 } else { 1 };
    let yd = ranks / xd;
    n / xd >= 3 && n / yd >= 3
}

/// Why NPB does not run `kernel` at `ranks` ranks in class `class`, if it
/// does not; the same rules as the kernels' own checks. EP: any count up to
/// its 2^(M-16) batches; CG, FT, IS, MG, LU: powers of two (FT, IS, MG, LU at
/// most 1024; IS class S at most 128; LU leaving 3 points per rank in i and
/// j); SP and BT: squares q x q with cells of at least 3 points, q <= 32.
/// An unknown class is left to the kernel to refuse.
pub fn forbidden(kernel: &str, class: &str, ranks: u32) -> Option<String> {
    let name = kernel.to_uppercase();
    if ranks == 0 {
        return Some("needs at least one rank".into());
    }
    match kernel {
        "cg" | "ft" | "is" | "mg" | "lu" if !ranks.is_power_of_two() => {
            return Some(format!("{name} needs a power of two ranks"))
        }
        "sp" | "bt" if (ranks as f64).sqrt().round().powi(2) as u32 != ranks => {
            return Some(format!("{name} needs a square number of ranks"))
        }
        _ => {}
    }
    let most = match kernel {
        "ep" => {
            let m = ["S", "W", "A", "B", "C", "D", "E"]
                .iter()
                .position(|c| *c == class)
                .map(|i| [24u32, 25, 28, 30, 32, 36, 40][i])?;
            let batches = 1u64 << (m - 16);
            return (u64::from(ranks) > batches).then(|| {
                format!("EP class {class} runs on at most {batches} ranks (one batch of 2^16 pairs each)")
            });
        }
        "is" if class == "S" => 128,
        "ft" | "is" | "mg" => 1024,
        "lu" => {
            let n = grid_points(kernel, class)?;
            let most = (0..=10)
                .map(|e| 1u32 << e)
                .filter(|&p| lu_fits(n, p))
                .max()
                .unwrap_or(0);
            return (ranks > most).then(|| {
                format!(
                    "LU class {class} runs on at most {most} ranks (3 points per rank in i and j)"
                )
            });
        }
        "sp" | "bt" => {
            let q = (grid_points(kernel, class)? / 3).min(32);
            q * q
        }
        _ => return None,
    };
    (ranks > most).then(|| {
        if kernel == "sp" || kernel == "bt" {
            format!(
                "{name} class {class} runs on at most {most} ranks (cells of at least 3 points)"
            )
        } else {
            format!("{name} class {class} runs on at most {most} ranks")
        }
    })
}

/// bench-npb/<kernel>/ exists (kernels are being added by others).
pub fn present(npb: &Path, kernel: &str) -> bool {
    npb.join(kernel).is_dir()
}

/// The `make` arguments that build `kernel` into `bin`: bench-npb/Makefile's
/// own target `<bin>/<kernel>` (it builds EP and IS itself and hands the
/// Fortran kernels to their `<kernel>/Makefile` with BIN and MPIF90), as a
/// user's `make BIN=... MPICC=... MPIF90=...` does.
pub fn make_args(npb: &Path, kernel: &str, bin: &Path, cc: &Compilers) -> Vec<String> {
    let mut v = vec![
        "-C".into(),
        npb.display().to_string(),
        format!("MPICC={}", cc.mpicc.display()),
        format!("MPIF90={}", cc.mpif90.display()),
        format!("BIN={}", bin.display()),
    ];
    // command-line variables reach the Fortran kernels' own Makefiles too
    if !cc.cflags.is_empty() {
        v.push(format!("CFLAGS=-O2 {}", cc.cflags.join(" ")));
    }
    if !cc.fflags.is_empty() {
        v.push(format!("FFLAGS=-O2 {}", cc.fflags.join(" ")));
    }
    v.push(bin.join(kernel).display().to_string());
    v
}

/// Builds `kernel` for a runner with bench-npb/Makefile (see [`make_args`]),
/// into bench-npb/<bin dir>/<kernel>; returns the binary.
pub fn build(npb: &Path, kernel: &str, runner: Runner, cc: &Compilers) -> Result<PathBuf, String> {
    let bin = npb.join(runner.bin_dir());
    let exe = bin.join(kernel);
    let mut args = make_args(npb, kernel, &bin, cc);
    // The Makefiles track sources, not flags: rebuild when they change.
    let stamp = bin.join(format!(".flags-{kernel}"));
    let flags = format!("{:?} {:?}\n", cc.cflags, cc.fflags);
    let stale = std::fs::read_to_string(&stamp).ok().as_deref() != Some(flags.as_str());
    if stale {
        args.insert(0, "-B".into());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_tool(Path::new("make"), &args, npb, &[])
        .map_err(|e| format!("building {kernel} for {}: {e}", runner.name()))?;
    if stale {
        std::fs::write(&stamp, flags).map_err(|e| format!("{}: {e}", stamp.display()))?;
    }
    if !exe.is_file() {
        return Err(format!(
            "building {kernel} for {}: make succeeded but {} is missing",
            runner.name(),
            exe.display()
        ));
    }
    Ok(exe)
}

/// The binaries of a set of kernels by (kernel, runner), each a build's
/// result, and the kernels present, in order.
pub type Builds = (
    HashMap<(String, Runner), Result<PathBuf, String>>,
    Vec<String>,
);

/// Builds each of `kernels` for each of `runners` (an unknown kernel is an
/// error; one absent from bench-npb/, and every failed build, is noted in
/// `notes` and on stderr).
pub fn build_all(
    env: &Env,
    kernels: &[String],
    runners: &[Runner],
    notes: &mut Vec<String>,
) -> Result<Builds, String> {
    let npb_dir = env.npb_dir();
    // once per runner: the vaced side asks MPICH's wrappers for their flags
    let compilers: Vec<Result<Compilers, String>> =
        runners.iter().map(|&r| env.compilers(r)).collect();
    let mut exes = HashMap::new();
    let mut present = Vec::new();
    for k in kernels {
        let k = k.to_lowercase();
        if !ALL.contains(&k.as_str()) {
            return Err(format!("unknown kernel `{k}` (known: {})", ALL.join(", ")));
        }
        if !self::present(&npb_dir, &k) {
            let n = format!("{k}: not present (bench-npb/{k}/ does not exist yet), skipped");
            eprintln!("vaced-bench: {n}");
            notes.push(n);
            continue;
        }
        for (&r, cc) in runners.iter().zip(&compilers) {
            eprintln!("vaced-bench: building {k} for {}", r.name());
            let exe = cc
                .as_ref()
                .map_err(String::clone)
                .and_then(|cc| build(&npb_dir, &k, r, cc));
            if let Err(e) = &exe {
                eprintln!("vaced-bench: {e}");
                notes.push(e.lines().next().unwrap_or_default().to_string());
            }
            exes.insert((k.clone(), r), exe);
        }
        present.push(k);
    }
    Ok((exes, present))
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
            forbidden("is", "A", 2048).as_deref(),
            Some("IS class A runs on at most 1024 ranks")
        );
        assert_eq!(
            forbidden("mg", "C", 2048).as_deref(),
            Some("MG class C runs on at most 1024 ranks")
        );
        assert_eq!(
            forbidden("ep", "S", 0).as_deref(),
            Some("needs at least one rank")
        );
    }

    #[test]
    fn ep_batches_bound_the_ranks() {
        assert_eq!(forbidden("ep", "S", 256), None);
        assert_eq!(
            forbidden("ep", "S", 257).as_deref(),
            Some("EP class S runs on at most 256 ranks (one batch of 2^16 pairs each)")
        );
        assert_eq!(
            forbidden("ep", "W", 1024).as_deref(),
            Some("EP class W runs on at most 512 ranks (one batch of 2^16 pairs each)")
        );
        assert_eq!(forbidden("ep", "A", 1024), None);
        assert_eq!(forbidden("ep", "Q", 1024), None);
    }

    #[test]
    fn lu_class_maxima() {
        // S <= 16, W <= 64, A <= 256, B and C <= 1024 (3 x 3 points per rank)
        for (class, most) in [("S", 16), ("W", 64), ("A", 256), ("B", 1024), ("C", 1024)] {
            assert_eq!(forbidden("lu", class, most), None, "{class}");
            assert_eq!(
                forbidden("lu", class, most * 2),
                Some(format!(
                    "LU class {class} runs on at most {most} ranks (3 points per rank in i and j)"
                )),
                "{class}"
            );
        }
        assert_eq!(forbidden("lu", "A", 1), None);
        assert_eq!(
            forbidden("lu", "A", 48).as_deref(),
            Some("LU needs a power of two ranks")
        );
    }

    #[test]
    fn sp_bt_class_maxima() {
        // squares q x q, q <= min(32, grid points / 3)
        for (k, class, q) in [
            ("sp", "S", 4),
            ("sp", "W", 12),
            ("sp", "A", 21),
            ("sp", "B", 32),
            ("sp", "C", 32),
            ("bt", "S", 4),
            ("bt", "W", 8),
            ("bt", "A", 21),
            ("bt", "B", 32),
            ("bt", "C", 32),
        ] {
            let name = k.to_uppercase();
            assert_eq!(forbidden(k, class, q * q), None, "{k} {class}");
            assert_eq!(
                forbidden(k, class, (q + 1) * (q + 1)),
                Some(format!(
                    "{name} class {class} runs on at most {} ranks (cells of at least 3 points)",
                    q * q
                )),
                "{k} {class}"
            );
        }
        assert_eq!(forbidden("sp", "A", 64), None);
        assert_eq!(forbidden("bt", "A", 64), None);
    }

    #[test]
    fn builds_through_the_top_makefile() {
        let mut cc = Compilers {
            mpicc: PathBuf::from("/v/bin/mpicc"),
            mpif90: PathBuf::from("/v/bin/mpif90"),
            cflags: vec![],
            fflags: vec![],
        };
        let args = |cc: &Compilers| {
            make_args(
                Path::new("/r/bench-npb"),
                "lu",
                Path::new("/r/bench-npb/bin-vaced"),
                cc,
            )
        };
        assert_eq!(
            args(&cc),
            [
                "-C",
                "/r/bench-npb",
                "MPICC=/v/bin/mpicc",
                "MPIF90=/v/bin/mpif90",
                "BIN=/r/bench-npb/bin-vaced",
                "/r/bench-npb/bin-vaced/lu"
            ]
        );
        cc.fflags = vec!["-O2".into(), "-fstack-protector-strong".into()];
        assert_eq!(args(&cc)[5], "FFLAGS=-O2 -O2 -fstack-protector-strong");
    }

    #[test]
    fn codegen_flags_of_debians_wrappers() {
        assert_eq!(
            codegen_flags(
                "gfortran -O2 -ffile-prefix-map=/build/mpich-1NaQGN/mpich-4.0.2=. -fstack-protector-strong \
                 -fallow-invalid-boz -fallow-argument-mismatch -Wl,-z,relro -I/usr/include/x86_64-linux-gnu/mpich \
                 -L/usr/lib/x86_64-linux-gnu -lmpichfort -lmpich"
            ),
            [
                "-O2",
                "-fstack-protector-strong",
                "-fallow-invalid-boz",
                "-fallow-argument-mismatch"
            ]
        );
        assert!(codegen_flags(
            "gcc -Wl,-z,relro -I/usr/include/x86_64-linux-gnu/mpich -L/usr/lib/x86_64-linux-gnu -lmpich"
        )
        .is_empty());
    }
}
