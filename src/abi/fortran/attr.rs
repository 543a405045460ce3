//! Fortran attribute caching, written by hand (listed in
//! `generator::HAND_WRITTEN`):
//!
//! * keyvals with Fortran callbacks (MPI_COMM_CREATE_KEYVAL,
//!   MPI_KEYVAL_CREATE): the C keyval gets trampolines as its callbacks and,
//!   as its extra state, a record of the Fortran procedures and the Fortran
//!   EXTRA_STATE; the trampolines call the procedures with Fortran
//!   conventions (every argument by reference, the result in IERROR).
//!   MPI-2 callbacks take INTEGER(KIND=MPI_ADDRESS_KIND) values, MPI-1 ones
//!   default INTEGERs. The predefined procedures passed as callbacks
//!   (MPI_COMM_NULL_COPY_FN, ...) are recognised by address and become the
//!   C keyval's own (none, or MPIR_Dup_fn).
//! * attribute values: a Fortran value is stored as the C `void *` itself
//!   (INTEGERs sign-extended); the predefined attributes (MPI_TAG_UB, ...),
//!   pointers to ints in C, are read through the pointer, so Fortran gets
//!   the value.
//! * the predefined callback procedures as Fortran-callable externals
//!   (`mpi_comm_dup_fn_`, ...; declared EXTERNAL in mpif.h and the module).
//!
//! The record of a keyval lives as long as the process: the C side may call
//! the callbacks until the last attribute of the keyval is deleted, even
//! after the keyval is freed.
use super::kinds::put_ierror;
use crate::abi::attr::MPIR_Dup_fn;
use crate::abi::obj_attr::{self, Kind};
use crate::mpi::attr::NewValue;
use crate::mpi::attr::{CopyFn, DeleteFn};
use crate::ranks::local::RankLocal;
use crate::sys::{self, MPI_Aint, MPI_Comm, MPI_Fint};
use std::ffi::CStr;
use std::os::raw::{c_int, c_void};
use std::sync::OnceLock;

/// A Fortran attribute value: INTEGER(KIND=MPI_ADDRESS_KIND) (MPI-2) or
/// default INTEGER (MPI-1), and its C `void *` form.
pub trait Value: Copy + Default {
    fn from_c(p: *mut c_void) -> Self;
    fn to_c(self) -> *mut c_void;
}

impl Value for MPI_Aint {
    fn from_c(p: *mut c_void) -> Self {
        p as MPI_Aint
    }
    fn to_c(self) -> *mut c_void {
        self as *mut c_void
    }
}

impl Value for MPI_Fint {
    /// Truncated to the INTEGER (as MPI-1 attributes are).
    fn from_c(p: *mut c_void) -> Self {
        p as MPI_Aint as MPI_Fint
    }
    /// Sign-extended.
    fn to_c(self) -> *mut c_void {
        self as MPI_Aint as *mut c_void
    }
}

/// `SUBROUTINE COPY_FN(OLDCOMM, KEYVAL, EXTRA_STATE, ATTRIBUTE_VAL_IN,
/// ATTRIBUTE_VAL_OUT, FLAG, IERROR)`
pub type FortranCopy<V> = unsafe extern "C" fn(
    oldcomm: *const MPI_Fint,
    keyval: *const MPI_Fint,
    extra_state: *mut V,
    attribute_val_in: *mut V,
    attribute_val_out: *mut V,
    flag: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
);

/// `SUBROUTINE DELETE_FN(COMM, KEYVAL, ATTRIBUTE_VAL, EXTRA_STATE, IERROR)`
pub type FortranDelete<V> = unsafe extern "C" fn(
    comm: *const MPI_Fint,
    keyval: *const MPI_Fint,
    attribute_val: *mut V,
    extra_state: *mut V,
    ierror: *mut MPI_Fint,
);

/// What the C keyval of a Fortran keyval holds as its extra state.
pub struct Record<V> {
    copy: Option<FortranCopy<V>>,
    delete: Option<FortranDelete<V>>,
    extra_state: V,
}

