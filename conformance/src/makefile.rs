//! What a directory's Makefile.am says about building its tests: each
//! program's sources (`foo_SOURCES`, else `foo` + `AM_DEFAULT_SOURCE_EXT`,
//! `.c` by default), its extra preprocessor flags (`foo_CPPFLAGS`), its extra
//! libraries (`foo_LDADD`: `-lm`, the dtypes helper), `AM_FFLAGS` include
//! directories, and which MTest flavour the directory includes
//! (Makefile_single/threads/f77/f90/f08.mtest).
//!
//! Automake conditionals: MAINTAINER_MODE and BUILD_MPIX_TESTS are false (a
//! release tree, strict MPI), everything else is false too.

use std::collections::HashMap;
use std::path::Path;

/// The MTest support a directory links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    /// C tests, util/mtest_single.c.
    Single,
    /// C tests with MTEST_USE_THREAD, util/mtest_thread.c.
    Threads,
    /// Fortran 77, util/mtest_f77.f.
    F77,
    /// Fortran 90, util/mtest_f90.f90.
    F90,
    /// Fortran 2008 (`use mpi_f08`), util/mtest_f08.f90.
    F08,
}

/// A directory's Makefile.am, variables expanded on demand.
#[derive(Debug, Default)]
pub struct Makefile {
    vars: HashMap<String, String>,
    pub flavour: Option<Flavour>,
}

/// How to build one program.
#[derive(Debug, Clone)]
pub struct Program {
    /// Source files relative to the test's directory (headers dropped).
    pub sources: Vec<String>,
    /// `-D...` / `-I...` from `foo_CPPFLAGS` (besides AM_CPPFLAGS).
    pub cppflags: Vec<String>,
    /// `-I...` from AM_FFLAGS (relative to the directory).
    pub fflags: Vec<String>,
    /// Extra libraries: `-lm`, ...
    pub libs: Vec<String>,
}

impl Makefile {
    /// Read `dir/Makefile.am`; a missing file gives an empty one.
    pub fn read(dir: &Path) -> Makefile {
        let text = std::fs::read_to_string(dir.join("Makefile.am")).unwrap_or_default();
        Makefile::parse(&text)
    }

    pub fn parse(text: &str) -> Makefile {
        let mut m = Makefile::default();
        // Join continuation lines.
        let mut lines = vec![];
        let mut cur = String::new();
        for l in text.lines() {
            if let Some(s) = l.strip_suffix('\\') {
                cur.push_str(s);
                cur.push(' ');
            } else {
                cur.push_str(l);
                lines.push(std::mem::take(&mut cur));
            }
        }
        lines.push(cur);
        // Conditional nesting: each level is "active?".
        let mut active: Vec<bool> = vec![];
        for l in lines {
            let t = l.trim();
            if let Some(_c) = t.strip_prefix("if ") {
                active.push(false);
                continue;
            }
            if t == "else" || t.starts_with("else ") {
                if let Some(a) = active.last_mut() {
                    *a = !*a;
                }
                continue;
            }
            if t == "endif" || t.starts_with("endif ") {
                active.pop();
                continue;
            }
            if active.iter().any(|a| !a) || l.starts_with('\t') || t.starts_with('#') {
                continue;
            }
            if let Some(inc) = t.strip_prefix("include ") {
                m.flavour = m.flavour.or(match inc.rsplit('/').next().unwrap_or("") {
                    "Makefile_single.mtest" => Some(Flavour::Single),
                    "Makefile_threads.mtest" => Some(Flavour::Threads),
                    "Makefile_f77.mtest" => Some(Flavour::F77),
                    "Makefile_f90.mtest" => Some(Flavour::F90),
                    "Makefile_f08.mtest" => Some(Flavour::F08),
                    _ => None,
                });
                continue;
            }
            let t = match t.find('#') {
                Some(i) => &t[..i],
                None => t,
            };
            if let Some((k, v)) = t.split_once("+=") {
                let k = k.trim().to_string();
                let e = m.vars.entry(k).or_default();
                e.push(' ');
                e.push_str(v.trim());
            } else if let Some((k, v)) = t.split_once('=') {
                let k = k.trim();
                if !k.is_empty() && !k.contains(' ') && !k.contains(':') {
                    m.vars.insert(k.to_string(), v.trim().to_string());
                }
            }
        }
        m
    }

