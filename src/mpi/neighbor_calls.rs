//! The MPI semantics of the neighbourhood collectives on top of
//! `crate::coll::neighbor`: the neighbours of the communicator's topology
//! (`mpi::graph::neighbors`, MPICH's canonical order), user buffers packed
//! per block, received blocks unpacked (blocks from MPI_PROC_NULL left as
//! they are). Arguments are checked by the ABI layer.
use crate::coll::{self, neighbor};
use crate::mpi::coll_args::{Block, CollComm, UserBuf};
use crate::mpi::graph::Neighbors;
use crate::p2p::{Core, Link};

/// The neighbour lists as communicator ranks for `crate::coll`.
fn ranks(v: &[Option<u32>]) -> Vec<Option<usize>> {
    v.iter().map(|r| r.map(|r| r as usize)).collect()
}

/// A neighbourhood collective: `sblocks[k]` of `send` goes to destination
/// k, source l's data lands in `rblocks[l]`; `reverse` for
/// MPI_Neighbor_alltoall's receive order.
#[allow(clippy::too_many_arguments)]
pub fn neighbor_exchange<L: Link>(
    core: &mut Core<L>,
    cc: &CollComm,
    nb: &Neighbors,
    send: &dyn UserBuf,
    sblocks: &[Block],
    recv: &mut dyn UserBuf,
    rblocks: &[Block],
    reverse: bool,
) {
    let (srcs, dsts) = (ranks(&nb.0), ranks(&nb.1));
    let sends: Vec<Vec<u8>> = sblocks
        .iter()
        .map(|b| send.pack(std::slice::from_ref(b)))
        .collect();
    let bytes: Vec<usize> = rblocks.iter().map(Block::bytes).collect();
    let mut c = coll::Comm {
        core,
        ranks: &cc.ranks,
        me: cc.me,
        ctx: cc.ctx,
    };
    let got = neighbor::exchange(&mut c, &dsts, sends, &srcs, &bytes, reverse);
    for (b, d) in rblocks.iter().zip(got) {
        if let Some(d) = d {
            recv.unpack(std::slice::from_ref(b), &d);
        }
    }
}
