! Point-to-point from free-form Fortran with `use mpi` (2 or more ranks).
!
! The checks of f77_p2p.f (same names), plus: buffers of several types
! through the same routines (the module's choice arguments accept any type
! without -fallow-argument-mismatch), the Test family, MPI_Issend,
! MPI_Request_free, a PMPI_ routine and MPIX_VACED_COMPUTE. Each check
! prints "ok NAME rank=R" or "FAIL NAME rank=R"; also
!   name rank=R len=L name=<MPI_GET_PROCESSOR_NAME>
!   errstr len=L text=<MPI_ERROR_STRING(MPI_ERR_TRUNCATE)>
program f90_p2p
  use mpi
  implicit none
  integer, parameter :: ne = 100, nr = 40000
  integer :: ierr, rank, nprocs, peer, i, k, cnt, length, cls, left, right
  integer :: idx, nout, v, sv, j
  integer :: status(MPI_STATUS_SIZE), stats(MPI_STATUS_SIZE, 6)
  integer :: reqs(6), ind(6), seen(3)
  integer :: ibuf(nr), iref(nr), one(1)
  double precision :: dbuf(nr), dref(nr), t0, t1
  complex :: zbuf(4), zref(4)
  logical :: lbuf(3), flag, ok
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  character(len=MPI_MAX_ERROR_STRING) :: estr
  character(len=12) :: sbuf

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  flag = .false.
  call MPI_INITIALIZED(flag, ierr)
  call check(flag .and. ierr == MPI_SUCCESS, 'initialized')
  t0 = MPI_WTIME()
  peer = 1 - rank

  if (rank <= 1) then
    ! ping-pong of doubles, eager then rendezvous (nr doubles > 128 KiB)
    call pingpong(ne, 'eager')
    call pingpong(nr, 'rendezvous')

    ! several types through the same MPI_SEND / MPI_RECV
    zref = [(cmplx(i, -rank), i = 1, 4)]
    sbuf = 'from rank ' // achar(48 + rank) // '!'
    lbuf = [.true., rank == 0, .false.]
    call MPI_SEND(zref, 4, MPI_COMPLEX, peer, 1, MPI_COMM_WORLD, ierr)
    call MPI_SEND(sbuf, 12, MPI_CHARACTER, peer, 2, MPI_COMM_WORLD, ierr)
    call MPI_SEND(lbuf, 3, MPI_LOGICAL, peer, 3, MPI_COMM_WORLD, ierr)
    call MPI_RECV(zbuf, 4, MPI_COMPLEX, peer, 1, MPI_COMM_WORLD, status, ierr)
    call MPI_RECV(sbuf, 12, MPI_CHARACTER, peer, 2, MPI_COMM_WORLD, status, ierr)
    call MPI_RECV(lbuf, 3, MPI_LOGICAL, peer, 3, MPI_COMM_WORLD, status, ierr)
    call check(all(zbuf == [(cmplx(i, -peer), i = 1, 4)]) &
               .and. sbuf == 'from rank ' // achar(48 + peer) // '!' &
               .and. lbuf(1) .and. (lbuf(2) .eqv. peer == 0) .and. .not. lbuf(3), 'types')

    ! MPI_STATUS_IGNORE
    iref(1:10) = [(77000 + 1000 * rank + i, i = 1, 10)]
    if (rank == 0) then
      call MPI_SEND(iref, 10, MPI_INTEGER, peer, 3, MPI_COMM_WORLD, ierr)
      call MPI_RECV(ibuf, 10, MPI_INTEGER, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_RECV(ibuf, 10, MPI_INTEGER, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_SEND(iref, 10, MPI_INTEGER, peer, 3, MPI_COMM_WORLD, ierr)
    end if
    ! (recognised, so never written: the variable stays zero)
    call check(all(ibuf(1:10) == [(77000 + 1000 * peer + i, i = 1, 10)]) .and. ierr == 0 &
               .and. all(MPI_STATUS_IGNORE == 0), 'status_ignore')

    ! Isend / Irecv / Waitall with a status array
    do k = 1, 3
      call MPI_IRECV(dbuf(1 + 20 * (k - 1)), k + 1, MPI_DOUBLE_PRECISION, peer, 10 + k, &
                     MPI_COMM_WORLD, reqs(k), ierr)
    end do
    dref(1:60) = [(rank * 100 + i + 0.25d0, i = 1, 60)]
    do k = 1, 3
      call MPI_ISEND(dref(1 + 20 * (k - 1)), k + 1, MPI_DOUBLE_PRECISION, peer, 10 + k, &
                     MPI_COMM_WORLD, reqs(3 + k), ierr)
    end do
    call MPI_WAITALL(6, reqs, stats, ierr)
    ok = ierr == MPI_SUCCESS .and. all(reqs == MPI_REQUEST_NULL)
    do k = 1, 3
      call MPI_GET_COUNT(stats(:, k), MPI_DOUBLE_PRECISION, cnt, ierr)
      i = 1 + 20 * (k - 1)
      ok = ok .and. cnt == k + 1 .and. stats(MPI_SOURCE, k) == peer &
           .and. stats(MPI_TAG, k) == 10 + k .and. stats(MPI_ERROR, k) == MPI_SUCCESS &
           .and. all(dbuf(i:i + k) == [(peer * 100 + i + j + 0.25d0, j = 0, k)])
    end do
    call check(ok, 'waitall')

    ! MPI_STATUSES_IGNORE
    call MPI_IRECV(ibuf, 4, MPI_INTEGER, peer, 20, MPI_COMM_WORLD, reqs(1), ierr)
    one = 200 + rank
    call MPI_ISEND(one, 1, MPI_INTEGER, peer, 20, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
    call check(ierr == 0 .and. ibuf(1) == 200 + peer .and. reqs(1) == MPI_REQUEST_NULL &
               .and. all(MPI_STATUSES_IGNORE == 0), 'statuses_ignore')

    ! Waitany: indices count from 1, MPI_UNDEFINED when none is left
    do k = 1, 3
      call MPI_IRECV(ibuf(k), 1, MPI_INTEGER, peer, 30 + k, MPI_COMM_WORLD, reqs(k), ierr)
    end do
    seen = 0
    do k = 3, 1, -1
      call MPI_SEND(k, 1, MPI_INTEGER, peer, 30 + k, MPI_COMM_WORLD, ierr)
    end do
    ok = .true.
    do k = 1, 3
      call MPI_WAITANY(3, reqs, idx, status, ierr)
      ok = ok .and. idx >= 1 .and. idx <= 3
      if (ok) then
        seen(idx) = seen(idx) + 1
        ok = status(MPI_TAG) == 30 + idx .and. ibuf(idx) == idx
      end if
    end do
    call MPI_WAITANY(3, reqs, idx, status, ierr)
    call check(ok .and. idx == MPI_UNDEFINED .and. all(seen == 1), 'waitany')

    ! Waitsome
    do k = 1, 3
      call MPI_IRECV(ibuf(k), 1, MPI_INTEGER, peer, 40 + k, MPI_COMM_WORLD, reqs(k), ierr)
    end do
    do k = 1, 3
      call MPI_SEND(k * 7, 1, MPI_INTEGER, peer, 40 + k, MPI_COMM_WORLD, ierr)
    end do
    cnt = 0
    ok = .true.
    do while (cnt < 3 .and. ok)
      call MPI_WAITSOME(3, reqs, nout, ind, stats, ierr)
      ok = nout >= 1 .and. nout <= 3 - cnt
      do i = 1, nout
        ok = ok .and. ind(i) >= 1 .and. ind(i) <= 3
        if (ok) ok = ibuf(ind(i)) == ind(i) * 7 .and. stats(MPI_TAG, i) == 40 + ind(i)
      end do
      cnt = cnt + nout
    end do
    call MPI_WAITSOME(3, reqs, nout, ind, stats, ierr)
    call check(ok .and. nout == MPI_UNDEFINED, 'waitsome')

    ! MPI_TEST until the LOGICAL flag is .true.
    call MPI_IRECV(ibuf, 1, MPI_INTEGER, peer, 50, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_SEND(rank + 100, 1, MPI_INTEGER, peer, 50, MPI_COMM_WORLD, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_TEST(reqs(1), flag, status, ierr)
    end do
    call check(ibuf(1) == peer + 100 .and. status(MPI_SOURCE) == peer &
               .and. reqs(1) == MPI_REQUEST_NULL, 'test')

    ! Testany / Testsome / Testall
    do k = 1, 2
      call MPI_IRECV(ibuf(k), 1, MPI_INTEGER, peer, 55 + k, MPI_COMM_WORLD, reqs(k), ierr)
    end do
    call MPI_SEND(-1, 1, MPI_INTEGER, peer, 57, MPI_COMM_WORLD, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_TESTANY(2, reqs, idx, flag, status, ierr)
    end do
    call check(idx == 2 .and. ibuf(2) == -1 .and. status(MPI_TAG) == 57, 'testany')
    ! The tag-56 message leaves only once both ranks' MPI_TESTANY returned:
    ! a Testany that found both receives complete may return either, and at
    ! cpu.scale 1 a slow iteration of the loop above can carry its clock
    ! past both arrivals.
    call MPI_SENDRECV(one, 0, MPI_INTEGER, peer, 54, k, 0, MPI_INTEGER, peer, 54, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_SEND(-2, 1, MPI_INTEGER, peer, 56, MPI_COMM_WORLD, ierr)
    nout = 0
    do while (nout == 0)
      call MPI_TESTSOME(2, reqs, nout, ind, stats, ierr)
    end do
    call check(nout == 1 .and. ind(1) == 1 .and. ibuf(1) == -2, 'testsome')
    call MPI_TESTALL(2, reqs, flag, stats, ierr)
    call check(flag .and. ierr == MPI_SUCCESS, 'testall')

    ! MPI_Issend, and a freed request
    call MPI_IRECV(dbuf, 2, MPI_DOUBLE_PRECISION, peer, 58, MPI_COMM_WORLD, reqs(1), ierr)
    dref(1:2) = [1.5d0, -rank * 1d0]
    call MPI_ISSEND(dref, 2, MPI_DOUBLE_PRECISION, peer, 58, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_WAITALL(2, reqs, stats, ierr)
    call check(dbuf(1) == 1.5d0 .and. dbuf(2) == -peer * 1d0, 'issend')
    one = 5
    call MPI_ISEND(one, 1, MPI_INTEGER, peer, 59, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_REQUEST_FREE(reqs(1), ierr)
    call MPI_RECV(ibuf, 1, MPI_INTEGER, peer, 59, MPI_COMM_WORLD, status, ierr)
    call check(reqs(1) == MPI_REQUEST_NULL .and. ibuf(1) == 5, 'request_free')

    ! Probe / Get_count
    iref(1:17) = [(900 + 10 * rank + i, i = 1, 17)]
    call MPI_SEND(iref, 17, MPI_INTEGER, peer, 60 + rank, MPI_COMM_WORLD, ierr)
    call MPI_PROBE(peer, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
    call MPI_GET_COUNT(status, MPI_INTEGER, cnt, ierr)
    ok = cnt == 17 .and. status(MPI_TAG) == 60 + peer .and. status(MPI_SOURCE) == peer
    call MPI_RECV(ibuf, cnt, MPI_INTEGER, status(MPI_SOURCE), status(MPI_TAG), &
                  MPI_COMM_WORLD, status, ierr)
    call check(ok .and. all(ibuf(1:17) == [(900 + 10 * peer + i, i = 1, 17)]), 'probe')

    ! Iprobe until the flag is .true.
    call MPI_SEND(iref, 3, MPI_INTEGER, peer, 70, MPI_COMM_WORLD, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_IPROBE(MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, flag, status, ierr)
    end do
    call MPI_GET_COUNT(status, MPI_BYTE, cnt, ierr)
    call MPI_RECV(ibuf, 3, MPI_INTEGER, peer, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(cnt == 12 .and. status(MPI_SOURCE) == peer, 'iprobe')

    ! Errors returned through IERROR
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    call MPI_SEND(ibuf, 1, MPI_INTEGER, nprocs + 5, 0, MPI_COMM_WORLD, ierr)
    call MPI_ERROR_CLASS(ierr, cls, k)
    call check(ierr == MPI_ERR_RANK .and. cls == MPI_ERR_RANK .and. k == MPI_SUCCESS, 'ierror')
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  end if

  ! Sendrecv and Sendrecv_replace around a ring of every rank
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  call MPI_SENDRECV(rank * 11, 1, MPI_INTEGER, right, 80, k, 1, MPI_INTEGER, left, 80, &
                    MPI_COMM_WORLD, status, ierr)
  call check(k == left * 11 .and. status(MPI_SOURCE) == left .and. ierr == 0, 'sendrecv')
  dbuf(1:2) = [rank + 0.5d0, -rank * 1d0]
  call MPI_SENDRECV_REPLACE(dbuf, 2, MPI_DOUBLE_PRECISION, right, 81, left, 81, &
                            MPI_COMM_WORLD, status, ierr)
  call check(dbuf(1) == left + 0.5d0 .and. dbuf(2) == -left * 1d0 .and. status(MPI_TAG) == 81, &
             'sendrecv_replace')

  ! Queries, profiling names, the vaced extension
  call MPI_TYPE_SIZE(MPI_DOUBLE_PRECISION, k, ierr)
  call MPI_TYPE_SIZE(MPI_DOUBLE_COMPLEX, i, ierr)
  call MPI_TYPE_SIZE(MPI_2INTEGER, cnt, ierr)
  call check(k == 8 .and. i == 16 .and. cnt == 8, 'type_size')
  call MPI_GET_VERSION(v, sv, ierr)
  call check(v == MPI_VERSION .and. sv == MPI_SUBVERSION, 'version')
  call PMPI_COMM_RANK(MPI_COMM_WORLD, k, ierr)
  call check(k == rank .and. ierr == 0, 'pmpi')
  pname = 'garbage'
  call MPI_GET_PROCESSOR_NAME(pname, length, ierr)
  write (*, '(a,i0,a,i0,a,a)') 'name rank=', rank, ' len=', length, ' name=', pname(1:length)
  flush (6)
  call check(length > 0 .and. len_trim(pname) == length, 'processor_name')
  if (rank == 0) then
    call MPI_ERROR_STRING(MPI_ERR_TRUNCATE, estr, length, ierr)
    write (*, '(a,i0,a,a)') 'errstr len=', length, ' text=', estr(1:length)
    flush (6)
  end if
  t1 = MPI_WTIME()
  call MPIX_VACED_COMPUTE(0.25d0, ierr)
  call check(MPI_WTIME() - t1 >= 0.25d0 .and. t1 >= t0 .and. ierr == 0, 'compute')
  call check(MPI_WTICK() == 1d-9, 'wtime')

  call MPI_FINALIZE(ierr)
  flag = .false.
  call MPI_FINALIZED(flag, ierr)
  call check(flag .and. ierr == 0, 'finalized')

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (cond) then
      write (*, '(a,a,a,i0)') 'ok ', what, ' rank=', rank
    else
      write (*, '(a,a,a,i0)') 'FAIL ', what, ' rank=', rank
    end if
    flush (6)
  end subroutine check

  ! Blocking ping-pong of n doubles with the peer (rank 0 starts),
  ! checking data, source, tag and count.
  subroutine pingpong(n, what)
    integer, intent(in) :: n
    character(len=*), intent(in) :: what
    integer :: j, c
    dref(1:n) = [(rank * 1d6 + n + j, j = 1, n)]
    if (rank == 0) then
      call MPI_SEND(dref, n, MPI_DOUBLE_PRECISION, peer, n, MPI_COMM_WORLD, ierr)
      call MPI_RECV(dbuf, n, MPI_DOUBLE_PRECISION, peer, n, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_RECV(dbuf, n, MPI_DOUBLE_PRECISION, peer, n, MPI_COMM_WORLD, status, ierr)
      call MPI_SEND(dref, n, MPI_DOUBLE_PRECISION, peer, n, MPI_COMM_WORLD, ierr)
    end if
    call MPI_GET_COUNT(status, MPI_DOUBLE_PRECISION, c, ierr)
    call check(c == n .and. status(MPI_SOURCE) == peer .and. status(MPI_TAG) == n &
               .and. ierr == MPI_SUCCESS .and. all(dbuf(1:n) == [(peer * 1d6 + n + j, j = 1, n)]), &
               what)
  end subroutine pingpong
end program f90_p2p
