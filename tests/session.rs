//! MPI-4 Sessions end to end: the C programs `tests/programs/session_*.c`
//! built with our `mpicc` and run with our `mpirun` at cpu.scale = 0. A
//! communicator made from the "mpi://WORLD" process set without MPI_Init
//! costs exactly what the same communicator costs in the world model; a
//! process initializes sessions several times, several at once, mixes them
//! with MPI_Init / MPI_Finalize; the process-set queries, thread levels and
//! session error handlers give what MPI-4 (and MPICH) give.
mod common;

use common::model::{self, m, Node};
use common::{fmt_ps, fortran_program, program, records, report, scratch, Run, CORE_VARIANTS};

/// A communicator made over 4 ranks of one node (MPI_Comm_create_group,
/// MPI_Comm_create_from_group): the context-id agreement (an allreduce of
/// the mask and MPICH 4.0.2's flag, 65 ints, by recursive doubling over the
/// group), then the new communicator's sequence number (a binomial
/// broadcast of 4 bytes from rank 0: to 2, then to 1; 2 to 3).
fn create4(n: &mut Node) {
    n.doubling4([260, 260]);
    n.seq_bcast4();
}

/// MPI_Allreduce of one int over 4 ranks (recursive doubling).
fn allreduce4(n: &mut Node) {
    n.doubling4([4, 4]);
}

/// At cpu.scale = 0, on 4 ranks of one node: MPI_Comm_create_from_group on
/// the "mpi://WORLD" group (no MPI_Init) and MPI_Comm_create_group over
/// MPI_COMM_WORLD agree on the context id with the same messages, and the
/// Allreduce of one int (recursive doubling, 2 exchanges of 4 bytes) costs
/// the same on both communicators: the same times, the same prediction
/// (the end of the last MPI call), with 1 and 2 host cores. Under
/// MPI_THREAD_MULTIPLE ("thread_level" of the session's info) the
/// communicator comes from the nonblocking agreement (MPI_Comm_idup's) and
/// a wait: on 4 ranks its recursive doubling costs the same.
#[test]
fn a_session_communicator_costs_what_the_world_model_costs() {
    assert_eq!(model::hop(0, 3), 0);
    let mut n = Node::new(4, 0);
    create4(&mut n);
    let create = n.t.clone();
    allreduce4(&mut n);
    let allreduce = n.t.clone();
    // the agreement: 2 exchanges of 260 bytes (3 M(260) each)
    assert_eq!(
        create[0],
        2 * 3 * m(260) + 2 * m(4),
        "{}",
        fmt_ps(create[0])
    );
    let prog = program("session_world");
    for cores in CORE_VARIANTS {
        let mut predicted = Vec::new();
        for mode in ["session", "multiple", "world"] {
            let rep = scratch().join(format!("session_world_{mode}.json"));
            let job = Run::exact(4, &prog)
                .cores(cores)
                .report(&rep)
                .args(&[mode])
                .run();
            job.assert_success();
            assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
            let recs = records(&job.stdout, "sw");
            assert_eq!(recs.len(), 8, "{}", job.dump());
            for r in &recs {
                let rank = r.int("rank");
                match r.get("op") {
                    "create" => {
                        assert_eq!((r.int("size"), r.int("rank_in")), (4, rank), "{}", r.line);
                        let want = create[rank as usize];
                        assert_eq!(r.ps("t"), want, "{mode} cores {cores:?}: {}", r.line);
                    }
                    "allreduce" => {
                        assert_eq!(r.int("sum"), 6, "{}", r.line);
                        let want = allreduce[rank as usize];
                        assert_eq!(r.ps("t"), want, "{mode} cores {cores:?}: {}", r.line);
                    }
                    op => panic!("unexpected op {op}: {}", r.line),
                }
            }
            let json = report::read(&rep);
            let ends: Vec<u64> = report::ranks(&json).iter().map(report::vtime_ps).collect();
            assert_eq!(ends, allreduce, "{mode}");
            predicted.push(report::predicted_ps(&json));
        }
        let last = *allreduce.iter().max().unwrap();
        assert_eq!(predicted, vec![last; 3], "cores {cores:?}");
    }
}

