//! The `[topology]` section: hop(x, y) between ranks and the target node of
//! each rank.
//!
//! Two ways to describe a target:
//! * `kind = "levels"` (the default, paper Eq. 5): nested blocks of ranks,
//!   `levels = [ { ranks = 12, hops = 0 }, { ranks = 192, hops = 3 } ]` and
//!   `default_hops`; ranks `x`, `y` with `x / ranks == y / ranks` are `hops`
//!   apart (the first matching level wins), the node is the block of the
//!   first 0-hop level.
//! * a network of nodes, with the ranks placed on them:
//!   - `kind = "fat-tree"`, `k`, `n`: a k-ary n-tree (k^n nodes, n levels of
//!     switches with k ports down). Nodes whose nearest common switch is on
//!     level `l` (1 = the same leaf switch) are `2l` hops apart (up `l`
//!     links, down `l`).
//!   - `kind = "torus"` / `"mesh"`, `dims = [X, Y, Z]` (1 to 3 dimensions):
//!     node `i` sits at coordinates with the first dimension varying
//!     fastest; a router per node, so the hops are the router-to-router
//!     links of dimension-order routing: the sum over dimensions of `|d|`
//!     (mesh) or `min(|d|, X - |d|)` (torus, wrap-around links).
//!   - `kind = "dragonfly"`, `routers` (a, per group), `nodes_per_router`
//!     (p), `global_links` (h, per router), `groups` (g, default and at most
//!     `a * h + 1`): the groups' routers are all-to-all connected by local
//!     links; global link `i` of group G (router `i / h`) leads to group
//!     `i` if `i < G`, else `i + 1` (the "consecutive" arrangement). Minimal
//!     routing counts every link: node to router, router to node (2 on the
//!     same router), a local link (3 in the same group), and between groups
//!     the global link plus a local link at either end where the message's
//!     router is not the one holding the global link (3 to 5).
//!
//!   Rank placement: `ranks_per_node` (default 1) and `placement`:
//!   `"block"` (rank r on node r / ranks_per_node, the default),
//!   `"round-robin"` (rank r on node r % nodes, over the first `nodes`
//!   nodes, by default all of the topology's), or `"file"` with
//!   `placement_file = "PATH"` (relative to the target file's directory):
//!   one node number per line, line i for rank i, `#` comments. Ranks on one
//!   node are 0 hops apart. A job with more ranks than the placement can
//!   hold is refused at launch ([`Topology::check_ranks`]).
use super::config::{join, Ctx};
use super::{ConfigError, Level};
use std::path::Path;
use toml::{Table, Value};

const LEVELS_KEYS: &[&str] = &["kind", "levels", "default_hops"];
const PLACE_KEYS: &[&str] = &["ranks_per_node", "placement", "placement_file", "nodes"];
const KINDS: &[&str] = &["levels", "fat-tree", "torus", "mesh", "dragonfly"];
const LEVEL_KEYS: &[&str] = &["ranks", "hops"];

/// A network of nodes (hops between nodes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Network {
    FatTree {
        k: u32,
        n: u32,
    },
    /// `wrap`: torus (true) or mesh (false).
    Grid {
        dims: Vec<u32>,
        wrap: bool,
    },
    Dragonfly {
        routers: u32,
        nodes_per_router: u32,
        global_links: u32,
        groups: u32,
    },
}

/// Where the ranks are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    Block,
    /// Over the first `nodes` nodes.
    RoundRobin {
        nodes: u32,
    },
    /// Rank i on `nodes[i]`; `path` as written in the target file.
    File {
        path: String,
        nodes: Vec<u32>,
    },
}

/// hop(x, y) and the node of each rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Topology {
    Levels {
        levels: Vec<Level>,
        default_hops: u32,
    },
    Nodes {
        network: Network,
        ranks_per_node: u32,
        placement: Placement,
    },
}

/// Dragonfly: the router (numbered across groups) of group `from` that
/// holds the global link to group `to` (the "consecutive" arrangement).
pub(super) fn dragonfly_holder(routers: u32, global_links: u32, from: u32, to: u32) -> u32 {
    from * routers + (if to < from { to } else { to - 1 }) / global_links
}

