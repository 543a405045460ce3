//! The unmatched eager DATA and REQ messages (early or unexpected). Each is
//! known by its held-message index and numbered in arrival order; they are
//! kept in that order (rematching, cancels and wildcard-source receives
//! outside exact mode walk it) and, per (context, source), in a list: a
//! receive from a given source looks only at the messages pending from that
//! source (a rank in a 1024-rank all-to-all holds up to 1023 of them and
//! looks once for each receive it posts), and an exact-mode wildcard at the
//! first matching message of each source. A removed message leaves a
//! tombstone in the arrival order, dropped at once at the front and by a
//! compaction when tombstones outnumber the messages still pending.
use std::collections::hash_map::Entry;
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

/// No held message (the end of a source's list).
const NIL: u32 = u32::MAX;
/// The arrival number of a held message that is not pending.
const GONE: Seq = Seq::MAX;

/// A held message: while pending, its arrival number and key, and the next
/// message pending from the same (context, source).
#[derive(Debug, Clone, Copy)]
struct Node {
    seq: Seq,
    key: Key,
    next: u32,
}

const FREE: Node = Node {
    seq: GONE,
    key: Key {
        src: 0,
        tag: 0,
        ctx: 0,
    },
    next: NIL,
};

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

fn pair(k: Key) -> u64 {
    (u64::from(k.ctx) << 32) | u64::from(k.src)
}

/// The pending messages (held-message indices) in arrival order, and by
/// (context, source): no allocation per message once the tables have grown
/// to the most messages held at once.
#[derive(Default)]
pub(super) struct Pending {
    /// Arrival order: (arrival number, held index), tombstones included
    /// (an entry whose held message no longer has that number).
    order: VecDeque<(Seq, u32)>,
    /// Messages pending.
    live: usize,
    next: Seq,
    /// Per (context, source) with messages pending: the first and the last
    /// (held indices), linked through `Node::next` in arrival order.
    chains: HashMap<u64, (u32, u32), BuildHasherDefault<WordHash>>,
    /// Per held index.
    nodes: Vec<Node>,
}

fn index(held: usize) -> u32 {
    u32::try_from(held)
        .ok()
        .filter(|&h| h != NIL)
        .expect("fewer than 2^32 - 1 held messages")
}

