//! Windows: the table of this process's windows, their creation
//! (MPI_Win_create / Win_allocate: the memory comes from the ABI layer),
//! MPI_Win_free, their groups, error handlers and predefined attributes.
use super::memory::WinMem;
use super::target::{Handler, Targets};
use crate::coll;
use crate::mpi::agree::Agree;
use crate::mpi::coll_args::{Block, UserBuf};
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::World;
use crate::p2p::ReqId;
use crate::sys::{self, MPI_Comm, MPI_Errhandler, MPI_Win};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// The access epoch a window is in at this process (as an origin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    None,
    /// Between two fences.
    Fence,
    /// Lock / lock_all (per-target state in `Window::passive`).
    Passive,
    /// Between MPI_Win_start and Win_complete (state in `Window::start`).
    Pscw,
}

/// An access epoch opened by MPI_Win_start.
pub struct StartEpoch {
    /// Window ranks of the group, and the operations issued to each.
    pub targets: Vec<usize>,
    pub sent: Vec<u32>,
    /// The POST receives not yet waited for (none with MPI_MODE_NOCHECK).
    pub posts: Vec<ReqId>,
    /// Operations waiting for the posts.
    pub queued: Vec<(usize, Issue)>,
}

/// Where a GET's data goes once its response has arrived.
pub struct GetDest {
    pub len: usize,
    pub buf: Box<dyn UserBuf>,
    pub blocks: Vec<Block>,
}

/// An operation waiting to be issued (its epoch is not granted yet).
pub struct Issue {
    pub kind: i32,
    pub vsize: u64,
    pub packet: super::packet::Packet,
    pub get: Option<GetDest>,
}

/// A GET issued and not complete.
pub struct PendingGet {
    pub req: ReqId,
    /// Window rank of the target.
    pub target: usize,
    pub dest: GetDest,
}

/// A passive-target epoch towards one target.
pub struct PassiveTarget {
    /// The LOCK_GRANTED receive, while not received.
    pub granted: Option<ReqId>,
    pub nocheck: bool,
    pub queued: Vec<Issue>,
    /// Operations issued since the last flush.
    pub unflushed: bool,
}

pub struct Window {
    /// The private duplicate of the communicator.
    pub comm: MPI_Comm,
    pub ctx: u32,
    /// World rank of each window rank.
    pub ranks: Vec<u32>,
    pub me: usize,
    /// Each rank's window size and displacement unit.
    pub sizes: Vec<u64>,
    pub disp_units: Vec<u64>,
    pub base: usize,
    pub size: u64,
    pub disp_unit: i32,
    pub flavor: i32,
    /// Memory the library allocated (Win_allocate): (address, bytes).
    pub allocated: Option<(usize, usize)>,
    pub errhandler: MPI_Errhandler,
    pub access: Access,
    /// Fence epoch: packets sent to each rank.
    pub sent: Vec<u32>,
    /// Arrival time of the last packet sent to each rank: packets between
    /// two ranks arrive in the order they were sent (a FIFO channel).
    pub last_ta: Vec<crate::model::VTime>,
    pub passive: BTreeMap<usize, PassiveTarget>,
    /// Inside lock_all (and whether with MPI_MODE_NOCHECK).
    pub lock_all: Option<bool>,
    pub gets: Vec<PendingGet>,
    pub next_tag: i32,
    /// MPI_Win_start's epoch.
    pub start: Option<StartEpoch>,
    /// MPI_Win_post's exposure epoch: the request Win_wait waits for.
    pub exposed: Option<ReqId>,
    /// MPI_Win_set_name / get_name.
    pub name: String,
    /// The hints given at creation or by MPI_Win_set_info.
    pub info: super::hints::WinHints,
    /// Attribute values (MPI_Win_get_attr returns their addresses: boxed,
    /// so they stay put while the window lives).
    pub attrs: Box<Attrs>,
    /// MPI_Win_allocate_shared: the segment every member maps.
    pub shared: Option<super::shared::Shared>,
}

/// The predefined attributes' values.
pub struct Attrs {
    pub size: sys::MPI_Aint,
    pub disp_unit: std::os::raw::c_int,
    pub flavor: std::os::raw::c_int,
    pub model: std::os::raw::c_int,
}

/// This process's windows.
pub struct Rma {
    pub wins: BTreeMap<MPI_Win, Window>,
    next: MPI_Win,
    pub targets: Rc<RefCell<Targets>>,
}

impl Default for Rma {
    fn default() -> Self {
        Rma {
            wins: BTreeMap::new(),
            next: sys::MPI_WIN_NULL + 1,
            targets: Rc::default(),
        }
    }
}

