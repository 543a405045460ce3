//! Fortran bindings of the graph and distributed-graph topology calls and
//! of the neighbourhood collectives (ranks count from 0 in Fortran too).
//!
//! Written by hand (listed in `generator::HAND_WRITTEN`): the three calls
//! with weight arrays, where Fortran's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY
//! (COMMON blocks recognised by address, see `commons`) become C's markers.
use super::commons::{special, Special};
use super::kinds::put_ierror;
use crate::abi::graph::{unweighted, weights_empty};
use crate::sys::{self, MPI_Fint};
use std::os::raw::{c_int, c_void};

fortran! {
    mpi_graph_create_ = PMPI_Graph_create(comm_old: Int, nnodes: Int, index: Ints, edges: Ints, reorder: Logical, comm_graph: IntOut);
    mpi_graphdims_get_ = PMPI_Graphdims_get(comm: Int, nnodes: IntOut, nedges: IntOut);
    mpi_graph_get_ = PMPI_Graph_get(comm: Int, maxindex: Int, maxedges: Int, index: Ints, edges: Ints);
    mpi_graph_neighbors_count_ = PMPI_Graph_neighbors_count(comm: Int, rank: Int, nneighbors: IntOut);
    mpi_graph_neighbors_ = PMPI_Graph_neighbors(comm: Int, rank: Int, maxneighbors: Int, neighbors: Ints);
    mpi_graph_map_ = PMPI_Graph_map(comm: Int, nnodes: Int, index: Ints, edges: Ints, newrank: IntOut);
    mpi_cart_map_ = PMPI_Cart_map(comm: Int, ndims: Int, dims: Ints, periods: Logicals, newrank: IntOut);
    mpi_dist_graph_neighbors_count_ = PMPI_Dist_graph_neighbors_count(comm: Int, indegree: IntOut, outdegree: IntOut, weighted: Flag);
    mpi_neighbor_allgather_ = PMPI_Neighbor_allgather(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, comm: Int);
    mpi_neighbor_allgatherv_ = PMPI_Neighbor_allgatherv(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcounts: Ints, displs: Ints, recvtype: Int, comm: Int);
    mpi_neighbor_alltoall_ = PMPI_Neighbor_alltoall(sendbuf: Buf, sendcount: Int, sendtype: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, comm: Int);
    mpi_neighbor_alltoallv_ = PMPI_Neighbor_alltoallv(sendbuf: Buf, sendcounts: Ints, sdispls: Ints, sendtype: Int, recvbuf: Buf, recvcounts: Ints, rdispls: Ints, recvtype: Int, comm: Int);
    mpi_neighbor_alltoallw_ = PMPI_Neighbor_alltoallw(sendbuf: Buf, sendcounts: Ints, sdispls: Aints, sendtypes: Ints, recvbuf: Buf, recvcounts: Ints, rdispls: Aints, recvtypes: Ints, comm: Int);
}

/// A Fortran weight array as C sees it (the markers translated).
fn weights(p: *mut MPI_Fint) -> *mut c_int {
    match special(p as *const c_void) {
        Some(Special::Unweighted) => unweighted(),
        Some(Special::WeightsEmpty) => weights_empty(),
        _ => p,
    }
}

/// `MPI_DIST_GRAPH_CREATE(COMM_OLD, N, SOURCES, DEGREES, DESTINATIONS,
/// WEIGHTS, INFO, REORDER, COMM_DIST_GRAPH, IERROR)`
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mpi_dist_graph_create_(
    comm_old: *const MPI_Fint,
    n: *const MPI_Fint,
    sources: *mut MPI_Fint,
    degrees: *mut MPI_Fint,
    destinations: *mut MPI_Fint,
    weights_: *mut MPI_Fint,
    info: *const MPI_Fint,
    reorder: *const MPI_Fint,
    comm_dist_graph: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: gfortran passes every argument by reference; the arrays are
    // the program's, of the sizes MPI requires.
    let rc = unsafe {
        sys::PMPI_Dist_graph_create(
            *comm_old,
            *n,
            sources,
            degrees,
            destinations,
            weights(weights_),
            *info,
            (*reorder != 0) as c_int,
            comm_dist_graph,
        )
    };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_dist_graph_create_(comm_old: *const MPI_Fint, n: *const MPI_Fint, sources: *mut MPI_Fint, degrees: *mut MPI_Fint, destinations: *mut MPI_Fint, weights_: *mut MPI_Fint, info: *const MPI_Fint, reorder: *const MPI_Fint, comm_dist_graph: *mut MPI_Fint, ierror: *mut MPI_Fint));

/// `MPI_DIST_GRAPH_CREATE_ADJACENT(COMM_OLD, INDEGREE, SOURCES,
/// SOURCEWEIGHTS, OUTDEGREE, DESTINATIONS, DESTWEIGHTS, INFO, REORDER,
/// COMM_DIST_GRAPH, IERROR)`
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mpi_dist_graph_create_adjacent_(
    comm_old: *const MPI_Fint,
    indegree: *const MPI_Fint,
    sources: *mut MPI_Fint,
    sourceweights: *mut MPI_Fint,
    outdegree: *const MPI_Fint,
    destinations: *mut MPI_Fint,
    destweights: *mut MPI_Fint,
    info: *const MPI_Fint,
    reorder: *const MPI_Fint,
    comm_dist_graph: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: gfortran passes every argument by reference; the arrays are
    // the program's, of the sizes MPI requires.
    let rc = unsafe {
        sys::PMPI_Dist_graph_create_adjacent(
            *comm_old,
            *indegree,
            sources,
            weights(sourceweights),
            *outdegree,
            destinations,
            weights(destweights),
            *info,
            (*reorder != 0) as c_int,
            comm_dist_graph,
        )
    };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_dist_graph_create_adjacent_(comm_old: *const MPI_Fint, indegree: *const MPI_Fint, sources: *mut MPI_Fint, sourceweights: *mut MPI_Fint, outdegree: *const MPI_Fint, destinations: *mut MPI_Fint, destweights: *mut MPI_Fint, info: *const MPI_Fint, reorder: *const MPI_Fint, comm_dist_graph: *mut MPI_Fint, ierror: *mut MPI_Fint));

/// `MPI_DIST_GRAPH_NEIGHBORS(COMM, MAXINDEGREE, SOURCES, SOURCEWEIGHTS,
/// MAXOUTDEGREE, DESTINATIONS, DESTWEIGHTS, IERROR)`
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mpi_dist_graph_neighbors_(
    comm: *const MPI_Fint,
    maxindegree: *const MPI_Fint,
    sources: *mut MPI_Fint,
    sourceweights: *mut MPI_Fint,
    maxoutdegree: *const MPI_Fint,
    destinations: *mut MPI_Fint,
    destweights: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: gfortran passes every argument by reference; the arrays have
    // room for the max degrees.
    let rc = unsafe {
        sys::PMPI_Dist_graph_neighbors(
            *comm,
            *maxindegree,
            sources,
            weights(sourceweights),
            *maxoutdegree,
            destinations,
            weights(destweights),
        )
    };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_dist_graph_neighbors_(comm: *const MPI_Fint, maxindegree: *const MPI_Fint, sources: *mut MPI_Fint, sourceweights: *mut MPI_Fint, maxoutdegree: *const MPI_Fint, destinations: *mut MPI_Fint, destweights: *mut MPI_Fint, ierror: *mut MPI_Fint));
