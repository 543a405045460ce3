//! How a derived datatype was built: its combiner and the arguments of the
//! constructor call (MPI_Type_get_envelope / MPI_Type_get_contents), with
//! the component datatypes held by value so that freeing a component's
//! handle never invalidates the types built from it.
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::sys::{self, MPI_Datatype};
use std::os::raw::c_int;
use std::sync::Arc;

/// A datatype as a constructor received it: the handle the program passed,
/// whether that handle is predefined, and the type itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeRef {
    pub handle: MPI_Datatype,
    pub predefined: bool,
    pub ty: Arc<Datatype>,
}

/// The constructor call of a derived datatype (the combiner is one of the
/// `MPI_COMBINER_*` values of mpi.h; never MPI_COMBINER_NAMED).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contents {
    pub combiner: c_int,
    pub ints: Vec<c_int>,
    pub aints: Vec<isize>,
    /// Large counts (the arguments of a large-count `_c` constructor).
    pub counts: Vec<i64>,
    pub types: Vec<TypeRef>,
}

/// (num_integers, num_addresses, num_large_counts, num_datatypes, combiner)
/// of MPI_Type_get_envelope_c.
pub fn envelope_c(contents: Option<&Contents>) -> (i64, i64, i64, i64, c_int) {
    match contents {
        None => (0, 0, 0, 0, sys::MPI_COMBINER_NAMED),
        Some(c) => (
            c.ints.len() as i64,
            c.aints.len() as i64,
            c.counts.len() as i64,
            c.types.len() as i64,
            c.combiner,
        ),
    }
}

/// MPI_Type_get_envelope and MPI_Type_get_contents cannot describe a type
/// made by a large-count constructor (MPI_ERR_OTHER, as in MPICH).
pub fn no_large_counts(ty: &Datatype, call: &str) -> MpiResult<()> {
    match ty.contents() {
        Some(c) if !c.counts.is_empty() => fail(
            sys::MPI_ERR_OTHER,
            format!(
                "{} was made by a large-count constructor: its arguments need {call}_c",
                ty.name()
            ),
        ),
        _ => Ok(()),
    }
}

/// (num_integers, num_addresses, num_datatypes, combiner) of MPI_Type_get_envelope.
pub fn envelope(contents: Option<&Contents>) -> (c_int, c_int, c_int, c_int) {
    match contents {
        None => (0, 0, 0, sys::MPI_COMBINER_NAMED),
        Some(c) => (
            c.ints.len() as c_int,
            c.aints.len() as c_int,
            c.types.len() as c_int,
            c.combiner,
        ),
    }
}

/// The arguments of MPI_Type_get_contents(_c) for `ty`, checked against
/// the caller's array sizes: MPI_ERR_ARG for a predefined type (it has no
/// contents) or arrays that are too small.
pub fn contents_for(
    ty: &Datatype,
    max_integers: i64,
    max_addresses: i64,
    max_large_counts: i64,
    max_datatypes: i64,
) -> MpiResult<&Contents> {
    let Some(c) = ty.contents() else {
        return fail(
            sys::MPI_ERR_ARG,
            format!(
                "{} is a predefined datatype: MPI_Type_get_contents is only for derived ones",
                ty.name()
            ),
        );
    };
    let need = [
        ("max_integers", max_integers, c.ints.len()),
        ("max_addresses", max_addresses, c.aints.len()),
        ("max_large_counts", max_large_counts, c.counts.len()),
        ("max_datatypes", max_datatypes, c.types.len()),
    ];
    for (what, have, need) in need {
        if usize::try_from(have).map_or(true, |h| h < need) {
            return fail(
                sys::MPI_ERR_ARG,
                format!(
                    "{what} = {have} is too small: {} needs {need} (see MPI_Type_get_envelope)",
                    ty.name()
                ),
            );
        }
    }
    Ok(c)
}

/// The name of a combiner, for datatype names and messages.
pub fn combiner_name(combiner: c_int) -> &'static str {
    match combiner {
        sys::MPI_COMBINER_NAMED => "named",
        sys::MPI_COMBINER_DUP => "dup",
        sys::MPI_COMBINER_CONTIGUOUS => "contiguous",
        sys::MPI_COMBINER_VECTOR => "vector",
        sys::MPI_COMBINER_HVECTOR => "hvector",
        sys::MPI_COMBINER_INDEXED => "indexed",
        sys::MPI_COMBINER_HINDEXED => "hindexed",
        sys::MPI_COMBINER_INDEXED_BLOCK => "indexed_block",
        sys::MPI_COMBINER_HINDEXED_BLOCK => "hindexed_block",
        sys::MPI_COMBINER_STRUCT => "struct",
        sys::MPI_COMBINER_SUBARRAY => "subarray",
        sys::MPI_COMBINER_RESIZED => "resized",
        sys::MPI_COMBINER_DARRAY => "darray",
        sys::MPI_COMBINER_F90_REAL => "f90_real",
        sys::MPI_COMBINER_F90_COMPLEX => "f90_complex",
        sys::MPI_COMBINER_F90_INTEGER => "f90_integer",
        _ => "derived",
    }
}
