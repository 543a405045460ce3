//! Shared-memory windows: MPI_Win_allocate_shared, MPI_Win_shared_query,
//! and the operations on them, done directly in the shared memory by the
//! origin, as MPICH 4.0.2's ch3:nemesis does (`MPIDI_CH3I_Shm_put_op` and
//! friends in ch3u_rma_ops.c: on a window of flavor MPI_WIN_FLAVOR_SHARED
//! every operation, whatever its target, is a copy by the origin).
//!
//! * The members must all be on one target node (the node of
//!   MPI_Comm_split_type's MPI_COMM_TYPE_SHARED): otherwise
//!   MPI_ERR_RMA_SHARED (MPICH's CH3 shares memory within each node and
//!   leaves the others unreachable; vaced refuses, every member alike).
//! * Memory: one POSIX shared-memory object per window
//!   ([`crate::transport::winshm`]), created by the window's rank 0 and
//!   mapped by every member, so loads and stores of one rank are seen by
//!   the others (the program's own computation). Rank r's memory follows
//!   rank r-1's without a gap (MPICH's default); with the info key
//!   `alloc_shared_noncontig` = "true" (see `hints`) each rank's part starts on a
//!   4096-byte page boundary (as MPICH rounds up). The base address of a
//!   rank without memory is null (rank 0's excepted, as CH3). The object's name is
//!   removed when the window is freed, or by the launcher when the job
//!   dies.
//! * Creation timing: that of MPI_Win_create (the duplicate and the
//!   Allgather of the window table, which gives every rank the sizes), then
//!   a barrier once rank 0 has created the object (the others then map it).
//!   MPI_Win_free: its barrier, then rank 0 removes the name.
//! * Operations: a copy by the origin, timed as `b/Bmem` on the origin's
//!   clock, where `b` is what is copied: PUT, ACCUMULATE: the origin data;
//!   GET: the data read; GET_ACCUMULATE / Fetch_and_op: the data read plus
//!   the operand (none for MPI_NO_OP); COMPARE_AND_SWAP: two elements (the
//!   read and the compare-and-store). No packet moves, so the target's
//!   clock does not move. Accumulate-like operations take the window's
//!   accumulate lock (a futex in the object): they are atomic with respect
//!   to each other across processes. Request-based operations complete at
//!   the call. An operation that reads (GET, GET_ACCUMULATE, CAS) gives the
//!   host core to a waiting rank, as an MPI_Test that finds nothing does (a
//!   polling loop must not keep the rank it waits for off the cores).
//! * Synchronization follows CH3 for targets on the same node: MPI_Win_lock
//!   (without MPI_MODE_NOCHECK) waits for LOCK_GRANTED; MPI_Win_lock_all
//!   sends a shared LOCK to every member and waits for every grant; flush
//!   has nothing to wait for, unlock sends UNLOCK without asking for an ACK
//!   (no packet operation was issued); MPI_Win_start waits for the POSTs of
//!   its targets; fences and MPI_Win_complete count no operation.
use super::memory::WinMem;
use super::packet;
use super::window::{Access, Issue, NewWin};
use crate::mpi::agree::Agree;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::World;
use crate::sys::{self, MPI_Comm, MPI_Win};
use crate::transport::winshm::{self, WinShm};

/// Where each rank's part starts with `alloc_shared_noncontig`.
const PAGE: u64 = 4096;

/// The segment of a shared window, as this member maps it.
pub struct Shared {
    /// None: a mirror window (`crate::abi::engine_api`): another library
    /// shares the memory and moves the data; only the timing is done here.
    seg: Option<WinShm>,
    /// Offset of each window rank's memory in the segment.
    offs: Vec<usize>,
    owner: bool,
}

impl Shared {
    /// A mirror window's: no memory (see [`Shared::seg`]).
    pub(crate) fn phantom(ranks: usize) -> Shared {
        Shared {
            seg: None,
            offs: vec![0; ranks],
            owner: false,
        }
    }

