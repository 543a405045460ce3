//! The collective calls on an intercommunicator: argument checking (the
//! root rules: MPI_ROOT at the root, MPI_PROC_NULL at the rest of its
//! group, the root's rank in the other group; only the buffers significant
//! for this process are checked; MPI_IN_PLACE is not allowed) and user
//! buffers turned into `UserBuf`s. `abi::coll` and `abi::reduce` call these
//! when the communicator is an intercommunicator; the semantics are in
//! `mpi::inter_coll_calls`.
use crate::abi::op::{resolve, with_op};
use crate::abi::userbuf::{array, in_place, RawBuf};
use crate::coll::inter::Root;
use crate::coll::tag;
use crate::mpi::coll_args::{self as args, Block, UserBuf};
use crate::mpi::coll_calls::Data;
use crate::mpi::datatype::Datatype;
use crate::mpi::error::MpiResult;
use crate::mpi::inter_coll_calls as calls;
use crate::mpi::intercomm::InterComm;
use crate::mpi::World;
use crate::sys::{MPI_Comm, MPI_Datatype, MPI_Op};
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

pub(super) const NO_IN_PLACE: &str = "not allowed on an intercommunicator";

/// The intercommunicator behind `comm` (None for an intracommunicator).
pub(crate) fn of(w: &World, comm: MPI_Comm) -> MpiResult<Option<InterComm>> {
    Ok(InterComm::of(w.comms.get(comm)?))
}

/// The argument names of a send buffer and of a receive buffer, for
/// [`buf_arg`]'s errors.
pub(super) const SEND: (&str, &str, &str) = ("sendcount", "sendtype", "sendbuf");
pub(super) const RECV: (&str, &str, &str) = ("recvcount", "recvtype", "recvbuf");

/// A buffer of `n` elements of a checked type: MPI_ERR_BUFFER for
/// MPI_IN_PLACE or a null buffer holding data.
pub(super) fn buf_arg(
    w: &World,
    buf: *const c_void,
    count: impl Copy + Into<i64>,
    dt: MPI_Datatype,
    names: (&str, &str, &str),
) -> MpiResult<(usize, Arc<Datatype>)> {
    let n = args::count(count, names.0)?;
    let t = args::datatype(w, dt, names.1)?;
    if in_place(buf) {
        args::no_in_place(names.2, NO_IN_PLACE)?;
    }
    args::buffer(buf.is_null(), n, &t, names.2)?;
    Ok((n, t))
}

/// A checked buffer argument that holds one block per remote rank (the
/// root's buffer of MPI_Gather and MPI_Scatter, MPI_Allgather's and
/// MPI_Alltoall's): MPI_ERR_COUNT when the whole is more than the address
/// space.
fn remote_blocks(
    ic: &InterComm,
    arg: (usize, Arc<Datatype>),
    what: &str,
) -> MpiResult<(usize, Arc<Datatype>)> {
    args::blocks(arg.0, ic.remote.len(), &arg.1, what)?;
    Ok(arg)
}

/// The counts and displacements of a v-collective (`n` entries each).
///
/// # Safety
/// Both pointers are null or point to `n` readable ints.
pub(super) unsafe fn v_blocks<C: Copy + Into<i64>, D: Copy + Into<i64>>(
    counts: *const C,
    displs: *const D,
    n: usize,
    ty: &Arc<Datatype>,
    names: (&str, &str),
) -> MpiResult<Vec<Block>> {
    // SAFETY: the caller's contract.
    let c = args::counts(unsafe { array(counts, n, names.0) }?, names.0)?;
    // SAFETY: the caller's contract.
    let d = unsafe { array(displs, n, names.1) }?;
    Ok(args::displaced(&c, d, ty))
}

pub(crate) fn barrier(w: &mut World, ic: &InterComm) -> MpiResult<()> {
    calls::barrier(&mut w.ep, ic);
    Ok(())
}

