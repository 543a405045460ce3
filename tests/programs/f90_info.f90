! Info objects from Fortran (use mpi): blank stripping of keys and
! values, blank padding of what comes back, VALUE untouched for a missing
! key, MPI_INFO_GET_STRING's BUFLEN without terminator, MPI_INFO_ENV and
! MPI_INFO_CREATE_ENV. One line per check: `finfo step=NAME ...`.
program f90_info
  use mpi
  implicit none
  integer :: info, dup, ierr, n, vlen, buflen, rank, i, env
  logical :: flag
  character(len=MPI_MAX_INFO_VAL) :: v
  character(len=8) :: short
  character(len=MPI_MAX_INFO_KEY) :: k

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  if (rank == 0) then
    call MPI_INFO_CREATE(info, ierr)
    call MPI_INFO_SET(info, '  alpha  ', ' first value  ', ierr)
    call MPI_INFO_SET(info, 'beta', 'second', ierr)
    call MPI_INFO_SET(info, 'alpha', 'third', ierr)
    call MPI_INFO_GET_NKEYS(info, n, ierr)
    write (*, '(a,i0,a,i0)') 'finfo step=nkeys n=', n, ' ierr=', ierr
    do i = 0, n - 1
      call MPI_INFO_GET_NTHKEY(info, i, k, ierr)
      call MPI_INFO_GET(info, k, MPI_MAX_INFO_VAL, v, flag, ierr)
      write (*, '(a,i0,a,a,a,a,a,l1)') 'finfo step=key i=', i, ' k=[', trim(k), '] v=[', &
           trim(v), '] flag=', flag
    end do
    call MPI_INFO_GET_VALUELEN(info, 'alpha', vlen, flag, ierr)
    write (*, '(a,i0,a,l1)') 'finfo step=valuelen len=', vlen, ' flag=', flag
    short = 'xxxxxxxx'
    call MPI_INFO_GET(info, 'beta', 3, short, flag, ierr)
    write (*, '(a,a,a,l1,a,i0)') 'finfo step=get_short v=[', short, '] flag=', flag, ' ierr=', ierr
    short = 'xxxxxxxx'
    call MPI_INFO_GET(info, 'missing', 8, short, flag, ierr)
    write (*, '(a,a,a,l1,a,i0)') 'finfo step=get_missing v=[', short, '] flag=', flag, ' ierr=', ierr
    short = 'xxxxxxxx'
    buflen = 4
    call MPI_INFO_GET_STRING(info, 'beta', buflen, short, flag, ierr)
    write (*, '(a,a,a,i0,a,l1)') 'finfo step=get_string v=[', short, '] buflen=', buflen, ' flag=', flag
    short = 'xxxxxxxx'
    buflen = 8
    call MPI_INFO_GET_STRING(info, 'beta', buflen, short, flag, ierr)
    write (*, '(a,a,a,i0,a,l1)') 'finfo step=get_string_full v=[', short, '] buflen=', buflen, ' flag=', flag
    call MPI_INFO_DUP(info, dup, ierr)
    call MPI_INFO_DELETE(dup, 'alpha', ierr)
    call MPI_INFO_DELETE(dup, 'alpha', i)
    call MPI_INFO_GET_NKEYS(dup, n, ierr)
    write (*, '(a,i0,a,i0)') 'finfo step=dup_delete n=', n, ' again=', i
    call MPI_INFO_FREE(dup, ierr)
    call MPI_INFO_FREE(info, ierr)
    write (*, '(a,l1,a,i0)') 'finfo step=free null=', info == MPI_INFO_NULL, ' ierr=', ierr
    call MPI_INFO_GET(MPI_INFO_ENV, 'maxprocs', MPI_MAX_INFO_VAL, v, flag, ierr)
    call MPI_INFO_CREATE_ENV(env, ierr)
    call MPI_INFO_GET_NKEYS(env, n, ierr)
    call MPI_INFO_GET_NKEYS(MPI_INFO_ENV, i, ierr)
    write (*, '(a,a,a,l1,a,l1)') 'finfo step=env maxprocs=', trim(v), ' flag=', flag, ' same=', n == i
    call MPI_INFO_FREE(env, ierr)
  end if
  call MPI_FINALIZE(ierr)
end program f90_info
