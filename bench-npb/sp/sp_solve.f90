! bench-npb SP: the line solves of the ADI scheme (NPB 3.3-MPI SP's
! x_solve, y_solve, z_solve).
!
! Each grid line is cut into ncells pieces held by ncells different ranks
! (the multi-partition).  The Thomas algorithm for the penta-diagonal
! systems sweeps the cells of a row in order: a rank eliminates its piece,
! then sends the last two rows of every line of the piece (upper diagonal
! entries and right-hand sides: 22 doubles a line for the five variables)
! to its successor, which continues; the back-substitution comes back the
! other way with the solution at the first two points (10 doubles a line).
! A rank computes the lhs of its next cell, or transforms the rhs of the
! cell it has just finished, while its receive is posted
! (MPI_Irecv ... MPI_Waitall on the receive and on its previous send).
!
! Factor f of a stage: f = 0 solves the u factor for variables 1..3 at once
! (lhs 1..5), f = 1 the u+c factor for variable 4 (lhs 6..10), f = 2 the
! u-c factor for variable 5 (lhs 11..15).

! The lhs offset n and the variables m1..m2 of factor f.
subroutine factor_vars(f, n, m1, m2)
   implicit none
   integer, intent(in) :: f
   integer, intent(out) :: n, m1, m2
   n = 5*f
   if (f == 0) then
      m1 = 1
      m2 = 3
   else
      m1 = f + 3
      m2 = f + 3
   end if
end subroutine factor_vars

