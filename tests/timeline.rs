//! `mpirun --timeline`: the trace of a 4-rank ping-pong (tests/programs/
//! timeline_pingpong.c, pairs (0, 1) and (2, 3), an eager and a rendezvous
//! size) at `cpu.scale = 0`, on 1 and 2 host cores, holds exactly the events
//! the model's equations give (`common::model`), to the picosecond:
//! * Perfetto JSON: it parses (serde_json), and its computation bursts, MPI
//!   calls (name, communicator, partner, tag, bytes) and messages (a flow
//!   from send time to arrival time, kind, bytes, tag) are exactly the
//!   expected ones, each with its exact picoseconds in `args` and `ts` /
//!   `dur` the same in microseconds;
//! * Paraver: the .prv header (time unit, end time, resources, tasks), one
//!   state per burst and call, two events per call, one communication per
//!   data message, with the expected values in nanoseconds, sorted by time;
//!   the .pcf names the states and calls, the .row the ranks.
//!
//! Derivation for one message of b bytes from rank f (tV = T_f) to its
//! partner t, blocked in MPI_Recv since its tV = w, h = hop(f, t)
//! (see `model::blocking_transfer`): f first computes (f + 1) us (a burst
//! [T_f, T_f + c]); then
//! * eager (b <= 128 KiB): DATA ts = T, ta = T + M(b) + L(b, h); MPI_Send
//!   [T, T + M(b)]; MPI_Recv [w, max(ta, w) + M(b)];
//! * rendezvous: REQ ts = T, ta1 = T + M(H) + L(H, h); the receiver handles
//!   it at t1 = max(ta1, w) and sends the ACK: ts = t1, ta2 = t1 + M(H) +
//!   L(H, h); the sender handles it at t2 = max(ta2, T + M(H)) and sends
//!   DATA: ts = t2, ta3 = t2 + M(b) + L(b, h); MPI_Send [T, t2 + M(b)];
//!   MPI_Recv [w, max(ta3, w) + M(b)].
//!
//! Every rank also calls MPI_Comm_rank and MPI_Comm_size at 0 and
//! MPI_Finalize at its end (zero length at scale 0). The communicator is
//! MPI_COMM_WORLD, context id 0.
mod common;

use common::model::{hop, is_eager, link, m, Clock, H};
use common::{program, report, scratch, Run};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

const NRANKS: u32 = 4;
const REPS: u32 = 2;
const SIZES: [u64; 2] = [1000, 200_000];
/// Context id of MPI_COMM_WORLD.
const WORLD: u64 = 0;

/// One event of the timeline, as the test compares them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Compute {
        rank: u32,
        t0: u64,
        t1: u64,
    },
    Call {
        rank: u32,
        t0: u64,
        t1: u64,
        name: String,
        comm: Option<u64>,
        partner: Option<u64>,
        tag: Option<i64>,
        bytes: u64,
    },
    Msg {
        from: u32,
        to: u32,
        ts: u64,
        ta: u64,
        kind: String,
        comm: u64,
        tag: i64,
        bytes: u64,
    },
}

fn call(rank: u32, name: &str, t0: u64, t1: u64, peer: Option<(u32, i64, u64)>) -> Ev {
    Ev::Call {
        rank,
        t0,
        t1,
        name: name.to_string(),
        comm: Some(WORLD),
        partner: peer.map(|p| u64::from(p.0)),
        tag: peer.map(|p| p.1),
        bytes: peer.map_or(0, |p| p.2),
    }
}

fn msg(kind: &str, from: u32, to: u32, ts: u64, ta: u64, tag: i64, bytes: u64) -> Ev {
    Ev::Msg {
        from,
        to,
        ts,
        ta,
        kind: kind.to_string(),
        comm: WORLD,
        tag,
        bytes,
    }
}

