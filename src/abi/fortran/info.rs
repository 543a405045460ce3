//! Fortran bindings of the info calls and of the communicator calls that
//! take info (and MPI_COMM_CREATE_GROUP). Keys and values read from Fortran
//! lose their leading and trailing blanks (MPI's rule for CHARACTER
//! arguments); values and keys written to Fortran are blank-padded.
//!
//! Written by hand (listed in `generator::HAND_WRITTEN`): MPI_INFO_GET and
//! MPI_INFO_GET_STRING, which leave VALUE untouched when the key is not
//! set, and where MPI_INFO_GET_STRING's BUFLEN counts characters without a
//! terminator; MPI_INFO_CREATE_ENV, which has no ARGC / ARGV in Fortran.
use super::kinds::{blank_padded, put_ierror, Arg, StrIn};
use crate::mpi::info::MAX_VAL;
use crate::sys::{self, MPI_Fint};
use std::os::raw::{c_char, c_int};

fortran! {
    mpi_info_create_ = PMPI_Info_create(info: IntOut);
    mpi_info_set_ = PMPI_Info_set(info: Int, key: StrIn[key_len], value: StrIn[value_len]);
    mpi_info_delete_ = PMPI_Info_delete(info: Int, key: StrIn[key_len]);
    mpi_info_get_valuelen_ = PMPI_Info_get_valuelen(info: Int, key: StrIn[key_len], valuelen: IntOut, flag: Flag);
    mpi_info_get_nkeys_ = PMPI_Info_get_nkeys(info: Int, nkeys: IntOut);
    mpi_info_get_nthkey_ = PMPI_Info_get_nthkey(info: Int, n: Int, key: StrOut[key_len]);
    mpi_info_dup_ = PMPI_Info_dup(info: Int, newinfo: IntOut);
    mpi_info_free_ = PMPI_Info_free(info: IntOut);
    mpi_comm_set_info_ = PMPI_Comm_set_info(comm: Int, info: Int);
    mpi_comm_get_info_ = PMPI_Comm_get_info(comm: Int, info_used: IntOut);
    mpi_comm_dup_with_info_ = PMPI_Comm_dup_with_info(comm: Int, info: Int, newcomm: IntOut);
    mpi_comm_create_group_ = PMPI_Comm_create_group(comm: Int, group: Int, tag: Int, newcomm: IntOut);
}

/// Write the C string in `tmp` (NUL-terminated) to the Fortran CHARACTER
/// `value` of `len` characters, blank-padded.
///
/// # Safety
/// `len == 0` or `value` has `len` writable characters.
unsafe fn to_fortran(value: *mut c_char, len: usize, tmp: &[u8]) {
    if len == 0 {
        return;
    }
    let n = tmp.iter().position(|&b| b == 0).unwrap_or(tmp.len());
    // SAFETY: `len` writable characters at value (caller).
    let out = unsafe { std::slice::from_raw_parts_mut(value as *mut u8, len) };
    blank_padded(out, &tmp[..n]);
}

/// `MPI_INFO_GET(INFO, KEY, VALUELEN, VALUE, FLAG, IERROR)`
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mpi_info_get_(
    info: *const MPI_Fint,
    key: *const c_char,
    valuelen: *const MPI_Fint,
    value: *mut c_char,
    flag: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
    key_len: usize,
    value_len: usize,
) {
    // SAFETY: gfortran passes KEY with its length, the INTEGERs by reference.
    let (mut k, vl, h) = unsafe { (StrIn::new(key, key_len), *valuelen, *info) };
    // No value is longer than MPI_MAX_INFO_VAL: C writes at most that and
    // a NUL, whatever VALUELEN says.
    let mut tmp = vec![0u8; vl.clamp(0, MAX_VAL as MPI_Fint) as usize + 1];
    let mut f: c_int = 0;
    // SAFETY: tmp has room for min(valuelen, MAX_VAL) + 1 bytes, all that
    // C writes; f is a local int.
    let rc = unsafe { sys::PMPI_Info_get(h, k.c(), vl, tmp.as_mut_ptr() as *mut c_char, &mut f) };
    if f != 0 {
        // SAFETY: VALUE has value_len characters (gfortran).
        unsafe { to_fortran(value, value_len, &tmp) };
    }
    // SAFETY: FLAG and IERROR are the variables gfortran passes.
    unsafe {
        *flag = (f != 0) as MPI_Fint;
        put_ierror(ierror, rc);
    }
}
pmpi_twin!(mpi_info_get_(info: *const MPI_Fint, key: *const c_char, valuelen: *const MPI_Fint, value: *mut c_char, flag: *mut MPI_Fint, ierror: *mut MPI_Fint, key_len: usize, value_len: usize));

/// `MPI_INFO_GET_STRING(INFO, KEY, BUFLEN, VALUE, FLAG, IERROR)`: BUFLEN
/// in is the characters of VALUE to fill, out the length of the value (no
/// terminator in Fortran); the value is cut to BUFLEN characters and VALUE
/// blank-padded after it (as MPICH); BUFLEN 0 leaves VALUE as it is.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mpi_info_get_string_(
    info: *const MPI_Fint,
    key: *const c_char,
    buflen: *mut MPI_Fint,
    value: *mut c_char,
    flag: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
    key_len: usize,
    value_len: usize,
) {
    // SAFETY: gfortran passes KEY with its length, the INTEGERs by reference.
    let (mut k, room, h) = unsafe { (StrIn::new(key, key_len), *buflen, *info) };
    let use_chars = room.clamp(0, MAX_VAL as MPI_Fint);
    let mut tmp = vec![0u8; use_chars as usize + 1];
    // C's buflen counts the NUL; 0 stays 0 (nothing written).
    let mut b: c_int = if room > 0 { use_chars + 1 } else { room };
    let mut f: c_int = 0;
    // SAFETY: tmp has room for b bytes when b > 0; b and f are locals.
    let rc = unsafe {
        sys::PMPI_Info_get_string(h, k.c(), &mut b, tmp.as_mut_ptr() as *mut c_char, &mut f)
    };
    if rc == sys::MPI_SUCCESS && f != 0 {
        if room > 0 {
            // SAFETY: VALUE has value_len characters (gfortran); C wrote at
            // most BUFLEN of them into tmp, the rest of VALUE is blanked.
            unsafe { to_fortran(value, value_len, &tmp) };
        }
        // SAFETY: BUFLEN is the INTEGER gfortran passes.
        unsafe { *buflen = b - 1 };
    }
    // SAFETY: FLAG and IERROR are the variables gfortran passes.
    unsafe {
        *flag = (f != 0) as MPI_Fint;
        put_ierror(ierror, rc);
    }
}
pmpi_twin!(mpi_info_get_string_(info: *const MPI_Fint, key: *const c_char, buflen: *mut MPI_Fint, value: *mut c_char, flag: *mut MPI_Fint, ierror: *mut MPI_Fint, key_len: usize, value_len: usize));

/// `MPI_INFO_CREATE_ENV(INFO, IERROR)`
#[no_mangle]
pub unsafe extern "C" fn mpi_info_create_env_(info: *mut MPI_Fint, ierror: *mut MPI_Fint) {
    // SAFETY: INFO is the INTEGER gfortran passes; C accepts null argv.
    let rc = unsafe { sys::PMPI_Info_create_env(0, std::ptr::null_mut(), info) };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_info_create_env_(info: *mut MPI_Fint, ierror: *mut MPI_Fint));