/// Sessions without MPI_Init on 4 ranks: two process sets with their sizes,
/// the thread level of the first session kept by the second, two sessions
/// at once, "mpi://SELF", errors returned through the session's handler, a
/// program's session handler (created before MPI is initialized), and a
/// session initialized and finalized three times, the process staying in
/// the job in between: each cycle costs one agreement and one Allreduce.
#[test]
fn sessions_without_mpi_init() {
    let rep = scratch().join("session_cycles.json");
    let job = Run::exact(4, &program("session_cycles")).report(&rep).run();
    job.assert_success();
    let n = 4;
    let pset = records(&job.stdout, "pset");
    assert_eq!(pset.len(), 2 * n, "{}", job.dump());
    for r in &pset {
        let want = match r.int("i") {
            0 => ("mpi://WORLD", 12, "4"),
            1 => ("mpi://SELF", 11, "1"),
            i => panic!("pset {i}: {}", r.line),
        };
        assert_eq!(r.int("n"), 2, "{}", r.line);
        assert_eq!(
            (r.get("name"), r.int("len"), r.get("size")),
            want,
            "{}",
            r.line
        );
    }
    let one = |tag: &str| {
        let v = records(&job.stdout, tag);
        assert_eq!(v.len(), n, "{tag}: {}", job.dump());
        v
    };
    for r in one("level") {
        assert_eq!(r.get("first"), "MPI_THREAD_SERIALIZED", "{}", r.line);
        assert_eq!(r.get("second"), "MPI_THREAD_SERIALIZED", "{}", r.line);
    }
    for r in one("twice") {
        assert_eq!((r.int("a"), r.int("b")), (6, 4), "{}", r.line);
    }
    for r in one("self") {
        assert_eq!(
            (r.int("got"), r.int("size")),
            (r.int("rank"), 1),
            "{}",
            r.line
        );
    }
    let err = records(&job.stdout, "err");
    assert_eq!(err.len(), 2 * n, "{}", job.dump());
    for r in &err {
        assert_eq!(r.int("class"), 12, "MPI_ERR_ARG: {}", r.line);
    }
    for r in one("handler") {
        // called once, with the session and MPI_ERR_OTHER (15); the call
        // returns MPI_SUCCESS; get_errhandler gives the program's handler
        assert_eq!(
            (
                r.int("calls"),
                r.int("code"),
                r.int("same"),
                r.int("got"),
                r.int("rc")
            ),
            (1, 15, 1, 1, 0),
            "{}",
            r.line
        );
    }
    for r in one("state") {
        assert_eq!(
            (r.int("initialized"), r.int("finalized")),
            (0, 0),
            "{}",
            r.line
        );
    }
    // Before the cycles: two communicators, then their two Allreduces (the
    // two sessions), the SELF communicator's (one member: no message) and
    // a message to itself (copied once, into the receive buffer: M(4)).
    let mut clocks = Node::new(4, 0);
    create4(&mut clocks);
    create4(&mut clocks);
    allreduce4(&mut clocks);
    allreduce4(&mut clocks);
    for t in clocks.t.iter_mut() {
        *t += m(4);
    }
    let mut after = Vec::new();
    for _ in 0..3 {
        create4(&mut clocks);
        allreduce4(&mut clocks);
        after.push(clocks.t.clone());
    }
    let cycles = records(&job.stdout, "cycle");
    assert_eq!(cycles.len(), 3 * n, "{}", job.dump());
    for r in &cycles {
        let (i, rank) = (r.int("i") as usize, r.int("rank") as usize);
        assert_eq!((r.int("size"), r.int("sum")), (4, 6), "{}", r.line);
        assert_eq!(r.ps("t"), after[i][rank], "{}", r.line);
    }
    let json = report::read(&rep);
    let last = *clocks.t.iter().max().unwrap();
    assert_eq!(report::predicted_ps(&json), last);
}

