//! Error handlers the program creates and calls, and error classes it adds:
//! MPI_Comm_create_errhandler (and the MPI-1 MPI_Errhandler_create),
//! MPI_Comm_call_errhandler, the MPI-1 MPI_Errhandler_get,
//! MPI_Add_error_class, MPI_Add_error_code, MPI_Add_error_string.
//!
//! A program's handler is called by every call that raises an error on a
//! communicator it is attached to (`crate::abi::state::error`), with
//! pointers to the communicator and the error code, after the state lock is
//! released; the call then returns the error code. Time spent in the
//! handler is the program's own computation. All of this is local: no
//! message moves.
use crate::abi::buffers::out;
use crate::abi::errors::get_errhandler;
use crate::abi::state::{call, raise_through};
use crate::mpi::errcodes;
use crate::mpi::errhandler::{CommFn, UserFn};
use crate::mpi::error::{code_class, fail, MpiError};
use crate::sys::{self, MPI_Comm, MPI_Errhandler};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

/// MPI_Comm_create_errhandler and its MPI-1 name.
///
/// # Safety
/// `errhandler` is null or valid for a write.
unsafe fn create(name: &str, func: CommFn, errhandler: *mut MPI_Errhandler) -> c_int {
    call(name, sys::MPI_COMM_WORLD, |w| {
        if func.is_none() {
            return fail(
                sys::MPI_ERR_ARG,
                "null pointer passed as the handler function",
            );
        }
        // SAFETY: null or a valid handle pointer (contract).
        let o = unsafe { out(errhandler, "errhandler") }?;
        *o = w.errhandlers.create(UserFn::Comm(func))?;
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Comm_create_errhandler / PMPI_Comm_create_errhandler(comm_errhandler_fn: sys::MPI_Comm_errhandler_function, errhandler: *mut MPI_Errhandler) -> c_int {
        // SAFETY: the caller's pointer, passed on.
        unsafe { create("MPI_Comm_create_errhandler", comm_errhandler_fn, errhandler) }
    }
}

mpi_fn! {
    /// MPI-1 name of MPI_Comm_create_errhandler (still in MPICH).
    fn MPI_Errhandler_create / PMPI_Errhandler_create(function: sys::MPI_Handler_function, errhandler: *mut MPI_Errhandler) -> c_int {
        // SAFETY: the caller's pointer, passed on; MPI_Handler_function has
        // the prototype of MPI_Comm_errhandler_function.
        unsafe { create("MPI_Errhandler_create", function, errhandler) }
    }
}

mpi_fn! {
    /// MPI-1 name of MPI_Comm_get_errhandler (still in MPICH).
    fn MPI_Errhandler_get / PMPI_Errhandler_get(comm: MPI_Comm, errhandler: *mut MPI_Errhandler) -> c_int {
        // SAFETY: the caller's pointer, passed on.
        unsafe { get_errhandler("MPI_Errhandler_get", comm, errhandler) }
    }
}

mpi_fn! {
    /// Invokes `comm`'s handler with `errorcode`: MPI_SUCCESS once a
    /// program's handler (or MPI_ERRORS_RETURN) returns, as MPICH; under
    /// MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT the job is aborted. An
    /// invalid communicator or error code is an error of this call.
    fn MPI_Comm_call_errhandler / PMPI_Comm_call_errhandler(comm: MPI_Comm, errorcode: c_int) -> c_int {
        let name = "MPI_Comm_call_errhandler";
        call(name, comm, |w| {
            let eh = w.comms.get(comm)?.errhandler;
            if code_class(errorcode).is_none() || errorcode == sys::MPI_SUCCESS {
                return fail(sys::MPI_ERR_ARG, format!("invalid error code {errorcode}"));
            }
            let e = MpiError::new(
                errorcode,
                format!("the program raised error code {errorcode} on this communicator"),
            );
            // a program's handler runs once `call` has released the lock
            raise_through(w, eh, comm, name, &e);
            Ok(())
        })
    }
}

mpi_fn! {
    /// A new error class (its string is "" until MPI_Add_error_string);
    /// the MPI_LASTUSEDCODE attribute follows.
    fn MPI_Add_error_class / PMPI_Add_error_class(errorclass: *mut c_int) -> c_int {
        call("MPI_Add_error_class", sys::MPI_COMM_WORLD, |_| {
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(errorclass, "errorclass") }?;
            *o = errcodes::add_class()?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Add_error_code / PMPI_Add_error_code(errorclass: c_int, errorcode: *mut c_int) -> c_int {
        call("MPI_Add_error_code", sys::MPI_COMM_WORLD, |_| {
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(errorcode, "errorcode") }?;
            *o = errcodes::add_code(errorclass)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Add_error_string / PMPI_Add_error_string(errorcode: c_int, string: *const c_char) -> c_int {
        call("MPI_Add_error_string", sys::MPI_COMM_WORLD, |_| {
            if string.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as string");
            }
            // SAFETY: non-null; MPI requires a NUL-terminated string.
            let s = unsafe { CStr::from_ptr(string) }.to_string_lossy();
            errcodes::add_string(errorcode, &s)
        })
    }
}
