! bench-npb MG: the multigrid kernel of NPB 3.3-MPI, our own implementation
! of its algorithm, problem classes, communication pattern and verification.
!
! V-cycle multigrid on a periodic nx x ny x nz grid (levels lt = log2(nx)
! down to 1): the right-hand side v is zero but for +1 at the ten largest
! and -1 at the ten smallest of NPB's pseudo-random numbers; each iteration
! is one V-cycle (restriction rprj3 down to the 2^3 grid, smoother psinv,
! trilinear interpolation interp, residual resid on the way up) followed by
! the residual on the finest grid.  Verification: the L2 norm of the final
! residual against NPB's reference value, relative error <= 1e-8.
!
! Differences from NPB, which compiles class and process count in
! (npbparams.h): the class is the first command-line argument (S, W, A, B,
! C; default S) and the grid of processes and the array sizes follow from
! MPI_Comm_size at run time.  The process count must be a power of two,
! at most 1024.  No mg.input file and no timer.flag are read.
!
! Decomposition, as NPB: with 2**p ranks the grid is split 2**(p/3) ways
! along x, 2**((p-p/3)/2) along y and the rest along z; rank
! me = i1 + p1*(i2 + p2*i3).  On coarse levels with fewer points than ranks
! along an axis some ranks hold no points ("dead"): neighbours then lie
! further away, and after interpolation onto the next finer level the ranks
! that held points hand their border planes to those that did not (the
! "_ex" exchanges).
!
! Communication, as NPB: the ghost-cell exchange comm3 posts, per axis,
! MPI_Irecv from both neighbours (tags 100*(dir+2+10*axis)), then
! MPI_Send of the +dir face and of the -dir face, then MPI_Wait for the
! -dir and the +dir receive.  Norms use two MPI_Allreduce (MAX, SUM) of one
! double; zran3 selects the twenty extreme points globally with MPI_Allreduce
! (MAX / MIN of one double, MAX of four integers) between two MPI_Barrier.
! Parameters are broadcast from rank 0 at the start (MPI_Bcast), the timed
! section is preceded by MPI_Barrier and its time reduced with MPI_Reduce
! (MAX).  Time is measured with MPI_Wtime.

