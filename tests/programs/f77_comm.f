! Communicators, groups, topologies, attributes and derived datatypes
! from fixed-form Fortran with mpif.h (6 ranks): the lines of
! f90_comm.f90, through the MPI-1 routines with default INTEGER values
! where those exist: MPI_KEYVAL_CREATE with Fortran callbacks,
! MPI_ATTR_PUT / GET, MPI_ADDRESS (relative displacements),
! MPI_TYPE_STRUCT, MPI_TYPE_HVECTOR, MPI_TYPE_EXTENT / LB,
! MPI_NULL_COPY_FN, MPI_DUP_FN. Every buffer is an INTEGER array
! (doubles through EQUIVALENCE), as gfortran 10 and later require of
! calls in one file without -fallow-argument-mismatch.
      PROGRAM F77COMM
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROCS, NERR
      COMMON /STATE/ RANK, NPROCS, NERR
      INTEGER COLOR, SUB, SZ, NEWC, DUPC, CMP, LTOI
      EXTERNAL LTOI

      NERR = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)

!     split, dup, compare, free
      COLOR = MOD(RANK, 2)
      CALL MPI_COMM_SPLIT(MPI_COMM_WORLD, COLOR, -RANK, NEWC, IERR)
      CALL ACC(IERR)
      CALL MPI_COMM_RANK(NEWC, SUB, IERR)
      CALL MPI_COMM_SIZE(NEWC, SZ, IERR)
      CALL MPI_COMM_DUP(NEWC, DUPC, IERR)
      CALL ACC(IERR)
      CALL MPI_COMM_COMPARE(NEWC, DUPC, CMP, IERR)
      CALL MPI_COMM_FREE(DUPC, IERR)
      CALL ACC(IERR)
      CALL MPI_COMM_FREE(NEWC, IERR)
      CALL ACC(IERR)
      WRITE (*, '(A,I0,A,I0,A,I0,A,I0,A,I0,A,I0)') 'split rank=',
     &     RANK, ' color=', COLOR, ' sub=', SUB, ' size=', SZ,
     &     ' cmp=', CMP, ' freed=',
     &     LTOI(NEWC .EQ. MPI_COMM_NULL .AND. DUPC .EQ. MPI_COMM_NULL)

      CALL GROUPS
      CALL CART
      CALL ATTRS
      IF (RANK .LE. 1) THEN
         CALL VECTOR
         CALL STRUCT
         CALL PACKS
      END IF
      WRITE (*, '(A,I0,A,I0)') 'errors rank=', RANK, ' n=', NERR
      CALL MPI_FINALIZE(IERR)
      END

