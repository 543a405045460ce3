//! Datatype extras: MPI_Type_create_darray, the Fortran 90 parameterised
//! types (MPI_Type_create_f90_real / complex / integer) and
//! MPI_Type_match_size, datatype names (MPI_Type_get_name /
//! MPI_Type_set_name), the MPI-4 large-count queries (MPI_Type_size_c,
//! MPI_Type_get_extent_c, MPI_Type_get_true_extent_c, MPI_Get_count_c,
//! MPI_Get_elements_c) and the "external32" representation
//! (MPI_Pack_external_size, MPI_Pack_external, MPI_Unpack_external).
//! All local: packing is host work inside the call, not computation, and
//! no message moves.
use crate::abi::buffers::{out, put_cstr, status_in};
use crate::abi::state::call;
use crate::abi::typed_mem::{elems, elems_mut};
use crate::mpi::darray::{darray, Darray};
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::external32::{check_datarep, external_size, from_external, to_external};
use crate::mpi::f90types::{match_size, F90};
use crate::mpi::status::status_bytes;
use crate::mpi::typemap::{count_arg, ndims_arg};
use crate::mpi::World;
use crate::sys::{self, MPI_Aint, MPI_Count, MPI_Datatype, MPI_Status};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};

const WORLD: sys::MPI_Comm = sys::MPI_COMM_WORLD;

