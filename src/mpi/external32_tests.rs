//! external32 images checked byte for byte.
use super::*;
use crate::mpi::datatype::TypeTable;
use crate::mpi::typemap;

fn ty(t: &TypeTable, h: MPI_Datatype) -> std::sync::Arc<Datatype> {
    t.get_any(h).unwrap()
}

#[test]
fn ints_and_doubles_are_big_endian() {
    let t = TypeTable::new();
    let int = ty(&t, sys::MPI_INT);
    let native: Vec<u8> = [1i32, -2].iter().flat_map(|v| v.to_le_bytes()).collect();
    let ext = to_external(&int, &native, 2).unwrap();
    assert_eq!(ext, vec![0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe]);
    assert_eq!(from_external(&int, &ext, 2).unwrap(), native);
    let dbl = ty(&t, sys::MPI_DOUBLE);
    let ext = to_external(&dbl, &1.5f64.to_le_bytes(), 1).unwrap();
    assert_eq!(ext, vec![0x3f, 0xf8, 0, 0, 0, 0, 0, 0]);
    assert_eq!(external_size(&dbl, 3).unwrap(), 24);
}

#[test]
fn long_is_four_bytes_and_must_fit() {
    let t = TypeTable::new();
    let long = ty(&t, sys::MPI_LONG);
    let native = (-3i64).to_le_bytes();
    let ext = to_external(&long, &native, 1).unwrap();
    assert_eq!(ext, vec![0xff, 0xff, 0xff, 0xfd]);
    assert_eq!(from_external(&long, &ext, 1).unwrap(), native.to_vec());
    assert_eq!(external_size(&long, 2).unwrap(), 8);
    let e = to_external(&long, &(1i64 << 40).to_le_bytes(), 1).unwrap_err();
    assert_eq!(e.class, sys::MPI_ERR_CONVERSION);
    let ul = ty(&t, sys::MPI_UNSIGNED_LONG);
    let ext = to_external(&ul, &0xfffe_fffdu64.to_le_bytes(), 1).unwrap();
    assert_eq!(ext, vec![0xff, 0xfe, 0xff, 0xfd]);
    assert_eq!(
        from_external(&ul, &ext, 1).unwrap(),
        0xfffe_fffdu64.to_le_bytes().to_vec()
    );
    // wchar_t: 2 bytes
    let w = ty(&t, sys::MPI_WCHAR);
    assert_eq!(
        to_external(&w, &0x41u32.to_le_bytes(), 1).unwrap(),
        vec![0, 0x41]
    );
}

#[test]
fn long_double_is_ieee_quad() {
    let t = TypeTable::new();
    let ld = ty(&t, sys::MPI_LONG_DOUBLE);
    // 1.5 as x87: mantissa 0xC000...0, sign/exponent 0x3fff
    let mut x = [0u8; 16];
    x[0..8].copy_from_slice(&0xC000_0000_0000_0000u64.to_le_bytes());
    x[8..10].copy_from_slice(&0x3fffu16.to_le_bytes());
    let ext = to_external(&ld, &x, 1).unwrap();
    let mut want = vec![0u8; 16];
    want[0] = 0x3f;
    want[1] = 0xff;
    want[2] = 0x80;
    assert_eq!(ext, want);
    assert_eq!(from_external(&ld, &ext, 1).unwrap(), x.to_vec());
    // -2.0: exponent 0x4000 with the sign
    x[0..8].copy_from_slice(&0x8000_0000_0000_0000u64.to_le_bytes());
    x[8..10].copy_from_slice(&0xc000u16.to_le_bytes());
    let ext = to_external(&ld, &x, 1).unwrap();
    assert_eq!(&ext[..3], &[0xc0, 0x00, 0x00]);
    assert_eq!(from_external(&ld, &ext, 1).unwrap(), x.to_vec());
}

#[test]
fn struct_members_in_order_and_complex_halves() {
    let mut t = TypeTable::new();
    // struct { char c; double d; int i[2]; short s; }
    let refs = [
        t.get_ref(sys::MPI_CHAR).unwrap(),
        t.get_ref(sys::MPI_DOUBLE).unwrap(),
        t.get_ref(sys::MPI_INT).unwrap(),
        t.get_ref(sys::MPI_SHORT).unwrap(),
    ];
    let s = typemap::create_struct(&[1, 1, 2, 1], &[0, 8, 16, 24], &refs).unwrap();
    let h = t.insert(s, true).unwrap();
    // two of them, in a contiguous type
    let c = typemap::contiguous(2, &t.get_ref(h).unwrap()).unwrap();
    assert_eq!(
        element_types(&c).unwrap(),
        vec![
            (sys::MPI_CHAR, 1),
            (sys::MPI_DOUBLE, 1),
            (sys::MPI_INT, 2),
            (sys::MPI_SHORT, 1),
            (sys::MPI_CHAR, 1),
            (sys::MPI_DOUBLE, 1),
            (sys::MPI_INT, 2),
            (sys::MPI_SHORT, 1),
        ]
    );
    let st = t.get(h).unwrap();
    let mut native = vec![7u8];
    native.extend(2.0f64.to_le_bytes());
    native.extend(3i32.to_le_bytes());
    native.extend(4i32.to_le_bytes());
    native.extend(5i16.to_le_bytes());
    let ext = to_external(&st, &native, 1).unwrap();
    assert_eq!(
        ext,
        vec![7, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 4, 0, 5]
    );
    assert_eq!(from_external(&st, &ext, 1).unwrap(), native);
    // complex: each half on its own
    let z = ty(&t, sys::MPI_C_FLOAT_COMPLEX);
    let native: Vec<u8> = [1.0f32, -1.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(
        to_external(&z, &native, 1).unwrap(),
        vec![0x3f, 0x80, 0, 0, 0xbf, 0x80, 0, 0]
    );
    // a pair type: double then int
    let di = ty(&t, sys::MPI_DOUBLE_INT);
    let mut native = 1.0f64.to_le_bytes().to_vec();
    native.extend(9i32.to_le_bytes());
    assert_eq!(
        to_external(&di, &native, 1).unwrap(),
        vec![0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9]
    );
}

#[test]
fn only_external32() {
    check_datarep("external32").unwrap();
    for bad in ["native", "internal", "External32", ""] {
        assert_eq!(
            check_datarep(bad).unwrap_err().class,
            sys::MPI_ERR_UNSUPPORTED_DATAREP
        );
    }
}
