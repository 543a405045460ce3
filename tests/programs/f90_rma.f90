! One-sided communication from Fortran (use mpi): Win_create + fence +
! Put / Get / Accumulate, a lock epoch, Fetch_and_op, Win_get_attr,
! Win_allocate (its base address through a Cray-free C_F_POINTER).
program f90_rma
  use mpi
  use iso_c_binding
  implicit none
  integer :: rank, n, ierr, win, win2, right, left, i, got, flavor
  integer :: buf(8), one, ticket
  integer(kind=MPI_ADDRESS_KIND) :: disp, wsize, attr, baseaddr
  logical :: flag
  integer, pointer :: arr(:)
  type(c_ptr) :: cp

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  right = mod(rank + 1, n)
  left = mod(rank + n - 1, n)
  buf = 0
  wsize = 8 * 4
  call MPI_Win_create(buf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 0
  call MPI_Put(rank + 10, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win, ierr)
  disp = 1
  call MPI_Accumulate(rank + 1, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  if (buf(1) /= left + 10) print *, 'FAIL put', rank, buf(1)
  if (rank == 0 .and. buf(2) /= n * (n + 1) / 2) print *, 'FAIL acc', buf(2)
  disp = 0
  call MPI_Get(got, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierr)
  if (got /= rank + 10) print *, 'FAIL get', rank, got

  one = 1
  disp = 2
  call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win, ierr)
  call MPI_Fetch_and_op(one, ticket, MPI_INTEGER, 0, disp, MPI_SUM, win, ierr)
  call MPI_Win_unlock(0, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. buf(3) /= n) print *, 'FAIL fetch_and_op', buf(3)
  if (ticket < 0 .or. ticket >= n) print *, 'FAIL ticket', ticket

  call MPI_Win_get_attr(win, MPI_WIN_SIZE, attr, flag, ierr)
  if (.not. flag .or. attr /= 32) print *, 'FAIL size attr', attr
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, attr, flag, ierr)
  if (.not. flag .or. attr /= 4) print *, 'FAIL disp attr', attr
  call MPI_Win_free(win, ierr)

  wsize = 4 * n
  call MPI_Win_allocate(wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, baseaddr, win2, ierr)
  cp = transfer(baseaddr, cp)
  call c_f_pointer(cp, arr, [n])
  arr = -1
  call MPI_Win_get_attr(win2, MPI_WIN_CREATE_FLAVOR, attr, flag, ierr)
  flavor = int(attr)
  if (flavor /= MPI_WIN_FLAVOR_ALLOCATE) print *, 'FAIL flavor', flavor
  call MPI_Win_fence(0, win2, ierr)
  disp = rank
  call MPI_Put(rank, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win2, ierr)
  call MPI_Win_fence(0, win2, ierr)
  do i = 1, n
    if (i - 1 == left) then
      if (arr(i) /= left) print *, 'FAIL allocate put', i, arr(i)
    else if (arr(i) /= -1) then
      print *, 'FAIL allocate untouched', i, arr(i)
    end if
  end do
  call MPI_Win_free(win2, ierr)
  if (rank == 0) print '(a)', 'f90 rma ok'
  call MPI_Finalize(ierr)
end program f90_rma
