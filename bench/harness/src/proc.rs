//! Running one benchmark job: a process group of its own, a wall-clock limit,
//! the CPU time of the whole job (user + system of the launcher and every
//! descendant it waited for, from wait4) and its peak memory (see memory.rs).
//! This and netns.rs (geteuid, signal masks, sigwait, kill) are the only
//! files of the harness with unsafe code (here: fork hooks, wait4, kill).
use crate::memory::{group_pss, JobCgroup, MemMethod};
use std::ffi::OsString;
use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// What to run.
pub struct JobSpec {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    /// stdout and stderr go to these files.
    pub stdout: PathBuf,
    pub stderr: PathBuf,
    pub timeout: Duration,
    /// Measure the job's peak memory.
    pub memory: bool,
}

/// How a job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
    TimedOut,
}

impl Exit {
    pub fn ok(self) -> bool {
        self == Exit::Code(0)
    }
    pub fn describe(self, timeout: Duration) -> String {
        match self {
            Exit::Code(c) => format!("exit status {c}"),
            Exit::Signal(s) => format!("killed by signal {s}"),
            Exit::TimedOut => format!("> {} s (timeout)", timeout.as_secs()),
        }
    }
}

/// What a job cost.
#[derive(Clone, Debug)]
pub struct JobResult {
    pub exit: Exit,
    pub wall_s: f64,
    /// user + system CPU seconds of the job's processes.
    pub cpu_s: f64,
    pub peak_mem: Option<(u64, MemMethod)>,
}

fn tv_secs(t: libc::timeval) -> f64 {
    t.tv_sec as f64 + t.tv_usec as f64 * 1e-6
}

fn kill(pid: i32, sig: i32) {
    // SAFETY: kill(2) takes plain integers; a stale pid only yields ESRCH.
    unsafe {
        libc::kill(pid, sig);
    }
}

/// Sends `sig` to the job: its process group, and every process left in its
/// cgroup (launchers such as MPICH's may put ranks in groups of their own).
fn signal_job(pgid: i32, cg: Option<&JobCgroup>, sig: i32) {
    kill(-pgid, sig);
    if let Some(cg) = cg {
        for p in cg.pids() {
            kill(p, sig);
        }
    }
}

/// Runs a job to its end or its time limit.
pub fn run(spec: &JobSpec) -> std::io::Result<JobResult> {
    let out = File::create(&spec.stdout)?;
    let err = File::create(&spec.stderr)?;
    let cg = if spec.memory {
        static SEQ: AtomicU32 = AtomicU32::new(0);
        JobCgroup::create(&format!(
            "vaced-bench-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ))
    } else {
        None
    };
    let procs = match &cg {
        Some(c) => Some(c.procs_file()?),
        None => None,
    };
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args)
        .current_dir(&spec.cwd)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0);
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    if let Some(f) = &procs {
        let fd = f.as_raw_fd();
        // SAFETY: the hook runs in the forked child before exec; it only calls
        // the async-signal-safe getpid and write on an fd opened above, and
        // formats into a stack buffer (no allocation, no locks).
        unsafe {
            cmd.pre_exec(move || {
                let mut buf = [0u8; 16];
                let mut n = libc::getpid() as u32;
                let mut i = buf.len();
                loop {
                    i -= 1;
                    buf[i] = b'0' + (n % 10) as u8;
                    n /= 10;
                    if n == 0 {
                        break;
                    }
                }
                let len = buf.len() - i;
                if libc::write(fd, buf[i..].as_ptr().cast(), len) != len as isize {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let start = Instant::now();
    let child = cmd.spawn().map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!("cannot start {}: {e}", spec.program.display()),
        )
    })?;
    drop(procs);
    let pid = child.id() as i32;
    let mut status = 0;
    // SAFETY: rusage is plain old data; zeroed is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let mut pss_peak = 0u64;
    let mut last_sample = Instant::now() - Duration::from_secs(1);
    let mut deadline_hit: Option<Instant> = None;
    loop {
        // SAFETY: pid is our child; status and ru are valid out-pointers.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
        if r == pid {
            break;
        }
        if r < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if cg.is_none() && spec.memory && last_sample.elapsed() >= Duration::from_millis(200) {
            last_sample = Instant::now();
            pss_peak = pss_peak.max(group_pss(pid));
        }
        match deadline_hit {
            None if start.elapsed() >= spec.timeout => {
                deadline_hit = Some(Instant::now());
                signal_job(pid, cg.as_ref(), libc::SIGTERM);
            }
            Some(t) if t.elapsed() >= Duration::from_secs(3) => {
                signal_job(pid, cg.as_ref(), libc::SIGKILL);
            }
            _ => {}
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let wall_s = start.elapsed().as_secs_f64();
    if deadline_hit.is_some() {
        signal_job(pid, cg.as_ref(), libc::SIGKILL);
    }
    let exit = if deadline_hit.is_some() {
        Exit::TimedOut
    } else if libc::WIFEXITED(status) {
        Exit::Code(libc::WEXITSTATUS(status))
    } else {
        Exit::Signal(libc::WTERMSIG(status))
    };
    let peak_mem = match &cg {
        Some(c) => c.peak().map(|b| (b, c.method)),
        None if spec.memory => Some((pss_peak, MemMethod::PssSampling)),
        None => None,
    };
    Ok(JobResult {
        exit,
        wall_s,
        cpu_s: tv_secs(ru.ru_utime) + tv_secs(ru.ru_stime),
        peak_mem,
    })
}

/// Runs a short command to its end (builds, tool queries); its output is
/// returned, or an error naming the command and showing its output.
pub fn run_tool(
    program: &Path,
    args: &[&str],
    cwd: &Path,
    env: &[(&str, &str)],
) -> Result<String, String> {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(cwd);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(format!(
            "`{} {}` failed ({}):\n{}{}",
            program.display(),
            args.join(" "),
            out.status,
            text,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(text)
}