subroutine x_solve()
   use sp_data
   implicit none
   integer :: i, j, k, m, n, f, m1, m2, nm, p, c, stage, iend
   integer :: j0, j1, k0, k1, bsize, ierr
   integer :: requests(2), statuses(MPI_STATUS_SIZE, 2)
   real(dp) :: r1, r2, d, e, s(5), sm1, sm2, fac1, fac2
   integer, external :: factor_of

   requests = MPI_REQUEST_NULL

   ! forward elimination, cell by cell along x
   do stage = 1, ncells
      c = slice(1, stage)
      iend = cell_size(1, c) - 1
      j0 = cstart(2, c)
      j1 = cell_size(2, c) - cend(2, c) - 1
      k0 = cstart(3, c)
      k1 = cell_size(3, c) - cend(3, c) - 1
      bsize = (j1 - j0 + 1)*(k1 - k0 + 1)

      if (stage /= 1) then
         call mpi_irecv(in_buffer, 22*bsize, dp_type, predecessor(1), &
                        DEFAULT_TAG, comm_solve, requests(1), ierr)
         call lhsx(c)
         call mpi_waitall(2, requests, statuses, ierr)
         ! eliminate the two sub-diagonals of the first two rows with the
         ! last two rows of the predecessor's piece
         p = 0
         do f = 0, 2
            call factor_vars(f, n, m1, m2)
            nm = m2 - m1 + 1
            do k = k0, k1
               do j = j0, j1
                  i = 0
                  lhs(i, j, k, n + 2, c) = lhs(i, j, k, n + 2, c) - in_buffer(p + 1)*lhs(i, j, k, n + 1, c)
                  lhs(i, j, k, n + 3, c) = lhs(i, j, k, n + 3, c) - in_buffer(p + 2)*lhs(i, j, k, n + 1, c)
                  do m = m1, m2
                     rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - in_buffer(p + 3 + m - m1)*lhs(i, j, k, n + 1, c)
                  end do
                  d = in_buffer(p + 3 + nm)
                  e = in_buffer(p + 4 + nm)
                  do m = m1, m2
                     s(m) = in_buffer(p + 5 + nm + m - m1)
                  end do
                  r1 = lhs(i, j, k, n + 2, c)
                  lhs(i, j, k, n + 3, c) = lhs(i, j, k, n + 3, c) - d*r1
                  lhs(i, j, k, n + 4, c) = lhs(i, j, k, n + 4, c) - e*r1
                  do m = m1, m2
                     rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - s(m)*r1
                  end do
                  r2 = lhs(i + 1, j, k, n + 1, c)
                  lhs(i + 1, j, k, n + 2, c) = lhs(i + 1, j, k, n + 2, c) - d*r2
                  lhs(i + 1, j, k, n + 3, c) = lhs(i + 1, j, k, n + 3, c) - e*r2
                  do m = m1, m2
                     rhs(i + 1, j, k, m, c) = rhs(i + 1, j, k, m, c) - s(m)*r2
                  end do
                  p = p + 2*(2 + nm)
               end do
            end do
         end do
      else
         call lhsx(c)
      end if

      ! Thomas algorithm on this cell's piece of each line
      do f = 0, 2
         call factor_vars(f, n, m1, m2)
         do k = k0, k1
            do j = j0, j1
               do i = 0, iend - 2
                  fac1 = 1.0_dp/lhs(i, j, k, n + 3, c)
                  lhs(i, j, k, n + 4, c) = fac1*lhs(i, j, k, n + 4, c)
                  lhs(i, j, k, n + 5, c) = fac1*lhs(i, j, k, n + 5, c)
                  do m = m1, m2
                     rhs(i, j, k, m, c) = fac1*rhs(i, j, k, m, c)
                  end do
                  lhs(i + 1, j, k, n + 3, c) = lhs(i + 1, j, k, n + 3, c) &
                                               - lhs(i + 1, j, k, n + 2, c)*lhs(i, j, k, n + 4, c)
                  lhs(i + 1, j, k, n + 4, c) = lhs(i + 1, j, k, n + 4, c) &
                                               - lhs(i + 1, j, k, n + 2, c)*lhs(i, j, k, n + 5, c)
                  do m = m1, m2
                     rhs(i + 1, j, k, m, c) = rhs(i + 1, j, k, m, c) &
                                              - lhs(i + 1, j, k, n + 2, c)*rhs(i, j, k, m, c)
                  end do
                  lhs(i + 2, j, k, n + 2, c) = lhs(i + 2, j, k, n + 2, c) &
                                               - lhs(i + 2, j, k, n + 1, c)*lhs(i, j, k, n + 4, c)
                  lhs(i + 2, j, k, n + 3, c) = lhs(i + 2, j, k, n + 3, c) &
                                               - lhs(i + 2, j, k, n + 1, c)*lhs(i, j, k, n + 5, c)
                  do m = m1, m2
                     rhs(i + 2, j, k, m, c) = rhs(i + 2, j, k, m, c) &
                                              - lhs(i + 2, j, k, n + 1, c)*rhs(i, j, k, m, c)
                  end do
               end do
            end do
         end do
         ! the last two rows, then the last one scaled
         i = iend - 1
         do k = k0, k1
            do j = j0, j1
               fac1 = 1.0_dp/lhs(i, j, k, n + 3, c)
               lhs(i, j, k, n + 4, c) = fac1*lhs(i, j, k, n + 4, c)
               lhs(i, j, k, n + 5, c) = fac1*lhs(i, j, k, n + 5, c)
               do m = m1, m2
                  rhs(i, j, k, m, c) = fac1*rhs(i, j, k, m, c)
               end do
               lhs(i + 1, j, k, n + 3, c) = lhs(i + 1, j, k, n + 3, c) &
                                            - lhs(i + 1, j, k, n + 2, c)*lhs(i, j, k, n + 4, c)
               lhs(i + 1, j, k, n + 4, c) = lhs(i + 1, j, k, n + 4, c) &
                                            - lhs(i + 1, j, k, n + 2, c)*lhs(i, j, k, n + 5, c)
               do m = m1, m2
                  rhs(i + 1, j, k, m, c) = rhs(i + 1, j, k, m, c) &
                                           - lhs(i + 1, j, k, n + 2, c)*rhs(i, j, k, m, c)
               end do
               fac2 = 1.0_dp/lhs(i + 1, j, k, n + 3, c)
               lhs(i + 1, j, k, n + 4, c) = fac2*lhs(i + 1, j, k, n + 4, c)
               lhs(i + 1, j, k, n + 5, c) = fac2*lhs(i + 1, j, k, n + 5, c)
               do m = m1, m2
                  rhs(i + 1, j, k, m, c) = fac2*rhs(i + 1, j, k, m, c)
               end do
            end do
         end do
      end do

      ! the last two rows of every line go to the next cell's rank
      if (stage /= ncells) then
         p = 0
         do f = 0, 2
            call factor_vars(f, n, m1, m2)
            do k = k0, k1
               do j = j0, j1
                  do i = iend - 1, iend
                     out_buffer(p + 1) = lhs(i, j, k, n + 4, c)
                     out_buffer(p + 2) = lhs(i, j, k, n + 5, c)
                     p = p + 2
                     do m = m1, m2
                        p = p + 1
                        out_buffer(p) = rhs(i, j, k, m, c)
                     end do
                  end do
               end do
            end do
         end do
         call mpi_isend(out_buffer, 22*bsize, dp_type, successor(1), &
                        DEFAULT_TAG, comm_solve, requests(2), ierr)
      end if
   end do

   ! back-substitution, cells in reverse order
   do stage = ncells, 1, -1
      c = slice(1, stage)
      iend = cell_size(1, c) - 1
      j0 = cstart(2, c)
      j1 = cell_size(2, c) - cend(2, c) - 1
      k0 = cstart(3, c)
      k1 = cell_size(3, c) - cend(3, c) - 1
      bsize = (j1 - j0 + 1)*(k1 - k0 + 1)

      if (stage /= ncells) then
         call mpi_irecv(in_buffer, 10*bsize, dp_type, successor(1), &
                        DEFAULT_TAG, comm_solve, requests(1), ierr)
         call ninvr(slice(1, stage + 1))
         call mpi_waitall(2, requests, statuses, ierr)
         ! the solution at the successor's first two points
         p = 0
         i = iend
         do m = 1, 5
            n = factor_of(m)
            do k = k0, k1
               do j = j0, j1
                  sm1 = in_buffer(p + 1)
                  sm2 = in_buffer(p + 2)
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) &
                                       - lhs(i, j, k, n + 4, c)*sm1 - lhs(i, j, k, n + 5, c)*sm2
                  rhs(i - 1, j, k, m, c) = rhs(i - 1, j, k, m, c) &
                                           - lhs(i - 1, j, k, n + 4, c)*rhs(i, j, k, m, c) &
                                           - lhs(i - 1, j, k, n + 5, c)*sm1
                  p = p + 2
               end do
            end do
         end do
      else
         i = iend - 1
         do m = 1, 5
            n = factor_of(m)
            do k = k0, k1
               do j = j0, j1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) &
                                       - lhs(i, j, k, n + 4, c)*rhs(i + 1, j, k, m, c)
               end do
            end do
         end do
      end if

      do m = 1, 5
         n = factor_of(m)
         do k = k0, k1
            do j = j0, j1
               do i = iend - 2, 0, -1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) &
                                       - lhs(i, j, k, n + 4, c)*rhs(i + 1, j, k, m, c) &
                                       - lhs(i, j, k, n + 5, c)*rhs(i + 2, j, k, m, c)
               end do
            end do
         end do
      end do

      if (stage /= 1) then
         p = 0
         do m = 1, 5
            do k = k0, k1
               do j = j0, j1
                  out_buffer(p + 1) = rhs(0, j, k, m, c)
                  out_buffer(p + 2) = rhs(1, j, k, m, c)
                  p = p + 2
               end do
            end do
         end do
         call mpi_isend(out_buffer, 10*bsize, dp_type, predecessor(1), &
                        DEFAULT_TAG, comm_solve, requests(2), ierr)
      end if

      if (stage == 1) call ninvr(c)
   end do
