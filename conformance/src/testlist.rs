//! MPICH's test lists (`testlist.in` / `testlist` of each directory of
//! test/mpi): one test per line, `program np [key=value ...]`, a line naming a
//! subdirectory descends into it. `@...@` substitutions are resolved the way a
//! configure of MPICH's test suite for vaced would resolve them (see `subst`).

use std::path::Path;

/// One line of a test list: a program run once with its options.
#[derive(Debug, Clone)]
pub struct TestCase {
    /// Directory relative to test/mpi (`pt2pt`, `threads/pt2pt`, `f77/attr`).
    pub dir: String,
    /// The program (built from `<dir>/<name>.c` or its Makefile.am sources).
    pub name: String,
    pub np: u32,
    /// `arg=` values, in order.
    pub args: Vec<String>,
    /// `env=NAME=VALUE` values.
    pub env: Vec<(String, String)>,
    /// `timeLimit=` in seconds (runtests' default 180 when absent).
    pub time_limit: Option<u64>,
    /// `xfail=`: MPICH expects this test to fail (ticket or reason).
    pub xfail: Option<String>,
    /// `resultTest=`: TestStatus, TestStatusNoErrors or TestErrFatal.
    pub result_test: Option<String>,
    /// `mem=` in GB: such a test runs alone (runtests' memory lock).
    pub mem: Option<f64>,
    /// `lock=`: runs alone too.
    pub lock: Option<String>,
    /// `strict=false`: uses MPICH extensions (runtests skips it in strict mode).
    pub strict_false: bool,
    /// `mpiversion=`: the MPI version the test needs (vaced reports 4.0).
    pub mpiversion: Option<String>,
}

impl TestCase {
    /// `dir/name np args`, the test's name in tables.
    pub fn label(&self) -> String {
        let mut s = format!("{}/{} {}", self.dir, self.name, self.np);
        for a in &self.args {
            s.push(' ');
            s.push_str(a);
        }
        s
    }

    /// The top-level directory (`threads` for `threads/pt2pt`).
    pub fn top(&self) -> &str {
        self.dir.split('/').next().unwrap_or(&self.dir)
    }
}

/// What configure substitutes for each `@NAME@` of the lists (a configure of
/// MPICH's test suite against vaced with default options). `"#"` comments the
/// line out: configure drops it (see README.md, "known deviations").
pub fn subst(name: &str) -> Option<&'static str> {
    Some(match name {
        // Areas vaced lacks today are still listed: their tests count as not built.
        "rmadir" => "rma",
        "iodir" => "io",
        "spawndir" => "spawn",
        "partdir" => "part",
        "threadsdir" => "threads",
        "f77dir" => "f77",
        "f90dir" => "f90",
        "f08dir" => "f08",
        // Enabled by default in configure.
        "comm_overlap" => "",
        "perfdir" => "perf",
        // F77/F03 spawn-argument tests: gfortran can read the command line.
        "F77SPAWNARGTEST" | "F03SPAWNARGTEST" => "",
        // gfortran has Cray pointers (configure then adds -fcray-pointer to
        // FFLAGS/FCFLAGS, as compile.rs does).
        "ALLOCMEMF" => "allocmemf 1",
        "ALLOCMEMFC" => "allocmemf90 1",
        // Dropped: no C++ bindings in vaced (configure disables the
        // language), error/checkpoint/fault tests need
        // --enable-... flags, large tests need --enable-large-tests, the name
        // server tests need a name server, the impls tests are MPICH's own.
        "cxxdir"
        | "errordir"
        | "ckpointdir"
        | "ftdir"
        | "faultsdir"
        | "largetest"
        | "namepub_tests"
        | "nocxxdistgraph"
        | "impldir"
        | "ch3_tests"
        | "ch4_tests"
        | "ch4_ofi_tests"
        | "ch4_ucx_tests"
        | "ch4_commhints_tests_enabled" => "#",
        _ => return None,
    })
}

/// Replace every `@NAME@` of `line`; an unknown name comments the line out
/// (and is reported through `unknown`).
fn substitute(line: &str, unknown: &mut Vec<String>) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find('@') {
        let Some(j) = rest[i + 1..].find('@') else {
            break;
        };
        let name = &rest[i + 1..i + 1 + j];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            out.push_str(&rest[..=i]);
            rest = &rest[i + 1..];
            continue;
        }
        out.push_str(&rest[..i]);
        match subst(name) {
            Some(v) => out.push_str(v),
            None => {
                unknown.push(name.to_string());
                out.push('#');
            }
        }
        rest = &rest[i + 2 + j..];
    }
    out.push_str(rest);
    out
}

