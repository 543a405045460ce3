//! Dynamic and shared-memory windows: MPI_Win_create_dynamic,
//! MPI_Win_attach, MPI_Win_detach, MPI_Win_allocate_shared,
//! MPI_Win_shared_query: argument checking and the memory handed to
//! `crate::rma::dynamic` / `crate::rma::shared`.
use crate::abi::rma::{register_kernels, win_call};
use crate::abi::state::call;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::info::with_infos;
use crate::sys::{self, MPI_Aint, MPI_Comm, MPI_Info, MPI_Win};
use crate::transport::RecvBuf;
use std::os::raw::{c_int, c_void};

/// The hints of an info argument (a copy; MPI_INFO_NULL: none).
fn hints(info: MPI_Info) -> MpiResult<crate::mpi::info::Info> {
    if info == sys::MPI_INFO_NULL {
        return Ok(Default::default());
    }
    with_infos(|t| t.get(info).cloned())
}

fn size_arg(size: MPI_Aint, what: &str) -> MpiResult<u64> {
    u64::try_from(size).or_else(|_| {
        fail(
            sys::MPI_ERR_SIZE,
            format!("invalid {what} {size} (negative)"),
        )
    })
}

mpi_fn! {
    fn MPI_Win_create_dynamic / PMPI_Win_create_dynamic(info: MPI_Info, comm: MPI_Comm, win: *mut MPI_Win) -> c_int {
        register_kernels();
        call("MPI_Win_create_dynamic", comm, |w| {
            let h = hints(info)?;
            if win.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as win");
            }
            let made = w.win_create_dynamic(comm, h)?;
            // SAFETY: checked non-null; MPI's contract: writable.
            unsafe { win.write(made) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Win_attach / PMPI_Win_attach(win: MPI_Win, base: *mut c_void, size: MPI_Aint) -> c_int {
        win_call("MPI_Win_attach", win, |w| {
            w.rma.get(win)?;
            let n = size_arg(size, "size")?;
            if base.is_null() && n > 0 {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as base");
            }
            // SAFETY: MPI's contract: `size` bytes at `base` are the
            // program's memory and stay valid until MPI_Win_detach (or the
            // window is freed).
            let mem = unsafe { RecvBuf::from_raw(base as *mut u8, n as usize) };
            w.win_attach(win, mem)
        })
    }
}

mpi_fn! {
    fn MPI_Win_detach / PMPI_Win_detach(win: MPI_Win, base: *const c_void) -> c_int {
        win_call("MPI_Win_detach", win, |w| {
            w.rma.get(win)?;
            if base.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as base");
            }
            w.win_detach(win, base as usize)
        })
    }
}

mpi_fn! {
    fn MPI_Win_allocate_shared / PMPI_Win_allocate_shared(size: MPI_Aint, disp_unit: c_int, info: MPI_Info, comm: MPI_Comm, baseptr: *mut c_void, win: *mut MPI_Win) -> c_int {
        register_kernels();
        call("MPI_Win_allocate_shared", comm, |w| {
            let n = size_arg(size, "window size")?;
            let h = hints(info)?;
            if win.is_null() || baseptr.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as baseptr or win");
            }
            let (made, base) = w.win_allocate_shared(comm, n, disp_unit, h)?;
            // SAFETY: checked non-null; C's `void *baseptr` holds the
            // address of a `void *`; MPI's contract: writable.
            unsafe {
                (baseptr as *mut *mut c_void).write(base as *mut c_void);
                win.write(made);
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Win_shared_query / PMPI_Win_shared_query(win: MPI_Win, rank: c_int, size: *mut MPI_Aint, disp_unit: *mut c_int, baseptr: *mut c_void) -> c_int {
        win_call("MPI_Win_shared_query", win, |w| {
            let (n, du, base) = w.win_shared_query(win, rank)?;
            if size.is_null() || disp_unit.is_null() || baseptr.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as size, disp_unit or baseptr");
            }
            // SAFETY: checked non-null; MPI's contract: writable (baseptr
            // holds the address of a `void *`).
            unsafe {
                size.write(n as MPI_Aint);
                disp_unit.write(du);
                (baseptr as *mut *mut c_void).write(base as *mut c_void);
            }
            Ok(())
        })
    }
}
