//! vaced's MPICH (`mpich-patch/`: MPICH 4.0.2 with vaced's engine in its
//! CH3 device): programs built with its `mpicc` and run by `mpirun --mpich`
//! get the predictions vaced's own library gives, to the picosecond at
//! `cpu.scale = 0`.
//!
//! These tests need the patched MPICH built (`mpich-patch/build.sh`, about
//! 10 minutes on 2 cores), so they are ignored by a plain `cargo test`;
//! `./test.sh` builds it and runs them with `--ignored`. The prefix is
//! `$VACED_MPICH`, else `target/mpich-vaced`.
mod common;

use common::{
    exit_code, lines_and_times, program, program_source, repo_root, report, run_ok, scratch, Run,
    CORE_VARIANTS,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn prefix() -> PathBuf {
    match std::env::var_os("VACED_MPICH") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => repo_root().join("target/mpich-vaced"),
    }
}

/// `tests/programs/<name>.c` built with vaced's MPICH's mpicc.
fn mpich_program(name: &str) -> PathBuf {
    let mpicc = prefix().join("bin/mpicc");
    assert!(
        mpicc.is_file(),
        "{} is missing: build vaced's MPICH first (mpich-patch/build.sh)",
        mpicc.display()
    );
    let out = scratch().join(format!("{name}.mpich"));
    // built aside and renamed into place: another test may be running the
    // same program while this one builds it
    let tmp = scratch().join(format!("{name}.mpich.{:?}", std::thread::current().id()));
    run_ok(
        Command::new(&mpicc)
            .arg("-O1")
            .arg(program_source(name))
            .arg("-o")
            .arg(&tmp),
        &format!("{} {name}.c", mpicc.display()),
    );
    std::fs::rename(&tmp, &out).unwrap();
    out
}

/// Sorted stdout lines and every rank's virtual time (ps) of `prog args`
/// on `n` ranks, through vaced's MPICH (with `env`) or vaced's own library.
fn outcome(prog: &Path, mpich: Option<&[(&str, &str)]>, n: u32, args: &[&str]) -> Outcome {
    outcome_on(prog, mpich, n, args, None)
}

/// [`outcome`] with `--cores cores` (None: the default).
fn outcome_on(
    prog: &Path,
    mpich: Option<&[(&str, &str)]>,
    n: u32,
    args: &[&str],
    cores: Option<u32>,
) -> Outcome {
    let tag = if mpich.is_some() { "mpich" } else { "vaced" };
    let name = prog.file_name().unwrap().to_string_lossy().to_string();
    let rep = scratch().join(format!(
        "{name}-{tag}-{n}-{}-{cores:?}.json",
        args.join("_")
    ));
    let mut run = Run::exact(n, prog).args(args).cores(cores);
    if let Some(env) = mpich {
        let p = format!("--mpich={}", prefix().display());
        run = run.option(&[p.as_str()]);
        run.env
            .extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    }
    lines_and_times(run, &rep)
}

/// The collectives `coll_one` runs (with an `i` before: the nonblocking ones).
const COLLECTIVES: [&str; 16] = [
    "bcast",
    "reduce",
    "allreduce",
    "gather",
    "scatter",
    "allgather",
    "alltoall",
    "gatherv",
    "scatterv",
    "allgatherv",
    "alltoallv",
    "reduce_scatter_block",
    "reduce_scatter",
    "scan",
    "exscan",
    "barrier",
];

/// Sorted stdout lines and every rank's virtual time (ps).
type Outcome = (Vec<String>, Vec<u64>);

/// `prog args` on `n` ranks: through vaced's MPICH (with `env`) as through
/// vaced's own library, to the picosecond.
fn same_through_mpich(prog: &str, n: u32, args: &[&str], env: &[(&str, &str)]) {
    let a = outcome(&program(prog), None, n, args);
    let b = outcome(&mpich_program(prog), Some(env), n, args);
    assert!(!a.0.is_empty(), "{prog}: no lines");
    assert_eq!(
        b.0, a.0,
        "{prog} {args:?}: other lines through vaced's MPICH"
    );
    assert_eq!(
        b.1, a.1,
        "{prog} {args:?}: other virtual times through vaced's MPICH"
    );
}

