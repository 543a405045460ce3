//! Error handlers and error texts: MPI_Comm_set_errhandler /
//! MPI_Comm_get_errhandler / MPI_Errhandler_set / MPI_Errhandler_free,
//! MPI_Error_string, MPI_Error_class (which know the classes, codes and
//! strings the program added). Creating and calling handlers, and adding
//! classes: `crate::abi::errhandler`.
use crate::abi::buffers::{out, put_cstr};
use crate::abi::state::{anytime_error, call};
use crate::mpi::error::{code_class, code_text, MpiError};
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

/// MPI_Comm_get_errhandler and its MPI-1 name: the program gets a new
/// reference to a user handler (to free with MPI_Errhandler_free).
///
/// # Safety
/// `errhandler` is null or valid for a write.
pub(crate) unsafe fn get_errhandler(
    name: &str,
    comm: MPI_Comm,
    errhandler: *mut MPI_Errhandler,
) -> c_int {
    call(name, comm, |w| {
        let eh = w.comms.get(comm)?.errhandler;
        // SAFETY: null or a valid handle pointer (contract).
        let o = unsafe { out(errhandler, "errhandler") }?;
        w.errhandlers.add_ref(eh);
        *o = eh;
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Comm_get_errhandler / PMPI_Comm_get_errhandler(comm: MPI_Comm, errhandler: *mut MPI_Errhandler) -> c_int {
        // SAFETY: the caller's pointer, passed on.
        unsafe { get_errhandler("MPI_Comm_get_errhandler", comm, errhandler) }
    }
}

mpi_fn! {
    /// Drops the program's reference and sets the handle to
    /// MPI_ERRHANDLER_NULL; objects the handler is attached to keep it (the
    /// predefined handlers are never destroyed). MPI-4 allows it while MPI
    /// is not initialized too (session handlers): then an error returns its
    /// class.
    fn MPI_Errhandler_free / PMPI_Errhandler_free(errhandler: *mut MPI_Errhandler) -> c_int {
        if !crate::abi::state::active() {
            // SAFETY: null or a valid handle pointer (caller).
            return unsafe { crate::abi::session::errhandler_free_outside(errhandler) };
        }
        call("MPI_Errhandler_free", sys::MPI_COMM_WORLD, |w| {
            // SAFETY: null or a valid handle pointer (caller).
            let eh = unsafe { out(errhandler, "errhandler") }?;
            w.errhandlers.free(*eh)?;
            *eh = sys::MPI_ERRHANDLER_NULL;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Error_string / PMPI_Error_string(errorcode: c_int, string: *mut c_char, resultlen: *mut c_int) -> c_int {
        let Some(text) = code_text(errorcode) else {
            let e = MpiError::new(sys::MPI_ERR_ARG, format!("unknown error code {errorcode}"));
            return anytime_error("MPI_Error_string", e);
        };
        if string.is_null() || resultlen.is_null() {
            let e = MpiError::new(sys::MPI_ERR_ARG, "null pointer passed as string or resultlen");
            return anytime_error("MPI_Error_string", e);
        }
        // SAFETY: MPI requires string to hold MPI_MAX_ERROR_STRING chars;
        // resultlen checked non-null.
        unsafe { resultlen.write(put_cstr(string, sys::MPI_MAX_ERROR_STRING as usize, &text)) };
        sys::MPI_SUCCESS
    }
}

mpi_fn! {
    fn MPI_Error_class / PMPI_Error_class(errorcode: c_int, errorclass: *mut c_int) -> c_int {
        let Some(class) = code_class(errorcode) else {
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
