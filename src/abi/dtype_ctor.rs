//! Derived datatype constructors and lifetime: MPI_Type_contiguous,
//! vector, (create_)hvector, indexed, (create_)hindexed,
//! create_indexed_block, create_hindexed_block, (create_)struct,
//! create_subarray, create_resized, dup, commit, free, and the decoder
//! MPI_Type_get_envelope / MPI_Type_get_contents. User arrays become slices
//! here; the type maps are built by `crate::mpi::typemap`.
use crate::abi::buffers::out;
use crate::abi::obj_attr;
use crate::abi::state::call;
use crate::mpi::bound_markers;
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::type_contents::{contents_for, envelope, envelope_c, no_large_counts, TypeRef};
use crate::mpi::typemap::{self, count_arg, ndims_arg, CountArg};
use crate::mpi::World;
use crate::sys::{self, MPI_Aint, MPI_Count, MPI_Datatype};
use std::os::raw::c_int;

const WORLD: sys::MPI_Comm = sys::MPI_COMM_WORLD;

/// An input array of `n` entries: MPI_ERR_ARG if null (and not empty).
///
/// # Safety
/// `p` is null or points to `n` readable entries that live for `'a`.
unsafe fn array<'a, T>(p: *const T, n: usize, what: &str) -> MpiResult<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return fail(sys::MPI_ERR_ARG, format!("null pointer passed as {what}"));
    }
    // SAFETY: non-null and, by the contract, n readable entries.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// An output array of `n` entries: MPI_ERR_ARG if null (and not empty).
///
/// # Safety
/// `p` is null or points to `n` writable entries that live for `'a`.
unsafe fn array_mut<'a, T>(p: *mut T, n: usize, what: &str) -> MpiResult<&'a mut [T]> {
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return fail(sys::MPI_ERR_ARG, format!("null pointer passed as {what}"));
    }
    // SAFETY: non-null and, by the contract, n writable entries.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, n) })
}

/// Addresses as displacements.
fn aints(a: &[MPI_Aint]) -> Vec<isize> {
    a.iter().map(|&d| d as isize).collect()
}

/// Run constructor `name`: `make` builds the type, which gets a new
/// (uncommitted) handle stored in `newtype`.
///
/// # Safety
/// `newtype` is null or valid for a write; `make` is sound to run.
unsafe fn build(
    name: &str,
    newtype: *mut MPI_Datatype,
    make: impl FnOnce(&World) -> MpiResult<Datatype>,
) -> c_int {
    call(name, WORLD, |w| {
        let t = make(w)?;
        // SAFETY: null or a valid handle pointer (contract).
        let o = unsafe { out(newtype, "newtype") }?;
        *o = w.types.insert(t, false)?;
        Ok(())
    })
}

fn old(w: &World, oldtype: MPI_Datatype) -> MpiResult<TypeRef> {
    w.types.get_ref(oldtype)
}

/// Every constructor below serves both the classic call (`C` = `c_int`)
/// and its MPI-4 large-count `_c` twin (`C` = `MPI_Count`): the same code,
/// generic over the count type (see `typemap::CountArg`).
///
/// # Safety
/// The caller's newtype pointer.
unsafe fn contiguous<C: CountArg>(
    name: &str,
    count: C,
    oldtype: MPI_Datatype,
    newtype: *mut MPI_Datatype,
) -> c_int {
    // SAFETY: by the contract.
    unsafe {
        build(name, newtype, |w| {
            typemap::contiguous(count, &old(w, oldtype)?)
        })
    }
}

mpi_fn! {
    fn MPI_Type_contiguous / PMPI_Type_contiguous(count: c_int, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe { contiguous("MPI_Type_contiguous", count, oldtype, newtype) }
    }
}

mpi_fn! {
    fn MPI_Type_contiguous_c / PMPI_Type_contiguous_c(count: MPI_Count, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe { contiguous("MPI_Type_contiguous_c", count, oldtype, newtype) }
    }
}

