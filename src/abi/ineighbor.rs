//! Nonblocking neighbourhood collectives: MPI_Ineighbor_allgather(v),
//! MPI_Ineighbor_alltoall(v,w). Arguments are checked as for the blocking
//! forms (`abi::neighbor`), plus the request pointer; the schedule is in
//! `mpi::ineighbor_calls`.
use crate::abi::buffers::out;
use crate::abi::neighbor::{check_blocks, same_block, setup, v_arrays, w_blocks};
use crate::abi::state::call;
use crate::abi::userbuf::RawBuf;
use crate::mpi::coll_args::{self as args, consecutive, displaced, Block};
use crate::mpi::error::MpiResult;
use crate::mpi::icoll_calls;
use crate::mpi::ineighbor_calls::ineighbor;
use crate::mpi::World;
use crate::sys::{MPI_Aint, MPI_Comm, MPI_Datatype, MPI_Request};
use std::os::raw::{c_int, c_void};

/// Start the schedule once the blocks are known.
///
/// # Safety
/// MPI's contract for a nonblocking call: the buffers hold (have room for)
/// their blocks until the request completes; `request` null or writable.
#[allow(clippy::too_many_arguments)]
unsafe fn start(
    w: &mut World,
    comm: MPI_Comm,
    name: &'static str,
    sendbuf: *const c_void,
    sblocks: &[Block],
    recvbuf: *mut c_void,
    rblocks: Vec<Block>,
    reverse: bool,
    request: *mut MPI_Request,
) -> MpiResult<()> {
    let (cc, nb) = setup(w, comm, sendbuf)?;
    // SAFETY: null or a valid request pointer (caller).
    let req = unsafe { out(request, "request") }?;
    // SAFETY: the caller's contract.
    let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    let tag = icoll_calls::next_tag(w, comm)?;
    let s = ineighbor(
        &cc,
        tag,
        &nb,
        name,
        &sb,
        sblocks,
        Box::new(rb),
        rblocks,
        reverse,
    );
    *req = icoll_calls::start(w, comm, s)?;
    Ok(())
}

mpi_fn! {
    fn MPI_Ineighbor_allgather / PMPI_Ineighbor_allgather(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Ineighbor_allgather", comm, |w| {
            let (_, nb) = setup(w, comm, sendbuf)?;
            let sn = args::count(sendcount, "sendcount")?;
            let st = args::datatype(w, sendtype, "sendtype")?;
            let rn = args::count(recvcount, "recvcount")?;
            let rt = args::datatype(w, recvtype, "recvtype")?;
            args::buffer(sendbuf.is_null(), sn, &st, "sendbuf")?;
            args::buffer(recvbuf.is_null(), rn, &rt, "recvbuf")?;
            let sblocks = same_block(nb.1.len(), sn, &st);
            let rblocks = consecutive(nb.0.len(), rn, &rt);
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { start(w, comm, "MPI_Ineighbor_allgather", sendbuf, &sblocks, recvbuf, rblocks, false, request) }
        })
    }
}

mpi_fn! {
    fn MPI_Ineighbor_allgatherv / PMPI_Ineighbor_allgatherv(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Ineighbor_allgatherv", comm, |w| {
            let (_, nb) = setup(w, comm, sendbuf)?;
            let sn = args::count(sendcount, "sendcount")?;
            let st = args::datatype(w, sendtype, "sendtype")?;
            args::buffer(sendbuf.is_null(), sn, &st, "sendbuf")?;
            // SAFETY: both arrays have one entry per in-neighbour.
            let (rc, rd) = unsafe { v_arrays(recvcounts, displs, nb.0.len(), ("recvcounts", "displs")) }?;
            let rt = args::datatype(w, recvtype, "recvtype")?;
            args::buffer(recvbuf.is_null(), rc.iter().sum(), &rt, "recvbuf")?;
            let sblocks = same_block(nb.1.len(), sn, &st);
            let rblocks = displaced(&rc, &rd, &rt);
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { start(w, comm, "MPI_Ineighbor_allgatherv", sendbuf, &sblocks, recvbuf, rblocks, false, request) }
        })
    }
}

mpi_fn! {
    /// Receives are posted from the last in-neighbour to the first (MPICH).
    fn MPI_Ineighbor_alltoall / PMPI_Ineighbor_alltoall(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Ineighbor_alltoall", comm, |w| {
            let (_, nb) = setup(w, comm, sendbuf)?;
            let sn = args::count(sendcount, "sendcount")?;
            let st = args::datatype(w, sendtype, "sendtype")?;
            let rn = args::count(recvcount, "recvcount")?;
            let rt = args::datatype(w, recvtype, "recvtype")?;
            args::buffer(sendbuf.is_null(), sn, &st, "sendbuf")?;
            args::buffer(recvbuf.is_null(), rn, &rt, "recvbuf")?;
            let sblocks = consecutive(nb.1.len(), sn, &st);
            let rblocks = consecutive(nb.0.len(), rn, &rt);
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { start(w, comm, "MPI_Ineighbor_alltoall", sendbuf, &sblocks, recvbuf, rblocks, true, request) }
        })
    }
}

mpi_fn! {
    fn MPI_Ineighbor_alltoallv / PMPI_Ineighbor_alltoallv(
        sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Ineighbor_alltoallv", comm, |w| {
            let (_, nb) = setup(w, comm, sendbuf)?;
            // SAFETY: one entry per out-neighbour.
            let (sc, sd) = unsafe { v_arrays(sendcounts, sdispls, nb.1.len(), ("sendcounts", "sdispls")) }?;
            let st = args::datatype(w, sendtype, "sendtype")?;
            args::buffer(sendbuf.is_null(), sc.iter().sum(), &st, "sendbuf")?;
            // SAFETY: one entry per in-neighbour.
            let (rc, rd) = unsafe { v_arrays(recvcounts, rdispls, nb.0.len(), ("recvcounts", "rdispls")) }?;
            let rt = args::datatype(w, recvtype, "recvtype")?;
            args::buffer(recvbuf.is_null(), rc.iter().sum(), &rt, "recvbuf")?;
            let sblocks = displaced(&sc, &sd, &st);
            let rblocks = displaced(&rc, &rd, &rt);
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { start(w, comm, "MPI_Ineighbor_alltoallv", sendbuf, &sblocks, recvbuf, rblocks, false, request) }
        })
    }
}

mpi_fn! {
    /// Displacements in bytes (MPI_Aint), a datatype per neighbour.
    fn MPI_Ineighbor_alltoallw / PMPI_Ineighbor_alltoallw(
        sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const MPI_Aint, sendtypes: *const MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const MPI_Aint, recvtypes: *const MPI_Datatype,
        comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Ineighbor_alltoallw", comm, |w| {
            let (_, nb) = setup(w, comm, sendbuf)?;
            // SAFETY: one entry per out-neighbour.
            let sblocks = unsafe {
                w_blocks(w, sendcounts, sdispls, sendtypes, nb.1.len(), ("sendcounts", "sdispls", "sendtypes"))
            }?;
            check_blocks(&sblocks, sendbuf.is_null(), "sendbuf")?;
            // SAFETY: one entry per in-neighbour.
            let rblocks = unsafe {
                w_blocks(w, recvcounts, rdispls, recvtypes, nb.0.len(), ("recvcounts", "rdispls", "recvtypes"))
            }?;
            check_blocks(&rblocks, recvbuf.is_null(), "recvbuf")?;
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { start(w, comm, "MPI_Ineighbor_alltoallw", sendbuf, &sblocks, recvbuf, rblocks, false, request) }
        })
    }
}
