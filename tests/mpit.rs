//! The MPI tools interface (MPI_T) end to end: `tests/programs/mpit.c`
//! lists every control variable, enumeration, performance variable and
//! category, reads the control variables (checked here against the target
//! file and environment the job was given), reads the performance variables
//! around a known message pattern (checked to the picosecond and the byte
//! against the model's equations, on every core variant), checks session
//! start / stop / reset / write semantics, MPI_T before MPI_Init and after
//! MPI_Finalize, and the MPI_T_ERR_* classes.
mod common;

use common::model::{blocking_transfer, hop, m, Clock, H};
use common::{program, records, write_target, Job, Record, Run, CORE_VARIANTS};

/// Every rank's `tag` line with `key=val` (exactly one).
fn one<'a>(recs: &'a [Record], rank: i64, key: &str, val: &str) -> &'a Record {
    let v: Vec<_> = recs
        .iter()
        .filter(|r| r.int("rank") == rank && r.get(key) == val)
        .collect();
    assert_eq!(v.len(), 1, "rank {rank} {key}={val}: {v:?}");
    v[0]
}

fn run(n: u32, r: Run) -> Job {
    let _ = n;
    let job = r.run();
    job.assert_success();
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
    job
}

const CHECK_TARGET: &str = r#"name = "mpit-check"
[cpu]
scale = 0.5
[network]
mem_bandwidth = "5 GB/s"
net_bandwidth = "2 GiB/s"
latency = "12 us"
hop_latency = "0.25 us"
eager_limit = "64 KiB"
header_bytes = 48
o_send = "3 ns"
o_recv = "7 ns"
[topology]
levels = [ { ranks = 4, hops = 0 } ]
default_hops = 2
[collectives]
allreduce = "recursive_doubling"
bcast = "scatter_ring_allgather"
"#;

