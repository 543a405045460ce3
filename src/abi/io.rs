//! MPI-IO calls that manage files (MPI_File_open / close / delete, views,
//! sizes, hints, atomicity, positions, groups, error handlers, handle
//! conversion, MPI_Register_datarep): argument checking and handles; the
//! semantics are in `crate::io`. Errors go to the file's error handler
//! (MPI_FILE_NULL's for open, delete and invalid handles), whose default
//! is MPI_ERRORS_RETURN.
use crate::abi::buffers::{out, put_cstr};
use crate::abi::state::{call, raise_through};
use crate::mpi::errhandler::{FileFn, UserFn};
use crate::mpi::error::{code_class, fail, MpiError, MpiResult};
use crate::mpi::info::{with_infos, Info};
use crate::mpi::World;
use crate::sys::{
    self, MPI_Aint, MPI_Datatype, MPI_Errhandler, MPI_File, MPI_Fint, MPI_Info, MPI_Offset,
};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};

/// Run `f` as MPI call `name` on file `fh`: an error goes to the file's
/// error handler.
pub(crate) fn file_call(
    name: &str,
    fh: MPI_File,
    f: impl FnOnce(&mut World) -> MpiResult<()>,
) -> c_int {
    let mut rc = sys::MPI_SUCCESS;
    let r = call(name, sys::MPI_COMM_WORLD, |w| {
        if let Err(e) = f(w) {
            let eh = w.io.errhandler(fh);
            rc = raise_through(w, eh, fh, name, &e);
        }
        Ok(())
    });
    if r != sys::MPI_SUCCESS {
        r
    } else {
        rc
    }
}