/// Parse one list line (after substitution). `None` for blank/comment lines.
/// `dir` is the directory the list belongs to.
pub fn parse_line(dir: &str, line: &str) -> Option<TestCase> {
    let line = match line.find('#') {
        Some(i) => &line[..i],
        None => line,
    };
    let mut words = line.split_whitespace();
    let name = words.next()?;
    if name.starts_with('!') {
        return None; // `!dir:target`: a make step, nothing to run
    }
    let mut t = TestCase {
        dir: dir.to_string(),
        name: name.to_string(),
        np: 2, // runtests' np_default
        args: vec![],
        env: vec![],
        time_limit: None,
        xfail: None,
        result_test: None,
        mem: None,
        lock: None,
        strict_false: false,
        mpiversion: None,
    };
    for (k, w) in words.enumerate() {
        if k == 0 {
            if let Ok(n) = w.parse() {
                t.np = n;
                continue;
            }
        }
        // runtests ignores words that are not key=value (e.g. pt2pt's sendself
        // lines carry a path after the rank count).
        let Some((key, value)) = w.split_once('=') else {
            continue;
        };
        match key {
            "arg" => t.args.push(value.to_string()),
            "env" => {
                if let Some((n, v)) = value.split_once('=') {
                    t.env.push((n.to_string(), v.to_string()));
                }
            }
            "timeLimit" => t.time_limit = value.parse().ok(),
            "xfail" => t.xfail = Some(value.to_string()),
            "resultTest" => t.result_test = Some(value.to_string()),
            "mem" => t.mem = value.parse().ok(),
            "lock" => t.lock = Some(value.to_string()),
            "strict" => t.strict_false = value.eq_ignore_ascii_case("false"),
            "mpiversion" => t.mpiversion = Some(value.to_string()),
            _ => {} // mpiexecarg=, mpix=, init=: MPICH-specific, not used
        }
    }
    // A list may name a program in a subdirectory (`sub/prog`).
    if let Some((sub, prog)) = t.name.clone().rsplit_once('/') {
        t.dir = if dir.is_empty() {
            sub.to_string()
        } else {
            format!("{dir}/{sub}")
        };
        t.name = prog.to_string();
    }
    Some(t)
}

/// The list file of `dir` (`testlist.in` preferred: `testlist` is generated
/// from it by configure; some directories ship only `testlist`).
pub fn list_file(root: &Path, dir: &str) -> Option<std::path::PathBuf> {
    ["testlist.in", "testlist"]
        .iter()
        .map(|f| root.join(dir).join(f))
        .find(|p| p.is_file())
}

/// Every test of `dir` (relative to `root` = test/mpi), descending into the
/// subdirectories its list names. `unknown` collects unknown `@NAME@`s.
pub fn collect(
    root: &Path,
    dir: &str,
    out: &mut Vec<TestCase>,
    unknown: &mut Vec<String>,
) -> Result<(), String> {
    let Some(file) = list_file(root, dir) else {
        return Err(format!("{dir}: no testlist.in or testlist"));
    };
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    for raw in text.lines() {
        let line = substitute(raw, unknown);
        let Some(t) = parse_line(dir, &line) else {
            continue;
        };
        let sub = format!("{dir}/{}", t.name);
        if root.join(&sub).is_dir() {
            collect(root, &sub, out, unknown)?;
        } else {
            out.push(t);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_options() {
        let t = parse_line(
            "pt2pt",
            "sendself 1 test/mpi/pt2pt/sendself arg=-type=MPI_INT arg=-seed=4 env=A=b timeLimit=300 xfail=ticket1 resultTest=TestStatus mem=6.5 strict=false",
        )
        .unwrap();
        assert_eq!(t.name, "sendself");
        assert_eq!(t.np, 1);
        assert_eq!(t.args, ["-type=MPI_INT", "-seed=4"]);
        assert_eq!(t.env, [("A".to_string(), "b".to_string())]);
        assert_eq!(t.time_limit, Some(300));
        assert_eq!(t.xfail.as_deref(), Some("ticket1"));
        assert_eq!(t.result_test.as_deref(), Some("TestStatus"));
        assert_eq!(t.mem, Some(6.5));
        assert!(t.strict_false);
        assert_eq!(t.label(), "pt2pt/sendself 1 -type=MPI_INT -seed=4");
        let d = parse_line("coll", "bcast").unwrap();
        assert_eq!(d.np, 2);
        assert!(parse_line("coll", "  # comment").is_none());
        assert!(parse_line("coll", "").is_none());
    }

    #[test]
    fn substitutes() {
        let mut unk = vec![];
        assert_eq!(substitute("@rmadir@", &mut unk), "rma");
        assert_eq!(substitute("@largetest@big 1", &mut unk), "#big 1");
        assert_eq!(substitute("@comm_overlap@ allred 2", &mut unk), " allred 2");
        assert_eq!(substitute("x 2 arg=a@b", &mut unk), "x 2 arg=a@b");
        assert!(unk.is_empty());
        assert_eq!(substitute("@whatever@x 1", &mut unk), "#x 1");
        assert_eq!(unk, ["whatever"]);
    }

    #[test]
    fn subdirectory_program() {
        let t = parse_line("threads", "pt2pt/multisend 2").unwrap();
        assert_eq!(t.dir, "threads/pt2pt");
        assert_eq!(t.name, "multisend");
    }
}
