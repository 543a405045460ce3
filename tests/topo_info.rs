//! Info objects, communicator info, MPI_Comm_create_group, graph and
//! distributed-graph topologies and neighbourhood collectives, end to end:
//! C and Fortran programs of `tests/programs/` built with our wrappers and
//! run with our `mpirun`. Every printed line is compared with what the MPI
//! standard (and MPICH 4.0.2 where the standard leaves a choice) gives;
//! the timing test derives every time from the model's equations.
mod common;

use common::{ensure_fresh_library, program, records, repo_root, scratch, vaced, Job, Run};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

fn run(n: u32, prog: &str, args: &[&str]) -> Job {
    let job = Run::exact(n, &program(prog)).args(args).run();
    job.assert_success();
    job
}

/// The lines of `job` that start with `tag `, in order.
fn lines<'a>(job: &'a Job, tag: &str) -> Vec<&'a str> {
    job.stdout
        .lines()
        .filter(|l| l.split_whitespace().next() == Some(tag))
        .collect()
}

fn assert_lines(job: &Job, tag: &str, want: &[&str]) {
    let got = lines(job, tag);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "line {i} of `{tag}`\n{}", job.dump());
    }
    assert_eq!(got.len(), want.len(), "`{tag}` lines\n{}", job.dump());
}

// ---------------------------------------------------------------------------
// Info objects
// ---------------------------------------------------------------------------

/// Every info call, with MPICH's results and error classes: order of keys
/// (first set first; overwriting keeps the place), delete (NOKEY = 31 the
/// second time), deep dup, valuelen, MPI_Info_get cut at valuelen with
/// MPI_ERR_INFO_VALUE (30), MPI_Info_get_string (buflen counts the NUL,
/// the value is cut silently), keys of 255 and values of 1024 characters
/// (one more: MPI_ERR_INFO_KEY 29, MPI_ERR_INFO_VALUE 30), nthkey writing
/// at most MPI_MAX_INFO_KEY bytes with the NUL (254 characters), freed
/// handles (MPI_ERR_INFO 28), MPI_INFO_NULL (MPI_ERR_ARG 12), calls before
/// MPI_Init and after MPI_Finalize, MPI_INFO_ENV on every rank.
#[test]
fn info_semantics() {
    let job = run(3, "info_calls", &["a1", "b2"]);
    assert_lines(
        &job,
        "info",
        &[
            "info step=pre rc=0,0,29",
            "info step=pre rc=0 nkeys=1 keys=[early]=[bird]",
            "info step=env_argv flag=1 v=[a1 b2]",
            "info step=env_soft flag=0",
            "info step=env_dup same=1 set_rc=28 free_rc=0 null=1",
            "info step=empty rc=0 nkeys=0 keys=",
            "info step=set3 rc=0 nkeys=3 keys=[b]=[one],[a]=[two],[c]=[three]",
            "info step=overwrite rc=0 nkeys=3 keys=[b]=[four],[a]=[two],[c]=[three]",
            "info step=blank rc=0 nkeys=4 keys=[b]=[four],[a]=[two],[c]=[three],[ a]=[sp ]",
            "info step=delete rc=0 nkeys=2 keys=[b]=[four],[c]=[three]",
            "info step=delete_rc rc=0 again=31",
            "info step=dup rc=0 nkeys=3 keys=[b]=[changed],[c]=[three],[z]=[new]",
            "info step=orig rc=0 nkeys=2 keys=[b]=[four],[c]=[three]",
            "info step=valuelen rc=0 len=5 flag=1",
            "info step=valuelen_empty len=0 flag=1",
            "info step=valuelen_missing len=-7 flag=0",
            "info step=get_missing rc=0 flag=0 v=[untouched]",
            "info step=get_exact rc=0 flag=1 v=[three]",
            "info step=get_short rc=30 flag=1 v=[thr]",
            "info step=get_zero rc=30 flag=1 v=[]",
            "info step=get_negative rc=12",
            "info step=gs_short rc=0 flag=1 buflen=6 v=[thr]",
            "info step=gs_zero rc=0 flag=1 buflen=6 v=[keep]",
            "info step=gs_full rc=0 flag=1 buflen=6 v=[three]",
            "info step=gs_missing rc=0 flag=0 buflen=9",
            "info step=gs_negative rc=12",
            "info step=limits set=0 len=1024 get=0 got=1024 nthkey_len=254",
            "info step=too_long key=29 value=30 empty=29 get=29 delete=29",
            "info step=nthkey_range rc=12 neg=12",
            "info step=handles null=1 freed=28 info_null=12 refree=28 dupnull=12",
            "info step=post rc=0 flag=1 v=[bird] free=0 null_rc=12",
        ],
    );
    let env = records(&job.stdout, "env");
    assert_eq!(env.len(), 3, "{}", job.dump());
    for r in env {
        assert_eq!(r.get("command"), "info_calls", "{}", r.line);
        assert_eq!(r.get("maxprocs"), "3", "{}", r.line);
        assert_eq!(r.get("thread_level"), "MPI_THREAD_SINGLE", "{}", r.line);
        assert_eq!(r.get("flags"), "111", "{}", r.line);
    }
}

