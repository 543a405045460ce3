//! Distributed graph topologies: MPI_Dist_graph_create,
//! MPI_Dist_graph_create_adjacent, MPI_Dist_graph_neighbors(_count).
//!
//! MPI_Dist_graph_create follows MPICH's `MPIR_Dist_graph_create_impl`
//! (Hoefler's reference implementation), with every message through the
//! engine:
//! 1. the new communicator is a copy of the parent (a context id agreed
//!    over the parent);
//! 2. each process sorts the edges it was given by their destination (for
//!    the destination's in-edges) and by their source (out-edges), as
//!    (rank, weight) int pairs per peer;
//! 3. MPI_Reduce_scatter_block (MPI_SUM) of two flags per peer tells each
//!    process how many peers will send it in-edges and out-edges;
//! 4. it starts an MPI_Isend of each non-empty list to its peer (tag
//!    MPIR_TOPO_A_TAG for in-edges, MPIR_TOPO_B_TAG for out-edges, peers in
//!    rank order), then, as many times as peers send it in-edges, probes for
//!    any source with tag A and receives that message, then likewise the
//!    out-edges with tag B, and waits for its sends. Neighbours are listed
//!    in the order their messages are received (the probe decides, exactly,
//!    as any MPI_ANY_SOURCE operation: earliest arrival, ties to the lower
//!    rank), each message's edges in the sender's order.
//!
//! MPI_Dist_graph_create_adjacent only copies the parent (no edge traffic).
//! `info` and `reorder` are accepted and ignored (no rank is reordered), as
//! in MPICH. Edges are weighted unless MPI_UNWEIGHTED is given.
use crate::coll::{self, Op, COLL_CTX_BIT};
use crate::mpi::agree::Agree;
use crate::mpi::backend::Backend;
use crate::mpi::comm::Comm;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::graph::GraphTopo;
use crate::mpi::state::World;
use crate::p2p::{Core, Link};
use crate::sys::{self, MPI_Comm};
use std::os::raw::c_int;
use std::sync::Arc;

/// MPICH's MPIR_TOPO_A_TAG / MPIR_TOPO_B_TAG (collective context).
pub const TOPO_A_TAG: i32 = 26;
pub const TOPO_B_TAG: i32 = 27;

/// A distributed graph as one process sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DistGraph {
    pub sources: Vec<c_int>,
    /// Empty when unweighted.
    pub sourceweights: Vec<c_int>,
    pub destinations: Vec<c_int>,
    pub destweights: Vec<c_int>,
    pub weighted: bool,
}

/// The weights argument of the constructors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weights<'a> {
    /// MPI_UNWEIGHTED.
    Unweighted,
    /// MPI_WEIGHTS_EMPTY: weighted, but this process gives no edge.
    Empty,
    Given(&'a [c_int]),
}

impl Weights<'_> {
    /// Weight of edge `i` (0 when unweighted, as MPICH sends it).
    fn at(&self, i: usize) -> c_int {
        match self {
            Weights::Given(w) => w[i],
            _ => 0,
        }
    }
    fn weighted(&self) -> bool {
        !matches!(self, Weights::Unweighted)
    }
    /// MPI_WEIGHTS_EMPTY with edges is an error (there are no weights).
    fn check(&self, edges: usize, what: &str) -> MpiResult<()> {
        match self {
            Weights::Empty if edges > 0 => fail(
                sys::MPI_ERR_ARG,
                format!("MPI_WEIGHTS_EMPTY passed as {what} for {edges} edges"),
            ),
            _ => Ok(()),
        }
    }
}

/// A rank argument: 0 <= r < size (MPI_ERR_RANK otherwise).
fn check_rank(r: c_int, size: u32, what: &str, i: usize) -> MpiResult<()> {
    if r < 0 || r >= size as c_int {
        return fail(
            sys::MPI_ERR_RANK,
            format!("{what}[{i}] = {r} is not a rank of the communicator (size {size})"),
        );
    }
    Ok(())
}

fn check_ranks(v: &[c_int], size: u32, what: &str) -> MpiResult<()> {
    for (i, &r) in v.iter().enumerate() {
        check_rank(r, size, what, i)?;
    }
    Ok(())
}

/// The edge exchange of MPI_Dist_graph_create over a communicator given as
/// its members' world ranks, my index and its context id: `rin[p]` and
/// `rout[p]` are the (rank, weight) pairs for peer p; returns the
/// messages received with in-edges and with out-edges, in receipt order.
pub trait EdgeExchange {
    fn exchange_edges(
        &mut self,
        ranks: &[u32],
        me: usize,
        ctx: u32,
        rin: &[Vec<c_int>],
        rout: &[Vec<c_int>],
    ) -> (Vec<Vec<c_int>>, Vec<Vec<c_int>>);
}

