//! Error handlers and error texts: MPI_Comm_set_errhandler /
//! MPI_Comm_get_errhandler / MPI_Errhandler_set / MPI_Errhandler_free,
//! MPI_Error_string, MPI_Error_class.
use crate::abi::buffers::{out, put_cstr};
use crate::abi::state::{anytime_error, call};
use crate::mpi::error::{error_class, error_string, fail, MpiError};
use crate::sys::{self, MPI_Comm, MPI_Errhandler};
use std::os::raw::{c_char, c_int};

mpi_fn! {
    fn MPI_Comm_set_errhandler / PMPI_Comm_set_errhandler(comm: MPI_Comm, errhandler: MPI_Errhandler) -> c_int {
        call("MPI_Comm_set_errhandler", comm, |w| w.set_errhandler(comm, errhandler))
    }
}

mpi_fn! {
    /// MPI-1 name of MPI_Comm_set_errhandler.
    fn MPI_Errhandler_set / PMPI_Errhandler_set(comm: MPI_Comm, errhandler: MPI_Errhandler) -> c_int {
        call("MPI_Errhandler_set", comm, |w| w.set_errhandler(comm, errhandler))
    }
}

mpi_fn! {
    fn MPI_Comm_get_errhandler / PMPI_Comm_get_errhandler(comm: MPI_Comm, errhandler: *mut MPI_Errhandler) -> c_int {
        call("MPI_Comm_get_errhandler", comm, |w| {
            let eh = w.comms.get(comm)?.errhandler;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(errhandler, "errhandler") }?;
            *o = eh;
            Ok(())
        })
    }
}

mpi_fn! {
    /// The predefined handlers are never destroyed: freeing one only clears
    /// the caller's handle.
    fn MPI_Errhandler_free / PMPI_Errhandler_free(errhandler: *mut MPI_Errhandler) -> c_int {
        call("MPI_Errhandler_free", sys::MPI_COMM_WORLD, |_| {
            // SAFETY: null or a valid handle pointer (caller).
            let eh = unsafe { out(errhandler, "errhandler") }?;
            if *eh != sys::MPI_ERRORS_ARE_FATAL && *eh != sys::MPI_ERRORS_RETURN {
                return fail(sys::MPI_ERR_ARG, format!("invalid error handler {:#x}", *eh));
            }
            *eh = sys::MPI_ERRHANDLER_NULL;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Error_string / PMPI_Error_string(errorcode: c_int, string: *mut c_char, resultlen: *mut c_int) -> c_int {
        let Some(text) = error_string(errorcode) else {
            let e = MpiError::new(sys::MPI_ERR_ARG, format!("unknown error code {errorcode}"));
            return anytime_error("MPI_Error_string", e);
        };
        if string.is_null() || resultlen.is_null() {
            let e = MpiError::new(sys::MPI_ERR_ARG, "null pointer passed as string or resultlen");
            return anytime_error("MPI_Error_string", e);
        }
        // SAFETY: MPI requires string to hold MPI_MAX_ERROR_STRING chars;
        // resultlen checked non-null.
        unsafe { resultlen.write(put_cstr(string, sys::MPI_MAX_ERROR_STRING as usize, text)) };
        sys::MPI_SUCCESS
    }
}

mpi_fn! {
    fn MPI_Error_class / PMPI_Error_class(errorcode: c_int, errorclass: *mut c_int) -> c_int {
        let Some(class) = error_class(errorcode) else {
            let e = MpiError::new(sys::MPI_ERR_ARG, format!("unknown error code {errorcode}"));
            return anytime_error("MPI_Error_class", e);
        };
        if errorclass.is_null() {
            let e = MpiError::new(sys::MPI_ERR_ARG, "null pointer passed as errorclass");
            return anytime_error("MPI_Error_class", e);
        }
        // SAFETY: checked non-null; the caller passes a valid int pointer.
        unsafe { errorclass.write(class) };
        sys::MPI_SUCCESS
    }
}
