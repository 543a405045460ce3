! bench-npb BT: the line solves of the ADI step (NPB's x_solve, y_solve,
! z_solve), written once for a direction d.
!
! Along direction d every grid line is a block tridiagonal system with 5x5
! blocks A (below), B (diagonal) and C (above), built from the flux
! Jacobian (fjac) and the viscous Jacobian (njac) of the line's points.  A
! line crosses ncells cells, one per rank in the multi-partition, in the
! order slice(d, 1..ncells).  Forward elimination: the cell of stage 1
! starts; each later stage receives C' and rhs' of the previous cell's last
! plane (MPI_Irecv from predecessor(d), tag WEST/SOUTH/BOTTOM + line), waits
! for its own previous send and for the receive (MPI_Wait, MPI_Wait),
! eliminates, and sends its last plane on (MPI_Isend to successor(d)).
! Back substitution runs the stages backwards with the solution's first
! plane (tags EAST/NORTH/TOP + line).  Message lengths are NPB's:
! maxdim**2 * 30 doubles forward and maxdim**2 * 5 backward, on comm_solve.

subroutine adi_sweep(d)
   use bt_data
   implicit none
   integer, intent(in) :: d
   integer :: stage, c, first, last, send_req, recv_req, ierr, fwd_len, back_len
   integer :: status(MPI_STATUS_SIZE)

   fwd_len = maxdim*maxdim*30
   back_len = maxdim*maxdim*5
   send_req = MPI_REQUEST_NULL

   do stage = 1, ncells
      c = slice(d, stage)
      last = merge(1, 0, stage == ncells)
      if (stage == 1) then
         first = 1
      else
         first = 0
         call mpi_irecv(solve_in, fwd_len, MPI_DOUBLE_PRECISION, predecessor(d), &
                        forward_tag(d) + line_tag(d, c), comm_solve, recv_req, ierr)
         call mpi_wait(send_req, status, ierr)
         call mpi_wait(recv_req, status, ierr)
         call unpack_forward(d, c)
      end if
      call eliminate_cell(d, c, first, last)
      if (last == 0) then
         call pack_forward(d, c)
         call mpi_isend(solve_out, fwd_len, MPI_DOUBLE_PRECISION, successor(d), &
                        forward_tag(d) + line_tag(d, c), comm_solve, send_req, ierr)
      end if
   end do

   do stage = ncells, 1, -1
      c = slice(d, stage)
      first = merge(1, 0, stage == 1)
      if (stage == ncells) then
         last = 1
      else
         last = 0
         call mpi_irecv(solve_in, back_len, MPI_DOUBLE_PRECISION, successor(d), &
                        backward_tag(d) + line_tag(d, c), comm_solve, recv_req, ierr)
         call mpi_wait(send_req, status, ierr)
         call mpi_wait(recv_req, status, ierr)
         call unpack_backward(d, c)
      end if
      call backsubstitute(d, c, last)
      if (first == 0) then
         call pack_backward(d, c)
         call mpi_isend(solve_out, back_len, MPI_DOUBLE_PRECISION, predecessor(d), &
                        backward_tag(d) + line_tag(d, c), comm_solve, send_req, ierr)
      end if
   end do

contains

   ! The lines through cell c across direction d are numbered by the
   ! cell's coordinates in the two other directions.
   integer function line_tag(d, c)
      integer, intent(in) :: d, c
      integer :: ta, tb
      call across(d, ta, tb)
      line_tag = cell_coord(ta, c) - 1 + (cell_coord(tb, c) - 1)*ncells
   end function line_tag
end subroutine adi_sweep

! C' and rhs' of the last plane of cell c (direction d) into solve_out:
! 30 doubles per line at (b*maxdim + a)*30.
subroutine pack_forward(d, c)
   use bt_data
   implicit none
   integer, intent(in) :: d, c
   integer :: ta, tb, a, b, i, j, k, off

   call across(d, ta, tb)
   do b = 0, cell_size(tb, c) - 1
      do a = 0, cell_size(ta, c) - 1
         call ijk(d, cell_size(d, c) - 1, a, b, i, j, k)
         off = (b*maxdim + a)*30
         solve_out(off + 1:off + 25) = reshape(lhsc(:, :, i, j, k, c), [25])
         solve_out(off + 26:off + 30) = rhs(:, i, j, k, c)
      end do
   end do
end subroutine pack_forward

! The previous cell's C' and rhs' into plane -1 of cell c.
subroutine unpack_forward(d, c)
   use bt_data
   implicit none
   integer, intent(in) :: d, c
   integer :: ta, tb, a, b, i, j, k, off

   call across(d, ta, tb)
   do b = 0, cell_size(tb, c) - 1
      do a = 0, cell_size(ta, c) - 1
         call ijk(d, -1, a, b, i, j, k)
         off = (b*maxdim + a)*30
         lhsc(:, :, i, j, k, c) = reshape(solve_in(off + 1:off + 25), [5, 5])
         rhs(:, i, j, k, c) = solve_in(off + 26:off + 30)
      end do
   end do
