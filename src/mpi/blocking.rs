//! Blocking point-to-point calls that another thread of the rank may
//! interrupt (MPI_THREAD_MULTIPLE): their wait is *suspended* when the
//! engine yields (see `p2p::core::yielding`); the call then returns
//! [`suspended`] and the `abi` layer runs it again once it has let the
//! other thread in. What a call started before it was suspended (its
//! requests) is kept by the caller ([`Parked`]) and waited for again, so a
//! suspended call does nothing twice.
use crate::mpi::backend::Backend;
use crate::mpi::error::{MpiError, MpiResult};
use crate::mpi::request::{Req, ReqState};
use crate::mpi::state::{Completion, World};

/// The class of the internal error that unwinds a suspended call (never
/// returned to the program).
pub const SUSPENDED: i32 = -0x5e5;

/// The error a suspended call returns.
pub fn suspended() -> MpiError {
    MpiError::new(
        SUSPENDED,
        "suspended: another thread of the rank goes first",
    )
}

/// Whether `e` is [`suspended`].
pub fn is_suspended(e: &MpiError) -> bool {
    e.class == SUSPENDED
}

/// Requests a blocking call started before it was suspended.
pub type Parked = Option<Vec<Req>>;

impl<E: Backend> World<E> {
    /// Err([`suspended`]) if the engine's last wait was suspended.
    pub fn check_suspended(&self) -> MpiResult<()> {
        if self.ep.suspended() {
            Err(suspended())
        } else {
            Ok(())
        }
    }

    /// Wait for the requests `reqs` (started by a blocking call) and finish
    /// them; if the wait is suspended they go to `parked` and the result is
    /// Err([`suspended`]).
    pub fn wait_reqs(&mut self, reqs: Vec<Req>, parked: &mut Parked) -> MpiResult<Vec<Completion>> {
        let ids: Vec<_> = reqs
            .iter()
            .flat_map(|r| match r.state {
                ReqState::Active(id) => vec![id],
                ReqState::Pair(a, b) => vec![a, b],
                _ => vec![],
            })
            .collect();
        if !ids.is_empty() {
            self.ep.wait_all(&ids);
            if self.ep.suspended() {
                *parked = Some(reqs);
                return Err(suspended());
            }
        }
        Ok(reqs.into_iter().map(|r| self.finish(r)).collect())
    }

    /// MPI_Sendrecv's wait on its send and receive (`reqs`, in that order):
    /// the receive's completion, or the send's error.
    pub fn finish_sendrecv(
        &mut self,
        reqs: Vec<Req>,
        parked: &mut Parked,
    ) -> MpiResult<Completion> {
        let mut cs = self.wait_reqs(reqs, parked)?;
        let rc = cs.pop().expect("a receive");
        let sc = cs.pop().expect("a send");
        match sc.error {
            Some(e) => Err(e),
            None => Ok(rc),
        }
    }

    /// Whether a Wait on `hs` (`all`: MPI_Wait / MPI_Waitall; else
    /// MPI_Waitany / MPI_Waitsome, which wait only if nothing else can
    /// complete) waits for a generalized request that is not complete, or
    /// for a partitioned send whose partitions are not all ready.
    pub fn waits_for_greq(&self, hs: &[crate::sys::MPI_Request], all: bool) -> bool {
        let (mut open, mut other) = (false, false);
        for &h in hs {
            if h == crate::sys::MPI_REQUEST_NULL {
                continue;
            }
            match self.greq_of(h) {
                Ok(g) if !self.greqs.get(g).complete => open = true,
                _ if self.waits_for_partitions(h) => open = true,
                _ => other = true,
            }
        }
        if all {
            open
        } else {
            open && !other
        }
    }
}
