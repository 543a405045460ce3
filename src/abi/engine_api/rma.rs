//! One-sided communication mirrored: the calling library's windows,
//! operations and synchronizations are done again by vaced's own RMA code
//! (`crate::rma`) on windows that hold no memory, so that they cost what
//! they cost in vaced's own library: the same packets (PUT, GET,
//! ACCUMULATE, LOCK, ...), the same fence reduce-scatter, the same
//! handling by the target inside its MPI calls (Algorithm 3).
//!
//! The library moves the data with its own one-sided protocol; its internal
//! messages inside these calls are not mirrored (MPICH:
//! `MPIR_Vaced_unmirrored`). Windows and synchronizations come here once
//! the library's own call has succeeded, so its error checks come first;
//! operations come here first, so that an access outside the target's
//! window (which MPICH does not check) is refused before the library
//! writes past it. A mirror call that fails returns the MPI error class
//! vaced's own library raises (MPI_ERR_RMA_RANGE, ...), the reason in
//! [`super::vaced_eng_error`].
//!
//! Timing rules: those of `crate::rma`. Differences: a mirror packet
//! carries zeros of the data's length (the timing needs the length only).
//! A window's creation costs vaced's own: the context-id agreement of its
//! communicator's duplicate (an allreduce of the id mask and the sequence
//! number's broadcast), then the Allgather of the window table, then for
//! MPI_Win_allocate_shared a barrier; operations on a shared window are
//! the origin's copies timed on its clock, as vaced's own, whatever the
//! ranks' target nodes (the library shares the memory as its host allows).
use super::{set_error, with, Api};
use crate::mpi::agree::Agree;
use crate::mpi::comm::{Comm, Group};
use crate::mpi::context::MASK_BYTES;
use crate::mpi::error::MpiResult;
use crate::mpi::state::RecvTarget;
use crate::mpi::World;
use crate::rma::memory::WinMem;
use crate::rma::ops::{OpKind, TargetSpec};
use crate::rma::shared::Shared;
use crate::rma::window::{GetDest, NewWin};
use crate::sys::{self, MPI_Win};
use crate::transport::RecvBuf;
use std::ffi::c_int;
use std::sync::Arc;

/// Mirror windows' contexts: the library's context id of the window's
/// communicator with this bit, apart from the library's own ids (16 bits)
/// that its point-to-point mirror uses.
pub const MIRROR_CTX_BIT: u32 = 0x0200_0000;

/// Operation kinds (`VACED_ENG_RMA_*`).
pub const PUT: c_int = 0;
pub const GET: c_int = 1;
pub const ACC: c_int = 2;
/// MPI_Get_accumulate (its operator is not MPI_NO_OP).
pub const GET_ACC: c_int = 3;
/// MPI_Get_accumulate with MPI_NO_OP (no data goes to the target).
pub const GET_ACC_NO_OP: c_int = 4;
pub const FETCH_AND_OP: c_int = 5;
pub const COMPARE_AND_SWAP: c_int = 6;

/// Where a mirror GET's response goes: nowhere.
struct Discard;

impl crate::mpi::coll_args::UserBuf for Discard {
    fn pack(&self, blocks: &[crate::mpi::coll_args::Block]) -> Vec<u8> {
        vec![0; blocks.iter().map(|b| b.ty.packed_size(b.count)).sum()]
    }
    fn unpack(&mut self, _: &[crate::mpi::coll_args::Block], _: &[u8]) {}
}

fn discard(len: usize) -> GetDest {
    GetDest {
        len,
        buf: Box::new(Discard),
        blocks: Vec::new(),
    }
}

/// Run mirror call `what` on the rank's world: 0, the MPI error class of
/// its failure (the reason set), or -1 without an engine.
fn call(what: &str, f: impl FnOnce(&mut World) -> MpiResult<()>) -> c_int {
    with(what, |a: &mut Api| match f(&mut a.w) {
        Ok(()) => 0,
        Err(e) => {
            set_error(&format!("{what}: {}", e.msg));
            e.class.max(1)
        }
    })
    .unwrap_or(-1)
}

