//! Fortran bindings that the table cannot express (listed in
//! `generator::HAND_WRITTEN` for the `mpi` module's interfaces): MPI_INIT and
//! MPI_INIT_THREAD (no argc / argv), the DOUBLE PRECISION functions
//! MPI_WTIME and MPI_WTICK (virtual time), MPI_PCONTROL (no IERROR),
//! MPI_BUFFER_DETACH (the buffer address means nothing in Fortran), the
//! INTEGER(KIND=MPI_ADDRESS_KIND) functions MPI_AINT_ADD / MPI_AINT_DIFF,
//! and the MPI-1 routines whose Fortran arguments are default INTEGERs
//! where C has MPI_Aint (MPI_TYPE_HVECTOR, MPI_TYPE_HINDEXED,
//! MPI_TYPE_STRUCT, MPI_ADDRESS, MPI_TYPE_EXTENT / LB / UB).
use super::kinds::{put_ierror, Arg, Buf};
use crate::abi::callbacks::raise;
use crate::mpi::error::MpiError;
use crate::sys::{self, MPI_Aint, MPI_Fint};
use std::os::raw::{c_int, c_void};

/// `MPI_INIT(IERROR)`
#[no_mangle]
pub unsafe extern "C" fn mpi_init_(ierror: *mut MPI_Fint) {
    // SAFETY: MPI_Init accepts null argc / argv.
    let rc = unsafe { sys::PMPI_Init(std::ptr::null_mut(), std::ptr::null_mut()) };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_init_(ierror: *mut MPI_Fint));

/// `MPI_INIT_THREAD(REQUIRED, PROVIDED, IERROR)`
#[no_mangle]
pub unsafe extern "C" fn mpi_init_thread_(
    required: *const MPI_Fint,
    provided: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: gfortran passes the INTEGERs by reference; MPI_Init_thread
    // accepts null argc / argv and writes `provided`.
    let rc = unsafe {
        sys::PMPI_Init_thread(
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            *required,
            provided,
        )
    };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_init_thread_(required: *const MPI_Fint, provided: *mut MPI_Fint, ierror: *mut MPI_Fint));

/// `DOUBLE PRECISION MPI_WTIME()`: virtual time while MPI runs.
#[no_mangle]
pub unsafe extern "C" fn mpi_wtime_() -> f64 {
    // SAFETY: no arguments, no preconditions.
    unsafe { sys::PMPI_Wtime() }
}
pmpi_twin!(mpi_wtime_() -> f64);

/// `DOUBLE PRECISION MPI_WTICK()`
#[no_mangle]
pub unsafe extern "C" fn mpi_wtick_() -> f64 {
    // SAFETY: no arguments, no preconditions.
    unsafe { sys::PMPI_Wtick() }
}
pmpi_twin!(mpi_wtick_() -> f64);

/// `MPI_PCONTROL(LEVEL)`: the standard gives it no IERROR, so nothing after
/// LEVEL is touched (programs may pass more arguments).
#[no_mangle]
pub unsafe extern "C" fn mpi_pcontrol_(level: *const MPI_Fint) {
    // SAFETY: gfortran passes LEVEL by reference; MPI_Pcontrol reads only
    // its named argument.
    unsafe { sys::PMPI_Pcontrol(*level) };
}
pmpi_twin!(mpi_pcontrol_(level: *const MPI_Fint));

/// `MPI_BUFFER_DETACH(BUFFER_ADDR, SIZE, IERROR)`: the address of the
/// detached buffer cannot be returned to Fortran; BUFFER_ADDR is untouched
/// (as in MPICH).
#[no_mangle]
pub unsafe extern "C" fn mpi_buffer_detach_(
    _buffer_addr: *mut c_void,
    size: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    let mut addr: *mut c_void = std::ptr::null_mut();
    // SAFETY: addr is a local `void *` for the C call to store into; size
    // is the INTEGER gfortran passes.
    let rc: c_int =
        unsafe { sys::PMPI_Buffer_detach(&mut addr as *mut *mut c_void as *mut c_void, size) };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_buffer_detach_(buffer_addr: *mut c_void, size: *mut MPI_Fint, ierror: *mut MPI_Fint));

/// `INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD(BASE, DISP)`
#[no_mangle]
pub unsafe extern "C" fn mpi_aint_add_(base: *const MPI_Aint, disp: *const MPI_Aint) -> MPI_Aint {
    // SAFETY: gfortran passes both INTEGERs by reference.
    unsafe { sys::PMPI_Aint_add(*base, *disp) }
}
pmpi_twin!(mpi_aint_add_(base: *const MPI_Aint, disp: *const MPI_Aint) -> MPI_Aint);

