//! Attribute caching: MPI_Comm_create_keyval / free_keyval, MPI_Comm_set_attr
//! / get_attr / delete_attr, their deprecated MPI-1 names (MPI_Keyval_create,
//! MPI_Keyval_free, MPI_Attr_put, MPI_Attr_get, MPI_Attr_delete), and the
//! predefined copy function MPI_COMM_DUP_FN (MPIR_Dup_fn).
use crate::abi::buffers::out;
use crate::abi::obj_attr::{self, create_keyval, delete_attr, free_keyval, Kind};
use crate::abi::state::call;
use crate::mpi::attr::{CopyFn, Found, NewValue, Seen, PREDEFINED};
use crate::mpi::error::fail;
use crate::sys::{self, MPI_Comm};
use std::os::raw::{c_int, c_void};

/// The ints the predefined attributes point to.
static PREDEFINED_VALUES: [c_int; 6] = [
    PREDEFINED[0].1,
    PREDEFINED[1].1,
    PREDEFINED[2].1,
    PREDEFINED[3].1,
    PREDEFINED[4].1,
    PREDEFINED[5].1,
];

/// The int MPI_UNIVERSE_SIZE points to: the job's size, set when read.
static UNIVERSE_SIZE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// MPI_COMM_DUP_FN / MPI_DUP_FN: the new attribute is the old value.
///
/// # Safety
/// `attribute_val_out` points to a `void *` and `flag` to an int (as when
/// MPI_Comm_dup calls it).
#[no_mangle]
pub unsafe extern "C" fn MPIR_Dup_fn(
    _oldcomm: MPI_Comm,
    _keyval: c_int,
    _extra_state: *mut c_void,
    attribute_val_in: *mut c_void,
    attribute_val_out: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    // SAFETY: by the contract above.
    unsafe {
        (attribute_val_out as *mut *mut c_void).write(attribute_val_in);
        flag.write(1);
    }
    sys::MPI_SUCCESS
}

// MPIR_Dup_fn has the type of a copy callback.
const _: CopyFn = Some(MPIR_Dup_fn);

/// MPI_Comm_set_attr and MPI_Attr_put (also from Fortran): the steps
/// every object kind shares (`abi::obj_attr`).
pub(crate) fn set_attr(name: &str, comm: MPI_Comm, v: NewValue) -> c_int {
    obj_attr::set_attr(Kind::Comm, name, comm, v)
}

/// What MPI_Comm_get_attr finds, as both languages see it (a predefined
/// attribute: C a pointer to its int, Fortran the int).
fn find(w: &crate::mpi::World, comm: MPI_Comm, kv: c_int) -> crate::mpi::error::MpiResult<Found> {
    if kv == sys::MPI_LASTUSEDCODE {
        // the one predefined attribute whose value changes
        w.comms.get(comm)?;
        let p = crate::mpi::errcodes::LAST_USED.get().as_ptr();
        return Ok(Found::User(Seen {
            c: p as usize,
            fortran: crate::mpi::errcodes::LAST_USED
                .get()
                .load(std::sync::atomic::Ordering::Relaxed) as isize,
        }));
    }
    w.comms.get_attr(comm, kv)
}

/// MPI_COMM_GET_ATTR from Fortran: (return code, the integer if set).
pub(crate) fn get_attr_fortran(
    name: &str,
    comm: MPI_Comm,
    kv: c_int,
) -> (c_int, Option<sys::MPI_Aint>) {
    let mut got = None;
    let rc = call(name, comm, |w| {
        got = match find(w, comm, kv)? {
            Found::Absent => None,
            Found::Predefined(i) if PREDEFINED[i].0 == sys::MPI_UNIVERSE_SIZE => {
                Some(w.ep.size() as sys::MPI_Aint)
            }
            Found::Predefined(i) => Some(PREDEFINED[i].1 as sys::MPI_Aint),
            Found::User(seen) => Some(seen.fortran as sys::MPI_Aint),
        };
        Ok(())
    });
    (rc, got)
}