/// The world ranks of a C array.
///
/// # Safety
/// `ranks` points to `n` readable ints (or `n` is 0).
unsafe fn world_ranks(ranks: *const c_int, n: c_int) -> Vec<u32> {
    if n <= 0 || ranks.is_null() {
        return Vec::new();
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(ranks, n as usize) }
        .iter()
        .map(|&r| r as u32)
        .collect()
}

/// A mirror window: the library's window on a communicator of `n` ranks
/// (world ranks `ranks`, this rank at index `me`) whose context id is
/// `ctx`; this rank exposes `size` bytes with displacement unit
/// `disp_unit`; `flavor` is MPI_WIN_FLAVOR_CREATE, _ALLOCATE, _DYNAMIC or
/// _SHARED.
/// Collective over the window's ranks. The mirror's handle (>= 0), or -1
/// (the reason in `vaced_eng_error`).
///
/// # Safety
/// `ranks` points to `n` readable ints.
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_win_create(
    ctx: u32,
    ranks: *const c_int,
    n: c_int,
    me: c_int,
    size: u64,
    disp_unit: c_int,
    flavor: c_int,
) -> c_int {
    // SAFETY: the caller's contract.
    let ranks = unsafe { world_ranks(ranks, n) };
    let mut win = -1;
    let r = call("vaced_eng_win_create", |w| {
        if me < 0 || me as usize >= ranks.len() || ctx & !0xffff != 0 {
            return crate::mpi::error::fail(
                sys::MPI_ERR_ARG,
                format!("rank {me} of {} ranks, context {ctx:#x}", ranks.len()),
            );
        }
        win = create(
            w,
            ctx | MIRROR_CTX_BIT,
            ranks,
            me as u32,
            size,
            disp_unit,
            flavor,
        )?;
        Ok(())
    });
    if r == 0 {
        win
    } else {
        -1
    }
}

fn create(
    w: &mut World,
    ctx: u32,
    ranks: Vec<u32>,
    me: u32,
    size: u64,
    disp_unit: c_int,
    flavor: c_int,
) -> MpiResult<MPI_Win> {
    let info = crate::mpi::info::Info::default();
    let hints = crate::rma::hints::WinHints::new(flavor, &info)?;
    // vaced's own window duplicates its communicator: the new context id is
    // agreed by an allreduce of the id masks, then its sequence number is
    // broadcast (`World::commit`)
    let mut mask = vec![0xff; MASK_BYTES];
    w.ep.allreduce_band(&ranks, me as usize, ctx, &mut mask);
    let group = Arc::new(Group::new(ranks));
    let dup = w.commit(Comm::new(ctx, group, me, sys::MPI_ERRORS_ARE_FATAL), false);
    let s = w.win_table(dup, size, disp_unit, 0)?;
    // MPI_Win_allocate_shared: then a barrier once the memory is made; its
    // operations are the origin's copies (`crate::rma::shared`)
    let shared = (flavor == sys::MPI_WIN_FLAVOR_SHARED).then(|| {
        w.win_barrier(&s.ranks, s.me, s.ctx);
        Shared::phantom(s.ranks.len())
    });
    let a = NewWin {
        comm: dup,
        base: 0,
        size,
        disp_unit,
        flavor,
        mem: WinMem::Phantom,
        allocated: None,
        info,
    };
    Ok(w.win_register(s, a, hints, shared))
}

/// Free mirror window `win` (collective: a barrier, as vaced's own).
#[no_mangle]
pub extern "C" fn vaced_eng_win_free(win: c_int) -> c_int {
    call("vaced_eng_win_free", |w| {
        let c = w.win_close(win)?;
        w.comms.remove(c.comm)?;
        Ok(())
    })
}

/// An operation of `kind` (`VACED_ENG_RMA_*`) on mirror window `win`:
/// `bytes` bytes at displacement `disp` (in the target's displacement
/// units) of window rank `target` (MPI_PROC_NULL: nothing).
/// Compare_and_swap's `bytes` is one element's.
#[no_mangle]
pub extern "C" fn vaced_eng_rma(
    win: c_int,
    kind: c_int,
    target: c_int,
    disp: i64,
    bytes: u64,
) -> c_int {
    call("vaced_eng_rma", |w| {
        let (t, op) = operation(w, kind, target, disp, bytes)?;
        w.rma_op(win, t.spec(), op)
    })
}

