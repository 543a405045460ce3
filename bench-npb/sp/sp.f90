! bench-npb SP: the scalar penta-diagonal benchmark of NPB 3.3-MPI, our own
! implementation of its algorithm, problem classes, communication pattern
! and verification.
!
! SP integrates the compressible Navier-Stokes equations on a cube with a
! known exact solution (and forcing term) by the Beam-Warming approximate
! factorisation, diagonalised: each time step computes the residual, then
! solves scalar penta-diagonal systems along x, y and z lines.  After niter
! steps the RMS norms of the residual (xcr) and of the error against the
! exact solution (xce) are compared with NPB's reference values (relative
! tolerance 1e-8).
!
! Differences from NPB, which compiles class and process count in
! (npbparams.h): the class is the first command-line argument (S, W, A, B,
! C; default S) and the arrays are sized at run time for the number of
! ranks, which must be a square (1, 4, 9, ..., 1024; NPB leaves the ranks
! beyond a square idle, we refuse such counts); timer.flag and inputsp.data
! are not read.
!
! Communication, as in NPB (multi-partition: each of the p = ncells**2
! ranks owns ncells cells, see make_set): MPI_Comm_split of MPI_COMM_WORLD
! into comm_setup and two MPI_Comm_dup (comm_solve, comm_rhs); MPI_Bcast of
! niter, dt, the grid size and the timer flag; per time step copy_faces
! (6 MPI_Irecv + 6 MPI_Isend + MPI_Waitall on comm_rhs, tags EAST..TOP)
! and, for each of x, y, z, 2*(ncells-1) MPI_Irecv/MPI_Isend pairs with
! MPI_Waitall between a rank and its successor/predecessor in that
! direction (comm_solve, tag 0); MPI_Barrier before the timed loop;
! MPI_Allreduce(SUM) of the norms and MPI_Reduce(MAX) of the time.  The
! time is MPI_Wtime around the niter time steps.

program sp
   use sp_data
   implicit none
   integer :: ierr, step
   real(dp) :: t0, t, tmax, mflops
   real :: ps
   logical :: verified

   call setup_mpi()
   call choose_class()

   if (node == root) then
      write (*, '(//,a,/)') ' NAS Parallel Benchmarks 3.3 -- SP Benchmark'// &
         ' (bench-npb implementation)'
      write (*, '(a)') ' Class from the command line; arrays sized at run time'
      write (*, '(a,i4,a,i4,a,i4)') ' Size: ', grid_points(1), 'x', &
         grid_points(2), 'x', grid_points(3)
      write (*, '(a,i4,a,f11.7)') ' Iterations: ', niter, '    dt: ', dt
      write (*, '(a,i5,/)') ' Number of active processes: ', total_nodes
   end if

   call mpi_bcast(niter, 1, MPI_INTEGER, root, comm_setup, ierr)
   call mpi_bcast(dt, 1, dp_type, root, comm_setup, ierr)
   call mpi_bcast(grid_points(1), 3, MPI_INTEGER, root, comm_setup, ierr)
   call mpi_bcast(timeron, 1, MPI_LOGICAL, root, comm_setup, ierr)

   call make_set()
   call allocate_fields()
   call set_constants()
   call initialize()
   call lhsinit()
   call exact_rhs()
   call compute_buffer_size(5)

   ! one untimed time step to touch code and data, then start over
   call adi()
   call initialize()

   call mpi_barrier(comm_setup, ierr)
   t0 = mpi_wtime()

   do step = 1, niter
      if (node == root) then
         if (mod(step, 20) == 0 .or. step == 1) then
            write (*, '(a,i4)') ' Time step ', step
         end if
      end if
      call adi()
   end do

   t = mpi_wtime() - t0

   call verify(verified)

   call mpi_reduce(t, tmax, 1, dp_type, MPI_MAX, root, comm_setup, ierr)

   if (node == root) then
      if (tmax /= 0.0_dp) then
         ! NPB's operation count, in single precision as NPB computes it
         ps = real(problem_size)
         mflops = (881.174*ps**3 - 4683.91*ps**2 + 11484.5*ps - 19272.4) &
                  *real(niter)/(tmax*1000000.0_dp)
      else
         mflops = 0.0_dp
      end if
      call print_results(tmax, mflops, verified)
   end if

   call mpi_barrier(MPI_COMM_WORLD, ierr)
   call mpi_finalize(ierr)