/// The control variables are the job's real settings: every value of the
/// target file, the sync mode and the forced collective algorithms
/// (`VACED_COLL_BCAST` wins over the file's `[collectives]`), the same
/// before MPI_Init, while running and after MPI_Finalize on every rank;
/// all MPI_T_SCOPE_CONSTANT (60438), bound to no object (9700), and a
/// write answers MPI_T_ERR_CVAR_SET_NEVER (69). Then the enumerations,
/// performance variables, categories and errors as listed.
#[test]
fn variables_categories_and_errors() {
    let target = write_target("mpit-check.toml", CHECK_TARGET);
    let mut r = Run::new(3, target.as_os_str(), &program("mpit")).sync("fast");
    r.env
        .push(("VACED_COLL_BCAST".to_string(), "binomial".to_string()));
    let job = run(3, r);
    let out = &job.stdout;

    let want_cvars: Vec<(&str, &str, i64, &str, i64, &str)> = vec![
        // name, datatype, verbosity, enum, count, value
        ("vaced_target_name", "char", 221, "-", 11, "mpit-check"),
        ("vaced_cpu_scale", "double", 221, "-", 1, "0.5"),
        ("vaced_mem_bandwidth", "ull", 222, "-", 1, "5000000000"),
        ("vaced_net_bandwidth", "ull", 222, "-", 1, "2147483648"),
        ("vaced_latency_ps", "ull", 222, "-", 1, "12000000"),
        ("vaced_hop_latency_ps", "ull", 222, "-", 1, "250000"),
        ("vaced_eager_limit", "ull", 221, "-", 1, "65536"),
        ("vaced_header_bytes", "ull", 222, "-", 1, "48"),
        ("vaced_o_send_ps", "ull", 222, "-", 1, "3000"),
        ("vaced_o_recv_ps", "ull", 222, "-", 1, "7000"),
        ("vaced_default_hops", "int", 222, "-", 1, "2"),
        (
            "vaced_sync_mode",
            "int",
            224,
            "vaced_sync_mode",
            1,
            "1:fast",
        ),
    ];
    let colls = [
        ("barrier", "0:auto"),
        ("bcast", "1:binomial"),
        ("reduce", "0:auto"),
        ("allreduce", "1:recursive_doubling"),
        ("gather", "0:auto"),
        ("gatherv", "0:auto"),
        ("scatter", "0:auto"),
        ("scatterv", "0:auto"),
        ("allgather", "0:auto"),
        ("allgatherv", "0:auto"),
        ("alltoall", "0:auto"),
        ("alltoallv", "0:auto"),
        ("reduce_scatter", "0:auto"),
        ("reduce_scatter_block", "0:auto"),
        ("scan", "0:auto"),
        ("exscan", "0:auto"),
    ];
    let cvars = records(out, "cvar");
    assert_eq!(cvars.len(), 3 * 3 * (want_cvars.len() + colls.len()));
    for rank in 0..3 {
        for when in ["pre", "running", "post"] {
            let mine: Vec<_> = cvars
                .iter()
                .filter(|c| c.int("rank") == rank && c.get("when") == when)
                .collect();
            let mut want: Vec<String> = want_cvars
                .iter()
                .map(|(n, dt, v, e, c, val)| format!("{n} {dt} {v} {e} {c} {val}"))
                .collect();
            want.extend(colls.iter().map(|(k, val)| {
                format!("vaced_coll_{k} int 224 vaced_coll_{k}_algorithm 1 {val}")
            }));
            for (i, (c, w)) in mine.iter().zip(&want).enumerate() {
                assert_eq!(c.int("i"), i as i64, "{}", c.line);
                let got = format!(
                    "{} {} {} {} {} {}",
                    c.get("name"),
                    c.get("dt"),
                    c.get("verbosity"),
                    c.get("enum"),
                    c.get("count"),
                    c.get("value")
                );
                assert_eq!(&got, w, "rank {rank} {when}: {}", c.line);
                assert_eq!(
                    (c.int("scope"), c.int("bind"), c.int("write"), c.int("null")),
                    (60438, 9700, 69, 1),
                    "{}",
                    c.line
                );
            }
            assert_eq!(mine.len(), want.len(), "rank {rank} {when}");
        }
    }

    let enums = records(out, "enum");
    let e = |name: &str| one(&enums, 2, "name", name).get("items").to_string();
    assert_eq!(e("vaced_sync_mode"), "exact=0,fast=1");
    assert_eq!(
        e("vaced_coll_bcast_algorithm"),
        "auto=0,binomial=1,scatter_doubling_allgather=2,scatter_ring_allgather=3"
    );
    assert_eq!(e("vaced_coll_barrier_algorithm"), "auto=0,dissemination=1");
    assert_eq!(enums.len(), 3 * (1 + colls.len()));

    let pvars = records(out, "pvar");
    let want_pvars = [
        ("vaced_msgs_sent", 246, 221),
        ("vaced_bytes_sent", 246, 221),
        ("vaced_decisions", 246, 222),
        ("vaced_virtual_time_ps", 248, 221),
        ("vaced_compute_time_ps", 248, 221),
        ("vaced_comm_time_ps", 248, 221),
        ("vaced_wait_time_ps", 248, 221),
    ];
    assert_eq!(pvars.len(), 3 * want_pvars.len());
    for (i, (name, class, verbosity)) in want_pvars.iter().enumerate() {
        for rank in 0..3 {
            let p = one(&pvars, rank, "i", &i.to_string());
            assert_eq!(
                (
                    p.get("name"),
                    p.int("class"),
                    p.int("verbosity"),
                    p.get("dt")
                ),
                (*name, *class, *verbosity, "ull"),
                "{}",
                p.line
            );
            // no enum, no object, writable (session-local), not continuous,
            // not atomic
            assert_eq!(
                (
                    p.int("enum"),
                    p.int("bind"),
                    p.int("readonly"),
                    p.int("continuous"),
                    p.int("atomic")
                ),
                (1, 9700, 0, 0, 0),
                "{}",
                p.line
            );
        }
    }

    let cats = records(out, "cat");
    let want_cats = [
        ("vaced", "", "", "1,2,3,4,5"),
        ("vaced_target", "0,1,2,3,4,5,6,7,8,9,10", "", ""),
        ("vaced_engine", "11", "", ""),
        (
            "vaced_collectives",
            "12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27",
            "",
            "",
        ),
        ("vaced_p2p", "", "0,1,2", ""),
        ("vaced_time", "", "3,4,5,6", ""),
    ];
    assert_eq!(cats.len(), 3 * want_cats.len());
    for (i, (name, cv, pv, sub)) in want_cats.iter().enumerate() {
        let c = one(&cats, 1, "i", &i.to_string());
        assert_eq!(
            (c.get("name"), c.get("cvars"), c.get("pvars"), c.get("cats")),
            (*name, *cv, *pv, *sub),
            "{}",
            c.line
        );
    }
    for s in records(out, "stamp") {
        assert_eq!(s.int("stamp"), 1);
    }

    // MPI_T_ERR_*: INVALID_INDEX 62, INVALID_ITEM 63, INVALID_HANDLE 64,
    // INVALID_SESSION 67, INVALID_NAME 73, INVALID 74
    let errs = records(out, "err");
    let want_errs = [
        ("cvar_index_neg", 62),
        ("cvar_index_num", 62),
        ("pvar_index_num", 62),
        ("cat_index_num", 62),
        ("cvar_name", 73),
        ("pvar_class", 73),
        ("cat_name", 73),
        ("enum_item", 63),
        ("enum_null", 64),
        ("cvar_freed", 64),
        ("readall", 64),
        ("other_session", 64),
        ("null_handle", 64),
        ("session_freed", 67),
        ("session_null", 67),
        ("handle_freed", 64),
        ("init_level", 74),
    ];
    assert_eq!(errs.len(), 3 * want_errs.len());
    for rank in 0..3 {
        for (what, rc) in want_errs {
            let e = one(&errs, rank, "what", what);
            assert_eq!(e.int("rc"), rc, "{}", e.line);
            if let Some(n) = e.fields.get("null") {
                assert_eq!(n, "1", "{}", e.line);
            }
        }
        // before MPI_T_init_thread: MPI_T_ERR_NOT_INITIALIZED (60) for a
        // query and for MPI_T_finalize; then two counted initializations
        let early = one(&records(out, "early"), rank, "rank", &rank.to_string()).clone();
        assert_eq!(
            (
                early.int("get_num"),
                early.int("finalize"),
                early.get("init"),
                early.int("provided")
            ),
            (60, 60, "0,0", 1),
            "{}",
            early.line
        );
        // two MPI_T_finalize end the two initializations, a third is an
        // error; initialized again, the handles of before are gone
        let late = records(out, "late");
        let end = one(&late, rank, "step", "end");
        assert_eq!(
            (
                end.get("finalize"),
                end.get("get_num"),
                end.int("reinit"),
                end.int("stale_session")
            ),
            ("0,0,60", "0,60", 0, 67),
            "{}",
            end.line
        );
    }
}