end subroutine x_solve

subroutine y_solve()
   use sp_data
   implicit none
   integer :: i, j, k, m, n, f, m1, m2, nm, p, c, stage, jend
   integer :: i0, i1, k0, k1, bsize, ierr
   integer :: requests(2), statuses(MPI_STATUS_SIZE, 2)
   real(dp) :: r1, r2, d, e, s(5), sm1, sm2, fac1, fac2
   integer, external :: factor_of

   requests = MPI_REQUEST_NULL

   do stage = 1, ncells
      c = slice(2, stage)
      jend = cell_size(2, c) - 1
      i0 = cstart(1, c)
      i1 = cell_size(1, c) - cend(1, c) - 1
      k0 = cstart(3, c)
      k1 = cell_size(3, c) - cend(3, c) - 1
      bsize = (i1 - i0 + 1)*(k1 - k0 + 1)

      if (stage /= 1) then
         call mpi_irecv(in_buffer, 22*bsize, dp_type, predecessor(2), &
                        DEFAULT_TAG, comm_solve, requests(1), ierr)
         call lhsy(c)
         call mpi_waitall(2, requests, statuses, ierr)
         p = 0
         j = 0
         do f = 0, 2
            call factor_vars(f, n, m1, m2)
            nm = m2 - m1 + 1
            do k = k0, k1
               do i = i0, i1
                  lhs(i, j, k, n + 2, c) = lhs(i, j, k, n + 2, c) - in_buffer(p + 1)*lhs(i, j, k, n + 1, c)
                  lhs(i, j, k, n + 3, c) = lhs(i, j, k, n + 3, c) - in_buffer(p + 2)*lhs(i, j, k, n + 1, c)
                  do m = m1, m2
                     rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - in_buffer(p + 3 + m - m1)*lhs(i, j, k, n + 1, c)
                  end do
                  d = in_buffer(p + 3 + nm)
                  e = in_buffer(p + 4 + nm)
                  do m = m1, m2
                     s(m) = in_buffer(p + 5 + nm + m - m1)
                  end do
                  r1 = lhs(i, j, k, n + 2, c)
                  lhs(i, j, k, n + 3, c) = lhs(i, j, k, n + 3, c) - d*r1
                  lhs(i, j, k, n + 4, c) = lhs(i, j, k, n + 4, c) - e*r1
                  do m = m1, m2
                     rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - s(m)*r1
                  end do
                  r2 = lhs(i, j + 1, k, n + 1, c)
                  lhs(i, j + 1, k, n + 2, c) = lhs(i, j + 1, k, n + 2, c) - d*r2
                  lhs(i, j + 1, k, n + 3, c) = lhs(i, j + 1, k, n + 3, c) - e*r2
                  do m = m1, m2
                     rhs(i, j + 1, k, m, c) = rhs(i, j + 1, k, m, c) - s(m)*r2
                  end do
                  p = p + 2*(2 + nm)
               end do
            end do
         end do
      else
         call lhsy(c)
      end if

      do f = 0, 2
         call factor_vars(f, n, m1, m2)
         do k = k0, k1
            do j = 0, jend - 2
               do i = i0, i1
                  fac1 = 1.0_dp/lhs(i, j, k, n + 3, c)
                  lhs(i, j, k, n + 4, c) = fac1*lhs(i, j, k, n + 4, c)
                  lhs(i, j, k, n + 5, c) = fac1*lhs(i, j, k, n + 5, c)
                  do m = m1, m2
                     rhs(i, j, k, m, c) = fac1*rhs(i, j, k, m, c)
                  end do
                  lhs(i, j + 1, k, n + 3, c) = lhs(i, j + 1, k, n + 3, c) &
                                               - lhs(i, j + 1, k, n + 2, c)*lhs(i, j, k, n + 4, c)
                  lhs(i, j + 1, k, n + 4, c) = lhs(i, j + 1, k, n + 4, c) &
                                               - lhs(i, j + 1, k, n + 2, c)*lhs(i, j, k, n + 5, c)
                  do m = m1, m2
                     rhs(i, j + 1, k, m, c) = rhs(i, j + 1, k, m, c) &
                                              - lhs(i, j + 1, k, n + 2, c)*rhs(i, j, k, m, c)
                  end do
                  lhs(i, j + 2, k, n + 2, c) = lhs(i, j + 2, k, n + 2, c) &
                                               - lhs(i, j + 2, k, n + 1, c)*lhs(i, j, k, n + 4, c)
                  lhs(i, j + 2, k, n + 3, c) = lhs(i, j + 2, k, n + 3, c) &
                                               - lhs(i, j + 2, k, n + 1, c)*lhs(i, j, k, n + 5, c)
                  do m = m1, m2
                     rhs(i, j + 2, k, m, c) = rhs(i, j + 2, k, m, c) &
                                              - lhs(i, j + 2, k, n + 1, c)*rhs(i, j, k, m, c)
                  end do
               end do
            end do
         end do
         j = jend - 1
         do k = k0, k1
            do i = i0, i1
               fac1 = 1.0_dp/lhs(i, j, k, n + 3, c)
               lhs(i, j, k, n + 4, c) = fac1*lhs(i, j, k, n + 4, c)
               lhs(i, j, k, n + 5, c) = fac1*lhs(i, j, k, n + 5, c)
               do m = m1, m2
                  rhs(i, j, k, m, c) = fac1*rhs(i, j, k, m, c)
               end do
               lhs(i, j + 1, k, n + 3, c) = lhs(i, j + 1, k, n + 3, c) &
                                            - lhs(i, j + 1, k, n + 2, c)*lhs(i, j, k, n + 4, c)
               lhs(i, j + 1, k, n + 4, c) = lhs(i, j + 1, k, n + 4, c) &
                                            - lhs(i, j + 1, k, n + 2, c)*lhs(i, j, k, n + 5, c)
               do m = m1, m2
                  rhs(i, j + 1, k, m, c) = rhs(i, j + 1, k, m, c) &
                                           - lhs(i, j + 1, k, n + 2, c)*rhs(i, j, k, m, c)
               end do
               fac2 = 1.0_dp/lhs(i, j + 1, k, n + 3, c)
               lhs(i, j + 1, k, n + 4, c) = fac2*lhs(i, j + 1, k, n + 4, c)
               lhs(i, j + 1, k, n + 5, c) = fac2*lhs(i, j + 1, k, n + 5, c)
               do m = m1, m2
                  rhs(i, j + 1, k, m, c) = fac2*rhs(i, j + 1, k, m, c)
               end do
            end do
         end do
      end do

      if (stage /= ncells) then
         p = 0
         do f = 0, 2
            call factor_vars(f, n, m1, m2)
            do k = k0, k1
               do i = i0, i1
                  do j = jend - 1, jend
                     out_buffer(p + 1) = lhs(i, j, k, n + 4, c)
                     out_buffer(p + 2) = lhs(i, j, k, n + 5, c)
                     p = p + 2
                     do m = m1, m2
                        p = p + 1
                        out_buffer(p) = rhs(i, j, k, m, c)
                     end do
                  end do
               end do
            end do
         end do
         call mpi_isend(out_buffer, 22*bsize, dp_type, successor(2), &
                        DEFAULT_TAG, comm_solve, requests(2), ierr)
      end if
   end do

   do stage = ncells, 1, -1
      c = slice(2, stage)
      jend = cell_size(2, c) - 1
      i0 = cstart(1, c)
      i1 = cell_size(1, c) - cend(1, c) - 1
      k0 = cstart(3, c)
      k1 = cell_size(3, c) - cend(3, c) - 1
      bsize = (i1 - i0 + 1)*(k1 - k0 + 1)

      if (stage /= ncells) then
         call mpi_irecv(in_buffer, 10*bsize, dp_type, successor(2), &
                        DEFAULT_TAG, comm_solve, requests(1), ierr)
         call pinvr(slice(2, stage + 1))
         call mpi_waitall(2, requests, statuses, ierr)
         p = 0
         j = jend
         do m = 1, 5
            n = factor_of(m)
            do k = k0, k1
               do i = i0, i1
                  sm1 = in_buffer(p + 1)
                  sm2 = in_buffer(p + 2)
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) &
                                       - lhs(i, j, k, n + 4, c)*sm1 - lhs(i, j, k, n + 5, c)*sm2
                  rhs(i, j - 1, k, m, c) = rhs(i, j - 1, k, m, c) &
                                           - lhs(i, j - 1, k, n + 4, c)*rhs(i, j, k, m, c) &
                                           - lhs(i, j - 1, k, n + 5, c)*sm1
                  p = p + 2
               end do
            end do
         end do
      else
         j = jend - 1
         do m = 1, 5
            n = factor_of(m)
            do k = k0, k1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) &
                                       - lhs(i, j, k, n + 4, c)*rhs(i, j + 1, k, m, c)
               end do
            end do
         end do
      end if

      do m = 1, 5
         n = factor_of(m)
         do k = k0, k1
            do j = jend - 2, 0, -1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) &
                                       - lhs(i, j, k, n + 4, c)*rhs(i, j + 1, k, m, c) &
                                       - lhs(i, j, k, n + 5, c)*rhs(i, j + 2, k, m, c)
               end do
            end do
         end do
      end do

      if (stage /= 1) then
         p = 0
         do m = 1, 5
            do k = k0, k1
               do i = i0, i1
                  out_buffer(p + 1) = rhs(i, 0, k, m, c)
                  out_buffer(p + 2) = rhs(i, 1, k, m, c)
                  p = p + 2
               end do
            end do
         end do
         call mpi_isend(out_buffer, 10*bsize, dp_type, predecessor(2), &
                        DEFAULT_TAG, comm_solve, requests(2), ierr)
      end if

      if (stage == 1) call pinvr(c)
   end do