end subroutine unpack_forward

! The solution in the first plane of cell c into solve_out (5 per line).
subroutine pack_backward(d, c)
   use bt_data
   implicit none
   integer, intent(in) :: d, c
   integer :: ta, tb, a, b, i, j, k, off

   call across(d, ta, tb)
   do b = 0, cell_size(tb, c) - 1
      do a = 0, cell_size(ta, c) - 1
         call ijk(d, 0, a, b, i, j, k)
         off = (b*maxdim + a)*5
         solve_out(off + 1:off + 5) = rhs(:, i, j, k, c)
      end do
   end do
end subroutine pack_backward

! The next cell's first-plane solution into backsub_info.
subroutine unpack_backward(d, c)
   use bt_data
   implicit none
   integer, intent(in) :: d, c
   integer :: ta, tb, a, b, off

   call across(d, ta, tb)
   do b = 0, cell_size(tb, c) - 1
      do a = 0, cell_size(ta, c) - 1
         off = (b*maxdim + a)*5
         backsub_info(:, a, b, c) = solve_in(off + 1:off + 5)
      end do
   end do
end subroutine unpack_backward

! Forward elimination over cell c along direction d, for every interior
! line of the cell.
subroutine eliminate_cell(d, c, first, last)
   use bt_data
   implicit none
   integer, intent(in) :: d, c, first, last
   integer :: ta, tb, a, b

   call across(d, ta, tb)
   do b = cstart(tb, c), cell_size(tb, c) - cend(tb, c) - 1
      do a = cstart(ta, c), cell_size(ta, c) - cend(ta, c) - 1
         select case (d)
         case (1)
            call solve_line(u(:, :, a, b, c), qs(:, a, b, c), &
                            rhs(:, :, a, b, c), lhsc(:, :, :, a, b, c))
         case (2)
            call solve_line(u(:, a, :, b, c), qs(a, :, b, c), &
                            rhs(:, a, :, b, c), lhsc(:, :, a, :, b, c))
         case default
            call solve_line(u(:, a, b, :, c), qs(a, b, :, c), &
                            rhs(:, a, b, :, c), lhsc(:, :, a, b, :, c))
         end select
      end do
   end do

