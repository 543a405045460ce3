! MPI-IO from Fortran (use mpi): each rank writes 10 integers at its own
! offset with MPI_FILE_WRITE_AT_ALL, reads a neighbour's back, checks the
! size and the position. Prints " No Errors" on rank 0. The file name is
! the first argument.
program io_fortran
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, fh, i, errs, count
  integer :: status(MPI_STATUS_SIZE)
  integer :: buf(10), got(10)
  integer(kind=MPI_OFFSET_KIND) :: off, fsize
  character(len=256) :: name
  errs = 0
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, name)
  call mpi_file_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR + MPI_MODE_CREATE, &
                     MPI_INFO_NULL, fh, ierr)
  do i = 1, 10
    buf(i) = rank * 100 + i
  end do
  off = rank * 40
  call mpi_file_write_at_all(fh, off, buf, 10, MPI_INTEGER, status, ierr)
  call mpi_get_count(status, MPI_INTEGER, count, ierr)
  if (count /= 10) errs = errs + 1
  off = mod(rank + 1, nprocs) * 40
  call mpi_file_read_at_all(fh, off, got, 10, MPI_INTEGER, status, ierr)
  do i = 1, 10
    if (got(i) /= mod(rank + 1, nprocs) * 100 + i) errs = errs + 1
  end do
  call mpi_file_get_size(fh, fsize, ierr)
  if (fsize /= 40 * nprocs) errs = errs + 1
  call mpi_file_seek(fh, 8_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
  call mpi_file_get_position(fh, off, ierr)
  if (off /= 8) errs = errs + 1
  call mpi_file_close(fh, ierr)
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) call mpi_file_delete(name, MPI_INFO_NULL, ierr)
  if (errs /= 0) print *, 'rank', rank, 'errors', errs
  if (rank == 0 .and. errs == 0) print *, 'No Errors'
  call mpi_finalize(ierr)
end program io_fortran