/// `INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_DIFF(ADDR1, ADDR2)`
#[no_mangle]
pub unsafe extern "C" fn mpi_aint_diff_(
    addr1: *const MPI_Aint,
    addr2: *const MPI_Aint,
) -> MPI_Aint {
    // SAFETY: gfortran passes both INTEGERs by reference.
    unsafe { sys::PMPI_Aint_diff(*addr1, *addr2) }
}
pmpi_twin!(mpi_aint_diff_(addr1: *const MPI_Aint, addr2: *const MPI_Aint) -> MPI_Aint);

/// `count` default INTEGER displacements as MPI_Aint (none when `count`
/// is negative: the C call reports the bad count).
///
/// # Safety
/// `displs` points to `count` INTEGERs when `count > 0`.
unsafe fn widened(count: MPI_Fint, displs: *const MPI_Fint) -> Vec<MPI_Aint> {
    (0..count.max(0) as usize)
        // SAFETY: within the `count` INTEGERs (caller).
        .map(|i| unsafe { *displs.add(i) } as MPI_Aint)
        .collect()
}

/// `MPI_TYPE_HVECTOR(COUNT, BLOCKLENGTH, STRIDE, OLDTYPE, NEWTYPE, IERROR)`,
/// STRIDE a default INTEGER (MPI-1).
#[no_mangle]
pub unsafe extern "C" fn mpi_type_hvector_(
    count: *const MPI_Fint,
    blocklength: *const MPI_Fint,
    stride: *const MPI_Fint,
    oldtype: *const MPI_Fint,
    newtype: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: gfortran passes the INTEGERs by reference; NEWTYPE is written.
    let rc = unsafe {
        sys::PMPI_Type_hvector(*count, *blocklength, *stride as MPI_Aint, *oldtype, newtype)
    };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_type_hvector_(count: *const MPI_Fint, blocklength: *const MPI_Fint, stride: *const MPI_Fint, oldtype: *const MPI_Fint, newtype: *mut MPI_Fint, ierror: *mut MPI_Fint));

/// `MPI_TYPE_HINDEXED(COUNT, BLOCKLENGTHS, DISPLACEMENTS, OLDTYPE, NEWTYPE,
/// IERROR)`, DISPLACEMENTS default INTEGERs (MPI-1).
#[no_mangle]
pub unsafe extern "C" fn mpi_type_hindexed_(
    count: *const MPI_Fint,
    array_of_blocklengths: *const MPI_Fint,
    array_of_displacements: *const MPI_Fint,
    oldtype: *const MPI_Fint,
    newtype: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: gfortran passes COUNT by reference and arrays of COUNT.
    let displs = unsafe { widened(*count, array_of_displacements) };
    // SAFETY: as above; the widened copy has COUNT entries.
    let rc = unsafe {
        sys::PMPI_Type_hindexed(
            *count,
            array_of_blocklengths,
            displs.as_ptr(),
            *oldtype,
            newtype,
        )
    };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_type_hindexed_(count: *const MPI_Fint, array_of_blocklengths: *const MPI_Fint, array_of_displacements: *const MPI_Fint, oldtype: *const MPI_Fint, newtype: *mut MPI_Fint, ierror: *mut MPI_Fint));

/// `MPI_TYPE_STRUCT(COUNT, BLOCKLENGTHS, DISPLACEMENTS, TYPES, NEWTYPE,
/// IERROR)`, DISPLACEMENTS default INTEGERs (MPI-1).
#[no_mangle]
pub unsafe extern "C" fn mpi_type_struct_(
    count: *const MPI_Fint,
    array_of_blocklengths: *const MPI_Fint,
    array_of_displacements: *const MPI_Fint,
    array_of_types: *const MPI_Fint,
    newtype: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: gfortran passes COUNT by reference and arrays of COUNT.
    let displs = unsafe { widened(*count, array_of_displacements) };
    // SAFETY: as above; the widened copy has COUNT entries.
    let rc = unsafe {
        sys::PMPI_Type_struct(
            *count,
            array_of_blocklengths,
            displs.as_ptr(),
            array_of_types,
            newtype,
        )
    };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_type_struct_(count: *const MPI_Fint, array_of_blocklengths: *const MPI_Fint, array_of_displacements: *const MPI_Fint, array_of_types: *const MPI_Fint, newtype: *mut MPI_Fint, ierror: *mut MPI_Fint));

