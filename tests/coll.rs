//! The collective calls and reduction operators end to end: C programs built
//! with our `mpicc`, run with our `mpirun`.
//!
//! * Results: `coll_results` runs every collective (plain, MPI_IN_PLACE,
//!   padded pair types, MAXLOC / MINLOC, long double, complex, a
//!   non-commutative and a commutative user operator) on MPI_COMM_WORLD and
//!   MPI_COMM_SELF, and checks every value itself; here we run it on 1 to 64
//!   ranks with message sizes on both sides of MPICH's thresholds, and with
//!   algorithms forced through the target file and the environment.
//! * Sub-communicators: `coll_sub` runs every collective on communicators
//!   from MPI_Comm_split (reversed keys too) with a vector and a struct
//!   datatype and MPI_IN_PLACE, with default and forced algorithms.
//! * Forcing: the forced algorithm reaches the ranks (message counts of an
//!   8-rank broadcast), and a bad name is refused by mpirun and MPI_Init.
//! * Errors: error classes under MPI_ERRORS_RETURN (also for uncommitted,
//!   freed and heterogeneous derived datatypes and freed communicators, in
//!   collectives and point-to-point); a fatal error names the call.
//! * Exact timing at cpu.scale = 0: a dissemination barrier and a binomial
//!   broadcast, walked through the model equations here; and every
//!   algorithm of every collective (`coll_timing_all`) against the
//!   derivations shared with the in-memory tests (`schedules`), identical
//!   on 1 and 2 host cores.
mod common;
#[path = "../src/coll/tests/schedules.rs"]
mod schedules;

use common::model::{hop, link, m};
use common::{exit_code, fmt_ps, program, times_by_rank_op, Job, Run, CORE_VARIANTS};
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Every call `coll_results` checks when it runs all collectives.
const ALL_CALLS: [&str; 21] = [
    "MPI_Barrier",
    "MPI_Bcast",
    "MPI_Reduce",
    "MPI_Allreduce",
    "MPI_Gather",
    "MPI_Gatherv",
    "MPI_Scatter",
    "MPI_Scatterv",
    "MPI_Allgather",
    "MPI_Allgatherv",
    "MPI_Alltoall",
    "MPI_Alltoallv",
    "MPI_Alltoallw",
    "MPI_Reduce_scatter",
    "MPI_Reduce_scatter_block",
    "MPI_Scan",
    "MPI_Exscan",
    "MPI_Reduce_local",
    "MPI_Op_create",
    "MPI_Op_commutative",
    "MPI_Op_free",
];

/// Asserts that `coll_results` ran clean on all `n` ranks and checked every
/// call of [`ALL_CALLS`].
fn assert_results(job: &Job, n: u32) {
    job.assert_success();
    let done = common::records(&job.stdout, "done");
    assert_eq!(
        done.len(),
        n as usize,
        "not every rank finished\n{}",
        job.dump()
    );
    let mut ranks: Vec<i64> = done.iter().map(|r| r.int("rank")).collect();
    ranks.sort_unstable();
    assert_eq!(ranks, (0..n as i64).collect::<Vec<_>>());
    for r in &done {
        assert!(r.int("checks") > 0, "{}", r.line);
        let colls: Vec<&str> = r.get("colls").split(',').collect();
        for c in ALL_CALLS {
            assert!(
                colls.contains(&c),
                "{c} not checked: {}\n{}",
                r.line,
                job.dump()
            );
        }
    }
}

/// Runs `coll_results` on `n` ranks at the exact target.
fn results(n: u32, counts: &[&str]) {
    let t = Instant::now();
    let job = Run::exact(n, &program("coll_results")).args(counts).run();
    assert_results(&job, n);
    eprintln!(
        "coll_results on {n} ranks, counts {counts:?}: {:?}",
        t.elapsed()
    );
}

// Counts are MPI_INTs per rank (4 bytes). The thresholds they straddle:
// Bcast binomial below 12288 bytes (3072) or under 8 ranks, then scatter +
// recursive-doubling allgather (power of two) or ring, ring from 524288
// bytes; Reduce / Allreduce switch to Rabenseifner above 2048 bytes (513);
// Allgather(v) by total bytes (count x ranks x 4) at 81920 and 524288;
// Alltoall blocks at 256 bytes (64 / 65, Bruck from 8 ranks) and 32768
// (8192 / 8193, pairwise); Reduce_scatter by total bytes at 524288.

