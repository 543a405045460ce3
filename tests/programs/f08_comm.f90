! Communicators, derived datatypes, attributes and error handlers with
! `use mpi_f08` on 4 ranks. Each check prints `ok NAME rank=R` or
! `FAIL NAME rank=R`, and every rank prints
!   attr rank=R copies=C deletes=D val=V
!   errh rank=R calls=N class=K same_comm=L
! * MPI_Comm_split / MPI_Comm_dup / MPI_Comm_compare, == and /= on
!   TYPE(MPI_Comm) and TYPE(MPI_Group), group rank translation;
! * MPI_Type_vector (a matrix row) and MPI_Type_create_resized, sent and
!   received; MPI_Type_get_extent, MPI_Type_size;
! * MPI_Comm_create_keyval with callbacks written to the mpi_f08 abstract
!   interfaces (copied by MPI_Comm_dup, deleted by MPI_Comm_free and
!   MPI_Comm_delete_attr), MPI_Comm_set_attr / get_attr;
! * MPI_Comm_create_errhandler with an MPI_Comm_errhandler_function, called
!   with the communicator and the error code of a failing MPI_Send.
module f08_comm_callbacks
  use mpi_f08
  implicit none
  integer :: copies = 0, deletes = 0, errh_calls = 0, errh_class = -1
  logical :: errh_same = .false.
  type(MPI_Comm) :: errh_expected
contains
  subroutine copy_attr(oldcomm, comm_keyval, extra_state, attribute_val_in, &
      attribute_val_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    copies = copies + 1
    attribute_val_out = attribute_val_in + extra_state
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine copy_attr

  subroutine delete_attr(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    deletes = deletes + 1
    ierror = MPI_SUCCESS
  end subroutine delete_attr

  subroutine on_error(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    integer :: ierr
    errh_calls = errh_calls + 1
    call MPI_Error_class(error_code, errh_class, ierr)
    errh_same = comm == errh_expected
  end subroutine on_error
end module f08_comm_callbacks

program f08_comm
  use mpi_f08
  use f08_comm_callbacks
  implicit none
  integer :: rank, n, i, sub_rank, sub_size, cmp, key, ierr, tsize, r(1)
  integer :: mat(3, 4), row(4)
  type(MPI_Comm) :: sub, dup, dup2
  type(MPI_Group) :: world_group, sub_group
  type(MPI_Datatype) :: rowtype, spaced
  type(MPI_Errhandler) :: eh
  type(MPI_Status) :: st
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent, val
  logical :: flag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, n)

  ! split by parity, highest rank first
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, sub)
  call MPI_Comm_rank(sub, sub_rank)
  call MPI_Comm_size(sub, sub_size)
  call check(sub_size == n / 2 .and. sub_rank == (n - 1 - rank) / 2, 'split')
  call check(sub /= MPI_COMM_WORLD .and. .not. (sub == MPI_COMM_NULL), 'comm_ne')
  call MPI_Comm_group(MPI_COMM_WORLD, world_group)
  call MPI_Comm_group(sub, sub_group)
  call MPI_Group_translate_ranks(sub_group, 1, [0], world_group, r)
  call check(r(1) == n - 2 + mod(rank, 2), 'translate')
  call check(sub_group /= world_group .and. world_group == world_group, 'group_ne')
  call MPI_Group_free(sub_group)
  call MPI_Group_free(world_group)
  call check(sub_group == MPI_GROUP_NULL, 'group_free')

  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_compare(MPI_COMM_WORLD, dup, cmp)
  call check(cmp == MPI_CONGRUENT .and. dup /= MPI_COMM_WORLD, 'dup')

  ! a row of a 3 x 4 matrix: vector of 4 blocks of 1, stride 3
  call MPI_Type_vector(4, 1, 3, MPI_INTEGER, rowtype)
  call MPI_Type_commit(rowtype)
  call MPI_Type_size(rowtype, tsize)
  call MPI_Type_get_extent(rowtype, lb, extent)
  call check(tsize == 16 .and. lb == 0 .and. extent == 40, 'vector')
  call MPI_Type_create_resized(MPI_INTEGER, 0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND, spaced)
  call MPI_Type_commit(spaced)
  mat = reshape([(i, i = 1, 12)], [3, 4])
  if (rank == 0) then
    call MPI_Send(mat(2, 1), 1, rowtype, 1, 7, dup)
    call MPI_Send(mat, 3, spaced, 1, 8, dup)
  else if (rank == 1) then
    call MPI_Recv(row, 4, MPI_INTEGER, 0, 7, dup, st)
    call check(all(row == [2, 5, 8, 11]) .and. st%MPI_SOURCE == 0, 'row')
    row = 0
    call MPI_Recv(row, 3, MPI_INTEGER, 0, 8, dup, st)
    call check(all(row == [1, 3, 5, 0]), 'resized')
  end if
  call MPI_Type_free(rowtype)
  call MPI_Type_free(spaced)

  ! attributes: extra_state 10 is added at each copy
  call MPI_Comm_create_keyval(copy_attr, delete_attr, key, 10_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(dup, key, int(rank + 100, MPI_ADDRESS_KIND))
  call MPI_Comm_dup(dup, dup2)
  call MPI_Comm_get_attr(dup2, key, val, flag)
  call check(flag .and. val == rank + 110, 'attr_copied')
  call MPI_Comm_free(dup2)
  call check(dup2 == MPI_COMM_NULL, 'comm_free')
  call MPI_Comm_delete_attr(dup, key)
  call MPI_Comm_get_attr(dup, key, val, flag)
  call check(.not. flag, 'attr_deleted')
  call MPI_Comm_free_keyval(key)
  write (*, '(a,i0,a,i0,a,i0,a,i0)') 'attr rank=', rank, ' copies=', copies, ' deletes=', &
    deletes, ' val=', rank + 110

  ! error handler of the program: MPI_ERR_RANK on dup
  call MPI_Comm_create_errhandler(on_error, eh)
  call MPI_Comm_set_errhandler(dup, eh)
  call MPI_Errhandler_free(eh)
  errh_expected = dup
  call MPI_Send(rank, 1, MPI_INTEGER, n + 5, 0, dup, ierr)
  call check(ierr /= MPI_SUCCESS, 'errh_returns')
  write (*, '(a,i0,a,i0,a,i0,a,l1)') 'errh rank=', rank, ' calls=', errh_calls, ' class=', &
    errh_class, ' same_comm=', errh_same

  call MPI_Comm_free(dup)
  call MPI_Comm_free(sub)
  call MPI_Finalize()

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
end program f08_comm
