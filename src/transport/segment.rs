//! The job's shared-memory segment: header, per-rank published slots, inboxes.

use std::io;

/// Sizes fixed when the launcher creates the segment.
#[derive(Debug, Clone, Copy)]
pub struct SegmentConfig {
    pub nranks: u32,
    /// At most this many ranks run application code at once (core tokens).
    pub cores: u32,
    /// Bytes of each rank's inbox ring.
    pub inbox_bytes: u32,
}

/// What a rank is doing, as published for the launcher and for conservative
/// decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum RankState {
    Unstarted = 0,
    Running = 1,
    Blocked = 2,
    Finalized = 3,
    Aborted = 4,
}

/// Figures a rank leaves in its slot at MPI_Finalize (all in ps or ns).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RankResult {
    pub vtime_ps: u64,
    pub compute_ps: u64,
    pub comm_ps: u64,
    pub wait_ps: u64,
    pub host_cpu_ns: u64,
    pub msgs_sent: u64,
    pub bytes_sent: u64,
}

/// A rank's published slot in the segment (atomics only).
pub struct RankSlot {}

impl RankSlot {
    pub fn set_pid(&self, _pid: u32) {
        todo!()
    }
    pub fn pid(&self) -> u32 {
        todo!()
    }
    pub fn set_state(&self, _s: RankState) {
        todo!()
    }
    pub fn state(&self) -> RankState {
        todo!()
    }
    pub fn publish_vtime(&self, _ps: u64) {
        todo!()
    }
    pub fn vtime(&self) -> u64 {
        todo!()
    }
    /// Record that the rank called MPI_Abort (or a fatal MPI error) with `code`.
    pub fn set_abort(&self, _code: i32) {
        todo!()
    }
    pub fn set_abort_message(&self, _msg: &str) {
        todo!()
    }
    pub fn abort_message(&self) -> String {
        todo!()
    }
    pub fn abort_code(&self) -> Option<i32> {
        todo!()
    }
    pub fn store_result(&self, _r: &RankResult) {
        todo!()
    }
    pub fn result(&self) -> RankResult {
        todo!()
    }
}

/// The mapped segment.
pub struct Segment {}

impl Segment {
    pub fn create(_name: &str, _cfg: &SegmentConfig) -> io::Result<Segment> {
        todo!()
    }
    pub fn attach(_name: &str) -> io::Result<Segment> {
        todo!()
    }
    pub fn unlink(_name: &str) -> io::Result<()> {
        todo!()
    }
    pub fn name(&self) -> &str {
        todo!()
    }
    pub fn nranks(&self) -> u32 {
        todo!()
    }
    pub fn cores(&self) -> u32 {
        todo!()
    }
    pub fn slot(&self, _rank: u32) -> &RankSlot {
        todo!()
    }
}
