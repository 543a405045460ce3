//! Reduction operators: the predefined operators on every predefined datatype
//! the MPI standard (3.1, section 5.9.2) defines them on, applied elementwise
//! to packed bytes; the table of user-defined operators (MPI_Op_create);
//! and the resolution of an (operator, datatype) pair into what a reduction
//! applies, with MPI_ERR_OP / MPI_ERR_TYPE for combinations that are not
//! defined.
//!
//! Every kernel computes MPI's `inout = in (op) inout` on whole elements.
//! The long double types (MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX,
//! MPI_LONG_DOUBLE_INT) have no Rust equivalent: they resolve to
//! [`How::LongDouble`], which `crate::abi` applies with C code, as it calls
//! user functions ([`How::User`]).
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::sys::{self, MPI_Datatype, MPI_Op};
use std::collections::HashMap;
use std::os::raw::{c_int, c_void};

/// The predefined operators of mpi.h.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Predef {
    Max,
    Min,
    Sum,
    Prod,
    Land,
    Band,
    Lor,
    Bor,
    Lxor,
    Bxor,
    Minloc,
    Maxloc,
    Replace,
    NoOp,
}

const PREDEFS: [(MPI_Op, Predef, &str); 14] = [
    (sys::MPI_MAX, Predef::Max, "MPI_MAX"),
    (sys::MPI_MIN, Predef::Min, "MPI_MIN"),
    (sys::MPI_SUM, Predef::Sum, "MPI_SUM"),
    (sys::MPI_PROD, Predef::Prod, "MPI_PROD"),
    (sys::MPI_LAND, Predef::Land, "MPI_LAND"),
    (sys::MPI_BAND, Predef::Band, "MPI_BAND"),
    (sys::MPI_LOR, Predef::Lor, "MPI_LOR"),
    (sys::MPI_BOR, Predef::Bor, "MPI_BOR"),
    (sys::MPI_LXOR, Predef::Lxor, "MPI_LXOR"),
    (sys::MPI_BXOR, Predef::Bxor, "MPI_BXOR"),
    (sys::MPI_MINLOC, Predef::Minloc, "MPI_MINLOC"),
    (sys::MPI_MAXLOC, Predef::Maxloc, "MPI_MAXLOC"),
    (sys::MPI_REPLACE, Predef::Replace, "MPI_REPLACE"),
    (sys::MPI_NO_OP, Predef::NoOp, "MPI_NO_OP"),
];

impl Predef {
    pub fn from_handle(op: MPI_Op) -> Option<Predef> {
        PREDEFS.iter().find(|p| p.0 == op).map(|p| p.1)
    }
    pub fn handle(self) -> MPI_Op {
        PREDEFS.iter().find(|p| p.1 == self).expect("listed").0
    }
    pub fn name(self) -> &'static str {
        PREDEFS.iter().find(|p| p.1 == self).expect("listed").2
    }
}

/// The element type a predefined operator works on (one packed element).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basic {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
    /// x86-64 long double (80 bits in 16 bytes): applied in C.
    LongDouble,
    /// Complex of two f32.
    C32,
    /// Complex of two f64.
    C64,
    /// Complex of two long doubles: applied in C.
    CLongDouble,
    /// C `_Bool` (one byte; 0 is false).
    Bool,
    /// Fortran LOGICAL (four bytes; 0 is false).
    Logical,
    /// A value-index pair for MINLOC / MAXLOC, packed (no padding).
    Pair(Pair),
}

/// The pair types of MINLOC / MAXLOC: (value type, index type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pair {
    /// MPI_FLOAT_INT
    FloatInt,
    /// MPI_DOUBLE_INT
    DoubleInt,
    /// MPI_LONG_INT
    LongInt,
    /// MPI_2INT and MPI_2INTEGER
    IntInt,
    /// MPI_SHORT_INT
    ShortInt,
    /// MPI_LONG_DOUBLE_INT: applied in C.
    LongDoubleInt,
    /// MPI_2REAL
    RealReal,
    /// MPI_2DOUBLE_PRECISION
    DoubleDouble,
}

