//! MPI_Isendrecv / MPI_Isendrecv_replace (MPI-4): the send and the receive
//! start as MPI_Isend and MPI_Irecv would, in that order, at the call's
//! virtual time; the one request (`ReqState::Pair`) completes when both
//! have, at the later of their two completion times, with the receive's
//! status.
use crate::mpi::backend::Backend;
use crate::mpi::error::MpiResult;
use crate::mpi::request::{Req, ReqState};
use crate::mpi::state::{RecvArgs, RecvTarget, SendArgs, SendPayload, World};
use crate::p2p::SendMode;

impl<E: Backend> World<E> {
    /// Start both halves; the request is not in the table.
    pub fn isendrecv(
        &mut self,
        sa: &SendArgs,
        sp: SendPayload<E::SendBuf>,
        ra: &RecvArgs,
        rt: RecvTarget<E::RecvBuf>,
    ) -> MpiResult<Req> {
        let sreq = self.start_send(sa, sp, SendMode::Standard)?;
        let mut rreq = self.start_recv(ra, rt);
        rreq.keep = sreq.keep;
        rreq.state = match (sreq.state, rreq.state) {
            (ReqState::Active(s), ReqState::Active(r)) => ReqState::Pair(s, r),
            // a null-process receive: the send alone (its status is a
            // send's: source MPI_ANY_SOURCE, not MPI_PROC_NULL)
            (ReqState::Active(s), ReqState::Done(_)) => {
                rreq.kind = crate::mpi::request::Kind::Send;
                ReqState::Active(s)
            }
            (_, r) => r,
        };
        Ok(rreq)
    }
}
