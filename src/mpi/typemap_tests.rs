//! Type maps of every constructor, checked against values worked out by
//! hand from the standard's definitions (MPI 3.1 section 4.1).
use super::*;
use crate::mpi::datatype::TypeTable;
use std::sync::Arc;

fn pre(h: sys::MPI_Datatype) -> TypeRef {
    TypeTable::new().get_ref(h).unwrap()
}

fn d(t: Datatype) -> TypeRef {
    TypeRef {
        handle: 0,
        predefined: false,
        ty: Arc::new(t),
    }
}

/// (size, lb, extent, true_lb, true_extent, blocks relative to the true lb)
#[track_caller]
fn check(
    t: &Datatype,
    size: usize,
    lb: isize,
    extent: isize,
    tlb: isize,
    text: usize,
    blocks: &[(usize, usize)],
) {
    assert_eq!(
        (
            t.size(),
            t.lb(),
            t.extent(),
            t.true_lb(),
            t.true_extent(),
            t.blocks()
        ),
        (size, lb, extent, tlb, text, blocks)
    );
    assert_eq!(t.origin(), tlb);
    assert_eq!(t.ub(), lb + extent);
    assert_eq!(t.true_ub(), tlb + text as isize);
}

/// `n` bytes 0, 1, 2, ... (mod 256).
fn mem(n: usize) -> Vec<u8> {
    (0..n).map(|i| i as u8).collect()
}

fn range(a: usize, b: usize) -> Vec<u8> {
    (a..b).map(|i| i as u8).collect()
}

/// Pack `count` elements of `t` from `m`, check the packed bytes, unpack
/// them into a zeroed buffer and check that exactly the data bytes came
/// back.
#[track_caller]
fn round_trip(t: &Datatype, m: &[u8], count: usize, packed: &[u8]) {
    assert_eq!(t.span(count), m.len(), "test memory should be the span");
    let p = t.pack(m, count);
    assert_eq!(p, packed);
    assert_eq!(p.len(), t.packed_size(count));
    let mut back = vec![0xffu8; m.len()];
    t.unpack(&p, &mut back, count);
    let mut expect = vec![0xffu8; m.len()];
    // element i's data, from the first byte the elements touch
    let first = t.mem_start(count);
    for i in 0..count {
        for &(o, l) in t.blocks() {
            let at = (i as isize * t.extent() + t.origin() - first) as usize + o;
            expect[at..at + l].copy_from_slice(&m[at..at + l]);
        }
    }
    assert_eq!(back, expect);
}

#[test]
fn contiguous_of_int_is_contiguous() {
    let t = contiguous(3, &pre(sys::MPI_INT)).unwrap();
    check(&t, 12, 0, 12, 0, 12, &[(0, 12)]);
    assert!(t.is_contiguous());
    assert_eq!(t.runs(), &[(4, 3)]);
    assert_eq!(t.align(), 4);
    let c = t.contents().unwrap();
    assert_eq!(
        (c.combiner, c.ints.as_slice()),
        (sys::MPI_COMBINER_CONTIGUOUS, &[3][..])
    );
    assert_eq!(c.types[0].handle, sys::MPI_INT);
}

#[test]
fn empty_types() {
    let t = contiguous(0, &pre(sys::MPI_INT)).unwrap();
    check(&t, 0, 0, 0, 0, 0, &[]);
    assert!(t.is_contiguous());
    assert!(t.is_empty_map());
    assert_eq!(t.span(5), 0);
    assert_eq!(t.elements(0), Some(0));
    assert_eq!(t.elements(4), None);
    let s = create_struct::<c_int>(&[], &[], &[]).unwrap();
    check(&s, 0, 0, 0, 0, 0, &[]);
    // an empty member contributes nothing to the bounds
    let s = create_struct(&[1, 1], &[16, 0], &[pre(sys::MPI_INT), d(t)]).unwrap();
    check(&s, 4, 16, 4, 16, 4, &[(0, 4)]);
}

