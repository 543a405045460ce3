//! Reduction operators at the ABI: MPI_Op_create / MPI_Op_free /
//! MPI_Op_commutative / MPI_Reduce_local, the process's table of user
//! operators, and the `apply` function a reduction hands to the collective
//! algorithms: a Rust kernel, the C kernels of shims.c for long double, or
//! the user's function (called on the datatype's memory layout).
use crate::abi::buffers::out;
use crate::abi::state::call;
use crate::abi::userbuf::RawBuf;
use crate::coll;
use crate::mpi::coll_args::{self as args};
use crate::mpi::coll_calls::{self, Data};
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::op::{How, OpTable, Reduction};
use crate::ranks::local::RankLocal;
use crate::sys::{self, MPI_Datatype, MPI_Op, MPI_User_function};
use parking_lot::Mutex;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

extern "C" {
    /// src/abi/shims.c: `inout = in (op) inout` on `count` packed elements
    /// of a long double layout (`kind`: see `mpi::op::LdKind`); 0 on success.
    fn vaced_reduce_long_double(
        op: c_int,
        kind: c_int,
        input: *const c_void,
        inout: *mut c_void,
        count: usize,
    ) -> c_int;
}

/// User operators of this rank. Taken after the world's lock, briefly.
static OPS: RankLocal<Mutex<Option<OpTable>>> = RankLocal::new(|| parking_lot::const_mutex(None));

fn with_ops<R>(f: impl FnOnce(&mut OpTable) -> R) -> R {
    let mut g = OPS.get().lock();
    f(g.get_or_insert_with(OpTable::new))
}

/// What reducing `dt` (layout `ty`) with `op` applies (MPI_ERR_OP /
/// MPI_ERR_TYPE for combinations that are not defined).
pub(crate) fn resolve(op: MPI_Op, dt: MPI_Datatype, ty: &Datatype) -> MpiResult<Reduction> {
    with_ops(|t| t.resolve(op, dt, ty))
}

/// `apply(in, inout)` of a `coll::Op`, owned.
pub(crate) type Apply = Box<dyn FnMut(&[u8], &mut [u8])>;

/// Aligned scratch memory for a user function's arguments.
struct Scratch {
    mem: Vec<u8>,
    off: usize,
    len: usize,
}

impl Scratch {
    const ALIGN: usize = 16;
    fn new(len: usize) -> Scratch {
        let mem = vec![0u8; len + Self::ALIGN];
        let off = mem.as_ptr().align_offset(Self::ALIGN);
        Scratch { mem, off, len }
    }
    fn bytes(&mut self) -> &mut [u8] {
        &mut self.mem[self.off..self.off + self.len]
    }
}

/// The alignment a C function may assume for elements of `size` bytes
/// (the largest power of two dividing it, at most 16).
fn natural_alignment(size: usize) -> usize {
    (1usize << size.trailing_zeros().min(4)).max(1)
}

/// Calls a user function `f(in, inout, &len, &dt)` on `count` elements of
/// `ty` held packed in `a` (in) and `b` (inout). Contiguous data that is
/// aligned for its elements is passed as it is; anything else is unpacked
/// into aligned scratch memory first and `inout` packed back after.
fn call_user(
    f: unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int, *mut MPI_Datatype),
    dt: MPI_Datatype,
    ty: &Datatype,
    a: &[u8],
    b: &mut [u8],
) {
    call_user_in_pieces(f, dt, ty, a, b, c_int::MAX as usize)
}

