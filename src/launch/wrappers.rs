//! The compiler wrappers `mpicc`, `mpicxx`/`mpic++`, `mpif77`, `mpif90`,
//! `mpifort`, behaving like MPICH's: the user's compiler plus our include
//! directory (mpi.h, mpif.h) and, for Fortran, the directory of the `mpi`
//! module, and our library when linking; `-show`, `-compile-info` and
//! `-link-info` print the command instead of running it.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Linker option that puts `main` in the dynamic symbol table (see
/// `crate::ranks::loader`).
pub const EXPORT_MAIN: &str = "-Wl,--export-dynamic-symbol=main";

/// Which wrapper was invoked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    Cc,
    Cxx,
    F77,
    F90,
    Fort,
}

impl Wrapper {
    /// The wrapper called `name` (an argv[0] basename), if any.
    pub fn from_name(name: &str) -> Option<Wrapper> {
        Some(match name {
            "mpicc" => Wrapper::Cc,
            "mpicxx" | "mpic++" => Wrapper::Cxx,
            "mpif77" => Wrapper::F77,
            "mpif90" => Wrapper::F90,
            "mpifort" => Wrapper::Fort,
            _ => return None,
        })
    }

    /// Every name a wrapper answers to (the links `vaced env` creates).
    pub const NAMES: [&'static str; 6] =
        ["mpicc", "mpicxx", "mpic++", "mpif77", "mpif90", "mpifort"];

    /// Environment variables naming the compiler, first set wins.
    fn compiler_vars(self) -> &'static [&'static str] {
        match self {
            Wrapper::Cc => &["MPICH_CC", "VACED_CC"],
            Wrapper::Cxx => &["MPICH_CXX", "VACED_CXX"],
            Wrapper::F77 => &["MPICH_F77", "MPICH_FC", "VACED_FC"],
            Wrapper::F90 => &["MPICH_F90", "MPICH_FC", "VACED_FC"],
            Wrapper::Fort => &["MPICH_FC", "MPICH_F90", "VACED_FC"],
        }
    }

    fn default_compiler(self) -> &'static str {
        match self {
            Wrapper::Cc => "cc",
            Wrapper::Cxx => "c++",
            Wrapper::F77 | Wrapper::F90 | Wrapper::Fort => "gfortran",
        }
    }

    /// The MPICH option that picks the compiler on the command line (`-cc=gcc`).
    fn compiler_option(self) -> &'static str {
        match self {
            Wrapper::Cc => "-cc=",
            Wrapper::Cxx => "-cxx=",
            Wrapper::F77 | Wrapper::F90 | Wrapper::Fort => "-fc=",
        }
    }

    fn is_fortran(self) -> bool {
        matches!(self, Wrapper::F77 | Wrapper::F90 | Wrapper::Fort)
    }
}

/// Where our header and library are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    pub include: PathBuf,
    pub lib: PathBuf,
    /// The compiled Fortran `mpi` module (`mpi.mod`), if it was built.
    pub fmod: Option<PathBuf>,
}

/// `$VACED_HOME/include` (else the source tree's `include/`), the directory
/// of the running executable, where cargo puts libvaced.so next to it, and
/// its `fmod/` subdirectory, where build.rs compiles the `mpi` module (absent
/// when there was no Fortran compiler).
pub fn default_paths() -> io::Result<Paths> {
    let include = match std::env::var_os("VACED_HOME") {
        Some(h) if !h.is_empty() => PathBuf::from(h).join("include"),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("include"),
    };
    let exe = std::env::current_exe()?.canonicalize()?;
    let lib = exe
        .parent()
        .ok_or_else(|| io::Error::other("the vaced executable has no parent directory"))?
        .to_path_buf();
    let fmod = Some(lib.join("fmod")).filter(|d| d.is_dir());
    Ok(Paths { include, lib, fmod })
}

/// Run the compiler, or print its command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Run,
    /// `-show`: the full command.
    Show,
    /// `-compile-info`: the command without link flags.
    CompileInfo,
    /// `-link-info`: the command with link flags.
    LinkInfo,
}

/// The command a wrapper invocation stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub mode: Mode,
    /// Compiler (possibly several words, e.g. `ccache gcc`), user arguments,
    /// then our flags.
    pub argv: Vec<OsString>,
}

/// Is the compiler command (possibly `ccache gfortran-12`) gfortran? Only
/// gfortran can read the `mpi.mod` that build.rs compiled with it (module
/// files are compiler-specific); other compilers get mpif.h only.
fn is_gfortran(compiler: &str) -> bool {
    compiler.split_whitespace().any(|w| {
        Path::new(w)
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("gfortran"))
    })
}