/// The datatype groups of MPI 3.1 section 5.9.2, as bits.
mod group {
    pub const C_INTEGER: u8 = 1;
    pub const FORTRAN_INTEGER: u8 = 2;
    pub const FLOATING: u8 = 4;
    pub const COMPLEX: u8 = 8;
    pub const LOGICAL: u8 = 16;
    pub const BYTE: u8 = 32;
    /// MPI_AINT, MPI_OFFSET, MPI_COUNT.
    pub const MULTI_LANGUAGE: u8 = 64;
    pub const PAIR: u8 = 128;
}
use group::*;

/// Every predefined datatype with its element type and group. MPI_CHAR,
/// MPI_WCHAR, MPI_CHARACTER and MPI_PACKED are in no group: no predefined
/// operator applies to them.
const BASICS: &[(MPI_Datatype, Basic, u8)] = &[
    (sys::MPI_CHAR, Basic::I8, 0),
    (sys::MPI_WCHAR, Basic::U32, 0),
    (sys::MPI_CHARACTER, Basic::U8, 0),
    (sys::MPI_PACKED, Basic::U8, 0),
    (sys::MPI_SIGNED_CHAR, Basic::I8, C_INTEGER),
    (sys::MPI_UNSIGNED_CHAR, Basic::U8, C_INTEGER),
    (sys::MPI_SHORT, Basic::I16, C_INTEGER),
    (sys::MPI_UNSIGNED_SHORT, Basic::U16, C_INTEGER),
    (sys::MPI_INT, Basic::I32, C_INTEGER),
    (sys::MPI_UNSIGNED, Basic::U32, C_INTEGER),
    (sys::MPI_LONG, Basic::I64, C_INTEGER),
    (sys::MPI_UNSIGNED_LONG, Basic::U64, C_INTEGER),
    (sys::MPI_LONG_LONG_INT, Basic::I64, C_INTEGER),
    (sys::MPI_UNSIGNED_LONG_LONG, Basic::U64, C_INTEGER),
    (sys::MPI_INT8_T, Basic::I8, C_INTEGER),
    (sys::MPI_INT16_T, Basic::I16, C_INTEGER),
    (sys::MPI_INT32_T, Basic::I32, C_INTEGER),
    (sys::MPI_INT64_T, Basic::I64, C_INTEGER),
    (sys::MPI_UINT8_T, Basic::U8, C_INTEGER),
    (sys::MPI_UINT16_T, Basic::U16, C_INTEGER),
    (sys::MPI_UINT32_T, Basic::U32, C_INTEGER),
    (sys::MPI_UINT64_T, Basic::U64, C_INTEGER),
    (sys::MPI_INTEGER, Basic::I32, FORTRAN_INTEGER),
    (sys::MPI_INTEGER1, Basic::I8, FORTRAN_INTEGER),
    (sys::MPI_INTEGER2, Basic::I16, FORTRAN_INTEGER),
    (sys::MPI_INTEGER4, Basic::I32, FORTRAN_INTEGER),
    (sys::MPI_INTEGER8, Basic::I64, FORTRAN_INTEGER),
    (sys::MPI_FLOAT, Basic::F32, FLOATING),
    (sys::MPI_DOUBLE, Basic::F64, FLOATING),
    (sys::MPI_LONG_DOUBLE, Basic::LongDouble, FLOATING),
    (sys::MPI_REAL, Basic::F32, FLOATING),
    (sys::MPI_DOUBLE_PRECISION, Basic::F64, FLOATING),
    (sys::MPI_REAL4, Basic::F32, FLOATING),
    (sys::MPI_REAL8, Basic::F64, FLOATING),
    (sys::MPI_C_FLOAT_COMPLEX, Basic::C32, COMPLEX),
    (sys::MPI_C_DOUBLE_COMPLEX, Basic::C64, COMPLEX),
    (sys::MPI_C_LONG_DOUBLE_COMPLEX, Basic::CLongDouble, COMPLEX),
    (sys::MPI_COMPLEX, Basic::C32, COMPLEX),
    (sys::MPI_DOUBLE_COMPLEX, Basic::C64, COMPLEX),
    (sys::MPI_C_BOOL, Basic::Bool, LOGICAL),
    (sys::MPI_CXX_BOOL, Basic::Bool, LOGICAL),
    (sys::MPI_COMPLEX8, Basic::C32, COMPLEX),
    (sys::MPI_COMPLEX16, Basic::C64, COMPLEX),
    (sys::MPI_CXX_FLOAT_COMPLEX, Basic::C32, COMPLEX),
    (sys::MPI_CXX_DOUBLE_COMPLEX, Basic::C64, COMPLEX),
    (
        sys::MPI_CXX_LONG_DOUBLE_COMPLEX,
        Basic::CLongDouble,
        COMPLEX,
    ),
    // IEEE quad and 128-bit integers: no operator (Rust and C have none
    // on every host)
    (sys::MPI_REAL16, Basic::U8, 0),
    (sys::MPI_COMPLEX32, Basic::U8, 0),
    (sys::MPI_INTEGER16, Basic::U8, 0),
    (sys::MPI_LOGICAL, Basic::Logical, LOGICAL),
    (sys::MPI_BYTE, Basic::U8, BYTE),
    (sys::MPI_AINT, Basic::I64, MULTI_LANGUAGE),
    (sys::MPI_OFFSET, Basic::I64, MULTI_LANGUAGE),
    (sys::MPI_COUNT, Basic::I64, MULTI_LANGUAGE),
    (sys::MPI_FLOAT_INT, Basic::Pair(Pair::FloatInt), PAIR),
    (sys::MPI_DOUBLE_INT, Basic::Pair(Pair::DoubleInt), PAIR),
    (sys::MPI_LONG_INT, Basic::Pair(Pair::LongInt), PAIR),
    (sys::MPI_2INT, Basic::Pair(Pair::IntInt), PAIR),
    (sys::MPI_SHORT_INT, Basic::Pair(Pair::ShortInt), PAIR),
    (
        sys::MPI_LONG_DOUBLE_INT,
        Basic::Pair(Pair::LongDoubleInt),
        PAIR,
    ),
    (sys::MPI_2INTEGER, Basic::Pair(Pair::IntInt), PAIR),
    (sys::MPI_2REAL, Basic::Pair(Pair::RealReal), PAIR),
    (
        sys::MPI_2DOUBLE_PRECISION,
        Basic::Pair(Pair::DoubleDouble),
        PAIR,
    ),
];

