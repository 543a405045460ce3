! The default error handler from `use mpi_f08` (MPI_ERRORS_ARE_FATAL): an
! MPI_Send to a rank that does not exist, without IERROR, ends the job
! naming the rank and the call. Prints `before` first, never `after`.
program f08_fatal
  use mpi_f08
  implicit none
  integer :: x = 1
  call MPI_Init()
  write (*, '(a)') 'before'
  flush (6)
  call MPI_Send(x, 1, MPI_INTEGER, 99, 0, MPI_COMM_WORLD)
  write (*, '(a)') 'after'
  call MPI_Finalize()
end program f08_fatal
