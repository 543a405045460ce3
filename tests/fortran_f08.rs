//! Fortran 2008 programs with `use mpi_f08`, built with our `mpif90` and run
//! with our `mpirun`: point-to-point with TYPE(MPI_Status) and ASYNCHRONOUS
//! nonblocking buffers, collectives with a user operation, communicators
//! (split, dup, == and /=), derived datatypes, attributes with callbacks,
//! error handlers, IERROR present and omitted, the fatal default handler,
//! and a ping-pong timed to the picosecond: the model's equations and the
//! C program's prediction, with --cores 1 and 2. The module's procedures
//! all exist in libvaced.
//!
//! Without gfortran the tests say so and pass (./test.sh installs it
//! through scripts/deps.sh).
mod common;

use common::model::{self, blocking_transfer, link, m, Clock, H};
use common::{
    ensure_fresh_library, fmt_ps, records, repo_root, scratch, vaced, Run, CORE_VARIANTS,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// Is gfortran there (else a message)?
fn gfortran() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| {
        let ok = Command::new("gfortran")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!(
                "SKIPPED: gfortran not found; the Fortran tests need it \
                 (scripts/deps.sh installs it)"
            );
        }
        ok
    })
}

/// `tests/programs/SOURCE` built once per test binary with `mpif90 -O1`
/// (None without gfortran).
fn program(source: &str) -> Option<PathBuf> {
    if !gfortran() {
        return None;
    }
    static BUILT: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);
    let mut built = common::lock(&BUILT);
    let map = built.get_or_insert_with(HashMap::new);
    if let Some(p) = map.get(source) {
        return Some(p.clone());
    }
    ensure_fresh_library();
    let out = scratch().join(source.replace('.', "_"));
    let o = Command::new(vaced())
        .arg0("mpif90")
        .arg("-O1")
        .arg(repo_root().join("tests/programs").join(source))
        .arg("-o")
        .arg(&out)
        .current_dir(scratch())
        .output()
        .unwrap_or_else(|e| panic!("cannot run vaced as mpif90: {e}"));
    assert!(
        o.status.success(),
        "mpif90 {source} failed ({}):\n{}{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    map.insert(source.to_string(), out.clone());
    Some(out)
}