    /// The raw value of a variable.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// Words of `name`, `$(VAR)` references expanded (unknown ones vanish).
    fn words(&self, name: &str, depth: u32) -> Vec<String> {
        let Some(v) = self.var(name) else {
            return vec![];
        };
        let mut out = vec![];
        for w in v.split_whitespace() {
            if let Some(inner) = w.strip_prefix("$(").and_then(|s| s.strip_suffix(')')) {
                if depth < 8 {
                    out.extend(self.words(inner, depth + 1));
                }
            } else {
                out.push(w.to_string());
            }
        }
        out
    }

    /// The programs the Makefile.am builds (noinst_PROGRAMS).
    #[cfg(test)]
    pub fn programs(&self) -> Vec<String> {
        self.words("noinst_PROGRAMS", 0)
    }

    /// How to build `prog`.
    pub fn program(&self, prog: &str) -> Program {
        let key = prog.replace(['-', '.'], "_");
        let ext = self
            .var("AM_DEFAULT_SOURCE_EXT")
            .unwrap_or(match self.flavour {
                Some(Flavour::F77) => ".f",
                Some(Flavour::F90 | Flavour::F08) => ".f90",
                _ => ".c",
            })
            .trim()
            .to_string();
        let mut sources = self.words(&format!("{key}_SOURCES"), 0);
        sources.extend(self.words(&format!("nodist_{key}_SOURCES"), 0));
        sources.retain(|s| !s.ends_with(".h"));
        if sources.is_empty() {
            sources.push(format!("{prog}{ext}"));
        }
        let cppflags = self
            .words(&format!("{key}_CPPFLAGS"), 1)
            .into_iter()
            .filter(|w| w.starts_with("-D") || w.starts_with("-U"))
            .collect();
        let fflags = self
            .words("AM_FFLAGS", 1)
            .into_iter()
            .filter(|w| w.starts_with("-I") && w != "-I.")
            .collect();
        // util/dtypes.c ($(LDADDDATA)) and MTest are archives every test
        // links (see support.rs): only -l libraries matter here.
        let libs = self
            .words(&format!("{key}_LDADD"), 1)
            .into_iter()
            .filter(|w| w.starts_with("-l"))
            .collect();
        Program {
            sources,
            cppflags,
            fflags,
            libs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_programs() {
        let m = Makefile::parse(
            "include $(top_srcdir)/Makefile_single.mtest\n\
             noinst_PROGRAMS = a \\\n  b c\n\
             LDADDDATA = $(top_builddir)/util/libdtypes.la\n\
             b_SOURCES = b1.c b2.c b.h\n\
             b_CPPFLAGS = -DX=1 $(AM_CPPFLAGS)\n\
             b_LDADD = $(LDADD) $(LDADDDATA) -lm\n\
             if BUILD_MPIX_TESTS\nnoinst_PROGRAMS += x\nendif\n\
             AM_FFLAGS += -I../attr\n",
        );
        assert_eq!(m.flavour, Some(Flavour::Single));
        assert_eq!(m.programs(), ["a", "b", "c"]);
        let a = m.program("a");
        assert_eq!(a.sources, ["a.c"]);
        let b = m.program("b");
        assert_eq!(b.sources, ["b1.c", "b2.c"]);
        assert_eq!(b.cppflags, ["-DX=1"]);
        assert_eq!(b.libs, ["-lm"]);
        assert_eq!(b.fflags, ["-I../attr"]);
    }
}