/// The performance variables around a known pattern on two ranks of one
/// node (hop 0): rank 0 sends 100 bytes (eager), computes 1 us
/// (MPIX_Vaced_compute) and sends 200000 bytes (rendezvous) to rank 1, which
/// sends 8 bytes back. Counters count MPI messages and payload bytes; the
/// timers give each rank's virtual clock (equal to MPI_Wtime) and its
/// parts: computation (only the 1 us at cpu.scale 0),
/// communication the starting phases (DATA and REQ copies into the message
/// buffer: M(100) + M(H) on rank 0, M(8) on rank 1; the ACK and the
/// rendezvous DATA go out inside waits), the rest waiting. A session
/// started before MPI_Init reads the clock from 0. Stopped handles do not
/// move; the compute timer follows start / stop / reset / readreset /
/// write exactly over MPIX_Vaced_compute intervals; two sessions are
/// independent; after MPI_Finalize the values are the final ones.
#[test]
fn counters_and_timers_are_exact() {
    let (mut c0, mut c1) = (Clock::new(), Clock::new());
    let h = hop(0, 1);
    blocking_transfer(&mut c0, &mut c1, 100, h);
    // (the REQ then reaches rank 1 after its first receive ended)
    c0.compute(1_000_000);
    blocking_transfer(&mut c0, &mut c1, 200_000, h);
    blocking_transfer(&mut c1, &mut c0, 8, h);
    let want = [
        (c0.t, 2, 200_100, m(100) + m(H), 1_000_000),
        (c1.t, 1, 8, m(8), 0),
    ];
    for cores in CORE_VARIANTS {
        let job = run(2, Run::exact(2, &program("mpit")).cores(cores));
        let out = &job.stdout;
        let pat = records(out, "pattern");
        let sem = records(out, "semantics");
        let late = records(out, "late");
        for (rank, (vt, msgs, bytes, comm, compute)) in want.iter().enumerate() {
            let rank = rank as i64;
            let p = one(&pat, rank, "rank", &rank.to_string());
            let what = format!("cores {cores:?}: {}", p.line);
            assert_eq!(p.ps("t0"), 0, "{what}");
            assert_eq!(p.ps("t1"), *vt, "{what}");
            assert_eq!(p.int("vt") as u64, *vt, "{what}");
            assert_eq!(p.int("whole_vt") as u64, *vt, "{what}");
            assert_eq!(
                (p.int("msgs"), p.int("bytes"), p.int("decisions")),
                (*msgs, *bytes, 0),
                "{what}"
            );
            assert_eq!(
                (p.int("compute") as u64, p.int("comm") as u64),
                (*compute, *comm),
                "{what}"
            );
            assert_eq!(p.int("wait") as u64, vt - comm - compute, "{what}");

            let pre = one(&sem, rank, "step", "pre_init");
            assert_eq!((pre.int("vt"), pre.int("msgs")), (0, 0), "{}", pre.line);
            let st = one(&sem, rank, "step", "stopped");
            assert_eq!(
                (st.int("msgs"), st.int("vt") as u64),
                (*msgs, *vt),
                "{}",
                st.line
            );
            // 1 us counted, 2 us stopped, 4 us counted: 5 us; reset, 8 us:
            // readreset gives 8 us and leaves 0; 7 us written, 16 us
            // counted, stopped, 32 us not counted: 23 us
            let c = one(&sem, rank, "step", "compute");
            assert_eq!(
                (
                    c.int("stopped"),
                    c.int("running"),
                    c.int("readreset"),
                    c.int("after"),
                    c.int("written")
                ),
                (1_000_000, 5_000_000, 8_000_000, 0, 23_000_000),
                "{}",
                c.line
            );
            let s = one(&sem, rank, "step", "sessions");
            assert_eq!(
                (s.int("s"), s.int("s2")),
                (23_000_000, 1_000_000),
                "{}",
                s.line
            );
            // after MPI_Finalize: the values at MPI_Finalize (the barrier
            // added one message per rank)
            let v = one(&late, rank, "step", "values");
            assert_eq!(v.int("vt"), v.int("before"), "{}", v.line);
            assert_eq!(v.int("stopped_vt"), v.int("vt"), "{}", v.line);
            assert_eq!(v.int("msgs"), msgs + 1, "{}", v.line);
        }
    }
}