end program sp

! RMS norm (over the interior grid size) of u minus the exact solution,
! summed over all ranks.
subroutine error_norm(rms)
   use sp_data
   implicit none
   real(dp), intent(out) :: rms(5)
   integer :: c, i, j, k, m, ii, jj, kk, d, ierr
   real(dp) :: xi, eta, zeta, u_exact(5), rms_work(5), diff

   rms_work = 0.0_dp
   do c = 1, ncells
      kk = 0
      do k = cell_low(3, c), cell_high(3, c)
         zeta = real(k, dp)*dnzm1
         jj = 0
         do j = cell_low(2, c), cell_high(2, c)
            eta = real(j, dp)*dnym1
            ii = 0
            do i = cell_low(1, c), cell_high(1, c)
               xi = real(i, dp)*dnxm1
               call exact_solution(xi, eta, zeta, u_exact)
               do m = 1, 5
                  diff = u(ii, jj, kk, m, c) - u_exact(m)
                  rms_work(m) = rms_work(m) + diff*diff
               end do
               ii = ii + 1
            end do
            jj = jj + 1
         end do
         kk = kk + 1
      end do
   end do

   call mpi_allreduce(rms_work, rms, 5, dp_type, MPI_SUM, comm_setup, ierr)
   do m = 1, 5
      do d = 1, 3
         rms(m) = rms(m)/real(grid_points(d) - 2, dp)
      end do
      rms(m) = sqrt(rms(m))
   end do
end subroutine error_norm

! RMS norm of the residual on the interior points, summed over all ranks.
subroutine rhs_norm(rms)
   use sp_data
   implicit none
   real(dp), intent(out) :: rms(5)
   integer :: c, i, j, k, m, d, ierr
   real(dp) :: rms_work(5), r

   rms_work = 0.0_dp
   do c = 1, ncells
      do k = cstart(3, c), cell_size(3, c) - cend(3, c) - 1
         do j = cstart(2, c), cell_size(2, c) - cend(2, c) - 1
            do i = cstart(1, c), cell_size(1, c) - cend(1, c) - 1
               do m = 1, 5
                  r = rhs(i, j, k, m, c)
                  rms_work(m) = rms_work(m) + r*r
               end do
            end do
         end do
      end do
   end do

   call mpi_allreduce(rms_work, rms, 5, dp_type, MPI_SUM, comm_setup, ierr)
   do m = 1, 5
      do d = 1, 3
         rms(m) = rms(m)/real(grid_points(d) - 2, dp)
      end do
      rms(m) = sqrt(rms(m))
   end do
end subroutine rhs_norm

