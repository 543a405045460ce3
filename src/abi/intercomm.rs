//! Intercommunicator calls: MPI_Intercomm_create, MPI_Intercomm_merge,
//! MPI_Comm_remote_size, MPI_Comm_remote_group. The semantics are in
//! `mpi::intercomm` (MPI_Comm_test_inter is with the other communicator
//! queries in `abi::comm_mgmt`).
use crate::abi::buffers::out;
use crate::abi::state::call;
use crate::sys::{MPI_Comm, MPI_Group};
use std::os::raw::c_int;

mpi_fn! {
    /// `peer_comm` and `remote_leader` are significant at the local leader
    /// only.
    fn MPI_Intercomm_create / PMPI_Intercomm_create(
        local_comm: MPI_Comm, local_leader: c_int, peer_comm: MPI_Comm,
        remote_leader: c_int, tag: c_int, newintercomm: *mut MPI_Comm,
    ) -> c_int {
        call("MPI_Intercomm_create", local_comm, |w| {
            w.comms.get(local_comm)?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(newintercomm, "newintercomm") }?;
            *o = w.intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Intercomm_merge / PMPI_Intercomm_merge(intercomm: MPI_Comm, high: c_int, newintracomm: *mut MPI_Comm) -> c_int {
        call("MPI_Intercomm_merge", intercomm, |w| {
            w.comms.get(intercomm)?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(newintracomm, "newintracomm") }?;
            *o = w.intercomm_merge(intercomm, high != 0)?;
            Ok(())
        })
    }
}

mpi_fn! {
    /// The size of the remote group (of the group for an
    /// intracommunicator, as in MPICH).
    fn MPI_Comm_remote_size / PMPI_Comm_remote_size(comm: MPI_Comm, size: *mut c_int) -> c_int {
        call("MPI_Comm_remote_size", comm, |w| {
            let n = w.comms.remote_size(comm)?;
            // SAFETY: null or a valid int pointer (caller).
            *unsafe { out(size, "size") }? = n;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Comm_remote_group / PMPI_Comm_remote_group(comm: MPI_Comm, group: *mut MPI_Group) -> c_int {
        call("MPI_Comm_remote_group", comm, |w| {
            w.comms.get(comm)?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(group, "group") }?;
            *o = w.comms.remote_group(comm)?;
            Ok(())
        })
    }
}
