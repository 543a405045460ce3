//! Collective calls: MPI_Barrier, MPI_Bcast, MPI_Gather(v), MPI_Scatter(v),
//! MPI_Allgather(v), MPI_Alltoall(v,w). Argument checking (in MPICH's order:
//! communicator, counts, datatypes, root, buffers) and user buffers turned
//! into `mpi::coll_args::UserBuf`s; the semantics are in
//! `mpi::coll_calls`. The reductions are in `abi::reduce`. The MPI-4
//! large-count variants (`MPI_Bcast_c`, `Gather_c`, `Scatter_c`,
//! `Allgather_c`, `Alltoall_c`, `Alltoallv_c`: `MPI_Count` counts, `MPI_Aint`
//! displacements) share the code of the `int` calls.
use crate::abi::inter_coll;
use crate::abi::state::call;
use crate::abi::userbuf::{array, in_place, RawBuf};
use crate::mpi::coll_args::{self as args, CollComm, UserBuf};
use crate::mpi::coll_calls::{self, Data};
use crate::mpi::datatype::Datatype;
use crate::mpi::error::MpiResult;
use crate::mpi::World;
use crate::sys::{MPI_Aint, MPI_Comm, MPI_Count, MPI_Datatype};
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// MPI_IN_PLACE is only allowed at the root of a rooted collective.
const ROOT_ONLY: &str = "only the root may pass it";

/// The counts and displacements of a v-collective (`n` entries each).
///
/// # Safety
/// Both pointers are null or point to `n` readable ints.
unsafe fn v_arrays<C: Copy + Into<i64>, D: Copy>(
    counts: *const C,
    displs: *const D,
    n: usize,
    names: (&str, &str),
) -> MpiResult<(Vec<usize>, Vec<D>)> {
    // SAFETY: the caller's contract.
    let c = unsafe { array(counts, n, names.0) }?;
    let c = args::counts(c, names.0)?;
    // SAFETY: the caller's contract.
    let d = unsafe { array(displs, n, names.1) }?.to_vec();
    Ok((c, d))
}

mpi_fn! {
    fn MPI_Barrier / PMPI_Barrier(comm: MPI_Comm) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Ibarrier(comm, req) }
        }) {
            return rc;
        }
        call("MPI_Barrier", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                return inter_coll::barrier(w, &ic);
            }
            let cc = CollComm::of(w, comm)?;
            coll_calls::barrier(&mut w.ep, &cc);
            Ok(())
        })
    }
}

/// MPI_Bcast(_c).
///
/// # Safety
/// MPI's contract for `buffer` (count elements of datatype).
unsafe fn bcast(
    name: &str,
    buffer: *mut c_void,
    count: impl Copy + Into<i64>,
    datatype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
) -> c_int {
    call(name, comm, |w| {
        if let Some(ic) = inter_coll::of(w, comm)? {
            // SAFETY: the caller's MPI contract, passed on.
            return unsafe { inter_coll::bcast(w, &ic, buffer, count, datatype, root) };
        }
        let cc = CollComm::of(w, comm)?;
        let count = args::count(count, "count")?;
        let ty = args::datatype(w, datatype, "datatype")?;
        let root = args::root(root, cc.size())?;
        args::buffer(buffer.is_null(), count, &ty, "buffer")?;
        // SAFETY: buffer holds `count` elements of the datatype for this
        // blocking call (MPI's contract).
        let mut buf = unsafe { RawBuf::new(buffer) };
        coll_calls::bcast(&mut w.ep, &cc, &mut buf, Data { count, ty: &ty }, root);
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Bcast / PMPI_Bcast(buffer: *mut c_void, count: c_int, datatype: MPI_Datatype, root: c_int, comm: MPI_Comm) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Ibcast(buffer, count, datatype, root, comm, req) }
        }) {
            return rc;
        }
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { bcast("MPI_Bcast", buffer, count, datatype, root, comm) }
    }
}

mpi_fn! {
    fn MPI_Bcast_c / PMPI_Bcast_c(buffer: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, root: c_int, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { bcast("MPI_Bcast_c", buffer, count, datatype, root, comm) }
    }
}