! NPB's verification: the error norms, then the residual of the final
! solution (copy_faces computes it), against the reference values of the
! class to a relative 1e-8; prints the comparison on the root.
subroutine verify(verified)
   use sp_data
   implicit none
   logical, intent(out) :: verified
   real(dp), parameter :: tol = 1.0e-8_dp
   real(dp) :: xcrref(5), xceref(5), xcrdif(5), xcedif(5), xce(5), xcr(5)
   real(dp) :: dtref
   integer :: m

   call error_norm(xce)
   call copy_faces()
   call rhs_norm(xcr)
   xcr = xcr/dt

   verified = .false.
   if (node /= 0) return

   select case (cls)
   case ('S')
      dtref = 1.5e-2_dp
      xcrref = [2.7470315451339479e-02_dp, 1.0360746705285417e-02_dp, &
                1.6235745065095532e-02_dp, 1.5840557224455615e-02_dp, &
                3.4849040609362460e-02_dp]
      xceref = [2.7289258557377227e-05_dp, 1.0364446640837285e-05_dp, &
                1.6154798287166471e-05_dp, 1.5750704994480102e-05_dp, &
                3.4177666183390531e-05_dp]
   case ('W')
      dtref = 1.5e-3_dp
      xcrref = [0.1893253733584e-02_dp, 0.1717075447775e-03_dp, &
                0.2778153350936e-03_dp, 0.2887475409984e-03_dp, &
                0.3143611161242e-02_dp]
      xceref = [0.7542088599534e-04_dp, 0.6512852253086e-05_dp, &
                0.1049092285688e-04_dp, 0.1128838671535e-04_dp, &
                0.1212845639773e-03_dp]
   case ('A')
      dtref = 1.5e-3_dp
      xcrref = [2.4799822399300195_dp, 1.1276337964368832_dp, &
                1.5028977888770491_dp, 1.4217816211695179_dp, &
                2.1292113035138280_dp]
      xceref = [1.0900140297820550e-04_dp, 3.7343951769282091e-05_dp, &
                5.0092785406541633e-05_dp, 4.7671093939528255e-05_dp, &
                1.3621613399213001e-04_dp]
   case ('B')
      dtref = 1.0e-3_dp
      xcrref = [0.6903293579998e+02_dp, 0.3095134488084e+02_dp, &
                0.4103336647017e+02_dp, 0.3864769009604e+02_dp, &
                0.5643482272596e+02_dp]
      xceref = [0.9810006190188e-02_dp, 0.1022827905670e-02_dp, &
                0.1720597911692e-02_dp, 0.1694479428231e-02_dp, &
                0.1847456263981e-01_dp]
   case default
      dtref = 0.67e-3_dp
      xcrref = [0.5881691581829e+03_dp, 0.2454417603569e+03_dp, &
                0.3293829191851e+03_dp, 0.3081924971891e+03_dp, &
                0.4597223799176e+03_dp]
      xceref = [0.2598120500183e+00_dp, 0.2590888922315e-01_dp, &
                0.5132886416320e-01_dp, 0.4806073419454e-01_dp, &
                0.5483377491301e+00_dp]
   end select

   xcrdif = abs((xcr - xcrref)/xcrref)
   xcedif = abs((xce - xceref)/xceref)

   write (*, '(a,a)') ' Verification being performed for class ', cls
   write (*, '(a,e20.13)') ' accuracy setting for epsilon = ', tol
   verified = abs(dt - dtref) <= tol
   if (.not. verified) write (*, '(a,e15.8)') &
      ' DT does not match the reference value of ', dtref

   write (*, '(a)') ' Comparison of RMS-norms of residual'
   do m = 1, 5
      if (xcrdif(m) <= tol) then
         write (*, '(a,i2,3e20.13)') '          ', m, xcr(m), xcrref(m), xcrdif(m)
      else
         verified = .false.
         write (*, '(a,i2,3e20.13)') ' FAILURE: ', m, xcr(m), xcrref(m), xcrdif(m)
      end if
   end do
   write (*, '(a)') ' Comparison of RMS-norms of solution error'
   do m = 1, 5
      if (xcedif(m) <= tol) then
         write (*, '(a,i2,3e20.13)') '          ', m, xce(m), xceref(m), xcedif(m)
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
! prints it for the C kernels); "Time exact (s)" is our addition.
subroutine print_results(tmax, mops, verified)
   use sp_data
   implicit none
   real(dp), intent(in) :: tmax, mops
   logical, intent(in) :: verified

   write (*, '(//,a)') ' SP Benchmark Completed.'
   write (*, '(a,a24)') ' Class           = ', cls
   write (*, '(a,9x,i4,a,i4,a,i4)') ' Size            =  ', grid_points(1), &
      'x', grid_points(2), 'x', grid_points(3)
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
