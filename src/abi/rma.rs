//! One-sided communication calls (MPI_Win_*, MPI_Put / Get / Accumulate):
//! argument checking, window memory and user buffers turned into safe
//! handles; the semantics are in `crate::rma`. Errors go to the window's
//! error handler (MPI_ERRORS_ARE_FATAL unless set otherwise).
use crate::abi::state::{call, raise_through};
use crate::mpi::coll_args::{self as args, whole, Block, UserBuf};
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::info::with_infos;
use crate::mpi::op::{basic_of, kernel, Predef};
use crate::mpi::World;
use crate::rma::memory::WinMem;
use crate::rma::ops::{OpKind, TargetSpec};
use crate::rma::window::{GetDest, NewWin};
use crate::sys::{
    self, MPI_Aint, MPI_Comm, MPI_Datatype, MPI_Errhandler, MPI_Info, MPI_Op, MPI_Win,
};
use crate::transport::RecvBuf;
use std::alloc::Layout;
use std::os::raw::{c_int, c_void};

/// Run `f` as MPI call `name` on window `win`: an error goes to the
/// window's error handler (a program's handler runs once the state lock is
/// released); with an invalid window, to MPI_COMM_WORLD's (as MPICH).
pub(crate) fn win_call(
    name: &str,
    win: MPI_Win,
    f: impl FnOnce(&mut World) -> MpiResult<()>,
) -> c_int {
    let mut rc = sys::MPI_SUCCESS;
    let r = call(name, sys::MPI_COMM_WORLD, |w| match f(w) {
        Ok(()) => Ok(()),
        Err(e) => match w.rma.wins.get(&win) {
            Some(x) => {
                let eh = x.errhandler;
                rc = raise_through(w, eh, win, name, &e);
                Ok(())
            }
            None => Err(e),
        },
    });
    if rc != sys::MPI_SUCCESS {
        rc
    } else {
        r
    }
}

/// [`win_call`] for a call whose waits may be suspended (see
/// `abi::state::call_mut`): the `suspended` error goes back to it, not to
/// the window's error handler.
pub(crate) fn win_call_mut(
    name: &str,
    win: MPI_Win,
    mut f: impl FnMut(&mut World) -> MpiResult<()>,
) -> c_int {
    let mut rc = sys::MPI_SUCCESS;
    let r = crate::abi::state::call_mut(name, sys::MPI_COMM_WORLD, |w| match f(w) {
        Ok(()) => Ok(()),
        Err(e) if crate::mpi::blocking::is_suspended(&e) => Err(e),
        Err(e) => match w.rma.wins.get(&win) {
            Some(x) => {
                let eh = x.errhandler;
                rc = raise_through(w, eh, win, name, &e);
                Ok(())
            }
            None => Err(e),
        },
    });
    if rc != sys::MPI_SUCCESS {
        rc
    } else {
        r
    }
}

/// Before a window is made: the targets of accumulates on long double
/// apply them with the C kernels of the ABI (see `crate::rma::target`).
pub(crate) fn register_kernels() {
    crate::mpi::op::set_long_double_kernel(crate::abi::op::long_double_apply);
}

/// The hints of an info argument (a copy; MPI_INFO_NULL: none).
fn check_info(info: MPI_Info) -> MpiResult<crate::mpi::info::Info> {
    if info == sys::MPI_INFO_NULL {
        return Ok(Default::default());
    }
    with_infos(|t| t.get(info).cloned())
}

fn check_size(size: MPI_Aint) -> MpiResult<u64> {
    u64::try_from(size).or_else(|_| {
        fail(
            sys::MPI_ERR_SIZE,
            format!("invalid window size {size} (negative)"),
        )
    })
}

/// An origin or result buffer: `count` elements of a datatype start at
/// `base + true_lb` (a null base is MPI_BOTTOM, the type holding absolute
/// addresses).
struct OriginBuf {
    base: *mut u8,
}

impl OriginBuf {
    /// # Safety
    /// For as long as it is used, every block packed from it is readable
    /// and every block unpacked into it writable and not otherwise accessed
    /// (MPI's contract for the buffers of one-sided operations).
    unsafe fn new(p: *const c_void) -> OriginBuf {
        OriginBuf { base: p as *mut u8 }
    }
    fn at(&self, b: &Block) -> *mut u8 {
        self.base.wrapping_offset(b.off + b.ty.mem_start(b.count))
    }
}

