//! Graph and distributed-graph topologies: MPI_Graph_create,
//! MPI_Graph_get, MPI_Graphdims_get, MPI_Graph_neighbors(_count),
//! MPI_Graph_map, MPI_Cart_map, MPI_Dist_graph_create(_adjacent),
//! MPI_Dist_graph_neighbors(_count), with MPICH's argument checks and
//! error classes (MPI_ERR_ARG for a bad graph description, as there is no
//! topology yet; MPI_ERR_TOPOLOGY for a query on the wrong kind of
//! communicator). The semantics are in `mpi::graph` and `mpi::dist_graph`.
use crate::abi::buffers::{out, put_int_at};
use crate::abi::comm_info::info_arg;
use crate::abi::state::call;
use crate::abi::userbuf::array;
use crate::mpi::dist_graph::Weights;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::graph::{check_graph, dist_graph_of, graph_of};
use crate::sys::{self, MPI_Comm, MPI_Info};
use std::os::raw::c_int;

/// A marker address exported to C (`extern int *const MPI_UNWEIGHTED;`).
#[repr(transparent)]
pub struct Marker(*const c_int);

// SAFETY: the pointer is only ever compared, never dereferenced.
unsafe impl Sync for Marker {}

/// What the markers point to (never read).
static UNWEIGHTED_OBJ: c_int = 0;
static WEIGHTS_EMPTY_OBJ: c_int = 0;

/// `extern int *const MPI_UNWEIGHTED;` of mpi.h.
#[no_mangle]
pub static MPI_UNWEIGHTED: Marker = Marker(&raw const UNWEIGHTED_OBJ);
/// `extern int *const MPI_WEIGHTS_EMPTY;` of mpi.h.
#[no_mangle]
pub static MPI_WEIGHTS_EMPTY: Marker = Marker(&raw const WEIGHTS_EMPTY_OBJ);

/// The address of MPI_UNWEIGHTED.
pub fn unweighted() -> *mut c_int {
    MPI_UNWEIGHTED.0 as *mut c_int
}

/// The address of MPI_WEIGHTS_EMPTY.
pub fn weights_empty() -> *mut c_int {
    MPI_WEIGHTS_EMPTY.0 as *mut c_int
}

/// Write `v` into the caller's array `p`.
///
/// # Safety
/// `v` is empty or `p` is non-null with room for `v.len()` ints.
unsafe fn put_ints(p: *mut c_int, v: &[c_int]) {
    for (i, &x) in v.iter().enumerate() {
        // SAFETY: room for v.len() ints (contract).
        unsafe { put_int_at(p, i, x) };
    }
}

/// A non-negative count argument (MPI_ERR_ARG otherwise, as MPICH).
fn nonneg(v: c_int, what: &str) -> MpiResult<usize> {
    usize::try_from(v).or_else(|_| fail(sys::MPI_ERR_ARG, format!("invalid {what} {v} (negative)")))
}

/// A weights argument of `n` entries.
///
/// # Safety
/// `p` is MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY, null, or points to `n` ints.
unsafe fn weights_arg<'a>(p: *const c_int, n: usize, what: &str) -> MpiResult<Weights<'a>> {
    if std::ptr::eq(p, unweighted()) {
        return Ok(Weights::Unweighted);
    }
    if std::ptr::eq(p, weights_empty()) {
        return Ok(Weights::Empty);
    }
    // SAFETY: the caller's contract.
    Ok(Weights::Given(unsafe { array(p, n, what) }?))
}

