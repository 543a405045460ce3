//! Attribute caching on communicators: keyvals (with their copy and delete
//! callbacks and extra state), the attributes set on each communicator, and
//! the predefined attributes (MPI_TAG_UB, MPI_HOST, MPI_IO,
//! MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM).
//!
//! The callbacks are C function pointers. This module only records them and
//! says which to call, with what ([`CopyCall`], [`DeleteCall`]); the ABI
//! layer calls them, without the state lock held (a callback may call MPI),
//! and then reports back what happened.
use crate::mpi::comm::CommTable;
use crate::mpi::error::{fail, MpiResult};
use crate::sys::{self, MPI_Comm};
use std::collections::HashMap;
use std::os::raw::c_int;

/// `MPI_Comm_copy_attr_function *` (None: MPI_COMM_NULL_COPY_FN).
pub type CopyFn = sys::MPI_Comm_copy_attr_function;
/// `MPI_Comm_delete_attr_function *` (None: MPI_COMM_NULL_DELETE_FN).
pub type DeleteFn = sys::MPI_Comm_delete_attr_function;

/// The predefined attribute keys and their values (the value of the
/// attribute is a pointer to an int holding these).
pub const PREDEFINED: [(c_int, c_int); 6] = [
    (sys::MPI_TAG_UB, sys::MPI_TAG_UB_VALUE),
    (sys::MPI_HOST, sys::MPI_PROC_NULL),
    (sys::MPI_IO, sys::MPI_ANY_SOURCE),
    // every rank's virtual clock starts at the same origin
    (sys::MPI_WTIME_IS_GLOBAL, 1),
    // the number of ranks mpirun started (no dynamic processes): the value
    // here is a placeholder, `crate::abi::attr` answers the job's size
    (sys::MPI_UNIVERSE_SIZE, 0),
    // every rank runs the one program of the command line
    (sys::MPI_APPNUM, 0),
];

/// User keyvals get handles from this base up.
const FIRST_KEYVAL: c_int = 0x24400001;

/// An attribute set on an object: the keyval and the value as C sees it
/// (a `void *` of the program, kept as an address). An attribute set from
/// Fortran holds an integer, not a pointer: it lives in a cell of the
/// keyval table, and C sees the cell's address (MPI-3.1 17.2.7, as MPICH
/// does), Fortran the integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attr {
    pub keyval: c_int,
    pub value: usize,
    /// The cell of an integer attribute (set from Fortran).
    pub cell: Option<u64>,
}

/// A value to store: a C pointer, or an integer (from Fortran).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewValue {
    pub keyval: c_int,
    pub value: usize,
    pub integer: bool,
}

impl NewValue {
    /// A `void *` from C.
    pub fn pointer(keyval: c_int, value: usize) -> NewValue {
        NewValue {
            keyval,
            value,
            integer: false,
        }
    }

    /// An INTEGER(KIND=MPI_ADDRESS_KIND) (or default INTEGER) from Fortran.
    pub fn integer(keyval: c_int, value: isize) -> NewValue {
        NewValue {
            keyval,
            value: value as usize,
            integer: true,
        }
    }
}

/// A keyval created by the program.
#[derive(Debug, Clone)]
pub struct Keyval {
    pub copy: CopyFn,
    pub delete: DeleteFn,
    pub extra_state: usize,
    /// Freed by the program: its handle is invalid, but the attributes that
    /// use it keep it alive (their delete callbacks still run).
    freed: bool,
    /// Attributes that use it.
    refs: usize,
}

/// A copy callback to run for MPI_Comm_dup. `value` is C's view of the
/// attribute, `integer` the integer of one set from Fortran (a Fortran
/// callback gets that).
#[derive(Debug, Clone, Copy)]
pub struct CopyCall {
    pub keyval: c_int,
    pub copy: CopyFn,
    pub extra_state: usize,
    pub value: usize,
    pub integer: Option<isize>,
}

/// A delete callback to run (`delete` None: nothing to call); values as
/// in [`CopyCall`].
#[derive(Debug, Clone, Copy)]
pub struct DeleteCall {
    pub keyval: c_int,
    pub delete: DeleteFn,
    pub extra_state: usize,
    pub value: usize,
    pub integer: Option<isize>,
}

/// A program's attribute as C and Fortran see it: the `void *` (for an
/// integer set from Fortran, the address of its cell) and the integer
/// (for a C pointer, its address).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub c: usize,
    pub fortran: isize,
}