/// Does this argument stop the compiler before linking?
fn stops_before_link(a: &OsStr) -> bool {
    matches!(a.to_str(), Some("-c" | "-E" | "-S" | "-M" | "-MM"))
}

/// The major version of a gfortran command (`gfortran -dumpversion`).
fn gfortran_major(compiler: &str) -> Option<u32> {
    let mut words = compiler.split_whitespace();
    let out = Command::new(words.next()?)
        .args(words)
        .arg("-dumpversion")
        .output()
        .ok()?;
    let v = String::from_utf8_lossy(&out.stdout);
    v.trim().split('.').next()?.parse().ok()
}

/// The command for wrapper `w` called with `args`; `var` reads the
/// environment, `major` gives a gfortran command's major version.
///
/// Fortran with gfortran 10 or later gets `-fallow-argument-mismatch` before
/// the user's arguments, as MPICH's wrappers do: `mpif.h` declares no
/// interfaces, and codes that pass buffers of different types to the same
/// MPI routine (most of them) would not compile otherwise; a user's
/// `-fno-allow-argument-mismatch` comes after it and wins.
pub fn plan(
    w: Wrapper,
    args: &[OsString],
    var: &dyn Fn(&str) -> Option<String>,
    paths: &Paths,
    major: &dyn Fn(&str) -> Option<u32>,
) -> Plan {
    let mut mode = Mode::Run;
    let mut compiler: Option<String> = None;
    let mut user = Vec::with_capacity(args.len());
    let mut linking = true;
    for a in args {
        match a.to_str() {
            Some("-show") => mode = Mode::Show,
            Some("-compile-info" | "-compile_info") => mode = Mode::CompileInfo,
            Some("-link-info" | "-link_info") => mode = Mode::LinkInfo,
            Some(s) if s.starts_with(w.compiler_option()) => {
                compiler = Some(s[w.compiler_option().len()..].to_string());
            }
            _ => {
                if stops_before_link(a) {
                    linking = false;
                }
                user.push(a.clone());
            }
        }
    }
    let compiler = compiler
        .filter(|c| !c.trim().is_empty())
        .or_else(|| {
            w.compiler_vars()
                .iter()
                .find_map(|v| var(v).filter(|c| !c.trim().is_empty()))
        })
        .unwrap_or_else(|| w.default_compiler().to_string());
    let link = match mode {
        Mode::CompileInfo => false,
        Mode::LinkInfo => true,
        Mode::Run | Mode::Show => linking,
    };

    let mut argv: Vec<OsString> = compiler.split_whitespace().map(OsString::from).collect();
    if w.is_fortran() && is_gfortran(&compiler) && major(&compiler).is_some_and(|m| m >= 10) {
        argv.push("-fallow-argument-mismatch".into());
    }
    argv.extend(user);
    let mut inc = OsString::from("-I");
    inc.push(&paths.include);
    argv.push(inc);
    if let Some(fmod) = paths
        .fmod
        .as_ref()
        .filter(|_| w.is_fortran() && is_gfortran(&compiler))
    {
        let mut m = OsString::from("-I");
        m.push(fmod);
        argv.push(m);
    }
    if link {
        let mut l = OsString::from("-L");
        l.push(&paths.lib);
        argv.push(l);
        let mut rpath = OsString::from("-Wl,-rpath,");
        rpath.push(&paths.lib);
        argv.push(rpath);
        // The many-ranks mode finds each rank copy's main by name.
        argv.push(EXPORT_MAIN.into());
        argv.push("-lvaced".into());
    }
    Plan { mode, argv }
}