/// MPI_Type_vector(_c).
///
/// # Safety
/// The caller's newtype pointer.
unsafe fn vector<C: CountArg>(
    name: &str,
    count: C,
    blocklength: C,
    stride: C,
    oldtype: MPI_Datatype,
    newtype: *mut MPI_Datatype,
) -> c_int {
    // SAFETY: by the contract.
    unsafe {
        build(name, newtype, |w| {
            typemap::vector(count, blocklength, stride, &old(w, oldtype)?)
        })
    }
}

mpi_fn! {
    fn MPI_Type_vector / PMPI_Type_vector(count: c_int, blocklength: c_int, stride: c_int, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe { vector("MPI_Type_vector", count, blocklength, stride, oldtype, newtype) }
    }
}

mpi_fn! {
    fn MPI_Type_vector_c / PMPI_Type_vector_c(count: MPI_Count, blocklength: MPI_Count, stride: MPI_Count, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe { vector("MPI_Type_vector_c", count, blocklength, stride, oldtype, newtype) }
    }
}

/// MPI_Type_create_hvector(_c) and MPI_Type_hvector: `stride` in bytes.
///
/// # Safety
/// The caller's newtype pointer.
unsafe fn hvector<C: CountArg>(
    name: &str,
    count: C,
    blocklength: C,
    stride: i64,
    oldtype: MPI_Datatype,
    newtype: *mut MPI_Datatype,
) -> c_int {
    // SAFETY: by the contract.
    unsafe {
        build(name, newtype, |w| {
            typemap::hvector(count, blocklength, stride as isize, &old(w, oldtype)?)
        })
    }
}

mpi_fn! {
    fn MPI_Type_create_hvector / PMPI_Type_create_hvector(count: c_int, blocklength: c_int, stride: MPI_Aint, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe { hvector("MPI_Type_create_hvector", count, blocklength, stride, oldtype, newtype) }
    }
}

mpi_fn! {
    /// MPI-1 name of MPI_Type_create_hvector.
    fn MPI_Type_hvector / PMPI_Type_hvector(count: c_int, blocklength: c_int, stride: MPI_Aint, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe { hvector("MPI_Type_hvector", count, blocklength, stride, oldtype, newtype) }
    }
}

mpi_fn! {
    fn MPI_Type_create_hvector_c / PMPI_Type_create_hvector_c(count: MPI_Count, blocklength: MPI_Count, stride: MPI_Count, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe { hvector("MPI_Type_create_hvector_c", count, blocklength, stride, oldtype, newtype) }
    }
}

/// MPI_Type_indexed(_c).
///
/// # Safety
/// The caller's pointers: arrays of `count` entries, `newtype`.
unsafe fn indexed<C: CountArg>(
    name: &str,
    count: C,
    bls: *const C,
    disps: *const C,
    oldtype: MPI_Datatype,
    newtype: *mut MPI_Datatype,
) -> c_int {
    // SAFETY: by the contract.
    unsafe {
        build(name, newtype, |w| {
            let n = count_arg(count, "count")?;
            let bl = array(bls, n, "array_of_blocklengths")?;
            let d = array(disps, n, "array_of_displacements")?;
            typemap::indexed(bl, d, &old(w, oldtype)?)
        })
    }
}

mpi_fn! {
    fn MPI_Type_indexed / PMPI_Type_indexed(count: c_int, array_of_blocklengths: *const c_int, array_of_displacements: *const c_int, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            indexed("MPI_Type_indexed", count, array_of_blocklengths, array_of_displacements, oldtype, newtype)
        }
    }
}

mpi_fn! {
    fn MPI_Type_indexed_c / PMPI_Type_indexed_c(count: MPI_Count, array_of_blocklengths: *const MPI_Count, array_of_displacements: *const MPI_Count, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            indexed("MPI_Type_indexed_c", count, array_of_blocklengths, array_of_displacements, oldtype, newtype)
        }
    }
}

/// MPI_Type_create_hindexed(_c) and its MPI-1 name.
///
/// # Safety
/// The caller's pointers: arrays of `count` entries, `newtype`.
unsafe fn hindexed<C: CountArg>(
    name: &str,
    count: C,
    bls: *const C,
    disps: *const i64,
    oldtype: MPI_Datatype,
    newtype: *mut MPI_Datatype,
) -> c_int {
    // SAFETY: by the contract.
    unsafe {
        build(name, newtype, |w| {
            let n = count_arg(count, "count")?;
            let bl = array(bls, n, "array_of_blocklengths")?;
            let d = array(disps, n, "array_of_displacements")?;
            typemap::hindexed(bl, &aints(d), &old(w, oldtype)?)
        })
    }
}