#[test]
fn results_on_1_2_3_4_5_ranks() {
    results(1, &["0", "1", "100", "3000"]);
    results(2, &["0", "1", "513", "3100", "9000"]);
    results(3, &["0", "1", "7", "65", "700"]);
    results(4, &["1", "65", "700"]);
    results(5, &["1", "64", "600", "2100"]);
}

#[test]
fn results_on_8_ranks_across_every_threshold() {
    results(
        8,
        &[
            "1",
            "64",
            "65",
            "513",
            "3072",
            "9000",
            "17000:allgather,allgatherv,reduce_scatter,reduce_scatter_block",
            "140000:bcast",
        ],
    );
}

#[test]
fn results_on_13_16_17_ranks() {
    results(13, &["1", "700", "3100"]);
    results(16, &["2", "513", "3072"]);
    results(17, &["1", "600"]);
}

#[test]
fn results_on_32_33_64_ranks() {
    results(32, &["1", "100"]);
    results(33, &["1", "300"]);
    results(64, &["1", "100", "2100:allgather,allgatherv"]);
}

/// Runs `mpirun -n N --target TARGET PROG ARGS` with extra environment.
fn mpirun_env(n: u32, target: &Path, prog: &Path, args: &[&str], env: &[(&str, &str)]) -> Job {
    let mut cmd = Command::new(common::vaced());
    cmd.arg0("mpirun")
        .arg("-n")
        .arg(n.to_string())
        .arg("--target")
        .arg(target)
        .arg(prog)
        .args(args)
        .envs(env.iter().copied());
    run_command(
        cmd,
        format!("{env:?} mpirun -n {n} {} {args:?}", prog.display()),
    )
}

fn run_command(mut cmd: Command, cmdline: String) -> Job {
    let start = Instant::now();
    let o = cmd.output().expect("cannot run");
    Job {
        pid: 0,
        status: o.status,
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        wall: start.elapsed(),
        cmdline,
    }
}

/// A target file: the exact target plus a `[collectives]` table.
fn target_forcing(file: &str, table: &str) -> std::path::PathBuf {
    common::write_target(
        file,
        &format!("{}[collectives]\n{table}", common::model::TARGET_TOML),
    )
}

#[test]
fn results_with_algorithms_forced_by_the_target_file() {
    let target = target_forcing(
        "forced.toml",
        r#"bcast = "scatter_doubling_allgather"
reduce = "redscat_gather"
allreduce = "redscat_allgather"
allgather = "recursive_doubling"
allgatherv = "ring"
alltoall = "bruck"
reduce_scatter = "pairwise"
reduce_scatter_block = "recursive_doubling"
"#,
    );
    let job = Run::new(6, target.as_os_str(), &program("coll_results"))
        .args(&["1", "65", "700", "3100"])
        .run();
    assert_results(&job, 6);
}

#[test]
fn results_with_algorithms_forced_by_the_environment() {
    let prog = program("coll_results");
    let sets: [(u32, &[(&str, &str)]); 2] = [
        (
            7,
            &[
                ("VACED_COLL_BCAST", "scatter_ring_allgather"),
                ("VACED_COLL_ALLGATHER", "ring"),
                ("VACED_COLL_ALLGATHERV", "recursive_doubling"),
                ("VACED_COLL_ALLTOALL", "pairwise_sendrecv_replace"),
                ("VACED_COLL_ALLTOALLV", "scattered"),
                ("VACED_COLL_REDUCE_SCATTER", "noncommutative"),
                ("VACED_COLL_REDUCE_SCATTER_BLOCK", "recursive_halving"),
            ],
        ),
        (
            8,
            &[
                ("VACED_COLL_ALLGATHER", "bruck"),
                ("VACED_COLL_ALLGATHERV", "bruck"),
                ("VACED_COLL_ALLTOALL", "pairwise"),
                ("VACED_COLL_REDUCE_SCATTER", "recursive_doubling"),
                ("VACED_COLL_REDUCE_SCATTER_BLOCK", "noncommutative"),
                ("VACED_COLL_REDUCE", "binomial"),
                ("VACED_COLL_ALLREDUCE", "recursive_doubling"),
            ],
        ),
    ];
    for (n, env) in sets {
        let job = mpirun_env(
            n,
            &common::exact_target(),
            &prog,
            &["1", "65", "700", "3100"],
            env,
        );
        assert_results(&job, n);
    }
}