/// A word as a shell would need it: unquoted when plain, else single-quoted.
pub fn shell_quote(w: &OsStr) -> String {
    let s = w.to_string_lossy();
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=,+:@%^".contains(&b));
    if plain {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The command line as one shell-ready string.
pub fn show(argv: &[OsString]) -> String {
    argv.iter()
        .map(|a| shell_quote(a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Run wrapper `w` with `args` (after argv[0]): print or exec the compiler.
/// Returns only on error or after printing, with the exit status.
pub fn run(name: &str, w: Wrapper, args: &[OsString]) -> i32 {
    let paths = match default_paths() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{name}: cannot locate the vaced library directory: {e}");
            return 1;
        }
    };
    let p = plan(w, args, &|v| std::env::var(v).ok(), &paths, &gfortran_major);
    if p.mode != Mode::Run {
        println!("{}", show(&p.argv));
        return 0;
    }
    let err = Command::new(&p.argv[0]).args(&p.argv[1..]).exec();
    eprintln!(
        "{name}: cannot run the compiler `{}`: {err}",
        p.argv[0].to_string_lossy()
    );
    if err.kind() == io::ErrorKind::NotFound {
        127
    } else {
        126
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> Paths {
        Paths {
            include: "/opt/vaced/include".into(),
            lib: "/opt/vaced/lib".into(),
            fmod: None,
        }
    }

    fn words(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn shown(w: Wrapper, args: &[&str], var: &dyn Fn(&str) -> Option<String>) -> (Mode, String) {
        let p = plan(w, &words(args), var, &paths(), &gfortran_9);
        (p.mode, show(&p.argv))
    }

    const LINK: &str = "-I/opt/vaced/include -L/opt/vaced/lib -Wl,-rpath,/opt/vaced/lib -Wl,--export-dynamic-symbol=main -lvaced";

    #[test]
    fn linking_adds_the_library_after_user_arguments() {
        assert_eq!(
            shown(Wrapper::Cc, &["-O2", "app.c", "-o", "app"], &no_env),
            (Mode::Run, format!("cc -O2 app.c -o app {LINK}"))
        );
    }

    #[test]
    fn compile_only_omits_link_flags() {
        for stop in ["-c", "-E", "-S", "-M", "-MM"] {
            assert_eq!(
                shown(Wrapper::Cc, &[stop, "app.c"], &no_env),
                (Mode::Run, format!("cc {stop} app.c -I/opt/vaced/include"))
            );
        }
    }

    #[test]
    fn show_and_info_options() {
        assert_eq!(
            shown(Wrapper::Cc, &["-show"], &no_env),
            (Mode::Show, format!("cc {LINK}"))
        );
        assert_eq!(
            shown(Wrapper::Cc, &["-show", "-c", "x.c"], &no_env),
            (Mode::Show, "cc -c x.c -I/opt/vaced/include".to_string())
        );
        assert_eq!(
            shown(Wrapper::Cc, &["-compile-info"], &no_env),
            (Mode::CompileInfo, "cc -I/opt/vaced/include".to_string())
        );
        assert_eq!(
            shown(Wrapper::Cc, &["-link-info"], &no_env),
            (Mode::LinkInfo, format!("cc {LINK}"))
        );
        assert_eq!(
            shown(Wrapper::Cc, &["-link_info", "-c"], &no_env),
            (Mode::LinkInfo, format!("cc -c {LINK}"))
        );
    }

    #[test]
    fn compiler_choice() {
        let env = |v: &str| match v {
            "MPICH_CC" => Some("gcc-13".to_string()),
            "VACED_CC" => Some("clang".to_string()),
            "MPICH_FC" => Some("ifx".to_string()),
            "MPICH_CXX" => Some("ccache g++".to_string()),
            _ => None,
        };
        assert_eq!(
            shown(Wrapper::Cc, &["-c", "a.c"], &env).1,
            "gcc-13 -c a.c -I/opt/vaced/include"
        );
        let vaced_only = |v: &str| (v == "VACED_CC").then(|| "clang".to_string());
        assert_eq!(
            shown(Wrapper::Cc, &["-c"], &vaced_only).1,
            "clang -c -I/opt/vaced/include"
        );
        assert_eq!(
            shown(Wrapper::Cxx, &["-c"], &env).1,
            "ccache g++ -c -I/opt/vaced/include"
        );
        assert_eq!(
            shown(Wrapper::Cxx, &["-c"], &no_env).1,
            "c++ -c -I/opt/vaced/include"
        );
        assert_eq!(
            shown(Wrapper::Fort, &["-c"], &env).1,
            "ifx -c -I/opt/vaced/include"
        );
        assert_eq!(
            shown(Wrapper::F77, &["-c"], &no_env).1,
            "gfortran -c -I/opt/vaced/include"
        );
        let f77 = |v: &str| (v == "MPICH_F77").then(|| "g77".to_string());
        assert_eq!(
            shown(Wrapper::F77, &["-c"], &f77).1,
            "g77 -c -I/opt/vaced/include"
        );
        assert_eq!(
            shown(Wrapper::F90, &["-c"], &f77).1,
            "gfortran -c -I/opt/vaced/include"
        );
        assert_eq!(
            shown(Wrapper::Cc, &["-cc=tcc", "-c"], &env).1,
            "tcc -c -I/opt/vaced/include"
        );
    }

    #[test]
    fn fortran_wrappers_add_the_module_directory() {
        let p = Paths {
            fmod: Some("/opt/vaced/lib/fmod".into()),
            ..paths()
        };
        let shown =
            |w: Wrapper, args: &[&str]| show(&plan(w, &words(args), &no_env, &p, &gfortran_9).argv);
        for w in [Wrapper::F77, Wrapper::F90, Wrapper::Fort] {
            assert_eq!(
                shown(w, &["-c", "a.f90"]),
                "gfortran -c a.f90 -I/opt/vaced/include -I/opt/vaced/lib/fmod"
            );
            assert_eq!(
                shown(w, &["a.f", "-fallow-argument-mismatch", "-o", "a"]),
                format!(
                    "gfortran a.f -fallow-argument-mismatch -o a -I/opt/vaced/include \
                     -I/opt/vaced/lib/fmod -L/opt/vaced/lib -Wl,-rpath,/opt/vaced/lib -Wl,--export-dynamic-symbol=main -lvaced"
                )
            );
        }
        // Another Fortran compiler cannot read gfortran's mpi.mod.
        let fc = |c: &'static str| move |v: &str| (v == "MPICH_FC").then(|| c.to_string());
        let with = |c: &'static str| {
            show(&plan(Wrapper::Fort, &words(&["-c"]), &fc(c), &p, &gfortran_9).argv)
        };
        assert_eq!(with("ifx"), "ifx -c -I/opt/vaced/include");
        assert_eq!(
            with("ccache /usr/bin/gfortran-12"),
            "ccache /usr/bin/gfortran-12 -c -I/opt/vaced/include -I/opt/vaced/lib/fmod"
        );
        // C and C++ never get it.
        assert_eq!(shown(Wrapper::Cc, &["-c"]), "cc -c -I/opt/vaced/include");
        assert_eq!(shown(Wrapper::Cxx, &["-c"]), "c++ -c -I/opt/vaced/include");
    }

    /// A gfortran too old for `-fallow-argument-mismatch`.
    fn gfortran_9(_: &str) -> Option<u32> {
        Some(9)
    }

    #[test]
    fn gfortran_10_and_later_allow_argument_mismatch_as_mpich_does() {
        let p = paths();
        let major = |m: u32| move |_: &str| Some(m);
        let fc = |c: &'static str| move |v: &str| (v == "MPICH_FC").then(|| c.to_string());
        for w in [Wrapper::F77, Wrapper::F90, Wrapper::Fort] {
            assert_eq!(
                show(&plan(w, &words(&["-c", "a.f"]), &no_env, &p, &major(12)).argv),
                "gfortran -fallow-argument-mismatch -c a.f -I/opt/vaced/include"
            );
            assert_eq!(
                show(&plan(w, &words(&["-c", "a.f"]), &no_env, &p, &major(9)).argv),
                "gfortran -c a.f -I/opt/vaced/include"
            );
            assert_eq!(
                show(&plan(w, &words(&["-c"]), &no_env, &p, &|_| None).argv),
                "gfortran -c -I/opt/vaced/include"
            );
        }
        assert_eq!(
            show(
                &plan(
                    Wrapper::Fort,
                    &words(&["-c"]),
                    &fc("ccache gfortran-13"),
                    &p,
                    &major(13)
                )
                .argv
            ),
            "ccache gfortran-13 -fallow-argument-mismatch -c -I/opt/vaced/include"
        );
        assert_eq!(
            show(&plan(Wrapper::Fort, &words(&["-c"]), &fc("ifx"), &p, &major(13)).argv),
            "ifx -c -I/opt/vaced/include"
        );
        assert_eq!(
            show(&plan(Wrapper::Cc, &words(&["-c"]), &no_env, &p, &major(13)).argv),
            "cc -c -I/opt/vaced/include"
        );
    }

    #[test]
    fn names() {
        assert_eq!(Wrapper::from_name("mpicc"), Some(Wrapper::Cc));
        assert_eq!(Wrapper::from_name("mpic++"), Some(Wrapper::Cxx));
        assert_eq!(Wrapper::from_name("mpicxx"), Some(Wrapper::Cxx));
        assert_eq!(Wrapper::from_name("mpif77"), Some(Wrapper::F77));
        assert_eq!(Wrapper::from_name("mpif90"), Some(Wrapper::F90));
        assert_eq!(Wrapper::from_name("mpifort"), Some(Wrapper::Fort));
        assert_eq!(Wrapper::from_name("mpirun"), None);
        for n in Wrapper::NAMES {
            assert!(Wrapper::from_name(n).is_some());
        }
    }

    #[test]
    fn quoting() {
        assert_eq!(
            show(&words(&["cc", "-DX=\"a b\"", "it's"])),
            r#"cc '-DX="a b"' 'it'\''s'"#
        );
        assert_eq!(shell_quote(OsStr::new("")), "''");
    }
}
