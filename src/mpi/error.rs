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
    (sys::MPI_ERR_ACCESS, "MPI_ERR_ACCESS", "Permission denied"),
    (
        sys::MPI_ERR_AMODE,
        "MPI_ERR_AMODE",
        "Invalid file access mode",
    ),
    (
        sys::MPI_ERR_BAD_FILE,
        "MPI_ERR_BAD_FILE",
        "Invalid file name",
    ),
    (
        sys::MPI_ERR_CONVERSION,
        "MPI_ERR_CONVERSION",
        "Error in data conversion",
    ),
    (
        sys::MPI_ERR_DUP_DATAREP,
        "MPI_ERR_DUP_DATAREP",
        "Data representation already defined",
    ),
    (
        sys::MPI_ERR_FILE_EXISTS,
        "MPI_ERR_FILE_EXISTS",
        "File exists",
    ),
    (
        sys::MPI_ERR_FILE_IN_USE,
        "MPI_ERR_FILE_IN_USE",
        "File in use by some process",
    ),
    (sys::MPI_ERR_FILE, "MPI_ERR_FILE", "Invalid file handle"),
    (sys::MPI_ERR_INFO, "MPI_ERR_INFO", "Invalid info object"),
    (
        sys::MPI_ERR_INFO_KEY,
        "MPI_ERR_INFO_KEY",
        "Invalid info key",
    ),
    (
        sys::MPI_ERR_INFO_VALUE,
        "MPI_ERR_INFO_VALUE",
        "Invalid info value",
    ),
    (
        sys::MPI_ERR_INFO_NOKEY,
        "MPI_ERR_INFO_NOKEY",
        "Info key not found",
    ),
    (sys::MPI_ERR_IO, "MPI_ERR_IO", "Other I/O error"),
    (sys::MPI_ERR_NAME, "MPI_ERR_NAME", "Invalid service name"),
    (sys::MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM", "Out of memory"),
    (
        sys::MPI_ERR_NOT_SAME,
        "MPI_ERR_NOT_SAME",
        "Collective argument not the same on all processes",
    ),
    (
        sys::MPI_ERR_NO_SPACE,
        "MPI_ERR_NO_SPACE",
        "Not enough space",
    ),
    (
        sys::MPI_ERR_NO_SUCH_FILE,
        "MPI_ERR_NO_SUCH_FILE",
        "File does not exist",
    ),
    (sys::MPI_ERR_PORT, "MPI_ERR_PORT", "Invalid port name"),
    (sys::MPI_ERR_QUOTA, "MPI_ERR_QUOTA", "Quota exceeded"),
    (
        sys::MPI_ERR_READ_ONLY,
        "MPI_ERR_READ_ONLY",
        "Read-only file or file system",
    ),
    (
        sys::MPI_ERR_SERVICE,
        "MPI_ERR_SERVICE",
        "Invalid service name",
    ),
    (
        sys::MPI_ERR_SPAWN,
        "MPI_ERR_SPAWN",
        "Error in spawning processes",
    ),
    (
        sys::MPI_ERR_UNSUPPORTED_DATAREP,
        "MPI_ERR_UNSUPPORTED_DATAREP",
        "Unsupported data representation",
    ),
    (
        sys::MPI_ERR_UNSUPPORTED_OPERATION,
        "MPI_ERR_UNSUPPORTED_OPERATION",
        "Operation not supported",
    ),
    (sys::MPI_ERR_WIN, "MPI_ERR_WIN", "Invalid window"),
    (sys::MPI_ERR_BASE, "MPI_ERR_BASE", "Invalid base address"),
    (
        sys::MPI_ERR_LOCKTYPE,
        "MPI_ERR_LOCKTYPE",
        "Invalid lock type",
    ),
    (sys::MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL", "Invalid keyval"),
    (
        sys::MPI_ERR_RMA_CONFLICT,
        "MPI_ERR_RMA_CONFLICT",
        "Conflicting accesses to window",
    ),
    (
        sys::MPI_ERR_RMA_SYNC,
        "MPI_ERR_RMA_SYNC",
        "Wrong synchronization of RMA calls",
    ),
    (sys::MPI_ERR_SIZE, "MPI_ERR_SIZE", "Invalid size argument"),
    (
        sys::MPI_ERR_DISP,
        "MPI_ERR_DISP",
        "Invalid displacement argument",
    ),
    (
        sys::MPI_ERR_ASSERT,
        "MPI_ERR_ASSERT",
        "Invalid assert argument",
    ),
    (
        sys::MPI_ERR_RMA_RANGE,
        "MPI_ERR_RMA_RANGE",
        "Target memory is not part of the window",
    ),
    (
        sys::MPI_ERR_RMA_ATTACH,
        "MPI_ERR_RMA_ATTACH",
        "Memory cannot be attached",
    ),
    (
        sys::MPI_ERR_RMA_SHARED,
        "MPI_ERR_RMA_SHARED",
        "Memory cannot be shared",
    ),
    (
        sys::MPI_ERR_RMA_FLAVOR,
        "MPI_ERR_RMA_FLAVOR",
        "Invalid window flavor for this operation",
    ),
    (
        sys::MPI_T_ERR_MEMORY,
        "MPI_T_ERR_MEMORY",
        "Out of memory in the tools interface",
    ),
    (
        sys::MPI_T_ERR_NOT_INITIALIZED,
        "MPI_T_ERR_NOT_INITIALIZED",
        "The tools interface is not initialized",
    ),
    (
        sys::MPI_T_ERR_CANNOT_INIT,
        "MPI_T_ERR_CANNOT_INIT",
        "The tools interface cannot be initialized now",
    ),
    (
        sys::MPI_T_ERR_INVALID_INDEX,
        "MPI_T_ERR_INVALID_INDEX",
        "Invalid index in the tools interface",
    ),
    (
        sys::MPI_T_ERR_INVALID_ITEM,
        "MPI_T_ERR_INVALID_ITEM",
        "Invalid item in the tools interface",
    ),
    (
        sys::MPI_T_ERR_INVALID_HANDLE,
        "MPI_T_ERR_INVALID_HANDLE",
        "Invalid tools interface handle",
    ),
    (
        sys::MPI_T_ERR_OUT_OF_HANDLES,
        "MPI_T_ERR_OUT_OF_HANDLES",
        "No more tools interface handles",
    ),
    (
        sys::MPI_T_ERR_OUT_OF_SESSIONS,
        "MPI_T_ERR_OUT_OF_SESSIONS",
        "No more tools interface sessions",
    ),
    (
        sys::MPI_T_ERR_INVALID_SESSION,
        "MPI_T_ERR_INVALID_SESSION",
        "Invalid tools interface session",
    ),
    (
        sys::MPI_T_ERR_CVAR_SET_NOT_NOW,
        "MPI_T_ERR_CVAR_SET_NOT_NOW",
        "The control variable cannot be set now",
    ),
    (
        sys::MPI_T_ERR_CVAR_SET_NEVER,
        "MPI_T_ERR_CVAR_SET_NEVER",
        "The control variable cannot be set",
    ),
    (
        sys::MPI_T_ERR_PVAR_NO_STARTSTOP,
        "MPI_T_ERR_PVAR_NO_STARTSTOP",
        "The performance variable cannot be started or stopped",
    ),
    (
        sys::MPI_T_ERR_PVAR_NO_WRITE,
        "MPI_T_ERR_PVAR_NO_WRITE",
        "The performance variable cannot be written or reset",
    ),
    (
        sys::MPI_T_ERR_PVAR_NO_ATOMIC,
        "MPI_T_ERR_PVAR_NO_ATOMIC",
        "The performance variable cannot be read and written atomically",
    ),
    (
        sys::MPI_T_ERR_INVALID_NAME,
        "MPI_T_ERR_INVALID_NAME",
        "Invalid name in the tools interface",
    ),
    (
        sys::MPI_T_ERR_INVALID,
        "MPI_T_ERR_INVALID",
        "Invalid use of the tools interface",
    ),
    (
        sys::MPI_ERR_SESSION,
        "MPI_ERR_SESSION",
        "Invalid session handle",
    ),
    (
        sys::MPI_ERR_PROC_ABORTED,
        "MPI_ERR_PROC_ABORTED",
        "Communication with an aborted process",
    ),
    (
        sys::MPI_ERR_VALUE_TOO_LARGE,
        "MPI_ERR_VALUE_TOO_LARGE",
        "Value too large to store",
    ),
    (
        sys::MPI_T_ERR_NOT_SUPPORTED,
        "MPI_T_ERR_NOT_SUPPORTED",
        "Not supported by the tools interface",
    ),
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

/// MPI_Error_class of any code: the predefined classes and the classes and
/// codes the program added (`crate::mpi::errcodes`).
pub fn code_class(code: c_int) -> Option<c_int> {
    error_class(code).or_else(|| crate::mpi::errcodes::class_of(code))
}

/// MPI_Error_string of any code (an added one without a string: "").
pub fn code_text(code: c_int) -> Option<String> {
    error_string(code)
        .map(str::to_string)
        .or_else(|| crate::mpi::errcodes::string_of(code))
}

/// The name of a code in messages: the class name, or for an added class
/// or code its number (and class).
fn code_name(code: c_int) -> String {
    if let Some(n) = class_name(code) {
        return n.to_string();
    }
    let what = match crate::mpi::errcodes::class_of(code) {
        Some(c) if c == code => format!("error class {code}, added by the program"),
        Some(c) => format!(
            "error code {code} of class {}, added by the program",
            class_name(c).map_or_else(|| c.to_string(), str::to_string)
        ),
        None => return format!("unknown error code {code}"),
    };
    match crate::mpi::errcodes::string_of(code) {
        Some(s) if !s.is_empty() => format!("{what}: {s}"),
        _ => what,
    }
}

/// The line printed under MPI_ERRORS_ARE_FATAL before the job is aborted.
pub fn fatal_message(world_rank: u32, call: &str, err: &MpiError) -> String {
    format!(
        "vaced: rank {}: {}: {} [{}]",
        world_rank,
        call,
        err.msg,
        code_name(err.class)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_maps_to_itself_with_a_sentence() {
        for code in (0..=sys::MPI_ERR_LASTPREDEFINED).filter(|&c| c != 54) {
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
        for code in [-1, 54, 79, 1000, sys::MPI_ERR_LASTCODE] {
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
