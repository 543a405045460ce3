//! MPI_Alltoall (MPICH 3.2 alltoall.c, MPIR_Alltoall_intra): Bruck's
//! store-and-forward algorithm, throttled isend/irecv with scattered
//! partners, pairwise exchange, and (MPICH's MPI_IN_PLACE algorithm)
//! pairwise sendrecv_replace.
use super::select::{self, AlltoallAlgo, Coll, ALLTOALL_THROTTLE};
use super::{tag, Comm};
use crate::p2p::Link;
use std::ops::Range;

/// All-to-all of equal blocks: `recv` gets `p` blocks in rank order (block
/// j from rank j); `send` holds `p` blocks (block j for rank j), or is
/// `None` for MPI_IN_PLACE (the data is in `recv`).
pub fn alltoall<L: Link>(c: &mut Comm<L>, send: Option<&[u8]>, recv: &mut [u8]) {
    let block = recv.len() / c.size();
    let algo = select::forced(c.core.model(), Coll::Alltoall)
        .unwrap_or_else(|| select::alltoall(c.size(), block, send.is_none()));
    alltoall_with(c, send, recv, algo);
}

/// Runs `algo`; an in-place call forced to an algorithm that needs a
/// separate send buffer runs on a copy, and the in-place algorithm forced on
/// a call with a send buffer starts from a copy of it.
pub fn alltoall_with<L: Link>(
    c: &mut Comm<L>,
    send: Option<&[u8]>,
    recv: &mut [u8],
    algo: AlltoallAlgo,
) {
    if recv.is_empty() {
        return;
    }
    if algo == AlltoallAlgo::PairwiseSendrecvReplace {
        if let Some(s) = send {
            recv.copy_from_slice(s);
        }
        return pairwise_sendrecv_replace(c, recv);
    }
    let copy;
    let send = match send {
        Some(s) => s,
        None => {
            copy = recv.to_vec();
            &copy
        }
    };
    match algo {
        AlltoallAlgo::Bruck => bruck(c, send, recv),
        AlltoallAlgo::Scattered => scattered(c, send, recv),
        AlltoallAlgo::Pairwise => pairwise(c, send, recv),
        AlltoallAlgo::PairwiseSendrecvReplace => unreachable!(),
    }
}

/// Bruck: rotate my blocks up by my rank, then in step k send to rank + 2^k
/// (and receive from rank - 2^k) all blocks whose index has bit k set,
/// packed in one message; finally rotate and reverse into rank order.
pub fn bruck<L: Link>(c: &mut Comm<L>, send: &[u8], recv: &mut [u8]) {
    let (n, me) = (c.size(), c.me);
    let b = recv.len() / n;
    // Phase 1: recv block i = send block (me + i) mod p.
    recv[..(n - me) * b].copy_from_slice(&send[me * b..]);
    recv[(n - me) * b..].copy_from_slice(&send[..me * b]);
    let mut pof2 = 1;
    while pof2 < n {
        let dst = (me + pof2) % n;
        let src = (me + n - pof2) % n;
        let blocks: Vec<usize> = (1..n).filter(|k| k & pof2 != 0).collect();
        let mut packed = Vec::with_capacity(blocks.len() * b);
        for &k in &blocks {
            packed.extend_from_slice(&recv[k * b..(k + 1) * b]);
        }
        let v = c.sendrecv(&packed, dst, packed.len(), src, tag::ALLTOALL);
        for (i, &k) in blocks.iter().enumerate() {
            recv[k * b..(k + 1) * b].copy_from_slice(&v[i * b..(i + 1) * b]);
        }
        pof2 *= 2;
    }
    // Phase 3: block i now holds the data of rank (me - i) mod p.
    let tmp = recv.to_vec();
    for i in 0..n {
        let s = (me + n - i) % n;
        recv[s * b..(s + 1) * b].copy_from_slice(&tmp[i * b..(i + 1) * b]);
    }
}

