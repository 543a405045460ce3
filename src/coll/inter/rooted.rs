//! Rooted collectives on an intercommunicator (MPICH 4.0.2's defaults):
//! * Bcast `remote_send_local_bcast`: the root sends to rank 0 of the other
//!   group, which broadcasts in its local communicator;
//! * Reduce `local_reduce_remote_send`: the other group reduces to its
//!   rank 0 locally, which sends the result to the root;
//! * Gather: `local_gather_remote_send` (a local gather to rank 0, which
//!   sends everything to the root) below MPICH's threshold, else `linear`
//!   (the root receives from each rank in turn);
//! * Scatter: `remote_send_local_scatter` (the root sends everything to
//!   rank 0, which scatters locally) below the threshold, else `linear`;
//! * Gatherv / Scatterv `allcomm_linear`: nonblocking receives (sends) for
//!   every rank with data, one wait; the senders of Gatherv use synchronous
//!   sends in groups of at least GATHERV_INTER_SSEND_MIN_PROCS ranks.
//!
//! MPICH's selection compares `total_msg_size < 2048`, where (as its
//! `get_total_msgsize` computes it) the "size" is a count, not bytes: at
//! the root recvcount (sendcount) times the remote group's size, elsewhere
//! sendcount (recvcount) times the local group's size.
use super::{Inter, Root};
use crate::coll::select::GATHERV_INTER_SSEND_MIN_PROCS;
use crate::coll::{self, put, tag, Layout, Op};
use crate::p2p::Link;

/// MPICH's threshold for the short gather / scatter algorithms.
pub const SHORT_TOTAL: usize = 2048;

/// Whether MPICH takes the short algorithm of an intercommunicator Gather
/// or Scatter: `count` is the count MPICH looks at (see the module doc),
/// `size` the group size it multiplies it by.
pub fn short(count: usize, size: usize) -> bool {
    count * size < SHORT_TOTAL
}

/// MPI_Bcast of `buf` (significant at the root).
pub fn bcast<L: Link>(ic: &mut Inter<L>, buf: &mut [u8], root: Root) {
    match root {
        Root::Null => {}
        Root::Me => ic.send(buf, 0, tag::BCAST),
        Root::Remote(r) => {
            if ic.me == 0 {
                let v = ic.recv(buf.len(), r, tag::BCAST);
                buf.copy_from_slice(&v);
            }
            coll::bcast::bcast(&mut ic.local(), buf, 0);
        }
    }
}

/// MPI_Reduce: `buf` holds my contribution in the other group, and gets
/// the result at the root.
pub fn reduce<L: Link>(ic: &mut Inter<L>, buf: &mut [u8], elem: usize, op: &mut Op, root: Root) {
    match root {
        Root::Null => {}
        Root::Me => {
            let v = ic.recv(buf.len(), 0, tag::REDUCE);
            buf.copy_from_slice(&v);
        }
        Root::Remote(r) => {
            if !buf.is_empty() {
                coll::reduce::reduce(&mut ic.local(), buf, elem, op, 0);
            }
            if ic.me == 0 {
                ic.send(buf, r, tag::REDUCE);
            }
        }
    }
}

/// MPI_Gather: at the root `recv` gets the remote group's blocks in rank
/// order; `short` is MPICH's choice ([`short`]).
pub fn gather<L: Link>(ic: &mut Inter<L>, send: &[u8], recv: &mut [u8], root: Root, short: bool) {
    match (root, short) {
        (Root::Null, _) => {}
        (Root::Me, true) => {
            let v = ic.recv(recv.len(), 0, tag::GATHER);
            recv.copy_from_slice(&v);
        }
        (Root::Me, false) => {
            let n = ic.remote_size();
            let b = recv.len() / n.max(1);
            for i in 0..n {
                let v = ic.recv(b, i, tag::GATHER);
                put(recv, i * b, &v);
            }
        }
        (Root::Remote(r), true) => {
            let (n, b) = (ic.local_size(), send.len());
            let mut all = if ic.me == 0 {
                vec![0; n * b]
            } else {
                Vec::new()
            };
            coll::gather::gather(&mut ic.local(), send, &mut all, 0);
            if ic.me == 0 {
                ic.send(&all, r, tag::GATHER);
            }
        }
        (Root::Remote(r), false) => ic.send(send, r, tag::GATHER),
    }
}

/// MPI_Scatter: at the root `send` holds the remote group's blocks in rank
/// order; elsewhere `recv` gets my block.
pub fn scatter<L: Link>(ic: &mut Inter<L>, send: &[u8], recv: &mut [u8], root: Root, short: bool) {
    match (root, short) {
        (Root::Null, _) => {}
        (Root::Me, true) => ic.send(send, 0, tag::SCATTER),
        (Root::Me, false) => {
            let n = ic.remote_size();
            let b = send.len() / n.max(1);
            for i in 0..n {
                ic.send(&send[i * b..(i + 1) * b], i, tag::SCATTER);
            }
        }
        (Root::Remote(r), true) => {
            let (n, b) = (ic.local_size(), recv.len());
            let all = if ic.me == 0 {
                ic.recv(n * b, r, tag::SCATTER)
            } else {
                Vec::new()
            };
            coll::scatter::scatter(&mut ic.local(), &all, recv, 0);
        }
        (Root::Remote(r), false) => {
            let v = ic.recv(recv.len(), r, tag::SCATTER);
            recv.copy_from_slice(&v);
        }
    }
}

/// MPI_Gatherv: at the root, remote rank i's block lands at
/// `layout.range(i)` of `recv`.
pub fn gatherv<L: Link>(
    ic: &mut Inter<L>,
    send: &[u8],
    recv: &mut [u8],
    layout: Layout,
    root: Root,
) {
    match root {
        Root::Null => {}
        Root::Me => {
            let mut from = Vec::new();
            let mut reqs = Vec::new();
            for i in 0..ic.remote_size() {
                if layout.counts[i] > 0 {
                    reqs.push((
                        ic.irecv(layout.counts[i], i, tag::GATHERV),
                        layout.counts[i],
                    ));
                    from.push(i);
                }
            }
            let data = ic.wait_all(&[], &reqs, tag::GATHERV);
            for (i, v) in from.into_iter().zip(data) {
                put(recv, layout.displs[i], &v);
            }
        }
        Root::Remote(r) => {
            if !send.is_empty() {
                if ic.local_size() >= GATHERV_INTER_SSEND_MIN_PROCS {
                    ic.ssend(send, r, tag::GATHERV);
                } else {
                    ic.send(send, r, tag::GATHERV);
                }
            }
        }
    }
}

/// MPI_Scatterv: remote rank i gets `send[layout.range(i)]` of the root.
pub fn scatterv<L: Link>(
    ic: &mut Inter<L>,
    send: &[u8],
    layout: Layout,
    recv: &mut [u8],
    root: Root,
) {
    match root {
        Root::Null => {}
        Root::Me => {
            let mut reqs = Vec::new();
            for i in 0..ic.remote_size() {
                if layout.counts[i] > 0 {
                    reqs.push(ic.isend(&send[layout.range(i)], i, tag::SCATTERV));
                }
            }
            ic.wait_all(&reqs, &[], tag::SCATTERV);
        }
        Root::Remote(r) => {
            if !recv.is_empty() {
                let v = ic.recv(recv.len(), r, tag::SCATTERV);
                recv.copy_from_slice(&v);
            }
        }
    }
}
