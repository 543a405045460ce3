//! The argument kinds of the binding table: how what gfortran passes (every
//! argument by reference, hidden CHARACTER lengths after the others)
//! becomes the argument of the C function, and what is written back to the
//! Fortran variable after the call.
//!
//! | kind       | Fortran                        | C argument                        |
//! |------------|--------------------------------|-----------------------------------|
//! | `Int`      | INTEGER (in; handles too)      | its value                         |
//! | `IntOut`   | INTEGER (out or in-out)        | the same address (MPI_Fint = int) |
//! | `Ints`     | INTEGER array                  | the same address                  |
//! | `Ranges`   | INTEGER RANGES(3, *)           | the same address (C `int [][3]`)  |
//! | `Index`    | INTEGER index out (Waitany)    | temporary; +1 unless MPI_UNDEFINED|
//! | `Logical`  | LOGICAL (in)                   | 0 or 1                            |
//! | `Flag`     | LOGICAL (out)                  | temporary int; .true. is 1        |
//! | `Logicals` | LOGICAL array                  | the same address (gfortran: 0/1)  |
//! | `UserFunction` | EXTERNAL SUBROUTINE (MPI_OP_CREATE) | the procedure's address as it is |
//! | `ErrhandlerFunction` | EXTERNAL SUBROUTINE (MPI_COMM_CREATE_ERRHANDLER) | the procedure's address as it is |
//! | `Double`   | DOUBLE PRECISION (in)          | its value                         |
//! | `Aint`, `AintOut`, `Aints` | INTEGER(MPI_ADDRESS_KIND) | value / address        |
//! | `Count`, `CountOut` | INTEGER(MPI_COUNT_KIND) | value / address                |
//! | `Buf`      | choice buffer                  | address; MPI_BOTTOM -> NULL, MPI_IN_PLACE -> C's |
//! | `Status`   | INTEGER(MPI_STATUS_SIZE)       | the same address (the C struct is those ints); MPI_STATUS_IGNORE -> C's |
//! | `Statuses` | INTEGER(MPI_STATUS_SIZE, *)    | likewise; MPI_STATUSES_IGNORE -> C's |
//! | `StrIn`    | CHARACTER*(*) (in)             | NUL-terminated copy, blanks trimmed |
//! | `StrOut`   | CHARACTER*(*) (out)            | temporary; copied back blank-padded |
//!
//! The `_f08` bindings (the `BIND(C)` interfaces of the `mpi_f08` module,
//! see `generator_f08`) receive every argument as the `mpi` module's
//! bindings do ([`Arg::F08`] is [`Arg::F`]), except choice buffers and
//! strings, which arrive as C descriptors (`cfi`): a buffer's address is
//! the descriptor's base address (a buffer that is not contiguous is
//! refused, [`Arg::noncontiguous`]), a string's length its element length
//! (no hidden length arguments). Two names of buffer arguments mean
//! something else in mpi_f08: `baseptr` is a `TYPE(C_PTR)` the routine
//! writes ([`BufAddr`], as the `mpi` module's address), and `location`
//! (MPI_GET_ADDRESS) may be any array section ([`Location`]).
use super::cfi::{is_contiguous, CfiDesc};
use super::commons::{special, Special};
use crate::abi::{MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUSES_IGNORE, MPI_STATUS_IGNORE};
use crate::sys::{self, MPI_Aint, MPI_Count, MPI_Fint, MPI_Status};
use std::os::raw::{c_char, c_int, c_void};

/// One argument kind.
pub trait Arg: Sized {
    /// What gfortran passes.
    type F;
    /// What the C function takes.
    type C;
    /// Reads the Fortran argument before the call.
    ///
    /// # Safety
    /// `f` is what gfortran passes for a Fortran argument of this kind: a
    /// valid address (of `len` characters for CHARACTER kinds).
    unsafe fn new(f: Self::F, len: usize) -> Self;
    /// The C argument (may point into `self`, which stays in place until
    /// `finish`).
    fn c(&mut self) -> Self::C;
    /// Writes results back to the Fortran variable after the call.
    ///
    /// # Safety
    /// As for `new`; called once, after the C function returned.
    unsafe fn finish(self) {}
    /// What a `_f08` binding receives for this argument.
    type F08;
    /// Reads the argument of a `_f08` binding before the call.
    ///
    /// # Safety
    /// `f` is what gfortran passes for the argument of this kind to a
    /// `BIND(C)` interface (a valid descriptor for buffers and strings).
    unsafe fn new_f08(f: Self::F08) -> Self;
    /// A choice buffer whose memory is not one contiguous block (mpi_f08
    /// array sections with strides): the binding refuses the call.
    fn noncontiguous(&self) -> bool {
        false
    }
}