/// MPI_Gather(_c).
///
/// # Safety
/// MPI's contract for the buffers of this blocking call.
#[allow(clippy::too_many_arguments)]
unsafe fn gather(
    name: &str,
    sendbuf: *const c_void,
    sendcount: impl Copy + Into<i64>,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: impl Copy + Into<i64>,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
) -> c_int {
    call(name, comm, |w| {
        if let Some(ic) = inter_coll::of(w, comm)? {
            // SAFETY: the caller's MPI contract, passed on.
            return unsafe {
                inter_coll::gather(
                    w, &ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                )
            };
        }
        let cc = CollComm::of(w, comm)?;
        let root = args::root(root, cc.size())?;
        let is_root = cc.me == root;
        let inp = in_place(sendbuf);
        if inp && !is_root {
            return args::no_in_place("sendbuf", ROOT_ONLY);
        }
        let send = if inp {
            None
        } else {
            let n = args::count(sendcount, "sendcount")?;
            let t = args::datatype(w, sendtype, "sendtype")?;
            args::buffer(sendbuf.is_null(), n, &t, "sendbuf")?;
            Some((n, t))
        };
        let (rn, rt) = if is_root {
            let n = args::count(recvcount, "recvcount")?;
            let t = args::datatype(w, recvtype, "recvtype")?;
            args::buffer(recvbuf.is_null(), n, &t, "recvbuf")?;
            args::blocks(n, cc.size(), &t, "recvbuf")?;
            if let Some((sn, st)) = &send {
                args::matching(
                    st.packed_size(*sn),
                    t.packed_size(n),
                    &format!("{name} at the root"),
                )?;
                args::not_aliased(sendbuf as usize, recvbuf as usize, t.packed_size(n))?;
            }
            (n, Some(t))
        } else {
            (0, None)
        };
        // SAFETY: sendbuf holds its elements and, at the root, recvbuf
        // has room for size x recvcount elements, for this blocking call.
        let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
        let rt = rt.unwrap_or_else(|| send.as_ref().expect("non-root sends").1.clone());
        let s = send
            .as_ref()
            .map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
        coll_calls::gather(
            &mut w.ep,
            &cc,
            s,
            &mut rb,
            Data { count: rn, ty: &rt },
            root,
        );
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Gather / PMPI_Gather(sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, req) }
        }) {
            return rc;
        }
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm) }
    }
}

mpi_fn! {
    fn MPI_Gather_c / PMPI_Gather_c(sendbuf: *const c_void, sendcount: MPI_Count, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: MPI_Count, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { gather("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm) }
    }
}

mpi_fn! {
    fn MPI_Gatherv / PMPI_Gatherv(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype,
        root: c_int, comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, req) }
        }) {
            return rc;
        }
        call("MPI_Gatherv", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_coll::gatherv(w, &ic, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root) };
            }
            let cc = CollComm::of(w, comm)?;
            let root = args::root(root, cc.size())?;
            let is_root = cc.me == root;
            let inp = in_place(sendbuf);
            if inp && !is_root {
                return args::no_in_place("sendbuf", ROOT_ONLY);
            }
            let send = if inp {
                None
            } else {
                let n = args::count(sendcount, "sendcount")?;
                let t = args::datatype(w, sendtype, "sendtype")?;
                args::buffer(sendbuf.is_null(), n, &t, "sendbuf")?;
                Some((n, t))
            };
            let rblocks = if is_root {
                // SAFETY: at the root both arrays have one entry per rank.
                let (counts, displs) = unsafe {
                    v_arrays(recvcounts, displs, cc.size(), ("recvcounts", "displs"))
                }?;
                let t = args::datatype(w, recvtype, "recvtype")?;
                let total: usize = counts.iter().sum();
                args::buffer(recvbuf.is_null(), total, &t, "recvbuf")?;
                let blocks = args::displaced(&counts, &displs, &t);
                if let Some((sn, st)) = &send {
                    args::matching(st.packed_size(*sn), blocks[cc.me].bytes(), "MPI_Gatherv at the root")?;
                }
                blocks
            } else {
                Vec::new()
            };
            // SAFETY: sendbuf holds its elements and, at the root, recvbuf
            // has room for every block, for this blocking call.
            let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            let s = send.as_ref().map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
            coll_calls::gatherv(&mut w.ep, &cc, s, &mut rb, &rblocks, root);
            Ok(())
        })
    }
}

