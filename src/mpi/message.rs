//! Matched probes: MPI_Mprobe / MPI_Improbe and MPI_Mrecv / MPI_Imrecv. A
//! probe decides exactly as MPI_Probe / MPI_Iprobe (the conservative
//! decisions for MPI_ANY_SOURCE and for the non-blocking form included);
//! the message it finds then leaves matching (p2p `take_matched`: no
//! receive can take it) and becomes an MPI_Message handle. MPI_Mrecv
//! receives it as a receive posted at the Mrecv would find it in the
//! unexpected queue: eager, complete after the copy out (M(b) after the
//! Mrecv starts); rendezvous, the ACK leaves at the Mrecv's time and the
//! receive completes when the DATA has arrived and been copied out.
//! Probing MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC, whose receive completes
//! at once with the null-process status.
use crate::mpi::backend::Backend;
use crate::mpi::comm::{Group, Source};
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::request::{Kind, Req, ReqState};
use crate::mpi::state::{RecvArgs, RecvTarget, World};
use crate::mpi::status::{make_status, proc_null_status};
use crate::sys::{self, MPI_Comm, MPI_Message, MPI_Status};
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::Arc;

/// A matched message: its p2p id and the communicator it was probed on.
struct Matched {
    id: usize,
    comm: MPI_Comm,
}

/// MPI_Message handle -> matched message.
#[derive(Default)]
pub struct Messages {
    map: HashMap<MPI_Message, Matched>,
    next: MPI_Message,
}

/// Handles are `FIRST + n`.
const FIRST: MPI_Message = sys::MPI_MESSAGE_NO_PROC + 1;

impl Messages {
    fn insert(&mut self, m: Matched) -> MPI_Message {
        let h = FIRST + self.next;
        self.next = (self.next + 1) % 0x00ff_ffff;
        self.map.insert(h, m);
        h
    }
}

fn probe_result(group: &Group, s: &crate::p2p::Status) -> MPI_Status {
    let src = u32::try_from(s.source)
        .ok()
        .and_then(|w| group.rank_of(w))
        .map_or(sys::MPI_UNDEFINED, |r| r as c_int);
    make_status(src, s.tag, sys::MPI_SUCCESS, s.bytes, false)
}

impl<E: Backend> World<E> {
    fn mprobe_args(
        &self,
        comm: MPI_Comm,
        source: c_int,
        tag: c_int,
    ) -> MpiResult<(Arc<Group>, u32, Source, Option<i32>)> {
        let c = self.comms.get(comm)?;
        let src = self.comms.source(comm, source)?;
        let tag = crate::mpi::comm::check_recv_tag(tag)?;
        Ok((c.peer_group().clone(), c.ctx, src, tag))
    }

    /// MPI_Mprobe.
    pub fn mprobe(
        &mut self,
        comm: MPI_Comm,
        source: c_int,
        tag: c_int,
    ) -> MpiResult<(MPI_Status, MPI_Message)> {
        let (group, ctx, src, tag) = self.mprobe_args(comm, source, tag)?;
        let src = match src {
            Source::ProcNull => return Ok((proc_null_status(), sys::MPI_MESSAGE_NO_PROC)),
            Source::Any => None,
            Source::Rank(w) => Some(w),
        };
        let (s, id) = self.ep.mprobe(src, tag, ctx);
        let h = self.messages.insert(Matched { id, comm });
        Ok((probe_result(&group, &s), h))
    }

    /// MPI_Improbe: None when no message matches now.
    pub fn improbe(
        &mut self,
        comm: MPI_Comm,
        source: c_int,
        tag: c_int,
    ) -> MpiResult<Option<(MPI_Status, MPI_Message)>> {
        let (group, ctx, src, tag) = self.mprobe_args(comm, source, tag)?;
        let src = match src {
            Source::ProcNull => return Ok(Some((proc_null_status(), sys::MPI_MESSAGE_NO_PROC))),
            Source::Any => None,
            Source::Rank(w) => Some(w),
        };
        Ok(self.ep.improbe(src, tag, ctx).map(|(s, id)| {
            let h = self.messages.insert(Matched { id, comm });
            (probe_result(&group, &s), h)
        }))
    }

    /// Check the arguments of MPI_Mrecv / MPI_Imrecv of `message`.
    pub fn mrecv_args(
        &self,
        message: MPI_Message,
        count: c_int,
        datatype: sys::MPI_Datatype,
        buf_is_null: bool,
    ) -> MpiResult<RecvArgs> {
        let (comm, source) = if message == sys::MPI_MESSAGE_NO_PROC {
            (sys::MPI_COMM_WORLD, sys::MPI_PROC_NULL)
        } else {
            match self.messages.map.get(&message) {
                Some(m) => (m.comm, sys::MPI_ANY_SOURCE),
                None if message == sys::MPI_MESSAGE_NULL => {
                    return fail(
                        sys::MPI_ERR_REQUEST,
                        "MPI_MESSAGE_NULL is not a matched message",
                    )
                }
                None => {
                    return fail(
                        sys::MPI_ERR_REQUEST,
                        format!(
                            "invalid message handle {message:#x} (not a message matched \
                             by MPI_Mprobe / MPI_Improbe, or received already)"
                        ),
                    )
                }
            }
        };
        self.recv_args(comm, count, datatype, source, sys::MPI_ANY_TAG, buf_is_null)
    }

    /// Start the receive of `message` (checked by `mrecv_args`); the
    /// handle is consumed (the caller sets it to MPI_MESSAGE_NULL).
    pub fn start_mrecv(
        &mut self,
        message: MPI_Message,
        a: &RecvArgs,
        t: RecvTarget<E::RecvBuf>,
    ) -> Req {
        let Some(m) = self.messages.map.remove(&message) else {
            // MPI_MESSAGE_NO_PROC: a null-process receive
            return self.start_recv(a, t);
        };
        let id = self.ep.mrecv(t.buf, m.id);
        Req {
            kind: Kind::Recv,
            comm: a.comm,
            group: a.group.clone(),
            state: ReqState::Active(id),
            keep: None,
            staging: t.staging,
            capacity: a.bytes,
        }
    }
}
