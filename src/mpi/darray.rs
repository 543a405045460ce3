//! MPI_Type_create_darray: the part of an HPF-style distributed global
//! array (block, cyclic(k) or undistributed along each dimension, over a
//! process grid) that one process holds, as a datatype over the global
//! array (MPI 3.1 section 4.1.4).
//!
//! The process's grid coordinates are those of its rank in row-major order
//! (whatever the array's storage order, as the standard and MPICH do).
//! Along dimension `d` of `gsizes[d]` elements over `psizes[d]` processes,
//! coordinate `r` holds:
//! * BLOCK(b) (b = ceil(gsize / psize) for MPI_DISTRIBUTE_DFLT_DARG; a
//!   given b needs b * psize >= gsize): indices `r*b .. min((r+1)*b, gsize)`;
//! * CYCLIC(k) (k = 1 by default): blocks of k indices starting at
//!   `(r + j*psize) * k`, j = 0, 1, ..., the last one cut at gsize;
//! * NONE: every index (the dimension is not distributed).
//!
//! The type map is a copy of oldtype for each element held, the last
//! dimension varying fastest in C order (the first in Fortran order),
//! element `(i0, i1, ...)` at its offset in the global array times the
//! extent of oldtype; the lower bound is 0 and the extent that of the whole
//! global array.
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::type_contents::{Contents, TypeRef};
use crate::mpi::typemap;
use crate::sys;
use std::os::raw::c_int;
use std::sync::Arc;

/// The arguments of MPI_Type_create_darray (arrays of `ndims` entries).
#[derive(Debug, Clone)]
pub struct Darray<'a> {
    pub size: c_int,
    pub rank: c_int,
    pub gsizes: &'a [c_int],
    pub distribs: &'a [c_int],
    pub dargs: &'a [c_int],
    pub psizes: &'a [c_int],
    pub order: c_int,
}

/// The runs of indices `(start, len)` that coordinate `r` of `p` holds
/// along a dimension of `g` elements, in increasing order.
fn runs(
    d: usize,
    g: i64,
    distrib: c_int,
    darg: c_int,
    p: i64,
    r: i64,
) -> MpiResult<Vec<(i64, i64)>> {
    let dflt = darg == sys::MPI_DISTRIBUTE_DFLT_DARG;
    if distrib != sys::MPI_DISTRIBUTE_NONE && !dflt && darg <= 0 {
        return fail(
            sys::MPI_ERR_ARG,
            format!(
                "invalid array_of_dargs[{d}] = {darg} (must be positive or \
                 MPI_DISTRIBUTE_DFLT_DARG)"
            ),
        );
    }
    match distrib {
        sys::MPI_DISTRIBUTE_NONE => Ok(vec![(0, g)]),
        sys::MPI_DISTRIBUTE_BLOCK => {
            let b = if dflt { (g + p - 1) / p } else { darg as i64 };
            if b * p < g {
                return fail(
                    sys::MPI_ERR_ARG,
                    format!(
                        "array_of_dargs[{d}] = {darg}: {p} blocks of {b} cannot hold the \
                         {g} elements of dimension {d}"
                    ),
                );
            }
            let start = r * b;
            let len = b.min(g - start).max(0);
            Ok(if len > 0 { vec![(start, len)] } else { vec![] })
        }
        sys::MPI_DISTRIBUTE_CYCLIC => {
            let k = if dflt { 1 } else { darg as i64 };
            let mut out = Vec::new();
            let mut start = r * k;
            while start < g {
                out.push((start, k.min(g - start)));
                start += p * k;
            }
            Ok(out)
        }
        other => fail(
            sys::MPI_ERR_ARG,
            format!(
                "invalid array_of_distribs[{d}] = {other} (MPI_DISTRIBUTE_BLOCK, \
                 MPI_DISTRIBUTE_CYCLIC or MPI_DISTRIBUTE_NONE)"
            ),
        ),
    }
}

fn positive(v: c_int, what: &str) -> MpiResult<i64> {
    if v <= 0 {
        return fail(
            sys::MPI_ERR_ARG,
            format!("invalid {what} = {v} (must be positive)"),
        );
    }
    Ok(v as i64)
}

fn overflow<T>() -> MpiResult<T> {
    fail(
        sys::MPI_ERR_ARG,
        "the distributed array is too large for the address space",
    )
}

