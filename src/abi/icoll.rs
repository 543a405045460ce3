//! Nonblocking collective calls: MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce,
//! MPI_Iallreduce, MPI_Igather, MPI_Iscatter, MPI_Iallgather, MPI_Ialltoall,
//! MPI_Iscan, MPI_Iexscan, MPI_Igatherv, MPI_Iscatterv, MPI_Iallgatherv,
//! MPI_Ialltoallv, MPI_Ialltoallw, MPI_Ireduce_scatter, MPI_Ireduce_scatter_block. Arguments are
//! checked as for the blocking calls (`abi::coll`), plus the request
//! pointer; the schedules are in `coll::nonblocking`, their MPI semantics
//! in `mpi::icoll_calls`.
use crate::abi::buffers::out;
use crate::abi::inter_coll;
use crate::abi::inter_icoll;
use crate::abi::op::{applier, resolve};
use crate::abi::state::call;
use crate::abi::userbuf::{array, in_place, RawBuf};
use crate::coll::nonblocking::OwnedOp;
use crate::mpi::coll_args::{self as args, CollComm, UserBuf};
use crate::mpi::coll_calls::Data;
use crate::mpi::datatype::Datatype;
use crate::mpi::error::MpiResult;
use crate::mpi::icoll_calls;
use crate::mpi::World;
use crate::sys::{MPI_Comm, MPI_Datatype, MPI_Op, MPI_Request};
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// MPI_IN_PLACE is only allowed at the root of a rooted collective.
const ROOT_ONLY: &str = "only the root may pass it";

mpi_fn! {
    fn MPI_Ibarrier / PMPI_Ibarrier(comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        call("MPI_Ibarrier", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_icoll::ibarrier(w, &ic, comm, request) };
            }
            let cc = CollComm::of(w, comm)?;
            // SAFETY: null or a valid request pointer (caller).
            let r = unsafe { out(request, "request") }?;
            let tag = icoll_calls::next_tag(w, comm)?;
            let s = icoll_calls::ibarrier(&cc, tag);
            *r = icoll_calls::start(w, comm, s)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Ibcast / PMPI_Ibcast(buffer: *mut c_void, count: c_int, datatype: MPI_Datatype, root: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        call("MPI_Ibcast", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_icoll::ibcast(w, &ic, comm, buffer, count, datatype, root, request) };
            }
            let cc = CollComm::of(w, comm)?;
            let count = args::count(count, "count")?;
            let ty = args::datatype(w, datatype, "datatype")?;
            let root = args::root(root, cc.size())?;
            args::buffer(buffer.is_null(), count, &ty, "buffer")?;
            // SAFETY: null or a valid request pointer (caller).
            let r = unsafe { out(request, "request") }?;
            // SAFETY: buffer holds `count` elements of the datatype until the
            // request completes, untouched by the program meanwhile (MPI's
            // contract for a nonblocking call).
            let buf = unsafe { RawBuf::new(buffer) };
            let tag = icoll_calls::next_tag(w, comm)?;
            let s = icoll_calls::ibcast(&cc, tag, Box::new(buf), Data { count, ty: &ty }, root);
            *r = icoll_calls::start(w, comm, s)?;
            Ok(())
        })
    }
}

/// Checked arguments of a nonblocking reduction: the communicator, the
/// count, the datatype and the operator (MPICH's order), the operator as
/// an owned `OwnedOp` the schedule can call later.
fn red(
    w: &World,
    comm: MPI_Comm,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
) -> MpiResult<(CollComm, usize, Arc<Datatype>, OwnedOp)> {
    let cc = CollComm::of(w, comm)?;
    let count = args::count(count, "count")?;
    let ty = args::datatype(w, datatype, "datatype")?;
    let r = resolve(op, datatype, &ty)?;
    let op = OwnedOp {
        commutative: r.commutative,
        builtin: r.builtin,
        apply: applier(&r, datatype, &ty),
    };
    Ok((cc, count, ty, op))
}

/// The send buffer (None: MPI_IN_PLACE) and the receive buffer of a
/// reduction, after the null and aliasing checks.
///
/// # Safety
/// Unless null or MPI_IN_PLACE, `sendbuf` holds `scount` elements and
/// `recvbuf` has room for `rcount` elements of `ty`, until the request
/// completes.
unsafe fn red_buffers(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    scount: usize,
    rcount: usize,
    ty: &Datatype,
) -> MpiResult<(Option<RawBuf>, RawBuf)> {
    args::buffer(recvbuf.is_null(), rcount, ty, "recvbuf")?;
    let send = if in_place(sendbuf) {
        None
    } else {
        args::buffer(sendbuf.is_null(), scount, ty, "sendbuf")?;
        args::not_aliased(sendbuf as usize, recvbuf as usize, ty.packed_size(rcount))?;
        // SAFETY: the caller's contract.
        Some(unsafe { RawBuf::new(sendbuf) })
    };
    // SAFETY: the caller's contract.
    Ok((send, unsafe { RawBuf::new(recvbuf) }))
}

