//! Attribute caching on datatypes and windows: MPI_Type_create_keyval /
//! free_keyval / set_attr / get_attr / delete_attr, the same for windows
//! (MPI_Win_get_attr, which also answers the predefined window attributes,
//! is in `abi::rma`), and the attribute steps of MPI_Type_dup,
//! MPI_Type_free and MPI_Win_free. Callbacks run with the state lock
//! released (they may call MPI), as for communicators (`abi::attr`).
//! Errors on a datatype go to MPI_COMM_WORLD's handler, errors on a window
//! to the window's.
use crate::abi::buffers::out;
use crate::abi::callbacks::{call_with, callback_error, run_copy, run_delete, run_deletes};
use crate::abi::rma::win_call;
use crate::abi::state::call;
use crate::mpi::attr::{CopyFn, DeleteCall, DeleteFn, KeyvalTable, NewValue};
use crate::mpi::error::{fail, MpiError, MpiResult};
use crate::mpi::obj_attr::ObjAttrs;
use crate::mpi::World;
use crate::sys::{self, MPI_Datatype, MPI_Win};
use std::os::raw::{c_int, c_void};

/// Communicators, datatypes or windows. A communicator keeps its
/// attributes itself (`mpi::attr`, whose steps check the handle); the set,
/// delete and keyval calls of
/// every kind go through the steps here. Duplication and freeing
/// (`copy_attrs`, `free_attrs`) are for datatypes and windows: a
/// communicator's are part of MPI_Comm_dup / MPI_Comm_free.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Comm,
    Type,
    Win,
}

impl Kind {
    /// The attributes of datatypes or windows.
    fn table(self, w: &mut World) -> &mut ObjAttrs {
        match self {
            Kind::Type => &mut w.type_attrs,
            Kind::Win => &mut w.win_attrs,
            Kind::Comm => unreachable!("a communicator keeps its attributes itself"),
        }
    }

    fn keyvals(self, w: &mut World) -> &mut KeyvalTable {
        match self {
            Kind::Comm => &mut w.comms.keyvals,
            _ => &mut self.table(w).keyvals,
        }
    }

    /// The handle must name a live object of this kind.
    fn check(self, w: &World, h: c_int) -> MpiResult<()> {
        match self {
            Kind::Comm => w.comms.get(h).map(|_| ()),
            Kind::Type => w.types.get_any(h).map(|_| ()),
            Kind::Win => w.rma.get(h).map(|_| ()),
        }
    }

    /// The handle must name an object that may be freed.
    fn check_free(self, w: &World, h: c_int) -> MpiResult<()> {
        match self {
            Kind::Comm => w.comms.freeable(h).map(|_| ()),
            Kind::Type => w.types.freeable(h),
            Kind::Win => w.rma.get(h).map(|_| ()),
        }
    }

    /// First step of a set: check; the delete callback to run on the value
    /// being replaced, if any.
    fn set_begin(self, w: &mut World, h: c_int, kv: c_int) -> MpiResult<Option<DeleteCall>> {
        match self {
            Kind::Comm => w.comms.set_attr_begin(h, kv),
            _ => {
                self.check(w, h)?;
                self.table(w).set_begin(h, kv)
            }
        }
    }

    /// Last step of a set: store the value.
    fn set_end(self, w: &mut World, h: c_int, v: NewValue) -> MpiResult<()> {
        match self {
            Kind::Comm => w.comms.set_attr_end(h, v),
            _ => {
                self.check(w, h)?;
                self.table(w).set_end(h, v)
            }
        }
    }

    /// First step of a delete: check; the delete callback to run (None:
    /// not set).
    fn delete_begin(self, w: &mut World, h: c_int, kv: c_int) -> MpiResult<Option<DeleteCall>> {
        match self {
            Kind::Comm => w.comms.delete_attr_begin(h, kv),
            _ => {
                self.check(w, h)?;
                self.table(w).delete_begin(h, kv)
            }
        }
    }