#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn point_to_point_predictions_equal_vaceds_own_library() {
    for (prog, n, args) in [
        // eager and rendezvous; 3 hops (16 ranks, rank 12 on another node)
        // and 0 (two ranks on one node)
        (
            "pingpong",
            16,
            ["12", "2", "8", "131073", "4194304"].as_slice(),
        ),
        ("pingpong", 2, ["1", "2", "8", "1024", "131073"].as_slice()),
        // nonblocking exchange with computation, Waitall
        ("exchange", 13, ["12", "1000000", "0.001"].as_slice()),
        // a token around a ring; a shift of every rank at once
        ("ring", 8, ["token", "2", "2"].as_slice()),
        ("ring", 8, ["shift", "2", "1000"].as_slice()),
        // derived datatypes' lengths
        ("dtype_timing", 2, [].as_slice()),
        // from rank 0 to ranks at 0, 1 and more hops
        ("hops", 16, ["8", "1", "5", "12"].as_slice()),
        // buffered sends (eager, rendezvous, nonblocking) and the detach
        ("bsend_timing", 2, ["100", "300000", "5e-5"].as_slice()),
        // MPI_Sendrecv's receive posted before its send
        ("sendrecv_posted", 2, [].as_slice()),
        // Cartesian topologies (their communicators, shifts, Sendrecv)
        ("comm_cart", 6, ["0", "2", "3", "1", "2", "0"].as_slice()),
    ] {
        same_through_mpich(prog, n, args, &[]);
    }
}

/// One-sided communication costs what it costs in vaced's own library:
/// CH3 moves the data, the engine's mirror window (no memory) sends vaced's
/// packets, on 1 and 2 host cores. `rma_timing`: a Put between fences and a
/// Get under a lock whose target computes (rma.rs derives both);
/// `rma_dynamic time`: a Put to a dynamic window under a lock (rma_windows.rs
/// derives it); `rma_ops`: every operation and synchronization mode, its
/// results checked by the program; `rma_many`: many small operations among
/// 16 ranks. (`rma_dynamic` without arguments checks
/// vaced's own errors of MPI_Win_attach / detach, which MPICH does not
/// raise.)
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn one_sided_predictions_equal_vaceds_own_library() {
    for (prog, args) in [
        ("rma_timing", [].as_slice()),
        ("rma_dynamic", &["time"]),
        ("rma_shared", &["time"]),
    ] {
        let own = outcome(&program(prog), None, 2, args);
        for cores in CORE_VARIANTS {
            let b = outcome_on(&mpich_program(prog), Some(&[]), 2, args, cores);
            assert_eq!(
                b, own,
                "{prog} {args:?} on {cores:?} cores through vaced's MPICH"
            );
        }
    }
    for n in [2, 3, 5] {
        same_through_mpich("rma_ops", n, &[], &[]);
    }
    // every rank an origin and a target of many small operations
    same_through_mpich("rma_many", 16, &["20", "8"], &[]);
    // shared-memory windows: the origin's copies
    for n in [3, 5] {
        same_through_mpich("rma_shared", n, &[], &[]);
    }
}

/// 256 ranks on one host: MPICH 4.0.2's nemesis sized its shared memory
/// in int and crashed in MPI_Init from 182 processes on a node (the patch
/// sizes it in size_t); a token around all of them predicts as with
/// vaced's own library.
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn many_ranks_on_one_host_run_through_vaceds_mpich() {
    same_through_mpich("ring", 256, &["token", "1", "1"], &[]);
}

/// Programs whose outcome depends on timing: wildcard-source receives
/// (among specific ones, cancelled), `MPI_Test` polling, `MPI_Waitany`,
/// `MPI_Iprobe`, messages to oneself from any source, persistent requests
/// and matched probes. MPICH alone matches and completes in the order
/// messages reach this host; vaced's MPICH follows the engine's decisions,
/// so each run predicts exactly what vaced's own library does, whatever the
/// host's timing (each seed of `VACED_HOST_JITTER` delays the ranks at
/// random on the host).
/// A rank waiting through vaced's MPICH sleeps (its core given away: the
/// report's `host_sleeps`) instead of polling, unless
/// `VACED_MPICH_WAIT=poll`; the prediction is the same either way, with
/// a core token per rank or fewer (`--cores`: a polling rank hands its
/// token on), and vaced's own library's. `waiters` has every rank but two
/// wait (after telling rank 0 so) while those two ping-pong.
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn waiting_ranks_sleep_through_vaceds_mpich() {
    const N: u32 = 8;
    const ROUNDS: u64 = 2000;
    // (on this host's cores, fewer than N: ranks wait for core tokens)
    same_through_mpich("waiters", N, &["2000"], &[]);
    let prog = mpich_program("waiters");
    let mut times = Vec::new();
    for (wait, cores) in [("sleep", N), ("poll", N), ("poll", 1)] {
        let rep = scratch().join(format!("waiters-{wait}-{cores}.json"));
        let p = format!("--mpich={}", prefix().display());
        let mut run = Run::exact(N, &prog)
            .args(&["2000"])
            .option(&[p.as_str()])
            .cores(Some(cores));
        run.env
            .push(("VACED_MPICH_WAIT".to_string(), wait.to_string()));
        let (lines, t) = lines_and_times(run, &rep);
        assert_eq!(lines.len(), N as usize, "{lines:?}");
        let sleeps: Vec<u64> = report::ranks(&report::read(&rep))
            .iter()
            .map(|r| report::uint(r, "host_sleeps"))
            .collect();
        // with a core token per rank, only waits sleep (and a futex lock's
        // wait, so polling is "hardly ever")
        if wait == "sleep" {
            assert!(
                sleeps[2..].iter().all(|&s| s >= 1) && sleeps[..2].iter().all(|&s| s >= ROUNDS / 4),
                "waiting ranks should sleep: host_sleeps {sleeps:?} in {ROUNDS} rounds"
            );
        } else if cores == N {
            assert!(
                sleeps.iter().all(|&s| s < ROUNDS / 10),
                "VACED_MPICH_WAIT=poll, yet host_sleeps {sleeps:?} in {ROUNDS} rounds"
            );
        }
        times.push(t);
    }
    assert!(
        times.iter().all(|t| *t == times[0]),
        "how ranks wait changed the prediction: {times:?}"
    );
}

