! bench-npb BT: the right-hand side.  exact_rhs (the forcing term from the
! exact solution, once), copy_faces (the ghost layers of u from the six
! neighbouring ranks, then compute_rhs) and add (u := u + the update).
!
! The flux and dissipation terms of NPB's compute_rhs and exact_rhs are
! the same in the three directions up to which velocity component is
! "along" the direction: here they are written once, for direction d with
! its momentum component n = d + 1, and applied for d = 1, 2, 3 in NPB's
! order (x flux, x dissipation, y flux, ...), so every point sums its terms
! in NPB's order.

! forcing := minus the residual of the exact solution on the interior of
! every cell, zero on the grid boundary.
subroutine exact_rhs()
   use bt_data
   implicit none
   integer :: c, d, n, ta, tb, a, b, l, lo, hi, i, j, k, m, r, lp, lm
   real(dp) :: dtemp(5), dtpp, xi, eta, zeta, f
   real(dp), allocatable :: ue(:, :), buf(:, :), cuf(:), q(:)

   allocate (ue(-2:maxdim + 1, 5), buf(-2:maxdim + 1, 5), cuf(-2:maxdim + 1), &
             q(-2:maxdim + 1))
   ue = 0.0_dp
   buf = 0.0_dp
   cuf = 0.0_dp
   q = 0.0_dp

   do c = 1, ncells
      forcing(:, :, :, :, c) = 0.0_dp

      do d = 1, 3
         n = d + 1
         call across(d, ta, tb)
         do b = cstart(tb, c), cell_size(tb, c) - cend(tb, c) - 1
            do a = cstart(ta, c), cell_size(ta, c) - cend(ta, c) - 1
               ! the exact solution along the line, ghosts included
               lo = -2*(1 - cstart(d, c))
               hi = cell_size(d, c) + 1 - 2*cend(d, c)
               do l = lo, hi
                  call ijk(d, l, a, b, i, j, k)
                  xi = dble(i + cell_low(1, c))*dnm1(1)
                  eta = dble(j + cell_low(2, c))*dnm1(2)
                  zeta = dble(k + cell_low(3, c))*dnm1(3)
                  call exact_solution(xi, eta, zeta, dtemp)
                  ue(l, :) = dtemp
                  dtpp = 1.0_dp/dtemp(1)
                  buf(l, 2:5) = dtpp*dtemp(2:5)
                  cuf(l) = buf(l, n)*buf(l, n)
                  select case (d)
                  case (1)
                     buf(l, 1) = cuf(l) + buf(l, 3)*buf(l, 3) + buf(l, 4)*buf(l, 4)
                  case (2)
                     buf(l, 1) = cuf(l) + buf(l, 2)*buf(l, 2) + buf(l, 4)*buf(l, 4)
                  case default
                     buf(l, 1) = cuf(l) + buf(l, 2)*buf(l, 2) + buf(l, 3)*buf(l, 3)
                  end select
                  q(l) = 0.5_dp*(buf(l, 2)*ue(l, 2) + buf(l, 3)*ue(l, 3) &
                                 + buf(l, 4)*ue(l, 4))
               end do

               ! flux differences
               do l = cstart(d, c), cell_size(d, c) - cend(d, c) - 1
                  call ijk(d, l, a, b, i, j, k)
                  lp = l + 1
                  lm = l - 1
                  forcing(1, i, j, k, c) = forcing(1, i, j, k, c) &
                                           - t2(d)*(ue(lp, n) - ue(lm, n)) &
                                           + dt1(1, d)*(ue(lp, 1) - 2.0_dp*ue(l, 1) + ue(lm, 1))
                  do r = 2, 4
                     if (r == n) then
                        forcing(r, i, j, k, c) = forcing(r, i, j, k, c) - t2(d)*( &
                                                 (ue(lp, r)*buf(lp, n) + c2*(ue(lp, 5) - q(lp))) &
                                                 - (ue(lm, r)*buf(lm, n) + c2*(ue(lm, 5) - q(lm)))) &
                                                 + con(1, d)*(buf(lp, r) - 2.0_dp*buf(l, r) + buf(lm, r)) &
                                                 + dt1(r, d)*(ue(lp, r) - 2.0_dp*ue(l, r) + ue(lm, r))
                     else
                        forcing(r, i, j, k, c) = forcing(r, i, j, k, c) - t2(d)*( &
                                                 ue(lp, r)*buf(lp, n) - ue(lm, r)*buf(lm, n)) &
                                                 + con(2, d)*(buf(lp, r) - 2.0_dp*buf(l, r) + buf(lm, r)) &
                                                 + dt1(r, d)*(ue(lp, r) - 2.0_dp*ue(l, r) + ue(lm, r))
                     end if
                  end do
                  forcing(5, i, j, k, c) = forcing(5, i, j, k, c) - t2(d)*( &
                                           buf(lp, n)*(c1*ue(lp, 5) - c2*q(lp)) &
                                           - buf(lm, n)*(c1*ue(lm, 5) - c2*q(lm))) &
                                           + 0.5_dp*con(3, d)*(buf(lp, 1) - 2.0_dp*buf(l, 1) + buf(lm, 1)) &
                                           + con(4, d)*(cuf(lp) - 2.0_dp*cuf(l) + cuf(lm)) &
                                           + con(5, d)*(buf(lp, 5) - 2.0_dp*buf(l, 5) + buf(lm, 5)) &
                                           + dt1(5, d)*(ue(lp, 5) - 2.0_dp*ue(l, 5) + ue(lm, 5))
               end do

               ! fourth-order dissipation, one-sided next to the boundary
               do l = cstart(d, c), cell_size(d, c) - cend(d, c) - 1
                  call ijk(d, l, a, b, i, j, k)
                  do m = 1, 5
                     f = dissipation(cstart(d, c), cend(d, c), cell_size(d, c), l, &
                                     ue(l - 2:l + 2, m))
                     forcing(m, i, j, k, c) = forcing(m, i, j, k, c) - dssp*f
                  end do
               end do
            end do
         end do
      end do

      do k = cstart(3, c), cell_size(3, c) - cend(3, c) - 1
         do j = cstart(2, c), cell_size(2, c) - cend(2, c) - 1
            do i = cstart(1, c), cell_size(1, c) - cend(1, c) - 1
               forcing(:, i, j, k, c) = -1.0_dp*forcing(:, i, j, k, c)
            end do
         end do
      end do
   end do

