//! Building one test program with vaced's mpicc/mpif77/mpif90: its sources
//! from the directory's Makefile.am, the support archives, `--gc-sections`
//! (see `support`). A program that does not build gets the reason and the
//! MPI names the compiler and the linker missed.

use crate::makefile::{Flavour, Makefile};
use crate::support::{self, Support};
use crate::tools::Tools;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The outcome of building one program.
#[derive(Debug, Clone)]
pub struct Built {
    /// The executable, when it was built.
    pub bin: Option<PathBuf>,
    /// Why it was not built (first error line).
    pub reason: String,
    /// MPI names it needs that vaced lacks (functions, constants, types).
    pub missing: Vec<String>,
    /// Everything the compilers printed.
    pub log: String,
}

/// The MPI-ish names a compiler/linker output says are missing. Names of
/// support functions left out (`dropped`) are replaced by what they needed.
pub fn missing_names(out: &str, s: &Support) -> Vec<String> {
    let mut names: Vec<String> = vec![];
    let mut add = |n: String| {
        if !names.contains(&n) {
            names.push(n);
        }
    };
    for l in out.lines() {
        let interesting = l.contains("undefined reference to")
            || l.contains("undeclared")
            || l.contains("implicit declaration of function")
            || l.contains("unknown type name")
            || l.contains("has no IMPLICIT type")
            || l.contains("has not been declared")
            || l.contains("cannot appear in the expression");
        if !interesting {
            continue;
        }
        for q in support::quoted(l) {
            // Fortran link names end in `_`; dropped Fortran subprograms are
            // recorded in lower case.
            let key = q.trim_end_matches('_');
            if let Some(needs) = s.dropped.get(key).or_else(|| s.dropped.get(&q)) {
                for n in needs {
                    add(format!("{n} (via MTest's {key})"));
                }
                continue;
            }
            let lower = q.to_ascii_lowercase();
            if lower.starts_with("mpi") || lower.starts_with("pmpi") {
                // Fortran link names: mpi_win_create_ -> MPI_WIN_CREATE (Fortran)
                if q.chars().all(|c| !c.is_ascii_uppercase()) {
                    let n = q.trim_end_matches('_').to_ascii_uppercase();
                    add(format!("{n} (Fortran)"));
                } else {
                    add(q);
                }
            }
        }
    }
    names
}

fn run(cmd: &mut Command, log: &mut String) -> bool {
    log.push_str(&format!("$ {cmd:?}\n"));
    match cmd.output() {
        Ok(o) => {
            log.push_str(&String::from_utf8_lossy(&o.stdout));
            log.push_str(&String::from_utf8_lossy(&o.stderr));
            o.status.success()
        }
        Err(e) => {
            log.push_str(&format!("cannot run: {e}\n"));
            false
        }
    }
}

/// Build `dir/name` into `<build>/<dir>/<name>`.
pub fn build(
    tools: &Tools,
    sup: &Support,
    root: &Path,
    build: &Path,
    mk: &Makefile,
    dir: &str,
    name: &str,
) -> Built {
    let src_dir = root.join(dir);
    let out_dir = build.join(dir);
    let obj_dir = out_dir.join(format!("{name}.obj"));
    let mut log = String::new();
    let fail = |reason: String, log: String| Built {
        bin: None,
        missing: missing_names(&log, sup),
        reason,
        log,
    };
    if let Err(e) = std::fs::create_dir_all(&obj_dir) {
        return fail(format!("{}: {e}", obj_dir.display()), log);
    }
    let prog = mk.program(name);
    let flavour = mk.flavour.unwrap_or(Flavour::Single);
    let mut c_flags = support::c_flags(root, sup);
    c_flags.push(format!("-I{}", src_dir.display()));
    c_flags.push(format!("-I{}", out_dir.display()));
    c_flags.extend(prog.cppflags.iter().cloned());
    if flavour == Flavour::Threads {
        c_flags.push("-DMTEST_USE_THREAD".into());
    }
    // configure adds -fcray-pointer when gfortran has Cray pointers.
    let mut f_flags = vec![
        "-fcray-pointer".to_string(),
        format!("-I{}", out_dir.display()),
        format!("-I{}", src_dir.display()),
        format!("-J{}", obj_dir.display()),
    ];
    for f in &prog.fflags {
        let rel = &f[2..];
        f_flags.push(format!("-I{}", out_dir.join(rel).display()));
        f_flags.push(format!("-I{}", src_dir.join(rel).display()));
    }
    let mut objs = vec![];
    let mut fortran = None;
    for s in &prog.sources {
        // Sources generated at build time (io's testmerge) are in out_dir.
        let path = [src_dir.join(s), out_dir.join(s)]
            .into_iter()
            .find(|p| p.is_file());
        let Some(path) = path else {
            return fail(format!("no source file {dir}/{s}"), log);
        };
        let obj = obj_dir.join(format!("{}.o", s.replace('/', "_")));
        let mut cmd;
        if s.ends_with(".f") || s.ends_with(".F") {
            cmd = Command::new(&tools.mpif77);
            cmd.args(&f_flags);
            fortran = fortran.or(Some(&tools.mpif77));
        } else if s.ends_with(".f90") || s.ends_with(".F90") {
            cmd = Command::new(&tools.mpif90);
            cmd.args(&f_flags);
            fortran = Some(&tools.mpif90);
        } else {
            cmd = Command::new(&tools.mpicc);
            cmd.args(&c_flags);
        }
        cmd.arg("-c").arg("-o").arg(&obj).arg(&path);
        if !run(&mut cmd, &mut log) {
            let reason = support::first_error(&log);
            return fail(reason, log);
        }
        objs.push(obj);
    }
    // The support archives this flavour links, in dependency order.
    let wanted: &[&str] = match flavour {
        Flavour::Single => &["mtest_single", "mtest", "dtypes", "dtpools"],
        Flavour::Threads => &["mtest_thread", "mtest", "dtypes", "dtpools"],
        Flavour::F77 => &["mtest_f77", "mtest_single", "mtest", "dtypes"],
        Flavour::F90 => &["mtest_f90", "mtest_single", "mtest", "dtypes"],
        Flavour::F08 => &["mtest_f08", "mtest_single", "mtest", "dtypes"],
    };
    let mut broken = vec![];
    let mut archives = vec![];
    for w in wanted {
        match sup.libs.get(w) {
            Some(a) => archives.push(a.clone()),
            None => broken.push(*w),
        }
    }
    let linker = match (fortran, flavour) {
        (Some(f), _) => f,
        (None, Flavour::F90 | Flavour::F08) => &tools.mpif90,
        (None, Flavour::F77) => &tools.mpif77,
        _ => &tools.mpicc,
    };
    let bin = out_dir.join(name);
    let mut cmd = Command::new(linker);
    cmd.arg("-o")
        .arg(&bin)
        .args(&objs)
        .arg("-Wl,--gc-sections")
        .arg("-Wl,--start-group")
        .args(&archives)
        .arg("-Wl,--end-group")
        .args(&prog.libs)
        .args(["-lm", "-lpthread"]);
    if !run(&mut cmd, &mut log) {
        let mut reason = if log.contains("undefined reference") {
            "link failed".to_string()
        } else {
            support::first_error(&log)
        };
        if !broken.is_empty() {
            reason.push_str(&format!(
                " (support libraries not built: {})",
                broken.join(", ")
            ));
        }
        return fail(reason, log);
    }
    Built {
        bin: Some(bin),
        reason: String::new(),
        missing: vec![],
        log,
    }
}