#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn nondeterministic_programs_decide_as_vaceds_own_library() {
    for seed in ["1", "2"] {
        let env = [("VACED_HOST_JITTER", seed)];
        for (prog, n, args) in [
            ("nd_master", 5, ["12"].as_slice()),
            ("nd_testpoll", 2, ["23"].as_slice()),
            ("nd_waitany", 5, ["30", "10", "20", "10"].as_slice()),
            ("nd_iprobe", 4, ["6", "10", "6", "3", "2", "20"].as_slice()),
            ("nd_self", 3, [].as_slice()),
            ("nd_wildcard_order", 3, ["30e-6", "10e-6"].as_slice()),
            ("nd_wildcard_order", 3, ["10e-6", "30e-6"].as_slice()),
            (
                "persist",
                2,
                ["4e-5", "3", "8", "131072", "1048576"].as_slice(),
            ),
            (
                "mprobe_timing",
                2,
                ["1000", "1048576", "1e-4", "1e-5", "2e-5"].as_slice(),
            ),
        ] {
            same_through_mpich(prog, n, args, &env);
        }
    }
}

/// Nonblocking collectives: MPICH hands each schedule to the engine whole
/// when it starts it, and the engine runs its rounds as vaced's own
/// library runs its schedules, which follow MPICH's (the same messages in
/// the same rounds). Broadcasts of every schedule (binomial; scatter then
/// recursive-doubling or ring allgather, eager and rendezvous) and
/// barriers overlapped with computation; several outstanding at once and
/// completed out of order (`icoll_results`); the reductions, gathers,
/// scatters and all-to-alls of `icoll_results2` and the scans, v- and
/// w-collectives of `icoll_results3` (each against the blocking
/// collective): each predicts vaced's own library's lines and virtual
/// times to the picosecond.
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn nonblocking_collectives_predict_as_vaceds_own_library() {
    for n in [4, 5, 8] {
        for args in [["bcast", "100"], ["barrier", "0"]] {
            same_through_mpich("icoll_overlap", n, &args, &[]);
        }
    }
    for (n, bytes) in [(4, "100000"), (8, "100000"), (12, "30000"), (13, "1000000")] {
        same_through_mpich("icoll_overlap", n, &["bcast", bytes], &[]);
    }
    for n in [4, 5, 8, 13] {
        same_through_mpich("icoll_results", n, &["mpich"], &[]);
    }
    for n in [2, 3, 4, 5, 7, 8] {
        same_through_mpich("icoll_results2", n, &["mpich"], &[]);
        same_through_mpich("icoll_results3", n, &[], &[]);
    }
}

/// Each nonblocking collective alone (`coll_one iOP`), on 5, 8 and 9 ranks,
/// with blocks of 4, 12000 and 160000 bytes (every size class of MPICH's
/// selection): vaced's own library predicts what MPICH's schedule, run by
/// the engine, predicts, to the picosecond. This is what holds vaced's
/// schedules and selection to MPICH 4.0.2's, including where MPICH departs
/// from its own tables (`coll::nonblocking::select::ialltoall`,
/// `ireduce_scatter::ireduce_scatter_sized`).
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn each_nonblocking_collective_predicts_as_vaceds_own_library() {
    for op in COLLECTIVES.map(|c| format!("i{c}")) {
        for n in [5, 8, 9] {
            for count in ["1", "3000", "40000"] {
                same_through_mpich("coll_one", n, &[&op, count], &[]);
            }
        }
    }
}

