//! Failure modes of a job: a crashing rank, MPI_Abort, a rank that exits
//! without MPI_Finalize, a fatal MPI error (and the same error returned under
//! MPI_ERRORS_RETURN), a malformed target file, Ctrl-C. Each checks the
//! launcher's message, the exit status, that no process of the job is left
//! (the program runs under a file name of its own, looked for in
//! /proc/*/cmdline once mpirun has returned) and that no /dev/shm/vaced-*
//! file created during the test remains.
//!
//! These tests run one at a time (SERIAL) so that /dev/shm can be compared
//! before and after.
mod common;

use common::{exit_code, lock, model, program_as, Job, Run};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static SERIAL: Mutex<()> = Mutex::new(());

/// A file name no other process on this host uses.
fn unique_name(prog: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "{prog}-t{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

fn shm_entries() -> BTreeSet<String> {
    std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("vaced"))
                .collect()
        })
        .unwrap_or_default()
}

/// (pid, command line) of every process whose command line mentions `name`.
fn processes_named(name: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().filter_map(|e| e.ok()) {
        let pid = e.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if let Ok(raw) = std::fs::read(e.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&raw).replace('\0', " ");
            if cmd.contains(name) {
                found.push((pid, cmd));
            }
        }
    }
    found
}

/// Asserts that nothing of the job is left: no process running `name`, no
/// new /dev/shm/vaced* entry. Entries of other people's concurrent jobs come
/// and go, so a new entry must still be there after 3 s to count.
fn assert_clean(shm_before: &BTreeSet<String>, name: &str, job: &Job) {
    let procs = processes_named(name);
    assert!(
        procs.is_empty(),
        "processes of the job are still running after mpirun returned: {procs:?}\n{}",
        job.dump()
    );
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left: Vec<String> = shm_entries().difference(shm_before).cloned().collect();
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "shared memory left in /dev/shm: {left:?}\n{}",
            job.dump()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Builds `prog` under a unique name, runs it on `n` ranks (exact target),
/// checks the job left nothing behind.
fn run_failing(prog: &str, n: u32, args: &[&str]) -> Job {
    let _serial = lock(&SERIAL);
    let name = unique_name(prog);
    let exe = program_as(prog, &name);
    let before = shm_entries();
    let job = Run::exact(n, &exe).args(args).run();
    assert_clean(&before, &name, &job);
    job
}

/// Case-insensitive `contains`.
fn mentions(text: &str, what: &str) -> bool {
    text.to_lowercase().contains(&what.to_lowercase())
}

/// True if `n` appears in `text` as a number of its own (not part of a
/// longer number or word).
fn mentions_number(text: &str, n: i64) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w == n.to_string())
}

fn assert_mentions(job: &Job, what: &[&str]) {
    for w in what {
        assert!(
            mentions(&job.stderr, w),
            "mpirun's message does not mention `{w}`:\n{}",
            job.dump()
        );
    }
}

/// How long a job may take to be torn down after a rank failed (each test
/// program waits 0.2 s before failing, so the others are blocked by then).
const TEARDOWN: Duration = Duration::from_secs(5);

#[test]
fn crashing_rank_ends_the_job() {
    let job = run_failing("crash", 4, &[]);
    assert!(!job.status.success(), "{}", job.dump());
    assert_mentions(&job, &["rank 2", "SIGSEGV"]);
    assert!(job.wall < TEARDOWN, "took {:?}\n{}", job.wall, job.dump());
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
}

#[test]
fn mpi_abort_ends_the_job_with_its_code() {
    let job = run_failing("abort", 4, &[]);
    assert_eq!(exit_code(&job.status), 7, "{}", job.dump());
    assert_mentions(&job, &["rank 1"]);
    assert!(
        mentions_number(&job.stderr, 7),
        "the message does not give the code 7:\n{}",
        job.dump()
    );
    assert!(job.wall < TEARDOWN, "took {:?}\n{}", job.wall, job.dump());
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
}

#[test]
fn deadlock_is_detected_and_reported() {
    // Every rank receives from its right neighbour before anyone sends.
    let job = run_failing("deadlock", 4, &[]);
    assert_eq!(exit_code(&job.status), 1, "{}", job.dump());
    assert_mentions(&job, &["deadlock"]);
    for r in 0..4 {
        let line = format!(
            "rank {r}: waiting for: receive from rank {} with tag 7 (in MPI_Recv)",
            (r + 1) % 4
        );
        assert!(
            job.stderr.contains(&line),
            "missing `{line}`:\n{}",
            job.dump()
        );
    }
    assert!(job.wall < TEARDOWN, "took {:?}\n{}", job.wall, job.dump());
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
}

#[test]
fn exit_without_finalize_ends_the_job() {
    let job = run_failing("no_finalize", 4, &[]);
    assert!(!job.status.success(), "{}", job.dump());
    assert_mentions(&job, &["rank 3", "without", "MPI_Finalize"]);
    assert!(job.wall < TEARDOWN, "took {:?}\n{}", job.wall, job.dump());
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
}

