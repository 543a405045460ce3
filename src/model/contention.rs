//! `[network] contention = "links"` (off by default, `"none"`): transfers
//! between nodes that cross the same link of the target network at the same
//! virtual time share its bandwidth.
//!
//! A *flow* is the data of one message between two nodes: an eager DATA or
//! a rendezvous DATA of at least one byte (REQ, ACK and other control
//! messages, messages within a node and one-sided operations are not
//! flows). It starts at the message's `tr` and, alone, takes `d0 =
//! bytes / B`, `B` being the bandwidth its protocol crosses the network at
//! (`net_bandwidth`, or `rendezvous_bandwidth`); it arrives at `ta = tr + d
//! + l(h)`. Its links are its route ([`super::route`]).
//!
//! The rule (fixed share at start, in windows): virtual time is cut into
//! windows of `W` = the least latency between two nodes, `l(h)` for the
//! fewest hops two different nodes are apart. A flow `F` shares a link with
//! every other flow `G` on that link that
//! * started in the same window, and whose time alone `[tr, tr + d0)`
//!   overlaps `F`'s, or
//! * started in an earlier window and has not ended (by its own rule) when
//!   `F` starts.
//!
//! Flows starting later do not slow `F` down. With `n` such flows on a link
//! of width `m` (parallel links, [`super::route::LinkUse`]) counting `F`,
//! `F` gets `m / n` of `B` there if `n > m`, and its share is the least over
//! its links, fixed for its whole life: `d = bytes * n / (B * m)`, rounded to
//! the picosecond as [`super::transfer_time`] rounds
//! ([`super::time::shared_transfer_time`]); `d = d0` when no link
//! is shared by more flows than it is wide.
//!
//! Why windows: the share of a flow is known once no flow can start in its
//! window or before, that is once every rank's published lower bound has
//! reached the window's end; the window ends no later than the flow can
//! arrive (`W <= l(h)`), so the receiver, which needs `ta`, can wait for it
//! with the same machinery as any conservative decision (p2p `decide`),
//! and the prediction stays the same whatever the host does.

use super::config::Ctx;
use super::route::LinkUse;
use super::{ConfigError, Model, VTime};
use std::collections::HashMap;
use toml::{Table, Value};

/// Key of `[network]` that this module reads.
pub const KEY: &str = "contention";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Contention {
    #[default]
    None,
    Links,
}

/// A transfer between two nodes (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flow {
    /// Its `tr`, when its data starts to cross.
    pub start: VTime,
    pub bytes: u64,
    /// Bytes per second alone.
    pub bandwidth: u64,
    /// Source and destination nodes.
    pub src: u32,
    pub dst: u32,
}

impl Flow {
    /// Its time alone, d0.
    pub fn alone(&self) -> VTime {
        super::transfer_time(self.bytes, self.bandwidth)
    }
}

/// The flows registered so far, each with the end of its crossing (`tr +
/// d`) if someone computed it already.
pub trait FlowTable {
    type Key: Copy + Eq + std::hash::Hash;
    /// Every flow: its key, itself, and its end if known.
    fn flows(&self) -> Vec<(Self::Key, Flow, Option<VTime>)>;
    /// Remember flow `key`'s end (every rank computes the same value).
    fn set_end(&self, key: Self::Key, end: VTime);
}

pub(super) fn parse(cx: &Ctx, net: &Table) -> Result<Contention, ConfigError> {
    match net.get(KEY) {
        None => Ok(Contention::None),
        Some(Value::String(s)) if s == "none" => Ok(Contention::None),
        Some(Value::String(s)) if s == "links" => Ok(Contention::Links),
        Some(v) => Err(cx.err(
            "network.contention",
            format!("expected \"none\" or \"links\", found {v}"),
        )),
    }
}

impl Model {
    /// The window width W when contention is on (the least latency between
    /// two different nodes), None when off.
    pub fn contention_window(&self) -> Option<VTime> {
        match self.contention {
            Contention::None => None,
            Contention::Links => Some(self.wire_latency(self.topology.min_node_hops())),
        }
    }

