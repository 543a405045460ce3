//! Reducing collectives: MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter,
//! MPI_Reduce_scatter_block, MPI_Scan, MPI_Exscan. Argument checking
//! (communicator, count, datatype, operator, root, buffers), the operator
//! resolved into the algorithms' `coll::Op` (`abi::op`), the semantics in
//! `mpi::coll_calls`. MPI_Reduce_c and MPI_Allreduce_c (MPI-4 large counts)
//! share the code of MPI_Reduce and MPI_Allreduce.
use crate::abi::inter_coll;
use crate::abi::op::{resolve, with_op};
use crate::abi::state::call;
use crate::abi::userbuf::{array, in_place, RawBuf};
use crate::mpi::coll_args::{self as args, CollComm, UserBuf};
use crate::mpi::coll_calls::{self, Data};
use crate::mpi::datatype::Datatype;
use crate::mpi::error::MpiResult;
use crate::mpi::op::Reduction;
use crate::mpi::World;
use crate::sys::{MPI_Comm, MPI_Count, MPI_Datatype, MPI_Op};
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// Checked arguments shared by the reductions.
struct Red {
    cc: CollComm,
    ty: Arc<Datatype>,
    r: Reduction,
}

/// Checks, in MPICH's order, the communicator, the count, the datatype and
/// the operator.
fn red(
    w: &World,
    comm: MPI_Comm,
    count: impl Copy + Into<i64>,
    datatype: MPI_Datatype,
    op: MPI_Op,
) -> MpiResult<(Red, usize)> {
    let cc = CollComm::of(w, comm)?;
    let count = args::count(count, "count")?;
    let ty = args::datatype(w, datatype, "datatype")?;
    let r = resolve(op, datatype, &ty)?;
    Ok((Red { cc, ty, r }, count))
}

/// The send buffer (None: MPI_IN_PLACE) and the receive buffer, after the
/// null and aliasing checks for `scount` / `rcount` elements.
///
/// # Safety
/// Unless null or MPI_IN_PLACE, `sendbuf` holds `scount` elements and
/// `recvbuf` has room for `rcount` elements (in-place: holds the input) of
/// `ty`, for this blocking call.
unsafe fn buffers(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    scount: usize,
    rcount: usize,
    ty: &Datatype,
) -> MpiResult<(Option<RawBuf>, RawBuf)> {
    args::buffer(recvbuf.is_null(), rcount, ty, "recvbuf")?;
    let send = if in_place(sendbuf) {
        None
    } else {
        args::buffer(sendbuf.is_null(), scount, ty, "sendbuf")?;
        args::not_aliased(sendbuf as usize, recvbuf as usize, ty.packed_size(rcount))?;
        // SAFETY: the caller's contract.
        Some(unsafe { RawBuf::new(sendbuf) })
    };
    // SAFETY: the caller's contract.
    Ok((send, unsafe { RawBuf::new(recvbuf) }))
}

fn as_user(b: &Option<RawBuf>) -> Option<&dyn UserBuf> {
    b.as_ref().map(|s| s as &dyn UserBuf)
}

/// MPI_Reduce(_c).
///
/// # Safety
/// MPI's contract for the buffers of this blocking call.
#[allow(clippy::too_many_arguments)]
unsafe fn reduce(
    name: &str,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: impl Copy + Into<i64>,
    datatype: MPI_Datatype,
    op: MPI_Op,
    root: c_int,
    comm: MPI_Comm,
) -> c_int {
    call(name, comm, |w| {
        if let Some(ic) = inter_coll::of(w, comm)? {
            // SAFETY: the caller's MPI contract, passed on.
            return unsafe {
                inter_coll::reduce(w, &ic, sendbuf, recvbuf, count, datatype, op, root)
            };
        }
        let (a, count) = red(w, comm, count, datatype, op)?;
        let root = args::root(root, a.cc.size())?;
        let is_root = a.cc.me == root;
        if in_place(sendbuf) && !is_root {
            return args::no_in_place("sendbuf", "only the root may pass it");
        }
        // recvbuf only matters at the root.
        let rcount = if is_root { count } else { 0 };
        let recvbuf = if is_root {
            recvbuf
        } else {
            std::ptr::null_mut()
        };
        // SAFETY: sendbuf holds `count` elements; at the root recvbuf has
        // room for them (MPI's contract for this blocking call).
        let (s, mut r) = unsafe { buffers(sendbuf, recvbuf, count, rcount, &a.ty) }?;
        let d = Data { count, ty: &a.ty };
        with_op(&a.r, datatype, &a.ty, |op| {
            coll_calls::reduce(&mut w.ep, &a.cc, as_user(&s), &mut r, d, root, op)
        });
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Reduce / PMPI_Reduce(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, root: c_int, comm: MPI_Comm) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, req) }
        }) {
            return rc;
        }
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm) }
    }
}

mpi_fn! {
    fn MPI_Reduce_c / PMPI_Reduce_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, op: MPI_Op, root: c_int, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { reduce("MPI_Reduce_c", sendbuf, recvbuf, count, datatype, op, root, comm) }
    }
}