/// # Safety
/// MPI's contract for the buffer of this blocking call.
pub(crate) unsafe fn bcast(
    w: &mut World,
    ic: &InterComm,
    buffer: *mut c_void,
    count: impl Copy + Into<i64>,
    datatype: MPI_Datatype,
    root: c_int,
) -> MpiResult<()> {
    let root = calls::root(root, ic)?;
    let (n, t) = buf_arg(w, buffer, count, datatype, ("count", "datatype", "buffer"))?;
    // SAFETY: the caller's contract.
    let mut b = unsafe { RawBuf::new(buffer) };
    calls::bcast(&mut w.ep, ic, &mut b, Data { count: n, ty: &t }, root);
    Ok(())
}

/// # Safety
/// MPI's contract for the buffers of this blocking call.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gather(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    sendcount: impl Copy + Into<i64>,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: impl Copy + Into<i64>,
    recvtype: MPI_Datatype,
    root: c_int,
) -> MpiResult<()> {
    let root = calls::root(root, ic)?;
    let send = match root {
        Root::Remote(_) => Some(buf_arg(w, sendbuf, sendcount, sendtype, SEND)?),
        _ => None,
    };
    let recv = match root {
        Root::Me => Some(remote_blocks(
            ic,
            buf_arg(w, recvbuf, recvcount, recvtype, RECV)?,
            "recvbuf",
        )?),
        _ => None,
    };
    let short = calls::short(
        ic,
        root,
        recv.as_ref().map_or(0, |r| r.0),
        send.as_ref().map_or(0, |s| s.0),
    );
    // SAFETY: the caller's contract.
    let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    let s = send
        .as_ref()
        .map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
    let r = recv
        .as_ref()
        .map(|(n, t)| (&mut rb as &mut dyn UserBuf, Data { count: *n, ty: t }));
    calls::gather(&mut w.ep, ic, s, r, root, short);
    Ok(())
}

/// # Safety
/// MPI's contract for the buffers and arrays of this blocking call.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gatherv(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    root: c_int,
) -> MpiResult<()> {
    let root = calls::root(root, ic)?;
    let send = match root {
        Root::Remote(_) => Some(buf_arg(w, sendbuf, sendcount, sendtype, SEND)?),
        _ => None,
    };
    let rblocks = match root {
        Root::Me => {
            let t = args::datatype(w, recvtype, "recvtype")?;
            // SAFETY: at the root both arrays have one entry per remote rank.
            let b = unsafe {
                v_blocks(
                    recvcounts,
                    displs,
                    ic.remote.len(),
                    &t,
                    ("recvcounts", "displs"),
                )
            }?;
            if in_place(recvbuf) {
                return args::no_in_place("recvbuf", NO_IN_PLACE);
            }
            args::buffer(
                recvbuf.is_null(),
                b.iter().map(|x| x.count).sum(),
                &t,
                "recvbuf",
            )?;
            Some(b)
        }
        _ => None,
    };
    // SAFETY: the caller's contract.
    let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    let s = send
        .as_ref()
        .map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
    let r = rblocks.as_deref().map(|b| (&mut rb as &mut dyn UserBuf, b));
    calls::gatherv(&mut w.ep, ic, s, r, root);
    Ok(())
}

/// # Safety
/// MPI's contract for the buffers of this blocking call.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn scatter(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    sendcount: impl Copy + Into<i64>,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: impl Copy + Into<i64>,
    recvtype: MPI_Datatype,
    root: c_int,
) -> MpiResult<()> {
    let root = calls::root(root, ic)?;
    let send = match root {
        Root::Me => Some(remote_blocks(
            ic,
            buf_arg(w, sendbuf, sendcount, sendtype, SEND)?,
            "sendbuf",
        )?),
        _ => None,
    };
    let recv = match root {
        Root::Remote(_) => Some(buf_arg(w, recvbuf, recvcount, recvtype, RECV)?),
        _ => None,
    };
    let short = calls::short(
        ic,
        root,
        send.as_ref().map_or(0, |s| s.0),
        recv.as_ref().map_or(0, |r| r.0),
    );
    // SAFETY: the caller's contract.
    let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    let s = send
        .as_ref()
        .map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
    let r = recv
        .as_ref()
        .map(|(n, t)| (&mut rb as &mut dyn UserBuf, Data { count: *n, ty: t }));
    calls::scatter(&mut w.ep, ic, s, r, root, short);
    Ok(())
}

