//! Running one built test: `mpirun -q -n N --cores C ./prog args` in the
//! test's build directory with its `env=` variables, under its time limit,
//! output (stdout and stderr together, as runtests reads them) in a log file;
//! then runtests' verdict on it.
//!
//! Time limits: mpirun gets MPIEXEC_TIMEOUT = the limit (as runtests sets it:
//! a launcher that honours it ends the job itself, which init/timeout tests);
//! mpirun runs in a process group of its own and, 5 s past the limit, it
//! gets SIGTERM (it kills its ranks and removes the job's shared memory),
//! then SIGKILL after a grace period. Whatever is left of the job afterwards
//! (rank processes, found by their VACED_JOB variable, which starts with
//! mpirun's pid, and /dev/shm/vaced-<mpirun pid>-* files) is killed/removed.

use crate::testlist::TestCase;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed(String),
    TimedOut,
}

/// The result of running one test.
#[derive(Debug, Clone)]
pub struct Ran {
    pub verdict: Verdict,
    pub seconds: f64,
}

/// The mpirun processes (= process groups) running now.
static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Set once an interrupt came: no new job starts.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Block SIGINT, SIGTERM and SIGHUP in this thread and every thread started
/// after (call first thing in main), and end the jobs running when one comes:
/// mpirun runs in a process group of its own, so a Ctrl-C at the terminal
/// would not reach it. Children get an empty signal mask (std resets it).
pub fn stop_jobs_on_interrupt() {
    // SAFETY: sigset_t is plain data initialised by sigemptyset/sigaddset;
    // pthread_sigmask only changes this thread's mask.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, s);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    };
    std::thread::spawn(move || {
        let mut sig: libc::c_int = 0;
        // SAFETY: waits for one of the blocked signals of `set`.
        if unsafe { libc::sigwait(&set, &mut sig) } != 0 {
            return;
        }
        STOPPING.store(true, Ordering::SeqCst);
        let pids: Vec<i32> = RUNNING.lock().unwrap_or_else(|e| e.into_inner()).clone();
        eprintln!(
            "vaced-conformance: interrupted (signal {sig}): ending {} running job(s)",
            pids.len()
        );
        for &p in &pids {
            // SAFETY: plain kill(2) of a process group we created.
            unsafe { libc::kill(-p, libc::SIGTERM) };
        }
        std::thread::sleep(GRACE);
        // And any job that started while we were stopping the others.
        let mut pids = pids;
        pids.extend(RUNNING.lock().unwrap_or_else(|e| e.into_inner()).iter());
        for &p in &pids {
            // SAFETY: as above.
            unsafe { libc::kill(-p, libc::SIGKILL) };
            clean_job(p as u32);
        }
        std::process::exit(128 + sig);
    });
}

/// Whether an interrupt came (the run's results are incomplete).
pub fn interrupted() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// How long mpirun gets past the limit before SIGTERM, and between SIGTERM
/// and SIGKILL.
const GRACE: Duration = Duration::from_secs(5);

/// Run `t` (built as `bin`), writing its output to `log`.
pub fn run(
    mpirun: &Path,
    cores: u32,
    bin: &Path,
    t: &TestCase,
    limit: Duration,
    log: &Path,
) -> Ran {
    let began = Instant::now();
    let out = match std::fs::File::create(log) {
        Ok(f) => f,
        Err(e) => return failed(format!("cannot create {}: {e}", log.display()), began),
    };
    let err = match out.try_clone() {
        Ok(f) => f,
        Err(e) => return failed(format!("cannot dup the log: {e}"), began),
    };
    let mut cmd = Command::new(mpirun);
    cmd.arg("-q")
        .arg("-n")
        .arg(t.np.to_string())
        .arg("--cores")
        .arg(cores.to_string())
        .arg(bin)
        .args(&t.args)
        .current_dir(bin.parent().unwrap_or(Path::new(".")))
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .env("VACED_PROGRESS", "0")
        .env("MPIEXEC_TIMEOUT", limit.as_secs().max(1).to_string())
        .process_group(0);
    for (k, v) in &t.env {
        cmd.env(k, v);
    }
    if STOPPING.load(Ordering::SeqCst) {
        return failed("interrupted".into(), began);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return failed(format!("cannot start {}: {e}", mpirun.display()), began),
    };
    let pid = child.id() as i32;
    RUNNING.lock().unwrap_or_else(|e| e.into_inner()).push(pid);
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) => {}
            Err(_) => break None,
        }
        if !timed_out && began.elapsed() > limit + GRACE {
            timed_out = true;
            // SAFETY: plain kill(2) of the process group we created.
            unsafe { libc::kill(-pid, libc::SIGTERM) };
            let term = Instant::now();
            let s = loop {
                if let Ok(Some(s)) = child.try_wait() {
                    break Some(s);
                }
                if term.elapsed() > GRACE {
                    // SAFETY: as above.
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                    break child.wait().ok();
                }
                std::thread::sleep(Duration::from_millis(50));
            };
            break s;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let seconds = began.elapsed().as_secs_f64();
    clean_job(pid as u32);
    RUNNING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|&p| p != pid);
    let code = status.and_then(|s| s.code());
    if timed_out {
        let _ = append(
            log,
            &format!("\n[vaced-conformance: killed {GRACE:?} after the time limit of {limit:?}]\n"),
        );
        return Ran {
            verdict: Verdict::TimedOut,
            seconds,
        };
    }
    let text = std::fs::read(log)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    Ran {
        verdict: judge(&program_output(&text), code, t.result_test.as_deref()),
        seconds,
    }
}

