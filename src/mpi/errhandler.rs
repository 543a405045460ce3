//! Error handlers: the predefined ones (MPI_ERRORS_ARE_FATAL,
//! MPI_ERRORS_RETURN, MPI-4's MPI_ERRORS_ABORT) and the handlers a program
//! creates (MPI_Comm_create_errhandler, the MPI-1 MPI_Errhandler_create,
//! MPI_Win_create_errhandler).
//!
//! A user handler records the kind of object it was created for (a
//! communicator or a window; files later): attaching it to an object
//! of another kind is MPI_ERR_ARG. Handles are `0x94000000 + n` (MPICH's
//! direct errhandler kind) and never reused. MPI_Errhandler_free drops the
//! program's reference: the handle becomes invalid for new uses once every
//! reference the program got (create, MPI_Comm_get_errhandler) is freed,
//! while the objects it is attached to keep calling it (the standard:
//! "the error handler is deallocated after all objects associated with it
//! are deallocated").
//!
//! This module only decides what a handler does ([`Action`]); the ABI layer
//! calls the program's function, with the state lock released.
use crate::mpi::error::{fail, MpiResult};
use crate::sys::{self, MPI_Errhandler};
use std::collections::HashMap;

/// `MPI_Comm_errhandler_function *` (C: `void f(MPI_Comm *, int *, ...)`;
/// Fortran: `SUBROUTINE F(COMM, ERROR_CODE)`, the same by reference).
pub type CommFn = sys::MPI_Comm_errhandler_function;

/// `MPI_Win_errhandler_function *` (C: `void f(MPI_Win *, int *, ...)`).
pub type WinFn = sys::MPI_Win_errhandler_function;
/// `MPI_File_errhandler_function *` (MPI_File_create_errhandler).
pub type FileFn = sys::MPI_File_errhandler_function;
/// `MPI_Session_errhandler_function *` (MPI_Session_create_errhandler).
pub type SessionFn = sys::MPI_Session_errhandler_function;

/// The kinds of MPI object an error handler can be attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjKind {
    Comm,
    Win,
    File,
    Session,
}

impl ObjKind {
    fn name(self) -> &'static str {
        match self {
            ObjKind::Comm => "communicator",
            ObjKind::Win => "window",
            ObjKind::File => "file",
            ObjKind::Session => "session",
        }
    }
}

/// The program's function of a user handler, by object kind.
#[derive(Debug, Clone, Copy)]
pub enum UserFn {
    Comm(CommFn),
    Win(WinFn),
    File(FileFn),
    Session(SessionFn),
}

impl UserFn {
    fn kind(&self) -> ObjKind {
        match self {
            UserFn::Comm(_) => ObjKind::Comm,
            UserFn::Win(_) => ObjKind::Win,
            UserFn::File(_) => ObjKind::File,
            UserFn::Session(_) => ObjKind::Session,
        }
    }
}

/// What raising an error through a handler does.
#[derive(Debug, Clone, Copy)]
pub enum Action {
    /// MPI_ERRORS_ARE_FATAL: print the error and abort the job.
    Fatal,
    /// MPI-4 MPI_ERRORS_ABORT: abort the processes of the object's group
    /// (under vaced, as MPI_Abort, the job).
    Abort,
    /// MPI_ERRORS_RETURN: the call returns the error code.
    Return,
    /// Call the program's function, then return the error code.
    User(UserFn),
}

#[derive(Debug, Clone)]
struct Entry {
    func: UserFn,
    /// References the program holds (create, get_errhandler); 0: the
    /// handle is freed.
    refs: usize,
}

/// First user handle.
const USER_BASE: u32 = 0x9400_0000;
/// User handles available.
const USER_MAX: u32 = 0x03ff_ffff;

/// Error handler handles -> handlers.
#[derive(Debug, Clone, Default)]
pub struct ErrhandlerTable {
    map: HashMap<MPI_Errhandler, Entry>,
    next: u32,
}

/// Whether `eh` is one of the predefined handlers.
pub fn is_predefined(eh: MPI_Errhandler) -> bool {
    eh == sys::MPI_ERRORS_ARE_FATAL || eh == sys::MPI_ERRORS_RETURN || eh == sys::MPI_ERRORS_ABORT
}

fn invalid(eh: MPI_Errhandler) -> String {
    if eh == sys::MPI_ERRHANDLER_NULL {
        "MPI_ERRHANDLER_NULL is not a valid error handler".to_string()
    } else {
        format!("invalid error handler {eh:#x}")
    }
}

impl ErrhandlerTable {
    /// MPI_Comm_create_errhandler (and later Win_ / File_): a new handle
    /// holding one reference of the program.
    pub fn create(&mut self, func: UserFn) -> MpiResult<MPI_Errhandler> {
        if self.next > USER_MAX {
            return fail(sys::MPI_ERR_INTERN, "out of error handler handles");
        }
        let h = (USER_BASE | self.next) as MPI_Errhandler;
        self.next += 1;
        self.map.insert(h, Entry { func, refs: 1 });
        Ok(h)
    }

