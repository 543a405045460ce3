//! The nonblocking neighbourhood collectives (MPI_Ineighbor_allgather(v),
//! MPI_Ineighbor_alltoall(v,w)) as MPICH 4.0.2 runs them by default
//! (`*_allcomm_sched_linear`): a one-round schedule with the sends and
//! receives of the blocking forms (`coll::neighbor`: a send of its block
//! to each out-neighbour, a receive from each in-neighbour, in reverse
//! order for Ineighbor_alltoall; nothing for MPI_PROC_NULL neighbours).
//! The round starts in the call, as every first round of
//! `coll::nonblocking` does (its receives posted, then its sends started
//! one after the other); the received blocks are unpacked when the request
//! completes.
use crate::coll::nonblocking::{at, NbcComm, Schedule, Xfer};
use crate::mpi::coll_args::{Block, CollComm, UserBuf};
use crate::mpi::graph::Neighbors;
use crate::mpi::icoll_calls::OutBuf;

/// The schedule of a nonblocking neighbourhood collective: `sblocks[k]`
/// of `send` (packed now) goes to out-neighbour k, in-neighbour l's data
/// lands in `rblocks[l]` of `recv` when the request completes.
#[allow(clippy::too_many_arguments)]
pub fn ineighbor(
    cc: &CollComm,
    tag: i32,
    nb: &Neighbors,
    name: &'static str,
    send: &dyn UserBuf,
    sblocks: &[Block],
    mut recv: OutBuf,
    rblocks: Vec<Block>,
    reverse: bool,
) -> Schedule {
    let c = NbcComm {
        ranks: &cc.ranks,
        me: cc.me,
        ctx: cc.ctx,
        tag,
    };
    let out = send.pack(sblocks);
    let slen: Vec<usize> = sblocks.iter().map(Block::bytes).collect();
    let rlen: Vec<usize> = rblocks.iter().map(Block::bytes).collect();
    let roff: Vec<usize> = rlen
        .iter()
        .scan(0, |a, &l| {
            let o = *a;
            *a += l;
            Some(o)
        })
        .collect();
    let total: usize = rlen.iter().sum();
    let mut xfers = Vec::new();
    let mut off = 0;
    for (k, dst) in nb.1.iter().enumerate() {
        if let Some(d) = dst {
            xfers.push(Xfer::Send {
                from: at(0, off),
                len: slen[k],
                to: *d as usize,
            });
        }
        off += slen[k];
    }
    let order: Vec<usize> = if reverse {
        (0..nb.0.len()).rev().collect()
    } else {
        (0..nb.0.len()).collect()
    };
    for &l in &order {
        if let Some(s) = nb.0[l] {
            xfers.push(Xfer::Recv {
                into: at(1, roff[l]),
                len: rlen[l],
                from: s as usize,
            });
        }
    }
    let mut s = Schedule::new(&c, name, vec![out, vec![0; total]]);
    // a round even when empty: the request still completes through it
    s.round(xfers, Vec::new());
    let srcs = nb.0.clone();
    s.on_finish(Box::new(move |b| {
        for (l, blk) in rblocks.iter().enumerate() {
            if srcs[l].is_some() {
                recv.unpack(std::slice::from_ref(blk), &b[1][roff[l]..roff[l] + rlen[l]]);
            }
        }
    }));
    s
}
