//! What the point-to-point engine needs from the host below it. The real
//! implementation is the shared-memory transport ([`crate::p2p::PortLink`]);
//! tests plug in an in-process one.
use crate::model::VTime;

pub trait Link {
    fn rank(&self) -> u32;
    fn size(&self) -> u32;
    /// Largest record `send` accepts.
    fn max_record(&self) -> usize;
    /// Deliver one record (the concatenation of `parts`) to `dest`.
    fn send(&mut self, dest: u32, parts: &[&[u8]]);
    /// Next incoming record, in per-sender order; false if none now.
    fn try_recv(&mut self, out: &mut Vec<u8>) -> bool;
    /// Sleep until a record is there.
    fn wait_incoming(&mut self);
    /// This thread's CPU time in nanoseconds.
    fn cpu_now_ns(&self) -> u64;
    /// Our process id if peers may pull from our memory (single copy).
    fn pull_pid(&self) -> Option<u32>;
    /// Copy `dst.len()` bytes from `addr` in process `pid`.
    fn pull(&mut self, pid: u32, addr: u64, dst: &mut [u8]) -> Result<(), String>;
    /// Publish our virtual time for observers.
    fn publish_vtime(&self, t: VTime);
    /// Let another rank run application code (a poll found nothing).
    fn yield_core(&mut self);
}
