//! The datatype handle table: predefined handles (those of mpi.h) and
//! derived ones (`0x8c000000 + n`, as MPICH's), each with its commit state.
//! As in MPICH, the handle freed last is the next one handed out (some
//! programs, MPICH's own tests among them, go on using a freed handle's
//! value and expect it to name the type created after the free); until
//! then a freed handle is recognised as such. A handle maps to a shared,
//! immutable layout: freeing a handle drops only the handle, and every type
//! or pending operation built from it keeps its own copy.
use crate::mpi::datatype::{predefined_types, Datatype};
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::type_contents::{combiner_name, TypeRef};
use crate::sys::{self, MPI_Datatype};
use std::collections::HashMap;
use std::sync::Arc;

/// First derived handle (MPICH's "direct" datatype kind).
const DERIVED_BASE: u32 = 0x8c00_0000;
/// Derived handles available (the index bits of the handle).
const DERIVED_MAX: u32 = 0x03ff_ffff;

#[derive(Debug, Clone)]
struct Entry {
    ty: Arc<Datatype>,
    predefined: bool,
    committed: bool,
}

/// Datatype handles -> layouts.
#[derive(Debug, Clone)]
pub struct TypeTable {
    map: HashMap<MPI_Datatype, Entry>,
    /// Index of the next derived handle never issued.
    next: u32,
    /// Indices of freed derived handles, the last freed on top.
    freed: Vec<u32>,
}

impl Default for TypeTable {
    fn default() -> Self {
        TypeTable::new()
    }
}

fn derived_index(handle: MPI_Datatype) -> Option<u32> {
    let h = handle as u32;
    (h & !DERIVED_MAX == DERIVED_BASE).then_some(h & DERIVED_MAX)
}

impl TypeTable {
    /// A table holding every predefined datatype (committed, as they are).
    pub fn new() -> TypeTable {
        let mut map = HashMap::new();
        for (handle, t) in predefined_types() {
            // aliases (MPI_LONG_LONG = MPI_LONG_LONG_INT) keep the first name
            map.entry(handle).or_insert_with(|| Entry {
                ty: Arc::new(t),
                predefined: true,
                committed: true,
            });
        }
        TypeTable {
            map,
            next: 0,
            freed: Vec::new(),
        }
    }

    fn entry(&self, handle: MPI_Datatype) -> MpiResult<&Entry> {
        if handle == sys::MPI_DATATYPE_NULL {
            return fail(
                sys::MPI_ERR_TYPE,
                "MPI_DATATYPE_NULL is not a valid datatype",
            );
        }
        if let Some(e) = self.map.get(&handle) {
            return Ok(e);
        }
        match derived_index(handle) {
            Some(i) if i < self.next => fail(
                sys::MPI_ERR_TYPE,
                format!("datatype {handle:#x} has been freed (MPI_Type_free)"),
            ),
            _ => fail(
                sys::MPI_ERR_TYPE,
                format!("invalid datatype handle {handle:#x}"),
            ),
        }
    }

    /// The datatype behind `handle`, for communication: MPI_ERR_TYPE for a
    /// null, unknown, freed or uncommitted one.
    pub fn get(&self, handle: MPI_Datatype) -> MpiResult<Arc<Datatype>> {
        let e = self.entry(handle)?;
        if !e.committed {
            return fail(
                sys::MPI_ERR_TYPE,
                format!(
                    "{} is not committed (call MPI_Type_commit before \
                     communicating with it)",
                    e.ty.name()
                ),
            );
        }
        Ok(e.ty.clone())
    }

    /// The datatype behind `handle`, committed or not (constructors and
    /// queries): MPI_ERR_TYPE for a null, unknown or freed one.
    pub fn get_any(&self, handle: MPI_Datatype) -> MpiResult<Arc<Datatype>> {
        Ok(self.entry(handle)?.ty.clone())
    }

    /// `handle` as a constructor argument.
    pub fn get_ref(&self, handle: MPI_Datatype) -> MpiResult<TypeRef> {
        let e = self.entry(handle)?;
        Ok(TypeRef {
            handle,
            predefined: e.predefined,
            ty: e.ty.clone(),
        })
    }

    /// Whether `handle` is a valid, committed datatype.
    pub fn is_committed(&self, handle: MPI_Datatype) -> bool {
        self.map.get(&handle).is_some_and(|e| e.committed)
    }

    /// A new handle for `ty` (named after its combiner and the handle).
    pub fn insert(&mut self, mut ty: Datatype, committed: bool) -> MpiResult<MPI_Datatype> {
        let index = match self.freed.pop() {
            Some(i) => i,
            None => self.issue()?,
        };
        let handle = (DERIVED_BASE | index) as MPI_Datatype;
        let kind = combiner_name(
            ty.contents()
                .map_or(sys::MPI_COMBINER_NAMED, |c| c.combiner),
        );
        ty.set_name(format!("{kind} datatype {handle:#x}"));
        self.map.insert(
            handle,
            Entry {
                ty: Arc::new(ty),
                predefined: false,
                committed,
            },
        );
        Ok(handle)
    }

    /// The index of a derived handle never issued before.
    fn issue(&mut self) -> MpiResult<u32> {
        if self.next > DERIVED_MAX {
            return fail(
                sys::MPI_ERR_INTERN,
                format!(
                    "out of datatype handles ({} derived datatypes created)",
                    DERIVED_MAX as u64 + 1
                ),
            );
        }
        self.next += 1;
        Ok(self.next - 1)
    }

    /// A new handle for `ty` that behaves as a predefined type (committed,
    /// cannot be freed): the parameterised Fortran 90 types.
    pub fn insert_named(&mut self, ty: Datatype) -> MpiResult<MPI_Datatype> {
        let h = self.insert(ty, true)?;
        if let Some(e) = self.map.get_mut(&h) {
            e.predefined = true;
        }
        Ok(h)
    }

