//! Collectives as point-to-point algorithms, the way MPICH builds them (the
//! algorithms of MPICH 3.2, whose files each module names, as MPICH 4.0.2
//! still runs them, with 4.0.2's changes where it made some: the pieces of
//! Rabenseifner's reduce-scatter, the allgatherv ring's chunks): one file
//! per collective, each algorithm a named function, and a selection table
//! ([`select`]) with MPICH 4.0.2's default selection. Every message goes
//! through the p2p engine, so a collective costs what its message schedule
//! costs on the target.
//!
//! API contract for the `mpi` layer (which checks arguments, packs derived
//! datatypes and turns MPI_IN_PLACE into these in-place forms by copying):
//! * data is packed bytes; `elem` is the packed size of one element, and a
//!   buffer is only ever split at element boundaries;
//! * counts and displacements (`Layout`) are in bytes;
//! * a [`Comm`] names the communicator: the world rank of each member, my
//!   index in it and its point-to-point context id; collectives use context
//!   `ctx | 0x8000_0000` and a tag per collective kind;
//! * reduction operators ([`Op`]) follow MPI's convention
//!   `inout = in (op) inout`; every application runs as application
//!   computation (`Core::as_computation`).
//!
//! Each collective has an entry point that picks the algorithm (forced by
//! `VACED_COLL_<NAME>` or the target's `[collectives]` table, else MPICH's
//! default rule) and a `*_with` variant that runs a given algorithm.
use crate::p2p::{Core, Link, ReqId};

pub mod allgather;
pub mod allgatherv;
pub mod allreduce;
pub mod alltoall;
pub mod alltoallv;
pub mod barrier;
pub mod bcast;
pub mod exscan;
pub mod gather;
pub mod gatherv;
pub mod inter;
pub mod neighbor;
pub mod nonblocking;
pub mod reduce;
pub mod reduce_scatter;
pub mod reduce_scatter_block;
pub mod scan;
pub mod scatter;
pub mod scatterv;
pub mod select;
#[cfg(test)]
mod tests;

/// Tags, one per collective kind (as MPICH's MPIR_*_TAG).
pub(crate) mod tag {
    pub const BARRIER: i32 = 1;
    pub const BCAST: i32 = 2;
    pub const GATHER: i32 = 3;
    pub const GATHERV: i32 = 4;
    pub const SCATTER: i32 = 5;
    pub const SCATTERV: i32 = 6;
    pub const ALLGATHER: i32 = 7;
    pub const ALLGATHERV: i32 = 8;
    pub const ALLTOALL: i32 = 9;
    pub const ALLTOALLV: i32 = 10;
    pub const REDUCE: i32 = 11;
    pub const ALLREDUCE: i32 = 12;
    pub const REDUCE_SCATTER: i32 = 13;
    pub const REDUCE_SCATTER_BLOCK: i32 = 14;
    pub const SCAN: i32 = 15;
    pub const EXSCAN: i32 = 16;

    pub fn name(t: i32) -> &'static str {
        const NAMES: [&str; 16] = [
            "MPI_Barrier",
            "MPI_Bcast",
            "MPI_Gather",
            "MPI_Gatherv",
            "MPI_Scatter",
            "MPI_Scatterv",
            "MPI_Allgather",
            "MPI_Allgatherv",
            "MPI_Alltoall",
            "MPI_Alltoallv",
            "MPI_Reduce",
            "MPI_Allreduce",
            "MPI_Reduce_scatter",
            "MPI_Reduce_scatter_block",
            "MPI_Scan",
            "MPI_Exscan",
        ];
        NAMES.get((t - 1) as usize).copied().unwrap_or("collective")
    }
}

/// The top bit of the context id marks collective traffic.
pub const COLL_CTX_BIT: u32 = 0x8000_0000;

/// A communicator as the collectives see it.
pub struct Comm<'a, L: Link> {
    pub core: &'a mut Core<L>,
    /// World rank of each communicator rank.
    pub ranks: &'a [u32],
    /// My rank in the communicator.
    pub me: usize,
    /// The communicator's point-to-point context id.
    pub ctx: u32,
}

/// A reduction operator: `apply(in, inout)` computes `inout = in (op) inout`
/// elementwise over whole elements.
pub struct Op<'f> {
    pub commutative: bool,
    /// A predefined MPI operator (MPICH takes the reduce-scatter based
    /// algorithms only for these).
    pub builtin: bool,
    pub apply: &'f mut dyn FnMut(&[u8], &mut [u8]),
}

