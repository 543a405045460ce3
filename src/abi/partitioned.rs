//! Partitioned communication (MPI-4): MPI_Psend_init, MPI_Precv_init,
//! MPI_Pready, MPI_Pready_range, MPI_Pready_list, MPI_Parrived. The
//! requests are persistent (MPI_Start / MPI_Startall / MPI_Wait /
//! MPI_Request_free as for MPI_Send_init); semantics and timing in
//! `mpi::partitioned`. Errors of the last four go to the request's
//! communicator.
use crate::abi::buffers::{input, out, recv_target, send_payload};
use crate::abi::comm_info::info_arg;
use crate::abi::state::call;
use crate::mpi::error::MpiResult;
use crate::mpi::partitioned::total_count;
use crate::sys::{self, MPI_Comm, MPI_Count, MPI_Datatype, MPI_Info, MPI_Request};
use std::os::raw::{c_int, c_void};

const WORLD: MPI_Comm = sys::MPI_COMM_WORLD;

/// Run `f` on request `h`, its errors raised on `h`'s communicator.
fn on_request(
    name: &str,
    h: MPI_Request,
    f: impl FnOnce(&mut crate::mpi::World) -> MpiResult<()>,
) -> c_int {
    call(name, WORLD, |w| {
        let comm = w.reqs.get(h).map(|r| r.comm).ok();
        f(w).map_err(|e| match comm {
            Some(c) if e.comm.is_none() => e.on_comm(c),
            _ => e,
        })
    })
}

mpi_fn! {
    fn MPI_Psend_init / PMPI_Psend_init(buf: *const c_void, partitions: c_int, count: MPI_Count, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        call("MPI_Psend_init", comm, |w| {
            info_arg(info, true)?;
            let n = total_count(partitions, count)?;
            let a = w.send_args(comm, n, datatype, dest, tag, buf.is_null())?;
            // SAFETY: null or a valid request pointer (caller).
            let r = unsafe { out(request, "request") }?;
            let (addr, args) = (buf as usize, a.clone());
            let payload = Box::new(move || {
                // SAFETY: MPI's rule for partitioned sends: every partition
                // holds its elements once marked ready, and the buffer stays
                // valid and unmodified until the request completes.
                unsafe { send_payload(addr as *const c_void, &args) }
            });
            *r = w.psend_init(a, partitions as usize, payload);
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Precv_init / PMPI_Precv_init(buf: *mut c_void, partitions: c_int, count: MPI_Count, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, info: MPI_Info, request: *mut MPI_Request) -> c_int {
        call("MPI_Precv_init", comm, |w| {
            info_arg(info, true)?;
            let n = total_count(partitions, count)?;
            let a = w.recv_args(comm, n, datatype, source, tag, buf.is_null())?;
            // SAFETY: null or a valid request pointer (caller).
            let r = unsafe { out(request, "request") }?;
            let (addr, args) = (buf as usize, a.clone());
            let target = Box::new(move || {
                // SAFETY: MPI's rule for partitioned receives: the buffer has
                // room for every partition whenever the request is started,
                // and the program reads a partition only once it has arrived.
                unsafe { recv_target(addr as *mut c_void, &args) }
            });
            *r = w.precv_init(a, partitions as usize, target)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Pready / PMPI_Pready(partition: c_int, request: MPI_Request) -> c_int {
        on_request("MPI_Pready", request, |w| w.pready(request, &[partition]))
    }
}

mpi_fn! {
    fn MPI_Pready_range / PMPI_Pready_range(partition_low: c_int, partition_high: c_int, request: MPI_Request) -> c_int {
        on_request("MPI_Pready_range", request, |w| {
            if partition_low > partition_high {
                return crate::mpi::error::fail(
                    sys::MPI_ERR_ARG,
                    format!(
                        "partition_low ({partition_low}) is above partition_high \
                         ({partition_high})"
                    ),
                );
            }
            let ps: Vec<c_int> = (partition_low..=partition_high).collect();
            w.pready(request, &ps)
        })
    }
}

mpi_fn! {
    fn MPI_Pready_list / PMPI_Pready_list(length: c_int, array_of_partitions: *const c_int, request: MPI_Request) -> c_int {
        on_request("MPI_Pready_list", request, |w| {
            if length < 0 {
                return crate::mpi::error::fail(
                    sys::MPI_ERR_ARG,
                    format!("length is {length}: negative"),
                );
            }
            let ps = if length == 0 {
                &[][..]
            } else {
                // SAFETY: null (refused) or an array of `length` ints (caller).
                unsafe { input(array_of_partitions, "array_of_partitions") }?;
                // SAFETY: as above, not null.
                unsafe { std::slice::from_raw_parts(array_of_partitions, length as usize) }
            };
            w.pready(request, ps)
        })
    }
}

mpi_fn! {
    fn MPI_Parrived / PMPI_Parrived(request: MPI_Request, partition: c_int, flag: *mut c_int) -> c_int {
        on_request("MPI_Parrived", request, |w| {
            // SAFETY: null or a valid int pointer (caller).
            let f = unsafe { out(flag, "flag") }?;
            *f = w.parrived(request, partition)? as c_int;
            Ok(())
        })
    }
}