fn as_user(b: &Option<RawBuf>) -> Option<&dyn UserBuf> {
    b.as_ref().map(|s| s as &dyn UserBuf)
}

mpi_fn! {
    fn MPI_Ireduce / PMPI_Ireduce(
        sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype,
        op: MPI_Op, root: c_int, comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Ireduce", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_icoll::ireduce(w, &ic, comm, sendbuf, recvbuf, count, datatype, op, root, request) };
            }
            let (cc, count, ty, op) = red(w, comm, count, datatype, op)?;
            let root = args::root(root, cc.size())?;
            let is_root = cc.me == root;
            if in_place(sendbuf) && !is_root {
                return args::no_in_place("sendbuf", ROOT_ONLY);
            }
            let rcount = if is_root { count } else { 0 };
            let recvbuf = if is_root { recvbuf } else { std::ptr::null_mut() };
            // SAFETY: MPI's contract for the buffers of a nonblocking call.
            let (s, r) = unsafe { red_buffers(sendbuf, recvbuf, count, rcount, &ty) }?;
            // SAFETY: null or a valid request pointer (caller).
            let req = unsafe { out(request, "request") }?;
            let tag = icoll_calls::next_tag(w, comm)?;
            let d = Data { count, ty: &ty };
            let sch = icoll_calls::ireduce(&cc, tag, as_user(&s), Box::new(r), d, op, root);
            *req = icoll_calls::start(w, comm, sch)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Iallreduce / PMPI_Iallreduce(
        sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype,
        op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Iallreduce", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_icoll::iallreduce(w, &ic, comm, sendbuf, recvbuf, count, datatype, op, request) };
            }
            let (cc, count, ty, op) = red(w, comm, count, datatype, op)?;
            // SAFETY: MPI's contract for the buffers of a nonblocking call.
            let (s, r) = unsafe { red_buffers(sendbuf, recvbuf, count, count, &ty) }?;
            // SAFETY: null or a valid request pointer (caller).
            let req = unsafe { out(request, "request") }?;
            let tag = icoll_calls::next_tag(w, comm)?;
            let d = Data { count, ty: &ty };
            let sch = icoll_calls::iallreduce(&cc, tag, as_user(&s), Box::new(r), d, op);
            *req = icoll_calls::start(w, comm, sch)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Igather / PMPI_Igather(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype,
        root: c_int, comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Igather", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_icoll::igather_iscatter(w, &ic, comm, true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, request) };
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
                if let Some((sn, st)) = &send {
                    args::matching(st.packed_size(*sn), t.packed_size(n), "MPI_Igather at the root")?;
                    args::not_aliased(sendbuf as usize, recvbuf as usize, t.packed_size(n))?;
                }
                (n, Some(t))
            } else {
                (0, None)
            };
            // SAFETY: null or a valid request pointer (caller).
            let req = unsafe { out(request, "request") }?;
            // SAFETY: sendbuf holds its elements and, at the root, recvbuf
            // has room for size x recvcount elements, until the request
            // completes (MPI's contract for a nonblocking call).
            let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            let rt = rt.unwrap_or_else(|| send.as_ref().expect("non-root sends").1.clone());
            let s = send.as_ref().map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
            let tag = icoll_calls::next_tag(w, comm)?;
            let sch = icoll_calls::igather(&cc, tag, s, Box::new(rb), Data { count: rn, ty: &rt }, root);
            *req = icoll_calls::start(w, comm, sch)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Iscatter / PMPI_Iscatter(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype,
        root: c_int, comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Iscatter", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_icoll::igather_iscatter(w, &ic, comm, false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, request) };
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
                    args::matching(st.packed_size(*sn), t.packed_size(n), "MPI_Iscatter at the root")?;
                    args::not_aliased(sendbuf as usize, recvbuf as usize, t.packed_size(n))?;
                }
                Some((n, t))
            };
            // SAFETY: null or a valid request pointer (caller).
            let req = unsafe { out(request, "request") }?;
            // SAFETY: at the root sendbuf holds size x sendcount elements;
            // recvbuf has room for recvcount elements until the request
            // completes (MPI's contract for a nonblocking call).
            let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            let s = send.as_ref().map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
            let r = recv.as_ref().map(|(n, t)| (Box::new(rb) as icoll_calls::OutBuf, Data { count: *n, ty: t }));
            let tag = icoll_calls::next_tag(w, comm)?;
            let sch = icoll_calls::iscatter(&cc, tag, s, r, root);
            *req = icoll_calls::start(w, comm, sch)?;
            Ok(())
        })
    }
}

