//! MPI_Request_get_status: whether a request is complete, and its status,
//! without freeing or deactivating it. It is a zero-length wait (as
//! MPI_Test) on the p2p requests behind the handle; a complete non-contiguous
//! receive is unpacked into the user's buffer here (the data is there from
//! the moment the call says the request is complete).
use crate::mpi::backend::Backend;
use crate::mpi::request::ReqState;
use crate::mpi::state::{Completion, World};
use crate::mpi::status::empty_status;
use crate::mpi::MpiResult;
use crate::sys::{self, MPI_Request};

impl<E: Backend> World<E> {
    /// MPI_Request_get_status: None when not complete.
    pub fn request_get_status(&mut self, h: MPI_Request) -> MpiResult<Option<Completion>> {
        if h == sys::MPI_REQUEST_NULL {
            return Ok(Some(Completion {
                status: empty_status(),
                error: None,
            }));
        }
        let state = self.reqs.get(h)?.state;
        let (ids, main) = match state {
            ReqState::Done(st) => {
                return Ok(Some(Completion {
                    status: st,
                    error: None,
                }))
            }
            ReqState::Inactive => {
                return Ok(Some(Completion {
                    status: empty_status(),
                    error: None,
                }))
            }
            ReqState::Parts => {
                self.ep.test(&[]);
                return Ok(None);
            }
            ReqState::Greq(g) => {
                let r = self.greqs.get(g);
                if !r.complete {
                    self.ep.test(&[]);
                    return Ok(None);
                }
                let (status, _) = r.queried.unwrap_or((empty_status(), sys::MPI_SUCCESS));
                return Ok(Some(Completion {
                    status,
                    error: None,
                }));
            }
            ReqState::Active(id) => (vec![id], id),
            ReqState::Pair(s, r) => (vec![s, r], r),
        };
        if self.ep.test(&ids).len() < ids.len() {
            return Ok(None);
        }
        if let Some(stg) = self.reqs.get_mut(h)?.staging.take() {
            let n = (self.ep.status(main).bytes as usize).min(stg.tmp.len());
            (stg.deliver)(&stg.tmp[..n]);
        }
        Ok(Some(self.p2p_completion(self.reqs.get(h)?, main)))
    }
}