contains

   ! The fourth difference at position l of a line of s points whose first
   ! (st = 1) or last (en = 1) point is on the grid boundary; v holds the
   ! values at l-2..l+2 (those beyond the boundary are not used).
   pure function dissipation(st, en, s, l, v) result(f)
      integer, intent(in) :: st, en, s, l
      real(dp), intent(in) :: v(-2:2)
      real(dp) :: f
      if (st == 1 .and. l == 1) then
         f = 5.0_dp*v(0) - 4.0_dp*v(1) + v(2)
      else if (st == 1 .and. l == 2) then
         f = -4.0_dp*v(-1) + 6.0_dp*v(0) - 4.0_dp*v(1) + v(2)
      else if (en == 1 .and. l == s - 3) then
         f = v(-2) - 4.0_dp*v(-1) + 6.0_dp*v(0) - 4.0_dp*v(1)
      else if (en == 1 .and. l == s - 2) then
         f = v(-2) - 4.0_dp*v(-1) + 5.0_dp*v(0)
      else
         f = v(-2) - 4.0_dp*v(-1) + 6.0_dp*v(0) - 4.0_dp*v(1) + v(2)
      end if
   end function dissipation
end subroutine exact_rhs

! Fills the two ghost layers of u on each face of each cell from the rank
! owning the neighbouring cell, then computes the right-hand side.  As NPB:
! the faces of all cells going to one neighbour travel in one message;
! six MPI_Irecv (from successor/predecessor in x, y, z, tags WEST, EAST,
! SOUTH, NORTH, BOTTOM, TOP), six MPI_Isend, one MPI_Waitall, on comm_rhs.
subroutine copy_faces()
   use bt_data
   implicit none
   integer :: c, p(0:5), req(0:11), ierr
   integer :: statuses(MPI_STATUS_SIZE, 0:11)

   if (no_nodes == 1) then
      call compute_rhs()
      return
   end if

   p = 0
   do c = 1, ncells
      ! to the eastern (x), northern (y) and top (z) neighbours the last
      ! two layers, to the western, southern and bottom ones the first two
      if (cell_coord(1, c) /= ncells) &
         call pack(c, 1, cell_size(1, c) - 2, face_out, face_send(0), p(0))
      if (cell_coord(1, c) /= 1) call pack(c, 1, 0, face_out, face_send(1), p(1))
      if (cell_coord(2, c) /= ncells) &
         call pack(c, 2, cell_size(2, c) - 2, face_out, face_send(2), p(2))
      if (cell_coord(2, c) /= 1) call pack(c, 2, 0, face_out, face_send(3), p(3))
      if (cell_coord(3, c) /= ncells) &
         call pack(c, 3, cell_size(3, c) - 2, face_out, face_send(4), p(4))
      if (cell_coord(3, c) /= 1) call pack(c, 3, 0, face_out, face_send(5), p(5))
   end do

   call mpi_irecv(face_in(face_recv(0)), face_len(0), MPI_DOUBLE_PRECISION, &
                  successor(1), WEST, comm_rhs, req(0), ierr)
   call mpi_irecv(face_in(face_recv(1)), face_len(1), MPI_DOUBLE_PRECISION, &
                  predecessor(1), EAST, comm_rhs, req(1), ierr)
   call mpi_irecv(face_in(face_recv(2)), face_len(2), MPI_DOUBLE_PRECISION, &
                  successor(2), SOUTH, comm_rhs, req(2), ierr)
   call mpi_irecv(face_in(face_recv(3)), face_len(3), MPI_DOUBLE_PRECISION, &
                  predecessor(2), NORTH, comm_rhs, req(3), ierr)
   call mpi_irecv(face_in(face_recv(4)), face_len(4), MPI_DOUBLE_PRECISION, &
                  successor(3), BOTTOM, comm_rhs, req(4), ierr)
   call mpi_irecv(face_in(face_recv(5)), face_len(5), MPI_DOUBLE_PRECISION, &
                  predecessor(3), TOP, comm_rhs, req(5), ierr)

   call mpi_isend(face_out(face_send(0)), face_len(0), MPI_DOUBLE_PRECISION, &
                  successor(1), EAST, comm_rhs, req(6), ierr)
   call mpi_isend(face_out(face_send(1)), face_len(1), MPI_DOUBLE_PRECISION, &
                  predecessor(1), WEST, comm_rhs, req(7), ierr)
   call mpi_isend(face_out(face_send(2)), face_len(2), MPI_DOUBLE_PRECISION, &
                  successor(2), NORTH, comm_rhs, req(8), ierr)
   call mpi_isend(face_out(face_send(3)), face_len(3), MPI_DOUBLE_PRECISION, &
                  predecessor(2), SOUTH, comm_rhs, req(9), ierr)
   call mpi_isend(face_out(face_send(4)), face_len(4), MPI_DOUBLE_PRECISION, &
                  successor(3), TOP, comm_rhs, req(10), ierr)
   call mpi_isend(face_out(face_send(5)), face_len(5), MPI_DOUBLE_PRECISION, &
                  predecessor(3), BOTTOM, comm_rhs, req(11), ierr)

   call mpi_waitall(12, req, statuses, ierr)

   ! the western ghosts come from the predecessor's eastern faces, ...
   p = 0
   do c = 1, ncells
      if (cell_coord(1, c) /= 1) call unpack(c, 1, -2, face_in, face_recv(1), p(0))
      if (cell_coord(1, c) /= ncells) &
         call unpack(c, 1, cell_size(1, c), face_in, face_recv(0), p(1))
      if (cell_coord(2, c) /= 1) call unpack(c, 2, -2, face_in, face_recv(3), p(2))
      if (cell_coord(2, c) /= ncells) &
         call unpack(c, 2, cell_size(2, c), face_in, face_recv(2), p(3))
      if (cell_coord(3, c) /= 1) call unpack(c, 3, -2, face_in, face_recv(5), p(4))
      if (cell_coord(3, c) /= ncells) &
         call unpack(c, 3, cell_size(3, c), face_in, face_recv(4), p(5))
   end do

   call compute_rhs()

