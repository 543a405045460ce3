//! Derived datatypes end to end: C programs built with our `mpicc` and run
//! with our `mpirun` send and receive with every constructor and check the
//! data; MPI_Pack / MPI_Unpack / MPI_Pack_size give MPICH's values;
//! MPI_Get_count / MPI_Get_elements on received statuses; error classes
//! under MPI_ERRORS_RETURN and the abort under MPI_ERRORS_ARE_FATAL; the
//! time of a strided message is that of its packed bytes; negative extents
//! and the MPI-4 large-count (`_c`) calls.
mod common;

use common::model::{self, blocking_transfer, link, m, Clock};
use common::{fmt_ps, program, records, times_by_rank_op, Run, CORE_VARIANTS};
use std::collections::{BTreeMap, BTreeSet};

/// MPI_UNDEFINED of mpi.h.
const UNDEFINED: i64 = -32766;

#[test]
fn point_to_point_with_every_constructor() {
    let job = Run::exact(2, &program("dtype_p2p")).run();
    job.assert_success();
    let passed: BTreeSet<(String, i64)> = records(&job.stdout, "case")
        .iter()
        .map(|r| (r.get("name").to_string(), r.int("rank")))
        .collect();
    let expect: BTreeSet<(String, i64)> = [
        ("vector", 1),
        ("struct", 1),
        ("subarray", 1),
        ("resized", 1),
        ("indexed", 1),
        ("bottom", 1),
        ("nonblocking", 0),
        ("nonblocking", 1),
        ("lifetime", 1),
        ("decoder", 0),
        ("elements", 1),
    ]
    .iter()
    .map(|(n, r)| (n.to_string(), *r))
    .collect();
    assert_eq!(passed, expect, "{}", job.dump());

    // (get_count, get_elements, get_elements_x) of each received status
    let got: BTreeMap<String, (i64, i64, i64)> = records(&job.stdout, "count")
        .iter()
        .map(|r| {
            let v = (
                r.int("get_count"),
                r.int("get_elements"),
                r.int("elements_x"),
            );
            (r.get("name").to_string(), v)
        })
        .collect();
    let want: BTreeMap<String, (i64, i64, i64)> = [
        // 2 vectors of 4 x 2 doubles
        ("vector", (2, 16, 16)),
        // 5 structs {char; double; int[3]; short}: 6 basic elements each
        ("struct", (5, 30, 30)),
        // 55 bytes: 2 records (46 bytes) + a char and a double
        ("struct_partial", (UNDEFINED, 14, 14)),
        // 3 x 2 x 2 doubles
        ("subarray", (1, 12, 12)),
        // 3 columns of 4 ints
        ("resized", (3, 12, 12)),
        // the standard's example: 3 doubles as contiguous(2, MPI_DOUBLE)
        ("two_doubles_of_three", (UNDEFINED, 3, 3)),
        // a predefined type counts whole elements only
        ("six_bytes_as_int", (UNDEFINED, UNDEFINED, UNDEFINED)),
        ("empty", (0, 0, 0)),
    ]
    .iter()
    .map(|(n, v)| (n.to_string(), *v))
    .collect();
    assert_eq!(got, want, "{}", job.dump());
}

#[test]
fn pack_unpack_and_pack_size_as_mpich() {
    let job = Run::exact(2, &program("dtype_pack")).run();
    job.assert_success();
    let got: BTreeMap<(i64, String), i64> = records(&job.stdout, "pack")
        .iter()
        .map(|r| ((r.int("rank"), r.get("what").to_string()), r.int("value")))
        .collect();
    let mut want = BTreeMap::new();
    for rank in [0, 1] {
        for (what, v) in [
            // MPICH: incount * MPI_Type_size, no header
            ("size_3_int", 12),
            ("size_2_rec", 46),
            ("size_1_vec", 64),
            ("size_5_double_int", 60),
            ("size_0_rec", 0),
            // int (4), record (1 + 8 + 12 + 2 = 23), 2 x 3 shorts (12)
            ("pos_after_int", 4),
            ("pos_after_rec", 27),
            ("pos_after_vectors", 39),
            ("checked", 1),
        ] {
            want.insert((rank, what.to_string()), v);
        }
    }
    want.insert((1, "received".to_string()), 39);
    assert_eq!(got, want, "{}", job.dump());
}

