//! What the tests link besides their own sources, built once per run into
//! `<build>/`: the configuration headers a configure of MPICH's test suite
//! would write (mpitestconf.h, dtpoolsconf.h, the f77 `*.h` include files),
//! with values probed from vaced's own mpi.h, and the support archives (MTest
//! in its single/thread/f77/f90 flavours, util/dtypes.c, dtpools).
//!
//! The C support sources are compiled with -ffunction-sections and the tests
//! linked with --gc-sections, so a test links only the MTest functions it
//! reaches. A support function that does not compile against vaced's mpi.h
//! (today: MTestSpawnPossible needs MPI_UNIVERSE_SIZE) is left out of the
//! archive and recorded; a test that calls it then fails to link, and its
//! report names the function and what it needed.

use crate::tools::Tools;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The support archives and include directories every test build uses.
#[derive(Debug, Default)]
pub struct Support {
    /// `<build>/include`: mpitestconf.h.
    pub include: PathBuf,
    /// `<build>/dtpools/include` (its parent holds dtpoolsconf.h).
    pub dtpools_include: PathBuf,
    /// Archive name -> path, for the archives that were built.
    pub libs: BTreeMap<&'static str, PathBuf>,
    /// Archive name -> why it could not be built.
    pub failed: BTreeMap<&'static str, String>,
    /// Support functions left out: name -> the identifiers their errors named.
    pub dropped: BTreeMap<String, Vec<String>>,
    /// The f90 MTest module directory (mpif90 -J).
    pub f90_dir: PathBuf,
}

/// What configure would probe, answered by compiling against vaced's mpi.h.
struct Probes {
    win_create: bool,
    file_open: bool,
    spawn: bool,
    integer16: bool,
}