/// MPI_Scatter(_c).
///
/// # Safety
/// MPI's contract for the buffers of this blocking call.
#[allow(clippy::too_many_arguments)]
unsafe fn scatter(
    name: &str,
    sendbuf: *const c_void,
    sendcount: impl Copy + Into<i64>,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: impl Copy + Into<i64>,
    recvtype: MPI_Datatype,
    root: c_int,
    comm: MPI_Comm,
) -> c_int {
    call(name, comm, |w| {
        if let Some(ic) = inter_coll::of(w, comm)? {
            // SAFETY: the caller's MPI contract, passed on.
            return unsafe {
                inter_coll::scatter(
                    w, &ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                )
            };
        }
        let cc = CollComm::of(w, comm)?;
        let root = args::root(root, cc.size())?;
        let is_root = cc.me == root;
        let inp = in_place(recvbuf);
        if inp && !is_root {
            return args::no_in_place("recvbuf", ROOT_ONLY);
        }
        let send = if is_root {
            let n = args::count(sendcount, "sendcount")?;
            let t = args::datatype(w, sendtype, "sendtype")?;
            args::buffer(sendbuf.is_null(), n, &t, "sendbuf")?;
            args::blocks(n, cc.size(), &t, "sendbuf")?;
            Some((n, t))
        } else {
            None
        };
        let recv = if inp {
            None
        } else {
            let n = args::count(recvcount, "recvcount")?;
            let t = args::datatype(w, recvtype, "recvtype")?;
            args::buffer(recvbuf.is_null(), n, &t, "recvbuf")?;
            if let Some((sn, st)) = &send {
                args::matching(
                    st.packed_size(*sn),
                    t.packed_size(n),
                    &format!("{name} at the root"),
                )?;
                args::not_aliased(sendbuf as usize, recvbuf as usize, t.packed_size(n))?;
            }
            Some((n, t))
        };
        // SAFETY: at the root sendbuf holds size x sendcount elements;
        // recvbuf has room for recvcount elements, for this blocking call.
        let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
        let s = send
            .as_ref()
            .map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
        let r = recv
            .as_ref()
            .map(|(n, t)| (&mut rb as &mut dyn UserBuf, Data { count: *n, ty: t }));
        coll_calls::scatter(&mut w.ep, &cc, s, r, root);
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Scatter / PMPI_Scatter(sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, req) }
        }) {
            return rc;
        }
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { scatter("MPI_Scatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm) }
    }
}

mpi_fn! {
    fn MPI_Scatter_c / PMPI_Scatter_c(sendbuf: *const c_void, sendcount: MPI_Count, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: MPI_Count, recvtype: MPI_Datatype, root: c_int, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { scatter("MPI_Scatter_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm) }
    }
}

mpi_fn! {
    fn MPI_Scatterv / PMPI_Scatterv(
        sendbuf: *const c_void, sendcounts: *const c_int, displs: *const c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype,
        root: c_int, comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, req) }
        }) {
            return rc;
        }
        call("MPI_Scatterv", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_coll::scatterv(w, &ic, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root) };
            }
            let cc = CollComm::of(w, comm)?;
            let root = args::root(root, cc.size())?;
            let is_root = cc.me == root;
            let inp = in_place(recvbuf);
            if inp && !is_root {
                return args::no_in_place("recvbuf", ROOT_ONLY);
            }
            let sblocks = if is_root {
                // SAFETY: at the root both arrays have one entry per rank.
                let (counts, displs) = unsafe {
                    v_arrays(sendcounts, displs, cc.size(), ("sendcounts", "displs"))
                }?;
                let t = args::datatype(w, sendtype, "sendtype")?;
                let total: usize = counts.iter().sum();
                args::buffer(sendbuf.is_null(), total, &t, "sendbuf")?;
                Some(args::displaced(&counts, &displs, &t))
            } else {
                None
            };
            let recv = if inp {
                None
            } else {
                let n = args::count(recvcount, "recvcount")?;
                let t = args::datatype(w, recvtype, "recvtype")?;
                args::buffer(recvbuf.is_null(), n, &t, "recvbuf")?;
                if let Some(b) = &sblocks {
                    args::matching(b[cc.me].bytes(), t.packed_size(n), "MPI_Scatterv at the root")?;
                }
                Some((n, t))
            };
            // SAFETY: at the root sendbuf holds every block; recvbuf has room
            // for recvcount elements, for this blocking call.
            let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            let s = sblocks.as_deref().map(|b| (&sb as &dyn UserBuf, b));
            let r = recv.as_ref().map(|(n, t)| (&mut rb as &mut dyn UserBuf, Data { count: *n, ty: t }));
            coll_calls::scatterv(&mut w.ep, &cc, s, r, root);
            Ok(())
        })
    }
}

