//! MPI_Alltoallv (MPICH 3.2 alltoallv.c, MPIR_Alltoallv_intra): throttled
//! isend/irecv with scattered partners, skipping empty blocks; for
//! MPI_IN_PLACE pairwise sendrecv_replace. MPI_Alltoallw packs each block
//! and comes here.
use super::alltoall::{rounds, sendrecv_replace_pairs};
use super::select::{self, AlltoallvAlgo, Coll};
use super::{tag, Comm, Layout};
use crate::p2p::Link;

/// Variable all-to-all: rank j's block for me lands in `recv[rlayout.range(j)]`;
/// `send` is my data with the layout of my blocks for each rank, or `None`
/// for MPI_IN_PLACE (the data is in `recv`, laid out by `rlayout`).
pub fn alltoallv<L: Link>(
    c: &mut Comm<L>,
    send: Option<(&[u8], Layout)>,
    recv: &mut [u8],
    rlayout: Layout,
) {
    let algo = select::forced(c.core.model(), Coll::Alltoallv)
        .unwrap_or_else(|| select::alltoallv(send.is_none()));
    alltoallv_with(c, send, recv, rlayout, algo);
}

/// Runs `algo`; an in-place call forced to `scattered` runs on a copy, and
/// `pairwise_sendrecv_replace` forced on a call with a send buffer starts
/// from a copy of it (then the send and receive layouts must match).
pub fn alltoallv_with<L: Link>(
    c: &mut Comm<L>,
    send: Option<(&[u8], Layout)>,
    recv: &mut [u8],
    rlayout: Layout,
    algo: AlltoallvAlgo,
) {
    match algo {
        AlltoallvAlgo::Scattered => {
            let copy;
            let (sbuf, slayout) = match send {
                Some(s) => s,
                None => {
                    copy = recv.to_vec();
                    (&copy[..], rlayout)
                }
            };
            scattered(c, sbuf, slayout, recv, rlayout);
        }
        AlltoallvAlgo::PairwiseSendrecvReplace => {
            if let Some((sbuf, slayout)) = send {
                for j in 0..c.size() {
                    recv[rlayout.range(j)].copy_from_slice(&sbuf[slayout.range(j)]);
                }
            }
            pairwise_sendrecv_replace(c, recv, rlayout);
        }
    }
}

/// Rounds of ALLTOALL_THROTTLE partners as in Alltoall's isend/irecv
/// algorithm ([`rounds`]); receives and sends of empty blocks are not posted.
pub fn scattered<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    slayout: Layout,
    recv: &mut [u8],
    rlayout: Layout,
) {
    let (srange, rrange) = (|j| slayout.range(j), |j| rlayout.range(j));
    rounds(c, send, srange, recv, rrange, tag::ALLTOALLV);
}

/// MPI_IN_PLACE: MPICH's pairwise sendrecv_replace schedule.
pub fn pairwise_sendrecv_replace<L: Link>(c: &mut Comm<L>, buf: &mut [u8], layout: Layout) {
    sendrecv_replace_pairs(c, buf, |j| layout.range(j), tag::ALLTOALLV);
}