!     counts return codes other than MPI_SUCCESS
      SUBROUTINE ACC(E)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER E, RANK, NPROCS, NERR
      COMMON /STATE/ RANK, NPROCS, NERR
      IF (E .NE. MPI_SUCCESS) NERR = NERR + 1
      END

      INTEGER FUNCTION LTOI(L)
      LOGICAL L
      LTOI = 0
      IF (L) LTOI = 1
      END

      SUBROUTINE GROUPS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NPROCS, NERR
      COMMON /STATE/ RANK, NPROCS, NERR
      INTEGER IERR, WG, ODD, EVENS, UNI, INTER, DIFF, C, GSIZE, GRANK
      INTEGER EVEN, USIZE, UCMP, ISIZE, DSIZE, CSIZE
      INTEGER RANKS(3), FIRST(3), TRANS(3), RANGES(3, 1)
      DATA RANKS /1, 3, 5/, FIRST /0, 1, 2/
      CALL MPI_COMM_GROUP(MPI_COMM_WORLD, WG, IERR)
      CALL MPI_GROUP_INCL(WG, 3, RANKS, ODD, IERR)
      CALL ACC(IERR)
      CALL MPI_GROUP_SIZE(ODD, GSIZE, IERR)
      CALL MPI_GROUP_RANK(ODD, GRANK, IERR)
      CALL MPI_GROUP_TRANSLATE_RANKS(ODD, 3, FIRST, WG, TRANS, IERR)
      CALL ACC(IERR)
      RANGES(1, 1) = 0
      RANGES(2, 1) = NPROCS - 1
      RANGES(3, 1) = 2
      CALL MPI_GROUP_RANGE_INCL(WG, 1, RANGES, EVENS, IERR)
      CALL ACC(IERR)
      CALL MPI_GROUP_RANK(EVENS, EVEN, IERR)
      CALL MPI_GROUP_UNION(ODD, EVENS, UNI, IERR)
      CALL MPI_GROUP_SIZE(UNI, USIZE, IERR)
      CALL MPI_GROUP_COMPARE(UNI, WG, UCMP, IERR)
      CALL MPI_GROUP_INTERSECTION(ODD, EVENS, INTER, IERR)
      CALL MPI_GROUP_SIZE(INTER, ISIZE, IERR)
      CALL MPI_GROUP_DIFFERENCE(WG, ODD, DIFF, IERR)
      CALL MPI_GROUP_SIZE(DIFF, DSIZE, IERR)
      CALL MPI_COMM_CREATE(MPI_COMM_WORLD, ODD, C, IERR)
      CALL ACC(IERR)
      CSIZE = -1
      IF (C .NE. MPI_COMM_NULL) THEN
         CALL MPI_COMM_SIZE(C, CSIZE, IERR)
         CALL MPI_COMM_FREE(C, IERR)
      END IF
      CALL MPI_GROUP_FREE(ODD, IERR)
      CALL MPI_GROUP_FREE(EVENS, IERR)
      CALL MPI_GROUP_FREE(UNI, IERR)
      CALL MPI_GROUP_FREE(INTER, IERR)
      CALL MPI_GROUP_FREE(DIFF, IERR)
      CALL MPI_GROUP_FREE(WG, IERR)
      CALL ACC(IERR)
      WRITE (*, '(A,I0,9(A,I0))') 'group rank=', RANK,
     &     ' size=', GSIZE, ' grank=', GRANK,
     &     ' trans=', TRANS(1) * 100 + TRANS(2) * 10 + TRANS(3),
     &     ' even=', EVEN, ' usize=', USIZE, ' ucmp=', UCMP,
     &     ' isize=', ISIZE, ' dsize=', DSIZE, ' csize=', CSIZE
      END

      SUBROUTINE CART
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NPROCS, NERR
      COMMON /STATE/ RANK, NPROCS, NERR
      INTEGER IERR, DIMS(2), COORDS(2), GDIMS(2), GCOORDS(2), NDIMS
      INTEGER COMM2D, ROWC, S0, D0, S1, D1, CRANK, SUBR, SUBSZ, TOPO
      INTEGER LTOI
      EXTERNAL LTOI
      LOGICAL PERIODS(2), GPER(2), REMAIN(2)
      DATA PERIODS /.TRUE., .FALSE./, REMAIN /.FALSE., .TRUE./
      DIMS(1) = 0
      DIMS(2) = 0
      CALL MPI_DIMS_CREATE(NPROCS, 2, DIMS, IERR)
      CALL MPI_CART_CREATE(MPI_COMM_WORLD, 2, DIMS, PERIODS, .FALSE.,
     &     COMM2D, IERR)
      CALL ACC(IERR)
      CALL MPI_CARTDIM_GET(COMM2D, NDIMS, IERR)
      CALL MPI_CART_COORDS(COMM2D, RANK, 2, COORDS, IERR)
      CALL MPI_CART_SHIFT(COMM2D, 0, 1, S0, D0, IERR)
      CALL MPI_CART_SHIFT(COMM2D, 1, 1, S1, D1, IERR)
      CALL MPI_CART_RANK(COMM2D, COORDS, CRANK, IERR)
      CALL MPI_CART_GET(COMM2D, 2, GDIMS, GPER, GCOORDS, IERR)
      CALL ACC(IERR)
      CALL MPI_CART_SUB(COMM2D, REMAIN, ROWC, IERR)
      CALL ACC(IERR)
      CALL MPI_COMM_RANK(ROWC, SUBR, IERR)
      CALL MPI_COMM_SIZE(ROWC, SUBSZ, IERR)
      CALL MPI_TOPO_TEST(COMM2D, TOPO, IERR)
      CALL MPI_COMM_FREE(ROWC, IERR)
      CALL MPI_COMM_FREE(COMM2D, IERR)
      CALL ACC(IERR)
      IF (GDIMS(1) .NE. DIMS(1) .OR. GDIMS(2) .NE. DIMS(2) .OR.
     &    GCOORDS(1) .NE. COORDS(1) .OR. GCOORDS(2) .NE. COORDS(2))
     &    NERR = NERR + 100
      WRITE (*, '(A,I0,13(A,I0))') 'cart rank=', RANK,
     &     ' dims=', DIMS(1) * 10 + DIMS(2), ' ndims=', NDIMS,
     &     ' c0=', COORDS(1), ' c1=', COORDS(2), ' s0=', S0,
     &     ' d0=', D0, ' s1=', S1, ' d1=', D1, ' crank=', CRANK,
     &     ' sub=', SUBR, ' subsize=', SUBSZ, ' topo=', TOPO,
     &     ' per=', 10 * LTOI(GPER(1)) + LTOI(GPER(2))
      END