// ---------------------------------------------------------------------------
// Sub-communicators and derived datatypes
// ---------------------------------------------------------------------------

/// Asserts that `coll_sub` ran clean on all `n` ranks: no FAIL line, every
/// rank done with checks and no failure, every collective checked.
fn assert_sub(job: &Job, n: u32) {
    job.assert_success();
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
    let done = common::records(&job.stdout, "done");
    let mut ranks: Vec<i64> = done.iter().map(|r| r.int("rank")).collect();
    ranks.sort_unstable();
    assert_eq!(ranks, (0..n as i64).collect::<Vec<_>>(), "{}", job.dump());
    for r in &done {
        assert_eq!(r.int("fails"), 0, "{}", r.line);
        assert!(r.int("checks") > 100, "{}", r.line);
        let colls: Vec<&str> = r.get("colls").split(',').collect();
        for c in &ALL_CALLS[..17] {
            assert!(colls.contains(c), "{c} not checked: {}", r.line);
        }
    }
}

/// Every collective on communicators from MPI_Comm_split (by parity; by
/// rank mod 3 with reversed keys; the whole world reversed), with a vector
/// and a struct datatype, MPI_SUM on the vector of doubles, MPI_IN_PLACE.
#[test]
fn every_collective_on_split_communicators_with_derived_datatypes() {
    let prog = program("coll_sub");
    for (n, counts) in [(5, &["2", "200"][..]), (8, &["2", "200"]), (17, &["3"])] {
        for c in counts {
            let t = Instant::now();
            let job = Run::exact(n, &prog).args(&[c]).run();
            assert_sub(&job, n);
            eprintln!("coll_sub on {n} ranks, count {c}: {:?}", t.elapsed());
        }
    }
}

/// `coll_sub` with every algorithm of every collective forced: round i
/// forces algorithm i (mod the number there are) of each. (Alltoallv keeps
/// `scattered`: its blocks are unequal, which pairwise_sendrecv_replace
/// refuses.)
#[test]
fn split_communicators_with_every_algorithm_forced() {
    use vaced::coll::select::Coll;
    let prog = program("coll_sub");
    let rounds = Coll::ALL
        .iter()
        .map(|c| c.algorithms().len())
        .max()
        .unwrap();
    assert_eq!(rounds, 4);
    for round in 0..rounds {
        let env: Vec<(String, String)> = Coll::ALL
            .iter()
            .map(|c| {
                let algos = c.algorithms();
                let name = if *c == Coll::Alltoallv {
                    "scattered"
                } else {
                    algos[round % algos.len()]
                };
                (c.env_var(), name.to_string())
            })
            .collect();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        for n in [5, 8] {
            let job = mpirun_env(n, &common::exact_target(), &prog, &["3"], &env);
            assert_sub(&job, n);
        }
    }
}

/// Messages sent by `coll_timing` on 8 ranks (a barrier, then an 8-byte
/// broadcast) with the broadcast algorithm forced, from the report.
fn timing_messages(target: &Path, env: &[(&str, &str)]) -> u64 {
    let report = common::scratch().join(format!("forced-{}.json", env.len()));
    let mut cmd = Command::new(common::vaced());
    cmd.arg0("mpirun")
        .args(["-n", "8", "--target"])
        .arg(target)
        .arg("--report")
        .arg(&report)
        .arg(program("coll_timing"))
        .envs(env.iter().copied());
    let job = run_command(cmd, format!("{env:?} mpirun -n 8 coll_timing"));
    job.assert_success();
    common::report::uint(&common::report::read(&report), "msgs_sent")
}

#[test]
fn the_forced_algorithm_is_the_one_that_runs() {
    // Barrier (dissemination): 3 rounds of 8 messages. Broadcast of 8
    // bytes: binomial, 7 messages; scatter (binomial, 7 messages) then
    // recursive-doubling allgather (3 rounds of 8) or ring allgather (7
    // steps of 8).
    let exact = common::exact_target();
    let barrier = 3 * 8;
    assert_eq!(timing_messages(&exact, &[]), barrier + 7);
    assert_eq!(
        timing_messages(
            &exact,
            &[("VACED_COLL_BCAST", "scatter_doubling_allgather")]
        ),
        barrier + 7 + 3 * 8
    );
    assert_eq!(
        timing_messages(&exact, &[("VACED_COLL_BCAST", "scatter_ring_allgather")]),
        barrier + 7 + 7 * 8
    );
    let file = target_forcing("ring.toml", "bcast = \"scatter_ring_allgather\"\n");
    assert_eq!(timing_messages(&file, &[]), barrier + 7 + 7 * 8);
    // the environment wins over the file
    assert_eq!(
        timing_messages(&file, &[("VACED_COLL_BCAST", "binomial")]),
        barrier + 7
    );
}

