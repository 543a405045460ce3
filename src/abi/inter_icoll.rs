//! The nonblocking collective calls on an intercommunicator: the checks of
//! the blocking forms (`abi::inter_coll`) plus the request pointer; the
//! schedules are built by `mpi::inter_icoll_calls`. `abi::icoll` calls
//! these when the communicator is an intercommunicator.
use crate::abi::buffers::out;
use crate::abi::inter_coll::{buf_arg, red, red_buf, v_blocks, w_blocks, NO_IN_PLACE, RECV, SEND};
use crate::abi::op::applier;
use crate::abi::userbuf::{in_place, RawBuf};
use crate::coll::inter::Root;
use crate::coll::nonblocking::{OwnedOp, Schedule};
use crate::mpi::coll_args::{self as args, Block, UserBuf};
use crate::mpi::coll_calls::Data;
use crate::mpi::error::MpiResult;
use crate::mpi::icoll_calls::{self, OutBuf};
use crate::mpi::inter_coll_calls::{root as inter_root, short};
use crate::mpi::inter_icoll_calls as calls;
use crate::mpi::intercomm::InterComm;
use crate::mpi::World;
use crate::sys::{MPI_Comm, MPI_Datatype, MPI_Op, MPI_Request};
use std::os::raw::{c_int, c_void};

/// Start `make(tag)` on `comm`, its request written to `request`.
///
/// # Safety
/// `request` is null or writable.
unsafe fn start(
    w: &mut World,
    comm: MPI_Comm,
    request: *mut MPI_Request,
    make: impl FnOnce(i32) -> Schedule,
) -> MpiResult<()> {
    // SAFETY: the caller's contract.
    let r = unsafe { out(request, "request") }?;
    let tag = icoll_calls::next_tag(w, comm)?;
    *r = icoll_calls::start(w, comm, make(tag))?;
    Ok(())
}

/// The operator of a reduction as an `OwnedOp` the schedule calls later.
fn owned(
    w: &World,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
) -> MpiResult<(
    usize,
    std::sync::Arc<crate::mpi::datatype::Datatype>,
    OwnedOp,
)> {
    let (n, ty, r) = red(w, count, datatype, op)?;
    let o = OwnedOp {
        commutative: r.commutative,
        builtin: r.builtin,
        apply: applier(&r, datatype, &ty),
    };
    Ok((n, ty, o))
}

/// # Safety
/// `request` is null or writable.
pub(crate) unsafe fn ibarrier(
    w: &mut World,
    ic: &InterComm,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> MpiResult<()> {
    // SAFETY: passed on.
    unsafe { start(w, comm, request, |tag| calls::ibarrier(ic, tag)) }
}

/// # Safety
/// MPI's contract for a nonblocking call's buffer and request.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn ibcast(
    w: &mut World,
    ic: &InterComm,
    comm: MPI_Comm,
    buffer: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    root: c_int,
    request: *mut MPI_Request,
) -> MpiResult<()> {
    let root = inter_root(root, ic)?;
    let (n, t) = buf_arg(w, buffer, count, datatype, ("count", "datatype", "buffer"))?;
    // SAFETY: the buffer lives until the request completes (caller).
    let b = unsafe { RawBuf::new(buffer) };
    // SAFETY: passed on.
    unsafe {
        start(w, comm, request, |tag| {
            calls::ibcast(ic, tag, Box::new(b), Data { count: n, ty: &t }, root)
        })
    }
}

/// # Safety
/// MPI's contract for a nonblocking call's buffers and request.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn ireduce(
    w: &mut World,
    ic: &InterComm,
    comm: MPI_Comm,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    root: c_int,
    request: *mut MPI_Request,
) -> MpiResult<()> {
    let (n, ty, o) = owned(w, count, datatype, op)?;
    let root = inter_root(root, ic)?;
    match root {
        Root::Me => red_buf(recvbuf, n, &ty, "recvbuf")?,
        Root::Remote(_) => red_buf(sendbuf, n, &ty, "sendbuf")?,
        Root::Null => {}
    }
    // SAFETY: the buffers live until the request completes (caller).
    let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    // SAFETY: passed on.
    unsafe {
        start(w, comm, request, |tag| {
            calls::ireduce(
                ic,
                tag,
                &sb,
                Box::new(rb),
                Data { count: n, ty: &ty },
                o,
                root,
            )
        })
    }
}

/// # Safety
/// MPI's contract for a nonblocking call's buffers and request.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn iallreduce(
    w: &mut World,
    ic: &InterComm,
    comm: MPI_Comm,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    request: *mut MPI_Request,
) -> MpiResult<()> {
    let (n, ty, o) = owned(w, count, datatype, op)?;
    red_buf(sendbuf, n, &ty, "sendbuf")?;
    red_buf(recvbuf, n, &ty, "recvbuf")?;
    // SAFETY: the buffers live until the request completes (caller).
    let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    // SAFETY: passed on.
    unsafe {
        start(w, comm, request, |tag| {
            calls::iallreduce(ic, tag, &sb, Box::new(rb), Data { count: n, ty: &ty }, o)
        })
    }
}

