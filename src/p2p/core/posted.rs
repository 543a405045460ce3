//! The posted receives not yet matched, in post order. What each one
//! matches (source, tag, context) is kept beside its request, so that an
//! arriving message is matched against them without visiting the requests
//! (an all-to-all posts hundreds at once), and the receives posted as
//! wildcards in exact mode are counted: with none, nothing has to look for
//! an undecided one. No timing of its own: the order is MPI's matching order.
use super::super::request::ReqId;
use crate::engine::wire::Msg;

/// A posted receive and what it matches.
#[derive(Clone, Copy)]
struct Entry {
    r: ReqId,
    src: Option<u32>,
    tag: Option<i32>,
    ctx: u32,
    wild: bool,
}

#[derive(Default)]
pub(super) struct Posted {
    q: Vec<Entry>,
    /// Entries posted as wildcards in exact mode (`push`'s `wild`).
    wild: usize,
}

impl Posted {
    /// Post receive `r` of (`src`, `tag`, `ctx`) last; `wild`: a wildcard
    /// receive to be decided later (exact mode).
    pub(super) fn push(
        &mut self,
        r: ReqId,
        src: Option<u32>,
        tag: Option<i32>,
        ctx: u32,
        wild: bool,
    ) {
        self.q.push(Entry {
            r,
            src,
            tag,
            ctx,
            wild,
        });
        self.wild += wild as usize;
    }

    /// The position of the first receive (post order) that `m` matches.
    pub(super) fn first_match(&self, m: &Msg) -> Option<usize> {
        self.q
            .iter()
            .position(|e| super::matches(m, e.src, e.tag, e.ctx))
    }

    /// The receive at position `p`.
    pub(super) fn get(&self, p: usize) -> ReqId {
        self.q[p].r
    }

    /// Remove the receive at position `p`.
    pub(super) fn remove(&mut self, p: usize) -> ReqId {
        let e = self.q.remove(p);
        self.wild -= e.wild as usize;
        e.r
    }

    /// Remove receive `r` if it is posted.
    pub(super) fn remove_req(&mut self, r: ReqId) {
        if let Some(p) = self.q.iter().position(|e| e.r == r) {
            self.remove(p);
        }
    }

    /// The receives posted as wildcards to be decided (`push`'s `wild`),
    /// in post order, among the first `n` (none to look at if none was).
    pub(super) fn wild_ids(&self, n: usize) -> impl Iterator<Item = ReqId> + '_ {
        let n = if self.wild == 0 {
            0
        } else {
            n.min(self.q.len())
        };
        self.q[..n].iter().filter(|e| e.wild).map(|e| e.r)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}