/// Checked count and type of a receive buffer, and of the send buffer
/// (None for MPI_IN_PLACE).
type BlockArgs = (usize, Arc<Datatype>, Option<(usize, Arc<Datatype>)>);

/// The argument checks MPI_Allgather(_c) and MPI_Alltoall(_c) share: the
/// receive buffer holds one block per rank, the send buffer (unless
/// MPI_IN_PLACE) matches one block and does not overlap it; with
/// `send_blocks` (Alltoall) the send buffer holds one block per rank too.
#[allow(clippy::too_many_arguments)]
fn block_args(
    w: &World,
    cc: &CollComm,
    name: &str,
    sendbuf: *const c_void,
    sendcount: impl Copy + Into<i64>,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: impl Copy + Into<i64>,
    recvtype: MPI_Datatype,
    send_blocks: bool,
) -> MpiResult<BlockArgs> {
    let rn = args::count(recvcount, "recvcount")?;
    let rt = args::datatype(w, recvtype, "recvtype")?;
    args::buffer(recvbuf.is_null(), rn, &rt, "recvbuf")?;
    args::blocks(rn, cc.size(), &rt, "recvbuf")?;
    if in_place(sendbuf) {
        return Ok((rn, rt, None));
    }
    let n = args::count(sendcount, "sendcount")?;
    let t = args::datatype(w, sendtype, "sendtype")?;
    args::buffer(sendbuf.is_null(), n, &t, "sendbuf")?;
    if send_blocks {
        args::blocks(n, cc.size(), &t, "sendbuf")?;
    }
    args::matching(t.packed_size(n), rt.packed_size(rn), name)?;
    args::not_aliased(sendbuf as usize, recvbuf as usize, rt.packed_size(rn))?;
    Ok((rn, rt, Some((n, t))))
}

/// The two collectives of one block per rank each way.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Blocks {
    /// MPI_Allgather(_c): a send block, `size` receive blocks.
    Allgather,
    /// MPI_Alltoall(_c): `size` send blocks, `size` receive blocks.
    Alltoall,
}

/// MPI_Allgather(_c) and MPI_Alltoall(_c).
///
/// # Safety
/// MPI's contract for the buffers of this blocking call.
#[allow(clippy::too_many_arguments)]
unsafe fn blocks(
    kind: Blocks,
    name: &str,
    sendbuf: *const c_void,
    sendcount: impl Copy + Into<i64>,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: impl Copy + Into<i64>,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
) -> c_int {
    call(name, comm, |w| {
        if let Some(ic) = inter_coll::of(w, comm)? {
            // SAFETY: the caller's MPI contract, passed on.
            return unsafe {
                match kind {
                    Blocks::Allgather => inter_coll::allgather(
                        w, &ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                    ),
                    Blocks::Alltoall => inter_coll::alltoall(
                        w, &ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                    ),
                }
            };
        }
        let cc = CollComm::of(w, comm)?;
        let (rn, rt, send) = block_args(
            w,
            &cc,
            name,
            sendbuf,
            sendcount,
            sendtype,
            recvbuf,
            recvcount,
            recvtype,
            kind == Blocks::Alltoall,
        )?;
        // SAFETY: sendbuf holds its elements (size x sendcount for
        // Alltoall), recvbuf has room for size x recvcount elements, for
        // this blocking call.
        let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
        let s = send
            .as_ref()
            .map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
        let rd = Data { count: rn, ty: &rt };
        match kind {
            Blocks::Allgather => coll_calls::allgather(&mut w.ep, &cc, s, &mut rb, rd),
            Blocks::Alltoall => coll_calls::alltoall(&mut w.ep, &cc, s, &mut rb, rd),
        }
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Allgather / PMPI_Allgather(sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req) }
        }) {
            return rc;
        }
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { blocks(Blocks::Allgather, "MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm) }
    }
}