    /// Remove the attributes of `h` with these keyvals.
    fn remove(self, w: &mut World, h: c_int, kvs: &[c_int]) -> MpiResult<()> {
        match self {
            Kind::Comm => w.comms.drop_attrs(h, kvs),
            _ => {
                self.table(w).remove(h, kvs);
                Ok(())
            }
        }
    }

    /// Run `f` as call `name` on handle `h`: errors go to the right
    /// handler; Err(the return code) when it failed.
    fn run<T>(
        self,
        name: &str,
        h: c_int,
        f: impl FnOnce(&mut World) -> MpiResult<T>,
    ) -> Result<T, c_int> {
        match self {
            Kind::Comm => call_with(name, h, f),
            Kind::Type => call_with(name, sys::MPI_COMM_WORLD, f),
            Kind::Win => {
                let mut value = None;
                let rc = win_call(name, h, |w| {
                    value = Some(f(w)?);
                    Ok(())
                });
                match value {
                    Some(v) if rc == sys::MPI_SUCCESS => Ok(v),
                    _ => Err(rc),
                }
            }
        }
    }

    /// Raise `e` from `name` on `h`'s handler; the return code.
    fn raise(self, name: &str, h: c_int, e: MpiError) -> c_int {
        match self.run(name, h, |_| -> MpiResult<()> { Err(e) }) {
            Ok(()) => sys::MPI_SUCCESS,
            Err(rc) => rc,
        }
    }
}

fn done(r: Result<(), c_int>) -> c_int {
    r.err().unwrap_or(sys::MPI_SUCCESS)
}

pub(crate) fn create_keyval(
    kind: Kind,
    name: &str,
    copy: CopyFn,
    delete: DeleteFn,
    keyval: *mut c_int,
    extra_state: *mut c_void,
) -> c_int {
    call(name, sys::MPI_COMM_WORLD, |w| {
        // SAFETY: null or a valid int pointer (caller).
        let o = unsafe { out(keyval, "keyval") }?;
        *o = kind.keyvals(w).create(copy, delete, extra_state as usize);
        Ok(())
    })
}

pub(crate) fn free_keyval(kind: Kind, name: &str, keyval: *mut c_int) -> c_int {
    call(name, sys::MPI_COMM_WORLD, |w| {
        // SAFETY: null or a valid int pointer (caller).
        let kv = unsafe { out(keyval, "keyval") }?;
        kind.keyvals(w).free(*kv)?;
        *kv = sys::MPI_KEYVAL_INVALID;
        Ok(())
    })
}

/// Set: a value already there is deleted first (its delete callback runs;
/// if it fails, the old value stays). `v`: a C pointer or a Fortran integer.
pub(crate) fn set_attr(kind: Kind, name: &str, h: c_int, v: NewValue) -> c_int {
    let kv = v.keyval;
    let old = match kind.run(name, h, |w| {
        let old = kind.set_begin(w, h, kv)?.filter(|d| d.delete.is_some());
        if old.is_none() {
            // no callback to run: done in one step
            kind.set_end(w, h, v)?;
        }
        Ok(old)
    }) {
        Ok(Some(d)) => d,
        Ok(None) => return sys::MPI_SUCCESS,
        Err(rc) => return rc,
    };
    // SAFETY: a callback the program registered for this keyval.
    if let Err(code) = unsafe { run_delete(h, &old) } {
        return kind.raise(name, h, callback_error("delete", kv, code));
    }
    done(kind.run(name, h, |w| kind.set_end(w, h, v)))
}

