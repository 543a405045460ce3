//! Fortran bindings of the MPI-4 Sessions calls (`crate::abi::session`).
//! Process-set names and string tags read from Fortran lose their leading
//! and trailing blanks (MPI's rule for CHARACTER arguments).
//!
//! Written by hand (listed in `generator::HAND_WRITTEN`):
//! MPI_SESSION_GET_NTH_PSET, whose PSET_LEN is read and written.
use super::kinds::{blank_padded, put_ierror};
use crate::sys::{self, MPI_Fint};
use std::os::raw::{c_char, c_int};

fortran! {
    mpi_session_init_ = PMPI_Session_init(info: Int, errhandler: Int, session: IntOut);
    mpi_session_finalize_ = PMPI_Session_finalize(session: IntOut);
    mpi_session_get_info_ = PMPI_Session_get_info(session: Int, info_used: IntOut);
    mpi_session_get_num_psets_ = PMPI_Session_get_num_psets(session: Int, info: Int, npset_names: IntOut);
    mpi_session_get_pset_info_ = PMPI_Session_get_pset_info(session: Int, pset_name: StrIn[pset_name_len], info: IntOut);
    mpi_group_from_session_pset_ = PMPI_Group_from_session_pset(session: Int, pset_name: StrIn[pset_name_len], newgroup: IntOut);
    mpi_comm_create_from_group_ = PMPI_Comm_create_from_group(group: Int, stringtag: StrIn[stringtag_len], info: Int, errhandler: Int, newcomm: IntOut);
    mpi_session_create_errhandler_ = PMPI_Session_create_errhandler(session_errhandler_fn: ErrhandlerFunction, errhandler: IntOut);
    mpi_session_set_errhandler_ = PMPI_Session_set_errhandler(session: Int, errhandler: Int);
    mpi_session_get_errhandler_ = PMPI_Session_get_errhandler(session: Int, errhandler: IntOut);
    mpi_session_call_errhandler_ = PMPI_Session_call_errhandler(session: Int, errorcode: Int);
}

/// `MPI_SESSION_GET_NTH_PSET(SESSION, INFO, N, PSET_LEN, PSET_NAME, IERROR)`:
/// PSET_LEN in is the characters of PSET_NAME to fill (0: only the length
/// is returned and PSET_NAME is left as it is), out the length of the name
/// (no terminator in Fortran); the name is cut to PSET_LEN characters and
/// PSET_NAME blank-padded after it.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mpi_session_get_nth_pset_(
    session: *const MPI_Fint,
    info: *const MPI_Fint,
    n: *const MPI_Fint,
    pset_len: *mut MPI_Fint,
    pset_name: *mut c_char,
    ierror: *mut MPI_Fint,
    name_len: usize,
) {
    // SAFETY: gfortran passes the INTEGERs by reference.
    let (s, i, k, room) = unsafe { (*session, *info, *n, *pset_len) };
    let fill = room.clamp(0, sys::MPI_MAX_PSET_NAME_LEN) as usize;
    let mut tmp = vec![0u8; fill + 1];
    // C's pset_len counts the NUL; 0 stays 0 (nothing written)
    let mut len: c_int = if room > 0 { fill as c_int + 1 } else { 0 };
    // SAFETY: tmp has room for len bytes; len is a local.
    let rc = unsafe {
        sys::PMPI_Session_get_nth_pset(s, i, k, &mut len, tmp.as_mut_ptr() as *mut c_char)
    };
    if rc == sys::MPI_SUCCESS {
        if room > 0 && name_len > 0 {
            let end = tmp.iter().position(|&b| b == 0).unwrap_or(tmp.len());
            // SAFETY: PSET_NAME has name_len characters (gfortran).
            let out = unsafe { std::slice::from_raw_parts_mut(pset_name as *mut u8, name_len) };
            blank_padded(out, &tmp[..end]);
        }
        // SAFETY: PSET_LEN is the INTEGER gfortran passes.
        unsafe { *pset_len = len - 1 };
    }
    // SAFETY: the IERROR argument gfortran passes (null when OPTIONAL and absent).
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_session_get_nth_pset_(session: *const MPI_Fint, info: *const MPI_Fint, n: *const MPI_Fint, pset_len: *mut MPI_Fint, pset_name: *mut c_char, ierror: *mut MPI_Fint, name_len: usize));
