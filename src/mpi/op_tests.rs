use super::*;
use crate::mpi::datatype::TypeTable;

fn bytes<T: Elem>(v: &[T]) -> Vec<u8> {
    let mut out = vec![0u8; v.len() * T::N];
    for (x, c) in v.iter().zip(out.chunks_exact_mut(T::N)) {
        x.put(c);
    }
    out
}

fn values<T: Elem>(b: &[u8]) -> Vec<T> {
    b.chunks_exact(T::N).map(T::get).collect()
}

/// Applies `op` on `dt` through the table's resolution: inout = in op inout.
fn apply(op: MPI_Op, dt: MPI_Datatype, input: &[u8], inout: &mut [u8]) {
    let types = TypeTable::new();
    let ty = types.get(dt).unwrap();
    let r = OpTable::new().resolve(op, dt, &ty).unwrap();
    assert!(r.commutative && r.builtin);
    match r.how {
        How::Native(f) => f(input, inout),
        other => panic!("not a Rust kernel: {other:?}"),
    }
}

fn err(op: MPI_Op, dt: MPI_Datatype) -> (c_int, String) {
    let types = TypeTable::new();
    let ty = types.get(dt).unwrap();
    let e = OpTable::new().resolve(op, dt, &ty).unwrap_err();
    (e.class, e.msg)
}

#[test]
fn arithmetic_on_integers_and_floats() {
    let mut io = bytes(&[5i32, -3, 7, i32::MAX]);
    apply(
        sys::MPI_SUM,
        sys::MPI_INT,
        &bytes(&[1i32, 2, -10, 1]),
        &mut io,
    );
    assert_eq!(values::<i32>(&io), vec![6, -1, -3, i32::MIN]);

    let mut io = bytes(&[2.5f64, -1.0, 3.0]);
    apply(
        sys::MPI_PROD,
        sys::MPI_DOUBLE_PRECISION,
        &bytes(&[2.0f64, 4.0, -0.5]),
        &mut io,
    );
    assert_eq!(values::<f64>(&io), vec![5.0, -4.0, -1.5]);

    let mut io = bytes(&[1u16, 60000, 7]);
    apply(
        sys::MPI_MAX,
        sys::MPI_UNSIGNED_SHORT,
        &bytes(&[3u16, 5, 7]),
        &mut io,
    );
    assert_eq!(values::<u16>(&io), vec![3, 60000, 7]);

    let mut io = bytes(&[1i8, -60, 7]);
    apply(
        sys::MPI_MIN,
        sys::MPI_INTEGER1,
        &bytes(&[3i8, 5, -7]),
        &mut io,
    );
    assert_eq!(values::<i8>(&io), vec![1, -60, -7]);

    let mut io = bytes(&[1.5f32, -2.0]);
    apply(
        sys::MPI_MIN,
        sys::MPI_REAL,
        &bytes(&[-1.5f32, 2.0]),
        &mut io,
    );
    assert_eq!(values::<f32>(&io), vec![-1.5, -2.0]);

    let mut io = bytes(&[u64::MAX, 3]);
    apply(sys::MPI_SUM, sys::MPI_UINT64_T, &bytes(&[2u64, 4]), &mut io);
    assert_eq!(values::<u64>(&io), vec![1, 7]);

    let mut io = bytes(&[1i64 << 40]);
    apply(sys::MPI_SUM, sys::MPI_AINT, &bytes(&[5i64]), &mut io);
    assert_eq!(values::<i64>(&io), vec![(1 << 40) + 5]);

    // logical operators on the address-sized integers (as MPICH)
    for t in [sys::MPI_AINT, sys::MPI_OFFSET, sys::MPI_COUNT] {
        let mut io = bytes(&[0i64, 7, 0]);
        apply(sys::MPI_LOR, t, &bytes(&[0i64, 0, 1 << 40]), &mut io);
        assert_eq!(values::<i64>(&io), vec![0, 1, 1]);
    }
}