/// Every nonblocking collective of `icoll_results` to `icoll_results3`
/// (broadcasts, barriers, reductions, gathers, scatters, all-to-alls,
/// scans, with deferred counts and callbacks in MPICH's schedules) gives
/// the blocking collectives' results through vaced's MPICH on sizes that
/// are not powers of two too, where MPICH's schedules differ from vaced's.
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn nonblocking_collectives_verify_through_vaceds_mpich() {
    for (prog, args) in [
        ("icoll_results", ["mpich"].as_slice()),
        ("icoll_results2", ["mpich"].as_slice()),
        ("icoll_results3", [].as_slice()),
    ] {
        let exe = mpich_program(prog);
        for n in [3, 5, 7] {
            let (lines, _) = outcome(&exe, Some(&[]), n, args);
            let ok = lines.iter().filter(|l| l.starts_with("ok rank=")).count();
            assert_eq!(ok, n as usize, "{prog} on {n} ranks: {lines:?}");
        }
    }
}

/// Each blocking collective alone (`coll_one`), on 5, 8 and 9 ranks, with
/// blocks at MPICH 4.0.2's thresholds (8 and 2048 bytes, 12288 and 524288
/// for broadcasts, 256 for all-to-all) and beyond: vaced's own library
/// predicts what MPICH does, to the picosecond. This holds
/// `coll::select` to MPICH 4.0.2's selection (including where its search
/// departs from its table) and vaced's algorithms to MPICH 4.0.2's (its
/// reduce-scatter pieces, its pipelined allgatherv ring).
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn each_blocking_collective_predicts_as_vaceds_own_library() {
    for op in COLLECTIVES {
        for n in [5, 8, 9] {
            for count in [
                "2", "3", "512", "513", "700", "3072", "3073", "40000", "131072",
            ] {
                same_through_mpich("coll_one", n, &[op, count], &[]);
            }
        }
    }
}

/// Every blocking collective alone (`coll_one`) with blocks between MPICH's
/// shared-memory eager limit (one queue cell, about 64 KiB) and the
/// target's (128 KiB), and beyond, on 4 and 9 ranks, completes through
/// vaced's MPICH. Its reduce-scatter pieces of 128 KiB once hung
/// MPI_Allreduce on 4 ranks: the engine timed them as eager sends, CH3 sent
/// them by rendezvous, and a rank waiting in MPICH for its peer's receive
/// held its engine (and so its peers') still; `mpirun --mpich` now raises
/// MPICH's eager limits to the target's. MPI_Sendrecv also waits in the
/// engine before MPICH now, as every other wait does.
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn large_blocking_collectives_complete_through_vaceds_mpich() {
    let exe = mpich_program("coll_one");
    for op in COLLECTIVES.iter().filter(|&&c| c != "barrier") {
        for n in [4, 9] {
            for count in ["20000", "32768", "131072"] {
                let (lines, _) = outcome(&exe, Some(&[]), n, &[op, count]);
                assert_eq!(
                    lines.len(),
                    n as usize,
                    "{op} {count} on {n} ranks: {lines:?}"
                );
            }
        }
    }
}

#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn collective_predictions_equal_vaceds_own_library_with_the_same_algorithms() {
    // MPICH chooses its own algorithms; for coll_timing's barrier and
    // broadcasts (dissemination, binomial) they are those vaced's library
    // takes, so its messages cost exactly what vaced's do. This needs the
    // patch's flat communicators: with node-aware ones (every rank on this
    // host's one node) MPICH took its SMP barrier, and every line differed.
    for n in [8, 37] {
        same_through_mpich("coll_timing", n, &[], &[]);
    }
}

/// A rank that dies of a signal under MPICH's launcher (not a child of
/// vaced's mpirun) is named with its own pid and its signal, and the job's
/// exit status is the signal's.
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn a_crashed_rank_is_named_through_vaceds_mpich() {
    let p = format!("--mpich={}", prefix().display());
    let job = Run::exact(4, &mpich_program("crash"))
        .option(&[p.as_str()])
        .run();
    assert_crash_of_rank_2(&job);
    // the same with rank 2 on another host than rank 0: its host's side
    // says it at once, and leaves no segment behind
    let job = across_by_remote_shell(&mpich_program("crash"), 4, "127.0.0.2:2,127.0.0.3:2").run();
    assert_crash_of_rank_2(&job);
    assert_no_host_segments(&job);
}