#[test]
fn vector_of_doubles() {
    let t = vector(3, 2, 4, &pre(sys::MPI_DOUBLE)).unwrap();
    check(&t, 48, 0, 80, 0, 80, &[(0, 16), (32, 16), (64, 16)]);
    assert!(!t.is_contiguous());
    assert_eq!(t.runs(), &[(8, 6)]);
    let m = mem(80);
    let mut packed = range(0, 16);
    packed.extend(range(32, 48));
    packed.extend(range(64, 80));
    round_trip(&t, &m, 1, &packed);
    // two of them: the second starts at the extent, 80
    assert_eq!(t.span(2), 160);
    let m = mem(160);
    let mut packed2 = packed.clone();
    for r in [(80, 96), (112, 128), (144, 160)] {
        packed2.extend(range(r.0, r.1));
    }
    round_trip(&t, &m, 2, &packed2);
    assert_eq!(
        t.contents().unwrap().ints,
        vec![3, 2, 4],
        "vector contents: count, blocklength, stride"
    );
}

#[test]
fn vector_with_stride_equal_to_blocklength_is_contiguous() {
    let t = vector(4, 2, 2, &pre(sys::MPI_INT)).unwrap();
    check(&t, 32, 0, 32, 0, 32, &[(0, 32)]);
    assert!(t.is_contiguous());
}

#[test]
fn vector_with_negative_stride() {
    // copies at 0, -8, -16 in that order
    let t = vector(3, 1, -2, &pre(sys::MPI_INT)).unwrap();
    check(&t, 12, -16, 20, -16, 20, &[(16, 4), (8, 4), (0, 4)]);
    // memory from the true lb (buffer pointer at byte 16)
    let m = mem(20);
    let mut packed = range(16, 20);
    packed.extend(range(8, 12));
    packed.extend(range(0, 4));
    round_trip(&t, &m, 1, &packed);
}

#[test]
fn hvector_stride_in_bytes() {
    let t = hvector(2, 3, 20, &pre(sys::MPI_SHORT)).unwrap();
    check(&t, 12, 0, 26, 0, 26, &[(0, 6), (20, 6)]);
    assert_eq!(t.runs(), &[(2, 6)]);
    let c = t.contents().unwrap();
    assert_eq!(
        (c.combiner, c.ints.clone(), c.aints.clone()),
        (sys::MPI_COMBINER_HVECTOR, vec![2, 3], vec![20])
    );
}

#[test]
fn indexed_keeps_type_map_order() {
    let t = indexed(&[2, 1, 3], &[4, 0, 7], &pre(sys::MPI_INT)).unwrap();
    check(&t, 24, 0, 40, 0, 40, &[(16, 8), (0, 4), (28, 12)]);
    let m = mem(40);
    let mut packed = range(16, 24);
    packed.extend(range(0, 4));
    packed.extend(range(28, 40));
    round_trip(&t, &m, 1, &packed);
    let c = t.contents().unwrap();
    assert_eq!(c.ints, vec![3, 2, 1, 3, 4, 0, 7]);
}

#[test]
fn indexed_zero_length_blocks_do_not_count() {
    let t = indexed(&[0, 2], &[100, 1], &pre(sys::MPI_INT)).unwrap();
    check(&t, 8, 4, 8, 4, 8, &[(0, 8)]);
    // data at the buffer pointer + 4: not contiguous
    assert!(!t.is_contiguous());
}

#[test]
fn hindexed_negative_displacement() {
    let t = hindexed(&[1, 1], &[-8, 8], &pre(sys::MPI_DOUBLE)).unwrap();
    check(&t, 16, -8, 24, -8, 24, &[(0, 8), (16, 8)]);
    let m = mem(24);
    let mut packed = range(0, 8);
    packed.extend(range(16, 24));
    round_trip(&t, &m, 1, &packed);
    assert_eq!(t.contents().unwrap().aints, vec![-8, 8]);
}

#[test]
fn indexed_and_hindexed_blocks() {
    let t = indexed_block(2, &[1, 5], &pre(sys::MPI_FLOAT)).unwrap();
    check(&t, 16, 4, 24, 4, 24, &[(0, 8), (16, 8)]);
    assert_eq!(t.contents().unwrap().ints, vec![2, 2, 1, 5]);
    let t = hindexed_block(1, &[0, 12, 4], &pre(sys::MPI_INT)).unwrap();
    check(&t, 12, 0, 16, 0, 16, &[(0, 4), (12, 4), (4, 4)]);
    assert!(!t.is_contiguous(), "out of order: not the memory order");
    let mut packed = range(0, 4);
    packed.extend(range(12, 16));
    packed.extend(range(4, 8));
    round_trip(&t, &mem(16), 1, &packed);
    // in order, the blocks merge into one
    let t = hindexed_block(1, &[0, 4, 8], &pre(sys::MPI_INT)).unwrap();
    check(&t, 12, 0, 12, 0, 12, &[(0, 12)]);
    assert!(t.is_contiguous());
}