/// Isend/irecv in rounds of ALLTOALL_THROTTLE partners ([`rounds`]).
pub fn scattered<L: Link>(c: &mut Comm<L>, send: &[u8], recv: &mut [u8]) {
    let b = recv.len() / c.size();
    let block = |j: usize| j * b..(j + 1) * b;
    rounds(c, send, block, recv, block, tag::ALLTOALL);
}

/// The isend/irecv schedule of MPICH's Alltoall and Alltoallv: in rounds of
/// ALLTOALL_THROTTLE partners, round ii posts receives from rank+ii+i and
/// then sends to rank-ii-i (i < throttle), skipping empty blocks, and waits
/// for all of them. `send[srange(j)]` goes to rank j; what rank j sends
/// lands in `recv[rrange(j)]`.
pub(crate) fn rounds<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    srange: impl Fn(usize) -> Range<usize>,
    recv: &mut [u8],
    rrange: impl Fn(usize) -> Range<usize>,
    tag: i32,
) {
    let (n, me) = (c.size(), c.me);
    let bblock = if ALLTOALL_THROTTLE == 0 {
        n
    } else {
        ALLTOALL_THROTTLE
    };
    let mut ii = 0;
    while ii < n {
        let ss = (n - ii).min(bblock);
        let mut srcs = Vec::new();
        let mut rreqs = Vec::new();
        for i in 0..ss {
            let src = (me + i + ii) % n;
            let r = rrange(src);
            if !r.is_empty() {
                rreqs.push(c.irecv(r.len(), src, tag));
                srcs.push(src);
            }
        }
        let mut sreqs = Vec::new();
        for i in 0..ss {
            let dst = (me + n - i - ii) % n;
            let r = srange(dst);
            if !r.is_empty() {
                sreqs.push(c.isend(&send[r], dst, tag));
            }
        }
        let data = c.wait_all(&sreqs, &rreqs, tag);
        for (s, v) in srcs.into_iter().zip(data) {
            let at = rrange(s).start;
            recv[at..at + v.len()].copy_from_slice(&v);
        }
        ii += bblock;
    }
}

/// Pairwise exchange: p-1 sendrecv steps, with partner rank ^ i when p is a
/// power of two, else sending to rank+i and receiving from rank-i.
pub fn pairwise<L: Link>(c: &mut Comm<L>, send: &[u8], recv: &mut [u8]) {
    let (n, me) = (c.size(), c.me);
    let b = recv.len() / n;
    recv[me * b..(me + 1) * b].copy_from_slice(&send[me * b..(me + 1) * b]);
    let pof2 = n.is_power_of_two();
    for i in 1..n {
        let (src, dst) = if pof2 {
            (me ^ i, me ^ i)
        } else {
            ((me + n - i) % n, (me + i) % n)
        };
        let v = c.sendrecv(&send[dst * b..(dst + 1) * b], dst, b, src, tag::ALLTOALL);
        recv[src * b..src * b + v.len()].copy_from_slice(&v);
    }
}

/// MPI_IN_PLACE: for every pair i <= j in order, ranks i and j swap the
/// blocks meant for each other with sendrecv_replace (i == j: with itself).
pub fn pairwise_sendrecv_replace<L: Link>(c: &mut Comm<L>, buf: &mut [u8]) {
    let n = c.size();
    let b = buf.len() / n;
    sendrecv_replace_pairs(c, buf, |j| j * b..(j + 1) * b, tag::ALLTOALL);
}

/// The schedule of MPICH's in-place alltoall(v): `range(j)` is the part of
/// `buf` exchanged with rank j.
pub(crate) fn sendrecv_replace_pairs<L: Link>(
    c: &mut Comm<L>,
    buf: &mut [u8],
    range: impl Fn(usize) -> std::ops::Range<usize>,
    tag: i32,
) {
    let (n, me) = (c.size(), c.me);
    for i in 0..n {
        for j in i..n {
            let peer = if me == i {
                j
            } else if me == j {
                i
            } else {
                continue;
            };
            let r = range(peer);
            // MPIC_Sendrecv_replace: copy out, receive in place.
            let v = c.sendrecv(&buf[r.clone()], peer, r.len(), peer, tag);
            buf[r.start..r.start + v.len()].copy_from_slice(&v);
        }
    }
}
