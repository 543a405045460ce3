//! The links a message between two nodes crosses, for the contention model
//! ([`super::contention`]). Each topology routes as its hop count says
//! ([`super::topology`]), and every route also holds the two nodes' own
//! links to the network (the source's injection link, the destination's
//! ejection link), which all the ranks of a node share. Links are directed:
//! a link carries the two directions independently (full duplex).
//!
//! * `levels` (Eq. 5): the nested blocks describe distances, not wires, so
//!   only the nodes' links are modelled (the rest of the network is assumed
//!   not to limit).
//! * fat-tree (k-ary n-tree): a subtree of `k^l` nodes is joined to its
//!   parent switch level by `k^l` links; a route between nodes whose common
//!   subtree is on level `L` goes up through the source's subtrees of levels
//!   0 to L - 1 and down through the destination's. A subtree's links are
//!   one link of width `k^l` (full bisection: flows share it only when more
//!   than `k^l` of them cross it).
//! * torus / mesh: dimension-order routing (first dimension first), one
//!   link per step between neighbouring routers; on a torus the shorter way
//!   round (the positive direction on a tie).
//! * dragonfly: minimal routing: a local link from the source router to the
//!   router holding the global link (when they differ), the global link, and
//!   a local link to the destination router (when they differ).

use super::topology::Network;
use super::Topology;

/// A directed link of the target network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LinkId {
    /// A node's link to the network: `up` from the node (injection), else
    /// into it (ejection).
    Node { node: u32, up: bool },
    /// Fat-tree: the links of subtree `index` on `level` (1 = a leaf
    /// switch's nodes) to the level above, `up` or down.
    Tree { level: u32, index: u64, up: bool },
    /// Torus / mesh: from router `from` along `dim`, towards higher
    /// coordinates if `plus`.
    Grid { from: u32, dim: u8, plus: bool },
    /// Dragonfly: the local link from router `from` to router `to` (global
    /// router numbers).
    Local { from: u32, to: u32 },
    /// Dragonfly: the global link from group `from` to group `to`.
    Global { from: u32, to: u32 },
}

/// One link of a route and how many flows it carries at full speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkUse {
    pub id: LinkId,
    /// Parallel physical links it stands for (fat-tree subtrees), at least 1.
    pub width: u64,
}

impl LinkUse {
    fn one(id: LinkId) -> LinkUse {
        LinkUse { id, width: 1 }
    }
}

impl std::fmt::Display for LinkUse {
    /// `node 3 up`, `tree 1.0 up x2` (level.subtree, width), `grid 5 x+`
    /// (from router 5 along the first dimension, towards higher
    /// coordinates), `local 0-1`, `global 0-2` (routers, groups).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let dir = |up: bool| if up { "up" } else { "down" };
        match self.id {
            LinkId::Node { node, up } => write!(f, "node {node} {}", dir(up))?,
            LinkId::Tree { level, index, up } => write!(f, "tree {level}.{index} {}", dir(up))?,
            LinkId::Grid { from, dim, plus } => write!(
                f,
                "grid {from} {}{}",
                ["x", "y", "z"].get(dim as usize).unwrap_or(&"?"),
                if plus { '+' } else { '-' }
            )?,
            LinkId::Local { from, to } => write!(f, "local {from}-{to}")?,
            LinkId::Global { from, to } => write!(f, "global {from}-{to}")?,
        }
        if self.width > 1 {
            write!(f, " x{}", self.width)?;
        }
        Ok(())
    }
}

impl Topology {
    /// The links from node `a` to node `b` (none when they are the same).
    pub fn route(&self, a: u32, b: u32) -> Vec<LinkUse> {
        if a == b {
            return Vec::new();
        }
        let mut r = vec![LinkUse::one(LinkId::Node { node: a, up: true })];
        if let Topology::Nodes { network, .. } = self {
            network.route_between(a, b, &mut r);
        }
        r.push(LinkUse::one(LinkId::Node { node: b, up: false }));
        r
    }
}

