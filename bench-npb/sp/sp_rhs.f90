! bench-npb SP: the right-hand side.  The exact forcing term (once), the
! exchange of the cell faces (copy_faces) and the residual of the
! discretised equations (compute_rhs), as NPB 3.3-MPI SP.

! forcing := -(discrete operator applied to the exact solution), on the
! interior points of every cell, direction by direction (fluxes, then
! fourth-order dissipation).  Computed along each grid line from the exact
! solution at the line's points and its two neighbours on either side.
subroutine exact_rhs()
   use sp_data
   implicit none
   integer :: c, d, a, b, l, lo, hi, alo, ahi, blo, bhi, m
   real(dp) :: fl(0:max_cell_dim, 5)

   do c = 1, ncells
      forcing(:, :, :, :, c) = 0.0_dp
      do d = 1, 3
         call line_bounds(d, c, alo, ahi, blo, bhi)
         lo = cstart(d, c)
         hi = cell_size(d, c) - cend(d, c) - 1
         do b = blo, bhi
            do a = alo, ahi
               call exact_line(d, c, a, b)
               do m = 1, 5
                  do l = lo, hi
                     fl(l, m) = get(d, c, a, b, l, m)
                  end do
               end do
               call flux_line(d, lo, hi, fl)
               call dissipation_line(d, c, fl)
               do m = 1, 5
                  do l = lo, hi
                     call put(d, c, a, b, l, m, fl(l, m))
                  end do
               end do
            end do
         end do
      end do
      do m = 1, 5
         forcing(cstart(1, c):cell_size(1, c) - cend(1, c) - 1, &
                 cstart(2, c):cell_size(2, c) - cend(2, c) - 1, &
                 cstart(3, c):cell_size(3, c) - cend(3, c) - 1, m, c) = &
            -1.0_dp*forcing(cstart(1, c):cell_size(1, c) - cend(1, c) - 1, &
                            cstart(2, c):cell_size(2, c) - cend(2, c) - 1, &
                            cstart(3, c):cell_size(3, c) - cend(3, c) - 1, m, c)
      end do
   end do

