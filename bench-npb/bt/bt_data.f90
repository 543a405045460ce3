! bench-npb BT: shared data of the block tridiagonal solver (class,
! multi-partition, fields, constants) and the 5x5 block operations.
!
! Storage follows NPB 3.3-MPI BT: each rank owns ncells = sqrt(nprocs)
! cells; every field has one slot per cell, dimensioned by the largest cell
! edge maxdim = problem_size/ncells + 1 (NPB's MAX_CELL_DIM), with ghost
! layers where the stencils need them.  Unlike NPB, where maxcells and the
! class are compiled in, the arrays are allocated at run time.

module bt_data
   use mpi
   implicit none

   integer, parameter :: dp = kind(1.0d0)

   ! message tag bases of NPB (copy_faces and the line solves)
   integer, parameter :: EAST = 2000, WEST = 3000, NORTH = 4000, &
                         SOUTH = 5000, BOTTOM = 6000, TOP = 7000
   ! the line solves of direction d: forward (elimination) and backward
   ! (back substitution) tag bases
   integer, parameter :: forward_tag(3) = [WEST, SOUTH, BOTTOM]
   integer, parameter :: backward_tag(3) = [EAST, NORTH, TOP]

   ! ---- problem class --------------------------------------------------
   character :: cls
   integer :: problem_size, niter, grid_points(3)
   real(dp) :: dt, dtref, xcrref(5), xceref(5)

   ! ---- MPI --------------------------------------------------------------
   integer :: node, total_nodes, no_nodes, root
   integer :: comm_setup, comm_solve, comm_rhs

   ! ---- multi-partition: cells of this rank -------------------------------
   ! cell_coord(d, c) is 1-based; cstart/cend(d, c) are 1 where the cell
   ! touches the low/high boundary of the grid in direction d (NPB's
   ! start/end); slice(d, n) is the cell in plane n of direction d.
   integer :: ncells, maxdim
   integer, allocatable :: cell_coord(:, :), cell_low(:, :), cell_high(:, :)
   integer, allocatable :: cell_size(:, :), slice(:, :), cstart(:, :), cend(:, :)
   integer :: successor(3), predecessor(3)

   ! copy_faces buffers, index 0..5 = east, west, north, south, top, bottom
   integer :: face_len(0:5), face_send(0:5), face_recv(0:5)
   real(dp), allocatable :: face_out(:), face_in(:)

   ! line-solve buffers: C' and rhs' forward (30 doubles per line), the
   ! solution backward (5 per line), maxdim**2 lines as in NPB
   real(dp), allocatable :: solve_out(:), solve_in(:)

   ! ---- fields -------------------------------------------------------------
   real(dp), allocatable :: u(:, :, :, :, :)        ! (5, -2:m+1, ..., cell)
   real(dp), allocatable :: vel(:, :, :, :, :)      ! (3, -1:m, ..., cell): u/rho
   real(dp), allocatable :: rho_i(:, :, :, :)       ! (-1:m, ..., cell)
   real(dp), allocatable :: qs(:, :, :, :), square(:, :, :, :)
   real(dp), allocatable :: forcing(:, :, :, :, :)  ! (5, 0:m-1, ..., cell)
   real(dp), allocatable :: rhs(:, :, :, :, :)      ! (5, -1:m-1, ..., cell)
   real(dp), allocatable :: lhsc(:, :, :, :, :, :)  ! (5, 5, -1:m-1, ..., cell)
   real(dp), allocatable :: backsub_info(:, :, :, :) ! (5, 0:m, 0:m, cell)

   ! ---- constants (set_constants) -------------------------------------------
   real(dp) :: ce(5, 13)
   real(dp) :: c1, c2, c3, c4, c5, c1c2, c1c5, c3c4, c1345, conz1
   real(dp) :: con43, con16, dssp
   ! per direction d = 1, 2, 3 (x, y, z): 1/h**2, 1/(2h), 1/h, 1/(n-1)
   real(dp) :: t1(3), t2(3), t3(3), dnm1(3)
   ! dd(m, d): the dx/dy/dz coefficients; dt1(m, d) = dd(m, d)*t1(d)
   real(dp) :: dd(5, 3), dt1(5, 3)
   ! xxcon1..5, yycon1..5, zzcon1..5 as con(k, d)
   real(dp) :: con(5, 3)

contains

   ! The point (i, j, k) of a cell at position l along direction d and at
   ! a, b across it (a the lower of the two other directions).
   pure subroutine ijk(d, l, a, b, i, j, k)
      integer, intent(in) :: d, l, a, b
      integer, intent(out) :: i, j, k
      select case (d)
      case (1)
         i = l; j = a; k = b
      case (2)
         i = a; j = l; k = b
      case default
         i = a; j = b; k = l
      end select
   end subroutine ijk

   ! The two directions across direction d, lower first.
   pure subroutine across(d, ta, tb)
      integer, intent(in) :: d
      integer, intent(out) :: ta, tb
      select case (d)
      case (1)
         ta = 2; tb = 3
      case (2)
         ta = 1; tb = 3
      case default
         ta = 1; tb = 2
      end select
   end subroutine across

   ! The exact solution at (xi, eta, zeta): a polynomial in each coordinate
   ! with the coefficients ce.
   pure subroutine exact_solution(xi, eta, zeta, val)
      real(dp), intent(in) :: xi, eta, zeta
      real(dp), intent(out) :: val(5)
      integer :: m
      do m = 1, 5
         val(m) = ce(m, 1) &
                  + xi*(ce(m, 2) + xi*(ce(m, 5) + xi*(ce(m, 8) + xi*ce(m, 11)))) &
                  + eta*(ce(m, 3) + eta*(ce(m, 6) + eta*(ce(m, 9) + eta*ce(m, 12)))) &
                  + zeta*(ce(m, 4) + zeta*(ce(m, 7) + zeta*(ce(m, 10) + zeta*ce(m, 13))))
      end do
   end subroutine exact_solution

   ! b := b - a.v
   pure subroutine matvec_sub(a, v, b)
      real(dp), intent(in) :: a(5, 5), v(5)
      real(dp), intent(inout) :: b(5)
      integer :: i
      do i = 1, 5
         b(i) = b(i) - a(i, 1)*v(1) - a(i, 2)*v(2) - a(i, 3)*v(3) &
                - a(i, 4)*v(4) - a(i, 5)*v(5)
      end do
   end subroutine matvec_sub

   ! c := c - a.b
   pure subroutine matmul_sub(a, b, c)
      real(dp), intent(in) :: a(5, 5), b(5, 5)
      real(dp), intent(inout) :: c(5, 5)
      integer :: i, j
      do j = 1, 5
         do i = 1, 5
            c(i, j) = c(i, j) - a(i, 1)*b(1, j) - a(i, 2)*b(2, j) &
                      - a(i, 3)*b(3, j) - a(i, 4)*b(4, j) - a(i, 5)*b(5, j)
         end do
      end do
   end subroutine matmul_sub

   ! Gauss-Jordan elimination without pivoting: c := lhs^-1 c and
   ! r := lhs^-1 r (lhs is destroyed).
   pure subroutine binvcrhs(lhs, c, r)
      real(dp), intent(inout) :: lhs(5, 5), c(5, 5), r(5)
      real(dp) :: pivot, coeff
      integer :: p, q
      do p = 1, 5
         pivot = 1.0_dp/lhs(p, p)
         lhs(p, p + 1:5) = lhs(p, p + 1:5)*pivot
         c(p, :) = c(p, :)*pivot
         r(p) = r(p)*pivot
         do q = 1, 5
            if (q == p) cycle
            coeff = lhs(q, p)
            lhs(q, p + 1:5) = lhs(q, p + 1:5) - coeff*lhs(p, p + 1:5)
            c(q, :) = c(q, :) - coeff*c(p, :)
            r(q) = r(q) - coeff*r(p)
         end do
      end do
   end subroutine binvcrhs

   ! r := lhs^-1 r (lhs is destroyed).
   pure subroutine binvrhs(lhs, r)
      real(dp), intent(inout) :: lhs(5, 5), r(5)
      real(dp) :: pivot, coeff
      integer :: p, q
      do p = 1, 5
         pivot = 1.0_dp/lhs(p, p)
         lhs(p, p + 1:5) = lhs(p, p + 1:5)*pivot
         r(p) = r(p)*pivot
         do q = 1, 5
            if (q == p) cycle
            coeff = lhs(q, p)
            lhs(q, p + 1:5) = lhs(q, p + 1:5) - coeff*lhs(p, p + 1:5)
            r(q) = r(q) - coeff*r(p)
         end do
      end do
   end subroutine binvrhs

end module bt_data