/// The element type and group of a predefined datatype handle (None for a
/// derived datatype).
pub fn basic_of(dt: MPI_Datatype) -> Option<(Basic, u8)> {
    BASICS.iter().find(|b| b.0 == dt).map(|b| (b.1, b.2))
}

/// The groups an operator is defined on (MPI 3.1 section 5.9.2; the logical
/// operators also take Fortran integers and MPI_AINT / MPI_OFFSET /
/// MPI_COUNT, as MPICH does).
fn groups(op: Predef) -> u8 {
    use Predef::*;
    match op {
        Max | Min => C_INTEGER | FORTRAN_INTEGER | FLOATING | MULTI_LANGUAGE,
        Sum | Prod => C_INTEGER | FORTRAN_INTEGER | FLOATING | COMPLEX | MULTI_LANGUAGE,
        Land | Lor | Lxor => C_INTEGER | FORTRAN_INTEGER | LOGICAL | MULTI_LANGUAGE,
        Band | Bor | Bxor => C_INTEGER | FORTRAN_INTEGER | BYTE | MULTI_LANGUAGE,
        Minloc | Maxloc => PAIR,
        Replace | NoOp => u8::MAX,
    }
}

/// The long double layouts that the C kernels know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LdKind {
    /// MPI_LONG_DOUBLE (16 bytes).
    Real = 0,
    /// MPI_C_LONG_DOUBLE_COMPLEX (32 bytes).
    Complex = 1,
    /// MPI_LONG_DOUBLE_INT packed: 16 bytes of long double, then the int.
    PairInt = 2,
}

impl LdKind {
    /// Packed bytes of one element of this layout.
    pub fn packed_size(self) -> usize {
        match self {
            LdKind::Real => 16,
            LdKind::Complex => 32,
            LdKind::PairInt => 20,
        }
    }
}

