! The Sessions model from Fortran (`use mpi`), without MPI_INIT: process
! sets, a communicator from "mpi://WORLD", an Allreduce on it.
! Prints: fsess rank=R n=N name0=NAME len0=L name1=NAME len1=L size=S sum=X null=T|F
program f90_session
  use mpi
  implicit none
  integer :: session, group, comm, ierr, n, rank, size, sum, len0, len1
  character(len=MPI_MAX_PSET_NAME_LEN) :: name0, name1
  call MPI_SESSION_INIT(MPI_INFO_NULL, MPI_ERRORS_RETURN, session, ierr)
  call MPI_SESSION_GET_NUM_PSETS(session, MPI_INFO_NULL, n, ierr)
  len0 = 0
  call MPI_SESSION_GET_NTH_PSET(session, MPI_INFO_NULL, 0, len0, name0, ierr)
  len0 = len(name0)
  call MPI_SESSION_GET_NTH_PSET(session, MPI_INFO_NULL, 0, len0, name0, ierr)
  len1 = len(name1)
  call MPI_SESSION_GET_NTH_PSET(session, MPI_INFO_NULL, 1, len1, name1, ierr)
  call MPI_GROUP_FROM_SESSION_PSET(session, 'mpi://WORLD', group, ierr)
  call MPI_COMM_CREATE_FROM_GROUP(group, 'org.vaced.f90', MPI_INFO_NULL, &
       MPI_ERRORS_RETURN, comm, ierr)
  call MPI_GROUP_FREE(group, ierr)
  call MPI_COMM_RANK(comm, rank, ierr)
  call MPI_COMM_SIZE(comm, size, ierr)
  call MPI_ALLREDUCE(rank, sum, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  call MPI_COMM_FREE(comm, ierr)
  call MPI_SESSION_FINALIZE(session, ierr)
  write (*, '(a,i0,a,i0,a,a,a,i0,a,a,a,i0,a,i0,a,i0,a,l1)') 'fsess rank=', rank, ' n=', n, &
       ' name0=', trim(name0), ' len0=', len0, ' name1=', trim(name1), ' len1=', len1, &
       ' size=', size, ' sum=', sum, ' null=', session == MPI_SESSION_NULL
end program f90_session