/// [`call_user`], calling `f` on at most `most` (<= INT_MAX) elements at a
/// time: a function with an int count gets the elements of a large-count
/// reduction (more than INT_MAX) in pieces, in order.
fn call_user_in_pieces(
    f: unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int, *mut MPI_Datatype),
    dt: MPI_Datatype,
    ty: &Datatype,
    a: &[u8],
    b: &mut [u8],
    most: usize,
) {
    let size = ty.size();
    if size == 0 || a.is_empty() {
        return;
    }
    let count = a.len() / size;
    if count > most {
        for (pa, pb) in a.chunks(most * size).zip(b.chunks_mut(most * size)) {
            call_user_in_pieces(f, dt, ty, pa, pb, most);
        }
        return;
    }
    let mut len = c_int::try_from(count).expect("a piece of at most INT_MAX elements");
    let mut dt = dt;
    let align = natural_alignment(ty.extent().unsigned_abs());
    let aligned = |p: *const u8| (p as usize).is_multiple_of(align);
    if ty.is_contiguous() && aligned(a.as_ptr()) && aligned(b.as_ptr()) {
        // SAFETY: a and b hold `count` whole elements in the datatype's
        // memory layout, suitably aligned; len and dt outlive the call. By
        // MPI's contract the function reads invec and updates inoutvec.
        unsafe {
            f(
                a.as_ptr() as *mut c_void,
                b.as_mut_ptr().cast(),
                &mut len,
                &mut dt,
            )
        };
        return;
    }
    // The elements' memory starts `start` bytes from the buffer pointer
    // the function gets (the true lower bound, lower for a negative
    // extent); `lead` bytes of scratch before it keep that pointer aligned
    // to 16 bytes.
    let start = ty.mem_start(count);
    let lead = start.rem_euclid(Scratch::ALIGN as isize) as usize;
    let span = ty.span(count);
    let (mut sa, mut sb) = (Scratch::new(lead + span), Scratch::new(lead + span));
    ty.unpack(a, &mut sa.bytes()[lead..], count);
    ty.unpack(b, &mut sb.bytes()[lead..], count);
    let ptr = |s: &mut Scratch| {
        s.bytes()
            .as_mut_ptr()
            .wrapping_offset(lead as isize - start)
            .cast::<c_void>()
    };
    let (pa, pb) = (ptr(&mut sa), ptr(&mut sb));
    // SAFETY: both scratch areas hold `count` elements of the datatype in
    // its memory layout as seen from pa / pb (every byte the elements touch
    // lies within the scratch), aligned to 16 bytes; len and dt outlive the
    // call.
    unsafe { f(pa, pb, &mut len, &mut dt) };
    b.copy_from_slice(&ty.pack(&sb.bytes()[lead..], count));
}

/// The C kernels of a predefined operator on a long double layout, on
/// whole packed elements (registered for one-sided accumulates, see
/// `crate::mpi::op::set_long_double_kernel`).
pub(crate) fn long_double_apply(
    p: crate::mpi::op::Predef,
    kind: crate::mpi::op::LdKind,
    a: &[u8],
    b: &mut [u8],
) {
    let size = kind.packed_size();
    if a.is_empty() {
        return;
    }
    assert_eq!(a.len(), b.len());
    assert_eq!(a.len() % size, 0, "long double data of whole elements");
    let (op, k) = (p.handle(), kind as c_int);
    // SAFETY: a and b hold a.len() / size whole packed elements of the
    // layout `kind`; the C code reads a and writes b within those bytes
    // through memcpy (no alignment needed).
    let rc = unsafe {
        vaced_reduce_long_double(
            op,
            k,
            a.as_ptr().cast(),
            b.as_mut_ptr().cast(),
            a.len() / size,
        )
    };
    assert_eq!(rc, 0, "long double kernel refused op {op:#x} kind {k}");
}

/// The `apply` function of a resolved reduction: `inout = in (op) inout`
/// on whole packed elements of `ty`.
pub(crate) fn applier(r: &Reduction, dt: MPI_Datatype, ty: &Arc<Datatype>) -> Apply {
    match r.how {
        How::Native(f) => Box::new(f),
        How::LongDouble(p, kind) => {
            // elements of the basic type (a derived type holds several)
            let (op, size, kind) = (p.handle(), kind.packed_size(), kind as c_int);
            Box::new(move |a: &[u8], b: &mut [u8]| {
                if a.is_empty() {
                    return;
                }
                assert_eq!(a.len(), b.len());
                assert_eq!(a.len() % size, 0, "long double data of whole elements");
                // SAFETY: a and b hold a.len() / size whole packed elements of
                // the layout `kind` (size bytes each); the C code reads a,
                // writes b, within those bytes, through memcpy (no alignment
                // needed).
                let rc = unsafe {
                    vaced_reduce_long_double(
                        op,
                        kind,
                        a.as_ptr().cast(),
                        b.as_mut_ptr().cast(),
                        a.len() / size,
                    )
                };
                assert_eq!(rc, 0, "long double kernel refused op {op:#x} kind {kind}");
            })
        }
        How::User(f) => {
            let ty = ty.clone();
            Box::new(move |a: &[u8], b: &mut [u8]| call_user(f, dt, &ty, a, b))
        }
    }
}

