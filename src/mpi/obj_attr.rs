//! Attribute caching on datatypes and windows (MPI_Type_create_keyval,
//! MPI_Win_set_attr, ...): one keyval table per kind of object and the
//! attributes set on each handle. The callbacks are the program's C
//! function pointers; as for communicators (`mpi::attr`) this module only
//! says which to call, and the ABI layer runs them without the state lock.
//! Attribute calls are local: they take no virtual time.
use crate::mpi::attr::{Attr, CopyCall, DeleteCall, KeyvalTable, NewValue, Seen};
use crate::mpi::error::MpiResult;
use crate::sys;
use std::collections::HashMap;
use std::os::raw::c_int;

/// The first datatype keyval handle (MPICH's object kind 3 in bits 22-25).
const FIRST_TYPE_KEYVAL: c_int = 0x24c0_0001;
/// The first window keyval handle (MPICH's object kind 8).
const FIRST_WIN_KEYVAL: c_int = 0x2600_0001;

/// The predefined window attributes (read-only: set, delete and free are
/// MPI_ERR_KEYVAL).
pub const WIN_PREDEFINED: [c_int; 5] = [
    sys::MPI_WIN_BASE,
    sys::MPI_WIN_SIZE,
    sys::MPI_WIN_DISP_UNIT,
    sys::MPI_WIN_CREATE_FLAVOR,
    sys::MPI_WIN_MODEL,
];

/// The keyvals of one kind of object and the attributes of its handles.
#[derive(Debug, Clone)]
pub struct ObjAttrs {
    pub keyvals: KeyvalTable,
    attrs: HashMap<c_int, Vec<Attr>>,
}

impl ObjAttrs {
    /// Datatypes (no predefined attributes).
    pub fn types() -> ObjAttrs {
        ObjAttrs {
            keyvals: KeyvalTable::new(FIRST_TYPE_KEYVAL, &[]),
            attrs: HashMap::new(),
        }
    }

    /// Windows.
    pub fn windows() -> ObjAttrs {
        ObjAttrs {
            keyvals: KeyvalTable::new(FIRST_WIN_KEYVAL, &WIN_PREDEFINED),
            attrs: HashMap::new(),
        }
    }

    fn list(&self, h: c_int) -> &[Attr] {
        self.attrs.get(&h).map_or(&[], |v| v.as_slice())
    }

    /// The value of `kv` on handle `h` (None: not set).
    pub fn get(&self, h: c_int, kv: c_int) -> MpiResult<Option<Seen>> {
        self.keyvals.lookup(self.list(h), kv)
    }

    /// First step of a set: the delete callback to run on the value being
    /// replaced, if any.
    pub fn set_begin(&self, h: c_int, kv: c_int) -> MpiResult<Option<DeleteCall>> {
        self.keyvals.replaced(self.list(h), kv, "set")
    }

    /// Last step of a set: store the value.
    pub fn set_end(&mut self, h: c_int, v: NewValue) -> MpiResult<()> {
        let list = self.attrs.entry(h).or_default();
        self.keyvals.store(list, v)
    }

    /// First step of a delete: the delete callback to run (None: the
    /// attribute is not set, nothing to do).
    pub fn delete_begin(&self, h: c_int, kv: c_int) -> MpiResult<Option<DeleteCall>> {
        self.keyvals.replaced(self.list(h), kv, "deleted")
    }

    /// Remove the attributes of `h` with these keyvals (their delete
    /// callbacks have run).
    pub fn remove(&mut self, h: c_int, kvs: &[c_int]) {
        if let Some(list) = self.attrs.get_mut(&h) {
            self.keyvals.remove(list, kvs);
            if list.is_empty() {
                self.attrs.remove(&h);
            }
        }
    }

    /// The copy callbacks a duplication of `h` runs, in setting order.
    pub fn copy_calls(&self, h: c_int) -> Vec<CopyCall> {
        self.keyvals.copies(self.list(h))
    }

    /// The delete callbacks of every attribute of `h` (freeing it), in the
    /// reverse order of setting.
    pub fn delete_calls(&self, h: c_int) -> Vec<DeleteCall> {
        self.keyvals.deletes(self.list(h))
    }

    /// Give a new handle (a duplicate) the attributes its copy callbacks
    /// produced.
    pub fn adopt(&mut self, h: c_int, copies: Vec<NewValue>) {
        if copies.is_empty() {
            return;
        }
        let attrs = self.keyvals.adopt(copies);
        self.attrs.insert(h, attrs);
    }

    /// Forget a freed handle whose delete callbacks have all run (a handle
    /// number may be reused by a later object).
    pub fn forget(&mut self, h: c_int) {
        if let Some(mut list) = self.attrs.remove(&h) {
            let kvs: Vec<c_int> = list.iter().map(|a| a.keyval).collect();
            self.keyvals.remove(&mut list, &kvs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    extern "C" fn delete_stub(
        _: c_int,
        _: c_int,
        _: *mut std::os::raw::c_void,
        _: *mut std::os::raw::c_void,
    ) -> c_int {
        0
    }

    #[test]
    fn kinds_have_their_own_keyvals() {
        let mut t = ObjAttrs::types();
        let mut w = ObjAttrs::windows();
        let tk = t.keyvals.create(None, Some(delete_stub), 5);
        let wk = w.keyvals.create(None, None, 0);
        assert_eq!((tk, wk), (0x24c0_0001, 0x2600_0001));
        // a type keyval is not a window keyval
        assert_eq!(w.get(7, tk).unwrap_err().class, sys::MPI_ERR_KEYVAL);
        assert_eq!(
            w.set_begin(7, sys::MPI_WIN_BASE).unwrap_err().class,
            sys::MPI_ERR_KEYVAL
        );
        assert_eq!(
            w.keyvals.free(sys::MPI_WIN_SIZE).unwrap_err().class,
            sys::MPI_ERR_KEYVAL
        );
        t.set_end(3, NewValue::pointer(tk, 100)).unwrap();
        assert_eq!(t.get(3, tk).unwrap().map(|s| s.c), Some(100));
        assert_eq!(t.get(4, tk).unwrap(), None);
        let d = t.set_begin(3, tk).unwrap().unwrap();
        assert_eq!((d.value, d.extra_state), (100, 5));
        assert!(t.copy_calls(3).is_empty());
        assert_eq!(t.delete_calls(3).len(), 1);
        // a freed keyval lives while an attribute uses it
        t.keyvals.free(tk).unwrap();
        assert_eq!(t.keyvals.held(), 1);
        t.forget(3);
        assert_eq!(t.keyvals.held(), 0);
    }

    #[test]
    fn adopted_copies_hold_their_keyvals() {
        let mut t = ObjAttrs::types();
        let k = t.keyvals.create(None, None, 0);
        t.set_end(1, NewValue::pointer(k, 10)).unwrap();
        t.adopt(2, vec![NewValue::pointer(k, 11)]);
        t.keyvals.free(k).unwrap();
        t.remove(1, &[k]);
        assert_eq!(t.keyvals.held(), 1);
        assert_eq!(t.delete_calls(2)[0].value, 11);
        t.remove(2, &[k]);
        assert_eq!(t.keyvals.held(), 0);
    }
}