/// The kinds that a `_f08` binding receives as the `mpi` module's binding
/// does.
macro_rules! same_in_f08 {
    () => {
        type F08 = <Self as Arg>::F;
        unsafe fn new_f08(f: Self::F08) -> Self {
            // SAFETY: the argument as the mpi module's binding gets it
            // (caller); no hidden length (strings are not this kind).
            unsafe { <Self as Arg>::new(f, 0) }
        }
    };
}

/// An INTEGER read by the routine (also every handle: MPI_Fint = int and
/// handles are ints, so conversion is the identity).
pub struct Int(c_int);

impl Arg for Int {
    same_in_f08!();
    type F = *const MPI_Fint;
    type C = c_int;
    unsafe fn new(f: Self::F, _: usize) -> Self {
        // SAFETY: gfortran passes the address of the INTEGER (caller).
        Int(unsafe { *f })
    }
    fn c(&mut self) -> c_int {
        self.0
    }
}

/// Arguments passed to C at the Fortran address itself: the Fortran and C
/// types are the same (INTEGER = int, INTEGER(MPI_ADDRESS_KIND) = MPI_Aint,
/// LOGICAL arrays of gfortran = 0/1 ints).
pub struct Same<T>(*mut T);

impl<T> Arg for Same<T> {
    same_in_f08!();
    type F = *mut T;
    type C = *mut T;
    unsafe fn new(f: Self::F, _: usize) -> Self {
        Same(f)
    }
    fn c(&mut self) -> *mut T {
        self.0
    }
}

/// An INTEGER written (or read and written) by the routine.
pub type IntOut = Same<MPI_Fint>;
/// An INTEGER array.
pub type Ints = Same<MPI_Fint>;
/// INTEGER RANGES(3, N) (MPI_Group_range_incl): column-major, so the
/// same layout as C's `int ranges[N][3]`.
pub type Ranges = Same<[MPI_Fint; 3]>;
/// A LOGICAL array: gfortran's LOGICAL is a 4-byte 0 (.false.) or 1
/// (.true.), which C reads and writes as int as it is.
pub type Logicals = Same<MPI_Fint>;
/// An INTEGER(KIND=MPI_ADDRESS_KIND) written by the routine.
pub type AintOut = Same<MPI_Aint>;
/// An INTEGER(KIND=MPI_ADDRESS_KIND) array.
pub type Aints = Same<MPI_Aint>;
/// An INTEGER(KIND=MPI_COUNT_KIND) written by the routine.
pub type CountOut = Same<MPI_Count>;
/// An INTEGER(KIND=MPI_OFFSET_KIND) written by the routine.
pub type OffsetOut = Same<sys::MPI_Offset>;

/// A procedure argument: gfortran passes the procedure's address (not the
/// address of a variable), which C takes as it is.
pub struct Procedure<T>(T);

impl<T: Copy> Arg for Procedure<T> {
    same_in_f08!();
    type F = T;
    type C = T;
    unsafe fn new(f: Self::F, _: usize) -> Self {
        Procedure(f)
    }
    fn c(&mut self) -> T {
        self.0
    }
}

/// `SUBROUTINE F(INVEC, INOUTVEC, LEN, DATATYPE)` of MPI_OP_CREATE: every
/// argument by reference and INTEGER = MPI_Datatype = int, so exactly C's
/// `MPI_User_function`.
pub type UserFunction = Procedure<sys::MPI_User_function>;

/// `SUBROUTINE F(COMM, ERROR_CODE)` of MPI_COMM_CREATE_ERRHANDLER /
/// MPI_ERRHANDLER_CREATE: both INTEGERs by reference, as C's
/// `MPI_Comm_errhandler_function` takes them.
pub type ErrhandlerFunction = Procedure<sys::MPI_Comm_errhandler_function>;

