//! Persistent collectives (MPI-4: MPI_Bcast_init, MPI_Allreduce_init,
//! ... one for each nonblocking collective): MPI_X_init checks its
//! arguments as MPI_IX does (building its schedule without starting it, so
//! the errors are the same) and makes an inactive persistent request; each
//! MPI_Start then starts exactly what MPI_IX would start at that moment
//! (the send buffer read anew, a new schedule through the engine: timing as
//! for the nonblocking collective), and MPI_Wait / MPI_Test leave the
//! request inactive again. As in MPICH 4.0.2, `info` is checked and not
//! used. The request is started through the PMPI_I entry point with the
//! lock released (see `abi::persistent`), so a persistent collective starts
//! exactly like its nonblocking twin, but with the tag its init took: a
//! persistent collective is matched by the order of the init calls, and
//! Starts may come in any order (MPI-4).
use crate::abi::buffers::out;
use crate::abi::state::call;
use crate::mpi::icoll_calls::{validating, with_tag};
use crate::mpi::info::with_infos;
use crate::mpi::persistent::Starter;
use crate::sys::{self, MPI_Comm, MPI_Datatype, MPI_Info, MPI_Op, MPI_Request};
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// The arguments of a persistent collective, kept for its Starts.
struct Kept<T>(T);
// SAFETY: the raw pointers inside are the program's buffers and arrays,
// which MPI requires to stay valid while the persistent request exists; they
// are only passed back to the PMPI_I call on the thread that calls
// MPI_Start.
unsafe impl<T> Send for Kept<T> {}
// SAFETY: as above (never dereferenced here).
unsafe impl<T> Sync for Kept<T> {}

impl<T: Copy> Kept<T> {
    /// The arguments (a method, so that a closure captures the whole
    /// `Kept`, not its fields one by one).
    fn get(&self) -> T {
        self.0
    }
}

/// MPI_X_init: check `info`, check the arguments through the nonblocking
/// call `starter` (its schedule built, not started), then a persistent
/// request whose Starts run `starter`.
///
/// # Safety
/// `request` is null or writable; `starter` calls the PMPI_I entry point
/// with the program's arguments (MPI's contract for them holds until the
/// request is freed).
unsafe fn init(
    name: &str,
    comm: MPI_Comm,
    info: MPI_Info,
    request: *mut MPI_Request,
    starter: Arc<dyn Fn(*mut MPI_Request) -> c_int + Send + Sync>,
) -> c_int {
    let rc = call(name, comm, |w| {
        // SAFETY: null or writable (caller).
        unsafe { out(request, "request") }?;
        if info != sys::MPI_INFO_NULL {
            with_infos(|t| t.get(info).map(|_| ()))?;
        }
        w.comms.get(comm)?;
        Ok(())
    });
    if rc != sys::MPI_SUCCESS {
        return rc;
    }
    let mut scratch = sys::MPI_REQUEST_NULL;
    let (rc, tag) = validating(|| starter(&mut scratch));
    if rc != sys::MPI_SUCCESS {
        return rc;
    }
    let Some(tag) = tag else {
        return call(name, comm, |_| {
            crate::mpi::error::fail(sys::MPI_ERR_INTERN, "no tag for a persistent collective")
        });
    };
    // every Start: the nonblocking call with the tag of the init
    let start: Starter = Arc::new(move |r| with_tag(tag, || starter(r)));
    call(name, comm, |w| {
        let h = w.coll_init(comm, start)?;
        // SAFETY: checked writable above.
        unsafe { request.write(h) };
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Barrier_init / PMPI_Barrier_init(comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Ibarrier(comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Barrier_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Bcast_init / PMPI_Bcast_init(buffer: *mut c_void, count: c_int, datatype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((buffer, count, datatype, root, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (buffer, count, datatype, root, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Ibcast(buffer, count, datatype, root, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Bcast_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Reduce_init / PMPI_Reduce_init(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, recvbuf, count, datatype, op, root, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, recvbuf, count, datatype, op, root, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Reduce_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Allreduce_init / PMPI_Allreduce_init(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, recvbuf, count, datatype, op, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, recvbuf, count, datatype, op, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Allreduce_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Gather_init / PMPI_Gather_init(sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Gather_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Scatter_init / PMPI_Scatter_init(sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Scatter_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Allgather_init / PMPI_Allgather_init(sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Allgather_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Alltoall_init / PMPI_Alltoall_init(sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Alltoall_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Scan_init / PMPI_Scan_init(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, recvbuf, count, datatype, op, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, recvbuf, count, datatype, op, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Scan_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Exscan_init / PMPI_Exscan_init(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, recvbuf, count, datatype, op, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, recvbuf, count, datatype, op, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Exscan_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Gatherv_init / PMPI_Gatherv_init(sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Gatherv_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Scatterv_init / PMPI_Scatterv_init(sendbuf: *const c_void, sendcounts: *const c_int, displs: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Scatterv_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Allgatherv_init / PMPI_Allgatherv_init(sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Allgatherv_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Alltoallv_init / PMPI_Alltoallv_init(sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Alltoallv_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Alltoallw_init / PMPI_Alltoallw_init(sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtypes: *const MPI_Datatype, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtypes: *const MPI_Datatype, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Alltoallw_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Reduce_scatter_init / PMPI_Reduce_scatter_init(sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, recvbuf, recvcounts, datatype, op, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, recvbuf, recvcounts, datatype, op, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Reduce_scatter_init", comm, info, request, starter) }
    }
}

mpi_fn! {
    fn MPI_Reduce_scatter_block_init / PMPI_Reduce_scatter_block_init(sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        let kept = Kept((sendbuf, recvbuf, recvcount, datatype, op, comm,));
        let starter = Arc::new(move |r: *mut MPI_Request| {
            let (sendbuf, recvbuf, recvcount, datatype, op, comm,) = kept.get();
            // SAFETY: the program's arguments, valid while the request
            // exists (MPI's contract), and a writable request.
            unsafe { sys::PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, r) }
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { init("MPI_Reduce_scatter_block_init", comm, info, request, starter) }
    }
}
