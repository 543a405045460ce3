! The many-ranks mode: Fortran STOP (the runtime calls exit) after
! MPI_Finalize ends the rank that stops only; the others go on and print.
program fstop
  use mpi
  implicit none
  integer :: rank, ierr, x
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  x = 1
  call MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (rank == 1) stop
  print '(a,i0,a,i0)', 'after rank=', rank, ' x=', x
end program fstop