impl Pending {
    /// Messages pending.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.live
    }

    fn alive(&self, (seq, h): (Seq, u32)) -> bool {
        self.nodes[h as usize].seq == seq
    }

    /// The held messages pending from (context, source) `p`, in arrival
    /// order, with their nodes.
    fn chain(&self, p: u64) -> impl Iterator<Item = (usize, &Node)> + '_ {
        let mut h = self.chains.get(&p).map_or(NIL, |c| c.0);
        std::iter::from_fn(move || {
            let i = (h != NIL).then_some(h as usize)?;
            let n = &self.nodes[i];
            h = n.next;
            Some((i, n))
        })
    }

    /// Held message `held`, with key `k`, arrives.
    pub fn push_back(&mut self, held: usize, k: Key) {
        let h = index(held);
        let seq = self.next;
        self.next += 1;
        self.order.push_back((seq, h));
        self.live += 1;
        if self.nodes.len() <= held {
            self.nodes.resize(held + 1, FREE);
        }
        debug_assert_eq!(
            self.nodes[held].seq, GONE,
            "held message {held} pending twice"
        );
        self.nodes[held] = Node {
            seq,
            key: k,
            next: NIL,
        };
        match self.chains.entry(pair(k)) {
            Entry::Occupied(mut e) => {
                let (_, last) = e.get_mut();
                self.nodes[*last as usize].next = h;
                *last = h;
            }
            Entry::Vacant(e) => {
                e.insert((h, h));
            }
        }
    }

    /// Take held message `held` out; whether it was pending. Costs the
    /// messages pending from its source ahead of it.
    pub fn remove(&mut self, held: usize) -> bool {
        let Some(&n) = self.nodes.get(held).filter(|n| n.seq != GONE) else {
            return false;
        };
        let h = index(held);
        let p = pair(n.key);
        let (first, last) = self.chains[&p];
        if first == h {
            if n.next == NIL {
                self.chains.remove(&p);
            } else {
                self.chains.get_mut(&p).unwrap().0 = n.next;
            }
        } else {
            let (prev, _) = self
                .chain(p)
                .find(|(_, m)| m.next == h)
                .expect("a pending message in its source's list");
            self.nodes[prev].next = n.next;
            if last == h {
                self.chains.get_mut(&p).unwrap().1 = index(prev);
            }
        }
        self.nodes[held] = FREE;
        self.live -= 1;
        while self.order.front().is_some_and(|&e| !self.alive(e)) {
            self.order.pop_front();
        }
        let dead = self.order.len() - self.live;
        if dead > SPARSE_MIN && dead > self.live {
            let nodes = &self.nodes;
            self.order.retain(|&(seq, h)| nodes[h as usize].seq == seq);
        }
        true
    }

    /// The first message (arrival order) a receive of (src, tag, ctx)
    /// matches: with a source, among that source's messages only.
    pub fn first_match(&self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Option<usize> {
        match src {
            Some(src) => self
                .chain(pair(Key { src, tag: 0, ctx }))
                .find(|(_, n)| tag.is_none_or(|t| t == n.key.tag))
                .map(|(i, _)| i),
            None => self
                .order
                .iter()
                .find(|&&(seq, h)| {
                    let n = &self.nodes[h as usize];
                    n.seq == seq && n.key.matches(None, tag, ctx)
                })
                .map(|&(_, h)| h as usize),
        }
    }

    /// Whether a message from `src` matching (tag, ctx) arrived before
    /// arrival number `before` (None: is pending at all).
    pub fn any_before(&self, src: u32, tag: Option<i32>, ctx: u32, before: Option<Seq>) -> bool {
        self.chain(pair(Key { src, tag: 0, ctx }))
            .take_while(|(_, n)| before.is_none_or(|b| n.seq < b))
            .any(|(_, n)| tag.is_none_or(|t| t == n.key.tag))
    }

    /// The first message pending that arrived with number `from` or later:
    /// its number and held-message index (a walk in arrival order that may
    /// remove what it visits).
    pub fn next_from(&self, from: Seq) -> Option<(Seq, usize)> {
        let i = self.order.partition_point(|&(seq, _)| seq < from);
        self.order
            .range(i..)
            .find(|&&e| self.alive(e))
            .map(|&(seq, h)| (seq, h as usize))
    }

    /// Per source with messages pending in `ctx`, the first (arrival
    /// order) that matches `tag`; the sources in no particular order.
    pub fn first_of_each_source(
        &self,
        tag: Option<i32>,
        ctx: u32,
    ) -> impl Iterator<Item = usize> + '_ {
        self.chains
            .keys()
            .filter(move |&&p| (p >> 32) as u32 == ctx)
            .filter_map(move |&p| {
                self.chain(p)
                    .find(|(_, n)| tag.is_none_or(|t| t == n.key.tag))
                    .map(|(i, _)| i)
            })
    }

    /// The pending messages' held-message indices, in arrival order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.order
            .iter()
            .filter(|&&e| self.alive(e))
            .map(|&(_, h)| h as usize)
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
        assert_eq!(
            p.chain(pair(k(1, 0))).map(|(i, _)| i).collect::<Vec<_>>(),
            [10, 12, 14]
        );
        assert_eq!(p.chains.len(), 3);
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
    fn first_of_each_source() {
        let mut p = filled(&[(3, 7), (1, 5), (2, 5), (1, 6), (3, 5), (2, 6)]);
        p.push_back(
            20,
            Key {
                src: 1,
                tag: 5,
                ctx: 8,
            },
        );
        let firsts = |p: &Pending, tag, ctx| {
            let mut v = p.first_of_each_source(tag, ctx).collect::<Vec<_>>();
            v.sort();
            v
        };
        assert_eq!(firsts(&p, None, 4), [10, 11, 12]);
        assert_eq!(firsts(&p, Some(5), 4), [11, 12, 14]);
        assert_eq!(firsts(&p, Some(6), 4), [13, 15]);
        assert_eq!(firsts(&p, Some(5), 8), [20]);
        assert_eq!(firsts(&p, Some(9), 4), Vec::<usize>::new());
        assert!(p.remove(11));
        assert_eq!(firsts(&p, Some(5), 4), [12, 14]);
        assert_eq!(firsts(&p, None, 4), [10, 12, 13]);
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
            p.order.iter().map(|e| e.1).collect::<Vec<_>>(),
            [11, 12, 13]
        );
        assert!(p.remove(11));
        assert_eq!(p.order.iter().map(|e| e.1).collect::<Vec<_>>(), [13]);
        assert!(p.remove(13));
        assert_eq!(p.len(), 0);
        assert!(p.order.is_empty() && p.chains.is_empty());
        assert_eq!(p.first_match(None, None, 4), None);
        // a source's last message removed, then one more from it
        let mut q = filled(&[(1, 5), (1, 6), (1, 7)]);
        assert!(q.remove(12));
        q.push_back(12, k(1, 8));
        assert!(q.remove(11));
        let chain = |q: &Pending| q.chain(pair(k(1, 0))).map(|(i, _)| i).collect::<Vec<_>>();
        assert_eq!(chain(&q), [10, 12]);
        q.push_back(11, k(1, 9));
        assert_eq!(chain(&q), [10, 12, 11]);
        assert_eq!(q.first_match(Some(1), Some(9), 4), Some(11));
        assert_eq!(q.iter().collect::<Vec<_>>(), [10, 12, 11]);
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
        assert_eq!((p.len(), p.order.len()), (1, 10));
        // 100 messages from 4 sources; remove all but every 4th, the first
        // one kept (so that the front never empties)
        let mut p = Pending::default();
        for i in 0..100 {
            p.push_back(i, k(i as u32 % 4, 0));
        }
        let mut slots = Vec::new();
        for i in (1..100).filter(|i| i % 4 != 0) {
            assert!(p.remove(i));
            slots.push(p.order.len());
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
        assert_eq!(p.order.front().map(|e| e.0), Some(4));
    }
}
