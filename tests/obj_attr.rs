//! Attributes on datatypes and windows, end to end (tests/programs/
//! obj_attr.c): the exact sequence of copy and delete callbacks and of the
//! values the program reads back, as MPI specifies them.
mod common;

use common::{program, Run};

/// mpi.h's error classes used below.
const ERR_OTHER: i64 = 15;
const ERR_KEYVAL: i64 = 48;

#[test]
fn type_and_window_attributes_run_their_callbacks_in_order() {
    let job = Run::exact(1, &program("obj_attr")).run();
    job.assert_success();
    // the size of the two-int type, seen by a delete callback calling MPI
    let s8 = "res step={} what=size_in_delete v=8";
    let lines: Vec<String> = [
        "res step=set what=k1 v=10",
        "res step=set what=k2 v=20",
        "ev step=dup cb=copy kv=1 val=10",
        "res step=dup what=k1 v=1010",
        "res step=dup what=k2 v=-1",
        "ev step=replace cb=delete kv=1 val=10",
        &s8.replace("{}", "replace"),
        "res step=replace what=k1 v=11",
        "ev step=delete cb=delete kv=2 val=20",
        &s8.replace("{}", "delete"),
        "res step=delete what=k2 v=-1",
        "res step=delete what=delete_again v=0",
        "res step=predefined_type what=k2 v=5",
        "ev step=predefined_type cb=delete kv=2 val=5",
        "res step=predefined_type what=size_in_delete v=4",
        &format!("res step=wrong_kind what=win_keyval_on_type v={ERR_KEYVAL}"),
        &format!("res step=wrong_kind what=comm_keyval_on_type v={ERR_KEYVAL}"),
        // freeing the dup: its one attribute
        "ev step=free cb=delete kv=1 val=1010",
        &s8.replace("{}", "free"),
        // freeing the original: reverse order of setting, the first
        // callback fails, the type stays with every attribute but none
        "ev step=free cb=delete kv=3 val=30",
        &format!("res step=free what=failing_free v={ERR_OTHER}"),
        "res step=free what=still_there v=1",
        "res step=free what=k1 v=11",
        "ev step=free cb=delete kv=3 val=30",
        "ev step=free cb=delete kv=1 val=11",
        &s8.replace("{}", "free"),
        "res step=free what=freed v=1",
        "res step=keyval_free what=invalid v=1",
        &format!("res step=keyval_free what=freed_keyval v={ERR_KEYVAL}"),
        "res step=window what=kw v=40",
        "res step=window what=size v=16",
        &format!("res step=window what=set_predefined v={ERR_KEYVAL}"),
        &format!("res step=window what=type_keyval_on_win v={ERR_KEYVAL}"),
        "ev step=window cb=delete kv=4 val=40",
        "res step=end what=done v=1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let got: Vec<String> = job
        .stdout
        .lines()
        .filter(|l| l.starts_with("res ") || l.starts_with("ev "))
        .map(str::to_string)
        .collect();
    assert_eq!(got, lines, "{}", job.dump());
}
