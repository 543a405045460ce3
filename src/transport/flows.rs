//! The job's flow registry for the contention model (`model::contention`):
//! every rank owns `flow_slots` entries in the segment, after the inboxes,
//! and is their only writer; every rank reads them all.
//!
//! An entry holds one flow (start, bytes, bandwidth, source and destination
//! nodes) under a sequence word: `4 * generation + state`, state 0 = free,
//! 1 = being written, 2 = holds a flow. A reader takes an entry's fields
//! only if the sequence word is the same (state 2) before and after (a
//! seqlock). The flow's receiver marks it consumed by storing the end it
//! found, then its sequence word; the owner may publish the end too.

use std::sync::atomic::{AtomicU64, Ordering};

/// One flow as the registry stores it (times in ps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowRecord {
    pub start_ps: u64,
    pub bytes: u64,
    pub bandwidth: u64,
    pub src: u32,
    pub dst: u32,
    /// The end of its crossing, once its owner published it.
    pub end_ps: Option<u64>,
}

const FREE: u64 = 0;
const WRITING: u64 = 1;
const VALID: u64 = 2;

/// An entry (atomics only: any bytes are a valid entry, zero = free).
#[repr(C, align(64))]
#[derive(Default)]
pub struct FlowEntry {
    seq: AtomicU64,
    start: AtomicU64,
    bytes: AtomicU64,
    bandwidth: AtomicU64,
    nodes: AtomicU64,
    /// end + 1, 0: not published.
    end: AtomicU64,
    /// The sequence word of the flow its receiver consumed.
    consumed: AtomicU64,
    /// The end its receiver found + 1 (valid once `consumed` names it).
    consumed_end: AtomicU64,
}

impl FlowEntry {
    /// Owner: store a flow; returns its sequence word (the flow's identity).
    pub fn write(&self, r: &FlowRecord) -> u64 {
        let gen = self.seq.load(Ordering::Relaxed) / 4 + 1;
        self.seq.store(gen * 4 + WRITING, Ordering::SeqCst);
        self.start.store(r.start_ps, Ordering::SeqCst);
        self.bytes.store(r.bytes, Ordering::SeqCst);
        self.bandwidth.store(r.bandwidth, Ordering::SeqCst);
        self.nodes
            .store(((r.src as u64) << 32) | r.dst as u64, Ordering::SeqCst);
        self.end
            .store(r.end_ps.map_or(0, |e| e + 1), Ordering::SeqCst);
        let seq = gen * 4 + VALID;
        self.seq.store(seq, Ordering::SeqCst);
        seq
    }

    /// Owner: the entry holds nothing any more.
    pub fn free(&self) {
        let gen = self.seq.load(Ordering::Relaxed) / 4;
        self.seq.store(gen * 4 + FREE, Ordering::SeqCst);
    }

    /// Owner: publish the flow's end.
    pub fn set_end(&self, end_ps: u64) {
        self.end.store(end_ps + 1, Ordering::SeqCst);
    }

    /// The flow held, with its sequence word (None: free or being written);
    /// its end if its owner published it or its receiver consumed it.
    pub fn read(&self) -> Option<(u64, FlowRecord)> {
        loop {
            let s1 = self.seq.load(Ordering::SeqCst);
            if s1 % 4 != VALID {
                return None;
            }
            let nodes = self.nodes.load(Ordering::SeqCst);
            let r = FlowRecord {
                start_ps: self.start.load(Ordering::SeqCst),
                bytes: self.bytes.load(Ordering::SeqCst),
                bandwidth: self.bandwidth.load(Ordering::SeqCst),
                src: (nodes >> 32) as u32,
                dst: nodes as u32,
                end_ps: self.end.load(Ordering::SeqCst).checked_sub(1).or_else(|| {
                    (self.consumed.load(Ordering::SeqCst) == s1)
                        .then(|| self.consumed_end.load(Ordering::SeqCst).checked_sub(1))
                        .flatten()
                }),
            };
            if self.seq.load(Ordering::SeqCst) == s1 {
                return Some((s1, r));
            }
        }
    }

    /// Receiver: flow `seq` is consumed, it ended at `end_ps` (the owner
    /// frees the entry only after this, so the receiver's stores cannot
    /// land on a later flow).
    pub fn consume(&self, seq: u64, end_ps: u64) {
        self.consumed_end.store(end_ps + 1, Ordering::SeqCst);
        self.consumed.store(seq, Ordering::SeqCst);
    }

    /// Owner: whether flow `seq` was consumed.
    pub fn is_consumed(&self, seq: u64) -> bool {
        self.consumed.load(Ordering::SeqCst) == seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_read_free() {
        let e = FlowEntry::default();
        assert_eq!(e.read(), None);
        let r = FlowRecord {
            start_ps: 5,
            bytes: 7,
            bandwidth: 11,
            src: 3,
            dst: u32::MAX,
            end_ps: None,
        };
        let s = e.write(&r);
        assert_eq!(e.read(), Some((s, r)));
        e.set_end(0);
        assert_eq!(e.read().unwrap().1.end_ps, Some(0));
        assert!(!e.is_consumed(s));
        e.consume(s, 9);
        assert!(e.is_consumed(s));
        // the published end comes first
        assert_eq!(e.read().unwrap().1.end_ps, Some(0));
        e.free();
        assert_eq!(e.read(), None);
        let s2 = e.write(&r);
        assert_ne!(s2, s);
        assert!(!e.is_consumed(s2));
        assert_eq!(e.read(), Some((s2, r)));
        e.consume(s2, 9);
        assert_eq!(e.read().unwrap().1.end_ps, Some(9));
    }
}
