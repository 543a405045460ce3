//! The unmatched eager DATA and REQ messages (early or unexpected). Each is
//! known by its held-message index and numbered in arrival order; they are
//! kept in that order (wildcard-source receives and probes, rematching and
//! cancels walk it) and indexed by (context, source), so that a receive
//! from a given source looks only at the messages pending from that source:
//! a rank in a 1024-rank all-to-all holds up to 1023 of them and looks once
//! for each receive it posts. A removed message leaves a tombstone in the
//! arrival order, dropped at once at the front and by a compaction when
//! tombstones outnumber the messages still pending.
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// What a receive matches a message by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Key {
    pub src: u32,
    pub tag: i32,
    pub ctx: u32,
}

impl Key {
    pub fn matches(self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> bool {
        self.ctx == ctx && src.is_none_or(|s| s == self.src) && tag.is_none_or(|t| t == self.tag)
    }
}

/// A message's arrival number: increases with arrival, never reused.
pub(super) type Seq = u64;

/// A message in the arrival order; `live` false: a tombstone.
#[derive(Debug, Clone, Copy)]
struct Slot {
    seq: Seq,
    held: usize,
    key: Key,
    live: bool,
}

/// A message in its source's list.
#[derive(Debug, Clone, Copy)]
struct Entry {
    seq: Seq,
    tag: i32,
    held: usize,
}

/// Compaction leaves alone an arrival order with at most this many
/// tombstones.
const SPARSE_MIN: usize = 32;

/// A multiplicative hash of the (context, source) word: the map is looked
/// up once per receive posted and message held.
#[derive(Default)]
struct WordHash(u64);

impl Hasher for WordHash {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

fn pair(ctx: u32, src: u32) -> u64 {
    (u64::from(ctx) << 32) | u64::from(src)
}

/// The pending messages (held-message indices) in arrival order, and by
/// (context, source).
#[derive(Default)]
pub(super) struct Pending {
    /// Arrival order, tombstones included (`seq` increasing).
    slots: VecDeque<Slot>,
    /// Messages pending (live slots).
    live: usize,
    next: Seq,
    /// Per (context, source): its pending messages in arrival order (no
    /// empty lists).
    by_src: HashMap<u64, VecDeque<Entry>, BuildHasherDefault<WordHash>>,
    /// Per held-message index: its arrival number and key while pending.
    at: Vec<Option<(Seq, Key)>>,
}

impl Pending {
    /// Messages pending.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.live
    }

    /// Held message `held`, with key `k`, arrives.
    pub fn push_back(&mut self, held: usize, k: Key) {
        let seq = self.next;
        self.next += 1;
        self.slots.push_back(Slot {
            seq,
            held,
            key: k,
            live: true,
        });
        self.live += 1;
        self.by_src
            .entry(pair(k.ctx, k.src))
            .or_default()
            .push_back(Entry {
                seq,
                tag: k.tag,
                held,
            });
        if self.at.len() <= held {
            self.at.resize(held + 1, None);
        }
        debug_assert!(self.at[held].is_none(), "held message {held} pending twice");
        self.at[held] = Some((seq, k));
    }

    /// Take held message `held` out; whether it was pending.
    pub fn remove(&mut self, held: usize) -> bool {
        let Some((seq, k)) = self.at.get_mut(held).and_then(Option::take) else {
            return false;
        };
        let p = pair(k.ctx, k.src);
        let list = self.by_src.get_mut(&p).expect("a pending message's source");
        let j = list
            .binary_search_by_key(&seq, |e| e.seq)
            .expect("a pending message in its source's list");
        list.remove(j);
        if list.is_empty() {
            self.by_src.remove(&p);
        }
        let i = self
            .slots
            .binary_search_by_key(&seq, |s| s.seq)
            .expect("a pending message in the arrival order");
        self.slots[i].live = false;
        self.live -= 1;
        while self.slots.front().is_some_and(|s| !s.live) {
            self.slots.pop_front();
        }
        let dead = self.slots.len() - self.live;
        if dead > SPARSE_MIN && dead > self.live {
            self.slots.retain(|s| s.live);
        }
        true
    }

