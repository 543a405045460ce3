! Collectives with `use mpi_f08`: every rank prints one line
!   coll rank=R bcast=.. sum=.. inplace=.. uop=.. prod=.. gather=.. alltoall=.. iallreduce=.. scan=.. op_commute=..
! with the results of MPI_Bcast, MPI_Allreduce (MPI_SUM; MPI_MAX in place;
! a user operation written to the mpi_f08 MPI_User_function interface),
! MPI_Reduce (MPI_PROD), MPI_Gather, MPI_Alltoall, MPI_Iallreduce +
! MPI_Wait on DOUBLE PRECISION, MPI_Scan, which the test checks exactly.
module f08_coll_ops
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use mpi_f08
  implicit none
contains
  ! inoutvec = invec + inoutvec + 1 (associative and commutative)
  subroutine plus_one(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (datatype /= MPI_INTEGER) then
      print *, 'FAIL uop datatype'
      return
    end if
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = a + b + 1
  end subroutine plus_one
end module f08_coll_ops

program f08_coll
  use mpi_f08
  use f08_coll_ops
  implicit none
  integer :: rank, n, i, sum, mx, uop, prod, scan
  integer :: b(3)
  integer, allocatable :: gathered(:), sendv(:), recvv(:)
  double precision :: half, dsum
  type(MPI_Op) :: op
  type(MPI_Request) :: req
  logical :: commute
  character(len=200) :: line

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, n)
  allocate (gathered(n), sendv(n), recvv(n))

  b = 0
  if (rank == 2) b = [7, 8, 9]
  call MPI_Bcast(b, 3, MPI_INTEGER, 2, MPI_COMM_WORLD)

  call MPI_Allreduce(rank + 1, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)

  mx = rank * 3
  call MPI_Allreduce(MPI_IN_PLACE, mx, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)

  call MPI_Op_create(plus_one, .true., op)
  call MPI_Op_commutative(op, commute)
  call MPI_Allreduce(rank, uop, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
  call MPI_Op_free(op)
  if (op /= MPI_OP_NULL) print *, 'FAIL op_free'

  prod = -1
  call MPI_Reduce(rank + 1, prod, 1, MPI_INTEGER, MPI_PROD, 0, MPI_COMM_WORLD)

  gathered = -1
  call MPI_Gather(rank * rank, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 1, MPI_COMM_WORLD)

  sendv = [(rank * 10 + i, i = 0, n - 1)]
  call MPI_Alltoall(sendv, 1, MPI_INTEGER, recvv, 1, MPI_INTEGER, MPI_COMM_WORLD)

  half = 0.5d0 * rank
  call MPI_Iallreduce(half, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)

  call MPI_Scan(rank, scan, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)

  write (line, '(a,i0,a,3(i0,:,","))') 'coll rank=', rank, ' bcast=', b
  write (line, '(a,a,i0,a,i0,a,i0,a,i0)') trim(line), ' sum=', sum, ' inplace=', mx, &
    ' uop=', uop, ' prod=', merge(prod, -1, rank == 0)
  write (line, '(a,a,*(i0,:,","))') trim(line), ' gather=', merge(gathered, -1, rank == 1)
  write (line, '(a,a,*(i0,:,","))') trim(line), ' alltoall=', recvv
  write (line, '(a,a,f0.1,a,i0,a,l1)') trim(line), ' iallreduce=', dsum, ' scan=', scan, &
    ' op_commute=', commute
  write (*, '(a)') trim(line)
  call MPI_Finalize()
end program f08_coll