/// struct { char c; double d; int i; } as a C compiler lays it out.
fn cdi() -> Datatype {
    create_struct(
        &[1, 1, 1],
        &[0, 8, 16],
        &[pre(sys::MPI_CHAR), pre(sys::MPI_DOUBLE), pre(sys::MPI_INT)],
    )
    .unwrap()
}

#[test]
fn struct_extent_is_padded_to_the_largest_alignment() {
    let t = cdi();
    // data ends at 20; padded to a multiple of 8 = sizeof the C struct
    check(&t, 13, 0, 24, 0, 20, &[(0, 1), (8, 12)]);
    assert_eq!(t.align(), 8);
    assert_eq!(t.runs(), &[(1, 1), (8, 1), (4, 1)]);
    let m = mem(48);
    let mut packed = range(0, 1);
    packed.extend(range(8, 20));
    packed.extend(range(24, 25));
    packed.extend(range(32, 44));
    assert_eq!(t.span(2), 44);
    round_trip(&t, &m[..44], 2, &packed);
    // struct { int; char; }: 5 bytes of data, extent 8
    let t = create_struct(&[1, 1], &[0, 4], &[pre(sys::MPI_INT), pre(sys::MPI_CHAR)]).unwrap();
    check(&t, 5, 0, 8, 0, 5, &[(0, 5)]);
    // struct { short; char; }: alignment 2
    let t = create_struct(&[1, 1], &[0, 2], &[pre(sys::MPI_SHORT), pre(sys::MPI_CHAR)]).unwrap();
    check(&t, 3, 0, 4, 0, 3, &[(0, 3)]);
    // a pair type member aligns as its C struct (long double: 16)
    let t = create_struct(
        &[1, 1],
        &[0, 32],
        &[pre(sys::MPI_LONG_DOUBLE_INT), pre(sys::MPI_CHAR)],
    )
    .unwrap();
    check(&t, 21, 0, 48, 0, 33, &[(0, 20), (32, 1)]);
}

#[test]
fn struct_with_negative_displacement() {
    let t = create_struct(
        &[1, 1],
        &[-8, 0],
        &[pre(sys::MPI_DOUBLE), pre(sys::MPI_INT)],
    )
    .unwrap();
    // lb -8, data ub 4: extent 12 rounded up to 16
    check(&t, 12, -8, 16, -8, 12, &[(0, 12)]);
    assert!(!t.is_contiguous());
}

#[test]
fn explicit_bounds_of_a_member_decide_and_stop_the_padding() {
    let r = resized(&pre(sys::MPI_INT), 0, 16).unwrap();
    check(&r, 4, 0, 16, 0, 4, &[(0, 4)]);
    assert!(r.sticky_lb() && r.sticky_ub());
    // the char at 20 lies beyond the explicit ub of 16
    let t = create_struct(&[1, 1], &[0, 20], &[d(r.clone()), pre(sys::MPI_CHAR)]).unwrap();
    check(&t, 5, 0, 16, 0, 21, &[(0, 4), (20, 1)]);
    // an odd explicit extent is not padded
    let r5 = resized(&pre(sys::MPI_INT), 0, 5).unwrap();
    let t = create_struct(&[2], &[0], &[d(r5)]).unwrap();
    check(&t, 8, 0, 10, 0, 9, &[(0, 4), (5, 4)]);
}

