! The many-ranks mode keeps Fortran's global data private to each rank: a
! COMMON block, a SAVE variable and a module variable, each changed by every
! rank before it lets the others run (a barrier, then a ring of messages),
! then checked. Rank 0 prints "fortran globals private" or "... SHARED".
module hosted_state
  implicit none
  integer :: owner = -1
end module hosted_state

subroutine bump(rank, seen)
  implicit none
  integer, intent(in) :: rank
  integer, intent(out) :: seen
  integer, save :: calls = 0
  calls = calls + rank + 1
  seen = calls
end subroutine bump

program hosted_common
  use mpi
  use hosted_state
  implicit none
  integer :: rank, size, ierr, seen, token, lap, ok, all
  integer :: status(MPI_STATUS_SIZE)
  integer :: blk
  common /hostblk/ blk
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  blk = 1000 + rank
  owner = rank
  call bump(rank, seen)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  token = rank
  do lap = 1, 3
    call MPI_Sendrecv_replace(token, 1, MPI_INTEGER, mod(rank + 1, size), 0, &
         mod(rank + size - 1, size), 0, MPI_COMM_WORLD, status, ierr)
  end do
  call bump(rank, seen)
  ok = 0
  if (blk == 1000 + rank .and. owner == rank .and. seen == 2 * (rank + 1)) ok = 1
  call MPI_Allreduce(ok, all, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (all == 1) then
      print '(a,i0)', 'fortran globals private ranks=', size
    else
      print '(a,i0)', 'fortran globals SHARED ranks=', size
    end if
  end if
  call MPI_Finalize(ierr)
end program hosted_common
