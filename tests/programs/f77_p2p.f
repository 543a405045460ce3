! Point-to-point from fixed-form Fortran with mpif.h (2 or more ranks).
!
! Ranks 0 and 1 run the pair checks; every rank runs the ring checks.
! Each check prints "ok NAME rank=R" or "FAIL NAME rank=R ...". Also
!   name rank=R len=L name=<MPI_GET_PROCESSOR_NAME>   (and blanks after)
!   errstr len=L text=<MPI_ERROR_STRING(MPI_ERR_TRUNCATE)>
      PROGRAM F77P2P
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NE, NR
      PARAMETER (NE = 100, NR = 40000)
      INTEGER IERR, RANK, NPROCS, PEER, I, K, CNT, LEN, CLS
      INTEGER LEFT, RIGHT, IDX, NOUT, V, SV
      INTEGER STATUS(MPI_STATUS_SIZE)
      INTEGER STATS(MPI_STATUS_SIZE, 6)
      INTEGER REQS(6), IND(6), SEEN(3)
      INTEGER IBUF(NR), IREF(NR), ONE(1), TWO(2)
      LOGICAL FLAG, OK, SAMEI
      EXTERNAL SAMEI
      CHARACTER*(MPI_MAX_PROCESSOR_NAME) PNAME
      CHARACTER*(MPI_MAX_ERROR_STRING) ESTR
      DOUBLE PRECISION T0, T1

      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      FLAG = .FALSE.
      CALL MPI_INITIALIZED(FLAG, IERR)
      CALL CHECK(FLAG .AND. IERR .EQ. MPI_SUCCESS, 'initialized', RANK)
      T0 = MPI_WTIME()
      PEER = 1 - RANK

      IF (RANK .LE. 1) THEN
!        ping-pong, eager then rendezvous (NR integers > 128 KiB)
         CALL PINGPONG(RANK, PEER, NE, IBUF, IREF, 'eager')
         CALL PINGPONG(RANK, PEER, NR, IBUF, IREF, 'rendezvous')