#[test]
fn resized_types_for_strided_access() {
    // resized int with lb -4 and extent 12: elements every 12 bytes
    let t = resized(&pre(sys::MPI_INT), -4, 12).unwrap();
    check(&t, 4, -4, 12, 0, 4, &[(0, 4)]);
    assert!(!t.is_contiguous());
    assert_eq!(t.span(3), 28);
    let mut packed = range(0, 4);
    packed.extend(range(12, 16));
    packed.extend(range(24, 28));
    round_trip(&t, &mem(28), 3, &packed);
    assert_eq!(t.contents().unwrap().aints, vec![-4, 12]);

    // a column of a 3 x 4 row-major matrix of doubles, resized to one
    // double: count k = k consecutive columns, interleaved in memory
    let col = vector(3, 1, 4, &pre(sys::MPI_DOUBLE)).unwrap();
    check(&col, 24, 0, 72, 0, 72, &[(0, 8), (32, 8), (64, 8)]);
    let c = resized(&d(col), 0, 8).unwrap();
    check(&c, 24, 0, 8, 0, 72, &[(0, 8), (32, 8), (64, 8)]);
    assert_eq!(c.span(2), 80);
    let m = mem(96);
    let mut packed = vec![];
    for col in 0..2 {
        for row in 0..3 {
            let at = (row * 4 + col) * 8;
            packed.extend(range(at, at + 8));
        }
    }
    assert_eq!(c.pack(&m, 2), packed);
    let mut back = vec![0u8; 96];
    c.unpack(&packed, &mut back, 2);
    for row in 0..3 {
        for col in 0..4 {
            let at = (row * 4 + col) * 8;
            let want = if col < 2 {
                range(at, at + 8)
            } else {
                vec![0; 8]
            };
            assert_eq!(back[at..at + 8], want[..], "row {row} col {col}");
        }
    }
    // resized to its size: contiguous again
    let two = contiguous(2, &pre(sys::MPI_INT)).unwrap();
    let t = resized(&d(two), 0, 8).unwrap();
    assert!(t.is_contiguous());
}

#[test]
fn subarray_c_and_fortran_order() {
    let int = pre(sys::MPI_INT);
    let t = subarray(&[4, 5], &[2, 3], &[1, 2], sys::MPI_ORDER_C, &int).unwrap();
    // rows 1 and 2, columns 2..5: (1*5+2)*4 = 28 and (2*5+2)*4 = 48
    check(&t, 24, 0, 80, 28, 32, &[(0, 12), (20, 12)]);
    assert!(t.sticky_lb() && t.sticky_ub());
    let mut packed = range(28, 40);
    packed.extend(range(48, 60));
    // memory from the true lb, 28 .. 60
    let m = range(28, 60);
    assert_eq!(t.pack(&m, 1), packed);
    assert_eq!(
        t.contents().unwrap().ints,
        vec![2, 4, 5, 2, 3, 1, 2, sys::MPI_ORDER_C]
    );

    let t = subarray(&[4, 5], &[2, 3], &[1, 2], sys::MPI_ORDER_FORTRAN, &int).unwrap();
    // column-major: (i + 4 j) * 4 for j in 2..5, i in 1..3: 36, 52, 68
    check(&t, 24, 0, 80, 36, 40, &[(0, 8), (16, 8), (32, 8)]);
}

#[test]
fn subarray_of_a_3d_array() {
    let t = subarray(
        &[3, 4, 5],
        &[2, 2, 2],
        &[1, 1, 1],
        sys::MPI_ORDER_C,
        &pre(sys::MPI_DOUBLE),
    )
    .unwrap();
    // ((i*4 + j)*5 + 1)*8 for (i, j) in (1,1), (1,2), (2,1), (2,2)
    check(
        &t,
        64,
        0,
        480,
        208,
        216,
        &[(0, 16), (40, 16), (160, 16), (200, 16)],
    );
    assert_eq!(t.runs(), &[(8, 8)]);
    // a whole array is contiguous
    let t = subarray(
        &[3, 4, 5],
        &[3, 4, 5],
        &[0, 0, 0],
        sys::MPI_ORDER_FORTRAN,
        &pre(sys::MPI_DOUBLE),
    )
    .unwrap();
    check(&t, 480, 0, 480, 0, 480, &[(0, 480)]);
    assert!(t.is_contiguous());
    // an empty subarray keeps the array's bounds
    let t = subarray(
        &[3, 4],
        &[0, 2],
        &[3, 1],
        sys::MPI_ORDER_C,
        &pre(sys::MPI_DOUBLE),
    )
    .unwrap();
    check(&t, 0, 0, 96, 0, 0, &[]);
}

