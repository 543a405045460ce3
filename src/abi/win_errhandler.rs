//! Error handlers of windows the program creates and calls:
//! MPI_Win_create_errhandler, MPI_Win_call_errhandler (MPI_Win_set /
//! get_errhandler are in `crate::abi::rma`). MPICH has no MPI-1 names for
//! these.
//!
//! A window starts with MPI_ERRORS_ARE_FATAL (as MPICH: the standard's
//! default for windows; nothing is inherited from the communicator). Every
//! window call that fails on a valid window raises the error through the
//! window's handler; a program's handler is called with pointers to the
//! window and the error code once the state lock is released, and the call
//! then returns the code. All of this is local: no message moves and no
//! virtual time passes (time in the handler is the program's computation).
use crate::abi::buffers::out;
use crate::abi::rma::win_call;
use crate::abi::state::{call, raise_through};
use crate::mpi::errhandler::UserFn;
use crate::mpi::error::{code_class, fail, MpiError};
use crate::sys::{self, MPI_Errhandler, MPI_Win};
use std::os::raw::c_int;

mpi_fn! {
    fn MPI_Win_create_errhandler / PMPI_Win_create_errhandler(win_errhandler_fn: sys::MPI_Win_errhandler_function, errhandler: *mut MPI_Errhandler) -> c_int {
        call("MPI_Win_create_errhandler", sys::MPI_COMM_WORLD, |w| {
            if win_errhandler_fn.is_none() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as the handler function");
            }
            // SAFETY: null or a valid handle pointer (the caller's contract).
            let o = unsafe { out(errhandler, "errhandler") }?;
            *o = w.errhandlers.create(UserFn::Win(win_errhandler_fn))?;
            Ok(())
        })
    }
}

mpi_fn! {
    /// Invokes `win`'s handler with `errorcode`: MPI_SUCCESS once a
    /// program's handler (or MPI_ERRORS_RETURN) returns, as MPICH; under
    /// MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT the job is aborted. An
    /// invalid window or error code is an error of this call.
    fn MPI_Win_call_errhandler / PMPI_Win_call_errhandler(win: MPI_Win, errorcode: c_int) -> c_int {
        let name = "MPI_Win_call_errhandler";
        win_call(name, win, |w| {
            let eh = w.rma.get(win)?.errhandler;
            if code_class(errorcode).is_none() || errorcode == sys::MPI_SUCCESS {
                return fail(sys::MPI_ERR_ARG, format!("invalid error code {errorcode}"));
            }
            let e = MpiError::new(
                errorcode,
                format!("the program raised error code {errorcode} on this window"),
            );
            // a program's handler runs once the lock is released
            raise_through(w, eh, win, name, &e);
            Ok(())
        })
    }
}
