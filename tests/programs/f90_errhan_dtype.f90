! Error handlers, error classes and datatype extras from free-form Fortran
! with `use mpi` (1 rank). One `case name=NAME k=v ...` line per topic
! (booleans as 0/1), checked in tests/errhan_dtype.rs:
!   handler: a Fortran error handler called by MPI_SEND to rank 99 on a
!     dup with MPI_ERR_RANK and the communicator, the call returns it;
!   added: MPI_ADD_ERROR_CLASS / CODE / STRING, MPI_ERROR_STRING, and
!     MPI_COMM_CALL_ERRHANDLER with the added code;
!   darray: rank 4 of a 2 x 3 grid, 4 x 6 INTEGERs, BLOCK x BLOCK,
!     Fortran order: the global array holds a(i) = i, so packing the type
!     lists the indices it holds;
!   name, external32, f90, match.
module errhan_mod
  implicit none
  integer :: calls = 0, last_comm = -1, last_code = -1
contains
  subroutine my_handler(comm, code)
    integer :: comm, code
    calls = calls + 1
    last_comm = comm
    last_code = code
  end subroutine my_handler
end module errhan_mod

program f90_errhan_dtype
  use mpi
  use errhan_mod
  implicit none
  integer :: ierr, dup, eh, x, cls, code, slen, t, sz, pos, i
  integer :: gsizes(2), distribs(2), dargs(2), psizes(2), a(0:23), packed(24)
  integer(kind=MPI_ADDRESS_KIND) :: lb, ext, xsize
  character(len=MPI_MAX_ERROR_STRING) :: text
  character(len=MPI_MAX_OBJECT_NAME) :: tname

  call MPI_Init(ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_create_errhandler(my_handler, eh, ierr)
  call MPI_Comm_set_errhandler(dup, eh, ierr)
  x = 0
  call MPI_Send(x, 1, MPI_INTEGER, 99, 0, dup, ierr)
  print '(a,i0,a,i0,a,i0,a,i0)', 'case name=handler ierr=', ierr, ' calls=', calls, &
       ' comm_ok=', merge(1, 0, last_comm == dup), ' code=', last_code

  call MPI_Add_error_class(cls, ierr)
  call MPI_Add_error_code(cls, code, ierr)
  call MPI_Add_error_string(code, 'a Fortran error', ierr)
  call MPI_Error_string(code, text, slen, ierr)
  call MPI_Comm_call_errhandler(dup, code, ierr)
  print '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)', 'case name=added class=', cls, ' code=', code, &
       ' len=', slen, ' text_ok=', merge(1, 0, text(1:slen) == 'a Fortran error'), &
       ' ierr=', ierr, ' handler_code=', last_code
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Comm_free(dup, ierr)

  gsizes = (/ 4, 6 /)
  distribs = MPI_DISTRIBUTE_BLOCK
  dargs = MPI_DISTRIBUTE_DFLT_DARG
  psizes = (/ 2, 3 /)
  call MPI_Type_create_darray(6, 4, 2, gsizes, distribs, dargs, psizes, &
       MPI_ORDER_FORTRAN, MPI_INTEGER, t, ierr)
  call MPI_Type_commit(t, ierr)
  call MPI_Type_size(t, sz, ierr)
  call MPI_Type_get_extent(t, lb, ext, ierr)
  do i = 0, 23
     a(i) = i
  end do
  pos = 0
  call MPI_Pack(a, 1, t, packed, 96, pos, MPI_COMM_WORLD, ierr)
  print '(a,i0,a,i0,a,i0,a,4(i0,:,","))', 'case name=darray size=', sz, ' lb=', lb, &
       ' extent=', ext, ' map=', (packed(i), i = 1, pos / 4)
  call MPI_Type_free(t, ierr)

  call MPI_Type_get_name(MPI_INTEGER, tname, slen, ierr)
  print '(a,a,a,i0)', 'case name=name tname=', tname(1:slen), ' len=', slen
  call MPI_Pack_external_size('external32', 3, MPI_DOUBLE_PRECISION, xsize, ierr)
  print '(a,i0)', 'case name=external32 size=', xsize
  call MPI_Type_create_f90_real(15, MPI_UNDEFINED, t, ierr)
  call MPI_Type_size(t, sz, ierr)
  print '(a,i0)', 'case name=f90 size=', sz
  call MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, t, ierr)
  print '(a,i0)', 'case name=match is_integer8=', merge(1, 0, t == MPI_INTEGER8)
  call MPI_Finalize(ierr)
end program f90_errhan_dtype
