//! Error handlers and error classes, and the datatype extras, end to end: C
//! (and Fortran) programs built with our wrappers and run with our
//! `mpirun`. A program's error handler is called by erroneous calls with
//! the communicator and the error code (and not under MPI_ERRORS_RETURN);
//! classes, codes and strings the program adds are known to
//! MPI_Error_class / MPI_Error_string and MPI_LASTUSEDCODE; darray type
//! maps are checked against maps derived by hand, external32 images byte
//! for byte, and the large-count queries on types beyond 2^31 bytes.
mod common;

use common::model::{blocking_transfer, hop, m, Clock};
use common::{fmt_ps, fortran_program, program, records, times_by_rank_op, Run, CORE_VARIANTS};
use std::collections::BTreeMap;

/// The error classes of mpi.h used below.
const ERR_COUNT: i64 = 2;
const ERR_TAG: i64 = 4;
const ERR_COMM: i64 = 5;
const ERR_RANK: i64 = 6;
const ERR_ARG: i64 = 12;
/// The first error class MPI_Add_error_class hands out
/// (MPI_ERR_LASTCODE + 1, as MPICH's dynamic classes).
const FIRST_ADDED: i64 = 0x4000_0000;

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
    // the code is beyond an exit status (1..=255): mpirun exits with 1
    assert_eq!(common::exit_code(&job.status), 1, "{}", job.dump());
    let (class, code) = (FIRST_ADDED, FIRST_ADDED + 1);
    let what = format!(
        "rank 1: MPI_Comm_call_errhandler: the program raised error code {code} on this \
         communicator [error code {code} of class {class}, added by the program: my fatal code]"
    );
    let what = what.as_str();
    assert!(job.stderr.contains(what), "no `{what}`:\n{}", job.dump());
    assert!(!job.stdout.contains("returned"), "{}", job.dump());
}

/// The `case` lines of `dtype_extra` (printed by rank 0 only).
fn dtype_extra_cases() -> (common::Job, BTreeMap<String, BTreeMap<String, String>>) {
    let job = Run::exact(2, &program("dtype_extra")).run();
    job.assert_success();
    let got = cases(&job.stdout);
    (job, got)
}

/// Row-major indices `i * cols + j` for rows x columns.
fn grid(rows: &[i64], cols: &[i64], ncols: i64) -> Vec<i64> {
    rows.iter()
        .flat_map(|&i| cols.iter().map(move |&j| i * ncols + j))
        .collect()
}

