//! Point-to-point communication for one rank: matching (posted and unexpected
//! queues, non-overtaking order), the eager and rendezvous protocols, the early
//! queue and the waiting activity of Algorithm 2 with DealMessage (Algorithm 3).
//!
//! API contract for the `mpi` / `abi` layers (ranks are world ranks; a
//! communicator is a context id `ctx`; argument checking is done above):
//! * `Endpoint::from_env()` in MPI_Init (attaches to the job that `mpirun`
//!   set up, or runs as a singleton job of one rank).
//! * `enter()` / `leave()` around every MPI call: CPU time between calls is
//!   computation (scaled by `cpu.scale`), time inside the library is not.
//! * `isend` / `irecv` start a communication (the starting phase) and return a
//!   [`ReqId`]; `wait_all` / `wait_any` / `test` are waiting activities
//!   (Algorithm 2); `status`, `free`, `detach`, `cancel`, `probe`, `iprobe`.
//! * `compute(t)` adds virtual computation (MPIX_Vaced_compute).
//! * `finalize()` at MPI_Finalize; `abort(code)` ends the job.

use crate::model::{Model, VTime};
use crate::transport::{RecvBuf, SendBuf};

/// A request, valid until `free`d.
pub type ReqId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendMode {
    Standard,
    /// Completes only once the receive has matched (always rendezvous).
    Synchronous,
    Ready,
    /// The data is copied out at the start; the request completes at once.
    Buffered,
}

/// Outcome of a completed request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Status {
    /// World rank of the sender (receives), -1 otherwise.
    pub source: i32,
    pub tag: i32,
    /// Bytes received (or sent).
    pub bytes: u64,
    pub cancelled: bool,
    /// The message was longer than the receive buffer (only `bytes` = buffer
    /// length were stored).
    pub truncated: bool,
}

/// One rank's point-to-point engine, bound to the host transport.
pub struct Endpoint {}

impl Endpoint {
    pub fn from_env() -> Result<Endpoint, String> {
        todo!()
    }
    pub fn rank(&self) -> u32 {
        todo!()
    }
    pub fn size(&self) -> u32 {
        todo!()
    }
    pub fn model(&self) -> &Model {
        todo!()
    }
    pub fn enter(&mut self) {
        todo!()
    }
    pub fn leave(&mut self) {
        todo!()
    }
    /// Current virtual time (call between `enter` and `leave`).
    pub fn vtime(&self) -> VTime {
        todo!()
    }
    pub fn compute(&mut self, _t: VTime) {
        todo!()
    }
    pub fn isend(
        &mut self,
        _buf: SendBuf,
        _dest: u32,
        _tag: i32,
        _ctx: u32,
        _mode: SendMode,
    ) -> ReqId {
        todo!()
    }
    /// `src` / `tag` of `None` mean MPI_ANY_SOURCE / MPI_ANY_TAG.
    pub fn irecv(
        &mut self,
        _buf: RecvBuf,
        _src: Option<u32>,
        _tag: Option<i32>,
        _ctx: u32,
    ) -> ReqId {
        todo!()
    }
    /// Wait until every request is complete.
    pub fn wait_all(&mut self, _reqs: &[ReqId]) {
        todo!()
    }
    /// Wait until at least one is complete; returns the indices (into `reqs`)
    /// complete when the wait ends, earliest completion first.
    pub fn wait_any(&mut self, _reqs: &[ReqId]) -> Vec<usize> {
        todo!()
    }
    /// A zero-length wait: indices of the requests complete now.
    pub fn test(&mut self, _reqs: &[ReqId]) -> Vec<usize> {
        todo!()
    }
    pub fn status(&self, _r: ReqId) -> Status {
        todo!()
    }
    /// Release a completed request.
    pub fn free(&mut self, _r: ReqId) {
        todo!()
    }
    /// MPI_Request_free on an active request: it completes in the background.
    pub fn detach(&mut self, _r: ReqId) {
        todo!()
    }
    /// Cancel a receive that has not matched; true if it was cancelled.
    pub fn cancel(&mut self, _r: ReqId) -> bool {
        todo!()
    }
    /// Block until a matching message can be received; its status.
    pub fn probe(&mut self, _src: Option<u32>, _tag: Option<i32>, _ctx: u32) -> Status {
        todo!()
    }
    pub fn iprobe(&mut self, _src: Option<u32>, _tag: Option<i32>, _ctx: u32) -> Option<Status> {
        todo!()
    }
    /// MPI_Finalize: settle host-side obligations and publish the results.
    pub fn finalize(&mut self) {
        todo!()
    }
    /// End the whole job with `code` (MPI_Abort, fatal errors).
    pub fn abort(&mut self, _code: i32) -> ! {
        todo!()
    }
}
