! bench-npb SP: the shared state of the benchmark (problem class, the
! multi-partition of the grid into cells, the MPI communicators, the
! constants of the discretisation and the field arrays).
!
! Layout as in NPB 3.3-MPI SP: every rank owns ncells = sqrt(nprocs) cells;
! cell c spans cell_low(:,c)..cell_high(:,c) of the global grid and is
! stored with local indices 0..cell_size(:,c)-1 (u carries two ghost layers
! on each side, the derived quantities one).  cstart/cend are 1 where the
! cell touches the lower/upper physical boundary in that direction (NPB's
! start/end arrays).

module sp_data
   implicit none
   include 'mpif.h'

   integer, parameter :: dp = kind(1.0d0)

   ! tags of copy_faces and of the line solves, as NPB
   integer, parameter :: EAST = 2000, WEST = 3000, NORTH = 4000, &
                         SOUTH = 5000, BOTTOM = 6000, TOP = 7000
   integer, parameter :: DEFAULT_TAG = 0

   ! problem class
   character :: cls
   integer :: problem_size, niter
   integer :: grid_points(3)
   real(dp) :: dt
   logical :: timeron

   ! MPI: rank, ranks, communicators as NPB's setup_mpi makes them
   integer :: node, no_nodes, total_nodes, root
   integer :: comm_setup, comm_solve, comm_rhs, dp_type

   ! constants of the discretisation (NPB's set_constants)
   real(dp) :: ce(5, 13)
   real(dp) :: tx1, tx2, tx3, ty1, ty2, ty3, tz1, tz2, tz3
   real(dp) :: dx1, dx2, dx3, dx4, dx5, dy1, dy2, dy3, dy4, dy5
   real(dp) :: dz1, dz2, dz3, dz4, dz5, dssp
   real(dp) :: dxmax, dymax, dzmax
   real(dp) :: xxcon1, xxcon2, xxcon3, xxcon4, xxcon5
   real(dp) :: dx1tx1, dx2tx1, dx3tx1, dx4tx1, dx5tx1
   real(dp) :: yycon1, yycon2, yycon3, yycon4, yycon5
   real(dp) :: dy1ty1, dy2ty1, dy3ty1, dy4ty1, dy5ty1
   real(dp) :: zzcon1, zzcon2, zzcon3, zzcon4, zzcon5
   real(dp) :: dz1tz1, dz2tz1, dz3tz1, dz4tz1, dz5tz1
   real(dp) :: dnxm1, dnym1, dnzm1, c1c2, c1c5, c3c4, c1345, conz1
   real(dp) :: c1, c2, c3, c4, c5, c4dssp, c5dssp, dtdssp, dttx1, bt
   real(dp) :: dttx2, dtty1, dtty2, dttz1, dttz2, c2dttx1, c2dtty1, c2dttz1
   real(dp) :: comz1, comz4, comz5, comz6, c3c4tx3, c3c4ty3, c3c4tz3
   real(dp) :: c2iv, con43, con16

   ! the multi-partition
   integer :: ncells
   integer, allocatable :: cell_coord(:, :), cell_low(:, :), cell_high(:, :)
   integer, allocatable :: cell_size(:, :), slice(:, :)
   integer, allocatable :: cstart(:, :), cend(:, :)
   integer :: predecessor(3), successor(3)

   ! array bounds: the largest cell plus one (NPB's MAX_CELL_DIM), the
   ! first two padded to an odd extent
   integer :: max_cell_dim, imax, jmax, kmax, imaxp, jmaxp, buf_size

   ! fields of the cells owned by this rank
   real(dp), allocatable :: u(:, :, :, :, :)
   real(dp), allocatable :: us(:, :, :, :), vs(:, :, :, :), ws(:, :, :, :)
   real(dp), allocatable :: qs(:, :, :, :), ainv(:, :, :, :)
   real(dp), allocatable :: rho_i(:, :, :, :), speed(:, :, :, :)
   real(dp), allocatable :: square(:, :, :, :)
   real(dp), allocatable :: rhs(:, :, :, :, :), forcing(:, :, :, :, :)
   real(dp), allocatable :: lhs(:, :, :, :, :)
   real(dp), allocatable :: in_buffer(:), out_buffer(:)

   ! one-dimensional work arrays along a grid line
   real(dp), allocatable :: cv(:), rhon(:), rhos(:), rhoq(:), cuf(:), q(:)
   real(dp), allocatable :: ue(:, :), buf(:, :)

   ! sizes and offsets of the six face buffers of copy_faces
   integer :: west_size, east_size, bottom_size, top_size
   integer :: north_size, south_size
   integer :: start_send_west, start_send_east, start_send_south
   integer :: start_send_north, start_send_bottom, start_send_top
   integer :: start_recv_west, start_recv_east, start_recv_south
   integer :: start_recv_north, start_recv_bottom, start_recv_top

contains

   ! Sizes the arrays for the cells of this rank (after make_set).
   subroutine allocate_fields()
      max_cell_dim = problem_size/ncells + 1
      imax = max_cell_dim
      jmax = max_cell_dim
      kmax = max_cell_dim
      imaxp = imax/2*2 + 1
      jmaxp = jmax/2*2 + 1
      ! +1: no empty buffers on one rank
      buf_size = max_cell_dim*max_cell_dim*(ncells - 1)*60*2 + 1

      allocate (u(-2:imaxp + 1, -2:jmaxp + 1, -2:kmax + 1, 5, ncells))
      allocate (us(-1:imax, -1:jmax, -1:kmax, ncells), &
                vs(-1:imax, -1:jmax, -1:kmax, ncells), &
                ws(-1:imax, -1:jmax, -1:kmax, ncells), &
                qs(-1:imax, -1:jmax, -1:kmax, ncells), &
                ainv(-1:imax, -1:jmax, -1:kmax, ncells), &
                rho_i(-1:imax, -1:jmax, -1:kmax, ncells), &
                speed(-1:imax, -1:jmax, -1:kmax, ncells), &
                square(-1:imax, -1:jmax, -1:kmax, ncells))
      allocate (rhs(0:imaxp - 1, 0:jmaxp - 1, 0:kmax - 1, 5, ncells), &
                forcing(0:imaxp - 1, 0:jmaxp - 1, 0:kmax - 1, 5, ncells))
      allocate (lhs(0:imaxp - 1, 0:jmaxp - 1, 0:kmax - 1, 15, ncells))
      allocate (in_buffer(buf_size), out_buffer(buf_size))
      allocate (cv(-2:max_cell_dim + 1), rhon(-2:max_cell_dim + 1), &
                rhos(-2:max_cell_dim + 1), rhoq(-2:max_cell_dim + 1), &
                cuf(-2:max_cell_dim + 1), q(-2:max_cell_dim + 1))
      allocate (ue(-2:max_cell_dim + 1, 5), buf(-2:max_cell_dim + 1, 5))
   end subroutine allocate_fields

end module sp_data
