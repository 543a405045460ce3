! Graph and distributed-graph topologies and neighbourhood collectives
! from Fortran (use mpi), on 4 ranks: MPI_UNWEIGHTED and
! MPI_WEIGHTS_EMPTY (COMMON blocks), weights, MPI_NEIGHBOR_ALLTOALL on a
! periodic 1-D grid, MPI_NEIGHBOR_ALLGATHER on a ring graph,
! MPI_COMM_CREATE_GROUP. One line per check: `fg step=NAME rank=R ...`.
program f90_graph
  use mpi
  implicit none
  integer :: ierr, rank, size, cart, ring, adj, dg, topo, indeg, outdeg, i
  integer :: dims(1), srcs(4), dsts(4), sw(4), dw(4), sbuf(4), rbuf(4)
  integer :: index(4), edges(8), world, grp, gc, gsize, members(2)
  integer :: src(1), deg(1), dst(2), wts(2)
  logical :: periods(1), weighted

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)

  ! periodic 1-D grid: block 1 goes left, block 2 right
  dims(1) = size
  periods(1) = .true.
  call MPI_CART_CREATE(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  sbuf(1) = 100 * rank
  sbuf(2) = 100 * rank + 1
  rbuf = -1
  call MPI_NEIGHBOR_ALLTOALL(sbuf, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, cart, ierr)
  write (*, '(a,i0,a,i0,a,i0,a,i0)') 'fg step=cart rank=', rank, ' ierr=', ierr, &
       ' left=', rbuf(1), ' right=', rbuf(2)

  ! ring graph
  do i = 0, size - 1
    index(i + 1) = 2 * (i + 1)
    edges(2 * i + 1) = mod(i + size - 1, size)
    edges(2 * i + 2) = mod(i + 1, size)
  end do
  call MPI_GRAPH_CREATE(MPI_COMM_WORLD, size, index, edges, .false., ring, ierr)
  call MPI_TOPO_TEST(ring, topo, ierr)
  call MPI_NEIGHBOR_ALLGATHER(rank, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, ring, ierr)
  write (*, '(a,i0,a,i0,a,i0,a,i0)') 'fg step=ring rank=', rank, ' topo=', topo, &
       ' a=', rbuf(1), ' b=', rbuf(2)

  ! adjacent, unweighted: in from the left, out to the right
  srcs(1) = mod(rank + size - 1, size)
  dsts(1) = mod(rank + 1, size)
  call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, &
       MPI_UNWEIGHTED, MPI_INFO_NULL, .false., adj, ierr)
  call MPI_DIST_GRAPH_NEIGHBORS_COUNT(adj, indeg, outdeg, weighted, ierr)
  write (*, '(a,i0,a,i0,a,i0,a,l1)') 'fg step=adj rank=', rank, ' in=', indeg, ' out=', outdeg, &
       ' weighted=', weighted

  ! created: rank 0 gives every edge r -> r+1 with weight 7 r; the
  ! others give none (MPI_WEIGHTS_EMPTY)
  if (rank == 0) then
    do i = 0, size - 1
      srcs(i + 1) = i
      dsts(i + 1) = mod(i + 1, size)
      sw(i + 1) = 1
      dw(i + 1) = 7 * i
    end do
    call MPI_DIST_GRAPH_CREATE(MPI_COMM_WORLD, size, srcs, sw, dsts, dw, MPI_INFO_NULL, &
         .true., dg, ierr)
  else
    call MPI_DIST_GRAPH_CREATE(MPI_COMM_WORLD, 0, src, deg, dst, MPI_WEIGHTS_EMPTY, &
         MPI_INFO_NULL, .true., dg, ierr)
  end if
  sw = -5
  dw = -5
  call MPI_DIST_GRAPH_NEIGHBORS(dg, 4, srcs, sw, 4, dsts, dw, ierr)
  write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0)') 'fg step=dg rank=', rank, ' src=', srcs(1), &
       ' sw=', sw(1), ' dst=', dsts(1), ' dw=', dw(1)
  dw = -5
  call MPI_DIST_GRAPH_NEIGHBORS(dg, 4, srcs, MPI_UNWEIGHTED, 4, dsts, dw, ierr)
  write (*, '(a,i0,a,i0,a,i0)') 'fg step=dg_unw rank=', rank, ' dw=', dw(1), ' ierr=', ierr

  ! a group of the two last ranks
  call MPI_COMM_GROUP(MPI_COMM_WORLD, world, ierr)
  members(1) = size - 1
  members(2) = size - 2
  call MPI_GROUP_INCL(world, 2, members, grp, ierr)
  if (rank >= size - 2) then
    call MPI_COMM_CREATE_GROUP(MPI_COMM_WORLD, grp, 9, gc, ierr)
    call MPI_COMM_SIZE(gc, gsize, ierr)
    call MPI_COMM_RANK(gc, i, ierr)
    write (*, '(a,i0,a,i0,a,i0)') 'fg step=group rank=', rank, ' gsize=', gsize, ' grank=', i
    call MPI_COMM_FREE(gc, ierr)
  end if
  call MPI_GROUP_FREE(grp, ierr)
  call MPI_GROUP_FREE(world, ierr)
  call MPI_COMM_FREE(cart, ierr)
  call MPI_COMM_FREE(ring, ierr)
  call MPI_COMM_FREE(adj, ierr)
  call MPI_COMM_FREE(dg, ierr)
  call MPI_FINALIZE(ierr)
end program f90_graph
