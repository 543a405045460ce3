//! Several hosts: what a host's bridge (`crate::hosts`) does to its host's
//! segment. Each host has a segment with a slot for every rank of the job;
//! the slots of ranks that run elsewhere are *mirrors*:
//!
//! * a remote rank's inbox here is a staging area: local senders append to
//!   it as to any inbox (and note the arrival, lowering the rank's bound as
//!   seen here); the bridge takes the records out ([`HostSide::take_staged`])
//!   and forwards them, and forgets the noted arrival only once the rank's
//!   host said it noted them itself ([`HostSide::settle_staged`]);
//! * its published words (bound, unread arrivals, early message, decision,
//!   state) are what its host's bridge last sent ([`HostSide::apply`]),
//!   stored under the generation rule so that a reader scanning the slots
//!   never sees a bound higher than a consistent state of the job had;
//! * it counts idle in the activity word for good; instead the bridge holds
//!   one unit of the in-flight count (the *host unit*) for as long as the
//!   rest of the job may be active, so that no local rank takes the job
//!   for quiescent while ranks elsewhere run. The bridges find the whole job
//!   quiescent together and the host of its next event gives its unit back
//!   ([`HostSide::release`]) and nudges that event's rank.

use super::segment::{RankState, Segment};
use super::{futex, poke_rank, rec_size, space_freed, wake_rank, Activity};
use std::io;
use std::sync::atomic::Ordering;

/// What a host says of one of its ranks ([`HostSide::snapshot`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankView {
    pub rank: u32,
    /// The rank's bound word (see `p2p::decide`).
    pub bound: u64,
    /// Earliest arrival among the records noted unread in its inbox.
    pub unread: Option<u64>,
    pub deciding: Option<u64>,
    pub early: Option<u64>,
    pub state: RankState,
    pub waiting_on: String,
}

/// What became of a record handed to a local rank ([`HostSide::deliver`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    Done,
    /// The rank has finalized: it reads nothing any more.
    Dropped,
    /// Its inbox is full: try again later.
    Full,
}

/// Wakes a bridge ([`HostSide::ringer`]).
#[derive(Clone)]
pub struct Ringer(Segment);

impl Ringer {
    pub fn ring(&self) {
        self.0.ring_bridge()
    }
}

/// A bridge's handle on its host's segment.
pub struct HostSide {
    seg: Segment,
    local: Vec<u32>,
    remote: Vec<u32>,
    /// Whether we hold the host unit (see the module doc).
    unit: bool,
    wake: Vec<u32>,
}

