//! Nonblocking collective calls: MPI_Ibarrier, MPI_Ibcast. Arguments are
//! checked as for the blocking calls (`abi::coll`), plus the request
//! pointer; the schedules are in `coll::nonblocking`, their MPI semantics
//! in `mpi::icoll_calls`.
use crate::abi::buffers::out;
use crate::abi::state::call;
use crate::abi::userbuf::RawBuf;
use crate::mpi::coll_args::{self as args, CollComm};
use crate::mpi::coll_calls::Data;
use crate::mpi::icoll_calls;
use crate::sys::{MPI_Comm, MPI_Datatype, MPI_Request};
use std::os::raw::{c_int, c_void};

mpi_fn! {
    fn MPI_Ibarrier / PMPI_Ibarrier(comm: MPI_Comm, request: *mut MPI_Request) -> c_int {
        call("MPI_Ibarrier", comm, |w| {
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