/// The C copy callback of a Fortran keyval.
///
/// # Safety
/// `extra_state` is the `Record<V>` of the keyval; `attribute_val_out`
/// points to a `void *` and `flag` to an int (as the C side calls it).
unsafe extern "C" fn copy_trampoline<V: Value>(
    oldcomm: MPI_Comm,
    keyval: c_int,
    extra_state: *mut c_void,
    attribute_val_in: *mut c_void,
    attribute_val_out: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    // SAFETY: the record leaked when the keyval was made (contract).
    let r = unsafe { &*(extra_state as *const Record<V>) };
    let Some(f) = r.copy else {
        // SAFETY: flag points to an int (contract).
        unsafe { *flag = 0 };
        return sys::MPI_SUCCESS;
    };
    let (mut es, mut vin, mut vout) = (r.extra_state, V::from_c(attribute_val_in), V::default());
    let (mut fflag, mut ierror): (MPI_Fint, MPI_Fint) = (0, sys::MPI_SUCCESS);
    // SAFETY: the program's Fortran procedure, every argument a live local
    // passed by reference as Fortran expects.
    unsafe {
        f(
            &oldcomm,
            &keyval,
            &mut es,
            &mut vin,
            &mut vout,
            &mut fflag,
            &mut ierror,
        )
    };
    if ierror == sys::MPI_SUCCESS {
        // SAFETY: the C side's out arguments (contract).
        unsafe {
            (attribute_val_out as *mut *mut c_void).write(vout.to_c());
            *flag = (fflag != 0) as c_int;
        }
    }
    ierror
}

/// The C delete callback of a Fortran keyval.
///
/// # Safety
/// `extra_state` is the `Record<V>` of the keyval.
unsafe extern "C" fn delete_trampoline<V: Value>(
    comm: MPI_Comm,
    keyval: c_int,
    attribute_val: *mut c_void,
    extra_state: *mut c_void,
) -> c_int {
    // SAFETY: the record leaked when the keyval was made (contract).
    let r = unsafe { &*(extra_state as *const Record<V>) };
    let Some(f) = r.delete else {
        return sys::MPI_SUCCESS;
    };
    let (mut es, mut v) = (r.extra_state, V::from_c(attribute_val));
    let mut ierror: MPI_Fint = sys::MPI_SUCCESS;
    // SAFETY: the program's Fortran procedure, arguments by reference.
    unsafe { f(&comm, &keyval, &mut v, &mut es, &mut ierror) };
    ierror
}

/// Whether a C callback is one of the trampolines of a Fortran keyval
/// (its procedures then get the integer of an attribute set from Fortran).
pub fn is_trampoline(f: usize) -> bool {
    let copies: [unsafe extern "C" fn(
        MPI_Comm,
        c_int,
        *mut c_void,
        *mut c_void,
        *mut c_void,
        *mut c_int,
    ) -> c_int; 2] = [copy_trampoline::<MPI_Aint>, copy_trampoline::<MPI_Fint>];
    let deletes: [unsafe extern "C" fn(MPI_Comm, c_int, *mut c_void, *mut c_void) -> c_int; 2] =
        [delete_trampoline::<MPI_Aint>, delete_trampoline::<MPI_Fint>];
    copies.iter().any(|&c| c as usize == f) || deletes.iter().any(|&d| d as usize == f)
}

/// A predefined callback procedure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Predefined {
    NullCopy,
    NullDelete,
    Dup,
}

