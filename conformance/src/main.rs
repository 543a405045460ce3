//! vaced-conformance: MPICH 4.0.2's test suite (test/mpi) against vaced.
//!
//! Builds every test of the chosen directories with vaced's wrappers, runs it
//! with vaced's mpirun as MPICH's runtests would (rank count, arguments,
//! environment, time limit, result test of its list line) and reports a table
//! per directory, the tests that did not pass and why, and the MPI names the
//! unbuilt tests miss. `conformance/run --help` for the options; README.md.
mod compile;
mod exec;
mod makefile;
mod report;
mod source;
mod support;
mod testlist;
mod tools;

use clap::Parser;
use report::{Outcome, State};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::Duration;
use testlist::TestCase;

#[derive(Parser, Debug)]
#[command(
    name = "vaced-conformance",
    version,
    about = "MPICH 4.0.2's test suite (test/mpi) built with vaced's wrappers and run with vaced's mpirun"
)]
struct Args {
    /// An extracted MPICH tree (or its test/mpi) instead of `apt-get source mpich`.
    #[arg(long, value_name = "DIR")]
    source: Option<PathBuf>,
    /// Where `apt-get source mpich` unpacks (reused when present).
    #[arg(long, value_name = "DIR", default_value = "target/conformance/src")]
    cache: PathBuf,
    /// The vaced executable, or the directory holding it.
    #[arg(long, value_name = "PATH", default_value = "target/release/vaced")]
    vaced: PathBuf,
    /// Where the tests are built.
    #[arg(long, value_name = "DIR", default_value = "target/conformance/build")]
    build_dir: PathBuf,
    /// Where summary.md, results.json and the logs go.
    #[arg(long, value_name = "DIR", default_value = "target/conformance/results")]
    out: PathBuf,
    /// Tests built and run at once.
    #[arg(short = 'j', long, default_value_t = 1)]
    jobs: usize,
    /// Comma-separated directories of test/mpi (default: the issue's 16).
    #[arg(long, value_delimiter = ',')]
    dirs: Vec<String>,
    /// Only the tests whose `dir/name` matches (`*` and `?` wildcards, else a
    /// substring).
    #[arg(long, value_name = "PATTERN")]
    tests: Option<String>,
    /// Multiply every time limit (180 s unless the list says timeLimit=).
    #[arg(long, default_value_t = 1.0)]
    timeout_scale: f64,
    /// `mpirun --cores` (default: the host's cores).
    #[arg(long)]
    cores: Option<u32>,
    /// Run exactly the CI subset (conformance/ci-tests.txt); exit 1 if any fails.
    #[arg(long)]
    ci: bool,
    /// Print the selected test lines (dir/name np args) and exit: nothing is built.
    #[arg(long)]
    list: bool,
    /// The CI subset's file.
    #[arg(long, value_name = "FILE", default_value = "conformance/ci-tests.txt")]
    ci_list: PathBuf,
    /// Lists for directories MPICH ships without one (basic).
    #[arg(long, value_name = "DIR", default_value = "conformance/lists")]
    lists: PathBuf,
    /// apt's configuration directory (for trying the deb-src set-up elsewhere).
    #[arg(long, value_name = "DIR", default_value = "/etc/apt")]
    apt_etc: PathBuf,
}

/// `*`/`?` glob, or substring when `pat` has neither.
fn matches(pat: &str, s: &str) -> bool {
    if !pat.contains(['*', '?']) {
        return s.contains(pat);
    }
    fn go(p: &[u8], s: &[u8]) -> bool {
        match p.first() {
            None => s.is_empty(),
            Some(b'*') => (0..=s.len()).any(|i| go(&p[1..], &s[i..])),
            Some(b'?') => !s.is_empty() && go(&p[1..], &s[1..]),
            Some(c) => s.first() == Some(c) && go(&p[1..], &s[1..]),
        }
    }
    go(pat.as_bytes(), s.as_bytes())
}

