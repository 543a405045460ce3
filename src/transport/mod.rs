//! Host transport: the job's shared-memory segment, per-rank inboxes with futex
//! doorbells, single-copy large transfers, core tokens, and the per-rank state
//! each rank publishes for the launcher.
//!
//! API contract (the p2p layer and the launcher rely on exactly this):
//! * [`Segment`]: `create(name, &SegmentConfig)` by the launcher, `attach(name)` by
//!   a rank, `unlink(name)`; `slot(rank)` gives the rank's published [`RankSlot`].
//! * [`Port`]: a rank's endpoint. `send(dest, parts)` appends one record (the
//!   concatenation of `parts`, at most `max_record()` bytes) to `dest`'s inbox and
//!   rings its doorbell; on a full inbox it moves its own incoming records to a
//!   private overflow queue and sleeps until space is freed (never deadlocks).
//!   `try_recv(out)` pops the next record (overflow first); `wait_incoming()`
//!   sleeps on the doorbell until a record is there, giving the core token back
//!   while asleep. `acquire_token` / `release_token` / `yield_token` manage the
//!   core token (FIFO hand-over, at most `cores` holders).
//! * [`cma::pull`]: single-copy read of another rank's memory
//!   (`process_vm_readv`); [`spill`]: the shared-memory fallback.
//! * [`SendBuf`] / [`RecvBuf`]: user buffers handed down from the ABI.

pub mod buf;
pub mod cma;
pub mod cputime;
pub mod process;
pub mod segment;
pub mod spill;

pub use buf::{RecvBuf, SendBuf};
pub use segment::{RankResult, RankSlot, RankState, Segment, SegmentConfig};

/// A rank's endpoint on the job's segment.
pub struct Port {
    seg: Segment,
    rank: u32,
}

impl Port {
    pub fn new(seg: Segment, rank: u32) -> Port {
        Port { seg, rank }
    }
    pub fn rank(&self) -> u32 {
        self.rank
    }
    pub fn segment(&self) -> &Segment {
        &self.seg
    }
    /// Largest record `send` accepts.
    pub fn max_record(&self) -> usize {
        todo!()
    }
    /// Append one record (concatenation of `parts`) to `dest`'s inbox.
    pub fn send(&mut self, _dest: u32, _parts: &[&[u8]]) {
        todo!()
    }
    /// Pop the next incoming record into `out` (cleared first); false if none.
    pub fn try_recv(&mut self, _out: &mut Vec<u8>) -> bool {
        todo!()
    }
    /// Sleep until a record can be received (token released while asleep).
    pub fn wait_incoming(&mut self) {
        todo!()
    }
    pub fn acquire_token(&mut self) {
        todo!()
    }
    pub fn release_token(&mut self) {
        todo!()
    }
    /// Give the token to the next waiting rank, if any, and queue for it again.
    pub fn yield_token(&mut self) {
        todo!()
    }
}
