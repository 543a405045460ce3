! bench-npb FT: the 3-D FFT PDE solver of NPB 3.3-MPI, our own
! implementation of its algorithm, problem classes, communication pattern
! and verification.
!
! FT solves du/dt = alpha * laplacian(u) spectrally: a pseudo-random complex
! field u(x, y, z) on an nx x ny x nz periodic grid is transformed forward
! once; each of niter steps multiplies the spectrum by
! exp(-4 alpha pi**2 (i**2 + j**2 + k**2)) (cumulatively), transforms it back
! (unnormalised) and sums 1024 fixed points of the result, divided by
! nx*ny*nz, as the checksum that NPB verifies to a relative 1e-12.
! The FFTs are radix-2 Stockham transforms of fftblock lines at a time.
!
! Differences from NPB, which compiles class and process count in
! (npbparams.h): the class is the first command-line argument (S, W, A, B,
! C; default S) and the process count is taken at run time; it must be a
! power of two up to 1024. inputft.data and timer.flag are not read.
!
! Decomposition and communication, as in NPB with its compiled defaults:
! np = 1: 0D layout (1 x 1 grid); 1 < np <= nz: 1D layout, slabs
! (np1 = 1, np2 = np); np > nz: 2D layout, pencils (np1 = nz, np2 = np/nz).
! Rank me has grid coordinates me1 = me/np2, me2 = mod(me, np2);
! commslice1 = MPI_Comm_split(world, me1, me2) (np2 ranks),
! commslice2 = MPI_Comm_split(world, me2, me1) (np1 ranks).
! Rank 0 broadcasts np1, np2, layout, niter (MPI_INTEGER) and the timer flag
! (MPI_LOGICAL). Every 3-D FFT has one transpose (1D: MPI_Alltoall of
! ntdivnp/np double complex per rank on commslice1) or two (2D: an x-y
! transpose, MPI_Alltoall on commslice2, and an x-z transpose on
! commslice1). Each step's checksum is an MPI_Reduce(SUM) of one double
! complex to rank 0.
!
! Timing, as NPB: the whole problem runs once untimed (setup, initial
! conditions, forward FFT); then MPI_Barrier, and MPI_Wtime on each rank
! times the index map, initial conditions, FFT table, forward FFT, niter x
! (evolve, inverse FFT, checksum) and the verification; rank 0 reports its
! own time (NPB does not reduce it).

module ft_data
   use mpi
   implicit none

   integer, parameter :: dp = kind(1.0d0)

   integer, parameter :: layout_0d = 0, layout_1d = 1, layout_2d = 2

   ! cache blocking of the FFTs (lines per batch) and of the transposes
   integer, parameter :: fftblock_default = 16, fftblockpad_default = 18
   integer, parameter :: transblock = 32, transblockpad = 34

   real(dp), parameter :: seed = 314159265.0_dp
   real(dp), parameter :: amult = 1220703125.0_dp
   real(dp), parameter :: pi = 3.141592653589793238_dp
   real(dp), parameter :: alpha = 1.0e-6_dp
   real(dp), parameter :: tolerance = 1.0e-12_dp

   ! problem class
   character :: cls
   integer :: nx, ny, nz, maxdim, niter_default, niter
   real(dp) :: ntotal_f
   complex(dp), allocatable :: csum_ref(:)

   ! processes, grid and layout
   integer :: np, me, me1, me2, np1, np2, layout_type
   integer :: commslice1, commslice2, dc_type
   integer :: ntdivnp
   logical :: timers_enabled = .false.

   ! dims(:, phase): local array shape in phase 1 (x lines), 2 (after the
   ! x transform) and 3 (after the y transform); the global ranges owned
   integer :: dims(3, 3)
   integer :: xstart(3), xend(3), ystart(3), yend(3), zstart(3), zend(3)

   integer :: fftblock, fftblockpad

   ! roots(ln + i) = exp(i pi i/ln), ln = 1, 2, 4, ..., i < ln
   complex(dp), allocatable :: roots(:)
   complex(dp), allocatable :: sums(:)

   ! the field: u0 the transformed initial condition, u1/u2 work arrays
   complex(dp), allocatable :: u0(:), u1(:), u2(:), scratch(:)
   real(dp), allocatable :: twiddle(:)
end module ft_data