!        MPI_STATUS_IGNORE
         CALL FILLI(IBUF, 10, 77 + RANK)
         CALL FILLI(IREF, 10, 77 + PEER)
         IF (RANK .EQ. 0) THEN
            CALL MPI_SEND(IBUF, 10, MPI_INTEGER, PEER, 3,
     &                    MPI_COMM_WORLD, IERR)
            CALL MPI_RECV(IBUF, 10, MPI_INTEGER, PEER, 3,
     &                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
         ELSE
            CALL MPI_RECV(IBUF(11), 10, MPI_INTEGER, PEER, 3,
     &                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
            CALL MPI_SEND(IBUF, 10, MPI_INTEGER, PEER, 3,
     &                    MPI_COMM_WORLD, IERR)
            CALL MOVEI(IBUF(11), IBUF, 10)
         END IF
!        (recognised, so never written: the variable stays zero)
         CALL CHECK(SAMEI(IBUF, IREF, 10) .AND. IERR .EQ. 0
     &              .AND. MPI_STATUS_IGNORE(1) .EQ. 0
     &              .AND. MPI_STATUS_IGNORE(MPI_TAG) .EQ. 0,
     &              'status_ignore', RANK)

!        Isend / Irecv / Waitall with a status array
         DO K = 1, 3
            CALL MPI_IRECV(IBUF(1 + 20 * (K - 1)), K + 1, MPI_INTEGER,
     &                     PEER, 10 + K, MPI_COMM_WORLD, REQS(K), IERR)
         END DO
         CALL FILLI(IREF, 60, 5 + RANK)
         DO K = 1, 3
            CALL MPI_ISEND(IREF(1 + 20 * (K - 1)), K + 1, MPI_INTEGER,
     &                  PEER, 10 + K, MPI_COMM_WORLD, REQS(3 + K), IERR)
         END DO
         CALL MPI_WAITALL(6, REQS, STATS, IERR)
         OK = IERR .EQ. MPI_SUCCESS
         CALL FILLI(IREF, 60, 5 + PEER)
         DO K = 1, 3
            CALL MPI_GET_COUNT(STATS(1, K), MPI_INTEGER, CNT, IERR)
            OK = OK .AND. CNT .EQ. K + 1
     &         .AND. STATS(MPI_SOURCE, K) .EQ. PEER
     &         .AND. STATS(MPI_TAG, K) .EQ. 10 + K
     &         .AND. STATS(MPI_ERROR, K) .EQ. MPI_SUCCESS
     &         .AND. SAMEI(IBUF(1 + 20 * (K - 1)),
     &                     IREF(1 + 20 * (K - 1)), K + 1)
            OK = OK .AND. REQS(K) .EQ. MPI_REQUEST_NULL
         END DO
         CALL CHECK(OK, 'waitall', RANK)

!        MPI_STATUSES_IGNORE
         CALL FILLI(IREF, 4, 200 + RANK)
         CALL FILLI(IREF(11), 4, 200 + PEER)
         CALL MPI_IRECV(IBUF, 4, MPI_INTEGER, PEER, 20,
     &                  MPI_COMM_WORLD, REQS(1), IERR)
         CALL MPI_ISEND(IREF, 4, MPI_INTEGER, PEER, 20,
     &                  MPI_COMM_WORLD, REQS(2), IERR)
         CALL MPI_WAITALL(2, REQS, MPI_STATUSES_IGNORE, IERR)
         CALL CHECK(IERR .EQ. 0 .AND. SAMEI(IBUF, IREF(11), 4)
     &              .AND. REQS(1) .EQ. MPI_REQUEST_NULL
     &              .AND. MPI_STATUSES_IGNORE(MPI_TAG, 1) .EQ. 0,
     &              'statuses_ignore', RANK)

!        Waitany: indices count from 1, MPI_UNDEFINED when none left
         DO K = 1, 3
            CALL MPI_IRECV(IBUF(K), 1, MPI_INTEGER, PEER, 30 + K,
     &                     MPI_COMM_WORLD, REQS(K), IERR)
            SEEN(K) = 0
         END DO
         DO K = 3, 1, -1
            IREF(K) = K
            CALL MPI_SEND(IREF(K), 1, MPI_INTEGER, PEER, 30 + K,
     &                    MPI_COMM_WORLD, IERR)
         END DO
         OK = .TRUE.
         DO K = 1, 3
            CALL MPI_WAITANY(3, REQS, IDX, STATUS, IERR)
            OK = OK .AND. IDX .GE. 1 .AND. IDX .LE. 3
            IF (OK) THEN
               SEEN(IDX) = SEEN(IDX) + 1
               OK = OK .AND. STATUS(MPI_TAG) .EQ. 30 + IDX
     &            .AND. IBUF(IDX) .EQ. IDX
            END IF
         END DO
         CALL MPI_WAITANY(3, REQS, IDX, STATUS, IERR)
         OK = OK .AND. IDX .EQ. MPI_UNDEFINED .AND. SEEN(1) .EQ. 1
     &      .AND. SEEN(2) .EQ. 1 .AND. SEEN(3) .EQ. 1
         CALL CHECK(OK, 'waitany', RANK)

!        Waitsome: all three were sent before it is called
         DO K = 1, 3
            CALL MPI_IRECV(IBUF(K), 1, MPI_INTEGER, PEER, 40 + K,
     &                     MPI_COMM_WORLD, REQS(K), IERR)
         END DO
         DO K = 1, 3
            IREF(K) = K * 7
            CALL MPI_SEND(IREF(K), 1, MPI_INTEGER, PEER, 40 + K,
     &                    MPI_COMM_WORLD, IERR)
         END DO
         CNT = 0
         OK = .TRUE.
         DO WHILE (CNT .LT. 3 .AND. OK)
            CALL MPI_WAITSOME(3, REQS, NOUT, IND, STATS, IERR)
            OK = NOUT .GE. 1 .AND. NOUT .LE. 3 - CNT
            DO I = 1, NOUT
               OK = OK .AND. IND(I) .GE. 1 .AND. IND(I) .LE. 3
               IF (OK) OK = IBUF(IND(I)) .EQ. IND(I) * 7
     &                      .AND. STATS(MPI_TAG, I) .EQ. 40 + IND(I)
            END DO
            CNT = CNT + NOUT
         END DO
         CALL MPI_WAITSOME(3, REQS, NOUT, IND, STATS, IERR)
         CALL CHECK(OK .AND. NOUT .EQ. MPI_UNDEFINED, 'waitsome', RANK)

!        MPI_TEST until the LOGICAL flag is .TRUE.
         CALL MPI_IRECV(IBUF, 1, MPI_INTEGER, PEER, 50,
     &                  MPI_COMM_WORLD, REQS(1), IERR)
         ONE(1) = RANK + 100
         CALL MPI_SEND(ONE, 1, MPI_INTEGER, PEER, 50,
     &                 MPI_COMM_WORLD, IERR)
         FLAG = .FALSE.
         DO WHILE (.NOT. FLAG)
            CALL MPI_TEST(REQS(1), FLAG, STATUS, IERR)
         END DO
         CALL CHECK(IBUF(1) .EQ. PEER + 100 .AND.
     &              STATUS(MPI_SOURCE) .EQ. PEER .AND.
     &              REQS(1) .EQ. MPI_REQUEST_NULL, 'test', RANK)

!        Probe / Get_count
         CALL FILLI(IREF, 17, 900 + RANK)
         CALL MPI_SEND(IREF, 17, MPI_INTEGER, PEER, 60 + RANK,
     &                 MPI_COMM_WORLD, IERR)
         CALL MPI_PROBE(PEER, MPI_ANY_TAG, MPI_COMM_WORLD, STATUS,
     &                  IERR)
         CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, CNT, IERR)
         OK = CNT .EQ. 17 .AND. STATUS(MPI_TAG) .EQ. 60 + PEER
     &      .AND. STATUS(MPI_SOURCE) .EQ. PEER
         CALL MPI_RECV(IBUF, CNT, MPI_INTEGER, STATUS(MPI_SOURCE),
     &                 STATUS(MPI_TAG), MPI_COMM_WORLD, STATUS, IERR)
         CALL FILLI(IREF, 17, 900 + PEER)
         CALL CHECK(OK .AND. SAMEI(IBUF, IREF, 17), 'probe', RANK)

!        Iprobe until the flag is .TRUE.
         CALL MPI_SEND(IREF, 3, MPI_INTEGER, PEER, 70,
     &                 MPI_COMM_WORLD, IERR)
         FLAG = .FALSE.
         DO WHILE (.NOT. FLAG)
            CALL MPI_IPROBE(MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, FLAG,
     &                      STATUS, IERR)
         END DO
         CALL MPI_GET_COUNT(STATUS, MPI_BYTE, CNT, IERR)
         CALL MPI_RECV(IBUF, 3, MPI_INTEGER, PEER, 70,
     &                 MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
         CALL CHECK(CNT .EQ. 12 .AND. STATUS(MPI_SOURCE) .EQ. PEER,
     &              'iprobe', RANK)

!        Errors returned through IERROR
         CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD,
     &                                MPI_ERRORS_RETURN, IERR)
         CALL MPI_SEND(IBUF, 1, MPI_INTEGER, NPROCS + 5, 0,
     &                 MPI_COMM_WORLD, IERR)
         CALL MPI_ERROR_CLASS(IERR, CLS, K)
         CALL CHECK(IERR .EQ. MPI_ERR_RANK .AND. CLS .EQ. MPI_ERR_RANK
     &              .AND. K .EQ. MPI_SUCCESS, 'ierror', RANK)
         CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD,
     &                                MPI_ERRORS_ARE_FATAL, IERR)
      END IF