    /// The flow a message of `bytes` from rank `s` to rank `r` starting at
    /// `start` at `bandwidth` is, if contention is on and it is one.
    pub fn flow(&self, start: VTime, bytes: u64, bandwidth: u64, s: u32, r: u32) -> Option<Flow> {
        if self.contention == Contention::None || bytes == 0 {
            return None;
        }
        let (src, dst) = (self.node_of(s), self.node_of(r));
        (src != dst).then_some(Flow {
            start,
            bytes,
            bandwidth,
            src,
            dst,
        })
    }

    /// The end of flow `key`'s crossing under the rule of the module doc,
    /// from `table`, which must hold every flow that starts before the end of
    /// its window. Ends computed on the way are stored in the table.
    pub fn flow_end<T: FlowTable>(&self, table: &T, key: T::Key) -> VTime {
        let w = self
            .contention_window()
            .expect("contention is on")
            .ps()
            .max(1);
        let mut all = table.flows();
        // Only flows that can count: started before the flow's window ends,
        // and not known to have ended by `m0`, the earliest start of a flow
        // whose end may be computed here (a flow that ended by then overlaps
        // none of them, in its window or after).
        let start = all
            .iter()
            .find(|(k, ..)| *k == key)
            .expect("the flow is registered")
            .1
            .start
            .ps();
        let close = (start / w + 1) * w;
        all.retain(|(_, f, _)| f.start.ps() < close);
        let m0 = all
            .iter()
            .filter(|(k, _, e)| e.is_none() || *k == key)
            .map(|(_, f, _)| f.start)
            .min()
            .unwrap_or(VTime::ZERO);
        all.retain(|(k, _, e)| *k == key || e.is_none_or(|e| e > m0));
        let mut solver = Solver {
            model: self,
            w,
            flows: all,
            routes: HashMap::new(),
            ends: HashMap::new(),
        };
        let i = solver
            .flows
            .iter()
            .position(|(k, ..)| *k == key)
            .expect("the flow is registered");
        let end = solver.end(i);
        for (k, e) in solver.ends {
            table.set_end(solver.flows[k].0, e);
        }
        end
    }
}

struct Solver<'a, K> {
    model: &'a Model,
    w: u64,
    flows: Vec<(K, Flow, Option<VTime>)>,
    routes: HashMap<usize, Vec<LinkUse>>,
    /// Ends computed here (to store back).
    ends: HashMap<usize, VTime>,
}