contains

   ! Appends layers l0, l0+1 (in direction d) of cell c to a buffer
   ! (k, j, i, m order, m fastest).
   subroutine pack(c, d, l0, buffer, base, ptr)
      integer, intent(in) :: c, d, l0, base
      real(dp), intent(inout) :: buffer(*)
      integer, intent(inout) :: ptr
      integer :: i, j, k, lo(3), hi(3)
      lo = 0
      hi = cell_size(:, c) - 1
      lo(d) = l0
      hi(d) = l0 + 1
      do k = lo(3), hi(3)
         do j = lo(2), hi(2)
            do i = lo(1), hi(1)
               buffer(base + ptr:base + ptr + 4) = u(:, i, j, k, c)
               ptr = ptr + 5
            end do
         end do
      end do
   end subroutine pack

   ! Fills ghost layers l0, l0+1 (in direction d) of cell c from a buffer.
   subroutine unpack(c, d, l0, buffer, base, ptr)
      integer, intent(in) :: c, d, l0, base
      real(dp), intent(in) :: buffer(*)
      integer, intent(inout) :: ptr
      integer :: i, j, k, lo(3), hi(3)
      lo = 0
      hi = cell_size(:, c) - 1
      lo(d) = l0
      hi(d) = l0 + 1
      do k = lo(3), hi(3)
         do j = lo(2), hi(2)
            do i = lo(1), hi(1)
               u(:, i, j, k, c) = buffer(base + ptr:base + ptr + 4)
               ptr = ptr + 5
            end do
         end do
      end do
   end subroutine unpack
