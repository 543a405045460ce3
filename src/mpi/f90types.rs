//! Fortran 90 parameterised types and size matching:
//! MPI_Type_create_f90_real / complex / integer and MPI_Type_match_size.
//!
//! `(p, r)` selects the Fortran kind gfortran's SELECTED_REAL_KIND (or
//! SELECTED_INT_KIND(r)) would: the smallest kind with at least `p` decimal
//! digits and a decimal exponent range of at least `r` (MPI_UNDEFINED: no
//! requirement). REAL kinds 4, 8, 10 (x87 extended, C's long double) and 16
//! (IEEE quad); INTEGER kinds 1, 2, 4, 8, 16. No kind: MPI_ERR_ARG.
//!
//! The datatype returned has the layout of the predefined type of that kind
//! (and its reductions), combiner MPI_COMBINER_F90_REAL / _COMPLEX /
//! _INTEGER and contents `(p, r)` / `(r)`. As the standard requires, each
//! distinct `(p, r)` gets one handle, cached and returned again by later
//! calls; it is predefined: MPI_Type_free refuses it.
use crate::mpi::datatype::TypeTable;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::type_contents::Contents;
use crate::sys::{self, MPI_Datatype};
use std::collections::HashMap;
use std::os::raw::c_int;

/// Which constructor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum F90 {
    Real,
    Complex,
    Integer,
}

/// gfortran's REAL kinds: (precision, range, real type, complex type).
const REAL_KINDS: [(c_int, c_int, MPI_Datatype, MPI_Datatype); 4] = [
    (6, 37, sys::MPI_REAL4, sys::MPI_COMPLEX8),
    (15, 307, sys::MPI_REAL8, sys::MPI_COMPLEX16),
    (
        18,
        4931,
        sys::MPI_LONG_DOUBLE,
        sys::MPI_C_LONG_DOUBLE_COMPLEX,
    ),
    (33, 4931, sys::MPI_REAL16, sys::MPI_COMPLEX32),
];

/// gfortran's INTEGER kinds: (range, type).
const INT_KINDS: [(c_int, MPI_Datatype); 5] = [
    (2, sys::MPI_INTEGER1),
    (4, sys::MPI_INTEGER2),
    (9, sys::MPI_INTEGER4),
    (18, sys::MPI_INTEGER8),
    (38, sys::MPI_INTEGER16),
];

fn undefined_or(v: c_int) -> c_int {
    if v == sys::MPI_UNDEFINED {
        0
    } else {
        v
    }
}

/// The predefined type of the kind `(p, r)` selects.
pub fn select(which: F90, p: c_int, r: c_int) -> MpiResult<MPI_Datatype> {
    let (pp, rr) = (undefined_or(p), undefined_or(r));
    if pp < 0 || rr < 0 {
        return fail(
            sys::MPI_ERR_ARG,
            format!("invalid precision {p} or range {r} (negative)"),
        );
    }
    let found =
        match which {
            F90::Integer => INT_KINDS.iter().find(|k| k.0 >= rr).map(|k| k.1),
            F90::Real | F90::Complex => REAL_KINDS
                .iter()
                .find(|k| k.0 >= pp && k.1 >= rr)
                .map(|k| if which == F90::Real { k.2 } else { k.3 }),
        };
    found.map_or_else(
        || {
            let what = match which {
                F90::Integer => format!("an INTEGER kind with range {r}"),
                _ => format!("a REAL kind with precision {p} and range {r}"),
            };
            fail(sys::MPI_ERR_ARG, format!("there is no {what}"))
        },
        Ok,
    )
}

/// The handles handed out, by (constructor, p, r).
#[derive(Debug, Clone, Default)]
pub struct F90Cache {
    map: HashMap<(F90, c_int, c_int), MPI_Datatype>,
}

impl F90Cache {
    /// MPI_Type_create_f90_*: the cached handle of `(p, r)`, or a new one.
    /// For MPI_Type_create_f90_integer, `p` is MPI_UNDEFINED.
    pub fn get(
        &mut self,
        types: &mut TypeTable,
        which: F90,
        p: c_int,
        r: c_int,
    ) -> MpiResult<MPI_Datatype> {
        if let Some(&h) = self.map.get(&(which, p, r)) {
            return Ok(h);
        }
        let base = types.get_any(select(which, p, r)?)?;
        let (combiner, ints) = match which {
            F90::Real => (sys::MPI_COMBINER_F90_REAL, vec![p, r]),
            F90::Complex => (sys::MPI_COMBINER_F90_COMPLEX, vec![p, r]),
            F90::Integer => (sys::MPI_COMBINER_F90_INTEGER, vec![r]),
        };
        let t = base.duplicate(Contents {
            combiner,
            ints,
            aints: vec![],
            counts: vec![],
            types: vec![],
        });
        let h = types.insert_named(t)?;
        self.map.insert((which, p, r), h);
        Ok(h)
    }
}

