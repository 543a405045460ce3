//! The target machine: TOML configuration (every value with a unit), the
//! network equations of the paper (Eq. 3-4), the hop(x, y) topology (Eq. 5)
//! and named presets.
//!
//! API contract used by the engine and the launcher (implemented in the
//! submodules):
//! * `Model::load(spec)` — a preset name (`tianhe1a`) or a path to a TOML file;
//!   errors name the offending key.
//! * `mem_time(bytes)` = bytes / Bmem; `link_time(bytes, h)` = L(bytes, h);
//!   `hops(x, y)`; `send_times(ts, bytes, s, r)` = (tr, ta) of Eq. 3.
mod config;
pub mod io;
pub mod presets;
pub mod time;
pub mod units;

pub use io::IoModel;
pub use presets::{preset_names, preset_toml};
pub use time::{transfer_time, VTime};

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
    pub levels: Vec<Level>,
    pub default_hops: u32,
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

    /// hop(x, y): the hops of the first level whose block holds both ranks.
    pub fn hops(&self, x: u32, y: u32) -> u32 {
        for l in &self.levels {
            if x / l.ranks == y / l.ranks {
                return l.hops;
            }
        }
        self.default_hops
    }

    /// l(h) = latency + h * hop_latency.
    pub fn wire_latency(&self, h: u32) -> VTime {
        self.latency + VTime::from_ps(self.hop_latency.ps() * h as u64)
    }

    /// L(size, h) of Eq. 4: size/Bnet + l(h) for h > 0, size/Bmem for h = 0.
    pub fn link_time(&self, bytes: u64, h: u32) -> VTime {
        if h == 0 {
            self.mem_time(bytes)
        } else {
            transfer_time(bytes, self.net_bandwidth) + self.wire_latency(h)
        }
    }

    /// Eq. 3 for a message of `bytes` from `s` to `r` started at `ts`:
    /// returns (tr, ta) with tr = ts + size/Bmem and ta = tr + L(size, hop(s, r)).
    pub fn send_times(&self, ts: VTime, bytes: u64, s: u32, r: u32) -> (VTime, VTime) {
        let tr = ts + self.mem_time(bytes);
        (tr, tr + self.link_time(bytes, self.hops(s, r)))
    }

    /// The smallest L(0, hop(s, r)) over all pairs: a lower bound on how far in
    /// the future any message lands (used by conservative decisions).
    pub fn min_latency(&self) -> VTime {
        let mut h = self.default_hops;
        for l in &self.levels {
            h = h.min(l.hops);
        }
        self.link_time(0, h)
    }

    /// Target node of a rank: the block of the first level that is 0 hops wide
    /// (each rank is its own node when there is none).
    pub fn node_of(&self, rank: u32) -> u32 {
        match self.levels.iter().find(|l| l.hops == 0) {
            Some(l) => rank / l.ranks,
            None => rank,
        }
    }
}
