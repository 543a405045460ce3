! bench-npb CG: the conjugate gradient kernel of NPB 3.3-MPI, our own
! implementation of its algorithm, problem classes, communication pattern
! and verification.
!
! The inverse power method estimates the smallest eigenvalue of a random
! sparse symmetric positive definite matrix: each of niter outer iterations
! solves A.z = x with cgitmax = 25 unpreconditioned CG steps, then sets
! zeta = shift + 1/(x.z) and x = z/||z||.
!
! Differences from NPB, which compiles class and process count in
! (npbparams.h): the class is the first command-line argument (S, W, A, B,
! C; default S) and the process grid is chosen at run time from the number
! of ranks, which must be a power of two (npcols = nprows, or
! npcols = 2*nprows when the count is not a square), as NPB requires.
!
! Communication, as in NPB: the rank grid is nprows x npcols, rank
! me = proc_row*npcols + proc_col owns rows firstrow..lastrow and columns
! firstcol..lastcol of A.  Partial sums of A.p are combined along a grid row
! in log2(npcols) steps of MPI_Irecv/MPI_Send/MPI_Wait with the partner
! reduce_exch_proc(i) (tag i); the result is sent to the transpose rank
! exch_proc (tag 1); dot products are summed along the row the same way.
! MPI_Barrier before the timed section and MPI_Reduce(MAX) of the time.
! Time is measured with MPI_Wtime.

module cg_data
   implicit none
   include 'mpif.h'

   integer, parameter :: dp = kind(1.0d0)
   integer, parameter :: cgitmax = 25
   real(dp), parameter :: rcond = 0.1_dp

   ! problem class
   character :: cls
   integer :: na, nonzer, niter
   real(dp) :: shift, zeta_verify

   ! process grid and this rank's block
   integer :: me, nprocs, nprows, npcols, proc_row, proc_col
   integer :: firstrow, lastrow, firstcol, lastcol
   integer :: send_start, send_len, exch_proc, exch_recv_length
   integer :: l2npcols
   integer, allocatable :: red_proc(:), red_send_start(:), red_send_len(:)
   integer, allocatable :: red_recv_start(:), red_recv_len(:)

   ! the local block of A in compressed rows, and the vectors
   integer :: nzmax
   integer, allocatable :: colidx(:), rowstr(:)
   real(dp), allocatable :: a(:)
   real(dp), allocatable :: x(:), z(:), p(:), q(:), r(:), w(:)

   ! state of the NPB random number generator
   real(dp) :: tran, amult

   ! receive buffers of the scalar reductions
   real(dp) :: red_in(2)
end module cg_data

! NPB's linear congruential generator: x <- a*x mod 2**46, returns
! x * 2**-46.  Computed exactly in 64-bit integers by splitting a and x
! into 23-bit halves (x and a hold integers below 2**46).
function randlc(xseed, amul) result(res)
   use cg_data, only: dp
   implicit none
   real(dp), intent(inout) :: xseed
   real(dp), intent(in) :: amul
   real(dp) :: res
   integer(8), parameter :: two23 = 8388608_8
   integer(8), parameter :: two46 = two23*two23
   integer(8) :: ia, ix, ahi, alo, xhi, xlo, cross

   ia = int(amul, 8)
   ix = int(xseed, 8)
   ahi = ia/two23
   alo = ia - ahi*two23
   xhi = ix/two23
   xlo = ix - xhi*two23
   cross = mod(ahi*xlo + alo*xhi, two23)
   ix = mod(cross*two23 + alo*xlo, two46)
   xseed = real(ix, dp)
   res = xseed/real(two46, dp)
end function randlc

