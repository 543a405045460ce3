! bench-npb BT: the block tridiagonal solver of NPB 3.3-MPI, our own
! implementation of its algorithm, problem classes, communication pattern
! and verification.
!
! BT integrates the 3-D compressible Navier-Stokes equations on an n^3 grid
! with a manufactured exact solution: each of niter time steps is one ADI
! step (copy_faces + compute_rhs, then block tridiagonal line solves in x,
! y and z with 5x5 blocks, then u := u + rhs).  At the end the RMS norms of
! the error against the exact solution (xce) and of the residual (xcr) are
! compared with NPB's reference values (relative tolerance 1e-8).
!
! Decomposition, as NPB: the number of ranks must be a square p = q^2;
! every rank owns q cells of the q x q x q multi-partition (cell c of rank
! (i, j) at ((i + c - 1) mod q, (j - c + 1) mod q, c - 1)), so that each
! sweep direction has work on every rank at every stage.
!
! Differences from NPB, which compiles class and process count in
! (npbparams.h): the class is the first command-line argument (S, W, A, B,
! C; default S) and the cells are sized at run time.  The BTIO variants and
! the optional timers (timer.flag) are not implemented.
!
! MPI, as NPB: MPI_Comm_split of MPI_COMM_WORLD (comm_setup) and two
! MPI_Comm_dup of it (comm_solve, comm_rhs); six MPI_Bcast of the
! parameters from rank 0; per time step copy_faces (6 MPI_Irecv, 6
! MPI_Isend, MPI_Waitall on comm_rhs) and the three sweeps (MPI_Irecv,
! MPI_Isend, MPI_Wait on comm_solve, see solve.f90); MPI_Barrier before the
! timed section; verification with two MPI_Allreduce (SUM) and one more
! copy_faces; MPI_Reduce (MAX) of the time; MPI_Barrier at the end.
! Time is measured with MPI_Wtime around the niter time steps.

program bt
   use bt_data
   implicit none

   integer :: ierr, step, wr_interval, rd_interval
   real(dp) :: t0, t, tmax, mops, n3, navg
   logical :: verified, timeron

   call mpi_init(ierr)
   call mpi_comm_size(MPI_COMM_WORLD, total_nodes, ierr)
   call mpi_comm_rank(MPI_COMM_WORLD, node, ierr)

   call choose_class()
   call setup_mpi()

   wr_interval = 0
   rd_interval = 0
   timeron = .false.
   if (node == root) then
      write (*, '(//,a,/)') ' NAS Parallel Benchmarks 3.3 -- BT Benchmark'// &
         ' (bench-npb implementation)'
      write (*, '(a)') ' Class from the command line, cells sized at run time'
      write (*, '(a,i4,a,i4,a,i4)') ' Size: ', grid_points(1), 'x', &
         grid_points(2), 'x', grid_points(3)
      write (*, '(a,i4,a,f11.7)') ' Iterations: ', niter, '    dt: ', dt
      write (*, '(a,i5,/)') ' Number of active processes: ', no_nodes
   end if

   call mpi_bcast(niter, 1, MPI_INTEGER, root, comm_setup, ierr)
   call mpi_bcast(dt, 1, MPI_DOUBLE_PRECISION, root, comm_setup, ierr)
   call mpi_bcast(grid_points, 3, MPI_INTEGER, root, comm_setup, ierr)
   call mpi_bcast(wr_interval, 1, MPI_INTEGER, root, comm_setup, ierr)
   call mpi_bcast(rd_interval, 1, MPI_INTEGER, root, comm_setup, ierr)
   call mpi_bcast(timeron, 1, MPI_LOGICAL, root, comm_setup, ierr)

   call make_set()
   call set_constants()
   call initialize()
   call lhsinit()
   call exact_rhs()
   call compute_buffer_size(5)

   ! one time step to touch all code and data, then start over
   call adi()
   call initialize()

   call mpi_barrier(comm_setup, ierr)
   t0 = mpi_wtime()

   do step = 1, niter
      if (node == root) then
         if (mod(step, 20) == 0 .or. step == niter .or. step == 1) &
            write (*, '(a,i4)') ' Time step ', step
      end if
      call adi()
   end do

   t = mpi_wtime() - t0

   call verify(verified)

   call mpi_reduce(t, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, root, &
                   comm_setup, ierr)

   if (node == root) then
      ! NPB's operation count (its constants are default reals)
      n3 = 1.0_dp*grid_points(1)*grid_points(2)*grid_points(3)
      navg = (grid_points(1) + grid_points(2) + grid_points(3))/3.0
      if (tmax /= 0.0_dp) then
         mops = 1.0e-6*real(niter)*(3478.8*n3 - 17655.7*navg**2 + 28023.7*navg)/tmax
      else
         mops = 0.0_dp
      end if
      call print_results(tmax, mops, verified)
   end if

   call mpi_barrier(MPI_COMM_WORLD, ierr)
   call mpi_finalize(ierr)