fn failed(msg: String, began: Instant) -> Ran {
    Ran {
        verdict: Verdict::Failed(msg),
        seconds: began.elapsed().as_secs_f64(),
    }
}

fn append(path: &Path, s: &str) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)?
        .write_all(s.as_bytes())
}

/// The program's own output: the log without the report mpirun prints on
/// stderr when the job completed ("vaced: predicted time on ..." and its
/// indented lines).
pub fn program_output(log: &str) -> String {
    let mut out = String::new();
    let mut in_report = false;
    for l in log.lines() {
        if l.starts_with("vaced: predicted time on ") {
            in_report = true;
            continue;
        }
        if in_report && l.starts_with("  ") {
            continue;
        }
        in_report = false;
        out.push_str(l);
        out.push('\n');
    }
    out
}

fn no_errors(l: &str) -> bool {
    let t = l.trim();
    t == "No Errors" || t == "No errors"
}

/// runtests' verdict on a finished run (`code`: mpirun's exit status).
/// Default: exit 0, a " No Errors" line and no other output except
/// "Test Passed" lines. TestStatus and TestErrFatal: a non-zero exit
/// (runtests' TestStatus stops reading at the first line, so output does not
/// matter in practice). TestStatusNoErrors: a non-zero exit, a " No Errors"
/// line and nothing else.
pub fn judge(out: &str, code: Option<i32>, result_test: Option<&str>) -> Verdict {
    // mpirun ended the job at MPIEXEC_TIMEOUT (the test's limit): a time-out,
    // unless the test wants a non-zero status (init/timeout)
    let expects_failure = matches!(result_test, Some("TestStatus") | Some("TestErrFatal"));
    if code == Some(124) && out.contains("ran past MPIEXEC_TIMEOUT") && !expects_failure {
        return Verdict::TimedOut;
    }
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| !l.contains("FORTRAN STOP"))
        .collect();
    let unexpected = lines
        .iter()
        .find(|l| !l.trim().is_empty() && !no_errors(l) && l.trim() != "Test Passed");
    let found = lines.iter().any(|l| no_errors(l));
    let status = match code {
        Some(c) => format!("exit status {c}"),
        None => "killed by a signal".to_string(),
    };
    match result_test {
        Some("TestStatus") | Some("TestErrFatal") => {
            if code == Some(0) {
                Verdict::Failed("exited 0 but the test requires a non-zero status".into())
            } else {
                Verdict::Passed
            }
        }
        // vaced-conformance's own, for basic/ (whose programs print progress):
        // exit status 0, any output.
        Some("ExitZero") => {
            if code == Some(0) {
                Verdict::Passed
            } else {
                Verdict::Failed(status)
            }
        }
        Some("TestStatusNoErrors") => {
            if code == Some(0) {
                Verdict::Failed("exited 0 but the test requires a non-zero status".into())
            } else if let Some(u) = unexpected {
                Verdict::Failed(format!("unexpected output: {}", u.trim()))
            } else if !found {
                Verdict::Failed("no \" No Errors\" line".into())
            } else {
                Verdict::Passed
            }
        }
        _ => {
            if let Some(u) = unexpected {
                Verdict::Failed(format!("{}: {}", status, u.trim()))
            } else if code != Some(0) {
                Verdict::Failed(status)
            } else if !found {
                Verdict::Failed("no \" No Errors\" line".into())
            } else {
                Verdict::Passed
            }
        }
    }
}

