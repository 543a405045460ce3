//! Flows of the contention model (`model::contention`) on the host: the
//! entries a rank owns in the job's flow registry, and the table the model
//! resolves a flow from.
//!
//! The sender registers a flow when it sends the DATA (eager or
//! rendezvous) and sends it with the flow's identity and, as its `ta`, the
//! arrival it would have alone (a lower bound: sharing only slows a flow).
//! The receiver resolves the flow before it handles the DATA: once the
//! flow's window is closed (every other rank's effective bound at or past
//! the window's end, its own past the window's start: nothing can change
//! the flow's share any more, `decide::window_closed`), `ta = end + l(h)` with the end
//! from the registry. Until then the DATA waits in the early queue with its
//! lower bound, which keeps the receiver's own published bound correct.
//!
//! Entries are freed by their owner, who is their only writer, every few
//! registrations and when it needs one (when none can be, the sender waits
//! for its receivers to take its transfers in, see `core::contention`): a
//! flow's entry is freed once its receiver has consumed it (leaving the end
//! it found, which every rank computes alike) and it ended by `M`, the least
//! of every rank's effective bound and of the start of every flow whose end
//! is not known yet: a flow ending by `M` cannot count for any flow still to
//! be resolved (those start at `M` or later), so freeing it changes nothing
//! anyone computes.

use super::decide;
use super::link::Link;
use crate::model::{Flow, FlowTable, Model, VTime};
use crate::transport::FlowRecord;
use std::cell::RefCell;
use std::collections::HashMap;

/// A flow's identity: its owner (the sender), entry and sequence word.
pub type FlowKey = (u32, u32, u64);

/// The entries this rank owns.
#[derive(Default)]
pub struct Owned {
    /// Per entry: the sequence word of the flow it holds, if any.
    seqs: Vec<Option<u64>>,
    /// Flows registered since entries were last freed.
    since_reclaim: u32,
    /// Ends this rank computed for flows it does not own (every rank computes
    /// the same; only an entry's owner writes it).
    memo: RefCell<HashMap<FlowKey, VTime>>,
}

/// Free entries every this many registrations (keeps the flows everyone
/// scans few).
const RECLAIM_EVERY: u32 = 16;

impl Owned {
    /// Register flow `f` (we send it) if an entry is free or can be freed;
    /// returns its entry and sequence word.
    /// `exact`: conservative mode (in fast mode nobody publishes bounds:
    /// an entry is freed once consumed).
    pub fn try_register<L: Link>(&mut self, link: &L, f: &Flow, exact: bool) -> Option<(u32, u64)> {
        if self.since_reclaim >= RECLAIM_EVERY {
            self.reclaim(link, exact);
        }
        let slot = match self.free_slot(link) {
            Some(s) => s,
            None => {
                self.reclaim(link, exact);
                self.free_slot(link)?
            }
        };
        let seq = link.flow_write(slot, &record(f));
        self.seqs[slot as usize] = Some(seq);
        self.since_reclaim += 1;
        Some((slot, seq))
    }

    fn free_slot<L: Link>(&mut self, link: &L) -> Option<u32> {
        if let Some(i) = self.seqs.iter().position(Option::is_none) {
            return Some(i as u32);
        }
        let n = self.seqs.len() as u32;
        if n < link.flow_slots() {
            self.seqs.push(None);
            link.set_flow_used(n + 1);
            return Some(n);
        }
        None
    }

    /// Free the entries nobody can need any more (module doc): consumed by
    /// their receivers (who left the end they found), ended by `M`.
    fn reclaim<L: Link>(&mut self, link: &L, exact: bool) {
        self.since_reclaim = 0;
        let me = link.rank();
        let m = if exact { least_live(link) } else { u64::MAX };
        for slot in 0..self.seqs.len() {
            let Some(seq) = self.seqs[slot] else { continue };
            let done = link.flow_consumed(slot as u32, seq)
                && link
                    .flow_read(me, slot as u32)
                    .is_some_and(|(s, r)| s == seq && r.end_ps.is_some_and(|e| e <= m));
            if done {
                link.flow_free(slot as u32);
                self.seqs[slot] = None;
            }
        }
        // Forget computed ends of flows that are gone.
        let mut memo = self.memo.borrow_mut();
        if memo.len() > 4096 {
            memo.retain(|&(j, slot, seq), _| {
                link.flow_read(j, slot).is_some_and(|(s, _)| s == seq)
            });
        }
    }

    /// Resolve flow `key` (its window is closed): the end of its crossing.
    pub fn resolve<L: Link>(&self, link: &L, model: &Model, key: FlowKey) -> VTime {
        let table = Registry { link, owned: self };
        model.flow_end(&table, key)
    }
}

/// M of the module doc, in ps.
fn least_live<L: Link>(link: &L) -> u64 {
    loop {
        let g = link.generation();
        let mut m = u64::MAX;
        for j in 0..link.size() {
            let (unread, own) = link.peer_bound(j);
            m = m.min(decide::effective(own, unread));
            for slot in 0..link.flow_used(j) {
                if let Some((_, r)) = link.flow_read(j, slot) {
                    if r.end_ps.is_none() {
                        m = m.min(r.start_ps);
                    }
                }
            }
        }
        if link.generation() == g {
            return m;
        }
    }
}

fn record(f: &Flow) -> FlowRecord {
    FlowRecord {
        start_ps: f.start.ps(),
        bytes: f.bytes,
        bandwidth: f.bandwidth,
        src: f.src,
        dst: f.dst,
        end_ps: None,
    }
}

/// The registry as the model's [`FlowTable`].
struct Registry<'a, L> {
    link: &'a L,
    owned: &'a Owned,
}

impl<L: Link> FlowTable for Registry<'_, L> {
    type Key = FlowKey;
    fn flows(&self) -> Vec<(FlowKey, Flow, Option<VTime>)> {
        let memo = self.owned.memo.borrow();
        let mut all = Vec::new();
        for j in 0..self.link.size() {
            for slot in 0..self.link.flow_used(j) {
                let Some((seq, r)) = self.link.flow_read(j, slot) else {
                    continue;
                };
                let key = (j, slot, seq);
                let flow = Flow {
                    start: VTime::from_ps(r.start_ps),
                    bytes: r.bytes,
                    bandwidth: r.bandwidth,
                    src: r.src,
                    dst: r.dst,
                };
                let end = r
                    .end_ps
                    .map(VTime::from_ps)
                    .or_else(|| memo.get(&key).copied());
                all.push((key, flow, end));
            }
        }
        all
    }
    fn set_end(&self, key: FlowKey, end: VTime) {
        if key.0 == self.link.rank() {
            self.link.flow_set_end(key.1, end);
        } else {
            self.owned.memo.borrow_mut().insert(key, end);
        }
    }
}