/// MPI_Iallgather and MPI_Ialltoall: the same arguments and checks.
///
/// # Safety
/// MPI's contract for a nonblocking call: sendbuf holds its elements (size
/// x sendcount for Ialltoall), recvbuf has room for size x recvcount
/// elements, until the request completes.
#[allow(clippy::too_many_arguments)]
unsafe fn all_to(
    name: &'static str,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    call(name, comm, |w| {
        if let Some(ic) = inter_coll::of(w, comm)? {
            let gather = name == "MPI_Iallgather";
            // SAFETY: the caller's contract, passed on.
            return unsafe {
                inter_icoll::iallgather_ialltoall(
                    w, &ic, comm, gather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, request,
                )
            };
        }
        let cc = CollComm::of(w, comm)?;
        let rn = args::count(recvcount, "recvcount")?;
        let rt = args::datatype(w, recvtype, "recvtype")?;
        args::buffer(recvbuf.is_null(), rn, &rt, "recvbuf")?;
        let send = if in_place(sendbuf) {
            None
        } else {
            let n = args::count(sendcount, "sendcount")?;
            let t = args::datatype(w, sendtype, "sendtype")?;
            args::buffer(sendbuf.is_null(), n, &t, "sendbuf")?;
            args::matching(t.packed_size(n), rt.packed_size(rn), name)?;
            args::not_aliased(sendbuf as usize, recvbuf as usize, rt.packed_size(rn))?;
            Some((n, t))
        };
        // SAFETY: null or a valid request pointer (caller).
        let req = unsafe { out(request, "request") }?;
        // SAFETY: the caller's contract.
        let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
        let s = send
            .as_ref()
            .map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
        let tag = icoll_calls::next_tag(w, comm)?;
        let rd = Data { count: rn, ty: &rt };
        let sch = if name == "MPI_Iallgather" {
            icoll_calls::iallgather(&cc, tag, s, Box::new(rb), rd)
        } else {
            icoll_calls::ialltoall(&cc, tag, s, Box::new(rb), rd)
        };
        *req = icoll_calls::start(w, comm, sch)?;
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Iallgather / PMPI_Iallgather(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { all_to("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request) }
    }
}

mpi_fn! {
    fn MPI_Ialltoall / PMPI_Ialltoall(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { all_to("MPI_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request) }
    }
}

/// MPI_Iscan and MPI_Iexscan: the arguments of MPI_Iallreduce.
///
/// # Safety
/// MPI's contract for the buffers of a nonblocking call.
#[allow(clippy::too_many_arguments)]
unsafe fn scan_like(
    name: &'static str,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    op: MPI_Op,
    comm: MPI_Comm,
    request: *mut MPI_Request,
) -> c_int {
    call(name, comm, |w| {
        let (cc, count, ty, op) = red(w, comm, count, datatype, op)?;
        // SAFETY: the caller's contract.
        let (s, r) = unsafe { red_buffers(sendbuf, recvbuf, count, count, &ty) }?;
        // SAFETY: null or a valid request pointer (caller).
        let req = unsafe { out(request, "request") }?;
        let tag = icoll_calls::next_tag(w, comm)?;
        let d = Data { count, ty: &ty };
        let sch = if name == "MPI_Iscan" {
            icoll_calls::iscan(&cc, tag, as_user(&s), Box::new(r), d, op)
        } else {
            icoll_calls::iexscan(&cc, tag, as_user(&s), Box::new(r), d, op)
        };
        *req = icoll_calls::start(w, comm, sch)?;
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Iscan / PMPI_Iscan(
        sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype,
        op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { scan_like("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, comm, request) }
    }
}

mpi_fn! {
    fn MPI_Iexscan / PMPI_Iexscan(
        sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype,
        op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        // SAFETY: the caller's MPI contract, passed on.
        unsafe { scan_like("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, comm, request) }
    }
}

/// The counts and displacements of a v-collective (`n` entries each).
///
/// # Safety
/// Both pointers are null or point to `n` readable ints.
unsafe fn v_arrays(
    counts: *const c_int,
    displs: *const c_int,
    n: usize,
    names: (&str, &str),
) -> MpiResult<(Vec<usize>, Vec<c_int>)> {
    // SAFETY: the caller's contract.
    let c = unsafe { array(counts, n, names.0) }?;
    let c = args::counts(c, names.0)?;
    // SAFETY: the caller's contract.
    let d = unsafe { array(displs, n, names.1) }?.to_vec();
    Ok((c, d))
}

mpi_fn! {
    fn MPI_Igatherv / PMPI_Igatherv(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype,
        root: c_int, comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Igatherv", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_icoll::igatherv(w, &ic, comm, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, request) };
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
                    args::matching(st.packed_size(*sn), blocks[cc.me].bytes(), "MPI_Igatherv at the root")?;
                }
                blocks
            } else {
                Vec::new()
            };
            // SAFETY: null or a valid request pointer (caller).
            let req = unsafe { out(request, "request") }?;
            // SAFETY: sendbuf holds its elements and, at the root, recvbuf
            // has room for every block, until the request completes.
            let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            let s = send.as_ref().map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
            let tag = icoll_calls::next_tag(w, comm)?;
            let sch = icoll_calls::igatherv(&cc, tag, s, Box::new(rb), rblocks, root);
            *req = icoll_calls::start(w, comm, sch)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Iscatterv / PMPI_Iscatterv(
        sendbuf: *const c_void, sendcounts: *const c_int, displs: *const c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcount: c_int, recvtype: MPI_Datatype,
        root: c_int, comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Iscatterv", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_icoll::iscatterv(w, &ic, comm, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, request) };
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
                    args::matching(b[cc.me].bytes(), t.packed_size(n), "MPI_Iscatterv at the root")?;
                }
                Some((n, t))
            };
            // SAFETY: null or a valid request pointer (caller).
            let req = unsafe { out(request, "request") }?;
            // SAFETY: at the root sendbuf holds every block; recvbuf has room
            // for recvcount elements, until the request completes.
            let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            let s = sblocks.as_deref().map(|b| (&sb as &dyn UserBuf, b));
            let r = recv.as_ref().map(|(n, t)| (Box::new(rb) as icoll_calls::OutBuf, Data { count: *n, ty: t }));
            let tag = icoll_calls::next_tag(w, comm)?;
            let sch = icoll_calls::iscatterv(&cc, tag, s, r, root);
            *req = icoll_calls::start(w, comm, sch)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Iallgatherv / PMPI_Iallgatherv(
        sendbuf: *const c_void, sendcount: c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Iallgatherv", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_icoll::iallgatherv(w, &ic, comm, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, request) };
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
                args::matching(t.packed_size(n), rblocks[cc.me].bytes(), "MPI_Iallgatherv")?;
                Some((n, t))
            };
            // SAFETY: null or a valid request pointer (caller).
            let req = unsafe { out(request, "request") }?;
            // SAFETY: sendbuf holds its elements, recvbuf has room for every
            // block, until the request completes.
            let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            let s = send.as_ref().map(|(n, t)| (&sb as &dyn UserBuf, Data { count: *n, ty: t }));
            let tag = icoll_calls::next_tag(w, comm)?;
            let sch = icoll_calls::iallgatherv(&cc, tag, s, Box::new(rb), rblocks);
            *req = icoll_calls::start(w, comm, sch)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Ialltoallv / PMPI_Ialltoallv(
        sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: MPI_Datatype,
        comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Ialltoallv", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_icoll::ialltoallv(w, &ic, comm, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, request) };
            }
            let cc = CollComm::of(w, comm)?;
            let n = cc.size();
            // SAFETY: both arrays have one entry per rank.
            let (rc, rd) = unsafe { v_arrays(recvcounts, rdispls, n, ("recvcounts", "rdispls")) }?;
            let rt = args::datatype(w, recvtype, "recvtype")?;
            args::buffer(recvbuf.is_null(), rc.iter().sum(), &rt, "recvbuf")?;
            let rblocks = args::displaced(&rc, &rd, &rt);
            let sblocks = if in_place(sendbuf) {
                None
            } else {
                // SAFETY: both arrays have one entry per rank.
                let (sc, sd) = unsafe { v_arrays(sendcounts, sdispls, n, ("sendcounts", "sdispls")) }?;
                let st = args::datatype(w, sendtype, "sendtype")?;
                args::buffer(sendbuf.is_null(), sc.iter().sum(), &st, "sendbuf")?;
                let b = args::displaced(&sc, &sd, &st);
                args::matching(b[cc.me].bytes(), rblocks[cc.me].bytes(), "MPI_Ialltoallv")?;
                Some(b)
            };
            // SAFETY: null or a valid request pointer (caller).
            let req = unsafe { out(request, "request") }?;
            // SAFETY: sendbuf holds every send block, recvbuf has room for
            // every receive block, until the request completes.
            let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            let s = sblocks.as_deref().map(|b| (&sb as &dyn UserBuf, b));
            let tag = icoll_calls::next_tag(w, comm)?;
            let sch = icoll_calls::ialltoallv(&cc, tag, "MPI_Ialltoallv", s, Box::new(rb), rblocks);
            *req = icoll_calls::start(w, comm, sch)?;
            Ok(())
        })
    }
}

mpi_fn! {
    /// Each block is packed with its own datatype (displacements in bytes)
    /// and the packed blocks travel as in MPI_Ialltoallv.
    fn MPI_Ialltoallw / PMPI_Ialltoallw(
        sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtypes: *const MPI_Datatype,
        recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtypes: *const MPI_Datatype,
        comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Ialltoallw", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_icoll::ialltoallw(w, &ic, comm, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, request) };
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
                args::matching(b[cc.me].bytes(), rblocks[cc.me].bytes(), "MPI_Ialltoallw")?;
                Some(b)
            };
            // SAFETY: null or a valid request pointer (caller).
            let req = unsafe { out(request, "request") }?;
            // SAFETY: sendbuf holds every send block, recvbuf has room for
            // every receive block, until the request completes.
            let (sb, rb) = unsafe { (RawBuf::new(sendbuf), RawBuf::new(recvbuf)) };
            let s = sblocks.as_deref().map(|b| (&sb as &dyn UserBuf, b));
            let tag = icoll_calls::next_tag(w, comm)?;
            let sch = icoll_calls::ialltoallv(&cc, tag, "MPI_Ialltoallw", s, Box::new(rb), rblocks);
            *req = icoll_calls::start(w, comm, sch)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Ireduce_scatter / PMPI_Ireduce_scatter(
        sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int,
        datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Ireduce_scatter", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                // SAFETY: one entry per member of the local group.
                let counts = args::counts(unsafe { array(recvcounts, ic.local.len(), "recvcounts") }?, "recvcounts")?;
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_icoll::ireduce_scatter(w, &ic, comm, sendbuf, recvbuf, counts, datatype, op, request) };
            }
            let cc = CollComm::of(w, comm)?;
            // SAFETY: one entry per rank (MPI's contract).
            let counts = unsafe { array(recvcounts, cc.size(), "recvcounts") }?;
            let counts = args::counts(counts, "recvcounts")?;
            let (_, _, ty, op) = red(w, comm, 0, datatype, op)?;
            let total: usize = counts.iter().sum();
            // In place, recvbuf holds the whole input.
            let rcount = if in_place(sendbuf) { total } else { counts[cc.me] };
            // SAFETY: MPI's contract for the buffers of a nonblocking call.
            let (s, r) = unsafe { red_buffers(sendbuf, recvbuf, total, rcount, &ty) }?;
            // SAFETY: null or a valid request pointer (caller).
            let req = unsafe { out(request, "request") }?;
            let tag = icoll_calls::next_tag(w, comm)?;
            let sch = icoll_calls::ireduce_scatter(&cc, tag, "MPI_Ireduce_scatter", as_user(&s), Box::new(r), &counts, &ty, op);
            *req = icoll_calls::start(w, comm, sch)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Ireduce_scatter_block / PMPI_Ireduce_scatter_block(
        sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int,
        datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request,
    ) -> c_int {
        call("MPI_Ireduce_scatter_block", comm, |w| {
            if let Some(ic) = inter_coll::of(w, comm)? {
                let n = args::count(recvcount, "recvcount")?;
                let counts = vec![n; ic.local.len()];
                // SAFETY: the caller's MPI contract, passed on.
                return unsafe { inter_icoll::ireduce_scatter(w, &ic, comm, sendbuf, recvbuf, counts, datatype, op, request) };
            }
            let (cc, count, ty, op) = red(w, comm, recvcount, datatype, op)?;
            let total = count * cc.size();
            let rcount = if in_place(sendbuf) { total } else { count };
            // SAFETY: MPI's contract for the buffers of a nonblocking call.
            let (s, r) = unsafe { red_buffers(sendbuf, recvbuf, total, rcount, &ty) }?;
            // SAFETY: null or a valid request pointer (caller).
            let req = unsafe { out(request, "request") }?;
            let tag = icoll_calls::next_tag(w, comm)?;
            let counts = vec![count; cc.size()];
            let sch = icoll_calls::ireduce_scatter(&cc, tag, "MPI_Ireduce_scatter_block", as_user(&s), Box::new(r), &counts, &ty, op);
            *req = icoll_calls::start(w, comm, sch)?;
            Ok(())
        })
    }
}