end program bt

! One ADI time step.
subroutine adi()
   implicit none
   call copy_faces()
   call adi_sweep(1)
   call adi_sweep(2)
   call adi_sweep(3)
   call add()
end subroutine adi

! The class named by the first argument (default S), its NPB parameters
! and reference values; the number of ranks must be a square whose root
! (the cells per rank and per direction) is at most 32 and leaves every
! cell at least 3 points wide (NPB's make_set).
subroutine choose_class()
   use bt_data
   implicit none
   character(len=16) :: arg
   character(len=40) :: allowed
   integer :: ierr, nc, most

   arg = 'S'
   if (command_argument_count() >= 1) call get_command_argument(1, arg)
   cls = arg(1:1)
   select case (cls)
   case ('S', 's')
      cls = 'S'; problem_size = 12; niter = 60; dt = 0.010_dp
      xcrref = [1.7034283709541311e-01_dp, 1.2975252070034097e-02_dp, &
                3.2527926989486055e-02_dp, 2.6436421275166801e-02_dp, &
                1.9211784131744430e-01_dp]
      xceref = [4.9976913345811579e-04_dp, 4.5195666782961927e-05_dp, &
                7.3973765172921357e-05_dp, 7.3821238632439731e-05_dp, &
                8.9269630987491446e-04_dp]
   case ('W', 'w')
      cls = 'W'; problem_size = 24; niter = 200; dt = 0.0008_dp
      xcrref = [0.1125590409344e+03_dp, 0.1180007595731e+02_dp, &
                0.2710329767846e+02_dp, 0.2469174937669e+02_dp, &
                0.2638427874317e+03_dp]
      xceref = [0.4419655736008e+01_dp, 0.4638531260002e+00_dp, &
                0.1011551749967e+01_dp, 0.9235878729944e+00_dp, &
                0.1018045837718e+02_dp]
   case ('A', 'a')
      cls = 'A'; problem_size = 64; niter = 200; dt = 0.0008_dp
      xcrref = [1.0806346714637264e+02_dp, 1.1319730901220813e+01_dp, &
                2.5974354511582465e+01_dp, 2.3665622544678910e+01_dp, &
                2.5278963211748344e+02_dp]
      xceref = [4.2348416040525025e+00_dp, 4.4390282496995698e-01_dp, &
                9.6692480136345650e-01_dp, 8.8302063039765474e-01_dp, &
                9.7379901770829278e+00_dp]
   case ('B', 'b')
      cls = 'B'; problem_size = 102; niter = 200; dt = 0.0003_dp
      xcrref = [1.4233597229287254e+03_dp, 9.9330522590150238e+01_dp, &
                3.5646025644535285e+02_dp, 3.2485447959084092e+02_dp, &
                3.2707541254659363e+03_dp]
      xceref = [5.2969847140936856e+01_dp, 4.4632896115670668e+00_dp, &
                1.3122573342210174e+01_dp, 1.2006925323559144e+01_dp, &
                1.2459576151035986e+02_dp]
   case ('C', 'c')
      cls = 'C'; problem_size = 162; niter = 200; dt = 0.0001_dp
      xcrref = [0.62398116551764615e+04_dp, 0.50793239190423964e+03_dp, &
                0.15423530093013596e+04_dp, 0.13302387929291190e+04_dp, &
                0.11604087428436455e+05_dp]
      xceref = [0.16462008369091265e+03_dp, 0.11497107903824313e+02_dp, &
                0.41207446207461508e+02_dp, 0.37087651059694167e+02_dp, &
                0.36211053051841265e+03_dp]
   case default
      if (node == 0) write (0, '(3a)') 'ERROR: unknown BT class "', &
         trim(arg), '" (expected S, W, A, B or C)'
      call refuse()
   end select
   dtref = dt
   grid_points = problem_size

   nc = int(sqrt(dble(total_nodes) + 0.00001_dp))
   most = min(32, problem_size/3)
   if (nc*nc /= total_nodes .or. nc > most) then
      if (node == 0) then
         if (most > 4) then
            write (allowed, '(a,i0)') '1, 4, 9, 16, ..., ', most*most
         else
            write (allowed, '(a)') '1, 4, 9, 16'
         end if
         write (0, '(a,i0,a,a,a,i0,a,i0,2a)') &
            'ERROR: BT cannot run on ', total_nodes, ' processes: class ', cls, &
            ' (', problem_size, '^3 grid) needs a square number of processes q*q'// &
            ' with q <= ', most, ': ', trim(allowed)
      end if
      call refuse()
   end if

contains

   ! Rank 0 (which has printed why) aborts the job; the others wait for
   ! that in a barrier rank 0 never enters, so that no rank ends the job
   ! before the message is out.
   subroutine refuse()
      if (node == 0) then
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      else
         call mpi_barrier(MPI_COMM_WORLD, ierr)
      end if
      stop 1
   end subroutine refuse
end subroutine choose_class

! comm_setup (MPI_Comm_split of the world, all ranks active), comm_solve
! and comm_rhs (its duplicates), as NPB's setup_mpi.
subroutine setup_mpi()
   use bt_data
   implicit none
   integer :: ierr

   call mpi_comm_split(MPI_COMM_WORLD, 0, node, comm_setup, ierr)
   call mpi_comm_size(comm_setup, no_nodes, ierr)
   call mpi_comm_dup(comm_setup, comm_solve, ierr)
   call mpi_comm_dup(comm_setup, comm_rhs, ierr)
   root = 0
end subroutine setup_mpi

! The cells of this rank in the multi-partition, their neighbours and
! sizes (NPB's make_set), and the field arrays.
subroutine make_set()
   use bt_data
   implicit none
   integer :: p, c, d, i, j, size, excess, m

   ncells = int(sqrt(dble(no_nodes) + 0.00001_dp))
   p = ncells
   allocate (cell_coord(3, p), cell_low(3, p), cell_high(3, p), cell_size(3, p), &
             slice(3, p), cstart(3, p), cend(3, p))

   cell_coord(1, 1) = mod(node, p)
   cell_coord(2, 1) = node/p
   cell_coord(3, 1) = 0
   do c = 2, p
      cell_coord(1, c) = mod(cell_coord(1, c - 1) + 1, p)
      cell_coord(2, c) = mod(cell_coord(2, c - 1) - 1 + p, p)
      cell_coord(3, c) = c - 1
   end do
   cell_coord = cell_coord + 1

   do d = 1, 3
      do c = 1, p
         slice(d, cell_coord(d, c)) = c
      end do
   end do

   i = cell_coord(1, 1) - 1
   j = cell_coord(2, 1) - 1
   predecessor(1) = mod(i - 1 + p, p) + p*j
   predecessor(2) = i + p*mod(j - 1 + p, p)
   predecessor(3) = mod(i + 1, p) + p*mod(j - 1 + p, p)
   successor(1) = mod(i + 1, p) + p*j
   successor(2) = i + p*mod(j + 1, p)
   successor(3) = mod(i - 1 + p, p) + p*mod(j + 1, p)

   do d = 1, 3
      size = grid_points(d)/p
      excess = mod(grid_points(d), p)
      do c = 1, p
         if (cell_coord(d, c) <= excess) then
            cell_size(d, c) = size + 1
            cell_low(d, c) = (cell_coord(d, c) - 1)*(size + 1)
            cell_high(d, c) = cell_low(d, c) + size
         else
            cell_size(d, c) = size
            cell_low(d, c) = excess*(size + 1) + (cell_coord(d, c) - excess - 1)*size
            cell_high(d, c) = cell_low(d, c) + size - 1
         end if
      end do
   end do

   ! NPB's MAX_CELL_DIM (problem_size/maxcells + 1)
   maxdim = problem_size/p + 1
   m = maxdim
   allocate (u(5, -2:m + 1, -2:m + 1, -2:m + 1, p))
   allocate (vel(3, -1:m, -1:m, -1:m, p), rho_i(-1:m, -1:m, -1:m, p), &
             qs(-1:m, -1:m, -1:m, p), square(-1:m, -1:m, -1:m, p))
   allocate (forcing(5, 0:m - 1, 0:m - 1, 0:m - 1, p), rhs(5, -1:m - 1, -1:m - 1, -1:m - 1, p))
   allocate (lhsc(5, 5, -1:m - 1, -1:m - 1, -1:m - 1, p), backsub_info(5, 0:m, 0:m, p))
   allocate (solve_out(m*m*30), solve_in(m*m*30))
   vel = 0.0_dp
   rho_i = 0.0_dp
   qs = 0.0_dp
   square = 0.0_dp
   rhs = 0.0_dp
   backsub_info = 0.0_dp
   solve_out = 0.0_dp
   solve_in = 0.0_dp
end subroutine make_set

! The lengths and offsets of the six face messages of copy_faces (dim
! values per point, two layers).
subroutine compute_buffer_size(dim)
   use bt_data
   implicit none
   integer, intent(in) :: dim
   integer :: c, fs, total

   face_len = 0
   do c = 1, ncells
      fs = cell_size(2, c)*cell_size(3, c)*dim*2
      if (cell_coord(1, c) /= ncells) face_len(0) = face_len(0) + fs
      if (cell_coord(1, c) /= 1) face_len(1) = face_len(1) + fs
      fs = cell_size(1, c)*cell_size(3, c)*dim*2
      if (cell_coord(2, c) /= ncells) face_len(2) = face_len(2) + fs
      if (cell_coord(2, c) /= 1) face_len(3) = face_len(3) + fs
      fs = cell_size(1, c)*cell_size(2, c)*dim*2
      if (cell_coord(3, c) /= ncells) face_len(4) = face_len(4) + fs
      if (cell_coord(3, c) /= 1) face_len(5) = face_len(5) + fs
   end do

   ! NPB's layout: west, east, south, north, bottom, top
   face_send(1) = 1
   face_send(0) = face_send(1) + face_len(1)
   face_send(3) = face_send(0) + face_len(0)
   face_send(2) = face_send(3) + face_len(3)
   face_send(5) = face_send(2) + face_len(2)
   face_send(4) = face_send(5) + face_len(5)
   face_recv = face_send
   total = face_send(4) + face_len(4)
   allocate (face_out(total), face_in(total))
   face_out = 0.0_dp
   face_in = 0.0_dp
end subroutine compute_buffer_size

! NPB's constants.
subroutine set_constants()
   use bt_data
   implicit none
   integer :: d

   ce(1, :) = [2.0_dp, 0.0_dp, 0.0_dp, 4.0_dp, 5.0_dp, 3.0_dp, 0.5_dp, 0.02_dp, &
               0.01_dp, 0.03_dp, 0.5_dp, 0.4_dp, 0.3_dp]
   ce(2, :) = [1.0_dp, 0.0_dp, 0.0_dp, 0.0_dp, 1.0_dp, 2.0_dp, 3.0_dp, 0.01_dp, &
               0.03_dp, 0.02_dp, 0.4_dp, 0.3_dp, 0.5_dp]
   ce(3, :) = [2.0_dp, 2.0_dp, 0.0_dp, 0.0_dp, 0.0_dp, 2.0_dp, 3.0_dp, 0.04_dp, &
               0.03_dp, 0.05_dp, 0.3_dp, 0.5_dp, 0.4_dp]
   ce(4, :) = [2.0_dp, 2.0_dp, 0.0_dp, 0.0_dp, 0.0_dp, 2.0_dp, 3.0_dp, 0.03_dp, &
               0.05_dp, 0.04_dp, 0.2_dp, 0.1_dp, 0.3_dp]
   ce(5, :) = [5.0_dp, 4.0_dp, 3.0_dp, 2.0_dp, 0.1_dp, 0.4_dp, 0.3_dp, 0.05_dp, &
               0.04_dp, 0.03_dp, 0.1_dp, 0.3_dp, 0.2_dp]

   c1 = 1.4_dp
   c2 = 0.4_dp
   c3 = 0.1_dp
   c4 = 1.0_dp
   c5 = 1.4_dp
   c1c2 = c1*c2
   c1c5 = c1*c5
   c3c4 = c3*c4
   c1345 = c1c5*c3c4
   conz1 = 1.0_dp - c1c5
   con43 = 4.0_dp/3.0_dp
   con16 = 1.0_dp/6.0_dp

   dd(:, 1) = 0.75_dp
   dd(:, 2) = 0.75_dp
   dd(:, 3) = 1.0_dp
   dssp = 0.25_dp*max(dd(1, 1), max(dd(1, 2), dd(1, 3)))

   do d = 1, 3
      dnm1(d) = 1.0_dp/dble(grid_points(d) - 1)
      t1(d) = 1.0_dp/(dnm1(d)*dnm1(d))
      t2(d) = 1.0_dp/(2.0_dp*dnm1(d))
      t3(d) = 1.0_dp/dnm1(d)
      dt1(:, d) = dd(:, d)*t1(d)
      con(1, d) = c3c4*t3(d)*con43*t3(d)
      con(2, d) = c3c4*t3(d)*t3(d)
      con(3, d) = c3c4*t3(d)*conz1*t3(d)
      con(4, d) = c3c4*t3(d)*con16*t3(d)
      con(5, d) = c3c4*t3(d)*c1c5*t3(d)
   end do
end subroutine set_constants

! u := transfinite (tri-linear) interpolation of the exact solution on the
! six faces of the grid, and the exact solution on the boundary.
subroutine initialize()
   use bt_data
   implicit none
   integer :: c, i, j, k, ii, jj, kk, ix, m, d, side
   real(dp) :: xi, eta, zeta, pface(5, 3, 2), pxi, peta, pzeta, temp(5)

   ! 1/u(1) is taken everywhere, the unused corners included
   u = 1.0_dp

   do c = 1, ncells
      do k = cell_low(3, c), cell_high(3, c)
         kk = k - cell_low(3, c)
         zeta = dble(k)*dnm1(3)
         do j = cell_low(2, c), cell_high(2, c)
            jj = j - cell_low(2, c)
            eta = dble(j)*dnm1(2)
            do i = cell_low(1, c), cell_high(1, c)
               ii = i - cell_low(1, c)
               xi = dble(i)*dnm1(1)
               do ix = 1, 2
                  call exact_solution(dble(ix - 1), eta, zeta, pface(:, 1, ix))
                  call exact_solution(xi, dble(ix - 1), zeta, pface(:, 2, ix))
                  call exact_solution(xi, eta, dble(ix - 1), pface(:, 3, ix))
               end do
               do m = 1, 5
                  pxi = xi*pface(m, 1, 2) + (1.0_dp - xi)*pface(m, 1, 1)
                  peta = eta*pface(m, 2, 2) + (1.0_dp - eta)*pface(m, 2, 1)
                  pzeta = zeta*pface(m, 3, 2) + (1.0_dp - zeta)*pface(m, 3, 1)
                  u(m, ii, jj, kk, c) = pxi + peta + pzeta - pxi*peta - pxi*pzeta &
                                        - peta*pzeta + pxi*peta*pzeta
               end do
            end do
         end do
      end do
   end do

   ! the exact values on the six faces of the grid, in NPB's order (west,
   ! east, south, north, bottom, top)
   do d = 1, 3
      do side = 1, 2
         if (side == 1) then
            c = slice(d, 1)
         else
            c = slice(d, ncells)
         end if
         do k = cell_low(3, c), cell_high(3, c)
            do j = cell_low(2, c), cell_high(2, c)
               do i = cell_low(1, c), cell_high(1, c)
                  if (d == 1 .and. i /= merge(cell_low(1, c), cell_high(1, c), side == 1)) cycle
                  if (d == 2 .and. j /= merge(cell_low(2, c), cell_high(2, c), side == 1)) cycle
                  if (d == 3 .and. k /= merge(cell_low(3, c), cell_high(3, c), side == 1)) cycle
                  xi = dble(i)*dnm1(1)
                  eta = dble(j)*dnm1(2)
                  zeta = dble(k)*dnm1(3)
                  if (d == 1) xi = dble(side - 1)
                  if (d == 2) eta = dble(side - 1)
                  if (d == 3) zeta = dble(side - 1)
                  call exact_solution(xi, eta, zeta, temp)
                  u(:, i - cell_low(1, c), j - cell_low(2, c), k - cell_low(3, c), c) = temp
               end do
            end do
         end do
      end do
   end do
end subroutine initialize

! cstart/cend of every cell and C := 0 (NPB's lhsinit).
subroutine lhsinit()
   use bt_data
   implicit none
   integer :: c, d

   do c = 1, ncells
      do d = 1, 3
         cstart(d, c) = merge(1, 0, cell_coord(d, c) == 1)
         cend(d, c) = merge(1, 0, cell_coord(d, c) == ncells)
      end do
   end do
   lhsc = 0.0_dp
end subroutine lhsinit

! RMS norm over the whole grid of u minus the exact solution (MPI_Allreduce
! SUM on comm_setup).
subroutine error_norm(rms)
   use bt_data
   implicit none
   real(dp), intent(out) :: rms(5)
   real(dp) :: rms_work(5), xi, eta, zeta, u_exact(5), diff
   integer :: c, i, j, k, m, d, ierr

   rms_work = 0.0_dp
   do c = 1, ncells
      do k = cell_low(3, c), cell_high(3, c)
         zeta = dble(k)*dnm1(3)
         do j = cell_low(2, c), cell_high(2, c)
            eta = dble(j)*dnm1(2)
            do i = cell_low(1, c), cell_high(1, c)
               xi = dble(i)*dnm1(1)
               call exact_solution(xi, eta, zeta, u_exact)
               do m = 1, 5
                  diff = u(m, i - cell_low(1, c), j - cell_low(2, c), k - cell_low(3, c), c) &
                         - u_exact(m)
                  rms_work(m) = rms_work(m) + diff*diff
               end do
            end do
         end do
      end do
   end do

   call mpi_allreduce(rms_work, rms, 5, MPI_DOUBLE_PRECISION, MPI_SUM, &
                      comm_setup, ierr)
   do m = 1, 5
      do d = 1, 3
         rms(m) = rms(m)/dble(grid_points(d) - 2)
      end do
      rms(m) = sqrt(rms(m))
   end do
end subroutine error_norm

! RMS norm of rhs over the interior of the grid (MPI_Allreduce SUM).
subroutine rhs_norm(rms)
   use bt_data
   implicit none
   real(dp), intent(out) :: rms(5)
   real(dp) :: rms_work(5)
   integer :: c, i, j, k, m, d, ierr

   rms_work = 0.0_dp
   do c = 1, ncells
      do k = cstart(3, c), cell_size(3, c) - cend(3, c) - 1
         do j = cstart(2, c), cell_size(2, c) - cend(2, c) - 1
            do i = cstart(1, c), cell_size(1, c) - cend(1, c) - 1
               do m = 1, 5
                  rms_work(m) = rms_work(m) + rhs(m, i, j, k, c)*rhs(m, i, j, k, c)
               end do
            end do
         end do
      end do
   end do

   call mpi_allreduce(rms_work, rms, 5, MPI_DOUBLE_PRECISION, MPI_SUM, &
                      comm_setup, ierr)
   do m = 1, 5
      do d = 1, 3
         rms(m) = rms(m)/dble(grid_points(d) - 2)
      end do
      rms(m) = sqrt(rms(m))
   end do
end subroutine rhs_norm

! NPB's verification: xce (error norm) and xcr (residual norm / dt, after
! one more copy_faces) against the class's reference values, relative
! tolerance 1e-8; rank 0 prints the comparison.
subroutine verify(verified)
   use bt_data
   implicit none
   logical, intent(out) :: verified
   real(dp), parameter :: epsilon = 1.0e-08_dp
   real(dp) :: xce(5), xcr(5), xcrdif(5), xcedif(5)
   integer :: m

   verified = .true.
   call error_norm(xce)
   call copy_faces()
   call rhs_norm(xcr)
   xcr = xcr/dt

   if (node /= 0) return

   do m = 1, 5
      xcrdif(m) = abs((xcr(m) - xcrref(m))/xcrref(m))
      xcedif(m) = abs((xce(m) - xceref(m))/xceref(m))
   end do

   write (*, '(a,a)') ' Verification being performed for class ', cls
   write (*, '(a,e20.13)') ' accuracy setting for epsilon = ', epsilon
   verified = abs(dt - dtref) <= epsilon
   if (.not. verified) write (*, '(a,e15.8)') &
      ' DT does not match the reference value of ', dtref

   write (*, '(a)') ' Comparison of RMS-norms of residual'
   do m = 1, 5
      if (xcrdif(m) <= epsilon) then
         write (*, '(10x,i2,3e20.13)') m, xcr(m), xcrref(m), xcrdif(m)
      else
         verified = .false.
         write (*, '(a,i2,3e20.13)') ' FAILURE: ', m, xcr(m), xcrref(m), xcrdif(m)
      end if
   end do
   write (*, '(a)') ' Comparison of RMS-norms of solution error'
   do m = 1, 5
      if (xcedif(m) <= epsilon) then
         write (*, '(10x,i2,3e20.13)') m, xce(m), xceref(m), xcedif(m)
      else
         verified = .false.
         write (*, '(a,i2,3e20.13)') ' FAILURE: ', m, xce(m), xceref(m), xcedif(m)
      end if
   end do
   if (verified) then
      write (*, '(a)') ' Verification Successful'
   else
      write (*, '(a)') ' Verification failed'
   end if
end subroutine verify

! NPB's result block (print_results' layout, as bench-npb/common/results.c
! prints it for the C kernels): "Time exact (s)" is our addition, the timer
! value with all its digits.
subroutine print_results(tmax, mops, verified)
   use bt_data
   implicit none
   real(dp), intent(in) :: tmax, mops
   logical, intent(in) :: verified
   character(len=24) :: text

   write (*, '(//,a)') ' BT Benchmark Completed.'
   write (*, '(a,a24)') ' Class           = ', cls
   write (text, '(i4,a,i4,a,i4)') grid_points(1), 'x', grid_points(2), 'x', grid_points(3)
   write (*, '(a,a24)') ' Size            = ', adjustr(text)
   write (*, '(a,i24)') ' Iterations      = ', niter
   write (*, '(a,f24.2)') ' Time in seconds = ', tmax
   write (*, '(a,es24.16)') ' Time exact (s)  = ', tmax
   write (*, '(a,i24)') ' Total processes = ', total_nodes
   write (*, '(a,f24.2)') ' Mop/s total     = ', mops
   write (*, '(a,f24.2)') ' Mop/s/process   = ', mops/total_nodes
   write (*, '(a,a24)') ' Operation type  = ', 'floating point'
   if (verified) then
      write (*, '(a,a24)') ' Verification    = ', 'SUCCESSFUL'
   else
      write (*, '(a,a24)') ' Verification    = ', 'UNSUCCESSFUL'
   end if
   write (*, '(a,a24,/)') ' Version         = ', '3.3 (vaced bench-npb)'
end subroutine print_results