/// MPI_Ireduce_scatter (`counts`: one per local rank) and
/// MPI_Ireduce_scatter_block.
///
/// # Safety
/// MPI's contract for a nonblocking call's buffers and request.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn ireduce_scatter(
    w: &mut World,
    ic: &InterComm,
    comm: MPI_Comm,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    counts: Vec<usize>,
    datatype: MPI_Datatype,
    op: MPI_Op,
    request: *mut MPI_Request,
) -> MpiResult<()> {
    let (_, ty, o) = owned(w, 0, datatype, op)?;
    red_buf(sendbuf, counts.iter().sum(), &ty, "sendbuf")?;
    red_buf(recvbuf, counts[ic.me], &ty, "recvbuf")?;
    // SAFETY: the buffers live until the request completes (caller).
    let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    // SAFETY: passed on.
    unsafe {
        start(w, comm, request, |tag| {
            calls::ireduce_scatter(
                ic,
                tag,
                &sb,
                Box::new(rb),
                &counts,
                Data { count: 0, ty: &ty },
                o,
            )
        })
    }
}

/// MPI_Igather and MPI_Iscatter (`gather`: which).
///
/// # Safety
/// MPI's contract for a nonblocking call's buffers and request.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn igather_iscatter(
    w: &mut World,
    ic: &InterComm,
    comm: MPI_Comm,
    gather: bool,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    request: *mut MPI_Request,
) -> MpiResult<()> {
    let root = inter_root(root, ic)?;
    let (sends, recvs) = match (gather, root) {
        (_, Root::Null) => (false, false),
        (true, Root::Me) | (false, Root::Remote(_)) => (false, true),
        _ => (true, false),
    };
    let send = if sends {
        Some(buf_arg(w, sendbuf, sendcount, sendtype, SEND)?)
    } else {
        None
    };
    let recv = if recvs {
        Some(buf_arg(w, recvbuf, recvcount, recvtype, RECV)?)
    } else {
        None
    };
    let (rc, sc) = (
        recv.as_ref().map_or(0, |r| r.0),
        send.as_ref().map_or(0, |s| s.0),
    );
    let sh = if gather {
        short(ic, root, rc, sc)
    } else {
        short(ic, root, sc, rc)
    };
    // SAFETY: the buffers live until the request completes (caller).
    let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    let s = send
        .as_ref()
        .map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
    let r = recv
        .as_ref()
        .map(|(n, t)| (Box::new(rb) as OutBuf, Data { count: *n, ty: t }));
    // SAFETY: passed on.
    unsafe {
        start(w, comm, request, |tag| {
            if gather {
                calls::igather(ic, tag, s, r, root, sh)
            } else {
                calls::iscatter(ic, tag, s, r, root, sh)
            }
        })
    }
}