program cg
   use cg_data
   implicit none

   integer :: ierr, it, j
   real(dp) :: rnorm, zeta, norms(2), t0, t, tmax, mops, err
   logical :: verified
   real(dp), external :: randlc

   call mpi_init(ierr)
   call mpi_comm_rank(MPI_COMM_WORLD, me, ierr)
   call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)

   call choose_class()
   call setup_grid()
   call setup_submatrix()

   if (me == 0) then
      write (*, '(/,a,/)') ' NAS Parallel Benchmarks 3.3 -- CG Benchmark'// &
         ' (bench-npb implementation)'
      write (*, '(a)') ' Class from the command line, process grid'// &
         ' chosen at run time'
      write (*, '(a,i10,a,a,a)') ' Size: ', na, '  (class ', cls, ')'
      write (*, '(a,i5)') ' Iterations: ', niter
      write (*, '(a,i6)') ' Number of active processes: ', nprocs
      write (*, '(a,i4,a,i4)') ' Process grid: nprows =', nprows, &
         '  npcols =', npcols
      write (*, '(a,i8)') ' Number of nonzeroes per row: ', nonzer
      write (*, '(a,f9.3)') ' Eigenvalue shift: ', shift
   end if

   tran = 314159265.0_dp
   amult = 1220703125.0_dp
   zeta = randlc(tran, amult)

   call makea()

   ! column indices from global (firstcol..lastcol) to local (1..)
   do j = 1, rowstr(lastrow - firstrow + 2) - 1
      colidx(j) = colidx(j) - firstcol + 1
   end do

   ! one untimed iteration to touch code and data, then start over
   x = 1.0_dp
   call conj_grad(rnorm)
   call norms_of_z(norms)
   x(1:lastcol - firstcol + 1) = norms(2)*z(1:lastcol - firstcol + 1)

   x = 1.0_dp
   zeta = 0.0_dp

   call mpi_barrier(MPI_COMM_WORLD, ierr)
   t0 = mpi_wtime()

   do it = 1, niter
      call conj_grad(rnorm)
      call norms_of_z(norms)
      if (me == 0) then
         zeta = shift + 1.0_dp/norms(1)
         if (it == 1) write (*, '(/,a)') &
            '   iteration           ||r||                 zeta'
         write (*, '(4x,i5,6x,e21.14,f20.13)') it, rnorm, zeta
      end if
      x(1:lastcol - firstcol + 1) = norms(2)*z(1:lastcol - firstcol + 1)
   end do

   t = mpi_wtime() - t0
   call mpi_reduce(t, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, &
                   MPI_COMM_WORLD, ierr)

   if (me == 0) then
      write (*, '(a)') ' Benchmark completed'
      err = abs(zeta - zeta_verify)/zeta_verify
      verified = err <= 1.0e-10_dp
      if (verified) then
         write (*, '(a)') ' VERIFICATION SUCCESSFUL'
         write (*, '(a,e20.13)') ' Zeta is    ', zeta
         write (*, '(a,e20.13)') ' Error is   ', err
      else
         write (*, '(a)') ' VERIFICATION FAILED'
         write (*, '(a,e20.13)') ' Zeta                ', zeta
         write (*, '(a,e20.13)') ' The correct zeta is ', zeta_verify
      end if
      if (tmax > 0.0_dp) then
         mops = 1.0e-6_dp*2*niter*real(na, dp) &
                *(3.0_dp + nonzer*real(nonzer + 1, dp) &
                  + 25.0_dp*(5.0_dp + nonzer*real(nonzer + 1, dp)) + 3.0_dp) &
                /tmax
      else
         mops = 0.0_dp
      end if
      call print_results(tmax, mops, verified)
   end if

   call mpi_finalize(ierr)
end program cg