impl Window {
    /// No access epoch is open, or only a fence epoch nobody used yet: MPICH
    /// then allows what needs no epoch (a lock, a start, MPI_Win_free).
    pub fn no_access(&self) -> bool {
        match self.access {
            Access::None => true,
            Access::Fence => self.sent.iter().all(|&c| c == 0) && self.gets.is_empty(),
            _ => false,
        }
    }

    /// A fresh tag for a GET response.
    pub fn take_tag(&mut self) -> i32 {
        let tag = self.next_tag;
        self.next_tag = if tag == i32::MAX {
            super::packet::FIRST_GET_TAG
        } else {
            tag + 1
        };
        tag
    }
}

impl Rma {
    pub fn get(&self, win: MPI_Win) -> MpiResult<&Window> {
        match self.wins.get(&win) {
            Some(w) => Ok(w),
            None => fail(sys::MPI_ERR_WIN, format!("invalid window {win:#x}")),
        }
    }
    pub fn get_mut(&mut self, win: MPI_Win) -> MpiResult<&mut Window> {
        match self.wins.get_mut(&win) {
            Some(w) => Ok(w),
            None => fail(sys::MPI_ERR_WIN, format!("invalid window {win:#x}")),
        }
    }
    /// The error handler of `win` (MPI_ERRORS_ARE_FATAL for an invalid one).
    pub fn errhandler(&self, win: MPI_Win) -> MPI_Errhandler {
        self.wins
            .get(&win)
            .map_or(sys::MPI_ERRORS_ARE_FATAL, |w| w.errhandler)
    }
}

/// Arguments of a window creation.
pub struct NewWin {
    pub comm: MPI_Comm,
    pub base: usize,
    pub size: u64,
    pub disp_unit: i32,
    pub flavor: i32,
    /// The memory (`size` bytes at `base`; the attached regions of a
    /// dynamic window).
    pub mem: WinMem,
    pub allocated: Option<(usize, usize)>,
    pub info: crate::mpi::info::Info,
}

/// A window's group and table, agreed by its members (MPI_Win_create's
/// communication).
pub(crate) struct Setup {
    pub dup: MPI_Comm,
    pub ctx: u32,
    pub ranks: Vec<u32>,
    pub me: usize,
    pub sizes: Vec<u64>,
    pub disp_units: Vec<u64>,
}

impl World {
    /// MPI_Win_create / MPI_Win_allocate / MPI_Win_create_dynamic, once the
    /// ABI has the memory.
    pub fn win_create(&mut self, a: NewWin) -> MpiResult<MPI_Win> {
        let hints = super::hints::WinHints::new(a.flavor, &a.info)?;
        let s = self.win_setup(a.comm, a.size, a.disp_unit, a.base)?;
        Ok(self.win_register(s, a, hints, None))
    }

    /// The communication of a window's creation: a duplicate of the
    /// communicator, then the Allgather of each rank's size, displacement
    /// unit and base (32 bytes per rank).
    pub(crate) fn win_setup(
        &mut self,
        comm: MPI_Comm,
        size: u64,
        disp_unit: i32,
        base: usize,
    ) -> MpiResult<Setup> {
        if disp_unit <= 0 {
            return fail(
                sys::MPI_ERR_DISP,
                format!("invalid displacement unit {disp_unit} (must be positive)"),
            );
        }
        if self.comms.get(comm)?.is_inter() {
            return fail(
                sys::MPI_ERR_COMM,
                "a window needs an intracommunicator (this is an intercommunicator)",
            );
        }
        let dup = self.comm_dup(comm, Vec::new())?;
        self.win_table(dup, size, disp_unit, base)
    }

    /// The Allgather of a window's creation on its communicator `dup`:
    /// each rank's size, displacement unit and base (32 bytes per rank).
    pub(crate) fn win_table(
        &mut self,
        dup: MPI_Comm,
        size: u64,
        disp_unit: i32,
        base: usize,
    ) -> MpiResult<Setup> {
        let c = self.comms.get(dup)?;
        let (ctx, ranks, me) = (c.ctx, c.group.ranks().to_vec(), c.my_rank as usize);
        let n = ranks.len();
        let mut table = vec![0u8; 32 * n];
        table[32 * me..32 * me + 8].copy_from_slice(&size.to_le_bytes());
        table[32 * me + 8..32 * me + 16].copy_from_slice(&(disp_unit as u64).to_le_bytes());
        table[32 * me + 16..32 * me + 24].copy_from_slice(&(base as u64).to_le_bytes());
        self.ep.allgather(&ranks, me, ctx, &mut table);
        let u64_at = |o: usize| u64::from_le_bytes(table[o..o + 8].try_into().expect("8 bytes"));
        Ok(Setup {
            dup,
            ctx,
            sizes: (0..n).map(|r| u64_at(32 * r)).collect(),
            disp_units: (0..n).map(|r| u64_at(32 * r + 8)).collect(),
            ranks,
            me,
        })
    }