contains

   ! One line: the Jacobians, the blocks A, B, C, and the elimination
   ! C(l) := (B(l) - A(l) C(l-1))^-1 C(l), rhs(l) := (...)^-1 (rhs(l) -
   ! A(l) rhs(l-1)).  Position l = -1 holds the previous cell's last
   ! plane (when first = 0); the grid boundary points (cstart/cend) have
   ! A = 0, B = I.
   subroutine solve_line(ul, ql, rl, cl)
      real(dp), intent(in) :: ul(:, -2:), ql(-1:)
      real(dp), intent(inout) :: rl(:, -1:), cl(:, :, -1:)
      integer :: s, st, en, n, l, r, m
      real(dp) :: fjac(5, 5, -1:cell_size(d, c)), njac(5, 5, -1:cell_size(d, c))
      real(dp) :: lhsa(5, 5, 0:cell_size(d, c) - 1), lhsb(5, 5, 0:cell_size(d, c) - 1)
      real(dp) :: tmp1, tmp2, tmp3, un, q, cr(2:4), h1, h2

      s = cell_size(d, c)
      st = cstart(d, c)
      en = cend(d, c)
      n = d + 1
      cr = c3c4
      cr(n) = con43*c3c4

      do l = st - 1, s - en
         tmp1 = 1.0_dp/ul(1, l)
         tmp2 = tmp1*tmp1
         tmp3 = tmp1*tmp2
         un = ul(n, l)
         q = ql(l)

         fjac(:, :, l) = 0.0_dp
         fjac(1, n, l) = 1.0_dp
         do r = 2, 4
            if (r == n) then
               fjac(r, 1, l) = -(un*un*tmp2) + c2*q
               do m = 2, 4
                  if (m /= n) fjac(r, m, l) = -c2*(ul(m, l)*tmp1)
               end do
               fjac(r, n, l) = (2.0_dp - c2)*(un*tmp1)
               fjac(r, 5, l) = c2
            else
               fjac(r, 1, l) = -(ul(r, l)*un)*tmp2
               fjac(r, r, l) = un*tmp1
               fjac(r, n, l) = ul(r, l)*tmp1
            end if
         end do
         fjac(5, 1, l) = (c2*2.0_dp*q - c1*(ul(5, l)*tmp1))*(un*tmp1)
         do m = 2, 4
            if (m /= n) fjac(5, m, l) = -c2*(ul(m, l)*un)*tmp2
         end do
         fjac(5, n, l) = c1*ul(5, l)*tmp1 - c2*(un*un*tmp2 + q)
         fjac(5, 5, l) = c1*(un*tmp1)

         njac(:, :, l) = 0.0_dp
         do r = 2, 4
            njac(r, 1, l) = -cr(r)*tmp2*ul(r, l)
            njac(r, r, l) = cr(r)*tmp1
         end do
         njac(5, 1, l) = -(cr(2) - c1345)*tmp3*(ul(2, l)**2) &
                         - (cr(3) - c1345)*tmp3*(ul(3, l)**2) &
                         - (cr(4) - c1345)*tmp3*(ul(4, l)**2) &
                         - c1345*tmp2*ul(5, l)
         do r = 2, 4
            njac(5, r, l) = (cr(r) - c1345)*tmp2*ul(r, l)
         end do
         njac(5, 5, l) = c1345*tmp1
      end do

      lhsa = 0.0_dp
      lhsb = 0.0_dp
      do l = 0, s - 1
         do m = 1, 5
            lhsb(m, m, l) = 1.0_dp
         end do
      end do

      h1 = dt*t1(d)
      h2 = dt*t2(d)
      do l = st, s - 1 - en
         lhsa(:, :, l) = -h2*fjac(:, :, l - 1) - h1*njac(:, :, l - 1)
         lhsb(:, :, l) = h1*2.0_dp*njac(:, :, l)
         cl(:, :, l) = h2*fjac(:, :, l + 1) - h1*njac(:, :, l + 1)
         do m = 1, 5
            lhsa(m, m, l) = lhsa(m, m, l) - h1*dd(m, d)
            lhsb(m, m, l) = 1.0_dp + h1*2.0_dp*njac(m, m, l) + h1*2.0_dp*dd(m, d)
            cl(m, m, l) = cl(m, m, l) - h1*dd(m, d)
         end do
      end do

      if (first == 1) call binvcrhs(lhsb(:, :, 0), cl(:, :, 0), rl(:, 0))
      do l = first, s - 1 - last
         call matvec_sub(lhsa(:, :, l), rl(:, l - 1), rl(:, l))
         call matmul_sub(lhsa(:, :, l), cl(:, :, l - 1), lhsb(:, :, l))
         call binvcrhs(lhsb(:, :, l), cl(:, :, l), rl(:, l))
      end do
      if (last == 1) then
         call matvec_sub(lhsa(:, :, s - 1), rl(:, s - 2), rl(:, s - 1))
         call matmul_sub(lhsa(:, :, s - 1), cl(:, :, s - 2), lhsb(:, :, s - 1))
         call binvrhs(lhsb(:, :, s - 1), rl(:, s - 1))
      end if
   end subroutine solve_line
end subroutine eliminate_cell

! Back substitution over cell c along direction d: rhs(l) := rhs(l) -
! C(l) rhs(l+1), the last plane using the next cell's first plane
! (backsub_info) unless the cell is the last of the line.
subroutine backsubstitute(d, c, last)
   use bt_data
   implicit none
   integer, intent(in) :: d, c, last
   integer :: ta, tb, a, b

   call across(d, ta, tb)
   do b = cstart(tb, c), cell_size(tb, c) - cend(tb, c) - 1
      do a = cstart(ta, c), cell_size(ta, c) - cend(ta, c) - 1
         select case (d)
         case (1)
            call back_line(rhs(:, :, a, b, c), lhsc(:, :, :, a, b, c), backsub_info(:, a, b, c))
         case (2)
            call back_line(rhs(:, a, :, b, c), lhsc(:, :, a, :, b, c), backsub_info(:, a, b, c))
         case default
            call back_line(rhs(:, a, b, :, c), lhsc(:, :, a, b, :, c), backsub_info(:, a, b, c))
         end select
      end do
   end do

contains

   subroutine back_line(rl, cl, next)
      real(dp), intent(inout) :: rl(:, -1:)
      real(dp), intent(in) :: cl(:, :, -1:), next(5)
      integer :: s, l, m

      s = cell_size(d, c)
      if (last == 0) then
         do m = 1, 5
            rl(m, s - 1) = rl(m, s - 1) - cl(m, 1, s - 1)*next(1) - cl(m, 2, s - 1)*next(2) &
                           - cl(m, 3, s - 1)*next(3) - cl(m, 4, s - 1)*next(4) &
                           - cl(m, 5, s - 1)*next(5)
         end do
      end if
      do l = s - 2, 0, -1
         do m = 1, 5
            rl(m, l) = rl(m, l) - cl(m, 1, l)*rl(1, l + 1) - cl(m, 2, l)*rl(2, l + 1) &
                       - cl(m, 3, l)*rl(3, l + 1) - cl(m, 4, l)*rl(4, l + 1) &
                       - cl(m, 5, l)*rl(5, l + 1)
         end do
      end do
   end subroutine back_line
end subroutine backsubstitute