contains

   ! interior ranges of the two directions across a d-line (x-lines:
   ! a = j, b = k; y-lines: a = i, b = k; z-lines: a = i, b = j)
   subroutine line_bounds(d, c, alo, ahi, blo, bhi)
      integer, intent(in) :: d, c
      integer, intent(out) :: alo, ahi, blo, bhi
      integer :: da, db
      da = merge(2, 1, d == 1)
      db = merge(2, 3, d == 3)
      alo = cstart(da, c)
      ahi = cell_size(da, c) - cend(da, c) - 1
      blo = cstart(db, c)
      bhi = cell_size(db, c) - cend(db, c) - 1
   end subroutine line_bounds

   function get(d, c, a, b, l, m) result(v)
      integer, intent(in) :: d, c, a, b, l, m
      real(dp) :: v
      select case (d)
      case (1)
         v = forcing(l, a, b, m, c)
      case (2)
         v = forcing(a, l, b, m, c)
      case default
         v = forcing(a, b, l, m, c)
      end select
   end function get

   subroutine put(d, c, a, b, l, m, v)
      integer, intent(in) :: d, c, a, b, l, m
      real(dp), intent(in) :: v
      select case (d)
      case (1)
         forcing(l, a, b, m, c) = v
      case (2)
         forcing(a, l, b, m, c) = v
      case default
         forcing(a, b, l, m, c) = v
      end select
   end subroutine put

   ! ue, buf, cuf, q along the line, two points beyond the interior on the
   ! sides without a physical boundary
   subroutine exact_line(d, c, a, b)
      integer, intent(in) :: d, c, a, b
      integer :: l, m, pt(3)
      real(dp) :: x(3), dtemp(5), dtpp
      do l = -2*(1 - cstart(d, c)), cell_size(d, c) + 1 - 2*cend(d, c)
         select case (d)
         case (1)
            pt = [l, a, b]
         case (2)
            pt = [a, l, b]
         case default
            pt = [a, b, l]
         end select
         x(1) = real(pt(1) + cell_low(1, c), dp)*dnxm1
         x(2) = real(pt(2) + cell_low(2, c), dp)*dnym1
         x(3) = real(pt(3) + cell_low(3, c), dp)*dnzm1
         call exact_solution(x(1), x(2), x(3), dtemp)
         ue(l, 1:5) = dtemp
         dtpp = 1.0_dp/dtemp(1)
         do m = 2, 5
            buf(l, m) = dtpp*dtemp(m)
         end do
         ! cuf: the squared velocity along the line; buf(:, 1): all three
         select case (d)
         case (1)
            cuf(l) = buf(l, 2)*buf(l, 2)
            buf(l, 1) = cuf(l) + buf(l, 3)*buf(l, 3) + buf(l, 4)*buf(l, 4)
         case (2)
            cuf(l) = buf(l, 3)*buf(l, 3)
            buf(l, 1) = cuf(l) + buf(l, 2)*buf(l, 2) + buf(l, 4)*buf(l, 4)
         case default
            cuf(l) = buf(l, 4)*buf(l, 4)
            buf(l, 1) = cuf(l) + buf(l, 2)*buf(l, 2) + buf(l, 3)*buf(l, 3)
         end select
         q(l) = 0.5_dp*(buf(l, 2)*ue(l, 2) + buf(l, 3)*ue(l, 3) &
                        + buf(l, 4)*ue(l, 4))
      end do
   end subroutine exact_line

   ! the convective and viscous flux differences along a d-line
   subroutine flux_line(d, lo, hi, fl)
      integer, intent(in) :: d, lo, hi
      real(dp), intent(inout) :: fl(0:max_cell_dim, 5)
      integer :: l, lp, lm, m, v
      real(dp) :: t2, con(5), dd(5)
      v = d + 1     ! the momentum along the line
      select case (d)
      case (1)
         t2 = tx2
         con = [xxcon1, xxcon2, xxcon3, xxcon4, xxcon5]
         dd = [dx1tx1, dx2tx1, dx3tx1, dx4tx1, dx5tx1]
      case (2)
         t2 = ty2
         con = [yycon1, yycon2, yycon3, yycon4, yycon5]
         dd = [dy1ty1, dy2ty1, dy3ty1, dy4ty1, dy5ty1]
      case default
         t2 = tz2
         con = [zzcon1, zzcon2, zzcon3, zzcon4, zzcon5]
         dd = [dz1tz1, dz2tz1, dz3tz1, dz4tz1, dz5tz1]
      end select
      do l = lo, hi
         lm = l - 1
         lp = l + 1
         fl(l, 1) = fl(l, 1) - t2*(ue(lp, v) - ue(lm, v)) &
                    + dd(1)*(ue(lp, 1) - 2.0_dp*ue(l, 1) + ue(lm, 1))
         do m = 2, 4
            if (m == v) then
               fl(l, m) = fl(l, m) - t2*( &
                          (ue(lp, m)*buf(lp, m) + c2*(ue(lp, 5) - q(lp))) &
                          - (ue(lm, m)*buf(lm, m) + c2*(ue(lm, 5) - q(lm)))) &
                          + con(1)*(buf(lp, m) - 2.0_dp*buf(l, m) + buf(lm, m)) &
                          + dd(m)*(ue(lp, m) - 2.0_dp*ue(l, m) + ue(lm, m))
            else
               fl(l, m) = fl(l, m) - t2*( &
                          ue(lp, m)*buf(lp, v) - ue(lm, m)*buf(lm, v)) &
                          + con(2)*(buf(lp, m) - 2.0_dp*buf(l, m) + buf(lm, m)) &
                          + dd(m)*(ue(lp, m) - 2.0_dp*ue(l, m) + ue(lm, m))
            end if
         end do
         fl(l, 5) = fl(l, 5) - t2*( &
                    buf(lp, v)*(c1*ue(lp, 5) - c2*q(lp)) &
                    - buf(lm, v)*(c1*ue(lm, 5) - c2*q(lm))) &
                    + 0.5_dp*con(3)*(buf(lp, 1) - 2.0_dp*buf(l, 1) + buf(lm, 1)) &
                    + con(4)*(cuf(lp) - 2.0_dp*cuf(l) + cuf(lm)) &
                    + con(5)*(buf(lp, 5) - 2.0_dp*buf(l, 5) + buf(lm, 5)) &
                    + dd(5)*(ue(lp, 5) - 2.0_dp*ue(l, 5) + ue(lm, 5))
      end do
   end subroutine flux_line

   ! fourth-order dissipation of the exact solution along the line, with
   ! the one-sided stencils next to a physical boundary
   subroutine dissipation_line(d, c, fl)
      integer, intent(in) :: d, c
      real(dp), intent(inout) :: fl(0:max_cell_dim, 5)
      integer :: l, m, n
      n = cell_size(d, c)
      if (cstart(d, c) > 0) then
         do m = 1, 5
            l = 1
            fl(l, m) = fl(l, m) - dssp*(5.0_dp*ue(l, m) - 4.0_dp*ue(l + 1, m) &
                                        + ue(l + 2, m))
            l = 2
            fl(l, m) = fl(l, m) - dssp*(-4.0_dp*ue(l - 1, m) + 6.0_dp*ue(l, m) &
                                        - 4.0_dp*ue(l + 1, m) + ue(l + 2, m))
         end do
      end if
      do m = 1, 5
         do l = 3*cstart(d, c), n - 3*cend(d, c) - 1
            fl(l, m) = fl(l, m) - dssp*(ue(l - 2, m) - 4.0_dp*ue(l - 1, m) &
                                        + 6.0_dp*ue(l, m) - 4.0_dp*ue(l + 1, m) &
                                        + ue(l + 2, m))
         end do
      end do
      if (cend(d, c) > 0) then
         do m = 1, 5
            l = n - 3
            fl(l, m) = fl(l, m) - dssp*(ue(l - 2, m) - 4.0_dp*ue(l - 1, m) &
                                        + 6.0_dp*ue(l, m) - 4.0_dp*ue(l + 1, m))
            l = n - 2
            fl(l, m) = fl(l, m) - dssp*(ue(l - 2, m) - 4.0_dp*ue(l - 1, m) &
                                        + 5.0_dp*ue(l, m))
         end do
      end if
   end subroutine dissipation_line