mpi_fn! {
    fn MPI_Type_create_hindexed / PMPI_Type_create_hindexed(count: c_int, array_of_blocklengths: *const c_int, array_of_displacements: *const MPI_Aint, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            hindexed("MPI_Type_create_hindexed", count, array_of_blocklengths,
                     array_of_displacements, oldtype, newtype)
        }
    }
}

mpi_fn! {
    /// MPI-1 name of MPI_Type_create_hindexed.
    fn MPI_Type_hindexed / PMPI_Type_hindexed(count: c_int, array_of_blocklengths: *const c_int, array_of_displacements: *const MPI_Aint, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            hindexed("MPI_Type_hindexed", count, array_of_blocklengths,
                     array_of_displacements, oldtype, newtype)
        }
    }
}

mpi_fn! {
    fn MPI_Type_create_hindexed_c / PMPI_Type_create_hindexed_c(count: MPI_Count, array_of_blocklengths: *const MPI_Count, array_of_displacements: *const MPI_Count, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            hindexed("MPI_Type_create_hindexed_c", count, array_of_blocklengths,
                     array_of_displacements, oldtype, newtype)
        }
    }
}

/// MPI_Type_create_indexed_block(_c).
///
/// # Safety
/// The caller's pointers: an array of `count` entries, `newtype`.
unsafe fn indexed_block<C: CountArg>(
    name: &str,
    count: C,
    blocklength: C,
    disps: *const C,
    oldtype: MPI_Datatype,
    newtype: *mut MPI_Datatype,
) -> c_int {
    // SAFETY: by the contract.
    unsafe {
        build(name, newtype, |w| {
            let n = count_arg(count, "count")?;
            let d = array(disps, n, "array_of_displacements")?;
            typemap::indexed_block(blocklength, d, &old(w, oldtype)?)
        })
    }
}

mpi_fn! {
    fn MPI_Type_create_indexed_block / PMPI_Type_create_indexed_block(count: c_int, blocklength: c_int, array_of_displacements: *const c_int, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            indexed_block("MPI_Type_create_indexed_block", count, blocklength, array_of_displacements, oldtype, newtype)
        }
    }
}

mpi_fn! {
    fn MPI_Type_create_indexed_block_c / PMPI_Type_create_indexed_block_c(count: MPI_Count, blocklength: MPI_Count, array_of_displacements: *const MPI_Count, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            indexed_block("MPI_Type_create_indexed_block_c", count, blocklength, array_of_displacements, oldtype, newtype)
        }
    }
}

/// MPI_Type_create_hindexed_block(_c).
///
/// # Safety
/// The caller's pointers: an array of `count` entries, `newtype`.
unsafe fn hindexed_block<C: CountArg>(
    name: &str,
    count: C,
    blocklength: C,
    disps: *const i64,
    oldtype: MPI_Datatype,
    newtype: *mut MPI_Datatype,
) -> c_int {
    // SAFETY: by the contract.
    unsafe {
        build(name, newtype, |w| {
            let n = count_arg(count, "count")?;
            let d = array(disps, n, "array_of_displacements")?;
            typemap::hindexed_block(blocklength, &aints(d), &old(w, oldtype)?)
        })
    }
}

mpi_fn! {
    fn MPI_Type_create_hindexed_block / PMPI_Type_create_hindexed_block(count: c_int, blocklength: c_int, array_of_displacements: *const MPI_Aint, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            hindexed_block("MPI_Type_create_hindexed_block", count, blocklength, array_of_displacements, oldtype, newtype)
        }
    }
}

mpi_fn! {
    fn MPI_Type_create_hindexed_block_c / PMPI_Type_create_hindexed_block_c(count: MPI_Count, blocklength: MPI_Count, array_of_displacements: *const MPI_Count, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            hindexed_block("MPI_Type_create_hindexed_block_c", count, blocklength, array_of_displacements, oldtype, newtype)
        }
    }
}