fn to_bytes(v: &[c_int]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

fn to_ints(b: &[u8]) -> Vec<c_int> {
    b.chunks_exact(4)
        .map(|c| c_int::from_ne_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

impl<L: Link> EdgeExchange for Core<L> {
    fn exchange_edges(
        &mut self,
        ranks: &[u32],
        me: usize,
        ctx: u32,
        rin: &[Vec<c_int>],
        rout: &[Vec<c_int>],
    ) -> (Vec<Vec<c_int>>, Vec<Vec<c_int>>) {
        let n = ranks.len();
        let mut c = coll::Comm {
            core: self,
            ranks,
            me,
            ctx,
        };
        // How many peers send me in-edges and out-edges.
        let flags: Vec<c_int> = (0..n)
            .flat_map(|i| [!rin[i].is_empty() as c_int, !rout[i].is_empty() as c_int])
            .collect();
        let mut peers = vec![0u8; 8];
        let mut sum = |input: &[u8], inout: &mut [u8]| {
            for (o, i) in inout.chunks_exact_mut(4).zip(input.chunks_exact(4)) {
                let v = c_int::from_ne_bytes(o.try_into().expect("4"))
                    .wrapping_add(c_int::from_ne_bytes(i.try_into().expect("4")));
                o.copy_from_slice(&v.to_ne_bytes());
            }
        };
        let mut op = Op {
            commutative: true,
            builtin: true,
            apply: &mut sum,
        };
        coll::reduce_scatter_block::reduce_scatter_block(
            &mut c,
            &to_bytes(&flags),
            &mut peers,
            4,
            &mut op,
        );
        let peers = to_ints(&peers);
        let mut sends = Vec::new();
        for i in 0..n {
            if !rin[i].is_empty() {
                sends.push(c.isend(&to_bytes(&rin[i]), i, TOPO_A_TAG));
            }
            if !rout[i].is_empty() {
                sends.push(c.isend(&to_bytes(&rout[i]), i, TOPO_B_TAG));
            }
        }
        let mut got = [Vec::new(), Vec::new()];
        for (k, tag) in [TOPO_A_TAG, TOPO_B_TAG].into_iter().enumerate() {
            for _ in 0..peers[k].max(0) {
                let st = c.core.probe(None, Some(tag), ctx | COLL_CTX_BIT);
                let src = ranks
                    .iter()
                    .position(|&w| w as i32 == st.source)
                    .expect("a member sent it");
                let v = c.recv(st.bytes as usize, src, tag);
                got[k].push(to_ints(&v));
            }
        }
        c.wait_all(&sends, &[], TOPO_A_TAG);
        let [a, b] = got;
        (a, b)
    }
}

/// Split (rank, weight) pair messages into ranks and weights.
fn unpair(msgs: &[Vec<c_int>], weighted: bool) -> (Vec<c_int>, Vec<c_int>) {
    let mut ranks = Vec::new();
    let mut weights = Vec::new();
    for m in msgs {
        for p in m.chunks_exact(2) {
            ranks.push(p[0]);
            if weighted {
                weights.push(p[1]);
            }
        }
    }
    (ranks, weights)
}

impl DistGraph {
    pub fn indegree(&self) -> usize {
        self.sources.len()
    }
    pub fn outdegree(&self) -> usize {
        self.destinations.len()
    }

    /// MPI_Dist_graph_neighbors: the arrays must hold the degrees
    /// (MPI_ERR_ARG otherwise, as MPICH).
    pub fn check_room(&self, maxindegree: c_int, maxoutdegree: c_int) -> MpiResult<()> {
        for (what, max, deg) in [
            ("maxindegree", maxindegree, self.indegree()),
            ("maxoutdegree", maxoutdegree, self.outdegree()),
        ] {
            if max < 0 {
                return fail(sys::MPI_ERR_ARG, format!("invalid {what} {max} (negative)"));
            }
            if (max as usize) < deg {
                return fail(
                    sys::MPI_ERR_ARG,
                    format!("{what} {max} is less than the degree {deg}"),
                );
            }
        }
        Ok(())
    }
}

impl<E: Backend + Agree + crate::mpi::intercomm::InterOps> World<E> {
    /// A copy of `p` over all its ranks with `g` attached.
    fn dist_copy(&mut self, p: &Comm, g: DistGraph) -> MpiResult<MPI_Comm> {
        let ctx = self.new_context(p, true)?;
        let mut c = Comm::new(ctx, p.group.clone(), p.my_rank, p.errhandler);
        c.graph = Some(Arc::new(GraphTopo::Dist(g)));
        Ok(self.commit(c, p.tainted))
    }

    /// MPI_Dist_graph_create_adjacent.
    pub fn dist_graph_create_adjacent(
        &mut self,
        comm: MPI_Comm,
        sources: &[c_int],
        sourceweights: Weights,
        destinations: &[c_int],
        destweights: Weights,
    ) -> MpiResult<MPI_Comm> {
        let p = self.parent(comm)?;
        crate::mpi::intercomm::intra_only(&p)?;
        if (!sources.is_empty() || !destinations.is_empty())
            && sourceweights.weighted() != destweights.weighted()
        {
            return fail(
                sys::MPI_ERR_TOPOLOGY,
                "MPI_UNWEIGHTED must be given for both sourceweights and destweights or neither",
            );
        }
        check_ranks(sources, p.size(), "sources")?;
        check_ranks(destinations, p.size(), "destinations")?;
        sourceweights.check(sources.len(), "sourceweights")?;
        destweights.check(destinations.len(), "destweights")?;
        let weighted = sourceweights.weighted();
        let ws = |w: Weights, n: usize| -> Vec<c_int> {
            if weighted {
                (0..n).map(|i| w.at(i)).collect()
            } else {
                Vec::new()
            }
        };
        let g = DistGraph {
            sources: sources.to_vec(),
            sourceweights: ws(sourceweights, sources.len()),
            destinations: destinations.to_vec(),
            destweights: ws(destweights, destinations.len()),
            weighted,
        };
        self.dist_copy(&p, g)
    }
}

impl<E: Backend + Agree + EdgeExchange + crate::mpi::intercomm::InterOps> World<E> {
    /// MPI_Dist_graph_create: node `sources[i]` has edges to the next
    /// `degrees[i]` entries of `destinations`.
    pub fn dist_graph_create(
        &mut self,
        comm: MPI_Comm,
        sources: &[c_int],
        degrees: &[c_int],
        destinations: &[c_int],
        weights: Weights,
    ) -> MpiResult<MPI_Comm> {
        let p = self.parent(comm)?;
        crate::mpi::intercomm::intra_only(&p)?;
        let size = p.size();
        check_ranks(sources, size, "sources")?;
        for (i, &d) in degrees.iter().enumerate() {
            if d < 0 {
                return fail(sys::MPI_ERR_ARG, format!("degrees[{i}] = {d} is negative"));
            }
        }
        check_ranks(destinations, size, "destinations")?;
        weights.check(destinations.len(), "weights")?;
        // Edges by peer, as (rank, weight) pairs.
        let n = size as usize;
        let mut rin = vec![Vec::new(); n];
        let mut rout = vec![Vec::new(); n];
        let mut idx = 0;
        for (&s, &deg) in sources.iter().zip(degrees) {
            for _ in 0..deg {
                let (d, w) = (destinations[idx], weights.at(idx));
                rout[s as usize].extend([d, w]);
                rin[d as usize].extend([s, w]);
                idx += 1;
            }
        }
        let ctx = self.new_context(&p, true)?;
        let (ins, outs) =
            self.ep
                .exchange_edges(p.group.ranks(), p.my_rank as usize, p.ctx, &rin, &rout);
        let weighted = weights.weighted();
        let (sources, sourceweights) = unpair(&ins, weighted);
        let (destinations, destweights) = unpair(&outs, weighted);
        let mut c = Comm::new(ctx, p.group.clone(), p.my_rank, p.errhandler);
        c.graph = Some(Arc::new(GraphTopo::Dist(DistGraph {
            sources,
            sourceweights,
            destinations,
            destweights,
            weighted,
        })));
        Ok(self.commit(c, p.tainted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::p2p::testing::run;
    use std::sync::Mutex;

    /// The edge exchange on 4 ranks: a ring 0->1->2->3->0 given entirely by
    /// rank 0 (weights 10 + source), plus the self-edge 2->2 given by rank 2.
    #[test]
    fn edges_reach_both_ends() {
        let got = Arc::new(Mutex::new(Vec::new()));
        let g = got.clone();
        run(4, 1 << 16, move |core| {
            let me = core.rank() as usize;
            let ranks: Vec<u32> = (0..4).collect();
            let (sources, degrees, dests): (Vec<c_int>, Vec<c_int>, Vec<c_int>) = match me {
                0 => (vec![0, 1, 2, 3], vec![1, 1, 1, 1], vec![1, 2, 3, 0]),
                2 => (vec![2], vec![1], vec![2]),
                _ => (vec![], vec![], vec![]),
            };
            let mut rin = vec![Vec::new(); 4];
            let mut rout = vec![Vec::new(); 4];
            let mut idx = 0;
            for (&s, &deg) in sources.iter().zip(&degrees) {
                for _ in 0..deg {
                    let d = dests[idx];
                    rout[s as usize].extend([d, 10 + s]);
                    rin[d as usize].extend([s, 10 + s]);
                    idx += 1;
                }
            }
            let (ins, outs) = core.exchange_edges(&ranks, me, 0, &rin, &rout);
            g.lock()
                .unwrap()
                .push((me, unpair(&ins, true), unpair(&outs, true)));
        });
        let mut v = got.lock().unwrap().clone();
        v.sort();
        let want_in = [vec![3], vec![0], vec![1, 2], vec![2]];
        let want_out = [vec![1], vec![2], vec![3, 2], vec![0]];
        for (me, (ins, inw), (outs, outw)) in v {
            let mut a = ins.clone();
            a.sort();
            assert_eq!(a, want_in[me], "in of {me}");
            let mut b = outs.clone();
            b.sort();
            let mut wb = want_out[me].clone();
            wb.sort();
            assert_eq!(b, wb, "out of {me}");
            for (s, w) in ins.iter().zip(&inw) {
                assert_eq!(*w, 10 + s);
            }
            assert_eq!(outw, vec![10 + me as c_int; outs.len()]);
        }
    }
}
