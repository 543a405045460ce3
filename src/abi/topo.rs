//! Cartesian topologies: MPI_Dims_create, MPI_Cart_create, MPI_Cart_get,
//! MPI_Cart_coords, MPI_Cart_rank, MPI_Cart_shift, MPI_Cart_sub,
//! MPI_Cartdim_get, MPI_Topo_test.
use crate::abi::buffers::{out, put_int_at};
use crate::abi::group::array;
use crate::abi::state::call;
use crate::mpi::comm_create::cart_of;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::topo::{dims_create, Cart};
use crate::mpi::World;
use crate::sys::{self, MPI_Comm};
use std::os::raw::c_int;
use std::sync::Arc;

/// The Cartesian topology of `comm`.
fn cart(w: &World, comm: MPI_Comm) -> MpiResult<Arc<Cart>> {
    cart_of(w.comms.get(comm)?).cloned()
}

/// Write `v` into the caller's array `p`.
///
/// # Safety
/// `p` is null or has room for `v.len()` ints.
unsafe fn put_ints(p: *mut c_int, v: &[c_int], what: &str) -> MpiResult<()> {
    if v.is_empty() {
        return Ok(());
    }
    if p.is_null() {
        return fail(sys::MPI_ERR_ARG, format!("null pointer passed as {what}"));
    }
    for (i, &x) in v.iter().enumerate() {
        // SAFETY: room for v.len() ints (contract).
        unsafe { put_int_at(p, i, x) };
    }
    Ok(())
}

mpi_fn! {
    fn MPI_Dims_create / PMPI_Dims_create(nnodes: c_int, ndims: c_int, dims: *mut c_int) -> c_int {
        call("MPI_Dims_create", sys::MPI_COMM_WORLD, |_| {
            if ndims < 0 {
                return fail(sys::MPI_ERR_ARG, format!("invalid ndims {ndims} (negative)"));
            }
            if ndims == 0 {
                return Ok(());
            }
            if dims.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as dims");
            }
            // SAFETY: non-null; MPI requires ndims ints at dims.
            let d = unsafe { std::slice::from_raw_parts_mut(dims, ndims as usize) };
            dims_create(nnodes, d)
        })
    }
}

mpi_fn! {
    /// Ranks are never reordered (reorder only chooses how the communicator
    /// is built, as in MPICH).
    fn MPI_Cart_create / PMPI_Cart_create(
        comm_old: MPI_Comm,
        ndims: c_int,
        dims: *const c_int,
        periods: *const c_int,
        reorder: c_int,
        comm_cart: *mut MPI_Comm,
    ) -> c_int {
        call("MPI_Cart_create", comm_old, |w| {
            w.comms.get(comm_old)?;
            if ndims < 0 {
                return fail(sys::MPI_ERR_DIMS, format!("invalid ndims {ndims} (negative)"));
            }
            // SAFETY: ndims ints at dims and at periods (caller).
            let d = unsafe { array(dims, ndims, "dims") }?;
            // SAFETY: as above.
            let p: Vec<bool> = unsafe { array(periods, ndims, "periods") }?
                .iter()
                .map(|&x| x != 0)
                .collect();
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(comm_cart, "comm_cart") }?;
            *o = w.cart_create(comm_old, d, &p, reorder != 0)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Cart_get / PMPI_Cart_get(comm: MPI_Comm, maxdims: c_int, dims: *mut c_int, periods: *mut c_int, coords: *mut c_int) -> c_int {
        call("MPI_Cart_get", comm, |w| {
            let c = cart(w, comm)?;
            c.check_maxdims(maxdims)?;
            let per: Vec<c_int> = c.periods.iter().map(|&p| p as c_int).collect();
            // SAFETY: each array has room for maxdims >= ndims ints (caller).
            unsafe {
                put_ints(dims, &c.dims, "dims")?;
                put_ints(periods, &per, "periods")?;
                put_ints(coords, &c.coords, "coords")
            }
        })
    }
}

mpi_fn! {
    fn MPI_Cart_coords / PMPI_Cart_coords(comm: MPI_Comm, rank: c_int, maxdims: c_int, coords: *mut c_int) -> c_int {
        call("MPI_Cart_coords", comm, |w| {
            let v = cart(w, comm)?.coords_of(rank, maxdims)?;
            // SAFETY: room for maxdims >= ndims ints (caller).
            unsafe { put_ints(coords, &v, "coords") }
        })
    }
}

mpi_fn! {
    fn MPI_Cart_rank / PMPI_Cart_rank(comm: MPI_Comm, coords: *const c_int, rank: *mut c_int) -> c_int {
        call("MPI_Cart_rank", comm, |w| {
            let c = cart(w, comm)?;
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(rank, "rank") }?;
            // SAFETY: ndims ints at coords (caller).
            let v = unsafe { array(coords, c.ndims() as c_int, "coords") }?;
            *o = c.rank_of(v)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Cart_shift / PMPI_Cart_shift(comm: MPI_Comm, direction: c_int, disp: c_int, rank_source: *mut c_int, rank_dest: *mut c_int) -> c_int {
        call("MPI_Cart_shift", comm, |w| {
            let me = w.comms.get(comm)?.my_rank;
            let (s, d) = cart(w, comm)?.shift(direction, disp, me)?;
            // SAFETY: null or valid int pointers (caller).
            unsafe {
                *out(rank_source, "rank_source")? = s;
                *out(rank_dest, "rank_dest")? = d;
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Cart_sub / PMPI_Cart_sub(comm: MPI_Comm, remain_dims: *const c_int, newcomm: *mut MPI_Comm) -> c_int {
        call("MPI_Cart_sub", comm, |w| {
            let c = cart(w, comm)?;
            // SAFETY: ndims ints at remain_dims (caller).
            let r: Vec<bool> = unsafe { array(remain_dims, c.ndims() as c_int, "remain_dims") }?
                .iter()
                .map(|&x| x != 0)
                .collect();
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(newcomm, "newcomm") }?;
            *o = w.cart_sub(comm, &r)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Cartdim_get / PMPI_Cartdim_get(comm: MPI_Comm, ndims: *mut c_int) -> c_int {
        call("MPI_Cartdim_get", comm, |w| {
            let n = cart(w, comm)?.ndims() as c_int;
            // SAFETY: null or a valid int pointer (caller).
            *unsafe { out(ndims, "ndims") }? = n;
            Ok(())
        })
    }
}

mpi_fn! {
    /// MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH, MPI_UNDEFINED without a
    /// topology.
    fn MPI_Topo_test / PMPI_Topo_test(comm: MPI_Comm, status: *mut c_int) -> c_int {
        call("MPI_Topo_test", comm, |w| {
            let t = crate::mpi::graph::topo_kind(w.comms.get(comm)?);
            // SAFETY: null or a valid int pointer (caller).
            *unsafe { out(status, "status") }? = t;
            Ok(())
        })
    }
}