    /// MPI_Win_free (after its barrier): rank 0 removes the object's name.
    pub fn remove_name(&self) {
        if let (true, Some(seg)) = (self.owner, &self.seg) {
            let _ = seg.unlink();
        }
    }

    /// The address of window rank `r`'s memory, as MPICH's CH3 gives it:
    /// null for a rank without memory, except rank 0 (the segment's start)
    /// while some rank has memory.
    fn base_of(&self, r: usize, sizes: &[u64]) -> usize {
        let any = sizes.iter().any(|&s| s > 0);
        match &self.seg {
            Some(seg) if (r == 0 && any) || sizes[r] > 0 => seg.addr(self.offs[r]),
            _ => 0,
        }
    }
}

/// The offsets of the ranks' parts and the total size.
fn layout(sizes: &[u64], noncontig: bool) -> (Vec<usize>, usize) {
    let mut offs = Vec::with_capacity(sizes.len());
    let mut at = 0u64;
    for &s in sizes {
        offs.push(at as usize);
        at += if noncontig {
            s.div_ceil(PAGE) * PAGE
        } else {
            s
        };
    }
    (offs, at as usize)
}

impl World {
    /// MPI_Win_allocate_shared: the window and this rank's base address.
    pub fn win_allocate_shared(
        &mut self,
        comm: MPI_Comm,
        size: u64,
        disp_unit: i32,
        info: crate::mpi::info::Info,
    ) -> MpiResult<(MPI_Win, usize)> {
        let c = self.comms.get(comm)?;
        if c.is_inter() {
            return fail(
                sys::MPI_ERR_COMM,
                "a window needs an intracommunicator (this is an intercommunicator)",
            );
        }
        let ranks = c.group.ranks().to_vec();
        let node = self.ep.node_of(ranks[0]);
        if let Some(&o) = ranks.iter().find(|&&r| self.ep.node_of(r) != node) {
            return fail(
                sys::MPI_ERR_RMA_SHARED,
                format!(
                    "the communicator spans several target nodes (world ranks {} and {o} \
                     are on nodes {node} and {}): memory can be shared only within a \
                     node (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED)",
                    ranks[0],
                    self.ep.node_of(o)
                ),
            );
        }
        let hints = super::hints::WinHints::new(sys::MPI_WIN_FLAVOR_SHARED, &info)?;
        let noncontig = hints.alloc_shared_noncontig;
        let s = self.win_setup(comm, size, disp_unit, 0)?;
        let (offs, total) = layout(&s.sizes, noncontig);
        let name = winshm::name(&self.ep.job(), &format!("{}-{}", s.ranks[0], s.ctx));
        let made = if s.me == 0 {
            Some(WinShm::create(&name, total))
        } else {
            None
        };
        self.win_barrier(&s.ranks, s.me, s.ctx);
        let seg = match made {
            Some(r) => r,
            None => WinShm::attach(&name, total),
        };
        let seg = seg.or_else(|e| {
            fail(
                sys::MPI_ERR_NO_MEM,
                format!("cannot share {total} bytes of window memory: {e}"),
            )
        })?;
        let me = s.me;
        let mem = seg.part(offs[me], size as usize);
        let sh = Shared {
            seg: Some(seg),
            offs,
            owner: me == 0,
        };
        let base = sh.base_of(me, &s.sizes);
        let win = self.win_register(
            s,
            NewWin {
                comm,
                base,
                size,
                disp_unit,
                flavor: sys::MPI_WIN_FLAVOR_SHARED,
                mem: WinMem::Fixed(mem),
                allocated: None,
                info,
            },
            hints,
            Some(sh),
        );
        Ok((win, base))
    }

    /// MPI_Win_shared_query: size, displacement unit and base address (in
    /// this process) of `rank`'s memory; MPI_PROC_NULL: of the lowest rank
    /// with memory (size 0, unit 0 and a null base if none has).
    pub fn win_shared_query(&self, win: MPI_Win, rank: i32) -> MpiResult<(u64, i32, usize)> {
        let w = self.rma.get(win)?;
        let Some(sh) = &w.shared else {
            return fail(
                sys::MPI_ERR_RMA_FLAVOR,
                "MPI_Win_shared_query needs a window made by MPI_Win_allocate_shared",
            );
        };
        let r = if rank == sys::MPI_PROC_NULL {
            match w.sizes.iter().position(|&s| s > 0) {
                Some(r) => r,
                None => return Ok((0, 0, 0)),
            }
        } else {
            super::ops::target_rank(w, rank)?
        };
        Ok((w.sizes[r], w.disp_units[r] as i32, sh.base_of(r, &w.sizes)))
    }