/// MPI_Type_match_size: the predefined Fortran type of `typeclass`
/// (MPI_TYPECLASS_REAL / INTEGER / COMPLEX) whose size is `size` bytes
/// (the default kinds first: MPI_REAL, MPI_DOUBLE_PRECISION, MPI_INTEGER,
/// MPI_COMPLEX, MPI_DOUBLE_COMPLEX).
pub fn match_size(typeclass: c_int, size: c_int) -> MpiResult<MPI_Datatype> {
    let table: &[(c_int, MPI_Datatype)] = match typeclass {
        sys::MPI_TYPECLASS_REAL => &[
            (4, sys::MPI_REAL),
            (8, sys::MPI_DOUBLE_PRECISION),
            (16, sys::MPI_REAL16),
        ],
        sys::MPI_TYPECLASS_INTEGER => &[
            (4, sys::MPI_INTEGER),
            (1, sys::MPI_INTEGER1),
            (2, sys::MPI_INTEGER2),
            (8, sys::MPI_INTEGER8),
            (16, sys::MPI_INTEGER16),
        ],
        sys::MPI_TYPECLASS_COMPLEX => &[
            (8, sys::MPI_COMPLEX),
            (16, sys::MPI_DOUBLE_COMPLEX),
            (32, sys::MPI_COMPLEX32),
        ],
        _ => {
            return fail(
                sys::MPI_ERR_ARG,
                format!(
                    "invalid typeclass {typeclass} (MPI_TYPECLASS_REAL, \
                     MPI_TYPECLASS_INTEGER or MPI_TYPECLASS_COMPLEX)"
                ),
            )
        }
    };
    table.iter().find(|e| e.0 == size).map_or_else(
        || {
            fail(
                sys::MPI_ERR_ARG,
                format!("no predefined type of typeclass {typeclass} has {size} bytes"),
            )
        },
        |e| Ok(e.1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::type_contents::envelope;

    #[test]
    fn kinds_as_gfortran_selects_them() {
        let u = sys::MPI_UNDEFINED;
        let r = |p, r| select(F90::Real, p, r).unwrap();
        assert_eq!(r(6, 37), sys::MPI_REAL4);
        assert_eq!(r(u, u), sys::MPI_REAL4);
        assert_eq!(r(7, u), sys::MPI_REAL8);
        assert_eq!(r(u, 38), sys::MPI_REAL8);
        assert_eq!(r(15, 307), sys::MPI_REAL8);
        assert_eq!(r(16, u), sys::MPI_LONG_DOUBLE);
        assert_eq!(r(u, 308), sys::MPI_LONG_DOUBLE);
        assert_eq!(r(30, u), sys::MPI_REAL16);
        assert_eq!(select(F90::Complex, 10, u).unwrap(), sys::MPI_COMPLEX16);
        assert_eq!(
            select(F90::Real, 34, u).unwrap_err().class,
            sys::MPI_ERR_ARG
        );
        assert_eq!(
            select(F90::Real, u, 5000).unwrap_err().class,
            sys::MPI_ERR_ARG
        );
        let i = |r| select(F90::Integer, u, r).unwrap();
        assert_eq!(i(2), sys::MPI_INTEGER1);
        assert_eq!(i(3), sys::MPI_INTEGER2);
        assert_eq!(i(9), sys::MPI_INTEGER4);
        assert_eq!(i(10), sys::MPI_INTEGER8);
        assert_eq!(i(38), sys::MPI_INTEGER16);
        assert_eq!(
            select(F90::Integer, u, 39).unwrap_err().class,
            sys::MPI_ERR_ARG
        );
    }

    #[test]
    fn handles_are_cached_predefined_and_decodable() {
        let mut t = TypeTable::new();
        let mut c = F90Cache::default();
        let a = c.get(&mut t, F90::Real, 10, 100).unwrap();
        assert_eq!(c.get(&mut t, F90::Real, 10, 100).unwrap(), a);
        let b = c.get(&mut t, F90::Real, 15, 100).unwrap();
        assert_ne!(a, b, "each (p, r) has its own handle");
        let ty = t.get(a).unwrap();
        assert_eq!((ty.size(), ty.extent()), (8, 8));
        assert_eq!(ty.basic(), Some(sys::MPI_REAL8));
        assert_eq!(
            envelope(ty.contents()),
            (2, 0, 0, sys::MPI_COMBINER_F90_REAL)
        );
        assert_eq!(ty.contents().unwrap().ints, vec![10, 100]);
        assert_eq!(t.free(a).unwrap_err().class, sys::MPI_ERR_TYPE);
        let i = c.get(&mut t, F90::Integer, sys::MPI_UNDEFINED, 5).unwrap();
        let ty = t.get(i).unwrap();
        assert_eq!(ty.size(), 4);
        assert_eq!(
            envelope(ty.contents()),
            (1, 0, 0, sys::MPI_COMBINER_F90_INTEGER)
        );
        let z = c.get(&mut t, F90::Complex, 5, sys::MPI_UNDEFINED).unwrap();
        assert_eq!(t.get(z).unwrap().size(), 8);
    }

    #[test]
    fn match_size_gives_predefined_fortran_types() {
        assert_eq!(
            match_size(sys::MPI_TYPECLASS_REAL, 4).unwrap(),
            sys::MPI_REAL
        );
        assert_eq!(
            match_size(sys::MPI_TYPECLASS_REAL, 8).unwrap(),
            sys::MPI_DOUBLE_PRECISION
        );
        assert_eq!(
            match_size(sys::MPI_TYPECLASS_INTEGER, 2).unwrap(),
            sys::MPI_INTEGER2
        );
        assert_eq!(
            match_size(sys::MPI_TYPECLASS_COMPLEX, 16).unwrap(),
            sys::MPI_DOUBLE_COMPLEX
        );
        assert_eq!(
            match_size(sys::MPI_TYPECLASS_REAL, 2).unwrap_err().class,
            sys::MPI_ERR_ARG
        );
        assert_eq!(match_size(7, 4).unwrap_err().class, sys::MPI_ERR_ARG);
    }
}