! The class named by the first argument (default S) and its NPB constants.
subroutine choose_class()
   use cg_data
   implicit none
   character(len=16) :: arg
   integer :: ierr

   arg = 'S'
   if (command_argument_count() >= 1) call get_command_argument(1, arg)
   cls = arg(1:1)
   select case (cls)
   case ('S', 's')
      cls = 'S'; na = 1400; nonzer = 7; niter = 15; shift = 10.0_dp
      zeta_verify = 8.5971775078648_dp
   case ('W', 'w')
      cls = 'W'; na = 7000; nonzer = 8; niter = 15; shift = 12.0_dp
      zeta_verify = 10.362595087124_dp
   case ('A', 'a')
      cls = 'A'; na = 14000; nonzer = 11; niter = 15; shift = 20.0_dp
      zeta_verify = 17.130235054029_dp
   case ('B', 'b')
      cls = 'B'; na = 75000; nonzer = 13; niter = 75; shift = 60.0_dp
      zeta_verify = 22.712745482631_dp
   case ('C', 'c')
      cls = 'C'; na = 150000; nonzer = 15; niter = 75; shift = 110.0_dp
      zeta_verify = 28.973605592845_dp
   case default
      if (me == 0) write (*, '(3a)') 'ERROR: unknown CG class "', &
         trim(arg), '" (expected S, W, A, B or C)'
      call refuse()
   end select
end subroutine choose_class

! End the job after rank 0 printed why: the barrier keeps another rank's
! MPI_Abort from ending the job before the message is out.
subroutine refuse()
   use cg_data
   implicit none
   integer :: ierr
   flush (6)
   call mpi_barrier(MPI_COMM_WORLD, ierr)
   call mpi_abort(MPI_COMM_WORLD, 1, ierr)
   stop 1
end subroutine refuse

! nprows x npcols with nprows*npcols = nprocs, a power of two: square when
! possible, otherwise npcols = 2*nprows.
subroutine setup_grid()
   use cg_data
   implicit none
   integer :: k, n, ierr

   k = 0
   n = 1
   do while (n < nprocs)
      n = 2*n
      k = k + 1
   end do
   if (n /= nprocs) then
      if (me == 0) write (*, '(a,i0,a)') 'ERROR: CG needs a power-of-two'// &
         ' number of processes, not ', nprocs, ' ranks'
      call refuse()
   end if
   nprows = 2**(k/2)
   npcols = 2**((k + 1)/2)
end subroutine setup_grid