/// The C kernels on long double layouts, as the ABI layer provides them
/// (`inout = in (op) inout` on whole packed elements), for the layers below
/// it that apply operators outside a reduction (one-sided accumulates).
pub type LdApply = fn(Predef, LdKind, &[u8], &mut [u8]);

static LD_APPLY: std::sync::OnceLock<LdApply> = std::sync::OnceLock::new();

/// Register the long double kernels (once; later calls change nothing).
pub fn set_long_double_kernel(f: LdApply) {
    let _ = LD_APPLY.set(f);
}

/// The registered long double kernels, if any.
pub fn long_double_kernel() -> Option<LdApply> {
    LD_APPLY.get().copied()
}

/// A predefined operator applied to a predefined element type.
#[derive(Clone, Copy, Debug)]
pub enum Kernel {
    /// `f(in, inout)` on packed bytes (whole elements).
    Native(fn(&[u8], &mut [u8])),
    /// Applied by C code (`crate::abi`): the operator and the layout.
    LongDouble(Predef, LdKind),
}

// ---- element access --------------------------------------------------------

/// A scalar read from and written to native-endian bytes (alignment-free).
trait Elem: Copy + PartialOrd {
    const N: usize;
    fn get(b: &[u8]) -> Self;
    fn put(self, b: &mut [u8]);
}

/// Arithmetic: wrapping for integers (as C unsigned arithmetic and MPICH's
/// two's-complement results), IEEE for floats.
trait Num: Elem {
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
}

/// Integers: bitwise and logical operators.
trait Int: Num {
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn truth(self) -> bool;
    fn of_bool(b: bool) -> Self;
}

macro_rules! elems {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const N: usize = std::mem::size_of::<$t>();
            fn get(b: &[u8]) -> Self {
                <$t>::from_ne_bytes(b.try_into().expect("whole element"))
            }
            fn put(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_ne_bytes())
            }
        }
    )*};
}
elems!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

macro_rules! ints {
    ($($t:ty),*) => {$(
        impl Num for $t {
            fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
        }
        impl Int for $t {
            fn and(self, o: Self) -> Self { self & o }
            fn or(self, o: Self) -> Self { self | o }
            fn xor(self, o: Self) -> Self { self ^ o }
            fn truth(self) -> bool { self != 0 }
            fn of_bool(b: bool) -> Self { b as $t }
        }
    )*};
}
ints!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl Num for $t {
            fn add(self, o: Self) -> Self { self + o }
            fn mul(self, o: Self) -> Self { self * o }
            fn sub(self, o: Self) -> Self { self - o }
        }
    )*};
}
floats!(f32, f64);

/// `inout[i] = f(in[i], inout[i])` over whole elements of `T`.
#[inline(always)]
fn zip<T: Elem>(input: &[u8], inout: &mut [u8], f: impl Fn(T, T) -> T) {
    for (x, y) in input.chunks_exact(T::N).zip(inout.chunks_exact_mut(T::N)) {
        f(T::get(x), T::get(y)).put(y);
    }
}

// ---- kernels (in, inout) ----------------------------------------------------

/// MPICH's `MPL_MAX(inout, in)`: `inout > in ? inout : in`.
fn max<T: Num>(a: &[u8], b: &mut [u8]) {
    zip::<T>(a, b, |x, y| if y > x { y } else { x })
}
fn min<T: Num>(a: &[u8], b: &mut [u8]) {
    zip::<T>(a, b, |x, y| if y < x { y } else { x })
}
fn sum<T: Num>(a: &[u8], b: &mut [u8]) {
    zip::<T>(a, b, |x, y| x.add(y))
}
fn prod<T: Num>(a: &[u8], b: &mut [u8]) {
    zip::<T>(a, b, |x, y| x.mul(y))
}
fn land<T: Int>(a: &[u8], b: &mut [u8]) {
    zip::<T>(a, b, |x, y| T::of_bool(x.truth() && y.truth()))
}
fn lor<T: Int>(a: &[u8], b: &mut [u8]) {
    zip::<T>(a, b, |x, y| T::of_bool(x.truth() || y.truth()))
}
fn lxor<T: Int>(a: &[u8], b: &mut [u8]) {
    zip::<T>(a, b, |x, y| T::of_bool(x.truth() != y.truth()))
}
fn band<T: Int>(a: &[u8], b: &mut [u8]) {
    zip::<T>(a, b, |x, y| x.and(y))
}
fn bor<T: Int>(a: &[u8], b: &mut [u8]) {
    zip::<T>(a, b, |x, y| x.or(y))
}
fn bxor<T: Int>(a: &[u8], b: &mut [u8]) {
    zip::<T>(a, b, |x, y| x.xor(y))
}