#[test]
fn nested_types() {
    // vector of 2 structs with a stride of 2 structs (48 bytes)
    let t = vector(2, 1, 2, &d(cdi())).unwrap();
    check(&t, 26, 0, 72, 0, 68, &[(0, 1), (8, 12), (48, 1), (56, 12)]);
    assert_eq!(t.elements_per_item(), 6);
    assert_eq!(t.align(), 8);
    // contiguous of a vector with gaps merges where copies touch
    let v = vector(2, 1, 2, &pre(sys::MPI_INT)).unwrap();
    check(&v, 8, 0, 12, 0, 12, &[(0, 4), (8, 4)]);
    let t = contiguous(3, &d(v.clone())).unwrap();
    check(&t, 24, 0, 36, 0, 36, &[(0, 4), (8, 8), (20, 8), (32, 4)]);
    let mut packed = vec![];
    for a in [0, 8, 12, 20, 24, 32] {
        packed.extend(range(a, a + 4));
    }
    round_trip(&t, &mem(36), 1, &packed);
    // struct of nested types at a negative displacement
    let s = create_struct(&[1, 2], &[-36, 0], &[d(t), d(v)]).unwrap();
    // second member: 2 copies of v at 0 and 12 -> ub 24; lb -36
    check(
        &s,
        40,
        -36,
        60,
        -36,
        60,
        &[(0, 4), (8, 8), (20, 8), (32, 8), (44, 8), (56, 4)],
    );
}

#[test]
fn dup_is_the_same_map() {
    let v = vector(3, 2, 4, &pre(sys::MPI_DOUBLE)).unwrap();
    let t = dup(&d(v.clone()));
    check(&t, 48, 0, 80, 0, 80, v.blocks());
    let c = t.contents().unwrap();
    assert_eq!((c.combiner, c.types.len()), (sys::MPI_COMBINER_DUP, 1));
    // a dup of a predefined type counts partial elements like a derived one
    let i = dup(&pre(sys::MPI_INT));
    assert!(i.is_contiguous());
    assert_eq!(i.elements(6), Some(1));
    assert_eq!(
        TypeTable::new().get(sys::MPI_INT).unwrap().elements(6),
        None
    );
}

#[test]
fn get_elements_counts_basic_elements() {
    let t = TypeTable::new();
    let el = |h, b| t.get(h).unwrap().elements(b);
    // predefined: whole elements only
    assert_eq!(el(sys::MPI_INT, 40), Some(10));
    assert_eq!(el(sys::MPI_INT, 6), None);
    assert_eq!(el(sys::MPI_2INT, 8), Some(2));
    assert_eq!(el(sys::MPI_2INT, 4), None);
    assert_eq!(el(sys::MPI_C_DOUBLE_COMPLEX, 32), Some(2));
    // the C pair structs count their members, partial ones too (MPICH)
    assert_eq!(el(sys::MPI_DOUBLE_INT, 12), Some(2));
    assert_eq!(el(sys::MPI_DOUBLE_INT, 8), Some(1));
    assert_eq!(el(sys::MPI_DOUBLE_INT, 20), Some(3));
    assert_eq!(el(sys::MPI_DOUBLE_INT, 6), Some(0));
    assert_eq!(el(sys::MPI_FLOAT_INT, 12), Some(3));
    // the standard's example: contiguous(2, MPI_REAL), 2 or 3 reals received
    let two = contiguous(2, &pre(sys::MPI_REAL)).unwrap();
    assert_eq!(two.elements(8), Some(2));
    assert_eq!(two.elements(12), Some(3));
    // a partial basic element does not count
    assert_eq!(two.elements(6), Some(1));
    // struct { char; double; int; }: 13 bytes per element
    let s = cdi();
    assert_eq!(s.elements(13), Some(3));
    assert_eq!(s.elements(26), Some(6));
    assert_eq!(s.elements(14), Some(4));
    assert_eq!(s.elements(20), Some(4));
    assert_eq!(s.elements(22), Some(5));
}