/// A session started before MPI_Init outlives MPI_Finalize: its
/// communicator works in both, MPI_Init_thread provides the level the
/// session raised the process to, MPI_Initialized and MPI_Finalized tell
/// the world model's state. After MPI_Finalize ended the last model, the
/// process has left the job: a new session is MPI_ERR_OTHER.
#[test]
fn sessions_and_the_world_model() {
    let job = Run::exact(3, &program("session_mixed")).run();
    job.assert_success();
    let v = records(&job.stdout, "mixed");
    assert_eq!(v.len(), 3, "{}", job.dump());
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
    for r in &v {
        assert_eq!(r.int("provided"), 1, "MPI_THREAD_FUNNELED: {}", r.line);
        assert_eq!(r.get("level"), "MPI_THREAD_FUNNELED", "{}", r.line);
        assert_eq!((r.int("world"), r.int("after")), (3, 3), "{}", r.line);
        assert_eq!(
            (r.int("initialized"), r.int("finalized")),
            (1, 1),
            "{}",
            r.line
        );
    }
    let job = Run::exact(2, &program("session_mixed"))
        .args(&["late"])
        .run();
    job.assert_success();
    let v = records(&job.stdout, "late");
    assert_eq!(v.len(), 2, "{}", job.dump());
    for r in &v {
        assert_eq!(
            (r.int("class"), r.int("session_null")),
            (15, 1),
            "{}",
            r.line
        );
    }
}

/// The same sessions-only program with `use mpi` and with `use mpi_f08`:
/// the process sets (Fortran lengths have no terminator), a communicator
/// from "mpi://WORLD" and its Allreduce, MPI_SESSION_NULL after
/// MPI_SESSION_FINALIZE; the time is the C program's.
#[test]
fn sessions_from_fortran() {
    for source in ["f90_session.f90", "f08_session.f90"] {
        let Some(prog) = fortran_program(source, &["-O1"]) else {
            return;
        };
        let rep = scratch().join(format!("{source}.json"));
        let job = Run::exact(4, &prog).report(&rep).run();
        job.assert_success();
        let v = records(&job.stdout, "fsess");
        assert_eq!(v.len(), 4, "{source}: {}", job.dump());
        for r in &v {
            assert_eq!(
                (
                    r.int("n"),
                    r.get("name0"),
                    r.int("len0"),
                    r.get("name1"),
                    r.int("len1")
                ),
                (2, "mpi://WORLD", 11, "mpi://SELF", 10),
                "{source}: {}",
                r.line
            );
            assert_eq!(
                (r.int("size"), r.int("sum"), r.get("null")),
                (4, 6, "T"),
                "{source}: {}",
                r.line
            );
        }
        let json = report::read(&rep);
        let mut clocks = Node::new(4, 0);
        create4(&mut clocks);
        allreduce4(&mut clocks);
        let last = *clocks.t.iter().max().unwrap();
        assert_eq!(report::predicted_ps(&json), last, "{source}");
    }
}

/// Three threads of each of 4 ranks, alive at once, start a session and
/// create a communicator from "mpi://WORLD" each with its own string tag
/// (MPI_THREAD_MULTIPLE: the nonblocking agreement and a wait), one after
/// the other in the same order on every rank: three distinct working
/// communicators of the same group (MPI_CONGRUENT to one another). (Two
/// agreements that overlap on a process need the ordering of concurrent
/// context-id agreements that MPI_Comm_idup's machinery is getting.)
#[test]
fn sessions_from_several_threads() {
    let prog = program("session_threads");
    for cores in CORE_VARIANTS {
        let job = Run::exact(4, &prog).cores(cores).run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
        let v = records(&job.stdout, "st");
        assert_eq!(v.len(), 12, "{}", job.dump());
        for r in &v {
            let k = r.int("k");
            let cmp = if k == 0 { 0 } else { 1 };
            assert_eq!(
                (r.int("size"), r.int("sum"), r.int("cmp")),
                (4, 6, cmp),
                "cores {cores:?}: {}",
                r.line
            );
        }
    }
}