fn probe(tools: &Tools, dir: &Path, name: &str, body: &str) -> bool {
    let src = dir.join(format!("probe_{name}.c"));
    let text = format!("#include <mpi.h>\n{body}\nint main(void) {{ return 0; }}\n");
    if std::fs::write(&src, text).is_err() {
        return false;
    }
    Command::new(&tools.mpicc)
        .arg("-o")
        .arg(dir.join(format!("probe_{name}")))
        .arg(&src)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// mpitestconf.h for vaced on this host (x86-64 Linux, gcc/gfortran).
fn mpitestconf(p: &Probes) -> String {
    let mut s = String::from(
        "/* mpitestconf.h written by vaced-conformance: what MPICH's test-suite\n   \
         configure would find for vaced on x86-64 Linux with gcc/gfortran. */\n\
         #ifndef MPITESTCONF_H_INCLUDED\n#define MPITESTCONF_H_INCLUDED\n",
    );
    for d in [
        "F77_NAME_LOWER_USCORE",
        "HAVE_DLFCN_H",
        "HAVE_DOUBLE__COMPLEX",
        "HAVE_FLOAT__COMPLEX",
        "HAVE_LONG_DOUBLE__COMPLEX",
        "HAVE_FORTRAN_BINDING",
        "HAVE_GETRUSAGE",
        "HAVE_INTTYPES_H",
        "HAVE_LONG_DOUBLE",
        "HAVE_LONG_LONG",
        "HAVE_MEMORY_H",
        "HAVE_PTHREAD_H",
        "HAVE_STDARG_H",
        "HAVE_STDINT_H",
        "HAVE_STDLIB_H",
        "HAVE_STRDUP",
        "HAVE_STRINGS_H",
        "HAVE_STRING_H",
        "HAVE_SYS_RESOURCE_H",
        "HAVE_SYS_STAT_H",
        "HAVE_SYS_TIME_H",
        "HAVE_SYS_TYPES_H",
        "HAVE_UNISTD_H",
        "HAVE_USLEEP",
        "HAVE__BOOL",
        "STDC_HEADERS",
        "USE_LONG_DOUBLE_COMPLEX",
        // vaced is not MPICH: test only what the standard defines.
        "USE_STRICT_MPI",
    ] {
        s.push_str(&format!("#define {d} 1\n"));
    }
    for (on, d) in [
        (p.win_create, "HAVE_MPI_WIN_CREATE"),
        (p.file_open, "HAVE_MPI_IO"),
        (p.spawn, "HAVE_MPI_SPAWN"),
        (p.integer16, "HAVE_MPI_INTEGER16"),
    ] {
        if on {
            s.push_str(&format!("#define {d} 1\n"));
        } else {
            s.push_str(&format!("/* #undef {d} (not in vaced's mpi.h) */\n"));
        }
    }
    s.push_str(
        "#define SIZEOF_INT 4\n#define SIZEOF_LONG 8\n#define SIZEOF_LONG_LONG 8\n\
         #define SIZEOF_SHORT 2\n#define SIZEOF_VOID_P 8\n#define SIZEOF_MPI_OFFSET 8\n\
         #define POINTERINT_t long\n\
         /* THREAD_PACKAGE_POSIX of mpithreadtest.h */\n#define THREAD_PACKAGE_NAME 2\n\
         #define PACKAGE_VERSION \"4.0.2\"\n#endif\n",
    );
    s
}

const DTPOOLSCONF: &str = "/* dtpoolsconf.h written by vaced-conformance */\n\
#define HAVE_INTTYPES_H 1\n#define HAVE_LIMITS_H 1\n#define HAVE_MEMSET 1\n\
#define HAVE_STDINT_H 1\n#define HAVE_STDLIB_H 1\n#define HAVE_STRDUP 1\n\
#define HAVE_STRINGS_H 1\n#define HAVE_STRING_H 1\n#define HAVE_SYS_STAT_H 1\n\
#define HAVE_SYS_TYPES_H 1\n#define HAVE_UNISTD_H 1\n#define STDC_HEADERS 1\n";

/// Write the f77 include files configure generates from `*.h.in` (MPI_Aint
/// and MPI_Offset are 8 bytes in vaced: `integer*8`) into the build tree.
pub fn fortran_headers(root: &Path, build: &Path) -> std::io::Result<()> {
    let f77 = root.join("f77");
    let Ok(dirs) = std::fs::read_dir(&f77) else {
        return Ok(());
    };
    for d in dirs.flatten() {
        let Ok(files) = std::fs::read_dir(d.path()) else {
            continue;
        };
        for f in files.flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            let Some(h) = name.strip_suffix(".h.in") else {
                continue;
            };
            let text = std::fs::read_to_string(f.path())?
                .replace("@F77_MPI_ADDRESS@", "integer*8")
                .replace("@F77_MPI_OFFSET@", "integer*8");
            let out = build.join("f77").join(d.file_name());
            std::fs::create_dir_all(&out)?;
            std::fs::write(out.join(format!("{h}.h")), text)?;
        }
    }
    Ok(())
}

