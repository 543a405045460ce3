//! The MPI semantics of the nonblocking collective calls on top of
//! `crate::coll::nonblocking`: the user's send data packed when the call
//! starts (MPI forbids changing it before completion), the schedule run by
//! the engine as a compound request, the results unpacked into the user's
//! buffers when the schedule completes (inside the MPI call that completes
//! it). Arguments are checked before (see `coll_args`).
use crate::coll::nonblocking::{self as nbc, ibarrier, ibcast, NbcComm, Schedule};
use crate::mpi::coll_args::{CollComm, UserBuf};
use crate::mpi::coll_calls::Data;
use crate::mpi::error::MpiResult;
use crate::mpi::request::{Kind, Req, ReqState};
use crate::mpi::World;
use crate::p2p::Endpoint;
use crate::sys::{MPI_Comm, MPI_Request};

/// A user buffer the schedule writes when it completes.
pub type OutBuf = Box<dyn UserBuf>;

/// The tag of the next nonblocking collective on `comm`.
pub fn next_tag(w: &mut World<Endpoint>, comm: MPI_Comm) -> MpiResult<i32> {
    let c = w.comms.get_mut(comm)?;
    let seq = c.nbc_seq;
    c.nbc_seq = c.nbc_seq.wrapping_add(1);
    Ok(nbc::nbc_tag(seq))
}

fn nbc_comm(cc: &CollComm, tag: i32) -> NbcComm<'_> {
    NbcComm {
        ranks: &cc.ranks,
        me: cc.me,
        ctx: cc.ctx,
        tag,
    }
}

/// Start `s` on `comm`'s behalf: the request handle.
pub fn start(w: &mut World<Endpoint>, comm: MPI_Comm, s: Schedule) -> MpiResult<MPI_Request> {
    let group = w.comms.get(comm)?.group.clone();
    let id = s.start(&mut w.ep);
    Ok(w.reqs.insert(Req {
        kind: Kind::Coll,
        comm,
        group,
        state: ReqState::Active(id),
        keep: None,
        staging: None,
        capacity: 0,
    }))
}

pub fn ibarrier(cc: &CollComm, tag: i32) -> Schedule {
    ibarrier::ibarrier(&nbc_comm(cc, tag))
}

/// MPI_Ibcast: the root's data is packed now; the others' buffers are
/// written when the broadcast completes.
pub fn ibcast(cc: &CollComm, tag: i32, mut buf: OutBuf, d: Data, root: usize) -> Schedule {
    let blocks = d.ty_blocks();
    let data = if cc.me == root {
        buf.pack(&blocks)
    } else {
        vec![0; d.ty.packed_size(d.count)]
    };
    let mut s = ibcast::ibcast(&nbc_comm(cc, tag), data, root);
    if cc.me != root {
        s.on_finish(Box::new(move |b| buf.unpack(&blocks, &b[0])));
    }
    s
}