#[test]
fn argument_errors() {
    let int = pre(sys::MPI_INT);
    let class = |r: MpiResult<Datatype>| r.unwrap_err().class;
    assert_eq!(class(contiguous(-1, &int)), sys::MPI_ERR_COUNT);
    assert_eq!(class(vector(-2, 1, 1, &int)), sys::MPI_ERR_COUNT);
    assert_eq!(class(vector(2, -1, 1, &int)), sys::MPI_ERR_ARG);
    assert_eq!(class(hvector(2, -1, 8, &int)), sys::MPI_ERR_ARG);
    let e = indexed(&[1, -3], &[0, 4], &int).unwrap_err();
    assert_eq!(
        (e.class, e.msg.as_str()),
        (
            sys::MPI_ERR_ARG,
            "invalid array_of_blocklengths[1] -3 (negative)"
        )
    );
    assert_eq!(class(indexed_block(-1, &[0], &int)), sys::MPI_ERR_ARG);
    assert_eq!(
        class(create_struct(&[-1], &[0], std::slice::from_ref(&int))),
        sys::MPI_ERR_ARG
    );
    let e = subarray(&[4, 5], &[2, 3], &[3, 2], sys::MPI_ORDER_C, &int).unwrap_err();
    assert_eq!(
        (e.class, e.msg.as_str()),
        (
            sys::MPI_ERR_ARG,
            "invalid array_of_starts[0] = 3 (must be in 0..=2 for a subsize of 2 in a size of 4)"
        )
    );
    assert_eq!(
        class(subarray(&[4], &[5], &[0], sys::MPI_ORDER_C, &int)),
        sys::MPI_ERR_ARG
    );
    assert_eq!(
        class(subarray(&[0], &[0], &[0], sys::MPI_ORDER_C, &int)),
        sys::MPI_ERR_ARG
    );
    assert_eq!(
        class(subarray(&[4], &[2], &[0], 99, &int)),
        sys::MPI_ERR_ARG
    );
    assert_eq!(ndims_arg(0).unwrap_err().class, sys::MPI_ERR_ARG);
    assert_eq!(
        count_arg(-1, "count").unwrap_err().msg,
        "invalid count -1 (negative)"
    );
    // too many blocks
    let v = vector(2, 1, 2, &pre(sys::MPI_BYTE)).unwrap();
    let e = contiguous(1 << 30, &d(v)).unwrap_err();
    assert_eq!(e.class, sys::MPI_ERR_NO_MEM);
    // a dense type repeats without blocks: a billion bytes is one block
    let t = contiguous(1 << 30, &pre(sys::MPI_BYTE)).unwrap();
    assert_eq!(t.blocks(), &[(0, 1 << 30)]);
}

#[test]
fn resized_to_a_negative_extent() {
    // MPICH's lbub test: { (LB,6),4*(BYTE,0),(UB,-3) }
    let bytes = contiguous(4, &pre(sys::MPI_BYTE)).unwrap();
    let evil = resized(&d(bytes), 6, -9).unwrap();
    check(&evil, 4, 6, -9, 0, 4, &[(0, 4)]);
    assert!(!evil.is_contiguous() && !evil.is_dense());
    // three copies at 0, -9, -18: explicit bounds -12 and -3
    let c = contiguous(3, &d(evil.clone())).unwrap();
    check(&c, 12, -12, 9, -18, 22, &[(18, 4), (9, 4), (0, 4)]);
    // the elements of a buffer go downwards: element 1 of `evil` is 9
    // bytes below element 0
    assert_eq!(
        (evil.mem_start(1), evil.mem_start(3), evil.span(3)),
        (0, -18, 22)
    );
    let m = mem(22);
    round_trip(&evil, &m, 3, &[18, 19, 20, 21, 9, 10, 11, 12, 0, 1, 2, 3]);
    // packing the contiguous type gives the same bytes (same type map)
    round_trip(&c, &m, 1, &[18, 19, 20, 21, 9, 10, 11, 12, 0, 1, 2, 3]);
    // a vector of it: blocks of 2 at strides of 3 elements (-27 bytes):
    // copies at 0, -9, -27, -36, LB markers at 6, -3, -21, -30 and UB
    // markers at -3, -12, -30, -39
    let v = vector(2, 2, 3, &d(evil.clone())).unwrap();
    check(
        &v,
        16,
        -30,
        27,
        -36,
        40,
        &[(36, 4), (27, 4), (9, 4), (0, 4)],
    );
    // a struct member of 2 copies at 100 and 91: lb = min(106, 97), ub =
    // max(97, 88): a zero extent, not padded (explicit bounds)
    let s = create_struct(&[2], &[100], &[d(evil)]).unwrap();
    check(&s, 8, 97, 0, 91, 13, &[(9, 4), (0, 4)]);
}

#[test]
fn negative_extent_of_a_type_without_data() {
    // a zero extent is fine too; an empty type resized downwards has no data
    let int = pre(sys::MPI_INT);
    let z = resized(&int, 0, 0).unwrap();
    check(&z, 4, 0, 0, 0, 4, &[(0, 4)]);
    assert_eq!((z.span(3), z.mem_start(3)), (4, 0));
    let e = contiguous(0, &int).unwrap();
    let n = resized(&d(e), 10, -10).unwrap();
    check(&n, 0, 10, -10, 0, 0, &[]);
    assert_eq!((n.span(5), n.packed_size(5)), (0, 0));
    // an int resized to extent -4 (lb 4, ub 0): element i at -4 i
    let r = resized(&int, 4, -4).unwrap();
    check(&r, 4, 4, -4, 0, 4, &[(0, 4)]);
    let m = mem(12);
    round_trip(&r, &m, 3, &[8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3]);
    // hvector of it with a positive stride: copies at 0, -4, -8 and 100,
    // 96, 92; lb = -8 + 4, ub = 100 + 0
    let h = hvector(2, 3, 100, &d(r)).unwrap();
    check(
        &h,
        24,
        -4,
        104,
        -8,
        112,
        &[(8, 4), (4, 4), (0, 4), (108, 4), (104, 4), (100, 4)],
    );
}

