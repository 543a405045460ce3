//! What the supervisor reads about each rank while it runs: whether it reached
//! MPI_Finalize and whether it recorded an abort (and, in the many-ranks
//! mode, which rank a host process runs). The job's segment is the real
//! board; tests use stand-ins so supervision can be checked with plain programs.

use crate::transport::{RankState, Segment};

/// An abort recorded by a rank (MPI_Abort or a fatal MPI error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abort {
    pub code: i32,
    pub message: Option<String>,
}

/// Per-rank state published for the launcher.
pub trait RankBoard {
    /// Did `rank` complete MPI_Finalize?
    fn finalized(&self, rank: u32) -> bool;
    /// Has `rank` recorded an abort?
    fn abort(&self, rank: u32) -> Option<Abort>;
    /// For the progress line: whether `rank` finished, and its virtual time
    /// (ps) as last published.
    fn clock(&self, rank: u32) -> (bool, u64) {
        (self.finalized(rank), 0)
    }
    /// The many-ranks mode: the rank the host process whose first rank is
    /// `first` runs now, as it last published it (`None`: none, or not a
    /// host).
    fn host_running(&self, first: u32) -> Option<u32> {
        let _ = first;
        None
    }
    /// Did `rank` join the job (reach MPI_Init's end)? A board that does not
    /// know says yes.
    fn joined(&self, rank: u32) -> bool {
        let _ = rank;
        true
    }
    /// The fatal signal `rank` recorded receiving, and its pid (a rank
    /// whose parent is another launcher's: `transport::fatal`).
    fn signaled(&self, rank: u32) -> Option<(u32, i32)> {
        let _ = rank;
        None
    }
}

impl RankBoard for Segment {
    fn finalized(&self, rank: u32) -> bool {
        self.slot(rank).state() == RankState::Finalized
    }
    fn joined(&self, rank: u32) -> bool {
        self.slot(rank).state() != RankState::Unstarted
    }
    fn abort(&self, rank: u32) -> Option<Abort> {
        let slot = self.slot(rank);
        slot.abort_code().map(|code| Abort {
            code,
            message: Some(slot.abort_message()).filter(|m| !m.is_empty()),
        })
    }
    fn clock(&self, rank: u32) -> (bool, u64) {
        let slot = self.slot(rank);
        (slot.state() == RankState::Finalized, slot.vtime())
    }
    fn host_running(&self, first: u32) -> Option<u32> {
        self.slot(first).host_current()
    }
    fn signaled(&self, rank: u32) -> Option<(u32, i32)> {
        let slot = self.slot(rank);
        slot.signal().map(|sig| (slot.pid(), sig))
    }
}

/// The lowest rank below `nranks` that recorded an abort.
pub fn first_abort(board: &dyn RankBoard, nranks: u32) -> Option<(u32, Abort)> {
    (0..nranks).find_map(|r| board.abort(r).map(|a| (r, a)))
}