module mg_data
   use mpi
   implicit none

   integer, parameter :: dp = kind(1.0d0)
   integer, parameter :: maxlevel = 12, maxprocs = 1024
   integer, parameter :: root = 0

   ! problem: class, finest level, grid sizes per level, iterations
   character :: cls
   integer :: lt, lb, nit
   integer :: nx(maxlevel), ny(maxlevel), nz(maxlevel)
   integer :: debug_vec(0:7)
   logical :: timeron

   ! ranks
   integer :: me, nprocs

   ! the local block of every level: sizes with ghost cells, offset in the
   ! level-stacked arrays, neighbours per axis and direction, whether the
   ! rank holds no points (dead) and whether it takes / gives the extra
   ! planes after interpolation onto the level
   integer :: m1(maxlevel), m2(maxlevel), m3(maxlevel), ir(maxlevel)
   integer :: nbr(3, -1:1, maxlevel)
   logical :: dead(maxlevel)
   logical :: take_ex(3, maxlevel), give_ex(3, maxlevel)
   ! global index range of the finest local block (NPB's is1..ie3)
   integer :: is1, is2, is3, ie1, ie2, ie3

   ! message tags and buffers of the exchanges: sbuf(:, dir), rbuf(:, dir)
   integer :: msg_type(3, -1:1)
   integer :: nm2
   real(dp), allocatable :: sbuf(:, :), rbuf(:, :)
   integer :: req(-1:1)
end module mg_data

! NPB's linear congruential generator x <- a*x mod 2**46, done exactly in
! 64-bit integers (NPB does it exactly in double precision; the values are
! integers below 2**46, so both give the same numbers).
module mg_random
   implicit none
   integer, parameter, private :: dp = kind(1.0d0)
   integer(8), parameter, private :: two23 = 8388608_8
   integer(8), parameter, private :: two46 = two23*two23
   real(dp), parameter :: r46 = 0.5_dp**46

contains

   ! a*x mod 2**46 for 0 <= a, x < 2**46, split into 23-bit halves
   pure function mulmod46(a, x) result(res)
      integer(8), intent(in) :: a, x
      integer(8) :: res
      integer(8) :: ahi, alo, xhi, xlo, cross
      ahi = a/two23
      alo = a - ahi*two23
      xhi = x/two23
      xlo = x - xhi*two23
      cross = mod(ahi*xlo + alo*xhi, two23)
      res = mod(cross*two23 + alo*xlo, two46)
   end function mulmod46

   ! a**e mod 2**46 (NPB's power(a, n1, n2, n3) with e = n1*n2 + n3)
   pure function powmod46(a, e) result(res)
      integer(8), intent(in) :: a, e
      integer(8) :: res, base, k
      res = 1
      base = a
      k = e
      do while (k > 0)
         if (mod(k, 2_8) == 1) res = mulmod46(res, base)
         base = mulmod46(base, base)
         k = k/2
      end do
   end function powmod46

   ! n successive numbers of the sequence after x into y; x advances
   subroutine vranlc(n, x, a, y)
      integer, intent(in) :: n
      integer(8), intent(inout) :: x
      integer(8), intent(in) :: a
      real(dp), intent(out) :: y(n)
      integer :: i
      do i = 1, n
         x = mulmod46(a, x)
         y(i) = r46*real(x, dp)
      end do
   end subroutine vranlc
end module mg_random

program mg
   use mg_data
   implicit none

   real(dp), allocatable :: u(:), v(:), r(:)
   real(dp) :: a(0:3), c(0:3)
   real(dp) :: rnm2, rnmu, old2, oldu, tinit, t0, t, tmax, mflops, nn
   real(dp) :: verify_value, err
   real(dp) :: t_init0
   integer :: n1, n2, n3, k, it, ierr, nr, nv
   logical :: verified

   call mpi_init(ierr)
   call mpi_comm_rank(MPI_COMM_WORLD, me, ierr)
   call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)

   call check_procs()

   call mpi_barrier(MPI_COMM_WORLD, ierr)
   t_init0 = mpi_wtime()

   ! rank 0 reads the problem (here: the class argument) and broadcasts it
   if (me == root) then
      write (*, '(//,a,/)') ' NAS Parallel Benchmarks 3.3 -- MG Benchmark'
      write (*, '(a)') ' No input file. Class from the command line'
   end if
   call choose_class()
   call mpi_bcast(lt, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
   call mpi_bcast(nit, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
   call mpi_bcast(nx(lt), 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
   call mpi_bcast(ny(lt), 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
   call mpi_bcast(nz(lt), 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
   call mpi_bcast(debug_vec(0), 8, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
   call mpi_bcast(timeron, 1, MPI_LOGICAL, 0, MPI_COMM_WORLD, ierr)

   ! operator A and smoother S(a) (classes S, W, A) or S(b) (B, C)
   a = [-8.0_dp/3.0_dp, 0.0_dp, 1.0_dp/6.0_dp, 1.0_dp/12.0_dp]
   if (cls == 'S' .or. cls == 'W' .or. cls == 'A') then
      c = [-3.0_dp/8.0_dp, 1.0_dp/32.0_dp, -1.0_dp/64.0_dp, 0.0_dp]
   else
      c = [-3.0_dp/17.0_dp, 1.0_dp/33.0_dp, -1.0_dp/61.0_dp, 0.0_dp]
   end if
   lb = 1
   k = lt

   call setup(n1, n2, n3)
   nv = m1(lt)*m2(lt)*m3(lt)
   nr = ir(1) + m1(1)*m2(1)*m3(1) - 1
   allocate (u(nr), v(nv), r(nr))
   nm2 = 2*(2 + max(n1, n2, n3))**2
   allocate (sbuf(nm2, -1:1), rbuf(nm2, -1:1))

   call zero3(u, n1, n2, n3)
   call zran3(v, n1, n2, n3, nx(lt), ny(lt), k)
   call norm2u3(v, n1, n2, n3, rnm2, rnmu, nx(lt), ny(lt), nz(lt))

   if (me == root) then
      write (*, '(a,i4,a,i4,a,i4,a,a,a)') ' Size: ', nx(lt), 'x', ny(lt), &
         'x', nz(lt), '  (class ', cls, ')'
      write (*, '(a,i4)') ' Iterations: ', nit
      write (*, '(a,i6)') ' Number of processes: ', nprocs
   end if

   call resid(u, v, r, n1, n2, n3, a, k)
   call norm2u3(r, n1, n2, n3, rnm2, rnmu, nx(lt), ny(lt), nz(lt))
   old2 = rnm2
   oldu = rnmu

   ! one untimed iteration, then start over from the same problem
   call mg3p(u, v, r, a, c, n1, n2, n3)
   call resid(u, v, r, n1, n2, n3, a, k)
   call setup(n1, n2, n3)
   call zero3(u, n1, n2, n3)
   call zran3(v, n1, n2, n3, nx(lt), ny(lt), k)

   tinit = mpi_wtime() - t_init0
   if (me == root) write (*, '(/,a,f15.3,a,/)') ' Initialization time: ', &
      tinit, ' seconds'

   call mpi_barrier(MPI_COMM_WORLD, ierr)
   t0 = mpi_wtime()

   call resid(u, v, r, n1, n2, n3, a, k)
   call norm2u3(r, n1, n2, n3, rnm2, rnmu, nx(lt), ny(lt), nz(lt))
   old2 = rnm2
   oldu = rnmu

   do it = 1, nit
      if (it == 1 .or. it == nit .or. mod(it, 5) == 0) then
         if (me == root) write (*, '(a,i4)') '  iter ', it
      end if
      call mg3p(u, v, r, a, c, n1, n2, n3)
      call resid(u, v, r, n1, n2, n3, a, k)
   end do

   call norm2u3(r, n1, n2, n3, rnm2, rnmu, nx(lt), ny(lt), nz(lt))

   t = mpi_wtime() - t0
   call mpi_reduce(t, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, root, &
                   MPI_COMM_WORLD, ierr)

   if (me == root) then
      write (*, '(/,a)') ' Benchmark completed '
      select case (cls)
      case ('S')
         verify_value = 0.5307707005734e-04_dp
      case ('W')
         verify_value = 0.6467329375339e-05_dp
      case ('A')
         verify_value = 0.2433365309069e-05_dp
      case ('B')
         verify_value = 0.1800564401355e-05_dp
      case default
         verify_value = 0.5706732285740e-06_dp
      end select
      err = abs(rnm2 - verify_value)/verify_value
      verified = err <= 1.0e-8_dp
      if (verified) then
         write (*, '(a)') ' VERIFICATION SUCCESSFUL '
         write (*, '(a,e20.13)') ' L2 Norm is ', rnm2
         write (*, '(a,e20.13)') ' Error is   ', err
      else
         write (*, '(a)') ' VERIFICATION FAILED'
         write (*, '(a,e20.13)') ' L2 Norm is             ', rnm2
         write (*, '(a,e20.13)') ' The correct L2 Norm is ', verify_value
      end if

      nn = real(nx(lt), dp)*real(ny(lt), dp)*real(nz(lt), dp)
      if (tmax /= 0.0_dp) then
         mflops = 58.0_dp*1.0e-6_dp*nit*nn/tmax
      else
         mflops = 0.0_dp
      end if
      call print_results(tmax, mflops, verified)
   end if

   call mpi_finalize(ierr)
end program mg

! The number of ranks must be a power of two, at most maxprocs.
subroutine check_procs()
   use mg_data
   use iso_fortran_env, only: error_unit
   implicit none
   integer :: n

   n = 1
   do while (n < nprocs)
      n = 2*n
   end do
   if (n /= nprocs .or. nprocs > maxprocs) then
      if (me == root) write (error_unit, '(a,i0,a,i0,a)') &
         'ERROR: MG runs on a power-of-two number of processes, 1 to ', &
         maxprocs, ' (1, 2, 4, ..., 1024), not ', nprocs, ' ranks'
      call fail()
   end if
end subroutine check_procs

! End the job after a bad class or process count: rank 0 has printed the
! message; the barrier keeps the others from aborting before it did.
subroutine fail()
   use mg_data
   implicit none
   integer :: ierr
   flush (6)
   call mpi_barrier(MPI_COMM_WORLD, ierr)
   call mpi_abort(MPI_COMM_WORLD, 1, ierr)
   stop 1
end subroutine fail

! The class named by the first argument (default S): finest level lt,
! grid size and iteration count.
subroutine choose_class()
   use mg_data
   use iso_fortran_env, only: error_unit
   implicit none
   character(len=16) :: arg
   integer :: n

   arg = 'S'
   if (command_argument_count() >= 1) call get_command_argument(1, arg)
   cls = arg(1:1)
   if (len_trim(arg) /= 1) cls = '?'
   select case (cls)
   case ('S', 's')
      cls = 'S'; n = 32; nit = 4
   case ('W', 'w')
      cls = 'W'; n = 128; nit = 4
   case ('A', 'a')
      cls = 'A'; n = 256; nit = 4
   case ('B', 'b')
      cls = 'B'; n = 256; nit = 20
   case ('C', 'c')
      cls = 'C'; n = 512; nit = 20
   case default
      if (me == root) write (error_unit, '(3a)') 'ERROR: unknown MG class "', &
         trim(arg), '" (expected S, W, A, B or C)'
      call fail()
   end select
   lt = 0
   do while (2**lt < n)
      lt = lt + 1
   end do
   nx(lt) = n
   ny(lt) = n
   nz(lt) = n
   debug_vec = 0
   timeron = .false.
end subroutine choose_class

! The decomposition of every level (NPB's setup): grid sizes halve from
! level lt down to 1; along each axis the rank with coordinate id among np
! holds the points id*ng/np+1 .. (id+1)*ng/np.  When this rank or its
! neighbour at distance `next` holds no points on a level, the neighbour
! distance doubles from that level down; a rank that holds one point where
! its neighbour holds none gives, and one that holds none takes, the
! extra planes on the next finer level.
subroutine setup(n1, n2, n3)
   use mg_data
   implicit none
   integer, intent(out) :: n1, n2, n3
   integer :: ng(3, maxlevel), mi(3, maxlevel), mip(3, maxlevel)
   integer :: pi(3), idi(3), idin(3, -1:1), next(3)
   integer :: log_p, dx, dy, ax, k, d, dir

   do dir = -1, 1
      do d = 1, 3
         msg_type(d, dir) = 100*(dir + 2 + 10*d)
      end do
   end do

   ng(1, lt) = nx(lt)
   ng(2, lt) = ny(lt)
   ng(3, lt) = nz(lt)
   do ax = 1, 3
      next(ax) = 1
      do k = lt - 1, 1, -1
         ng(ax, k) = ng(ax, k + 1)/2
      end do
   end do
   do k = lt, 1, -1
      nx(k) = ng(1, k)
      ny(k) = ng(2, k)
      nz(k) = ng(3, k)
   end do

   log_p = 0
   do while (2**(log_p + 1) <= nprocs)
      log_p = log_p + 1
   end do
   dx = log_p/3
   pi(1) = 2**dx
   idi(1) = mod(me, pi(1))
   dy = (log_p - dx)/2
   pi(2) = 2**dy
   idi(2) = mod(me/pi(1), pi(2))
   pi(3) = nprocs/(pi(1)*pi(2))
   idi(3) = me/(pi(1)*pi(2))

   do k = lt, 1, -1
      dead(k) = .false.
      do ax = 1, 3
         take_ex(ax, k) = .false.
         give_ex(ax, k) = .false.
         mi(ax, k) = 2 + ((idi(ax) + 1)*ng(ax, k))/pi(ax) &
                     - (idi(ax)*ng(ax, k))/pi(ax)
         mip(ax, k) = 2 + ((next(ax) + idi(ax) + 1)*ng(ax, k))/pi(ax) &
                      - ((next(ax) + idi(ax))*ng(ax, k))/pi(ax)
         if (mip(ax, k) == 2 .or. mi(ax, k) == 2) next(ax) = 2*next(ax)
         if (k + 1 <= lt) then
            if (mip(ax, k) == 2 .and. mi(ax, k) == 3) give_ex(ax, k + 1) = .true.
            if (mip(ax, k) == 3 .and. mi(ax, k) == 2) take_ex(ax, k + 1) = .true.
         end if
      end do
      dead(k) = any(mi(:, k) == 2)
      m1(k) = mi(1, k)
      m2(k) = mi(2, k)
      m3(k) = mi(3, k)

      do ax = 1, 3
         idin(ax, +1) = mod(idi(ax) + next(ax) + pi(ax), pi(ax))
         idin(ax, -1) = mod(idi(ax) - next(ax) + pi(ax), pi(ax))
      end do
      do dir = -1, 1, 2
         nbr(1, dir, k) = idin(1, dir) + pi(1)*(idi(2) + pi(2)*idi(3))
         nbr(2, dir, k) = idi(1) + pi(1)*(idin(2, dir) + pi(2)*idi(3))
         nbr(3, dir, k) = idi(1) + pi(1)*(idi(2) + pi(2)*idin(3, dir))
      end do
   end do

   k = lt
   is1 = 2 + ng(1, k) - ((pi(1) - idi(1))*ng(1, lt))/pi(1)
   ie1 = 1 + ng(1, k) - ((pi(1) - 1 - idi(1))*ng(1, lt))/pi(1)
   n1 = 3 + ie1 - is1
   is2 = 2 + ng(2, k) - ((pi(2) - idi(2))*ng(2, lt))/pi(2)
   ie2 = 1 + ng(2, k) - ((pi(2) - 1 - idi(2))*ng(2, lt))/pi(2)
   n2 = 3 + ie2 - is2
   is3 = 2 + ng(3, k) - ((pi(3) - idi(3))*ng(3, lt))/pi(3)
   ie3 = 1 + ng(3, k) - ((pi(3) - 1 - idi(3))*ng(3, lt))/pi(3)
   n3 = 3 + ie3 - is3

   ! levels stacked finest first in one array
   ir(lt) = 1
   do k = lt - 1, 1, -1
      ir(k) = ir(k + 1) + m1(k + 1)*m2(k + 1)*m3(k + 1)
   end do
end subroutine setup

! One V-cycle: restrict the residual down to level lb, smooth there, then
! on each finer level interpolate the correction, form the residual and
! smooth; the finest level's residual uses v.
subroutine mg3p(u, v, r, a, c, n1, n2, n3)
   use mg_data
   implicit none
   integer, intent(in) :: n1, n2, n3
   real(dp) :: u(*), v(*), r(*)
   real(dp), intent(in) :: a(0:3), c(0:3)
   integer :: k, j

   do k = lt, lb + 1, -1
      j = k - 1
      call rprj3(r(ir(k)), m1(k), m2(k), m3(k), r(ir(j)), m1(j), m2(j), m3(j), k)
   end do

   k = lb
   call zero3(u(ir(k)), m1(k), m2(k), m3(k))
   call psinv(r(ir(k)), u(ir(k)), m1(k), m2(k), m3(k), c, k)

   do k = lb + 1, lt - 1
      j = k - 1
      call zero3(u(ir(k)), m1(k), m2(k), m3(k))
      call interp(u(ir(j)), m1(j), m2(j), m3(j), u(ir(k)), m1(k), m2(k), m3(k), k)
      call resid(u(ir(k)), r(ir(k)), r(ir(k)), m1(k), m2(k), m3(k), a, k)
      call psinv(r(ir(k)), u(ir(k)), m1(k), m2(k), m3(k), c, k)
   end do

   j = lt - 1
   k = lt
   call interp(u(ir(j)), m1(j), m2(j), m3(j), u, n1, n2, n3, k)
   call resid(u, v, r, n1, n2, n3, a, k)
   call psinv(r, u, n1, n2, n3, c, k)
end subroutine mg3p

! Smoother u = u + C r with the 27-point stencil c (c(3) = 0 as in NPB),
! then the ghost exchange of u.
subroutine psinv(r, u, n1, n2, n3, c, k)
   use mg_data, only: dp
   implicit none
   integer, intent(in) :: n1, n2, n3, k
   real(dp), intent(in) :: r(n1, n2, n3), c(0:3)
   real(dp), intent(inout) :: u(n1, n2, n3)
   real(dp) :: rf(n1), re(n1)
   integer :: i1, i2, i3

   do i3 = 2, n3 - 1
      do i2 = 2, n2 - 1
         do i1 = 1, n1
            rf(i1) = r(i1, i2 - 1, i3) + r(i1, i2 + 1, i3) &
                     + r(i1, i2, i3 - 1) + r(i1, i2, i3 + 1)
            re(i1) = r(i1, i2 - 1, i3 - 1) + r(i1, i2 + 1, i3 - 1) &
                     + r(i1, i2 - 1, i3 + 1) + r(i1, i2 + 1, i3 + 1)
         end do
         do i1 = 2, n1 - 1
            u(i1, i2, i3) = u(i1, i2, i3) + c(0)*r(i1, i2, i3) &
                            + c(1)*(r(i1 - 1, i2, i3) + r(i1 + 1, i2, i3) + rf(i1)) &
                            + c(2)*(re(i1) + rf(i1 - 1) + rf(i1 + 1))
         end do
      end do
   end do

   call comm3(u, n1, n2, n3, k)
end subroutine psinv

! Residual r = v - A u with the 27-point operator a (a(1) = 0 as in NPB),
! then the ghost exchange of r.  v and r may be the same array (NPB calls
! it so on the coarse levels): each point of v is read before that point
! of r is written.
subroutine resid(u, v, r, n1, n2, n3, a, k)
   use mg_data, only: dp
   implicit none
   integer, intent(in) :: n1, n2, n3, k
   real(dp), intent(in) :: u(n1, n2, n3), a(0:3)
   real(dp) :: v(n1, n2, n3), r(n1, n2, n3)
   real(dp) :: uf(n1), ue(n1)
   integer :: i1, i2, i3

   do i3 = 2, n3 - 1
      do i2 = 2, n2 - 1
         do i1 = 1, n1
            uf(i1) = u(i1, i2 - 1, i3) + u(i1, i2 + 1, i3) &
                     + u(i1, i2, i3 - 1) + u(i1, i2, i3 + 1)
            ue(i1) = u(i1, i2 - 1, i3 - 1) + u(i1, i2 + 1, i3 - 1) &
                     + u(i1, i2 - 1, i3 + 1) + u(i1, i2 + 1, i3 + 1)
         end do
         do i1 = 2, n1 - 1
            r(i1, i2, i3) = v(i1, i2, i3) - a(0)*u(i1, i2, i3) &
                            - a(2)*(ue(i1) + uf(i1 - 1) + uf(i1 + 1)) &
                            - a(3)*(ue(i1 - 1) + ue(i1 + 1))
         end do
      end do
   end do

   call comm3(r, n1, n2, n3, k)
end subroutine resid

! Restriction s = P r onto the next coarser level (trilinear finite-element
! weights 1/2, 1/4, 1/8, 1/16), then the ghost exchange of s.  A block of
! one point along an axis (size 3) is aligned differently (offset d = 2).
subroutine rprj3(r, m1k, m2k, m3k, s, m1j, m2j, m3j, k)
   use mg_data, only: dp
   implicit none
   integer, intent(in) :: m1k, m2k, m3k, m1j, m2j, m3j, k
   real(dp), intent(in) :: r(m1k, m2k, m3k)
   real(dp), intent(out) :: s(m1j, m2j, m3j)
   real(dp) :: xf(max(m1k, 2*m1j)), xe(max(m1k, 2*m1j)), x2, y2
   integer :: j1, j2, j3, i1, i2, i3, d1, d2, d3

   d1 = merge(2, 1, m1k == 3)
   d2 = merge(2, 1, m2k == 3)
   d3 = merge(2, 1, m3k == 3)

   do j3 = 2, m3j - 1
      i3 = 2*j3 - d3
      do j2 = 2, m2j - 1
         i2 = 2*j2 - d2
         do j1 = 2, m1j
            i1 = 2*j1 - d1
            xf(i1 - 1) = r(i1 - 1, i2 - 1, i3) + r(i1 - 1, i2 + 1, i3) &
                         + r(i1 - 1, i2, i3 - 1) + r(i1 - 1, i2, i3 + 1)
            xe(i1 - 1) = r(i1 - 1, i2 - 1, i3 - 1) + r(i1 - 1, i2 - 1, i3 + 1) &
                         + r(i1 - 1, i2 + 1, i3 - 1) + r(i1 - 1, i2 + 1, i3 + 1)
         end do
         do j1 = 2, m1j - 1
            i1 = 2*j1 - d1
            y2 = r(i1, i2 - 1, i3 - 1) + r(i1, i2 - 1, i3 + 1) &
                 + r(i1, i2 + 1, i3 - 1) + r(i1, i2 + 1, i3 + 1)
            x2 = r(i1, i2 - 1, i3) + r(i1, i2 + 1, i3) &
                 + r(i1, i2, i3 - 1) + r(i1, i2, i3 + 1)
            s(j1, j2, j3) = 0.5_dp*r(i1, i2, i3) &
                            + 0.25_dp*(r(i1 - 1, i2, i3) + r(i1 + 1, i2, i3) + x2) &
                            + 0.125_dp*(xf(i1 - 1) + xf(i1 + 1) + y2) &
                            + 0.0625_dp*(xe(i1 - 1) + xe(i1 + 1))
         end do
      end do
   end do

   call comm3(s, m1j, m2j, m3j, k - 1)
end subroutine rprj3

! u = u + Q z: trilinear interpolation of the coarse correction z onto level
! k, ghost cells included, then the "_ex" exchange for ranks that hold
! points here but none on the coarser level.
subroutine interp(z, mm1, mm2, mm3, u, n1, n2, n3, k)
   use mg_data, only: dp
   implicit none
   integer, intent(in) :: mm1, mm2, mm3, n1, n2, n3, k
   real(dp), intent(in) :: z(mm1, mm2, mm3)
   real(dp), intent(inout) :: u(n1, n2, n3)
   real(dp) :: z1(mm1), z2(mm1), z3(mm1)
   integer :: i1, i2, i3, d1, d2, d3, t1, t2, t3

   if (n1 /= 3 .and. n2 /= 3 .and. n3 /= 3) then
      do i3 = 1, mm3 - 1
         do i2 = 1, mm2 - 1
            do i1 = 1, mm1
               z1(i1) = z(i1, i2 + 1, i3) + z(i1, i2, i3)
               z2(i1) = z(i1, i2, i3 + 1) + z(i1, i2, i3)
               z3(i1) = z(i1, i2 + 1, i3 + 1) + z(i1, i2, i3 + 1) + z1(i1)
            end do
            do i1 = 1, mm1 - 1
               u(2*i1 - 1, 2*i2 - 1, 2*i3 - 1) = u(2*i1 - 1, 2*i2 - 1, 2*i3 - 1) &
                                                 + z(i1, i2, i3)
               u(2*i1, 2*i2 - 1, 2*i3 - 1) = u(2*i1, 2*i2 - 1, 2*i3 - 1) &
                                             + 0.5_dp*(z(i1 + 1, i2, i3) + z(i1, i2, i3))
            end do
            do i1 = 1, mm1 - 1
               u(2*i1 - 1, 2*i2, 2*i3 - 1) = u(2*i1 - 1, 2*i2, 2*i3 - 1) &
                                             + 0.5_dp*z1(i1)
               u(2*i1, 2*i2, 2*i3 - 1) = u(2*i1, 2*i2, 2*i3 - 1) &
                                         + 0.25_dp*(z1(i1) + z1(i1 + 1))
            end do
            do i1 = 1, mm1 - 1
               u(2*i1 - 1, 2*i2 - 1, 2*i3) = u(2*i1 - 1, 2*i2 - 1, 2*i3) &
                                             + 0.5_dp*z2(i1)
               u(2*i1, 2*i2 - 1, 2*i3) = u(2*i1, 2*i2 - 1, 2*i3) &
                                         + 0.25_dp*(z2(i1) + z2(i1 + 1))
            end do
            do i1 = 1, mm1 - 1
               u(2*i1 - 1, 2*i2, 2*i3) = u(2*i1 - 1, 2*i2, 2*i3) &
                                         + 0.25_dp*z3(i1)
               u(2*i1, 2*i2, 2*i3) = u(2*i1, 2*i2, 2*i3) &
                                     + 0.125_dp*(z3(i1) + z3(i1 + 1))
            end do
         end do
      end do
   else
      ! some axis has a one-point block: coarse point i sits at fine 2i-d,
      ! fine midpoints at 2i-t
      if (n1 == 3) then
         d1 = 2; t1 = 1
      else
         d1 = 1; t1 = 0
      end if
      if (n2 == 3) then
         d2 = 2; t2 = 1
      else
         d2 = 1; t2 = 0
      end if
      if (n3 == 3) then
         d3 = 2; t3 = 1
      else
         d3 = 1; t3 = 0
      end if

      do i3 = d3, mm3 - 1
         do i2 = d2, mm2 - 1
            do i1 = d1, mm1 - 1
               u(2*i1 - d1, 2*i2 - d2, 2*i3 - d3) = u(2*i1 - d1, 2*i2 - d2, 2*i3 - d3) &
                                                    + z(i1, i2, i3)
            end do
            do i1 = 1, mm1 - 1
               u(2*i1 - t1, 2*i2 - d2, 2*i3 - d3) = u(2*i1 - t1, 2*i2 - d2, 2*i3 - d3) &
                                                    + 0.5_dp*(z(i1 + 1, i2, i3) + z(i1, i2, i3))
            end do
         end do
         do i2 = 1, mm2 - 1
            do i1 = d1, mm1 - 1
               u(2*i1 - d1, 2*i2 - t2, 2*i3 - d3) = u(2*i1 - d1, 2*i2 - t2, 2*i3 - d3) &
                                                    + 0.5_dp*(z(i1, i2 + 1, i3) + z(i1, i2, i3))
            end do
            do i1 = 1, mm1 - 1
               u(2*i1 - t1, 2*i2 - t2, 2*i3 - d3) = u(2*i1 - t1, 2*i2 - t2, 2*i3 - d3) &
                                                    + 0.25_dp*(z(i1 + 1, i2 + 1, i3) + z(i1 + 1, i2, i3) &
                                                               + z(i1, i2 + 1, i3) + z(i1, i2, i3))
            end do
         end do
      end do

      do i3 = 1, mm3 - 1
         do i2 = d2, mm2 - 1
            do i1 = d1, mm1 - 1
               u(2*i1 - d1, 2*i2 - d2, 2*i3 - t3) = u(2*i1 - d1, 2*i2 - d2, 2*i3 - t3) &
                                                    + 0.5_dp*(z(i1, i2, i3 + 1) + z(i1, i2, i3))
            end do
            do i1 = 1, mm1 - 1
               u(2*i1 - t1, 2*i2 - d2, 2*i3 - t3) = u(2*i1 - t1, 2*i2 - d2, 2*i3 - t3) &
                                                    + 0.25_dp*(z(i1 + 1, i2, i3 + 1) + z(i1, i2, i3 + 1) &
                                                               + z(i1 + 1, i2, i3) + z(i1, i2, i3))
            end do
         end do
         do i2 = 1, mm2 - 1
            do i1 = d1, mm1 - 1
               u(2*i1 - d1, 2*i2 - t2, 2*i3 - t3) = u(2*i1 - d1, 2*i2 - t2, 2*i3 - t3) &
                                                    + 0.25_dp*(z(i1, i2 + 1, i3 + 1) + z(i1, i2, i3 + 1) &
                                                               + z(i1, i2 + 1, i3) + z(i1, i2, i3))
            end do
            do i1 = 1, mm1 - 1
               u(2*i1 - t1, 2*i2 - t2, 2*i3 - t3) = u(2*i1 - t1, 2*i2 - t2, 2*i3 - t3) &
                                                    + 0.125_dp*(z(i1 + 1, i2 + 1, i3 + 1) + z(i1 + 1, i2, i3 + 1) &
                                                                + z(i1, i2 + 1, i3 + 1) + z(i1, i2, i3 + 1) &
                                                                + z(i1 + 1, i2 + 1, i3) + z(i1 + 1, i2, i3) &
                                                                + z(i1, i2 + 1, i3) + z(i1, i2, i3))
            end do
         end do
      end do
   end if

   call comm3_ex(u, n1, n2, n3, k)
end subroutine interp

! L2 norm sqrt(sum r**2 / (nx*ny*nz)) and max norm of the interior, summed
! over the ranks: MPI_Allreduce MAX of the max norm, then SUM of the sum.
subroutine norm2u3(r, n1, n2, n3, rnm2, rnmu, nx0, ny0, nz0)
   use mg_data
   implicit none
   integer, intent(in) :: n1, n2, n3, nx0, ny0, nz0
   real(dp), intent(in) :: r(n1, n2, n3)
   real(dp), intent(out) :: rnm2, rnmu
   real(dp) :: s, ss, dn, av
   integer :: i1, i2, i3, ierr

   dn = 1.0_dp*nx0*ny0*nz0
   s = 0.0_dp
   rnmu = 0.0_dp
   do i3 = 2, n3 - 1
      do i2 = 2, n2 - 1
         do i1 = 2, n1 - 1
            s = s + r(i1, i2, i3)**2
            av = abs(r(i1, i2, i3))
            if (av > rnmu) rnmu = av
         end do
      end do
   end do

   call mpi_allreduce(rnmu, ss, 1, MPI_DOUBLE_PRECISION, MPI_MAX, &
                      MPI_COMM_WORLD, ierr)
   rnmu = ss
   call mpi_allreduce(s, ss, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                      MPI_COMM_WORLD, ierr)
   s = ss
   rnm2 = sqrt(s/dn)
end subroutine norm2u3

subroutine zero3(z, n1, n2, n3)
   use mg_data, only: dp
   implicit none
   integer, intent(in) :: n1, n2, n3
   real(dp), intent(out) :: z(n1, n2, n3)
   z = 0.0_dp
end subroutine zero3

! The right-hand side: NPB's random numbers fill the global grid in order
! (x fastest), each rank generating its block from the jumped-ahead seed;
! the ten largest become +1, the ten smallest -1, everything else 0.
subroutine zran3(z, n1, n2, n3, nxg, nyg, k)
   use mg_data
   use mg_random
   implicit none
   integer, intent(in) :: n1, n2, n3, nxg, nyg, k
   real(dp), intent(inout) :: z(n1, n2, n3)
   integer, parameter :: mm = 10
   integer(8), parameter :: amul = 1220703125_8    ! 5**13
   integer(8), parameter :: seed = 314159265_8
   integer(8) :: a1, a2, ai, x0, x1, xx
   real(dp) :: ten(mm, 0:1), best, temp
   integer :: j1(mm, 0:1), j2(mm, 0:1), j3(mm, 0:1)
   integer :: jg(0:3, mm, 0:1), jg_temp(4)
   integer :: i, i0, i1, i2, i3, d1, e2, e3, mz0, mz1, ierr

   a1 = powmod46(amul, int(nxg, 8))
   a2 = powmod46(amul, int(nxg, 8)*int(nyg, 8))

   call zero3(z, n1, n2, n3)

   ai = powmod46(amul, int(nxg, 8)*(is2 - 2 + int(nyg, 8)*(is3 - 2)) + (is1 - 2))
   d1 = ie1 - is1 + 1
   e2 = ie2 - is2 + 2
   e3 = ie3 - is3 + 2
   x0 = mulmod46(seed, ai)
   do i3 = 2, e3
      x1 = x0
      do i2 = 2, e2
         xx = x1
         call vranlc(d1, xx, amul, z(2, i2, i3))
         x1 = mulmod46(x1, a1)
      end do
      x0 = mulmod46(x0, a2)
   end do

   ! this rank's ten largest (ten(:,1), ascending) and ten smallest
   ! (ten(:,0), descending) values; entry 1 is the one to replace next
   ten(:, 1) = 0.0_dp
   ten(:, 0) = 1.0_dp
   j1 = 0
   j2 = 0
   j3 = 0
   do i3 = 2, n3 - 1
      do i2 = 2, n2 - 1
         do i1 = 2, n1 - 1
            if (z(i1, i2, i3) > ten(1, 1)) then
               ten(1, 1) = z(i1, i2, i3)
               j1(1, 1) = i1
               j2(1, 1) = i2
               j3(1, 1) = i3
               call sift(1)
            end if
            if (z(i1, i2, i3) < ten(1, 0)) then
               ten(1, 0) = z(i1, i2, i3)
               j1(1, 0) = i1
               j2(1, 0) = i2
               j3(1, 0) = i3
               call sift(0)
            end if
         end do
      end do
   end do

   call mpi_barrier(MPI_COMM_WORLD, ierr)

   ! merge: ten rounds, each taking the global best of the ranks' current
   ! candidates; the owning rank (the value compares equal) moves on
   i1 = mm
   i0 = mm
   do i = mm, 1, -1
      best = z(j1(i1, 1), j2(i1, 1), j3(i1, 1))
      call mpi_allreduce(best, temp, 1, MPI_DOUBLE_PRECISION, MPI_MAX, &
                         MPI_COMM_WORLD, ierr)
      best = temp
      if (best == z(j1(i1, 1), j2(i1, 1), j3(i1, 1))) then
         jg(:, i, 1) = [me, is1 - 2 + j1(i1, 1), is2 - 2 + j2(i1, 1), &
                        is3 - 2 + j3(i1, 1)]
         i1 = i1 - 1
      else
         jg(:, i, 1) = 0
      end if
      ten(i, 1) = best
      call mpi_allreduce(jg(0, i, 1), jg_temp, 4, MPI_INTEGER, MPI_MAX, &
                         MPI_COMM_WORLD, ierr)
      jg(:, i, 1) = jg_temp

      best = z(j1(i0, 0), j2(i0, 0), j3(i0, 0))
      call mpi_allreduce(best, temp, 1, MPI_DOUBLE_PRECISION, MPI_MIN, &
                         MPI_COMM_WORLD, ierr)
      best = temp
      if (best == z(j1(i0, 0), j2(i0, 0), j3(i0, 0))) then
         jg(:, i, 0) = [me, is1 - 2 + j1(i0, 0), is2 - 2 + j2(i0, 0), &
                        is3 - 2 + j3(i0, 0)]
         i0 = i0 - 1
      else
         jg(:, i, 0) = 0
      end if
      ten(i, 0) = best
      call mpi_allreduce(jg(0, i, 0), jg_temp, 4, MPI_INTEGER, MPI_MAX, &
                         MPI_COMM_WORLD, ierr)
      jg(:, i, 0) = jg_temp
   end do
   mz1 = i1 + 1
   mz0 = i0 + 1

   call mpi_barrier(MPI_COMM_WORLD, ierr)
   z = 0.0_dp
   do i = mm, mz0, -1
      z(j1(i, 0), j2(i, 0), j3(i, 0)) = -1.0_dp
   end do
   do i = mm, mz1, -1
      z(j1(i, 1), j2(i, 1), j3(i, 1)) = +1.0_dp
   end do
   call comm3(z, n1, n2, n3, k)

contains

   ! restore the order of list ind after entry 1 was replaced: move it up
   ! past the entries it beats (larger for ind = 1, smaller for ind = 0)
   subroutine sift(ind)
      integer, intent(in) :: ind
      integer :: p, itmp
      real(dp) :: tmp
      do p = 1, mm - 1
         if (ind == 1) then
            if (.not. (ten(p, 1) > ten(p + 1, 1))) return
         else
            if (.not. (ten(p, 0) < ten(p + 1, 0))) return
         end if
         tmp = ten(p + 1, ind); ten(p + 1, ind) = ten(p, ind); ten(p, ind) = tmp
         itmp = j1(p + 1, ind); j1(p + 1, ind) = j1(p, ind); j1(p, ind) = itmp
         itmp = j2(p + 1, ind); j2(p + 1, ind) = j2(p, ind); j2(p, ind) = itmp
         itmp = j3(p + 1, ind); j3(p + 1, ind) = j3(p, ind); j3(p, ind) = itmp
      end do
   end subroutine sift
end subroutine zran3

! The bounds of a face block along `axis`: planes plo..phi of that axis;
! the other axes run over everything when `whole`, else (comm3's faces)
! axis 1 faces skip the ghost cells of axes 2 and 3 and axis 2 faces skip
! those of axis 3, so that edges and corners arrive through later axes.
subroutine face_bounds(axis, plo, phi, whole, n1, n2, n3, lo, hi)
   implicit none
   integer, intent(in) :: axis, plo, phi, n1, n2, n3
   logical, intent(in) :: whole
   integer, intent(out) :: lo(3), hi(3)
   lo = 1
   hi = [n1, n2, n3]
   if (.not. whole) then
      if (axis == 1) then
         lo(2:3) = 2
         hi(2:3) = hi(2:3) - 1
      else if (axis == 2) then
         lo(3) = 2
         hi(3) = n3 - 1
      end if
   end if
   lo(axis) = plo
   hi(axis) = phi
end subroutine face_bounds

! buf(1:len) = the block lo..hi of u, x fastest
subroutine pack_block(u, n1, n2, n3, lo, hi, buf, len)
   use mg_data, only: dp
   implicit none
   integer, intent(in) :: n1, n2, n3, lo(3), hi(3)
   real(dp), intent(in) :: u(n1, n2, n3)
   real(dp), intent(out) :: buf(*)
   integer, intent(out) :: len
   integer :: i1, i2, i3
   len = 0
   do i3 = lo(3), hi(3)
      do i2 = lo(2), hi(2)
         do i1 = lo(1), hi(1)
            len = len + 1
            buf(len) = u(i1, i2, i3)
         end do
      end do
   end do
end subroutine pack_block

! the block lo..hi of u = buf, x fastest
subroutine unpack_block(u, n1, n2, n3, lo, hi, buf)
   use mg_data, only: dp
   implicit none
   integer, intent(in) :: n1, n2, n3, lo(3), hi(3)
   real(dp), intent(inout) :: u(n1, n2, n3)
   real(dp), intent(in) :: buf(*)
   integer :: i1, i2, i3, len
   len = 0
   do i3 = lo(3), hi(3)
      do i2 = lo(2), hi(2)
         do i1 = lo(1), hi(1)
            len = len + 1
            u(i1, i2, i3) = buf(len)
         end do
      end do
   end do
end subroutine unpack_block

! Ghost-cell exchange of level k (NPB's comm3).  Per axis: receives from
! both neighbours are posted (MPI_Irecv of up to nm2 doubles), the face
! n-1 goes to the +1 neighbour and face 2 to the -1 neighbour (MPI_Send),
! and the arrivals fill ghost planes n and 1 (MPI_Wait).  A single rank
! copies its own faces.  A rank without points on level k only zeroes u.
subroutine comm3(u, n1, n2, n3, k)
   use mg_data
   implicit none
   integer, intent(in) :: n1, n2, n3, k
   real(dp), intent(inout) :: u(n1, n2, n3)
   integer :: axis, n(3), lo(3), hi(3), len, ierr
   integer :: status(MPI_STATUS_SIZE)

   if (dead(k)) then
      call zero3(u, n1, n2, n3)
      return
   end if
   n = [n1, n2, n3]
   do axis = 1, 3
      if (nprocs /= 1) then
         call mpi_irecv(rbuf(1, -1), nm2, MPI_DOUBLE_PRECISION, nbr(axis, +1, k), &
                        msg_type(axis, -1), MPI_COMM_WORLD, req(-1), ierr)
         call mpi_irecv(rbuf(1, +1), nm2, MPI_DOUBLE_PRECISION, nbr(axis, -1, k), &
                        msg_type(axis, +1), MPI_COMM_WORLD, req(+1), ierr)

         call face_bounds(axis, n(axis) - 1, n(axis) - 1, .false., n1, n2, n3, lo, hi)
         call pack_block(u, n1, n2, n3, lo, hi, sbuf(1, +1), len)
         call mpi_send(sbuf(1, +1), len, MPI_DOUBLE_PRECISION, nbr(axis, +1, k), &
                       msg_type(axis, +1), MPI_COMM_WORLD, ierr)
         call face_bounds(axis, 2, 2, .false., n1, n2, n3, lo, hi)
         call pack_block(u, n1, n2, n3, lo, hi, sbuf(1, -1), len)
         call mpi_send(sbuf(1, -1), len, MPI_DOUBLE_PRECISION, nbr(axis, -1, k), &
                       msg_type(axis, -1), MPI_COMM_WORLD, ierr)

         call mpi_wait(req(-1), status, ierr)
         call face_bounds(axis, n(axis), n(axis), .false., n1, n2, n3, lo, hi)
         call unpack_block(u, n1, n2, n3, lo, hi, rbuf(1, -1))
         call mpi_wait(req(+1), status, ierr)
         call face_bounds(axis, 1, 1, .false., n1, n2, n3, lo, hi)
         call unpack_block(u, n1, n2, n3, lo, hi, rbuf(1, +1))
      else
         call face_bounds(axis, n(axis) - 1, n(axis) - 1, .false., n1, n2, n3, lo, hi)
         call pack_block(u, n1, n2, n3, lo, hi, sbuf(1, +1), len)
         call face_bounds(axis, 2, 2, .false., n1, n2, n3, lo, hi)
         call pack_block(u, n1, n2, n3, lo, hi, sbuf(1, -1), len)
         call face_bounds(axis, n(axis), n(axis), .false., n1, n2, n3, lo, hi)
         call unpack_block(u, n1, n2, n3, lo, hi, sbuf(1, -1))
         call face_bounds(axis, 1, 1, .false., n1, n2, n3, lo, hi)
         call unpack_block(u, n1, n2, n3, lo, hi, sbuf(1, +1))
      end if
   end do
end subroutine comm3

! After interpolation onto level k (NPB's comm3_ex): per axis a rank that
! took no points on level k-1 receives plane n from its +1 neighbour and
! planes 1..2 from its -1 neighbour (MPI_Irecv, MPI_Wait); a rank that gave
! sends planes n-1..n to the +1 and plane 2 to the -1 neighbour (MPI_Send),
! whole planes, ghost cells included.  A single rank never takes or gives.
subroutine comm3_ex(u, n1, n2, n3, k)
   use mg_data
   implicit none
   integer, intent(in) :: n1, n2, n3, k
   real(dp), intent(inout) :: u(n1, n2, n3)
   integer :: axis, n(3), lo(3), hi(3), len, ierr
   integer :: status(MPI_STATUS_SIZE)

   if (nprocs == 1) return
   n = [n1, n2, n3]
   do axis = 1, 3
      if (take_ex(axis, k)) then
         call mpi_irecv(rbuf(1, -1), nm2, MPI_DOUBLE_PRECISION, nbr(axis, +1, k), &
                        msg_type(axis, -1), MPI_COMM_WORLD, req(-1), ierr)
         call mpi_irecv(rbuf(1, +1), nm2, MPI_DOUBLE_PRECISION, nbr(axis, -1, k), &
                        msg_type(axis, +1), MPI_COMM_WORLD, req(+1), ierr)
         call mpi_wait(req(-1), status, ierr)
         call face_bounds(axis, n(axis), n(axis), .true., n1, n2, n3, lo, hi)
         call unpack_block(u, n1, n2, n3, lo, hi, rbuf(1, -1))
         call mpi_wait(req(+1), status, ierr)
         call face_bounds(axis, 1, 2, .true., n1, n2, n3, lo, hi)
         call unpack_block(u, n1, n2, n3, lo, hi, rbuf(1, +1))
      end if
      if (give_ex(axis, k)) then
         call face_bounds(axis, n(axis) - 1, n(axis), .true., n1, n2, n3, lo, hi)
         call pack_block(u, n1, n2, n3, lo, hi, sbuf(1, +1), len)
         call mpi_send(sbuf(1, +1), len, MPI_DOUBLE_PRECISION, nbr(axis, +1, k), &
                       msg_type(axis, +1), MPI_COMM_WORLD, ierr)
         call face_bounds(axis, 2, 2, .true., n1, n2, n3, lo, hi)
         call pack_block(u, n1, n2, n3, lo, hi, sbuf(1, -1), len)
         call mpi_send(sbuf(1, -1), len, MPI_DOUBLE_PRECISION, nbr(axis, -1, k), &
                       msg_type(axis, -1), MPI_COMM_WORLD, ierr)
      end if
   end do
end subroutine comm3_ex

! NPB's result block, with "Time exact (s)", the timer with all digits.
subroutine print_results(tmax, mops, verified)
   use mg_data
   implicit none
   real(dp), intent(in) :: tmax, mops
   logical, intent(in) :: verified
   character(len=24) :: text

   write (*, '(//,a)') ' MG Benchmark Completed.'
   write (*, '(a,a24)') ' Class           = ', cls
   write (text, '(i4,a,i4,a,i4)') nx(lt), 'x', ny(lt), 'x', nz(lt)
   write (*, '(a,a24)') ' Size            = ', adjustr(text)
   write (*, '(a,i24)') ' Iterations      = ', nit
   write (*, '(a,f24.2)') ' Time in seconds = ', tmax
   write (*, '(a,es24.16)') ' Time exact (s)  = ', tmax
   write (*, '(a,i24)') ' Total processes = ', nprocs
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
