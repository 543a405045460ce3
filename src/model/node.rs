//! The `[network.node]` section of a target file: messages between two
//! different ranks on the same target node (hop(x, y) = 0), which real MPI
//! libraries send through shared memory with parameters of their own.
//!
//! ```toml
//! [network.node]
//! latency = "0.3 us"      # default 0 s
//! bandwidth = "10 GB/s"   # default: network.mem_bandwidth
//! eager_limit = "64 KiB"  # default: network.eager_limit
//! single_copy = true      # default false
//! rendezvous_overhead = "2.8 us"   # see `rendezvous` (default 0 s)
//! rendezvous_bandwidth = "9 GB/s"  # (default: bandwidth)
//! ```
//!
//! Every key is optional and the defaults are the model of Eq. 4 for h = 0
//! (`L = size/Bmem`, the network's eager limit, two copies), so a target
//! without the section predicts what it always did. Timing rules (for a
//! message of `b` bytes, `M(b) = b/Bmem`):
//! * eager DATA, REQ, ACK: `tr = ts + M(b)`, `ta = tr + latency + b/bandwidth`,
//!   and the receiver copies out (`M(b)`) as for any message;
//! * rendezvous DATA with `single_copy = true` (MPICH's large on-node
//!   transfers: the receiver reads the sender's buffer once, as with CMA or
//!   KNEM): `tr = ta = t + latency + b/bandwidth` and no copy out, so the one
//!   copy is the transfer itself; without it the DATA is timed as eager DATA.
use super::config::{join, Ctx};
use super::rendezvous::{self, Rendezvous};
use super::units::{self, Quantity};
use super::{ConfigError, VTime};
use toml::{Table, Value};

const NODE_KEYS: &[&str] = &[
    "latency",
    "bandwidth",
    "eager_limit",
    "single_copy",
    "rendezvous_overhead",
    "rendezvous_bandwidth",
];

/// On-node message parameters, defaults resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeNet {
    pub latency: VTime,
    /// Bytes per second of the transfer between the two ranks' memories.
    pub bandwidth: u64,
    /// On-node messages of at most this many bytes are eager.
    pub eager_limit: u64,
    /// Rendezvous DATA moves with one copy (see the module doc).
    pub single_copy: bool,
    /// The rendezvous DATA's overhead and bandwidth on the node.
    pub rendezvous: Rendezvous,
}

impl NodeNet {
    /// The section's defaults for a network of `mem_bandwidth` and
    /// `eager_limit`: today's h = 0 model.
    pub fn defaults(mem_bandwidth: u64, eager_limit: u64) -> NodeNet {
        NodeNet {
            latency: VTime::ZERO,
            bandwidth: mem_bandwidth,
            eager_limit,
            single_copy: false,
            rendezvous: Rendezvous::defaults(mem_bandwidth),
        }
    }

    /// The section as a target file writes it (every key, the rendezvous
    /// ones when they are not their defaults).
    pub fn to_toml(&self) -> String {
        format!(
            "\n[network.node]\nlatency = \"{}\"\nbandwidth = \"{}\"\neager_limit = \"{}\"\nsingle_copy = {}\n{}",
            units::format_time(self.latency),
            units::format_bandwidth(self.bandwidth),
            units::format_size(self.eager_limit),
            self.single_copy,
            self.rendezvous.to_toml(self.bandwidth)
        )
    }
}