/// One message of `b` bytes from `f` (clock `cf`) to `t` (clock `ct`,
/// blocked in MPI_Recv since `ct.t`), after `f` computes (f + 1) us.
fn one_way(f: u32, cf: &mut Clock, t: u32, ct: &mut Clock, b: u64, tag: i64, out: &mut Vec<Ev>) {
    let c = u64::from(f + 1) * 1_000_000;
    out.push(Ev::Compute {
        rank: f,
        t0: cf.t,
        t1: cf.t + c,
    });
    cf.compute(c);
    let h = hop(f, t);
    let start = cf.t;
    let w = ct.t;
    if is_eager(b) {
        let ta = cf.send(b, h);
        out.push(msg("eager", f, t, start, ta, tag, b));
        out.push(call(f, "MPI_Send", start, cf.t, Some((t, tag, b))));
        let done = ct.deal(ta, w) + m(b);
        ct.end_wait(w, done);
    } else {
        let ta1 = cf.send(H, h);
        out.push(msg("REQ", f, t, start, ta1, tag, b));
        let ws = cf.t;
        let t1 = ct.deal(ta1, w);
        let ta2 = t1 + m(H) + link(H, h);
        out.push(msg("ACK", t, f, t1, ta2, tag, b));
        let t2 = cf.deal(ta2, ws);
        let ta3 = t2 + m(b) + link(b, h);
        out.push(msg("DATA", f, t, t2, ta3, tag, b));
        cf.end_wait(ws, t2 + m(b));
        out.push(call(f, "MPI_Send", start, cf.t, Some((t, tag, b))));
        let t3 = ct.deal(ta3, w);
        ct.end_wait(w, t3 + m(b));
    }
    out.push(call(t, "MPI_Recv", w, ct.t, Some((f, tag, b))));
}

/// The expected events (sorted) and each rank's end time.
fn expected() -> (Vec<Ev>, Vec<u64>) {
    let mut out = Vec::new();
    let mut ends = vec![0; NRANKS as usize];
    for s in (0..NRANKS).step_by(2) {
        let p = s + 1;
        let (mut cs, mut cp) = (Clock::new(), Clock::new());
        for r in [s, p] {
            out.push(call(r, "MPI_Comm_rank", 0, 0, None));
            out.push(call(r, "MPI_Comm_size", 0, 0, None));
        }
        for (k, &b) in SIZES.iter().enumerate() {
            for rep in 0..REPS {
                let tag = (k * 100) as i64 + i64::from(rep);
                one_way(s, &mut cs, p, &mut cp, b, tag, &mut out);
                one_way(p, &mut cp, s, &mut cs, b, tag, &mut out);
            }
        }
        for (r, c) in [(s, cs), (p, cp)] {
            out.push(call(r, "MPI_Finalize", c.t, c.t, None));
            ends[r as usize] = c.t;
        }
    }
    out.sort();
    (out, ends)
}

fn run(cores: u32, out: &Path, format: &str) -> Value {
    let rep = scratch().join(format!("report-{format}-{cores}.json"));
    let job = Run::exact(NRANKS, &program("timeline_pingpong"))
        .cores(Some(cores))
        .report(&rep)
        .option(&["--timeline".as_ref(), out.as_os_str()])
        .option(&["--timeline-format", format])
        .args(
            &std::iter::once(REPS.to_string())
                .chain(SIZES.iter().map(u64::to_string))
                .collect::<Vec<_>>(),
        )
        .run();
    job.assert_success();
    // the ranks' files are gone
    let left: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ranks"))
        .collect();
    assert!(left.is_empty(), "rank files left behind: {left:?}");
    report::read(&rep)
}

fn field<'a>(e: &'a Value, key: &str) -> &'a Value {
    e.get(key)
        .unwrap_or_else(|| panic!("no `{key}` in event {e}"))
}

fn uint(e: &Value, key: &str) -> u64 {
    field(e, key)
        .as_u64()
        .unwrap_or_else(|| panic!("`{key}` is not an unsigned integer in {e}"))
}

fn string(e: &Value, key: &str) -> String {
    field(e, key)
        .as_str()
        .unwrap_or_else(|| panic!("`{key}` is not a string in {e}"))
        .to_string()
}

/// `e[key]` (microseconds) is `ps` picoseconds.
fn assert_us(e: &Value, key: &str, ps: u64) {
    let us = field(e, key)
        .as_f64()
        .unwrap_or_else(|| panic!("`{key}` is not a number in {e}"));
    assert_eq!((us * 1e6).round() as u64, ps, "`{key}` in {e}");
}