/// MPI_Allreduce(_c).
///
/// # Safety
/// MPI's contract for the buffers of this blocking call.
#[allow(clippy::too_many_arguments)]
unsafe fn allreduce(
    name: &str,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: impl Copy + Into<i64>,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: MPI_Comm,
) -> c_int {
    call(name, comm, |w| {
        if let Some(ic) = inter_coll::of(w, comm)? {
            // SAFETY: the caller's MPI contract, passed on.
            return unsafe { inter_coll::allreduce(w, &ic, sendbuf, recvbuf, count, datatype, op) };
        }
        let (a, count) = red(w, comm, count, datatype, op)?;
        // SAFETY: MPI's contract for the buffers of this blocking call.
        let (s, mut r) = unsafe { buffers(sendbuf, recvbuf, count, count, &a.ty) }?;
        let d = Data { count, ty: &a.ty };
        with_op(&a.r, datatype, &a.ty, |op| {
            coll_calls::allreduce(&mut w.ep, &a.cc, as_user(&s), &mut r, d, op)
        });
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Allreduce / PMPI_Allreduce(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, req) }
        }) {
            return rc;
        }
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm) }
    }
}

mpi_fn! {
    fn MPI_Allreduce_c / PMPI_Allreduce_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { allreduce("MPI_Allreduce_c", sendbuf, recvbuf, count, datatype, op, comm) }
    }
}

mpi_fn! {
    fn MPI_Scan / PMPI_Scan(
        sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype,
        op: MPI_Op, comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, req) }
        }) {
            return rc;
        }
        call("MPI_Scan", comm, |w| {
            let (a, count) = red(w, comm, count, datatype, op)?;
            // SAFETY: MPI's contract for the buffers of this blocking call.
            let (s, mut r) = unsafe { buffers(sendbuf, recvbuf, count, count, &a.ty) }?;
            let d = Data { count, ty: &a.ty };
            with_op(&a.r, datatype, &a.ty, |op| {
                coll_calls::scan(&mut w.ep, &a.cc, as_user(&s), &mut r, d, op)
            });
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Exscan / PMPI_Exscan(
        sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype,
        op: MPI_Op, comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, req) }
        }) {
            return rc;
        }
        call("MPI_Exscan", comm, |w| {
            let (a, count) = red(w, comm, count, datatype, op)?;
            // SAFETY: MPI's contract for the buffers of this blocking call.
            let (s, mut r) = unsafe { buffers(sendbuf, recvbuf, count, count, &a.ty) }?;
            let d = Data { count, ty: &a.ty };
            with_op(&a.r, datatype, &a.ty, |op| {
                coll_calls::exscan(&mut w.ep, &a.cc, as_user(&s), &mut r, d, op)
            });
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Reduce_scatter / PMPI_Reduce_scatter(
        sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int,
        datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, req) }
        }) {
            return rc;
        }
        call("MPI_Reduce_scatter", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_coll::reduce_scatter(w, &ic, sendbuf, recvbuf, recvcounts, datatype, op) };
            }
            let cc = CollComm::of(w, comm)?;
            // SAFETY: one entry per rank (MPI's contract).
            let counts = unsafe { array(recvcounts, cc.size(), "recvcounts") }?;
            let counts = args::counts(counts, "recvcounts")?;
            let (a, _) = red(w, comm, 0, datatype, op)?;
            let total: usize = counts.iter().sum();
            // In place, recvbuf holds the whole input.
            let rcount = if in_place(sendbuf) { total } else { counts[cc.me] };
            // SAFETY: MPI's contract for the buffers of this blocking call.
            let (s, mut r) = unsafe { buffers(sendbuf, recvbuf, total, rcount, &a.ty) }?;
            with_op(&a.r, datatype, &a.ty, |op| {
                coll_calls::reduce_scatter(&mut w.ep, &a.cc, as_user(&s), &mut r, &counts, &a.ty, op)
            });
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Reduce_scatter_block / PMPI_Reduce_scatter_block(
        sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int,
        datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, req) }
        }) {
            return rc;
        }
        call("MPI_Reduce_scatter_block", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_coll::reduce_scatter_block(w, &ic, sendbuf, recvbuf, recvcount, datatype, op) };
            }
            let (a, count) = red(w, comm, recvcount, datatype, op)?;
            let total = count * a.cc.size();
            let rcount = if in_place(sendbuf) { total } else { count };
            // SAFETY: MPI's contract for the buffers of this blocking call.
            let (s, mut r) = unsafe { buffers(sendbuf, recvbuf, total, rcount, &a.ty) }?;
            let d = Data { count, ty: &a.ty };
            with_op(&a.r, datatype, &a.ty, |op| {
                coll_calls::reduce_scatter_block(&mut w.ep, &a.cc, as_user(&s), &mut r, d, op)
            });
            Ok(())
        })
    }
}