#[test]
fn fatal_mpi_error_ends_the_job() {
    // MPI_Send to rank 99 of 4 under the default MPI_ERRORS_ARE_FATAL.
    let job = run_failing("bad_rank", 4, &["fatal"]);
    assert!(!job.status.success(), "{}", job.dump());
    assert_mentions(&job, &["rank 1", "MPI_Send"]);
    assert!(job.wall < TEARDOWN, "took {:?}\n{}", job.wall, job.dump());
    assert!(
        !job.stdout.contains("err rank=1"),
        "the erroneous call returned:\n{}",
        job.dump()
    );
}

#[test]
fn mpi_errors_return_gives_the_error_class() {
    // The same call under MPI_ERRORS_RETURN returns MPI_ERR_RANK (6) and the
    // job carries on to a normal end.
    let job = run_failing("bad_rank", 4, &["return"]);
    job.assert_success();
    let err = common::records(&job.stdout, "err");
    assert_eq!(err.len(), 1, "{}", job.dump());
    assert_eq!(err[0].int("class"), 6, "MPI_ERR_RANK\n{}", job.dump());
    assert!(err[0].int("len") > 0, "empty MPI_Error_string");
    let done: BTreeSet<i64> = common::records(&job.stdout, "done")
        .iter()
        .map(|r| {
            assert_eq!(r.int("x"), 42);
            r.int("rank")
        })
        .collect();
    assert_eq!(done, BTreeSet::from([0, 2, 3]), "{}", job.dump());
}

/// A malformed target file is refused before any rank starts.
fn malformed_target(text: &str, key: &str) {
    let _serial = lock(&SERIAL);
    assert_ne!(text, model::TARGET_TOML);
    let name = unique_name("marker");
    let exe = program_as("marker", &name);
    let target = common::write_target(&format!("{name}.toml"), text);
    let marker = common::scratch().join(format!("{name}.started"));
    let before = shm_entries();
    let job = Run::new(4, target.as_os_str(), &exe)
        .args(&[marker.to_string_lossy()])
        .run();
    assert_clean(&before, &name, &job);
    assert_eq!(exit_code(&job.status), 2, "{}", job.dump());
    assert!(
        job.stderr.contains(key),
        "the error does not name `{key}`:\n{}",
        job.dump()
    );
    assert!(
        !marker.exists(),
        "a rank was started despite the bad target file"
    );
}

#[test]
fn misspelled_target_key_is_an_error() {
    let text = model::TARGET_TOML.replace("mem_bandwidth", "mem_bandwith");
    malformed_target(&text, "mem_bandwith");
}

#[test]
fn target_value_without_unit_is_an_error() {
    let text = model::TARGET_TOML.replace("\"4.16 GB/s\"", "\"4.16\"");
    malformed_target(&text, "net_bandwidth");
}

#[test]
fn good_target_file_starts_the_ranks() {
    // The control experiment of the two tests above: the same program with
    // the unaltered file runs, and each rank creates the marker.
    let _serial = lock(&SERIAL);
    let name = unique_name("marker");
    let exe = program_as("marker", &name);
    let marker = common::scratch().join(format!("{name}.started"));
    let job = Run::exact(2, &exe).args(&[marker.to_string_lossy()]).run();
    job.assert_success();
    assert!(marker.exists(), "{}", job.dump());
}

/// Starts a job whose ranks all block forever, waits until its ranks run,
/// interrupts it (SIGINT to mpirun, or to its whole process group when
/// `foreground`) and checks that it ends cleanly.
fn interrupted_job(foreground: bool) {
    let _serial = lock(&SERIAL);
    const N: usize = 8;
    let name = unique_name("block");
    let exe = program_as("block", &name);
    let before = shm_entries();
    let run = Run::exact(N as u32, &exe);
    let mut running = if foreground {
        run.spawn_as_foreground_job()
    } else {
        run.spawn()
    };
    // Wait until the ranks are up (mpirun's own command line names the
    // program too), then interrupt.
    let deadline = Instant::now() + Duration::from_secs(60);
    while processes_named(&name).len() < N {
        if running.exited() {
            let job = running.finish(Duration::from_secs(10));
            panic!("the job ended before it was interrupted:\n{}", job.dump());
        }
        assert!(
            Instant::now() < deadline,
            "the job did not start: {:?}",
            processes_named(&name)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    let sent = Instant::now();
    if foreground {
        running.signal_group("INT");
    } else {
        running.signal("INT");
    }
    let job = running.finish(Duration::from_secs(120));
    let teardown = sent.elapsed();
    assert_clean(&before, &name, &job);
    assert!(!job.status.success(), "{}", job.dump());
    assert!(teardown < TEARDOWN, "took {teardown:?}\n{}", job.dump());
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
}

#[test]
fn sigint_to_mpirun_ends_the_job() {
    interrupted_job(false);
}

#[test]
fn ctrl_c_ends_the_job() {
    // SIGINT to the whole foreground process group, as a terminal sends it.
    interrupted_job(true);
}