    /// The first message (arrival order) a receive of (src, tag, ctx)
    /// matches: with a source, among that source's messages only.
    pub fn first_match(&self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Option<usize> {
        match src {
            Some(s) => self
                .by_src
                .get(&pair(ctx, s))?
                .iter()
                .find(|e| tag.is_none_or(|t| t == e.tag))
                .map(|e| e.held),
            None => self
                .slots
                .iter()
                .find(|s| s.live && s.key.matches(None, tag, ctx))
                .map(|s| s.held),
        }
    }

    /// Whether a message from `src` matching (tag, ctx) arrived before
    /// arrival number `before` (None: is pending at all).
    pub fn any_before(&self, src: u32, tag: Option<i32>, ctx: u32, before: Option<Seq>) -> bool {
        self.by_src.get(&pair(ctx, src)).is_some_and(|list| {
            list.iter()
                .take_while(|e| before.is_none_or(|b| e.seq < b))
                .any(|e| tag.is_none_or(|t| t == e.tag))
        })
    }

    /// The first message pending that arrived with number `from` or later:
    /// its number and held-message index (a walk in arrival order that may
    /// remove what it visits).
    pub fn next_from(&self, from: Seq) -> Option<(Seq, usize)> {
        let i = self.slots.partition_point(|s| s.seq < from);
        self.slots
            .range(i..)
            .find(|s| s.live)
            .map(|s| (s.seq, s.held))
    }

    /// The pending messages' held-message indices, in arrival order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.slots.iter().filter(|s| s.live).map(|s| s.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(src: u32, tag: i32) -> Key {
        Key { src, tag, ctx: 4 }
    }

    fn filled(msgs: &[(u32, i32)]) -> Pending {
        let mut p = Pending::default();
        for (i, &(s, t)) in msgs.iter().enumerate() {
            p.push_back(10 + i, k(s, t));
        }
        p
    }

    #[test]
    fn specific_sources_look_at_their_own_messages() {
        let p = filled(&[(1, 5), (2, 5), (1, 6), (3, 7), (1, 5)]);
        assert_eq!(p.first_match(Some(1), None, 4), Some(10));
        assert_eq!(p.first_match(Some(1), Some(6), 4), Some(12));
        assert_eq!(p.first_match(Some(2), Some(5), 4), Some(11));
        assert_eq!(p.first_match(Some(2), Some(6), 4), None);
        assert_eq!(p.first_match(Some(1), None, 5), None);
        assert_eq!(p.first_match(Some(9), None, 4), None);
        assert_eq!(p.by_src[&pair(4, 1)].len(), 3);
        assert_eq!(p.by_src.len(), 3);
    }

    #[test]
    fn wildcards_and_walks_follow_arrival_order() {
        let mut p = filled(&[(3, 7), (1, 5), (2, 5), (1, 6)]);
        p.push_back(
            20,
            Key {
                src: 0,
                tag: 5,
                ctx: 8,
            },
        );
        assert_eq!(p.first_match(None, None, 4), Some(10));
        assert_eq!(p.first_match(None, Some(5), 4), Some(11));
        assert_eq!(p.first_match(None, Some(6), 4), Some(13));
        assert_eq!(p.first_match(None, Some(5), 8), Some(20));
        assert_eq!(p.first_match(None, Some(7), 8), None);
        assert_eq!(p.iter().collect::<Vec<_>>(), [10, 11, 12, 13, 20]);
        assert_eq!(p.next_from(0), Some((0, 10)));
        assert_eq!(p.next_from(2), Some((2, 12)));
        assert!(p.remove(12));
        assert_eq!(p.next_from(2), Some((3, 13)));
        assert_eq!(p.next_from(5), None);
        assert_eq!(p.first_match(None, Some(5), 4), Some(11));
        assert!(p.remove(11));
        assert_eq!(p.first_match(None, Some(5), 4), None);
        assert_eq!(p.iter().collect::<Vec<_>>(), [10, 13, 20]);
        assert_eq!(p.len(), 3);
    }