#[test]
fn logical_and_bitwise() {
    let a = bytes(&[0i32, 0, 5, -1]);
    let b = bytes(&[0i32, 3, 0, 9]);
    let run = |op| {
        let mut io = b.clone();
        apply(op, sys::MPI_INT, &a, &mut io);
        values::<i32>(&io)
    };
    assert_eq!(run(sys::MPI_LAND), vec![0, 0, 0, 1]);
    assert_eq!(run(sys::MPI_LOR), vec![0, 1, 1, 1]);
    assert_eq!(run(sys::MPI_LXOR), vec![0, 1, 1, 0]);
    assert_eq!(run(sys::MPI_BAND), vec![0, 0, 0, 9]);
    assert_eq!(run(sys::MPI_BOR), vec![0, 3, 5, -1]);
    assert_eq!(run(sys::MPI_BXOR), vec![0, 3, 5, !9]);

    let mut io = vec![0u8, 1, 1, 0];
    apply(sys::MPI_LXOR, sys::MPI_C_BOOL, &[0, 0, 1, 1], &mut io);
    assert_eq!(io, vec![0, 1, 0, 1]);
    let mut io = bytes(&[0i32, 1, 7]);
    apply(
        sys::MPI_LAND,
        sys::MPI_LOGICAL,
        &bytes(&[1i32, 1, 2]),
        &mut io,
    );
    assert_eq!(values::<i32>(&io), vec![0, 1, 1]);
    let mut io = vec![0b1100u8, 0xff];
    apply(sys::MPI_BXOR, sys::MPI_BYTE, &[0b1010, 0x0f], &mut io);
    assert_eq!(io, vec![0b0110, 0xf0]);
}

#[test]
fn complex_sum_and_product() {
    // (1 + 2i)(3 - i) = 3 - i + 6i + 2 = 5 + 5i
    let mut io = bytes(&[3.0f64, -1.0]);
    apply(
        sys::MPI_PROD,
        sys::MPI_C_DOUBLE_COMPLEX,
        &bytes(&[1.0f64, 2.0]),
        &mut io,
    );
    assert_eq!(values::<f64>(&io), vec![5.0, 5.0]);
    let mut io = bytes(&[3.0f32, -1.0, 0.5, 0.5]);
    apply(
        sys::MPI_SUM,
        sys::MPI_COMPLEX,
        &bytes(&[1.0f32, 2.0, 1.0, -1.0]),
        &mut io,
    );
    assert_eq!(values::<f32>(&io), vec![4.0, 1.0, 1.5, -0.5]);
    // (0 + 1i)(0 + 1i) = -1
    let mut io = bytes(&[0.0f32, 1.0]);
    apply(
        sys::MPI_PROD,
        sys::MPI_C_FLOAT_COMPLEX,
        &bytes(&[0.0f32, 1.0]),
        &mut io,
    );
    assert_eq!(values::<f32>(&io), vec![-1.0, 0.0]);
}

/// Packed (value, index) pairs.
fn pair<V: Elem, I: Elem>(v: V, i: I) -> Vec<u8> {
    let mut out = bytes(&[v]);
    out.extend(bytes(&[i]));
    out
}

#[test]
fn maxloc_minloc_take_the_smaller_index_on_ties() {
    type Loc = (f64, i32);
    let cases: [(f64, i32, f64, i32, Loc, Loc); 4] = [
        // (in value, in index, inout value, inout index, maxloc, minloc)
        (3.0, 7, 2.0, 1, (3.0, 7), (2.0, 1)),
        (3.0, 7, 3.0, 1, (3.0, 1), (3.0, 1)),
        (3.0, 1, 3.0, 7, (3.0, 1), (3.0, 1)),
        (-1.0, 4, 5.0, 2, (5.0, 2), (-1.0, 4)),
    ];
    for (iv, ii, ov, oi, mx, mn) in cases {
        let input = pair(iv, ii);
        assert_eq!(input.len(), 12, "MPI_DOUBLE_INT packs to 12 bytes");
        let mut io = pair(ov, oi);
        apply(sys::MPI_MAXLOC, sys::MPI_DOUBLE_INT, &input, &mut io);
        assert_eq!(io, pair(mx.0, mx.1));
        let mut io = pair(ov, oi);
        apply(sys::MPI_MINLOC, sys::MPI_DOUBLE_INT, &input, &mut io);
        assert_eq!(io, pair(mn.0, mn.1));
    }
    // MPI_SHORT_INT packs to 6 bytes, two elements
    let mut input = pair(5i16, 9i32);
    input.extend(pair(-2i16, 3i32));
    let mut io = pair(5i16, 4i32);
    io.extend(pair(-2i16, 8i32));
    apply(sys::MPI_MINLOC, sys::MPI_SHORT_INT, &input, &mut io);
    let mut want = pair(5i16, 4i32);
    want.extend(pair(-2i16, 3i32));
    assert_eq!(io, want);
    // Fortran pairs: the index is of the value's type
    let mut io = pair(1.0f32, 2.0f32);
    apply(
        sys::MPI_MAXLOC,
        sys::MPI_2REAL,
        &pair(1.0f32, 1.0f32),
        &mut io,
    );
    assert_eq!(io, pair(1.0f32, 1.0f32));
    let mut io = pair(10i32, 2i32);
    apply(
        sys::MPI_MAXLOC,
        sys::MPI_2INTEGER,
        &pair(11i32, 5i32),
        &mut io,
    );
    assert_eq!(io, pair(11i32, 5i32));
    let mut io = pair(10i64, 2i32);
    apply(
        sys::MPI_MINLOC,
        sys::MPI_LONG_INT,
        &pair(10i64, 0i32),
        &mut io,
    );
    assert_eq!(io, pair(10i64, 0i32));
}

