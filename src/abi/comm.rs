//! Communicator queries: MPI_Comm_rank, MPI_Comm_size.
use crate::abi::buffers::out;
use crate::abi::state::call;
use crate::sys::MPI_Comm;
use std::os::raw::c_int;

mpi_fn! {
    fn MPI_Comm_rank / PMPI_Comm_rank(comm: MPI_Comm, rank: *mut c_int) -> c_int {
        call("MPI_Comm_rank", comm, |w| {
            let me = w.comms.get(comm)?.my_rank as c_int;
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(rank, "rank") }?;
            *o = me;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Comm_size / PMPI_Comm_size(comm: MPI_Comm, size: *mut c_int) -> c_int {
        call("MPI_Comm_size", comm, |w| {
            let n = w.comms.get(comm)?.size() as c_int;
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(size, "size") }?;
            *o = n;
            Ok(())
        })
    }
}