/// A C string argument.
///
/// # Safety
/// `p` is null or a NUL-terminated string.
pub(crate) unsafe fn c_string(p: *const c_char, what: &str) -> MpiResult<String> {
    if p.is_null() {
        return fail(sys::MPI_ERR_ARG, format!("null pointer passed as {what}"));
    }
    // SAFETY: non-null and NUL-terminated (contract).
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

fn info_of(info: MPI_Info) -> MpiResult<Info> {
    if info == sys::MPI_INFO_NULL {
        return Ok(Info::new());
    }
    with_infos(|t| t.get(info).cloned())
}

mpi_fn! {
    fn MPI_File_open / PMPI_File_open(comm: sys::MPI_Comm, filename: *const c_char, amode: c_int, info: MPI_Info, fh: *mut MPI_File) -> c_int {
        file_call("MPI_File_open", sys::MPI_FILE_NULL, |w| {
            // SAFETY: the caller's string.
            let name = unsafe { c_string(filename, "filename") }?;
            let hints = info_of(info)?;
            // SAFETY: null or a valid handle pointer.
            let o = unsafe { out(fh, "fh") }?;
            *o = sys::MPI_FILE_NULL;
            *o = w.file_open(comm, &name, amode, hints)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_File_close / PMPI_File_close(fh: *mut MPI_File) -> c_int {
        // SAFETY: a null pointer is refused below.
        let h = if fh.is_null() { sys::MPI_FILE_NULL } else { unsafe { *fh } };
        file_call("MPI_File_close", h, |w| {
            // SAFETY: null or a valid handle pointer.
            let o = unsafe { out(fh, "fh") }?;
            w.file_close(*o)?;
            *o = sys::MPI_FILE_NULL;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_File_delete / PMPI_File_delete(filename: *const c_char, info: MPI_Info) -> c_int {
        file_call("MPI_File_delete", sys::MPI_FILE_NULL, |w| {
            // SAFETY: the caller's string.
            let name = unsafe { c_string(filename, "filename") }?;
            info_of(info)?;
            w.file_delete(&name)
        })
    }
}

mpi_fn! {
    fn MPI_File_set_size / PMPI_File_set_size(fh: MPI_File, size: MPI_Offset) -> c_int {
        file_call("MPI_File_set_size", fh, |w| {
            w.file_no_split(fh)?;
            w.file_resize(fh, size, false)
        })
    }
}

mpi_fn! {
    fn MPI_File_preallocate / PMPI_File_preallocate(fh: MPI_File, size: MPI_Offset) -> c_int {
        file_call("MPI_File_preallocate", fh, |w| {
            w.file_no_split(fh)?;
            w.file_resize(fh, size, true)
        })
    }
}

mpi_fn! {
    fn MPI_File_get_size / PMPI_File_get_size(fh: MPI_File, size: *mut MPI_Offset) -> c_int {
        file_call("MPI_File_get_size", fh, |w| {
            let n = w.file_size(fh)?;
            // SAFETY: null or valid.
            *unsafe { out(size, "size") }? = n as MPI_Offset;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_File_get_group / PMPI_File_get_group(fh: MPI_File, group: *mut sys::MPI_Group) -> c_int {
        file_call("MPI_File_get_group", fh, |w| {
            // SAFETY: null or valid.
            let o = unsafe { out(group, "group") }?;
            *o = w.file_group(fh)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_File_get_amode / PMPI_File_get_amode(fh: MPI_File, amode: *mut c_int) -> c_int {
        file_call("MPI_File_get_amode", fh, |w| {
            let a = w.io.get(fh)?.amode;
            // SAFETY: null or valid.
            *unsafe { out(amode, "amode") }? = a;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_File_set_info / PMPI_File_set_info(fh: MPI_File, info: MPI_Info) -> c_int {
        file_call("MPI_File_set_info", fh, |w| {
            let i = info_of(info)?;
            w.file_set_info(fh, &i)
        })
    }
}

mpi_fn! {
    fn MPI_File_get_info / PMPI_File_get_info(fh: MPI_File, info_used: *mut MPI_Info) -> c_int {
        file_call("MPI_File_get_info", fh, |w| {
            let i = w.file_get_info(fh)?;
            // SAFETY: null or valid.
            let o = unsafe { out(info_used, "info_used") }?;
            *o = with_infos(|t| t.insert(i));
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_File_set_view / PMPI_File_set_view(fh: MPI_File, disp: MPI_Offset, etype: MPI_Datatype, filetype: MPI_Datatype, datarep: *const c_char, info: MPI_Info) -> c_int {
        file_call("MPI_File_set_view", fh, |w| {
            w.io.get(fh)?;
            // SAFETY: the caller's string.
            let rep = unsafe { c_string(datarep, "datarep") }?;
            let i = info_of(info)?;
            w.file_set_view(fh, disp, etype, filetype, &rep, &i)
        })
    }
}

/// A datatype handle for the program: predefined ones as they are,
/// derived ones as a new duplicate (which the program frees).
fn view_type(w: &mut World, h: MPI_Datatype) -> MpiResult<MPI_Datatype> {
    if w.types.is_predefined(h) {
        return Ok(h);
    }
    let r = w.types.get_ref(h)?;
    let t = crate::mpi::typemap::dup(&r);
    w.types.insert(t, true)
}

mpi_fn! {
    fn MPI_File_get_view / PMPI_File_get_view(fh: MPI_File, disp: *mut MPI_Offset, etype: *mut MPI_Datatype, filetype: *mut MPI_Datatype, datarep: *mut c_char) -> c_int {
        file_call("MPI_File_get_view", fh, |w| {
            let v = w.io.get(fh)?.view.clone();
            // SAFETY: null or valid out-arguments (contract).
            unsafe {
                *out(disp, "disp")? = v.disp as MPI_Offset;
                if datarep.is_null() {
                    return fail(sys::MPI_ERR_ARG, "null pointer passed as datarep");
                }
                put_cstr(datarep, sys::MPI_MAX_DATAREP_STRING as usize, v.datarep.name());
            }
            let e = view_type(w, v.etype_h)?;
            let f = view_type(w, v.filetype_h)?;
            // SAFETY: null or valid out-arguments (contract).
            unsafe {
                *out(etype, "etype")? = e;
                *out(filetype, "filetype")? = f;
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_File_seek / PMPI_File_seek(fh: MPI_File, offset: MPI_Offset, whence: c_int) -> c_int {
        file_call("MPI_File_seek", fh, |w| w.file_seek(fh, offset, whence))
    }
}

mpi_fn! {
    fn MPI_File_get_position / PMPI_File_get_position(fh: MPI_File, offset: *mut MPI_Offset) -> c_int {
        file_call("MPI_File_get_position", fh, |w| {
            let f = w.io.get(fh)?;
            if f.amode & sys::MPI_MODE_SEQUENTIAL != 0 {
                return fail(
                    sys::MPI_ERR_UNSUPPORTED_OPERATION,
                    "no individual file pointer with MPI_MODE_SEQUENTIAL",
                );
            }
            let p = f.fp;
            // SAFETY: null or valid.
            *unsafe { out(offset, "offset") }? = p as MPI_Offset;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_File_get_byte_offset / PMPI_File_get_byte_offset(fh: MPI_File, offset: MPI_Offset, disp: *mut MPI_Offset) -> c_int {
        file_call("MPI_File_get_byte_offset", fh, |w| {
            let b = w.file_byte_offset(fh, offset)?;
            // SAFETY: null or valid.
            *unsafe { out(disp, "disp") }? = b as MPI_Offset;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_File_seek_shared / PMPI_File_seek_shared(fh: MPI_File, offset: MPI_Offset, whence: c_int) -> c_int {
        file_call("MPI_File_seek_shared", fh, |w| {
            w.file_no_split(fh)?;
            w.file_seek_shared(fh, offset, whence)
        })
    }
}

mpi_fn! {
    fn MPI_File_get_position_shared / PMPI_File_get_position_shared(fh: MPI_File, offset: *mut MPI_Offset) -> c_int {
        file_call("MPI_File_get_position_shared", fh, |w| {
            let p = w.file_position_shared(fh)?;
            // SAFETY: null or valid.
            *unsafe { out(offset, "offset") }? = p as MPI_Offset;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_File_get_type_extent / PMPI_File_get_type_extent(fh: MPI_File, datatype: MPI_Datatype, extent: *mut MPI_Aint) -> c_int {
        file_call("MPI_File_get_type_extent", fh, |w| {
            let e = w.file_type_extent(fh, datatype)?;
            // SAFETY: null or valid.
            *unsafe { out(extent, "extent") }? = e as MPI_Aint;
            Ok(())
        })
    }
}

mpi_fn! {
    /// User data representations are not supported: a new name is
    /// MPI_ERR_UNSUPPORTED_DATAREP, a name in use (native, internal,
    /// external32) MPI_ERR_DUP_DATAREP, as MPICH classes them.
    fn MPI_Register_datarep / PMPI_Register_datarep(datarep: *const c_char, read_conversion_fn: sys::MPI_Datarep_conversion_function, write_conversion_fn: sys::MPI_Datarep_conversion_function, dtype_file_extent_fn: sys::MPI_Datarep_extent_function, extra_state: *mut c_void) -> c_int {
        let _ = (read_conversion_fn, write_conversion_fn, extra_state);
        file_call("MPI_Register_datarep", sys::MPI_FILE_NULL, |_| {
            // SAFETY: the caller's string.
            let name = unsafe { c_string(datarep, "datarep") }?;
            if crate::io::view::Datarep::parse(&name).is_ok() {
                return fail(
                    sys::MPI_ERR_DUP_DATAREP,
                    format!("data representation \"{name}\" is already defined"),
                );
            }
            if dtype_file_extent_fn.is_none() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as dtype_file_extent_fn");
            }
            fail(
                sys::MPI_ERR_UNSUPPORTED_DATAREP,
                format!(
                    "user data representations are not supported by vaced (\"{name}\"): \
                     use \"native\", \"internal\" or \"external32\""
                ),
            )
        })
    }
}

mpi_fn! {
    fn MPI_File_set_atomicity / PMPI_File_set_atomicity(fh: MPI_File, flag: c_int) -> c_int {
        file_call("MPI_File_set_atomicity", fh, |w| w.file_set_atomicity(fh, flag != 0))
    }
}

mpi_fn! {
    fn MPI_File_get_atomicity / PMPI_File_get_atomicity(fh: MPI_File, flag: *mut c_int) -> c_int {
        file_call("MPI_File_get_atomicity", fh, |w| {
            let a = w.io.get(fh)?.atomic;
            // SAFETY: null or valid.
            *unsafe { out(flag, "flag") }? = a as c_int;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_File_sync / PMPI_File_sync(fh: MPI_File) -> c_int {
        file_call("MPI_File_sync", fh, |w| {
            w.file_no_split(fh)?;
            w.file_sync(fh)
        })
    }
}

mpi_fn! {
    fn MPI_File_create_errhandler / PMPI_File_create_errhandler(file_errhandler_fn: FileFn, errhandler: *mut MPI_Errhandler) -> c_int {
        call("MPI_File_create_errhandler", sys::MPI_COMM_WORLD, |w| {
            if file_errhandler_fn.is_none() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as the handler function");
            }
            // SAFETY: null or valid.
            let o = unsafe { out(errhandler, "errhandler") }?;
            *o = w.errhandlers.create(UserFn::File(file_errhandler_fn))?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_File_set_errhandler / PMPI_File_set_errhandler(file: MPI_File, errhandler: MPI_Errhandler) -> c_int {
        file_call("MPI_File_set_errhandler", file, |w| w.file_set_errhandler(file, errhandler))
    }
}

mpi_fn! {
    fn MPI_File_get_errhandler / PMPI_File_get_errhandler(file: MPI_File, errhandler: *mut MPI_Errhandler) -> c_int {
        file_call("MPI_File_get_errhandler", file, |w| {
            let eh = w.file_get_errhandler(file)?;
            // SAFETY: null or valid.
            *unsafe { out(errhandler, "errhandler") }? = eh;
            Ok(())
        })
    }
}

mpi_fn! {
    /// Invokes the file's handler with `errorcode`; MPI_SUCCESS once it
    /// returns (or MPI_ERRORS_RETURN), as MPICH.
    fn MPI_File_call_errhandler / PMPI_File_call_errhandler(fh: MPI_File, errorcode: c_int) -> c_int {
        let name = "MPI_File_call_errhandler";
        let rc = call(name, sys::MPI_COMM_WORLD, |w| {
            if fh != sys::MPI_FILE_NULL {
                w.io.get(fh)?;
            }
            if code_class(errorcode).is_none() {
                return fail(sys::MPI_ERR_ARG, format!("invalid error code {errorcode}"));
            }
            let eh = w.io.errhandler(fh);
            let e = MpiError::new(errorcode, format!("the program raised error code {errorcode} on this file"));
            raise_through(w, eh, fh, name, &e);
            Ok(())
        });
        rc
    }
}

mpi_fn! {
    fn MPI_File_c2f / PMPI_File_c2f(file: MPI_File) -> MPI_Fint {
        file
    }
}

mpi_fn! {
    fn MPI_File_f2c / PMPI_File_f2c(file: MPI_Fint) -> MPI_File {
        file
    }
}