/// # Safety
/// MPI's contract for the buffers and arrays of this blocking call.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn scatterv(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    displs: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
) -> MpiResult<()> {
    let root = calls::root(root, ic)?;
    let sblocks = match root {
        Root::Me => {
            let t = args::datatype(w, sendtype, "sendtype")?;
            // SAFETY: at the root both arrays have one entry per remote rank.
            let b = unsafe {
                v_blocks(
                    sendcounts,
                    displs,
                    ic.remote.len(),
                    &t,
                    ("sendcounts", "displs"),
                )
            }?;
            if in_place(sendbuf) {
                return args::no_in_place("sendbuf", NO_IN_PLACE);
            }
            args::buffer(
                sendbuf.is_null(),
                b.iter().map(|x| x.count).sum(),
                &t,
                "sendbuf",
            )?;
            Some(b)
        }
        _ => None,
    };
    let recv = match root {
        Root::Remote(_) => Some(buf_arg(w, recvbuf, recvcount, recvtype, RECV)?),
        _ => None,
    };
    // SAFETY: the caller's contract.
    let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    let s = sblocks.as_deref().map(|b| (&sb as &dyn UserBuf, b));
    let r = recv
        .as_ref()
        .map(|(n, t)| (&mut rb as &mut dyn UserBuf, Data { count: *n, ty: t }));
    calls::scatterv(&mut w.ep, ic, s, r, root);
    Ok(())
}

/// # Safety
/// MPI's contract for the buffers of this blocking call.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn allgather(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    sendcount: impl Copy + Into<i64>,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: impl Copy + Into<i64>,
    recvtype: MPI_Datatype,
) -> MpiResult<()> {
    let (sn, st) = buf_arg(w, sendbuf, sendcount, sendtype, SEND)?;
    let (rn, rt) = remote_blocks(
        ic,
        buf_arg(w, recvbuf, recvcount, recvtype, RECV)?,
        "recvbuf",
    )?;
    // SAFETY: the caller's contract.
    let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    calls::allgather(
        &mut w.ep,
        ic,
        (&sb, Data { count: sn, ty: &st }),
        (&mut rb, Data { count: rn, ty: &rt }),
    );
    Ok(())
}

/// # Safety
/// MPI's contract for the buffers and arrays of this blocking call.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn allgatherv(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
) -> MpiResult<()> {
    let (sn, st) = buf_arg(w, sendbuf, sendcount, sendtype, SEND)?;
    let rt = args::datatype(w, recvtype, "recvtype")?;
    // SAFETY: both arrays have one entry per remote rank.
    let rblocks = unsafe {
        v_blocks(
            recvcounts,
            displs,
            ic.remote.len(),
            &rt,
            ("recvcounts", "displs"),
        )
    }?;
    args::buffer(
        recvbuf.is_null(),
        rblocks.iter().map(|b| b.count).sum(),
        &rt,
        "recvbuf",
    )?;
    // SAFETY: the caller's contract.
    let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    calls::allgatherv(
        &mut w.ep,
        ic,
        (&sb, Data { count: sn, ty: &st }),
        &mut rb,
        &rblocks,
    );
    Ok(())
}

/// MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw once their blocks are
/// known.
///
/// # Safety
/// MPI's contract for the buffers of this blocking call.
pub(crate) unsafe fn alltoall_blocks(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    sblocks: &[Block],
    recvbuf: *mut c_void,
    rblocks: &[Block],
    t: i32,
) -> MpiResult<()> {
    if in_place(sendbuf) {
        return args::no_in_place("sendbuf", NO_IN_PLACE);
    }
    for (i, b) in sblocks.iter().enumerate() {
        args::buffer(
            sendbuf.is_null(),
            b.count,
            &b.ty,
            &format!("sendbuf (block {i})"),
        )?;
    }
    for (i, b) in rblocks.iter().enumerate() {
        args::buffer(
            recvbuf.is_null(),
            b.count,
            &b.ty,
            &format!("recvbuf (block {i})"),
        )?;
    }
    // SAFETY: the caller's contract.
    let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    calls::alltoallv(&mut w.ep, ic, (&sb, sblocks), &mut rb, rblocks, t);
    Ok(())
}

