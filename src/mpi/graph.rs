//! Graph topologies (MPI_Graph_create, MPI_Graph_get, MPI_Graphdims_get,
//! MPI_Graph_neighbors(_count), MPI_Graph_map, MPI_Cart_map), the
//! topology a communicator carries besides a Cartesian one ([`GraphTopo`]:
//! a graph or a distributed graph), and the neighbour lists of any
//! topology in the order MPICH's neighbourhood collectives use them
//! ([`neighbors`], MPICH's `MPIR_Topo_canon_nhb`).
//!
//! As in MPICH, ranks are never reordered (MPI_Graph_map and MPI_Cart_map
//! give every process of the first nnodes its own rank, the others
//! MPI_UNDEFINED); `reorder` only chooses how the communicator is built:
//! with reorder a split of the parent (an allgather of (color, key) and a
//! context id), without it a copy of the parent's first nnodes ranks (a
//! context id agreed over the parent), the messages MPICH sends for each.
use crate::mpi::agree::Agree;
use crate::mpi::backend::Backend;
use crate::mpi::comm::{Comm, Group};
use crate::mpi::dist_graph::DistGraph;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::state::World;
use crate::sys::{self, MPI_Comm};
use std::os::raw::c_int;
use std::sync::Arc;

/// A graph topology: `index[i]` is the number of edges of nodes 0..=i,
/// `edges` the neighbours of node 0, then of node 1, ...
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    pub index: Vec<c_int>,
    pub edges: Vec<c_int>,
}

/// A (non-Cartesian) topology attached to a communicator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphTopo {
    Graph(Graph),
    Dist(DistGraph),
}

/// Check the arguments of MPI_Graph_create against a communicator of
/// `size` ranks, as MPICH does (MPI_ERR_ARG: there is no topology yet):
/// nnodes within the communicator, index non-negative and non-decreasing,
/// every edge a rank of the communicator (MPICH allows edges to ranks
/// beyond nnodes).
pub fn check_graph(index: &[c_int], edges: &[c_int], size: u32) -> MpiResult<()> {
    let n = index.len();
    if n > size as usize {
        return fail(
            sys::MPI_ERR_ARG,
            format!("nnodes {n} is larger than the communicator ({size} ranks)"),
        );
    }
    for (i, &x) in index.iter().enumerate() {
        if x < 0 {
            return fail(sys::MPI_ERR_ARG, format!("index[{i}] = {x} is negative"));
        }
        if i + 1 < n && x > index[i + 1] {
            return fail(
                sys::MPI_ERR_ARG,
                format!(
                    "index[{i}] = {x} > index[{}] = {}: index must be non-decreasing",
                    i + 1,
                    index[i + 1]
                ),
            );
        }
    }
    for (i, &e) in edges.iter().enumerate() {
        if e < 0 || e >= size as c_int {
            return fail(
                sys::MPI_ERR_ARG,
                format!("edges[{i}] = {e} is not a rank of the communicator (size {size})"),
            );
        }
    }
    Ok(())
}

impl Graph {
    pub fn nnodes(&self) -> usize {
        self.index.len()
    }

    pub fn nedges(&self) -> usize {
        self.edges.len()
    }

    /// The neighbours of node `rank` (MPI_ERR_RANK if not a node).
    pub fn neighbors(&self, rank: c_int) -> MpiResult<&[c_int]> {
        let Some(r) = usize::try_from(rank).ok().filter(|&r| r < self.nnodes()) else {
            return fail(
                sys::MPI_ERR_RANK,
                format!(
                    "invalid rank {rank} (the graph has {} nodes)",
                    self.nnodes()
                ),
            );
        };
        let start = if r == 0 {
            0
        } else {
            self.index[r - 1] as usize
        };
        Ok(&self.edges[start..self.index[r] as usize])
    }

    /// MPI_Graph_get: MPI_ERR_ARG when the arrays are too small.
    pub fn check_room(&self, maxindex: c_int, maxedges: c_int) -> MpiResult<()> {
        if (maxindex as i64) < self.nnodes() as i64 {
            return fail(
                sys::MPI_ERR_ARG,
                format!(
                    "maxindex {maxindex} is less than the {} nodes of the graph",
                    self.nnodes()
                ),
            );
        }
        if (maxedges as i64) < self.nedges() as i64 {
            return fail(
                sys::MPI_ERR_ARG,
                format!(
                    "maxedges {maxedges} is less than the {} edges of the graph",
                    self.nedges()
                ),
            );
        }
        Ok(())
    }
}

/// The graph topology of `c`; MPI_ERR_TOPOLOGY if it has none.
pub fn graph_of(c: &Comm) -> MpiResult<&Graph> {
    match c.graph.as_deref() {
        Some(GraphTopo::Graph(g)) => Ok(g),
        _ => fail(
            sys::MPI_ERR_TOPOLOGY,
            "the communicator has no graph topology",
        ),
    }
}