/// A request-based operation (MPI_Rput, Rget, Raccumulate,
/// Rget_accumulate) as [`vaced_eng_rma`]; `*req` (if not null) becomes -2
/// when its request is complete at once (PUT-like: the data has left), else
/// the engine request the caller's request completes with (GET-like: the
/// response), for `vaced_eng_wait`.
///
/// # Safety
/// `req` is null or points to a writable int64_t.
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_rma_request(
    win: c_int,
    kind: c_int,
    target: c_int,
    disp: i64,
    bytes: u64,
    req: *mut i64,
) -> c_int {
    let mut id = -2;
    let r = call("vaced_eng_rma_request", |w| {
        let (t, op) = operation(w, kind, target, disp, bytes)?;
        let result = matches!(kind, GET | GET_ACC | GET_ACC_NO_OP).then(|| {
            let len = bytes as usize;
            let rt = RecvTarget {
                buf: RecvBuf::phantom(len),
                staging: None,
            };
            (rt, t.ty.clone(), len)
        });
        let done = w.rma_request_op(win, t.spec(), op, result)?;
        if let crate::mpi::request::ReqState::Active(r) = done.state {
            id = i64::from(r);
        }
        Ok(())
    });
    if r == 0 && !req.is_null() {
        // SAFETY: non-null and writable by the caller's contract.
        unsafe { req.write(id) };
    }
    r
}

/// An operation's target (as bytes) and kind.
struct Target {
    rank: c_int,
    disp: i64,
    bytes: usize,
    ty: Arc<crate::mpi::datatype::Datatype>,
}

impl Target {
    fn spec(&self) -> TargetSpec<'_> {
        TargetSpec {
            rank: self.rank,
            disp: self.disp as sys::MPI_Aint,
            count: self.bytes,
            ty: &self.ty,
        }
    }
}

fn operation(
    w: &World,
    kind: c_int,
    rank: c_int,
    disp: i64,
    bytes: u64,
) -> MpiResult<(Target, OpKind)> {
    let b = usize::try_from(bytes)
        .or_else(|_| crate::mpi::error::fail(sys::MPI_ERR_COUNT, format!("{bytes} bytes")))?;
    let data = || vec![0u8; b];
    // the operator and element type matter to the data only (none here)
    let (op, dt) = (sys::MPI_SUM, sys::MPI_BYTE);
    let k = match kind {
        PUT => OpKind::Put(data()),
        GET => OpKind::Get(discard(b)),
        ACC => OpKind::Acc(op, dt, data()),
        GET_ACC | GET_ACC_NO_OP | FETCH_AND_OP => OpKind::GetAcc {
            op: if kind == GET_ACC_NO_OP {
                sys::MPI_NO_OP
            } else {
                op
            },
            dtype: dt,
            data: data(),
            result: discard(b),
            fop: kind == FETCH_AND_OP,
        },
        COMPARE_AND_SWAP => OpKind::Cas(vec![0; 2 * b], discard(b)),
        _ => {
            return crate::mpi::error::fail(
                sys::MPI_ERR_ARG,
                format!("unknown operation kind {kind}"),
            )
        }
    };
    let t = Target {
        rank,
        disp,
        bytes: b,
        ty: w.types.get(sys::MPI_BYTE)?,
    };
    Ok((t, k))
}

/// MPI_Win_fence on mirror window `win`.
#[no_mangle]
pub extern "C" fn vaced_eng_win_fence(win: c_int, assert: c_int) -> c_int {
    call("vaced_eng_win_fence", |w| w.win_fence(win, assert))
}

/// MPI_Win_lock (`lock_type`: MPI_LOCK_EXCLUSIVE 234 or MPI_LOCK_SHARED 235).
#[no_mangle]
pub extern "C" fn vaced_eng_win_lock(
    win: c_int,
    lock_type: c_int,
    target: c_int,
    assert: c_int,
) -> c_int {
    call("vaced_eng_win_lock", |w| {
        w.win_lock(win, lock_type, target, assert)
    })
}

