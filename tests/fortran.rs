//! Fortran programs end to end: built with our `mpif77` / `mpif90` (fixed
//! form with mpif.h, free form with `use mpi`, free form including mpif.h,
//! an old code needing -fallow-argument-mismatch), run with our `mpirun`,
//! every check they print verified, a Fortran ping-pong timed to the
//! picosecond like the C one (tests/exact_p2p.rs), and communicators,
//! groups, topologies, attributes (Fortran callbacks) and derived
//! datatypes from both forms, and the collectives (MPI_IN_PLACE, a Fortran
//! user operation) from free form, their output checked line by line.
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
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

/// The major version of gfortran, None (with a message) if there is none.
fn gfortran() -> Option<u32> {
    static VERSION: OnceLock<Option<u32>> = OnceLock::new();
    *VERSION.get_or_init(|| {
        let v = Command::new("gfortran")
            .arg("-dumpversion")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| {
                let s = String::from_utf8_lossy(&o.stdout).trim().to_string();
                s.split('.').next()?.parse().ok()
            });
        if v.is_none() {
            eprintln!(
                "SKIPPED: gfortran not found; the Fortran tests need it \
                 (scripts/deps.sh installs it)"
            );
        }
        v
    })
}

/// `WRAPPER -O1 tests/programs/SOURCE -o OUT EXTRA...` (the wrapper being
/// the `vaced` binary under that name).
fn compile(wrapper: &str, source: &str, out: &Path, extra: &[&str]) -> Output {
    ensure_fresh_library();
    Command::new(vaced())
        .arg0(wrapper)
        .arg("-O1")
        .arg(repo_root().join("tests/programs").join(source))
        .arg("-o")
        .arg(out)
        .args(extra)
        .current_dir(scratch())
        .output()
        .unwrap_or_else(|e| panic!("cannot run vaced as {wrapper}: {e}"))
}

/// A test program built once per test binary (None without gfortran).
fn program(wrapper: &str, source: &str, extra: &[&str]) -> Option<PathBuf> {
    gfortran()?;
    static BUILT: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);
    let mut built = common::lock(&BUILT);
    let map = built.get_or_insert_with(HashMap::new);
    if let Some(p) = map.get(source) {
        return Some(p.clone());
    }
    let out = scratch().join(source.replace('.', "_"));
    let o = compile(wrapper, source, &out, extra);
    assert!(
        o.status.success(),
        "{wrapper} {source} {extra:?} failed ({}):\n{}{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    map.insert(source.to_string(), out.clone());
    Some(out)
}

/// The host name as gethostname gives it (MPI_Get_processor_name's prefix).
fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: buf is writable for its whole length, which we pass.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) };
    assert_eq!(rc, 0, "gethostname failed");
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// Checks that ranks 0 and 1 run, the others only run the ring ones.
const PAIR_CHECKS: [&str; 11] = [
    "eager",
    "rendezvous",
    "status_ignore",
    "waitall",
    "statuses_ignore",
    "waitany",
    "waitsome",
    "test",
    "probe",
    "iprobe",
    "ierror",
];
/// Checks every rank runs.
const ALL_CHECKS: [&str; 8] = [
    "initialized",
    "sendrecv",
    "sendrecv_replace",
    "type_size",
    "version",
    "processor_name",
    "wtime",
    "finalized",
];

/// Runs one of the p2p check programs on `n` ranks and verifies every
/// line: exactly the expected `ok` checks per rank, no FAIL, the processor
/// names (target node of each rank) and the error string.
fn run_checks(prog: &Path, n: u32, pair_extra: &[&str], all_extra: &[&str]) {
    let job = Run::new(n, "tianhe1a", prog).run();
    job.assert_success();
    let mut got: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    for line in job.stdout.lines() {
        let mut w = line.split_whitespace();
        if w.next() != Some("ok") {
            continue;
        }
        let what = w.next().unwrap().to_string();
        let rank: u32 = w
            .next()
            .unwrap()
            .strip_prefix("rank=")
            .unwrap()
            .parse()
            .unwrap();
        assert!(got.entry(rank).or_default().insert(what), "{line} twice");
    }
    for rank in 0..n {
        let mut expected: BTreeSet<String> = ALL_CHECKS
            .iter()
            .chain(all_extra)
            .map(|s| s.to_string())
            .collect();
        if rank <= 1 {
            expected.extend(PAIR_CHECKS.iter().chain(pair_extra).map(|s| s.to_string()));
        }
        assert_eq!(
            got.get(&rank),
            Some(&expected),
            "rank {rank}:\n{}",
            job.dump()
        );
    }

    let host = host_name();
    let names = records(&job.stdout, "name");
    assert_eq!(names.len(), n as usize, "{}", job.dump());
    for r in names {
        let rank = r.int("rank") as u32;
        // tianhe1a: 12 ranks per node (the hop-0 level).
        let expected = format!("{host}-node{}", rank / 12);
        assert_eq!(r.get("name"), expected, "{}", r.line);
        assert_eq!(r.int("len") as usize, expected.len(), "{}", r.line);
    }

    let text = vaced::mpi::error::error_string(vaced::sys::MPI_ERR_TRUNCATE).unwrap();
    let e = records(&job.stdout, "errstr");
    assert_eq!(e.len(), 1, "{}", job.dump());
    assert_eq!(e[0].int("len") as usize, text.len());
    assert_eq!(e[0].line, format!("errstr len={} text={text}", text.len()));
}