end subroutine copy_faces

! rhs := dt * (forcing - the discrete residual of u) on the interior of
! every cell (forcing alone on the grid boundary), with the auxiliary
! fields 1/rho, u/rho, the kinetic energy and its ratio to rho computed on
! the cells and their first ghost layer.
subroutine compute_rhs()
   use bt_data
   implicit none
   integer :: c, i, j, k, d
   real(dp) :: rinv

   do c = 1, ncells
      do k = -1, cell_size(3, c)
         do j = -1, cell_size(2, c)
            do i = -1, cell_size(1, c)
               rinv = 1.0_dp/u(1, i, j, k, c)
               rho_i(i, j, k, c) = rinv
               vel(1, i, j, k, c) = u(2, i, j, k, c)*rinv
               vel(2, i, j, k, c) = u(3, i, j, k, c)*rinv
               vel(3, i, j, k, c) = u(4, i, j, k, c)*rinv
               square(i, j, k, c) = 0.5_dp*(u(2, i, j, k, c)*u(2, i, j, k, c) &
                                            + u(3, i, j, k, c)*u(3, i, j, k, c) &
                                            + u(4, i, j, k, c)*u(4, i, j, k, c))*rinv
               qs(i, j, k, c) = square(i, j, k, c)*rinv
            end do
         end do
      end do

      do k = 0, cell_size(3, c) - 1
         do j = 0, cell_size(2, c) - 1
            do i = 0, cell_size(1, c) - 1
               rhs(:, i, j, k, c) = forcing(:, i, j, k, c)
            end do
         end do
      end do

      do d = 1, 3
         call rhs_flux(c, d)
         call rhs_dissipation(c, d)
      end do

      do k = cstart(3, c), cell_size(3, c) - cend(3, c) - 1
         do j = cstart(2, c), cell_size(2, c) - cend(2, c) - 1
            do i = cstart(1, c), cell_size(1, c) - cend(1, c) - 1
               rhs(:, i, j, k, c) = rhs(:, i, j, k, c)*dt
            end do
         end do
      end do
   end do
end subroutine compute_rhs

! The flux differences in direction d on the interior of cell c.
subroutine rhs_flux(c, d)
   use bt_data
   implicit none
   integer, intent(in) :: c, d
   integer :: i, j, k, r, n, o(3), ip, jp, kp, im, jm, km
   real(dp) :: up, u0, um

   n = d + 1
   o = 0
   o(d) = 1
   do k = cstart(3, c), cell_size(3, c) - cend(3, c) - 1
      kp = k + o(3)
      km = k - o(3)
      do j = cstart(2, c), cell_size(2, c) - cend(2, c) - 1
         jp = j + o(2)
         jm = j - o(2)
         do i = cstart(1, c), cell_size(1, c) - cend(1, c) - 1
            ip = i + o(1)
            im = i - o(1)
            up = vel(d, ip, jp, kp, c)
            u0 = vel(d, i, j, k, c)
            um = vel(d, im, jm, km, c)

            rhs(1, i, j, k, c) = rhs(1, i, j, k, c) + dt1(1, d)* &
                                 (u(1, ip, jp, kp, c) - 2.0_dp*u(1, i, j, k, c) + u(1, im, jm, km, c)) &
                                 - t2(d)*(u(n, ip, jp, kp, c) - u(n, im, jm, km, c))

            do r = 2, 4
               if (r == n) then
                  rhs(r, i, j, k, c) = rhs(r, i, j, k, c) + dt1(r, d)* &
                                       (u(r, ip, jp, kp, c) - 2.0_dp*u(r, i, j, k, c) + u(r, im, jm, km, c)) &
                                       + con(2, d)*con43*(up - 2.0_dp*u0 + um) &
                                       - t2(d)*(u(r, ip, jp, kp, c)*up - u(r, im, jm, km, c)*um &
                                                + (u(5, ip, jp, kp, c) - square(ip, jp, kp, c) &
                                                   - u(5, im, jm, km, c) + square(im, jm, km, c))*c2)
               else
                  rhs(r, i, j, k, c) = rhs(r, i, j, k, c) + dt1(r, d)* &
                                       (u(r, ip, jp, kp, c) - 2.0_dp*u(r, i, j, k, c) + u(r, im, jm, km, c)) &
                                       + con(2, d)*(vel(r - 1, ip, jp, kp, c) &
                                                    - 2.0_dp*vel(r - 1, i, j, k, c) + vel(r - 1, im, jm, km, c)) &
                                       - t2(d)*(u(r, ip, jp, kp, c)*up - u(r, im, jm, km, c)*um)
               end if
            end do

            rhs(5, i, j, k, c) = rhs(5, i, j, k, c) + dt1(5, d)* &
                                 (u(5, ip, jp, kp, c) - 2.0_dp*u(5, i, j, k, c) + u(5, im, jm, km, c)) &
                                 + con(3, d)*(qs(ip, jp, kp, c) - 2.0_dp*qs(i, j, k, c) + qs(im, jm, km, c)) &
                                 + con(4, d)*(up*up - 2.0_dp*u0*u0 + um*um) &
                                 + con(5, d)*(u(5, ip, jp, kp, c)*rho_i(ip, jp, kp, c) &
                                              - 2.0_dp*u(5, i, j, k, c)*rho_i(i, j, k, c) &
                                              + u(5, im, jm, km, c)*rho_i(im, jm, km, c)) &
                                 - t2(d)*((c1*u(5, ip, jp, kp, c) - c2*square(ip, jp, kp, c))*up &
                                          - (c1*u(5, im, jm, km, c) - c2*square(im, jm, km, c))*um)
         end do
      end do
   end do