/// # Safety
/// MPI's contract for a nonblocking call's buffers, arrays and request.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn igatherv(
    w: &mut World,
    ic: &InterComm,
    comm: MPI_Comm,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    request: *mut MPI_Request,
) -> MpiResult<()> {
    let root = inter_root(root, ic)?;
    let send = match root {
        Root::Remote(_) => Some(buf_arg(w, sendbuf, sendcount, sendtype, SEND)?),
        _ => None,
    };
    let rblocks = match root {
        Root::Me => {
            let t = args::datatype(w, recvtype, "recvtype")?;
            // SAFETY: one entry per remote rank at the root.
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
                args::no_in_place("recvbuf", NO_IN_PLACE)?;
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
    // SAFETY: the buffers live until the request completes (caller).
    let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    let s = send
        .as_ref()
        .map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
    let r = rblocks.map(|b| (Box::new(rb) as OutBuf, b));
    // SAFETY: passed on.
    unsafe { start(w, comm, request, |tag| calls::igatherv(ic, tag, s, r, root)) }
}

/// # Safety
/// MPI's contract for a nonblocking call's buffers, arrays and request.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn iscatterv(
    w: &mut World,
    ic: &InterComm,
    comm: MPI_Comm,
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    displs: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    root: c_int,
    request: *mut MPI_Request,
) -> MpiResult<()> {
    let root = inter_root(root, ic)?;
    let sblocks = match root {
        Root::Me => {
            let t = args::datatype(w, sendtype, "sendtype")?;
            // SAFETY: one entry per remote rank at the root.
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
                args::no_in_place("sendbuf", NO_IN_PLACE)?;
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
    // SAFETY: the buffers live until the request completes (caller).
    let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    let s = sblocks.as_deref().map(|b| (&sb as &dyn UserBuf, b));
    let r = recv
        .as_ref()
        .map(|(n, t)| (Box::new(rb) as OutBuf, Data { count: *n, ty: t }));
    // SAFETY: passed on.
    unsafe {
        start(w, comm, request, |tag| {
            calls::iscatterv(ic, tag, s, r, root)
        })
    }
}

/// MPI_Iallgather and MPI_Ialltoall (`gather`: which).
///
/// # Safety
/// MPI's contract for a nonblocking call's buffers and request.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn iallgather_ialltoall(
    w: &mut World,
    ic: &InterComm,
    comm: MPI_Comm,
    gather: bool,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    request: *mut MPI_Request,
) -> MpiResult<()> {
    let (sn, st) = buf_arg(w, sendbuf, sendcount, sendtype, SEND)?;
    let (rn, rt) = buf_arg(w, recvbuf, recvcount, recvtype, RECV)?;
    // SAFETY: the buffers live until the request completes (caller).
    let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    let n = ic.remote.len();
    // SAFETY: passed on.
    unsafe {
        start(w, comm, request, |tag| {
            if gather {
                calls::iallgather(
                    ic,
                    tag,
                    (&sb, Data { count: sn, ty: &st }),
                    Box::new(rb),
                    Data { count: rn, ty: &rt },
                )
            } else {
                let sbl = args::consecutive(n, sn, &st);
                calls::ialltoallv(
                    ic,
                    tag,
                    (&sb, &sbl),
                    Box::new(rb),
                    args::consecutive(n, rn, &rt),
                )
            }
        })
    }
}

/// # Safety
/// MPI's contract for a nonblocking call's buffers, arrays and request.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn iallgatherv(
    w: &mut World,
    ic: &InterComm,
    comm: MPI_Comm,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: MPI_Datatype,
    request: *mut MPI_Request,
) -> MpiResult<()> {
    let (sn, st) = buf_arg(w, sendbuf, sendcount, sendtype, SEND)?;
    let rt = args::datatype(w, recvtype, "recvtype")?;
    // SAFETY: one entry per remote rank.
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
    // SAFETY: the buffers live until the request completes (caller).
    let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    // SAFETY: passed on.
    unsafe {
        start(w, comm, request, |tag| {
            calls::iallgatherv(
                ic,
                tag,
                (&sb, Data { count: sn, ty: &st }),
                Box::new(rb),
                rblocks,
            )
        })
    }
}

/// MPI_Ialltoallv / MPI_Ialltoallw once their blocks are known.
///
/// # Safety
/// MPI's contract for a nonblocking call's buffers and request.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn ialltoall_blocks(
    w: &mut World,
    ic: &InterComm,
    comm: MPI_Comm,
    sendbuf: *const c_void,
    sblocks: Vec<Block>,
    recvbuf: *mut c_void,
    rblocks: Vec<Block>,
    request: *mut MPI_Request,
) -> MpiResult<()> {
    if in_place(sendbuf) {
        args::no_in_place("sendbuf", NO_IN_PLACE)?;
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
    // SAFETY: the buffers live until the request completes (caller).
    let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
    // SAFETY: passed on.
    unsafe {
        start(w, comm, request, |tag| {
            calls::ialltoallv(ic, tag, (&sb, &sblocks), Box::new(rb), rblocks)
        })
    }
}

/// # Safety
/// MPI's contract for a nonblocking call's buffers, arrays and request.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn ialltoallv(
    w: &mut World,
    ic: &InterComm,
    comm: MPI_Comm,
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: MPI_Datatype,
    request: *mut MPI_Request,
) -> MpiResult<()> {
    let n = ic.remote.len();
    let st = args::datatype(w, sendtype, "sendtype")?;
    let rt = args::datatype(w, recvtype, "recvtype")?;
    // SAFETY: every array has one entry per remote rank.
    let sb = unsafe { v_blocks(sendcounts, sdispls, n, &st, ("sendcounts", "sdispls")) }?;
    // SAFETY: as above.
    let rb = unsafe { v_blocks(recvcounts, rdispls, n, &rt, ("recvcounts", "rdispls")) }?;
    // SAFETY: passed on.
    unsafe { ialltoall_blocks(w, ic, comm, sendbuf, sb, recvbuf, rb, request) }
}

/// # Safety
/// MPI's contract for a nonblocking call's buffers, arrays and request.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn ialltoallw(
    w: &mut World,
    ic: &InterComm,
    comm: MPI_Comm,
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtypes: *const MPI_Datatype,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtypes: *const MPI_Datatype,
    request: *mut MPI_Request,
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
    // SAFETY: passed on.
    unsafe { ialltoall_blocks(w, ic, comm, sendbuf, sb, recvbuf, rb, request) }
}