end subroutine exact_rhs

! Sends the two outermost planes of u of every cell to the rank holding
! the adjacent cell, in each of the six directions at once (one message per
! direction: all cells of this rank have the same neighbour rank), and
! fills the ghost planes from what arrives; then computes the rhs.
subroutine copy_faces()
   use sp_data
   implicit none
   integer :: i, j, k, c, m, ierr
   integer :: requests(0:11), statuses(MPI_STATUS_SIZE, 0:11)
   integer :: b_size(0:5), ss(0:5), sr(0:5), p(0:5)
   integer :: nx, ny, nz

   if (no_nodes == 1) then
      call compute_rhs()
      return
   end if

   ss = [start_send_east, start_send_west, start_send_north, &
         start_send_south, start_send_top, start_send_bottom]
   sr = [start_recv_east, start_recv_west, start_recv_north, &
         start_recv_south, start_recv_top, start_recv_bottom]
   b_size = [east_size, west_size, north_size, south_size, top_size, &
             bottom_size]

   p = 0
   do c = 1, ncells
      nx = cell_size(1, c)
      ny = cell_size(2, c)
      nz = cell_size(3, c)
      do m = 1, 5
         if (cell_coord(1, c) /= ncells) then      ! to the east
            do k = 0, nz - 1
               do j = 0, ny - 1
                  do i = nx - 2, nx - 1
                     out_buffer(ss(0) + p(0)) = u(i, j, k, m, c)
                     p(0) = p(0) + 1
                  end do
               end do
            end do
         end if
         if (cell_coord(1, c) /= 1) then           ! to the west
            do k = 0, nz - 1
               do j = 0, ny - 1
                  do i = 0, 1
                     out_buffer(ss(1) + p(1)) = u(i, j, k, m, c)
                     p(1) = p(1) + 1
                  end do
               end do
            end do
         end if
         if (cell_coord(2, c) /= ncells) then      ! to the north
            do k = 0, nz - 1
               do j = ny - 2, ny - 1
                  do i = 0, nx - 1
                     out_buffer(ss(2) + p(2)) = u(i, j, k, m, c)
                     p(2) = p(2) + 1
                  end do
               end do
            end do
         end if
         if (cell_coord(2, c) /= 1) then           ! to the south
            do k = 0, nz - 1
               do j = 0, 1
                  do i = 0, nx - 1
                     out_buffer(ss(3) + p(3)) = u(i, j, k, m, c)
                     p(3) = p(3) + 1
                  end do
               end do
            end do
         end if
         if (cell_coord(3, c) /= ncells) then      ! to the top
            do k = nz - 2, nz - 1
               do j = 0, ny - 1
                  do i = 0, nx - 1
                     out_buffer(ss(4) + p(4)) = u(i, j, k, m, c)
                     p(4) = p(4) + 1
                  end do
               end do
            end do
         end if
         if (cell_coord(3, c) /= 1) then           ! to the bottom
            do k = 0, 1
               do j = 0, ny - 1
                  do i = 0, nx - 1
                     out_buffer(ss(5) + p(5)) = u(i, j, k, m, c)
                     p(5) = p(5) + 1
                  end do
               end do
            end do
         end if
      end do
   end do

   call mpi_irecv(in_buffer(sr(0)), b_size(0), dp_type, successor(1), WEST, &
                  comm_rhs, requests(0), ierr)
   call mpi_irecv(in_buffer(sr(1)), b_size(1), dp_type, predecessor(1), EAST, &
                  comm_rhs, requests(1), ierr)
   call mpi_irecv(in_buffer(sr(2)), b_size(2), dp_type, successor(2), SOUTH, &
                  comm_rhs, requests(2), ierr)
   call mpi_irecv(in_buffer(sr(3)), b_size(3), dp_type, predecessor(2), NORTH, &
                  comm_rhs, requests(3), ierr)
   call mpi_irecv(in_buffer(sr(4)), b_size(4), dp_type, successor(3), BOTTOM, &
                  comm_rhs, requests(4), ierr)
   call mpi_irecv(in_buffer(sr(5)), b_size(5), dp_type, predecessor(3), TOP, &
                  comm_rhs, requests(5), ierr)

   call mpi_isend(out_buffer(ss(0)), b_size(0), dp_type, successor(1), EAST, &
                  comm_rhs, requests(6), ierr)
   call mpi_isend(out_buffer(ss(1)), b_size(1), dp_type, predecessor(1), WEST, &
                  comm_rhs, requests(7), ierr)
   call mpi_isend(out_buffer(ss(2)), b_size(2), dp_type, successor(2), NORTH, &
                  comm_rhs, requests(8), ierr)
   call mpi_isend(out_buffer(ss(3)), b_size(3), dp_type, predecessor(2), SOUTH, &
                  comm_rhs, requests(9), ierr)
   call mpi_isend(out_buffer(ss(4)), b_size(4), dp_type, successor(3), TOP, &
                  comm_rhs, requests(10), ierr)
   call mpi_isend(out_buffer(ss(5)), b_size(5), dp_type, predecessor(3), BOTTOM, &
                  comm_rhs, requests(11), ierr)

   call mpi_waitall(12, requests, statuses, ierr)

   ! unpack, in the order the neighbours packed
   p = 0
   do c = 1, ncells
      nx = cell_size(1, c)
      ny = cell_size(2, c)
      nz = cell_size(3, c)
      do m = 1, 5
         if (cell_coord(1, c) /= 1) then           ! from the west
            do k = 0, nz - 1
               do j = 0, ny - 1
                  do i = -2, -1
                     u(i, j, k, m, c) = in_buffer(sr(1) + p(0))
                     p(0) = p(0) + 1
                  end do
               end do
            end do
         end if
         if (cell_coord(1, c) /= ncells) then      ! from the east
            do k = 0, nz - 1
               do j = 0, ny - 1
                  do i = nx, nx + 1
                     u(i, j, k, m, c) = in_buffer(sr(0) + p(1))
                     p(1) = p(1) + 1
                  end do
               end do
            end do
         end if
         if (cell_coord(2, c) /= 1) then           ! from the south
            do k = 0, nz - 1
               do j = -2, -1
                  do i = 0, nx - 1
                     u(i, j, k, m, c) = in_buffer(sr(3) + p(2))
                     p(2) = p(2) + 1
                  end do
               end do
            end do
         end if
         if (cell_coord(2, c) /= ncells) then      ! from the north
            do k = 0, nz - 1
               do j = ny, ny + 1
                  do i = 0, nx - 1
                     u(i, j, k, m, c) = in_buffer(sr(2) + p(3))
                     p(3) = p(3) + 1
                  end do
               end do
            end do
         end if
         if (cell_coord(3, c) /= 1) then           ! from the bottom
            do k = -2, -1
               do j = 0, ny - 1
                  do i = 0, nx - 1
                     u(i, j, k, m, c) = in_buffer(sr(5) + p(4))
                     p(4) = p(4) + 1
                  end do
               end do
            end do
         end if
         if (cell_coord(3, c) /= ncells) then      ! from the top
            do k = nz, nz + 1
               do j = 0, ny - 1
                  do i = 0, nx - 1
                     u(i, j, k, m, c) = in_buffer(sr(4) + p(5))
                     p(5) = p(5) + 1
                  end do
               end do
            end do
         end if
      end do
   end do

   call compute_rhs()