! This rank's rows and columns, its transpose partner and the schedule of
! the row reductions (NPB's partition: blocks of na/nprows rows and
! na/npcols columns, the first blocks one larger when na does not divide;
! with npcols = 2*nprows each column block of the square layout is split
! between an even and an odd rank).
subroutine setup_submatrix()
   use cg_data
   implicit none
   integer :: extra, size, half, i, j, span, nrows

   proc_row = me/npcols
   proc_col = me - proc_row*npcols

   if (mod(na, npcols) == 0) then
      size = na/npcols
      firstcol = proc_col*size + 1
      lastcol = firstcol + size - 1
      size = na/nprows
      firstrow = proc_row*size + 1
      lastrow = firstrow + size - 1
   else
      call block(na, nprows, proc_row, firstrow, lastrow)
      if (npcols == nprows) then
         call block(na, npcols, proc_col, firstcol, lastcol)
      else
         half = npcols/2
         call block(na, half, proc_col/2, firstcol, lastcol)
         size = lastcol - firstcol + 1
         if (mod(me, 2) == 0) then
            lastcol = firstcol + (size - 1)/2
         else
            firstcol = firstcol + (size - 1)/2 + 1
            lastcol = firstcol + size/2 - 1
         end if
      end if
   end if

   nrows = lastrow - firstrow + 1
   if (npcols == nprows) then
      send_start = 1
      send_len = nrows
      exch_proc = mod(me, nprows)*nprows + me/nprows
   else
      if (mod(me, 2) == 0) then
         send_start = 1
         send_len = (nrows + 1)/2
      else
         send_start = (nrows + 1)/2 + 1
         send_len = nrows/2
      end if
      exch_proc = 2*(mod(me/2, nprows)*nprows + me/2/nprows) + mod(me, 2)
   end if

   l2npcols = 0
   i = npcols/2
   do while (i > 0)
      l2npcols = l2npcols + 1
      i = i/2
   end do

   allocate (red_proc(max(l2npcols, 1)), red_send_start(max(l2npcols, 1)), &
             red_send_len(max(l2npcols, 1)), red_recv_start(max(l2npcols, 1)), &
             red_recv_len(max(l2npcols, 1)))

   ! step i pairs columns that differ by npcols/2**i within a group of
   ! npcols/2**(i-1) columns
   span = npcols
   do i = 1, l2npcols
      j = mod(proc_col + span/2, span) + (proc_col/span)*span
      red_proc(i) = proc_row*npcols + j
      span = span/2
   end do

   do i = 1, l2npcols
      red_recv_start(i) = send_start
      if (npcols == nprows) then
         red_send_start(i) = send_start
         red_send_len(i) = send_len
         red_recv_len(i) = nrows
      else
         red_recv_len(i) = send_len
         if (i == l2npcols) then
            ! the last step swaps halves with the odd/even neighbour
            red_send_len(i) = nrows - send_len
            if (mod(me, 2) == 0) then
               red_send_start(i) = send_start + send_len
            else
               red_send_start(i) = 1
            end if
         else
            red_send_start(i) = send_start
            red_send_len(i) = send_len
         end if
      end if
   end do

   exch_recv_length = lastcol - firstcol + 1

   ! NPB's bound on the local nonzeros, and vectors long enough for both a
   ! row block and a column block
   nzmax = int(int(na, 8)*(nonzer + 1)/nprocs*(nonzer + 1) + nonzer &
               + int(na, 8)*(nonzer + 2 + nprocs/256)/npcols)
   extra = na/nprows + 3
   allocate (x(extra), z(extra), p(extra), q(extra), r(extra), w(extra))
   allocate (a(nzmax), colidx(nzmax), rowstr(na + 1))

contains

   ! part of n for index k of parts (0-based): the first mod(n, parts) parts
   ! have one more
   subroutine block(n, parts, k, first, last)
      integer, intent(in) :: n, parts, k
      integer, intent(out) :: first, last
      integer :: big, sz
      big = n - (n/parts)*parts
      if (k < big) then
         sz = n/parts + 1
         first = k*sz + 1
      else
         sz = n/parts
         first = big*(sz + 1) + (k - big)*sz + 1
      end if
      last = first + sz - 1
   end subroutine block
end subroutine setup_submatrix

! A := sum over i of size_i * v_i v_i^T + (rcond - shift) I, where v_i is a
! random sparse vector of nonzer entries with a 0.5 at position i and
! size_i = rcond**((i-1)/na).  Every rank draws the whole random sequence
! and keeps the entries of its block, then sums duplicates (sparse).
subroutine makea()
   use cg_data
   implicit none
   integer, allocatable :: arow(:), acol(:), mark(:), iv(:)
   real(dp), allocatable :: aelt(:), v(:)
   integer :: nnza, iouter, k, k1, jcol, irow, nzv, i
   real(dp) :: size, ratio, scale

   allocate (arow(nzmax), acol(nzmax), aelt(nzmax), mark(na))
   allocate (v(nonzer + 1), iv(nonzer + 1))
   mark = 0

   size = 1.0_dp
   ratio = rcond**(1.0_dp/real(na, dp))
   nnza = 0
   do iouter = 1, na
      nzv = nonzer
      call sprnvc(na, nzv, v, iv, mark)
      call vecset(v, iv, nzv, iouter, 0.5_dp)
      do k = 1, nzv
         jcol = iv(k)
         if (jcol >= firstcol .and. jcol <= lastcol) then
            scale = size*v(k)
            do k1 = 1, nzv
               irow = iv(k1)
               if (irow >= firstrow .and. irow <= lastrow) then
                  call add_triple(irow, jcol, v(k1)*scale)
               end if
            end do
         end if
      end do
      size = size*ratio
   end do

   do i = firstrow, lastrow
      if (i >= firstcol .and. i <= lastcol) call add_triple(i, i, rcond - shift)
   end do

   call sparse(arow, acol, aelt, nnza, mark)