/// `tests/programs/SOURCE` built with our `mpif90`; None (with a message)
/// without gfortran.
fn fortran_program(source: &str) -> Option<PathBuf> {
    let have = Command::new("gfortran")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        eprintln!("SKIPPED: gfortran not found (scripts/deps.sh installs it)");
        return None;
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
        .expect("cannot run vaced as mpif90");
    assert!(
        o.status.success(),
        "mpif90 {source} failed:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    Some(out)
}

/// The Fortran bindings: blanks stripped from keys and values, results
/// blank-padded, VALUE untouched for a missing key, MPI_INFO_GET_STRING's
/// BUFLEN without terminator (only BUFLEN characters written),
/// MPI_INFO_CREATE_ENV without ARGC / ARGV.
#[test]
fn info_fortran() {
    let Some(prog) = fortran_program("f90_info.f90") else {
        return;
    };
    let job = Run::exact(2, &prog).run();
    job.assert_success();
    assert_lines(
        &job,
        "finfo",
        &[
            "finfo step=nkeys n=2 ierr=0",
            "finfo step=key i=0 k=[alpha] v=[third] flag=T",
            "finfo step=key i=1 k=[beta] v=[second] flag=T",
            "finfo step=valuelen len=5 flag=T",
            "finfo step=get_short v=[sec     ] flag=T ierr=30",
            "finfo step=get_missing v=[xxxxxxxx] flag=F ierr=0",
            "finfo step=get_string v=[secoxxxx] buflen=6 flag=T",
            "finfo step=get_string_full v=[second  ] buflen=6 flag=T",
            "finfo step=dup_delete n=1 again=31",
            "finfo step=free null=T ierr=0",
            "finfo step=env maxprocs=2 flag=T same=T",
        ],
    );
}

// ---------------------------------------------------------------------------
// Communicator info, MPI_Comm_create_group
// ---------------------------------------------------------------------------

/// MPI_Comm_set_info / get_info (the four MPI-4 assertions MPICH honours,
/// unknown keys ignored, "1" read as true), MPI_Comm_dup copying the hints,
/// MPI_Comm_dup_with_info replacing them (MPI_INFO_NULL: defaults),
/// MPI_Comm_split_type with info; MPI_Comm_create_group over {4, 2, 0}
/// (group order gives the ranks) while the odd ranks exchange on
/// MPI_COMM_WORLD with the same tag, and its errors (MPI_ERR_TAG 4,
/// MPI_ERR_GROUP 8 for a group outside the communicator).
#[test]
fn comm_info_and_create_group() {
    let job = run(6, "comm_info_group", &[]);
    let steps = [
        ("dup_world", "0000"),
        ("set", "1001"),
        ("dup_copies", "1001"),
        ("dup_with_info", "0010"),
        ("dup_with_null", "0000"),
        ("split_type", "0010"),
        ("set_false", "0000"),
    ];
    let mut want_hints = Vec::new();
    for r in 0..6 {
        for (s, v) in steps {
            want_hints.push(format!("hints rank={r} step={s} v={v} n=4 bogus=0"));
        }
    }
    let mut got_hints: Vec<String> = lines(&job, "hints").iter().map(|l| l.to_string()).collect();
    got_hints.sort_by_key(|l| records(l, "hints")[0].int("rank"));
    assert_eq!(got_hints, want_hints, "{}", job.dump());
    let mut groups: Vec<&str> = lines(&job, "group");
    groups.sort();
    assert_eq!(
        groups,
        [
            "group rank=0 grank=2 gsize=3 sum=6",
            "group rank=2 grank=1 gsize=3 sum=6",
            "group rank=4 grank=0 gsize=3 sum=6",
        ],
        "{}",
        job.dump()
    );
    let mut others: Vec<&str> = lines(&job, "other");
    others.sort();
    assert_eq!(
        others,
        [
            "other rank=1 got=5",
            "other rank=3 got=1",
            "other rank=5 got=3"
        ]
    );
    let mut errors: Vec<&str> = lines(&job, "errors");
    errors.sort();
    let want: Vec<String> = (0..6)
        .map(|r| format!("errors rank={r} tag=4 subgroup=8 selfgroup=0 selfsize=1"))
        .collect();
    assert_eq!(errors, want, "{}", job.dump());
}