impl UserBuf for OriginBuf {
    fn pack(&self, blocks: &[Block]) -> Vec<u8> {
        let mut out = Vec::new();
        for b in blocks {
            let span = b.ty.span(b.count);
            if span == 0 {
                continue;
            }
            // SAFETY: the block's elements span `span` readable bytes from
            // its first byte (the constructor's contract).
            let mem = unsafe { std::slice::from_raw_parts(self.at(b), span) };
            out.extend_from_slice(&b.ty.pack(mem, b.count));
        }
        out
    }

    fn unpack(&mut self, blocks: &[Block], data: &[u8]) {
        let mut at = 0;
        for b in blocks {
            let n = b.bytes().min(data.len() - at);
            let span = b.ty.span(b.count);
            if span > 0 {
                // SAFETY: the block's elements span `span` writable bytes
                // that nothing else accesses now (the constructor's contract).
                let mem = unsafe { std::slice::from_raw_parts_mut(self.at(b), span) };
                b.ty.unpack(&data[at..at + n], mem, b.count);
            }
            at += n;
        }
    }
}

/// Alignment of the memory MPI_Win_allocate hands out.
const ALIGN: usize = 16;

mpi_fn! {
    fn MPI_Win_create / PMPI_Win_create(base: *mut c_void, size: MPI_Aint, disp_unit: c_int, info: MPI_Info, comm: MPI_Comm, win: *mut MPI_Win) -> c_int {
        register_kernels();
        call("MPI_Win_create", comm, |w| {
            let n = check_size(size)?;
            let hints = check_info(info)?;
            if win.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as win");
            }
            if n > 0 && base.is_null() {
                return fail(sys::MPI_ERR_ARG, "null base for a window of non-zero size");
            }
            // SAFETY: MPI's contract: `size` bytes at `base` are the window's
            // memory until MPI_Win_free.
            let mem = unsafe { RecvBuf::from_raw(base as *mut u8, n as usize) };
            let h = w.win_create(NewWin {
                comm,
                base: base as usize,
                size: n,
                disp_unit,
                flavor: sys::MPI_WIN_FLAVOR_CREATE,
                mem: WinMem::Fixed(mem),
                allocated: None,
                info: hints,
            })?;
            // SAFETY: checked non-null; MPI's contract: writable.
            unsafe { win.write(h) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Win_allocate / PMPI_Win_allocate(size: MPI_Aint, disp_unit: c_int, info: MPI_Info, comm: MPI_Comm, baseptr: *mut c_void, win: *mut MPI_Win) -> c_int {
        register_kernels();
        call("MPI_Win_allocate", comm, |w| {
            let n = check_size(size)? as usize;
            let hints = check_info(info)?;
            if win.is_null() || baseptr.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as baseptr or win");
            }
            let layout = Layout::from_size_align(n.max(1), ALIGN)
                .or_else(|_| fail(sys::MPI_ERR_NO_MEM, format!("cannot allocate {n} bytes")))?;
            // SAFETY: a non-zero size layout.
            let p = unsafe { std::alloc::alloc_zeroed(layout) };
            if p.is_null() {
                return fail(sys::MPI_ERR_NO_MEM, format!("cannot allocate {n} bytes"));
            }
            // SAFETY: `p` holds `n` bytes, freed only by MPI_Win_free.
            let mem = unsafe { RecvBuf::from_raw(p, n) };
            let made = w.win_create(NewWin {
                comm,
                base: p as usize,
                size: n as u64,
                disp_unit,
                flavor: sys::MPI_WIN_FLAVOR_ALLOCATE,
                mem: WinMem::Fixed(mem),
                allocated: Some((p as usize, n.max(1))),
                info: hints,
            });
            let h = match made {
                Ok(h) => h,
                Err(e) => {
                    // SAFETY: allocated above with this layout, not shared.
                    unsafe { std::alloc::dealloc(p, layout) };
                    return Err(e);
                }
            };
            // SAFETY: checked non-null; baseptr points to a pointer (C's
            // `void *baseptr` holds the address of a `void *`).
            unsafe {
                (baseptr as *mut *mut c_void).write(p as *mut c_void);
                win.write(h);
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Win_free / PMPI_Win_free(win: *mut MPI_Win) -> c_int {
        if win.is_null() {
            return call("MPI_Win_free", sys::MPI_COMM_WORLD, |_| {
                fail(sys::MPI_ERR_ARG, "null pointer passed as win")
            });
        }
        // SAFETY: checked non-null; MPI's contract: readable and writable.
        let h = unsafe { win.read() };
        // the attributes' delete callbacks run first (a failure leaves the
        // window alone)
        if let Err(rc) = crate::abi::obj_attr::free_attrs(crate::abi::obj_attr::Kind::Win, "MPI_Win_free", h) {
            return rc;
        }
        win_call("MPI_Win_free", h, |w| {
            if let Some((p, n)) = w.win_free(h)? {
                let layout = Layout::from_size_align(n, ALIGN).expect("made before");
                // SAFETY: allocated by MPI_Win_allocate with this layout; the
                // window is gone, nothing of ours refers to it any more.
                unsafe { std::alloc::dealloc(p as *mut u8, layout) };
            }
            // SAFETY: as above.
            unsafe { win.write(sys::MPI_WIN_NULL) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Win_get_group / PMPI_Win_get_group(win: MPI_Win, group: *mut sys::MPI_Group) -> c_int {
        win_call("MPI_Win_get_group", win, |w| {
            let g = w.win_group(win)?;
            if group.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as group");
            }
            // SAFETY: checked non-null; MPI's contract: writable.
            unsafe { group.write(g) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Win_set_errhandler / PMPI_Win_set_errhandler(win: MPI_Win, errhandler: MPI_Errhandler) -> c_int {
        win_call("MPI_Win_set_errhandler", win, |w| w.win_set_errhandler(win, errhandler))
    }
}

mpi_fn! {
    fn MPI_Win_get_errhandler / PMPI_Win_get_errhandler(win: MPI_Win, errhandler: *mut MPI_Errhandler) -> c_int {
        win_call("MPI_Win_get_errhandler", win, |w| {
            let eh = w.rma.get(win)?.errhandler;
            if errhandler.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as errhandler");
            }
            // the program gets a reference (MPI_Errhandler_free drops it)
            w.errhandlers.add_ref(eh);
            // SAFETY: checked non-null; MPI's contract: writable.
            unsafe { errhandler.write(eh) };
            Ok(())
        })
    }
}

mpi_fn! {
    /// Under MPI_THREAD_MULTIPLE its waits release the library
    /// (`rma::sync::FenceStep`).
    fn MPI_Win_fence / PMPI_Win_fence(assert: c_int, win: MPI_Win) -> c_int {
        if crate::abi::threads::multi() {
            let mut st = crate::rma::sync::FenceStep::default();
            return win_call_mut("MPI_Win_fence", win, |w| w.win_fence_yielding(win, assert, &mut st));
        }
        win_call("MPI_Win_fence", win, |w| w.win_fence(win, assert))
    }
}

/// The checked target side of an operation.
fn target_spec<'a>(
    w: &World,
    rank: c_int,
    disp: MPI_Aint,
    count: c_int,
    ty: &'a std::sync::Arc<crate::mpi::datatype::Datatype>,
) -> MpiResult<TargetSpec<'a>> {
    let count = args::count(count, "target_count")?;
    let _ = w;
    Ok(TargetSpec {
        rank,
        disp,
        count,
        ty,
    })
}

/// The origin data of a Put / Accumulate, packed.
///
/// # Safety
/// `addr` holds `count` elements of `ty` (MPI's contract).
unsafe fn origin_data(
    addr: *const c_void,
    count: usize,
    ty: &std::sync::Arc<crate::mpi::datatype::Datatype>,
) -> MpiResult<Vec<u8>> {
    // A null address is MPI_BOTTOM: the datatype holds absolute addresses.
    // SAFETY: the caller's contract; only read here.
    let buf = unsafe { OriginBuf::new(addr) };
    Ok(buf.pack(&whole(count, ty)))
}

mpi_fn! {
    fn MPI_Put / PMPI_Put(origin_addr: *const c_void, origin_count: c_int, origin_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, win: MPI_Win) -> c_int {
        win_call("MPI_Put", win, |w| {
            w.rma.get(win)?;
            let oc = args::count(origin_count, "origin_count")?;
            let ot = args::datatype(w, origin_datatype, "origin_datatype")?;
            let tt = args::datatype(w, target_datatype, "target_datatype")?;
            let t = target_spec(w, target_rank, target_disp, target_count, &tt)?;
            // SAFETY: MPI's contract for origin_addr.
            let data = unsafe { origin_data(origin_addr, oc, &ot) }?;
            w.rma_op(win, t, OpKind::Put(data))
        })
    }
}

mpi_fn! {
    fn MPI_Get / PMPI_Get(origin_addr: *mut c_void, origin_count: c_int, origin_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, win: MPI_Win) -> c_int {
        win_call("MPI_Get", win, |w| {
            w.rma.get(win)?;
            let oc = args::count(origin_count, "origin_count")?;
            let ot = args::datatype(w, origin_datatype, "origin_datatype")?;
            let tt = args::datatype(w, target_datatype, "target_datatype")?;
            let t = target_spec(w, target_rank, target_disp, target_count, &tt)?;
            args::buffer(origin_addr.is_null(), oc, &ot, "origin_addr")?;
            // SAFETY: MPI's contract: origin_addr holds `oc` elements of the
            // origin datatype and is not accessed until the operation
            // completes (at the synchronization that ends it).
            let buf = unsafe { OriginBuf::new(origin_addr) };
            let dest = GetDest {
                len: ot.packed_size(oc),
                buf: Box::new(buf),
                blocks: whole(oc, &ot),
            };
            w.rma_op(win, t, OpKind::Get(dest))
        })
    }
}

mpi_fn! {
    fn MPI_Accumulate / PMPI_Accumulate(origin_addr: *const c_void, origin_count: c_int, origin_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, op: MPI_Op, win: MPI_Win) -> c_int {
        win_call("MPI_Accumulate", win, |w| {
            w.rma.get(win)?;
            let oc = args::count(origin_count, "origin_count")?;
            let ot = args::datatype(w, origin_datatype, "origin_datatype")?;
            let tt = args::datatype(w, target_datatype, "target_datatype")?;
            let basic = acc_basic(op, origin_datatype, &ot)?;
            let t = target_spec(w, target_rank, target_disp, target_count, &tt)?;
            // SAFETY: MPI's contract for origin_addr.
            let data = unsafe { origin_data(origin_addr, oc, &ot) }?;
            w.rma_op(win, t, OpKind::Acc(op, basic, data))
        })
    }
}

/// The basic datatype an accumulate applies `op` to: a predefined
/// operator (or MPI_REPLACE / MPI_NO_OP) on a predefined type or a derived
/// type of one predefined type.
fn acc_basic(
    op: MPI_Op,
    dt: MPI_Datatype,
    ty: &crate::mpi::datatype::Datatype,
) -> MpiResult<MPI_Datatype> {
    let Some(p) = Predef::from_handle(op) else {
        return fail(
            sys::MPI_ERR_OP,
            format!("invalid operator {op:#x} for an accumulate (only predefined operators)"),
        );
    };
    let basic = if basic_of(dt).is_some() {
        Some(dt)
    } else if ty.size() == 0 {
        // No data: any predefined type does.
        Some(sys::MPI_INT)
    } else {
        ty.basic()
    };
    let Some(b) = basic.filter(|&b| basic_of(b).is_some()) else {
        return fail(
            sys::MPI_ERR_TYPE,
            format!(
                "accumulate on datatype {}: it must be made of one predefined type",
                ty.name()
            ),
        );
    };
    let (k, _) = basic_of(b).expect("checked");
    if !matches!(
        kernel(p, k),
        Some(crate::mpi::op::Kernel::Native(_) | crate::mpi::op::Kernel::LongDouble(..))
    ) {
        return fail(
            sys::MPI_ERR_OP,
            format!("{} is not defined on datatype {}", p.name(), ty.name()),
        );
    }
    Ok(b)
}

mpi_fn! {
    fn MPI_Win_lock / PMPI_Win_lock(lock_type: c_int, rank: c_int, assert: c_int, win: MPI_Win) -> c_int {
        win_call("MPI_Win_lock", win, |w| w.win_lock(win, lock_type, rank, assert))
    }
}

mpi_fn! {
    fn MPI_Win_unlock / PMPI_Win_unlock(rank: c_int, win: MPI_Win) -> c_int {
        win_call("MPI_Win_unlock", win, |w| w.win_unlock(win, rank))
    }
}

mpi_fn! {
    fn MPI_Win_lock_all / PMPI_Win_lock_all(assert: c_int, win: MPI_Win) -> c_int {
        win_call("MPI_Win_lock_all", win, |w| w.win_lock_all(win, assert))
    }
}

mpi_fn! {
    fn MPI_Win_unlock_all / PMPI_Win_unlock_all(win: MPI_Win) -> c_int {
        win_call("MPI_Win_unlock_all", win, |w| w.win_unlock_all(win))
    }
}

mpi_fn! {
    fn MPI_Win_flush / PMPI_Win_flush(rank: c_int, win: MPI_Win) -> c_int {
        win_call("MPI_Win_flush", win, |w| w.win_flush(win, Some(rank), false))
    }
}

mpi_fn! {
    fn MPI_Win_flush_all / PMPI_Win_flush_all(win: MPI_Win) -> c_int {
        win_call("MPI_Win_flush_all", win, |w| w.win_flush(win, None, false))
    }
}

mpi_fn! {
    fn MPI_Win_flush_local / PMPI_Win_flush_local(rank: c_int, win: MPI_Win) -> c_int {
        win_call("MPI_Win_flush_local", win, |w| w.win_flush(win, Some(rank), true))
    }
}

mpi_fn! {
    fn MPI_Win_flush_local_all / PMPI_Win_flush_local_all(win: MPI_Win) -> c_int {
        win_call("MPI_Win_flush_local_all", win, |w| w.win_flush(win, None, true))
    }
}

mpi_fn! {
    fn MPI_Win_sync / PMPI_Win_sync(win: MPI_Win) -> c_int {
        win_call("MPI_Win_sync", win, |w| w.win_sync(win))
    }
}

mpi_fn! {
    fn MPI_Win_post / PMPI_Win_post(group: sys::MPI_Group, assert: c_int, win: MPI_Win) -> c_int {
        win_call("MPI_Win_post", win, |w| w.win_post(win, group, assert))
    }
}

mpi_fn! {
    fn MPI_Win_start / PMPI_Win_start(group: sys::MPI_Group, assert: c_int, win: MPI_Win) -> c_int {
        win_call("MPI_Win_start", win, |w| w.win_start(win, group, assert))
    }
}

mpi_fn! {
    fn MPI_Win_complete / PMPI_Win_complete(win: MPI_Win) -> c_int {
        win_call("MPI_Win_complete", win, |w| w.win_complete(win))
    }
}

mpi_fn! {
    fn MPI_Win_wait / PMPI_Win_wait(win: MPI_Win) -> c_int {
        win_call("MPI_Win_wait", win, |w| w.win_wait(win, true).map(|_| ()))
    }
}

mpi_fn! {
    fn MPI_Win_test / PMPI_Win_test(win: MPI_Win, flag: *mut c_int) -> c_int {
        win_call("MPI_Win_test", win, |w| {
            if flag.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as flag");
            }
            let done = w.win_wait(win, false)?;
            // SAFETY: checked non-null; MPI's contract: writable.
            unsafe { flag.write(done as c_int) };
            Ok(())
        })
    }
}

/// A result buffer of `count` elements of `ty` at `addr`.
///
/// # Safety
/// MPI's contract: `addr` holds `count` elements of `ty`, not accessed until
/// the operation completes.
unsafe fn result_dest(
    addr: *mut c_void,
    count: usize,
    ty: &std::sync::Arc<crate::mpi::datatype::Datatype>,
    what: &str,
) -> MpiResult<GetDest> {
    args::buffer(addr.is_null(), count, ty, what)?;
    // SAFETY: the caller's contract.
    let buf = unsafe { OriginBuf::new(addr) };
    Ok(GetDest {
        len: ty.packed_size(count),
        buf: Box::new(buf),
        blocks: whole(count, ty),
    })
}

mpi_fn! {
    fn MPI_Get_accumulate / PMPI_Get_accumulate(origin_addr: *const c_void, origin_count: c_int, origin_datatype: MPI_Datatype, result_addr: *mut c_void, result_count: c_int, result_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, op: MPI_Op, win: MPI_Win) -> c_int {
        win_call("MPI_Get_accumulate", win, |w| {
            w.rma.get(win)?;
            let rc = args::count(result_count, "result_count")?;
            let rt = args::datatype(w, result_datatype, "result_datatype")?;
            let tt = args::datatype(w, target_datatype, "target_datatype")?;
            let t = target_spec(w, target_rank, target_disp, target_count, &tt)?;
            let (data, basic) = if op == sys::MPI_NO_OP {
                (Vec::new(), acc_basic(op, result_datatype, &rt)?)
            } else {
                let oc = args::count(origin_count, "origin_count")?;
                let ot = args::datatype(w, origin_datatype, "origin_datatype")?;
                let basic = acc_basic(op, origin_datatype, &ot)?;
                // SAFETY: MPI's contract for origin_addr.
                (unsafe { origin_data(origin_addr, oc, &ot) }?, basic)
            };
            // SAFETY: MPI's contract for result_addr.
            let result = unsafe { result_dest(result_addr, rc, &rt, "result_addr") }?;
            w.rma_op(win, t, OpKind::GetAcc { op, dtype: basic, data, result, fop: false })
        })
    }
}

mpi_fn! {
    fn MPI_Fetch_and_op / PMPI_Fetch_and_op(origin_addr: *const c_void, result_addr: *mut c_void, datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, op: MPI_Op, win: MPI_Win) -> c_int {
        win_call("MPI_Fetch_and_op", win, |w| {
            w.rma.get(win)?;
            let ty = args::datatype(w, datatype, "datatype")?;
            if basic_of(datatype).is_none() {
                return fail(sys::MPI_ERR_TYPE, format!("MPI_Fetch_and_op needs a predefined datatype, not {}", ty.name()));
            }
            let basic = acc_basic(op, datatype, &ty)?;
            let t = target_spec(w, target_rank, target_disp, 1, &ty)?;
            let data = if op == sys::MPI_NO_OP {
                Vec::new()
            } else {
                // SAFETY: MPI's contract for origin_addr.
                unsafe { origin_data(origin_addr, 1, &ty) }?
            };
            // SAFETY: MPI's contract for result_addr.
            let result = unsafe { result_dest(result_addr, 1, &ty, "result_addr") }?;
            w.rma_op(win, t, OpKind::GetAcc { op, dtype: basic, data, result, fop: true })
        })
    }
}

mpi_fn! {
    fn MPI_Compare_and_swap / PMPI_Compare_and_swap(origin_addr: *const c_void, compare_addr: *const c_void, result_addr: *mut c_void, datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, win: MPI_Win) -> c_int {
        win_call("MPI_Compare_and_swap", win, |w| {
            w.rma.get(win)?;
            let ty = args::datatype(w, datatype, "datatype")?;
            if basic_of(datatype).is_none() {
                return fail(sys::MPI_ERR_TYPE, format!("MPI_Compare_and_swap needs a predefined datatype, not {}", ty.name()));
            }
            let t = target_spec(w, target_rank, target_disp, 1, &ty)?;
            // SAFETY: MPI's contract for origin_addr and compare_addr.
            let mut data = unsafe { origin_data(origin_addr, 1, &ty) }?;
            // SAFETY: as above.
            data.extend(unsafe { origin_data(compare_addr, 1, &ty) }?);
            // SAFETY: MPI's contract for result_addr.
            let result = unsafe { result_dest(result_addr, 1, &ty, "result_addr") }?;
            w.rma_op(win, t, OpKind::Cas(data, result))
        })
    }
}

/// Where the response of a request-based GET-like operation lands: the
/// user's buffer (contiguous datatype) or a staging buffer unpacked into it
/// when the request completes (as a receive's).
///
/// # Safety
/// MPI's contract: `addr` has room for `count` elements of `ty` and is not
/// accessed until the request completes.
unsafe fn response_target(
    addr: *mut c_void,
    count: usize,
    ty: &std::sync::Arc<crate::mpi::datatype::Datatype>,
) -> (
    crate::mpi::state::RecvTarget<RecvBuf>,
    std::sync::Arc<crate::mpi::datatype::Datatype>,
    usize,
) {
    let a = crate::mpi::state::RecvArgs {
        comm: sys::MPI_COMM_NULL,
        group: std::sync::Arc::new(crate::mpi::comm::Group::new(Vec::new())),
        ctx: 0,
        src: crate::mpi::comm::Source::ProcNull,
        tag: None,
        ty: ty.clone(),
        count,
        bytes: ty.packed_size(count),
    };
    // SAFETY: the caller's contract.
    (
        unsafe { crate::abi::buffers::recv_target(addr, &a) },
        ty.clone(),
        count,
    )
}

/// Store a request handle.
///
/// # Safety
/// `request` is null or writable.
unsafe fn put_request(
    w: &mut World,
    request: *mut sys::MPI_Request,
    req: crate::mpi::request::Req,
) -> MpiResult<()> {
    if request.is_null() {
        return fail(sys::MPI_ERR_ARG, "null pointer passed as request");
    }
    let h = w.reqs.insert(req);
    // SAFETY: checked non-null; the caller's contract.
    unsafe { request.write(h) };
    Ok(())
}

mpi_fn! {
    fn MPI_Rput / PMPI_Rput(origin_addr: *const c_void, origin_count: c_int, origin_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, win: MPI_Win, request: *mut sys::MPI_Request) -> c_int {
        win_call("MPI_Rput", win, |w| {
            w.rma.get(win)?;
            let oc = args::count(origin_count, "origin_count")?;
            let ot = args::datatype(w, origin_datatype, "origin_datatype")?;
            let tt = args::datatype(w, target_datatype, "target_datatype")?;
            let t = target_spec(w, target_rank, target_disp, target_count, &tt)?;
            // SAFETY: MPI's contract for origin_addr.
            let data = unsafe { origin_data(origin_addr, oc, &ot) }?;
            let req = w.rma_request_op(win, t, OpKind::Put(data), None)?;
            // SAFETY: MPI's contract for request.
            unsafe { put_request(w, request, req) }
        })
    }
}

mpi_fn! {
    fn MPI_Raccumulate / PMPI_Raccumulate(origin_addr: *const c_void, origin_count: c_int, origin_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, op: MPI_Op, win: MPI_Win, request: *mut sys::MPI_Request) -> c_int {
        win_call("MPI_Raccumulate", win, |w| {
            w.rma.get(win)?;
            let oc = args::count(origin_count, "origin_count")?;
            let ot = args::datatype(w, origin_datatype, "origin_datatype")?;
            let tt = args::datatype(w, target_datatype, "target_datatype")?;
            let basic = acc_basic(op, origin_datatype, &ot)?;
            let t = target_spec(w, target_rank, target_disp, target_count, &tt)?;
            // SAFETY: MPI's contract for origin_addr.
            let data = unsafe { origin_data(origin_addr, oc, &ot) }?;
            let req = w.rma_request_op(win, t, OpKind::Acc(op, basic, data), None)?;
            // SAFETY: MPI's contract for request.
            unsafe { put_request(w, request, req) }
        })
    }
}

mpi_fn! {
    fn MPI_Rget / PMPI_Rget(origin_addr: *mut c_void, origin_count: c_int, origin_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, win: MPI_Win, request: *mut sys::MPI_Request) -> c_int {
        win_call("MPI_Rget", win, |w| {
            w.rma.get(win)?;
            let oc = args::count(origin_count, "origin_count")?;
            let ot = args::datatype(w, origin_datatype, "origin_datatype")?;
            let tt = args::datatype(w, target_datatype, "target_datatype")?;
            let t = target_spec(w, target_rank, target_disp, target_count, &tt)?;
            // SAFETY: MPI's contract for origin_addr (until the request completes).
            let dest = unsafe { result_dest(origin_addr, oc, &ot, "origin_addr") }?;
            // SAFETY: as above.
            let rt = unsafe { response_target(origin_addr, oc, &ot) };
            let req = w.rma_request_op(win, t, OpKind::Get(dest), Some(rt))?;
            // SAFETY: MPI's contract for request.
            unsafe { put_request(w, request, req) }
        })
    }
}

mpi_fn! {
    fn MPI_Rget_accumulate / PMPI_Rget_accumulate(origin_addr: *const c_void, origin_count: c_int, origin_datatype: MPI_Datatype, result_addr: *mut c_void, result_count: c_int, result_datatype: MPI_Datatype, target_rank: c_int, target_disp: MPI_Aint, target_count: c_int, target_datatype: MPI_Datatype, op: MPI_Op, win: MPI_Win, request: *mut sys::MPI_Request) -> c_int {
        win_call("MPI_Rget_accumulate", win, |w| {
            w.rma.get(win)?;
            let rc = args::count(result_count, "result_count")?;
            let rt = args::datatype(w, result_datatype, "result_datatype")?;
            let tt = args::datatype(w, target_datatype, "target_datatype")?;
            let t = target_spec(w, target_rank, target_disp, target_count, &tt)?;
            let (data, basic) = if op == sys::MPI_NO_OP {
                (Vec::new(), acc_basic(op, result_datatype, &rt)?)
            } else {
                let oc = args::count(origin_count, "origin_count")?;
                let ot = args::datatype(w, origin_datatype, "origin_datatype")?;
                let basic = acc_basic(op, origin_datatype, &ot)?;
                // SAFETY: MPI's contract for origin_addr.
                (unsafe { origin_data(origin_addr, oc, &ot) }?, basic)
            };
            // SAFETY: MPI's contract for result_addr (until the request completes).
            let result = unsafe { result_dest(result_addr, rc, &rt, "result_addr") }?;
            // SAFETY: as above.
            let target = unsafe { response_target(result_addr, rc, &rt) };
            let op = OpKind::GetAcc { op, dtype: basic, data, result, fop: false };
            let req = w.rma_request_op(win, t, op, Some(target))?;
            // SAFETY: MPI's contract for request.
            unsafe { put_request(w, request, req) }
        })
    }
}

mpi_fn! {
    /// Names longer than MPI_MAX_OBJECT_NAME - 1 bytes are truncated.
    fn MPI_Win_set_name / PMPI_Win_set_name(win: MPI_Win, win_name: *const std::os::raw::c_char) -> c_int {
        win_call("MPI_Win_set_name", win, |w| {
            let x = w.rma.get_mut(win)?;
            if win_name.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as win_name");
            }
            // SAFETY: non-null; MPI requires a NUL-terminated string.
            let s = unsafe { std::ffi::CStr::from_ptr(win_name) }.to_string_lossy();
            let mut end = s.len().min(sys::MPI_MAX_OBJECT_NAME as usize - 1);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            x.name = s[..end].to_string();
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Win_get_name / PMPI_Win_get_name(win: MPI_Win, win_name: *mut std::os::raw::c_char, resultlen: *mut c_int) -> c_int {
        win_call("MPI_Win_get_name", win, |w| {
            let x = w.rma.get(win)?;
            if win_name.is_null() || resultlen.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as win_name or resultlen");
            }
            // SAFETY: MPI requires win_name to hold MPI_MAX_OBJECT_NAME chars;
            // resultlen checked non-null.
            unsafe {
                let n = crate::abi::buffers::put_cstr(win_name, sys::MPI_MAX_OBJECT_NAME as usize, &x.name);
                resultlen.write(n);
            }
            Ok(())
        })
    }
}

mpi_fn! {
    /// The keys MPICH knows change (see `crate::rma::hints`); others are dropped.
    fn MPI_Win_set_info / PMPI_Win_set_info(win: MPI_Win, info: MPI_Info) -> c_int {
        win_call("MPI_Win_set_info", win, |w| {
            let hints = check_info(info)?;
            w.rma.get_mut(win)?.info.set(&hints)?;
            Ok(())
        })
    }
}

mpi_fn! {
    /// A new info object with every hint MPICH reports and its value.
    fn MPI_Win_get_info / PMPI_Win_get_info(win: MPI_Win, info_used: *mut MPI_Info) -> c_int {
        win_call("MPI_Win_get_info", win, |w| {
            let hints = w.rma.get(win)?.info.to_info();
            if info_used.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as info_used");
            }
            let h = with_infos(|t| t.insert(hints));
            // SAFETY: checked non-null; MPI's contract: writable.
            unsafe { info_used.write(h) };
            Ok(())
        })
    }
}

mpi_fn! {
    /// The predefined window attributes: MPI_WIN_BASE (the base address
    /// itself), MPI_WIN_SIZE (MPI_Aint), MPI_WIN_DISP_UNIT,
    /// MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL (ints): `attribute_val`
    /// receives a pointer to the value (C's convention).
    fn MPI_Win_get_attr / PMPI_Win_get_attr(win: MPI_Win, win_keyval: c_int, attribute_val: *mut c_void, flag: *mut c_int) -> c_int {
        win_call("MPI_Win_get_attr", win, |w| {
            let x = w.rma.get(win)?;
            if attribute_val.is_null() || flag.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as attribute_val or flag");
            }
            let p: *const c_void = match win_keyval {
                sys::MPI_WIN_BASE => x.base as *const c_void,
                sys::MPI_WIN_SIZE => &x.attrs.size as *const MPI_Aint as *const c_void,
                sys::MPI_WIN_DISP_UNIT => &x.attrs.disp_unit as *const c_int as *const c_void,
                sys::MPI_WIN_CREATE_FLAVOR => &x.attrs.flavor as *const c_int as *const c_void,
                sys::MPI_WIN_MODEL => &x.attrs.model as *const c_int as *const c_void,
                _ => {
                    let found = crate::abi::obj_attr::win_user_attr(w, win, win_keyval)?;
                    // SAFETY: the caller's pointers (checked non-null).
                    return unsafe { crate::abi::obj_attr::put_found(found, attribute_val, flag) };
                }
            };
            // SAFETY: checked non-null; MPI's contract: `attribute_val`
            // points to a `void *`, `flag` to an int. The values pointed to
            // live as long as the window (boxed: they do not move).
            unsafe {
                (attribute_val as *mut *const c_void).write(p);
                flag.write(1);
            }
            Ok(())
        })
    }
}

mpi_fn! {
    /// Memory for windows (and anything else): `malloc` with MPI's errors;
    /// vaced needs no special memory, so any memory works in a window.
    fn MPI_Alloc_mem / PMPI_Alloc_mem(size: MPI_Aint, info: MPI_Info, baseptr: *mut c_void) -> c_int {
        call("MPI_Alloc_mem", sys::MPI_COMM_WORLD, |_| {
            let n = check_size(size)? as usize;
            check_info(info)?;
            if baseptr.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as baseptr");
            }
            // SAFETY: plain malloc of a non-zero size.
            let p = unsafe { libc::malloc(n.max(1)) };
            if p.is_null() {
                return fail(sys::MPI_ERR_NO_MEM, format!("cannot allocate {n} bytes"));
            }
            // SAFETY: checked non-null; C's `void *baseptr` holds the
            // address of a `void *`.
            unsafe { (baseptr as *mut *mut c_void).write(p) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Free_mem / PMPI_Free_mem(base: *mut c_void) -> c_int {
        call("MPI_Free_mem", sys::MPI_COMM_WORLD, |_| {
            // SAFETY: MPI's contract: memory from MPI_Alloc_mem (or null).
            unsafe { libc::free(base) };
            Ok(())
        })
    }
}