/// Delete: runs the delete callback; an attribute not set is not an error.
pub(crate) fn delete_attr(kind: Kind, name: &str, h: c_int, kv: c_int) -> c_int {
    let d = match kind.run(name, h, |w| {
        let d = kind.delete_begin(w, h, kv)?;
        if d.is_some_and(|d| d.delete.is_none()) {
            // no callback to run: done in one step
            kind.remove(w, h, &[kv])?;
            return Ok(None);
        }
        Ok(d)
    }) {
        Ok(Some(d)) => d,
        Ok(None) => return sys::MPI_SUCCESS,
        Err(rc) => return rc,
    };
    // SAFETY: a callback the program registered for this keyval.
    if let Err(code) = unsafe { run_delete(h, &d) } {
        return kind.raise(name, h, callback_error("delete", kv, code));
    }
    done(kind.run(name, h, |w| kind.remove(w, h, &[kv])))
}

/// Write a found value to `attribute_val` / `flag` (C's convention: the
/// `void *` itself).
///
/// # Safety
/// `attribute_val` is null or points to a `void *`; `flag` null or an int.
pub(crate) unsafe fn put_found(
    found: Option<usize>,
    attribute_val: *mut c_void,
    flag: *mut c_int,
) -> MpiResult<()> {
    if flag.is_null() {
        return fail(sys::MPI_ERR_ARG, "null pointer passed as flag");
    }
    if let Some(v) = found {
        if attribute_val.is_null() {
            return fail(sys::MPI_ERR_ARG, "null pointer passed as attribute_val");
        }
        // SAFETY: checked non-null; MPI's contract (caller).
        unsafe { (attribute_val as *mut *mut c_void).write(v as *mut c_void) };
    }
    // SAFETY: checked non-null.
    unsafe { flag.write(found.is_some() as c_int) };
    Ok(())
}

/// A user attribute of window `win` as C sees it (MPI_Win_get_attr for
/// keyvals that are not predefined).
pub(crate) fn win_user_attr(w: &World, win: MPI_Win, kv: c_int) -> MpiResult<Option<usize>> {
    Ok(w.win_attrs.get(win, kv)?.map(|s| s.c))
}

/// MPI_TYPE_GET_ATTR / MPI_WIN_GET_ATTR from Fortran for the program's
/// keyvals: (return code, the integer if set).
pub(crate) fn get_attr_fortran(
    kind: Kind,
    name: &str,
    h: c_int,
    kv: c_int,
) -> (c_int, Option<sys::MPI_Aint>) {
    match kind.run(name, h, |w| {
        kind.check(w, h)?;
        Ok(kind
            .table(w)
            .get(h, kv)?
            .map(|s| s.fortran as sys::MPI_Aint))
    }) {
        Ok(v) => (sys::MPI_SUCCESS, v),
        Err(rc) => (rc, None),
    }
}

/// The attribute step of MPI_Type_dup / MPI_Win-like duplications: run the
/// copy callbacks of `old`'s attributes and give them to `new`. On a
/// callback's failure the attributes copied so far are deleted again and
/// the error returned (the caller frees `new`).
pub(crate) fn copy_attrs(kind: Kind, name: &str, old: c_int, new: c_int) -> Result<(), c_int> {
    let calls = kind.run(name, old, |w| Ok(kind.table(w).copy_calls(old)))?;
    if calls.is_empty() {
        return Ok(());
    }
    let mut copied = Vec::new();
    for c in &calls {
        // SAFETY: the program's callback for this keyval.
        match unsafe { run_copy(old, c) } {
            Ok(Some(v)) => copied.push(v),
            Ok(None) => {}
            Err(code) => return Err(kind.raise(name, old, callback_error("copy", c.keyval, code))),
        }
    }
    kind.run(name, old, |w| {
        kind.table(w).adopt(new, copied);
        Ok(())
    })
}

