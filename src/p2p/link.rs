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

    // ---- quiescence: the whole job idle, nothing in flight --------------

    /// Publish, before going idle, the arrival time of the earliest message
    /// in our early queue and what we wait for.
    fn publish_blocked(&self, early_min: Option<VTime>, waiting_on: &str);
    /// Count ourselves idle; true if the whole job is now quiescent (every
    /// rank idle or finalized, no record in flight).
    fn idle_begin(&mut self) -> bool;
    fn idle_end(&mut self);
    /// The earliest early-queued message of the job: (arrival, rank), ties to
    /// the lower rank. Read only while the job is quiescent.
    fn earliest_early(&self) -> Option<(VTime, u32)>;
    /// Every rank's published waiting-on text, `None` for finalized ranks.
    fn waiting_report(&self) -> Vec<Option<String>>;
    /// End the job: it can make no progress.
    fn deadlock(&mut self, report: &str) -> !;
}