/// An input array of `n` ints: MPI_ERR_ARG if null.
///
/// # Safety
/// `p` is null or points to `n` readable ints that live for `'a`.
unsafe fn ints<'a>(p: *const c_int, n: usize, what: &str) -> MpiResult<&'a [c_int]> {
    if p.is_null() {
        return fail(sys::MPI_ERR_ARG, format!("null pointer passed as {what}"));
    }
    // SAFETY: non-null and, by the contract, n readable ints.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// A NUL-terminated string argument: MPI_ERR_ARG if null.
///
/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn c_str(p: *const c_char, what: &str) -> MpiResult<String> {
    if p.is_null() {
        return fail(sys::MPI_ERR_ARG, format!("null pointer passed as {what}"));
    }
    // SAFETY: non-null, NUL-terminated by the contract.
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

mpi_fn! {
    fn MPI_Type_create_darray / PMPI_Type_create_darray(size: c_int, rank: c_int, ndims: c_int, array_of_gsizes: *const c_int, array_of_distribs: *const c_int, array_of_dargs: *const c_int, array_of_psizes: *const c_int, order: c_int, oldtype: MPI_Datatype, newtype: *mut MPI_Datatype) -> c_int {
        call("MPI_Type_create_darray", WORLD, |w| {
            let n = ndims_arg(ndims)?;
            // SAFETY: the caller's arrays of ndims entries.
            let a = unsafe {
                Darray {
                    size,
                    rank,
                    gsizes: ints(array_of_gsizes, n, "array_of_gsizes")?,
                    distribs: ints(array_of_distribs, n, "array_of_distribs")?,
                    dargs: ints(array_of_dargs, n, "array_of_dargs")?,
                    psizes: ints(array_of_psizes, n, "array_of_psizes")?,
                    order,
                }
            };
            let t = darray(&a, &w.types.get_ref(oldtype)?)?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(newtype, "newtype") }?;
            *o = w.types.insert(t, false)?;
            Ok(())
        })
    }
}

/// MPI_Type_create_f90_*.
///
/// # Safety
/// `newtype` is null or valid for a write.
unsafe fn f90(name: &str, which: F90, p: c_int, r: c_int, newtype: *mut MPI_Datatype) -> c_int {
    call(name, WORLD, |w| {
        let World {
            types, f90_types, ..
        } = w;
        let h = f90_types.get(types, which, p, r)?;
        // SAFETY: null or a valid handle pointer (contract).
        let o = unsafe { out(newtype, "newtype") }?;
        *o = h;
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Type_create_f90_real / PMPI_Type_create_f90_real(p: c_int, r: c_int, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's pointer, passed on.
        unsafe { f90("MPI_Type_create_f90_real", F90::Real, p, r, newtype) }
    }
}

mpi_fn! {
    fn MPI_Type_create_f90_complex / PMPI_Type_create_f90_complex(p: c_int, r: c_int, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's pointer, passed on.
        unsafe { f90("MPI_Type_create_f90_complex", F90::Complex, p, r, newtype) }
    }
}

mpi_fn! {
    fn MPI_Type_create_f90_integer / PMPI_Type_create_f90_integer(r: c_int, newtype: *mut MPI_Datatype) -> c_int {
        // SAFETY: the caller's pointer, passed on.
        unsafe {
            f90("MPI_Type_create_f90_integer", F90::Integer, sys::MPI_UNDEFINED, r, newtype)
        }
    }
}

mpi_fn! {
    fn MPI_Type_match_size / PMPI_Type_match_size(typeclass: c_int, size: c_int, datatype: *mut MPI_Datatype) -> c_int {
        call("MPI_Type_match_size", WORLD, |_| {
            let h = match_size(typeclass, size)?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(datatype, "datatype") }?;
            *o = h;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Type_get_name / PMPI_Type_get_name(datatype: MPI_Datatype, type_name: *mut c_char, resultlen: *mut c_int) -> c_int {
        call("MPI_Type_get_name", WORLD, |w| {
            let name = w.type_names.get(&w.types, datatype)?;
            // SAFETY: null or a valid int pointer (caller).
            let len = unsafe { out(resultlen, "resultlen") }?;
            if type_name.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as type_name");
            }
            // SAFETY: MPI requires type_name to hold MPI_MAX_OBJECT_NAME chars.
            *len = unsafe { put_cstr(type_name, sys::MPI_MAX_OBJECT_NAME as usize, &name) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Type_set_name / PMPI_Type_set_name(datatype: MPI_Datatype, type_name: *const c_char) -> c_int {
        call("MPI_Type_set_name", WORLD, |w| {
            // SAFETY: null or a NUL-terminated string (caller).
            let name = unsafe { c_str(type_name, "type_name") }?;
            w.type_names.set(&w.types, datatype, &name)
        })
    }
}

/// Run query `name` on `datatype` (committed or not).
fn query(name: &str, datatype: MPI_Datatype, f: impl FnOnce(&Datatype) -> MpiResult<()>) -> c_int {
    call(name, WORLD, |w| f(&*w.types.get_any(datatype)?))
}

/// Store two MPI_Count results.
///
/// # Safety
/// `a` and `b` are null or valid for writes.
unsafe fn put2(
    a: *mut MPI_Count,
    an: &str,
    av: isize,
    b: *mut MPI_Count,
    bn: &str,
    bv: i64,
) -> MpiResult<()> {
    // SAFETY: by the contract.
    let (a, b) = unsafe { (out(a, an)?, out(b, bn)?) };
    *a = av as MPI_Count;
    *b = bv as MPI_Count;
    Ok(())
}

mpi_fn! {
    fn MPI_Type_size_c / PMPI_Type_size_c(datatype: MPI_Datatype, size: *mut MPI_Count) -> c_int {
        query("MPI_Type_size_c", datatype, |t| {
            // SAFETY: null or a valid MPI_Count pointer (caller).
            let o = unsafe { out(size, "size") }?;
            *o = t.size() as MPI_Count;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Type_get_extent_c / PMPI_Type_get_extent_c(datatype: MPI_Datatype, lb: *mut MPI_Count, extent: *mut MPI_Count) -> c_int {
        query("MPI_Type_get_extent_c", datatype, |t| {
            // SAFETY: null or valid pointers (caller).
            unsafe { put2(lb, "lb", t.lb(), extent, "extent", t.extent() as i64) }
        })
    }
}

mpi_fn! {
    fn MPI_Type_get_true_extent_c / PMPI_Type_get_true_extent_c(datatype: MPI_Datatype, true_lb: *mut MPI_Count, true_extent: *mut MPI_Count) -> c_int {
        query("MPI_Type_get_true_extent_c", datatype, |t| {
            // SAFETY: null or valid pointers (caller).
            unsafe { put2(true_lb, "true_lb", t.true_lb(), true_extent, "true_extent", t.true_extent() as i64) }
        })
    }
}

mpi_fn! {
    /// Whole elements of `datatype` in the message, MPI_UNDEFINED when the
    /// byte count is not a multiple of its size.
    fn MPI_Get_count_c / PMPI_Get_count_c(status: *const MPI_Status, datatype: MPI_Datatype, count: *mut MPI_Count) -> c_int {
        call("MPI_Get_count_c", WORLD, |w| {
            // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
            let bytes = status_bytes(unsafe { status_in(status) }?);
            let size = w.types.get_any(datatype)?.size() as u64;
            // SAFETY: null or a valid MPI_Count pointer (caller).
            let o = unsafe { out(count, "count") }?;
            *o = match (size, bytes) {
                (0, 0) => 0,
                (0, _) => sys::MPI_UNDEFINED as MPI_Count,
                (s, b) if b % s == 0 => (b / s) as MPI_Count,
                _ => sys::MPI_UNDEFINED as MPI_Count,
            };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Get_elements_c / PMPI_Get_elements_c(status: *const MPI_Status, datatype: MPI_Datatype, count: *mut MPI_Count) -> c_int {
        call("MPI_Get_elements_c", WORLD, |w| {
            // SAFETY: null, MPI_STATUS_IGNORE or a valid status (caller).
            let bytes = status_bytes(unsafe { status_in(status) }?);
            let n = w.types.get(datatype)?.elements(bytes);
            // SAFETY: null or a valid MPI_Count pointer (caller).
            let o = unsafe { out(count, "count") }?;
            *o = n.map_or(sys::MPI_UNDEFINED as MPI_Count, |n| n as MPI_Count);
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Pack_external_size / PMPI_Pack_external_size(datarep: *const c_char, incount: c_int, datatype: MPI_Datatype, size: *mut MPI_Aint) -> c_int {
        call("MPI_Pack_external_size", WORLD, |w| {
            // SAFETY: null or a NUL-terminated string (caller).
            check_datarep(&unsafe { c_str(datarep, "datarep") }?)?;
            let n = count_arg(incount, "incount")?;
            let ty = w.types.get(datatype)?;
            let bytes = external_size(&ty, n)?;
            // SAFETY: null or a valid MPI_Aint pointer (caller).
            let o = unsafe { out(size, "size") }?;
            *o = bytes as MPI_Aint;
            Ok(())
        })
    }
}

/// A position in a buffer of `size` bytes where `len` bytes must fit.
fn window(position: MPI_Aint, size: MPI_Aint, len: usize, what: &str) -> MpiResult<usize> {
    if position < 0 || size < 0 {
        return fail(
            sys::MPI_ERR_ARG,
            format!("invalid position {position} or {what} {size} (negative)"),
        );
    }
    let (p, s) = (position as usize, size as usize);
    if p > s || len > s - p {
        return fail(
            sys::MPI_ERR_ARG,
            format!(
                "buffer too small: {len} bytes of external32 data, {} left after position \
                 {p} of {what} {s}",
                s.saturating_sub(p)
            ),
        );
    }
    Ok(p)
}

mpi_fn! {
    fn MPI_Pack_external / PMPI_Pack_external(datarep: *const c_char, inbuf: *const c_void, incount: c_int, datatype: MPI_Datatype, outbuf: *mut c_void, outsize: MPI_Aint, position: *mut MPI_Aint) -> c_int {
        call("MPI_Pack_external", WORLD, |w| {
            // SAFETY: null or a NUL-terminated string (caller).
            check_datarep(&unsafe { c_str(datarep, "datarep") }?)?;
            let n = count_arg(incount, "incount")?;
            let ty = w.types.get(datatype)?;
            // SAFETY: null or a valid MPI_Aint pointer (caller).
            let pos = unsafe { out(position, "position") }?;
            if inbuf.is_null() && n > 0 && ty.size() > 0 && ty.true_lb() == 0 {
                return fail(sys::MPI_ERR_BUFFER, "null inbuf");
            }
            // SAFETY: inbuf holds incount elements of datatype (MPI's
            // contract).
            let native = ty.pack(unsafe { elems(inbuf, &ty, n) }, n);
            let ext = to_external(&ty, &native, n)?;
            let at = window(*pos, outsize, ext.len(), "outsize")?;
            if outbuf.is_null() && !ext.is_empty() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as outbuf");
            }
            if !ext.is_empty() {
                // SAFETY: [at, at + len) lies within the outsize bytes of
                // outbuf (checked), which do not overlap inbuf.
                unsafe {
                    std::ptr::copy_nonoverlapping(ext.as_ptr(), (outbuf as *mut u8).add(at), ext.len())
                };
            }
            *pos += ext.len() as MPI_Aint;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Unpack_external / PMPI_Unpack_external(datarep: *const c_char, inbuf: *const c_void, insize: MPI_Aint, position: *mut MPI_Aint, outbuf: *mut c_void, outcount: c_int, datatype: MPI_Datatype) -> c_int {
        call("MPI_Unpack_external", WORLD, |w| {
            // SAFETY: null or a NUL-terminated string (caller).
            check_datarep(&unsafe { c_str(datarep, "datarep") }?)?;
            let n = count_arg(outcount, "outcount")?;
            let ty = w.types.get(datatype)?;
            // SAFETY: null or a valid MPI_Aint pointer (caller).
            let pos = unsafe { out(position, "position") }?;
            let len = external_size(&ty, n)? as usize;
            let at = window(*pos, insize, len, "insize")?;
            if inbuf.is_null() && len > 0 {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as inbuf");
            }
            if outbuf.is_null() && n > 0 && ty.size() > 0 && ty.true_lb() == 0 {
                return fail(sys::MPI_ERR_BUFFER, "null outbuf");
            }
            let ext: &[u8] = if len == 0 {
                &[]
            } else {
                // SAFETY: [at, at + len) lies within the insize bytes of
                // inbuf (checked).
                unsafe { std::slice::from_raw_parts((inbuf as *const u8).add(at), len) }
            };
            let native = from_external(&ty, ext, n)?;
            // SAFETY: outbuf has room for outcount elements of datatype
            // (MPI's contract), not overlapping inbuf.
            ty.unpack(&native, unsafe { elems_mut(outbuf, &ty, n) }, n);
            *pos += len as MPI_Aint;
            Ok(())
        })
    }
}