end subroutine rhs_flux

! The fourth-order dissipation in direction d on the interior of cell c:
! one-sided at the first two and last two interior points of the grid.
subroutine rhs_dissipation(c, d)
   use bt_data
   implicit none
   integer, intent(in) :: c, d
   integer :: i, j, k, m, l, s, o(3), idx(3)
   real(dp) :: v(-2:2), f
   logical :: first2, last2

   o = 0
   o(d) = 1
   s = cell_size(d, c)
   do k = cstart(3, c), cell_size(3, c) - cend(3, c) - 1
      do j = cstart(2, c), cell_size(2, c) - cend(2, c) - 1
         do i = cstart(1, c), cell_size(1, c) - cend(1, c) - 1
            idx = [i, j, k]
            l = idx(d)
            first2 = cstart(d, c) == 1 .and. l <= 2
            last2 = cend(d, c) == 1 .and. l >= s - 3
            do m = 1, 5
               if (first2) then
                  v(-2) = 0.0_dp
                  v(-1) = u(m, i - o(1), j - o(2), k - o(3), c)
               else
                  v(-2) = u(m, i - 2*o(1), j - 2*o(2), k - 2*o(3), c)
                  v(-1) = u(m, i - o(1), j - o(2), k - o(3), c)
               end if
               v(0) = u(m, i, j, k, c)
               v(1) = u(m, i + o(1), j + o(2), k + o(3), c)
               if (last2) then
                  v(2) = 0.0_dp
               else
                  v(2) = u(m, i + 2*o(1), j + 2*o(2), k + 2*o(3), c)
               end if
               if (cstart(d, c) == 1 .and. l == 1) then
                  f = 5.0_dp*v(0) - 4.0_dp*v(1) + v(2)
               else if (cstart(d, c) == 1 .and. l == 2) then
                  f = -4.0_dp*v(-1) + 6.0_dp*v(0) - 4.0_dp*v(1) + v(2)
               else if (cend(d, c) == 1 .and. l == s - 3) then
                  f = v(-2) - 4.0_dp*v(-1) + 6.0_dp*v(0) - 4.0_dp*v(1)
               else if (cend(d, c) == 1 .and. l == s - 2) then
                  f = v(-2) - 4.0_dp*v(-1) + 5.0_dp*v(0)
               else
                  f = v(-2) - 4.0_dp*v(-1) + 6.0_dp*v(0) - 4.0_dp*v(1) + v(2)
               end if
               rhs(m, i, j, k, c) = rhs(m, i, j, k, c) - dssp*f
            end do
         end do
      end do
   end do
end subroutine rhs_dissipation

! u := u + rhs on the interior of every cell.
subroutine add()
   use bt_data
   implicit none
   integer :: c, i, j, k

   do c = 1, ncells
      do k = cstart(3, c), cell_size(3, c) - cend(3, c) - 1
         do j = cstart(2, c), cell_size(2, c) - cend(2, c) - 1
            do i = cstart(1, c), cell_size(1, c) - cend(1, c) - 1
               u(:, i, j, k, c) = u(:, i, j, k, c) + rhs(:, i, j, k, c)
            end do
         end do
      end do
   end do
end subroutine add