/// What MPI_Comm_get_attr finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// A predefined attribute: index into [`PREDEFINED`].
    Predefined(usize),
    User(Seen),
    Absent,
}

/// Keyval handles -> keyvals, for one kind of object (communicators,
/// datatypes or windows: each has its own table, and a keyval of one kind
/// is invalid for another).
#[derive(Debug, Clone)]
pub struct KeyvalTable {
    map: HashMap<c_int, Keyval>,
    next: c_int,
    /// The kind's predefined keyvals (read-only, never freed).
    predefined: &'static [c_int],
    /// The cells of integer attributes (boxed: their addresses, which C
    /// sees, do not move).
    cells: HashMap<u64, Box<isize>>,
    next_cell: u64,
}

/// The predefined communicator keyvals.
const COMM_PREDEFINED: [c_int; 4] = [
    PREDEFINED[0].0,
    PREDEFINED[1].0,
    PREDEFINED[2].0,
    PREDEFINED[3].0,
];

impl Default for KeyvalTable {
    /// The communicators' table.
    fn default() -> Self {
        KeyvalTable::new(FIRST_KEYVAL, &COMM_PREDEFINED)
    }
}

fn predefined_index(kv: c_int) -> Option<usize> {
    PREDEFINED.iter().position(|p| p.0 == kv)
}

fn bad_keyval(kv: c_int) -> String {
    if kv == sys::MPI_KEYVAL_INVALID {
        "MPI_KEYVAL_INVALID is not a valid keyval".to_string()
    } else {
        format!("invalid keyval {kv:#x}")
    }
}

impl KeyvalTable {
    /// A table whose handles start at `first` (MPICH encodes the object
    /// kind in a keyval's handle), with these predefined keyvals.
    pub fn new(first: c_int, predefined: &'static [c_int]) -> KeyvalTable {
        KeyvalTable {
            map: HashMap::new(),
            next: first,
            predefined,
            cells: HashMap::new(),
            next_cell: 0,
        }
    }

    /// MPI_Comm_create_keyval.
    pub fn create(&mut self, copy: CopyFn, delete: DeleteFn, extra_state: usize) -> c_int {
        let h = self.next;
        self.next += 1;
        self.map.insert(
            h,
            Keyval {
                copy,
                delete,
                extra_state,
                freed: false,
                refs: 0,
            },
        );
        h
    }

    /// A keyval the program may use: one it created, or one it freed that
    /// attributes still hold (as in MPICH, where the keyval object lives
    /// until its last attribute goes: a program may still delete or read
    /// that attribute with a saved copy of the handle).
    pub fn get(&self, kv: c_int) -> MpiResult<&Keyval> {
        match self.map.get(&kv) {
            Some(k) => Ok(k),
            None => fail(sys::MPI_ERR_KEYVAL, bad_keyval(kv)),
        }
    }

    /// A user keyval for set / delete (predefined ones are read-only).
    fn settable(&self, kv: c_int, what: &str) -> MpiResult<&Keyval> {
        if self.predefined.contains(&kv) {
            return fail(
                sys::MPI_ERR_KEYVAL,
                format!("the predefined attribute {kv:#x} cannot be {what}"),
            );
        }
        self.get(kv)
    }

    /// MPI_Comm_free_keyval.
    pub fn free(&mut self, kv: c_int) -> MpiResult<()> {
        if self.predefined.contains(&kv) {
            return fail(
                sys::MPI_ERR_KEYVAL,
                format!("the predefined keyval {kv:#x} cannot be freed"),
            );
        }
        let Some(k) = self.map.get_mut(&kv) else {
            return fail(sys::MPI_ERR_KEYVAL, bad_keyval(kv));
        };
        // Freeing a keyval again while attributes still hold it is allowed
        // and does nothing (as in MPICH: a delete callback may free the
        // keyval of the attribute it deletes, and the program free it too).
        k.freed = true;
        if k.refs == 0 {
            self.map.remove(&kv);
        }
        Ok(())
    }

    fn attach(&mut self, kv: c_int) {
        self.map.get_mut(&kv).expect("live keyval").refs += 1;
    }

    fn detach(&mut self, kv: c_int) {
        let k = self.map.get_mut(&kv).expect("live keyval");
        k.refs -= 1;
        if k.refs == 0 && k.freed {
            self.map.remove(&kv);
        }
    }