/// `SUBROUTINE F(FILE, ERROR_CODE)` of MPI_FILE_CREATE_ERRHANDLER, as C's
/// `MPI_File_errhandler_function` takes them.
pub type FileErrhandlerFunction = Procedure<sys::MPI_File_errhandler_function>;

/// A value read by the routine, same type on both sides.
pub struct Value<T>(T);

impl<T: Copy> Arg for Value<T> {
    same_in_f08!();
    type F = *const T;
    type C = T;
    unsafe fn new(f: Self::F, _: usize) -> Self {
        // SAFETY: gfortran passes the address of the variable (caller).
        Value(unsafe { *f })
    }
    fn c(&mut self) -> T {
        self.0
    }
}

/// DOUBLE PRECISION read by the routine.
pub type Double = Value<f64>;
/// INTEGER(KIND=MPI_ADDRESS_KIND) read by the routine.
pub type Aint = Value<MPI_Aint>;
/// INTEGER(KIND=MPI_COUNT_KIND) read by the routine.
pub type Count = Value<MPI_Count>;
/// INTEGER(KIND=MPI_OFFSET_KIND) read by the routine.
pub type Offset = Value<sys::MPI_Offset>;

/// An index written by the routine (MPI_Waitany, MPI_Testany): C counts
/// from 0, Fortran from 1; MPI_UNDEFINED stays.
pub struct Index {
    f: *mut MPI_Fint,
    tmp: c_int,
}

impl Arg for Index {
    same_in_f08!();
    type F = *mut MPI_Fint;
    type C = *mut c_int;
    unsafe fn new(f: Self::F, _: usize) -> Self {
        Index {
            f,
            tmp: sys::MPI_UNDEFINED,
        }
    }
    fn c(&mut self) -> *mut c_int {
        &mut self.tmp
    }
    unsafe fn finish(self) {
        // SAFETY: gfortran passes the address of the INTEGER (caller).
        unsafe { *self.f = to_fortran_index(self.tmp) };
    }
}

/// A C index as Fortran sees it.
pub fn to_fortran_index(i: c_int) -> MPI_Fint {
    if i == sys::MPI_UNDEFINED || i < 0 {
        i
    } else {
        i + 1
    }
}

/// A LOGICAL read by the routine: any non-zero value is .true.
pub struct Logical(c_int);

impl Arg for Logical {
    same_in_f08!();
    type F = *const MPI_Fint;
    type C = c_int;
    unsafe fn new(f: Self::F, _: usize) -> Self {
        // SAFETY: gfortran passes the address of the LOGICAL (caller).
        Logical((unsafe { *f } != 0) as c_int)
    }
    fn c(&mut self) -> c_int {
        self.0
    }
}

/// A LOGICAL written by the routine: .true. is 1, as gfortran writes it.
pub struct Flag {
    f: *mut MPI_Fint,
    tmp: c_int,
}

impl Arg for Flag {
    same_in_f08!();
    type F = *mut MPI_Fint;
    type C = *mut c_int;
    unsafe fn new(f: Self::F, _: usize) -> Self {
        Flag { f, tmp: 0 }
    }
    fn c(&mut self) -> *mut c_int {
        &mut self.tmp
    }
    unsafe fn finish(self) {
        // SAFETY: gfortran passes the address of the LOGICAL (caller).
        unsafe { *self.f = (self.tmp != 0) as MPI_Fint };
    }
}

/// A choice buffer: its address, with Fortran's MPI_BOTTOM and MPI_IN_PLACE
/// turned into C's. From mpi_f08, the base address of its descriptor,
/// refused when the array is not contiguous.
pub struct Buf {
    addr: *mut c_void,
    contiguous: bool,
}

/// The C address of a Fortran buffer address (MPI_BOTTOM and MPI_IN_PLACE
/// are the addresses of their COMMON blocks).
fn c_address(f: *mut c_void) -> *mut c_void {
    match special(f) {
        Some(Special::Bottom) => MPI_BOTTOM,
        Some(Special::InPlace) => MPI_IN_PLACE,
        _ => f,
    }
}