/// The distributed-graph topology of `c`; MPI_ERR_TOPOLOGY if it has none.
pub fn dist_graph_of(c: &Comm) -> MpiResult<&DistGraph> {
    match c.graph.as_deref() {
        Some(GraphTopo::Dist(g)) => Ok(g),
        _ => fail(
            sys::MPI_ERR_TOPOLOGY,
            "the communicator has no distributed graph topology",
        ),
    }
}

/// MPI_Topo_test.
pub fn topo_kind(c: &Comm) -> c_int {
    match (&c.topo, c.graph.as_deref()) {
        (Some(_), _) => sys::MPI_CART,
        (_, Some(GraphTopo::Graph(_))) => sys::MPI_GRAPH,
        (_, Some(GraphTopo::Dist(_))) => sys::MPI_DIST_GRAPH,
        _ => sys::MPI_UNDEFINED,
    }
}

/// The neighbours of the calling process, (sources, destinations) as
/// communicator ranks (None: MPI_PROC_NULL), in MPICH's canonical order:
/// a Cartesian grid gives, per dimension, the source then the destination
/// of a shift by +1 (so the negative then the positive neighbour, both
/// lists alike); a graph gives the node's neighbours as both lists; a
/// distributed graph its sources and destinations. MPI_ERR_TOPOLOGY
/// without a topology.
pub type Neighbors = (Vec<Option<u32>>, Vec<Option<u32>>);

pub fn neighbors(c: &Comm) -> MpiResult<Neighbors> {
    let rank = |r: c_int| u32::try_from(r).ok();
    if let Some(cart) = &c.topo {
        let mut v = Vec::with_capacity(2 * cart.ndims());
        for d in 0..cart.ndims() {
            let (s, t) = cart.shift(d as c_int, 1, c.my_rank)?;
            v.push(rank(s));
            v.push(rank(t));
        }
        return Ok((v.clone(), v));
    }
    match c.graph.as_deref() {
        Some(GraphTopo::Graph(g)) => {
            let v: Vec<Option<u32>> = g
                .neighbors(c.my_rank as c_int)?
                .iter()
                .map(|&r| rank(r))
                .collect();
            Ok((v.clone(), v))
        }
        Some(GraphTopo::Dist(d)) => Ok((
            d.sources.iter().map(|&r| rank(r)).collect(),
            d.destinations.iter().map(|&r| rank(r)).collect(),
        )),
        None => fail(
            sys::MPI_ERR_TOPOLOGY,
            "the communicator has no topology (neighbourhood collectives need a Cartesian, \
             graph or distributed graph topology)",
        ),
    }
}

/// MPI_Graph_map / MPI_Cart_map without remapping: the caller's rank if it
/// is among the first `nnodes`, else MPI_UNDEFINED.
pub fn identity_map(c: &Comm, nnodes: u64) -> c_int {
    if (c.my_rank as u64) < nnodes {
        c.my_rank as c_int
    } else {
        sys::MPI_UNDEFINED
    }
}

impl<E: Backend + Agree + crate::mpi::intercomm::InterOps> World<E> {
    /// The communicator of a new topology over the first `n` ranks of `p`:
    /// by a split with reorder, else by a copy (every rank takes part in
    /// the context-id agreement; those beyond `n` give the id back).
    pub(crate) fn first_ranks(
        &mut self,
        p: &Comm,
        n: u32,
        reorder: bool,
    ) -> MpiResult<Option<Comm>> {
        if reorder {
            let inside = p.my_rank < n;
            let color = if inside { 1 } else { sys::MPI_UNDEFINED };
            return self.split(p, color, p.my_rank as c_int);
        }
        let ctx = self.new_context(p, true)?;
        if p.my_rank >= n {
            self.comms.ctx_mask.release(ctx);
            return Ok(None);
        }
        let first = p.group.ranks()[..n as usize].to_vec();
        Ok(Some(Comm::new(
            ctx,
            Arc::new(Group::new(first)),
            p.my_rank,
            p.errhandler,
        )))
    }

    /// MPI_Graph_create (arguments checked by [`check_graph`]): MPI_COMM_NULL
    /// for nnodes 0 and for the ranks beyond nnodes.
    pub fn graph_create(
        &mut self,
        comm: MPI_Comm,
        index: &[c_int],
        edges: &[c_int],
        reorder: bool,
    ) -> MpiResult<MPI_Comm> {
        let p = self.parent(comm)?;
        crate::mpi::intercomm::intra_only(&p)?;
        check_graph(index, edges, p.size())?;
        if index.is_empty() {
            return Ok(sys::MPI_COMM_NULL);
        }
        let c = self
            .first_ranks(&p, index.len() as u32, reorder)?
            .map(|mut c| {
                c.graph = Some(Arc::new(GraphTopo::Graph(Graph {
                    index: index.to_vec(),
                    edges: edges.to_vec(),
                })));
                c
            });
        Ok(self.register(c, &p))
    }
}