#[test]
fn an_unknown_algorithm_is_refused_before_the_program_runs() {
    let prog = program("coll_timing");
    let job = mpirun_env(
        2,
        &common::exact_target(),
        &prog,
        &[],
        &[("VACED_COLL_BCAST", "ring")],
    );
    assert_eq!(exit_code(&job.status), 2, "{}", job.dump());
    assert!(
        job.stderr.contains(
            "environment variable VACED_COLL_BCAST = \"ring\": unknown algorithm for bcast \
             (valid: binomial, scatter_doubling_allgather, scatter_ring_allgather)"
        ),
        "{}",
        job.dump()
    );
    assert!(
        !job.stdout.contains("op=barrier"),
        "a rank ran\n{}",
        job.dump()
    );

    let bad = target_forcing("bad.toml", "alltoall = \"linear\"\n");
    let job = mpirun_env(2, &bad, &prog, &[], &[]);
    assert_eq!(exit_code(&job.status), 2, "{}", job.dump());
    assert!(
        job.stderr
            .contains("[collectives] alltoall = \"linear\": unknown algorithm for alltoall"),
        "{}",
        job.dump()
    );

    // Without mpirun (a singleton job), MPI_Init checks it.
    let mut cmd = Command::new(&prog);
    cmd.env("VACED_TARGET", common::exact_target())
        .env("VACED_COLL_SCAN", "linear");
    let job = run_command(cmd, "VACED_COLL_SCAN=linear coll_timing".into());
    assert_eq!(exit_code(&job.status), 1, "{}", job.dump());
    assert!(
        job.stderr.contains(
            "MPI_Init: environment variable VACED_COLL_SCAN = \"linear\": unknown algorithm \
             for scan (valid: recursive_doubling)"
        ),
        "{}",
        job.dump()
    );
}

#[test]
fn forcing_the_in_place_alltoallv_on_unequal_blocks_is_an_error() {
    // coll_results' Alltoallv sends c/2 + (i + 2j) mod 3 ints from i to j:
    // not as many as it receives from j.
    let job = mpirun_env(
        3,
        &common::exact_target(),
        &program("coll_results"),
        &["4:alltoallv"],
        &[("VACED_COLL_ALLTOALLV", "pairwise_sendrecv_replace")],
    );
    assert!(!job.status.success(), "{}", job.dump());
    assert!(
        job.stderr.contains(
            "MPI_Alltoallv: the forced algorithm pairwise_sendrecv_replace \
             (VACED_COLL_ALLTOALLV) needs equal send and receive sizes per rank"
        ),
        "{}",
        job.dump()
    );
    // The same for Alltoallw, which runs as an Alltoallv.
    let job = mpirun_env(
        3,
        &common::exact_target(),
        &program("coll_results"),
        &["4:alltoallw"],
        &[("VACED_COLL_ALLTOALLV", "pairwise_sendrecv_replace")],
    );
    assert!(!job.status.success(), "{}", job.dump());
    assert!(
        job.stderr.contains("MPI_Alltoallw: the forced algorithm"),
        "{}",
        job.dump()
    );
}