/// Generate the f77/io and f90/io tests MPICH's make generates with
/// maint/testmerge (a perl script; configure only sets its `#!` line) from
/// ioharness.defn/.tlt; f90's from f77's with the sed lines of
/// f90/io/Makefile.am. Into `<build>/f77/io` and `<build>/f90/io`.
pub fn generate_io(root: &Path, build: &Path) -> Result<(), String> {
    let f77 = root.join("f77/io");
    if !f77.join("ioharness.defn").is_file() {
        return Ok(());
    }
    let io = |e: std::io::Error| format!("testmerge: {e}");
    let maint = build.join("maint");
    std::fs::create_dir_all(&maint).map_err(io)?;
    let tm = maint.join("testmerge");
    let text = std::fs::read_to_string(root.join("maint/testmerge.in")).map_err(io)?;
    std::fs::write(&tm, text.replace("@PERL@", "/usr/bin/perl")).map_err(io)?;
    let defn = format!("-defn={}", root.join("maint/common.defn").display());
    let run = |dir: &Path, d: &Path, t: &Path| -> Result<(), String> {
        std::fs::create_dir_all(dir).map_err(io)?;
        let o = Command::new("perl")
            .arg(&tm)
            .arg(&defn)
            .arg(d)
            .arg(t)
            .current_dir(dir)
            .output()
            .map_err(|e| format!("perl: {e}"))?;
        if o.status.success() {
            Ok(())
        } else {
            Err(format!(
                "testmerge in {}: {}",
                dir.display(),
                first_error(&String::from_utf8_lossy(&o.stderr))
            ))
        }
    };
    let out77 = build.join("f77/io");
    run(
        &out77,
        &f77.join("ioharness.defn"),
        &f77.join("ioharness.tlt"),
    )?;
    if root.join("f90/io").is_dir() {
        let out90 = build.join("f90/io");
        std::fs::create_dir_all(&out90).map_err(io)?;
        let sed = |exprs: &[&str], from: &Path, to: &Path| -> Result<(), String> {
            let mut c = Command::new("sed");
            for e in exprs {
                c.arg("-e").arg(e);
            }
            let o = c.arg(from).output().map_err(|e| format!("sed: {e}"))?;
            std::fs::write(to, o.stdout).map_err(io)
        };
        let d90 = out90.join("ioharness.defn");
        let t90 = out90.join("ioharness.tlt");
        sed(
            &[
                r#"s/filename="\(.*\)f.f\"/filename="\1f90.f90"/g"#,
                "s/include.*iooffset.*/integer (kind=MPI_OFFSET_KIND)offset/g",
            ],
            &f77.join("ioharness.defn"),
            &d90,
        )?;
        sed(
            &[
                "s/include.*mpif.*/use mpi/g",
                "s/fheader/f90header/g",
                "s/^C/!/g",
                "/implicit *none/d",
            ],
            &f77.join("ioharness.tlt"),
            &t90,
        )?;
        run(&out90, &d90, &t90)?;
    }
    Ok(())
}

/// The C flags every support and test compile gets.
pub fn c_flags(root: &Path, s: &Support) -> Vec<String> {
    vec![
        format!("-I{}", s.include.display()),
        format!("-I{}", root.join("include").display()),
        format!("-I{}", s.dtpools_include.display()),
        format!("-I{}", root.join("dtpools/include").display()),
        "-ffunction-sections".into(),
        "-fdata-sections".into(),
    ]
}

