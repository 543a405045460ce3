//! The target machine: TOML configuration (every value with a unit), the
//! network equations of the paper (Eq. 3-4), hop(x, y) topologies (Eq. 5's
//! nested blocks, fat-trees, tori, meshes, dragonflies) and named presets.
//!
//! API contract used by the engine and the launcher (implemented in the
//! submodules):
//! * `Model::load(spec)` — a preset name (`tianhe1a`) or a path to a TOML file;
//!   errors name the offending key.
//! * `mem_time(bytes)` = bytes / Bmem; `hops(x, y)`; `node_of(rank)`.
//! * The three kinds of pair a message travels between, each with its own
//!   rule: a rank and itself (one copy: MPICH copies a message to oneself
//!   once, from the send buffer into the receive buffer), two ranks of one
//!   node (`[network.node]`, see [`node`]), two nodes (Eq. 3-4 with l(h)).
//!   `send_times` (eager DATA, REQ, ACK), `data_times` (rendezvous DATA),
//!   `copy_out` (the receiver's copy) and `eager_limit_for` apply them.
mod config;
pub mod contention;
pub mod io;
pub mod node;
pub mod presets;
pub mod rendezvous;
pub mod route;
pub mod time;
pub mod topology;
pub mod units;

pub use contention::{Contention, Flow, FlowTable};
pub use io::IoModel;
pub use node::NodeNet;
pub use presets::{preset_names, preset_toml};
pub use rendezvous::Rendezvous;
pub use time::{transfer_time, VTime};
pub use topology::{Network, Placement, Topology};

use std::collections::BTreeMap;
use std::fmt;

/// A configuration error: which key, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Where the configuration came from (file path or `preset NAME`).
    pub origin: String,
    /// Dotted key, e.g. `network.mem_bandwidth` (empty for whole-file errors).
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.origin, self.message)
        } else {
            write!(f, "{}: key `{}`: {}", self.origin, self.key, self.message)
        }
    }
}
impl std::error::Error for ConfigError {}

/// One level of the hop table: ranks `x` and `y` with `x / ranks == y / ranks`
/// are `hops` apart (the first matching level wins).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    pub ranks: u32,
    pub hops: u32,
}

/// The target machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub name: String,
    /// target compute time / host CPU time (0 = computation is free).
    pub cpu_scale: f64,
    /// Bmem and Bnet in bytes per second.
    pub mem_bandwidth: u64,
    pub net_bandwidth: u64,
    /// l(h) = latency + h * hop_latency
    pub latency: VTime,
    pub hop_latency: VTime,
    /// Messages of at most this many bytes use the eager protocol.
    pub eager_limit: u64,
    /// Size in bytes of REQ and ACK messages.
    pub header_bytes: u64,
    /// Per-message software overhead of the target MPI at send / receive.
    pub o_send: VTime,
    pub o_recv: VTime,
    /// The rendezvous DATA's overhead and bandwidth between nodes.
    pub rendezvous: Rendezvous,
    /// `[network.node]`: messages between two ranks of one node.
    pub node: NodeNet,
    /// hop(x, y) and the node of each rank.
    pub topology: Topology,
    /// `[network] contention`: whether flows share links ([`contention`]).
    pub contention: Contention,
    /// `[collectives]`: an algorithm forced by name per collective
    /// (`bcast = "binomial"`); names are checked by `coll::select::validate`.
    pub collectives: BTreeMap<String, String>,
    /// `[io]`: the target's parallel file system (MPI-IO timing).
    pub io: IoModel,
}

impl Model {
    /// bytes / Bmem.
    pub fn mem_time(&self, bytes: u64) -> VTime {
        transfer_time(bytes, self.mem_bandwidth)
    }

    /// hop(x, y) of ranks `x` and `y`.
    pub fn hops(&self, x: u32, y: u32) -> u32 {
        self.topology.hops(x, y)
    }

    /// l(h) = latency + h * hop_latency.
    pub fn wire_latency(&self, h: u32) -> VTime {
        self.latency + VTime::from_ps(self.hop_latency.ps() * h as u64)
    }

