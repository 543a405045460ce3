//! Dynamic and shared-memory windows and window error handlers: results on
//! several rank counts, the error classes, the shared-memory objects left
//! behind (none), and the exact timing of a Put to a dynamic window under a
//! lock and of direct operations on a shared window (default core count,
//! `--cores 1` and `--cores 2`).
//!
//! Notation (ps): M(b) = b/Bmem; ranks 0 and 1 share a node (h = 0), so
//! L(b, 0) = M(b); H = 64 (control packets).
mod common;

use common::model::{m, H};
use common::{program, Run, CORE_VARIANTS};

const P: u64 = 80_000;

/// The window objects of any job in /dev/shm.
fn window_objects() -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.starts_with("vaced-") && f.contains("-win-"))
        .collect()
}

/// Window objects there now that were not there `before` (another test's
/// job may have run meanwhile, so only new ones count).
fn new_objects(before: &[String]) -> Vec<String> {
    window_objects()
        .into_iter()
        .filter(|f| !before.contains(f))
        .collect()
}

/// Lines of `job` starting with `tag`, as (rank, times).
fn times(job: &common::Job, tag: &str) -> Vec<(usize, Vec<u64>)> {
    job.stdout
        .lines()
        .filter(|l| l.starts_with(tag))
        .map(|l| {
            let f: Vec<u64> = l[tag.len()..]
                .split_whitespace()
                .map(|x| x.parse().unwrap())
                .collect();
            (f[0] as usize, f[1..].to_vec())
        })
        .collect()
}

fn all_ok(job: &common::Job, n: u32) {
    job.assert_success();
    for r in 0..n {
        assert!(
            job.stdout.lines().any(|l| l == format!("ok {r}")),
            "rank {r} did not finish:\n{}",
            job.dump()
        );
    }
}

#[test]
fn dynamic_windows_attach_put_get_accumulate_detach() {
    let prog = program("rma_dynamic");
    for n in [1, 2, 3, 5] {
        all_ok(&Run::exact(n, &prog).run(), n);
    }
    all_ok(&Run::exact(3, &prog).cores(Some(1)).run(), 3);
}

/// A Put to memory the target never attached: the target aborts the job
/// with MPI_ERR_RMA_RANGE, naming the origin and the operation.
#[test]
fn dynamic_window_unattached_target_memory_is_a_range_error() {
    let prog = program("rma_dynamic");
    let job = Run::exact(2, &prog).args(&["range"]).run();
    assert!(!job.status.success(), "{}", job.dump());
    assert!(
        job.stderr.contains("MPI_ERR_RMA_RANGE")
            && job.stderr.contains("MPI_Put from rank 0")
            && job.stderr.contains("rank 1"),
        "{}",
        job.dump()
    );
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
}

/// `rma_dynamic time`: both ranks leave a barrier at T; rank 1 then waits in
/// the next barrier. Rank 0: LOCK at T (tV = T + M(H), ta = T + 2 M(H));
/// rank 1 grants at once: LOCK_GRANTED arrives at T + 4 M(H), done at
/// T + 5 M(H) in MPI_Win_unlock, which then issues the queued PUT of P bytes
/// (tV = T + 5 M(H) + M(P), ta = T + 5 M(H) + 2 M(P)) and UNLOCK asking for
/// an ACK (sent at tV, it arrives no earlier than the PUT: u =
/// max(T + 7 M(H) + M(P), T + 5 M(H) + 2 M(P))); rank 1 answers the ACK at
/// u, done at u + 3 M(H): the unlock returns then.
#[test]
fn put_to_a_dynamic_window_under_lock_is_exact() {
    let prog = program("rma_dynamic");
    for cores in CORE_VARIANTS {
        let job = Run::exact(2, &prog).cores(cores).args(&["time"]).run();
        job.assert_success();
        let t = times(&job, "T ");
        assert_eq!(t.len(), 2, "{}", job.dump());
        let t0 = t[0].1[0];
        assert!(t.iter().all(|(_, v)| v[0] == t0), "{}", job.dump());
        let r0 = &t.iter().find(|(r, _)| *r == 0).unwrap().1;
        let u = (t0 + 7 * m(H) + m(P)).max(t0 + 5 * m(H) + 2 * m(P));
        assert_eq!(r0[1], u + 3 * m(H), "cores {cores:?}\n{}", job.dump());
    }
}