/// Build everything (headers, archives) under `build`.
pub fn build(tools: &Tools, root: &Path, build: &Path) -> Result<Support, String> {
    let io = |e: std::io::Error| format!("{}: {e}", build.display());
    let util = build.join("util");
    std::fs::create_dir_all(&util).map_err(io)?;
    let mut s = Support {
        include: build.join("include"),
        dtpools_include: build.join("dtpools/include"),
        f90_dir: util.join("f90mod"),
        ..Support::default()
    };
    std::fs::create_dir_all(&s.include).map_err(io)?;
    std::fs::create_dir_all(&s.dtpools_include).map_err(io)?;
    std::fs::create_dir_all(&s.f90_dir).map_err(io)?;
    let p = Probes {
        win_create: probe(tools, &util, "win", "void *p = (void *) MPI_Win_create;"),
        file_open: probe(tools, &util, "io", "void *p = (void *) MPI_File_open;"),
        spawn: probe(tools, &util, "spawn", "void *p = (void *) MPI_Comm_spawn;"),
        integer16: probe(tools, &util, "int16", "MPI_Datatype t = MPI_INTEGER16;"),
    };
    std::fs::write(s.include.join("mpitestconf.h"), mpitestconf(&p)).map_err(io)?;
    // dtpools_internal.h includes "../dtpoolsconf.h": found relative to
    // our (empty) dtpools/include on the -I path.
    std::fs::write(build.join("dtpools/dtpoolsconf.h"), DTPOOLSCONF).map_err(io)?;
    fortran_headers(root, build).map_err(io)?;
    if let Err(e) = generate_io(root, build) {
        s.failed.insert("testmerge (f77/f90 io sources)", e);
    }

    let flags = c_flags(root, &s);
    let u = root.join("util");
    let dsrc = root.join("dtpools/src");
    let thread_flags = ["-DMTEST_USE_THREAD".to_string()];
    let c_libs: [(&'static str, Vec<PathBuf>, &[String]); 5] = [
        (
            "mtest",
            vec![u.join("mtest.c"), u.join("mtest_common.c")],
            &[],
        ),
        ("mtest_single", vec![u.join("mtest_single.c")], &[]),
        (
            "mtest_thread",
            vec![u.join("mtest_thread.c")],
            &thread_flags,
        ),
        (
            "dtypes",
            vec![u.join("dtypes.c"), u.join("mtestcheck.c")],
            &[],
        ),
        (
            "dtpools",
            [
                "dtpools.c",
                "dtpools_misc.c",
                "dtpools_init_verify.c",
                "dtpools_desc.c",
                "dtpools_attr.c",
                "dtpools_custom.c",
            ]
            .iter()
            .map(|f| dsrc.join(f))
            .collect(),
            &[],
        ),
    ];
    for (name, srcs, extra) in c_libs {
        let mut objs = vec![];
        let mut err = None;
        for src in &srcs {
            let mut f = flags.clone();
            f.extend(extra.iter().cloned());
            f.push(format!("-I{}", src.parent().unwrap_or(root).display()));
            match compile_dropping(tools, src, &util, &f, &mut s.dropped) {
                Ok(o) => objs.push(o),
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
        }
        match err {
            Some(e) => {
                s.failed.insert(name, e);
            }
            None => match archive(&util, name, &objs) {
                Ok(a) => {
                    s.libs.insert(name, a);
                }
                Err(e) => {
                    s.failed.insert(name, e);
                }
            },
        }
    }
    // Fortran MTest.
    for (name, file) in [
        ("mtest_f77", "mtest_f77.f"),
        ("mtest_f90", "mtest_f90.f90"),
        ("mtest_f08", "mtest_f08.f90"),
    ] {
        let f = [
            "-fcray-pointer".to_string(),
            format!("-J{}", s.f90_dir.display()),
        ];
        let r = compile_dropping(tools, &u.join(file), &util, &f, &mut s.dropped)
            .and_then(|obj| archive(&util, name, &[obj]));
        match r {
            Ok(a) => {
                s.libs.insert(name, a);
            }
            Err(e) => {
                s.failed.insert(name, e);
            }
        }
    }
    Ok(s)
}

fn archive(dir: &Path, name: &str, objs: &[PathBuf]) -> Result<PathBuf, String> {
    let a = dir.join(format!("lib{name}.a"));
    let _ = std::fs::remove_file(&a);
    let o = Command::new("ar")
        .arg("rcs")
        .arg(&a)
        .args(objs)
        .output()
        .map_err(|e| format!("ar: {e}"))?;
    if !o.status.success() {
        return Err(format!("ar: {}", String::from_utf8_lossy(&o.stderr).trim()));
    }
    Ok(a)
}

/// The first line of compiler output that says "error".
pub fn first_error(out: &str) -> String {
    out.lines()
        .find(|l| l.contains("error") || l.contains("Error"))
        .or_else(|| out.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Compile `src` (C, or Fortran by its extension) into `<dir>/<stem>.o`.
/// While it fails, blank out the top-level functions (C) or subprograms
/// (Fortran) holding the errors (recorded in `dropped` with the quoted
/// identifiers of their errors) and try again; an error outside any
/// function fails the whole file.
fn compile_dropping(
    tools: &Tools,
    src: &Path,
    dir: &Path,
    flags: &[String],
    dropped: &mut BTreeMap<String, Vec<String>>,
) -> Result<PathBuf, String> {
    let file = src.file_name().unwrap_or_default().to_string_lossy();
    let stem = src.file_stem().unwrap_or_default().to_string_lossy();
    let fortran = file.ends_with(".f") || file.ends_with(".f90");
    let compiler = if file.ends_with(".f90") {
        &tools.mpif90
    } else if fortran {
        &tools.mpif77
    } else {
        &tools.mpicc
    };
    let obj = dir.join(format!("{stem}.o"));
    let copy = dir.join(&*file);
    let text = std::fs::read_to_string(src).map_err(|e| format!("{}: {e}", src.display()))?;
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let copy_name = copy.to_string_lossy().into_owned();
    for _ in 0..32 {
        // C keeps its line numbers with #line; the Fortran copy is the file.
        let mut body = if fortran {
            String::new()
        } else {
            format!("#line 1 \"{copy_name}\"\n")
        };
        body.push_str(&lines.join("\n"));
        body.push('\n');
        std::fs::write(&copy, body).map_err(|e| format!("{}: {e}", copy.display()))?;
        let o = Command::new(compiler)
            .args(flags)
            .arg("-c")
            .arg("-o")
            .arg(&obj)
            .arg(&copy)
            .output()
            .map_err(|e| format!("{}: {e}", compiler.display()))?;
        if o.status.success() {
            return Ok(obj);
        }
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        let mut progress = false;
        for (line, msg) in errors(&err, &copy_name) {
            let Some(line) = line else {
                return Err(format!("{}: {}", src.display(), msg.trim()));
            };
            let idx = line.saturating_sub(1);
            if lines.get(idx).is_some_and(|l| l.trim().is_empty()) {
                continue; // already blanked this round
            }
            let found = if fortran {
                enclosing_subprogram(&lines, idx)
            } else {
                enclosing_function(&lines, idx)
            };
            let Some((start, end, name)) = found else {
                return Err(format!("{}: {}", src.display(), msg.trim()));
            };
            for l in &mut lines[start..=end] {
                l.clear();
            }
            let what = dropped.entry(name).or_default();
            for q in quoted(&msg) {
                let q = if fortran { q.to_ascii_uppercase() } else { q };
                if !what.contains(&q) {
                    what.push(q);
                }
            }
            progress = true;
        }
        if !progress {
            return Err(format!("{}: {}", src.display(), first_error(&err)));
        }
    }
    Err(format!("{}: too many errors", src.display()))
}

/// The errors of a gcc/gfortran output: (line in `file`, or None when the
/// error is elsewhere; the message). gcc writes `file:line:col: error: msg`;
/// gfortran writes `file:line:col:` on a line of its own, then the source,
/// then `Error: msg`.
fn errors(out: &str, file: &str) -> Vec<(Option<usize>, String)> {
    let mut v = vec![];
    let mut at: Option<Option<usize>> = None;
    let line_of = |loc: &str| -> Option<usize> {
        loc.strip_prefix(file)?
            .strip_prefix(':')?
            .split(':')
            .next()?
            .parse()
            .ok()
    };
    for l in out.lines() {
        if let Some(i) = l.find(": error:") {
            v.push((line_of(&l[..i]), l.to_string()));
        } else if l.starts_with("Error:") {
            v.push((at.take().flatten(), l.to_string()));
        } else if l.ends_with(':') && l.contains(".f") && !l.starts_with(' ') {
            at = Some(line_of(l.trim_end_matches(':')));
        }
    }
    v
}

/// The Fortran subprogram around line `idx`: from its `subroutine`/
/// `function` line to its `end`.
fn enclosing_subprogram(lines: &[String], idx: usize) -> Option<(usize, usize, String)> {
    let low = |i: usize| lines[i].trim().to_ascii_lowercase();
    let header = |l: &str| {
        !l.starts_with('!')
            && (l.starts_with("subroutine ")
                || l.split('(').next().unwrap_or("").contains("function "))
    };
    let is_end =
        |l: &str| l == "end" || l.starts_with("end subroutine") || l.starts_with("end function");
    let start = (0..=idx).rev().find(|&i| header(&low(i)))?;
    if (start..idx).any(|i| is_end(&low(i))) {
        return None;
    }
    let end = (idx..lines.len()).find(|&i| is_end(&low(i)))?;
    let h = low(start);
    let after = h
        .split_once("subroutine ")
        .or_else(|| h.split_once("function "))?
        .1;
    let name = after
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()?
        .to_string();
    Some((start, end, name))
}

/// The identifiers quoted ‘like this’ or 'like this' in a compiler message.
pub fn quoted(msg: &str) -> Vec<String> {
    // Not the compiler's guesses ("; did you mean ‘MPI_ERR_SIZE’?").
    let msg = msg.split("did you mean").next().unwrap_or(msg);
    let mut out = vec![];
    for (open, close) in [('‘', '’'), ('`', '\''), ('\'', '\'')] {
        let mut rest = msg;
        while let Some(i) = rest.find(open) {
            let after = &rest[i + open.len_utf8()..];
            let Some(j) = after.find(close) else {
                break;
            };
            let w = &after[..j];
            if !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                out.push(w.to_string());
            }
            rest = &after[j + close.len_utf8()..];
        }
        if !out.is_empty() {
            break;
        }
    }
    out
}

/// The top-level C function around line `idx` (clang-format style: the
/// header starts in column 0 and the body ends with a `}` in column 0):
/// (first line, last line, name).
fn enclosing_function(lines: &[String], idx: usize) -> Option<(usize, usize, String)> {
    let start = (0..=idx).rev().find(|&i| {
        let l = &lines[i];
        l.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && l.contains('(')
            && !l.trim_end().ends_with(';')
    })?;
    // No closing brace between the header and the error line.
    if lines[start..idx].iter().any(|l| l.starts_with('}')) {
        return None;
    }
    let end = (idx..lines.len()).find(|&i| lines[i].starts_with('}'))?;
    let head = &lines[start];
    let name = head[..head.find('(')?]
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .rfind(|w| !w.is_empty())?
        .to_string();
    Some((start, end, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_enclosing_function() {
        let src =
            "int a;\n/* doc */\nint f(int x)\n{\n    return MISSING;\n}\n\nvoid g(void)\n{\n}\n";
        let lines: Vec<String> = src.lines().map(String::from).collect();
        assert_eq!(enclosing_function(&lines, 4), Some((2, 5, "f".to_string())));
        assert_eq!(enclosing_function(&lines, 0), None);
    }

    #[test]
    fn finds_enclosing_subprogram() {
        let src = "      subroutine a(x)\n      x = 1\n      end\n      subroutine MTestSpawnPossible( can )\n      call mpi_comm_get_attr(c, MPI_UNIVERSE_SIZE, v, f, e)\n      end\n";
        let lines: Vec<String> = src.lines().map(String::from).collect();
        assert_eq!(
            enclosing_subprogram(&lines, 4),
            Some((3, 5, "mtestspawnpossible".to_string()))
        );
    }

    #[test]
    fn reads_errors() {
        let out = "/b/x.c:12:3: error: ‘A’ undeclared\n/b/y.h:3:1: error: bad\n/b/m.f:40:22:\n\n   40 | call x\n      |  1\nError: Symbol ‘mpi_universe_size’ at (1) has no IMPLICIT type\n";
        assert_eq!(errors(out, "/b/x.c")[0].0, Some(12));
        assert_eq!(errors(out, "/b/x.c")[1].0, None);
        let f = errors(out, "/b/m.f");
        assert_eq!(f[2].0, Some(40));
    }

    #[test]
    fn quotes() {
        assert_eq!(
            quoted("x.c:3:5: error: ‘MPI_UNIVERSE_SIZE’ undeclared (first use in this function)"),
            ["MPI_UNIVERSE_SIZE"]
        );
        assert_eq!(
            quoted("undefined reference to `MPI_Win_create'"),
            ["MPI_Win_create"]
        );
    }
}