    /// Make the window of `s` with memory `a.mem` (and a shared window's
    /// segment).
    pub(crate) fn win_register(
        &mut self,
        s: Setup,
        a: NewWin,
        hints: super::hints::WinHints,
        shared: Option<super::shared::Shared>,
    ) -> MPI_Win {
        if !self.ep.has_active() {
            let h = Handler(self.rma.targets.clone());
            self.ep.set_active(Box::new(h));
        }
        let model = self.ep.model().clone();
        self.rma.targets.borrow_mut().add(s.ctx, a.mem, &model);
        let n = s.ranks.len();
        let win = Window {
            comm: s.dup,
            ctx: s.ctx,
            ranks: s.ranks,
            me: s.me,
            sizes: s.sizes,
            disp_units: s.disp_units,
            base: a.base,
            size: a.size,
            disp_unit: a.disp_unit,
            flavor: a.flavor,
            allocated: a.allocated,
            errhandler: sys::MPI_ERRORS_ARE_FATAL,
            access: Access::None,
            sent: vec![0; n],
            last_ta: vec![crate::model::VTime::ZERO; n],
            passive: BTreeMap::new(),
            lock_all: None,
            gets: Vec::new(),
            start: None,
            exposed: None,
            next_tag: super::packet::FIRST_GET_TAG,
            name: String::new(),
            info: hints,
            attrs: Box::new(Attrs {
                size: a.size as sys::MPI_Aint,
                disp_unit: a.disp_unit,
                flavor: a.flavor,
                model: sys::MPI_WIN_UNIFIED,
            }),
            shared,
        };
        let h = self.rma.next;
        self.rma.next += 1;
        self.rma.wins.insert(h, win);
        h
    }

    /// MPI_Win_free: no epoch may be open; a barrier, then the window goes.
    /// Returns the memory the library allocated for it, to be freed.
    pub fn win_free(&mut self, win: MPI_Win) -> MpiResult<Option<(usize, usize)>> {
        let w = self.win_close(win)?;
        self.comms.free(w.comm)?;
        Ok(w.allocated)
    }

    /// MPI_Win_free but its communicator: no epoch may be open; a barrier,
    /// then the window leaves the tables.
    pub(crate) fn win_close(&mut self, win: MPI_Win) -> MpiResult<Window> {
        let w = self.rma.get(win)?;
        // As MPICH, a window may be freed after a fence that opened an epoch
        // nobody used (the usual program ends with a plain fence).
        let fence_unused =
            w.access == Access::Fence && w.sent.iter().all(|&c| c == 0) && w.gets.is_empty();
        let open = w.access != Access::None && !fence_unused;
        if open || !w.passive.is_empty() || w.exposed.is_some() {
            return fail(
                sys::MPI_ERR_RMA_SYNC,
                "the window is in an access or exposure epoch (close it first: a fence \
                 with MPI_MODE_NOSUCCEED, MPI_Win_unlock(_all), MPI_Win_complete or \
                 MPI_Win_wait)",
            );
        }
        let (ranks, me, ctx) = (w.ranks.clone(), w.me, w.ctx);
        self.win_barrier(&ranks, me, ctx);
        let w = self.rma.wins.remove(&win).expect("checked");
        self.rma.targets.borrow_mut().wins.remove(&w.ctx);
        if let Some(sh) = &w.shared {
            // every member has mapped the segment (the barrier above)
            sh.remove_name();
        }
        Ok(w)
    }

    /// A barrier over a window's members (world ranks `ranks`, this one at
    /// `me`) on its context `ctx`.
    pub(crate) fn win_barrier(&mut self, ranks: &[u32], me: usize, ctx: u32) {
        coll::barrier::barrier(&mut coll::Comm {
            core: &mut self.ep,
            ranks,
            me,
            ctx,
        });
    }

    /// MPI_Win_get_group.
    pub fn win_group(&mut self, win: MPI_Win) -> MpiResult<sys::MPI_Group> {
        let comm = self.rma.get(win)?.comm;
        let g = self.comms.get(comm)?.group.clone();
        Ok(self.comms.groups.insert(g))
    }

    /// MPI_Win_set_errhandler: a predefined handler or one made by
    /// MPI_Win_create_errhandler (MPI_ERR_ARG otherwise).
    pub fn win_set_errhandler(&mut self, win: MPI_Win, eh: MPI_Errhandler) -> MpiResult<()> {
        self.rma.get(win)?;
        self.errhandlers
            .check_for(eh, crate::mpi::errhandler::ObjKind::Win)?;
        self.rma.get_mut(win)?.errhandler = eh;
        Ok(())
    }
}