contains

   subroutine add_triple(row, col, val)
      integer, intent(in) :: row, col
      real(dp), intent(in) :: val
      integer :: ierr
      nnza = nnza + 1
      if (nnza > nzmax) then
         write (*, '(a,i0,a,i0,a,i0)') 'ERROR: rank ', me, &
            ': more matrix elements than the bound nzmax = ', nzmax, &
            ' at row ', iouter
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
         stop 1
      end if
      arow(nnza) = row
      acol(nnza) = col
      aelt(nnza) = val
   end subroutine add_triple
end subroutine makea

! nz distinct random positions in 1..n with random values: each draw takes
! a value, then a position int(nn1*u)+1 with nn1 the smallest power of two
! >= n; positions beyond n or already drawn are skipped.  mark is all zero
! on entry and on return.
subroutine sprnvc(n, nz, v, iv, mark)
   use cg_data, only: dp, tran, amult
   implicit none
   integer, intent(in) :: n, nz
   real(dp), intent(out) :: v(*)
   integer, intent(out) :: iv(*)
   integer, intent(inout) :: mark(n)
   real(dp), external :: randlc
   real(dp) :: val, loc
   integer :: nn1, nzv, i

   nn1 = 1
   do while (nn1 < n)
      nn1 = 2*nn1
   end do
   nzv = 0
   do while (nzv < nz)
      val = randlc(tran, amult)
      loc = randlc(tran, amult)
      i = int(nn1*loc) + 1
      if (i > n) cycle
      if (mark(i) /= 0) cycle
      mark(i) = 1
      nzv = nzv + 1
      v(nzv) = val
      iv(nzv) = i
   end do
   do i = 1, nzv
      mark(iv(i)) = 0
   end do
end subroutine sprnvc

! Sets position i of the sparse vector (v, iv, nzv) to val, appending it
! when absent.
subroutine vecset(v, iv, nzv, i, val)
   use cg_data, only: dp
   implicit none
   real(dp), intent(inout) :: v(*)
   integer, intent(inout) :: iv(*), nzv
   integer, intent(in) :: i
   real(dp), intent(in) :: val
   integer :: k
   logical :: found

   found = .false.
   do k = 1, nzv
      if (iv(k) == i) then
         v(k) = val
         found = .true.
      end if
   end do
   if (.not. found) then
      nzv = nzv + 1
      v(nzv) = val
      iv(nzv) = i
   end if
end subroutine vecset

! Builds rowstr/colidx/a for rows firstrow..lastrow from the triples: a
! stable bucket sort on the row, then per row the duplicates summed in
! order of first appearance, exact zeros dropped.
subroutine sparse(arow, acol, aelt, nnza, mark)
   use cg_data
   implicit none
   integer, intent(in) :: nnza
   integer, intent(in) :: arow(nnza), acol(nnza)
   real(dp), intent(in) :: aelt(nnza)
   integer, intent(inout) :: mark(na)
   real(dp), allocatable :: acc(:)
   integer, allocatable :: nzloc(:), next(:)
   integer :: nrows, j, k, i, nza, nzrow, kfirst
   real(dp) :: s

   nrows = lastrow - firstrow + 1
   allocate (acc(na), nzloc(na), next(nrows + 1))

   ! counts, then starts, of each row's triples
   next = 0
   do k = 1, nnza
      j = arow(k) - firstrow + 1
      next(j + 1) = next(j + 1) + 1
   end do
   next(1) = 1
   do j = 2, nrows + 1
      next(j) = next(j) + next(j - 1)
   end do
   rowstr(1:nrows + 1) = next(1:nrows + 1)
   do k = 1, nnza
      j = arow(k) - firstrow + 1
      a(next(j)) = aelt(k)
      colidx(next(j)) = acol(k)
      next(j) = next(j) + 1
   end do

   acc = 0.0_dp
   mark = 0
   nza = 0
   do j = 1, nrows
      kfirst = rowstr(j)
      nzrow = 0
      do k = kfirst, rowstr(j + 1) - 1
         i = colidx(k)
         acc(i) = acc(i) + a(k)
         if (mark(i) == 0 .and. acc(i) /= 0.0_dp) then
            mark(i) = 1
            nzrow = nzrow + 1
            nzloc(nzrow) = i
         end if
      end do
      ! compacting in place: the row's output never passes its input
      rowstr(j) = nza + 1
      do k = 1, nzrow
         i = nzloc(k)
         mark(i) = 0
         s = acc(i)
         acc(i) = 0.0_dp
         if (s /= 0.0_dp) then
            nza = nza + 1
            a(nza) = s
            colidx(nza) = i
         end if
      end do
   end do
   rowstr(nrows + 1) = nza + 1