/// Complex sum: componentwise.
fn csum<T: Num>(a: &[u8], b: &mut [u8]) {
    sum::<T>(a, b)
}
/// Complex product `(p + qi)(r + si) = (pr - qs) + (ps + qr)i`.
fn cprod<T: Num>(a: &[u8], b: &mut [u8]) {
    let n = T::N;
    for (x, y) in a.chunks_exact(2 * n).zip(b.chunks_exact_mut(2 * n)) {
        let (p, q) = (T::get(&x[..n]), T::get(&x[n..]));
        let (r, s) = (T::get(&y[..n]), T::get(&y[n..]));
        p.mul(r).sub(q.mul(s)).put(&mut y[..n]);
        p.mul(s).add(q.mul(r)).put(&mut y[n..]);
    }
}

/// MINLOC / MAXLOC on packed (value, index) pairs: the larger (smaller)
/// value wins; on equal values the smaller index (MPI 3.1 section 5.9.4).
fn loc<V: Elem, I: Elem>(a: &[u8], b: &mut [u8], want_max: bool) {
    let n = V::N + I::N;
    for (x, y) in a.chunks_exact(n).zip(b.chunks_exact_mut(n)) {
        let (xv, xi) = (V::get(&x[..V::N]), I::get(&x[V::N..]));
        let (yv, yi) = (V::get(&y[..V::N]), I::get(&y[V::N..]));
        let take_in = if xv == yv {
            xi < yi
        } else if want_max {
            xv > yv
        } else {
            xv < yv
        };
        if take_in {
            y.copy_from_slice(x);
        }
    }
}
fn maxloc<V: Elem, I: Elem>(a: &[u8], b: &mut [u8]) {
    loc::<V, I>(a, b, true)
}
fn minloc<V: Elem, I: Elem>(a: &[u8], b: &mut [u8]) {
    loc::<V, I>(a, b, false)
}

fn replace(a: &[u8], b: &mut [u8]) {
    b.copy_from_slice(a)
}
fn no_op(_: &[u8], _: &mut [u8]) {}

/// One kernel per numeric element type.
macro_rules! numeric {
    ($b:expr, $f:ident) => {
        match $b {
            Basic::I8 => Kernel::Native($f::<i8>),
            Basic::I16 => Kernel::Native($f::<i16>),
            Basic::I32 => Kernel::Native($f::<i32>),
            Basic::I64 => Kernel::Native($f::<i64>),
            Basic::U8 => Kernel::Native($f::<u8>),
            Basic::U16 => Kernel::Native($f::<u16>),
            Basic::U32 => Kernel::Native($f::<u32>),
            Basic::U64 => Kernel::Native($f::<u64>),
            Basic::F32 => Kernel::Native($f::<f32>),
            Basic::F64 => Kernel::Native($f::<f64>),
            _ => return None,
        }
    };
}

/// One kernel per integer element type (C `_Bool` and Fortran LOGICAL are
/// one- and four-byte integers whose non-zero values are true).
macro_rules! integer {
    ($b:expr, $f:ident) => {
        match $b {
            Basic::I8 => Kernel::Native($f::<i8>),
            Basic::I16 => Kernel::Native($f::<i16>),
            Basic::I32 | Basic::Logical => Kernel::Native($f::<i32>),
            Basic::I64 => Kernel::Native($f::<i64>),
            Basic::U8 | Basic::Bool => Kernel::Native($f::<u8>),
            Basic::U16 => Kernel::Native($f::<u16>),
            Basic::U32 => Kernel::Native($f::<u32>),
            Basic::U64 => Kernel::Native($f::<u64>),
            _ => return None,
        }
    };
}