end subroutine copy_faces

! rhs := dt * (forcing + discrete operator applied to u) on the interior
! points, after the derived quantities (1/rho, velocities, kinetic energy,
! speed of sound) on the cell and its first ghost layer.
subroutine compute_rhs()
   use sp_data
   implicit none
   integer :: c, i, j, k, m
   integer :: i0, i1, j0, j1, k0, k1, nx, ny, nz
   real(dp) :: aux, rho_inv, uijk, up1, um1, vijk, vp1, vm1, wijk, wp1, wm1

   do c = 1, ncells
      nx = cell_size(1, c)
      ny = cell_size(2, c)
      nz = cell_size(3, c)
      i0 = cstart(1, c)
      i1 = nx - cend(1, c) - 1
      j0 = cstart(2, c)
      j1 = ny - cend(2, c) - 1
      k0 = cstart(3, c)
      k1 = nz - cend(3, c) - 1

      do k = -1, nz
         do j = -1, ny
            do i = -1, nx
               rho_inv = 1.0_dp/u(i, j, k, 1, c)
               rho_i(i, j, k, c) = rho_inv
               us(i, j, k, c) = u(i, j, k, 2, c)*rho_inv
               vs(i, j, k, c) = u(i, j, k, 3, c)*rho_inv
               ws(i, j, k, c) = u(i, j, k, 4, c)*rho_inv
               square(i, j, k, c) = 0.5_dp*(u(i, j, k, 2, c)*u(i, j, k, 2, c) &
                                            + u(i, j, k, 3, c)*u(i, j, k, 3, c) &
                                            + u(i, j, k, 4, c)*u(i, j, k, 4, c))*rho_inv
               qs(i, j, k, c) = square(i, j, k, c)*rho_inv
               aux = c1c2*rho_inv*(u(i, j, k, 5, c) - square(i, j, k, c))
               aux = sqrt(aux)
               speed(i, j, k, c) = aux
               ainv(i, j, k, c) = 1.0_dp/aux
            end do
         end do
      end do

      do m = 1, 5
         do k = 0, nz - 1
            do j = 0, ny - 1
               do i = 0, nx - 1
                  rhs(i, j, k, m, c) = forcing(i, j, k, m, c)
               end do
            end do
         end do
      end do

      ! xi-direction fluxes
      do k = k0, k1
         do j = j0, j1
            do i = i0, i1
               uijk = us(i, j, k, c)
               up1 = us(i + 1, j, k, c)
               um1 = us(i - 1, j, k, c)
               rhs(i, j, k, 1, c) = rhs(i, j, k, 1, c) + dx1tx1* &
                                    (u(i + 1, j, k, 1, c) - 2.0_dp*u(i, j, k, 1, c) &
                                     + u(i - 1, j, k, 1, c)) &
                                    - tx2*(u(i + 1, j, k, 2, c) - u(i - 1, j, k, 2, c))
               rhs(i, j, k, 2, c) = rhs(i, j, k, 2, c) + dx2tx1* &
                                    (u(i + 1, j, k, 2, c) - 2.0_dp*u(i, j, k, 2, c) &
                                     + u(i - 1, j, k, 2, c)) &
                                    + xxcon2*con43*(up1 - 2.0_dp*uijk + um1) &
                                    - tx2*(u(i + 1, j, k, 2, c)*up1 &
                                           - u(i - 1, j, k, 2, c)*um1 &
                                           + (u(i + 1, j, k, 5, c) - square(i + 1, j, k, c) &
                                              - u(i - 1, j, k, 5, c) + square(i - 1, j, k, c)) &
                                           *c2)
               rhs(i, j, k, 3, c) = rhs(i, j, k, 3, c) + dx3tx1* &
                                    (u(i + 1, j, k, 3, c) - 2.0_dp*u(i, j, k, 3, c) &
                                     + u(i - 1, j, k, 3, c)) &
                                    + xxcon2*(vs(i + 1, j, k, c) - 2.0_dp*vs(i, j, k, c) &
                                              + vs(i - 1, j, k, c)) &
                                    - tx2*(u(i + 1, j, k, 3, c)*up1 - u(i - 1, j, k, 3, c)*um1)
               rhs(i, j, k, 4, c) = rhs(i, j, k, 4, c) + dx4tx1* &
                                    (u(i + 1, j, k, 4, c) - 2.0_dp*u(i, j, k, 4, c) &
                                     + u(i - 1, j, k, 4, c)) &
                                    + xxcon2*(ws(i + 1, j, k, c) - 2.0_dp*ws(i, j, k, c) &
                                              + ws(i - 1, j, k, c)) &
                                    - tx2*(u(i + 1, j, k, 4, c)*up1 - u(i - 1, j, k, 4, c)*um1)
               rhs(i, j, k, 5, c) = rhs(i, j, k, 5, c) + dx5tx1* &
                                    (u(i + 1, j, k, 5, c) - 2.0_dp*u(i, j, k, 5, c) &
                                     + u(i - 1, j, k, 5, c)) &
                                    + xxcon3*(qs(i + 1, j, k, c) - 2.0_dp*qs(i, j, k, c) &
                                              + qs(i - 1, j, k, c)) &
                                    + xxcon4*(up1*up1 - 2.0_dp*uijk*uijk + um1*um1) &
                                    + xxcon5*(u(i + 1, j, k, 5, c)*rho_i(i + 1, j, k, c) &
                                              - 2.0_dp*u(i, j, k, 5, c)*rho_i(i, j, k, c) &
                                              + u(i - 1, j, k, 5, c)*rho_i(i - 1, j, k, c)) &
                                    - tx2*((c1*u(i + 1, j, k, 5, c) - c2*square(i + 1, j, k, c))*up1 &
                                           - (c1*u(i - 1, j, k, 5, c) - c2*square(i - 1, j, k, c))*um1)
            end do
         end do
      end do

      ! xi-direction fourth-order dissipation
      if (cstart(1, c) > 0) then
         i = 1
         do m = 1, 5
            do k = k0, k1
               do j = j0, j1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (5.0_dp*u(i, j, k, m, c) - 4.0_dp*u(i + 1, j, k, m, c) &
                                        + u(i + 2, j, k, m, c))
               end do
            end do
         end do
         i = 2
         do m = 1, 5
            do k = k0, k1
               do j = j0, j1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (-4.0_dp*u(i - 1, j, k, m, c) + 6.0_dp*u(i, j, k, m, c) &
                                        - 4.0_dp*u(i + 1, j, k, m, c) + u(i + 2, j, k, m, c))
               end do
            end do
         end do
      end if
      do m = 1, 5
         do k = k0, k1
            do j = j0, j1
               do i = 3*cstart(1, c), nx - 3*cend(1, c) - 1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (u(i - 2, j, k, m, c) - 4.0_dp*u(i - 1, j, k, m, c) &
                                        + 6.0_dp*u(i, j, k, m, c) - 4.0_dp*u(i + 1, j, k, m, c) &
                                        + u(i + 2, j, k, m, c))
               end do
            end do
         end do
      end do
      if (cend(1, c) > 0) then
         i = nx - 3
         do m = 1, 5
            do k = k0, k1
               do j = j0, j1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (u(i - 2, j, k, m, c) - 4.0_dp*u(i - 1, j, k, m, c) &
                                        + 6.0_dp*u(i, j, k, m, c) - 4.0_dp*u(i + 1, j, k, m, c))
               end do
            end do
         end do
         i = nx - 2
         do m = 1, 5
            do k = k0, k1
               do j = j0, j1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (u(i - 2, j, k, m, c) - 4.0_dp*u(i - 1, j, k, m, c) &
                                        + 5.0_dp*u(i, j, k, m, c))
               end do
            end do
         end do
      end if

      ! eta-direction fluxes
      do k = k0, k1
         do j = j0, j1
            do i = i0, i1
               vijk = vs(i, j, k, c)
               vp1 = vs(i, j + 1, k, c)
               vm1 = vs(i, j - 1, k, c)
               rhs(i, j, k, 1, c) = rhs(i, j, k, 1, c) + dy1ty1* &
                                    (u(i, j + 1, k, 1, c) - 2.0_dp*u(i, j, k, 1, c) &
                                     + u(i, j - 1, k, 1, c)) &
                                    - ty2*(u(i, j + 1, k, 3, c) - u(i, j - 1, k, 3, c))
               rhs(i, j, k, 2, c) = rhs(i, j, k, 2, c) + dy2ty1* &
                                    (u(i, j + 1, k, 2, c) - 2.0_dp*u(i, j, k, 2, c) &
                                     + u(i, j - 1, k, 2, c)) &
                                    + yycon2*(us(i, j + 1, k, c) - 2.0_dp*us(i, j, k, c) &
                                              + us(i, j - 1, k, c)) &
                                    - ty2*(u(i, j + 1, k, 2, c)*vp1 - u(i, j - 1, k, 2, c)*vm1)
               rhs(i, j, k, 3, c) = rhs(i, j, k, 3, c) + dy3ty1* &
                                    (u(i, j + 1, k, 3, c) - 2.0_dp*u(i, j, k, 3, c) &
                                     + u(i, j - 1, k, 3, c)) &
                                    + yycon2*con43*(vp1 - 2.0_dp*vijk + vm1) &
                                    - ty2*(u(i, j + 1, k, 3, c)*vp1 &
                                           - u(i, j - 1, k, 3, c)*vm1 &
                                           + (u(i, j + 1, k, 5, c) - square(i, j + 1, k, c) &
                                              - u(i, j - 1, k, 5, c) + square(i, j - 1, k, c)) &
                                           *c2)
               rhs(i, j, k, 4, c) = rhs(i, j, k, 4, c) + dy4ty1* &
                                    (u(i, j + 1, k, 4, c) - 2.0_dp*u(i, j, k, 4, c) &
                                     + u(i, j - 1, k, 4, c)) &
                                    + yycon2*(ws(i, j + 1, k, c) - 2.0_dp*ws(i, j, k, c) &
                                              + ws(i, j - 1, k, c)) &
                                    - ty2*(u(i, j + 1, k, 4, c)*vp1 - u(i, j - 1, k, 4, c)*vm1)
               rhs(i, j, k, 5, c) = rhs(i, j, k, 5, c) + dy5ty1* &
                                    (u(i, j + 1, k, 5, c) - 2.0_dp*u(i, j, k, 5, c) &
                                     + u(i, j - 1, k, 5, c)) &
                                    + yycon3*(qs(i, j + 1, k, c) - 2.0_dp*qs(i, j, k, c) &
                                              + qs(i, j - 1, k, c)) &
                                    + yycon4*(vp1*vp1 - 2.0_dp*vijk*vijk + vm1*vm1) &
                                    + yycon5*(u(i, j + 1, k, 5, c)*rho_i(i, j + 1, k, c) &
                                              - 2.0_dp*u(i, j, k, 5, c)*rho_i(i, j, k, c) &
                                              + u(i, j - 1, k, 5, c)*rho_i(i, j - 1, k, c)) &
                                    - ty2*((c1*u(i, j + 1, k, 5, c) - c2*square(i, j + 1, k, c))*vp1 &
                                           - (c1*u(i, j - 1, k, 5, c) - c2*square(i, j - 1, k, c))*vm1)
            end do
         end do
      end do

      ! eta-direction fourth-order dissipation
      if (cstart(2, c) > 0) then
         j = 1
         do m = 1, 5
            do k = k0, k1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (5.0_dp*u(i, j, k, m, c) - 4.0_dp*u(i, j + 1, k, m, c) &
                                        + u(i, j + 2, k, m, c))
               end do
            end do
         end do
         j = 2
         do m = 1, 5
            do k = k0, k1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (-4.0_dp*u(i, j - 1, k, m, c) + 6.0_dp*u(i, j, k, m, c) &
                                        - 4.0_dp*u(i, j + 1, k, m, c) + u(i, j + 2, k, m, c))
               end do
            end do
         end do
      end if
      do m = 1, 5
         do k = k0, k1
            do j = 3*cstart(2, c), ny - 3*cend(2, c) - 1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (u(i, j - 2, k, m, c) - 4.0_dp*u(i, j - 1, k, m, c) &
                                        + 6.0_dp*u(i, j, k, m, c) - 4.0_dp*u(i, j + 1, k, m, c) &
                                        + u(i, j + 2, k, m, c))
               end do
            end do
         end do
      end do
      if (cend(2, c) > 0) then
         j = ny - 3
         do m = 1, 5
            do k = k0, k1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (u(i, j - 2, k, m, c) - 4.0_dp*u(i, j - 1, k, m, c) &
                                        + 6.0_dp*u(i, j, k, m, c) - 4.0_dp*u(i, j + 1, k, m, c))
               end do
            end do
         end do
         j = ny - 2
         do m = 1, 5
            do k = k0, k1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (u(i, j - 2, k, m, c) - 4.0_dp*u(i, j - 1, k, m, c) &
                                        + 5.0_dp*u(i, j, k, m, c))
               end do
            end do
         end do
      end if

      ! zeta-direction fluxes
      do k = k0, k1
         do j = j0, j1
            do i = i0, i1
               wijk = ws(i, j, k, c)
               wp1 = ws(i, j, k + 1, c)
               wm1 = ws(i, j, k - 1, c)
               rhs(i, j, k, 1, c) = rhs(i, j, k, 1, c) + dz1tz1* &
                                    (u(i, j, k + 1, 1, c) - 2.0_dp*u(i, j, k, 1, c) &
                                     + u(i, j, k - 1, 1, c)) &
                                    - tz2*(u(i, j, k + 1, 4, c) - u(i, j, k - 1, 4, c))
               rhs(i, j, k, 2, c) = rhs(i, j, k, 2, c) + dz2tz1* &
                                    (u(i, j, k + 1, 2, c) - 2.0_dp*u(i, j, k, 2, c) &
                                     + u(i, j, k - 1, 2, c)) &
                                    + zzcon2*(us(i, j, k + 1, c) - 2.0_dp*us(i, j, k, c) &
                                              + us(i, j, k - 1, c)) &
                                    - tz2*(u(i, j, k + 1, 2, c)*wp1 - u(i, j, k - 1, 2, c)*wm1)
               rhs(i, j, k, 3, c) = rhs(i, j, k, 3, c) + dz3tz1* &
                                    (u(i, j, k + 1, 3, c) - 2.0_dp*u(i, j, k, 3, c) &
                                     + u(i, j, k - 1, 3, c)) &
                                    + zzcon2*(vs(i, j, k + 1, c) - 2.0_dp*vs(i, j, k, c) &
                                              + vs(i, j, k - 1, c)) &
                                    - tz2*(u(i, j, k + 1, 3, c)*wp1 - u(i, j, k - 1, 3, c)*wm1)
               rhs(i, j, k, 4, c) = rhs(i, j, k, 4, c) + dz4tz1* &
                                    (u(i, j, k + 1, 4, c) - 2.0_dp*u(i, j, k, 4, c) &
                                     + u(i, j, k - 1, 4, c)) &
                                    + zzcon2*con43*(wp1 - 2.0_dp*wijk + wm1) &
                                    - tz2*(u(i, j, k + 1, 4, c)*wp1 &
                                           - u(i, j, k - 1, 4, c)*wm1 &
                                           + (u(i, j, k + 1, 5, c) - square(i, j, k + 1, c) &
                                              - u(i, j, k - 1, 5, c) + square(i, j, k - 1, c)) &
                                           *c2)
               rhs(i, j, k, 5, c) = rhs(i, j, k, 5, c) + dz5tz1* &
                                    (u(i, j, k + 1, 5, c) - 2.0_dp*u(i, j, k, 5, c) &
                                     + u(i, j, k - 1, 5, c)) &
                                    + zzcon3*(qs(i, j, k + 1, c) - 2.0_dp*qs(i, j, k, c) &
                                              + qs(i, j, k - 1, c)) &
                                    + zzcon4*(wp1*wp1 - 2.0_dp*wijk*wijk + wm1*wm1) &
                                    + zzcon5*(u(i, j, k + 1, 5, c)*rho_i(i, j, k + 1, c) &
                                              - 2.0_dp*u(i, j, k, 5, c)*rho_i(i, j, k, c) &
                                              + u(i, j, k - 1, 5, c)*rho_i(i, j, k - 1, c)) &
                                    - tz2*((c1*u(i, j, k + 1, 5, c) - c2*square(i, j, k + 1, c))*wp1 &
                                           - (c1*u(i, j, k - 1, 5, c) - c2*square(i, j, k - 1, c))*wm1)
            end do
         end do
      end do

      ! zeta-direction fourth-order dissipation
      if (cstart(3, c) > 0) then
         k = 1
         do m = 1, 5
            do j = j0, j1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (5.0_dp*u(i, j, k, m, c) - 4.0_dp*u(i, j, k + 1, m, c) &
                                        + u(i, j, k + 2, m, c))
               end do
            end do
         end do
         k = 2
         do m = 1, 5
            do j = j0, j1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (-4.0_dp*u(i, j, k - 1, m, c) + 6.0_dp*u(i, j, k, m, c) &
                                        - 4.0_dp*u(i, j, k + 1, m, c) + u(i, j, k + 2, m, c))
               end do
            end do
         end do
      end if
      do m = 1, 5
         do k = 3*cstart(3, c), nz - 3*cend(3, c) - 1
            do j = j0, j1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (u(i, j, k - 2, m, c) - 4.0_dp*u(i, j, k - 1, m, c) &
                                        + 6.0_dp*u(i, j, k, m, c) - 4.0_dp*u(i, j, k + 1, m, c) &
                                        + u(i, j, k + 2, m, c))
               end do
            end do
         end do
      end do
      if (cend(3, c) > 0) then
         k = nz - 3
         do m = 1, 5
            do j = j0, j1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (u(i, j, k - 2, m, c) - 4.0_dp*u(i, j, k - 1, m, c) &
                                        + 6.0_dp*u(i, j, k, m, c) - 4.0_dp*u(i, j, k + 1, m, c))
               end do
            end do
         end do
         k = nz - 2
         do m = 1, 5
            do j = j0, j1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c) - dssp* &
                                       (u(i, j, k - 2, m, c) - 4.0_dp*u(i, j, k - 1, m, c) &
                                        + 5.0_dp*u(i, j, k, m, c))
               end do
            end do
         end do
      end if

      do m = 1, 5
         do k = k0, k1
            do j = j0, j1
               do i = i0, i1
                  rhs(i, j, k, m, c) = rhs(i, j, k, m, c)*dt
               end do
            end do
         end do
      end do
   end do
end subroutine compute_rhs
