//! Completion calls: MPI_Wait / Waitall / Waitany / Waitsome, MPI_Test /
//! Testall / Testany / Testsome, MPI_Request_free, MPI_Cancel and
//! MPI_Test_cancelled. Statuses are written here; errors of multi-request
//! calls become MPI_ERR_IN_STATUS.
use crate::abi::buffers::{out, put_int_at, put_status, put_status_at, requests, status_in};
use crate::abi::grequest::{around, run_frees};
use crate::abi::state::{call, call_mut};
use crate::mpi::error::{MpiError, MpiResult};
use crate::mpi::state::Completion;
use crate::mpi::status::{empty_status, status_cancelled};
use crate::sys::{self, MPI_Request, MPI_Status};
use std::os::raw::c_int;

const WORLD: sys::MPI_Comm = sys::MPI_COMM_WORLD;

/// MPI_ERR_IN_STATUS naming the first failed request, raised on that
/// request's communicator; Ok if none failed.
fn in_status<'a>(failed: impl IntoIterator<Item = (usize, &'a Completion)>) -> MpiResult<()> {
    for (i, c) in failed {
        if let Some(e) = &c.error {
            return Err(MpiError {
                class: sys::MPI_ERR_IN_STATUS,
                msg: format!("request {i}: {}", e.msg),
                comm: e.comm,
            });
        }
    }
    Ok(())
}

/// Write (index, status) pairs of Waitsome / Testsome and raise errors.
///
/// # Safety
/// `outcount` null or writable; `indices` and `statuses` arrays of at least
/// the request count (statuses may be MPI_STATUSES_IGNORE).
unsafe fn put_some(
    done: Option<Vec<(usize, Completion)>>,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut MPI_Status,
) -> MpiResult<()> {
    // SAFETY: null or a valid int pointer (caller).
    let n = unsafe { out(outcount, "outcount") }?;
    let Some(done) = done else {
        *n = sys::MPI_UNDEFINED;
        return Ok(());
    };
    *n = done.len() as c_int;
    if !done.is_empty() && indices.is_null() {
        return Err(MpiError::new(
            sys::MPI_ERR_ARG,
            "null pointer passed as array_of_indices",
        ));
    }
    for (k, (i, c)) in done.iter().enumerate() {
        // SAFETY: k < number of requests, within both arrays (caller).
        unsafe {
            put_int_at(indices, k, *i as c_int);
            put_status_at(statuses, k, &c.status);
        }
    }
    in_status(done.iter().map(|(i, c)| (*i, c)))
}

mpi_fn! {
    fn MPI_Wait / PMPI_Wait(request: *mut MPI_Request, status: *mut MPI_Status) -> c_int {
        around(request, 1, "MPI_Wait", || {
            call_mut("MPI_Wait", WORLD, |w| {
                // SAFETY: null or a valid request pointer (caller).
                let r = unsafe { out(request, "request") }?;
                let c = w.wait(r)?;
                // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
                unsafe { put_status(status, &c.status) };
                c.error.map_or(Ok(()), Err)
            })
        })
    }
}

mpi_fn! {
    fn MPI_Test / PMPI_Test(request: *mut MPI_Request, flag: *mut c_int, status: *mut MPI_Status) -> c_int {
        around(request, 1, "MPI_Test", || {
            call("MPI_Test", WORLD, |w| {
                // SAFETY: null or valid pointers (caller).
                let (r, f) = unsafe { (out(request, "request")?, out(flag, "flag")?) };
                match w.test(r)? {
                    None => {
                        *f = 0;
                        Ok(())
                    }
                    Some(c) => {
                        *f = 1;
                        // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
                        unsafe { put_status(status, &c.status) };
                        c.error.map_or(Ok(()), Err)
                    }
                }
            })
        })
    }
}

mpi_fn! {
    fn MPI_Waitall / PMPI_Waitall(count: c_int, array_of_requests: *mut MPI_Request, array_of_statuses: *mut MPI_Status) -> c_int {
        around(array_of_requests, count, "MPI_Waitall", || {
            call_mut("MPI_Waitall", WORLD, |w| {
                // SAFETY: null or an array of count requests (caller).
                let hs = unsafe { requests(array_of_requests, count) }?;
                let cs = w.wait_all(hs)?;
                for (i, c) in cs.iter().enumerate() {
                    // SAFETY: i < count; MPI_STATUSES_IGNORE or count statuses.
                    unsafe { put_status_at(array_of_statuses, i, &c.status) };
                }
                in_status(cs.iter().enumerate())
            })
        })
    }
}

mpi_fn! {
    fn MPI_Testall / PMPI_Testall(count: c_int, array_of_requests: *mut MPI_Request, flag: *mut c_int, array_of_statuses: *mut MPI_Status) -> c_int {
        around(array_of_requests, count, "MPI_Testall", || {
            call("MPI_Testall", WORLD, |w| {
                // SAFETY: null or an array of count requests; flag null or valid.
                let (hs, f) = unsafe { (requests(array_of_requests, count)?, out(flag, "flag")?) };
                let Some(cs) = w.test_all(hs)? else {
                    *f = 0;
                    return Ok(());
                };
                *f = 1;
                for (i, c) in cs.iter().enumerate() {
                    // SAFETY: i < count; MPI_STATUSES_IGNORE or count statuses.
                    unsafe { put_status_at(array_of_statuses, i, &c.status) };
                }
                in_status(cs.iter().enumerate())
            })
        })
    }
}