/// Per-rank byte counts and displacements of a v-collective.
#[derive(Clone, Copy, Debug)]
pub struct Layout<'a> {
    pub counts: &'a [usize],
    pub displs: &'a [usize],
}

impl Layout<'_> {
    /// The byte range of rank `i`'s block.
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.displs[i]..self.displs[i] + self.counts[i]
    }
    pub fn total(&self) -> usize {
        self.counts.iter().sum()
    }

    /// The steps of MPICH's pipelined allgatherv ring on rank `me` of `n`
    /// (`MPIR_Allgatherv_intra_ring`, `MPIR_Iallgatherv_intra_sched_ring`):
    /// each block moves right `chunk` bytes at a time; each step sends the
    /// next chunk of the block in hand to the right and receives one from
    /// the left, as (offset, bytes) pairs, 0 bytes when there is none.
    pub fn ring_steps(&self, n: usize, me: usize, chunk: usize) -> Vec<[(usize, usize); 2]> {
        let counts = self.counts;
        let right = (me + 1) % n;
        let mut torecv = self.total() - counts[me];
        let mut tosend = self.total() - counts[right];
        let (mut sidx, mut ridx) = (me, (n + me - 1) % n);
        let (mut soff, mut roff) = (0, 0);
        let mut steps = Vec::new();
        while tosend > 0 || torecv > 0 {
            let sendnow = if tosend == 0 {
                0
            } else {
                (counts[sidx] - soff).min(chunk)
            };
            let recvnow = if torecv == 0 {
                0
            } else {
                (counts[ridx] - roff).min(chunk)
            };
            steps.push([
                (self.displs[sidx] + soff, sendnow),
                (self.displs[ridx] + roff, recvnow),
            ]);
            tosend -= sendnow;
            torecv -= recvnow;
            soff += sendnow;
            roff += recvnow;
            if soff == counts[sidx] {
                soff = 0;
                sidx = (sidx + n - 1) % n;
            }
            if roff == counts[ridx] {
                roff = 0;
                ridx = (ridx + n - 1) % n;
            }
        }
        steps
    }
}

/// Largest power of two <= n (n >= 1).
pub(crate) fn pof2_floor(n: usize) -> usize {
    debug_assert!(n >= 1);
    1 << (usize::BITS - 1 - n.leading_zeros())
}

/// A transfer of the non-power-of-two part of a recursive-doubling step
/// ([`missing_subtree`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hand {
    /// Send what I received in this step to this rank.
    To(usize),
    /// Receive from this rank what it received in this step.
    From(usize),
}

/// MPICH's recursive-doubling exchanges on `n` ranks (Allgather,
/// Allgatherv, Bcast, Reduce_scatter), step `mask`: rank `r` exchanges with
/// `r ^ mask` the data of its aligned subtree of `mask` ranks. When `n` is
/// not a power of two, some ranks of my subtree have no partner; those that
/// had one hand what they received down a halving tree to those that did
/// not. Returns my transfers of that kind, in order (none for most ranks).
pub(crate) fn missing_subtree(r: usize, mask: usize, n: usize) -> Vec<Hand> {
    let my_tree_root = r & !(mask - 1);
    let dst_tree_root = (r ^ mask) & !(mask - 1);
    let mut hands = Vec::new();
    if dst_tree_root + mask > n && n > my_tree_root + mask {
        let completed = n - my_tree_root - mask;
        let mut tmp_mask = mask >> 1;
        while tmp_mask > 0 {
            let dst = r ^ tmp_mask;
            let tree_root = r & !(2 * tmp_mask - 1);
            if dst > r && r < tree_root + completed && dst >= tree_root + completed {
                hands.push(Hand::To(dst));
            } else if dst < r && dst < tree_root + completed && r >= tree_root + completed {
                hands.push(Hand::From(dst));
            }
            tmp_mask >>= 1;
        }
    }
    hands
}

/// `buf[off..off + len]`, empty when `len` is 0 (the offset may then lie
/// past the end, as MPICH's offsets do for ranks that get no data).
pub(crate) fn seg(buf: &[u8], off: usize, len: usize) -> &[u8] {
    if len == 0 {
        &[]
    } else {
        &buf[off..off + len]
    }
}

/// Copy `src` into `buf` at `off`.
pub(crate) fn put(buf: &mut [u8], off: usize, src: &[u8]) {
    if !src.is_empty() {
        buf[off..off + src.len()].copy_from_slice(src);
    }
}