    /// A handle the program may use now (predefined, or a user handler it
    /// has not freed entirely).
    fn live(&self, eh: MPI_Errhandler) -> MpiResult<Option<&Entry>> {
        if is_predefined(eh) {
            return Ok(None);
        }
        match self.map.get(&eh) {
            Some(e) if e.refs > 0 => Ok(Some(e)),
            Some(_) => fail(
                sys::MPI_ERR_ARG,
                format!("error handler {eh:#x} has been freed (MPI_Errhandler_free)"),
            ),
            None => fail(sys::MPI_ERR_ARG, invalid(eh)),
        }
    }

    /// Check that `eh` may be attached to an object of `kind`
    /// (MPI_Comm_set_errhandler ...): MPI_ERR_ARG for an invalid or freed
    /// handle, or a user handler created for another kind of object.
    pub fn check_for(&self, eh: MPI_Errhandler, kind: ObjKind) -> MpiResult<()> {
        if let Some(e) = self.live(eh)? {
            let k = e.func.kind();
            if k != kind {
                return fail(
                    sys::MPI_ERR_ARG,
                    format!(
                        "error handler {eh:#x} was created for a {} and cannot be \
                         attached to a {}",
                        k.name(),
                        kind.name()
                    ),
                );
            }
        }
        Ok(())
    }

    /// The program takes one more reference (MPI_Comm_get_errhandler).
    pub fn add_ref(&mut self, eh: MPI_Errhandler) {
        if let Some(e) = self.map.get_mut(&eh) {
            e.refs += 1;
        }
    }

    /// MPI_Errhandler_free: drops one reference of the program (freeing a
    /// predefined handler only clears the caller's handle).
    pub fn free(&mut self, eh: MPI_Errhandler) -> MpiResult<()> {
        self.live(eh)?;
        if let Some(e) = self.map.get_mut(&eh) {
            e.refs -= 1;
        }
        Ok(())
    }

    /// What an error raised through handler `eh` does. An attached handler
    /// is always known (handles are never reused or dropped); anything
    /// else is treated as MPI_ERRORS_ARE_FATAL.
    pub fn action(&self, eh: MPI_Errhandler) -> Action {
        match eh {
            sys::MPI_ERRORS_RETURN => Action::Return,
            sys::MPI_ERRORS_ABORT => Action::Abort,
            _ => self
                .map
                .get(&eh)
                .map_or(Action::Fatal, |e| Action::User(e.func)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_handlers_are_counted_and_checked() {
        let mut t = ErrhandlerTable::default();
        let h = t.create(UserFn::Comm(None)).unwrap();
        assert_eq!(h as u32, 0x9400_0000);
        t.check_for(h, ObjKind::Comm).unwrap();
        assert!(matches!(t.action(h), Action::User(UserFn::Comm(None))));
        let e = t.check_for(h, ObjKind::Win).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_ARG);
        assert_eq!(
            e.msg,
            "error handler 0x94000000 was created for a communicator and cannot be \
             attached to a window"
        );
        // a second reference (get_errhandler), then two frees
        t.add_ref(h);
        t.free(h).unwrap();
        t.check_for(h, ObjKind::Comm).unwrap();
        t.free(h).unwrap();
        let e = t.check_for(h, ObjKind::Comm).unwrap_err();
        assert_eq!(
            (e.class, e.msg.as_str()),
            (
                sys::MPI_ERR_ARG,
                "error handler 0x94000000 has been freed (MPI_Errhandler_free)"
            )
        );
        assert_eq!(t.free(h).unwrap_err().class, sys::MPI_ERR_ARG);
        // objects it is attached to still call it
        assert!(matches!(t.action(h), Action::User(_)));
    }

    #[test]
    fn predefined_handlers() {
        let mut t = ErrhandlerTable::default();
        for eh in [
            sys::MPI_ERRORS_ARE_FATAL,
            sys::MPI_ERRORS_RETURN,
            sys::MPI_ERRORS_ABORT,
        ] {
            t.check_for(eh, ObjKind::Comm).unwrap();
            t.check_for(eh, ObjKind::File).unwrap();
            t.free(eh).unwrap();
        }
        assert!(matches!(t.action(sys::MPI_ERRORS_RETURN), Action::Return));
        assert!(matches!(t.action(sys::MPI_ERRORS_ABORT), Action::Abort));
        assert!(matches!(t.action(sys::MPI_ERRORS_ARE_FATAL), Action::Fatal));
        for bad in [sys::MPI_ERRHANDLER_NULL, 77, 0x9400_0001u32 as i32] {
            let e = t.check_for(bad, ObjKind::Comm).unwrap_err();
            assert_eq!(e.class, sys::MPI_ERR_ARG);
        }
        assert_eq!(
            t.check_for(sys::MPI_ERRHANDLER_NULL, ObjKind::Comm)
                .unwrap_err()
                .msg,
            "MPI_ERRHANDLER_NULL is not a valid error handler"
        );
    }
}