impl<K: Copy> Solver<'_, K> {
    fn route(&mut self, i: usize) -> &Vec<LinkUse> {
        let f = self.flows[i].1;
        let topo = &self.model.topology;
        self.routes
            .entry(i)
            .or_insert_with(|| topo.route(f.src, f.dst))
    }

    fn window(&self, i: usize) -> u64 {
        self.flows[i].1.start.ps() / self.w
    }

    fn end(&mut self, i: usize) -> VTime {
        if let Some(e) = self.flows[i].2.or_else(|| self.ends.get(&i).copied()) {
            return e;
        }
        let f = self.flows[i].1;
        let links = self.route(i).clone();
        let mut n = vec![1u64; links.len()];
        let (ki, a0, a1) = (self.window(i), f.start, f.start + f.alone());
        for j in 0..self.flows.len() {
            let g = self.flows[j].1;
            let kj = self.window(j);
            if j == i || kj > ki {
                continue;
            }
            // The cheap time tests first, the routes only then.
            let known = self.flows[j].2.or_else(|| self.ends.get(&j).copied());
            let in_time = if kj == ki {
                Some(g.start < a1 && a0 < g.start + g.alone())
            } else {
                known.map(|e| e > f.start)
            };
            if in_time == Some(false) {
                continue;
            }
            let shared: Vec<usize> = {
                let rj = self.route(j);
                (0..links.len())
                    .filter(|&l| rj.iter().any(|u| u.id == links[l].id))
                    .collect()
            };
            if shared.is_empty() {
                continue;
            }
            // An earlier flow whose end nobody knows yet: compute it.
            if in_time.is_some() || self.end(j) > f.start {
                for l in shared {
                    n[l] += 1;
                }
            }
        }
        // The worst share m / n over the links, if below 1.
        let mut worst: Option<(u64, u64)> = None;
        for (l, u) in links.iter().enumerate() {
            if n[l] > u.width
                && worst.is_none_or(|(m, k)| {
                    (u.width as u128) * (k as u128) < (m as u128) * (n[l] as u128)
                })
            {
                worst = Some((u.width, n[l]));
            }
        }
        let d = match worst {
            None => f.alone(),
            Some((m, k)) => super::time::shared_transfer_time(f.bytes, f.bandwidth, k, m),
        };
        let e = f.start + d;
        self.ends.insert(i, e);
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// Flows by index, ends remembered.
    struct Table(Vec<Flow>, RefCell<HashMap<usize, VTime>>);
    impl FlowTable for Table {
        type Key = usize;
        fn flows(&self) -> Vec<(usize, Flow, Option<VTime>)> {
            let ends = self.1.borrow();
            self.0
                .iter()
                .enumerate()
                .map(|(i, f)| (i, *f, ends.get(&i).copied()))
                .collect()
        }
        fn set_end(&self, key: usize, end: VTime) {
            self.1.borrow_mut().insert(key, end);
        }
    }

    /// 2 nodes per leaf of a 2-ary 2-tree (4 nodes), 1 us latency + 1 us a
    /// hop: W = l(2) = 3 us; 1 GB/s.
    fn model() -> Model {
        Model::from_toml_str(
            "name = \"t\"\n[cpu]\nscale = 0\n[network]\nmem_bandwidth = \"1 GB/s\"\n\
             net_bandwidth = \"1 GB/s\"\nlatency = \"1 us\"\nhop_latency = \"1 us\"\n\
             eager_limit = \"1 KiB\"\nheader_bytes = 0\ncontention = \"links\"\n\
             [topology]\nkind = \"fat-tree\"\nk = 2\nn = 2\n",
            "t",
        )
        .unwrap()
    }

    fn flow(start_ns: u64, bytes: u64, src: u32, dst: u32) -> Flow {
        Flow {
            start: VTime::from_ps(start_ns * 1000),
            bytes,
            bandwidth: 1_000_000_000,
            src,
            dst,
        }
    }

    fn ends(flows: Vec<Flow>) -> Vec<u64> {
        let m = model();
        let t = Table(flows, RefCell::new(HashMap::new()));
        (0..t.0.len()).map(|i| m.flow_end(&t, i).ps()).collect()
    }

    #[test]
    fn window_is_the_least_latency_between_nodes() {
        let m = model();
        assert_eq!(m.contention_window(), Some(VTime::from_ps(3_000_000)));
        let f = m.flow(VTime::ZERO, 10, 1, 0, 1).unwrap();
        assert_eq!((f.src, f.dst), (0, 1));
        assert_eq!(m.flow(VTime::ZERO, 0, 1, 0, 1), None);
    }

    #[test]
    fn two_flows_through_one_link() {
        // 1000 B at 1 GB/s = 1 us alone. Nodes 0 and 1 both send to node 2
        // in the same window: node 2's ejection link carries both, half
        // each: 2 us.
        assert_eq!(
            ends(vec![flow(0, 1000, 0, 2), flow(500, 1000, 1, 2)]),
            vec![2_000_000, 500_000 + 2_000_000]
        );
        // The same from different sources to different destinations:
        // 0 -> 2 and 1 -> 3 share the leaf's uplink, which is 2 wide: no
        // slowdown.
        assert_eq!(
            ends(vec![flow(0, 1000, 0, 2), flow(0, 1000, 1, 3)]),
            vec![1_000_000, 1_000_000]
        );
        // Three through the 2-wide uplink (2/3 each there), but 0 -> 2 and
        // 0 -> 3 also share node 0's injection link (1 wide, 2 flows) and
        // 1 -> 3 and 0 -> 3 node 3's ejection link: 1/2 is each one's worst
        // share, 2 us.
        assert_eq!(
            ends(vec![
                flow(0, 1000, 0, 2),
                flow(0, 1000, 1, 3),
                flow(0, 1000, 0, 3)
            ]),
            vec![2_000_000, 2_000_000, 2_000_000]
        );
    }

    #[test]
    fn windows_order_flows() {
        // Window 0 is [0, 3 us). A flow of window 1 (at 3.5 us) sees the
        // earlier one still crossing (it ends at 4 us) and gets half; the
        // earlier one is not slowed down.
        let long = flow(0, 4000, 0, 2); // 4 us alone
        assert_eq!(
            ends(vec![long, flow(3500, 1000, 1, 2)]),
            vec![4_000_000, 3_500_000 + 2_000_000]
        );
        // Ended before: not shared.
        assert_eq!(
            ends(vec![flow(0, 1000, 0, 2), flow(3500, 1000, 1, 2)]),
            vec![1_000_000, 4_500_000]
        );
        // Same window but not overlapping alone: not shared.
        assert_eq!(
            ends(vec![flow(0, 1000, 0, 2), flow(1500, 1000, 1, 2)]),
            vec![1_000_000, 2_500_000]
        );
        // A chain: a window-1 flow depends on the ends of window-0 flows
        // that were themselves slowed down (0 -> 2 and 1 -> 2 share node
        // 2's ejection link: 2 us each). At 3 us both have ended.
        assert_eq!(
            ends(vec![
                flow(0, 1000, 0, 2),
                flow(0, 1000, 1, 2),
                flow(3000, 1000, 3, 2)
            ]),
            vec![2_000_000, 2_000_000, 4_000_000]
        );
        // ... and with 2000 B they end at 4 us, after the third starts:
        // it shares node 2's ejection with both, 1/3: 3 us.
        assert_eq!(
            ends(vec![
                flow(0, 2000, 0, 2),
                flow(0, 2000, 1, 2),
                flow(3000, 1000, 3, 2)
            ]),
            vec![4_000_000, 4_000_000, 6_000_000]
        );
    }

    const TOPO: &str = "[topology]\nlevels = [ { ranks = 1, hops = 0 } ]\ndefault_hops = 1\n";

    #[test]
    fn config_errors_name_the_key() {
        let base = "name = \"t\"\n[cpu]\nscale = 0\n[network]\nmem_bandwidth = \"1 GB/s\"\n\
                    net_bandwidth = \"1 GB/s\"\nhop_latency = \"0 s\"\n\
                    eager_limit = \"1 KiB\"\nheader_bytes = 0\n";
        let err = |extra: &str| {
            Model::from_toml_str(&format!("{base}{extra}{TOPO}"), "t.toml")
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("latency = \"1 us\"\ncontention = \"yes\"\n"),
            "t.toml: key `network.contention`: expected \"none\" or \"links\", found \"yes\""
        );
        assert_eq!(
            err("latency = \"0 s\"\ncontention = \"links\"\n"),
            "t.toml: key `network.contention`: needs a positive latency between nodes (the least one is the model's window)"
        );
        let off = Model::from_toml_str(
            &format!("{base}latency = \"1 us\"\ncontention = \"none\"\n{TOPO}"),
            "t",
        )
        .unwrap();
        assert_eq!(off.contention, Contention::None);
        assert_eq!(off.contention_window(), None);
        assert_eq!(off.flow(VTime::ZERO, 10, 1, 0, 1), None);
    }

    #[test]
    fn shared_time_rounds_like_transfer_time() {
        use crate::model::time::shared_transfer_time as shared_time;
        assert_eq!(shared_time(8, 6_380_000_000, 1, 1).ps(), 1254);
        // 1000 B at 3 GB/s, n = 2, m = 1: 666.666.. ns -> 666667 ps
        assert_eq!(shared_time(1000, 3_000_000_000, 2, 1).ps(), 666_667);
    }
}
