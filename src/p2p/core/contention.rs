//! Flows in the point-to-point engine (`[network] contention = "links"`,
//! see `model::contention` for the rule and `p2p::flows` for the registry).
//!
//! Sending: an eager DATA or a rendezvous DATA between two nodes is
//! registered as a flow at its `tr` and carries its identity; its `ta` is
//! the arrival it would have alone, a lower bound. A rank owns a fixed
//! number of registry entries (`launch::job::FLOW_SLOTS`); when all hold
//! transfers their receivers have not taken in yet, the sender takes its
//! own messages in and yields its core until one is freed (ending the job
//! after a minute: a program that keeps that many transfers unreceived).
//!
//! Receiving: such a message is *unresolved* when taken from the host. It
//! waits in the early queue under its lower bound (which keeps our own
//! published bound correct) and is not handled until resolved. A waiting
//! activity resolves the unresolved messages it needs before it goes on:
//! those it would handle now (arrived by the time it has reached, or
//! related to a blocking wait), and, before it ends, those arriving by its
//! end (and, in a decision at `T`, those arriving by `T`). A flow is
//! resolved once its window is closed (every other rank's effective bound
//! at or past the window's end, ours past its start, see
//! `decide::window_closed`): then `ta = end + l(h)`. Until
//! then the waiting loop goes on (a wait may end another way, or be
//! suspended for another thread) and, going idle, sleeps until a record
//! comes or a bound rises (a poke); at the end of the activity and in a
//! decision it waits as a conservative decision does. When the whole job is
//! idle and our unresolved message is its next event, it is resolved at once
//! (nothing can start before it any more). In fast mode (`--sync fast`) a flow is resolved at once from the
//! flows registered so far (approximate, like everything in that mode).
use super::{Core, Goal, Link};
use crate::model::VTime;
use crate::p2p::decide;
use std::time::{Duration, Instant};

/// How long a sender waits for a free entry of the flow registry before it
/// ends the job.
const REGISTRY_WAIT: Duration = Duration::from_secs(60);

impl<L: Link> Core<L> {
    /// Whether flows are registered (contention on and a registry there).
    pub(super) fn contended(&self) -> bool {
        self.model.contention_window().is_some() && self.link.flow_slots() > 0
    }

    /// A DATA of `size` bytes to `dest` starting at `tr` at `bandwidth`:
    /// register it if it is a flow; returns its identity for the message.
    pub(super) fn register_flow(
        &mut self,
        tr: VTime,
        size: u64,
        bandwidth: u64,
        dest: u32,
    ) -> Option<(u32, u64)> {
        if !self.contended() {
            return None;
        }
        let f = self.model.flow(tr, size, bandwidth, self.me, dest)?;
        let began = Instant::now();
        loop {
            if let Some(k) = self.flows.try_register(&self.link, &f, self.exact) {
                return Some(k);
            }
            // Every entry holds a transfer its receiver has not taken in
            // yet: take our messages in (they wait in the early queue) and
            // let the other ranks run until one is free.
            while let Some(m) = self.fetch(false) {
                let k = self.access(m);
                self.early.push(k);
            }
            self.publish_own();
            if began.elapsed() > REGISTRY_WAIT {
                panic!(
                    "vaced: rank {}: the contention model's flow registry ({} transfers per rank) stayed full for {} s: this rank sent more transfers between nodes than its receivers have taken in",
                    self.me,
                    self.link.flow_slots(),
                    REGISTRY_WAIT.as_secs()
                );
            }
            self.link.yield_core();
        }
    }

    /// Held message `i`'s flow, if it is unresolved: (sender, entry, seq).
    fn unresolved(&self, i: usize) -> Option<(u32, u32, u64)> {
        let h = self.held[i].as_ref().unwrap();
        h.msg.flow.map(|(slot, seq)| (h.msg.src, slot, seq))
    }

    /// The contention window's width W (ps).
    fn window_width(&self) -> u64 {
        self.model.contention_window().unwrap().ps().max(1)
    }

    /// When held message `i`'s (unresolved) flow starts.
    fn flow_start(&self, i: usize) -> VTime {
        let (j, slot, seq) = self.unresolved(i).expect("an unresolved flow");
        let (_, r) = self
            .link
            .flow_read(j, slot)
            .filter(|(s, _)| *s == seq)
            .expect("a flow stays registered until its receiver consumed it");
        VTime::from_ps(r.start_ps)
    }

    /// The end of held message `i`'s flow window (ps).
    fn window_end(&self, i: usize) -> u64 {
        let w = self.window_width();
        (self.flow_start(i).ps() / w + 1) * w
    }

    /// Resolve held message `i`'s flow now (its window is closed, or the job
    /// is idle and it is the next event, or fast mode): its final `ta`.
    fn resolve_flow(&mut self, i: usize) {
        let key = self.unresolved(i).expect("an unresolved flow");
        let end = self.flows.resolve(&self.link, &self.model, key);
        // (read before the entry is consumed, and may be freed)
        let start = crate::timeline::on().then(|| self.flow_start(i));
        let h = self.held[i].as_mut().unwrap();
        let hops = self.model.hops(key.0, self.me);
        h.msg.ta = end + self.model.wire_latency(hops);
        h.msg.flow = None;
        self.link.flow_consume(key.0, key.1, key.2, end);
        if let Some(start) = start {
            // The send began before the flow: its copy in (and a rendezvous
            // DATA's overhead), as the sender's own records count.
            let h = self.held[i].as_ref().unwrap();
            let mut ts = start - self.model.mem_time(h.msg.size);
            if h.msg.kind == crate::engine::wire::Kind::Data {
                ts = ts - self.model.rendezvous.overhead;
            }
            crate::timeline::flow_arrival(self.me, &h.msg, ts);
        }
    }