impl Network {
    /// Number of nodes.
    pub fn nodes(&self) -> u64 {
        match self {
            Network::FatTree { k, n } => (*k as u64).saturating_pow(*n),
            Network::Grid { dims, .. } => dims.iter().map(|&d| d as u64).product(),
            Network::Dragonfly {
                routers,
                nodes_per_router,
                groups,
                ..
            } => *routers as u64 * *nodes_per_router as u64 * *groups as u64,
        }
    }

    /// Hops between nodes `a` and `b` (0 when they are the same).
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        if a == b {
            return 0;
        }
        match self {
            Network::FatTree { k, .. } => {
                let (k, mut a, mut b) = (*k as u64, a as u64, b as u64);
                let mut l = 0;
                while a != b {
                    a /= k;
                    b /= k;
                    l += 1;
                }
                2 * l
            }
            Network::Grid { dims, wrap } => {
                let (mut a, mut b) = (a, b);
                let mut h = 0;
                for &d in dims {
                    let (ca, cb) = (a % d, b % d);
                    a /= d;
                    b /= d;
                    let diff = ca.abs_diff(cb);
                    h += if *wrap { diff.min(d - diff) } else { diff };
                }
                h
            }
            Network::Dragonfly {
                routers,
                nodes_per_router,
                global_links,
                ..
            } => {
                let (ra, rb) = (a / nodes_per_router, b / nodes_per_router);
                if ra == rb {
                    return 2;
                }
                let (ga, gb) = (ra / routers, rb / routers);
                if ga == gb {
                    return 3;
                }
                let local = |r: u32, g: u32, to: u32| {
                    u32::from(r != dragonfly_holder(*routers, *global_links, g, to))
                };
                3 + local(ra, ga, gb) + local(rb, gb, ga)
            }
        }
    }

    /// The fewest hops between two different nodes (the network's smallest
    /// non-zero distance), for lower bounds.
    pub fn min_hops(&self) -> u32 {
        match self {
            Network::FatTree { .. } | Network::Dragonfly { .. } => 2,
            Network::Grid { .. } => 1,
        }
    }

    /// The hops between the two nodes farthest apart (the diameter).
    pub fn diameter(&self) -> u32 {
        match self {
            Network::FatTree { n, .. } => 2 * n,
            Network::Grid { dims, wrap } => dims
                .iter()
                .map(|&d| if *wrap { d / 2 } else { d - 1 })
                .sum(),
            Network::Dragonfly {
                routers, groups, ..
            } => {
                if *groups > 1 {
                    3 + 2 * u32::from(*routers > 1)
                } else if *routers > 1 {
                    3
                } else {
                    2
                }
            }
        }
    }
}

impl Topology {
    /// hop(x, y) of ranks `x` and `y`.
    pub fn hops(&self, x: u32, y: u32) -> u32 {
        match self {
            Topology::Levels {
                levels,
                default_hops,
            } => levels
                .iter()
                .find(|l| x / l.ranks == y / l.ranks)
                .map_or(*default_hops, |l| l.hops),
            Topology::Nodes { network, .. } => network.hops(self.node_of(x), self.node_of(y)),
        }
    }

    /// The target node of `rank`.
    pub fn node_of(&self, rank: u32) -> u32 {
        match self {
            Topology::Levels { levels, .. } => match levels.iter().find(|l| l.hops == 0) {
                Some(l) => rank / l.ranks,
                None => rank,
            },
            Topology::Nodes {
                ranks_per_node,
                placement,
                ..
            } => match placement {
                Placement::Block => rank / ranks_per_node,
                Placement::RoundRobin { nodes } => rank % nodes,
                Placement::File { nodes, .. } => nodes.get(rank as usize).copied().unwrap_or(rank),
            },
        }
    }

