//! Datatype queries: MPI_Type_size(_x), MPI_Type_get_extent(_x),
//! MPI_Type_get_true_extent(_x), the deprecated MPI_Type_extent /
//! MPI_Type_lb / MPI_Type_ub, MPI_Get_count and MPI_Get_elements(_x).
//! Queries work on uncommitted types too; MPI_Get_elements, like MPICH,
//! wants a committed one.
use crate::abi::buffers::{out, status_in};
use crate::abi::state::call;
use crate::mpi::datatype::Datatype;
use crate::mpi::error::MpiResult;
use crate::mpi::status::{get_count, status_bytes};
use crate::mpi::World;
use crate::sys::{self, MPI_Aint, MPI_Count, MPI_Datatype, MPI_Status};
use std::os::raw::c_int;
use std::sync::Arc;

const WORLD: sys::MPI_Comm = sys::MPI_COMM_WORLD;

/// Run query `name` on `datatype` (committed or not).
fn query(name: &str, datatype: MPI_Datatype, f: impl FnOnce(&Datatype) -> MpiResult<()>) -> c_int {
    call(name, WORLD, |w: &mut World| {
        f(&*w.types.get_any(datatype)?)
    })
}

/// An int result: MPI_UNDEFINED when it does not fit.
fn int_or_undefined(v: u64) -> c_int {
    c_int::try_from(v).unwrap_or(sys::MPI_UNDEFINED)
}

