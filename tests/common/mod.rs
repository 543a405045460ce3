//! Shared helpers of the end-to-end tests: build the C programs of
//! `tests/programs` with our `mpicc`, run them with our `mpirun`, parse what
//! they print. The multi-call `vaced` binary is run under the names `mpicc`
//! and `mpirun` (argv[0]).
#![allow(dead_code)]

pub mod model;
pub mod npb;
pub mod report;

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a job may run before the test gives up on it.
pub const JOB_TIMEOUT: Duration = Duration::from_secs(300);

pub fn vaced() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_vaced"))
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Scratch directory of this test binary (`target/tmp/<test name>/`),
/// emptied on first use.
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let krate = module_path!().split("::").next().unwrap();
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(krate);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

/// Lock that survives a panicking holder (another test failing).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `cargo test` builds the cdylib `libvaced.so` into `target/<profile>/deps`
/// only; `cargo build` also puts it next to the `vaced` binary, where `mpicc`
/// links it from. Make sure the copy next to the binary is the fresh one
/// (else the programs would silently use a stale library, or none).
pub fn ensure_fresh_library() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let bin = vaced();
        let dir = bin.parent().unwrap();
        let built = dir.join("deps/libvaced.so");
        let linked = dir.join("libvaced.so");
        let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        if let Some(b) = mtime(&built) {
            if mtime(&linked).is_none_or(|l| l < b) {
                let tmp = dir.join(format!("libvaced.so.tmp{}", std::process::id()));
                std::fs::copy(&built, &tmp).unwrap();
                std::fs::rename(&tmp, &linked).unwrap();
            }
        }
    });
}

/// Runs `cmd` (a build step, `what` in messages); panics with its output
/// unless it succeeds.
pub fn run_ok(cmd: &mut Command, what: &str) {
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(
        o.status.success(),
        "{what} failed ({}):\n{}{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Compiles `src` with our `mpicc -O1 SRC -o OUT EXTRA...`; panics with the
/// compiler's output on failure.
pub fn mpicc(src: &Path, out: &Path, extra: &[&str]) {
    ensure_fresh_library();
    run_ok(
        Command::new(vaced())
            .arg0("mpicc")
            .arg("-O1")
            .arg(src)
            .arg("-o")
            .arg(out)
            .args(extra),
        &format!("mpicc {}", src.display()),
    );
}

/// `tests/programs/<name>.c`, compiled once per test binary.
pub fn program(name: &str) -> PathBuf {
    static BUILT: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);
    let mut built = lock(&BUILT);
    let map = built.get_or_insert_with(HashMap::new);
    if let Some(p) = map.get(name) {
        return p.clone();
    }
    let out = scratch().join(name);
    mpicc(&program_source(name), &out, &[]);
    map.insert(name.to_string(), out.clone());
    out
}

/// `tests/programs/<source>` (Fortran) built with our `mpif90 FLAGS`, or
/// None (with a message) when there is no gfortran: the caller's test then
/// passes without running it (scripts/deps.sh installs gfortran).
pub fn fortran_program(source: &str, flags: &[&str]) -> Option<PathBuf> {
    let have = Command::new("gfortran")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        eprintln!("SKIPPED: gfortran not found (scripts/deps.sh installs it)");
        return None;
    }
    ensure_fresh_library();
    let out = scratch().join(source.replace('.', "_"));
    run_ok(
        Command::new(vaced())
            .arg0("mpif90")
            .args(flags)
            .arg(program_source_file(source))
            .arg("-o")
            .arg(&out)
            .current_dir(scratch()),
        &format!("mpif90 {source}"),
    );
    Some(out)
}

/// `tests/programs/<name>.c` compiled under a file name of its own (to find
/// the job's processes by name in /proc).
pub fn program_as(name: &str, file_name: &str) -> PathBuf {
    let out = scratch().join(file_name);
    mpicc(&program_source(name), &out, &[]);
    out
}

pub fn program_source(name: &str) -> PathBuf {
    program_source_file(&format!("{name}.c"))
}

/// `tests/programs/<file>`.
fn program_source_file(file: &str) -> PathBuf {
    repo_root().join("tests/programs").join(file)
}