!     Sendrecv and Sendrecv_replace around a ring of every rank
      RIGHT = MOD(RANK + 1, NPROCS)
      LEFT = MOD(RANK + NPROCS - 1, NPROCS)
      ONE(1) = RANK * 11
      CALL MPI_SENDRECV(ONE, 1, MPI_INTEGER, RIGHT, 80,
     &                  IBUF, 1, MPI_INTEGER, LEFT, 80,
     &                  MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECK(IBUF(1) .EQ. LEFT * 11 .AND.
     &           STATUS(MPI_SOURCE) .EQ. LEFT .AND. IERR .EQ. 0,
     &           'sendrecv', RANK)
      TWO(1) = RANK + 5
      TWO(2) = -RANK
      CALL MPI_SENDRECV_REPLACE(TWO, 2, MPI_INTEGER, RIGHT,
     &                          81, LEFT, 81, MPI_COMM_WORLD, STATUS,
     &                          IERR)
      CALL CHECK(TWO(1) .EQ. LEFT + 5 .AND. TWO(2) .EQ. -LEFT
     &           .AND. STATUS(MPI_TAG) .EQ. 81, 'sendrecv_replace',
     &           RANK)

!     Queries
      CALL MPI_TYPE_SIZE(MPI_DOUBLE_PRECISION, K, IERR)
      CALL MPI_TYPE_SIZE(MPI_DOUBLE_COMPLEX, I, IERR)
      CALL MPI_TYPE_SIZE(MPI_2INTEGER, CNT, IERR)
      CALL CHECK(K .EQ. 8 .AND. I .EQ. 16 .AND. CNT .EQ. 8,
     &           'type_size', RANK)
      CALL MPI_GET_VERSION(V, SV, IERR)
      CALL CHECK(V .EQ. MPI_VERSION .AND. SV .EQ. MPI_SUBVERSION,
     &           'version', RANK)
      PNAME = 'garbage'
      CALL MPI_GET_PROCESSOR_NAME(PNAME, LEN, IERR)
      WRITE(*, '(A,I0,A,I0,A,A)') 'name rank=', RANK, ' len=', LEN,
     &      ' name=', PNAME(1:LEN)
      FLUSH(6)
      CALL CHECK(LEN .GT. 0 .AND. LEN_TRIM(PNAME) .EQ. LEN,
     &           'processor_name', RANK)
      IF (RANK .EQ. 0) THEN
         CALL MPI_ERROR_STRING(MPI_ERR_TRUNCATE, ESTR, LEN, IERR)
         WRITE(*, '(A,I0,A,A)') 'errstr len=', LEN, ' text=',
     &         ESTR(1:LEN)
         FLUSH(6)
      END IF
      T1 = MPI_WTIME()
      CALL CHECK(T1 .GE. T0 .AND. MPI_WTICK() .EQ. 1D-9, 'wtime',
     &           RANK)

      CALL MPI_FINALIZE(IERR)
      FLAG = .FALSE.
      CALL MPI_FINALIZED(FLAG, IERR)
      CALL CHECK(FLAG .AND. IERR .EQ. 0, 'finalized', RANK)
      END

      LOGICAL FUNCTION SAMEI(A, B, N)
      INTEGER N, A(N), B(N), J
      SAMEI = .TRUE.
      DO J = 1, N
         IF (A(J) .NE. B(J)) SAMEI = .FALSE.
      END DO
      END

! Prints "ok WHAT rank=R" or "FAIL WHAT rank=R".
      SUBROUTINE CHECK(COND, WHAT, RANK)
      LOGICAL COND
      CHARACTER*(*) WHAT
      INTEGER RANK
      IF (COND) THEN
         WRITE(*, '(A,A,A,I0)') 'ok ', WHAT, ' rank=', RANK
      ELSE
         WRITE(*, '(A,A,A,I0)') 'FAIL ', WHAT, ' rank=', RANK
      END IF
      FLUSH(6)
      END

      SUBROUTINE FILLI(A, N, SEED)
      INTEGER N, A(N), SEED, J
      DO J = 1, N
         A(J) = SEED * 1000 + J
      END DO
      END

      SUBROUTINE MOVEI(FROM, TO, N)
      INTEGER N, FROM(N), TO(N), J
      DO J = 1, N
         TO(J) = FROM(J)
      END DO
      END

! Blocking ping-pong of N integers between RANK and PEER (0 starts),
! checking data, source, tag and count.
      SUBROUTINE PINGPONG(RANK, PEER, N, BUF, REF, WHAT)
      INCLUDE 'mpif.h'
      INTEGER RANK, PEER, N, J, CNT, IERR
      INTEGER STATUS(MPI_STATUS_SIZE)
      INTEGER BUF(N), REF(N)
      CHARACTER*(*) WHAT
      LOGICAL OK
      DO J = 1, N
         REF(J) = RANK * 1000000 + N + J
      END DO
      IF (RANK .EQ. 0) THEN
         CALL MPI_SEND(REF, N, MPI_INTEGER, PEER, N,
     &                 MPI_COMM_WORLD, IERR)
         CALL MPI_RECV(BUF, N, MPI_INTEGER, PEER, N,
     &                 MPI_COMM_WORLD, STATUS, IERR)
      ELSE
         CALL MPI_RECV(BUF, N, MPI_INTEGER, PEER, N,
     &                 MPI_COMM_WORLD, STATUS, IERR)
         CALL MPI_SEND(REF, N, MPI_INTEGER, PEER, N,
     &                 MPI_COMM_WORLD, IERR)
      END IF
      CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, CNT, IERR)
      OK = CNT .EQ. N .AND. STATUS(MPI_SOURCE) .EQ. PEER
     &   .AND. STATUS(MPI_TAG) .EQ. N .AND. IERR .EQ. MPI_SUCCESS
      DO J = 1, N
         IF (BUF(J) .NE. PEER * 1000000 + N + J) OK = .FALSE.
      END DO
      CALL CHECK(OK, WHAT, RANK)
      END
