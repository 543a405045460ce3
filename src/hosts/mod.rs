//! Several hosts: a job whose ranks run on more than one machine. Each
//! host has its own segment (a slot for every rank, see
//! `transport::remote`), and a bridge per host joins them: it forwards the
//! records local ranks send to remote ones, keeps the remote ranks' mirrors
//! up to date, and, with the other bridges, finds when the whole job is
//! quiescent (`detect`).
//!
//! Launching (vaced's MPICH only): the launcher opens a registry
//! (`registry`) and runs MPICH's launcher with the agent (`agent`) as its
//! remote shell; on each host the agent starts the host's side (`side`),
//! which sets up the host's segment and bridge and runs MPICH's proxy.
//!
//! Timing rules: none of its own. Records carry the arrival times their
//! senders computed, so a deterministic program's prediction is the same
//! on any number of hosts. A conservative decision reads the bounds of
//! remote ranks as their host last sent them, never higher than they were:
//! it may wait longer (a round trip between hosts), never decide
//! differently. A quiescence event costs two rounds of messages with host 0.

pub mod agent;
pub mod bridge;
pub mod detect;
pub mod frame;
pub mod placement;
pub mod registry;
pub mod side;
#[cfg(test)]
mod tests;
pub mod watch;

pub use bridge::{Bridge, Peer, Stats};