    /// Fast mode: resolve a message as it is taken from the host.
    pub(super) fn resolve_at_once(&mut self, i: usize) {
        if !self.exact && self.unresolved(i).is_some() {
            self.resolve_flow(i);
        }
    }

    /// Whether held message `i` is an unresolved flow.
    pub(super) fn is_unresolved(&self, i: usize) -> bool {
        self.unresolved(i).is_some()
    }

    /// The early-queued unresolved message the waiting activity needs
    /// first (least window end): arriving by `by`, or related to `goal` in
    /// a blocking wait.
    fn needed_flow(&self, by: VTime, block: bool, goal: Goal) -> Option<usize> {
        self.early
            .iter()
            .copied()
            .filter(|&i| {
                self.is_unresolved(i) && (self.msg(i).ta <= by || (block && self.related(i, goal)))
            })
            .min_by_key(|&i| (self.window_end(i), self.msg(i).ta))
    }

    /// The waiting loop's step (it must not block: a wait may be suspended
    /// for another thread, or end another way): resolve the flows it needs
    /// whose windows are closed, in window order, and deal with those it
    /// needs now; if one stays open, note it so that going idle sleeps
    /// until bounds rise ([`Core::stop_flow_wait`] ends that). Returns
    /// whether it resolved any.
    pub(super) fn try_flows(&mut self, by: VTime, block: bool, goal: Goal) -> bool {
        let mut any = false;
        let mut open = false;
        while let Some(i) = self.needed_flow(by, block, goal) {
            let w = self.window_end(i);
            // Published before the scan (SeqCst on both sides): either the
            // scan sees a rising bound, or the riser sees us and pokes.
            self.link.set_resolving(Some(VTime::from_ps(w)));
            let seen = self.link.pokes();
            self.publish_own();
            if decide::window_closed(&self.link, self.me, w, self.window_width()).is_err() {
                self.flow_wait = Some(seen);
                open = true;
                break;
            }
            self.resolve_flow(i);
            any = true;
        }
        if !open {
            self.flow_wait = None;
            self.link.set_resolving(None);
        }
        if any {
            self.deal_ready_early(by, block, goal);
        }
        any
    }

    /// No flow waits any more (the waiting activity ends).
    pub(super) fn stop_flow_wait(&mut self) {
        if self.flow_wait.take().is_some() {
            self.link.set_resolving(None);
        }
    }

    /// Resolve every unresolved early message the waiting activity needs
    /// (see [`Core::needed_flow`]), then deal with the resolved ones it
    /// needs (arrived by `by`, or related). Returns whether it resolved
    /// anything.
    pub(super) fn settle_flows(&mut self, by: VTime, block: bool, goal: Goal) -> bool {
        let mut any = false;
        while let Some(i) = self.needed_flow(by, block, goal) {
            any = true;
            self.settle_flow(i, by, block, goal);
        }
        if any {
            self.link.set_resolving(None);
            self.deal_ready_early(by, block, goal);
        }
        any
    }

    /// Wait until held message `i`'s window is closed, then resolve it.
    /// Messages arriving meanwhile are taken in and dealt with as the
    /// activity would (by `by`, or related); when our going idle leaves the
    /// job quiescent, our next event is acted on.
    fn settle_flow(&mut self, i: usize, by: VTime, block: bool, goal: Goal) {
        let w = self.window_end(i);
        self.link.set_resolving(Some(VTime::from_ps(w)));
        while self.is_unresolved(i) {
            self.take_in(by, block, goal);
            self.publish_own();
            let seen = self.link.pokes();
            if decide::window_closed(&self.link, self.me, w, self.window_width()).is_ok() {
                self.resolve_flow(i);
                return;
            }
            self.sleep_resolving(seen, goal);
        }
    }

    /// Sleep until a record arrives or a bound rises. If our going idle
    /// leaves the job quiescent and our earliest early message is the job's
    /// next event, act on it: resolve it (nothing can start before it any
    /// more) or deal with it; another rank's next event: nudge that rank.
    fn sleep_resolving(&mut self, seen: u32, goal: Goal) {
        let mine = self.earliest_early_index();
        let early_min = mine.map(|k| self.msg(self.early[k]).ta);
        self.link.publish_blocked(early_min, &self.describe(goal));
        if !self.link.idle_begin() {
            self.link.wait_poked(seen);
            self.link.idle_end();
            return;
        }
        self.quiescent(mine, Some(seen));
    }

    /// The job is quiescent and our early message at `k` is its next event:
    /// resolve it if it is an unresolved flow (it stays early queued), else
    /// deal with it.
    pub(super) fn act_on_earliest(&mut self, k: usize) {
        let i = self.early[k];
        if self.is_unresolved(i) {
            self.resolve_flow(i);
        } else {
            self.early.remove(k);
            self.deal(i);
        }
    }
}
