//! Fortran bindings of the one-sided communication calls. MPI_WIN_ALLOCATE
//! returns the base address in an INTEGER(KIND=MPI_ADDRESS_KIND) (mpif.h's
//! form; use it with a Cray pointer or C_F_POINTER). MPI_WIN_GET_ATTR is
//! written by hand: Fortran gets the attribute's value, not its address
//! (the program's own attributes: the value it stored).
use super::kinds::put_ierror;
use crate::sys::{self, MPI_Aint, MPI_Fint};
use std::os::raw::{c_int, c_void};

/// `MPI_WIN_GET_ATTR(WIN, WIN_KEYVAL, ATTRIBUTE_VAL, FLAG, IERROR)` with an
/// INTEGER(KIND=MPI_ADDRESS_KIND) ATTRIBUTE_VAL: the base address, or the
/// value of the size, displacement unit, flavor or model.
///
/// # Safety
/// The arguments gfortran passes, by reference.
#[no_mangle]
pub unsafe extern "C" fn mpi_win_get_attr_(
    win: *const MPI_Fint,
    win_keyval: *const MPI_Fint,
    attribute_val: *mut MPI_Aint,
    flag: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: the INTEGERs gfortran passes.
    let (h, kv) = unsafe { (*win, *win_keyval) };
    if !crate::mpi::obj_attr::WIN_PREDEFINED.contains(&kv) {
        // the program's keyvals: the integer it set (or a C pointer)
        let (rc, got) = crate::abi::obj_attr::get_attr_fortran(
            crate::abi::obj_attr::Kind::Win,
            "MPI_Win_get_attr",
            h,
            kv,
        );
        // SAFETY: the arguments gfortran passes.
        unsafe {
            if rc == sys::MPI_SUCCESS {
                if let Some(v) = got {
                    attribute_val.write(v);
                }
                flag.write(got.is_some() as MPI_Fint);
            }
            put_ierror(ierror, rc);
        }
        return;
    }
    let mut p: *mut c_void = std::ptr::null_mut();
    let mut found: c_int = 0;
    // SAFETY: by-reference INTEGERs; p and found are locals.
    let rc = unsafe {
        sys::PMPI_Win_get_attr(
            *win,
            *win_keyval,
            &mut p as *mut *mut c_void as *mut c_void,
            &mut found,
        )
    };
    if rc == sys::MPI_SUCCESS as c_int && found != 0 {
        let v = if kv == sys::MPI_WIN_SIZE {
            // SAFETY: PMPI_Win_get_attr points to the window's MPI_Aint size.
            unsafe { *(p as *const MPI_Aint) }
        } else if [
            sys::MPI_WIN_DISP_UNIT,
            sys::MPI_WIN_CREATE_FLAVOR,
            sys::MPI_WIN_MODEL,
        ]
        .contains(&kv)
        {
            // SAFETY: these attributes are ints of the window.
            unsafe { *(p as *const c_int) as MPI_Aint }
        } else {
            // MPI_WIN_BASE: the address
            p as MPI_Aint
        };
        // SAFETY: the ATTRIBUTE_VAL argument gfortran passes.
        unsafe { attribute_val.write(v) };
    }
    // SAFETY: the FLAG and IERROR arguments gfortran passes.
    unsafe {
        flag.write(found as MPI_Fint);
        put_ierror(ierror, rc);
    }
}
pmpi_twin!(mpi_win_get_attr_(win: *const MPI_Fint, win_keyval: *const MPI_Fint, attribute_val: *mut MPI_Aint, flag: *mut MPI_Fint, ierror: *mut MPI_Fint));