mpi_fn! {
    fn MPI_Waitany / PMPI_Waitany(count: c_int, array_of_requests: *mut MPI_Request, indx: *mut c_int, status: *mut MPI_Status) -> c_int {
        around(array_of_requests, count, "MPI_Waitany", || {
            call_mut("MPI_Waitany", WORLD, |w| {
                // SAFETY: null or an array of count requests; indx null or valid.
                let (hs, ix) = unsafe { (requests(array_of_requests, count)?, out(indx, "indx")?) };
                let (i, c) = match w.wait_any(hs)? {
                    Some((i, c)) => (i as c_int, c),
                    None => (sys::MPI_UNDEFINED, Completion { status: empty_status(), error: None }),
                };
                *ix = i;
                // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
                unsafe { put_status(status, &c.status) };
                c.error.map_or(Ok(()), Err)
            })
        })
    }
}

mpi_fn! {
    fn MPI_Testany / PMPI_Testany(count: c_int, array_of_requests: *mut MPI_Request, indx: *mut c_int, flag: *mut c_int, status: *mut MPI_Status) -> c_int {
        around(array_of_requests, count, "MPI_Testany", || {
            call("MPI_Testany", WORLD, |w| {
                // SAFETY: null or an array of count requests; indx, flag null or valid.
                let (hs, ix, f) = unsafe {
                    (requests(array_of_requests, count)?, out(indx, "indx")?, out(flag, "flag")?)
                };
                let Some((i, c)) = w.test_any(hs)? else {
                    *f = 0;
                    *ix = sys::MPI_UNDEFINED;
                    return Ok(());
                };
                *f = 1;
                *ix = i.map_or(sys::MPI_UNDEFINED, |i| i as c_int);
                // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
                unsafe { put_status(status, &c.status) };
                c.error.map_or(Ok(()), Err)
            })
        })
    }
}

mpi_fn! {
    fn MPI_Waitsome / PMPI_Waitsome(incount: c_int, array_of_requests: *mut MPI_Request, outcount: *mut c_int, array_of_indices: *mut c_int, array_of_statuses: *mut MPI_Status) -> c_int {
        around(array_of_requests, incount, "MPI_Waitsome", || {
            call_mut("MPI_Waitsome", WORLD, |w| {
                // SAFETY: null or an array of incount requests (caller).
                let hs = unsafe { requests(array_of_requests, incount) }?;
                let done = w.wait_some(hs)?;
                // SAFETY: the caller's arrays hold incount entries.
                unsafe { put_some(done, outcount, array_of_indices, array_of_statuses) }
            })
        })
    }
}

mpi_fn! {
    fn MPI_Testsome / PMPI_Testsome(incount: c_int, array_of_requests: *mut MPI_Request, outcount: *mut c_int, array_of_indices: *mut c_int, array_of_statuses: *mut MPI_Status) -> c_int {
        around(array_of_requests, incount, "MPI_Testsome", || {
            call("MPI_Testsome", WORLD, |w| {
                // SAFETY: null or an array of incount requests (caller).
                let hs = unsafe { requests(array_of_requests, incount) }?;
                let done = w.test_some(hs)?;
                // SAFETY: the caller's arrays hold incount entries.
                unsafe { put_some(done, outcount, array_of_indices, array_of_statuses) }
            })
        })
    }
}

mpi_fn! {
    fn MPI_Request_free / PMPI_Request_free(request: *mut MPI_Request) -> c_int {
        // a generalized request's free callback runs after the call
        let rc = call("MPI_Request_free", WORLD, |w| {
            // SAFETY: null or a valid request pointer (caller).
            let r = unsafe { out(request, "request") }?;
            w.request_free(r)
        });
        run_frees("MPI_Request_free", rc)
    }
}

mpi_fn! {
    fn MPI_Cancel / PMPI_Cancel(request: *mut MPI_Request) -> c_int {
        if !request.is_null() {
            // SAFETY: a valid request pointer (caller).
            if let Some(rc) = crate::abi::grequest::cancel(unsafe { *request }) {
                return rc;
            }
        }
        call("MPI_Cancel", WORLD, |w| {
            // SAFETY: null or a valid request pointer (caller).
            let r = unsafe { out(request, "request") }?;
            w.cancel(*r)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Test_cancelled / PMPI_Test_cancelled(status: *const MPI_Status, flag: *mut c_int) -> c_int {
        call("MPI_Test_cancelled", WORLD, |_| {
            // SAFETY: null, MPI_STATUS_IGNORE or a valid status; flag null or valid.
            let (st, f) = unsafe { (status_in(status)?, out(flag, "flag")?) };
            *f = status_cancelled(st) as c_int;
            Ok(())
        })
    }
}
