! Communicators, groups, topologies, attributes and derived datatypes from
! free-form Fortran with `use mpi` (6 ranks; the struct, vector and pack
! exchanges between ranks 0 and 1). Every rank prints one line per topic,
! with values only (the test checks each line exactly):
!   split rank=R color= sub= size= cmp= freed=
!   group rank=R size= grank= trans= even= usize= ucmp= isize= dsize= csize=
!   cart rank=R dims= ndims= c0= c1= s0= d0= s1= d1= crank= sub= subsize= topo= per=
!   attr rank=R tagub= flag= copied= es= deleted= dsum= dup= nocopy=
!   vector / vtype / struct / pack (ranks 0 and 1), errors rank=R n=
! The MPI-2 routines: MPI_COMM_CREATE_KEYVAL with Fortran callbacks,
! MPI_COMM_GET_ATTR, MPI_GET_ADDRESS (absolute, sent from MPI_BOTTOM),
! MPI_AINT_ADD / MPI_AINT_DIFF,
! MPI_TYPE_CREATE_STRUCT, MPI_TYPE_GET_EXTENT.
module callbacks
  use mpi
  implicit none
  integer :: ndeleted = 0
  integer(kind=MPI_ADDRESS_KIND) :: deleted_sum = 0, seen_extra = -1
contains
  subroutine copy_plus_one(oldcomm, keyval, extra_state, val_in, val_out, flag, ierror)
    integer :: oldcomm, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
    logical :: flag
    seen_extra = extra_state
    val_out = val_in + 1
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine copy_plus_one

  subroutine count_delete(comm, keyval, val, extra_state, ierror)
    integer :: comm, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra_state
    ndeleted = ndeleted + 1
    deleted_sum = deleted_sum + val
    ierror = MPI_SUCCESS
  end subroutine count_delete
end module callbacks

program f90_comm
  use mpi
  use callbacks
  implicit none
  integer :: ierr, rank, nprocs, nerr
  integer :: color, sub, sz, newcomm, dupcomm, cmp

  nerr = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)

  ! ---- split, dup, compare, free
  color = mod(rank, 2)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, color, -rank, newcomm, ierr)
  call acc(ierr)
  call MPI_COMM_RANK(newcomm, sub, ierr)
  call MPI_COMM_SIZE(newcomm, sz, ierr)
  call MPI_COMM_DUP(newcomm, dupcomm, ierr)
  call acc(ierr)
  call MPI_COMM_COMPARE(newcomm, dupcomm, cmp, ierr)
  call MPI_COMM_FREE(dupcomm, ierr)
  call acc(ierr)
  call MPI_COMM_FREE(newcomm, ierr)
  call acc(ierr)
  write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)') 'split rank=', rank, ' color=', color, &
       ' sub=', sub, ' size=', sz, ' cmp=', cmp, ' freed=', &
       merge(1, 0, newcomm == MPI_COMM_NULL .and. dupcomm == MPI_COMM_NULL)

  call groups()
  call cart()
  call attrs()
  if (rank <= 1) then
    call vector()
    call struct()
    call pack()
  end if
  write (*, '(a,i0,a,i0)') 'errors rank=', rank, ' n=', nerr
  call MPI_FINALIZE(ierr)