/// The events of a Perfetto trace, checking the format on the way.
fn perfetto_events(trace: &Value) -> Vec<Ev> {
    let events = trace
        .get("traceEvents")
        .and_then(Value::as_array)
        .expect("a traceEvents array");
    let mut out = Vec::new();
    let mut threads = BTreeMap::new();
    let mut flows: HashMap<u64, (Option<Value>, Option<Value>)> = HashMap::new();
    for e in events {
        assert_eq!(uint(e, "pid"), 1, "{e}");
        match string(e, "ph").as_str() {
            "M" => {
                if string(e, "name") == "thread_name" {
                    let name = string(field(e, "args"), "name");
                    threads.insert(uint(e, "tid"), name);
                }
            }
            "X" => {
                let a = field(e, "args");
                let (t0, d) = (uint(a, "ts_ps"), uint(a, "dur_ps"));
                assert_us(e, "ts", t0);
                assert_us(e, "dur", d);
                let rank = uint(e, "tid") as u32;
                match string(e, "cat").as_str() {
                    "compute" => {
                        assert_eq!(string(e, "name"), "compute");
                        out.push(Ev::Compute {
                            rank,
                            t0,
                            t1: t0 + d,
                        })
                    }
                    "mpi" => out.push(Ev::Call {
                        rank,
                        t0,
                        t1: t0 + d,
                        name: string(e, "name"),
                        comm: a.get("comm").map(|v| v.as_u64().unwrap()),
                        partner: a.get("partner").map(|v| v.as_u64().unwrap()),
                        tag: a.get("tag").map(|v| v.as_i64().unwrap()),
                        bytes: uint(a, "bytes"),
                    }),
                    c => panic!("unknown category {c} in {e}"),
                }
            }
            "s" => {
                let f = flows.entry(uint(e, "id")).or_default();
                assert!(f.0.replace(e.clone()).is_none(), "two flow starts: {e}");
            }
            "f" => {
                let f = flows.entry(uint(e, "id")).or_default();
                assert!(f.1.replace(e.clone()).is_none(), "two flow ends: {e}");
            }
            ph => panic!("unexpected phase {ph} in {e}"),
        }
    }
    let want: BTreeMap<u64, String> = (0..NRANKS as u64)
        .map(|r| (r, format!("rank {r}")))
        .collect();
    assert_eq!(threads, want, "thread names");
    for (id, (s, f)) in flows {
        let s = s.unwrap_or_else(|| panic!("flow {id} has no start"));
        let f = f.unwrap_or_else(|| panic!("flow {id} has no end"));
        assert_eq!(string(&s, "cat"), "message");
        assert_eq!(s.get("cat"), f.get("cat"));
        assert_eq!(s.get("name"), f.get("name"));
        assert_eq!(s.get("args"), f.get("args"));
        assert_eq!(string(&f, "bp"), "e", "{f}");
        let a = field(&s, "args");
        let (from, to) = (uint(a, "from"), uint(a, "to"));
        let (ts, ta) = (uint(a, "ts_ps"), uint(a, "ta_ps"));
        assert_eq!(uint(&s, "tid"), from, "{s}");
        assert_eq!(uint(&f, "tid"), to, "{f}");
        assert_us(&s, "ts", ts);
        assert_us(&f, "ts", ta);
        out.push(Ev::Msg {
            from: from as u32,
            to: to as u32,
            ts,
            ta,
            kind: string(&s, "name"),
            comm: uint(a, "comm"),
            tag: field(a, "tag").as_i64().unwrap(),
            bytes: uint(a, "bytes"),
        });
    }
    out.sort();
    out
}

/// Every difference between two sorted event lists.
fn assert_same_events(what: &str, want: &[Ev], got: &[Ev]) {
    let missing: Vec<_> = want.iter().filter(|e| !got.contains(e)).collect();
    let extra: Vec<_> = got.iter().filter(|e| !want.contains(e)).collect();
    assert!(
        missing.is_empty() && extra.is_empty() && want.len() == got.len(),
        "{what}: {} expected events missing, {} unexpected ({} expected, {} found)\n\
         missing:\n{missing:#?}\nunexpected:\n{extra:#?}",
        missing.len(),
        extra.len(),
        want.len(),
        got.len()
    );
}

/// The ranks' end times in the report are the timeline's.
fn assert_ends(report: &Value, ends: &[u64]) {
    let got: Vec<u64> = report::ranks(report).iter().map(report::vtime_ps).collect();
    assert_eq!(got, ends, "the ranks' times in the report");
}

