//! The unmatched eager DATA and REQ messages (early or unexpected), in
//! arrival order, with each one's matching key (source, tag, context) kept
//! beside it: looking for the first match reads a compact array instead of
//! every held message (a rank in a 1024-rank all-to-all holds up to 1023 of
//! them and looks once for each receive it posts).
use std::collections::VecDeque;
use std::ops::Deref;

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

/// Held-message indices in arrival order (read like a `VecDeque`), and
/// their keys.
#[derive(Default)]
pub(super) struct Pending {
    ids: VecDeque<usize>,
    keys: VecDeque<Key>,
}

impl Deref for Pending {
    type Target = VecDeque<usize>;
    fn deref(&self) -> &VecDeque<usize> {
        &self.ids
    }
}

impl Pending {
    pub fn push_back(&mut self, i: usize, k: Key) {
        self.ids.push_back(i);
        self.keys.push_back(k);
    }

    pub fn remove(&mut self, pos: usize) -> Option<usize> {
        self.keys.remove(pos);
        self.ids.remove(pos)
    }

    /// Where held message `i` is.
    pub fn position_of(&self, i: usize) -> Option<usize> {
        self.ids.iter().position(|&h| h == i)
    }

    /// The first message (arrival order) a receive of (src, tag, ctx)
    /// matches.
    pub fn first_match(&self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Option<usize> {
        self.keys.iter().position(|k| k.matches(src, tag, ctx))
    }

    pub fn key(&self, pos: usize) -> Key {
        self.keys[pos]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_their_messages() {
        let k = |src, tag| Key { src, tag, ctx: 4 };
        let mut p = Pending::default();
        for (i, (s, t)) in [(1, 5), (2, 5), (1, 6), (3, 7)].into_iter().enumerate() {
            p.push_back(10 + i, k(s, t));
        }
        assert_eq!(p.first_match(Some(1), None, 4), Some(0));
        assert_eq!(p.first_match(Some(1), Some(6), 4), Some(2));
        assert_eq!(p.first_match(None, Some(7), 4), Some(3));
        assert_eq!(p.first_match(Some(1), None, 5), None);
        assert_eq!(p.remove(0), Some(10));
        assert_eq!(p.first_match(Some(1), None, 4), Some(1));
        assert_eq!(p.position_of(13), Some(2));
        assert_eq!(p.key(2), k(3, 7));
        assert_eq!(p.iter().copied().collect::<Vec<_>>(), [11, 12, 13]);
    }
}
