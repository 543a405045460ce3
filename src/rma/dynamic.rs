//! Dynamic windows: MPI_Win_create_dynamic, MPI_Win_attach, MPI_Win_detach.
//!
//! A dynamic window starts with no memory (MPI_WIN_BASE is MPI_BOTTOM,
//! MPI_WIN_SIZE 0, the displacement unit 1); each rank attaches and
//! detaches regions of its own memory. An operation's target displacement
//! is an absolute address at the target (MPI_Get_address there): the
//! origin cannot check it (it does not know what the target attached), so
//! the target checks the packet's runs when it deals with it; a run outside
//! every attached region is MPI_ERR_RMA_RANGE, under the window's default
//! handler: nothing is applied, the job is aborted at the end of the
//! target's MPI call, naming the origin and the operation (MPICH's CH3
//! does not check at all: it writes wherever the address points).
//!
//! Timing: creation is that of MPI_Win_create (the duplicate and the
//! Allgather of the window table); attach and detach are local, as in
//! MPICH (no message, no time). Operations are the usual packets.
use super::memory::WinMem;
use super::window::NewWin;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::World;
use crate::sys::{self, MPI_Comm, MPI_Win};
use crate::transport::RecvBuf;
use std::collections::BTreeMap;

impl World {
    /// MPI_Win_create_dynamic.
    pub fn win_create_dynamic(
        &mut self,
        comm: MPI_Comm,
        info: crate::mpi::info::Info,
    ) -> MpiResult<MPI_Win> {
        self.win_create(NewWin {
            comm,
            base: 0,
            size: 0,
            disp_unit: 1,
            flavor: sys::MPI_WIN_FLAVOR_DYNAMIC,
            mem: WinMem::Dynamic(BTreeMap::new()),
            allocated: None,
            info,
        })
    }

    /// The target memory of a dynamic window (MPI_ERR_RMA_FLAVOR for
    /// another window).
    fn dynamic_ctx(&self, win: MPI_Win, call: &str) -> MpiResult<u32> {
        let w = self.rma.get(win)?;
        if w.flavor != sys::MPI_WIN_FLAVOR_DYNAMIC {
            return fail(
                sys::MPI_ERR_RMA_FLAVOR,
                format!("{call} needs a window made by MPI_Win_create_dynamic"),
            );
        }
        Ok(w.ctx)
    }

    /// MPI_Win_attach: `mem` becomes accessible to the window's origins.
    pub fn win_attach(&mut self, win: MPI_Win, mem: RecvBuf) -> MpiResult<()> {
        let ctx = self.dynamic_ctx(win, "MPI_Win_attach")?;
        let mut t = self.rma.targets.borrow_mut();
        let tw = t.wins.get_mut(&ctx).expect("live window");
        tw.mem
            .attach(mem)
            .or_else(|e| fail(sys::MPI_ERR_RMA_ATTACH, e))
    }

    /// MPI_Win_detach of the memory attached at `base`.
    pub fn win_detach(&mut self, win: MPI_Win, base: usize) -> MpiResult<()> {
        let ctx = self.dynamic_ctx(win, "MPI_Win_detach")?;
        let mut t = self.rma.targets.borrow_mut();
        let tw = t.wins.get_mut(&ctx).expect("live window");
        tw.mem
            .detach(base as u64)
            .or_else(|e| fail(sys::MPI_ERR_RMA_ATTACH, e))
    }

    /// An operation this rank dealt with as a target could not be done
    /// (see the module doc): the message to abort the job with.
    pub fn rma_fatal(&mut self) -> Option<String> {
        self.rma.targets.borrow_mut().fatal.take()
    }
}