#[test]
fn error_classes_under_errors_return() {
    let job = Run::exact(2, &program("dtype_errors"))
        .args(&["return"])
        .run();
    job.assert_success();
    const TYPE: i64 = 3;
    const COUNT: i64 = 2;
    const ARG: i64 = 12;
    const COMM: i64 = 5;
    let got: Vec<(String, i64)> = records(&job.stdout, "err")
        .iter()
        .map(|r| (r.get("name").to_string(), r.int("class")))
        .collect();
    let want: Vec<(String, i64)> = [
        ("send_uncommitted", TYPE),
        ("recv_uncommitted", TYPE),
        ("isend_freed", TYPE),
        ("irecv_freed", TYPE),
        ("send_null_type", TYPE),
        ("free_predefined", TYPE),
        ("free_freed", TYPE),
        ("commit_freed", TYPE),
        ("commit_null", ARG),
        ("contiguous_negative_count", COUNT),
        ("vector_negative_blocklength", ARG),
        ("indexed_negative_blocklength", ARG),
        ("indexed_null_array", ARG),
        ("contiguous_freed_oldtype", TYPE),
        ("struct_freed_member", TYPE),
        ("struct_null_newtype", ARG),
        ("subarray_bad_start", ARG),
        ("subarray_bad_order", ARG),
        ("subarray_zero_ndims", ARG),
        ("resized_freed_oldtype", TYPE),
        ("size_uncommitted", 0),
        ("size_freed", TYPE),
        ("extent_null_out", ARG),
        ("extent_uncommitted", 0),
        ("contents_predefined", ARG),
        ("contents_too_small", ARG),
        ("get_count_uncommitted", 0),
        ("get_elements_uncommitted", TYPE),
        ("get_elements_ignore", ARG),
        ("pack_uncommitted", TYPE),
        ("pack_size_uncommitted", TYPE),
        ("pack_negative_count", COUNT),
        ("pack_too_small", ARG),
        ("pack_invalid_comm", COMM),
        ("unpack_too_short", ARG),
        ("pack_null_position", ARG),
        ("pack_committed", 0),
    ]
    .iter()
    .map(|(n, c)| (n.to_string(), *c))
    .collect();
    assert_eq!(got, want, "{}", job.dump());
    let values: BTreeMap<String, i64> = records(&job.stdout, "value")
        .iter()
        .map(|r| (r.get("name").to_string(), r.int("v")))
        .collect();
    let want_values: BTreeMap<String, i64> = [
        // vector(4, 1, 2, MPI_DOUBLE): 4 doubles over 7
        ("size_uncommitted", 32),
        ("extent_uncommitted", 56),
        // 16 bytes are not a whole number of 32-byte vectors
        ("get_count_uncommitted", UNDEFINED),
        // a failed MPI_Pack leaves the position alone
        ("pack_too_small_position", 60),
        ("pack_committed_position", 32),
    ]
    .iter()
    .map(|(n, v)| (n.to_string(), *v))
    .collect();
    assert_eq!(values, want_values, "{}", job.dump());
    assert_eq!(records(&job.stdout, "done").len(), 2, "{}", job.dump());
}

/// MPI_ERR_COUNT and MPI_ERR_OTHER of mpi.h.
const ERR_COUNT: i64 = 2;
const ERR_OTHER: i64 = 15;