!     MPI-1 attribute callbacks: default INTEGER values
      SUBROUTINE CPLUS1(OLDC, KEYVAL, EXTRA, VIN, VOUT, FLAG, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER OLDC, KEYVAL, EXTRA, VIN, VOUT, IERR
      LOGICAL FLAG
      INTEGER NDEL, DSUM, SEENES
      COMMON /CBS/ NDEL, DSUM, SEENES
      SEENES = EXTRA
      VOUT = VIN + 1
      FLAG = .TRUE.
      IERR = MPI_SUCCESS
      END

      SUBROUTINE CDEL(COMM, KEYVAL, VAL, EXTRA, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER COMM, KEYVAL, VAL, EXTRA, IERR
      INTEGER NDEL, DSUM, SEENES
      COMMON /CBS/ NDEL, DSUM, SEENES
      NDEL = NDEL + 1
      DSUM = DSUM + VAL
      IERR = MPI_SUCCESS
      END

      SUBROUTINE ATTRS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NPROCS, NERR
      COMMON /STATE/ RANK, NPROCS, NERR
      INTEGER NDEL, DSUM, SEENES
      COMMON /CBS/ NDEL, DSUM, SEENES
      INTEGER IERR, KV, KVDUP, KVNULL, C1, C2, C3, TAGUB, COPIED, DUPV
      INTEGER V, LTOI
      LOGICAL FLAG, FLAG2
      EXTERNAL CPLUS1, CDEL, LTOI
      NDEL = 0
      DSUM = 0
      SEENES = -1
      CALL MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, TAGUB, FLAG, IERR)
      CALL ACC(IERR)
!     Fortran callbacks: the copy adds one, the delete adds up values
      CALL MPI_KEYVAL_CREATE(CPLUS1, CDEL, KV, 55, IERR)
      CALL ACC(IERR)
      CALL MPI_COMM_DUP(MPI_COMM_WORLD, C1, IERR)
      CALL MPI_ATTR_PUT(C1, KV, 100, IERR)
      CALL ACC(IERR)
      CALL MPI_COMM_DUP(C1, C2, IERR)
      CALL ACC(IERR)
      COPIED = -1
      CALL MPI_ATTR_GET(C2, KV, COPIED, FLAG2, IERR)
      IF (.NOT. FLAG2) COPIED = -2
      CALL MPI_COMM_FREE(C2, IERR)
      CALL MPI_COMM_FREE(C1, IERR)
      CALL ACC(IERR)
      CALL MPI_KEYVAL_FREE(KV, IERR)
      CALL ACC(IERR)
!     predefined procedures
      CALL MPI_KEYVAL_CREATE(MPI_DUP_FN, MPI_NULL_DELETE_FN, KVDUP, 0,
     &     IERR)
      CALL MPI_KEYVAL_CREATE(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN,
     &     KVNULL, 0, IERR)
      CALL ACC(IERR)
      CALL MPI_ATTR_PUT(MPI_COMM_WORLD, KVDUP, 7, IERR)
      CALL MPI_ATTR_PUT(MPI_COMM_WORLD, KVNULL, 7, IERR)
      CALL MPI_COMM_DUP(MPI_COMM_WORLD, C3, IERR)
      DUPV = -1
      CALL MPI_ATTR_GET(C3, KVDUP, DUPV, FLAG2, IERR)
      CALL MPI_ATTR_GET(C3, KVNULL, V, FLAG2, IERR)
      CALL ACC(IERR)
      CALL MPI_COMM_FREE(C3, IERR)
      CALL MPI_ATTR_DELETE(MPI_COMM_WORLD, KVDUP, IERR)
      CALL MPI_ATTR_DELETE(MPI_COMM_WORLD, KVNULL, IERR)
      CALL MPI_KEYVAL_FREE(KVDUP, IERR)
      CALL MPI_KEYVAL_FREE(KVNULL, IERR)
      CALL ACC(IERR)
      WRITE (*, '(A,I0,8(A,I0))') 'attr rank=', RANK,
     &     ' tagub=', TAGUB, ' flag=', LTOI(FLAG), ' copied=', COPIED,
     &     ' es=', SEENES, ' deleted=', NDEL, ' dsum=', DSUM,
     &     ' dup=', DUPV, ' nocopy=', LTOI(FLAG2)
      END

      SUBROUTINE VECTOR
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NPROCS, NERR
      COMMON /STATE/ RANK, NPROCS, NERR
      INTEGER IERR, A(6), B(3), VTYPE, STATUS(MPI_STATUS_SIZE)
      INTEGER TSIZE, CNT, LB, EXTENT, I
!     MPI-1 MPI_TYPE_HVECTOR: the stride in bytes, a default INTEGER
      CALL MPI_TYPE_HVECTOR(3, 1, 8, MPI_INTEGER, VTYPE, IERR)
      CALL MPI_TYPE_COMMIT(VTYPE, IERR)
      CALL ACC(IERR)
      IF (RANK .EQ. 0) THEN
         DO I = 1, 6
            A(I) = 9 + I
         END DO
         CALL MPI_SEND(A, 1, VTYPE, 1, 5, MPI_COMM_WORLD, IERR)
         CALL MPI_TYPE_SIZE(VTYPE, TSIZE, IERR)
         CALL MPI_TYPE_LB(VTYPE, LB, IERR)
         CALL MPI_TYPE_EXTENT(VTYPE, EXTENT, IERR)
         WRITE (*, '(A,I0,3(A,I0))') 'vtype rank=', RANK,
     &        ' size=', TSIZE, ' lb=', LB, ' extent=', EXTENT
      ELSE
         B(1) = -1
         B(2) = -1
         B(3) = -1
         CALL MPI_RECV(B, 3, MPI_INTEGER, 0, 5, MPI_COMM_WORLD,
     &        STATUS, IERR)
         CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, CNT, IERR)
         WRITE (*, '(A,I0,4(A,I0))') 'vector rank=', RANK,
     &        ' v1=', B(1), ' v2=', B(2), ' v3=', B(3), ' count=', CNT
      END IF
      CALL ACC(IERR)
      CALL MPI_TYPE_FREE(VTYPE, IERR)
      CALL ACC(IERR)
      END

      SUBROUTINE STRUCT
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NPROCS, NERR
      COMMON /STATE/ RANK, NPROCS, NERR
      INTEGER IERR, STYPE, TYPES(2), BLENS(2), STATUS(MPI_STATUS_SIZE)
      INTEGER NEL, TSIZE, DISPS(2), A1, A2
      INTEGER IVAL(1), DVI(4)
      DOUBLE PRECISION DVAL(2)