/// A rank that dies before MPI_Init while the others are inside it: the job
/// fails, and MPICH's shared-memory file, which its node's first rank made
/// and would have unlinked once every rank had mapped it, is removed (by
/// `mpirun` on its host, by the host's side across hosts).
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn a_rank_dying_before_mpi_init_leaves_no_mpich_file() {
    let since = std::time::SystemTime::now();
    let p = format!("--mpich={}", prefix().display());
    let prog = mpich_program("crash");
    let jobs = [
        Run::exact(4, &prog)
            .option(&[p.as_str()])
            .args(&["before-init"])
            .run(),
        across_by_remote_shell(&prog, 4, "127.0.0.2:2,127.0.0.3:2")
            .args(&["before-init"])
            .run(),
    ];
    assert!(
        jobs[0]
            .stderr
            .contains("none of ranks 0-3 joined the job (a rank died before or inside MPI_Init)"),
        "{}",
        jobs[0].dump()
    );
    for job in &jobs {
        assert!(!job.status.success(), "{}", job.dump());
        assert_no_host_segments(job);
    }
    let dir = Path::new(vaced::launch::cleanup::SHM_DIR);
    let left = vaced::launch::cleanup::unheld_mpich_files(dir, since);
    assert!(left.is_empty(), "left: {left:?}");
}

/// The names in /dev/shm that `keep` keeps.
fn shm_names(keep: impl Fn(&str) -> bool) -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| keep(n))
        .collect()
}

/// No host's segment (`/dev/shm/vaced-JOB-hN`) is left behind.
/// No host's segment of `job` (the jobs tests run at once have others) is
/// left.
fn assert_no_host_segments(job: &common::Job) {
    let want = format!("vaced-{}-", job.pid);
    let left = shm_names(|n| n.starts_with(&want) && (n.ends_with("-h0") || n.ends_with("-h1")));
    assert!(left.is_empty(), "host segments left behind: {left:?}");
}

/// The processes started for the hosts' segments of the job `mpirun`
/// `job` ran (their environment names one), zombies aside.
fn processes_of_job(job: u32) -> Vec<u32> {
    use vaced::transport::process::{environ_has, pids, running};
    let want = format!("VACED_SEGMENT=/vaced-{job}-");
    pids()
        .into_iter()
        .filter(|&pid| environ_has(pid, |kv| kv.starts_with(want.as_bytes())) && running(pid))
        .collect()
}

