! Old-style fixed-form code: arrays of different types and ranks, and
! scalars, passed to the same MPI routines in one file. gfortran 10 and
! later reject this unless compiled with -fallow-argument-mismatch.
! Ranks 0 and 1 exchange each buffer both ways (blocking and
! non-blocking) and print "ok mixed_types rank=R" or "FAIL ...".
      PROGRAM MISMATCH
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, PEER, I, ISC, IREQ(2)
      INTEGER IA(5), IB(5)
      REAL RA(3), RB(3)
      DOUBLE PRECISION DA(4, 2), DB(4, 2)
      COMPLEX*16 ZA(2), ZB(2)
      CHARACTER*8 CA, CB
      LOGICAL LA(2), LB(2), OK
      INTEGER*8 KA, KB

      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      IF (RANK .LE. 1) THEN
         PEER = 1 - RANK
         DO I = 1, 5
            IA(I) = RANK * 10 + I
         END DO
         DO I = 1, 3
            RA(I) = RANK + I * 0.5
         END DO
         DO I = 1, 4
            DA(I, 1) = RANK * 100D0 + I
            DA(I, 2) = -DA(I, 1)
         END DO
         ZA(1) = DCMPLX(RANK, 1D0)
         ZA(2) = DCMPLX(2D0, -RANK)
         CA = 'rank'
         CA(6:6) = CHAR(ICHAR('0') + RANK)
         LA(1) = RANK .EQ. 0
         LA(2) = .TRUE.
         KA = 3000000000_8 + RANK
         ISC = 42 + RANK

         CALL MPI_SEND(IA, 5, MPI_INTEGER, PEER, 1, MPI_COMM_WORLD,
     &                 IERR)
         CALL MPI_SEND(RA, 3, MPI_REAL, PEER, 2, MPI_COMM_WORLD, IERR)
         CALL MPI_SEND(DA, 8, MPI_DOUBLE_PRECISION, PEER, 3,
     &                 MPI_COMM_WORLD, IERR)
         CALL MPI_SEND(ZA, 2, MPI_DOUBLE_COMPLEX, PEER, 4,
     &                 MPI_COMM_WORLD, IERR)
         CALL MPI_SEND(CA, 8, MPI_CHARACTER, PEER, 5, MPI_COMM_WORLD,
     &                 IERR)
         CALL MPI_SEND(LA, 2, MPI_LOGICAL, PEER, 6, MPI_COMM_WORLD,
     &                 IERR)
         CALL MPI_SEND(KA, 1, MPI_INTEGER8, PEER, 7, MPI_COMM_WORLD,
     &                 IERR)

         CALL MPI_RECV(IB, 5, MPI_INTEGER, PEER, 1, MPI_COMM_WORLD,
     &                 MPI_STATUS_IGNORE, IERR)
         CALL MPI_RECV(RB, 3, MPI_REAL, PEER, 2, MPI_COMM_WORLD,
     &                 MPI_STATUS_IGNORE, IERR)
         CALL MPI_RECV(DB, 8, MPI_DOUBLE_PRECISION, PEER, 3,
     &                 MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
         CALL MPI_RECV(ZB, 2, MPI_DOUBLE_COMPLEX, PEER, 4,
     &                 MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
         CALL MPI_RECV(CB, 8, MPI_CHARACTER, PEER, 5, MPI_COMM_WORLD,
     &                 MPI_STATUS_IGNORE, IERR)
         CALL MPI_RECV(LB, 2, MPI_LOGICAL, PEER, 6, MPI_COMM_WORLD,
     &                 MPI_STATUS_IGNORE, IERR)
         CALL MPI_RECV(KB, 1, MPI_INTEGER8, PEER, 7, MPI_COMM_WORLD,
     &                 MPI_STATUS_IGNORE, IERR)

         OK = .TRUE.
         DO I = 1, 5
            OK = OK .AND. IB(I) .EQ. PEER * 10 + I
         END DO
         DO I = 1, 3
            OK = OK .AND. RB(I) .EQ. PEER + I * 0.5
         END DO
         DO I = 1, 4
            OK = OK .AND. DB(I, 1) .EQ. PEER * 100D0 + I
     &         .AND. DB(I, 2) .EQ. -DB(I, 1)
         END DO
         OK = OK .AND. ZB(1) .EQ. DCMPLX(PEER, 1D0)
     &      .AND. ZB(2) .EQ. DCMPLX(2D0, -PEER)
         OK = OK .AND. CB(1:4) .EQ. 'rank'
     &      .AND. CB(6:6) .EQ. CHAR(ICHAR('0') + PEER)
         OK = OK .AND. (LB(1) .EQV. PEER .EQ. 0) .AND. LB(2)
         OK = OK .AND. KB .EQ. 3000000000_8 + PEER

!        a scalar and a 2-D array through the non-blocking calls
         CALL MPI_IRECV(I, 1, MPI_INTEGER, PEER, 8, MPI_COMM_WORLD,
     &                  IREQ(1), IERR)
         CALL MPI_ISEND(ISC, 1, MPI_INTEGER, PEER, 8, MPI_COMM_WORLD,
     &                  IREQ(2), IERR)
         CALL MPI_WAITALL(2, IREQ, MPI_STATUSES_IGNORE, IERR)
         OK = OK .AND. I .EQ. 42 + PEER
         CALL MPI_IRECV(DB, 8, MPI_DOUBLE_PRECISION, PEER, 9,
     &                  MPI_COMM_WORLD, IREQ(1), IERR)
         CALL MPI_ISEND(DA, 8, MPI_DOUBLE_PRECISION, PEER, 9,
     &                  MPI_COMM_WORLD, IREQ(2), IERR)
         CALL MPI_WAITALL(2, IREQ, MPI_STATUSES_IGNORE, IERR)
         OK = OK .AND. DB(4, 2) .EQ. -(PEER * 100D0 + 4)
     &      .AND. IERR .EQ. MPI_SUCCESS
         IF (OK) THEN
            WRITE(*, '(A,I0)') 'ok mixed_types rank=', RANK
         ELSE
            WRITE(*, '(A,I0)') 'FAIL mixed_types rank=', RANK
         END IF
         FLUSH(6)
      END IF
      CALL MPI_FINALIZE(IERR)
      END