/// MPI_Comm_get_attr: `attribute_val` receives the value (a pointer to an
/// int for the predefined attributes).
fn get_attr(
    name: &str,
    comm: MPI_Comm,
    kv: c_int,
    attribute_val: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    call(name, comm, |w| {
        let found = find(w, comm, kv)?;
        // SAFETY: null or a valid int pointer (caller).
        let f = unsafe { out(flag, "flag") }?;
        let value: *mut c_void = match found {
            Found::Absent => {
                *f = 0;
                return Ok(());
            }
            Found::Predefined(i) if PREDEFINED[i].0 == sys::MPI_UNIVERSE_SIZE => {
                let n = w.ep.size() as c_int;
                UNIVERSE_SIZE.store(n, std::sync::atomic::Ordering::Relaxed);
                UNIVERSE_SIZE.as_ptr() as *mut c_void
            }
            Found::Predefined(i) => &PREDEFINED_VALUES[i] as *const c_int as *mut c_void,
            Found::User(seen) => seen.c as *mut c_void,
        };
        if attribute_val.is_null() {
            return fail(sys::MPI_ERR_ARG, "null pointer passed as attribute_val");
        }
        // SAFETY: MPI's contract: attribute_val points to a void * to fill.
        unsafe { (attribute_val as *mut *mut c_void).write(value) };
        *f = 1;
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Comm_create_keyval / PMPI_Comm_create_keyval(
        comm_copy_attr_fn: sys::MPI_Comm_copy_attr_function,
        comm_delete_attr_fn: sys::MPI_Comm_delete_attr_function,
        comm_keyval: *mut c_int,
        extra_state: *mut c_void,
    ) -> c_int {
        create_keyval(Kind::Comm, "MPI_Comm_create_keyval", comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state)
    }
}

mpi_fn! {
    fn MPI_Keyval_create / PMPI_Keyval_create(
        copy_fn: sys::MPI_Copy_function,
        delete_fn: sys::MPI_Delete_function,
        keyval: *mut c_int,
        extra_state: *mut c_void,
    ) -> c_int {
        create_keyval(Kind::Comm, "MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state)
    }
}

mpi_fn! {
    fn MPI_Comm_free_keyval / PMPI_Comm_free_keyval(comm_keyval: *mut c_int) -> c_int {
        free_keyval(Kind::Comm, "MPI_Comm_free_keyval", comm_keyval)
    }
}

mpi_fn! {
    fn MPI_Keyval_free / PMPI_Keyval_free(keyval: *mut c_int) -> c_int {
        free_keyval(Kind::Comm, "MPI_Keyval_free", keyval)
    }
}

mpi_fn! {
    fn MPI_Comm_set_attr / PMPI_Comm_set_attr(comm: MPI_Comm, comm_keyval: c_int, attribute_val: *mut c_void) -> c_int {
        set_attr("MPI_Comm_set_attr", comm, NewValue::pointer(comm_keyval, attribute_val as usize))
    }
}

mpi_fn! {
    fn MPI_Attr_put / PMPI_Attr_put(comm: MPI_Comm, keyval: c_int, attribute_val: *mut c_void) -> c_int {
        set_attr("MPI_Attr_put", comm, NewValue::pointer(keyval, attribute_val as usize))
    }
}

mpi_fn! {
    fn MPI_Comm_get_attr / PMPI_Comm_get_attr(comm: MPI_Comm, comm_keyval: c_int, attribute_val: *mut c_void, flag: *mut c_int) -> c_int {
        get_attr("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag)
    }
}

mpi_fn! {
    fn MPI_Attr_get / PMPI_Attr_get(comm: MPI_Comm, keyval: c_int, attribute_val: *mut c_void, flag: *mut c_int) -> c_int {
        get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag)
    }
}

mpi_fn! {
    fn MPI_Comm_delete_attr / PMPI_Comm_delete_attr(comm: MPI_Comm, comm_keyval: c_int) -> c_int {
        delete_attr(Kind::Comm, "MPI_Comm_delete_attr", comm, comm_keyval)
    }
}

mpi_fn! {
    fn MPI_Attr_delete / PMPI_Attr_delete(comm: MPI_Comm, keyval: c_int) -> c_int {
        delete_attr(Kind::Comm, "MPI_Attr_delete", comm, keyval)
    }
}