#[test]
fn large_count_constructors_keep_their_arguments_as_large_counts() {
    use crate::mpi::type_contents::envelope_c;
    let int = pre(sys::MPI_INT);
    // the same type map as the int call, the arguments as large counts
    let big: i64 = 3_000_000_000;
    let c = contiguous::<i64>(big, &int).unwrap();
    assert_eq!((c.size(), c.extent()), (12_000_000_000, 12_000_000_000));
    assert_eq!(c.blocks(), &[(0, 12_000_000_000)]);
    let k = c.contents().unwrap();
    assert_eq!(
        (k.ints.len(), k.aints.len(), k.counts.clone()),
        (0, 0, vec![big])
    );
    assert_eq!(
        envelope_c(c.contents()),
        (0, 0, 1, 1, sys::MPI_COMBINER_CONTIGUOUS)
    );
    // ints then addresses, in MPICH's order
    let h = hindexed::<i64>(&[2, 1], &[40, -8], &int).unwrap();
    assert_eq!(h.contents().unwrap().counts, vec![2, 2, 1, 40, -8]);
    assert_eq!(
        h,
        hindexed::<c_int>(&[2, 1], &[40, -8], &int)
            .unwrap()
            .duplicate(h.contents().unwrap().clone())
    );
    let hv = hvector::<i64>(2, 3, 100, &int).unwrap();
    assert_eq!(hv.contents().unwrap().counts, vec![2, 3, 100]);
    let r = resized_as::<i64>(&int, -4, 16).unwrap();
    assert_eq!(r.contents().unwrap().counts, vec![-4, 16]);
    assert_eq!((r.lb(), r.extent()), (-4, 16));
    // subarray: ndims and order stay ints
    let s = subarray::<i64>(&[4, 6], &[2, 3], &[1, 2], sys::MPI_ORDER_C, &int).unwrap();
    let k = s.contents().unwrap();
    assert_eq!(k.ints, vec![2, sys::MPI_ORDER_C]);
    assert_eq!(k.counts, vec![4, 6, 2, 3, 1, 2]);
    let si = subarray::<c_int>(&[4, 6], &[2, 3], &[1, 2], sys::MPI_ORDER_C, &int).unwrap();
    assert_eq!((s.blocks(), s.extent()), (si.blocks(), si.extent()));
    // the int call keeps ints
    let v = vector::<c_int>(2, 1, 3, &int).unwrap();
    let k = v.contents().unwrap();
    assert_eq!((k.ints.clone(), k.counts.len()), (vec![2, 1, 3], 0));
    // a negative large count is MPI_ERR_COUNT, a negative block length
    // MPI_ERR_ARG
    assert_eq!(
        contiguous::<i64>(-1, &int).unwrap_err().class,
        sys::MPI_ERR_COUNT
    );
    assert_eq!(
        indexed_block::<i64>(-(1 << 40), &[0], &int)
            .unwrap_err()
            .msg,
        "invalid blocklength -1099511627776 (negative)"
    );
}

#[test]
fn counts_beyond_the_address_space_are_count_errors() {
    let int = pre(sys::MPI_INT);
    assert!(int.ty.check_count(1 << 40).is_ok());
    let e = int.ty.check_count(usize::MAX / 2).unwrap_err();
    assert_eq!(e.class, sys::MPI_ERR_COUNT);
    assert_eq!(
        e.msg,
        "9223372036854775807 elements of MPI_INT are more bytes than the address space holds"
    );
    // a type whose extent alone overflows with the count
    let r = resized(&int, 0, 1 << 40).unwrap();
    assert_eq!(
        r.check_count(1 << 24).unwrap_err().class,
        sys::MPI_ERR_COUNT
    );
    assert!(r.check_count(1 << 20).is_ok());
}