mpi_fn! {
    fn MPI_Type_size / PMPI_Type_size(datatype: MPI_Datatype, size: *mut c_int) -> c_int {
        query("MPI_Type_size", datatype, |t| {
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(size, "size") }?;
            *o = int_or_undefined(t.size() as u64);
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Type_size_x / PMPI_Type_size_x(datatype: MPI_Datatype, size: *mut MPI_Count) -> c_int {
        query("MPI_Type_size_x", datatype, |t| {
            // SAFETY: null or a valid MPI_Count pointer (caller).
            let o = unsafe { out(size, "size") }?;
            *o = t.size() as MPI_Count;
            Ok(())
        })
    }
}

/// Store two results (lb / extent pairs).
///
/// # Safety
/// `a` and `b` are null or valid for writes.
unsafe fn put2<T>(a: *mut T, an: &str, av: T, b: *mut T, bn: &str, bv: T) -> MpiResult<()> {
    // SAFETY: by the contract.
    let (a, b) = unsafe { (out(a, an)?, out(b, bn)?) };
    *a = av;
    *b = bv;
    Ok(())
}

mpi_fn! {
    fn MPI_Type_get_extent / PMPI_Type_get_extent(datatype: MPI_Datatype, lb: *mut MPI_Aint, extent: *mut MPI_Aint) -> c_int {
        query("MPI_Type_get_extent", datatype, |t| {
            // SAFETY: null or valid pointers (caller).
            unsafe { put2(lb, "lb", t.lb() as MPI_Aint, extent, "extent", t.extent() as MPI_Aint) }
        })
    }
}

mpi_fn! {
    fn MPI_Type_get_extent_x / PMPI_Type_get_extent_x(datatype: MPI_Datatype, lb: *mut MPI_Count, extent: *mut MPI_Count) -> c_int {
        query("MPI_Type_get_extent_x", datatype, |t| {
            // SAFETY: null or valid pointers (caller).
            unsafe { put2(lb, "lb", t.lb() as MPI_Count, extent, "extent", t.extent() as MPI_Count) }
        })
    }
}

mpi_fn! {
    fn MPI_Type_get_true_extent / PMPI_Type_get_true_extent(datatype: MPI_Datatype, true_lb: *mut MPI_Aint, true_extent: *mut MPI_Aint) -> c_int {
        query("MPI_Type_get_true_extent", datatype, |t| {
            // SAFETY: null or valid pointers (caller).
            unsafe {
                put2(true_lb, "true_lb", t.true_lb() as MPI_Aint,
                     true_extent, "true_extent", t.true_extent() as MPI_Aint)
            }
        })
    }
}

mpi_fn! {
    fn MPI_Type_get_true_extent_x / PMPI_Type_get_true_extent_x(datatype: MPI_Datatype, true_lb: *mut MPI_Count, true_extent: *mut MPI_Count) -> c_int {
        query("MPI_Type_get_true_extent_x", datatype, |t| {
            // SAFETY: null or valid pointers (caller).
            unsafe {
                put2(true_lb, "true_lb", t.true_lb() as MPI_Count,
                     true_extent, "true_extent", t.true_extent() as MPI_Count)
            }
        })
    }
}

/// One MPI_Aint result of a deprecated query.
///
/// # Safety
/// `p` is null or valid for a write.
unsafe fn aint_query(
    name: &str,
    datatype: MPI_Datatype,
    p: *mut MPI_Aint,
    what: &str,
    v: fn(&Datatype) -> isize,
) -> c_int {
    query(name, datatype, |t| {
        // SAFETY: null or a valid MPI_Aint pointer (contract).
        let o = unsafe { out(p, what) }?;
        *o = v(t) as MPI_Aint;
        Ok(())
    })
}

mpi_fn! {
    /// Deprecated (MPI-1): the extent.
    fn MPI_Type_extent / PMPI_Type_extent(datatype: MPI_Datatype, extent: *mut MPI_Aint) -> c_int {
        // SAFETY: the caller's pointer, passed on.
        unsafe { aint_query("MPI_Type_extent", datatype, extent, "extent", Datatype::extent) }
    }
}

mpi_fn! {
    /// Deprecated (MPI-1): the lower bound.
    fn MPI_Type_lb / PMPI_Type_lb(datatype: MPI_Datatype, displacement: *mut MPI_Aint) -> c_int {
        // SAFETY: the caller's pointer, passed on.
        unsafe { aint_query("MPI_Type_lb", datatype, displacement, "displacement", Datatype::lb) }
    }
}

mpi_fn! {
    /// Deprecated (MPI-1): the upper bound.
    fn MPI_Type_ub / PMPI_Type_ub(datatype: MPI_Datatype, displacement: *mut MPI_Aint) -> c_int {
        // SAFETY: the caller's pointer, passed on.
        unsafe { aint_query("MPI_Type_ub", datatype, displacement, "displacement", Datatype::ub) }
    }
}

mpi_fn! {
    fn MPI_Get_count / PMPI_Get_count(status: *const MPI_Status, datatype: MPI_Datatype, count: *mut c_int) -> c_int {
        call("MPI_Get_count", WORLD, |w| {
            // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
            let st = unsafe { status_in(status) }?;
            let ty = w.types.get_any(datatype)?;
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(count, "count") }?;
            *o = get_count(st, &ty);
            Ok(())
        })
    }
}

/// The basic elements of the message `status` describes, as `datatype`
/// (committed) counts them; None for MPI_UNDEFINED.
///
/// # Safety
/// `status` is null, MPI_STATUS_IGNORE or a valid status.
unsafe fn elements(
    w: &World,
    status: *const MPI_Status,
    datatype: MPI_Datatype,
) -> MpiResult<Option<u64>> {
    // SAFETY: by the contract.
    let st = unsafe { status_in(status) }?;
    let ty: Arc<Datatype> = w.types.get(datatype)?;
    Ok(ty.elements(status_bytes(st)))
}

mpi_fn! {
    fn MPI_Get_elements / PMPI_Get_elements(status: *const MPI_Status, datatype: MPI_Datatype, count: *mut c_int) -> c_int {
        call("MPI_Get_elements", WORLD, |w| {
            // SAFETY: the caller's status pointer.
            let n = unsafe { elements(w, status, datatype) }?;
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(count, "count") }?;
            *o = n.map_or(sys::MPI_UNDEFINED, int_or_undefined);
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Get_elements_x / PMPI_Get_elements_x(status: *const MPI_Status, datatype: MPI_Datatype, count: *mut MPI_Count) -> c_int {
        call("MPI_Get_elements_x", WORLD, |w| {
            // SAFETY: the caller's status pointer.
            let n = unsafe { elements(w, status, datatype) }?;
            // SAFETY: null or a valid MPI_Count pointer (caller).
            let o = unsafe { out(count, "count") }?;
            *o = n.map_or(sys::MPI_UNDEFINED as MPI_Count, |n| n as MPI_Count);
            Ok(())
        })
    }
}