impl Network {
    /// The network's links between two different nodes (not the nodes' own).
    fn route_between(&self, a: u32, b: u32, r: &mut Vec<LinkUse>) {
        match self {
            Network::FatTree { k, .. } => {
                let k = *k as u64;
                let (mut x, mut y) = (a as u64 / k, b as u64 / k);
                let mut level = 1;
                let mut width = k;
                let mut down = Vec::new();
                // Subtrees of level 1 and up that do not yet hold both nodes.
                while x != y {
                    r.push(LinkUse {
                        id: LinkId::Tree {
                            level,
                            index: x,
                            up: true,
                        },
                        width,
                    });
                    down.push(LinkUse {
                        id: LinkId::Tree {
                            level,
                            index: y,
                            up: false,
                        },
                        width,
                    });
                    x /= k;
                    y /= k;
                    level += 1;
                    width = width.saturating_mul(k);
                }
                r.extend(down.into_iter().rev());
            }
            Network::Grid { dims, wrap } => {
                // Coordinates, first dimension fastest.
                let coords = |mut n: u32| -> Vec<u32> {
                    dims.iter()
                        .map(|&d| {
                            let c = n % d;
                            n /= d;
                            c
                        })
                        .collect()
                };
                let mut cur = coords(a);
                let dst = coords(b);
                let index = |c: &[u32]| -> u32 {
                    c.iter()
                        .zip(dims)
                        .rev()
                        .fold(0, |acc, (&ci, &d)| acc * d + ci)
                };
                for (dim, &d) in dims.iter().enumerate() {
                    let (from, to) = (cur[dim], dst[dim]);
                    if from == to {
                        continue;
                    }
                    let up = to.wrapping_sub(from).wrapping_add(d) % d; // steps going +
                    let plus = if *wrap { up <= d - up } else { to > from };
                    let steps = if *wrap {
                        up.min(d - up)
                    } else {
                        from.abs_diff(to)
                    };
                    for _ in 0..steps {
                        r.push(LinkUse::one(LinkId::Grid {
                            from: index(&cur),
                            dim: dim as u8,
                            plus,
                        }));
                        cur[dim] = if plus {
                            (cur[dim] + 1) % d
                        } else {
                            (cur[dim] + d - 1) % d
                        };
                    }
                }
            }
            Network::Dragonfly {
                routers,
                nodes_per_router,
                global_links,
                ..
            } => {
                let (ra, rb) = (a / nodes_per_router, b / nodes_per_router);
                if ra == rb {
                    return;
                }
                let (ga, gb) = (ra / routers, rb / routers);
                let local = |r: &mut Vec<LinkUse>, from: u32, to: u32| {
                    if from != to {
                        r.push(LinkUse::one(LinkId::Local { from, to }));
                    }
                };
                if ga == gb {
                    local(r, ra, rb);
                    return;
                }
                let holder = |from: u32, to: u32| {
                    super::topology::dragonfly_holder(*routers, *global_links, from, to)
                };
                local(r, ra, holder(ga, gb));
                r.push(LinkUse::one(LinkId::Global { from: ga, to: gb }));
                local(r, holder(gb, ga), rb);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;

    fn topo(section: &str) -> Topology {
        let text = format!(
            "name = \"t\"\n[cpu]\nscale = 0\n[network]\nmem_bandwidth = \"1 GB/s\"\n\
             net_bandwidth = \"1 GB/s\"\nlatency = \"1 us\"\nhop_latency = \"0 s\"\n\
             eager_limit = \"1 KiB\"\nheader_bytes = 0\n[topology]\n{section}"
        );
        Model::from_toml_str(&text, "t").unwrap().topology
    }

    fn node(n: u32, up: bool) -> LinkUse {
        LinkUse::one(LinkId::Node { node: n, up })
    }

    /// Every network route has as many links as the hop count says, plus
    /// the two node links.
    fn hops_agree(t: &Topology, nodes: u32) {
        let Topology::Nodes { network, .. } = t else {
            unreachable!()
        };
        for a in 0..nodes {
            for b in 0..nodes {
                let r = t.route(a, b);
                let want = if a == b {
                    0
                } else {
                    match network {
                        // torus / mesh hops count router-to-router links
                        Network::Grid { .. } => network.hops(a, b) + 2,
                        // fat-tree and dragonfly hops count the node links too
                        _ => network.hops(a, b),
                    }
                };
                assert_eq!(r.len() as u32, want, "{a} -> {b}: {r:?}");
            }
        }
    }

    #[test]
    fn fat_tree_routes() {
        let t = topo("kind = \"fat-tree\"\nk = 2\nn = 3\n");
        hops_agree(&t, 8);
        let tree = |level, index, up, width| LinkUse {
            id: LinkId::Tree { level, index, up },
            width,
        };
        // 1 and 6: common subtree on level 3 (the whole tree)
        assert_eq!(
            t.route(1, 6),
            vec![
                node(1, true),
                tree(1, 0, true, 2),
                tree(2, 0, true, 4),
                tree(2, 1, false, 4),
                tree(1, 3, false, 2),
                node(6, false)
            ]
        );
        assert_eq!(t.route(2, 3), vec![node(2, true), node(3, false)]);
    }

    #[test]
    fn grid_routes() {
        let torus = topo("kind = \"torus\"\ndims = [4, 3]\n");
        hops_agree(&torus, 12);
        let g = |from, dim, plus| LinkUse::one(LinkId::Grid { from, dim, plus });
        // (0,0) -> (3,1): one step down in x (wrap), one step up in y
        assert_eq!(
            torus.route(0, 7),
            vec![node(0, true), g(0, 0, false), g(3, 1, true), node(7, false)]
        );
        // a tie (2 steps either way) goes +
        assert_eq!(
            torus.route(0, 2),
            vec![node(0, true), g(0, 0, true), g(1, 0, true), node(2, false)]
        );
        let mesh = topo("kind = \"mesh\"\ndims = [4, 3]\n");
        hops_agree(&mesh, 12);
        assert_eq!(
            mesh.route(3, 0),
            vec![
                node(3, true),
                g(3, 0, false),
                g(2, 0, false),
                g(1, 0, false),
                node(0, false)
            ]
        );
    }

    #[test]
    fn dragonfly_routes() {
        // 2 routers per group, 1 node each, 1 global link per router: 3 groups
        let t = topo("kind = \"dragonfly\"\nrouters = 2\nnodes_per_router = 1\nglobal_links = 1\n");
        hops_agree(&t, 6);
        let local = |from, to| LinkUse::one(LinkId::Local { from, to });
        let global = |from, to| LinkUse::one(LinkId::Global { from, to });
        // group 0 reaches group 2 through its router 1 (global link 1);
        // group 2 reaches group 0 through its router 4 (global link 0).
        assert_eq!(
            t.route(0, 5),
            vec![
                node(0, true),
                local(0, 1),
                global(0, 2),
                local(4, 5),
                node(5, false)
            ]
        );
        assert_eq!(
            t.route(0, 1),
            vec![node(0, true), local(0, 1), node(1, false)]
        );
    }

    #[test]
    fn links_print_as_they_are() {
        let t = topo("kind = \"fat-tree\"\nk = 2\nn = 3\n");
        let r: Vec<String> = t.route(1, 6).iter().map(|l| l.to_string()).collect();
        assert_eq!(
            r,
            [
                "node 1 up",
                "tree 1.0 up x2",
                "tree 2.0 up x4",
                "tree 2.1 down x4",
                "tree 1.3 down x2",
                "node 6 down"
            ]
        );
        let torus = topo("kind = \"torus\"\ndims = [4, 3]\n");
        let r: Vec<String> = torus.route(0, 7).iter().map(|l| l.to_string()).collect();
        assert_eq!(r, ["node 0 up", "grid 0 x-", "grid 3 y+", "node 7 down"]);
        let d = topo("kind = \"dragonfly\"\nrouters = 2\nnodes_per_router = 1\nglobal_links = 1\n");
        let r: Vec<String> = d.route(0, 5).iter().map(|l| l.to_string()).collect();
        assert_eq!(
            r,
            [
                "node 0 up",
                "local 0-1",
                "global 0-2",
                "local 4-5",
                "node 5 down"
            ]
        );
    }

    #[test]
    fn levels_route_through_the_nodes_links() {
        let t = topo("levels = [ { ranks = 2, hops = 0 } ]\ndefault_hops = 3\n");
        assert_eq!(t.route(0, 3), vec![node(0, true), node(3, false)]);
        assert!(t.route(1, 1).is_empty());
    }
}