impl Arg for Buf {
    type F = *mut c_void;
    type C = *mut c_void;
    unsafe fn new(f: Self::F, _: usize) -> Self {
        Buf {
            addr: c_address(f),
            contiguous: true,
        }
    }
    fn c(&mut self) -> *mut c_void {
        self.addr
    }
    type F08 = *const CfiDesc;
    unsafe fn new_f08(f: Self::F08) -> Self {
        Buf {
            // SAFETY: the descriptor gfortran passes (caller).
            addr: c_address(unsafe { (*f).base_addr }),
            // SAFETY: the same descriptor, with its dimensions.
            contiguous: unsafe { is_contiguous(f) },
        }
    }
    fn noncontiguous(&self) -> bool {
        !self.contiguous
    }
}

/// A `TYPE(C_PTR)` that the routine writes in mpi_f08 (`baseptr` of
/// MPI_ALLOC_MEM, MPI_WIN_ALLOCATE...): its address, which C receives as
/// its `void *` out argument, exactly as the `mpi` module's INTEGER
/// (KIND=MPI_ADDRESS_KIND) [`Buf`].
pub struct BufAddr(*mut c_void);

impl Arg for BufAddr {
    type F = *mut c_void;
    type C = *mut c_void;
    unsafe fn new(f: Self::F, _: usize) -> Self {
        BufAddr(f)
    }
    fn c(&mut self) -> *mut c_void {
        self.0
    }
    same_in_f08!();
}

/// The `location` of MPI_GET_ADDRESS in mpi_f08: the address of the first
/// element of any array, contiguous or not.
pub struct Location(*mut c_void);

impl Arg for Location {
    type F = *mut c_void;
    type C = *mut c_void;
    unsafe fn new(f: Self::F, _: usize) -> Self {
        Location(c_address(f))
    }
    fn c(&mut self) -> *mut c_void {
        self.0
    }
    type F08 = *const CfiDesc;
    unsafe fn new_f08(f: Self::F08) -> Self {
        // SAFETY: the descriptor gfortran passes (caller).
        Location(c_address(unsafe { (*f).base_addr }))
    }
}

/// The characters and length of a `CHARACTER(LEN=*)` descriptor.
///
/// # Safety
/// `f` is a descriptor gfortran passed for a scalar string.
unsafe fn string_of(f: *const CfiDesc) -> (*mut c_char, usize) {
    // SAFETY: by the contract.
    let d = unsafe { &*f };
    (d.base_addr as *mut c_char, d.elem_len)
}

/// INTEGER status(MPI_STATUS_SIZE): the C struct is exactly those ints in
/// that order (count_lo, count_hi_and_cancelled, MPI_SOURCE, MPI_TAG,
/// MPI_ERROR), so C writes the Fortran array directly.
pub struct Status(*mut MPI_Status);

impl Arg for Status {
    same_in_f08!();
    type F = *mut MPI_Fint;
    type C = *mut MPI_Status;
    unsafe fn new(f: Self::F, _: usize) -> Self {
        Status(match special(f as *const c_void) {
            Some(Special::StatusIgnore | Special::StatusesIgnore) => MPI_STATUS_IGNORE,
            _ => f as *mut MPI_Status,
        })
    }
    fn c(&mut self) -> *mut MPI_Status {
        self.0
    }
}

/// INTEGER statuses(MPI_STATUS_SIZE, n), like [`Status`].
pub struct Statuses(*mut MPI_Status);

impl Arg for Statuses {
    same_in_f08!();
    type F = *mut MPI_Fint;
    type C = *mut MPI_Status;
    unsafe fn new(f: Self::F, _: usize) -> Self {
        Statuses(match special(f as *const c_void) {
            Some(Special::StatusIgnore | Special::StatusesIgnore) => MPI_STATUSES_IGNORE,
            _ => f as *mut MPI_Status,
        })
    }
    fn c(&mut self) -> *mut MPI_Status {
        self.0
    }
}

/// CHARACTER*(*) read by the routine: a NUL-terminated copy without the
/// leading and trailing blanks (as MPI specifies for keys and values).
pub struct StrIn(Vec<u8>);