end subroutine sparse

! Sums n values over the ranks of this grid row: log2(npcols) exchanges
! with red_proc(i), tag i.
subroutine row_sum(vals, n)
   use cg_data
   implicit none
   integer, intent(in) :: n
   real(dp), intent(inout) :: vals(n)
   integer :: i, req, ierr, status(MPI_STATUS_SIZE)

   do i = 1, l2npcols
      call mpi_irecv(red_in, n, MPI_DOUBLE_PRECISION, red_proc(i), i, &
                     MPI_COMM_WORLD, req, ierr)
      call mpi_send(vals, n, MPI_DOUBLE_PRECISION, red_proc(i), i, &
                    MPI_COMM_WORLD, ierr)
      call mpi_wait(req, status, ierr)
      vals(1:n) = vals(1:n) + red_in(1:n)
   end do
end subroutine row_sum

! out := A.v for the full vector, distributed like v: local products into
! w, summed along the grid row (halving steps, tag i), then this rank's
! piece exchanged with the transpose rank (tag 1).  w is zeroed after.
subroutine matvec(v, out)
   use cg_data
   implicit none
   real(dp), intent(in) :: v(*)
   real(dp), intent(inout) :: out(*)
   integer :: i, j, k, req, ierr, status(MPI_STATUS_SIZE)
   real(dp) :: s

   do j = 1, lastrow - firstrow + 1
      s = 0.0_dp
      do k = rowstr(j), rowstr(j + 1) - 1
         s = s + a(k)*v(colidx(k))
      end do
      w(j) = s
   end do

   do i = l2npcols, 1, -1
      call mpi_irecv(out(red_recv_start(i)), red_recv_len(i), &
                     MPI_DOUBLE_PRECISION, red_proc(i), i, MPI_COMM_WORLD, &
                     req, ierr)
      call mpi_send(w(red_send_start(i)), red_send_len(i), &
                    MPI_DOUBLE_PRECISION, red_proc(i), i, MPI_COMM_WORLD, ierr)
      call mpi_wait(req, status, ierr)
      do j = send_start, send_start + red_recv_len(i) - 1
         w(j) = w(j) + out(j)
      end do
   end do

   if (l2npcols /= 0) then
      call mpi_irecv(out, exch_recv_length, MPI_DOUBLE_PRECISION, &
                     exch_proc, 1, MPI_COMM_WORLD, req, ierr)
      call mpi_send(w(send_start), send_len, MPI_DOUBLE_PRECISION, &
                    exch_proc, 1, MPI_COMM_WORLD, ierr)
      call mpi_wait(req, status, ierr)
   else
      out(1:exch_recv_length) = w(1:exch_recv_length)
   end if

   w(1:max(lastrow - firstrow + 1, lastcol - firstcol + 1)) = 0.0_dp
end subroutine matvec