/// (symbol, our definition's address, meaning) of the twelve procedures.
fn predefined_procs() -> [(&'static CStr, usize, Predefined); 12] {
    let (copy, delete, dup): (
        FortranCopy<MPI_Aint>,
        FortranDelete<MPI_Aint>,
        FortranCopy<MPI_Aint>,
    ) = (
        mpi_comm_null_copy_fn_,
        mpi_comm_null_delete_fn_,
        mpi_comm_dup_fn_,
    );
    let (copy1, delete1, dup1): (
        FortranCopy<MPI_Fint>,
        FortranDelete<MPI_Fint>,
        FortranCopy<MPI_Fint>,
    ) = (mpi_null_copy_fn_, mpi_null_delete_fn_, mpi_dup_fn_);
    let (tcopy, tdelete, tdup): (
        FortranCopy<MPI_Aint>,
        FortranDelete<MPI_Aint>,
        FortranCopy<MPI_Aint>,
    ) = (
        mpi_type_null_copy_fn_,
        mpi_type_null_delete_fn_,
        mpi_type_dup_fn_,
    );
    let (wcopy, wdelete, wdup): (
        FortranCopy<MPI_Aint>,
        FortranDelete<MPI_Aint>,
        FortranCopy<MPI_Aint>,
    ) = (
        mpi_win_null_copy_fn_,
        mpi_win_null_delete_fn_,
        mpi_win_dup_fn_,
    );
    [
        (
            c"mpi_type_null_copy_fn_",
            tcopy as usize,
            Predefined::NullCopy,
        ),
        (
            c"mpi_type_null_delete_fn_",
            tdelete as usize,
            Predefined::NullDelete,
        ),
        (c"mpi_type_dup_fn_", tdup as usize, Predefined::Dup),
        (
            c"mpi_win_null_copy_fn_",
            wcopy as usize,
            Predefined::NullCopy,
        ),
        (
            c"mpi_win_null_delete_fn_",
            wdelete as usize,
            Predefined::NullDelete,
        ),
        (c"mpi_win_dup_fn_", wdup as usize, Predefined::Dup),
        (
            c"mpi_comm_null_copy_fn_",
            copy as usize,
            Predefined::NullCopy,
        ),
        (
            c"mpi_comm_null_delete_fn_",
            delete as usize,
            Predefined::NullDelete,
        ),
        (c"mpi_comm_dup_fn_", dup as usize, Predefined::Dup),
        (c"mpi_null_copy_fn_", copy1 as usize, Predefined::NullCopy),
        (
            c"mpi_null_delete_fn_",
            delete1 as usize,
            Predefined::NullDelete,
        ),
        (c"mpi_dup_fn_", dup1 as usize, Predefined::Dup),
    ]
}

/// Which predefined procedure the address a Fortran program passed is:
/// ours, or what the dynamic linker resolves the symbol to (a non-PIE
/// program's canonical address), as for the COMMON blocks: resolved once
/// per rank, in the rank's copy of the program in the many-ranks mode
/// (`commons::program_symbol`).
pub fn predefined(addr: usize) -> Option<Predefined> {
    static RESOLVED: RankLocal<OnceLock<Vec<(usize, Predefined)>>> = RankLocal::new(OnceLock::new);
    let resolved = RESOLVED.get().get_or_init(|| {
        predefined_procs()
            .iter()
            .flat_map(|&(sym, own, what)| {
                let p = super::commons::program_symbol(sym) as usize;
                [(own, what), (p, what)]
            })
            .filter(|&(a, _)| a != 0)
            .collect()
    });
    resolved
        .iter()
        .find(|&&(a, _)| a == addr && addr != 0)
        .map(|&(_, w)| w)
}

/// The C call that makes a keyval of one kind (communicator, datatype or
/// window: the callback types are the same functions of int handles).
type Creator = unsafe extern "C" fn(CopyFn, DeleteFn, *mut c_int, *mut c_void) -> c_int;

/// Creates a C keyval for Fortran procedures `copy` / `delete` (their
/// addresses), with values of type `V`.
///
/// # Safety
/// `copy` and `delete` are addresses of Fortran procedures with the
/// interfaces [`FortranCopy<V>`] / [`FortranDelete<V>`] (or predefined
/// ones); `keyval` is the INTEGER gfortran passes.
unsafe fn create_keyval<V: Value>(
    creator: Creator,
    copy: usize,
    delete: usize,
    keyval: *mut MPI_Fint,
    extra_state: V,
) -> c_int {
    let (c_copy, f_copy): (CopyFn, Option<FortranCopy<V>>) = match predefined(copy) {
        Some(Predefined::NullCopy) => (None, None),
        Some(Predefined::Dup) => (Some(MPIR_Dup_fn), None),
        _ if copy == 0 => (None, None),
        _ => {
            // SAFETY: the address of a Fortran procedure with this
            // interface (contract).
            let f = unsafe { std::mem::transmute::<usize, FortranCopy<V>>(copy) };
            (Some(copy_trampoline::<V>), Some(f))
        }
    };
    let (c_delete, f_delete): (DeleteFn, Option<FortranDelete<V>>) = match predefined(delete) {
        Some(Predefined::NullDelete) => (None, None),
        _ if delete == 0 => (None, None),
        _ => {
            // SAFETY: as above.
            let f = unsafe { std::mem::transmute::<usize, FortranDelete<V>>(delete) };
            (Some(delete_trampoline::<V>), Some(f))
        }
    };
    let record = Box::into_raw(Box::new(Record {
        copy: f_copy,
        delete: f_delete,
        extra_state,
    }));
    // SAFETY: C callbacks of the right types, the record as their extra
    // state; KEYVAL is the INTEGER gfortran passes.
    let rc = unsafe { creator(c_copy, c_delete, keyval, record as *mut c_void) };
    if rc != sys::MPI_SUCCESS {
        // SAFETY: no keyval refers to the record: taken back once.
        drop(unsafe { Box::from_raw(record) });
    }
    rc
}

/// `MPI_COMM_CREATE_KEYVAL(COMM_COPY_ATTR_FN, COMM_DELETE_ATTR_FN,
/// COMM_KEYVAL, EXTRA_STATE, IERROR)`
#[no_mangle]
pub unsafe extern "C" fn mpi_comm_create_keyval_(
    comm_copy_attr_fn: *const c_void,
    comm_delete_attr_fn: *const c_void,
    comm_keyval: *mut MPI_Fint,
    extra_state: *const MPI_Aint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: gfortran passes the procedures' addresses and the rest by
    // reference; MPI's contract gives the procedures the MPI-2 interfaces.
    let rc = unsafe {
        create_keyval::<MPI_Aint>(
            sys::PMPI_Comm_create_keyval,
            comm_copy_attr_fn as usize,
            comm_delete_attr_fn as usize,
            comm_keyval,
            *extra_state,
        )
    };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_comm_create_keyval_(comm_copy_attr_fn: *const c_void, comm_delete_attr_fn: *const c_void, comm_keyval: *mut MPI_Fint, extra_state: *const MPI_Aint, ierror: *mut MPI_Fint));

/// `MPI_KEYVAL_CREATE(COPY_FN, DELETE_FN, KEYVAL, EXTRA_STATE, IERROR)`:
/// MPI-1, default INTEGER values.
#[no_mangle]
pub unsafe extern "C" fn mpi_keyval_create_(
    copy_fn: *const c_void,
    delete_fn: *const c_void,
    keyval: *mut MPI_Fint,
    extra_state: *const MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: as for mpi_comm_create_keyval_, with the MPI-1 interfaces.
    let rc = unsafe {
        create_keyval::<MPI_Fint>(
            sys::PMPI_Keyval_create,
            copy_fn as usize,
            delete_fn as usize,
            keyval,
            *extra_state,
        )
    };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_keyval_create_(copy_fn: *const c_void, delete_fn: *const c_void, keyval: *mut MPI_Fint, extra_state: *const MPI_Fint, ierror: *mut MPI_Fint));

/// `MPI_COMM_SET_ATTR(COMM, COMM_KEYVAL, ATTRIBUTE_VAL, IERROR)`
#[no_mangle]
pub unsafe extern "C" fn mpi_comm_set_attr_(
    comm: *const MPI_Fint,
    comm_keyval: *const MPI_Fint,
    attribute_val: *const MPI_Aint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: gfortran passes the INTEGERs by reference.
    let (comm, kv, v) = unsafe { (*comm, *comm_keyval, *attribute_val) };
    let rc =
        crate::abi::attr::set_attr("MPI_Comm_set_attr", comm, NewValue::integer(kv, v as isize));
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_comm_set_attr_(comm: *const MPI_Fint, comm_keyval: *const MPI_Fint, attribute_val: *const MPI_Aint, ierror: *mut MPI_Fint));

/// `MPI_ATTR_PUT(COMM, KEYVAL, ATTRIBUTE_VAL, IERROR)`: a default INTEGER.
#[no_mangle]
pub unsafe extern "C" fn mpi_attr_put_(
    comm: *const MPI_Fint,
    keyval: *const MPI_Fint,
    attribute_val: *const MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: as for mpi_comm_set_attr_.
    let (comm, kv, v) = unsafe { (*comm, *keyval, *attribute_val) };
    let rc = crate::abi::attr::set_attr("MPI_Attr_put", comm, NewValue::integer(kv, v as isize));
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_attr_put_(comm: *const MPI_Fint, keyval: *const MPI_Fint, attribute_val: *const MPI_Fint, ierror: *mut MPI_Fint));

/// MPI_Comm_get_attr as Fortran sees it: (return code, the value if set):
/// a predefined attribute's int, an integer set from Fortran, or the
/// address a C program set.
fn get_attr(comm: MPI_Comm, keyval: c_int) -> (c_int, Option<MPI_Aint>) {
    crate::abi::attr::get_attr_fortran("MPI_Comm_get_attr", comm, keyval)
}

/// Stores the result of [`get_attr`] in the Fortran arguments.
///
/// # Safety
/// The arguments gfortran passes: ATTRIBUTE_VAL (of type `V`), FLAG
/// (LOGICAL), IERROR.
unsafe fn put_attr<V: Value>(
    got: (c_int, Option<MPI_Aint>),
    attribute_val: *mut V,
    flag: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    let (rc, value) = got;
    if rc == sys::MPI_SUCCESS {
        // SAFETY: the Fortran arguments (caller).
        unsafe {
            if let Some(v) = value {
                *attribute_val = V::from_c(v as *mut c_void);
            }
            *flag = value.is_some() as MPI_Fint;
        }
    }
    // SAFETY: the IERROR argument (caller).
    unsafe { put_ierror(ierror, rc) };
}

/// `MPI_COMM_GET_ATTR(COMM, COMM_KEYVAL, ATTRIBUTE_VAL, FLAG, IERROR)`
#[no_mangle]
pub unsafe extern "C" fn mpi_comm_get_attr_(
    comm: *const MPI_Fint,
    comm_keyval: *const MPI_Fint,
    attribute_val: *mut MPI_Aint,
    flag: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: the arguments gfortran passes, by reference.
    unsafe { put_attr(get_attr(*comm, *comm_keyval), attribute_val, flag, ierror) };
}
pmpi_twin!(mpi_comm_get_attr_(comm: *const MPI_Fint, comm_keyval: *const MPI_Fint, attribute_val: *mut MPI_Aint, flag: *mut MPI_Fint, ierror: *mut MPI_Fint));

/// `MPI_ATTR_GET(COMM, KEYVAL, ATTRIBUTE_VAL, FLAG, IERROR)`: a default
/// INTEGER value.
#[no_mangle]
pub unsafe extern "C" fn mpi_attr_get_(
    comm: *const MPI_Fint,
    keyval: *const MPI_Fint,
    attribute_val: *mut MPI_Fint,
    flag: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: the arguments gfortran passes, by reference.
    unsafe { put_attr(get_attr(*comm, *keyval), attribute_val, flag, ierror) };
}
pmpi_twin!(mpi_attr_get_(comm: *const MPI_Fint, keyval: *const MPI_Fint, attribute_val: *mut MPI_Fint, flag: *mut MPI_Fint, ierror: *mut MPI_Fint));

fortran! {
    mpi_type_free_keyval_ = PMPI_Type_free_keyval(type_keyval: IntOut);
    mpi_type_delete_attr_ = PMPI_Type_delete_attr(datatype: Int, type_keyval: Int);
    mpi_win_free_keyval_ = PMPI_Win_free_keyval(win_keyval: IntOut);
    mpi_win_delete_attr_ = PMPI_Win_delete_attr(win: Int, win_keyval: Int);
    mpi_comm_free_keyval_ = PMPI_Comm_free_keyval(comm_keyval: IntOut);
    mpi_keyval_free_ = PMPI_Keyval_free(keyval: IntOut);
    mpi_comm_delete_attr_ = PMPI_Comm_delete_attr(comm: Int, comm_keyval: Int);
    mpi_attr_delete_ = PMPI_Attr_delete(comm: Int, keyval: Int);
}

/// The predefined callback procedures for values of type `$v`.
macro_rules! predefined_procedures {
    ($v:ty: $null_copy:ident, $null_delete:ident, $dup:ident) => {
        #[doc = concat!("Fortran `", stringify!($null_copy), "`: FLAG = .FALSE. (the attribute is not copied).")]
        #[no_mangle]
        pub unsafe extern "C" fn $null_copy(
            _oldcomm: *const MPI_Fint,
            _keyval: *const MPI_Fint,
            _extra_state: *mut $v,
            _attribute_val_in: *mut $v,
            _attribute_val_out: *mut $v,
            flag: *mut MPI_Fint,
            ierror: *mut MPI_Fint,
        ) {
            // SAFETY: the LOGICAL and INTEGER a Fortran caller passes.
            unsafe {
                *flag = 0;
                put_ierror(ierror, sys::MPI_SUCCESS);
            }
        }

        #[doc = concat!("Fortran `", stringify!($null_delete), "`: does nothing.")]
        #[no_mangle]
        pub unsafe extern "C" fn $null_delete(
            _comm: *const MPI_Fint,
            _keyval: *const MPI_Fint,
            _attribute_val: *mut $v,
            _extra_state: *mut $v,
            ierror: *mut MPI_Fint,
        ) {
            // SAFETY: the INTEGER a Fortran caller passes.
            unsafe { put_ierror(ierror, sys::MPI_SUCCESS) };
        }

        #[doc = concat!("Fortran `", stringify!($dup), "`: the copy is the value; FLAG = .TRUE.")]
        #[no_mangle]
        pub unsafe extern "C" fn $dup(
            _oldcomm: *const MPI_Fint,
            _keyval: *const MPI_Fint,
            _extra_state: *mut $v,
            attribute_val_in: *mut $v,
            attribute_val_out: *mut $v,
            flag: *mut MPI_Fint,
            ierror: *mut MPI_Fint,
        ) {
            // SAFETY: the variables a Fortran caller passes.
            unsafe {
                *attribute_val_out = *attribute_val_in;
                *flag = 1;
                put_ierror(ierror, sys::MPI_SUCCESS);
            }
        }

        const _: FortranCopy<$v> = $null_copy;
        const _: FortranDelete<$v> = $null_delete;
        const _: FortranCopy<$v> = $dup;
    };
}

predefined_procedures!(MPI_Aint: mpi_comm_null_copy_fn_, mpi_comm_null_delete_fn_, mpi_comm_dup_fn_);
predefined_procedures!(MPI_Fint: mpi_null_copy_fn_, mpi_null_delete_fn_, mpi_dup_fn_);
predefined_procedures!(MPI_Aint: mpi_type_null_copy_fn_, mpi_type_null_delete_fn_, mpi_type_dup_fn_);
predefined_procedures!(MPI_Aint: mpi_win_null_copy_fn_, mpi_win_null_delete_fn_, mpi_win_dup_fn_);

/// The keyval and set calls of datatypes and windows (MPI-2 interfaces:
/// INTEGER(KIND=MPI_ADDRESS_KIND) values).
macro_rules! object_keyval_and_set {
    ($create:ident = $ccreate:ident, $set:ident = $kind:ident $cname:literal) => {
        #[doc = concat!("`", stringify!($create), "(COPY_FN, DELETE_FN, KEYVAL, EXTRA_STATE, IERROR)`")]
        #[no_mangle]
        pub unsafe extern "C" fn $create(
            copy_attr_fn: *const c_void,
            delete_attr_fn: *const c_void,
            keyval: *mut MPI_Fint,
            extra_state: *const MPI_Aint,
            ierror: *mut MPI_Fint,
        ) {
            // SAFETY: as for mpi_comm_create_keyval_.
            let rc = unsafe {
                create_keyval::<MPI_Aint>(
                    sys::$ccreate,
                    copy_attr_fn as usize,
                    delete_attr_fn as usize,
                    keyval,
                    *extra_state,
                )
            };
            // SAFETY: the IERROR argument gfortran passes.
            unsafe { put_ierror(ierror, rc) };
        }
        pmpi_twin!($create(copy_attr_fn: *const c_void, delete_attr_fn: *const c_void, keyval: *mut MPI_Fint, extra_state: *const MPI_Aint, ierror: *mut MPI_Fint));

        #[doc = concat!("`", stringify!($set), "(HANDLE, KEYVAL, ATTRIBUTE_VAL, IERROR)`")]
        #[no_mangle]
        pub unsafe extern "C" fn $set(
            handle: *const MPI_Fint,
            keyval: *const MPI_Fint,
            attribute_val: *const MPI_Aint,
            ierror: *mut MPI_Fint,
        ) {
            // SAFETY: as for mpi_comm_set_attr_.
            let (h, kv, v) = unsafe { (*handle, *keyval, *attribute_val) };
            let rc = obj_attr::set_attr(Kind::$kind, $cname, h, NewValue::integer(kv, v as isize));
            // SAFETY: the IERROR argument gfortran passes.
            unsafe { put_ierror(ierror, rc) };
        }
        pmpi_twin!($set(handle: *const MPI_Fint, keyval: *const MPI_Fint, attribute_val: *const MPI_Aint, ierror: *mut MPI_Fint));
    };
}

object_keyval_and_set!(
    mpi_type_create_keyval_ = PMPI_Type_create_keyval,
    mpi_type_set_attr_ = Type "MPI_Type_set_attr"
);
object_keyval_and_set!(
    mpi_win_create_keyval_ = PMPI_Win_create_keyval,
    mpi_win_set_attr_ = Win "MPI_Win_set_attr"
);

/// `MPI_TYPE_GET_ATTR(DATATYPE, TYPE_KEYVAL, ATTRIBUTE_VAL, FLAG, IERROR)`
#[no_mangle]
pub unsafe extern "C" fn mpi_type_get_attr_(
    datatype: *const MPI_Fint,
    type_keyval: *const MPI_Fint,
    attribute_val: *mut MPI_Aint,
    flag: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: by-reference INTEGERs.
    let (t, kv) = unsafe { (*datatype, *type_keyval) };
    let got = obj_attr::get_attr_fortran(Kind::Type, "MPI_Type_get_attr", t, kv);
    // SAFETY: the arguments gfortran passes, by reference.
    unsafe { put_attr(got, attribute_val, flag, ierror) };
}
pmpi_twin!(mpi_type_get_attr_(datatype: *const MPI_Fint, type_keyval: *const MPI_Fint, attribute_val: *mut MPI_Aint, flag: *mut MPI_Fint, ierror: *mut MPI_Fint));

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls recorded by the test procedures below.
    static LOG: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

    unsafe extern "C" fn test_copy(
        oldcomm: *const MPI_Fint,
        keyval: *const MPI_Fint,
        extra_state: *mut MPI_Aint,
        attribute_val_in: *mut MPI_Aint,
        attribute_val_out: *mut MPI_Aint,
        flag: *mut MPI_Fint,
        ierror: *mut MPI_Fint,
    ) {
        // SAFETY: called by the trampoline with valid references.
        unsafe {
            LOG.lock().unwrap().push(format!(
                "copy {} {} {} {}",
                *oldcomm, *keyval, *extra_state, *attribute_val_in
            ));
            *attribute_val_out = *attribute_val_in + 1;
            *flag = 1;
            *ierror = if *attribute_val_in == 13 { 99 } else { 0 };
        }
    }

    unsafe extern "C" fn test_delete(
        comm: *const MPI_Fint,
        keyval: *const MPI_Fint,
        attribute_val: *mut MPI_Fint,
        extra_state: *mut MPI_Fint,
        ierror: *mut MPI_Fint,
    ) {
        // SAFETY: as above.
        unsafe {
            LOG.lock().unwrap().push(format!(
                "delete {} {} {} {}",
                *comm, *keyval, *attribute_val, *extra_state
            ));
            *ierror = 0;
        }
    }

    #[test]
    fn trampolines_call_fortran_procedures_by_reference() {
        let r = Record::<MPI_Aint> {
            copy: Some(test_copy),
            delete: None,
            extra_state: -5,
        };
        let es = &r as *const Record<MPI_Aint> as *mut c_void;
        let mut out: *mut c_void = std::ptr::null_mut();
        let mut flag: c_int = 0;
        let outp = &mut out as *mut *mut c_void as *mut c_void;
        // SAFETY: a record and C out arguments, as the C side passes them.
        let rc =
            unsafe { copy_trampoline::<MPI_Aint>(7, 42, es, 100 as *mut c_void, outp, &mut flag) };
        assert_eq!((rc, out as usize, flag), (0, 101, 1));
        // The procedure's IERROR is the callback's result; nothing stored.
        out = std::ptr::null_mut();
        flag = 0;
        // SAFETY: as above.
        let rc =
            unsafe { copy_trampoline::<MPI_Aint>(7, 42, es, 13 as *mut c_void, outp, &mut flag) };
        assert_eq!((rc, out as usize, flag), (99, 0, 0));
        // No delete procedure: success, nothing called.
        // SAFETY: as above.
        assert_eq!(
            unsafe { delete_trampoline::<MPI_Aint>(7, 42, 5 as *mut c_void, es) },
            0
        );

        let r1 = Record::<MPI_Fint> {
            copy: None,
            delete: Some(test_delete),
            extra_state: 3,
        };
        let es1 = &r1 as *const Record<MPI_Fint> as *mut c_void;
        let v = (-2 as MPI_Aint) as *mut c_void;
        // SAFETY: as above.
        assert_eq!(unsafe { delete_trampoline::<MPI_Fint>(8, 43, v, es1) }, 0);
        flag = 5;
        // SAFETY: as above.
        let rc = unsafe { copy_trampoline::<MPI_Fint>(8, 43, es1, v, outp, &mut flag) };
        assert_eq!((rc, flag), (0, 0), "no copy procedure: not copied");
        let log = LOG.lock().unwrap().clone();
        assert_eq!(
            log,
            ["copy 7 42 -5 100", "copy 7 42 -5 13", "delete 8 43 -2 3"]
        );
    }

    #[test]
    fn predefined_procedures() {
        let (mut vin, mut vout, mut flag, mut ierr): (MPI_Aint, MPI_Aint, MPI_Fint, MPI_Fint) =
            (1 << 40, 0, 0, -1);
        let (c, k, mut es) = (1, 2, 0 as MPI_Aint);
        // SAFETY: valid references.
        unsafe { mpi_comm_dup_fn_(&c, &k, &mut es, &mut vin, &mut vout, &mut flag, &mut ierr) };
        assert_eq!((vout, flag, ierr), (1 << 40, 1, 0));
        ierr = -1;
        // SAFETY: valid references.
        unsafe {
            mpi_comm_null_copy_fn_(&c, &k, &mut es, &mut vin, &mut vout, &mut flag, &mut ierr)
        };
        assert_eq!((flag, ierr), (0, 0));
        let (mut i, mut o, mut es1): (MPI_Fint, MPI_Fint, MPI_Fint) = (-9, 0, 0);
        // SAFETY: valid references.
        unsafe { mpi_dup_fn_(&c, &k, &mut es1, &mut i, &mut o, &mut flag, &mut ierr) };
        assert_eq!((o, flag), (-9, 1));
        ierr = -1;
        // SAFETY: valid references.
        unsafe { mpi_null_delete_fn_(&c, &k, &mut i, &mut es1, &mut ierr) };
        assert_eq!(ierr, 0);

        let procs = predefined_procs();
        let what: Vec<_> = procs.iter().map(|p| predefined(p.1)).collect();
        use Predefined::*;
        // type, window, communicator (MPI-2), MPI-1
        let expected = [NullCopy, NullDelete, Dup].repeat(4);
        assert_eq!(what, expected.into_iter().map(Some).collect::<Vec<_>>());
        let user: FortranCopy<MPI_Aint> = test_copy;
        assert_eq!(predefined(user as usize), None);
        assert_eq!(predefined(0), None);
    }

    #[test]
    fn values_widen_and_truncate() {
        assert_eq!(MPI_Fint::from_c((-7 as MPI_Aint) as *mut c_void), -7);
        assert_eq!((-7 as MPI_Fint).to_c() as MPI_Aint, -7);
        assert_eq!(MPI_Aint::from_c((1usize << 40) as *mut c_void), 1 << 40);
    }
}