mpi_fn! {
    fn MPI_Allgather_c / PMPI_Allgather_c(sendbuf: *const c_void, sendcount: MPI_Count, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: MPI_Count, recvtype: MPI_Datatype, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { blocks(Blocks::Allgather, "MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm) }
    }
}

mpi_fn! {
    fn MPI_Allgatherv / PMPI_Allgatherv(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, req) }
        }) {
            return rc;
        }
        call("MPI_Allgatherv", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_coll::allgatherv(w, &ic, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype) };
            }
            let cc = CollComm::of(w, comm)?;
            // SAFETY: both arrays have one entry per rank.
            let (counts, displs) = unsafe {
                v_arrays(recvcounts, displs, cc.size(), ("recvcounts", "displs"))
            }?;
            let rt = args::datatype(w, recvtype, "recvtype")?;
            let total: usize = counts.iter().sum();
            args::buffer(recvbuf.is_null(), total, &rt, "recvbuf")?;
            let rblocks = args::displaced(&counts, &displs, &rt);
            let send = if in_place(sendbuf) {
                None
            } else {
                let n = args::count(sendcount, "sendcount")?;
                let t = args::datatype(w, sendtype, "sendtype")?;
                args::buffer(sendbuf.is_null(), n, &t, "sendbuf")?;
                args::matching(t.packed_size(n), rblocks[cc.me].bytes(), "MPI_Allgatherv")?;
                Some((n, t))
            };
            // SAFETY: sendbuf holds its elements, recvbuf has room for every
            // block, for this blocking call.
            let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            let s = send.as_ref().map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
            coll_calls::allgatherv(&mut w.ep, &cc, s, &mut rb, &rblocks, rt.size());
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Alltoall / PMPI_Alltoall(sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype, comm: MPI_Comm) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req) }
        }) {
            return rc;
        }
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { blocks(Blocks::Alltoall, "MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm) }
    }
}

mpi_fn! {
    fn MPI_Alltoall_c / PMPI_Alltoall_c(sendbuf: *const c_void, sendcount: MPI_Count, sendtype: MPI_Datatype, recvbuf: *mut c_void, recvcount: MPI_Count, recvtype: MPI_Datatype, comm: MPI_Comm) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { blocks(Blocks::Alltoall, "MPI_Alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm) }
    }
}

/// MPI_Alltoallv(_c).
///
/// # Safety
/// MPI's contract: the arrays have one entry per rank, the buffers hold
/// (have room for) their blocks.
#[allow(clippy::too_many_arguments)]
unsafe fn alltoallv<C: Copy + Into<i64>, D: Copy + Into<i64>>(
    name: &str,
    sendbuf: *const c_void,
    sendcounts: *const C,
    sdispls: *const D,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const C,
    rdispls: *const D,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
) -> c_int {
    call(name, comm, |w| {
        if let Some(ic) = inter_coll::of(w, comm)? {
            // SAFETY: the caller's MPI contract, passed on.
            return unsafe {
                inter_coll::alltoallv(
                    w, &ic, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                    recvtype,
                )
            };
        }
        let cc = CollComm::of(w, comm)?;
        let n = cc.size();
        // SAFETY: both arrays have one entry per rank.
        let (rc, rd) = unsafe { v_arrays(recvcounts, rdispls, n, ("recvcounts", "rdispls")) }?;
        let rt = args::datatype(w, recvtype, "recvtype")?;
        args::buffer(
            recvbuf.is_null(),
            args::total(&rc, "recvcounts")?,
            &rt,
            "recvbuf",
        )?;
        let rblocks = args::displaced(&rc, &rd, &rt);
        let sblocks = if in_place(sendbuf) {
            None
        } else {
            // SAFETY: both arrays have one entry per rank.
            let (sc, sd) = unsafe { v_arrays(sendcounts, sdispls, n, ("sendcounts", "sdispls")) }?;
            let st = args::datatype(w, sendtype, "sendtype")?;
            args::buffer(
                sendbuf.is_null(),
                args::total(&sc, "sendcounts")?,
                &st,
                "sendbuf",
            )?;
            let b = args::displaced(&sc, &sd, &st);
            args::matching(b[cc.me].bytes(), rblocks[cc.me].bytes(), name)?;
            coll_calls::check_alltoallv_forcing(&w.ep, &b, &rblocks)?;
            Some(b)
        };
        // SAFETY: sendbuf holds every send block, recvbuf has room for
        // every receive block, for this blocking call.
        let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
        let s = sblocks.as_deref().map(|b| (&sb as &dyn UserBuf, b));
        coll_calls::alltoallv(&mut w.ep, &cc, s, &mut rb, &rblocks);
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Alltoallv / PMPI_Alltoallv(
        sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, req) }
        }) {
            return rc;
        }
        // SAFETY: the caller's MPI contract, passed on.
        unsafe {
            alltoallv("MPI_Alltoallv", sendbuf, sendcounts, sdispls, sendtype,
                      recvbuf, recvcounts, rdispls, recvtype, comm)
        }
    }
}