/// # Safety
/// MPI's contract for the buffers of this blocking call.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn alltoall(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    sendcount: impl Copy + Into<i64>,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: impl Copy + Into<i64>,
    recvtype: MPI_Datatype,
) -> MpiResult<()> {
    let (sn, st) = remote_blocks(
        ic,
        buf_arg(w, sendbuf, sendcount, sendtype, SEND)?,
        "sendbuf",
    )?;
    let (rn, rt) = remote_blocks(
        ic,
        buf_arg(w, recvbuf, recvcount, recvtype, RECV)?,
        "recvbuf",
    )?;
    let n = ic.remote.len();
    let sb = args::consecutive(n, sn, &st);
    let rb = args::consecutive(n, rn, &rt);
    // SAFETY: the caller's contract.
    unsafe { alltoall_blocks(w, ic, sendbuf, &sb, recvbuf, &rb, tag::ALLTOALL) }
}

/// # Safety
/// MPI's contract for the buffers and arrays of this blocking call.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn alltoallv<C: Copy + Into<i64>, D: Copy + Into<i64>>(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    sendcounts: *const C,
    sdispls: *const D,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const C,
    rdispls: *const D,
    recvtype: MPI_Datatype,
) -> MpiResult<()> {
    let n = ic.remote.len();
    let st = args::datatype(w, sendtype, "sendtype")?;
    let rt = args::datatype(w, recvtype, "recvtype")?;
    // SAFETY: every array has one entry per remote rank.
    let sb = unsafe { v_blocks(sendcounts, sdispls, n, &st, ("sendcounts", "sdispls")) }?;
    // SAFETY: as above.
    let rb = unsafe { v_blocks(recvcounts, rdispls, n, &rt, ("recvcounts", "rdispls")) }?;
    // SAFETY: the caller's contract.
    unsafe { alltoall_blocks(w, ic, sendbuf, &sb, recvbuf, &rb, tag::ALLTOALLV) }
}

/// The blocks of MPI_Alltoallw (byte displacements, a type per block).
///
/// # Safety
/// Every array has `n` entries.
pub(crate) unsafe fn w_blocks(
    w: &World,
    counts: *const c_int,
    displs: *const c_int,
    types: *const MPI_Datatype,
    n: usize,
    names: (&str, &str, &str),
) -> MpiResult<Vec<Block>> {
    // SAFETY: the caller's contract.
    let c = args::counts(unsafe { array(counts, n, names.0) }?, names.0)?;
    // SAFETY: the caller's contract.
    let d = unsafe { array(displs, n, names.1) }?;
    // SAFETY: the caller's contract.
    let ts = unsafe { array(types, n, names.2) }?;
    let ts = ts
        .iter()
        .enumerate()
        .map(|(i, &t)| args::datatype(w, t, &format!("{}[{i}]", names.2)))
        .collect::<MpiResult<Vec<_>>>()?;
    Ok(args::displaced_bytes(&c, d, &ts))
}

/// # Safety
/// MPI's contract for the buffers and arrays of this blocking call.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn alltoallw(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtypes: *const MPI_Datatype,
) -> MpiResult<()> {
    let n = ic.remote.len();
    // SAFETY: every array has one entry per remote rank.
    let rb = unsafe {
        w_blocks(
            w,
            recvcounts,
            rdispls,
            recvtypes,
            n,
            ("recvcounts", "rdispls", "recvtypes"),
        )
    }?;
    // SAFETY: as above.
    let sb = unsafe {
        w_blocks(
            w,
            sendcounts,
            sdispls,
            sendtypes,
            n,
            ("sendcounts", "sdispls", "sendtypes"),
        )
    }?;
    // SAFETY: the caller's contract.
    unsafe { alltoall_blocks(w, ic, sendbuf, &sb, recvbuf, &rb, tag::ALLTOALLV) }
}