/// MPI_Type_create_darray.
pub fn darray(a: &Darray, old: &TypeRef) -> MpiResult<Datatype> {
    let nd = a.gsizes.len();
    let size = positive(a.size, "size")?;
    if a.rank < 0 || a.rank as i64 >= size {
        return fail(
            sys::MPI_ERR_ARG,
            format!("invalid rank {} (must be in 0..{size})", a.rank),
        );
    }
    if a.order != sys::MPI_ORDER_C && a.order != sys::MPI_ORDER_FORTRAN {
        return fail(
            sys::MPI_ERR_ARG,
            format!(
                "invalid order {} (MPI_ORDER_C or MPI_ORDER_FORTRAN)",
                a.order
            ),
        );
    }
    let mut gs = Vec::with_capacity(nd);
    let mut ps = Vec::with_capacity(nd);
    for d in 0..nd {
        gs.push(positive(a.gsizes[d], &format!("array_of_gsizes[{d}]"))?);
        ps.push(positive(a.psizes[d], &format!("array_of_psizes[{d}]"))?);
    }
    let grid = ps.iter().try_fold(1i64, |acc, &p| acc.checked_mul(p));
    if grid != Some(size) {
        return fail(
            sys::MPI_ERR_ARG,
            format!(
                "the process grid {:?} does not have size {size} processes",
                a.psizes
            ),
        );
    }
    // row-major grid coordinates of the rank
    let mut coords = vec![0i64; nd];
    let mut rest = a.rank as i64;
    for d in (0..nd).rev() {
        coords[d] = rest % ps[d];
        rest /= ps[d];
    }
    let per_dim: Vec<Vec<(i64, i64)>> = (0..nd)
        .map(|d| runs(d, gs[d], a.distribs[d], a.dargs[d], ps[d], coords[d]))
        .collect::<MpiResult<_>>()?;

    // dimensions from the slowest to the fastest varying, with the stride
    // (in elements) of each
    let dims: Vec<usize> = if a.order == sys::MPI_ORDER_C {
        (0..nd).collect()
    } else {
        (0..nd).rev().collect()
    };
    let mut stride = vec![0i64; nd];
    let mut s: i64 = 1;
    for &d in dims.iter().rev() {
        stride[d] = s;
        s = s.checked_mul(gs[d]).map_or_else(overflow, Ok)?;
    }
    let total = s;
    let ext = i64::try_from(old.ty.extent()).map_or_else(|_| overflow(), Ok)?;
    let (&inner, outer) = dims.split_last().expect("ndims > 0");

    // the offset (in elements) of every combination of the outer
    // dimensions' indices, in order; then the runs of the fastest
    // dimension: one block of copies each
    let mut bases: Vec<i64> = vec![0];
    for &d in outer {
        let sd = stride[d];
        let held: Vec<i64> = per_dim[d]
            .iter()
            .flat_map(|&(st, len)| st..st + len)
            .collect();
        bases = bases
            .iter()
            .flat_map(|&b| held.iter().map(move |&i| b + i * sd))
            .collect();
    }
    let mut bls: Vec<c_int> = Vec::new();
    let mut disps: Vec<isize> = Vec::new();
    for base in bases {
        for &(st, len) in &per_dim[inner] {
            let off = (base + st * stride[inner])
                .checked_mul(ext)
                .map_or_else(overflow, Ok)?;
            bls.push(c_int::try_from(len).map_or_else(|_| overflow(), Ok)?);
            disps.push(isize::try_from(off).map_or_else(|_| overflow(), Ok)?);
        }
    }
    let blocks = typemap::hindexed(&bls, &disps, old)?;
    let blocks = TypeRef {
        handle: sys::MPI_DATATYPE_NULL,
        predefined: false,
        ty: Arc::new(blocks),
    };
    let extent = total
        .checked_mul(ext)
        .and_then(|e| isize::try_from(e).ok())
        .map_or_else(overflow, Ok)?;
    let t = typemap::resized(&blocks, 0, extent)?;
    let mut ints = vec![a.size, a.rank, nd as c_int];
    for arr in [a.gsizes, a.distribs, a.dargs, a.psizes] {
        ints.extend_from_slice(arr);
    }
    ints.push(a.order);
    Ok(t.duplicate(Contents {
        combiner: sys::MPI_COMBINER_DARRAY,
        ints,
        aints: vec![],
        counts: vec![],
        types: vec![old.clone()],
    }))
}

#[cfg(test)]
#[path = "darray_tests.rs"]
mod tests;