contains

  subroutine acc(e)
    integer, intent(in) :: e
    if (e /= MPI_SUCCESS) nerr = nerr + 1
  end subroutine acc

  subroutine groups()
    integer :: wgroup, odd, evens, uni, inter, diff, c, gsize, grank, even
    integer :: usize, ucmp, isize, dsize, csize
    integer :: ranks(3), trans(3), ranges(3, 1)
    call MPI_COMM_GROUP(MPI_COMM_WORLD, wgroup, ierr)
    ranks = (/ 1, 3, 5 /)
    call MPI_GROUP_INCL(wgroup, 3, ranks, odd, ierr)
    call acc(ierr)
    call MPI_GROUP_SIZE(odd, gsize, ierr)
    call MPI_GROUP_RANK(odd, grank, ierr)
    call MPI_GROUP_TRANSLATE_RANKS(odd, 3, (/ 0, 1, 2 /), wgroup, trans, ierr)
    call acc(ierr)
    ranges(:, 1) = (/ 0, nprocs - 1, 2 /)
    call MPI_GROUP_RANGE_INCL(wgroup, 1, ranges, evens, ierr)
    call acc(ierr)
    call MPI_GROUP_RANK(evens, even, ierr)
    call MPI_GROUP_UNION(odd, evens, uni, ierr)
    call MPI_GROUP_SIZE(uni, usize, ierr)
    call MPI_GROUP_COMPARE(uni, wgroup, ucmp, ierr)
    call MPI_GROUP_INTERSECTION(odd, evens, inter, ierr)
    call MPI_GROUP_SIZE(inter, isize, ierr)
    call MPI_GROUP_DIFFERENCE(wgroup, odd, diff, ierr)
    call MPI_GROUP_SIZE(diff, dsize, ierr)
    call MPI_COMM_CREATE(MPI_COMM_WORLD, odd, c, ierr)
    call acc(ierr)
    csize = -1
    if (c /= MPI_COMM_NULL) then
      call MPI_COMM_SIZE(c, csize, ierr)
      call MPI_COMM_FREE(c, ierr)
    end if
    call MPI_GROUP_FREE(odd, ierr)
    call MPI_GROUP_FREE(evens, ierr)
    call MPI_GROUP_FREE(uni, ierr)
    call MPI_GROUP_FREE(inter, ierr)
    call MPI_GROUP_FREE(diff, ierr)
    call MPI_GROUP_FREE(wgroup, ierr)
    call acc(ierr)
    write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)') 'group rank=', rank, &
         ' size=', gsize, ' grank=', grank, ' trans=', trans(1) * 100 + trans(2) * 10 + trans(3), &
         ' even=', even, ' usize=', usize, ' ucmp=', ucmp, ' isize=', isize, &
         ' dsize=', dsize, ' csize=', csize
  end subroutine groups

  subroutine cart()
    integer :: dims(2), coords(2), gdims(2), gcoords(2), ndims, comm2d, rowc
    integer :: s0, d0, s1, d1, crank, subr, subsize, topo
    logical :: periods(2), gper(2)
    dims = 0
    call MPI_DIMS_CREATE(nprocs, 2, dims, ierr)
    periods = (/ .true., .false. /)
    call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .false., comm2d, ierr)
    call acc(ierr)
    call MPI_CARTDIM_GET(comm2d, ndims, ierr)
    call MPI_CART_COORDS(comm2d, rank, 2, coords, ierr)
    call MPI_CART_SHIFT(comm2d, 0, 1, s0, d0, ierr)
    call MPI_CART_SHIFT(comm2d, 1, 1, s1, d1, ierr)
    call MPI_CART_RANK(comm2d, coords, crank, ierr)
    call MPI_CART_GET(comm2d, 2, gdims, gper, gcoords, ierr)
    call acc(ierr)
    call MPI_CART_SUB(comm2d, (/ .false., .true. /), rowc, ierr)
    call acc(ierr)
    call MPI_COMM_RANK(rowc, subr, ierr)
    call MPI_COMM_SIZE(rowc, subsize, ierr)
    call MPI_TOPO_TEST(comm2d, topo, ierr)
    call MPI_COMM_FREE(rowc, ierr)
    call MPI_COMM_FREE(comm2d, ierr)
    call acc(ierr)
    if (any(gdims /= dims) .or. any(gcoords /= coords)) nerr = nerr + 100
    write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)') &
         'cart rank=', rank, ' dims=', dims(1) * 10 + dims(2), ' ndims=', ndims, &
         ' c0=', coords(1), ' c1=', coords(2), ' s0=', s0, ' d0=', d0, ' s1=', s1, ' d1=', d1, &
         ' crank=', crank, ' sub=', subr, ' subsize=', subsize, ' topo=', topo, &
         ' per=', merge(10, 0, gper(1)) + merge(1, 0, gper(2))
  end subroutine cart

  subroutine attrs()
    integer(kind=MPI_ADDRESS_KIND) :: v, extra
    integer :: kv, kvdup, kvnull, c1, c2, c3
    logical :: flag, flag2
    integer(kind=MPI_ADDRESS_KIND) :: tagub, copied, dupv
    call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, tagub, flag, ierr)
    call acc(ierr)
    ! Fortran callbacks: the copy adds one, the delete adds up the values
    extra = 55
    call MPI_COMM_CREATE_KEYVAL(copy_plus_one, count_delete, kv, extra, ierr)
    call acc(ierr)
    call MPI_COMM_DUP(MPI_COMM_WORLD, c1, ierr)
    v = 100
    call MPI_COMM_SET_ATTR(c1, kv, v, ierr)
    call acc(ierr)
    call MPI_COMM_DUP(c1, c2, ierr)
    call acc(ierr)
    copied = -1
    call MPI_COMM_GET_ATTR(c2, kv, copied, flag2, ierr)
    if (.not. flag2) copied = -2
    call MPI_COMM_FREE(c2, ierr)
    call MPI_COMM_FREE(c1, ierr)
    call acc(ierr)
    call MPI_COMM_FREE_KEYVAL(kv, ierr)
    call acc(ierr)
    ! predefined procedures
    call MPI_COMM_CREATE_KEYVAL(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kvdup, extra, ierr)
    call MPI_COMM_CREATE_KEYVAL(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, kvnull, extra, ierr)
    call acc(ierr)
    v = 7
    call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, kvdup, v, ierr)
    call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, kvnull, v, ierr)
    call MPI_COMM_DUP(MPI_COMM_WORLD, c3, ierr)
    dupv = -1
    call MPI_COMM_GET_ATTR(c3, kvdup, dupv, flag2, ierr)
    call MPI_COMM_GET_ATTR(c3, kvnull, v, flag2, ierr)
    call acc(ierr)
    call MPI_COMM_FREE(c3, ierr)
    call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, kvdup, ierr)
    call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, kvnull, ierr)
    call MPI_COMM_FREE_KEYVAL(kvdup, ierr)
    call MPI_COMM_FREE_KEYVAL(kvnull, ierr)
    call acc(ierr)
    write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)') 'attr rank=', rank, &
         ' tagub=', tagub, ' flag=', merge(1, 0, flag), ' copied=', copied, ' es=', seen_extra, &
         ' deleted=', ndeleted, ' dsum=', deleted_sum, ' dup=', dupv, ' nocopy=', merge(1, 0, flag2)
  end subroutine attrs

  subroutine vector()
    integer :: a(6), b(3), vtype, status(MPI_STATUS_SIZE), tsize, cnt
    integer(kind=MPI_ADDRESS_KIND) :: lb, extent
    call MPI_TYPE_VECTOR(3, 1, 2, MPI_INTEGER, vtype, ierr)
    call MPI_TYPE_COMMIT(vtype, ierr)
    call acc(ierr)
    if (rank == 0) then
      a = (/ 10, 11, 12, 13, 14, 15 /)
      call MPI_SEND(a, 1, vtype, 1, 5, MPI_COMM_WORLD, ierr)
      call MPI_TYPE_SIZE(vtype, tsize, ierr)
      call MPI_TYPE_GET_EXTENT(vtype, lb, extent, ierr)
      write (*, '(a,i0,a,i0,a,i0,a,i0)') 'vtype rank=', rank, ' size=', tsize, &
           ' lb=', lb, ' extent=', extent
    else
      b = -1
      call MPI_RECV(b, 3, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, status, ierr)
      call MPI_GET_COUNT(status, MPI_INTEGER, cnt, ierr)
      write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0)') 'vector rank=', rank, ' v1=', b(1), &
           ' v2=', b(2), ' v3=', b(3), ' count=', cnt
    end if
    call acc(ierr)
    call MPI_TYPE_FREE(vtype, ierr)
    call acc(ierr)
  end subroutine vector

  subroutine struct()
    integer :: stype, types(2), blens(2), status(MPI_STATUS_SIZE), nel, tsize
    ! reached through MPI_BOTTOM only: volatile, so no copy stays in registers
    integer, volatile :: ival
    double precision, volatile :: dval(2)
    integer(kind=MPI_ADDRESS_KIND) :: disps(2)
    ! absolute addresses: the message is sent from and received at MPI_BOTTOM
    call MPI_GET_ADDRESS(ival, disps(1), ierr)
    call MPI_GET_ADDRESS(dval, disps(2), ierr)
    if (MPI_AINT_DIFF(disps(2), disps(1)) /= disps(2) - disps(1)) nerr = nerr + 1000
    if (MPI_AINT_ADD(disps(1), 4_MPI_ADDRESS_KIND) /= disps(1) + 4) nerr = nerr + 1000
    blens = (/ 1, 2 /)
    types = (/ MPI_INTEGER, MPI_DOUBLE_PRECISION /)
    call MPI_TYPE_CREATE_STRUCT(2, blens, disps, types, stype, ierr)
    call MPI_TYPE_COMMIT(stype, ierr)
    call acc(ierr)
    if (rank == 1) then
      ival = 42
      dval = (/ 1.5d0, -2.25d0 /)
      call MPI_SEND(MPI_BOTTOM, 1, stype, 0, 6, MPI_COMM_WORLD, ierr)
    else
      ival = 0
      dval = 0
      call MPI_RECV(MPI_BOTTOM, 1, stype, 1, 6, MPI_COMM_WORLD, status, ierr)
      call acc(ierr)
      call MPI_GET_ELEMENTS(status, stype, nel, ierr)
      call MPI_TYPE_SIZE(stype, tsize, ierr)
      write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)') 'struct rank=', rank, ' i=', ival, &
           ' d1=', nint(dval(1) * 100), ' d2=', nint(dval(2) * 100), ' elems=', nel, ' size=', tsize
    end if
    call acc(ierr)
    call MPI_TYPE_FREE(stype, ierr)
    call acc(ierr)
  end subroutine struct

  subroutine pack()
    integer :: buf(25), pos, psize, n, m, status(MPI_STATUS_SIZE)
    double precision :: x(3), y(3)
    call MPI_PACK_SIZE(1, MPI_INTEGER, MPI_COMM_WORLD, psize, ierr)
    call MPI_PACK_SIZE(3, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, m, ierr)
    psize = psize + m
    if (rank == 0) then
      pos = 0
      n = 3
      x = (/ 0.5d0, 1.25d0, -8d0 /)
      call MPI_PACK(n, 1, MPI_INTEGER, buf, 100, pos, MPI_COMM_WORLD, ierr)
      call MPI_PACK(x, n, MPI_DOUBLE_PRECISION, buf, 100, pos, MPI_COMM_WORLD, ierr)
      call acc(ierr)
      call MPI_SEND(buf, pos, MPI_PACKED, 1, 7, MPI_COMM_WORLD, ierr)
    else
      call MPI_RECV(buf, 100, MPI_PACKED, 0, 7, MPI_COMM_WORLD, status, ierr)
      call MPI_GET_COUNT(status, MPI_PACKED, m, ierr)
      pos = 0
      call MPI_UNPACK(buf, m, pos, n, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
      call MPI_UNPACK(buf, m, pos, y, n, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
      call acc(ierr)
      write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)') 'pack rank=', rank, ' n=', n, &
           ' y1=', nint(y(1) * 100), ' y2=', nint(y(2) * 100), ' y3=', nint(y(3) * 100), ' pos=', pos
    end if
    call acc(ierr)
    write (*, '(a,i0,a,i0)') 'packsize rank=', rank, ' size=', psize
  end subroutine pack
end program f90_comm