/// MPI_Type_create_struct(_c) and its MPI-1 name.
///
/// # Safety
/// The caller's pointers: arrays of `count` entries, `newtype`.
unsafe fn create_struct<C: CountArg>(
    name: &str,
    count: C,
    bls: *const C,
    disps: *const i64,
    types: *const MPI_Datatype,
    newtype: *mut MPI_Datatype,
) -> c_int {
    // SAFETY: by the contract.
    unsafe {
        build(name, newtype, |w| {
            let n = count_arg(count, "count")?;
            let bl = array(bls, n, "array_of_blocklengths")?;
            let d = array(disps, n, "array_of_displacements")?;
            let ts = array(types, n, "array_of_types")?;
            let refs = ts
                .iter()
                .enumerate()
                .map(|(i, &h)| {
                    w.types.get_ref(h).map_err(|mut e| {
                        e.msg = format!("array_of_types[{i}]: {}", e.msg);
                        e
                    })
                })
                .collect::<MpiResult<Vec<_>>>()?;
            if refs.iter().any(|r| bound_markers::is_marker(r.handle)) {
                return bound_markers::create_struct(bl, &aints(d), &refs);
            }
            typemap::create_struct(bl, &aints(d), &refs)
        })
    }
}

mpi_fn! {
    fn MPI_Type_create_struct / PMPI_Type_create_struct(count: c_int, array_of_blocklengths: *const c_int, array_of_displacements: *const MPI_Aint, array_of_types: *const MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            create_struct("MPI_Type_create_struct", count, array_of_blocklengths,
                          array_of_displacements, array_of_types, newtype)
        }
    }
}

mpi_fn! {
    /// MPI-1 name of MPI_Type_create_struct.
    fn MPI_Type_struct / PMPI_Type_struct(count: c_int, array_of_blocklengths: *const c_int, array_of_displacements: *const MPI_Aint, array_of_types: *const MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            create_struct("MPI_Type_struct", count, array_of_blocklengths,
                          array_of_displacements, array_of_types, newtype)
        }
    }
}

mpi_fn! {
    fn MPI_Type_create_struct_c / PMPI_Type_create_struct_c(count: MPI_Count, array_of_blocklengths: *const MPI_Count, array_of_displacements: *const MPI_Count, array_of_types: *const MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            create_struct("MPI_Type_create_struct_c", count, array_of_blocklengths,
                          array_of_displacements, array_of_types, newtype)
        }
    }
}

/// MPI_Type_create_subarray(_c).
///
/// # Safety
/// The caller's pointers: arrays of `ndims` entries, `newtype`.
#[allow(clippy::too_many_arguments)]
unsafe fn subarray<C: CountArg>(
    name: &str,
    ndims: c_int,
    sizes: *const C,
    subsizes: *const C,
    starts: *const C,
    order: c_int,
    oldtype: MPI_Datatype,
    newtype: *mut MPI_Datatype,
) -> c_int {
    // SAFETY: by the contract.
    unsafe {
        build(name, newtype, |w| {
            let n = ndims_arg(ndims)?;
            let sizes = array(sizes, n, "array_of_sizes")?;
            let subsizes = array(subsizes, n, "array_of_subsizes")?;
            let starts = array(starts, n, "array_of_starts")?;
            typemap::subarray(sizes, subsizes, starts, order, &old(w, oldtype)?)
        })
    }
}

mpi_fn! {
    fn MPI_Type_create_subarray / PMPI_Type_create_subarray(ndims: c_int, array_of_sizes: *const c_int, array_of_subsizes: *const c_int, array_of_starts: *const c_int, order: c_int, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            subarray("MPI_Type_create_subarray", ndims, array_of_sizes, array_of_subsizes,
                     array_of_starts, order, oldtype, newtype)
        }
    }
}

mpi_fn! {
    fn MPI_Type_create_subarray_c / PMPI_Type_create_subarray_c(ndims: c_int, array_of_sizes: *const MPI_Count, array_of_subsizes: *const MPI_Count, array_of_starts: *const MPI_Count, order: c_int, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            subarray("MPI_Type_create_subarray_c", ndims, array_of_sizes, array_of_subsizes,
                     array_of_starts, order, oldtype, newtype)
        }
    }
}

