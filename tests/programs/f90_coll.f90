! Collectives from free-form Fortran with `use mpi` (any number of ranks,
! the test runs 4): every rank prints one line per collective, values only
! (the test checks each line exactly):
!   allreduce rank=R sum= inplace_max=
!   bcast rank=R v1= v2= v3=
!   reduce rank=R sum=          (root 0 only: MPI_IN_PLACE at the root)
!   alltoall rank=R got=        (the received values, 100 * source + R)
!   gather rank=R got=          (root 0 only)   scatter rank=R got=
!   allgather rank=R got=       scan rank=R sum= exscan rank=R sum=
!   userop rank=R prod= commute= dtype_ok=    (MPI_OP_CREATE, a Fortran
!       SUBROUTINE F(INVEC, INOUTVEC, LEN, DATATYPE))
!   errors rank=R n=
module userops
  use mpi
  implicit none
  integer :: wrong_type = 0
contains
  subroutine times(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(len), inoutvec(len)
    integer :: i
    if (datatype /= MPI_INTEGER) wrong_type = wrong_type + 1
    do i = 1, len
      inoutvec(i) = invec(i) * inoutvec(i)
    end do
  end subroutine times
end module userops

program f90_coll
  use mpi
  use userops
  implicit none
  integer :: ierr, rank, nprocs, nerr, i
  integer :: x, y, v(3), op
  integer, allocatable :: sbuf(:), rbuf(:)
  logical :: commute
  character(len=200) :: line

  nerr = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  allocate (sbuf(nprocs), rbuf(nprocs))

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call acc(ierr)

  ! allreduce: a sum, then a maximum in place
  x = rank + 1
  call MPI_ALLREDUCE(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call acc(ierr)
  x = rank
  call MPI_ALLREDUCE(MPI_IN_PLACE, x, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call acc(ierr)
  write (*, '(a,i0,a,i0,a,i0)') 'allreduce rank=', rank, ' sum=', y, ' inplace_max=', x

  ! bcast from the last rank
  v = -1
  if (rank == nprocs - 1) v = (/ 7, 8, 9 /)
  call MPI_BCAST(v, 3, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD, ierr)
  call acc(ierr)
  write (*, '(a,i0,a,i0,a,i0,a,i0)') 'bcast rank=', rank, ' v1=', v(1), ' v2=', v(2), ' v3=', v(3)

  ! reduce to rank 0, MPI_IN_PLACE at the root
  x = 10 * rank + 1
  if (rank == 0) then
    call MPI_REDUCE(MPI_IN_PLACE, x, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    write (*, '(a,i0,a,i0)') 'reduce rank=', rank, ' sum=', x
  else
    call MPI_REDUCE(x, y, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  end if
  call acc(ierr)

  ! alltoall: element j (from 0) goes to rank j
  do i = 1, nprocs
    sbuf(i) = 100 * rank + (i - 1)
  end do
  rbuf = -1
  call MPI_ALLTOALL(sbuf, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call acc(ierr)
  call show('alltoall', rbuf, nprocs)

  ! gather to rank 0, scatter from rank 0, allgather
  x = rank * rank
  rbuf = -1
  call MPI_GATHER(x, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call acc(ierr)
  if (rank == 0) call show('gather', rbuf, nprocs)
  do i = 1, nprocs
    sbuf(i) = 1000 + i
  end do
  y = -1
  call MPI_SCATTER(sbuf, 1, MPI_INTEGER, y, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call acc(ierr)
  call show('scatter', (/ y /), 1)
  rbuf = -1
  x = rank + 5
  call MPI_ALLGATHER(x, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call acc(ierr)
  call show('allgather', rbuf, nprocs)

  ! scan and exscan of rank + 1
  x = rank + 1
  call MPI_SCAN(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call acc(ierr)
  write (*, '(a,i0,a,i0)') 'scan rank=', rank, ' sum=', y
  y = -1
  call MPI_EXSCAN(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call acc(ierr)
  if (rank > 0) write (*, '(a,i0,a,i0)') 'exscan rank=', rank, ' sum=', y

  ! a user operation written in Fortran
  call MPI_OP_CREATE(times, .true., op, ierr)
  call acc(ierr)
  call MPI_OP_COMMUTATIVE(op, commute, ierr)
  x = rank + 1
  call MPI_ALLREDUCE(x, y, 1, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call acc(ierr)
  call MPI_OP_FREE(op, ierr)
  call acc(ierr)
  write (*, '(a,i0,a,i0,a,i0,a,i0)') 'userop rank=', rank, ' prod=', y, &
       ' commute=', merge(1, 0, commute), ' dtype_ok=', merge(1, 0, wrong_type == 0)

  write (*, '(a,i0,a,i0)') 'errors rank=', rank, ' n=', nerr
  call MPI_FINALIZE(ierr)

contains

  subroutine acc(e)
    integer, intent(in) :: e
    if (e /= MPI_SUCCESS) nerr = nerr + 1
  end subroutine acc

  ! "TAG rank=R got=a,b,c"
  subroutine show(tag, vals, n)
    character(len=*), intent(in) :: tag
    integer, intent(in) :: n, vals(n)
    integer :: k
    write (line, '(a,a,i0,a)') tag, ' rank=', rank, ' got='
    do k = 1, n
      if (k > 1) line = trim(line) // ','
      write (line(len_trim(line) + 1:), '(i0)') vals(k)
    end do
    write (*, '(a)') trim(line)
  end subroutine show
end program f90_coll