macro_rules! pairs {
    ($b:expr, $op:expr, $f:ident) => {
        match $b {
            Basic::Pair(Pair::FloatInt) => Kernel::Native($f::<f32, i32>),
            Basic::Pair(Pair::DoubleInt) => Kernel::Native($f::<f64, i32>),
            Basic::Pair(Pair::LongInt) => Kernel::Native($f::<i64, i32>),
            Basic::Pair(Pair::IntInt) => Kernel::Native($f::<i32, i32>),
            Basic::Pair(Pair::ShortInt) => Kernel::Native($f::<i16, i32>),
            Basic::Pair(Pair::RealReal) => Kernel::Native($f::<f32, f32>),
            Basic::Pair(Pair::DoubleDouble) => Kernel::Native($f::<f64, f64>),
            Basic::Pair(Pair::LongDoubleInt) => Kernel::LongDouble($op, LdKind::PairInt),
            _ => return None,
        }
    };
}

/// The kernel of `op` on elements of `b`, None where it has none. (Whether
/// the standard defines the pair is checked separately, by group.)
pub fn kernel(op: Predef, b: Basic) -> Option<Kernel> {
    use Predef::*;
    let ld = match b {
        Basic::LongDouble => Some(LdKind::Real),
        Basic::CLongDouble => Some(LdKind::Complex),
        _ => None,
    };
    if let (Some(kind), Max | Min | Sum | Prod) = (ld, op) {
        if kind == LdKind::Complex && matches!(op, Max | Min) {
            return None;
        }
        return Some(Kernel::LongDouble(op, kind));
    }
    Some(match op {
        Max => numeric!(b, max),
        Min => numeric!(b, min),
        Sum => match b {
            Basic::C32 => Kernel::Native(csum::<f32>),
            Basic::C64 => Kernel::Native(csum::<f64>),
            _ => numeric!(b, sum),
        },
        Prod => match b {
            Basic::C32 => Kernel::Native(cprod::<f32>),
            Basic::C64 => Kernel::Native(cprod::<f64>),
            _ => numeric!(b, prod),
        },
        Land => integer!(b, land),
        Lor => integer!(b, lor),
        Lxor => integer!(b, lxor),
        Band => integer!(b, band),
        Bor => integer!(b, bor),
        Bxor => integer!(b, bxor),
        Maxloc => pairs!(b, op, maxloc),
        Minloc => pairs!(b, op, minloc),
        Replace => Kernel::Native(replace),
        NoOp => Kernel::Native(no_op),
    })
}

// ---- user-defined operators --------------------------------------------------

/// `void f(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype)`.
pub type UserFn = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int, *mut MPI_Datatype);

/// An operator made by MPI_Op_create.
#[derive(Clone, Copy, Debug)]
pub struct UserOp {
    pub func: UserFn,
    pub commutative: bool,
}

/// What an operator handle stands for.
#[derive(Clone, Copy, Debug)]
pub enum OpRef {
    Predefined(Predef),
    User(UserOp),
}

/// User operator handles -> operators (the predefined ones are not stored).
#[derive(Debug)]
pub struct OpTable {
    map: HashMap<MPI_Op, UserOp>,
    next: MPI_Op,
}

/// User operators get handles from this base up (MPICH's pattern).
const FIRST_USER_OP: MPI_Op = 0x98000000u32 as MPI_Op;

impl Default for OpTable {
    fn default() -> Self {
        OpTable::new()
    }
}

impl OpTable {
    pub fn new() -> OpTable {
        OpTable {
            map: HashMap::new(),
            next: FIRST_USER_OP,
        }
    }

    /// MPI_Op_create.
    pub fn create(&mut self, func: UserFn, commutative: bool) -> MPI_Op {
        let h = self.next;
        self.next += 1;
        self.map.insert(h, UserOp { func, commutative });
        h
    }