    /// The fewest hops between two different ranks (a lower bound).
    pub fn min_hops(&self) -> u32 {
        match self {
            Topology::Levels {
                levels,
                default_hops,
            } => levels.iter().map(|l| l.hops).fold(*default_hops, u32::min),
            Topology::Nodes {
                network,
                ranks_per_node,
                ..
            } => {
                if *ranks_per_node > 1 || network.nodes() == 1 {
                    0
                } else {
                    network.min_hops()
                }
            }
        }
    }

    /// The fewest hops between two ranks on different nodes (the least
    /// distance a message between nodes travels).
    pub fn min_node_hops(&self) -> u32 {
        match self {
            Topology::Levels {
                levels,
                default_hops,
            } => {
                // Levels wider than the node (the first 0-hop one), and the
                // default.
                let node = levels.iter().position(|l| l.hops == 0);
                levels
                    .iter()
                    .skip(node.map_or(0, |i| i + 1))
                    .map(|l| l.hops)
                    .fold(*default_hops, u32::min)
            }
            Topology::Nodes { network, .. } => network.min_hops(),
        }
    }

    /// The hops between the ranks farthest apart (levels: `default_hops`).
    pub fn max_hops(&self) -> u32 {
        match self {
            Topology::Levels { default_hops, .. } => *default_hops,
            Topology::Nodes { network, .. } => network.diameter(),
        }
    }

