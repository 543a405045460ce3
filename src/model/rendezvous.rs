//! The rendezvous DATA's own parameters, in `[network]` (between nodes) and
//! in `[network.node]` (on one node):
//!
//! ```toml
//! rendezvous_overhead = "2.8 us"    # default 0 s
//! rendezvous_bandwidth = "9 GB/s"   # default: the section's eager bandwidth
//! ```
//!
//! Real MPI libraries move a large message by another path than an eager
//! one (MPICH over UCX: a get through CMA or RDMA after the RTS, with its
//! own set-up and completion messages), so its fixed cost and its per-byte
//! cost differ from the eager path's. Rule: the DATA answering an ACK
//! handled at `t` leaves at `t + rendezvous_overhead` and crosses the
//! network (or the node) at `rendezvous_bandwidth`; the copies in and out
//! (or the single on-node copy) are as before. The defaults give the model
//! without them.
use super::config::Ctx;
use super::units::{self, Quantity};
use super::{ConfigError, VTime};
use toml::Table;

/// Keys of a section that this module reads.
pub const KEYS: &[&str] = &["rendezvous_overhead", "rendezvous_bandwidth"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rendezvous {
    /// From the ACK's handling to the DATA's start.
    pub overhead: VTime,
    /// Bytes per second of the DATA's transfer.
    pub bandwidth: u64,
}

impl Rendezvous {
    /// The defaults for a path of `bandwidth`: no overhead, the same
    /// bandwidth.
    pub fn defaults(bandwidth: u64) -> Rendezvous {
        Rendezvous {
            overhead: VTime::ZERO,
            bandwidth,
        }
    }

    /// The keys as a target file writes them (none when they are the
    /// defaults for `bandwidth`).
    pub fn to_toml(&self, bandwidth: u64) -> String {
        if *self == Rendezvous::defaults(bandwidth) {
            return String::new();
        }
        format!(
            "rendezvous_overhead = \"{}\"\nrendezvous_bandwidth = \"{}\"\n",
            units::format_time(self.overhead),
            units::format_bandwidth(self.bandwidth)
        )
    }
}

/// Reads the keys from section `t` (named `prefix`), for a path of
/// `bandwidth`.
pub(super) fn parse(
    cx: &Ctx,
    t: &Table,
    prefix: &str,
    bandwidth: u64,
) -> Result<Rendezvous, ConfigError> {
    let overhead = cx.time(t, prefix, "rendezvous_overhead", Some(VTime::ZERO))?;
    let bandwidth = cx.value(
        t,
        prefix,
        "rendezvous_bandwidth",
        Quantity::Bandwidth,
        Some(bandwidth),
    )?;
    Ok(Rendezvous {
        overhead,
        bandwidth,
    })
}

#[cfg(test)]
mod tests {
    use crate::model::{Model, Rendezvous, VTime};

    const BASE: &str = "name = \"t\"\n[network]\nmem_bandwidth = \"1 GB/s\"\n\
        net_bandwidth = \"500 MB/s\"\nlatency = \"2 us\"\nhop_latency = \"0 s\"\n\
        eager_limit = \"1 KiB\"\nheader_bytes = 8\n";
    const TOPO: &str = "[topology]\nlevels = [ { ranks = 2, hops = 0 } ]\ndefault_hops = 1\n";

    fn model(net: &str, node: &str) -> Result<Model, String> {
        Model::from_toml_str(&format!("{BASE}{net}{node}{TOPO}"), "t.toml")
            .map_err(|e| e.to_string())
    }

    #[test]
    fn data_leaves_after_the_overhead_at_its_own_bandwidth() {
        let m = model(
            "rendezvous_overhead = \"3 us\"\nrendezvous_bandwidth = \"250 MB/s\"\n",
            "[network.node]\nrendezvous_overhead = \"1 us\"\nrendezvous_bandwidth = \"2 GB/s\"\n",
        )
        .unwrap();
        assert_eq!(
            m.rendezvous,
            Rendezvous {
                overhead: VTime::from_ps(3_000_000),
                bandwidth: 250_000_000
            }
        );
        // between nodes: leaves at 3 us, copy 1000 B / 1 GB/s = 1 us, then
        // 2 us + 1000 B / 250 MB/s = 4 us on the wire
        let (tr, ta) = m.data_times(VTime::ZERO, 1000, 0, 2);
        assert_eq!((tr.ps(), ta.ps()), (4_000_000, 10_000_000));
        // eager DATA keeps net_bandwidth: 1 us + 2 us + 2 us
        assert_eq!(m.send_times(VTime::ZERO, 1000, 0, 2).1.ps(), 5_000_000);
        // on one node (two copies): 1 us, copy 1 us, 0 latency + 500 ns
        let (tr, ta) = m.data_times(VTime::ZERO, 1000, 0, 1);
        assert_eq!((tr.ps(), ta.ps()), (2_000_000, 2_500_000));
        // to oneself: nothing
        assert_eq!(m.data_times(VTime::from_ps(9), 1000, 1, 1).1.ps(), 9);
        assert_eq!(Model::from_toml_str(&m.to_toml(), "again").unwrap(), m);
        // defaults: the eager path's bandwidth, no overhead, nothing written
        let d = model("", "").unwrap();
        assert_eq!(d.rendezvous, Rendezvous::defaults(500_000_000));
        assert_eq!(d.node.rendezvous, Rendezvous::defaults(1_000_000_000));
        assert!(!d.to_toml().contains("rendezvous"));
    }

    #[test]
    fn errors_name_the_key() {
        assert_eq!(
            model("rendezvous_overhead = \"-1 us\"\n", "").unwrap_err(),
            "t.toml: key `network.rendezvous_overhead`: must not be negative"
        );
        assert_eq!(
            model("", "[network.node]\nrendezvous_bandwidth = \"0 GB/s\"\n").unwrap_err(),
            "t.toml: key `network.node.rendezvous_bandwidth`: `0 GB/s`: a bandwidth must be greater than 0 B/s"
        );
    }
}