end subroutine y_solve

subroutine z_solve()
   use sp_data
   implicit none
   integer :: i, j, k, m, n, f, m1, m2, nm, p, c, stage, kend
   integer :: i0, i1, j0, j1, bsize, ierr
   integer :: requests(2), statuses(MPI_STATUS_SIZE, 2)
   real(dp) :: r1, r2, d, e, s(5), sm1, sm2, fac1, fac2
   integer, external :: factor_of

   requests = MPI_REQUEST_NULL

   do stage = 1, ncells
      c = slice(3, stage)
      kend = cell_size(3, c) - 1
      i0 = cstart(1, c)
      i1 = cell_size(1, c) - cend(1, c) - 1
      j0 = cstart(2, c)
      j1 = cell_size(2, c) - cend(2, c) - 1
      bsize = (i1 - i0 + 1)*(j1 - j0 + 1)

      if (stage /= 1) then
         call mpi_irecv(in_buffer, 22*bsize, dp_type, predecessor(3), &
                        DEFAULT_TAG, comm_solve, requests(1), ierr)
         call lhsz(c)
         call mpi_waitall(2, requests, statuses, ierr)
         p = 0
         k = 0
         do f = 0, 2
            call factor_vars(f, n, m1, m2)
            nm = m2 - m1 + 1
            do j = j0, j1
               do i = i0, i1
                  lhs(i, j, k, n + 2, c) = lhs(i, j, k, n + 2, c) - in_buffer(p + 1)*lhs(i, j, k, n + 1, c)
                  lhs(i, j, k, n + 3, c) = lhs(i, j, k, n + 3, c) - in_buffer(p + 2)*lhs(i, j, k, n + 1, c)
                  do m = m1, m2
                     rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - in_buffer(p + 3 + m - m1)*lhs(i, j, k, n + 1, c)
                  end do
                  d = in_buffer(p + 3 + nm)
                  e = in_buffer(p + 4 + nm)
                  do m = m1, m2
                     s(m) = in_buffer(p + 5 + nm + m - m1)
                  end do
                  r1 = lhs(i, j, k, n + 2, c)
                  lhs(i, j, k, n + 3, c) = lhs(i, j, k, n + 3, c) - d*r1
                  lhs(i, j, k, n + 4, c) = lhs(i, j, k, n + 4, c) - e*r1
                  do m = m1, m2
                     rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - s(m)*r1
                  end do
                  r2 = lhs(i, j, k + 1, n + 1, c)
                  lhs(i, j, k + 1, n + 2, c) = lhs(i, j, k + 1, n + 2, c) - d*r2
                  lhs(i, j, k + 1, n + 3, c) = lhs(i, j, k + 1, n + 3, c) - e*r2
                  do m = m1, m2
                     rhs(i, j, k + 1, m, c) = rhs(i, j, k + 1, m, c) - s(m)*r2
                  end do
                  p = p + 2*(2 + nm)
               end do
            end do
         end do
      else
         call lhsz(c)
      end if

      do f = 0, 2
         call factor_vars(f, n, m1, m2)
         do k = 0, kend - 2
            do j = j0, j1
               do i = i0, i1
                  fac1 = 1.0_dp/lhs(i, j, k, n + 3, c)
                  lhs(i, j, k, n + 4, c) = fac1*lhs(i, j, k, n + 4, c)
                  lhs(i, j, k, n + 5, c) = fac1*lhs(i, j, k, n + 5, c)
                  do m = m1, m2
                     rhs(i, j, k, m, c) = fac1*rhs(i, j, k, m, c)
                  end do
                  lhs(i, j, k + 1, n + 3, c) = lhs(i, j, k + 1, n + 3, c) &
                                               - lhs(i, j, k + 1, n + 2, c)*lhs(i, j, k, n + 4, c)
                  lhs(i, j, k + 1, n + 4, c) = lhs(i, j, k + 1, n + 4, c) &
                                               - lhs(i, j, k + 1, n + 2, c)*lhs(i, j, k, n + 5, c)
                  do m = m1, m2
                     rhs(i, j, k + 1, m, c) = rhs(i, j, k + 1, m, c) &
                                              - lhs(i, j, k + 1, n + 2, c)*rhs(i, j, k, m, c)
                  end do
                  lhs(i, j, k + 2, n + 2, c) = lhs(i, j, k + 2, n + 2, c) &
                                               - lhs(i, j, k + 2, n + 1, c)*lhs(i, j, k, n + 4, c)
                  lhs(i, j, k + 2, n + 3, c) = lhs(i, j, k + 2, n + 3, c) &
                                               - lhs(i, j, k + 2, n + 1, c)*lhs(i, j, k, n + 5, c)
                  do m = m1, m2
                     rhs(i, j, k + 2, m, c) = rhs(i, j, k + 2, m, c) &
                                              - lhs(i, j, k + 2, n + 1, c)*rhs(i, j, k, m, c)
                  end do
               end do
            end do
         end do
         k = kend - 1
         do j = j0, j1
            do i = i0, i1
               fac1 = 1.0_dp/lhs(i, j, k, n + 3, c)
               lhs(i, j, k, n + 4, c) = fac1*lhs(i, j, k, n + 4, c)
               lhs(i, j, k, n + 5, c) = fac1*lhs(i, j, k, n + 5, c)
               do m = m1, m2
                  rhs(i, j, k, m, c) = fac1*rhs(i, j, k, m, c)
               end do
               lhs(i, j, k + 1, n + 3, c) = lhs(i, j, k + 1, n + 3, c) &
                                            - lhs(i, j, k + 1, n + 2, c)*lhs(i, j, k, n + 4, c)
               lhs(i, j, k + 1, n + 4, c) = lhs(i, j, k + 1, n + 4, c) &
                                            - lhs(i, j, k + 1, n + 2, c)*lhs(i, j, k, n + 5, c)
               do m = m1, m2
                  rhs(i, j, k + 1, m, c) = rhs(i, j, k + 1, m, c) &
                                           - lhs(i, j, k + 1, n + 2, c)*rhs(i, j, k, m, c)
               end do
               fac2 = 1.0_dp/lhs(i, j, k + 1, n + 3, c)
               lhs(i, j, k + 1, n + 4, c) = fac2*lhs(i, j, k + 1, n + 4, c)
               lhs(i, j, k + 1, n + 5, c) = fac2*lhs(i, j, k + 1, n + 5, c)
               do m = m1, m2
                  rhs(i, j, k + 1, m, c) = fac2*rhs(i, j, k + 1, m, c)
               end do
            end do
         end do
      end do

      if (stage /= ncells) then
         p = 0
         do f = 0, 2
            call factor_vars(f, n, m1, m2)
            do j = j0, j1
               do i = i0, i1
                  do k = kend - 1, kend
                     out_buffer(p + 1) = lhs(i, j, k, n + 4, c)
                     out_buffer(p + 2) = lhs(i, j, k, n + 5, c)
                     p = p + 2
                     do m = m1, m2
                        p = p + 1
                        out_buffer(p) = rhs(i, j, k, m, c)
                     end do
                  end do
               end do
            end do
         end do
         call mpi_isend(out_buffer, 22*bsize, dp_type, successor(3), &
                        DEFAULT_TAG, comm_solve, requests(2), ierr)
      end if
   end do

   do stage = ncells, 1, -1
      c = slice(3, stage)
      kend = cell_size(3, c) - 1
      i0 = cstart(1, c)
      i1 = cell_size(1, c) - cend(1, c) - 1
      j0 = cstart(2, c)
      j1 = cell_size(2, c) - cend(2, c) - 1
      bsize = (i1 - i0 + 1)*(j1 - j0 + 1)

      if (stage /= ncells) then
         call mpi_irecv(in_buffer, 10*bsize, dp_type, successor(3), &
                        DEFAULT_TAG, comm_solve, requests(1), ierr)
         call tzetar(slice(3, stage + 1))
         call mpi_waitall(2, requests, statuses, ierr)
         p = 0
         k = kend
         do m = 1, 5
            n = factor_of(m)
            do j = j0, j1
               do i = i0, i1
                  sm1 = in_buffer(p + 1)
                  sm2 = in_buffer(p + 2)
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) &
                                       - lhs(i, j, k, n + 4, c)*sm1 - lhs(i, j, k, n + 5, c)*sm2
                  rhs(i, j, k - 1, m, c) = rhs(i, j, k - 1, m, c) &
                                           - lhs(i, j, k - 1, n + 4, c)*rhs(i, j, k, m, c) &
                                           - lhs(i, j, k - 1, n + 5, c)*sm1
                  p = p + 2
               end do
            end do
         end do
      else
         k = kend - 1
         do m = 1, 5
            n = factor_of(m)
            do j = j0, j1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) &
                                       - lhs(i, j, k, n + 4, c)*rhs(i, j, k + 1, m, c)
               end do
            end do
         end do
      end if

      do m = 1, 5
         n = factor_of(m)
         do k = kend - 2, 0, -1
            do j = j0, j1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) &
                                       - lhs(i, j, k, n + 4, c)*rhs(i, j, k + 1, m, c) &
                                       - lhs(i, j, k, n + 5, c)*rhs(i, j, k + 2, m, c)
               end do
            end do
         end do
      end do

      if (stage /= 1) then
         p = 0
         do m = 1, 5
            do j = j0, j1
               do i = i0, i1
                  out_buffer(p + 1) = rhs(i, j, 0, m, c)
                  out_buffer(p + 2) = rhs(i, j, 1, m, c)
                  p = p + 2
               end do
            end do
         end do
         call mpi_isend(out_buffer, 10*bsize, dp_type, predecessor(3), &
                        DEFAULT_TAG, comm_solve, requests(2), ierr)
      end if

      if (stage == 1) call tzetar(c)
   end do
end subroutine z_solve