#[test]
fn shared_windows_share_memory_between_the_ranks_of_a_node() {
    let before = window_objects();
    let prog = program("rma_shared");
    for n in [1, 2, 4, 12] {
        all_ok(&Run::exact(n, &prog).run(), n);
    }
    all_ok(&Run::exact(3, &prog).cores(Some(1)).run(), 3);
    assert_eq!(
        new_objects(&before),
        Vec::<String>::new(),
        "window objects left behind"
    );
}

/// A job that dies holding a shared window leaves no object behind (the
/// launcher removes every `/dev/shm/vaced-<job>*`).
#[test]
fn shared_window_objects_go_with_a_dead_job() {
    let before = window_objects();
    let prog = program("rma_shared");
    let job = Run::exact(3, &prog).args(&["abort"]).run();
    assert!(!job.status.success(), "{}", job.dump());
    assert_eq!(new_objects(&before), Vec::<String>::new(), "{}", job.dump());
}

/// 13 ranks of tianhe1a span two nodes: no shared window over them.
#[test]
fn shared_window_over_two_nodes_is_refused() {
    let prog = program("rma_shared");
    let job = Run::exact(13, &prog).cores(Some(2)).run();
    job.assert_success();
    for r in 0..13 {
        assert!(
            job.stdout
                .lines()
                .any(|l| l == format!("multi-node refused {r}")),
            "{}",
            job.dump()
        );
    }
}

/// `rma_shared time`: both ranks leave a barrier at t0 (rank 1 then waits in
/// the next one). Rank 0's operations under lock_all(MPI_MODE_NOCHECK) are
/// copies it makes itself: Put and Get of P bytes, M(P) each; Fetch_and_op
/// and Compare_and_swap of an int, M(8) each (read + operand, read +
/// compare-and-store); no message: t1 = t0 + 2 M(P) + 2 M(8). Then the
/// exclusive lock waits for LOCK_GRANTED (LOCK arrives at t1 + 2 M(H), the
/// grant at t1 + 4 M(H), done at t1 + 5 M(H)), the Put copies P bytes, and the
/// unlock sends UNLOCK without waiting (no packet operation asked for an
/// ACK): t2 = t1 + 6 M(H) + M(P).
#[test]
fn direct_operations_on_a_shared_window_are_exact() {
    let before = window_objects();
    let prog = program("rma_shared");
    for cores in CORE_VARIANTS {
        let job = Run::exact(2, &prog).cores(cores).args(&["time"]).run();
        job.assert_success();
        let s = times(&job, "S ");
        assert_eq!(s.len(), 2, "{}", job.dump());
        let t0 = s[0].1[0];
        assert!(s.iter().all(|(_, v)| v[0] == t0), "{}", job.dump());
        let r0 = &s.iter().find(|(r, _)| *r == 0).unwrap().1;
        let t1 = t0 + 2 * m(P) + 2 * m(8);
        assert_eq!(r0[1], t1, "cores {cores:?}: unlock_all\n{}", job.dump());
        assert_eq!(
            r0[2],
            t1 + 6 * m(H) + m(P),
            "cores {cores:?}: lock, put, unlock\n{}",
            job.dump()
        );
    }
    assert_eq!(
        new_objects(&before),
        Vec::<String>::new(),
        "window objects left behind"
    );
}

#[test]
fn window_error_handlers_are_called_with_the_window_and_the_class() {
    let prog = program("rma_errh");
    for n in [1, 2] {
        let job = Run::exact(n, &prog).run();
        all_ok(&job, n);
        for r in 0..n {
            let classes: Vec<&str> = job
                .stdout
                .lines()
                .filter_map(|l| l.strip_prefix(&format!("handler {r} ")))
                .collect();
            // MPI_ERR_RANK (6), MPI_ERR_RMA_FLAVOR (58), MPI_ERR_LOCKTYPE
            // (47), then the program's own class (call_errhandler)
            assert_eq!(classes.len(), 4, "{}", job.dump());
            assert_eq!(&classes[..3], ["6", "58", "47"], "{}", job.dump());
        }
    }
}