#[test]
fn reference_scenario_is_what_the_test_assumes() {
    // the pairs are on one node, and one size of each protocol
    assert_eq!(hop(0, 1), 0);
    assert_eq!(hop(2, 3), 0);
    assert!(is_eager(SIZES[0]) && !is_eager(SIZES[1]));
    let (evs, ends) = expected();
    // one-way trips of each size: 2 pairs x 2 directions x REPS; each is a
    // burst, a send and a receive, and 1 message (eager) or 3 (REQ, ACK,
    // DATA); every rank also makes 3 calls (Comm_rank, Comm_size, Finalize)
    let ways = 2 * 2 * u64::from(REPS);
    let count = |f: &dyn Fn(&Ev) -> bool| evs.iter().filter(|e| f(e)).count() as u64;
    assert_eq!(count(&|e| matches!(e, Ev::Compute { .. })), 2 * ways);
    assert_eq!(
        count(&|e| matches!(e, Ev::Call { .. })),
        3 * u64::from(NRANKS) + 2 * 2 * ways
    );
    assert_eq!(count(&|e| matches!(e, Ev::Msg { .. })), ways + 3 * ways);
    assert!(ends.iter().all(|&t| t > 0));
    // a rank's events tile its time: calls and bursts end to end from 0
    for r in 0..NRANKS {
        let mut spans: Vec<(u64, u64)> = evs
            .iter()
            .filter_map(|e| match *e {
                Ev::Compute { rank, t0, t1 } | Ev::Call { rank, t0, t1, .. } if rank == r => {
                    Some((t0, t1))
                }
                _ => None,
            })
            .collect();
        spans.sort();
        let mut t = 0;
        for (a, b) in spans {
            assert_eq!(a, t, "rank {r}: a gap or overlap at {t}");
            t = b;
        }
        assert_eq!(t, ends[r as usize]);
    }
}

#[test]
fn perfetto_trace_holds_exactly_the_predicted_events() {
    let (want, ends) = expected();
    for cores in [1, 2] {
        let out = scratch().join(format!("pingpong-{cores}.json"));
        let report = run(cores, &out, "perfetto");
        assert_ends(&report, &ends);
        let text = std::fs::read_to_string(&out).unwrap();
        let trace: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", out.display()));
        assert_eq!(
            trace.pointer("/otherData/ranks").and_then(Value::as_u64),
            Some(u64::from(NRANKS))
        );
        let got = perfetto_events(&trace);
        assert_same_events(&format!("--cores {cores}"), &want, &got);
    }
}

/// Picoseconds to Paraver's nanoseconds (nearest, ties up).
fn ns(ps: u64) -> u64 {
    (ps + 500) / 1000
}

/// Paraver's state for the calls of the test program.
fn state(name: &str) -> u64 {
    match name {
        "MPI_Send" => 4,
        "MPI_Recv" => 3,
        _ => 15,
    }
}