/// Kill what is left of the job mpirun `pid` ran (rank processes whose
/// VACED_JOB starts with "<pid>-") and remove its /dev/shm files.
pub fn clean_job(pid: u32) {
    let prefix = format!("VACED_JOB={pid}-");
    if let Ok(procs) = std::fs::read_dir("/proc") {
        for p in procs.flatten() {
            let Some(n) = p.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                continue;
            };
            let Ok(env) = std::fs::read(p.path().join("environ")) else {
                continue;
            };
            if env
                .split(|&b| b == 0)
                .any(|v| v.starts_with(prefix.as_bytes()))
            {
                // SAFETY: plain kill(2) of a rank process of our job.
                unsafe { libc::kill(n, libc::SIGKILL) };
            }
        }
    }
    let shm = format!("vaced-{pid}-");
    if let Ok(files) = std::fs::read_dir("/dev/shm") {
        for f in files.flatten() {
            if f.file_name().to_string_lossy().starts_with(&shm) {
                let _ = std::fs::remove_file(f.path());
            }
        }
    }
}

/// Where a test's log goes: `<results>/logs/<dir>/<name>.<np>[.<k>].log`.
pub fn log_path(results: &Path, t: &TestCase, k: usize) -> PathBuf {
    let base = if k == 0 {
        format!("{}.{}.log", t.name, t.np)
    } else {
        format!("{}.{}.{k}.log", t.name, t.np)
    };
    results.join("logs").join(&t.dir).join(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        assert_eq!(judge(" No Errors\n", Some(0), None), Verdict::Passed);
        // mpirun's own time-out (MPIEXEC_TIMEOUT)
        let late = "mpirun: the job ran past MPIEXEC_TIMEOUT (5 s of wall-clock time); \
                    all ranks were killed\n";
        assert_eq!(judge(late, Some(124), None), Verdict::TimedOut);
        assert_eq!(
            judge(late, Some(124), Some("TestErrFatal")),
            Verdict::Passed
        );
        assert_eq!(
            judge(" No Errors\nTest Passed\n", Some(0), None),
            Verdict::Passed
        );
        assert!(matches!(
            judge("oops\n No Errors\n", Some(0), None),
            Verdict::Failed(_)
        ));
        assert!(matches!(
            judge(" No Errors\n", Some(1), None),
            Verdict::Failed(_)
        ));
        assert!(matches!(judge("", Some(0), None), Verdict::Failed(_)));
        assert_eq!(
            judge("abort!\n", Some(1), Some("TestStatus")),
            Verdict::Passed
        );
        assert!(matches!(
            judge("", Some(0), Some("TestErrFatal")),
            Verdict::Failed(_)
        ));
        assert_eq!(
            judge(" No Errors\n", Some(3), Some("TestStatusNoErrors")),
            Verdict::Passed
        );
    }

    /// A stand-in for mpirun: a shell script (it gets mpirun's arguments).
    fn fake_mpirun(dir: &Path, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn runs_judges_and_kills_at_the_limit() {
        let dir = std::env::temp_dir().join(format!("vaced-conf-exec-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let t = crate::testlist::parse_line("pt2pt", "x 2 arg=-a env=FOO=bar").unwrap();
        let bin = dir.join("x");
        let log = dir.join("x.log");
        // Arguments and environment reach mpirun; a clean " No Errors" passes.
        let ok = fake_mpirun(
            &dir,
            "ok",
            r#"[ "$*" = "-q -n 2 --cores 3 $(dirname $0)/x -a" ] && [ "$FOO" = bar ] && [ "$MPIEXEC_TIMEOUT" = 60 ] && echo ' No Errors'"#,
        );
        let r = run(&ok, 3, &bin, &t, Duration::from_secs(60), &log);
        assert_eq!(r.verdict, Verdict::Passed);
        let bad = fake_mpirun(&dir, "bad", "echo oops; echo ' No Errors'");
        let r = run(&bad, 3, &bin, &t, Duration::from_secs(60), &log);
        assert_eq!(r.verdict, Verdict::Failed("exit status 0: oops".into()));
        // Past the limit (+ GRACE) the whole process group goes, children too.
        let pidfile = dir.join("child.pid");
        let hang = fake_mpirun(
            &dir,
            "hang",
            &format!("sleep 300 & echo $! > {}; wait", pidfile.display()),
        );
        let r = run(&hang, 3, &bin, &t, Duration::from_secs(0), &log);
        assert_eq!(r.verdict, Verdict::TimedOut);
        assert!(r.seconds < 20.0);
        let child: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let state = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
        // Gone, or a zombie waiting for init to reap it.
        assert!(state.is_empty() || state.contains(") Z "), "{state}");
        assert!(std::fs::read_to_string(&log)
            .unwrap()
            .contains("after the time limit"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn strips_the_report() {
        let log =
            " No Errors\nvaced: predicted time on tianhe1a: 1 us\n  per rank  min\n  target x\n";
        assert_eq!(program_output(log), " No Errors\n");
    }
}
