//! Type maps of MPI_Type_create_darray against maps derived by hand.
use super::*;
use crate::mpi::datatype::TypeTable;
use crate::mpi::type_contents::envelope;

const BLOCK: c_int = sys::MPI_DISTRIBUTE_BLOCK;
const CYCLIC: c_int = sys::MPI_DISTRIBUTE_CYCLIC;
const NONE: c_int = sys::MPI_DISTRIBUTE_NONE;
const DFLT: c_int = sys::MPI_DISTRIBUTE_DFLT_DARG;

#[allow(clippy::too_many_arguments)]
fn make(
    size: c_int,
    rank: c_int,
    gsizes: &[c_int],
    distribs: &[c_int],
    dargs: &[c_int],
    psizes: &[c_int],
    order: c_int,
    old: sys::MPI_Datatype,
) -> MpiResult<Datatype> {
    let t = TypeTable::new();
    let a = Darray {
        size,
        rank,
        gsizes,
        distribs,
        dargs,
        psizes,
        order,
    };
    darray(&a, &t.get_ref(old).unwrap())
}

/// (byte offset from the buffer, length) of every block, absolute.
fn abs_blocks(t: &Datatype) -> Vec<(isize, usize)> {
    t.blocks()
        .iter()
        .map(|&(o, l)| (t.origin() + o as isize, l))
        .collect()
}

#[test]
fn block_block_c_order() {
    // 4 x 6 ints on a 2 x 3 grid; rank 4 is at (1, 1): rows 2..4, columns
    // 2..4; element (r, c) at (6 r + c) * 4
    let t = make(
        6,
        4,
        &[4, 6],
        &[BLOCK, BLOCK],
        &[DFLT, DFLT],
        &[2, 3],
        sys::MPI_ORDER_C,
        sys::MPI_INT,
    )
    .unwrap();
    assert_eq!(abs_blocks(&t), vec![(56, 8), (80, 8)]);
    assert_eq!((t.lb(), t.extent(), t.size()), (0, 96, 16));
    // the envelope and contents of a darray
    let (ni, na, nd, comb) = envelope(t.contents());
    assert_eq!((ni, na, nd, comb), (12, 0, 1, sys::MPI_COMBINER_DARRAY));
    assert_eq!(
        t.contents().unwrap().ints,
        vec![
            6,
            4,
            2,
            4,
            6,
            BLOCK,
            BLOCK,
            DFLT,
            DFLT,
            2,
            3,
            sys::MPI_ORDER_C
        ]
    );
    assert_eq!(t.contents().unwrap().types[0].handle, sys::MPI_INT);
}

#[test]
fn block_block_fortran_order() {
    // the same grid position (grid coordinates are row-major in both
    // orders); element (i0, i1) at (i0 + 4 i1) * 4
    let t = make(
        6,
        4,
        &[4, 6],
        &[BLOCK, BLOCK],
        &[DFLT, DFLT],
        &[2, 3],
        sys::MPI_ORDER_FORTRAN,
        sys::MPI_INT,
    )
    .unwrap();
    assert_eq!(abs_blocks(&t), vec![(40, 8), (56, 8)]);
    assert_eq!((t.lb(), t.extent(), t.size()), (0, 96, 16));
    // rank 2 is at (0, 2): rows 0..2, columns 4..6
    let t = make(
        6,
        2,
        &[4, 6],
        &[BLOCK, BLOCK],
        &[DFLT, DFLT],
        &[2, 3],
        sys::MPI_ORDER_FORTRAN,
        sys::MPI_INT,
    )
    .unwrap();
    assert_eq!(abs_blocks(&t), vec![(64, 8), (80, 8)]);
}

#[test]
fn cyclic_k_cuts_the_last_block() {
    // 11 doubles over 3 processes in blocks of 2: rank 1 holds 2, 3, 8, 9;
    // rank 2 holds 4, 5, 10
    let d = |rank| {
        make(
            3,
            rank,
            &[11],
            &[CYCLIC],
            &[2],
            &[3],
            sys::MPI_ORDER_C,
            sys::MPI_DOUBLE,
        )
        .unwrap()
    };
    let t = d(1);
    assert_eq!(abs_blocks(&t), vec![(16, 16), (64, 16)]);
    assert_eq!((t.lb(), t.extent(), t.size()), (0, 88, 32));
    let t = d(2);
    assert_eq!(abs_blocks(&t), vec![(32, 16), (80, 8)]);
    assert_eq!(t.size(), 24);
    // MPI_Get_elements counts the doubles
    assert_eq!(t.elements(24), Some(3));
}

