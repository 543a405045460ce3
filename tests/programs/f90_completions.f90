! Point-to-point completions from free-form Fortran with `use mpi` (2
! ranks): persistent requests, MPI_ISENDRECV, MPI_MPROBE + MPI_MRECV,
! MPI_REQUEST_GET_STATUS and a generalized request with Fortran callbacks.
! Each check prints "ok NAME rank=R" or "FAIL NAME rank=R".
module greq_callbacks
  implicit none
  integer :: nquery = 0, nfree = 0
contains
  subroutine query_fn(extra_state, status, ierror)
    use mpi
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: status(MPI_STATUS_SIZE), ierror
    nquery = nquery + 1
    status(MPI_SOURCE) = int(extra_state)
    status(MPI_TAG) = 31
    call MPI_STATUS_SET_ELEMENTS(status, MPI_INTEGER, 6, ierror)
  end subroutine
  subroutine free_fn(extra_state, ierror)
    use mpi
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    nfree = nfree + 1
    ! the program's own EXTRA_STATE variable (as MPICH passes it)
    extra_state = extra_state + 1
    ierror = MPI_SUCCESS
  end subroutine
  subroutine cancel_fn(extra_state, complete, ierror)
    use mpi
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    ierror = MPI_SUCCESS
  end subroutine
end module

program f90_completions
  use mpi
  use greq_callbacks
  implicit none
  integer :: ierr, rank, peer, it, cnt, msg, g
  integer :: reqs(2), r, status(MPI_STATUS_SIZE), stats(MPI_STATUS_SIZE, 2)
  integer :: sbuf(10), rbuf(10)
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: flag

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank

  ! persistent exchange, three rounds
  call MPI_RECV_INIT(rbuf, 10, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_SEND_INIT(sbuf, 10, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, reqs(2), ierr)
  flag = .true.
  do it = 1, 3
    sbuf = rank * 100 + it
    rbuf = -1
    call MPI_STARTALL(2, reqs, ierr)
    call MPI_WAITALL(2, reqs, stats, ierr)
    flag = flag .and. all(rbuf == peer * 100 + it) .and. reqs(1) /= MPI_REQUEST_NULL
  end do
  call check(flag, 'persistent')
  call MPI_REQUEST_FREE(reqs(1), ierr)
  call MPI_REQUEST_FREE(reqs(2), ierr)
  call check(reqs(1) == MPI_REQUEST_NULL, 'request_free')

  ! MPI_ISENDRECV
  sbuf = rank + 7
  call MPI_ISENDRECV(sbuf, 10, MPI_INTEGER, peer, 2, rbuf, 10, MPI_INTEGER, peer, 2, &
                     MPI_COMM_WORLD, r, ierr)
  call MPI_WAIT(r, status, ierr)
  call MPI_GET_COUNT(status, MPI_INTEGER, cnt, ierr)
  call check(all(rbuf == peer + 7) .and. cnt == 10 .and. status(MPI_SOURCE) == peer, 'isendrecv')

  ! MPI_MPROBE + MPI_MRECV
  sbuf = rank + 50
  call MPI_SEND(sbuf, 4, MPI_INTEGER, peer, 3, MPI_COMM_WORLD, ierr)
  call MPI_MPROBE(peer, 3, MPI_COMM_WORLD, msg, status, ierr)
  call MPI_GET_COUNT(status, MPI_INTEGER, cnt, ierr)
  rbuf = -1
  call MPI_MRECV(rbuf, cnt, MPI_INTEGER, msg, status, ierr)
  call check(cnt == 4 .and. all(rbuf(1:4) == peer + 50) .and. msg == MPI_MESSAGE_NULL, 'mprobe')

  ! generalized request with Fortran callbacks
  extra = 1234
  call MPI_GREQUEST_START(query_fn, free_fn, cancel_fn, extra, g, ierr)
  call MPI_REQUEST_GET_STATUS(g, flag, status, ierr)
  call check(.not. flag, 'greq_incomplete')
  call MPI_GREQUEST_COMPLETE(g, ierr)
  call MPI_WAIT(g, status, ierr)
  call MPI_GET_COUNT(status, MPI_INTEGER, cnt, ierr)
  call check(g == MPI_REQUEST_NULL .and. cnt == 6 .and. status(MPI_SOURCE) == 1234 &
             .and. status(MPI_TAG) == 31 .and. nquery == 1 .and. nfree == 1 &
             .and. extra == 1235, 'grequest')

  call MPI_FINALIZE(ierr)
contains
  subroutine check(ok, name)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: name
    if (ok) then
      write (*, '(a,a,a,i0)') 'ok ', name, ' rank=', rank
    else
      write (*, '(a,a,a,i0)') 'FAIL ', name, ' rank=', rank
    end if
  end subroutine
end program