/// Runs `f` with the `coll::Op` of a resolved reduction.
pub(crate) fn with_op<R>(
    r: &Reduction,
    dt: MPI_Datatype,
    ty: &Arc<Datatype>,
    f: impl FnOnce(&mut coll::Op) -> R,
) -> R {
    let mut apply = applier(r, dt, ty);
    let mut op = coll::Op {
        commutative: r.commutative,
        builtin: r.builtin,
        apply: &mut *apply,
    };
    f(&mut op)
}

mpi_fn! {
    fn MPI_Op_create / PMPI_Op_create(user_fn: MPI_User_function, commute: c_int, op: *mut MPI_Op) -> c_int {
        call("MPI_Op_create", sys::MPI_COMM_WORLD, |_| {
            let Some(f) = user_fn else {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as user_fn");
            };
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(op, "op") }?;
            *o = with_ops(|t| t.create(f, commute != 0));
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Op_free / PMPI_Op_free(op: *mut MPI_Op) -> c_int {
        call("MPI_Op_free", sys::MPI_COMM_WORLD, |_| {
            // SAFETY: null or a valid handle pointer (caller).
            let h = unsafe { out(op, "op") }?;
            with_ops(|t| t.free(*h))?;
            *h = sys::MPI_OP_NULL;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Op_commutative / PMPI_Op_commutative(op: MPI_Op, commute: *mut c_int) -> c_int {
        call("MPI_Op_commutative", sys::MPI_COMM_WORLD, |_| {
            let c = with_ops(|t| t.commutative(op))?;
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(commute, "commute") }?;
            *o = c as c_int;
            Ok(())
        })
    }
}

mpi_fn! {
    /// `inoutbuf = inbuf (op) inoutbuf`, charged as application computation.
    fn MPI_Reduce_local / PMPI_Reduce_local(inbuf: *const c_void, inoutbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op) -> c_int {
        call("MPI_Reduce_local", sys::MPI_COMM_WORLD, |w| {
            let count = args::count(count, "count")?;
            let ty = args::datatype(w, datatype, "datatype")?;
            let r = resolve(op, datatype, &ty)?;
            args::buffer(inbuf.is_null(), count, &ty, "inbuf")?;
            args::buffer(inoutbuf.is_null(), count, &ty, "inoutbuf")?;
            // SAFETY: both buffers hold `count` elements of the datatype for
            // this blocking call (MPI's contract); inbuf is only read.
            let (a, mut b) = unsafe { (RawBuf::new(inbuf), RawBuf::new(inoutbuf)) };
            let d = Data { count, ty: &ty };
            with_op(&r, datatype, &ty, |op| coll_calls::reduce_local(&mut w.ep, &a, &mut b, d, op));
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::datatype::TypeTable;

    /// inout = (in, inout) as 2x2 "affine" pairs: (a, b) . (c, d) = (ac, ad + b).
    unsafe extern "C" fn affine(
        a: *mut c_void,
        b: *mut c_void,
        len: *mut c_int,
        _: *mut MPI_Datatype,
    ) {
        // SAFETY: called by call_user with len pairs of ints at a and b.
        let (x, y, n) = unsafe {
            (
                std::slice::from_raw_parts(a as *const i32, 2 * *len as usize),
                std::slice::from_raw_parts_mut(b as *mut i32, 2 * *len as usize),
                *len as usize,
            )
        };
        for i in 0..n {
            let (p, q, r, s) = (x[2 * i], x[2 * i + 1], y[2 * i], y[2 * i + 1]);
            y[2 * i] = p * r;
            y[2 * i + 1] = p * s + q;
        }
    }

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    #[test]
    fn user_function_sees_whole_elements_in_order_even_unaligned() {
        let t = TypeTable::new();
        let ty = t.get(sys::MPI_2INT).unwrap();
        // offset 4: not aligned for the pair's natural 8-byte alignment
        let mut a = vec![0u8; 4];
        a.extend(ints(&[2, 1, 3, 0]));
        let mut b = vec![0u8; 4];
        b.extend(ints(&[5, 7, 1, 1]));
        call_user(affine, sys::MPI_2INT, &ty, &a[4..], &mut b[4..]);
        // (2,1).(5,7) = (10, 15); (3,0).(1,1) = (3, 3)
        assert_eq!(&b[4..], &ints(&[10, 15, 3, 3])[..]);
        let mut b2 = ints(&[5, 7, 1, 1]);
        call_user(affine, sys::MPI_2INT, &ty, &ints(&[2, 1, 3, 0]), &mut b2);
        assert_eq!(b2, ints(&[10, 15, 3, 3]));
    }

    /// inout = inout * 10 + len: the length of each call shows in the result.
    unsafe extern "C" fn tag_len(
        a: *mut c_void,
        b: *mut c_void,
        len: *mut c_int,
        _: *mut MPI_Datatype,
    ) {
        // SAFETY: called by call_user with len ints at a and b.
        let (x, y, n) = unsafe {
            (
                std::slice::from_raw_parts(a as *const i32, *len as usize),
                std::slice::from_raw_parts_mut(b as *mut i32, *len as usize),
                *len,
            )
        };
        for (p, q) in x.iter().zip(y) {
            *q = *q * 10 + p + n * 100;
        }
    }

    #[test]
    fn more_elements_than_a_piece_go_in_pieces_in_order() {
        let t = TypeTable::new();
        let ty = t.get(sys::MPI_INT).unwrap();
        let a = ints(&[1, 2, 3, 4, 5, 6, 7]);
        let mut b = ints(&[0; 7]);
        call_user_in_pieces(tag_len, sys::MPI_INT, &ty, &a, &mut b, 3);
        // pieces of 3, 3 and 1 elements, each element once
        assert_eq!(b, ints(&[301, 302, 303, 304, 305, 306, 107]));
        let mut b = ints(&[0; 7]);
        call_user(tag_len, sys::MPI_INT, &ty, &a, &mut b);
        assert_eq!(b, ints(&[701, 702, 703, 704, 705, 706, 707]));
    }

    #[test]
    fn long_double_kernels() {
        let t = TypeTable::new();
        let tbl = OpTable::new();
        // x87 extended-precision values written out byte by byte: 1 and 2.
        let ty = t.get(sys::MPI_LONG_DOUBLE).unwrap();
        let r = tbl
            .resolve(sys::MPI_PROD, sys::MPI_LONG_DOUBLE, &ty)
            .unwrap();
        let mut f = applier(&r, sys::MPI_LONG_DOUBLE, &ty);
        // 1.0: mantissa 0x8000000000000000, exponent 0x3fff
        let one: Vec<u8> = {
            let mut v = vec![0u8; 16];
            v[7] = 0x80;
            v[8] = 0xff;
            v[9] = 0x3f;
            v
        };
        let two: Vec<u8> = {
            let mut v = one.clone();
            v[8] = 0x00;
            v[9] = 0x40;
            v
        };
        let mut io = two.clone();
        f(&one, &mut io);
        assert_eq!(io[..10], two[..10]);
        let r = tbl
            .resolve(sys::MPI_SUM, sys::MPI_LONG_DOUBLE, &ty)
            .unwrap();
        let mut f = applier(&r, sys::MPI_LONG_DOUBLE, &ty);
        let mut io = one.clone();
        f(&one, &mut io);
        assert_eq!(io[..10], two[..10], "1 + 1 = 2");
        // MAXLOC on the packed long double / int pair: tie -> smaller index
        let ty = t.get(sys::MPI_LONG_DOUBLE_INT).unwrap();
        assert_eq!(ty.size(), 20);
        let r = tbl
            .resolve(sys::MPI_MAXLOC, sys::MPI_LONG_DOUBLE_INT, &ty)
            .unwrap();
        let mut f = applier(&r, sys::MPI_LONG_DOUBLE_INT, &ty);
        let pair = |v: &[u8], i: i32| {
            let mut p = v.to_vec();
            p.extend(i.to_ne_bytes());
            p
        };
        let mut io = pair(&one, 5);
        f(&pair(&one, 3), &mut io);
        assert_eq!(io, pair(&one, 3));
        f(&pair(&two, 9), &mut io);
        assert_eq!(io, pair(&two, 9));
        f(&pair(&one, 0), &mut io);
        assert_eq!(io, pair(&two, 9));
    }

    #[test]
    fn alignment_rule() {
        assert_eq!(natural_alignment(8), 8);
        assert_eq!(natural_alignment(12), 4);
        assert_eq!(natural_alignment(32), 16);
        assert_eq!(natural_alignment(6), 2);
        assert_eq!(natural_alignment(1), 1);
    }
}
