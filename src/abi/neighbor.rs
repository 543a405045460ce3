//! Blocking neighbourhood collectives: MPI_Neighbor_allgather(v),
//! MPI_Neighbor_alltoall(v,w), on Cartesian, graph and distributed-graph
//! communicators (MPI_ERR_TOPOLOGY without a topology). Argument checks:
//! communicator, topology, counts, datatypes, buffers (MPI_IN_PLACE is not
//! allowed: MPI_ERR_BUFFER); the per-neighbour arrays have one entry per
//! in- or out-neighbour. The semantics are in `mpi::neighbor_calls`, the
//! message schedule in `coll::neighbor`.
use crate::abi::state::call;
use crate::abi::userbuf::{array, in_place, RawBuf};
use crate::mpi::coll_args::{self as args, consecutive, displaced, Block, CollComm};
use crate::mpi::error::MpiResult;
use crate::mpi::graph::{neighbors, Neighbors};
use crate::mpi::neighbor_calls::neighbor_exchange;
use crate::mpi::World;
use crate::sys::{MPI_Aint, MPI_Comm, MPI_Datatype};
use std::os::raw::{c_int, c_void};

/// The communicator and its neighbours; MPI_IN_PLACE rejected.
pub(super) fn setup(
    w: &World,
    comm: MPI_Comm,
    sendbuf: *const c_void,
) -> MpiResult<(CollComm, Neighbors)> {
    let cc = CollComm::of(w, comm)?;
    let nb = neighbors(w.comms.get(comm)?)?;
    if in_place(sendbuf) {
        args::no_in_place("sendbuf", "neighbourhood collectives have no in-place form")?;
    }
    Ok((cc, nb))
}

/// `n` blocks of `count` elements of `ty`, all at the buffer's start.
pub(super) fn same_block(
    n: usize,
    count: usize,
    ty: &std::sync::Arc<crate::mpi::datatype::Datatype>,
) -> Vec<Block> {
    (0..n)
        .map(|_| Block {
            off: 0,
            count,
            ty: ty.clone(),
        })
        .collect()
}

/// Counts and displacements of `n` neighbours.
///
/// # Safety
/// Both pointers are null or point to `n` readable ints.
pub(super) unsafe fn v_arrays(
    counts: *const c_int,
    displs: *const c_int,
    n: usize,
    names: (&str, &str),
) -> MpiResult<(Vec<usize>, Vec<c_int>)> {
    // SAFETY: the caller's contract.
    let c = args::counts(unsafe { array(counts, n, names.0) }?, names.0)?;
    // SAFETY: the caller's contract.
    let d = unsafe { array(displs, n, names.1) }?.to_vec();
    Ok((c, d))
}

/// Blocks of MPI_Neighbor_alltoallw: counts, byte displacements (MPI_Aint)
/// and a datatype each, for `n` neighbours.
///
/// # Safety
/// The pointers are null or point to `n` readable entries.
pub(super) unsafe fn w_blocks(
    w: &World,
    counts: *const c_int,
    displs: *const MPI_Aint,
    types: *const MPI_Datatype,
    n: usize,
    names: (&str, &str, &str),
) -> MpiResult<Vec<Block>> {
    // SAFETY: the caller's contract.
    let c = args::counts(unsafe { array(counts, n, names.0) }?, names.0)?;
    // SAFETY: the caller's contract.
    let d = unsafe { array(displs, n, names.1) }?;
    // SAFETY: the caller's contract.
    let t = unsafe { array(types, n, names.2) }?;
    (0..n)
        .map(|i| {
            Ok(Block {
                off: d[i] as isize,
                count: c[i],
                ty: args::datatype(w, t[i], &format!("{}[{i}]", names.2))?,
            })
        })
        .collect()
}

pub(super) fn check_blocks(blocks: &[Block], is_null: bool, what: &str) -> MpiResult<()> {
    for (i, b) in blocks.iter().enumerate() {
        args::buffer(is_null, b.count, &b.ty, &format!("{what} (block {i})"))?;
    }
    Ok(())
}