#[test]
fn fixed_form_with_mpif_h() {
    let Some(prog) = program("mpif77", "f77_p2p.f", &[]) else {
        return;
    };
    // 13 ranks: rank 12 is on the second node of the target.
    run_checks(&prog, 13, &[], &[]);
}

#[test]
fn free_form_with_use_mpi() {
    let Some(prog) = program("mpif90", "f90_p2p.f90", &[]) else {
        return;
    };
    let pair = [
        "types",
        "testany",
        "testsome",
        "testall",
        "issend",
        "request_free",
    ];
    run_checks(&prog, 3, &pair, &["pmpi", "compute"]);
}

#[test]
fn mismatched_arguments_with_the_usual_flag() {
    let Some(major) = gfortran() else {
        return;
    };
    // The program really mismatches: gfortran 10 and later refuse it when
    // asked to check, and our wrappers, like MPICH's, add
    // -fallow-argument-mismatch before the user's arguments (so the user's
    // -fno-allow-argument-mismatch wins).
    if major >= 10 {
        let o = compile(
            "mpif77",
            "f77_mismatch.f",
            &scratch().join("mismatch_strict"),
            &["-fno-allow-argument-mismatch"],
        );
        assert!(
            !o.status.success(),
            "f77_mismatch.f compiled with -fno-allow-argument-mismatch"
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("Type mismatch"), "{err}");
        let o = compile(
            "mpif77",
            "f77_mismatch.f",
            &scratch().join("mismatch_default"),
            &[],
        );
        assert!(
            o.status.success(),
            "mpif77 did not allow the mismatch by default (as MPICH's does):\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let prog = program("mpifort", "f77_mismatch.f", &["-fallow-argument-mismatch"]).unwrap();
    let job = Run::new(3, "tianhe1a", &prog).run();
    job.assert_success();
    let mut ok: Vec<&str> = job
        .stdout
        .lines()
        .filter(|l| l.starts_with("ok "))
        .collect();
    ok.sort();
    assert_eq!(
        ok,
        ["ok mixed_types rank=0", "ok mixed_types rank=1"],
        "{}",
        job.dump()
    );
}

/// 8 B, 1 KiB, exactly the eager limit, one byte over it, 4 MiB.
const SIZES: [u64; 5] = [8, 1024, 131_072, 131_073, 4 << 20];
const REPS: u32 = 2;

type PpKey = (u32, u64, u32, String); // (rank, size, rep, op)

/// The times of `f90_pingpong PEER REPS SIZES...`: per round trip, rank 0's
/// MPI_SEND reaches the peer blocked in MPI_RECV, then the peer's answer
/// reaches rank 0 blocked in its MPI_RECV (`model::blocking_transfer`).
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
                // one way E(b) = M(b) + L(b, h) + M(b)
                assert_eq!(a.t - t, 2 * (2 * m(b) + link(b, h)));
            } else {
                let hs = m(H) + link(H, h);
                assert_eq!(a.t - t, 2 * (2 * hs + 2 * m(b) + link(b, h)));
            }
        }
    }
    out
}

fn fortran_pingpong(nranks: u32, peer: u32) {
    let expected = expected_pingpong(peer);
    let Some(prog) = program("mpif90", "f90_pingpong.f90", &[]) else {
        return;
    };
    let mut args = vec![peer.to_string(), REPS.to_string()];
    args.extend(SIZES.iter().map(|s| s.to_string()));
    for cores in CORE_VARIANTS {
        let job = Run::exact(nranks, &prog).cores(cores).args(&args).run();
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
        assert_eq!(got.len(), expected.len(), "{}", job.dump());
        assert!(
            errors.is_empty(),
            "Fortran ping-pong 0 <-> {peer}, cores {cores:?}:\n{}\n{}",
            errors.join("\n"),
            job.dump()
        );
    }
}