fn map_str(v: &[i64]) -> String {
    if v.is_empty() {
        return "-".to_string();
    }
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn darray_type_maps_match_hand_derived_maps() {
    let (job, got) = dtype_extra_cases();
    let mut want: BTreeMap<String, (i64, i64, String)> = BTreeMap::new();
    // 4 x 6 ints, BLOCK x BLOCK on a 2 x 3 grid: rank r at (r / 3, r % 3)
    // holds rows 2 (r / 3) .. +2 and columns 2 (r % 3) .. +2; C order: the
    // element (i, j) is a[6 i + j], the column fastest; Fortran order: it
    // is a[i + 4 j], the row fastest
    for r in 0..6i64 {
        let rows: Vec<i64> = (2 * (r / 3)..2 * (r / 3) + 2).collect();
        let cols: Vec<i64> = (2 * (r % 3)..2 * (r % 3) + 2).collect();
        want.insert(
            format!("bb_c_{r}"),
            (96, 16, map_str(&grid(&rows, &cols, 6))),
        );
        let f: Vec<i64> = cols
            .iter()
            .flat_map(|&j| rows.iter().map(move |&i| i + 4 * j))
            .collect();
        want.insert(format!("bb_f_{r}"), (96, 16, map_str(&f)));
    }
    // 11 elements cyclic(2) over 3: blocks of 2 from 2 r, every 6, cut at 11
    want.insert("cyc2_0".into(), (44, 16, "0,1,6,7".into()));
    want.insert("cyc2_1".into(), (44, 16, "2,3,8,9".into()));
    want.insert("cyc2_2".into(), (44, 12, "4,5,10".into()));
    // 3 x 5, rows whole, columns cyclic(1) over 2, Fortran order (a[i + 3 j])
    want.insert(
        "none_cyc_f_0".into(),
        (60, 36, "0,1,2,6,7,8,12,13,14".into()),
    );
    want.insert("none_cyc_f_1".into(), (60, 24, "3,4,5,9,10,11".into()));
    // 2 x 3 x 4, [BLOCK, NONE, CYCLIC(2)] on 2 x 1 x 2: rank r at
    // (r / 2, 0, r % 2) holds i0 = r / 2, every i1, i2 in 2 (r % 2) .. +2;
    // element at 12 i0 + 4 i1 + i2
    for r in 0..4i64 {
        let v: Vec<i64> = (0..3)
            .flat_map(|i1| (0..2).map(move |k| 12 * (r / 2) + 4 * i1 + 2 * (r % 2) + k))
            .collect();
        want.insert(format!("mixed3_{r}"), (96, 24, map_str(&v)));
    }
    // BLOCK(3) of 5 over 3: rank 2 holds nothing, its type spans the array
    want.insert("block3_2".into(), (20, 0, "-".into()));
    // hindexed_block: 3 blocks of 2 ints at bytes 0, 20, 8; ub 28
    want.insert("hindexed_block".into(), (28, 24, "0,1,5,6,2,3".into()));
    for (name, (extent, size, map)) in &want {
        let c = got
            .get(name)
            .unwrap_or_else(|| panic!("no case {name}:\n{}", job.dump()));
        assert_eq!(c["lb"], "0", "{name}");
        assert_eq!(c["extent"], extent.to_string(), "{name}");
        assert_eq!(c["size"], size.to_string(), "{name}");
        assert_eq!(&c["map"], map, "{name}");
    }
    let env = &got["darray_envelope"];
    assert_eq!(
        (
            env["ni"].as_str(),
            env["na"].as_str(),
            env["nt"].as_str(),
            env["combiner"].as_str()
        ),
        ("12", "0", "1", "14")
    );
    assert_eq!(
        env["ints"], "6,4,2,4,6,121,121,-49767,-49767,2,3,56",
        "size, rank, ndims, gsizes, distribs, dargs, psizes, order"
    );
    assert_eq!(env["type_is_int"], "1");
    assert_eq!(got["darray_small_blocks"]["rc"], ERR_ARG.to_string());
    assert_eq!(got["darray_bad_grid"]["rc"], ERR_ARG.to_string());
    let hb = &got["hindexed_block_envelope"];
    assert_eq!(
        (
            hb["ni"].as_str(),
            hb["na"].as_str(),
            hb["combiner"].as_str()
        ),
        ("2", "3", "19")
    );
    // the section sent with rank 1's darray type arrives as its 4 ints
    let sec = records(&job.stdout, "section");
    assert_eq!(sec.len(), 1, "{}", job.dump());
    assert_eq!(sec[0].get("count"), "4");
    assert_eq!(sec[0].get("values"), "2,3,8,9");
}

#[test]
fn external32_images_byte_for_byte() {
    let (_, got) = dtype_extra_cases();
    let bytes = |n: &str| got[n]["bytes"].clone();
    // big-endian int 1 and -2
    assert_eq!(bytes("ext_ints"), "00000001fffffffe");
    // IEEE 1.5 = 0x3ff8 0000 0000 0000
    assert_eq!(bytes("ext_double"), "3ff8000000000000");
    // MPI_LONG is 4 bytes in external32
    assert_eq!(bytes("ext_long"), "fffffffd");
    // struct {char 7; double 2.0; int 3, 4; short 5}: no padding, 19 bytes
    assert_eq!(got["ext_struct_size"]["size"], "19");
    assert_eq!(got["ext_struct_size"]["pos"], "19");
    assert_eq!(
        bytes("ext_struct"),
        "07".to_string() + "4000000000000000" + "00000003" + "00000004" + "0005"
    );
    assert_eq!(got["ext_roundtrip"]["ok"], "1");
    assert_eq!(got["ext_roundtrip"]["upos"], "19");
    // only "external32": MPI_ERR_UNSUPPORTED_DATAREP (43)
    assert_eq!(got["ext_native"]["rc"], "43");
    assert_eq!(got["ext_too_small"]["rc"], ERR_ARG.to_string());
}

#[test]
fn fortran90_types_match_size_names_and_new_predefined_types() {
    let (_, got) = dtype_extra_cases();
    let f = |n: &str, k: &str| got[n][k].clone();
    // (10, 100) selects REAL(8); the handle is cached, (6, any) is another
    assert_eq!(f("f90_real", "same"), "1");
    assert_eq!(f("f90_real", "other"), "1");
    assert_eq!(f("f90_real", "size"), "8");
    assert_eq!(
        (
            f("f90_real", "ni"),
            f("f90_real", "na"),
            f("f90_real", "nt"),
            f("f90_real", "combiner")
        ),
        ("2".into(), "0".into(), "0".into(), "15".into())
    );
    assert_eq!(
        (f("f90_real", "p"), f("f90_real", "r")),
        ("10".into(), "100".into())
    );
    assert_eq!(f("f90_real4", "size"), "4");
    assert_eq!(
        (
            f("f90_integer", "size"),
            f("f90_integer", "ni"),
            f("f90_integer", "combiner")
        ),
        ("4".into(), "1".into(), "17".into())
    );
    // 20 digits: REAL(16), a complex of two
    assert_eq!(
        (f("f90_complex", "size"), f("f90_complex", "combiner")),
        ("32".into(), "16".into())
    );
    assert_eq!(f("f90_sum", "y"), "3.75");
    assert_eq!(f("f90_free", "rc"), "3");
    assert_eq!(f("f90_no_kind", "rc"), ERR_ARG.to_string());
    assert_eq!(f("match_real8", "is_double_precision"), "1");
    assert_eq!(f("match_int2", "is_integer2"), "1");
    assert_eq!(f("match_complex16", "is_double_complex"), "1");
    assert_eq!(f("match_none", "rc"), ERR_ARG.to_string());
    // names
    assert_eq!(f("name_double", "tname"), "MPI_DOUBLE");
    assert_eq!(f("name_double", "len"), "10");
    assert_eq!(f("name_cxx", "tname"), "MPI_CXX_DOUBLE_COMPLEX");
    assert_eq!(f("name_derived", "len"), "0");
    assert_eq!(f("name_set", "tname"), "pair_of_ints");
    assert_eq!(f("name_set", "len"), "12");
    // REAL16 COMPLEX8 COMPLEX16 COMPLEX32 INTEGER16 CXX_BOOL CXX complexes
    assert_eq!(f("predefined_sizes", "sizes"), "16,8,16,32,16,1,8,16,32");
    // MPI_LB / MPI_UB set the bounds of a struct (MPICH's resized struct)
    assert_eq!(
        (
            f("markers", "tname"),
            f("markers", "lb"),
            f("markers", "extent"),
            f("markers", "size")
        ),
        ("MPI_UB".into(), "-4".into(), "24".into(), "8".into())
    );
    // (1 + 2i)(10 + 20i) = -30 + 40i
    assert_eq!(
        (f("cxx_complex_prod", "re"), f("cxx_complex_prod", "im")),
        ("-30".into(), "40".into())
    );
    // no operator on 128-bit integers: MPI_ERR_OP
    assert_eq!(f("integer16_sum", "rc"), "9");
}

#[test]
fn large_count_queries_beyond_2_gib() {
    let (_, got) = dtype_extra_cases();
    let big = (1i64 << 33).to_string();
    let undefined = "-32766";
    let s = &got["large_size"];
    assert_eq!(s["size"], undefined, "MPI_Type_size does not fit an int");
    assert_eq!(s["size_x"], big);
    assert_eq!(s["size_c"], big);
    for n in ["large_extent_x", "large_extent_c"] {
        let e = &got[n];
        assert_eq!(
            (
                e["lb"].as_str(),
                e["extent"].as_str(),
                e["true_lb"].as_str(),
                e["true_extent"].as_str()
            ),
            ("0", big.as_str(), "0", big.as_str()),
            "{n}"
        );
    }
    let c = &got["large_count"];
    assert_eq!(c["get_count"], undefined);
    assert_eq!(c["count_c"], big);
    assert_eq!(c["count_c_type"], "1");
    assert_eq!(c["elements_x"], (1i64 << 30).to_string());
    assert_eq!(c["elements_c"], big);
}

#[test]
fn fortran_handlers_classes_and_datatype_extras() {
    let Some(out) = fortran_program("f90_errhan_dtype.f90", &["-O1"]) else {
        return;
    };
    let job = Run::exact(1, &out).run();
    job.assert_success();
    let got = cases(&job.stdout);
    let line = |n: &str| {
        let mut v: Vec<String> = got
            .get(n)
            .unwrap_or_else(|| panic!("no case {n}:\n{}", job.dump()))
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        v.sort();
        v.join(" ")
    };
    let (class, code) = (FIRST_ADDED, FIRST_ADDED + 1);
    assert_eq!(line("handler"), "calls=1 code=6 comm_ok=1 ierr=6");
    assert_eq!(
        line("added"),
        format!("class={class} code={code} handler_code={code} ierr=0 len=15 text_ok=1")
    );
    // rank 4 of the 2 x 3 grid is at (1, 1): a(i0 + 4 i1), i0, i1 in 2..4
    assert_eq!(line("darray"), "extent=96 lb=0 map=10,11,14,15 size=16");
    assert_eq!(line("name"), "len=11 tname=MPI_INTEGER");
    assert_eq!(line("external32"), "size=24");
    assert_eq!(line("f90"), "size=8");
    assert_eq!(line("match"), "is_integer8=1");
}

/// A program's error handler runs as the program's own computation: one
/// that adds 1 ms (MPIX_Vaced_compute) makes the erroneous call return at
/// 1 ms. Then the 4-int darray section (16 packed bytes) goes to rank 1 as
/// an eager message of 16 bytes on one target node: the send returns at
/// 1 ms + M(16), the receive (posted at 0) completes at 1 ms + M(16) +
/// L(16, 0) + M(16).
#[test]
fn handler_time_is_computation_and_a_darray_message_costs_its_packed_bytes() {
    const B: u64 = 16;
    assert_eq!(hop(0, 1), 0);
    let (mut s, mut r) = (Clock::new(), Clock::new());
    s.compute(1_000_000_000);
    let err = s.t;
    blocking_transfer(&mut s, &mut r, B, 0);
    assert_eq!(s.t, 1_000_000_000 + m(B));
    let mut expected = BTreeMap::new();
    expected.insert((0, "err".to_string()), err);
    expected.insert((0, "send".to_string()), s.t);
    expected.insert((1, "recv".to_string()), r.t);
    let prog = program("errhan");
    for cores in CORE_VARIANTS {
        let job = Run::exact(2, &prog).args(&["timing"]).cores(cores).run();
        job.assert_success();
        assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
        let got: BTreeMap<(i64, String), u64> =
            times_by_rank_op(&job.stdout, "t").into_iter().collect();
        assert_eq!(
            got,
            expected,
            "cores {cores:?}: expected err {}, send {}, recv {}\n{}",
            fmt_ps(err),
            fmt_ps(s.t),
            fmt_ps(r.t),
            job.dump()
        );
    }
}