    /// Whether operations on `win` are direct copies (a shared window).
    pub(crate) fn is_direct(&self, win: MPI_Win) -> bool {
        self.rma.wins.get(&win).is_some_and(|w| w.shared.is_some())
    }

    /// Do a checked operation on a shared window now, in the target's
    /// memory (see the module doc).
    pub(crate) fn direct(&mut self, win: MPI_Win, target: usize, i: Issue) -> MpiResult<()> {
        let w = self.rma.get(win)?;
        if w.access == Access::Pscw {
            let st = w.start.as_ref().expect("start epoch");
            if !st.targets.contains(&target) {
                return fail(
                    sys::MPI_ERR_RMA_SYNC,
                    format!("target rank {target} is not in the group of MPI_Win_start"),
                );
            }
        }
        let sh = w.shared.as_ref().expect("shared window");
        let mut mem = match &sh.seg {
            Some(seg) => WinMem::Fixed(seg.part(sh.offs[target], w.sizes[target] as usize)),
            None => WinMem::Phantom,
        };
        let p = &i.packet;
        let (moved, result) = match i.kind {
            packet::PUT => {
                mem.scatter(&p.runs, &p.data);
                (p.data.len(), None)
            }
            packet::ACC => {
                let _g = sh.seg.as_ref().map(WinShm::lock);
                mem.accumulate(p);
                (p.data.len(), None)
            }
            packet::GET => {
                let d = mem.gather(&p.runs);
                (d.len(), Some(d))
            }
            packet::GACC => {
                let _g = sh.seg.as_ref().map(WinShm::lock);
                let old = mem.gather(&p.runs);
                if p.op != sys::MPI_NO_OP {
                    mem.accumulate(p);
                }
                (old.len() + p.data.len(), Some(old))
            }
            packet::CAS => {
                let _g = sh.seg.as_ref().map(WinShm::lock);
                let old = mem.gather(&p.runs);
                let half = p.data.len() / 2;
                if old == p.data[half..] {
                    mem.scatter(&p.runs, &p.data[..half]);
                }
                (2 * old.len(), Some(old))
            }
            k => unreachable!("packet kind {k} is not an operation"),
        };
        self.ep.copy_local(moved as u64);
        if let (Some(d), Some(mut g)) = (result, i.get) {
            g.buf.unpack(&g.blocks, &d);
            // a read is how programs poll shared memory (e.g. a
            // Compare_and_swap loop): let the others run
            self.ep.yield_core();
        }
        Ok(())
    }

    /// MPI_Win_lock_all on a shared window (without MPI_MODE_NOCHECK): a
    /// shared LOCK to every member, then wait for every grant (CH3 locks
    /// the targets on its node at once).
    pub(crate) fn lock_all_shared(&mut self, win: MPI_Win) {
        let n = self.rma.wins[&win].ranks.len();
        for t in 0..n {
            self.lock_target(win, t, sys::MPI_LOCK_SHARED, false);
        }
        let reqs: Vec<_> = self.rma.wins[&win]
            .passive
            .values()
            .filter_map(|p| p.granted)
            .collect();
        self.wait_many(&reqs);
        for t in 0..n {
            let w = self.rma.wins.get_mut(&win).expect("checked");
            if let Some(r) = w.passive.get_mut(&t).and_then(|p| p.granted.take()) {
                self.ep.free(r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_contiguous_unless_asked() {
        assert_eq!(layout(&[12, 0, 5], false), (vec![0, 12, 12], 17));
        assert_eq!(layout(&[12, 0, 5], true), (vec![0, 4096, 4096], 8192));
    }
}