#[test]
fn long_double_types_go_to_c() {
    let types = TypeTable::new();
    let t = OpTable::new();
    for (op, dt, kind) in [
        (sys::MPI_SUM, sys::MPI_LONG_DOUBLE, LdKind::Real),
        (sys::MPI_MAX, sys::MPI_LONG_DOUBLE, LdKind::Real),
        (
            sys::MPI_PROD,
            sys::MPI_C_LONG_DOUBLE_COMPLEX,
            LdKind::Complex,
        ),
        (sys::MPI_MAXLOC, sys::MPI_LONG_DOUBLE_INT, LdKind::PairInt),
    ] {
        let r = t.resolve(op, dt, &types.get(dt).unwrap()).unwrap();
        match r.how {
            How::LongDouble(p, k) => {
                assert_eq!(p.handle(), op);
                assert_eq!(k, kind);
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn undefined_combinations_are_op_errors() {
    for (op, dt, msg) in [
        (
            sys::MPI_MAXLOC,
            sys::MPI_INT,
            "MPI_MAXLOC is not defined on datatype MPI_INT",
        ),
        (
            sys::MPI_SUM,
            sys::MPI_2INT,
            "MPI_SUM is not defined on datatype MPI_2INT",
        ),
        (
            sys::MPI_BAND,
            sys::MPI_DOUBLE,
            "MPI_BAND is not defined on datatype MPI_DOUBLE",
        ),
        (
            sys::MPI_LAND,
            sys::MPI_BYTE,
            "MPI_LAND is not defined on datatype MPI_BYTE",
        ),
        (
            sys::MPI_MAX,
            sys::MPI_C_DOUBLE_COMPLEX,
            "MPI_MAX is not defined on datatype MPI_C_DOUBLE_COMPLEX",
        ),
        (
            sys::MPI_MAX,
            sys::MPI_C_LONG_DOUBLE_COMPLEX,
            "MPI_MAX is not defined on datatype MPI_C_LONG_DOUBLE_COMPLEX",
        ),
        (
            sys::MPI_SUM,
            sys::MPI_CHAR,
            "MPI_SUM is not defined on datatype MPI_CHAR",
        ),
        (
            sys::MPI_MIN,
            sys::MPI_C_BOOL,
            "MPI_MIN is not defined on datatype MPI_C_BOOL",
        ),
        (
            sys::MPI_REPLACE,
            sys::MPI_INT,
            "MPI_REPLACE is only valid in one-sided accumulate operations",
        ),
        (
            sys::MPI_OP_NULL,
            sys::MPI_INT,
            "MPI_OP_NULL is not a valid operator",
        ),
        (
            0x12345,
            sys::MPI_INT,
            "invalid operator handle 0x12345 (never created, or freed)",
        ),
    ] {
        assert_eq!(err(op, dt), (sys::MPI_ERR_OP, msg.to_string()));
    }
}

#[test]
fn every_defined_combination_has_a_kernel() {
    let types = TypeTable::new();
    let t = OpTable::new();
    let mut defined = 0;
    for &(op, p, _) in PREDEFS.iter() {
        if matches!(p, Predef::Replace | Predef::NoOp) {
            continue;
        }
        for &(dt, basic, grp) in BASICS {
            let r = t.resolve(op, dt, &types.get(dt).unwrap());
            assert_eq!(
                r.is_ok(),
                groups(p) & grp != 0,
                "{} on {dt:#x}: {r:?}",
                p.name()
            );
            if r.is_ok() {
                defined += 1;
                assert!(kernel(p, basic).is_some());
            }
        }
    }
    // 4 x 41 scalar types... counted by group:
    // MAX/MIN: 18 C + 5 F + 7 float + 3 multi = 33 each;
    // SUM/PROD: 33 + 10 complex = 43 each; logical: 18 + 5 + 3 logical
    // + 3 multi = 29 each; bitwise: 18 + 5 + 1 + 3 = 27 each;
    // MINLOC/MAXLOC: 9 pairs each.
    assert_eq!(defined, 2 * 33 + 2 * 43 + 3 * 29 + 3 * 27 + 2 * 9);
}

#[test]
fn user_operators_table() {
    extern "C" fn f(_: *mut c_void, _: *mut c_void, _: *mut c_int, _: *mut MPI_Datatype) {}
    let mut t = OpTable::new();
    let a = t.create(f, false);
    let b = t.create(f, true);
    assert_ne!(a, b);
    assert!(!t.commutative(a).unwrap());
    assert!(t.commutative(b).unwrap());
    assert!(t.commutative(sys::MPI_SUM).unwrap());
    let types = TypeTable::new();
    let ty = types.get(sys::MPI_SHORT_INT).unwrap();
    let r = t.resolve(a, sys::MPI_SHORT_INT, &ty).unwrap();
    assert!(!r.commutative && !r.builtin);
    assert!(matches!(r.how, How::User(_)));
    t.free(a).unwrap();
    assert_eq!(t.get(a).unwrap_err().class, sys::MPI_ERR_OP);
    assert_eq!(t.free(a).unwrap_err().class, sys::MPI_ERR_OP);
    let e = t.free(sys::MPI_MAX).unwrap_err();
    assert_eq!(
        (e.class, e.msg.as_str()),
        (
            sys::MPI_ERR_OP,
            "the predefined operator MPI_MAX cannot be freed"
        )
    );
}

fn pre(h: MPI_Datatype) -> crate::mpi::type_contents::TypeRef {
    TypeTable::new().get_ref(h).unwrap()
}

fn derived(t: Datatype) -> crate::mpi::type_contents::TypeRef {
    crate::mpi::type_contents::TypeRef {
        handle: 0x4c00_7777,
        predefined: false,
        ty: std::sync::Arc::new(t),
    }
}

/// Resolves `op` on the derived type `ty` (handle unknown to basic_of).
fn resolve_derived(op: MPI_Op, ty: &Datatype) -> MpiResult<Reduction> {
    OpTable::new().resolve(op, 0x4c00_7777, ty)
}

#[test]
fn derived_types_record_their_single_basic_type() {
    use crate::mpi::typemap as tm;
    let dbl = pre(sys::MPI_DOUBLE);
    let v = tm::vector(3, 2, 4, &dbl).unwrap();
    assert_eq!(v.basic(), Some(sys::MPI_DOUBLE));
    // built from a derived type of doubles: still doubles
    let c = tm::contiguous(2, &derived(v.clone())).unwrap();
    assert_eq!(c.basic(), Some(sys::MPI_DOUBLE));
    let s = tm::create_struct(&[1, 2], &[0, 64], &[derived(v.clone()), dbl.clone()]).unwrap();
    assert_eq!(s.basic(), Some(sys::MPI_DOUBLE));
    let r = tm::resized(&derived(s), -8, 200).unwrap();
    assert_eq!(r.basic(), Some(sys::MPI_DOUBLE));
    assert_eq!(tm::dup(&derived(r)).basic(), Some(sys::MPI_DOUBLE));
    // a pair type is its own basic type
    let p = tm::indexed(&[1, 1], &[0, 2], &pre(sys::MPI_DOUBLE_INT)).unwrap();
    assert_eq!(p.basic(), Some(sys::MPI_DOUBLE_INT));
    // mixed members: none; MPI_INT and MPI_INT32_T are different types
    let m = tm::create_struct(&[1, 1], &[0, 8], &[dbl.clone(), pre(sys::MPI_INT)]).unwrap();
    assert_eq!(m.basic(), None);
    let m = tm::create_struct(
        &[1, 1],
        &[0, 4],
        &[pre(sys::MPI_INT), pre(sys::MPI_INT32_T)],
    )
    .unwrap();
    assert_eq!(m.basic(), None);
    // zero-length blocks of another type do not count
    let z = tm::create_struct(&[2, 0], &[0, 16], &[dbl.clone(), pre(sys::MPI_INT)]).unwrap();
    assert_eq!(z.basic(), Some(sys::MPI_DOUBLE));
    // no elements at all: no basic type
    assert_eq!(tm::contiguous(0, &dbl).unwrap().basic(), None);
    // a heterogeneous member makes the whole heterogeneous
    let h = tm::contiguous(3, &derived(m)).unwrap();
    assert_eq!(h.basic(), None);
    // predefined types are their own
    let t = TypeTable::new();
    assert_eq!(t.get(sys::MPI_FLOAT).unwrap().basic(), Some(sys::MPI_FLOAT));
    assert_eq!(
        t.get(sys::MPI_SHORT_INT).unwrap().basic(),
        Some(sys::MPI_SHORT_INT)
    );
}

#[test]
fn predefined_operators_apply_to_homogeneous_derived_types() {
    use crate::mpi::typemap as tm;
    // a vector of doubles: 2 elements of 2 doubles, packed as 4 doubles
    let v = tm::vector(2, 2, 3, &pre(sys::MPI_DOUBLE)).unwrap();
    let r = resolve_derived(sys::MPI_SUM, &v).unwrap();
    assert!(r.commutative && r.builtin);
    let How::Native(f) = r.how else {
        panic!("not a Rust kernel: {:?}", r.how)
    };
    let mut io = bytes(&[1.5f64, -2.0, 4.0, 0.25]);
    f(&bytes(&[2.0f64, 3.0, -1.0, 0.5]), &mut io);
    assert_eq!(values::<f64>(&io), vec![3.5, 1.0, 3.0, 0.75]);
    // MAXLOC on a contiguous type of MPI_2INT
    let c = tm::contiguous(2, &pre(sys::MPI_2INT)).unwrap();
    let How::Native(f) = resolve_derived(sys::MPI_MAXLOC, &c).unwrap().how else {
        panic!("not a Rust kernel")
    };
    let mut io = bytes(&[5i32, 1, 7, 3]);
    f(&bytes(&[5i32, 0, 9, 2]), &mut io);
    assert_eq!(values::<i32>(&io), vec![5, 0, 9, 2]);
    // long double elements keep their C kernel
    let l = tm::contiguous(3, &pre(sys::MPI_LONG_DOUBLE)).unwrap();
    assert!(matches!(
        resolve_derived(sys::MPI_SUM, &l).unwrap().how,
        How::LongDouble(Predef::Sum, LdKind::Real)
    ));
    assert_eq!(LdKind::Real.packed_size(), 16);
    assert_eq!(LdKind::Complex.packed_size(), 32);
    assert_eq!(LdKind::PairInt.packed_size(), 20);
}

#[test]
fn operators_on_derived_types_keep_the_type_and_op_errors() {
    use crate::mpi::typemap as tm;
    // heterogeneous: MPI_ERR_TYPE
    let mut m =
        tm::create_struct(&[1, 1], &[0, 8], &[pre(sys::MPI_DOUBLE), pre(sys::MPI_INT)]).unwrap();
    m.set_name("mixed".into());
    let e = resolve_derived(sys::MPI_SUM, &m).unwrap_err();
    assert_eq!(e.class, sys::MPI_ERR_TYPE);
    assert!(
        e.msg.starts_with("MPI_SUM on datatype mixed: "),
        "{}",
        e.msg
    );
    // a byte-built type has no basic type
    let ty = Datatype::new("bytes", &[(0, 4), (8, 4)], 16);
    assert_eq!(
        resolve_derived(sys::MPI_SUM, &ty).unwrap_err().class,
        sys::MPI_ERR_TYPE
    );
    // homogeneous, but the operator is not defined on the basic type
    let mut v = tm::vector(2, 1, 2, &pre(sys::MPI_FLOAT)).unwrap();
    v.set_name("floats".into());
    let e = resolve_derived(sys::MPI_BAND, &v).unwrap_err();
    assert_eq!(
        (e.class, e.msg.as_str()),
        (
            sys::MPI_ERR_OP,
            "MPI_BAND is not defined on datatype floats"
        )
    );
    let c = tm::contiguous(2, &pre(sys::MPI_CHAR)).unwrap();
    assert_eq!(
        resolve_derived(sys::MPI_SUM, &c).unwrap_err().class,
        sys::MPI_ERR_OP
    );
    let p = tm::contiguous(2, &pre(sys::MPI_FLOAT_INT)).unwrap();
    assert_eq!(
        resolve_derived(sys::MPI_SUM, &p).unwrap_err().class,
        sys::MPI_ERR_OP
    );
}