    /// Keyvals still held (tests).
    pub fn held(&self) -> usize {
        self.map.len()
    }

    fn integer(&self, a: &Attr) -> Option<isize> {
        a.cell.map(|c| *self.cells[&c])
    }

    fn delete_call(&self, a: &Attr) -> DeleteCall {
        let k = &self.map[&a.keyval];
        DeleteCall {
            keyval: a.keyval,
            delete: k.delete,
            extra_state: k.extra_state,
            value: a.value,
            integer: self.integer(a),
        }
    }

    /// How C and Fortran see an attribute.
    pub fn seen(&self, a: &Attr) -> Seen {
        Seen {
            c: a.value,
            fortran: self.integer(a).unwrap_or(a.value as isize),
        }
    }

    /// The value of `kv` in an object's attribute list (None: not set).
    pub fn lookup(&self, attrs: &[Attr], kv: c_int) -> MpiResult<Option<Seen>> {
        self.get(kv)?;
        Ok(attrs.iter().find(|a| a.keyval == kv).map(|a| self.seen(a)))
    }

    /// The attribute a new value becomes (an integer gets a cell).
    fn make(&mut self, v: NewValue) -> Attr {
        if !v.integer {
            return Attr {
                keyval: v.keyval,
                value: v.value,
                cell: None,
            };
        }
        let id = self.next_cell;
        self.next_cell += 1;
        let cell = Box::new(v.value as isize);
        let value = &*cell as *const isize as usize;
        self.cells.insert(id, cell);
        Attr {
            keyval: v.keyval,
            value,
            cell: Some(id),
        }
    }

    fn release(&mut self, a: &Attr) {
        if let Some(c) = a.cell {
            self.cells.remove(&c);
        }
    }

    /// Check for a set / delete of `kv` (`what`) in a list; the delete
    /// callback to run on the value there, if any.
    pub fn replaced(&self, attrs: &[Attr], kv: c_int, what: &str) -> MpiResult<Option<DeleteCall>> {
        self.settable(kv, what)?;
        Ok(attrs
            .iter()
            .find(|a| a.keyval == kv)
            .map(|a| self.delete_call(a)))
    }

    /// Store a value in a list (in place of an old value, which keeps its
    /// position in the order of setting).
    pub fn store(&mut self, attrs: &mut Vec<Attr>, v: NewValue) -> MpiResult<()> {
        self.settable(v.keyval, "set")?;
        let new = self.make(v);
        match attrs.iter().position(|a| a.keyval == v.keyval) {
            Some(i) => {
                let old = std::mem::replace(&mut attrs[i], new);
                self.release(&old);
            }
            None => {
                attrs.push(new);
                self.attach(v.keyval);
            }
        }
        Ok(())
    }

    /// Remove the attributes with these keyvals from a list (their delete
    /// callbacks have run).
    pub fn remove(&mut self, attrs: &mut Vec<Attr>, kvs: &[c_int]) {
        let mut gone = Vec::new();
        attrs.retain(|a| {
            let drop = kvs.contains(&a.keyval);
            if drop {
                gone.push(*a);
            }
            !drop
        });
        for a in gone {
            self.release(&a);
            self.detach(a.keyval);
        }
    }

    /// The copy callbacks a duplication runs, in the order the attributes
    /// were set (attributes whose keyval has no copy function are not
    /// copied).
    pub fn copies(&self, attrs: &[Attr]) -> Vec<CopyCall> {
        attrs
            .iter()
            .filter_map(|a| {
                let k = &self.map[&a.keyval];
                k.copy.map(|_| CopyCall {
                    keyval: a.keyval,
                    copy: k.copy,
                    extra_state: k.extra_state,
                    value: a.value,
                    integer: self.integer(a),
                })
            })
            .collect()
    }

    /// The delete callbacks of a whole list, in the reverse order of
    /// setting.
    pub fn deletes(&self, attrs: &[Attr]) -> Vec<DeleteCall> {
        attrs.iter().rev().map(|a| self.delete_call(a)).collect()
    }

    /// The attributes of a duplicate, from its copy callbacks' values
    /// (counted as users of their keyvals).
    pub fn adopt(&mut self, copies: Vec<NewValue>) -> Vec<Attr> {
        copies
            .into_iter()
            .map(|v| {
                self.attach(v.keyval);
                self.make(v)
            })
            .collect()
    }
}