#[test]
fn paraver_trace_is_well_formed_and_exact() {
    let (want, ends) = expected();
    for cores in [1, 2] {
        let out = scratch().join(format!("pingpong-{cores}.prv"));
        let report = run(cores, &out, "paraver");
        assert_ends(&report, &ends);
        let base = out.with_extension("");
        let read = |ext: &str| {
            let p = base.with_extension(ext);
            std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        };
        let (prv, pcf, row) = (read("prv"), read("pcf"), read("row"));

        // .pcf: the states and the calls' numbers
        for s in [
            "STATES",
            "1    Running",
            "3    Waiting a message",
            "4    Blocking Send",
        ] {
            assert!(pcf.contains(s), "no `{s}` in the .pcf:\n{pcf}");
        }
        let values = pcf
            .split("EVENT_TYPE\n0    50000000    MPI call\nVALUES\n")
            .nth(1)
            .expect("the MPI call event type in the .pcf");
        let mut call_ids = HashMap::new();
        for l in values.lines().take_while(|l| !l.is_empty()) {
            let (v, name) = l.split_once(' ').unwrap();
            call_ids.insert(v.parse::<u64>().unwrap(), name.trim().to_string());
        }
        assert_eq!(call_ids.get(&0).map(String::as_str), Some("End"));
        let mut names: Vec<&str> = call_ids.values().map(String::as_str).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "End",
                "MPI_Comm_rank",
                "MPI_Comm_size",
                "MPI_Finalize",
                "MPI_Recv",
                "MPI_Send"
            ]
        );

        // .row: one CPU and one thread per rank
        assert!(
            row.starts_with(&format!("LEVEL CPU SIZE {NRANKS}\n")),
            "{row}"
        );
        let threads = row
            .split(&format!("LEVEL THREAD SIZE {NRANKS}\n"))
            .nth(1)
            .expect("a THREAD level in the .row");
        assert_eq!(
            threads.lines().collect::<Vec<_>>(),
            (0..NRANKS).map(|r| format!("rank {r}")).collect::<Vec<_>>()
        );

        // header: #Paraver (dd/mm/yy at hh:mm):END_ns:1(4):1:4(1:1,1:1,1:1,1:1)
        let mut lines = prv.lines();
        let head = lines.next().unwrap();
        let rest = head
            .strip_prefix("#Paraver (")
            .unwrap_or_else(|| panic!("bad header `{head}`"));
        let (date, rest) = rest.split_once("):").expect("a date in the header");
        assert_eq!(date.len(), "dd/mm/yy at hh:mm".len(), "{head}");
        assert_eq!(&date[8..12], " at ", "{head}");
        let end = ns(*ends.iter().max().unwrap());
        assert_eq!(
            rest,
            format!("{end}_ns:1(4):1:4(1:1,1:1,1:1,1:1)"),
            "{head}"
        );

        // records: expected, in nanoseconds
        let mut want_states = Vec::new();
        let mut want_events = Vec::new();
        let mut want_comms = Vec::new();
        let id_of = |name: &str| *call_ids.iter().find(|(_, n)| *n == name).unwrap().0;
        let obj = |r: u32| format!("{}:1:{}:1", r + 1, r + 1);
        for e in &want {
            match e {
                Ev::Compute { rank, t0, t1 } => {
                    want_states.push(format!("1:{}:{}:{}:1", obj(*rank), ns(*t0), ns(*t1)))
                }
                Ev::Call {
                    rank,
                    t0,
                    t1,
                    name,
                    partner,
                    bytes,
                    ..
                } => {
                    let (a, b) = (ns(*t0), ns(*t1));
                    want_states.push(format!("1:{}:{a}:{b}:{}", obj(*rank), state(name)));
                    let mut ev = format!(
                        "2:{}:{a}:50000000:{}:50000001:{bytes}",
                        obj(*rank),
                        id_of(name)
                    );
                    if let Some(p) = partner {
                        ev += &format!(":50000002:{}", p + 1);
                    }
                    ev += &format!(":50000003:{}", WORLD + 1);
                    want_events.push(ev);
                    want_events.push(format!("2:{}:{b}:50000000:0", obj(*rank)));
                }
                Ev::Msg {
                    from,
                    to,
                    ts,
                    ta,
                    kind,
                    tag,
                    bytes,
                    ..
                } => {
                    if kind == "eager" || kind == "DATA" {
                        let (a, b) = (ns(*ts), ns(*ta));
                        want_comms.push(format!(
                            "3:{}:{a}:{a}:{}:{b}:{b}:{bytes}:{tag}",
                            obj(*from),
                            obj(*to)
                        ))
                    }
                }
            }
        }
        let (mut states, mut events, mut comms) = (Vec::new(), Vec::new(), Vec::new());
        let mut last = 0;
        for l in lines {
            let f: Vec<&str> = l.split(':').collect();
            let t: u64 = f[5].parse().unwrap_or_else(|_| panic!("bad time in `{l}`"));
            assert!(t >= last, "records not sorted by time at `{l}`");
            last = t;
            match f[0] {
                "1" => {
                    assert_eq!(f.len(), 8, "{l}");
                    assert!(f[6].parse::<u64>().unwrap() <= end, "{l}");
                    states.push(l.to_string());
                }
                "2" => {
                    assert!(f.len() >= 8 && f.len().is_multiple_of(2), "{l}");
                    events.push(l.to_string());
                }
                "3" => {
                    assert_eq!(f.len(), 15, "{l}");
                    comms.push(l.to_string());
                }
                _ => panic!("unknown record `{l}`"),
            }
        }
        for (what, mut want, mut got) in [
            ("states", want_states, states),
            ("events", want_events, events),
            ("communications", want_comms, comms),
        ] {
            want.sort();
            got.sort();
            assert_eq!(got, want, "--cores {cores}: {what}");
        }
    }
}

#[test]
fn failed_job_writes_no_timeline() {
    let out = scratch().join("abort.json");
    let job = Run::exact(3, &program("abort"))
        .option(&["--timeline".as_ref(), out.as_os_str()])
        .run();
    assert!(!job.status.success(), "{}", job.dump());
    assert!(!out.exists(), "a timeline was written for a failed job");
    let left: Vec<_> = std::fs::read_dir(scratch())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".abort.json"))
        .collect();
    assert!(left.is_empty(), "rank files left behind: {left:?}");
}
