//! Generalized requests (MPI_Grequest_start / MPI_Grequest_complete): a
//! request the program completes itself. Nothing moves in virtual time: a
//! generalized request is complete from the MPI_Grequest_complete call on.
//!
//! The program's callbacks may call MPI (a query function calls
//! MPI_Status_set_elements), so they never run here, under the state lock:
//! the ABI layer runs the query callback of every completed request a
//! Wait / Test / Request_get_status call names before that call (the status
//! it returns is stored here), and the free callbacks of the requests the
//! call finished after it (`due_free`). MPI_Cancel runs the cancel callback.
//!
//! vaced provides at most MPI_THREAD_SERIALIZED: while a Wait runs, no other
//! MPI call can run, so a Wait that needs a generalized request that is not
//! complete could never end: it fails with MPI_ERR_REQUEST instead.
use crate::mpi::error::MpiError;
use crate::mpi::state::Completion;
use crate::sys::{self, MPI_Status};
use std::os::raw::c_int;
use std::sync::Arc;

/// The program's callbacks (C or Fortran), run by the ABI layer.
pub trait Hooks {
    /// The query function: fills `st`, returns an MPI error code.
    fn query(&self, st: &mut MPI_Status) -> c_int;
    /// The free function.
    fn free(&self) -> c_int;
    /// The cancel function.
    fn cancel(&self, complete: bool) -> c_int;
}

pub struct Greq {
    pub hooks: Arc<dyn Hooks>,
    pub complete: bool,
    /// What the query callback returned (status, return code), once run.
    pub queried: Option<(MPI_Status, c_int)>,
}

#[derive(Default)]
pub struct Greqs {
    slots: Vec<Option<Greq>>,
    /// Free callbacks to run once the current call has finished.
    pub due_free: Vec<Arc<dyn Hooks>>,
}

impl Greqs {
    pub fn insert(&mut self, hooks: Arc<dyn Hooks>) -> usize {
        let g = Greq {
            hooks,
            complete: false,
            queried: None,
        };
        match self.slots.iter().position(Option::is_none) {
            Some(i) => {
                self.slots[i] = Some(g);
                i
            }
            None => {
                self.slots.push(Some(g));
                self.slots.len() - 1
            }
        }
    }

    pub fn get(&self, g: usize) -> &Greq {
        self.slots[g].as_ref().expect("live generalized request")
    }

    pub fn get_mut(&mut self, g: usize) -> &mut Greq {
        self.slots[g].as_mut().expect("live generalized request")
    }

    pub fn is_complete(&self, g: usize) -> bool {
        self.get(g).complete
    }

    /// A completed request is finished by a Wait / Test: its status is what
    /// the query callback returned; its free callback runs after the call.
    pub fn finish(&mut self, g: usize) -> Completion {
        let r = self.slots[g].take().expect("live generalized request");
        self.due_free.push(r.hooks);
        let (mut status, rc) = r.queried.unwrap_or_else(|| {
            // Not queried (no ABI pass before this call): an empty status.
            (crate::mpi::status::empty_status(), sys::MPI_SUCCESS)
        });
        if rc != sys::MPI_SUCCESS {
            status.MPI_ERROR = rc;
            return Completion {
                status,
                error: Some(MpiError::new(
                    rc,
                    format!("the query callback of a generalized request returned error code {rc}"),
                )),
            };
        }
        Completion {
            status,
            error: None,
        }
    }

    /// MPI_Request_free: the free callback runs after the call.
    pub fn release(&mut self, g: usize) {
        let r = self.slots[g].take().expect("live generalized request");
        self.due_free.push(r.hooks);
    }
}

impl<E: crate::mpi::backend::Backend> crate::mpi::World<E> {
    /// MPI_Grequest_start.
    pub fn grequest_start(&mut self, hooks: Arc<dyn Hooks>) -> MpiResultReq {
        let group = self.comms.get(sys::MPI_COMM_WORLD)?.group.clone();
        let g = self.greqs.insert(hooks);
        Ok(self.reqs.insert(crate::mpi::request::Req {
            kind: crate::mpi::request::Kind::Recv,
            comm: sys::MPI_COMM_WORLD,
            group,
            state: crate::mpi::request::ReqState::Greq(g),
            keep: None,
            staging: None,
            capacity: 0,
        }))
    }

    /// The generalized request behind handle `h`.
    pub(crate) fn greq_of(&self, h: sys::MPI_Request) -> crate::mpi::MpiResult<usize> {
        match self.reqs.get(h)?.state {
            crate::mpi::request::ReqState::Greq(g) => Ok(g),
            _ => crate::mpi::error::fail(
                sys::MPI_ERR_REQUEST,
                format!("request {h:#x} is not a generalized request"),
            ),
        }
    }

    /// MPI_Grequest_complete.
    pub fn grequest_complete(&mut self, h: sys::MPI_Request) -> crate::mpi::MpiResult<()> {
        let g = self.greq_of(h)?;
        let r = self.greqs.get_mut(g);
        if r.complete {
            return crate::mpi::error::fail(
                sys::MPI_ERR_REQUEST,
                format!("generalized request {h:#x} is complete already"),
            );
        }
        r.complete = true;
        Ok(())
    }

    /// The completed generalized requests among `hs` whose query callback
    /// has not run yet (the ABI runs them before a Wait / Test).
    pub fn greqs_to_query(&self, hs: &[sys::MPI_Request]) -> Vec<(usize, Arc<dyn Hooks>)> {
        let mut v: Vec<(usize, Arc<dyn Hooks>)> = Vec::new();
        for &h in hs {
            if let Ok(g) = self.greq_of(h) {
                let r = self.greqs.get(g);
                if r.complete && r.queried.is_none() && !v.iter().any(|(x, _)| *x == g) {
                    v.push((g, r.hooks.clone()));
                }
            }
        }
        v
    }

    /// The cancel callback of generalized request `h` and whether it is
    /// complete (None: `h` is not one).
    pub fn greq_cancel_hook(&self, h: sys::MPI_Request) -> Option<(Arc<dyn Hooks>, bool)> {
        let g = self.greq_of(h).ok()?;
        let r = self.greqs.get(g);
        Some((r.hooks.clone(), r.complete))
    }
}

type MpiResultReq = crate::mpi::MpiResult<sys::MPI_Request>;