impl CommTable {
    /// MPI_Comm_get_attr.
    pub fn get_attr(&self, comm: MPI_Comm, kv: c_int) -> MpiResult<Found> {
        let c = self.get(comm)?;
        if let Some(i) = predefined_index(kv) {
            return Ok(Found::Predefined(i));
        }
        Ok(self
            .keyvals
            .lookup(&c.attrs, kv)?
            .map_or(Found::Absent, Found::User))
    }

    /// First step of MPI_Comm_set_attr: check, and the delete callback to
    /// run on the value being replaced, if any.
    pub fn set_attr_begin(&self, comm: MPI_Comm, kv: c_int) -> MpiResult<Option<DeleteCall>> {
        let c = self.get(comm)?;
        self.keyvals.replaced(&c.attrs, kv, "set")
    }

    /// Last step of MPI_Comm_set_attr: store the value (in place of the old
    /// one, which keeps its position in the order of setting).
    pub fn set_attr_end(&mut self, comm: MPI_Comm, v: NewValue) -> MpiResult<()> {
        let mut attrs = std::mem::take(&mut self.get_mut(comm)?.attrs);
        let r = self.keyvals.store(&mut attrs, v);
        self.get_mut(comm)?.attrs = attrs;
        r
    }

    /// First step of MPI_Comm_delete_attr: the delete callback to run (None
    /// when the attribute is not set: nothing to do).
    pub fn delete_attr_begin(&self, comm: MPI_Comm, kv: c_int) -> MpiResult<Option<DeleteCall>> {
        let c = self.get(comm)?;
        self.keyvals.replaced(&c.attrs, kv, "deleted")
    }

    /// Remove the attributes of `comm` with these keyvals (their delete
    /// callbacks have run).
    pub fn drop_attrs(&mut self, comm: MPI_Comm, kvs: &[c_int]) -> MpiResult<()> {
        let mut attrs = std::mem::take(&mut self.get_mut(comm)?.attrs);
        self.keyvals.remove(&mut attrs, kvs);
        self.get_mut(comm)?.attrs = attrs;
        Ok(())
    }

    /// The copy callbacks MPI_Comm_dup runs, in the order the attributes
    /// were set (attributes whose keyval has MPI_COMM_NULL_COPY_FN are not
    /// copied).
    pub fn copy_calls(&self, comm: MPI_Comm) -> MpiResult<Vec<CopyCall>> {
        Ok(self.keyvals.copies(&self.get(comm)?.attrs))
    }

    /// The delete callbacks of every attribute of `comm`, in the reverse
    /// order of setting (as MPI requires for MPI_COMM_SELF at MPI_Finalize).
    pub fn delete_calls(&self, comm: MPI_Comm) -> MpiResult<Vec<DeleteCall>> {
        Ok(self.keyvals.deletes(&self.get(comm)?.attrs))
    }

    /// A new communicator's attributes from its copy callbacks' values.
    pub(crate) fn adopt_attrs(&mut self, copies: Vec<NewValue>) -> Vec<Attr> {
        self.keyvals.adopt(copies)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::comm::Comm;

    extern "C" fn copy_stub(
        _: MPI_Comm,
        _: c_int,
        _: *mut std::os::raw::c_void,
        _: *mut std::os::raw::c_void,
        _: *mut std::os::raw::c_void,
        _: *mut c_int,
    ) -> c_int {
        0
    }

    extern "C" fn delete_stub(
        _: MPI_Comm,
        _: c_int,
        _: *mut std::os::raw::c_void,
        _: *mut std::os::raw::c_void,
    ) -> c_int {
        0
    }

    fn table() -> (CommTable, MPI_Comm) {
        let mut t = CommTable::new(0, 2);
        let w = t.get(sys::MPI_COMM_WORLD).unwrap().clone();
        let h = t.insert(Comm {
            ctx: 5,
            attrs: Vec::new(),
            name: String::new(),
            ..w
        });
        (t, h)
    }

    #[test]
    fn predefined_attributes() {
        let (t, h) = table();
        assert_eq!(
            t.get_attr(sys::MPI_COMM_WORLD, sys::MPI_TAG_UB).unwrap(),
            Found::Predefined(0)
        );
        assert_eq!(PREDEFINED[0].1, 0x7fffffff);
        assert_eq!(
            t.get_attr(h, sys::MPI_WTIME_IS_GLOBAL).unwrap(),
            Found::Predefined(3)
        );
        let e = t.set_attr_begin(h, sys::MPI_TAG_UB).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_KEYVAL);
        assert_eq!(
            t.get_attr(sys::MPI_COMM_NULL, sys::MPI_TAG_UB)
                .unwrap_err()
                .class,
            sys::MPI_ERR_COMM
        );
        assert_eq!(
            t.get_attr(h, sys::MPI_KEYVAL_INVALID).unwrap_err().msg,
            "MPI_KEYVAL_INVALID is not a valid keyval"
        );
    }