impl<E: Backend> World<E> {
    /// MPI_Cart_map: MPI_ERR_DIMS when the grid is larger than the
    /// communicator (as MPICH).
    pub fn cart_map(&self, comm: MPI_Comm, dims: &[c_int]) -> MpiResult<c_int> {
        let c = self.comms.get(comm)?;
        let mut n: u64 = 1;
        for (i, &d) in dims.iter().enumerate() {
            if d <= 0 {
                return fail(
                    sys::MPI_ERR_DIMS,
                    format!("dims[{i}] = {d}: every dimension must be positive"),
                );
            }
            n = n.saturating_mul(d as u64);
        }
        if n > c.size() as u64 {
            return fail(
                sys::MPI_ERR_DIMS,
                format!(
                    "the grid has {n} points but the communicator only {} ranks",
                    c.size()
                ),
            );
        }
        Ok(identity_map(c, n))
    }

    /// MPI_Graph_map: MPI_ERR_ARG when nnodes exceeds the communicator.
    pub fn graph_map(&self, comm: MPI_Comm, nnodes: c_int) -> MpiResult<c_int> {
        let c = self.comms.get(comm)?;
        if nnodes as i64 > c.size() as i64 {
            return fail(
                sys::MPI_ERR_ARG,
                format!(
                    "nnodes {nnodes} is larger than the communicator ({} ranks)",
                    c.size()
                ),
            );
        }
        if nnodes < 0 {
            return fail(
                sys::MPI_ERR_ARG,
                format!("invalid nnodes {nnodes} (negative)"),
            );
        }
        Ok(identity_map(c, nnodes as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::topo::Cart;

    fn comm_with(my_rank: u32, size: u32) -> Comm {
        Comm::new(
            9,
            Arc::new(Group::new((0..size).collect())),
            my_rank,
            sys::MPI_ERRORS_RETURN,
        )
    }

    /// The MPICH example (graph.c of the MPI standard): 4 nodes.
    #[test]
    fn graph_queries() {
        let g = Graph {
            index: vec![2, 3, 4, 6],
            edges: vec![1, 3, 0, 3, 0, 2],
        };
        assert_eq!(g.neighbors(0).unwrap(), [1, 3]);
        assert_eq!(g.neighbors(1).unwrap(), [0]);
        assert_eq!(g.neighbors(3).unwrap(), [0, 2]);
        assert_eq!(g.neighbors(4).unwrap_err().class, sys::MPI_ERR_RANK);
        assert_eq!(g.check_room(3, 6).unwrap_err().class, sys::MPI_ERR_ARG);
        assert_eq!(g.check_room(4, 5).unwrap_err().class, sys::MPI_ERR_ARG);
        g.check_room(4, 6).unwrap();
        check_graph(&g.index, &g.edges, 4).unwrap();
        assert_eq!(
            check_graph(&[2, 1], &[0, 1], 4).unwrap_err().msg,
            "index[0] = 2 > index[1] = 1: index must be non-decreasing"
        );
        assert_eq!(
            check_graph(&[1], &[4], 4).unwrap_err().class,
            sys::MPI_ERR_ARG
        );
        assert_eq!(
            check_graph(&[0, 0, 0], &[], 2).unwrap_err().class,
            sys::MPI_ERR_ARG
        );
        let mut c = comm_with(3, 4);
        c.graph = Some(Arc::new(GraphTopo::Graph(g)));
        assert_eq!(topo_kind(&c), sys::MPI_GRAPH);
        let (s, d) = neighbors(&c).unwrap();
        assert_eq!(s, [Some(0), Some(2)]);
        assert_eq!(s, d);
        assert!(dist_graph_of(&c).is_err());
    }

    #[test]
    fn cart_neighbor_order() {
        // 2 x 3, periodic in dim 1 only; rank 1 = (0, 1)
        let mut c = comm_with(1, 6);
        c.topo = Some(Arc::new(Cart::new(vec![2, 3], vec![false, true], 1)));
        let (s, d) = neighbors(&c).unwrap();
        assert_eq!(s, [None, Some(4), Some(0), Some(2)]);
        assert_eq!(s, d);
        assert_eq!(topo_kind(&c), sys::MPI_CART);
        let plain = comm_with(0, 2);
        assert_eq!(topo_kind(&plain), sys::MPI_UNDEFINED);
        assert_eq!(neighbors(&plain).unwrap_err().class, sys::MPI_ERR_TOPOLOGY);
        assert_eq!(identity_map(&c, 1), sys::MPI_UNDEFINED);
        assert_eq!(identity_map(&c, 2), 1);
    }
}