    /// L(size, h) of Eq. 4 between two different ranks: size/Bnet + l(h)
    /// for h > 0; on one node (h = 0), `[network.node]`'s latency +
    /// size/bandwidth (size/Bmem by default).
    pub fn link_time(&self, bytes: u64, h: u32) -> VTime {
        if h == 0 {
            self.node.latency + transfer_time(bytes, self.node.bandwidth)
        } else {
            transfer_time(bytes, self.net_bandwidth) + self.wire_latency(h)
        }
    }

    /// Eq. 3 for a message (eager DATA, REQ, ACK, a control message) of
    /// `bytes` from `s` to `r` started at `ts`: returns (tr, ta) with
    /// tr = ts + size/Bmem and ta = tr + L(size, hop(s, r)). A message to
    /// oneself is neither copied in nor carried: tr = ta = ts (its one copy
    /// is the receiver's, [`Model::copy_out`]).
    pub fn send_times(&self, ts: VTime, bytes: u64, s: u32, r: u32) -> (VTime, VTime) {
        if s == r {
            return (ts, ts);
        }
        let tr = ts + self.mem_time(bytes);
        (tr, tr + self.link_time(bytes, self.hops(s, r)))
    }

    /// The rendezvous DATA of `bytes` from `s` to `r` whose ACK was
    /// handled at `t`: (tr, ta). It leaves at t' = t + the path's
    /// `rendezvous_overhead` and crosses at its `rendezvous_bandwidth`
    /// (module [`rendezvous`]): tr = t' + size/Bmem, ta = tr + latency +
    /// size/rendezvous_bandwidth; on one node with `single_copy` the
    /// transfer is the only copy: tr = ta = t' + latency +
    /// size/rendezvous_bandwidth. To oneself: tr = ta = t.
    pub fn data_times(&self, t: VTime, bytes: u64, s: u32, r: u32) -> (VTime, VTime) {
        if s == r {
            return (t, t);
        }
        let h = self.hops(s, r);
        let (rdv, lat) = if h == 0 {
            (self.node.rendezvous, self.node.latency)
        } else {
            (self.rendezvous, self.wire_latency(h))
        };
        let t = t + rdv.overhead;
        let wire = lat + transfer_time(bytes, rdv.bandwidth);
        if h == 0 && self.node.single_copy {
            return (t + wire, t + wire);
        }
        let tr = t + self.mem_time(bytes);
        (tr, tr + wire)
    }

    /// The receiver's copy of a message of `bytes` from `s` to `r` into the
    /// user's buffer: size/Bmem, except for rendezvous DATA (`data`) moved
    /// by a single copy on one node (nothing left to copy).
    pub fn copy_out(&self, bytes: u64, s: u32, r: u32, data: bool) -> VTime {
        if data && s != r && self.node.single_copy && self.hops(s, r) == 0 {
            VTime::ZERO
        } else {
            self.mem_time(bytes)
        }
    }

    /// Messages from `s` to `r` of at most this many bytes are eager:
    /// `[network.node]`'s limit for ranks 0 hops apart (a rank and itself
    /// too, except on a `levels` topology whose first level is not 0 hops
    /// wide), the network's otherwise.
    pub fn eager_limit_for(&self, s: u32, r: u32) -> u64 {
        if self.hops(s, r) == 0 {
            self.node.eager_limit
        } else {
            self.eager_limit
        }
    }

    /// L(0) from `s` to `r`: how soon after it is sent a message can land
    /// (used by conservative decisions).
    pub fn pair_latency(&self, s: u32, r: u32) -> VTime {
        self.send_times(VTime::ZERO, 0, s, r).1
    }

    /// The smallest L(0, hop(s, r)) over all pairs of different ranks: a
    /// lower bound on how far in the future any message lands.
    pub fn min_latency(&self) -> VTime {
        self.link_time(0, self.topology.min_hops())
    }

    /// Target node of a rank.
    pub fn node_of(&self, rank: u32) -> u32 {
        self.topology.node_of(rank)
    }
}