    /// Whether `handle` is one of mpi.h's predefined datatypes (or a cached
    /// Fortran 90 type).
    pub fn is_predefined(&self, handle: MPI_Datatype) -> bool {
        self.map.get(&handle).is_some_and(|e| e.predefined)
    }

    /// MPI_Type_commit (a no-op on a predefined or committed type).
    pub fn commit(&mut self, handle: MPI_Datatype) -> MpiResult<()> {
        self.entry(handle)?;
        if let Some(e) = self.map.get_mut(&handle) {
            e.committed = true;
        }
        Ok(())
    }

    /// Whether MPI_Type_free may free `handle`: MPI_ERR_TYPE for a
    /// predefined type.
    pub fn freeable(&self, handle: MPI_Datatype) -> MpiResult<()> {
        let e = self.entry(handle)?;
        if e.predefined {
            return fail(
                sys::MPI_ERR_TYPE,
                format!("cannot free the predefined datatype {}", e.ty.name()),
            );
        }
        Ok(())
    }

    /// MPI_Type_free: MPI_ERR_TYPE for a predefined type.
    pub fn free(&mut self, handle: MPI_Datatype) -> MpiResult<()> {
        self.freeable(handle)?;
        self.map.remove(&handle);
        if let Some(i) = derived_index(handle) {
            self.freed.push(i);
        }
        Ok(())
    }

    /// Every handle in the table.
    pub fn handles(&self) -> impl Iterator<Item = MPI_Datatype> + '_ {
        self.map.keys().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::typemap;

    fn vector_of_ints(t: &mut TypeTable) -> MPI_Datatype {
        let int = t.get_ref(sys::MPI_INT).unwrap();
        let v = typemap::vector(2, 1, 2, &int).unwrap();
        t.insert(v, false).unwrap()
    }

    #[test]
    fn derived_handles_are_named_and_uncommitted_until_committed() {
        let mut t = TypeTable::new();
        let h = vector_of_ints(&mut t);
        assert_eq!(h as u32, 0x8c00_0000);
        let ty = t.get_any(h).unwrap();
        assert_eq!(ty.name(), "vector datatype 0x8c000000");
        let e = t.get(h).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_TYPE);
        assert_eq!(
            e.msg,
            "vector datatype 0x8c000000 is not committed (call MPI_Type_commit \
             before communicating with it)"
        );
        assert!(!t.is_committed(h));
        t.commit(h).unwrap();
        assert!(t.is_committed(h));
        assert_eq!(t.get(h).unwrap().size(), 8);
        // committing twice, or a predefined type, is fine
        t.commit(h).unwrap();
        t.commit(sys::MPI_INT).unwrap();
        assert_eq!(t.handles().count(), 66);
    }

    #[test]
    fn freed_handles_are_invalid_but_types_built_from_them_live_on() {
        let mut t = TypeTable::new();
        let v = vector_of_ints(&mut t);
        let vref = t.get_ref(v).unwrap();
        let c = t
            .insert(typemap::contiguous(3, &vref).unwrap(), true)
            .unwrap();
        assert_eq!(c as u32, 0x8c00_0001);
        let held = t.get(c).unwrap();
        t.free(v).unwrap();
        let e = t.get_any(v).unwrap_err();
        assert_eq!(
            (e.class, e.msg.as_str()),
            (
                sys::MPI_ERR_TYPE,
                "datatype 0x8c000000 has been freed (MPI_Type_free)"
            )
        );
        assert_eq!(t.free(v).unwrap_err().class, sys::MPI_ERR_TYPE);
        // the contiguous type still has its map, and its contents the vector
        let ct = t.get(c).unwrap();
        assert_eq!(ct.size(), 24);
        assert_eq!(ct.contents().unwrap().types[0].ty.size(), 8);
        t.free(c).unwrap();
        // a pending operation holding the type keeps it
        assert_eq!(held.blocks(), &[(0, 4), (8, 8), (20, 8), (32, 4)]);
        // never-issued derived handles are just invalid
        let e = t.get_any(0x8c00_0005u32 as i32).unwrap_err();
        assert_eq!(e.msg, "invalid datatype handle 0x8c000005");
        // as in MPICH, the handle freed last is handed out first
        let int = t.get_ref(sys::MPI_INT).unwrap();
        let a = t.insert(typemap::dup(&int), true).unwrap();
        let b = t.insert(typemap::dup(&int), true).unwrap();
        let d = t.insert(typemap::dup(&int), true).unwrap();
        assert_eq!((a, b, d), (c, v, 0x8c00_0002u32 as i32));
        assert_eq!(t.get(v).unwrap().name(), "dup datatype 0x8c000000");
    }

    #[test]
    fn predefined_types_cannot_be_freed() {
        let mut t = TypeTable::new();
        let e = t.free(sys::MPI_DOUBLE).unwrap_err();
        assert_eq!(
            (e.class, e.msg.as_str()),
            (
                sys::MPI_ERR_TYPE,
                "cannot free the predefined datatype MPI_DOUBLE"
            )
        );
        assert_eq!(
            t.free(sys::MPI_DATATYPE_NULL).unwrap_err().class,
            sys::MPI_ERR_TYPE
        );
        assert!(t.get(sys::MPI_DOUBLE).is_ok());
        // a dup of a predefined type is derived: it can be freed
        let d = typemap::dup(&t.get_ref(sys::MPI_DOUBLE).unwrap());
        let h = t.insert(d, true).unwrap();
        assert_eq!(t.get(h).unwrap().name(), "dup datatype 0x8c000000");
        t.free(h).unwrap();
    }
}