/// The exact-test target (tianhe1a at cpu.scale = 0) as a file.
pub fn exact_target() -> PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| write_target("tianhe1a-scale0.toml", model::TARGET_TOML))
        .clone()
}

/// Writes a target file into the scratch directory.
pub fn write_target(file_name: &str, text: &str) -> PathBuf {
    let p = scratch().join(file_name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A finished job.
#[derive(Debug)]
pub struct Job {
    /// mpirun's process id (0 where it is not known).
    pub pid: u32,
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub wall: Duration,
    /// The command line, for messages.
    pub cmdline: String,
}

impl Job {
    pub fn assert_success(&self) {
        assert!(
            self.status.success(),
            "{} failed: {}\n--- stdout\n{}\n--- stderr\n{}",
            self.cmdline,
            self.status,
            self.stdout,
            self.stderr
        );
        assert_no_failures(self);
    }

    /// A line-oriented dump of the job for assertion messages.
    pub fn dump(&self) -> String {
        format!(
            "{} -> {}\n--- stdout\n{}\n--- stderr\n{}",
            self.cmdline, self.status, self.stdout, self.stderr
        )
    }
}

/// Asserts that no rank printed a FAIL marker (data integrity checks).
pub fn assert_no_failures(job: &Job) {
    let bad: Vec<&str> = job
        .stdout
        .lines()
        .filter(|l| l.starts_with("FAIL"))
        .collect();
    assert!(bad.is_empty(), "ranks reported failures:\n{}", job.dump());
}

/// Options of one `mpirun` invocation.
#[derive(Debug, Clone)]
pub struct Run {
    pub n: u32,
    pub target: OsString,
    pub cores: Option<u32>,
    pub report: Option<PathBuf>,
    pub prog: PathBuf,
    pub args: Vec<String>,
    /// `--sync MODE`.
    pub sync: Option<String>,
    /// Extra environment for mpirun (and so the ranks).
    pub env: Vec<(String, String)>,
    /// Other mpirun options (before the program).
    pub options: Vec<OsString>,
}

impl Run {
    /// `mpirun -n N --target <exact target> prog`.
    pub fn exact(n: u32, prog: &Path) -> Run {
        Run::new(n, exact_target().as_os_str(), prog)
    }

    pub fn new(n: u32, target: impl Into<OsString>, prog: &Path) -> Run {
        Run {
            n,
            target: target.into(),
            cores: None,
            report: None,
            prog: prog.to_path_buf(),
            args: Vec::new(),
            sync: None,
            env: Vec::new(),
            options: Vec::new(),
        }
    }

    /// Another mpirun option, e.g. `option(&["--timeline", "t.json"])`.
    pub fn option<S: AsRef<std::ffi::OsStr>>(mut self, words: &[S]) -> Run {
        self.options
            .extend(words.iter().map(|w| w.as_ref().to_os_string()));
        self
    }

    pub fn sync(mut self, mode: &str) -> Run {
        self.sync = Some(mode.to_string());
        self
    }

    /// `VACED_HOST_JITTER=seed`: random host delays.
    pub fn jitter(mut self, seed: u64) -> Run {
        self.env
            .push(("VACED_HOST_JITTER".to_string(), seed.to_string()));
        self
    }

    pub fn cores(mut self, c: Option<u32>) -> Run {
        self.cores = c;
        self
    }

    pub fn report(mut self, path: &Path) -> Run {
        self.report = Some(path.to_path_buf());
        self
    }

    pub fn args<S: ToString>(mut self, args: &[S]) -> Run {
        self.args = args.iter().map(|a| a.to_string()).collect();
        self
    }

    fn argv(&self) -> Vec<OsString> {
        let mut v: Vec<OsString> = vec!["-n".into(), self.n.to_string().into()];
        v.push("--target".into());
        v.push(self.target.clone());
        if let Some(c) = self.cores {
            v.push("--cores".into());
            v.push(c.to_string().into());
        }
        if let Some(r) = &self.report {
            v.push("--report".into());
            v.push(r.into());
        }
        if let Some(m) = &self.sync {
            v.push("--sync".into());
            v.push(m.into());
        }
        v.extend(self.options.iter().cloned());
        v.push(self.prog.clone().into());
        v.extend(self.args.iter().map(OsString::from));
        v
    }

    /// Runs the job to its end (one job at a time per test binary, so wall
    /// times mean something and the host is not swamped).
    pub fn run(&self) -> Job {
        static ONE_JOB: Mutex<()> = Mutex::new(());
        let _g = lock(&ONE_JOB);
        self.spawn().finish(JOB_TIMEOUT)
    }

    /// Starts the job without waiting for it.
    pub fn spawn(&self) -> Running {
        mpirun_env(&self.argv(), false, &self.env)
    }

    /// Starts the job in a process group of its own, as a shell does for a
    /// foreground job (so that [`Running::signal_group`] acts like Ctrl-C
    /// in a terminal: the signal goes to every process of the group).
    pub fn spawn_as_foreground_job(&self) -> Running {
        mpirun(&self.argv(), true)
    }
}

/// Starts `mpirun ARGS` with stdout and stderr captured (in a new process
/// group if `own_group`).
pub fn mpirun(argv: &[OsString], own_group: bool) -> Running {
    mpirun_env(argv, own_group, &[])
}

/// [`mpirun`] with extra environment variables.
pub fn mpirun_env(argv: &[OsString], own_group: bool, env: &[(String, String)]) -> Running {
    let cmdline = format!(
        "{}mpirun {}",
        env.iter()
            .map(|(k, v)| format!("{k}={v} "))
            .collect::<String>(),
        argv.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let mut cmd = Command::new(vaced());
    cmd.arg0("mpirun")
        .args(argv)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if own_group {
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().expect("cannot run vaced as mpirun");
    let out = drain(child.stdout.take().unwrap());
    let err = drain(child.stderr.take().unwrap());
    Running {
        child,
        out,
        err,
        start: Instant::now(),
        cmdline,
    }
}

fn drain(mut r: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    })
}

/// A job in progress.
pub struct Running {
    child: Child,
    out: JoinHandle<String>,
    err: JoinHandle<String>,
    start: Instant,
    cmdline: String,
}

impl Running {
    /// Process id of mpirun.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// True once mpirun has exited.
    pub fn exited(&mut self) -> bool {
        self.child.try_wait().unwrap().is_some()
    }

    /// Sends a signal to mpirun (`sig` as kill(1) names it: "INT" for Ctrl-C).
    pub fn signal(&self, sig: &str) {
        assert!(self.try_signal(sig), "kill -{sig} {} failed", self.pid());
    }

    /// Sends a signal to mpirun's process group (see
    /// [`Run::spawn_as_foreground_job`]): what Ctrl-C in a terminal does.
    pub fn signal_group(&self, sig: &str) {
        let st = Command::new("kill")
            .arg(format!("-{sig}"))
            .arg("--")
            .arg(format!("-{}", self.pid()))
            .status()
            .is_ok_and(|s| s.success());
        assert!(st, "kill -{sig} -- -{} failed", self.pid());
    }

    fn try_signal(&self, sig: &str) -> bool {
        Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(self.pid().to_string())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Waits for the end of the job; after `timeout` it is interrupted
    /// (SIGINT, then SIGKILL) and the test fails.
    pub fn finish(mut self, timeout: Duration) -> Job {
        let deadline = self.start + timeout;
        let mut timed_out = false;
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            if Instant::now() >= deadline && !timed_out {
                timed_out = true;
                self.try_signal("INT");
                std::thread::sleep(Duration::from_secs(5));
                if self.child.try_wait().unwrap().is_none() {
                    let _ = self.child.kill();
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let wall = self.start.elapsed();
        let job = Job {
            pid: self.child.id(),
            status,
            stdout: self.out.join().unwrap(),
            stderr: self.err.join().unwrap(),
            wall,
            cmdline: self.cmdline,
        };
        assert!(
            !timed_out,
            "job still running after {timeout:?}:\n{}",
            job.dump()
        );
        job
    }
}

/// Exit code, or 128 + signal for a job killed by a signal.
/// Run `run`, whose report goes to `rep`: it must succeed and print no FAIL
/// line. Its stdout lines sorted (ranks' lines interleave differently from
/// run to run) and every rank's virtual time in ps.
pub fn lines_and_times(run: Run, rep: &Path) -> (Vec<String>, Vec<u64>) {
    let job = run.report(rep).run();
    job.assert_success();
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
    let mut lines: Vec<String> = job.stdout.lines().map(str::to_string).collect();
    lines.sort_unstable();
    let r = report::read(rep);
    let times = report::ranks(&r).iter().map(report::vtime_ps).collect();
    (lines, times)
}

pub fn exit_code(s: &ExitStatus) -> i32 {
    s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0))
}

/// One `TAG key=value ...` line printed by a test program.
#[derive(Debug, Clone)]
pub struct Record {
    pub line: String,
    pub fields: HashMap<String, String>,
}

impl Record {
    pub fn get(&self, key: &str) -> &str {
        self.fields
            .get(key)
            .unwrap_or_else(|| panic!("no `{key}=` in line `{}`", self.line))
    }

    pub fn int(&self, key: &str) -> i64 {
        self.get(key)
            .parse()
            .unwrap_or_else(|_| panic!("`{key}` is not an integer in `{}`", self.line))
    }

    /// A time printed by MPI_Wtime with %.17g, in integer picoseconds.
    pub fn ps(&self, key: &str) -> u64 {
        secs_to_ps(self.get(key))
    }
}

/// Lines of `stdout` that start with `tag` followed by a space.
pub fn records(stdout: &str, tag: &str) -> Vec<Record> {
    stdout
        .lines()
        .filter(|l| l.split_whitespace().next() == Some(tag))
        .map(|l| Record {
            line: l.to_string(),
            fields: l
                .split_whitespace()
                .skip(1)
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        })
        .collect()
}

/// Seconds as printed with %.17g (an exact double) to integer picoseconds.
/// Times of these magnitudes (< 1 s) round-trip exactly: ps / 1e12 as a
/// double, times 1e12 and rounded, gives back the integer.
pub fn secs_to_ps(s: &str) -> u64 {
    let x: f64 = s
        .parse()
        .unwrap_or_else(|_| panic!("`{s}` is not a number"));
    assert!(x.is_finite() && x >= 0.0, "bad time `{s}`");
    (x * 1e12).round() as u64
}

/// `(rank, op) -> time in ps` of every `tag` line with `rank=`, `op=` and `t=`.
/// Panics on a duplicate key.
pub fn times_by_rank_op(stdout: &str, tag: &str) -> HashMap<(i64, String), u64> {
    let mut map = HashMap::new();
    for r in records(stdout, tag) {
        let key = (r.int("rank"), r.get("op").to_string());
        let t = r.ps("t");
        assert!(map.insert(key.clone(), t).is_none(), "duplicate {key:?}");
    }
    map
}

/// The core-count variants every exact scenario is run with: the default,
/// one core, two cores. At cpu.scale = 0 all three must print the same times.
pub const CORE_VARIANTS: [Option<u32>; 3] = [None, Some(1), Some(2)];

/// Formats picoseconds as seconds for messages.
pub fn fmt_ps(ps: u64) -> String {
    format!("{ps} ps ({:.9} s)", ps as f64 / 1e12)
}

/// Formats a (virtual-time) value in seconds as a C program argument that
/// MPIX_Vaced_compute turns back into exactly `ps` picoseconds.
pub fn ps_arg(ps: u64) -> String {
    let s = format!("{:e}", ps as f64 / 1e12);
    assert_eq!(secs_to_ps(&s), ps);
    s
}

/// Compares expected and printed times; reports every difference at once.
pub fn assert_times<K: Ord + std::fmt::Debug>(
    what: &str,
    expected: &std::collections::BTreeMap<K, u64>,
    got: &std::collections::BTreeMap<K, u64>,
    dump: &str,
) {
    let mut errors = Vec::new();
    for (k, &e) in expected {
        match got.get(k) {
            None => errors.push(format!("{k:?}: missing, expected {}", fmt_ps(e))),
            Some(&g) if g != e => errors.push(format!(
                "{k:?}: got {}, expected {} (diff {} ps)",
                fmt_ps(g),
                fmt_ps(e),
                g as i128 - e as i128
            )),
            _ => {}
        }
    }
    for k in got.keys() {
        if !expected.contains_key(k) {
            errors.push(format!("{k:?}: printed but not expected"));
        }
    }
    assert!(
        errors.is_empty(),
        "{what}: {} wrong times:\n{}\n{dump}",
        errors.len(),
        errors.join("\n")
    );
}