mpi_fn! {
    fn MPI_Neighbor_allgather / PMPI_Neighbor_allgather(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::ineighbor::PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req) }
        }) {
            return rc;
        }
        call("MPI_Neighbor_allgather", comm, |w| {
            let (cc, nb) = setup(w, comm, sendbuf)?;
            let sn = args::count(sendcount, "sendcount")?;
            let st = args::datatype(w, sendtype, "sendtype")?;
            let rn = args::count(recvcount, "recvcount")?;
            let rt = args::datatype(w, recvtype, "recvtype")?;
            args::buffer(sendbuf.is_null(), sn, &st, "sendbuf")?;
            args::buffer(recvbuf.is_null(), rn, &rt, "recvbuf")?;
            let sblocks = same_block(nb.1.len(), sn, &st);
            let rblocks = consecutive(nb.0.len(), rn, &rt);
            // SAFETY: sendbuf holds sendcount elements, recvbuf room for
            // indegree x recvcount, for this blocking call.
            let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            neighbor_exchange(&mut w.ep, &cc, &nb, &sb, &sblocks, &mut rb, &rblocks, false);
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Neighbor_allgatherv / PMPI_Neighbor_allgatherv(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::ineighbor::PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, req) }
        }) {
            return rc;
        }
        call("MPI_Neighbor_allgatherv", comm, |w| {
            let (cc, nb) = setup(w, comm, sendbuf)?;
            let sn = args::count(sendcount, "sendcount")?;
            let st = args::datatype(w, sendtype, "sendtype")?;
            args::buffer(sendbuf.is_null(), sn, &st, "sendbuf")?;
            // SAFETY: both arrays have one entry per in-neighbour.
            let (rc, rd) = unsafe { v_arrays(recvcounts, displs, nb.0.len(), ("recvcounts", "displs")) }?;
            let rt = args::datatype(w, recvtype, "recvtype")?;
            args::buffer(recvbuf.is_null(), rc.iter().sum(), &rt, "recvbuf")?;
            let sblocks = same_block(nb.1.len(), sn, &st);
            let rblocks = displaced(&rc, &rd, &rt);
            // SAFETY: sendbuf holds sendcount elements, recvbuf room for
            // every block, for this blocking call.
            let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            neighbor_exchange(&mut w.ep, &cc, &nb, &sb, &sblocks, &mut rb, &rblocks, false);
            Ok(())
        })
    }
}

mpi_fn! {
    /// Receives are posted from the last in-neighbour to the first (MPICH).
    fn MPI_Neighbor_alltoall / PMPI_Neighbor_alltoall(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::ineighbor::PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req) }
        }) {
            return rc;
        }
        call("MPI_Neighbor_alltoall", comm, |w| {
            let (cc, nb) = setup(w, comm, sendbuf)?;
            let sn = args::count(sendcount, "sendcount")?;
            let st = args::datatype(w, sendtype, "sendtype")?;
            let rn = args::count(recvcount, "recvcount")?;
            let rt = args::datatype(w, recvtype, "recvtype")?;
            args::buffer(sendbuf.is_null(), sn, &st, "sendbuf")?;
            args::buffer(recvbuf.is_null(), rn, &rt, "recvbuf")?;
            let sblocks = consecutive(nb.1.len(), sn, &st);
            let rblocks = consecutive(nb.0.len(), rn, &rt);
            // SAFETY: sendbuf holds outdegree x sendcount elements, recvbuf
            // room for indegree x recvcount, for this blocking call.
            let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            neighbor_exchange(&mut w.ep, &cc, &nb, &sb, &sblocks, &mut rb, &rblocks, true);
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Neighbor_alltoallv / PMPI_Neighbor_alltoallv(
        sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::ineighbor::PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, req) }
        }) {
            return rc;
        }
        call("MPI_Neighbor_alltoallv", comm, |w| {
            let (cc, nb) = setup(w, comm, sendbuf)?;
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
            // SAFETY: sendbuf holds every send block, recvbuf room for every
            // receive block, for this blocking call.
            let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            neighbor_exchange(&mut w.ep, &cc, &nb, &sb, &sblocks, &mut rb, &rblocks, false);
            Ok(())
        })
    }
}

mpi_fn! {
    /// Displacements in bytes (MPI_Aint), a datatype per neighbour.
    fn MPI_Neighbor_alltoallw / PMPI_Neighbor_alltoallw(
        sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const MPI_Aint, sendtypes: *const MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const MPI_Aint, recvtypes: *const MPI_Datatype,
        comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::ineighbor::PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, req) }
        }) {
            return rc;
        }
        call("MPI_Neighbor_alltoallw", comm, |w| {
            let (cc, nb) = setup(w, comm, sendbuf)?;
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
            // SAFETY: sendbuf holds every send block, recvbuf room for every
            // receive block, for this blocking call.
            let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            neighbor_exchange(&mut w.ep, &cc, &nb, &sb, &sblocks, &mut rb, &rblocks, false);
            Ok(())
        })
    }
}
