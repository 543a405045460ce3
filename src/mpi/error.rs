//! MPI errors: the error classes of mpi.h, their names and sentences
//! (MPI_Error_string), code -> class mapping (MPI_Error_class), and the error
//! value every fallible operation of the object model returns.
use crate::sys;
use std::os::raw::c_int;

/// A failed MPI operation: its error class, what went wrong (a complete
/// phrase naming the bad argument) and, when the error belongs to a request
/// or object of another communicator, that communicator (its error handler
/// decides; otherwise the communicator of the call does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MpiError {
    pub class: c_int,
    pub msg: String,
    pub comm: Option<sys::MPI_Comm>,
}

impl MpiError {
    pub fn new(class: c_int, msg: impl Into<String>) -> MpiError {
        MpiError {
            class,
            msg: msg.into(),
            comm: None,
        }
    }
    /// The same error, raised on `comm`'s error handler.
    pub fn on_comm(mut self, comm: sys::MPI_Comm) -> MpiError {
        self.comm = Some(comm);
        self
    }
}

pub type MpiResult<T> = Result<T, MpiError>;

/// Shorthand for `Err(MpiError::new(class, msg))`.
pub fn fail<T>(class: c_int, msg: impl Into<String>) -> MpiResult<T> {
    Err(MpiError::new(class, msg))
}

/// (class, name, sentence) for every error class of mpi.h.
const CLASSES: &[(c_int, &str, &str)] = &[
    (sys::MPI_SUCCESS, "MPI_SUCCESS", "No MPI error"),
    (
        sys::MPI_ERR_BUFFER,
        "MPI_ERR_BUFFER",
        "Invalid buffer pointer",
    ),
    (
        sys::MPI_ERR_COUNT,
        "MPI_ERR_COUNT",
        "Invalid count argument",
    ),
    (
        sys::MPI_ERR_TYPE,
        "MPI_ERR_TYPE",
        "Invalid datatype argument",
    ),
    (sys::MPI_ERR_TAG, "MPI_ERR_TAG", "Invalid tag argument"),
    (sys::MPI_ERR_COMM, "MPI_ERR_COMM", "Invalid communicator"),
    (sys::MPI_ERR_RANK, "MPI_ERR_RANK", "Invalid rank"),
    (sys::MPI_ERR_ROOT, "MPI_ERR_ROOT", "Invalid root"),
    (sys::MPI_ERR_GROUP, "MPI_ERR_GROUP", "Invalid group"),
    (sys::MPI_ERR_OP, "MPI_ERR_OP", "Invalid reduce operation"),
    (
        sys::MPI_ERR_TOPOLOGY,
        "MPI_ERR_TOPOLOGY",
        "Invalid topology",
    ),
    (
        sys::MPI_ERR_DIMS,
        "MPI_ERR_DIMS",
        "Invalid dimension argument",
    ),
    (sys::MPI_ERR_ARG, "MPI_ERR_ARG", "Invalid argument"),
    (sys::MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN", "Unknown error"),
    (
        sys::MPI_ERR_TRUNCATE,
        "MPI_ERR_TRUNCATE",
        "Message truncated",
    ),
    (sys::MPI_ERR_OTHER, "MPI_ERR_OTHER", "Other MPI error"),
    (sys::MPI_ERR_INTERN, "MPI_ERR_INTERN", "Internal MPI error"),
    (
        sys::MPI_ERR_IN_STATUS,
        "MPI_ERR_IN_STATUS",
        "Error code is in status",
    ),
    (sys::MPI_ERR_PENDING, "MPI_ERR_PENDING", "Pending request"),
    (sys::MPI_ERR_REQUEST, "MPI_ERR_REQUEST", "Invalid request"),
    (sys::MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM", "Out of memory"),
    (sys::MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL", "Invalid keyval"),
];

fn entry(code: c_int) -> Option<&'static (c_int, &'static str, &'static str)> {
    CLASSES.iter().find(|e| e.0 == code)
}

/// The symbolic name of an error class (`MPI_ERR_RANK`), None if unknown.
pub fn class_name(code: c_int) -> Option<&'static str> {
    entry(code).map(|e| e.1)
}

/// MPI_Error_string: a sentence for the code, None if it is not a known code.
pub fn error_string(code: c_int) -> Option<&'static str> {
    entry(code).map(|e| e.2)
}

/// MPI_Error_class: every code vaced returns is its own class.
pub fn error_class(code: c_int) -> Option<c_int> {
    entry(code).map(|e| e.0)
}

/// The line printed under MPI_ERRORS_ARE_FATAL before the job is aborted.
pub fn fatal_message(world_rank: u32, call: &str, err: &MpiError) -> String {
    format!(
        "vaced: rank {}: {}: {} [{}]",
        world_rank,
        call,
        err.msg,
        class_name(err.class).unwrap_or("unknown error class")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_maps_to_itself_with_a_sentence() {
        for code in 0..=19 {
            assert_eq!(error_class(code), Some(code));
            assert!(error_string(code).is_some_and(|s| !s.is_empty()));
        }
        assert_eq!(error_class(sys::MPI_ERR_NO_MEM), Some(34));
        assert_eq!(error_class(sys::MPI_ERR_KEYVAL), Some(48));
        assert_eq!(
            error_string(sys::MPI_ERR_TRUNCATE),
            Some("Message truncated")
        );
        assert_eq!(class_name(sys::MPI_ERR_RANK), Some("MPI_ERR_RANK"));
    }

    #[test]
    fn unknown_codes_are_rejected() {
        for code in [-1, 20, 33, 35, 47, 49, 1000, sys::MPI_ERR_LASTCODE] {
            assert_eq!(error_class(code), None, "code {code}");
            assert_eq!(error_string(code), None, "code {code}");
        }
    }

    #[test]
    fn fatal_message_format() {
        let e = MpiError::new(
            sys::MPI_ERR_RANK,
            "invalid destination rank 99 (communicator size 4)",
        );
        assert_eq!(
            fatal_message(3, "MPI_Send", &e),
            "vaced: rank 3: MPI_Send: invalid destination rank 99 (communicator size 4) [MPI_ERR_RANK]"
        );
    }
}