/// The attribute step of freeing `h` (MPI_Type_free, MPI_Win_free): run
/// every delete callback (reverse order of setting); Err(code) if one
/// fails (the object is then not freed; the attributes deleted so far are
/// gone).
pub(crate) fn free_attrs(kind: Kind, name: &str, h: c_int) -> Result<(), c_int> {
    let calls = kind.run(name, h, |w| {
        kind.check_free(w, h)?;
        Ok(kind.table(w).delete_calls(h))
    })?;
    if calls.is_empty() {
        return Ok(());
    }
    // SAFETY: callbacks the program registered.
    let (gone, failed) = unsafe { run_deletes(h, &calls) };
    kind.run(name, h, |w| {
        kind.table(w).remove(h, &gone);
        failed.map_or(Ok(()), Err)
    })
}

mpi_fn! {
    fn MPI_Type_create_keyval / PMPI_Type_create_keyval(
        type_copy_attr_fn: sys::MPI_Type_copy_attr_function,
        type_delete_attr_fn: sys::MPI_Type_delete_attr_function,
        type_keyval: *mut c_int,
        extra_state: *mut c_void,
    ) -> c_int {
        create_keyval(Kind::Type, "MPI_Type_create_keyval", type_copy_attr_fn, type_delete_attr_fn, type_keyval, extra_state)
    }
}

mpi_fn! {
    fn MPI_Type_free_keyval / PMPI_Type_free_keyval(type_keyval: *mut c_int) -> c_int {
        free_keyval(Kind::Type, "MPI_Type_free_keyval", type_keyval)
    }
}

mpi_fn! {
    fn MPI_Type_set_attr / PMPI_Type_set_attr(datatype: MPI_Datatype, type_keyval: c_int, attribute_val: *mut c_void) -> c_int {
        set_attr(Kind::Type, "MPI_Type_set_attr", datatype, NewValue::pointer(type_keyval, attribute_val as usize))
    }
}

mpi_fn! {
    fn MPI_Type_get_attr / PMPI_Type_get_attr(datatype: MPI_Datatype, type_keyval: c_int, attribute_val: *mut c_void, flag: *mut c_int) -> c_int {
        call("MPI_Type_get_attr", sys::MPI_COMM_WORLD, |w| {
            Kind::Type.check(w, datatype)?;
            let found = w.type_attrs.get(datatype, type_keyval)?.map(|s| s.c);
            // SAFETY: the caller's pointers (MPI's contract).
            unsafe { put_found(found, attribute_val, flag) }
        })
    }
}

mpi_fn! {
    fn MPI_Type_delete_attr / PMPI_Type_delete_attr(datatype: MPI_Datatype, type_keyval: c_int) -> c_int {
        delete_attr(Kind::Type, "MPI_Type_delete_attr", datatype, type_keyval)
    }
}

mpi_fn! {
    fn MPI_Win_create_keyval / PMPI_Win_create_keyval(
        win_copy_attr_fn: sys::MPI_Win_copy_attr_function,
        win_delete_attr_fn: sys::MPI_Win_delete_attr_function,
        win_keyval: *mut c_int,
        extra_state: *mut c_void,
    ) -> c_int {
        create_keyval(Kind::Win, "MPI_Win_create_keyval", win_copy_attr_fn, win_delete_attr_fn, win_keyval, extra_state)
    }
}

mpi_fn! {
    fn MPI_Win_free_keyval / PMPI_Win_free_keyval(win_keyval: *mut c_int) -> c_int {
        free_keyval(Kind::Win, "MPI_Win_free_keyval", win_keyval)
    }
}

mpi_fn! {
    fn MPI_Win_set_attr / PMPI_Win_set_attr(win: MPI_Win, win_keyval: c_int, attribute_val: *mut c_void) -> c_int {
        set_attr(Kind::Win, "MPI_Win_set_attr", win, NewValue::pointer(win_keyval, attribute_val as usize))
    }
}

mpi_fn! {
    fn MPI_Win_delete_attr / PMPI_Win_delete_attr(win: MPI_Win, win_keyval: c_int) -> c_int {
        delete_attr(Kind::Win, "MPI_Win_delete_attr", win, win_keyval)
    }
}