/// The `ok NAME rank=R` lines of a job, per rank.
fn oks(stdout: &str) -> BTreeMap<u32, BTreeSet<String>> {
    let mut got: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    for line in stdout.lines() {
        let mut w = line.split_whitespace();
        if w.next() != Some("ok") {
            continue;
        }
        let what = w.next().unwrap().to_string();
        let rank = w.next().unwrap().strip_prefix("rank=").unwrap();
        let rank: u32 = rank.parse().unwrap();
        assert!(got.entry(rank).or_default().insert(what), "{line} twice");
    }
    got
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn point_to_point_with_status_types_and_asynchronous_buffers() {
    let Some(prog) = program("f08_p2p.f90") else {
        return;
    };
    let job = Run::new(3, "tianhe1a", &prog).run();
    job.assert_success();
    let all = [
        "init",
        "type_free",
        "sendrecv",
        "processor_name",
        "sizeof",
        "ierror",
        "finalize",
    ];
    let pair = ["requests_null", "statuses", "waitall", "asynchronous"];
    let mut expected = BTreeMap::new();
    let mut r0 = set(&all);
    r0.extend(set(&pair));
    r0.extend(set(&["waitany", "test", "noncontiguous"]));
    expected.insert(0, r0);
    let mut r1 = set(&all);
    r1.extend(set(&pair));
    r1.extend(set(&["status", "section", "bottom", "probe"]));
    expected.insert(1, r1);
    expected.insert(2, set(&all));
    assert_eq!(oks(&job.stdout), expected, "{}", job.dump());

    let text = vaced::mpi::error::error_string(vaced::sys::MPI_ERR_TRUNCATE).unwrap();
    let e = records(&job.stdout, "errstr");
    assert_eq!(e.len(), 1, "{}", job.dump());
    assert_eq!(e[0].line, format!("errstr len={} text={text}", text.len()));
}

#[test]
fn collectives_and_a_user_operation() {
    let Some(prog) = program("f08_coll.f90") else {
        return;
    };
    let n: i64 = 4;
    let job = Run::new(n as u32, "tianhe1a", &prog).run();
    job.assert_success();
    let join = |v: Vec<i64>| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut expected = BTreeSet::new();
    for r in 0..n {
        let sum = n * (n + 1) / 2;
        let inplace = 3 * (n - 1);
        // a + b + 1 over the ranks 0..n-1: their sum and n - 1 ones
        let uop = n * (n - 1) / 2 + (n - 1);
        let prod = if r == 0 { (1..=n).product() } else { -1 };
        let gather = if r == 1 {
            (0..n).map(|i| i * i).collect()
        } else {
            vec![-1; n as usize]
        };
        let alltoall = (0..n).map(|i| i * 10 + r).collect();
        let half_sum = n * (n - 1) / 2;
        expected.insert(format!(
            "coll rank={r} bcast=7,8,9 sum={sum} inplace={inplace} uop={uop} prod={prod} \
             gather={} alltoall={} iallreduce={}.{} scan={} op_commute=T",
            join(gather),
            join(alltoall),
            half_sum / 2,
            if half_sum % 2 == 1 { 5 } else { 0 },
            r * (r + 1) / 2
        ));
    }
    let got: BTreeSet<String> = job
        .stdout
        .lines()
        .filter(|l| l.starts_with("coll "))
        .map(str::to_string)
        .collect();
    assert_eq!(got, expected, "{}", job.dump());
}

#[test]
fn communicators_datatypes_attributes_and_error_handlers() {
    let Some(prog) = program("f08_comm.f90") else {
        return;
    };
    let n = 4;
    let job = Run::new(n, "tianhe1a", &prog).run();
    job.assert_success();
    let all = [
        "split",
        "comm_ne",
        "translate",
        "group_ne",
        "group_free",
        "dup",
        "vector",
        "attr_copied",
        "comm_free",
        "attr_deleted",
        "errh_returns",
    ];
    let mut expected = BTreeMap::new();
    for r in 0..n {
        let mut s = set(&all);
        if r == 1 {
            s.extend(set(&["row", "resized"]));
        }
        expected.insert(r, s);
    }
    assert_eq!(oks(&job.stdout), expected, "{}", job.dump());
    let class = vaced::sys::MPI_ERR_RANK;
    for r in records(&job.stdout, "attr") {
        // one copy (MPI_Comm_dup), two deletes (MPI_Comm_free of the copy,
        // MPI_Comm_delete_attr)
        let rank = r.int("rank");
        assert_eq!(
            r.line,
            format!("attr rank={rank} copies=1 deletes=2 val={}", rank + 110)
        );
    }
    let errh = records(&job.stdout, "errh");
    assert_eq!(errh.len(), n as usize, "{}", job.dump());
    for r in errh {
        let rank = r.int("rank");
        assert_eq!(
            r.line,
            format!("errh rank={rank} calls=1 class={class} same_comm=T")
        );
    }
}

#[test]
fn the_default_handler_ends_the_job_naming_rank_and_call() {
    let Some(prog) = program("f08_fatal.f90") else {
        return;
    };
    let job = Run::new(1, "tianhe1a", &prog).run();
    assert!(!job.status.success(), "{}", job.dump());
    assert_eq!(job.stdout, "before\n", "{}", job.dump());
    assert!(
        job.stderr.contains(
            "vaced: rank 0: MPI_Send: invalid destination rank 99 (communicator size 1) \
             [MPI_ERR_RANK]"
        ),
        "{}",
        job.dump()
    );
}

/// 8 B, 1 KiB, exactly the eager limit, one byte over it, 4 MiB.
const SIZES: [u64; 5] = [8, 1024, 131_072, 131_073, 4 << 20];
const REPS: u32 = 2;

type PpKey = (u32, u64, u32, String); // (rank, size, rep, op)

/// The times of `f08_pingpong PEER REPS SIZES...` (and of pingpong.c): per
/// round trip, rank 0's MPI_Send reaches the peer blocked in MPI_Recv, then
/// the peer's answer reaches rank 0 blocked in its MPI_Recv.
fn expected_pingpong(peer: u32) -> BTreeMap<PpKey, u64> {
    let h = model::hop(0, peer);
    let (mut a, mut p) = (Clock::new(), Clock::new());
    let mut out = BTreeMap::new();
    for &b in &SIZES {
        for rep in 0..REPS {
            let t = a.t;
            blocking_transfer(&mut a, &mut p, b, h);
            out.insert((0, b, rep, "send".to_string()), a.t);
            out.insert((peer, b, rep, "recv".to_string()), p.t);
            blocking_transfer(&mut p, &mut a, b, h);
            out.insert((peer, b, rep, "send".to_string()), p.t);
            out.insert((0, b, rep, "recv".to_string()), a.t);
            if model::is_eager(b) {
                assert_eq!(a.t - t, 2 * (2 * m(b) + link(b, h)));
            } else {
                let hs = m(H) + link(H, h);
                assert_eq!(a.t - t, 2 * (2 * hs + 2 * m(b) + link(b, h)));
            }
        }
    }
    out
}

/// The `pp` records of a ping-pong job.
fn pingpong_times(
    prog: &std::path::Path,
    nranks: u32,
    peer: u32,
    cores: Option<u32>,
) -> BTreeMap<PpKey, u64> {
    let mut args = vec![peer.to_string(), REPS.to_string()];
    args.extend(SIZES.iter().map(|s| s.to_string()));
    let job = Run::exact(nranks, prog).cores(cores).args(&args).run();
    job.assert_success();
    let mut got = BTreeMap::new();
    for r in records(&job.stdout, "pp") {
        let key = (
            r.int("rank") as u32,
            r.int("size") as u64,
            r.int("rep") as u32,
            r.get("op").to_string(),
        );
        assert!(
            got.insert(key.clone(), r.ps("t")).is_none(),
            "{key:?} twice"
        );
    }
    got
}

fn f08_pingpong(nranks: u32, peer: u32) {
    let expected = expected_pingpong(peer);
    let Some(prog) = program("f08_pingpong.f90") else {
        return;
    };
    let c = common::program("pingpong");
    for cores in CORE_VARIANTS {
        let got = pingpong_times(&prog, nranks, peer, cores);
        let mut errors = Vec::new();
        for (k, &e) in &expected {
            match got.get(k) {
                Some(&g) if g == e => {}
                Some(&g) => {
                    errors.push(format!("{k:?}: got {}, expected {}", fmt_ps(g), fmt_ps(e)))
                }
                None => errors.push(format!("{k:?}: missing, expected {}", fmt_ps(e))),
            }
        }
        assert_eq!(got.len(), expected.len());
        assert!(
            errors.is_empty(),
            "mpi_f08 ping-pong 0 <-> {peer}, cores {cores:?}:\n{}",
            errors.join("\n")
        );
        assert_eq!(
            got,
            pingpong_times(&c, nranks, peer, cores),
            "the C program predicts other times (cores {cores:?})"
        );
    }
}

#[test]
fn pingpong_times_are_exact_and_those_of_c_on_one_node() {
    // Hand-derived first round trip of 8 bytes on one node: M(8) =
    // 8 / 6.38 GB/s = 1253.9 ps -> 1254 ps; one way E(8) = 3 M(8) = 3762 ps.
    let e = expected_pingpong(1);
    assert_eq!(e[&(0, 8, 0, "send".to_string())], 1254);
    assert_eq!(e[&(1, 8, 0, "recv".to_string())], 3762);
    assert_eq!(e[&(0, 8, 0, "recv".to_string())], 7524);
    f08_pingpong(2, 1);
}

#[test]
fn pingpong_times_are_exact_and_those_of_c_across_nodes() {
    f08_pingpong(13, 12);
}

/// Every procedure the module names (BIND(C) labels, and gfortran's
/// `name_` of the others) is defined by libvaced: a program that uses
/// any routine of the module links.
#[test]
fn every_procedure_of_the_module_is_in_the_library() {
    ensure_fresh_library();
    let module = std::fs::read_to_string(repo_root().join("include/mpi_f08.f90")).unwrap();
    // one statement per line: continuation lines joined
    let joined = module.replace("&\n", " ");
    let mut wanted = BTreeSet::new();
    let mut in_interface = false;
    let mut abstract_block = false;
    for line in joined.lines().map(str::trim) {
        // the callbacks' interfaces describe the program's procedures
        if line.starts_with("abstract interface") {
            abstract_block = true;
            continue;
        }
        if abstract_block {
            abstract_block = !line.starts_with("end interface");
            continue;
        }
        if line.starts_with("interface") {
            in_interface = true;
        } else if line.starts_with("end interface") {
            in_interface = false;
        } else if let Some(i) = line.find("bind(C, name=\"") {
            let rest = &line[i + 14..];
            wanted.insert(rest[..rest.find('"').unwrap()].to_string());
        } else if let Some(rest) = line.strip_prefix("subroutine ").filter(|_| in_interface) {
            // a specific without BIND(C): gfortran's name
            let name = &rest[..rest.find('(').unwrap()];
            wanted.insert(format!("{}_", name.to_ascii_lowercase()));
        } else if let Some(rest) = line.strip_prefix("procedure(").filter(|_| !in_interface) {
            let name = rest.split("::").nth(1).unwrap().trim();
            wanted.insert(format!("{}_", name.to_ascii_lowercase()));
        }
    }
    assert!(wanted.len() > 500, "{} procedures", wanted.len());
    let lib = vaced().parent().unwrap().join("libvaced.so");
    let o = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&lib)
        .output()
        .expect("nm");
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    let defined: BTreeSet<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    let missing: Vec<&String> = wanted
        .iter()
        .filter(|w| !defined.contains(w.as_str()))
        .collect();
    assert!(missing.is_empty(), "not in libvaced: {missing:?}");
    for s in [
        "mpi_send_f08",
        "pmpi_send_f08",
        "mpi_op_create_",
        "mpi_comm_dup_fn_",
    ] {
        assert!(wanted.contains(s), "{s} not found in the module");
    }
}