    /// Whether a job of `n` ranks fits the placement: every rank on a node
    /// of the network, no node holding more than `ranks_per_node`.
    pub fn check_ranks(&self, n: u32) -> Result<(), String> {
        let Topology::Nodes {
            network,
            ranks_per_node,
            placement,
        } = self
        else {
            return Ok(());
        };
        let nodes = network.nodes();
        match placement {
            Placement::Block | Placement::RoundRobin { .. } => {
                let used = match placement {
                    Placement::RoundRobin { nodes } => *nodes as u64,
                    _ => nodes,
                };
                let cap = used * *ranks_per_node as u64;
                if n as u64 > cap {
                    return Err(format!(
                        "the target's topology holds {cap} ranks ({used} nodes of {ranks_per_node}), not {n}"
                    ));
                }
            }
            Placement::File { path, nodes: list } => {
                if (n as usize) > list.len() {
                    return Err(format!(
                        "the placement file {path} places {} ranks, not {n}",
                        list.len()
                    ));
                }
                let mut count = std::collections::HashMap::new();
                for (r, &node) in list.iter().take(n as usize).enumerate() {
                    let c = count.entry(node).or_insert(0u32);
                    *c += 1;
                    if *c > *ranks_per_node {
                        return Err(format!(
                            "the placement file {path} puts more than {ranks_per_node} ranks (ranks_per_node) on node {node} (rank {r})"
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The section as a target file writes it.
    pub fn to_toml(&self) -> String {
        match self {
            Topology::Levels {
                levels,
                default_hops,
            } => {
                let l: Vec<String> = levels
                    .iter()
                    .map(|l| format!("{{ ranks = {}, hops = {} }}", l.ranks, l.hops))
                    .collect();
                format!(
                    "\n[topology]\nlevels = [{}]\ndefault_hops = {default_hops}\n",
                    l.join(", ")
                )
            }
            Topology::Nodes {
                network,
                ranks_per_node,
                placement,
            } => {
                let mut s = String::from("\n[topology]\n");
                match network {
                    Network::FatTree { k, n } => {
                        s += &format!("kind = \"fat-tree\"\nk = {k}\nn = {n}\n")
                    }
                    Network::Grid { dims, wrap } => {
                        let d: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
                        let kind = if *wrap { "torus" } else { "mesh" };
                        s += &format!("kind = \"{kind}\"\ndims = [{}]\n", d.join(", "));
                    }
                    Network::Dragonfly {
                        routers,
                        nodes_per_router,
                        global_links,
                        groups,
                    } => {
                        s += &format!(
                            "kind = \"dragonfly\"\nrouters = {routers}\nnodes_per_router = {nodes_per_router}\n\
                             global_links = {global_links}\ngroups = {groups}\n"
                        )
                    }
                }
                s += &format!("ranks_per_node = {ranks_per_node}\n");
                match placement {
                    Placement::Block => s += "placement = \"block\"\n",
                    Placement::RoundRobin { nodes } => {
                        s += &format!("placement = \"round-robin\"\nnodes = {nodes}\n")
                    }
                    Placement::File { path, .. } => {
                        s += &format!(
                            "placement = \"file\"\nplacement_file = {}\n",
                            Value::String(path.clone())
                        )
                    }
                }
                s
            }
        }
    }
}

/// Reads `[topology]` of `root`; `dir` is the target file's directory
/// (placement files are relative to it).
pub(super) fn parse(
    cx: &Ctx,
    root: &Table,
    empty: &Table,
    dir: Option<&Path>,
) -> Result<Topology, ConfigError> {
    let t = cx.table(root, "topology", true, empty)?;
    let kind = match t.get("kind") {
        None => "levels",
        Some(Value::String(s)) if KINDS.contains(&s.as_str()) => s.as_str(),
        Some(v) => {
            return Err(cx.err(
                "topology.kind",
                format!(
                    "expected one of {}, found {}",
                    KINDS
                        .iter()
                        .map(|k| format!("\"{k}\""))
                        .collect::<Vec<_>>()
                        .join(", "),
                    super::config::describe(v)
                ),
            ))
        }
    };
    if kind == "levels" {
        cx.no_unknown(t, "topology", LEVELS_KEYS)?;
        return parse_levels(cx, t);
    }
    let net_keys: &[&str] = match kind {
        "fat-tree" => &["k", "n"],
        "torus" | "mesh" => &["dims"],
        _ => &["routers", "nodes_per_router", "global_links", "groups"],
    };
    let allowed: Vec<&str> = ["kind"]
        .iter()
        .chain(net_keys)
        .chain(PLACE_KEYS)
        .copied()
        .collect();
    cx.no_unknown(t, "topology", &allowed)?;
    let positive = |k: &str| -> Result<u32, ConfigError> {
        let key = join("topology", k);
        let v = t
            .get(k)
            .ok_or_else(|| cx.err(&key, format!("missing (required for kind = \"{kind}\")")))?;
        let n = cx.count(&key, v)?;
        if n == 0 {
            return Err(cx.err(&key, "must be greater than 0"));
        }
        Ok(n)
    };
    let network = match kind {
        "fat-tree" => {
            let (k, n) = (positive("k")?, positive("n")?);
            if k < 2 {
                return Err(cx.err("topology.k", "a fat-tree needs k >= 2"));
            }
            Network::FatTree { k, n }
        }
        "torus" | "mesh" => {
            let dims = match t.get("dims") {
                Some(Value::Array(a)) if (1..=3).contains(&a.len()) => {
                    let mut d = Vec::new();
                    for (i, v) in a.iter().enumerate() {
                        let key = format!("topology.dims[{i}]");
                        let n = cx.count(&key, v)?;
                        if n == 0 {
                            return Err(cx.err(&key, "must be greater than 0"));
                        }
                        d.push(n);
                    }
                    d
                }
                Some(v) => {
                    return Err(cx.err(
                        "topology.dims",
                        format!(
                            "expected 1 to 3 dimensions such as [8, 8, 8], found {}",
                            super::config::describe(v)
                        ),
                    ))
                }
                None => {
                    return Err(cx.err(
                        "topology.dims",
                        format!("missing (required for kind = \"{kind}\")"),
                    ))
                }
            };
            Network::Grid {
                dims,
                wrap: kind == "torus",
            }
        }
        _ => {
            let routers = positive("routers")?;
            let nodes_per_router = positive("nodes_per_router")?;
            let global_links = positive("global_links")?;
            let max = routers as u64 * global_links as u64 + 1;
            let groups = match t.get("groups") {
                None => u32::try_from(max)
                    .map_err(|_| cx.err("topology.global_links", "too many groups"))?,
                Some(_) => {
                    let g = positive("groups")?;
                    if g as u64 > max {
                        return Err(cx.err(
                            "topology.groups",
                            format!(
                                "at most routers x global_links + 1 = {max} groups can be connected, not {g}"
                            ),
                        ));
                    }
                    g
                }
            };
            Network::Dragonfly {
                routers,
                nodes_per_router,
                global_links,
                groups,
            }
        }
    };
    let nodes = network.nodes();
    if nodes > u32::MAX as u64 {
        return Err(cx.err(
            "topology",
            format!("the network has {nodes} nodes, more than {}", u32::MAX),
        ));
    }
    let ranks_per_node = match t.get("ranks_per_node") {
        None => 1,
        Some(_) => positive("ranks_per_node")?,
    };
    let placement = match t.get("placement") {
        None => Placement::Block,
        Some(Value::String(s)) if s == "block" => Placement::Block,
        Some(Value::String(s)) if s == "round-robin" => {
            let n = match t.get("nodes") {
                None => nodes as u32,
                Some(_) => positive("nodes")?,
            };
            if n as u64 > nodes {
                return Err(cx.err(
                    "topology.nodes",
                    format!("the network has {nodes} nodes, not {n}"),
                ));
            }
            Placement::RoundRobin { nodes: n }
        }
        Some(Value::String(s)) if s == "file" => {
            let path = match t.get("placement_file") {
                Some(Value::String(p)) => p.clone(),
                Some(v) => {
                    return Err(cx.err(
                        "topology.placement_file",
                        format!("expected a file path, found {}", super::config::describe(v)),
                    ))
                }
                None => {
                    return Err(cx.err(
                        "topology.placement_file",
                        "missing (required for placement = \"file\")",
                    ))
                }
            };
            let full = match dir {
                Some(d) if Path::new(&path).is_relative() => d.join(&path),
                _ => Path::new(&path).to_path_buf(),
            };
            let text = std::fs::read_to_string(&full).map_err(|e| {
                cx.err(
                    "topology.placement_file",
                    format!("cannot read {}: {e}", full.display()),
                )
            })?;
            let list = parse_placement(&text, nodes).map_err(|m| {
                cx.err(
                    "topology.placement_file",
                    format!("{}: {m}", full.display()),
                )
            })?;
            Placement::File { path, nodes: list }
        }
        Some(v) => {
            return Err(cx.err(
                "topology.placement",
                format!(
                    "expected \"block\", \"round-robin\" or \"file\", found {}",
                    super::config::describe(v)
                ),
            ))
        }
    };
    if t.contains_key("nodes") && !matches!(placement, Placement::RoundRobin { .. }) {
        return Err(cx.err(
            "topology.nodes",
            "only placement = \"round-robin\" takes a number of nodes",
        ));
    }
    if t.contains_key("placement_file") && !matches!(placement, Placement::File { .. }) {
        return Err(cx.err(
            "topology.placement_file",
            "only placement = \"file\" reads a placement file",
        ));
    }
    Ok(Topology::Nodes {
        network,
        ranks_per_node,
        placement,
    })
}

/// A placement file: one node number per line (line i for rank i), `#`
/// starts a comment, blank lines are skipped.
fn parse_placement(text: &str, nodes: u64) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        let n: u32 = l.parse().map_err(|_| {
            format!(
                "line {}: expected the node number of rank {}, found `{l}`",
                i + 1,
                out.len()
            )
        })?;
        if n as u64 >= nodes {
            return Err(format!(
                "line {}: node {n} of rank {} is not in the network (nodes 0 to {})",
                i + 1,
                out.len(),
                nodes - 1
            ));
        }
        out.push(n);
    }
    if out.is_empty() {
        return Err("places no rank".into());
    }
    Ok(out)
}

fn parse_levels(cx: &Ctx, topo: &Table) -> Result<Topology, ConfigError> {
    let levels = match topo.get("levels") {
        Some(Value::Array(a)) => a,
        None => return Err(cx.err("topology.levels", "missing (required)")),
        Some(v) => {
            return Err(cx.err(
                "topology.levels",
                format!(
                    "expected a list such as [ {{ ranks = 12, hops = 0 }} ], found {}",
                    super::config::describe(v)
                ),
            ))
        }
    };
    let mut out: Vec<Level> = Vec::with_capacity(levels.len());
    for (i, v) in levels.iter().enumerate() {
        let key = format!("topology.levels[{i}]");
        let Value::Table(t) = v else {
            return Err(cx.err(
                &key,
                format!(
                    "expected {{ ranks = N, hops = H }}, found {}",
                    super::config::describe(v)
                ),
            ));
        };
        cx.no_unknown(t, &key, LEVEL_KEYS)?;
        let get = |k: &str| {
            t.get(k)
                .ok_or_else(|| cx.err(&join(&key, k), "missing (required)"))
                .and_then(|v| cx.count(&join(&key, k), v))
        };
        let ranks = get("ranks")?;
        let hops = get("hops")?;
        if ranks == 0 {
            return Err(cx.err(&join(&key, "ranks"), "must be greater than 0"));
        }
        if let Some(prev) = out.last() {
            if ranks <= prev.ranks {
                return Err(cx.err(
                    &join(&key, "ranks"),
                    format!(
                        "levels must be listed with increasing ranks, but {ranks} follows {}",
                        prev.ranks
                    ),
                ));
            }
        }
        out.push(Level { ranks, hops });
    }
    let default_hops = match topo.get("default_hops") {
        Some(v) => cx.count("topology.default_hops", v)?,
        None => return Err(cx.err("topology.default_hops", "missing (required)")),
    };
    Ok(Topology::Levels {
        levels: out,
        default_hops,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;

    const NET: &str = "name = \"t\"\n[network]\nmem_bandwidth = \"1 GB/s\"\n\
        net_bandwidth = \"1 GB/s\"\nlatency = \"1 us\"\nhop_latency = \"100 ns\"\n\
        eager_limit = \"1 KiB\"\nheader_bytes = 8\n";

    fn topo(section: &str) -> Result<Topology, String> {
        Model::from_toml_str(&format!("{NET}[topology]\n{section}"), "t.toml")
            .map(|m| m.topology)
            .map_err(|e| e.to_string())
    }

    fn hops(t: &Topology, pairs: &[(u32, u32, u32)]) {
        for &(x, y, h) in pairs {
            assert_eq!(t.hops(x, y), h, "hop({x}, {y})");
            assert_eq!(t.hops(y, x), h, "hop({y}, {x})");
        }
    }

    #[test]
    fn fat_tree_hops() {
        // a 4-ary 3-tree: 64 nodes, leaf switches of 4, pods of 16
        let t = topo("kind = \"fat-tree\"\nk = 4\nn = 3\n").unwrap();
        hops(
            &t,
            &[
                (0, 0, 0),
                (0, 1, 2),
                (0, 3, 2),
                (0, 4, 4),
                (5, 15, 4),
                (0, 16, 6),
                (0, 63, 6),
            ],
        );
        assert_eq!(t.max_hops(), 6);
        assert_eq!(t.min_hops(), 2);
        assert!(t.check_ranks(64).is_ok());
        assert_eq!(
            t.check_ranks(65).unwrap_err(),
            "the target's topology holds 64 ranks (64 nodes of 1), not 65"
        );
    }

    #[test]
    fn torus_and_mesh_hops() {
        let t = topo("kind = \"torus\"\ndims = [4, 4]\n").unwrap();
        // node i at (i % 4, i / 4)
        hops(
            &t,
            &[(0, 1, 1), (0, 3, 1), (0, 15, 2), (5, 10, 2), (0, 10, 4)],
        );
        assert_eq!(t.max_hops(), 4);
        let m = topo("kind = \"mesh\"\ndims = [4, 4]\n").unwrap();
        hops(
            &m,
            &[(0, 1, 1), (0, 3, 3), (0, 15, 6), (5, 10, 2), (0, 10, 4)],
        );
        assert_eq!(m.max_hops(), 6);
        let t3 = topo("kind = \"torus\"\ndims = [4, 4, 4]\n").unwrap();
        // 42 = (2, 2, 2), 63 = (3, 3, 3)
        hops(&t3, &[(0, 42, 6), (0, 63, 3), (21, 42, 3)]);
        assert_eq!(t3.min_hops(), 1);
    }

    #[test]
    fn dragonfly_hops() {
        // a = 4 routers per group, p = 2 nodes per router, h = 2 global
        // links per router: 9 groups, 72 nodes.
        let t = topo("kind = \"dragonfly\"\nrouters = 4\nnodes_per_router = 2\nglobal_links = 2\n")
            .unwrap();
        let Topology::Nodes { network, .. } = &t else {
            panic!()
        };
        assert_eq!(network.nodes(), 72);
        // same router 2; same group 3; group 0 -> 1: link 0 of both groups
        // (router 0 each end) 3; group 0 -> 8: group 0's link 7 (router 3),
        // group 8's link 0 (router 0 = node 64's).
        hops(
            &t,
            &[
                (0, 1, 2),
                (0, 2, 3),
                (0, 7, 3),
                (0, 8, 3),
                (0, 64, 4),
                (0, 70, 5),
                (6, 64, 3),
            ],
        );
        assert_eq!(t.max_hops(), 5);
        assert_eq!(
            topo("kind = \"dragonfly\"\nrouters = 4\nnodes_per_router = 2\nglobal_links = 2\ngroups = 10\n")
                .unwrap_err(),
            "t.toml: key `topology.groups`: at most routers x global_links + 1 = 9 groups can be connected, not 10"
        );
    }

    #[test]
    fn placements() {
        let block = topo("kind = \"fat-tree\"\nk = 2\nn = 2\nranks_per_node = 2\n").unwrap();
        assert_eq!(
            (0..8).map(|r| block.node_of(r)).collect::<Vec<_>>(),
            [0, 0, 1, 1, 2, 2, 3, 3]
        );
        hops(&block, &[(0, 1, 0), (0, 2, 2), (0, 4, 4), (3, 7, 4)]);
        assert_eq!(block.min_hops(), 0);
        assert!(block.check_ranks(8).is_ok());
        assert!(block.check_ranks(9).is_err());
        let rr = topo(
            "kind = \"fat-tree\"\nk = 2\nn = 2\nranks_per_node = 2\nplacement = \"round-robin\"\nnodes = 3\n",
        )
        .unwrap();
        assert_eq!(
            (0..6).map(|r| rr.node_of(r)).collect::<Vec<_>>(),
            [0, 1, 2, 0, 1, 2]
        );
        hops(&rr, &[(0, 3, 0), (0, 1, 2), (0, 2, 4)]);
        assert_eq!(
            rr.check_ranks(7).unwrap_err(),
            "the target's topology holds 6 ranks (3 nodes of 2), not 7"
        );
        let dir = std::env::temp_dir().join(format!("vaced-place-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("p.txt"), "# rank: node\n3\n3 # rank 1\n\n0\n1\n").unwrap();
        let text = format!(
            "{NET}[topology]\nkind = \"torus\"\ndims = [4]\nranks_per_node = 2\nplacement = \"file\"\nplacement_file = \"p.txt\"\n"
        );
        let m = Model::from_toml_in(&text, "f.toml", Some(&dir)).unwrap();
        let t = &m.topology;
        assert_eq!(
            (0..4).map(|r| t.node_of(r)).collect::<Vec<_>>(),
            [3, 3, 0, 1]
        );
        hops(t, &[(0, 1, 0), (0, 2, 1), (1, 3, 2)]);
        assert!(t.check_ranks(4).is_ok());
        assert_eq!(
            t.check_ranks(5).unwrap_err(),
            "the placement file p.txt places 4 ranks, not 5"
        );
        assert_eq!(
            Model::from_toml_in(&m.to_toml(), "again", Some(&dir)).unwrap(),
            m
        );
        std::fs::write(dir.join("p.txt"), "0\n0\n0\n").unwrap();
        let m = Model::from_toml_in(&text, "f.toml", Some(&dir)).unwrap();
        assert_eq!(
            m.topology.check_ranks(3).unwrap_err(),
            "the placement file p.txt puts more than 2 ranks (ranks_per_node) on node 0 (rank 2)"
        );
        std::fs::write(dir.join("p.txt"), "0\n4\n").unwrap();
        let e = Model::from_toml_in(&text, "f.toml", Some(&dir))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("f.toml: key `topology.placement_file`: ")
                && e.ends_with(
                    "p.txt: line 2: node 4 of rank 1 is not in the network (nodes 0 to 3)"
                ),
            "{e}"
        );
        std::fs::write(dir.join("p.txt"), "0\nx\n").unwrap();
        let e = Model::from_toml_in(&text, "f.toml", Some(&dir))
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("line 2: expected the node number of rank 1, found `x`"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn errors_name_the_key() {
        assert_eq!(
            topo("kind = \"hypercube\"\n").unwrap_err(),
            "t.toml: key `topology.kind`: expected one of \"levels\", \"fat-tree\", \"torus\", \"mesh\", \"dragonfly\", found the string \"hypercube\""
        );
        assert_eq!(
            topo("kind = \"fat-tree\"\nk = 4\n").unwrap_err(),
            "t.toml: key `topology.n`: missing (required for kind = \"fat-tree\")"
        );
        assert_eq!(
            topo("kind = \"fat-tree\"\nk = 4\nn = 2\nlevels = []\n").unwrap_err(),
            "t.toml: key `topology.levels`: unknown key (expected one of: kind, k, n, ranks_per_node, placement, placement_file, nodes)"
        );
        assert_eq!(
            topo("kind = \"torus\"\ndims = [4, 0]\n").unwrap_err(),
            "t.toml: key `topology.dims[1]`: must be greater than 0"
        );
        assert_eq!(
            topo("kind = \"mesh\"\ndims = [2, 2, 2, 2]\n").unwrap_err(),
            "t.toml: key `topology.dims`: expected 1 to 3 dimensions such as [8, 8, 8], found a array"
        );
        assert_eq!(
            topo("kind = \"torus\"\ndims = [4]\nplacement = \"scatter\"\n").unwrap_err(),
            "t.toml: key `topology.placement`: expected \"block\", \"round-robin\" or \"file\", found the string \"scatter\""
        );
        assert_eq!(
            topo("kind = \"torus\"\ndims = [4]\nnodes = 2\n").unwrap_err(),
            "t.toml: key `topology.nodes`: only placement = \"round-robin\" takes a number of nodes"
        );
        assert_eq!(
            topo("kind = \"torus\"\ndims = [4]\nplacement = \"round-robin\"\nnodes = 5\n")
                .unwrap_err(),
            "t.toml: key `topology.nodes`: the network has 4 nodes, not 5"
        );
        assert_eq!(
            topo("kind = \"torus\"\ndims = [4]\nplacement = \"file\"\n").unwrap_err(),
            "t.toml: key `topology.placement_file`: missing (required for placement = \"file\")"
        );
        assert_eq!(
            topo("kind = \"fat-tree\"\nk = 1\nn = 2\n").unwrap_err(),
            "t.toml: key `topology.k`: a fat-tree needs k >= 2"
        );
        assert_eq!(
            topo("levels = []\ndefault_hops = 1\nranks_per_node = 2\n").unwrap_err(),
            "t.toml: key `topology.ranks_per_node`: unknown key (expected one of: kind, levels, default_hops)"
        );
    }

    #[test]
    fn round_trips() {
        for s in [
            "kind = \"fat-tree\"\nk = 4\nn = 3\nranks_per_node = 16\n",
            "kind = \"mesh\"\ndims = [2, 3, 4]\nplacement = \"round-robin\"\n",
            "kind = \"dragonfly\"\nrouters = 4\nnodes_per_router = 2\nglobal_links = 2\ngroups = 5\n",
        ] {
            let m = Model::from_toml_str(&format!("{NET}[topology]\n{s}"), "t").unwrap();
            assert_eq!(Model::from_toml_str(&m.to_toml(), "again").unwrap(), m, "{s}");
        }
    }
}