mpi_fn! {
    fn MPI_Alltoallv_c / PMPI_Alltoallv_c(
        sendbuf: *const c_void, sendcounts: *const MPI_Count, sdispls: *const MPI_Aint, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const MPI_Count, rdispls: *const MPI_Aint, recvtype: MPI_Datatype,
        comm: MPI_Comm,
    ) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe {
            alltoallv("MPI_Alltoallv_c", sendbuf, sendcounts, sdispls, sendtype,
                      recvbuf, recvcounts, rdispls, recvtype, comm)
        }
    }
}

mpi_fn! {
    /// Each block is packed with its own datatype (displacements in bytes)
    /// and the packed blocks travel as in MPI_Alltoallv.
    fn MPI_Alltoallw / PMPI_Alltoallw(
        sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtypes: *const MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtypes: *const MPI_Datatype,
        comm: MPI_Comm,
    ) -> c_int {
        // MPI_THREAD_MULTIPLE: its nonblocking form and a wait
        if let Some(rc) = crate::abi::threads::via_request(|req| {
            // SAFETY: the caller's MPI contract, passed on.
            unsafe { crate::abi::icoll::PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, req) }
        }) {
            return rc;
        }
        call("MPI_Alltoallw", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_coll::alltoallw(w, &ic, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes) };
            }
            let cc = CollComm::of(w, comm)?;
            let n = cc.size();
            // SAFETY: both arrays have one entry per rank.
            let (rc, rd) = unsafe { v_arrays(recvcounts, rdispls, n, ("recvcounts", "rdispls")) }?;
            // SAFETY: one entry per rank.
            let rts = unsafe { array(recvtypes, n, "recvtypes") }?;
            let rts = rts
                .iter()
                .enumerate()
                .map(|(i, &t)| args::datatype(w, t, &format!("recvtypes[{i}]")))
                .collect::<MpiResult<Vec<_>>>()?;
            let rblocks = args::displaced_bytes(&rc, &rd, &rts);
            for (i, b) in rblocks.iter().enumerate() {
                args::buffer(recvbuf.is_null(), b.count, &b.ty, &format!("recvbuf (block {i})"))?;
            }
            let sblocks = if in_place(sendbuf) {
                None
            } else {
                // SAFETY: both arrays have one entry per rank.
                let (sc, sd) = unsafe { v_arrays(sendcounts, sdispls, n, ("sendcounts", "sdispls")) }?;
                // SAFETY: one entry per rank.
                let sts = unsafe { array(sendtypes, n, "sendtypes") }?;
                let sts = sts
                    .iter()
                    .enumerate()
                    .map(|(i, &t)| args::datatype(w, t, &format!("sendtypes[{i}]")))
                    .collect::<MpiResult<Vec<_>>>()?;
                let b = args::displaced_bytes(&sc, &sd, &sts);
                for (i, blk) in b.iter().enumerate() {
                    args::buffer(sendbuf.is_null(), blk.count, &blk.ty, &format!("sendbuf (block {i})"))?;
                }
                args::matching(b[cc.me].bytes(), rblocks[cc.me].bytes(), "MPI_Alltoallw")?;
                coll_calls::check_alltoallv_forcing(&w.ep, &b, &rblocks)?;
                Some(b)
            };
            // SAFETY: sendbuf holds every send block, recvbuf has room for
            // every receive block, for this blocking call.
            let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            let s = sblocks.as_deref().map(|b| (&sb as &dyn UserBuf, b));
            coll_calls::alltoallv(&mut w.ep, &cc, s, &mut rb, &rblocks);
            Ok(())
        })
    }
}