#[test]
fn fortran_pingpong_times_are_exact_on_one_node() {
    // Hand-derived first round trip of 8 bytes on one node: M(8) =
    // 8 / 6.38 GB/s = 1253.9 ps -> 1254 ps; one way E(8) = 3 M(8) = 3762 ps.
    let e = expected_pingpong(1);
    assert_eq!(e[&(0, 8, 0, "send".to_string())], 1254);
    assert_eq!(e[&(1, 8, 0, "recv".to_string())], 3762);
    assert_eq!(e[&(1, 8, 0, "send".to_string())], 3762 + 1254);
    assert_eq!(e[&(0, 8, 0, "recv".to_string())], 7524);
    fortran_pingpong(2, 1);
}

#[test]
fn fortran_pingpong_times_are_exact_across_nodes() {
    fortran_pingpong(13, 12);
}

/// The C handle conversions are declared in mpi.h and exported (MPI_ and
/// PMPI_), and are the identity: a C routine called from Fortran can use
/// the INTEGER handles it receives.
#[test]
fn c_handle_conversions() {
    let src = scratch().join("f2c.c");
    let mut c = String::from("#include <stdio.h>\n#include <mpi.h>\nint main(void) {\n");
    for (ty, c_type, handle) in [
        ("Comm", "MPI_Comm", "MPI_COMM_WORLD"),
        ("Type", "MPI_Datatype", "MPI_DOUBLE_PRECISION"),
        ("Group", "MPI_Group", "MPI_GROUP_EMPTY"),
        ("Op", "MPI_Op", "MPI_MAXLOC"),
        ("Request", "MPI_Request", "MPI_REQUEST_NULL"),
        ("Errhandler", "MPI_Errhandler", "MPI_ERRORS_RETURN"),
        ("Info", "MPI_Info", "MPI_INFO_NULL"),
    ] {
        c.push_str(&format!(
            "    {{ MPI_Fint f = MPI_{ty}_c2f({handle}); {c_type} h = PMPI_{ty}_f2c(f);\n      \
             printf(\"{ty} %d %d\\n\", f == (MPI_Fint){handle}, h == {handle}); }}\n"
        ));
    }
    c.push_str("    return 0;\n}\n");
    std::fs::write(&src, c).unwrap();
    let exe = scratch().join("f2c");
    common::mpicc(&src, &exe, &["-Wall", "-Werror"]);
    let o = Command::new(&exe).output().unwrap();
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "Comm 1 1\nType 1 1\nGroup 1 1\nOp 1 1\nRequest 1 1\nErrhandler 1 1\nInfo 1 1\n"
    );
}

/// What `f77_comm.f` and `f90_comm.f90` print on `N_COMM` ranks: every
/// line, worked out from the MPI semantics of each call.
const N_COMM: i64 = 6;

fn expected_comm_lines() -> Vec<String> {
    use vaced::sys::{
        MPI_CART, MPI_CONGRUENT, MPI_PROC_NULL, MPI_SIMILAR, MPI_TAG_UB_VALUE, MPI_UNDEFINED,
    };
    let mut out = Vec::new();
    for r in 0..N_COMM {
        // split by parity, key -rank: the highest rank first
        let color = r % 2;
        let size = N_COMM / 2;
        out.push(format!(
            "split rank={r} color={color} sub={} size={size} cmp={MPI_CONGRUENT} freed=1",
            size - 1 - r / 2
        ));
        // odd = {1, 3, 5}; evens = range (0, n-1, 2); union odd then evens
        let odd = r % 2 == 1;
        let (grank, even) = if odd {
            (r / 2, MPI_UNDEFINED as i64)
        } else {
            (MPI_UNDEFINED as i64, r / 2)
        };
        out.push(format!(
            "group rank={r} size=3 grank={grank} trans=135 even={even} usize={N_COMM} \
             ucmp={MPI_SIMILAR} isize=0 dsize=3 csize={}",
            if odd { 3 } else { -1 }
        ));
        // MPI_DIMS_CREATE(6, 2) = (3, 2), row-major ranks, periodic in dim 0
        let (c0, c1) = (r / 2, r % 2);
        let null = MPI_PROC_NULL as i64;
        out.push(format!(
            "cart rank={r} dims=32 ndims=2 c0={c0} c1={c1} s0={} d0={} s1={} d1={} crank={r} \
             sub={c1} subsize=2 topo={MPI_CART} per=10",
            (c0 + 2) % 3 * 2 + c1,
            (c0 + 1) % 3 * 2 + c1,
            if c1 == 0 { null } else { r - 1 },
            if c1 == 1 { null } else { r + 1 },
        ));
        // the copy callback adds 1 to 100; the delete callback sees 101, 100
        out.push(format!(
            "attr rank={r} tagub={MPI_TAG_UB_VALUE} flag=1 copied=101 es=55 deleted=2 dsum=201 \
             dup=7 nocopy=0"
        ));
        out.push(format!("errors rank={r} n=0"));
    }
    // 3 ints with a stride of 2 ints: size 12, extent (2 * 2 + 1) * 4
    out.push("vtype rank=0 size=12 lb=0 extent=20".to_string());
    out.push("vector rank=1 v1=10 v2=12 v3=14 count=3".to_string());
    // 1 integer + 2 doubles
    out.push("struct rank=0 i=42 d1=150 d2=-225 elems=3 size=20".to_string());
    // 1 integer + 3 doubles packed
    out.push("pack rank=1 n=3 y1=50 y2=125 y3=-800 pos=28".to_string());
    out.push("packsize rank=0 size=28".to_string());
    out.push("packsize rank=1 size=28".to_string());
    out.sort();
    out
}