impl HostSide {
    /// Make `seg`, just created and not yet joined by any rank, the segment
    /// of one host: the ranks for which `here` is false run elsewhere. The
    /// bridge holds the host unit from the start.
    pub fn adopt(seg: Segment, here: impl Fn(u32) -> bool) -> io::Result<HostSide> {
        if seg.flow_slots() > 0 {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "the contention model (network.contention = \"links\") needs every rank on \
                 one host: its flow registry is not forwarded between hosts",
            ));
        }
        let (local, remote): (Vec<u32>, Vec<u32>) = (0..seg.nranks()).partition(|&r| here(r));
        for &r in &remote {
            seg.inbox(r).set_remote();
        }
        seg.activity()
            .fetch_add(((remote.len() as u64) << 32) + 1, Ordering::SeqCst);
        seg.set_bridged();
        Ok(HostSide {
            seg,
            local,
            remote,
            unit: true,
            wake: Vec::new(),
        })
    }

    pub fn segment(&self) -> &Segment {
        &self.seg
    }
    /// The ranks that run on this host.
    pub fn local(&self) -> &[u32] {
        &self.local
    }
    /// The ranks that run on other hosts.
    pub fn remote(&self) -> &[u32] {
        &self.remote
    }

    /// Sleep until `cond()` holds; the bridge's bell is rung by local
    /// ranks (records for remote ranks, bound changes, going idle) and by
    /// [`HostSide::ring`].
    pub fn wait_until(&self, cond: impl FnMut() -> bool) {
        self.seg.bridge_bell().wait_until(cond)
    }
    /// A handle that wakes the bridge from another thread (something came
    /// in on a stream).
    pub fn ringer(&self) -> Ringer {
        Ringer(self.seg.clone())
    }
    /// What local ranks changed that the bridge looks at: when this is
    /// unchanged and no record is staged, there is nothing new to forward
    /// or report.
    pub fn pulse(&self) -> [u64; 3] {
        [
            self.seg.activity().load(Ordering::SeqCst),
            self.seg.generation(),
            self.seg.idle_ends().load(Ordering::SeqCst),
        ]
    }
    /// Whether records wait in some remote rank's staging inbox.
    pub fn has_staged(&self) -> bool {
        self.remote.iter().any(|&r| !self.seg.inbox(r).is_empty())
    }

    /// Take the next record staged for remote rank `j`, if any.
    pub fn take_staged(&mut self, j: u32, out: &mut Vec<u8>) -> bool {
        debug_assert!(self.seg.is_remote(j));
        let inbox = self.seg.inbox(j);
        if !inbox.pop(out) {
            return false;
        }
        space_freed(&self.seg, &inbox, &mut self.wake);
        self.seg.activity().fetch_sub(1, Ordering::SeqCst);
        true
    }
    /// The earliest arrival noted among the records staged for `j` since
    /// [`HostSide::settle_staged`] last forgot them.
    pub fn staged_unread(&self, j: u32) -> Option<u64> {
        self.seg.inbox(j).unread_min()
    }
    /// Forget the arrivals noted for remote rank `j` (its host has noted
    /// every record we took out): a bound as seen here rises, and the local
    /// deciders are poked. Nothing is forgotten while records wait in the
    /// staging inbox.
    pub fn settle_staged(&mut self, j: u32) {
        let inbox = self.seg.inbox(j);
        if inbox.unread_min().is_none() {
            return;
        }
        {
            let _g = futex::lock(&inbox.hdr().lock);
            if !inbox.is_empty() {
                return;
            }
            // a rise: announced before it is visible
            self.seg.bump_generation();
            inbox.clear_unread();
        }
        self.poke_deciders();
    }

    /// Append `rec` to local rank `j`'s inbox, noting a message arriving at
    /// `note` (ps), and wake it. Never waits: a full inbox is said.
    pub fn deliver(&mut self, j: u32, rec: &[u8], note: Option<u64>) -> Delivery {
        debug_assert!(!self.seg.is_remote(j));
        // in flight before it can be seen
        self.seg.activity().fetch_add(1, Ordering::SeqCst);
        let inbox = self.seg.inbox(j);
        let outcome = {
            let _g = futex::lock(&inbox.hdr().lock);
            if self.seg.slot(j).state() == RankState::Finalized {
                Delivery::Dropped
            } else if inbox.free_space() >= rec_size(rec.len()) {
                if let Some(t) = note {
                    inbox.note_arrival(t);
                }
                inbox.write(&[rec], rec.len());
                Delivery::Done
            } else {
                Delivery::Full
            }
        };
        if outcome != Delivery::Done {
            self.seg.activity().fetch_sub(1, Ordering::SeqCst);
            return outcome;
        }
        if note.is_some() {
            // a fall: announced after it is visible
            self.seg.bump_generation();
        }
        wake_rank(&self.seg, j);
        Delivery::Done
    }

    /// What the local ranks published, as one consistent snapshot of their
    /// bounds and unread arrivals (the generation unchanged across it).
    pub fn snapshot(&self) -> Vec<RankView> {
        loop {
            let g = self.seg.generation();
            let views: Vec<RankView> = self
                .local
                .iter()
                .map(|&r| {
                    let s = self.seg.slot(r);
                    let unread = self.seg.unread_min(r);
                    RankView {
                        rank: r,
                        bound: s.lower_bound(),
                        unread,
                        deciding: s.deciding_at(),
                        early: s.early_min(),
                        state: s.state(),
                        waiting_on: s.waiting_on(),
                    }
                })
                .collect();
            if self.seg.generation() == g {
                return views;
            }
        }
    }

    /// Store what another host said of its ranks in their mirrors. The
    /// bounds and unread arrivals that fall are stored first (then the
    /// generation bumped), those that rise last (after a bump), so that a
    /// reader whose scan saw no bump saw each word either as it was or as
    /// it is, with no risen word beside a word that has yet to fall. Then
    /// the local deciders are poked.
    pub fn apply(&mut self, views: &[RankView]) {
        // None (no arrival noted) is the latest of all
        let later = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => false,
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(x), Some(y)) => x > y,
        };
        let mut rises = Vec::new();
        let mut fell = false;
        for v in views {
            assert!(
                self.seg.is_remote(v.rank),
                "a host spoke for rank {}, which runs here",
                v.rank
            );
            let s = self.seg.slot(v.rank);
            let inbox = self.seg.inbox(v.rank);
            let old_u = inbox.remote_unread();
            if later(old_u, v.unread) {
                inbox.set_remote_unread(v.unread);
                fell = true;
            }
            if v.bound < s.lower_bound() {
                s.store_lower_bound(v.bound);
                fell = true;
            }
            if later(v.unread, old_u) || v.bound > s.lower_bound() {
                rises.push(v);
            }
            s.set_early_min(v.early);
            s.set_deciding_at(v.deciding);
            if s.waiting_on() != v.waiting_on {
                s.set_waiting_on(&v.waiting_on);
            }
        }
        if fell {
            self.seg.bump_generation();
        }
        if !rises.is_empty() {
            self.seg.bump_generation();
            for v in rises {
                let inbox = self.seg.inbox(v.rank);
                if later(v.unread, inbox.remote_unread()) {
                    inbox.set_remote_unread(v.unread);
                }
                let s = self.seg.slot(v.rank);
                if v.bound > s.lower_bound() {
                    s.store_lower_bound(v.bound);
                }
            }
        }
        for v in views {
            // under the staging inbox's lock: no local sender writes after
            // it sees the rank finalized
            let inbox = self.seg.inbox(v.rank);
            let _g = futex::lock(&inbox.hdr().lock);
            self.seg.slot(v.rank).set_state(v.state);
        }
        self.poke_deciders();
    }

    /// Poke every local rank that waits for bounds to rise.
    pub fn poke_deciders(&self) {
        for &r in &self.local {
            let s = self.seg.slot(r);
            if s.deciding_at().is_some() || s.resolving_at().is_some() {
                poke_rank(&self.seg, r);
            }
        }
    }

    /// Hold the host unit again (the rest of the job may become active):
    /// as a rank that stops being idle, so that a local rank reading the
    /// job as quiescent right now reads it anew.
    pub fn retake(&mut self) {
        if !self.unit {
            self.seg.activity().fetch_add(1, Ordering::SeqCst);
            self.seg.idle_ends().fetch_add(1, Ordering::SeqCst);
            self.unit = true;
        }
    }
    /// Give the host unit back: the whole job is quiescent (the bridges
    /// agreed) and the local ranks may act on it.
    pub fn release(&mut self) {
        if self.unit {
            self.unit = false;
            self.seg.activity().fetch_sub(1, Ordering::SeqCst);
        }
    }
    /// The host's quiet stamp, if every local rank is idle and no record
    /// is in flight here (but for the host unit): the idle-end count, which
    /// changes whenever a local rank stops being idle.
    pub fn quiet_stamp(&self) -> Option<u64> {
        let before = self.seg.idle_ends().load(Ordering::SeqCst);
        let a = Activity::of(
            self.seg.activity().load(Ordering::SeqCst),
            self.seg.nranks(),
        );
        let unit = u32::from(self.unit);
        let quiet = a.idle() == self.seg.nranks() && a.in_flight() == unit;
        (quiet && self.seg.idle_ends().load(Ordering::SeqCst) == before).then_some(before)
    }
    /// Whether every rank of the job has finalized, as far as this host
    /// knows.
    pub fn all_finalized(&self) -> bool {
        (0..self.seg.nranks()).all(|r| self.seg.slot(r).state() == RankState::Finalized)
    }
}