    /// The operator behind `op`; MPI_ERR_OP for a null, freed or unknown one.
    pub fn get(&self, op: MPI_Op) -> MpiResult<OpRef> {
        if let Some(p) = Predef::from_handle(op) {
            return Ok(OpRef::Predefined(p));
        }
        match self.map.get(&op) {
            Some(u) => Ok(OpRef::User(*u)),
            None if op == sys::MPI_OP_NULL => {
                fail(sys::MPI_ERR_OP, "MPI_OP_NULL is not a valid operator")
            }
            None => fail(
                sys::MPI_ERR_OP,
                format!("invalid operator handle {op:#x} (never created, or freed)"),
            ),
        }
    }

    /// MPI_Op_free: user operators only.
    pub fn free(&mut self, op: MPI_Op) -> MpiResult<()> {
        if let Some(p) = Predef::from_handle(op) {
            return fail(
                sys::MPI_ERR_OP,
                format!("the predefined operator {} cannot be freed", p.name()),
            );
        }
        self.get(op)?;
        self.map.remove(&op);
        Ok(())
    }

    /// MPI_Op_commutative.
    pub fn commutative(&self, op: MPI_Op) -> MpiResult<bool> {
        Ok(match self.get(op)? {
            OpRef::Predefined(_) => true,
            OpRef::User(u) => u.commutative,
        })
    }

    /// What a reduction of `dt` (layout `ty`) by `op` applies; MPI_ERR_OP
    /// for an invalid operator, for MPI_REPLACE / MPI_NO_OP (one-sided
    /// accumulate only) and for a predefined operator on a predefined type it
    /// is not defined on; MPI_ERR_TYPE for a predefined operator on a derived
    /// datatype whose basic elements are not all of one predefined type
    /// (a homogeneous derived type is reduced element by element of its
    /// basic type: the packed bytes are a sequence of those elements).
    pub fn resolve(&self, op: MPI_Op, dt: MPI_Datatype, ty: &Datatype) -> MpiResult<Reduction> {
        let p = match self.get(op)? {
            OpRef::User(u) => {
                return Ok(Reduction {
                    commutative: u.commutative,
                    builtin: false,
                    how: How::User(u.func),
                })
            }
            OpRef::Predefined(p) => p,
        };
        if matches!(p, Predef::Replace | Predef::NoOp) {
            return fail(
                sys::MPI_ERR_OP,
                format!(
                    "{} is only valid in one-sided accumulate operations",
                    p.name()
                ),
            );
        }
        // a predefined type, or a derived one made of a single predefined type
        let found = basic_of(dt).or_else(|| ty.basic().and_then(basic_of));
        let Some((basic, grp)) = found else {
            return fail(
                sys::MPI_ERR_TYPE,
                format!(
                    "{} on datatype {}: predefined operators apply only to predefined \
                     datatypes and to derived datatypes whose basic elements are all of \
                     one predefined type (use a user-defined operator)",
                    p.name(),
                    ty.name()
                ),
            );
        };
        let kernel = (groups(p) & grp != 0).then(|| kernel(p, basic)).flatten();
        let Some(k) = kernel else {
            return fail(
                sys::MPI_ERR_OP,
                format!("{} is not defined on datatype {}", p.name(), ty.name()),
            );
        };
        Ok(Reduction {
            commutative: true,
            builtin: true,
            how: match k {
                Kernel::Native(f) => How::Native(f),
                Kernel::LongDouble(op, kind) => How::LongDouble(op, kind),
            },
        })
    }
}

/// A resolved reduction: what `coll::Op` needs, and how to apply it.
#[derive(Clone, Copy, Debug)]
pub struct Reduction {
    pub commutative: bool,
    /// A predefined operator.
    pub builtin: bool,
    pub how: How,
}

#[derive(Clone, Copy, Debug)]
pub enum How {
    /// A Rust kernel on packed bytes.
    Native(fn(&[u8], &mut [u8])),
    /// A C kernel on packed long double data.
    LongDouble(Predef, LdKind),
    /// A user function, called on the datatype's memory layout.
    User(UserFn),
}

#[cfg(test)]
#[path = "op_tests.rs"]
mod tests;
