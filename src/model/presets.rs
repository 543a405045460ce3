//! Named target machines, stored as TOML text so that they go through the
//! same parser as user files (`vaced target show NAME` prints the text).

/// The paper's platform (section 5.2): Bmem = 6.38 GB/s, Bnet = 4.16 GB/s,
/// l(h) = 15 us + h x 0.6 us, measured there with a ping-pong program, and the
/// hop function of Eq. 5 (0 hops within a 12-core node, 3 within a 192-core
/// switching board of 16 nodes, 5 otherwise). The paper gives no eager limit
/// or header size; 128 KiB and 64 B are DESIGN.md's choice for an MPICH2-era
/// library. Per-message overheads are left at 0, as the paper's model has
/// none.
pub const TIANHE1A: &str = r#"name = "tianhe1a"                   # the paper's section 5.2 parameters

[cpu]
scale = 1.0                         # target compute time / host CPU time

[network]
mem_bandwidth = "6.38 GB/s"         # Bmem
net_bandwidth = "4.16 GB/s"         # Bnet
latency = "15 us"                   # l(h) = latency + h * hop_latency
hop_latency = "0.6 us"
eager_limit = "128 KiB"
header_bytes = 64

[topology]                          # hop(x, y), paper Eq. 5
levels = [ { ranks = 12, hops = 0 }, { ranks = 192, hops = 3 } ]
default_hops = 5
"#;

const PRESETS: &[(&str, &str)] = &[("tianhe1a", TIANHE1A)];
const NAMES: &[&str] = &["tianhe1a"];

/// The names of all presets.
pub fn preset_names() -> &'static [&'static str] {
    NAMES
}

/// The TOML text of preset `name`, if there is one.
pub fn preset_toml(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Level, Model, VTime};

    #[test]
    fn names_match_texts() {
        assert_eq!(preset_names().len(), PRESETS.len());
        for (i, n) in preset_names().iter().enumerate() {
            assert_eq!(PRESETS[i].0, *n);
            let m = Model::load(n).unwrap();
            assert_eq!(m.name, *n);
        }
        assert_eq!(preset_toml("nope"), None);
    }

    #[test]
    fn tianhe1a_values() {
        let m = Model::load("tianhe1a").unwrap();
        assert_eq!(
            m,
            Model {
                name: "tianhe1a".into(),
                cpu_scale: 1.0,
                mem_bandwidth: 6_380_000_000,
                net_bandwidth: 4_160_000_000,
                latency: VTime::from_ps(15_000_000),
                hop_latency: VTime::from_ps(600_000),
                eager_limit: 131_072,
                header_bytes: 64,
                o_send: VTime::ZERO,
                o_recv: VTime::ZERO,
                rendezvous: crate::model::Rendezvous::defaults(4_160_000_000),
                node: crate::model::NodeNet::defaults(6_380_000_000, 131_072),
                topology: crate::model::Topology::Levels {
                    levels: vec![
                        Level { ranks: 12, hops: 0 },
                        Level {
                            ranks: 192,
                            hops: 3
                        }
                    ],
                    default_hops: 5,
                },
                contention: crate::model::Contention::None,
                collectives: Default::default(),
                io: Default::default(),
            }
        );
        // 8 B / 6.38 GB/s = 1.2539 ns
        assert_eq!(m.mem_time(8).ps(), 1254);
        // Eq. 5
        assert_eq!(m.hops(0, 11), 0);
        assert_eq!(m.hops(0, 12), 3);
        assert_eq!(m.hops(0, 191), 3);
        assert_eq!(m.hops(0, 192), 5);
        assert_eq!(m.hops(13, 23), 0);
        assert_eq!(m.hops(191, 192), 5);
        // l(3) = 15 us + 3 x 0.6 us = 16.8 us; 8 B / 4.16 GB/s = 1.923 ns -> 1923 ps
        assert_eq!(m.link_time(8, 3).ps(), 16_800_000 + 1923);
        assert_eq!(m.link_time(8, 0).ps(), 1254);
        assert_eq!(m.min_latency().ps(), 0);
        assert_eq!(m.node_of(25), 2);
        assert_eq!(Model::from_toml_str(&m.to_toml(), "round trip").unwrap(), m);
    }
}