!     a record in a COMMON block (the doubles first, aligned): the
!     type starts at the integer, the doubles at a negative displacement
      COMMON /REC/ DVAL, IVAL
      EQUIVALENCE (DVAL, DVI)
!     MPI-1: addresses as default INTEGERs, displacements relative
      CALL MPI_ADDRESS(IVAL, A1, IERR)
      CALL MPI_ADDRESS(DVI, A2, IERR)
      DISPS(1) = 0
      DISPS(2) = A2 - A1
      BLENS(1) = 1
      BLENS(2) = 2
      TYPES(1) = MPI_INTEGER
      TYPES(2) = MPI_DOUBLE_PRECISION
      CALL MPI_TYPE_STRUCT(2, BLENS, DISPS, TYPES, STYPE, IERR)
      CALL MPI_TYPE_COMMIT(STYPE, IERR)
      CALL ACC(IERR)
      IF (RANK .EQ. 1) THEN
         IVAL(1) = 42
         DVAL(1) = 1.5D0
         DVAL(2) = -2.25D0
         CALL MPI_SEND(IVAL, 1, STYPE, 0, 6, MPI_COMM_WORLD, IERR)
      ELSE
         IVAL(1) = 0
         DVAL(1) = 0
         DVAL(2) = 0
         CALL MPI_RECV(IVAL, 1, STYPE, 1, 6, MPI_COMM_WORLD, STATUS,
     &        IERR)
         CALL ACC(IERR)
         CALL MPI_GET_ELEMENTS(STATUS, STYPE, NEL, IERR)
         CALL MPI_TYPE_SIZE(STYPE, TSIZE, IERR)
         WRITE (*, '(A,I0,5(A,I0))') 'struct rank=', RANK,
     &        ' i=', IVAL(1), ' d1=', NINT(DVAL(1) * 100),
     &        ' d2=', NINT(DVAL(2) * 100), ' elems=', NEL,
     &        ' size=', TSIZE
      END IF
      CALL ACC(IERR)
      CALL MPI_TYPE_FREE(STYPE, IERR)
      CALL ACC(IERR)
      END

      SUBROUTINE PACKS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NPROCS, NERR
      COMMON /STATE/ RANK, NPROCS, NERR
      INTEGER IERR, BUF(25), POS, PSIZE, N(1), M
      INTEGER STATUS(MPI_STATUS_SIZE)
      INTEGER XI(6), YI(6)
      DOUBLE PRECISION X(3), Y(3)
      EQUIVALENCE (X, XI), (Y, YI)
      CALL MPI_PACK_SIZE(1, MPI_INTEGER, MPI_COMM_WORLD, PSIZE, IERR)
      CALL MPI_PACK_SIZE(3, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, M,
     &     IERR)
      PSIZE = PSIZE + M
      IF (RANK .EQ. 0) THEN
         POS = 0
         N(1) = 3
         X(1) = 0.5D0
         X(2) = 1.25D0
         X(3) = -8D0
         CALL MPI_PACK(N, 1, MPI_INTEGER, BUF, 100, POS,
     &        MPI_COMM_WORLD, IERR)
         CALL MPI_PACK(XI, N(1), MPI_DOUBLE_PRECISION, BUF, 100, POS,
     &        MPI_COMM_WORLD, IERR)
         CALL ACC(IERR)
         CALL MPI_SEND(BUF, POS, MPI_PACKED, 1, 7, MPI_COMM_WORLD, IERR)
      ELSE
         CALL MPI_RECV(BUF, 100, MPI_PACKED, 0, 7, MPI_COMM_WORLD,
     &        STATUS, IERR)
         CALL MPI_GET_COUNT(STATUS, MPI_PACKED, M, IERR)
         POS = 0
         CALL MPI_UNPACK(BUF, M, POS, N, 1, MPI_INTEGER,
     &        MPI_COMM_WORLD, IERR)
         CALL MPI_UNPACK(BUF, M, POS, YI, N(1), MPI_DOUBLE_PRECISION,
     &        MPI_COMM_WORLD, IERR)
         CALL ACC(IERR)
         WRITE (*, '(A,I0,5(A,I0))') 'pack rank=', RANK, ' n=', N(1),
     &        ' y1=', NINT(Y(1) * 100), ' y2=', NINT(Y(2) * 100),
     &        ' y3=', NINT(Y(3) * 100), ' pos=', POS
      END IF
      CALL ACC(IERR)
      WRITE (*, '(A,I0,A,I0)') 'packsize rank=', RANK, ' size=', PSIZE
      END
