//! Error handlers and error classes, and the datatype extras, end to end: C
//! (and Fortran) programs built with our wrappers and run with our
//! `mpirun`. A program's error handler is called by erroneous calls with
//! the communicator and the error code (and not under MPI_ERRORS_RETURN);
//! classes, codes and strings the program adds are known to
//! MPI_Error_class / MPI_Error_string and MPI_LASTUSEDCODE; darray type
//! maps are checked against maps derived by hand, external32 images byte
//! for byte, and the large-count queries on types beyond 2^31 bytes.
mod common;

use common::{program, records, Run};
use std::collections::BTreeMap;

/// The error classes of mpi.h used below.
const ERR_COUNT: i64 = 2;
const ERR_TAG: i64 = 4;
const ERR_COMM: i64 = 5;
const ERR_RANK: i64 = 6;
const ERR_ARG: i64 = 12;
/// The first error class MPI_Add_error_class hands out
/// (MPI_ERR_LASTPREDEFINED + 1).
const FIRST_ADDED: i64 = 79;

/// `case name=NAME k=v ...` lines of one rank's output (both ranks print
/// the same lines; they must agree).
fn cases(stdout: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for r in records(stdout, "case") {
        let name = r.get("name").to_string();
        let f: BTreeMap<String, String> = r
            .fields
            .iter()
            .filter(|(k, _)| *k != "name")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if let Some(prev) = out.get(&name) {
            assert_eq!(prev, &f, "ranks disagree on `{name}`");
        }
        out.insert(name, f);
    }
    out
}

fn fields(pairs: &[(&str, String)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

#[test]
fn user_error_handlers_and_added_classes() {
    let job = Run::exact(2, &program("errhan")).args(&["checks"]).run();
    job.assert_success();
    let got = cases(&job.stdout);
    let s = |v: i64| v.to_string();
    let (class, code, argcode) = (FIRST_ADDED, FIRST_ADDED + 1, FIRST_ADDED + 2);
    let want: BTreeMap<String, BTreeMap<String, String>> = [
        // the handler gets the communicator of the call and the code; it
        // may call MPI (its MPI_Error_string worked); the call returns the
        // code
        (
            "send_bad_rank",
            fields(&[
                ("rc", s(ERR_RANK)),
                ("calls", s(1)),
                ("comm", "dup".into()),
                ("code", s(ERR_RANK)),
                ("text", "ok".into()),
            ]),
        ),
        (
            "dup_inherits",
            fields(&[
                ("rc", s(ERR_COUNT)),
                ("calls", s(2)),
                ("comm", "dup2".into()),
                ("code", s(ERR_COUNT)),
            ]),
        ),
        ("get", fields(&[("same", s(1))])),
        ("free", fields(&[("null", s(1))])),
        (
            "after_free",
            fields(&[
                ("rc", s(ERR_TAG)),
                ("calls", s(3)),
                ("comm", "dup".into()),
                ("code", s(ERR_TAG)),
            ]),
        ),
        ("class_string", fields(&[("len", s(0)), ("empty", s(1))])),
        (
            "added",
            fields(&[
                ("class", s(class)),
                ("code", s(code)),
                ("class_of_code_ok", s(1)),
                ("text_ok", s(1)),
                ("len", s(12)),
                ("lastused", s(code)),
                ("flag", s(1)),
            ]),
        ),
        (
            "code_of_predefined",
            fields(&[("code", s(argcode)), ("class", s(ERR_ARG))]),
        ),
        // MPI_Comm_call_errhandler returns MPI_SUCCESS once the handler
        // returned
        (
            "call_errhandler",
            fields(&[
                ("rc", s(0)),
                ("calls", s(4)),
                ("comm", "dup2".into()),
                ("code", s(code)),
                ("text", "ok".into()),
            ]),
        ),
        // MPI_ERRORS_RETURN: not called
        (
            "errors_return",
            fields(&[("rc", s(ERR_RANK)), ("calls", s(4))]),
        ),
        (
            "call_errors_return",
            fields(&[("rc", s(0)), ("calls", s(4))]),
        ),
        // no valid communicator: MPI_COMM_WORLD's handler, with
        // MPI_COMM_WORLD
        (
            "null_comm",
            fields(&[
                ("rc", s(ERR_COMM)),
                ("calls", s(5)),
                ("comm", "world".into()),
                ("code", s(ERR_COMM)),
            ]),
        ),
        (
            "type_error",
            fields(&[
                ("rc", s(ERR_COUNT)),
                ("calls", s(6)),
                ("comm", "world".into()),
                ("code", s(ERR_COUNT)),
            ]),
        ),
        ("set_freed", fields(&[("rc", s(ERR_ARG))])),
        ("set_null", fields(&[("rc", s(ERR_ARG))])),
        ("code_of_code", fields(&[("rc", s(ERR_ARG))])),
        ("string_of_predefined", fields(&[("rc", s(ERR_ARG))])),
        ("class_of_unknown", fields(&[("rc", s(ERR_ARG))])),
        (
            "call_unknown_code",
            fields(&[("rc", s(ERR_ARG)), ("calls", s(6))]),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(got, want, "{}", job.dump());
    assert_eq!(records(&job.stdout, "done").len(), 2, "{}", job.dump());
}

#[test]
fn errors_abort_ends_the_job() {
    let job = Run::exact(2, &program("errhan")).args(&["abort"]).run();
    assert!(!job.status.success(), "{}", job.dump());
    for what in [
        "rank 0: MPI_Send: invalid destination rank 99",
        "[MPI_ERR_RANK] (MPI_ERRORS_ABORT)",
    ] {
        assert!(job.stderr.contains(what), "no `{what}`:\n{}", job.dump());
    }
    assert!(!job.stdout.contains("returned rank=0"), "{}", job.dump());
}

#[test]
fn calling_the_fatal_handler_ends_the_job_with_the_added_code() {
    let job = Run::exact(2, &program("errhan"))
        .args(&["fatal_call"])
        .run();
    assert_eq!(common::exit_code(&job.status), 80, "{}", job.dump());
    let what = "rank 1: MPI_Comm_call_errhandler: the program raised error code 80 on this \
                communicator [error code 80 of class 79, added by the program: my fatal code]";
    assert!(job.stderr.contains(what), "no `{what}`:\n{}", job.dump());
    assert!(!job.stdout.contains("returned"), "{}", job.dump());
}
