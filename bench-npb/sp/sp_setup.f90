! bench-npb SP: set-up.  The communicators, the problem class, the
! multi-partition (make_set), the constants, the initial field and the
! exact forcing term, as NPB 3.3-MPI SP computes them.

! A bad class or rank count: rank 0 says so on stderr and ends the job
! with MPI_Abort; the others wait for that in a barrier (so that no other
! rank's abort cuts the message off).
subroutine usage_error(msg)
   use sp_data
   implicit none
   character(len=*), intent(in) :: msg
   integer :: ierr
   if (node == 0) then
      write (0, '(a)') trim(msg)
      flush (0)
   else
      call mpi_barrier(MPI_COMM_WORLD, ierr)
   end if
   call mpi_abort(MPI_COMM_WORLD, 1, ierr)
   stop 1
end subroutine usage_error

! MPI_Init, the rank count (a square, at most 1024), and NPB's
! communicators: comm_setup (the active ranks: all of them, since the count
! is square) and its duplicates comm_solve (line solves) and comm_rhs
! (copy_faces).
subroutine setup_mpi()
   use sp_data
   implicit none
   integer :: ierr, nc
   character(len=200) :: msg

   call mpi_init(ierr)
   call mpi_comm_size(MPI_COMM_WORLD, total_nodes, ierr)
   call mpi_comm_rank(MPI_COMM_WORLD, node, ierr)
   dp_type = MPI_DOUBLE_PRECISION

   nc = int(sqrt(real(total_nodes, dp) + 0.00001_dp))
   if (nc*nc /= total_nodes .or. total_nodes > 1024) then
      write (msg, '(a,i0,a)') 'ERROR: SP needs a square number of'// &
         ' processes (1, 4, 9, 16, ..., 1024), not ', total_nodes, ' ranks'
      call usage_error(msg)
   end if

   call mpi_comm_split(MPI_COMM_WORLD, 0, node, comm_setup, ierr)
   call mpi_comm_size(comm_setup, no_nodes, ierr)
   call mpi_comm_dup(comm_setup, comm_solve, ierr)
   call mpi_comm_dup(comm_setup, comm_rhs, ierr)
   root = 0
end subroutine setup_mpi

! The class named by the first argument (default S): grid, iterations, dt.
! The smallest cell must keep 3 points in each direction (NPB's make_set
! stops otherwise), which bounds the ranks of the small classes.
subroutine choose_class()
   use sp_data
   implicit none
   character(len=16) :: arg
   character(len=200) :: msg
   integer :: nc, maxnc

   arg = 'S'
   if (command_argument_count() >= 1) call get_command_argument(1, arg)
   cls = arg(1:1)
   select case (cls)
   case ('S', 's')
      cls = 'S'; problem_size = 12; niter = 100; dt = 0.015_dp
   case ('W', 'w')
      cls = 'W'; problem_size = 36; niter = 400; dt = 0.0015_dp
   case ('A', 'a')
      cls = 'A'; problem_size = 64; niter = 400; dt = 0.0015_dp
   case ('B', 'b')
      cls = 'B'; problem_size = 102; niter = 400; dt = 0.001_dp
   case ('C', 'c')
      cls = 'C'; problem_size = 162; niter = 400; dt = 0.00067_dp
   case default
      call usage_error('ERROR: unknown SP class "'//trim(arg)// &
                       '" (expected S, W, A, B or C)')
   end select
   if (len_trim(arg) /= 1) then
      call usage_error('ERROR: unknown SP class "'//trim(arg)// &
                       '" (expected S, W, A, B or C)')
   end if

   nc = int(sqrt(real(total_nodes, dp) + 0.00001_dp))
   maxnc = min(problem_size/3, 32)
   if (nc > maxnc) then
      write (msg, '(3a,i0,a,i0,a,i0,a)') 'ERROR: SP class ', cls, ' (', &
         problem_size, '^3) runs on at most ', maxnc*maxnc, &
         ' processes (cells of at least 3 points), not ', total_nodes, ' ranks'
      call usage_error(msg)
   end if
   grid_points = problem_size
   timeron = .false.
end subroutine choose_class

! NPB's multi-partition: rank node owns ncells cells, one in each z-layer of
! cells, placed diagonally so that each x-, y- and z-row of cells visits
! every rank once; the neighbours in a row of cells are the same ranks for
! all the cells (predecessor/successor).
subroutine make_set()
   use sp_data
   implicit none
   integer :: p, i, j, c, dir, size, excess, ierr

   ncells = int(sqrt(real(no_nodes, dp) + 0.00001_dp))
   p = ncells
   allocate (cell_coord(3, p), cell_low(3, p), cell_high(3, p), &
             cell_size(3, p), slice(3, p), cstart(3, p), cend(3, p))

   ! coordinates 0-based first, then shifted to 1-based
   cell_coord(1, 1) = mod(node, p)
   cell_coord(2, 1) = node/p
   cell_coord(3, 1) = 0
   do c = 2, p
      cell_coord(1, c) = mod(cell_coord(1, c - 1) + 1, p)
      cell_coord(2, c) = mod(cell_coord(2, c - 1) - 1 + p, p)
      cell_coord(3, c) = c - 1
   end do
   cell_coord = cell_coord + 1

   do dir = 1, 3
      do c = 1, p
         slice(dir, cell_coord(dir, c)) = c
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

   ! the first mod(n, p) cells of a direction get one point more
   do dir = 1, 3
      size = grid_points(dir)/p
      excess = mod(grid_points(dir), p)
      do c = 1, ncells
         if (cell_coord(dir, c) <= excess) then
            cell_size(dir, c) = size + 1
            cell_low(dir, c) = (cell_coord(dir, c) - 1)*(size + 1)
            cell_high(dir, c) = cell_low(dir, c) + size
         else
            cell_size(dir, c) = size
            cell_low(dir, c) = excess*(size + 1) &
                               + (cell_coord(dir, c) - excess - 1)*size
            cell_high(dir, c) = cell_low(dir, c) + size - 1
         end if
         if (cell_size(dir, c) <= 2) then
            write (0, '(a)') 'ERROR: SP cell size too small (min 3)'
            call mpi_abort(MPI_COMM_WORLD, 1, ierr)
            stop 1
         end if
      end do
   end do

   ! which cells touch the physical boundary (NPB's start/end)
   do c = 1, ncells
      do dir = 1, 3
         cstart(dir, c) = merge(1, 0, cell_coord(dir, c) == 1)
         cend(dir, c) = merge(1, 0, cell_coord(dir, c) == ncells)
      end do
   end do
end subroutine make_set

! The constants of the exact solution and of the scheme (NPB's values).
subroutine set_constants()
   use sp_data
   implicit none

   ce(1, :) = [2.0_dp, 0.0_dp, 0.0_dp, 4.0_dp, 5.0_dp, 3.0_dp, 0.5_dp, &
               0.02_dp, 0.01_dp, 0.03_dp, 0.5_dp, 0.4_dp, 0.3_dp]
   ce(2, :) = [1.0_dp, 0.0_dp, 0.0_dp, 0.0_dp, 1.0_dp, 2.0_dp, 3.0_dp, &
               0.01_dp, 0.03_dp, 0.02_dp, 0.4_dp, 0.3_dp, 0.5_dp]
   ce(3, :) = [2.0_dp, 2.0_dp, 0.0_dp, 0.0_dp, 0.0_dp, 2.0_dp, 3.0_dp, &
               0.04_dp, 0.03_dp, 0.05_dp, 0.3_dp, 0.5_dp, 0.4_dp]
   ce(4, :) = [2.0_dp, 2.0_dp, 0.0_dp, 0.0_dp, 0.0_dp, 2.0_dp, 3.0_dp, &
               0.03_dp, 0.05_dp, 0.04_dp, 0.2_dp, 0.1_dp, 0.3_dp]
   ce(5, :) = [5.0_dp, 4.0_dp, 3.0_dp, 2.0_dp, 0.1_dp, 0.4_dp, 0.3_dp, &
               0.05_dp, 0.04_dp, 0.03_dp, 0.1_dp, 0.3_dp, 0.2_dp]

   c1 = 1.4_dp
   c2 = 0.4_dp
   c3 = 0.1_dp
   c4 = 1.0_dp
   c5 = 1.4_dp
   bt = sqrt(0.5_dp)

   dnxm1 = 1.0_dp/real(grid_points(1) - 1, dp)
   dnym1 = 1.0_dp/real(grid_points(2) - 1, dp)
   dnzm1 = 1.0_dp/real(grid_points(3) - 1, dp)

   c1c2 = c1*c2
   c1c5 = c1*c5
   c3c4 = c3*c4
   c1345 = c1c5*c3c4
   conz1 = 1.0_dp - c1c5

   tx1 = 1.0_dp/(dnxm1*dnxm1)
   tx2 = 1.0_dp/(2.0_dp*dnxm1)
   tx3 = 1.0_dp/dnxm1
   ty1 = 1.0_dp/(dnym1*dnym1)
   ty2 = 1.0_dp/(2.0_dp*dnym1)
   ty3 = 1.0_dp/dnym1
   tz1 = 1.0_dp/(dnzm1*dnzm1)
   tz2 = 1.0_dp/(2.0_dp*dnzm1)
   tz3 = 1.0_dp/dnzm1

   dx1 = 0.75_dp; dx2 = 0.75_dp; dx3 = 0.75_dp; dx4 = 0.75_dp; dx5 = 0.75_dp
   dy1 = 0.75_dp; dy2 = 0.75_dp; dy3 = 0.75_dp; dy4 = 0.75_dp; dy5 = 0.75_dp
   dz1 = 1.0_dp; dz2 = 1.0_dp; dz3 = 1.0_dp; dz4 = 1.0_dp; dz5 = 1.0_dp

   dxmax = max(dx3, dx4)
   dymax = max(dy2, dy4)
   dzmax = max(dz2, dz3)
   dssp = 0.25_dp*max(dx1, max(dy1, dz1))
   c4dssp = 4.0_dp*dssp
   c5dssp = 5.0_dp*dssp

   dttx1 = dt*tx1
   dttx2 = dt*tx2
   dtty1 = dt*ty1
   dtty2 = dt*ty2
   dttz1 = dt*tz1
   dttz2 = dt*tz2
   c2dttx1 = 2.0_dp*dttx1
   c2dtty1 = 2.0_dp*dtty1
   c2dttz1 = 2.0_dp*dttz1

   dtdssp = dt*dssp
   comz1 = dtdssp
   comz4 = 4.0_dp*dtdssp
   comz5 = 5.0_dp*dtdssp
   comz6 = 6.0_dp*dtdssp

   c3c4tx3 = c3c4*tx3
   c3c4ty3 = c3c4*ty3
   c3c4tz3 = c3c4*tz3

   dx1tx1 = dx1*tx1; dx2tx1 = dx2*tx1; dx3tx1 = dx3*tx1
   dx4tx1 = dx4*tx1; dx5tx1 = dx5*tx1
   dy1ty1 = dy1*ty1; dy2ty1 = dy2*ty1; dy3ty1 = dy3*ty1
   dy4ty1 = dy4*ty1; dy5ty1 = dy5*ty1
   dz1tz1 = dz1*tz1; dz2tz1 = dz2*tz1; dz3tz1 = dz3*tz1
   dz4tz1 = dz4*tz1; dz5tz1 = dz5*tz1

   c2iv = 2.5_dp
   con43 = 4.0_dp/3.0_dp
   con16 = 1.0_dp/6.0_dp

   xxcon1 = c3c4tx3*con43*tx3
   xxcon2 = c3c4tx3*tx3
   xxcon3 = c3c4tx3*conz1*tx3
   xxcon4 = c3c4tx3*con16*tx3
   xxcon5 = c3c4tx3*c1c5*tx3

   yycon1 = c3c4ty3*con43*ty3
   yycon2 = c3c4ty3*ty3
   yycon3 = c3c4ty3*conz1*ty3
   yycon4 = c3c4ty3*con16*ty3
   yycon5 = c3c4ty3*c1c5*ty3

   zzcon1 = c3c4tz3*con43*tz3
   zzcon2 = c3c4tz3*tz3
   zzcon3 = c3c4tz3*conz1*tz3
   zzcon4 = c3c4tz3*con16*tz3
   zzcon5 = c3c4tz3*c1c5*tz3
end subroutine set_constants

! Sizes (in doubles) and offsets of the six face buffers: dim variables,
! two planes per face, for the cells that have a neighbour on that side.
subroutine compute_buffer_size(dim)
   use sp_data
   implicit none
   integer, intent(in) :: dim
   integer :: c, face

   if (ncells == 1) return

   west_size = 0
   east_size = 0
   north_size = 0
   south_size = 0
   top_size = 0
   bottom_size = 0
   do c = 1, ncells
      face = cell_size(2, c)*cell_size(3, c)*dim*2
      if (cell_coord(1, c) /= 1) west_size = west_size + face
      if (cell_coord(1, c) /= ncells) east_size = east_size + face
   end do
   do c = 1, ncells
      face = cell_size(1, c)*cell_size(3, c)*dim*2
      if (cell_coord(2, c) /= 1) south_size = south_size + face
      if (cell_coord(2, c) /= ncells) north_size = north_size + face
   end do
   do c = 1, ncells
      face = cell_size(1, c)*cell_size(2, c)*dim*2
      if (cell_coord(3, c) /= 1) bottom_size = bottom_size + face
      if (cell_coord(3, c) /= ncells) top_size = top_size + face
   end do

   start_send_west = 1
   start_send_east = start_send_west + west_size
   start_send_south = start_send_east + east_size
   start_send_north = start_send_south + south_size
   start_send_bottom = start_send_north + north_size
   start_send_top = start_send_bottom + bottom_size
   start_recv_west = 1
   start_recv_east = start_recv_west + west_size
   start_recv_south = start_recv_east + east_size
   start_recv_north = start_recv_south + south_size
   start_recv_bottom = start_recv_north + north_size
   start_recv_top = start_recv_bottom + bottom_size
end subroutine compute_buffer_size

! The exact solution at (xi, eta, zeta): a polynomial per variable.
subroutine exact_solution(xi, eta, zeta, dtemp)
   use sp_data
   implicit none
   real(dp), intent(in) :: xi, eta, zeta
   real(dp), intent(out) :: dtemp(5)
   integer :: m

   do m = 1, 5
      dtemp(m) = ce(m, 1) &
                 + xi*(ce(m, 2) + xi*(ce(m, 5) + xi*(ce(m, 8) + xi*ce(m, 11)))) &
                 + eta*(ce(m, 3) + eta*(ce(m, 6) + eta*(ce(m, 9) + eta*ce(m, 12)))) &
                 + zeta*(ce(m, 4) + zeta*(ce(m, 7) + zeta*(ce(m, 10) &
                                                           + zeta*ce(m, 13))))
   end do
end subroutine exact_solution

! u := transfinite (tri-linear) interpolation of the exact boundary values,
! then the exact values on the six faces of the grid.  Everything, ghosts
! included, starts at (1, 0, 0, 0, 1) so that 1/u(1) is defined everywhere.
subroutine initialize()
   use sp_data
   implicit none
   integer :: c, i, j, k, m, ii, jj, kk, ix, iy, iz
   real(dp) :: xi, eta, zeta, pface(5, 3, 2), pxi, peta, pzeta

   do c = 1, ncells
      do kk = -1, imax
         do jj = -1, imax
            do ii = -1, imax
               u(ii, jj, kk, 1, c) = 1.0_dp
               u(ii, jj, kk, 2, c) = 0.0_dp
               u(ii, jj, kk, 3, c) = 0.0_dp
               u(ii, jj, kk, 4, c) = 0.0_dp
               u(ii, jj, kk, 5, c) = 1.0_dp
            end do
         end do
      end do
   end do

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
               do ix = 1, 2
                  call exact_solution(real(ix - 1, dp), eta, zeta, pface(1, 1, ix))
               end do
               do iy = 1, 2
                  call exact_solution(xi, real(iy - 1, dp), zeta, pface(1, 2, iy))
               end do
               do iz = 1, 2
                  call exact_solution(xi, eta, real(iz - 1, dp), pface(1, 3, iz))
               end do
               do m = 1, 5
                  pxi = xi*pface(m, 1, 2) + (1.0_dp - xi)*pface(m, 1, 1)
                  peta = eta*pface(m, 2, 2) + (1.0_dp - eta)*pface(m, 2, 1)
                  pzeta = zeta*pface(m, 3, 2) + (1.0_dp - zeta)*pface(m, 3, 1)
                  u(ii, jj, kk, m, c) = pxi + peta + pzeta - pxi*peta &
                                        - pxi*pzeta - peta*pzeta + pxi*peta*pzeta
               end do
               ii = ii + 1
            end do
            jj = jj + 1
         end do
         kk = kk + 1
      end do
   end do

   ! west and east faces (xi = 0, 1)
   call face_x(slice(1, 1), 0, 0.0_dp)
   c = slice(1, ncells)
   call face_x(c, cell_size(1, c) - 1, 1.0_dp)
   ! south and north faces (eta = 0, 1)
   call face_y(slice(2, 1), 0, 0.0_dp)
   c = slice(2, ncells)
   call face_y(c, cell_size(2, c) - 1, 1.0_dp)
   ! bottom and top faces (zeta = 0, 1)
   call face_z(slice(3, 1), 0, 0.0_dp)
   c = slice(3, ncells)
   call face_z(c, cell_size(3, c) - 1, 1.0_dp)

contains

   subroutine face_x(c, ii, xi)
      integer, intent(in) :: c, ii
      real(dp), intent(in) :: xi
      integer :: j, k, jj, kk
      real(dp) :: eta, zeta, temp(5)
      kk = 0
      do k = cell_low(3, c), cell_high(3, c)
         zeta = real(k, dp)*dnzm1
         jj = 0
         do j = cell_low(2, c), cell_high(2, c)
            eta = real(j, dp)*dnym1
            call exact_solution(xi, eta, zeta, temp)
            u(ii, jj, kk, 1:5, c) = temp
            jj = jj + 1
         end do
         kk = kk + 1
      end do
   end subroutine face_x

   subroutine face_y(c, jj, eta)
      integer, intent(in) :: c, jj
      real(dp), intent(in) :: eta
      integer :: i, k, ii, kk
      real(dp) :: xi, zeta, temp(5)
      kk = 0
      do k = cell_low(3, c), cell_high(3, c)
         zeta = real(k, dp)*dnzm1
         ii = 0
         do i = cell_low(1, c), cell_high(1, c)
            xi = real(i, dp)*dnxm1
            call exact_solution(xi, eta, zeta, temp)
            u(ii, jj, kk, 1:5, c) = temp
            ii = ii + 1
         end do
         kk = kk + 1
      end do
   end subroutine face_y

   subroutine face_z(c, kk, zeta)
      integer, intent(in) :: c, kk
      real(dp), intent(in) :: zeta
      integer :: i, j, ii, jj
      real(dp) :: xi, eta, temp(5)
      jj = 0
      do j = cell_low(2, c), cell_high(2, c)
         eta = real(j, dp)*dnym1
         ii = 0
         do i = cell_low(1, c), cell_high(1, c)
            xi = real(i, dp)*dnxm1
            call exact_solution(xi, eta, zeta, temp)
            u(ii, jj, kk, 1:5, c) = temp
            ii = ii + 1
         end do
         jj = jj + 1
      end do
   end subroutine face_z
end subroutine initialize

! The three penta-diagonal systems start as identities: rows on the
! physical boundary keep that form for the whole run.
subroutine lhsinit()
   use sp_data
   implicit none
   integer :: c, n, i, j, k

   do c = 1, ncells
      do n = 1, 15
         do k = 0, cell_size(3, c) - 1
            do j = 0, cell_size(2, c) - 1
               do i = 0, cell_size(1, c) - 1
                  lhs(i, j, k, n, c) = 0.0_dp
               end do
            end do
         end do
      end do
      do n = 1, 3
         do k = 0, cell_size(3, c) - 1
            do j = 0, cell_size(2, c) - 1
               do i = 0, cell_size(1, c) - 1
                  lhs(i, j, k, 5*n - 2, c) = 1.0_dp
               end do
            end do
         end do
      end do
   end do
end subroutine lhsinit
