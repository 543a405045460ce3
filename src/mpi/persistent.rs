//! Persistent requests (MPI_Send_init / Bsend_init / Ssend_init /
//! Rsend_init / Recv_init, the MPI-4 persistent collectives MPI_X_init,
//! MPI_Start / MPI_Startall): a template per handle
//! that each Start turns into the send or receive MPI_Isend / MPI_Irecv
//! would start at that moment (same starting phase, same virtual time). The
//! handle stays in the request table: inactive (`ReqState::Inactive`, which
//! the Wait / Test families treat like MPI_REQUEST_NULL: complete at once
//! with an empty status) until started, active while the communication is in
//! flight, inactive again once a Wait / Test completes it. MPI_Request_free
//! drops the template: an active one then completes in the background.
//! Partitioned requests (`mpi::partitioned`) are persistent requests too.
//! A collective's template is the call that starts its nonblocking twin
//! (made by the ABI layer, which runs it with the state lock released and
//! hands the started request over with [`World::adopt_started`]).
use crate::mpi::backend::Backend;
use crate::mpi::comm::Group;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::partitioned::Partitions;
use crate::mpi::request::{Kind, Req, ReqState};
use crate::mpi::state::{RecvArgs, RecvTarget, SendArgs, SendPayload, World};
use crate::p2p::SendMode;
use crate::sys::{self, MPI_Comm, MPI_Request};
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::Arc;

/// What a Start builds the payload from (the user's buffer, read at Start).
pub type MakePayload<B> = Box<dyn Fn() -> SendPayload<B>>;
/// What a Start builds the receive target from.
pub type MakeTarget<B> = Box<dyn Fn() -> RecvTarget<B>>;
/// A persistent collective's Start: the nonblocking collective call (its
/// return code; the request it started written through the pointer).
pub type Starter = Arc<dyn Fn(*mut MPI_Request) -> c_int + Send + Sync>;

pub enum Template<E: Backend> {
    Send {
        args: SendArgs,
        mode: SendMode,
        payload: MakePayload<E::SendBuf>,
    },
    Recv {
        args: RecvArgs,
        target: MakeTarget<E::RecvBuf>,
    },
    Coll {
        comm: MPI_Comm,
        group: Arc<Group>,
        starter: Starter,
    },
    /// A partitioned send (see `mpi::partitioned`): the whole buffer's
    /// arguments, and which partitions the current Start has seen ready.
    PSend {
        args: SendArgs,
        payload: MakePayload<E::SendBuf>,
        parts: Partitions,
    },
    /// A partitioned receive: the whole buffer's arguments.
    PRecv {
        args: RecvArgs,
        target: MakeTarget<E::RecvBuf>,
        partitions: usize,
    },
}

/// Persistent request handle -> its template.
pub struct Templates<E: Backend> {
    pub(crate) map: HashMap<MPI_Request, Template<E>>,
}

impl<E: Backend> Default for Templates<E> {
    fn default() -> Self {
        Templates {
            map: HashMap::new(),
        }
    }
}

impl<E: Backend> Templates<E> {
    /// The inactive table entry of persistent request `h` (None: `h` is not
    /// persistent).
    pub fn inactive(&self, h: MPI_Request) -> Option<Req> {
        self.map.get(&h).map(idle)
    }

    pub fn is_persistent(&self, h: MPI_Request) -> bool {
        self.map.contains_key(&h)
    }

    /// `h` is freed: it is no longer persistent.
    pub fn forget(&mut self, h: MPI_Request) {
        self.map.remove(&h);
    }
}

/// The table entry of a persistent request that is not started.
fn idle<E: Backend>(t: &Template<E>) -> Req {
    let (kind, comm, group) = match t {
        Template::Send { args, .. } | Template::PSend { args, .. } => {
            (Kind::Send, args.comm, args.group.clone())
        }
        Template::Recv { args, .. } | Template::PRecv { args, .. } => {
            (Kind::Recv, args.comm, args.group.clone())
        }
        Template::Coll { comm, group, .. } => (Kind::Coll, *comm, group.clone()),
    };
    Req {
        kind,
        comm,
        group,
        state: ReqState::Inactive,
        keep: None,
        staging: None,
        capacity: 0,
    }
}