/// Reads `network.node` of the `[network]` table `net`.
pub(super) fn parse(
    cx: &Ctx,
    net: &Table,
    empty: &Table,
    defaults: NodeNet,
) -> Result<NodeNet, ConfigError> {
    let p = "network.node";
    let t = match net.get("node") {
        None => empty,
        Some(Value::Table(t)) => t,
        Some(_) => return Err(cx.err(
            p,
            "expected a section [network.node] with latency, bandwidth, eager_limit, single_copy",
        )),
    };
    cx.no_unknown(t, p, NODE_KEYS)?;
    let latency = cx.time(t, p, "latency", Some(defaults.latency))?;
    let bandwidth = cx.value(
        t,
        p,
        "bandwidth",
        Quantity::Bandwidth,
        Some(defaults.bandwidth),
    )?;
    let eager_limit = cx.value(
        t,
        p,
        "eager_limit",
        Quantity::Size,
        Some(defaults.eager_limit),
    )?;
    let single_copy = match t.get("single_copy") {
        None => defaults.single_copy,
        Some(Value::Boolean(b)) => *b,
        Some(v) => {
            return Err(cx.err(
                &join(p, "single_copy"),
                format!(
                    "expected true or false, found {}",
                    super::config::describe(v)
                ),
            ))
        }
    };
    let rendezvous = rendezvous::parse(cx, t, p, bandwidth)?;
    Ok(NodeNet {
        latency,
        bandwidth,
        eager_limit,
        single_copy,
        rendezvous,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;

    const BASE: &str = "name = \"t\"\n[network]\nmem_bandwidth = \"1 GB/s\"\n\
        net_bandwidth = \"500 MB/s\"\nlatency = \"2 us\"\nhop_latency = \"100 ns\"\n\
        eager_limit = \"1 KiB\"\nheader_bytes = 8\n";
    const TOPO: &str = "[topology]\nlevels = [ { ranks = 4, hops = 0 } ]\ndefault_hops = 3\n";

    fn model(node: &str) -> Result<Model, String> {
        Model::from_toml_str(&format!("{BASE}{node}{TOPO}"), "t.toml").map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_are_todays_model() {
        let m = model("").unwrap();
        assert_eq!(m.node, NodeNet::defaults(1_000_000_000, 1024));
        // h = 0: L = size/Bmem; 1000 B at 1 GB/s = 1 us
        let (tr, ta) = m.send_times(VTime::ZERO, 1000, 0, 1);
        assert_eq!((tr.ps(), ta.ps()), (1_000_000, 2_000_000));
        assert_eq!(m.data_times(VTime::ZERO, 1000, 0, 1), (tr, ta));
        assert_eq!(m.copy_out(1000, 0, 1, true).ps(), 1_000_000);
        assert_eq!(m.eager_limit_for(0, 1), 1024);
        assert!(!m.to_toml().contains("[network.node]"));
    }

    #[test]
    fn on_node_parameters() {
        let m = model(
            "[network.node]\nlatency = \"300 ns\"\nbandwidth = \"4 GB/s\"\neager_limit = \"64 KiB\"\nsingle_copy = true\n",
        )
        .unwrap();
        // on one node: tr = 0 + 1000 B / 1 GB/s = 1 us; ta = tr + 300 ns + 1000 B / 4 GB/s (250 ns)
        let (tr, ta) = m.send_times(VTime::ZERO, 1000, 0, 3);
        assert_eq!((tr.ps(), ta.ps()), (1_000_000, 1_550_000));
        // single-copy DATA: tr = ta = 300 ns + 250 ns, nothing to copy out
        let (tr, ta) = m.data_times(VTime::ZERO, 1000, 0, 3);
        assert_eq!((tr.ps(), ta.ps()), (550_000, 550_000));
        assert_eq!(m.copy_out(1000, 0, 3, true), VTime::ZERO);
        assert_eq!(m.copy_out(1000, 0, 3, false).ps(), 1_000_000);
        assert_eq!(m.eager_limit_for(0, 3), 65_536);
        // between nodes: Eq. 3-4 with l(3) = 2 us + 300 ns; 1000 B / 500 MB/s = 2 us
        let (tr, ta) = m.data_times(VTime::ZERO, 1000, 0, 4);
        assert_eq!(
            (tr.ps(), ta.ps()),
            (1_000_000, 1_000_000 + 2_000_000 + 2_300_000)
        );
        assert_eq!(m.copy_out(1000, 0, 4, true).ps(), 1_000_000);
        assert_eq!(m.eager_limit_for(0, 4), 1024);
        // to oneself: no copy in, no transfer; one copy out
        assert_eq!(
            m.send_times(VTime::from_ps(5), 1000, 2, 2),
            (VTime::from_ps(5), VTime::from_ps(5))
        );
        assert_eq!(
            m.data_times(VTime::from_ps(5), 1000, 2, 2),
            (VTime::from_ps(5), VTime::from_ps(5))
        );
        assert_eq!(m.copy_out(1000, 2, 2, true).ps(), 1_000_000);
        assert_eq!(m.pair_latency(0, 3).ps(), 300_000);
        assert_eq!(m.pair_latency(3, 3).ps(), 0);
        assert_eq!(Model::from_toml_str(&m.to_toml(), "again").unwrap(), m);
    }

    #[test]
    fn errors_name_the_key() {
        assert_eq!(
            model("[network.node]\nlatency = \"3 parsecs\"\n").unwrap_err(),
            "t.toml: key `network.node.latency`: unknown unit `parsecs` in `3 parsecs` (accepted units: s, ms, us, \u{b5}s, \u{3bc}s, ns, ps)"
        );
        assert_eq!(
            model("[network.node]\nsingle_copy = \"yes\"\n").unwrap_err(),
            "t.toml: key `network.node.single_copy`: expected true or false, found the string \"yes\""
        );
        assert_eq!(
            model("[network.node]\nbandwith = \"1 GB/s\"\n").unwrap_err(),
            "t.toml: key `network.node.bandwith`: unknown key (did you mean `bandwidth`?)"
        );
    }
}