/// `MPI_ADDRESS(LOCATION, ADDRESS, IERROR)`, ADDRESS a default INTEGER
/// (MPI-1): the address wraps to 32 bits, so differences of addresses
/// (what MPI-1 programs compute displacements with) are right within
/// 2 GiB; absolute addresses need MPI_GET_ADDRESS.
#[no_mangle]
pub unsafe extern "C" fn mpi_address_(
    location: *mut c_void,
    address: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    let mut a: MPI_Aint = 0;
    // SAFETY: LOCATION is the address gfortran passes (MPI_BOTTOM turned
    // into C's); `a` is a local MPI_Aint.
    let rc = unsafe { sys::PMPI_Address(Buf::new(location, 0).c(), &mut a) };
    if rc == sys::MPI_SUCCESS {
        // SAFETY: the INTEGER gfortran passes.
        unsafe { *address = a as MPI_Fint };
    }
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_address_(location: *mut c_void, address: *mut MPI_Fint, ierror: *mut MPI_Fint));

/// MPI_TYPE_EXTENT / LB / UB: the C routine's MPI_Aint result into the
/// default INTEGER, an MPI_ERR_ARG error when it does not fit.
///
/// # Safety
/// `datatype`, `out` and `ierror` are the INTEGERs gfortran passes.
unsafe fn aint_query(
    name: &str,
    f: unsafe extern "C" fn(sys::MPI_Datatype, *mut MPI_Aint) -> c_int,
    datatype: *const MPI_Fint,
    out: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    let mut a: MPI_Aint = 0;
    // SAFETY: DATATYPE by reference (caller); `a` is a local MPI_Aint.
    let mut rc = unsafe { f(*datatype, &mut a) };
    if rc == sys::MPI_SUCCESS {
        match MPI_Fint::try_from(a) {
            // SAFETY: the INTEGER gfortran passes (caller).
            Ok(v) => unsafe { *out = v },
            Err(_) => {
                let msg = format!(
                    "{name}: the value {a} does not fit the INTEGER argument \
                     (use the MPI-2 routine with INTEGER(KIND=MPI_ADDRESS_KIND))"
                );
                rc = raise(
                    name,
                    sys::MPI_COMM_WORLD,
                    MpiError::new(sys::MPI_ERR_ARG, msg),
                );
            }
        }
    }
    // SAFETY: the IERROR argument gfortran passes (caller).
    unsafe { put_ierror(ierror, rc) };
}

/// `MPI_TYPE_EXTENT(DATATYPE, EXTENT, IERROR)`, EXTENT a default INTEGER.
#[no_mangle]
pub unsafe extern "C" fn mpi_type_extent_(
    datatype: *const MPI_Fint,
    extent: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: the arguments gfortran passes.
    unsafe {
        aint_query(
            "MPI_Type_extent",
            sys::PMPI_Type_extent,
            datatype,
            extent,
            ierror,
        )
    };
}
pmpi_twin!(mpi_type_extent_(datatype: *const MPI_Fint, extent: *mut MPI_Fint, ierror: *mut MPI_Fint));

/// `MPI_TYPE_LB(DATATYPE, DISPLACEMENT, IERROR)`, a default INTEGER.
#[no_mangle]
pub unsafe extern "C" fn mpi_type_lb_(
    datatype: *const MPI_Fint,
    displacement: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: the arguments gfortran passes.
    unsafe {
        aint_query(
            "MPI_Type_lb",
            sys::PMPI_Type_lb,
            datatype,
            displacement,
            ierror,
        )
    };
}
pmpi_twin!(mpi_type_lb_(datatype: *const MPI_Fint, displacement: *mut MPI_Fint, ierror: *mut MPI_Fint));

/// `MPI_TYPE_UB(DATATYPE, DISPLACEMENT, IERROR)`, a default INTEGER.
#[no_mangle]
pub unsafe extern "C" fn mpi_type_ub_(
    datatype: *const MPI_Fint,
    displacement: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: the arguments gfortran passes.
    unsafe {
        aint_query(
            "MPI_Type_ub",
            sys::PMPI_Type_ub,
            datatype,
            displacement,
            ierror,
        )
    };
}
pmpi_twin!(mpi_type_ub_(datatype: *const MPI_Fint, displacement: *mut MPI_Fint, ierror: *mut MPI_Fint));