impl<E: Backend> World<E> {
    pub(crate) fn persistent(&mut self, t: Template<E>) -> MPI_Request {
        let h = self.reqs.insert(idle(&t));
        self.persist.map.insert(h, t);
        h
    }

    /// MPI_Send_init and the other modes: an inactive persistent send.
    pub fn send_init(
        &mut self,
        args: SendArgs,
        mode: SendMode,
        payload: MakePayload<E::SendBuf>,
    ) -> MPI_Request {
        self.persistent(Template::Send {
            args,
            mode,
            payload,
        })
    }

    /// MPI_Recv_init: an inactive persistent receive.
    pub fn recv_init(&mut self, args: RecvArgs, target: MakeTarget<E::RecvBuf>) -> MPI_Request {
        self.persistent(Template::Recv { args, target })
    }

    /// MPI_X_init of a collective on `comm`: an inactive persistent
    /// request whose Starts run `starter`.
    pub fn coll_init(&mut self, comm: MPI_Comm, starter: Starter) -> MpiResult<MPI_Request> {
        let group = self.comms.get(comm)?.group.clone();
        Ok(self.persistent(Template::Coll {
            comm,
            group,
            starter,
        }))
    }

    /// The Start of `h` if it is an inactive persistent collective (None
    /// for another persistent request; an error if `h` cannot be started).
    pub fn coll_starter(&self, h: MPI_Request) -> MpiResult<Option<Starter>> {
        self.startable(h)?;
        Ok(match self.persist.map.get(&h) {
            Some(Template::Coll { starter, .. }) => Some(starter.clone()),
            _ => None,
        })
    }

    /// The request `started` (made by a persistent collective's Start)
    /// becomes the active state of `h`; `started` is gone.
    pub fn adopt_started(&mut self, h: MPI_Request, started: MPI_Request) -> MpiResult<()> {
        let req = self.reqs.remove(started)?;
        *self.reqs.get_mut(h)? = req;
        Ok(())
    }

    /// Check that `h` is an inactive persistent request.
    fn startable(&self, h: MPI_Request) -> MpiResult<()> {
        let r = self.reqs.get(h)?;
        if !self.persist.is_persistent(h) {
            return fail(
                sys::MPI_ERR_REQUEST,
                format!("request {h:#x} is not a persistent request"),
            );
        }
        if !matches!(r.state, ReqState::Inactive) {
            return fail(
                sys::MPI_ERR_REQUEST,
                format!(
                    "persistent request {h:#x} is active already (complete it with \
                     MPI_Wait or MPI_Test before starting it again)"
                ),
            );
        }
        Ok(())
    }

    /// MPI_Start: what MPI_Isend / MPI_Irecv would do now.
    pub fn start(&mut self, h: MPI_Request) -> MpiResult<()> {
        self.startable(h)?;
        let req = match self.persist.map.get(&h).expect("persistent") {
            Template::Send {
                args,
                mode,
                payload,
            } => {
                let (args, mode, p) = (args.clone(), *mode, payload());
                self.start_send(&args, p, mode)?
            }
            Template::Recv { args, target } | Template::PRecv { args, target, .. } => {
                let (args, t) = (args.clone(), target());
                self.start_recv(&args, t)
            }
            Template::PSend { .. } => return self.start_psend(h),
            Template::Coll { .. } => {
                return fail(
                    sys::MPI_ERR_INTERN,
                    "a persistent collective is started through its nonblocking call",
                )
            }
        };
        *self.reqs.get_mut(h)? = req;
        Ok(())
    }

    /// MPI_Startall's checks: every request startable, none twice.
    pub fn start_all_check(&self, hs: &[MPI_Request]) -> MpiResult<()> {
        for (i, &h) in hs.iter().enumerate() {
            if hs[..i].contains(&h) {
                return fail(
                    sys::MPI_ERR_REQUEST,
                    format!("array_of_requests[{i}]: request {h:#x} appears twice"),
                );
            }
            self.startable(h).map_err(|mut e| {
                e.msg = format!("array_of_requests[{i}]: {}", e.msg);
                e
            })?;
        }
        Ok(())
    }

    /// MPI_Startall: every request is checked first, then started in order.
    pub fn start_all(&mut self, hs: &[MPI_Request]) -> MpiResult<()> {
        self.start_all_check(hs)?;
        for &h in hs {
            self.start(h)?;
        }
        Ok(())
    }
}