mpi_fn! {
    fn MPI_Type_create_resized / PMPI_Type_create_resized(oldtype: MPI_Datatype, lb: MPI_Aint, extent: MPI_Aint, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's newtype pointer.
        unsafe {
            build("MPI_Type_create_resized", newtype, |w| {
                typemap::resized(&old(w, oldtype)?, lb as isize, extent as isize)
            })
        }
    }
}

mpi_fn! {
    fn MPI_Type_create_resized_c / PMPI_Type_create_resized_c(oldtype: MPI_Datatype, lb: MPI_Count, extent: MPI_Count, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's newtype pointer.
        unsafe {
            build("MPI_Type_create_resized_c", newtype, |w| {
                typemap::resized_as::<MPI_Count>(&old(w, oldtype)?, lb as isize, extent as isize)
            })
        }
    }
}

mpi_fn! {
    /// The new type has the old one's commit state.
    fn MPI_Type_dup / PMPI_Type_dup(oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        let mut made = None;
        let rc = call("MPI_Type_dup", WORLD, |w| {
            let t = typemap::dup(&old(w, oldtype)?);
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(newtype, "newtype") }?;
            let committed = w.types.is_committed(oldtype);
            *o = w.types.insert(t, committed)?;
            made = Some(*o);
            Ok(())
        });
        let Some(new) = made else { return rc };
        // then the attributes' copy callbacks (with the lock released)
        if let Err(rc) = obj_attr::copy_attrs(obj_attr::Kind::Type, "MPI_Type_dup", oldtype, new) {
            call("MPI_Type_dup", WORLD, |w| {
                w.type_names.forget(new);
                w.types.free(new)
            });
            // SAFETY: as above.
            unsafe { newtype.write(sys::MPI_DATATYPE_NULL) };
            return rc;
        }
        rc
    }
}

mpi_fn! {
    fn MPI_Type_commit / PMPI_Type_commit(datatype: *mut MPI_Datatype) -> c_int {
        call("MPI_Type_commit", WORLD, |w| {
            // SAFETY: null or a valid handle pointer (caller).
            let h = unsafe { out(datatype, "datatype") }?;
            w.types.commit(*h)
        })
    }
}