! cgitmax CG steps on A.z = x from z = 0; rnorm = ||x - A.z|| (on rank 0).
subroutine conj_grad(rnorm)
   use cg_data
   implicit none
   real(dp), intent(out) :: rnorm
   integer :: cgit, j, ncols
   real(dp) :: rho, rho0, alpha, beta, s(1), d

   ncols = lastcol - firstcol + 1
   q = 0.0_dp
   z = 0.0_dp
   r = x
   p = r
   w = 0.0_dp

   s(1) = 0.0_dp
   do j = 1, ncols
      s(1) = s(1) + r(j)*r(j)
   end do
   call row_sum(s, 1)
   rho = s(1)

   do cgit = 1, cgitmax
      call matvec(p, q)

      s(1) = 0.0_dp
      do j = 1, ncols
         s(1) = s(1) + p(j)*q(j)
      end do
      call row_sum(s, 1)
      d = s(1)

      alpha = rho/d
      rho0 = rho
      do j = 1, ncols
         z(j) = z(j) + alpha*p(j)
         r(j) = r(j) - alpha*q(j)
      end do

      s(1) = 0.0_dp
      do j = 1, ncols
         s(1) = s(1) + r(j)*r(j)
      end do
      call row_sum(s, 1)
      rho = s(1)

      beta = rho/rho0
      do j = 1, ncols
         p(j) = r(j) + beta*p(j)
      end do
   end do

   ! residual: r := A.z, then ||x - r||
   call matvec(z, r)
   s(1) = 0.0_dp
   do j = 1, ncols
      d = x(j) - r(j)
      s(1) = s(1) + d*d
   end do
   call row_sum(s, 1)
   rnorm = sqrt(s(1))
end subroutine conj_grad

! norms(1) = x.z, norms(2) = 1/||z||, both over the whole vectors.
subroutine norms_of_z(norms)
   use cg_data
   implicit none
   real(dp), intent(out) :: norms(2)
   integer :: j

   norms = 0.0_dp
   do j = 1, lastcol - firstcol + 1
      norms(1) = norms(1) + x(j)*z(j)
      norms(2) = norms(2) + z(j)*z(j)
   end do
   call row_sum(norms, 2)
   norms(2) = 1.0_dp/sqrt(norms(2))
end subroutine norms_of_z

! NPB's result block (print_results' layout, as bench-npb/common/results.c
! prints it for the C kernels): "Time exact (s)" and "Process grid" are our
! additions, the timer value with all its digits and the rank grid.
subroutine print_results(tmax, mops, verified)
   use cg_data
   implicit none
   real(dp), intent(in) :: tmax, mops
   logical, intent(in) :: verified
   character(len=24) :: text

   write (*, '(//,a)') ' CG Benchmark Completed.'
   write (*, '(a,a24)') ' Class           = ', cls
   write (*, '(a,i24)') ' Size            = ', na
   write (*, '(a,i24)') ' Iterations      = ', niter
   write (*, '(a,f24.2)') ' Time in seconds = ', tmax
   write (*, '(a,es24.16)') ' Time exact (s)  = ', tmax
   write (*, '(a,i24)') ' Total processes = ', nprocs
   write (text, '(i0,a,i0)') nprows, ' x ', npcols
   write (*, '(a,a24)') ' Process grid    = ', adjustr(text)
   write (*, '(a,f24.2)') ' Mop/s total     = ', mops
   write (*, '(a,f24.2)') ' Mop/s/process   = ', mops/nprocs
   write (*, '(a,a24)') ' Operation type  = ', 'floating point'
   if (verified) then
      write (*, '(a,a24)') ' Verification    = ', 'SUCCESSFUL'
   else
      write (*, '(a,a24)') ' Verification    = ', 'UNSUCCESSFUL'
   end if
   write (*, '(a,a24,/)') ' Version         = ', '3.3 (vaced bench-npb)'
end subroutine print_results