#[test]
fn none_and_default_cyclic() {
    // 3 x 5 ints, rows not distributed, columns cyclic(1) over 2: rank 1
    // holds columns 1 and 3 of every row
    let t = make(
        2,
        1,
        &[3, 5],
        &[NONE, CYCLIC],
        &[DFLT, DFLT],
        &[1, 2],
        sys::MPI_ORDER_C,
        sys::MPI_INT,
    )
    .unwrap();
    assert_eq!(
        abs_blocks(&t),
        vec![(4, 4), (12, 4), (24, 4), (32, 4), (44, 4), (52, 4)]
    );
    assert_eq!((t.extent(), t.size()), (60, 24));
}

#[test]
fn three_dimensions_mixed() {
    // 2 x 3 x 4 shorts, [BLOCK, NONE, CYCLIC(2)] over a 2 x 1 x 2 grid:
    // rank 3 is at (1, 0, 1): i0 = 1, every i1, i2 in 2..4; element
    // (i0, i1, i2) at (12 i0 + 4 i1 + i2) * 2
    let t = make(
        4,
        3,
        &[2, 3, 4],
        &[BLOCK, NONE, CYCLIC],
        &[DFLT, DFLT, 2],
        &[2, 1, 2],
        sys::MPI_ORDER_C,
        sys::MPI_SHORT,
    )
    .unwrap();
    assert_eq!(abs_blocks(&t), vec![(28, 4), (36, 4), (44, 4)]);
    assert_eq!((t.lb(), t.extent(), t.size()), (0, 48, 12));
    // Fortran order: element at (i0 + 2 i1 + 6 i2) * 2, i0 fastest
    let t = make(
        4,
        3,
        &[2, 3, 4],
        &[BLOCK, NONE, CYCLIC],
        &[DFLT, DFLT, 2],
        &[2, 1, 2],
        sys::MPI_ORDER_FORTRAN,
        sys::MPI_SHORT,
    )
    .unwrap();
    // (1,0,2)=13 (1,1,2)=15 (1,2,2)=17 (1,0,3)=19 (1,1,3)=21 (1,2,3)=23
    assert_eq!(
        abs_blocks(&t),
        vec![(26, 2), (30, 2), (34, 2), (38, 2), (42, 2), (46, 2)]
    );
}

#[test]
fn block_with_an_explicit_size_leaves_late_processes_empty() {
    // 5 elements in blocks of 3 over 3 processes: rank 1 holds 3, 4; rank
    // 2 nothing (but its type still spans the array)
    let d = |rank| {
        make(
            3,
            rank,
            &[5],
            &[BLOCK],
            &[3],
            &[3],
            sys::MPI_ORDER_C,
            sys::MPI_INT,
        )
        .unwrap()
    };
    assert_eq!(abs_blocks(&d(1)), vec![(12, 8)]);
    let t = d(2);
    assert_eq!((t.size(), t.lb(), t.extent()), (0, 0, 20));
}

#[test]
fn erroneous_arguments() {
    let e = |r: MpiResult<Datatype>| r.unwrap_err();
    let arg = sys::MPI_ERR_ARG;
    let c = sys::MPI_ORDER_C;
    // blocks too small for the dimension
    let err = e(make(2, 0, &[9], &[BLOCK], &[4], &[2], c, sys::MPI_INT));
    assert_eq!(err.class, arg);
    assert_eq!(
        err.msg,
        "array_of_dargs[0] = 4: 2 blocks of 4 cannot hold the 9 elements of dimension 0"
    );
    // grid of the wrong size, bad rank, distribution, order, sizes
    let err = e(make(4, 0, &[8], &[BLOCK], &[DFLT], &[2], c, sys::MPI_INT));
    assert_eq!(err.class, arg);
    assert_eq!(
        e(make(2, 2, &[8], &[BLOCK], &[DFLT], &[2], c, sys::MPI_INT)).class,
        arg
    );
    assert_eq!(
        e(make(2, 0, &[8], &[7], &[DFLT], &[2], c, sys::MPI_INT)).class,
        arg
    );
    assert_eq!(
        e(make(2, 0, &[8], &[BLOCK], &[DFLT], &[2], 3, sys::MPI_INT)).class,
        arg
    );
    assert_eq!(
        e(make(2, 0, &[0], &[BLOCK], &[DFLT], &[2], c, sys::MPI_INT)).class,
        arg
    );
    assert_eq!(
        e(make(2, 0, &[8], &[CYCLIC], &[0], &[2], c, sys::MPI_INT)).class,
        arg
    );
}
