//! Datatype names (MPI_Type_set_name / MPI_Type_get_name): a predefined
//! type is named as in mpi.h until the program renames it; a derived type
//! has the empty name until the program names it. Names longer than
//! MPI_MAX_OBJECT_NAME - 1 bytes are cut (at a character boundary).
use crate::mpi::datatype::TypeTable;
use crate::mpi::error::MpiResult;
use crate::sys::{self, MPI_Datatype};
use std::collections::HashMap;

/// Names the program gave.
#[derive(Debug, Clone, Default)]
pub struct TypeNames {
    map: HashMap<MPI_Datatype, String>,
}

impl TypeNames {
    /// MPI_Type_set_name (MPI_ERR_TYPE for an invalid handle).
    pub fn set(&mut self, types: &TypeTable, handle: MPI_Datatype, name: &str) -> MpiResult<()> {
        types.get_any(handle)?;
        let mut end = name.len().min(sys::MPI_MAX_OBJECT_NAME as usize - 1);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        self.map.insert(handle, name[..end].to_string());
        Ok(())
    }

    /// Drop the name of a freed handle (the handle may be reused).
    pub fn forget(&mut self, handle: MPI_Datatype) {
        self.map.remove(&handle);
    }

    /// MPI_Type_get_name.
    pub fn get(&self, types: &TypeTable, handle: MPI_Datatype) -> MpiResult<String> {
        let t = types.get_any(handle)?;
        if let Some(n) = self.map.get(&handle) {
            return Ok(n.clone());
        }
        Ok(if types.is_predefined(handle) && t.contents().is_none() {
            t.name().to_string()
        } else {
            String::new()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::typemap;

    #[test]
    fn predefined_named_derived_empty_until_set() {
        let mut t = TypeTable::new();
        let mut n = TypeNames::default();
        assert_eq!(n.get(&t, sys::MPI_DOUBLE).unwrap(), "MPI_DOUBLE");
        assert_eq!(n.get(&t, sys::MPI_LONG_LONG).unwrap(), "MPI_LONG_LONG_INT");
        let v = typemap::contiguous(2, &t.get_ref(sys::MPI_INT).unwrap()).unwrap();
        let h = t.insert(v, false).unwrap();
        assert_eq!(n.get(&t, h).unwrap(), "");
        n.set(&t, h, "pair").unwrap();
        assert_eq!(n.get(&t, h).unwrap(), "pair");
        n.set(&t, sys::MPI_INT, "int").unwrap();
        assert_eq!(n.get(&t, sys::MPI_INT).unwrap(), "int");
        n.set(&t, h, &"é".repeat(100)).unwrap();
        assert_eq!(n.get(&t, h).unwrap().len(), 126);
        assert_eq!(
            n.set(&t, sys::MPI_DATATYPE_NULL, "x").unwrap_err().class,
            sys::MPI_ERR_TYPE
        );
        assert_eq!(n.get(&t, 77).unwrap_err().class, sys::MPI_ERR_TYPE);
    }
}