mpi_fn! {
    /// Types built from the freed one, and operations in progress with it,
    /// are not affected.
    fn MPI_Type_free / PMPI_Type_free(datatype: *mut MPI_Datatype) -> c_int {
        if !datatype.is_null() {
            // the attributes' delete callbacks first (a failure leaves the
            // type alone)
            // SAFETY: checked non-null; the caller's handle pointer.
            let h = unsafe { datatype.read() };
            if let Err(rc) = obj_attr::free_attrs(obj_attr::Kind::Type, "MPI_Type_free", h) {
                return rc;
            }
        }
        call("MPI_Type_free", WORLD, |w| {
            // SAFETY: null or a valid handle pointer (caller).
            let h = unsafe { out(datatype, "datatype") }?;
            w.types.free(*h)?;
            w.type_attrs.forget(*h);
            w.type_names.forget(*h);
            *h = sys::MPI_DATATYPE_NULL;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Type_get_envelope / PMPI_Type_get_envelope(datatype: MPI_Datatype, num_integers: *mut c_int, num_addresses: *mut c_int, num_datatypes: *mut c_int, combiner: *mut c_int) -> c_int {
        call("MPI_Type_get_envelope", WORLD, |w| {
            let t = w.types.get_any(datatype)?;
            no_large_counts(&t, "MPI_Type_get_envelope")?;
            let (ni, na, nd, comb) = envelope(t.contents());
            // SAFETY: null or valid int pointers (caller).
            unsafe {
                let outs = [
                    (out(num_integers, "num_integers")?, ni),
                    (out(num_addresses, "num_addresses")?, na),
                    (out(num_datatypes, "num_datatypes")?, nd),
                    (out(combiner, "combiner")?, comb),
                ];
                for (o, v) in outs {
                    *o = v;
                }
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Type_get_envelope_c / PMPI_Type_get_envelope_c(datatype: MPI_Datatype, num_integers: *mut MPI_Count, num_addresses: *mut MPI_Count, num_large_counts: *mut MPI_Count, num_datatypes: *mut MPI_Count, combiner: *mut c_int) -> c_int {
        call("MPI_Type_get_envelope_c", WORLD, |w| {
            let t = w.types.get_any(datatype)?;
            let (ni, na, nc, nd, comb) = envelope_c(t.contents());
            // SAFETY: null or valid pointers (caller).
            unsafe {
                let outs = [
                    (out(num_integers, "num_integers")?, ni),
                    (out(num_addresses, "num_addresses")?, na),
                    (out(num_large_counts, "num_large_counts")?, nc),
                    (out(num_datatypes, "num_datatypes")?, nd),
                ];
                *out(combiner, "combiner")? = comb;
                for (o, v) in outs {
                    *o = v;
                }
            }
            Ok(())
        })
    }
}

/// MPI_Type_get_contents(_c): the arguments of `datatype`'s constructor
/// into the caller's arrays (`max` = the four maximum sizes; `counts` is
/// null for MPI_Type_get_contents, whose max_large_counts is 0). Derived
/// component types come back as new handles (to be freed by the caller, as
/// the standard says), predefined ones as themselves. `large`: the `_c`
/// call (the only one that describes a large-count constructor).
///
/// # Safety
/// Each array is null or holds its `max` entries.
#[allow(clippy::too_many_arguments)]
unsafe fn get_contents(
    name: &str,
    large: bool,
    datatype: MPI_Datatype,
    max: [i64; 4],
    integers: *mut c_int,
    addresses: *mut MPI_Aint,
    counts: *mut MPI_Count,
    datatypes: *mut MPI_Datatype,
) -> c_int {
    call(name, WORLD, |w| {
        let t = w.types.get_any(datatype)?;
        if !large {
            no_large_counts(&t, "MPI_Type_get_contents")?;
        }
        let c = contents_for(&t, max[0], max[1], max[2], max[3])?;
        // SAFETY: the caller's arrays hold at least max_* >= len entries.
        let (ints, addrs, large, types) = unsafe {
            (
                array_mut(integers, c.ints.len(), "array_of_integers")?,
                array_mut(addresses, c.aints.len(), "array_of_addresses")?,
                array_mut(counts, c.counts.len(), "array_of_large_counts")?,
                array_mut(datatypes, c.types.len(), "array_of_datatypes")?,
            )
        };
        ints.copy_from_slice(&c.ints);
        for (o, &a) in addrs.iter_mut().zip(&c.aints) {
            *o = a as MPI_Aint;
        }
        large.copy_from_slice(&c.counts);
        for (o, r) in types.iter_mut().zip(&c.types) {
            *o = if r.predefined {
                r.handle
            } else {
                w.types.insert((*r.ty).clone(), false)?
            };
        }
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Type_get_contents / PMPI_Type_get_contents(datatype: MPI_Datatype, max_integers: c_int, max_addresses: c_int, max_datatypes: c_int, array_of_integers: *mut c_int, array_of_addresses: *mut MPI_Aint, array_of_datatypes: *mut MPI_Datatype) -> c_int {
        let max = [max_integers.into(), max_addresses.into(), 0, max_datatypes.into()];
        // SAFETY: the caller's arrays, passed on.
        unsafe {
            get_contents("MPI_Type_get_contents", false, datatype, max, array_of_integers,
                         array_of_addresses, std::ptr::null_mut(), array_of_datatypes)
        }
    }
}

mpi_fn! {
    fn MPI_Type_get_contents_c / PMPI_Type_get_contents_c(datatype: MPI_Datatype, max_integers: MPI_Count, max_addresses: MPI_Count, max_large_counts: MPI_Count, max_datatypes: MPI_Count, array_of_integers: *mut c_int, array_of_addresses: *mut MPI_Aint, array_of_large_counts: *mut MPI_Count, array_of_datatypes: *mut MPI_Datatype) -> c_int {
        let max = [max_integers, max_addresses, max_large_counts, max_datatypes];
        // SAFETY: the caller's arrays, passed on.
        unsafe {
            get_contents("MPI_Type_get_contents_c", true, datatype, max, array_of_integers,
                         array_of_addresses, array_of_large_counts, array_of_datatypes)
        }
    }
}