! ---------------------------------------------------------------------------
! NPB's linear congruential generator: x <- a*x mod 2**46, values x * 2**-46.
! Computed exactly in 64-bit integers (the double-precision arithmetic of
! NPB's randlc computes the same exact residue).
! ---------------------------------------------------------------------------
module ft_random
   use ft_data, only: dp
   implicit none
   private
   public :: randlc, vranlc, ipow46

   integer(8), parameter :: two23 = 8388608_8
   integer(8), parameter :: two46 = two23*two23
   real(dp), parameter :: r46 = 1.0_dp/real(two46, dp)

contains

   ! a*x mod 2**46 for 0 <= a, x < 2**46 (23-bit halves: no overflow)
   pure function mulmod46(a, x) result(r)
      integer(8), intent(in) :: a, x
      integer(8) :: r, ahi, alo, xhi, xlo, cross
      ahi = a/two23
      alo = a - ahi*two23
      xhi = x/two23
      xlo = x - xhi*two23
      cross = mod(ahi*xlo + alo*xhi, two23)
      r = mod(cross*two23 + alo*xlo, two46)
   end function mulmod46

   ! x <- a*x mod 2**46; returns the new x * 2**-46
   function randlc(x, a) result(res)
      real(dp), intent(inout) :: x
      real(dp), intent(in) :: a
      real(dp) :: res
      integer(8) :: ix
      ix = mulmod46(int(a, 8), int(x, 8))
      x = real(ix, dp)
      res = r46*x
   end function randlc

   ! n successive values of the generator into y(1:n); x is advanced
   subroutine vranlc(n, x, a, y)
      integer, intent(in) :: n
      real(dp), intent(inout) :: x
      real(dp), intent(in) :: a
      real(dp), intent(out) :: y(n)
      integer(8) :: ia, ix
      integer :: i
      ia = int(a, 8)
      ix = int(x, 8)
      do i = 1, n
         ix = mulmod46(ia, ix)
         y(i) = r46*real(ix, dp)
      end do
      x = real(ix, dp)
   end subroutine vranlc

   ! a**e mod 2**46 (e >= 0), by repeated squaring
   function ipow46(a, e) result(res)
      real(dp), intent(in) :: a
      integer(8), intent(in) :: e
      real(dp) :: res
      integer(8) :: base, acc, n
      base = int(a, 8)
      acc = 1
      n = e
      do while (n > 0)
         if (mod(n, 2_8) == 1) acc = mulmod46(acc, base)
         base = mulmod46(base, base)
         n = n/2
      end do
      res = real(acc, dp)
   end function ipow46
end module ft_random

! ---------------------------------------------------------------------------
program ft
   use ft_data
   implicit none
   integer :: ierr, iter
   real(dp) :: t0, t_init, total_time, mflops
   logical :: verified

   call mpi_init(ierr)
   call mpi_comm_rank(MPI_COMM_WORLD, me, ierr)
   call mpi_comm_size(MPI_COMM_WORLD, np, ierr)

   call choose_class()
   call check_processes()

   ntdivnp = ((nx*ny)/np)*nz
   allocate (u0(ntdivnp), u1(ntdivnp), u2(ntdivnp), twiddle(ntdivnp))
   allocate (roots(maxdim), scratch(fftblockpad_default*maxdim*2))
   allocate (sums(niter_default))
   sums = (0.0_dp, 0.0_dp)

   ! The whole problem once, untimed, to touch code and data.
   t0 = mpi_wtime()
   call setup()
   call compute_indexmap(twiddle, dims(1, 3), dims(2, 3), dims(3, 3))
   call compute_initial_conditions(u1, dims(1, 1), dims(2, 1), dims(3, 1))
   call fft_init(nx)
   call fft(1, u1, u0)
   t_init = mpi_wtime() - t0
   if (me == 0) write (*, '(a,f12.6)') ' Initialization time = ', t_init

   ! Start over: everything from here on is timed.
   call mpi_barrier(MPI_COMM_WORLD, ierr)
   t0 = mpi_wtime()

   call compute_indexmap(twiddle, dims(1, 3), dims(2, 3), dims(3, 3))
   call compute_initial_conditions(u1, dims(1, 1), dims(2, 1), dims(3, 1))
   call fft_init(nx)
   call fft(1, u1, u0)

   do iter = 1, niter
      call evolve(u0, u1, twiddle, dims(1, 1), dims(2, 1), dims(3, 1))
      call fft(-1, u1, u2)
      call checksum(iter, u2, dims(1, 1), dims(2, 1), dims(3, 1))
   end do

   call verify(verified)
   total_time = mpi_wtime() - t0

   if (me == 0) then
      if (total_time /= 0.0_dp) then
         ! NPB's operation count; its constants are default-real literals
         mflops = 1.0e-6_dp*ntotal_f &
                  *(real(14.8157, dp) + real(7.19641, dp)*log(ntotal_f) &
                    + (real(5.23518, dp) + real(7.21113, dp)*log(ntotal_f)) &
                    *niter)/total_time
      else
         mflops = 0.0_dp
      end if
      call print_results(total_time, mflops, verified)
   end if

   call mpi_finalize(ierr)
end program ft

! ---------------------------------------------------------------------------
! The class named by the first argument (default S): grid, iterations and
! NPB's reference checksums.
! ---------------------------------------------------------------------------
subroutine choose_class()
   use ft_data
   use iso_fortran_env, only: error_unit
   implicit none
   character(len=16) :: arg
   integer :: ierr

   arg = 'S'
   if (command_argument_count() >= 1) call get_command_argument(1, arg)
   cls = arg(1:1)
   select case (cls)
   case ('S', 's')
      cls = 'S'; nx = 64; ny = 64; nz = 64; niter_default = 6
      allocate (csum_ref(6))
      csum_ref = [cmplx(5.546087004964e+02_dp, 4.845363331978e+02_dp, dp), &
                  cmplx(5.546385409189e+02_dp, 4.865304269511e+02_dp, dp), &
                  cmplx(5.546148406171e+02_dp, 4.883910722336e+02_dp, dp), &
                  cmplx(5.545423607415e+02_dp, 4.901273169046e+02_dp, dp), &
                  cmplx(5.544255039624e+02_dp, 4.917475857993e+02_dp, dp), &
                  cmplx(5.542683411902e+02_dp, 4.932597244941e+02_dp, dp)]
   case ('W', 'w')
      cls = 'W'; nx = 128; ny = 128; nz = 32; niter_default = 6
      allocate (csum_ref(6))
      csum_ref = [cmplx(5.673612178944e+02_dp, 5.293246849175e+02_dp, dp), &
                  cmplx(5.631436885271e+02_dp, 5.282149986629e+02_dp, dp), &
                  cmplx(5.594024089970e+02_dp, 5.270996558037e+02_dp, dp), &
                  cmplx(5.560698047020e+02_dp, 5.260027904925e+02_dp, dp), &
                  cmplx(5.530898991250e+02_dp, 5.249400845633e+02_dp, dp), &
                  cmplx(5.504159734538e+02_dp, 5.239212247086e+02_dp, dp)]
   case ('A', 'a')
      cls = 'A'; nx = 256; ny = 256; nz = 128; niter_default = 6
      allocate (csum_ref(6))
      csum_ref = [cmplx(5.046735008193e+02_dp, 5.114047905510e+02_dp, dp), &
                  cmplx(5.059412319734e+02_dp, 5.098809666433e+02_dp, dp), &
                  cmplx(5.069376896287e+02_dp, 5.098144042213e+02_dp, dp), &
                  cmplx(5.077892868474e+02_dp, 5.101336130759e+02_dp, dp), &
                  cmplx(5.085233095391e+02_dp, 5.104914655194e+02_dp, dp), &
                  cmplx(5.091487099959e+02_dp, 5.107917842803e+02_dp, dp)]
   case ('B', 'b')
      cls = 'B'; nx = 512; ny = 256; nz = 256; niter_default = 20
      allocate (csum_ref(20))
      csum_ref = [cmplx(5.177643571579e+02_dp, 5.077803458597e+02_dp, dp), &
                  cmplx(5.154521291263e+02_dp, 5.088249431599e+02_dp, dp), &
                  cmplx(5.146409228649e+02_dp, 5.096208912659e+02_dp, dp), &
                  cmplx(5.142378756213e+02_dp, 5.101023387619e+02_dp, dp), &
                  cmplx(5.139626667737e+02_dp, 5.103976610617e+02_dp, dp), &
                  cmplx(5.137423460082e+02_dp, 5.105948019802e+02_dp, dp), &
                  cmplx(5.135547056878e+02_dp, 5.107404165783e+02_dp, dp), &
                  cmplx(5.133910925466e+02_dp, 5.108576573661e+02_dp, dp), &
                  cmplx(5.132470705390e+02_dp, 5.109577278523e+02_dp, dp), &
                  cmplx(5.131197729984e+02_dp, 5.110460304483e+02_dp, dp), &
                  cmplx(5.130070319283e+02_dp, 5.111252433800e+02_dp, dp), &
                  cmplx(5.129070537032e+02_dp, 5.111968077718e+02_dp, dp), &
                  cmplx(5.128182883502e+02_dp, 5.112616233064e+02_dp, dp), &
                  cmplx(5.127393733383e+02_dp, 5.113203605551e+02_dp, dp), &
                  cmplx(5.126691062020e+02_dp, 5.113735928093e+02_dp, dp), &
                  cmplx(5.126064276004e+02_dp, 5.114218460548e+02_dp, dp), &
                  cmplx(5.125504076570e+02_dp, 5.114656139760e+02_dp, dp), &
                  cmplx(5.125002331720e+02_dp, 5.115053595966e+02_dp, dp), &
                  cmplx(5.124551951846e+02_dp, 5.115415130407e+02_dp, dp), &
                  cmplx(5.124146770029e+02_dp, 5.115744692211e+02_dp, dp)]
   case ('C', 'c')
      cls = 'C'; nx = 512; ny = 512; nz = 512; niter_default = 20
      allocate (csum_ref(20))
      csum_ref = [cmplx(5.195078707457e+02_dp, 5.149019699238e+02_dp, dp), &
                  cmplx(5.155422171134e+02_dp, 5.127578201997e+02_dp, dp), &
                  cmplx(5.144678022222e+02_dp, 5.122251847514e+02_dp, dp), &
                  cmplx(5.140150594328e+02_dp, 5.121090289018e+02_dp, dp), &
                  cmplx(5.137550426810e+02_dp, 5.121143685824e+02_dp, dp), &
                  cmplx(5.135811056728e+02_dp, 5.121496764568e+02_dp, dp), &
                  cmplx(5.134569343165e+02_dp, 5.121870921893e+02_dp, dp), &
                  cmplx(5.133651975661e+02_dp, 5.122193250322e+02_dp, dp), &
                  cmplx(5.132955192805e+02_dp, 5.122454735794e+02_dp, dp), &
                  cmplx(5.132410471738e+02_dp, 5.122663649603e+02_dp, dp), &
                  cmplx(5.131971141679e+02_dp, 5.122830879827e+02_dp, dp), &
                  cmplx(5.131605205716e+02_dp, 5.122965869718e+02_dp, dp), &
                  cmplx(5.131290734194e+02_dp, 5.123075927445e+02_dp, dp), &
                  cmplx(5.131012720314e+02_dp, 5.123166486553e+02_dp, dp), &
                  cmplx(5.130760908195e+02_dp, 5.123241541685e+02_dp, dp), &
                  cmplx(5.130528295923e+02_dp, 5.123304037599e+02_dp, dp), &
                  cmplx(5.130310107773e+02_dp, 5.123356167976e+02_dp, dp), &
                  cmplx(5.130103090133e+02_dp, 5.123399592211e+02_dp, dp), &
                  cmplx(5.129905029333e+02_dp, 5.123435588985e+02_dp, dp), &
                  cmplx(5.129714421109e+02_dp, 5.123465164008e+02_dp, dp)]
   case default
      if (me == 0) write (error_unit, '(3a)') 'ERROR: unknown FT class "', &
         trim(arg), '" (allowed: S, W, A, B or C)'
      call refuse()
   end select
   maxdim = max(nx, ny, nz)
   ntotal_f = 1.0_dp*nx*ny*nz
end subroutine choose_class

! ---------------------------------------------------------------------------
! The processor grid NPB picks for np processes (np1 x np2, layout).
! ---------------------------------------------------------------------------
subroutine default_grid(p, g1, g2, layout)
   use ft_data, only: nz, layout_0d, layout_1d, layout_2d
   implicit none
   integer, intent(in) :: p
   integer, intent(out) :: g1, g2, layout
   if (p == 1) then
      g1 = 1; g2 = 1; layout = layout_0d
   else if (p <= nz) then
      g1 = 1; g2 = p; layout = layout_1d
   else
      g1 = nz; g2 = p/nz; layout = layout_2d
   end if
end subroutine default_grid

! The rank count must be a power of two, at most 1024, and leave every rank
! at least one line and plane of each layout.
subroutine check_processes()
   use ft_data
   use iso_fortran_env, only: error_unit
   implicit none
   integer :: g1, g2, layout, ierr
   logical :: ok

   ok = np >= 1 .and. np <= 1024 .and. iand(np, np - 1) == 0
   if (ok) then
      call default_grid(np, g1, g2, layout)
      ok = ny/g1 >= 1 .and. nx/g1 >= 1 .and. nz/g2 >= 1 .and. ny/g2 >= 1
   end if
   if (.not. ok) then
      if (me == 0) write (error_unit, '(a,i0,a,a,a)') &
         'ERROR: FT cannot run on ', np, ' processes (class ', cls, &
         '): the count must be a power of two, 1, 2, 4, ..., 1024'
      call refuse()
   end if
end subroutine check_processes

! End the job after rank 0 printed why: the barrier keeps another rank's
! MPI_Abort from ending the job before the message is out.
subroutine refuse()
   use ft_data
   use iso_fortran_env, only: error_unit
   implicit none
   integer :: ierr
   flush (error_unit)
   call mpi_barrier(MPI_COMM_WORLD, ierr)
   call mpi_abort(MPI_COMM_WORLD, 1, ierr)
   stop 1
end subroutine refuse

! ---------------------------------------------------------------------------
! Grid, layout, communicators and the blocks this rank owns (NPB's setup).
! ---------------------------------------------------------------------------
subroutine setup()
   use ft_data
   implicit none
   integer :: ierr, i
   character(len=2) :: lname

   dc_type = MPI_DOUBLE_COMPLEX

   if (me == 0) then
      niter = niter_default
      call default_grid(np, np1, np2, layout_type)
      write (*, '(//,a,/)') ' NAS Parallel Benchmarks 3.3 -- FT Benchmark'// &
         ' (bench-npb implementation)'
      write (*, '(a)') ' Class from the command line, process grid'// &
         ' chosen at run time'
      write (*, '(a,i4,a,i4,a,i4)') ' Size                : ', nx, 'x', &
         ny, 'x', nz
      write (*, '(a,7x,i7)') ' Iterations          : ', niter
      write (*, '(a,7x,i7)') ' Number of processes : ', np
      write (*, '(a,5x,i4,a,i4)') ' Processor array     : ', np1, 'x', np2
      select case (layout_type)
      case (layout_0d)
         lname = '0D'
      case (layout_1d)
         lname = '1D'
      case default
         lname = '2D'
      end select
      write (*, '(a,9x,a5)') ' Layout type         : ', lname
   end if

   call mpi_bcast(np1, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
   call mpi_bcast(np2, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
   call mpi_bcast(layout_type, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
   call mpi_bcast(niter, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
   call mpi_bcast(timers_enabled, 1, MPI_LOGICAL, 0, MPI_COMM_WORLD, ierr)

   if (np1 == 1 .and. np2 == 1) then
      layout_type = layout_0d
   else if (np1 == 1) then
      layout_type = layout_1d
   else
      layout_type = layout_2d
   end if

   ! phase 1: x y z; phase 2: x y z (0D, 1D) or y x z (2D); phase 3:
   ! x y z (0D) or z x y (1D, 2D). Dimension 2 is split over np1,
   ! dimension 3 over np2.
   select case (layout_type)
   case (layout_0d)
      do i = 1, 3
         dims(:, i) = [nx, ny, nz]
      end do
   case (layout_1d)
      dims(:, 1) = [nx, ny, nz]
      dims(:, 2) = [nx, ny, nz]
      dims(:, 3) = [nz, nx, ny]
   case default
      dims(:, 1) = [nx, ny, nz]
      dims(:, 2) = [ny, nx, nz]
      dims(:, 3) = [nz, nx, ny]
   end select
   do i = 1, 3
      dims(2, i) = dims(2, i)/np1
      dims(3, i) = dims(3, i)/np2
   end do

   me2 = mod(me, np2)
   me1 = me/np2
   ! commslice1: same me1, ranked by me2; commslice2: same me2, by me1
   call mpi_comm_split(MPI_COMM_WORLD, me1, me2, commslice1, ierr)
   call mpi_comm_split(MPI_COMM_WORLD, me2, me1, commslice2, ierr)

   select case (layout_type)
   case (layout_0d)
      xstart = 1; xend = nx
      ystart = 1; yend = ny
      zstart = 1; zend = nz
   case (layout_1d)
      xstart = 1; xend = nx
      ystart(1:2) = 1; yend(1:2) = ny
      zstart(1:2) = 1 + me2*nz/np2; zend(1:2) = (me2 + 1)*nz/np2
      ystart(3) = 1 + me2*ny/np2; yend(3) = (me2 + 1)*ny/np2
      zstart(3) = 1; zend(3) = nz
   case default
      xstart(1) = 1; xend(1) = nx
      ystart(1) = 1 + me1*ny/np1; yend(1) = (me1 + 1)*ny/np1
      zstart(1) = 1 + me2*nz/np2; zend(1) = (me2 + 1)*nz/np2
      xstart(2) = 1 + me1*nx/np1; xend(2) = (me1 + 1)*nx/np1
      ystart(2) = 1; yend(2) = ny
      zstart(2) = zstart(1); zend(2) = zend(1)
      xstart(3) = xstart(2); xend(3) = xend(2)
      ystart(3) = 1 + me2*ny/np2; yend(3) = (me2 + 1)*ny/np2
      zstart(3) = 1; zend(3) = nz
   end select

   ! The FFTs along dimension 1 take fftblock lines of dimension 2 at a
   ! time: in the 2D layout there may be fewer.
   fftblock = fftblock_default
   fftblockpad = fftblockpad_default
   if (layout_type == layout_2d) then
      fftblock = min(fftblock, dims(2, 1), dims(2, 2), dims(2, 3))
   end if
   if (fftblock /= fftblock_default) fftblockpad = fftblock + 3
end subroutine setup

! ---------------------------------------------------------------------------
! twiddle = exp(-4 alpha pi**2 (kx**2 + ky**2 + kz**2)) over the phase-3
! block, with wave numbers 0, 1, ..., n/2-1, -n/2, ..., -1.
! ---------------------------------------------------------------------------
subroutine compute_indexmap(tw, d1, d2, d3)
   use ft_data
   implicit none
   integer, intent(in) :: d1, d2, d3
   real(dp), intent(out) :: tw(d1, d2, d3)
   integer :: i, j, k, kx, ky, kz, sq
   real(dp) :: ap

   ap = -4.0_dp*alpha*pi*pi
   if (layout_type == layout_0d) then
      ! x y z
      do i = 1, d1
         kx = mod(i + xstart(3) - 2 + nx/2, nx) - nx/2
         do j = 1, d2
            ky = mod(j + ystart(3) - 2 + ny/2, ny) - ny/2
            sq = kx*kx + ky*ky
            do k = 1, d3
               kz = mod(k + zstart(3) - 2 + nz/2, nz) - nz/2
               tw(i, j, k) = exp(ap*real(kz*kz + sq, dp))
            end do
         end do
      end do
   else
      ! z x y
      do i = 1, d2
         kx = mod(i + xstart(3) - 2 + nx/2, nx) - nx/2
         do j = 1, d3
            ky = mod(j + ystart(3) - 2 + ny/2, ny) - ny/2
            sq = kx*kx + ky*ky
            do k = 1, d1
               kz = mod(k + zstart(3) - 2 + nz/2, nz) - nz/2
               tw(k, i, j) = exp(ap*real(kz*kz + sq, dp))
            end do
         end do
      end do
   end if
end subroutine compute_indexmap

! ---------------------------------------------------------------------------
! The initial field: the generator's stream, two values (re, im) per point
! in x-fastest global order starting from the seed; each rank jumps to its
! own x-lines of each of its z-planes.
! ---------------------------------------------------------------------------
subroutine compute_initial_conditions(u, d1, d2, d3)
   use ft_data
   use ft_random
   implicit none
   integer, intent(in) :: d1, d2, d3
   complex(dp), intent(out) :: u(d1*d2, d3)
   real(dp), allocatable :: vals(:)
   real(dp) :: start, an, x0, dummy
   integer :: i, k

   allocate (vals(2*d1*d2))
   start = seed
   an = ipow46(amult, 2_8*nx*(int(zstart(1) - 1, 8)*ny + (ystart(1) - 1)))
   dummy = randlc(start, an)
   an = ipow46(amult, 2_8*nx*ny)
   do k = 1, d3
      x0 = start
      call vranlc(2*d1*d2, x0, amult, vals)
      do i = 1, d1*d2
         u(i, k) = cmplx(vals(2*i - 1), vals(2*i), dp)
      end do
      if (k /= d3) dummy = randlc(start, an)
   end do
end subroutine compute_initial_conditions

! ---------------------------------------------------------------------------
! u0 <- u0 * twiddle; u1 <- u0 (the spectrum after one more time step)
! ---------------------------------------------------------------------------
subroutine evolve(v0, v1, tw, d1, d2, d3)
   use ft_data, only: dp
   implicit none
   integer, intent(in) :: d1, d2, d3
   complex(dp), intent(inout) :: v0(d1, d2, d3)
   complex(dp), intent(out) :: v1(d1, d2, d3)
   real(dp), intent(in) :: tw(d1, d2, d3)
   integer :: i, j, k
   do k = 1, d3
      do j = 1, d2
         do i = 1, d1
            v0(i, j, k) = v0(i, j, k)*tw(i, j, k)
            v1(i, j, k) = v0(i, j, k)
         end do
      end do
   end do
end subroutine evolve

! ---------------------------------------------------------------------------
! The roots of unity of all FFT levels up to length n: level ln (1, 2, 4,
! ..., n/2) holds exp(i pi j/ln), j = 0..ln-1, at roots(ln + j).
! ---------------------------------------------------------------------------
subroutine fft_init(n)
   use ft_data
   implicit none
   integer, intent(in) :: n
   integer, external :: ilog2
   integer :: m, j, i, ln
   real(dp) :: t, ti

   m = ilog2(n)
   ln = 1
   do j = 1, m
      t = pi/ln
      do i = 0, ln - 1
         ti = i*t
         roots(ln + i) = cmplx(cos(ti), sin(ti), dp)
      end do
      ln = 2*ln
   end do
end subroutine fft_init

integer function ilog2(n)
   implicit none
   integer, intent(in) :: n
   integer :: nn
   ilog2 = 0
   nn = 1
   do while (nn < n)
      nn = 2*nn
      ilog2 = ilog2 + 1
   end do
end function ilog2

! ---------------------------------------------------------------------------
! 3-D FFT: dir = 1 from x1 (phase 1) to x2 (phase 3), dir = -1 from x1
! (phase 3) to x2 (phase 1). x1 is overwritten.
! ---------------------------------------------------------------------------
subroutine fft(dir, x1, x2)
   use ft_data
   implicit none
   integer, intent(in) :: dir
   complex(dp), intent(inout) :: x1(ntdivnp), x2(ntdivnp)

   if (dir == 1) then
      select case (layout_type)
      case (layout_0d)
         call cffts1(1, dims(1, 1), dims(2, 1), dims(3, 1), x1, scratch)
         call cffts2(1, dims(1, 2), dims(2, 2), dims(3, 2), x1, scratch)
         call cffts3_to(1, dims(1, 3), dims(2, 3), dims(3, 3), x1, x2, scratch)
      case (layout_1d)
         call cffts1(1, dims(1, 1), dims(2, 1), dims(3, 1), x1, scratch)
         call cffts2(1, dims(1, 2), dims(2, 2), dims(3, 2), x1, scratch)
         call transpose_xy_z(2, x1, x2)
         call cffts1(1, dims(1, 3), dims(2, 3), dims(3, 3), x2, scratch)
      case default
         call cffts1(1, dims(1, 1), dims(2, 1), dims(3, 1), x1, scratch)
         call transpose_x_y(1, 2, x1, x2)
         call cffts1(1, dims(1, 2), dims(2, 2), dims(3, 2), x2, scratch)
         call transpose_x_z(2, 3, x2, x1)
         call cffts1_to(1, dims(1, 3), dims(2, 3), dims(3, 3), x1, x2, scratch)
      end select
   else
      select case (layout_type)
      case (layout_0d)
         call cffts3(-1, dims(1, 3), dims(2, 3), dims(3, 3), x1, scratch)
         call cffts2(-1, dims(1, 2), dims(2, 2), dims(3, 2), x1, scratch)
         call cffts1_to(-1, dims(1, 1), dims(2, 1), dims(3, 1), x1, x2, scratch)
      case (layout_1d)
         call cffts1(-1, dims(1, 3), dims(2, 3), dims(3, 3), x1, scratch)
         call transpose_x_yz(3, x1, x2)
         call cffts2(-1, dims(1, 2), dims(2, 2), dims(3, 2), x2, scratch)
         call cffts1(-1, dims(1, 1), dims(2, 1), dims(3, 1), x2, scratch)
      case default
         call cffts1(-1, dims(1, 3), dims(2, 3), dims(3, 3), x1, scratch)
         call transpose_x_z(3, 2, x1, x2)
         call cffts1(-1, dims(1, 2), dims(2, 2), dims(3, 2), x2, scratch)
         call transpose_x_y(2, 1, x2, x1)
         call cffts1_to(-1, dims(1, 1), dims(2, 1), dims(3, 1), x1, x2, scratch)
      end select
   end if
end subroutine fft

! FFTs along dimension 1 of x(d1, d2, d3), in place (cffts1) or into xout
! (cffts1_to): fftblock lines (consecutive along dimension 2) at a time are
! gathered into the work array w, transformed and scattered back.
subroutine cffts1(is, d1, d2, d3, x, w)
   use ft_data
   implicit none
   integer, intent(in) :: is, d1, d2, d3
   complex(dp), intent(inout) :: x(d1, d2, d3)
   complex(dp), intent(inout) :: w(fftblockpad, d1, 2)
   integer, external :: ilog2
   integer :: k, jj, m

   m = ilog2(d1)
   do k = 1, d3
      do jj = 0, d2 - fftblock, fftblock
         call gather1(d1, d2, d3, x, jj, k, w)
         call cfftz(is, m, d1, w(1, 1, 1), w(1, 1, 2))
         call scatter1(d1, d2, d3, w, jj, k, x)
      end do
   end do
end subroutine cffts1

subroutine cffts1_to(is, d1, d2, d3, x, xout, w)
   use ft_data
   implicit none
   integer, intent(in) :: is, d1, d2, d3
   complex(dp), intent(in) :: x(d1, d2, d3)
   complex(dp), intent(inout) :: xout(d1, d2, d3)
   complex(dp), intent(inout) :: w(fftblockpad, d1, 2)
   integer, external :: ilog2
   integer :: k, jj, m

   m = ilog2(d1)
   do k = 1, d3
      do jj = 0, d2 - fftblock, fftblock
         call gather1(d1, d2, d3, x, jj, k, w)
         call cfftz(is, m, d1, w(1, 1, 1), w(1, 1, 2))
         call scatter1(d1, d2, d3, w, jj, k, xout)
      end do
   end do
end subroutine cffts1_to

! w(j, i) = x(i, jj + j, k), j = 1..fftblock
subroutine gather1(d1, d2, d3, x, jj, k, w)
   use ft_data
   implicit none
   integer, intent(in) :: d1, d2, d3, jj, k
   complex(dp), intent(in) :: x(d1, d2, d3)
   complex(dp), intent(inout) :: w(fftblockpad, d1)
   integer :: i, j
   do j = 1, fftblock
      do i = 1, d1
         w(j, i) = x(i, j + jj, k)
      end do
   end do
end subroutine gather1

subroutine scatter1(d1, d2, d3, w, jj, k, x)
   use ft_data
   implicit none
   integer, intent(in) :: d1, d2, d3, jj, k
   complex(dp), intent(in) :: w(fftblockpad, d1)
   complex(dp), intent(inout) :: x(d1, d2, d3)
   integer :: i, j
   do j = 1, fftblock
      do i = 1, d1
         x(i, j + jj, k) = w(j, i)
      end do
   end do
end subroutine scatter1

! FFTs along dimension 2, in place, fftblock lines (consecutive along
! dimension 1) at a time.
subroutine cffts2(is, d1, d2, d3, x, w)
   use ft_data
   implicit none
   integer, intent(in) :: is, d1, d2, d3
   complex(dp), intent(inout) :: x(d1, d2, d3)
   complex(dp), intent(inout) :: w(fftblockpad, d2, 2)
   integer, external :: ilog2
   integer :: i, j, k, ii, m

   m = ilog2(d2)
   do k = 1, d3
      do ii = 0, d1 - fftblock, fftblock
         do j = 1, d2
            do i = 1, fftblock
               w(i, j, 1) = x(i + ii, j, k)
            end do
         end do
         call cfftz(is, m, d2, w(1, 1, 1), w(1, 1, 2))
         do j = 1, d2
            do i = 1, fftblock
               x(i + ii, j, k) = w(i, j, 1)
            end do
         end do
      end do
   end do
end subroutine cffts2

! FFTs along dimension 3, in place (cffts3) or into xout (cffts3_to),
! fftblock lines (consecutive along dimension 1) at a time.
subroutine cffts3(is, d1, d2, d3, x, w)
   use ft_data
   implicit none
   integer, intent(in) :: is, d1, d2, d3
   complex(dp), intent(inout) :: x(d1, d2, d3)
   complex(dp), intent(inout) :: w(fftblockpad, d3, 2)
   integer, external :: ilog2
   integer :: j, ii, m

   m = ilog2(d3)
   do j = 1, d2
      do ii = 0, d1 - fftblock, fftblock
         call gather3(d1, d2, d3, x, ii, j, w)
         call cfftz(is, m, d3, w(1, 1, 1), w(1, 1, 2))
         call scatter3(d1, d2, d3, w, ii, j, x)
      end do
   end do
end subroutine cffts3

subroutine cffts3_to(is, d1, d2, d3, x, xout, w)
   use ft_data
   implicit none
   integer, intent(in) :: is, d1, d2, d3
   complex(dp), intent(in) :: x(d1, d2, d3)
   complex(dp), intent(inout) :: xout(d1, d2, d3)
   complex(dp), intent(inout) :: w(fftblockpad, d3, 2)
   integer, external :: ilog2
   integer :: j, ii, m

   m = ilog2(d3)
   do j = 1, d2
      do ii = 0, d1 - fftblock, fftblock
         call gather3(d1, d2, d3, x, ii, j, w)
         call cfftz(is, m, d3, w(1, 1, 1), w(1, 1, 2))
         call scatter3(d1, d2, d3, w, ii, j, xout)
      end do
   end do
end subroutine cffts3_to

! w(i, k) = x(ii + i, j, k), i = 1..fftblock
subroutine gather3(d1, d2, d3, x, ii, j, w)
   use ft_data
   implicit none
   integer, intent(in) :: d1, d2, d3, ii, j
   complex(dp), intent(in) :: x(d1, d2, d3)
   complex(dp), intent(inout) :: w(fftblockpad, d3)
   integer :: i, k
   do k = 1, d3
      do i = 1, fftblock
         w(i, k) = x(i + ii, j, k)
      end do
   end do
end subroutine gather3

subroutine scatter3(d1, d2, d3, w, ii, j, x)
   use ft_data
   implicit none
   integer, intent(in) :: d1, d2, d3, ii, j
   complex(dp), intent(in) :: w(fftblockpad, d3)
   complex(dp), intent(inout) :: x(d1, d2, d3)
   integer :: i, k
   do k = 1, d3
      do i = 1, fftblock
         x(i + ii, j, k) = w(i, k)
      end do
   end do
end subroutine scatter3

! fftblock simultaneous length-n (n = 2**m) transforms of the columns
! x(j, :), j = 1..fftblock, in place, y as work: Stockham autosort, two
! levels per loop trip (x -> y -> x); is = 1 uses exp(+i...), is = -1
! exp(-i...); no normalisation.
subroutine cfftz(is, m, n, x, y)
   use ft_data
   implicit none
   integer, intent(in) :: is, m, n
   complex(dp), intent(inout) :: x(fftblockpad, n), y(fftblockpad, n)
   integer :: l, i, j

   do l = 1, m, 2
      call fftz2(is, l, m, n, x, y)
      if (l == m) then
         do j = 1, n
            do i = 1, fftblock
               x(i, j) = y(i, j)
            end do
         end do
         return
      end if
      call fftz2(is, l + 1, m, n, y, x)
   end do
end subroutine cfftz

! Level l of the Stockham transform: butterflies of span lk = 2**(l-1)
! on li = 2**(m-l) groups, from x into y.
subroutine fftz2(is, l, m, n, x, y)
   use ft_data
   implicit none
   integer, intent(in) :: is, l, m, n
   complex(dp), intent(in) :: x(fftblockpad, n)
   complex(dp), intent(out) :: y(fftblockpad, n)
   integer :: half, lk, li, lj, i, j, k, in1, in2, out1, out2
   complex(dp) :: w, a, b

   half = n/2
   lk = 2**(l - 1)
   li = 2**(m - l)
   lj = 2*lk
   do i = 0, li - 1
      in1 = i*lk + 1
      in2 = in1 + half
      out1 = i*lj + 1
      out2 = out1 + lk
      w = roots(li + i)
      if (is < 1) w = conjg(w)
      do k = 0, lk - 1
         do j = 1, fftblock
            a = x(j, in1 + k)
            b = x(j, in2 + k)
            y(j, out1 + k) = a + b
            y(j, out2 + k) = w*(a - b)
         end do
      end do
   end do
end subroutine fftz2

! ---------------------------------------------------------------------------
! 1D layout transposes: (x y, z/np) <-> (z, x y/np), through one
! MPI_Alltoall on commslice1. xin is overwritten.
! ---------------------------------------------------------------------------

! phase l1 (x y z-slab) -> z x y-slab
subroutine transpose_xy_z(l1, xin, xout)
   use ft_data
   implicit none
   integer, intent(in) :: l1
   complex(dp), intent(inout) :: xin(ntdivnp), xout(ntdivnp)
   call transpose2_local(dims(1, l1)*dims(2, l1), dims(3, l1), xin, xout)
   call transpose2_global(xout, xin)
   call transpose2_finish(dims(1, l1)*dims(2, l1), dims(3, l1), xin, xout)
end subroutine transpose_xy_z

! phase l1 (z x y-slab) -> x y z-slab
subroutine transpose_x_yz(l1, xin, xout)
   use ft_data
   implicit none
   integer, intent(in) :: l1
   complex(dp), intent(inout) :: xin(ntdivnp), xout(ntdivnp)
   call transpose2_local(dims(1, l1), dims(2, l1)*dims(3, l1), xin, xout)
   call transpose2_global(xout, xin)
   call transpose2_finish(dims(1, l1), dims(2, l1)*dims(3, l1), xin, xout)
end subroutine transpose_x_yz

! xout = transpose(xin), in transblock x transblock tiles when both sides
! allow it
subroutine transpose2_local(n1, n2, xin, xout)
   use ft_data
   implicit none
   integer, intent(in) :: n1, n2
   complex(dp), intent(in) :: xin(n1, n2)
   complex(dp), intent(out) :: xout(n2, n1)
   complex(dp) :: tile(transblockpad, transblock)
   integer :: i, j, ii, jj

   if (n1 < transblock .or. n2 < transblock) then
      if (n1 >= n2) then
         do j = 1, n2
            do i = 1, n1
               xout(j, i) = xin(i, j)
            end do
         end do
      else
         do i = 1, n1
            do j = 1, n2
               xout(j, i) = xin(i, j)
            end do
         end do
      end if
   else
      do j = 0, n2 - 1, transblock
         do i = 0, n1 - 1, transblock
            do jj = 1, transblock
               do ii = 1, transblock
                  tile(jj, ii) = xin(i + ii, j + jj)
               end do
            end do
            do ii = 1, transblock
               do jj = 1, transblock
                  xout(j + jj, i + ii) = tile(jj, ii)
               end do
            end do
         end do
      end do
   end if
end subroutine transpose2_local

subroutine transpose2_global(xin, xout)
   use ft_data
   implicit none
   complex(dp), intent(in) :: xin(ntdivnp)
   complex(dp), intent(out) :: xout(ntdivnp)
   integer :: ierr
   call mpi_alltoall(xin, ntdivnp/np, dc_type, xout, ntdivnp/np, dc_type, &
                     commslice1, ierr)
end subroutine transpose2_global

! the np2 received (n2, n1/np2) pieces side by side along dimension 1
subroutine transpose2_finish(n1, n2, xin, xout)
   use ft_data
   implicit none
   integer, intent(in) :: n1, n2
   complex(dp), intent(in) :: xin(n2, n1/np2, 0:np2 - 1)
   complex(dp), intent(out) :: xout(n2*np2, n1/np2)
   integer :: i, j, p, off
   do p = 0, np2 - 1
      off = p*n2
      do j = 1, n1/np2
         do i = 1, n2
            xout(i + off, j) = xin(i, j, p)
         end do
      end do
   end do
end subroutine transpose2_finish

! ---------------------------------------------------------------------------
! 2D layout transposes. xin is overwritten.
! ---------------------------------------------------------------------------

! (d1, d2, d3) of phase l1 -> phase l2 with dimensions 1 and 3 exchanged,
! over commslice1 (np2 ranks)
subroutine transpose_x_z(l1, l2, xin, xout)
   use ft_data
   implicit none
   integer, intent(in) :: l1, l2
   complex(dp), intent(inout) :: xin(ntdivnp), xout(ntdivnp)
   call transpose_x_z_local(dims(1, l1), dims(2, l1), dims(3, l1), xin, xout)
   call transpose_x_z_global(dims(1, l1), dims(2, l1), dims(3, l1), xout, xin)
   call transpose_x_z_finish(dims(1, l2), dims(2, l2), dims(3, l2), xin, xout)
end subroutine transpose_x_z

subroutine transpose_x_z_local(d1, d2, d3, xin, xout)
   use ft_data
   implicit none
   integer, intent(in) :: d1, d2, d3
   complex(dp), intent(in) :: xin(d1, d2, d3)
   complex(dp), intent(out) :: xout(d3, d2, d1)
   complex(dp), allocatable, save :: buf(:, :)
   integer :: b1, b3, i, j, k, ii, kk

   if (d1 < 32 .or. d3 == 1) then
      do j = 1, d2
         do k = 1, d3
            do i = 1, d1
               xout(k, j, i) = xin(i, j, k)
            end do
         end do
      end do
      return
   end if
   if (.not. allocated(buf)) allocate (buf(transblockpad, maxdim))
   ! tiles of b1 x b3 with b3 <= transblock, b1*b3 <= transblock**2
   b3 = min(d3, transblock)
   b1 = d1
   if (b1*b3 > transblock*transblock) b1 = transblock*transblock/b3
   do j = 1, d2
      do kk = 0, d3 - b3, b3
         do ii = 0, d1 - b1, b1
            do k = 1, b3
               do i = 1, b1
                  buf(k, i) = xin(i + ii, j, k + kk)
               end do
            end do
            do i = 1, b1
               do k = 1, b3
                  xout(k + kk, j, i + ii) = buf(k, i)
               end do
            end do
         end do
      end do
   end do
end subroutine transpose_x_z_local

subroutine transpose_x_z_global(d1, d2, d3, xin, xout)
   use ft_data
   implicit none
   integer, intent(in) :: d1, d2, d3
   complex(dp), intent(in) :: xin(d3, d2, d1)
   complex(dp), intent(out) :: xout(d3, d2, d1)
   integer :: ierr
   call mpi_alltoall(xin, d1*d2*d3/np2, dc_type, xout, d1*d2*d3/np2, &
                     dc_type, commslice1, ierr)
end subroutine transpose_x_z_global

subroutine transpose_x_z_finish(d1, d2, d3, xin, xout)
   use ft_data
   implicit none
   integer, intent(in) :: d1, d2, d3
   complex(dp), intent(in) :: xin(d1/np2, d2, d3, 0:np2 - 1)
   complex(dp), intent(out) :: xout(d1, d2, d3)
   integer :: i, j, k, p, off
   do p = 0, np2 - 1
      off = p*(d1/np2)
      do k = 1, d3
         do j = 1, d2
            do i = 1, d1/np2
               xout(i + off, j, k) = xin(i, j, k, p)
            end do
         end do
      end do
   end do
end subroutine transpose_x_z_finish

! (d1, d2, d3) of phase l1 -> phase l2 with dimensions 1 and 2 exchanged,
! over commslice2 (np1 ranks): (d1, d2, d3) -> (d2, d3, d1) locally so that
! the exchange splits the slowest dimension, then reassembled
subroutine transpose_x_y(l1, l2, xin, xout)
   use ft_data
   implicit none
   integer, intent(in) :: l1, l2
   complex(dp), intent(inout) :: xin(ntdivnp), xout(ntdivnp)
   call transpose_x_y_local(dims(1, l1), dims(2, l1), dims(3, l1), xin, xout)
   call transpose_x_y_global(dims(1, l1), dims(2, l1), dims(3, l1), xout, xin)
   call transpose_x_y_finish(dims(1, l2), dims(2, l2), dims(3, l2), xin, xout)
end subroutine transpose_x_y

subroutine transpose_x_y_local(d1, d2, d3, xin, xout)
   use ft_data
   implicit none
   integer, intent(in) :: d1, d2, d3
   complex(dp), intent(in) :: xin(d1, d2, d3)
   complex(dp), intent(out) :: xout(d2, d3, d1)
   integer :: i, j, k
   do k = 1, d3
      do i = 1, d1
         do j = 1, d2
            xout(j, k, i) = xin(i, j, k)
         end do
      end do
   end do
end subroutine transpose_x_y_local

subroutine transpose_x_y_global(d1, d2, d3, xin, xout)
   use ft_data
   implicit none
   integer, intent(in) :: d1, d2, d3
   complex(dp), intent(in) :: xin(d2, d3, d1)
   complex(dp), intent(out) :: xout(d2, d3, d1)
   integer :: ierr
   call mpi_alltoall(xin, d1*d2*d3/np1, dc_type, xout, d1*d2*d3/np1, &
                     dc_type, commslice2, ierr)
end subroutine transpose_x_y_global

subroutine transpose_x_y_finish(d1, d2, d3, xin, xout)
   use ft_data
   implicit none
   integer, intent(in) :: d1, d2, d3
   complex(dp), intent(in) :: xin(d1/np1, d3, d2, 0:np1 - 1)
   complex(dp), intent(out) :: xout(d1, d2, d3)
   integer :: i, j, k, p, off
   do p = 0, np1 - 1
      off = p*(d1/np1)
      do k = 1, d3
         do j = 1, d2
            do i = 1, d1/np1
               xout(i + off, j, k) = xin(i, k, j, p)
            end do
         end do
      end do
   end do
end subroutine transpose_x_y_finish

! ---------------------------------------------------------------------------
! Sum of u at the 1024 points (mod(j, nx), mod(3j, ny), mod(5j, nz)) (0
! based), over nx*ny*nz; the ranks' parts summed at rank 0 by MPI_Reduce.
! ---------------------------------------------------------------------------
subroutine checksum(it, u, d1, d2, d3)
   use ft_data
   implicit none
   integer, intent(in) :: it, d1, d2, d3
   complex(dp), intent(in) :: u(d1, d2, d3)
   complex(dp) :: chk, allchk
   integer :: j, q, r, s, ierr

   chk = (0.0_dp, 0.0_dp)
   do j = 1, 1024
      q = mod(j, nx) + 1
      r = mod(3*j, ny) + 1
      s = mod(5*j, nz) + 1
      if (q >= xstart(1) .and. q <= xend(1) .and. &
          r >= ystart(1) .and. r <= yend(1) .and. &
          s >= zstart(1) .and. s <= zend(1)) then
         chk = chk + u(q - xstart(1) + 1, r - ystart(1) + 1, s - zstart(1) + 1)
      end if
   end do
   chk = chk/ntotal_f

   call mpi_reduce(chk, allchk, 1, dc_type, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
   if (me == 0) then
      write (*, '(a,i5,5x,a,1p,2d22.12)') ' T =', it, 'Checksum =', allchk
      sums(it) = allchk
   end if
end subroutine checksum

! ---------------------------------------------------------------------------
! Rank 0: every step's checksum within a relative 1e-12 of NPB's.
! ---------------------------------------------------------------------------
subroutine verify(verified)
   use ft_data
   implicit none
   logical, intent(out) :: verified
   real(dp) :: err
   integer :: i

   verified = .false.
   if (me /= 0) return
   verified = niter == size(csum_ref)
   do i = 1, min(niter, size(csum_ref))
      err = abs((sums(i) - csum_ref(i))/csum_ref(i))
      if (.not. (err <= tolerance)) verified = .false.
   end do
   if (verified) then
      write (*, '(a)') ' Result verification successful'
   else
      write (*, '(a)') ' Result verification failed'
   end if
   write (*, '(2a)') ' class = ', cls
end subroutine verify

! ---------------------------------------------------------------------------
! NPB's result block (print_results' layout, as bench-npb/common/results.c
! prints it for the C kernels): "Time exact (s)" and "Process grid" are our
! additions, the timer value with all its digits and np1 x np2.
! ---------------------------------------------------------------------------
subroutine print_results(t, mops, verified)
   use ft_data
   implicit none
   real(dp), intent(in) :: t, mops
   logical, intent(in) :: verified
   character(len=24) :: text

   write (*, '(//,a)') ' FT Benchmark Completed.'
   write (*, '(a,a24)') ' Class           = ', cls
   write (text, '(i4,a,i4,a,i4)') nx, 'x', ny, 'x', nz
   write (*, '(a,a24)') ' Size            = ', adjustr(text)
   write (*, '(a,i24)') ' Iterations      = ', niter
   write (*, '(a,f24.2)') ' Time in seconds = ', t
   write (*, '(a,es24.16)') ' Time exact (s)  = ', t
   write (*, '(a,i24)') ' Total processes = ', np
   write (text, '(i0,a,i0)') np1, ' x ', np2
   write (*, '(a,a24)') ' Process grid    = ', adjustr(text)
   write (*, '(a,f24.2)') ' Mop/s total     = ', mops
   write (*, '(a,f24.2)') ' Mop/s/process   = ', mops/np
   write (*, '(a,a24)') ' Operation type  = ', 'floating point'
   if (verified) then
      write (*, '(a,a24)') ' Verification    = ', 'SUCCESSFUL'
   else
      write (*, '(a,a24)') ' Verification    = ', 'UNSUCCESSFUL'
   end if
   write (*, '(a,a24,/)') ' Version         = ', '3.3 (vaced bench-npb)'
end subroutine print_results