fortran! {
    mpi_alloc_mem_ = PMPI_Alloc_mem(size: Aint, info: Int, baseptr: Buf);
    mpi_free_mem_ = PMPI_Free_mem(base: Buf);
    mpi_win_create_ = PMPI_Win_create(base: Buf, size: Aint, disp_unit: Int, info: Int, comm: Int, win: IntOut);
    mpi_win_allocate_ = PMPI_Win_allocate(size: Aint, disp_unit: Int, info: Int, comm: Int, baseptr: Buf, win: IntOut);
    mpi_win_free_ = PMPI_Win_free(win: IntOut);
    mpi_win_get_group_ = PMPI_Win_get_group(win: Int, group: IntOut);
    mpi_win_set_errhandler_ = PMPI_Win_set_errhandler(win: Int, errhandler: Int);
    mpi_win_get_errhandler_ = PMPI_Win_get_errhandler(win: Int, errhandler: IntOut);
    mpi_win_set_name_ = PMPI_Win_set_name(win: Int, win_name: StrIn[name_len]);
    mpi_win_get_name_ = PMPI_Win_get_name(win: Int, win_name: StrOut[name_len], resultlen: IntOut);
    mpi_win_set_info_ = PMPI_Win_set_info(win: Int, info: Int);
    mpi_win_get_info_ = PMPI_Win_get_info(win: Int, info_used: IntOut);
    mpi_win_fence_ = PMPI_Win_fence(assert: Int, win: Int);
    mpi_put_ = PMPI_Put(origin_addr: Buf, origin_count: Int, origin_datatype: Int, target_rank: Int, target_disp: Aint, target_count: Int, target_datatype: Int, win: Int);
    mpi_get_ = PMPI_Get(origin_addr: Buf, origin_count: Int, origin_datatype: Int, target_rank: Int, target_disp: Aint, target_count: Int, target_datatype: Int, win: Int);
    mpi_accumulate_ = PMPI_Accumulate(origin_addr: Buf, origin_count: Int, origin_datatype: Int, target_rank: Int, target_disp: Aint, target_count: Int, target_datatype: Int, op: Int, win: Int);
    mpi_get_accumulate_ = PMPI_Get_accumulate(origin_addr: Buf, origin_count: Int, origin_datatype: Int, result_addr: Buf, result_count: Int, result_datatype: Int, target_rank: Int, target_disp: Aint, target_count: Int, target_datatype: Int, op: Int, win: Int);
    mpi_fetch_and_op_ = PMPI_Fetch_and_op(origin_addr: Buf, result_addr: Buf, datatype: Int, target_rank: Int, target_disp: Aint, op: Int, win: Int);
    mpi_compare_and_swap_ = PMPI_Compare_and_swap(origin_addr: Buf, compare_addr: Buf, result_addr: Buf, datatype: Int, target_rank: Int, target_disp: Aint, win: Int);
    mpi_rput_ = PMPI_Rput(origin_addr: Buf, origin_count: Int, origin_datatype: Int, target_rank: Int, target_disp: Aint, target_count: Int, target_datatype: Int, win: Int, request: IntOut);
    mpi_rget_ = PMPI_Rget(origin_addr: Buf, origin_count: Int, origin_datatype: Int, target_rank: Int, target_disp: Aint, target_count: Int, target_datatype: Int, win: Int, request: IntOut);
    mpi_raccumulate_ = PMPI_Raccumulate(origin_addr: Buf, origin_count: Int, origin_datatype: Int, target_rank: Int, target_disp: Aint, target_count: Int, target_datatype: Int, op: Int, win: Int, request: IntOut);
    mpi_rget_accumulate_ = PMPI_Rget_accumulate(origin_addr: Buf, origin_count: Int, origin_datatype: Int, result_addr: Buf, result_count: Int, result_datatype: Int, target_rank: Int, target_disp: Aint, target_count: Int, target_datatype: Int, op: Int, win: Int, request: IntOut);
    mpi_win_lock_ = PMPI_Win_lock(lock_type: Int, rank: Int, assert: Int, win: Int);
    mpi_win_unlock_ = PMPI_Win_unlock(rank: Int, win: Int);
    mpi_win_lock_all_ = PMPI_Win_lock_all(assert: Int, win: Int);
    mpi_win_unlock_all_ = PMPI_Win_unlock_all(win: Int);
    mpi_win_flush_ = PMPI_Win_flush(rank: Int, win: Int);
    mpi_win_flush_all_ = PMPI_Win_flush_all(win: Int);
    mpi_win_flush_local_ = PMPI_Win_flush_local(rank: Int, win: Int);
    mpi_win_flush_local_all_ = PMPI_Win_flush_local_all(win: Int);
    mpi_win_sync_ = PMPI_Win_sync(win: Int);
    mpi_win_post_ = PMPI_Win_post(group: Int, assert: Int, win: Int);
    mpi_win_start_ = PMPI_Win_start(group: Int, assert: Int, win: Int);
    mpi_win_complete_ = PMPI_Win_complete(win: Int);
    mpi_win_wait_ = PMPI_Win_wait(win: Int);
    mpi_win_test_ = PMPI_Win_test(win: Int, flag: Flag);
    // dynamic and shared windows, window error handlers
    mpi_win_create_dynamic_ = PMPI_Win_create_dynamic(info: Int, comm: Int, win: IntOut);
    mpi_win_attach_ = PMPI_Win_attach(win: Int, base: Buf, size: Aint);
    mpi_win_detach_ = PMPI_Win_detach(win: Int, base: Buf);
    mpi_win_allocate_shared_ = PMPI_Win_allocate_shared(size: Aint, disp_unit: Int, info: Int, comm: Int, baseptr: Buf, win: IntOut);
    mpi_win_shared_query_ = PMPI_Win_shared_query(win: Int, rank: Int, size: AintOut, disp_unit: IntOut, baseptr: Buf);
    mpi_win_create_errhandler_ = PMPI_Win_create_errhandler(win_errhandler_fn: ErrhandlerFunction, errhandler: IntOut);
    mpi_win_call_errhandler_ = PMPI_Win_call_errhandler(win: Int, errorcode: Int);
}