/// The count, datatype and operator of a reduction, in MPICH's order.
pub(super) fn red(
    w: &World,
    count: impl Copy + Into<i64>,
    datatype: MPI_Datatype,
    op: MPI_Op,
) -> MpiResult<(usize, Arc<Datatype>, crate::mpi::op::Reduction)> {
    let n = args::count(count, "count")?;
    let ty = args::datatype(w, datatype, "datatype")?;
    let r = resolve(op, datatype, &ty)?;
    Ok((n, ty, r))
}

/// A reduction's buffer of `n` elements (MPI_IN_PLACE not allowed).
pub(super) fn red_buf(buf: *const c_void, n: usize, ty: &Datatype, what: &str) -> MpiResult<()> {
    if in_place(buf) {
        return args::no_in_place(what, NO_IN_PLACE);
    }
    args::buffer(buf.is_null(), n, ty, what)
}

/// # Safety
/// MPI's contract for the buffers of this blocking call.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn reduce(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: impl Copy + Into<i64>,
    datatype: MPI_Datatype,
    op: MPI_Op,
    root: c_int,
) -> MpiResult<()> {
    let (n, ty, r) = red(w, count, datatype, op)?;
    let root = calls::root(root, ic)?;
    match root {
        Root::Me => red_buf(recvbuf, n, &ty, "recvbuf")?,
        Root::Remote(_) => red_buf(sendbuf, n, &ty, "sendbuf")?,
        Root::Null => {}
    }
    // SAFETY: the caller's contract.
    let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    let d = Data { count: n, ty: &ty };
    with_op(&r, datatype, &ty, |op| {
        calls::reduce(&mut w.ep, ic, Some(&sb), Some(&mut rb), d, root, op)
    });
    Ok(())
}

/// # Safety
/// MPI's contract for the buffers of this blocking call.
pub(crate) unsafe fn allreduce(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: impl Copy + Into<i64>,
    datatype: MPI_Datatype,
    op: MPI_Op,
) -> MpiResult<()> {
    let (n, ty, r) = red(w, count, datatype, op)?;
    red_buf(sendbuf, n, &ty, "sendbuf")?;
    red_buf(recvbuf, n, &ty, "recvbuf")?;
    // SAFETY: the caller's contract.
    let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    let d = Data { count: n, ty: &ty };
    with_op(&r, datatype, &ty, |op| {
        calls::allreduce(&mut w.ep, ic, &sb, &mut rb, d, op)
    });
    Ok(())
}

/// # Safety
/// MPI's contract for the buffers and the array of this blocking call.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn reduce_scatter(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
) -> MpiResult<()> {
    // SAFETY: one entry per member of the local group.
    let counts = unsafe { array(recvcounts, ic.local.len(), "recvcounts") }?;
    let counts = args::counts(counts, "recvcounts")?;
    let (_, ty, r) = red(w, 0, datatype, op)?;
    red_buf(sendbuf, counts.iter().sum(), &ty, "sendbuf")?;
    red_buf(recvbuf, counts[ic.me], &ty, "recvbuf")?;
    // SAFETY: the caller's contract.
    let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    with_op(&r, datatype, &ty, |op| {
        calls::reduce_scatter(&mut w.ep, ic, &sb, &mut rb, &counts, &ty, op)
    });
    Ok(())
}

/// # Safety
/// MPI's contract for the buffers of this blocking call.
pub(crate) unsafe fn reduce_scatter_block(
    w: &mut World,
    ic: &InterComm,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcount: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
) -> MpiResult<()> {
    let (n, ty, r) = red(w, recvcount, datatype, op)?;
    red_buf(sendbuf, n * ic.local.len(), &ty, "sendbuf")?;
    red_buf(recvbuf, n, &ty, "recvbuf")?;
    // SAFETY: the caller's contract.
    let (sb, mut rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    let d = Data { count: n, ty: &ty };
    with_op(&r, datatype, &ty, |op| {
        calls::reduce_scatter_block(&mut w.ep, ic, &sb, &mut rb, d, op)
    });
    Ok(())
}