#[test]
fn error_classes_under_mpi_errors_return() {
    let job = Run::exact(4, &program("coll_errors"))
        .args(&["return"])
        .run();
    job.assert_success();
    // (case, class) with the class values of mpi.h
    let (buffer, count, ty, comm, root, op, arg, truncate) = (1, 2, 3, 5, 7, 9, 12, 14);
    let expected: BTreeMap<&str, i64> = [
        ("bcast_count", count),
        ("bcast_type_null", ty),
        ("bcast_type_invalid", ty),
        ("bcast_root", root),
        ("bcast_root_negative", root),
        ("bcast_comm_null", comm),
        ("bcast_buffer", buffer),
        ("barrier_comm", comm),
        ("allreduce_op_null", op),
        ("allreduce_maxloc_int", op),
        ("allreduce_sum_2int", op),
        ("allreduce_replace", op),
        ("allreduce_band_float", op),
        ("allreduce_null_sendbuf", buffer),
        ("allreduce_aliased", buffer),
        ("allreduce_count", count),
        ("reduce_root_recvbuf", buffer),
        ("reduce_root", root),
        ("gather_in_place_nonroot", buffer),
        ("gatherv_null_counts", arg),
        ("scatter_recv_type", ty),
        ("allgather_mismatch", truncate),
        ("alltoallv_count", count),
        ("reduce_scatter_block_op", op),
        ("scan_comm", comm),
        ("reduce_local_count", count),
        ("reduce_local_op", op),
        ("op_free_predefined", op),
        ("op_create_null", arg),
        ("op_free_twice", op),
        ("allreduce_freed_op", op),
        ("bcast_uncommitted", ty),
        ("allreduce_uncommitted", ty),
        ("gather_freed", ty),
        ("alltoall_recv_uncommitted", ty),
        ("scatterv_freed", ty),
        ("reduce_heterogeneous", ty),
        ("allreduce_vector_band_float", op),
        ("scan_derived_count", count),
        ("bcast_derived_root", root),
        ("allgather_freed_comm", comm),
        ("alltoallw_comm_null", comm),
        ("send_uncommitted", ty),
        ("isend_freed", ty),
        ("recv_uncommitted", ty),
        ("irecv_freed", ty),
        ("send_derived_count", count),
        ("sendrecv_uncommitted", ty),
        ("send_freed_comm", comm),
    ]
    .into_iter()
    .collect();
    let errs = common::records(&job.stdout, "err");
    assert_eq!(errs.len(), 4 * expected.len(), "{}", job.dump());
    for e in &errs {
        let case = e.get("case");
        let want = expected
            .get(case)
            .unwrap_or_else(|| panic!("unexpected case {case}"));
        assert_eq!(e.int("class"), *want, "{}\n{}", e.line, job.dump());
    }
    // and the job went on: a correct MPI_Allreduce afterwards
    let after = common::records(&job.stdout, "after");
    assert_eq!(after.len(), 4);
    for a in after {
        assert_eq!(
            (a.int("rc"), a.int("sum")),
            (0, 1 + 2 + 3 + 4),
            "{}",
            a.line
        );
    }
}

fn fatal(which: &str, call: &str, class: &str) {
    let job = Run::exact(4, &program("coll_errors"))
        .args(&["fatal", which])
        .run();
    assert!(!job.status.success(), "{}", job.dump());
    for want in ["rank 1", call, class] {
        assert!(job.stderr.contains(want), "no `{want}` in\n{}", job.dump());
    }
    assert!(
        !job.stdout.contains("returned"),
        "the erroneous call returned\n{}",
        job.dump()
    );
}

#[test]
fn a_fatal_error_names_the_call() {
    fatal(
        "bcast",
        "MPI_Bcast: invalid root 99 (communicator size 4)",
        "MPI_ERR_ROOT",
    );
    fatal(
        "allreduce",
        "MPI_Allreduce: MPI_MAXLOC is not defined on datatype MPI_INT",
        "MPI_ERR_OP",
    );
    fatal(
        "uncommitted",
        "MPI_Gather: sendtype: vector datatype",
        "is not committed (call MPI_Type_commit before communicating with it) [MPI_ERR_TYPE]",
    );
    fatal(
        "freed",
        "MPI_Allgather: sendtype: datatype",
        "has been freed (MPI_Type_free) [MPI_ERR_TYPE]",
    );
    fatal(
        "send",
        "MPI_Send: vector datatype",
        "is not committed (call MPI_Type_commit before communicating with it) [MPI_ERR_TYPE]",
    );
    fatal(
        "comm",
        "MPI_Alltoall: invalid communicator handle",
        "[MPI_ERR_COMM]",
    );
}

// ---------------------------------------------------------------------------
// Exact timing
// ---------------------------------------------------------------------------

