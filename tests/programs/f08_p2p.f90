! Point-to-point with `use mpi_f08` on 3 ranks (ranks 0 and 1 talk, all
! ranks run the local checks). Each check prints `ok NAME rank=R` or
! `FAIL NAME rank=R`; MPI_Error_string prints `errstr len=L text=T`.
!
! * TYPE(MPI_Status) components and MPI_Get_count, MPI_ANY_SOURCE/TAG;
! * nonblocking calls on ASYNCHRONOUS buffers, arrays of TYPE(MPI_Request)
!   and TYPE(MPI_Status), MPI_STATUS(ES)_IGNORE, MPI_Waitany, MPI_Test,
!   MPI_REQUEST_NULL after completion;
! * a contiguous array section (sent in place) and a strided one
!   (MPI_ERR_BUFFER, as MPI_SUBARRAYS_SUPPORTED is .FALSE.);
! * MPI_BOTTOM with a struct of absolute addresses (MPI_Get_address);
! * MPI_Sendrecv, MPI_Probe, MPI_Sizeof, strings (MPI_Error_string,
!   MPI_Get_processor_name);
! * IERROR omitted and present, with MPI_ERRORS_RETURN.
program f08_p2p
  use mpi_f08
  implicit none
  integer :: rank, nprocs, ierr, i, j, cnt, idx, cls, mlen
  integer :: sbuf(10), rbuf(10), grid(4, 4), rx, ry(3)
  ! written through MPI_BOTTOM: the compiler must not keep them in registers
  integer, volatile :: x, y(3)
  integer, asynchronous :: abuf(4, 3), bbuf(4, 3)
  type(MPI_Status) :: st, sts(3)
  type(MPI_Request) :: reqs(3), sreqs(3), req
  type(MPI_Datatype) :: pair
  integer(kind=MPI_ADDRESS_KIND) :: disps(2)
  logical :: flag
  character(len=MPI_MAX_ERROR_STRING) :: msg
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call check(ierr == MPI_SUCCESS, 'init')
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! blocking, with a status
  if (rank == 0) then
    sbuf = [(i * 3, i = 1, 10)]
    call MPI_Send(sbuf, 10, MPI_INTEGER, 1, 11, MPI_COMM_WORLD)
  else if (rank == 1) then
    rbuf = -1
    call MPI_Recv(rbuf, 10, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st)
    call MPI_Get_count(st, MPI_INTEGER, cnt)
    call check(all(rbuf == [(i * 3, i = 1, 10)]) .and. st%MPI_SOURCE == 0 &
      .and. st%MPI_TAG == 11 .and. cnt == 10, 'status')
  end if

  ! nonblocking: three columns each way, Waitall with statuses / ignored
  if (rank <= 1) then
    do j = 1, 3
      abuf(:, j) = [(100 * rank + 10 * j + i, i = 1, 4)]
    end do
    bbuf = -1
    do j = 1, 3
      call MPI_Irecv(bbuf(:, j), 4, MPI_INTEGER, 1 - rank, j, MPI_COMM_WORLD, reqs(j))
    end do
    do j = 1, 3
      call MPI_Isend(abuf(:, j), 4, MPI_INTEGER, 1 - rank, j, MPI_COMM_WORLD, sreqs(j))
    end do
    call MPI_Waitall(3, sreqs, MPI_STATUSES_IGNORE)
    call check(sreqs(1) == MPI_REQUEST_NULL .and. sreqs(2) == MPI_REQUEST_NULL &
      .and. sreqs(3) == MPI_REQUEST_NULL, 'requests_null')
    call MPI_Waitall(3, reqs, sts, ierr)
    do j = 1, 3
      flag = sts(j)%MPI_TAG == j .and. sts(j)%MPI_SOURCE == 1 - rank
      if (.not. flag) exit
    end do
    call check(flag, 'statuses')
    call check(ierr == MPI_SUCCESS, 'waitall')
    flag = .true.
    do j = 1, 3
      flag = flag .and. all(bbuf(:, j) == [(100 * (1 - rank) + 10 * j + i, i = 1, 4)])
    end do
    call check(flag, 'asynchronous')
    ! one receive with Waitany, one with Test (after a Wait made it complete)
    if (rank == 0) then
      call MPI_Irecv(rx, 1, MPI_INTEGER, 1, 21, MPI_COMM_WORLD, reqs(1))
      call MPI_Waitany(1, reqs, idx, st)
      call check(idx == 1 .and. rx == 42 .and. st%MPI_TAG == 21, 'waitany')
      call MPI_Irecv(rx, 1, MPI_INTEGER, 1, 22, MPI_COMM_WORLD, req)
      call MPI_Wait(req, MPI_STATUS_IGNORE)
      call MPI_Test(req, flag, st)
      call check(flag .and. req == MPI_REQUEST_NULL .and. rx == 43, 'test')
    else
      call MPI_Send(42, 1, MPI_INTEGER, 0, 21, MPI_COMM_WORLD)
      call MPI_Send(43, 1, MPI_INTEGER, 0, 22, MPI_COMM_WORLD)
    end if
  end if

  ! array sections: contiguous (a column) in place, strided (a row) refused
  grid = reshape([(i, i = 1, 16)], [4, 4])
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  if (rank == 0) then
    call MPI_Send(grid(:, 2), 4, MPI_INTEGER, 1, 31, MPI_COMM_WORLD)
    call MPI_Send(grid(1, :), 4, MPI_INTEGER, 1, 32, MPI_COMM_WORLD, ierr)
    call MPI_Error_class(ierr, cls)
    call check(cls == MPI_ERR_BUFFER, 'noncontiguous')
  else if (rank == 1) then
    grid = 0
    call MPI_Recv(grid(:, 3), 4, MPI_INTEGER, 0, 31, MPI_COMM_WORLD, st)
    call check(all(grid(:, 3) == [5, 6, 7, 8]) .and. all(grid(:, 2) == 0), 'section')
  end if

  ! MPI_BOTTOM: x and y(3) through absolute addresses
  call MPI_Get_address(x, disps(1))
  call MPI_Get_address(y, disps(2))
  call MPI_Type_create_struct(2, [1, 3], disps, [MPI_INTEGER, MPI_INTEGER], pair)
  call MPI_Type_commit(pair)
  if (rank == 0) then
    x = 7
    y = [8, 9, 10]
    call MPI_Send(MPI_BOTTOM, 1, pair, 1, 41, MPI_COMM_WORLD)
  else if (rank == 1) then
    x = 0
    y = 0
    call MPI_Recv(MPI_BOTTOM, 1, pair, 0, 41, MPI_COMM_WORLD, st)
    call MPI_Get_count(st, pair, cnt)
    call check(x == 7 .and. all(y == [8, 9, 10]) .and. cnt == 1, 'bottom')
  end if
  call MPI_Type_free(pair)
  call check(pair == MPI_DATATYPE_NULL, 'type_free')

  ! Sendrecv around the ring, Probe
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, mod(rank + 1, nprocs), 51, &
    rx, 1, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 51, MPI_COMM_WORLD, st)
  call check(rx == mod(rank + nprocs - 1, nprocs) .and. st%MPI_SOURCE == rx, 'sendrecv')
  if (rank == 0) then
    call MPI_Send(ry, 3, MPI_INTEGER, 1, 61, MPI_COMM_WORLD)
  else if (rank == 1) then
    call MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, st)
    call MPI_Get_count(st, MPI_INTEGER, cnt)
    call check(cnt == 3 .and. st%MPI_TAG == 61, 'probe')
    call MPI_Recv(ry, cnt, MPI_INTEGER, st%MPI_SOURCE, st%MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end if

  ! MPI_Sizeof, scalar and array
  call MPI_Sizeof(rx, i)
  call MPI_Sizeof(disps, j, ierr)
  call check(i == 4 .and. j == 8 .and. ierr == MPI_SUCCESS, 'sizeof')

  ! strings
  call MPI_Get_processor_name(pname, mlen)
  call check(mlen > 0 .and. len_trim(pname) == mlen, 'processor_name')
  if (rank == 0) then
    call MPI_Error_string(MPI_ERR_TRUNCATE, msg, mlen)
    write (*, '(a,i0,a,a)') 'errstr len=', mlen, ' text=', msg(1:mlen)
  end if

  ! IERROR omitted (MPI_ERRORS_RETURN: the call just returns) and present
  call MPI_Send(x, 1, MPI_INTEGER, 99, 0, MPI_COMM_WORLD)
  call MPI_Send(x, 1, MPI_INTEGER, 99, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_RANK, 'ierror')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  call MPI_Finalize(ierr)
  call check(ierr == MPI_SUCCESS, 'finalize')

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
end program f08_p2p
