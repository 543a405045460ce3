! Ping-pong between rank 0 and rank PEER with `use mpi_f08`: for each SIZE
! in turn, REPS round trips of SIZE bytes with blocking MPI_Send /
! MPI_Recv and TYPE(MPI_Status) (the mpi_f08 twin of pingpong.c and
! f90_pingpong.f90). The other ranks only call MPI_Init and MPI_Finalize.
!
! usage: f08_pingpong PEER REPS SIZE...
!
! After each call, the two ranks print
!   pp rank=R size=S rep=I op=send|recv t=<MPI_Wtime, 17 digits>
! Data, source, tag and count are checked; a mismatch prints a FAIL line.
program f08_pingpong
  use mpi_f08
  implicit none
  integer :: rank, nprocs, peer, reps, nargs, a, rep, other, tag, cnt, k
  type(MPI_Status) :: status
  integer(kind=8) :: size, maxsize
  integer(kind=1), allocatable :: sbuf(:), rbuf(:)
  character(len=32) :: arg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  nargs = command_argument_count()
  if (nargs < 3) then
    if (rank == 0) write (*, '(a)') 'FAIL usage: f08_pingpong PEER REPS SIZE...'
    call MPI_Finalize()
    stop 2
  end if
  peer = int_arg(1)
  reps = int_arg(2)
  if (rank == 0 .or. rank == peer) then
    maxsize = 1
    do a = 3, nargs
      maxsize = max(maxsize, int(int_arg(a), 8))
    end do
    allocate (sbuf(maxsize), rbuf(maxsize))
    other = merge(peer, 0, rank == 0)
    do a = 3, nargs
      size = int_arg(a)
      do rep = 0, reps - 1
        tag = a * 100 + rep
        call fill(sbuf, size, rank)
        if (rank == 0) then
          call MPI_Send(sbuf, int(size), MPI_BYTE, other, tag, MPI_COMM_WORLD)
          call stamp('send')
          call MPI_Recv(rbuf, int(size), MPI_BYTE, other, tag, MPI_COMM_WORLD, status)
          call stamp('recv')
        else
          call MPI_Recv(rbuf, int(size), MPI_BYTE, other, tag, MPI_COMM_WORLD, status)
          call stamp('recv')
          call MPI_Send(sbuf, int(size), MPI_BYTE, other, tag, MPI_COMM_WORLD)
          call stamp('send')
        end if
        call MPI_Get_count(status, MPI_BYTE, cnt)
        if (cnt /= size .or. status%MPI_SOURCE /= other .or. status%MPI_TAG /= tag) then
          write (*, '(a,i0,a,i0,a,i0)') 'FAIL status rank=', rank, ' size=', size, ' count=', cnt
        end if
        call fill(sbuf, size, other)
        do k = 1, int(size)
          if (rbuf(k) /= sbuf(k)) then
            write (*, '(a,i0,a,i0,a,i0)') 'FAIL data rank=', rank, ' size=', size, ' at=', k
            exit
          end if
        end do
        flush (6)
      end do
    end do
  end if
  call MPI_Finalize()

contains

  integer function int_arg(i)
    integer, intent(in) :: i
    call get_command_argument(i, arg)
    read (arg, *) int_arg
  end function int_arg

  ! The pattern of bytes a rank sends for the current size and repetition.
  subroutine fill(buf, n, who)
    integer(kind=1), intent(out) :: buf(:)
    integer(kind=8), intent(in) :: n
    integer, intent(in) :: who
    integer(kind=8) :: j
    do j = 1, n
      buf(j) = int(mod(j * 31 + n * 7 + rep * 13 + who * 101, 256_8) - 128, 1)
    end do
  end subroutine fill

  subroutine stamp(op)
    character(len=*), intent(in) :: op
    double precision :: t
    t = MPI_Wtime()
    write (*, '(a,i0,a,i0,a,i0,a,a,a,g0.17)') 'pp rank=', rank, ' size=', size, ' rep=', rep, &
      ' op=', op, ' t=', t
    flush (6)
  end subroutine stamp
end program f08_pingpong