mpi_fn! {
    /// Collective over `comm_old`; ranks are not reordered (see `mpi::graph`).
    fn MPI_Graph_create / PMPI_Graph_create(
        comm_old: MPI_Comm, nnodes: c_int, indx: *const c_int, edges: *const c_int,
        reorder: c_int, comm_graph: *mut MPI_Comm,
    ) -> c_int {
        call("MPI_Graph_create", comm_old, |w| {
            let size = w.comms.get(comm_old)?.size();
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(comm_graph, "comm_graph") }?;
            let n = nonneg(nnodes, "nnodes")?;
            // SAFETY: nnodes ints at indx (caller).
            let index = unsafe { array(indx, n, "index") }?;
            check_graph(index, &[], size)?;
            let nedges = index.last().map_or(0, |&e| e as usize);
            if n > 0 && edges.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as edges");
            }
            // SAFETY: index[nnodes - 1] ints at edges (caller).
            let e = unsafe { array(edges, nedges, "edges") }?;
            *o = w.graph_create(comm_old, index, e, reorder != 0)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Graphdims_get / PMPI_Graphdims_get(comm: MPI_Comm, nnodes: *mut c_int, nedges: *mut c_int) -> c_int {
        call("MPI_Graphdims_get", comm, |w| {
            let g = graph_of(w.comms.get(comm)?)?;
            // SAFETY: null or valid int pointers (caller).
            unsafe {
                *out(nnodes, "nnodes")? = g.nnodes() as c_int;
                *out(nedges, "nedges")? = g.nedges() as c_int;
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Graph_get / PMPI_Graph_get(comm: MPI_Comm, maxindex: c_int, maxedges: c_int, indx: *mut c_int, edges: *mut c_int) -> c_int {
        call("MPI_Graph_get", comm, |w| {
            let c = w.comms.get(comm)?;
            nonneg(maxindex, "maxindex")?;
            nonneg(maxedges, "maxedges")?;
            if maxindex > 0 && indx.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as index");
            }
            if maxedges > 0 && edges.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as edges");
            }
            let g = graph_of(c)?;
            g.check_room(maxindex, maxedges)?;
            // SAFETY: room for maxindex >= nnodes and maxedges >= nedges ints.
            unsafe {
                put_ints(indx, &g.index);
                put_ints(edges, &g.edges);
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Graph_neighbors_count / PMPI_Graph_neighbors_count(comm: MPI_Comm, rank: c_int, nneighbors: *mut c_int) -> c_int {
        call("MPI_Graph_neighbors_count", comm, |w| {
            let c = w.comms.get(comm)?;
            let n = graph_of(c)?.neighbors(rank)?.len();
            // SAFETY: null or a valid int pointer (caller).
            *unsafe { out(nneighbors, "nneighbors") }? = n as c_int;
            Ok(())
        })
    }
}

mpi_fn! {
    /// At most `maxneighbors` entries are written.
    fn MPI_Graph_neighbors / PMPI_Graph_neighbors(comm: MPI_Comm, rank: c_int, maxneighbors: c_int, neighbors: *mut c_int) -> c_int {
        call("MPI_Graph_neighbors", comm, |w| {
            let c = w.comms.get(comm)?;
            let max = nonneg(maxneighbors, "maxneighbors")?;
            if max > 0 && neighbors.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as neighbors");
            }
            let v = graph_of(c)?.neighbors(rank)?;
            // SAFETY: room for maxneighbors ints (caller).
            unsafe { put_ints(neighbors, &v[..v.len().min(max)]) };
            Ok(())
        })
    }
}

mpi_fn! {
    /// No remapping: the caller's rank among the first nnodes, else
    /// MPI_UNDEFINED (as MPICH).
    fn MPI_Graph_map / PMPI_Graph_map(comm: MPI_Comm, nnodes: c_int, indx: *const c_int, edges: *const c_int, newrank: *mut c_int) -> c_int {
        call("MPI_Graph_map", comm, |w| {
            w.comms.get(comm)?;
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(newrank, "newrank") }?;
            let r = w.graph_map(comm, nnodes)?;
            if indx.is_null() || edges.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as index or edges");
            }
            *o = r;
            Ok(())
        })
    }
}

mpi_fn! {
    /// No remapping: the caller's rank among the first prod(dims), else
    /// MPI_UNDEFINED (as MPICH).
    fn MPI_Cart_map / PMPI_Cart_map(comm: MPI_Comm, ndims: c_int, dims: *const c_int, periods: *const c_int, newrank: *mut c_int) -> c_int {
        call("MPI_Cart_map", comm, |w| {
            w.comms.get(comm)?;
            let n = nonneg(ndims, "ndims")?;
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(newrank, "newrank") }?;
            // SAFETY: ndims ints at dims and periods (caller).
            let d = unsafe { array(dims, n, "dims") }?;
            // SAFETY: as above.
            unsafe { array(periods, n, "periods") }?;
            *o = w.cart_map(comm, d)?;
            Ok(())
        })
    }
}

mpi_fn! {
    /// Collective: the edges travel to both their ends (see
    /// `mpi::dist_graph`); `info` and `reorder` are ignored, as in MPICH.
    fn MPI_Dist_graph_create / PMPI_Dist_graph_create(
        comm_old: MPI_Comm, n: c_int, sources: *const c_int, degrees: *const c_int,
        destinations: *const c_int, weights: *const c_int, info: MPI_Info, reorder: c_int,
        comm_dist_graph: *mut MPI_Comm,
    ) -> c_int {
        let _ = reorder;
        call("MPI_Dist_graph_create", comm_old, |w| {
            w.comms.get(comm_old)?;
            info_arg(info, true)?;
            let n = nonneg(n, "n")?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(comm_dist_graph, "comm_dist_graph") }?;
            // SAFETY: n ints at sources and degrees (caller).
            let (s, d) = unsafe { (array(sources, n, "sources")?, array(degrees, n, "degrees")?) };
            let mut total = 0usize;
            for (i, &x) in d.iter().enumerate() {
                total += usize::try_from(x).or_else(|_| {
                    fail(sys::MPI_ERR_ARG, format!("degrees[{i}] = {x} is negative"))
                })?;
            }
            // SAFETY: sum(degrees) ints at destinations and weights (caller).
            let (dst, wts) = unsafe {
                (array(destinations, total, "destinations")?, weights_arg(weights, total, "weights")?)
            };
            *o = w.dist_graph_create(comm_old, s, d, dst, wts)?;
            Ok(())
        })
    }
}

mpi_fn! {
    /// `info` and `reorder` are ignored, as in MPICH.
    fn MPI_Dist_graph_create_adjacent / PMPI_Dist_graph_create_adjacent(
        comm_old: MPI_Comm, indegree: c_int, sources: *const c_int, sourceweights: *const c_int,
        outdegree: c_int, destinations: *const c_int, destweights: *const c_int,
        info: MPI_Info, reorder: c_int, comm_dist_graph: *mut MPI_Comm,
    ) -> c_int {
        let _ = reorder;
        call("MPI_Dist_graph_create_adjacent", comm_old, |w| {
            w.comms.get(comm_old)?;
            info_arg(info, true)?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(comm_dist_graph, "comm_dist_graph") }?;
            let (ni, no) = (nonneg(indegree, "indegree")?, nonneg(outdegree, "outdegree")?);
            // SAFETY: indegree / outdegree entries in each array (caller).
            let (s, sw, d, dw) = unsafe {
                (
                    array(sources, ni, "sources")?,
                    weights_arg(sourceweights, ni, "sourceweights")?,
                    array(destinations, no, "destinations")?,
                    weights_arg(destweights, no, "destweights")?,
                )
            };
            *o = w.dist_graph_create_adjacent(comm_old, s, sw, d, dw)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Dist_graph_neighbors_count / PMPI_Dist_graph_neighbors_count(comm: MPI_Comm, indegree: *mut c_int, outdegree: *mut c_int, weighted: *mut c_int) -> c_int {
        call("MPI_Dist_graph_neighbors_count", comm, |w| {
            let g = dist_graph_of(w.comms.get(comm)?)?;
            // SAFETY: null or valid int pointers (caller).
            unsafe {
                *out(indegree, "indegree")? = g.indegree() as c_int;
                *out(outdegree, "outdegree")? = g.outdegree() as c_int;
                *out(weighted, "weighted")? = g.weighted as c_int;
            }
            Ok(())
        })
    }
}

mpi_fn! {
    /// Weights are written only for a weighted graph and an array other
    /// than MPI_UNWEIGHTED.
    fn MPI_Dist_graph_neighbors / PMPI_Dist_graph_neighbors(
        comm: MPI_Comm, maxindegree: c_int, sources: *mut c_int, sourceweights: *mut c_int,
        maxoutdegree: c_int, destinations: *mut c_int, destweights: *mut c_int,
    ) -> c_int {
        call("MPI_Dist_graph_neighbors", comm, |w| {
            let c = w.comms.get(comm)?;
            if maxindegree > 0 && sources.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as sources");
            }
            if maxoutdegree > 0 && destinations.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as destinations");
            }
            let g = dist_graph_of(c)?;
            g.check_room(maxindegree, maxoutdegree)?;
            let usable = |p: *mut c_int| {
                g.weighted && !p.is_null() && !std::ptr::eq(p, unweighted()) && !std::ptr::eq(p, weights_empty())
            };
            // SAFETY: each array has room for its max degree >= the degree.
            unsafe {
                put_ints(sources, &g.sources);
                put_ints(destinations, &g.destinations);
                if usable(sourceweights) {
                    put_ints(sourceweights, &g.sourceweights);
                }
                if usable(destweights) {
                    put_ints(destweights, &g.destweights);
                }
            }
            Ok(())
        })
    }
}