fn run_comm_program(wrapper: &str, source: &str) {
    let Some(prog) = program(wrapper, source, &[]) else {
        return;
    };
    let job = Run::new(N_COMM as u32, "tianhe1a", &prog).run();
    job.assert_success();
    let mut got: Vec<String> = job.stdout.lines().map(str::to_string).collect();
    got.sort();
    let expected = expected_comm_lines();
    let missing: Vec<&String> = expected.iter().filter(|l| !got.contains(l)).collect();
    let extra: Vec<&String> = got.iter().filter(|l| !expected.contains(l)).collect();
    assert!(
        missing.is_empty() && extra.is_empty() && got.len() == expected.len(),
        "{source}: missing lines {missing:#?}\nunexpected lines {extra:#?}\n{}",
        job.dump()
    );
}

#[test]
fn communicators_groups_topologies_attributes_datatypes_fixed_form() {
    run_comm_program("mpif77", "f77_comm.f");
}

#[test]
fn communicators_groups_topologies_attributes_datatypes_free_form() {
    run_comm_program("mpif90", "f90_comm.f90");
}

/// What `f90_coll.f90` prints on `N_COLL` ranks, worked out by hand.
const N_COLL: i64 = 4;

fn expected_coll_lines() -> Vec<String> {
    let n = N_COLL;
    let list = |f: &dyn Fn(i64) -> i64| -> String {
        (0..n)
            .map(|j| f(j).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut out = vec![
        // 1 + 11 + 21 + 31
        format!(
            "reduce rank=0 sum={}",
            (0..n).map(|r| 10 * r + 1).sum::<i64>()
        ),
        format!("gather rank=0 got={}", list(&|j| j * j)),
    ];
    for r in 0..n {
        out.push(format!(
            "allreduce rank={r} sum={} inplace_max={}",
            n * (n + 1) / 2,
            n - 1
        ));
        out.push(format!("bcast rank={r} v1=7 v2=8 v3=9"));
        out.push(format!("alltoall rank={r} got={}", list(&|j| 100 * j + r)));
        out.push(format!("scatter rank={r} got={}", 1001 + r));
        out.push(format!("allgather rank={r} got={}", list(&|j| j + 5)));
        out.push(format!("scan rank={r} sum={}", (r + 1) * (r + 2) / 2));
        if r > 0 {
            out.push(format!("exscan rank={r} sum={}", r * (r + 1) / 2));
        }
        // 1 * 2 * 3 * 4
        out.push(format!(
            "userop rank={r} prod={} commute=1 dtype_ok=1",
            (1..=n).product::<i64>()
        ));
        out.push(format!("errors rank={r} n=0"));
    }
    out.sort();
    out
}

#[test]
fn collectives_from_free_form() {
    let Some(prog) = program("mpif90", "f90_coll.f90", &[]) else {
        return;
    };
    let job = Run::new(N_COLL as u32, "tianhe1a", &prog).run();
    job.assert_success();
    let mut got: Vec<String> = job.stdout.lines().map(str::to_string).collect();
    got.sort();
    assert_eq!(got, expected_coll_lines(), "{}", job.dump());
}