/// MPI_Win_unlock.
#[no_mangle]
pub extern "C" fn vaced_eng_win_unlock(win: c_int, target: c_int) -> c_int {
    call("vaced_eng_win_unlock", |w| w.win_unlock(win, target))
}

/// MPI_Win_lock_all.
#[no_mangle]
pub extern "C" fn vaced_eng_win_lock_all(win: c_int, assert: c_int) -> c_int {
    call("vaced_eng_win_lock_all", |w| w.win_lock_all(win, assert))
}

/// MPI_Win_unlock_all.
#[no_mangle]
pub extern "C" fn vaced_eng_win_unlock_all(win: c_int) -> c_int {
    call("vaced_eng_win_unlock_all", |w| w.win_unlock_all(win))
}

/// MPI_Win_flush(_local) of window rank `target`, or of every target
/// (`target` < 0: MPI_Win_flush(_local)_all); `local`: the _local forms.
#[no_mangle]
pub extern "C" fn vaced_eng_win_flush(win: c_int, target: c_int, local: c_int) -> c_int {
    let rank = (target >= 0).then_some(target);
    call("vaced_eng_win_flush", |w| {
        w.win_flush(win, rank, local != 0)
    })
}

/// MPI_Win_sync.
#[no_mangle]
pub extern "C" fn vaced_eng_win_sync(win: c_int) -> c_int {
    call("vaced_eng_win_sync", |w| w.win_sync(win))
}

/// A group of world ranks in the world's group table, for `f`.
fn with_group(
    w: &mut World,
    ranks: Vec<u32>,
    f: impl FnOnce(&mut World, sys::MPI_Group) -> MpiResult<()>,
) -> MpiResult<()> {
    let g = w.comms.groups.insert(Arc::new(Group::new(ranks)));
    let r = f(w, g);
    w.comms.groups.free(g)?;
    r
}

/// Mirror call `what` on the group of the `n` world ranks at `ranks`.
///
/// # Safety
/// `ranks` points to `n` readable ints.
unsafe fn group_call(
    what: &str,
    ranks: *const c_int,
    n: c_int,
    f: impl FnOnce(&mut World, sys::MPI_Group) -> MpiResult<()>,
) -> c_int {
    // SAFETY: the caller's contract.
    let ranks = unsafe { world_ranks(ranks, n) };
    call(what, |w| with_group(w, ranks, f))
}

/// MPI_Win_post to the group of world ranks `ranks`.
///
/// # Safety
/// `ranks` points to `n` readable ints.
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_win_post(
    win: c_int,
    ranks: *const c_int,
    n: c_int,
    assert: c_int,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        group_call("vaced_eng_win_post", ranks, n, |w, g| {
            w.win_post(win, g, assert)
        })
    }
}

/// MPI_Win_start towards the group of world ranks `ranks`.
///
/// # Safety
/// `ranks` points to `n` readable ints.
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_win_start(
    win: c_int,
    ranks: *const c_int,
    n: c_int,
    assert: c_int,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        group_call("vaced_eng_win_start", ranks, n, |w, g| {
            w.win_start(win, g, assert)
        })
    }
}

/// MPI_Win_complete.
#[no_mangle]
pub extern "C" fn vaced_eng_win_complete(win: c_int) -> c_int {
    call("vaced_eng_win_complete", |w| w.win_complete(win))
}

/// MPI_Win_wait (`block` 1) or MPI_Win_test (0); `*done` (if not null)
/// says whether the exposure epoch has ended (always 1 after a wait).
///
/// # Safety
/// `done` is null or points to a writable int.
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_win_wait(win: c_int, block: c_int, done: *mut c_int) -> c_int {
    let mut ended = false;
    let r = call("vaced_eng_win_wait", |w| {
        ended = w.win_wait(win, block != 0)?;
        Ok(())
    });
    if r == 0 && !done.is_null() {
        // SAFETY: non-null and writable by the caller's contract.
        unsafe { done.write(c_int::from(ended)) };
    }
    r
}