/// The process ids of `root`'s descendants whose command line holds
/// every one of `words`.
fn descendants_running(root: u32, words: &[&str]) -> Vec<u32> {
    use vaced::transport::process::{parent_of as parent, pids};
    let mut found = Vec::new();
    for pid in pids() {
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmd
            .split(|&b| b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if !words.iter().all(|w| args.iter().any(|a| a == w)) {
            continue;
        }
        let mut p = parent(pid);
        while let Some(q) = p.filter(|&q| q > 1) {
            if q == root {
                found.push(pid);
                break;
            }
            p = parent(q);
        }
    }
    found
}

/// A host's side ended from outside (SIGTERM, as a remote shell's end or
/// a batch system would) while its ranks run: it kills its proxy, removes
/// its segment and says so; the job ends, and no host's segment is left.
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn a_host_side_ended_from_outside_removes_its_segment() {
    let (job, _) = host_side_1_ended_by(libc::SIGTERM);
    assert_eq!(
        exit_code(&job.status),
        128 + libc::SIGTERM,
        "{}",
        job.dump()
    );
    for line in [
        "vaced host-side 1: ended by SIGTERM: its ranks and MPICH's proxy are killed and this \
         host's segment removed",
        "mpirun: host 1's side (vaced host-side) was ended by SIGTERM, its ranks killed; the \
         job was aborted",
    ] {
        assert!(
            job.stderr.lines().any(|l| l == line),
            "no line `{line}`:\n{}",
            job.dump()
        );
    }
    assert_no_host_segments(&job);
}

/// A host's side killed without warning (SIGKILL): its watchdog kills its
/// proxy and ranks and removes its segment; the launcher says the side was
/// lost without a word.
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn a_host_side_killed_without_warning_leaves_nothing() {
    let (job, pid) = host_side_1_ended_by(libc::SIGKILL);
    assert!(!job.status.success(), "{}", job.dump());
    let line = "mpirun: host 1's side (vaced host-side) was lost without a word (killed by \
                SIGKILL or the OOM killer, or it failed: its message is above), its ranks \
                killed; the job was aborted";
    assert!(
        job.stderr.lines().any(|l| l == line),
        "no line `{line}`:\n{}",
        job.dump()
    );
    // the watchdog works on its own time: a few seconds at most
    let mine = |n: &str| n.starts_with(&format!("vaced-{pid}-"));
    let start = std::time::Instant::now();
    while !(processes_of_job(pid).is_empty() && shm_names(mine).is_empty()) {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "left: processes {:?}, segments {:?}",
            processes_of_job(pid),
            shm_names(mine)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `block` on 4 ranks, 2 on each of two hosts; once host 1's side runs its
/// two ranks, it gets signal `sig`; the job's end, and `mpirun`'s pid.
fn host_side_1_ended_by(sig: i32) -> (common::Job, u32) {
    let prog = mpich_program("block");
    let prog_arg = prog.to_string_lossy().into_owned();
    let job = across_by_remote_shell(&prog, 4, "127.0.0.2:2,127.0.0.3:2").spawn();
    let segment_of = |h: u32| {
        let (want, end) = (format!("vaced-{}-", job.pid()), format!("-h{h}"));
        shm_names(|n| n.starts_with(&want) && n.ends_with(&end)).pop()
    };
    // host 1's side has made its segment and started its ranks (2 and 3)
    let start = std::time::Instant::now();
    let side = loop {
        let sides = descendants_running(job.pid(), &["host-side", "--host-index", "1"]);
        if let [side] = sides[..] {
            if segment_of(1).is_some() && descendants_running(side, &[&prog_arg]).len() == 2 {
                break side;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "host 1's side did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    send_signal(side, sig);
    let pid = job.pid();
    (job.finish(Duration::from_secs(60)), pid)
}

/// kill(2) through kill(1) (the test crate has no unsafe code).
fn send_signal(pid: u32, sig: i32) {
    let ok = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill -{sig} {pid} failed");
}

/// `abort` (rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) while the others
/// wait for it) through vaced's MPICH, on one host and with rank 1 on
/// another host than rank 0: the job ends with code 7, the launcher naming
/// rank 1 and MPICH's message, whichever process Hydra killed first.
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn an_mpi_abort_is_named_through_vaceds_mpich() {
    let p = format!("--mpich={}", prefix().display());
    let one_host = Run::exact(4, &mpich_program("abort"))
        .option(&[p.as_str()])
        .run();
    let two_hosts =
        across_by_remote_shell(&mpich_program("abort"), 4, "127.0.0.2:1,127.0.0.3:3").run();
    for job in [one_host, two_hosts] {
        assert_eq!(exit_code(&job.status), 7, "{}", job.dump());
        assert!(
            job.stderr.lines().any(|l| l
                == "mpirun: rank 1 ended the job with error code 7: application called \
                    MPI_Abort(MPI_COMM_WORLD, 7) - process 1"),
            "{}",
            job.dump()
        );
        assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
        assert_no_host_segments(&job);
    }
}

/// `crash` (rank 2 dies of SIGSEGV) ended the job, naming rank 2.
fn assert_crash_of_rank_2(job: &common::Job) {
    assert_eq!(
        exit_code(&job.status),
        128 + libc::SIGSEGV,
        "{}",
        job.dump()
    );
    let line = job
        .stderr
        .lines()
        .find(|l| l.starts_with("mpirun: rank 2 (pid "))
        .unwrap_or_else(|| panic!("no line naming rank 2:\n{}", job.dump()));
    assert!(
        line.ends_with("was killed by signal SIGSEGV (segmentation fault); the job was aborted"),
        "{line}"
    );
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
}

#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn a_program_built_with_vaceds_mpich_needs_mpirun_mpich() {
    let patched = mpich_program("pingpong");
    // started by vaced's mpirun as one of its own programs
    let mut run = Run::exact(2, &patched).args(&["1", "1", "8"]);
    run.env.push(("VACED_MPICH".into(), String::new()));
    let job = run.run();
    assert!(!job.status.success(), "{}", job.dump());
    assert!(
        job.stderr.contains(
            "a program built with vaced's MPICH runs under `mpirun --mpich` (or with \
             VACED_MPICH set), but vaced's mpirun started it as a program of vaced's own MPI \
             library"
        ),
        "{}",
        job.dump()
    );
    // no such MPICH
    let job = Run::exact(2, &patched)
        .option(&["--mpich=/nonexistent/mpich"])
        .args(&["1", "1", "8"])
        .run();
    assert!(!job.status.success(), "{}", job.dump());
    assert!(
        job.stderr.contains(
            "vaced's MPICH is not built in /nonexistent/mpich (no bin/mpiexec.hydra): run \
             mpich-patch/build.sh"
        ),
        "{}",
        job.dump()
    );
}

/// bench-npb's `kernel` built with vaced's MPICH's wrappers (its Makefile).
fn mpich_npb(kernel: &str) -> PathBuf {
    let bin = scratch().join("npb-mpich");
    let out = bin.join(kernel);
    let b = prefix().join("bin");
    run_ok(
        Command::new("make")
            .arg("-s")
            .arg("-C")
            .arg(repo_root().join("bench-npb"))
            .arg(format!("MPICC={}", b.join("mpicc").display()))
            .arg(format!("MPIF90={}", b.join("mpif90").display()))
            .arg(format!("BIN={}", bin.display()))
            .arg(&out),
        &format!("make bench-npb {kernel} with vaced's MPICH"),
    );
    out
}

#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn npb_kernels_verify_through_vaceds_mpich() {
    // FT's all-to-all (pairwise Sendrecv) deadlocked while the engine's
    // waits and MPICH's progress waited on each other; IS is C, the others
    // Fortran
    for kernel in ["ft", "cg", "is"] {
        let prog = mpich_npb(kernel);
        let p = format!("--mpich={}", prefix().display());
        let mut run = Run::exact(4, &prog).option(&[p.as_str()]).args(&["S"]);
        run.env.push(("MPIEXEC_TIMEOUT".into(), "300".into()));
        let job = run.run();
        job.assert_success();
        assert!(
            job.stdout
                .contains("Verification    =               SUCCESSFUL"),
            "{kernel}: {}",
            job.dump()
        );
    }
}

/// NPB FT (Fortran: two MPI_Comm_split, all-to-alls) and EP (C) class S
/// on 16 ranks predict through vaced's MPICH, to the picosecond, what they
/// predict with vaced's own library: both make communicators as MPICH
/// 4.0.2 does (the context-id agreement over the mask and its flag, each
/// new communicator's sequence number) and take the same collective
/// algorithms.
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn npb_kernels_predict_as_vaceds_own_library() {
    let own = [
        ("ft", common::npb::fortran_kernel("ft", &["ft.f90"], &[])),
        ("ep", Some(common::npb::c_kernel("ep"))),
    ];
    for (kernel, prog) in own {
        let Some(prog) = prog else {
            continue; // no gfortran: said once by fortran_kernel
        };
        let a = outcome(&prog, None, 16, &["S"]);
        let b = outcome(&mpich_npb(kernel), Some(&[]), 16, &["S"]);
        assert_eq!(
            b.1, a.1,
            "{kernel}: other virtual times through vaced's MPICH"
        );
    }
}

/// `prog` on `n` ranks through vaced's MPICH, on `hosts` (Hydra's list)
/// reached through a remote shell (`--launcher-exec`, see
/// [`local_remote_shell`]), as real remote hosts would be.
fn across_by_remote_shell(prog: &Path, n: u32, hosts: &str) -> Run {
    let p = format!("--mpich={}", prefix().display());
    let shell = local_remote_shell();
    Run::exact(n, prog)
        .option(&[p.as_str(), "--hosts", hosts, "--launcher-exec"])
        .option(&[shell.as_os_str()])
}

/// A remote shell for hosts that are all this machine (`--launcher-exec`):
/// runs the command here, as `ssh [options] HOST COMMAND` runs it there.
fn local_remote_shell() -> PathBuf {
    let p = scratch().join("local-remote-shell.sh");
    std::fs::write(
        &p,
        "#!/bin/sh\n\
         while [ $# -gt 0 ]; do case \"$1\" in -*) shift ;; *) break ;; esac; done\n\
         shift\n\
         exec /bin/sh -c \"$*\"\n",
    )
    .unwrap();
    run_ok(
        Command::new("chmod").arg("+x").arg(&p),
        "chmod the remote shell",
    );
    p
}

/// `prog args` on `n` ranks through vaced's MPICH, on one host or (with
/// `hosts`, Hydra's list) on several, each a loopback address of this
/// machine: MPICH's ranks talk TCP between hosts, each host has a segment
/// and a bridge of its own.
fn through_mpich_on(prog: &Path, n: u32, args: &[&str], hosts: Option<&str>) -> Outcome {
    let name = prog.file_name().unwrap().to_string_lossy().to_string();
    let tag = if hosts.is_some() { "hosts" } else { "one" };
    let rep = scratch().join(format!("{name}-{tag}-{n}-{}.json", args.join("_")));
    let p = format!("--mpich={}", prefix().display());
    let mut run = Run::exact(n, prog).option(&[p.as_str()]).args(args);
    if let Some(h) = hosts {
        // loopback addresses are this machine's: the hosts' sides start
        // without a remote shell (the failure tests go through one)
        run = run.option(&["--hosts", h]);
    }
    run.env.push(("MPIEXEC_TIMEOUT".into(), "300".into()));
    lines_and_times(run, &rep)
}

/// Hydra's list of two loopback hosts for `n` ranks (the first host one
/// more when `n` is odd).
fn two_hosts(n: u32) -> String {
    format!("127.0.0.2:{},127.0.0.3:{}", n.div_ceil(2), n / 2)
}

/// The same program on one host and across two gives the same output and
/// the same virtual times, to the picosecond: deterministic programs,
/// conservative decisions (wildcards, Waitany, Iprobe, Test) whose bounds
/// come from the other host through the bridges, the job's quiescence
/// found by the bridges together, and one-sided communication.
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn several_hosts_predict_as_one_host() {
    for (prog, n, args) in [
        ("pingpong", 2, ["1", "2", "8", "1024", "131073"].as_slice()),
        ("ring", 8, ["token", "2", "2"].as_slice()),
        ("exchange", 13, ["12", "1000000", "0.001"].as_slice()),
        ("nd_master", 5, ["12"].as_slice()),
        ("nd_waitany", 5, ["30", "10", "20", "10"].as_slice()),
        ("nd_iprobe", 4, ["6", "10", "6", "3", "2", "20"].as_slice()),
        ("nd_testpoll", 2, ["23"].as_slice()),
        ("rma_timing", 4, [].as_slice()),
        ("rma_many", 16, ["4", "512"].as_slice()),
    ] {
        let exe = mpich_program(prog);
        let one = through_mpich_on(&exe, n, args, None);
        let many = through_mpich_on(&exe, n, args, Some(&two_hosts(n)));
        assert!(!one.0.is_empty(), "{prog}: no lines");
        assert_eq!(many, one, "{prog} {args:?} on two hosts");
    }
    // three hosts, uneven
    let exe = mpich_program("nd_master");
    let one = through_mpich_on(&exe, 5, &["12"], None);
    let many = through_mpich_on(
        &exe,
        5,
        &["12"],
        Some("127.0.0.2:1,127.0.0.3:3,127.0.0.4:1"),
    );
    assert_eq!(many, one, "nd_master on three hosts");
}

/// A 16-rank bench-npb kernel, 8 ranks on each of two hosts: verified, and
/// predicted as on one host.
#[test]
#[ignore = "needs vaced's MPICH: mpich-patch/build.sh (./test.sh runs it)"]
fn an_npb_kernel_on_two_hosts_predicts_as_on_one() {
    let prog = mpich_npb("is");
    let one = through_mpich_on(&prog, 16, &["S"], None);
    let many = through_mpich_on(&prog, 16, &["S"], Some("127.0.0.2:8,127.0.0.3:8"));
    assert!(
        many.0
            .iter()
            .any(|l| l.contains("Verification    =               SUCCESSFUL")),
        "{:?}",
        many.0
    );
    assert_eq!(many.1, one.1, "IS class S, 16 ranks on two hosts");
}

/// Two hosts that are network namespaces joined by a veth pair
/// (`mpich-patch/netns-hosts.sh`, as root): Hydra starts each host's proxy
/// with `ip netns exec`, MPICH's ranks and vaced's bridges talk across the
/// veth. A 16-rank NPB kernel and a one-sided program predict as on one
/// host. `./test.sh` runs this only as root.
#[test]
#[ignore = "needs vaced's MPICH and root (ip netns): ./test.sh runs it as root"]
fn two_network_namespaces_predict_as_one_host() {
    let script = repo_root().join("mpich-patch/netns-hosts.sh");
    let vaced = PathBuf::from(env!("CARGO_BIN_EXE_vaced"));
    for (prog, n, args) in [
        (mpich_npb("is"), 16, ["S"].as_slice()),
        (mpich_program("rma_timing"), 4, [].as_slice()),
    ] {
        let one = through_mpich_on(&prog, n, args, None);
        let rep = scratch().join(format!("netns-{n}.json"));
        let k = n / 2;
        let line = format!(
            "exec -a mpirun \"$0\" --mpich={} --hosts 10.212.0.1:{k},10.212.0.2:{k} -n {n} -q \
             --target \"$1\" --report \"$2\" \"$3\" {}",
            prefix().display(),
            args.join(" ")
        );
        let out = Command::new(&script)
            .args(["bash", "-c", &line])
            .arg(&vaced)
            .arg(common::exact_target())
            .arg(&rep)
            .arg(&prog)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}\n{}",
            script.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let mut lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        lines.sort_unstable();
        let r = report::read(&rep);
        let times: Vec<u64> = report::ranks(&r).iter().map(report::vtime_ps).collect();
        assert_eq!(
            (lines, times),
            one,
            "{} across two namespaces",
            prog.display()
        );
    }
}

/// Several hosts need vaced's MPICH, and a bad host list is named.
#[test]
fn several_hosts_are_refused_clearly() {
    let prog = program("marker");
    let job = Run::exact(2, &prog).option(&["--hosts", "a:1,b:1"]).run();
    assert_eq!(exit_code(&job.status), 2, "{}", job.dump());
    assert!(
        job.stderr.contains(
            "--hosts and --hostfile need --mpich: vaced's own library runs every rank on this host"
        ),
        "{}",
        job.dump()
    );
    let p = format!("--mpich={}", prefix().display());
    let job = Run::exact(2, &prog)
        .option(&[p.as_str(), "--hosts", "a:x"])
        .run();
    assert_eq!(exit_code(&job.status), 2, "{}", job.dump());
    assert!(
        job.stderr
            .contains("--hosts: `a:x`: the slot count after `:` is not a number"),
        "{}",
        job.dump()
    );
}