    #[test]
    fn earlier_messages_from_a_source() {
        let p = filled(&[(1, 5), (2, 5), (1, 6), (1, 7)]);
        // arrival numbers 0..4: (1, 6) is 2
        assert!(!p.any_before(1, Some(6), 4, Some(2)));
        assert!(p.any_before(1, Some(6), 4, Some(3)));
        assert!(p.any_before(1, None, 4, Some(1)));
        assert!(!p.any_before(1, None, 4, Some(0)));
        assert!(p.any_before(1, Some(7), 4, None));
        assert!(!p.any_before(1, Some(8), 4, None));
        assert!(!p.any_before(2, Some(5), 5, None));
    }

    #[test]
    fn removal_from_anywhere() {
        let mut p = filled(&[(1, 5), (2, 5), (1, 6), (1, 5)]);
        assert!(p.remove(12));
        assert!(!p.remove(12));
        assert!(!p.remove(99));
        assert_eq!(p.first_match(Some(1), Some(6), 4), None);
        assert_eq!(p.first_match(Some(1), None, 4), Some(10));
        assert!(p.remove(10));
        assert_eq!(p.first_match(Some(1), None, 4), Some(13));
        // the front's tombstones go at once
        assert_eq!(
            p.slots.iter().map(|s| s.held).collect::<Vec<_>>(),
            [11, 12, 13]
        );
        assert!(p.remove(11));
        assert_eq!(p.slots.iter().map(|s| s.held).collect::<Vec<_>>(), [13]);
        assert!(p.remove(13));
        assert_eq!(p.len(), 0);
        assert!(p.slots.is_empty() && p.by_src.is_empty());
        assert_eq!(p.first_match(None, None, 4), None);
        // an index is pending again under a new arrival number
        p.push_back(10, k(2, 1));
        assert_eq!(p.next_from(0), Some((4, 10)));
        assert_eq!(p.first_match(Some(2), None, 4), Some(10));
    }

    #[test]
    fn tombstones_are_compacted_when_sparse() {
        // few: kept, even when they outnumber the messages pending
        let mut p = filled(&[(1, 0); 10]);
        for i in 11..20 {
            assert!(p.remove(i));
        }
        assert_eq!((p.len(), p.slots.len()), (1, 10));
        // 100 messages from 4 sources; remove all but every 4th, the first
        // one kept (so that the front never empties)
        let mut p = Pending::default();
        for i in 0..100 {
            p.push_back(i, k(i as u32 % 4, 0));
        }
        let mut slots = Vec::new();
        for i in (1..100).filter(|i| i % 4 != 0) {
            assert!(p.remove(i));
            slots.push(p.slots.len());
        }
        // the 51st removal leaves more tombstones (51) than messages (49)
        assert_eq!(p.len(), 25);
        assert_eq!(slots[49], 100);
        assert_eq!(slots[50], 49);
        assert_eq!(*slots.last().unwrap(), 49);
        assert_eq!(slots.len(), 75);
        assert_eq!(
            p.iter().collect::<Vec<_>>(),
            (0..100).step_by(4).collect::<Vec<_>>()
        );
        assert_eq!(p.next_from(5), Some((8, 8)));
        assert_eq!(p.first_match(Some(0), None, 4), Some(0));
        assert_eq!(p.first_match(Some(1), None, 4), None);
        assert!(p.remove(0));
        assert_eq!(p.first_match(Some(0), None, 4), Some(4));
        assert_eq!(p.first_match(None, None, 4), Some(4));
        assert_eq!(p.slots.front().map(|s| s.seq), Some(4));
    }
}