/// Run `f` over `items` on `jobs` threads; results in order.
fn parallel<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= items.len() {
                    break;
                }
                let r = f(i, &items[i]);
                out.lock().unwrap()[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

/// The tests to run.
fn select(a: &Args, root: &Path, notes: &mut Vec<String>) -> Result<Vec<TestCase>, String> {
    let mut tests = vec![];
    if a.ci {
        let text = std::fs::read_to_string(&a.ci_list)
            .map_err(|e| format!("{}: {e}", a.ci_list.display()))?;
        tests.extend(text.lines().filter_map(|l| testlist::parse_line("", l)));
    } else {
        let dirs: Vec<String> = if a.dirs.is_empty() {
            report::ISSUE_DIRS.iter().map(|s| s.to_string()).collect()
        } else {
            a.dirs.clone()
        };
        let mut unknown = vec![];
        for d in &dirs {
            let d = d.trim_matches('/');
            if testlist::list_file(root, d).is_some() {
                testlist::collect(root, d, &mut tests, &mut unknown)?;
            } else {
                let own = a.lists.join(format!("{d}.txt"));
                let text = std::fs::read_to_string(&own).map_err(|_| {
                    format!(
                        "{d}: MPICH has no list there and there is no {}",
                        own.display()
                    )
                })?;
                notes.push(format!(
                    "{d}: MPICH ships no testlist; the list is {}",
                    own.display()
                ));
                tests.extend(text.lines().filter_map(|l| testlist::parse_line(d, l)));
            }
        }
        unknown.sort();
        unknown.dedup();
        if !unknown.is_empty() {
            notes.push(format!(
                "unknown substitutions (lines dropped): {}",
                unknown.join(", ")
            ));
        }
    }
    if let Some(p) = &a.tests {
        tests.retain(|t| matches(p, &format!("{}/{}", t.dir, t.name)));
    }
    Ok(tests)
}

fn main() {
    exec::stop_jobs_on_interrupt();
    let a = Args::parse();
    match run(&a) {
        Ok(ok) => std::process::exit(if ok || !a.ci { 0 } else { 1 }),
        Err(e) => {
            eprintln!("vaced-conformance: {e}");
            std::process::exit(2);
        }
    }
}

/// Everything; `Ok(true)` when every test passed.
fn run(a: &Args) -> Result<bool, String> {
    let vaced = if a.vaced.is_dir() {
        a.vaced.join("vaced")
    } else {
        a.vaced.clone()
    };
    let vaced = vaced
        .canonicalize()
        .map_err(|e| format!("{}: {e} (build it: cargo build --release)", vaced.display()))?;
    let tools = tools::Tools::from_vaced(&vaced)?;
    let root = source::obtain(a.source.as_deref(), &a.cache, &a.apt_etc)?;
    let root = root.canonicalize().unwrap_or(root);
    let mut notes = vec![];
    let tests = select(a, &root, &mut notes)?;
    if tests.is_empty() {
        return Err("no test selected".into());
    }
    if a.list {
        for t in &tests {
            println!("{}", t.label());
        }
        for n in &notes {
            eprintln!("note: {n}");
        }
        return Ok(true);
    }
    let cores = a.cores.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get() as u32)
            .unwrap_or(1)
    });
    std::fs::create_dir_all(&a.build_dir).map_err(|e| format!("{}: {e}", a.build_dir.display()))?;
    let build = a.build_dir.canonicalize().unwrap_or(a.build_dir.clone());
    let _ = std::fs::remove_dir_all(a.out.join("logs"));
    std::fs::create_dir_all(a.out.join("logs")).map_err(|e| format!("{}: {e}", a.out.display()))?;
    let results = a.out.canonicalize().unwrap_or(a.out.clone());

    eprintln!(
        "vaced-conformance: {} tests from {}, vaced {}, -j {}, --cores {cores}",
        tests.len(),
        root.display(),
        vaced.display(),
        a.jobs
    );
    let sup = support::build(&tools, &root, &build)?;
    for (lib, e) in &sup.failed {
        notes.push(format!("support library {lib} not built: {e}"));
    }
    for (f, needs) in &sup.dropped {
        // Fortran subprograms are recorded in lower case.
        let lang = if f.chars().any(|c| c.is_ascii_uppercase()) {
            "C"
        } else {
            "Fortran"
        };
        notes.push(format!(
            "MTest's {f} ({lang}) left out (does not compile against vaced's mpi.h: {}); tests that call it are not built",
            needs.join(", ")
        ));
    }

    // Build each program once.
    let mut progs: Vec<(String, String)> = tests
        .iter()
        .map(|t| (t.dir.clone(), t.name.clone()))
        .collect();
    progs.sort();
    progs.dedup();
    let makefiles: BTreeMap<String, makefile::Makefile> = progs
        .iter()
        .map(|(d, _)| (d.clone(), makefile::Makefile::read(&root.join(d))))
        .collect();
    let done = AtomicUsize::new(0);
    let built = parallel(&progs, a.jobs, |_, (d, n)| {
        let b = compile::build(&tools, &sup, &root, &build, &makefiles[d], d, n);
        let k = done.fetch_add(1, Ordering::SeqCst) + 1;
        if b.bin.is_none() {
            eprintln!("[build {k}/{}] {d}/{n}: not built", progs.len());
        }
        b
    });
    let built: BTreeMap<(String, String), compile::Built> =
        progs.iter().cloned().zip(built).collect();

    // Run.
    let alone = RwLock::new(());
    let done = AtomicUsize::new(0);
    let seen: Mutex<BTreeMap<String, usize>> = Mutex::new(BTreeMap::new());
    let outcomes = parallel(&tests, a.jobs, |_, t| {
        let limit = t.time_limit.unwrap_or(180) as f64 * a.timeout_scale;
        let mut o = Outcome::new(t, limit);
        let k = {
            let mut s = seen.lock().unwrap();
            let e = s
                .entry(format!("{}/{}.{}", t.dir, t.name, t.np))
                .or_insert(0);
            *e += 1;
            *e - 1
        };
        let log = exec::log_path(&results, t, k);
        if let Some(p) = log.parent() {
            let _ = std::fs::create_dir_all(p);
        }
        o.log = log
            .strip_prefix(&results)
            .unwrap_or(&log)
            .to_string_lossy()
            .into_owned();
        let b = &built[&(t.dir.clone(), t.name.clone())];
        match &b.bin {
            None => {
                o.state = State::NotBuilt;
                o.reason = b.reason.clone();
                o.missing = b.missing.clone();
                let _ = std::fs::write(&log, &b.log);
            }
            Some(bin) => {
                // MPICH's I/O tests of one directory share file names (runtests
                // runs one test at a time): they run alone too
                let io_dir = t.dir == "io" || t.dir.ends_with("/io");
                let r = if t.mem.is_some() || t.lock.is_some() || io_dir {
                    let _g = alone.write().unwrap();
                    exec::run(
                        &tools.mpirun,
                        cores,
                        bin,
                        t,
                        Duration::from_secs_f64(limit),
                        &log,
                    )
                } else {
                    let _g = alone.read().unwrap();
                    exec::run(
                        &tools.mpirun,
                        cores,
                        bin,
                        t,
                        Duration::from_secs_f64(limit),
                        &log,
                    )
                };
                o.seconds = r.seconds;
                match r.verdict {
                    exec::Verdict::Passed => o.state = State::Passed,
                    exec::Verdict::TimedOut => {
                        o.state = State::TimedOut;
                        o.reason = format!("time limit {limit:.0} s");
                    }
                    exec::Verdict::Failed(why) => {
                        o.state = State::Failed;
                        o.reason = why;
                    }
                }
            }
        }
        let k = done.fetch_add(1, Ordering::SeqCst) + 1;
        eprintln!(
            "[{k}/{}] {}: {:?} ({:.1} s)",
            tests.len(),
            o.label,
            o.state,
            o.seconds
        );
        o
    });

    if exec::interrupted() {
        // The interrupt thread ends the process once the jobs are gone.
        std::thread::sleep(Duration::from_secs(60));
        return Err("interrupted".into());
    }
    let header = format!(
        "MPICH source: {}; vaced: {}; mpirun --cores {cores}; -j {}; time limits x{}",
        root.display(),
        vaced.display(),
        a.jobs,
        a.timeout_scale
    );
    let text = report::text(&outcomes, &notes);
    print!("{text}");
    let w = |f: &str, s: String| {
        let p = results.join(f);
        std::fs::write(&p, s).map_err(|e| format!("{}: {e}", p.display()))
    };
    w("summary.md", report::markdown(&outcomes, &notes, &header))?;
    w("results.json", report::json(&outcomes, &notes, &header))?;
    eprintln!(
        "vaced-conformance: wrote {}/summary.md, results.json and logs/",
        results.display()
    );
    Ok(outcomes.iter().all(|o| o.state == State::Passed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(matches("pt2pt/send*", "pt2pt/sendrecv1"));
        assert!(!matches("pt2pt/send*", "coll/sendrecv1"));
        assert!(matches("sendrecv", "pt2pt/sendrecv1"));
        assert!(matches("*/bcast?", "coll/bcast2"));
    }
}
