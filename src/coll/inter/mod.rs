//! Collectives on intercommunicators, as MPICH 4.0.2 runs them by default
//! (its `*_inter_*` algorithms, chosen by its built-in selection table):
//! point-to-point messages between the two groups plus the intracommunicator
//! collectives of `crate::coll` on each group's local communicator, so an
//! intercommunicator collective costs the messages it costs in MPICH.
//!
//! Contexts (MPICH's): a message to the remote group is sent on the remote
//! group's receive context (`send_ctx`) and received on our own (`ctx`),
//! both with the collective bit; the local communicator of the group (MPICH's
//! `local_comm`, made without communication) uses `ctx | LOCAL_CTX_BIT`.
//!
//! Roots ([`Root`]): in a rooted collective the root passes MPI_ROOT, the
//! other members of its group MPI_PROC_NULL (they take no part), and every
//! member of the other group the root's rank in that group.
use super::{tag, Comm as Intra, COLL_CTX_BIT};
use crate::p2p::{Core, Link, ReqId};

pub mod rooted;
pub mod symmetric;
#[cfg(test)]
mod tests;

/// Marks the context of an intercommunicator's local communicator (MPICH's
/// IS_LOCALCOMM field). The high bits of a context id: 0x8000_0000
/// collectives, 0x4000_0000 active messages, 0x2000_0000 group
/// collectives, 0x1000_0000 this, 0x0800_0000 [`MERGE_CTX_BIT`].
pub const LOCAL_CTX_BIT: u32 = 0x1000_0000;

/// Marks the temporary context MPI_Intercomm_merge agrees on the new
/// communicator's id with (MPICH sets both SUBCOMM flags of the high
/// group's receive context).
pub const MERGE_CTX_BIT: u32 = 0x0800_0000;

/// Who the root of a rooted intercommunicator collective is, for this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// MPI_PROC_NULL: in the root's group, not the root: nothing to do.
    Null,
    /// MPI_ROOT: I am the root.
    Me,
    /// The root is this rank of the remote group.
    Remote(usize),
}

/// An intercommunicator as the collectives see it.
pub struct Inter<'a, L: Link> {
    pub core: &'a mut Core<L>,
    /// World rank of each member of my group, in rank order.
    pub local: &'a [u32],
    /// World rank of each member of the remote group.
    pub remote: &'a [u32],
    /// My rank in my group.
    pub me: usize,
    /// The context id messages from the remote group arrive on.
    pub ctx: u32,
    /// The context id the remote group receives on.
    pub send_ctx: u32,
    /// MPICH's `is_low_group` (which group goes first in the symmetric
    /// collectives).
    pub is_low: bool,
}

impl<'a, L: Link> Inter<'a, L> {
    pub fn local_size(&self) -> usize {
        self.local.len()
    }
    pub fn remote_size(&self) -> usize {
        self.remote.len()
    }

    /// My group's local intracommunicator.
    pub fn local(&mut self) -> Intra<'_, L> {
        Intra {
            core: self.core,
            ranks: self.local,
            me: self.me,
            ctx: self.ctx | LOCAL_CTX_BIT,
        }
    }

    /// Start a send of `data` to rank `dest` of the remote group.
    pub(crate) fn isend(&mut self, data: &[u8], dest: usize, tag: i32) -> ReqId {
        let (w, ctx) = (self.remote[dest], self.send_ctx | COLL_CTX_BIT);
        self.core.isend_vec(data.to_vec(), w, tag, ctx)
    }

    /// Start a receive of at most `len` bytes from rank `src` of the remote
    /// group.
    pub(crate) fn irecv(&mut self, len: usize, src: usize, tag: i32) -> ReqId {
        let (w, ctx) = (self.remote[src], self.ctx | COLL_CTX_BIT);
        self.core.irecv_vec(len, Some(w), Some(tag), ctx)
    }

    /// The data of a complete receive (exactly `want` bytes expected).
    pub(crate) fn take(&mut self, r: ReqId, want: usize, tag: i32) -> Vec<u8> {
        let st = self.core.status(r);
        let v = self.core.take_vec(r);
        if st.truncated || v.len() != want {
            panic!(
                "vaced: {} on an intercommunicator: rank {} received {} bytes from world rank {}, \
                 expected {} (the groups passed different counts)",
                tag::name(tag),
                self.me,
                st.bytes.max(v.len() as u64),
                st.source,
                want
            );
        }
        v
    }

    /// MPIC_Send to the remote group.
    pub(crate) fn send(&mut self, data: &[u8], dest: usize, tag: i32) {
        let r = self.isend(data, dest, tag);
        self.core.wait_all(&[r]);
        self.core.free(r);
    }

    /// MPIC_Ssend to the remote group (always the rendezvous protocol).
    pub(crate) fn ssend(&mut self, data: &[u8], dest: usize, tag: i32) {
        let (w, ctx) = (self.remote[dest], self.send_ctx | COLL_CTX_BIT);
        let r = self.core.issend_vec(data.to_vec(), w, tag, ctx);
        self.core.wait_all(&[r]);
        self.core.free(r);
    }

    /// MPIC_Recv of exactly `len` bytes from the remote group.
    pub(crate) fn recv(&mut self, len: usize, src: usize, tag: i32) -> Vec<u8> {
        let r = self.irecv(len, src, tag);
        self.core.wait_all(&[r]);
        self.take(r, len, tag)
    }

    /// MPIC_Sendrecv with the remote group, either side possibly
    /// MPI_PROC_NULL (None): the receive posted, the send started, the send
    /// waited for, then the receive.
    pub(crate) fn sendrecv(
        &mut self,
        send: Option<(&[u8], usize)>,
        recv: Option<(usize, usize)>,
        tag: i32,
    ) -> Option<Vec<u8>> {
        let rr = recv.map(|(len, src)| (self.irecv(len, src, tag), len));
        if let Some((data, dest)) = send {
            let sr = self.isend(data, dest, tag);
            self.core.wait_all(&[sr]);
            self.core.free(sr);
        }
        rr.map(|(r, len)| {
            self.core.wait_all(&[r]);
            self.take(r, len, tag)
        })
    }

    /// Wait for all of `sends` and `recvs` in one waiting activity
    /// (MPIC_Waitall); the received data in the order of `recvs` (request,
    /// expected length).
    pub(crate) fn wait_all(
        &mut self,
        sends: &[ReqId],
        recvs: &[(ReqId, usize)],
        tag: i32,
    ) -> Vec<Vec<u8>> {
        let all: Vec<ReqId> = recvs
            .iter()
            .map(|r| r.0)
            .chain(sends.iter().copied())
            .collect();
        self.core.wait_all(&all);
        for &s in sends {
            self.core.free(s);
        }
        recvs.iter().map(|&(r, n)| self.take(r, n, tag)).collect()
    }
}
