//! Datatype queries: MPI_Type_size, MPI_Get_count.
use crate::abi::buffers::{out, status_in};
use crate::abi::state::call;
use crate::mpi::status::get_count;
use crate::sys::{self, MPI_Datatype, MPI_Status};
use std::os::raw::c_int;

mpi_fn! {
    fn MPI_Type_size / PMPI_Type_size(datatype: MPI_Datatype, size: *mut c_int) -> c_int {
        call("MPI_Type_size", sys::MPI_COMM_WORLD, |w| {
            let n = w.types.get(datatype)?.size() as c_int;
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(size, "size") }?;
            *o = n;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Get_count / PMPI_Get_count(status: *const MPI_Status, datatype: MPI_Datatype, count: *mut c_int) -> c_int {
        call("MPI_Get_count", sys::MPI_COMM_WORLD, |w| {
            // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
            let st = unsafe { status_in(status) }?;
            let ty = w.types.get(datatype)?;
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(count, "count") }?;
            *o = get_count(st, &ty);
            Ok(())
        })
    }
}