impl<L: Link> Comm<'_, L> {
    pub fn size(&self) -> usize {
        self.ranks.len()
    }

    fn world(&self, r: usize) -> u32 {
        self.ranks[r]
    }

    fn coll_ctx(&self) -> u32 {
        self.ctx | COLL_CTX_BIT
    }

    /// Start a standard-mode send of `data` to communicator rank `dest`.
    pub(crate) fn isend(&mut self, data: &[u8], dest: usize, tag: i32) -> ReqId {
        let (w, ctx) = (self.world(dest), self.coll_ctx());
        self.core.isend_vec(data.to_vec(), w, tag, ctx)
    }

    /// Start a receive of at most `len` bytes from communicator rank `src`.
    pub(crate) fn irecv(&mut self, len: usize, src: usize, tag: i32) -> ReqId {
        let (w, ctx) = (self.world(src), self.coll_ctx());
        self.core.irecv_vec(len, Some(w), Some(tag), ctx)
    }

    /// The data of a completed receive started by [`Comm::irecv`].
    pub(crate) fn take(&mut self, r: ReqId, tag: i32) -> Vec<u8> {
        let st = self.core.status(r);
        if st.truncated {
            panic!(
                "vaced: {}: rank {} received a longer message than expected from world rank {} \
                 (the ranks passed different counts)",
                tag::name(tag),
                self.me,
                st.source
            );
        }
        self.core.take_vec(r)
    }

    /// Blocking send (MPIC_Send).
    pub(crate) fn send(&mut self, data: &[u8], dest: usize, tag: i32) {
        let r = self.isend(data, dest, tag);
        self.core.wait_all(&[r]);
        self.core.free(r);
    }

    /// Blocking synchronous send (MPIC_Ssend): always the rendezvous.
    pub(crate) fn ssend(&mut self, data: &[u8], dest: usize, tag: i32) {
        let r = self
            .core
            .issend_vec(data.to_vec(), self.world(dest), tag, self.coll_ctx());
        self.core.wait_all(&[r]);
        self.core.free(r);
    }

    /// Blocking receive of at most `len` bytes (MPIC_Recv).
    pub(crate) fn recv(&mut self, len: usize, src: usize, tag: i32) -> Vec<u8> {
        let r = self.irecv(len, src, tag);
        self.core.wait_all(&[r]);
        self.take(r, tag)
    }

    /// MPIC_Sendrecv: post the receive, start the send, wait for the send,
    /// then wait for the receive (two waiting activities, in MPICH's order).
    pub(crate) fn sendrecv(
        &mut self,
        data: &[u8],
        dest: usize,
        len: usize,
        src: usize,
        tag: i32,
    ) -> Vec<u8> {
        let rr = self.irecv(len, src, tag);
        let sr = self.isend(data, dest, tag);
        self.core.wait_all(&[sr]);
        self.core.free(sr);
        self.core.wait_all(&[rr]);
        self.take(rr, tag)
    }

    /// Wait for all of `sends` and `recvs` in one waiting activity
    /// (MPIC_Waitall); returns the received data in the order of `recvs`.
    pub(crate) fn wait_all(&mut self, sends: &[ReqId], recvs: &[ReqId], tag: i32) -> Vec<Vec<u8>> {
        let all: Vec<ReqId> = recvs.iter().chain(sends).copied().collect();
        self.core.wait_all(&all);
        for &s in sends {
            self.core.free(s);
        }
        recvs.iter().map(|&r| self.take(r, tag)).collect()
    }

    /// `inout = input (op) inout`, charged as application computation.
    pub(crate) fn reduce_local(&mut self, op: &mut Op, input: &[u8], inout: &mut [u8]) {
        debug_assert_eq!(input.len(), inout.len());
        if input.is_empty() {
            return;
        }
        let f = &mut *op.apply;
        self.core.as_computation(|| f(input, inout));
    }

    /// Combine `other` (the data of communicator ranks ordered before mine
    /// when `other_first`, after mine otherwise) into `mine`, respecting the
    /// order for non-commutative operators. For commutative ones this is
    /// MPICH's `MPIR_Reduce_local_impl(other, mine)`.
    pub(crate) fn combine(
        &mut self,
        op: &mut Op,
        other: &mut [u8],
        mine: &mut [u8],
        other_first: bool,
    ) {
        if op.commutative || other_first {
            self.reduce_local(op, other, mine);
        } else {
            self.reduce_local(op, mine, other);
            mine.copy_from_slice(other);
        }
    }
}