impl Arg for StrIn {
    type F = *const c_char;
    type C = *const c_char;
    unsafe fn new(f: Self::F, len: usize) -> Self {
        // SAFETY: gfortran passes `len` characters at f (caller).
        let s = unsafe { fortran_chars(f, len) };
        let start = s.iter().position(|&b| b != b' ').unwrap_or(s.len());
        let end = s.iter().rposition(|&b| b != b' ').map_or(start, |e| e + 1);
        let mut v = s[start..end].to_vec();
        v.push(0);
        StrIn(v)
    }
    fn c(&mut self) -> *const c_char {
        self.0.as_ptr() as *const c_char
    }
    type F08 = *const CfiDesc;
    unsafe fn new_f08(f: Self::F08) -> Self {
        // SAFETY: a string descriptor (caller) and its characters.
        unsafe {
            let (p, len) = string_of(f);
            StrIn::new(p, len)
        }
    }
}

/// The largest string MPI writes (MPI_MAX_* in mpi.h), NUL included.
pub const STR_CAP: usize = sys::MPI_MAX_LIBRARY_VERSION_STRING as usize + 1;

const _: () = assert!(
    sys::MPI_MAX_PROCESSOR_NAME as usize <= STR_CAP
        && sys::MPI_MAX_ERROR_STRING as usize <= STR_CAP
        && sys::MPI_MAX_OBJECT_NAME as usize <= STR_CAP
);

/// CHARACTER*(*) written by the routine: C writes a NUL-terminated string
/// into a buffer of [`STR_CAP`] bytes, copied back truncated to the Fortran
/// length and padded with blanks.
pub struct StrOut {
    f: *mut c_char,
    len: usize,
    tmp: Vec<u8>,
}

impl Arg for StrOut {
    type F = *mut c_char;
    type C = *mut c_char;
    unsafe fn new(f: Self::F, len: usize) -> Self {
        StrOut {
            f,
            len,
            tmp: vec![0; STR_CAP],
        }
    }
    fn c(&mut self) -> *mut c_char {
        self.tmp.as_mut_ptr() as *mut c_char
    }
    type F08 = *const CfiDesc;
    unsafe fn new_f08(f: Self::F08) -> Self {
        // SAFETY: a string descriptor (caller) and its characters.
        unsafe {
            let (p, len) = string_of(f);
            StrOut::new(p, len)
        }
    }
    unsafe fn finish(self) {
        let n = self.tmp.iter().position(|&b| b == 0).unwrap_or(0);
        if self.len == 0 {
            return;
        }
        // SAFETY: gfortran passes `len` writable characters at f (caller).
        let out = unsafe { std::slice::from_raw_parts_mut(self.f as *mut u8, self.len) };
        blank_padded(out, &self.tmp[..n]);
    }
}

/// `s` into `out`, truncated, the rest blanks.
pub fn blank_padded(out: &mut [u8], s: &[u8]) {
    let n = s.len().min(out.len());
    out[..n].copy_from_slice(&s[..n]);
    out[n..].fill(b' ');
}

/// The `len` characters gfortran passed.
///
/// # Safety
/// `len == 0` or `f` points to `len` readable bytes.
unsafe fn fortran_chars<'a>(f: *const c_char, len: usize) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: by the contract.
    unsafe { std::slice::from_raw_parts(f as *const u8, len) }
}

/// Stores a return code in the IERROR argument.
///
/// # Safety
/// `ierror` is null or the address of an INTEGER.
pub unsafe fn put_ierror(ierror: *mut MPI_Fint, rc: c_int) {
    if !ierror.is_null() {
        // SAFETY: non-null: the INTEGER gfortran passed (caller).
        unsafe { *ierror = rc };
    }
}

/// After MPI_Waitsome / MPI_Testsome: the first OUTCOUNT indices count
/// from 1 (nothing when OUTCOUNT is MPI_UNDEFINED).
///
/// # Safety
/// `outcount` is the INTEGER and `indices` the INTEGER array gfortran
/// passed to the routine, which wrote `*outcount` indices.
pub unsafe fn indices_to_fortran(outcount: *mut MPI_Fint, indices: *mut MPI_Fint) {
    // SAFETY: the routine's OUTCOUNT argument (caller).
    let n = unsafe { *outcount };
    if n == sys::MPI_UNDEFINED || n <= 0 {
        return;
    }
    for i in 0..n as usize {
        // SAFETY: the routine wrote n entries of the array (caller).
        unsafe { *indices.add(i) = to_fortran_index(*indices.add(i)) };
    }
}
