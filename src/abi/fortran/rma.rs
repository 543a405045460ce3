//! Fortran bindings of the one-sided communication calls. MPI_WIN_ALLOCATE
//! returns the base address in an INTEGER(KIND=MPI_ADDRESS_KIND) (mpif.h's
//! form; use it with a Cray pointer or C_F_POINTER).
fortran! {
    mpi_win_create_ = PMPI_Win_create(base: Buf, size: Aint, disp_unit: Int, info: Int, comm: Int, win: IntOut);
    mpi_win_allocate_ = PMPI_Win_allocate(size: Aint, disp_unit: Int, info: Int, comm: Int, baseptr: Buf, win: IntOut);
    mpi_win_free_ = PMPI_Win_free(win: IntOut);
    mpi_win_get_group_ = PMPI_Win_get_group(win: Int, group: IntOut);
    mpi_win_set_errhandler_ = PMPI_Win_set_errhandler(win: Int, errhandler: Int);
    mpi_win_get_errhandler_ = PMPI_Win_get_errhandler(win: Int, errhandler: IntOut);
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
}