    #[test]
    fn integers_from_fortran_live_in_cells_c_sees() {
        let (mut t, h) = table();
        let kv = t.keyvals.create(None, None, 0);
        t.set_attr_end(h, NewValue::integer(kv, 5555)).unwrap();
        let Found::User(seen) = t.get_attr(h, kv).unwrap() else {
            panic!("set")
        };
        assert_eq!(seen.fortran, 5555);
        // C gets the address of a cell holding the integer
        assert_eq!(t.keyvals.cells.len(), 1);
        let cell = &**t.keyvals.cells.values().next().unwrap() as *const isize as usize;
        assert_eq!(seen.c, cell);
        let d = t.delete_attr_begin(h, kv).unwrap().unwrap();
        assert_eq!((d.value, d.integer), (cell, Some(5555)));
        // replacing and dropping release the cells
        t.set_attr_end(h, NewValue::integer(kv, 7)).unwrap();
        assert_eq!(t.keyvals.cells.len(), 1);
        t.set_attr_end(h, NewValue::pointer(kv, 8)).unwrap();
        assert!(t.keyvals.cells.is_empty());
        t.set_attr_end(h, NewValue::integer(kv, 9)).unwrap();
        t.drop_attrs(h, &[kv]).unwrap();
        assert!(t.keyvals.cells.is_empty());
    }

    #[test]
    fn set_replace_delete_and_keyval_lifetime() {
        let (mut t, h) = table();
        let kv = t.keyvals.create(Some(copy_stub), Some(delete_stub), 77);
        let kv2 = t.keyvals.create(None, None, 0);
        assert_eq!(t.get_attr(h, kv).unwrap(), Found::Absent);
        assert!(t.set_attr_begin(h, kv).unwrap().is_none());
        t.set_attr_end(h, NewValue::pointer(kv, 1000)).unwrap();
        t.set_attr_end(h, NewValue::pointer(kv2, 2000)).unwrap();
        assert_eq!(
            t.get_attr(h, kv).unwrap(),
            Found::User(Seen {
                c: 1000,
                fortran: 1000
            })
        );
        // replacing: the old value's delete callback first
        let d = t.set_attr_begin(h, kv).unwrap().unwrap();
        assert_eq!((d.keyval, d.value, d.extra_state), (kv, 1000, 77));
        t.set_attr_end(h, NewValue::pointer(kv, 1001)).unwrap();
        // dup copies only attributes with a copy function
        let calls = t.copy_calls(h).unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!((calls[0].keyval, calls[0].value), (kv, 1001));
        // free order: reverse of setting
        let order: Vec<c_int> = t
            .delete_calls(h)
            .unwrap()
            .iter()
            .map(|d| d.keyval)
            .collect();
        assert_eq!(order, [kv2, kv]);
        // a freed keyval lives while its attributes do (MPICH): they can
        // still be read and deleted with it
        t.keyvals.free(kv).unwrap();
        assert!(matches!(t.get_attr(h, kv).unwrap(), Found::User(_)));
        // freeing it again while an attribute holds it does nothing
        t.keyvals.free(kv).unwrap();
        assert_eq!(t.keyvals.held(), 2);
        assert_eq!(t.delete_calls(h).unwrap().len(), 2);
        t.drop_attrs(h, &[kv]).unwrap();
        assert_eq!(t.keyvals.held(), 1);
        assert!(t.delete_attr_begin(h, kv2).unwrap().is_some());
        t.drop_attrs(h, &[kv2]).unwrap();
        assert!(t.delete_attr_begin(h, kv2).unwrap().is_none());
        t.keyvals.free(kv2).unwrap();
        assert_eq!(t.keyvals.held(), 0);
        // once no attribute holds it, the handle is gone
        assert_eq!(t.keyvals.free(kv2).unwrap_err().class, sys::MPI_ERR_KEYVAL);
        assert_eq!(
            t.keyvals.free(sys::MPI_TAG_UB).unwrap_err().class,
            sys::MPI_ERR_KEYVAL
        );
    }
}