/// The dissemination barrier (MPICH barrier.c) walked through the model:
/// in round k every rank i sends a 0-byte message to (i + 2^k) mod n and
/// receives one from (i - 2^k) mod n. The send takes M(0) = 0; the message
/// sent at t_j arrives at t_j + M(0) + L(0, h) (L(0, 0) = M(0) = 0 on one
/// node, l(h) across nodes) and is copied in M(0) = 0: rank i leaves the
/// round at max(t_i, t_j + L(0, h)). (A message arriving while an earlier
/// waiting activity of i was running would be handled at its arrival, which
/// is then at most t_i: the same.)
fn barrier_times(start: &[u64]) -> Vec<u64> {
    let n = start.len();
    let mut t = start.to_vec();
    let mut mask = 1;
    while mask < n {
        let prev = t.clone();
        for (i, ti) in t.iter_mut().enumerate() {
            let j = (i + n - mask) % n;
            let ta = prev[j] + m(0) + link(0, hop(j as u32, i as u32));
            *ti = (prev[i] + m(0)).max(ta) + m(0);
        }
        mask <<= 1;
    }
    t
}

/// The binomial broadcast from rank 0 (MPICH MPIR_Bcast_binomial) of `b`
/// eager bytes, every rank entering at `start[i]`: rank r > 0 receives from
/// r minus its lowest set bit; its message, sent at s, arrives at
/// ta = s + M(b) + L(b, h) and is dealt with at max(ta, start[r]): at its
/// arrival if r is waiting then, else when r's receive starts (a message
/// that came in earlier is copied in from there). The receive completes M(b)
/// later. Then r sends to r + mask for each mask below its lowest set bit
/// (from the largest), each send taking M(b).
fn bcast_times(start: &[u64], b: u64) -> Vec<u64> {
    let n = start.len();
    let mut t = start.to_vec();
    let mut order: Vec<usize> = (0..n).collect();
    // a parent (r with its lowest bit cleared) is below its children
    order.sort_by_key(|&r| r.count_ones());
    let mut sent_at = vec![None; n];
    for &r in &order {
        let low = if r == 0 {
            n.next_power_of_two()
        } else {
            1 << r.trailing_zeros()
        };
        if r > 0 {
            let parent = r - low;
            let s: u64 = sent_at[r].expect("parent sent");
            let ta = s + m(b) + link(b, hop(parent as u32, r as u32));
            t[r] = ta.max(start[r]) + m(b);
        }
        let mut mask = low >> 1;
        while mask > 0 {
            if r + mask < n {
                sent_at[r + mask] = Some(t[r]);
                t[r] += m(b);
            }
            mask >>= 1;
        }
    }
    t
}

fn exact_barrier_bcast(n: u32) {
    // skew(r) = ((37 r) mod n) us of virtual computation before the barrier
    let skew: Vec<u64> = (0..n as u64)
        .map(|r| (37 * r % n as u64) * 1_000_000)
        .collect();
    let after_barrier = barrier_times(&skew);
    let after_bcast = bcast_times(&after_barrier, 8);
    let mut expected = BTreeMap::new();
    for r in 0..n as usize {
        expected.insert((r as i64, "barrier".to_string()), after_barrier[r]);
        expected.insert((r as i64, "bcast".to_string()), after_bcast[r]);
    }
    let prog = program("coll_timing");
    for cores in CORE_VARIANTS {
        let job = Run::exact(n, &prog).cores(cores).run();
        job.assert_success();
        let got: BTreeMap<_, _> = times_by_rank_op(&job.stdout, "t").into_iter().collect();
        let diffs: Vec<String> = expected
            .iter()
            .filter(|(k, v)| got.get(*k) != Some(*v))
            .map(|(k, v)| {
                format!(
                    "{k:?}: got {}, expected {}",
                    got.get(k).map_or("nothing".into(), |g| fmt_ps(*g)),
                    fmt_ps(*v)
                )
            })
            .collect();
        assert!(
            diffs.is_empty() && got.len() == expected.len(),
            "{n} ranks, cores {cores:?}:\n{}\n{}",
            diffs.join("\n"),
            job.dump()
        );
    }
}

#[test]
fn exact_barrier_and_binomial_bcast_on_one_node() {
    // One node (12 ranks per node): every message is 0 hops, L(b, 0) = M(b).
    // Barrier: everyone leaves when the last arrives, at (n - 1) us.
    let skew = |n: u64| (0..n).map(|r| (37 * r % n) * 1_000_000).collect::<Vec<_>>();
    for n in [4u64, 8] {
        assert_eq!(
            barrier_times(&skew(n)),
            vec![(n - 1) * 1_000_000; n as usize]
        );
    }
    // Broadcast of 8 bytes among 8 ranks from T: 3 sequential one-way eager
    // times E(8) = M(8) + L(8, 0) + M(8) = 3 M(8) reach rank 7; the root
    // ends after its 3 sends.
    let t = 7_000_000;
    let b = bcast_times(&[t; 8], 8);
    let e = 3 * m(8);
    assert_eq!(b[7], t + 3 * e);
    assert_eq!(b[0], t + 3 * m(8));
    assert_eq!(b, [3, 5, 5, 7, 5, 7, 7, 9].map(|k| t + k * m(8)).to_vec());
    exact_barrier_bcast(4);
    exact_barrier_bcast(8);
}