#[test]
fn negative_extents_and_large_count_calls() {
    let job = Run::exact(2, &program("dtype_large")).run();
    job.assert_success();
    assert!(!job.stdout.contains("FAIL"), "{}", job.dump());
    let got: BTreeMap<(i64, String), i64> = records(&job.stdout, "val")
        .iter()
        .map(|r| ((r.int("rank"), r.get("what").to_string()), r.int("value")))
        .collect();
    let mut want = BTreeMap::new();
    let both: &[(&str, i64)] = &[
        // (lb, extent, true lb, true extent, size): an int resized to
        // lb 4, ub 0
        ("rev_lb", 4),
        ("rev_extent", -4),
        ("rev_true_lb", 0),
        ("rev_true_extent", 4),
        ("rev_size", 4),
        // MPICH's lbub: { (LB,6),4*(BYTE,0),(UB,-3) } ...
        ("evil_lb", 6),
        ("evil_extent", -9),
        ("evil_true_lb", 0),
        ("evil_true_extent", 4),
        ("evil_size", 4),
        // ... three of them: copies at 0, -9, -18
        ("evil3_lb", -12),
        ("evil3_extent", 9),
        ("evil3_true_lb", -18),
        ("evil3_true_extent", 22),
        ("evil3_size", 12),
        // { (LB,10) }: ub 0
        ("lbonly_lb", 10),
        ("lbonly_extent", -10),
        ("lbonly_true_lb", 0),
        ("lbonly_true_extent", 0),
        ("lbonly_size", 0),
        // 3e9 ints
        ("huge_size_c", 12_000_000_000),
        ("huge_size", UNDEFINED),
        // MPI_Type_create_hindexed_c(2, {2, 1}, {40, -8}, MPI_INT): count,
        // block lengths and displacements are large counts
        ("hx_ni", 0),
        ("hx_na", 0),
        ("hx_nc", 5),
        ("hx_nd", 1),
        ("hx_combiner_is_hindexed", 1),
        ("hx_count_0", 2),
        ("hx_count_1", 2),
        ("hx_count_2", 1),
        ("hx_count_3", 40),
        ("hx_count_4", -8),
        ("hx_type_is_int", 1),
        ("hx_int_envelope_class", ERR_OTHER),
        ("overflow_class", ERR_COUNT),
        ("negative_class", ERR_COUNT),
        // ints 2 and 3 of the buffer only
        ("bcast_0", -1),
        ("bcast_1", -1),
        ("bcast_2", 7),
        ("bcast_3", 8),
        ("bcast_4", -1),
        // {1, 10} + {2, 20}; rank 1 is the root of MPI_Reduce_c
        ("allreduce_0", 3),
        ("allreduce_1", 30),
        ("allgather_0", 1),
        ("allgather_1", 10),
        ("allgather_2", 2),
        ("allgather_3", 20),
        ("allgather_overflow_class", ERR_COUNT),
        ("alltoall_overflow_class", ERR_COUNT),
    ];
    for rank in [0, 1] {
        for &(what, v) in both {
            want.insert((rank, what.to_string()), v);
        }
    }
    let rank0: &[(&str, i64)] = &[
        ("reduce_0", -1),
        ("gather_0", 1),
        ("gather_1", 10),
        ("gather_2", 2),
        ("gather_3", 20),
        // rank 1 scatters {5, 6, 7, 8}
        ("scatter_0", 5),
        ("scatter_1", 6),
        // blocks 0 of both ranks' {r, r + 10, r + 20, r + 30}
        ("alltoall_0", 0),
        ("alltoall_1", 10),
        ("alltoall_2", 1),
        ("alltoall_3", 11),
        // from rank 0's sb[0], rank 1's sb[0]
        ("a2av_0", 0),
        ("a2av_4", 100),
    ];
    let rank1: &[(&str, i64)] = &[
        ("reduce_0", 3),
        ("gather_0", -1),
        ("gather_1", -1),
        ("gather_2", -1),
        ("gather_3", -1),
        ("scatter_0", 7),
        ("scatter_1", 8),
        ("alltoall_0", 20),
        ("alltoall_1", 30),
        ("alltoall_2", 21),
        ("alltoall_3", 31),
        // three elements of extent -4 from a[3]: a[3], a[2], a[1]
        ("recv_count", 3),
        ("recv_0", 13),
        ("recv_1", 12),
        ("recv_2", 11),
        // four ints into the same layout from out[3] downwards
        ("rev_count", 4),
        ("rev_out_0", 23),
        ("rev_out_1", 22),
        ("rev_out_2", 21),
        ("rev_out_3", 20),
        ("rev_out_4", -1),
        // rank 0's sb[3..5], rank 1's sb[3..5]
        ("a2av_0", 3),
        ("a2av_1", 4),
        ("a2av_4", 103),
        ("a2av_5", 104),
    ];
    for (rank, vals) in [(0, rank0), (1, rank1)] {
        for i in 0..8 {
            want.insert((rank, format!("a2av_{i}")), -1);
        }
        for &(what, v) in vals {
            want.insert((rank, what.to_string()), v);
        }
    }
    assert_eq!(got, want, "{}", job.dump());
}

#[test]
fn uncommitted_type_is_fatal_under_errors_are_fatal() {
    let job = Run::exact(2, &program("dtype_errors"))
        .args(&["fatal"])
        .run();
    assert!(!job.status.success(), "{}", job.dump());
    for what in [
        "rank 0",
        "MPI_Send",
        "vector datatype 0x8c000000 is not committed",
        "MPI_ERR_TYPE",
    ] {
        assert!(
            job.stderr.contains(what),
            "no `{what}` in stderr:\n{}",
            job.dump()
        );
    }
    assert!(
        !job.stdout.contains("fatal_send_returned"),
        "the erroneous call returned:\n{}",
        job.dump()
    );
}

/// A vector of 1000 doubles with a stride of 2, sent from rank 0 to rank 1
/// on one target node: the message is its 8000 packed bytes, so the times
/// are those of an eager message of 8000 bytes: the send returns at M(b)
/// (copy in), the receive at E = M(b) + L(b, 0) + M(b) = 3 M(b) (copy in,
/// the intra-node "wire" at memory bandwidth, copy out). Packing and
/// unpacking are host work: they add nothing.
#[test]
fn strided_vector_costs_its_packed_bytes() {
    const B: u64 = 8000;
    assert_eq!(model::hop(0, 1), 0);
    assert!(model::is_eager(B));
    let (mut s, mut r) = (Clock::new(), Clock::new());
    blocking_transfer(&mut s, &mut r, B, 0);
    let e = m(B) + link(B, 0) + m(B);
    assert_eq!(link(B, 0), m(B));
    assert_eq!((s.t, r.t), (m(B), e));
    assert_eq!(e, 3 * m(B));
    // M(8000) = 8000 B / 6.38 GB/s = 1253918.495... ps, rounded
    assert_eq!(m(B), 1_253_918);
    let mut expected = BTreeMap::new();
    expected.insert((0, "send".to_string()), s.t);
    expected.insert((1, "recv".to_string()), r.t);
    let prog = program("dtype_timing");
    for cores in CORE_VARIANTS {
        let job = Run::exact(2, &prog).cores(cores).run();
        job.assert_success();
        let got: BTreeMap<(i64, String), u64> =
            times_by_rank_op(&job.stdout, "t").into_iter().collect();
        assert_eq!(
            got,
            expected,
            "cores {cores:?}: expected send {} and recv {}\n{}",
            fmt_ps(s.t),
            fmt_ps(r.t),
            job.dump()
        );
    }
}
