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

#[cfg(test)]
mod contention_tests;
pub mod core;
pub mod decide;
pub mod endpoint;
pub mod flows;
pub mod horizon;
pub mod link;
pub mod memlink;
pub mod record;
pub mod request;
#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;

pub use self::core::{Active, Core, Poll, Progress, Reply, ACTIVE_CTX_BIT};
pub use endpoint::{Endpoint, PortLink};
pub use link::Link;
/// A request, valid until `free`d.
pub use request::ReqId;

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