#[test]
fn exact_barrier_and_binomial_bcast_across_two_nodes() {
    // 16 ranks: 0..11 on node 0, 12..15 on node 1 (3 hops apart).
    exact_barrier_bcast(16);
}

/// (communicator rank, start, end) of one rank in one case, in ps.
type RankTimes = (usize, u64, u64);

/// Runs `coll_timing_all` on 181 ranks (communicators of world ranks 0, 12,
/// ...) at the exact target on `cores` host cores with `env`.
fn timing_all(cores: u32, env: &[(String, String)]) -> Job {
    let prog = program("coll_timing_all");
    let mut cmd = Command::new(common::vaced());
    cmd.arg0("mpirun")
        .args(["-n", "181", "--cores", &cores.to_string(), "--target"])
        .arg(common::exact_target())
        .arg(&prog)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    run_command(
        cmd,
        format!("{env:?} mpirun -n 181 --cores {cores} coll_timing_all"),
    )
}

/// Every algorithm of every collective forced, its case run by real
/// processes: round i forces algorithm i (mod the number there are) of each
/// collective. Each case's ranks start together; each rank's time in the
/// call equals the shared derivation of the algorithm's schedule, and the
/// output is the same on 1 and 2 host cores.
#[test]
fn every_algorithm_times_as_its_schedule_from_real_processes() {
    use vaced::coll::select::Coll;
    let mut covered = std::collections::BTreeSet::new();
    for round in 0..4 {
        let env: Vec<(String, String)> = Coll::ALL
            .iter()
            .map(|c| {
                let algos = c.algorithms();
                (c.env_var(), algos[round % algos.len()].to_string())
            })
            .collect();
        let mut outputs = Vec::new();
        for cores in [1, 2] {
            let job = timing_all(cores, &env);
            job.assert_success();
            assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
            let mut lines: Vec<&str> = job.stdout.lines().filter(|l| l.starts_with("t ")).collect();
            lines.sort_unstable();
            outputs.push(lines.join("\n"));
            let mut cases: BTreeMap<(String, String), Vec<RankTimes>> = BTreeMap::new();
            for r in common::records(&job.stdout, "t") {
                cases
                    .entry((r.get("coll").to_string(), r.get("algo").to_string()))
                    .or_default()
                    .push((
                        r.int("rank") as usize,
                        common::secs_to_ps(r.get("start")),
                        common::secs_to_ps(r.get("end")),
                    ));
            }
            assert_eq!(cases.len(), Coll::ALL.len(), "{}", job.dump());
            for ((coll, algo), mut got) in cases {
                got.sort_unstable();
                let want = schedules::expected(&coll, &algo)
                    .unwrap_or_else(|| panic!("no derivation for {coll} {algo}"));
                let start = got[0].1;
                let ranks: Vec<usize> = got.iter().map(|g| g.0).collect();
                assert_eq!(ranks, (0..want.len()).collect::<Vec<_>>(), "{coll} {algo}");
                assert!(got.iter().all(|g| g.1 == start), "{coll} {algo}: {got:?}");
                let took: Vec<u64> = got.iter().map(|g| g.2 - g.1).collect();
                assert_eq!(
                    took,
                    want,
                    "{coll} {algo} on {cores} cores: {:?} vs {:?}",
                    took.iter().map(|&p| fmt_ps(p)).collect::<Vec<_>>(),
                    want.iter().map(|&p| fmt_ps(p)).collect::<Vec<_>>()
                );
                covered.insert((coll, algo));
            }
        }
        assert_eq!(
            outputs[0], outputs[1],
            "round {round}: 1 and 2 cores differ"
        );
    }
    let all: usize = Coll::ALL.iter().map(|c| c.algorithms().len()).sum();
    assert_eq!(covered.len(), all, "{covered:?}");
}
