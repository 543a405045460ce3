//! Info objects: MPI_Info_create, MPI_Info_set, MPI_Info_get,
//! MPI_Info_get_valuelen, MPI_Info_get_nkeys, MPI_Info_get_nthkey,
//! MPI_Info_delete, MPI_Info_dup, MPI_Info_free, MPI_Info_get_string,
//! MPI_Info_create_env, and the entries of MPI_INFO_ENV.
//!
//! Every info call is local and works at any time (MPI-4: also before
//! MPI_Init and after MPI_Finalize, when an error just returns its class);
//! while MPI runs, errors go to the handler of MPI_COMM_WORLD, as in MPICH.
//! Argument checks in MPICH's order: info handle, key (MPI_ERR_INFO_KEY if
//! null, empty or over MPI_MAX_INFO_KEY characters), lengths, pointers.
use crate::abi::buffers::{input, out};
use crate::abi::state::{call, phase, RUNNING};
use crate::mpi::error::{fail, MpiError, MpiResult};
use crate::mpi::info::{self, infos, Info, InfoTable};
use crate::sys::{self, MPI_Info};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

/// The entries of MPI_INFO_ENV: the keys of MPI-4 section 11.2.3 whose
/// values the process knows from its start, the same before MPI_Init,
/// while MPI runs and after MPI_Finalize: `command` (argv[0] of the
/// program), `argv` (the other arguments, separated by blanks), `maxprocs`
/// (the ranks `mpirun` started), `host` (the host name), `arch` and `wdir`
/// (the working directory). `soft`, `file` and `thread_level` describe
/// requests made at launch that `mpirun` has no way to make, so they are
/// not set. (MPICH 4.0.2 leaves MPI_INFO_ENV empty.)
fn env_info() -> Info {
    let args: Vec<String> = crate::ranks::local::program_args()
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut pairs: Vec<(&str, String)> = Vec::new();
    if let Some(cmd) = args.first() {
        pairs.push(("command", cmd.clone()));
    }
    if args.len() > 1 {
        pairs.push(("argv", args[1..].join(" ")));
    }
    if let Ok(n) = std::env::var(crate::launch::job::ENV_SIZE) {
        pairs.push(("maxprocs", n));
    }
    pairs.push(("host", crate::abi::env::host_name()));
    pairs.push(("arch", std::env::consts::ARCH.to_string()));
    if let Ok(d) = std::env::current_dir() {
        pairs.push(("wdir", d.to_string_lossy().into_owned()));
    }
    // Values longer than MPI_MAX_INFO_VAL are cut (a very long command line).
    Info::from_pairs(pairs.into_iter().map(|(k, mut v)| {
        if v.len() > info::MAX_VAL {
            let mut end = info::MAX_VAL;
            while !v.is_char_boundary(end) {
                end -= 1;
            }
            v.truncate(end);
        }
        (k, v)
    }))
}

/// Run info call `name`: under the MPI state's lock while MPI runs (errors
/// through MPI_COMM_WORLD's handler), else directly (errors return their
/// class). `f` gets the info table with MPI_INFO_ENV up to date.
pub(crate) fn info_call(name: &str, f: impl FnOnce(&mut InfoTable) -> MpiResult<()>) -> c_int {
    if phase() == RUNNING {
        return call(name, sys::MPI_COMM_WORLD, |_| {
            let env = env_info();
            let mut t = infos();
            t.set_env(env);
            f(&mut t)
        });
    }
    let env = env_info();
    let mut t = infos();
    t.set_env(env);
    match f(&mut t) {
        Ok(()) => sys::MPI_SUCCESS,
        Err(e) => e.class,
    }
}

/// A key argument: a NUL-terminated string of 1 to MPI_MAX_INFO_KEY
/// characters.
///
/// # Safety
/// `key` is null or a NUL-terminated string.
pub(crate) unsafe fn key_arg(key: *const c_char) -> MpiResult<String> {
    if key.is_null() {
        return fail(sys::MPI_ERR_INFO_KEY, "null pointer passed as key");
    }
    // SAFETY: non-null and NUL-terminated (caller).
    let k = unsafe { CStr::from_ptr(key) }
        .to_string_lossy()
        .into_owned();
    info::check_key(&k)?;
    Ok(k)
}

/// Copy at most `cap - 1` bytes of `s` and a NUL into `dst` (MPICH's
/// MPL_strncpy with total length `cap`); true when `s` did not fit.
///
/// # Safety
/// `cap == 0` or `dst` has room for `cap` bytes.
unsafe fn copy_cut(dst: *mut c_char, cap: usize, s: &str) -> bool {
    if cap == 0 {
        return !s.is_empty();
    }
    let n = s.len().min(cap - 1);
    // SAFETY: n + 1 <= cap bytes within dst (caller); s is a distinct string.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr() as *const c_char, dst, n);
        dst.add(n).write(0);
    }
    n < s.len()
}

mpi_fn! {
    fn MPI_Info_create / PMPI_Info_create(info: *mut MPI_Info) -> c_int {
        info_call("MPI_Info_create", |t| {
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(info, "info") }?;
            *o = t.insert(Info::new());
            Ok(())
        })
    }
}

mpi_fn! {
    /// The entries of MPI_INFO_ENV in a new info object (argc and argv are
    /// not needed: the process knows its arguments).
    fn MPI_Info_create_env / PMPI_Info_create_env(_argc: c_int, _argv: *mut *mut c_char, info: *mut MPI_Info) -> c_int {
        info_call("MPI_Info_create_env", |t| {
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(info, "info") }?;
            *o = t.dup(sys::MPI_INFO_ENV)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Info_set / PMPI_Info_set(info: MPI_Info, key: *const c_char, value: *const c_char) -> c_int {
        info_call("MPI_Info_set", |t| {
            t.get(info)?;
            // SAFETY: null or a NUL-terminated string (caller).
            let k = unsafe { key_arg(key) }?;
            if value.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as value");
            }
            // SAFETY: non-null, NUL-terminated (caller).
            let v = unsafe { CStr::from_ptr(value) }.to_string_lossy();
            t.get_mut(info)?.set(&k, &v)
        })
    }
}

mpi_fn! {
    fn MPI_Info_delete / PMPI_Info_delete(info: MPI_Info, key: *const c_char) -> c_int {
        info_call("MPI_Info_delete", |t| {
            t.get(info)?;
            // SAFETY: null or a NUL-terminated string (caller).
            let k = unsafe { key_arg(key) }?;
            t.get_mut(info)?.delete(&k)
        })
    }
}

mpi_fn! {
    /// At most `valuelen` characters and a NUL are written; a longer value
    /// is cut there and, as in MPICH, the call then raises
    /// MPI_ERR_INFO_VALUE (with `flag` set and the cut value written).
    fn MPI_Info_get / PMPI_Info_get(info: MPI_Info, key: *const c_char, valuelen: c_int, value: *mut c_char, flag: *mut c_int) -> c_int {
        info_call("MPI_Info_get", |t| {
            let i = t.get(info)?;
            // SAFETY: null or a NUL-terminated string (caller).
            let k = unsafe { key_arg(key) }?;
            if valuelen < 0 {
                return fail(sys::MPI_ERR_ARG, format!("invalid valuelen {valuelen} (negative)"));
            }
            if valuelen > 0 && value.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as value");
            }
            // SAFETY: null or a valid int pointer (caller).
            let f = unsafe { out(flag, "flag") }?;
            *f = 0;
            let Some(v) = i.get(&k) else { return Ok(()) };
            *f = 1;
            // SAFETY: value has room for valuelen + 1 chars (MPI's contract).
            if unsafe { copy_cut(value, valuelen as usize + 1, v) } {
                return Err(MpiError::new(
                    sys::MPI_ERR_INFO_VALUE,
                    format!(
                        "the value of \"{k}\" has {} characters, more than valuelen {valuelen}: \
                         it was cut",
                        v.len()
                    ),
                ));
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Info_get_valuelen / PMPI_Info_get_valuelen(info: MPI_Info, key: *const c_char, valuelen: *mut c_int, flag: *mut c_int) -> c_int {
        info_call("MPI_Info_get_valuelen", |t| {
            let i = t.get(info)?;
            // SAFETY: null or a NUL-terminated string (caller).
            let k = unsafe { key_arg(key) }?;
            // SAFETY: null or valid int pointers (caller).
            let (l, f) = unsafe { (out(valuelen, "valuelen")?, out(flag, "flag")?) };
            match i.get(&k) {
                Some(v) => {
                    *l = v.len() as c_int;
                    *f = 1;
                }
                None => *f = 0,
            }
            Ok(())
        })
    }
}

mpi_fn! {
    /// MPI-4: `*buflen` in is the room at `value` (NUL included), out the
    /// room the value needs; the value is cut to fit (no error).
    fn MPI_Info_get_string / PMPI_Info_get_string(info: MPI_Info, key: *const c_char, buflen: *mut c_int, value: *mut c_char, flag: *mut c_int) -> c_int {
        info_call("MPI_Info_get_string", |t| {
            let i = t.get(info)?;
            // SAFETY: null or a NUL-terminated string (caller).
            let k = unsafe { key_arg(key) }?;
            // SAFETY: null or a valid int pointer (caller).
            let b = unsafe { out(buflen, "buflen") }?;
            if *b < 0 {
                return fail(sys::MPI_ERR_ARG, format!("invalid *buflen {} (negative)", *b));
            }
            if value.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as value");
            }
            // SAFETY: null or a valid int pointer (caller).
            let f = unsafe { out(flag, "flag") }?;
            *f = 0;
            if let Some(v) = i.get(&k) {
                // SAFETY: value has room for *buflen chars (MPI's contract).
                unsafe { copy_cut(value, *b as usize, v) };
                *b = v.len() as c_int + 1;
                *f = 1;
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Info_get_nkeys / PMPI_Info_get_nkeys(info: MPI_Info, nkeys: *mut c_int) -> c_int {
        info_call("MPI_Info_get_nkeys", |t| {
            let n = t.get(info)?.nkeys();
            // SAFETY: null or a valid int pointer (caller).
            *unsafe { out(nkeys, "nkeys") }? = n as c_int;
            Ok(())
        })
    }
}

mpi_fn! {
    /// As in MPICH, at most MPI_MAX_INFO_KEY characters are written, the
    /// NUL included (a key of MPI_MAX_INFO_KEY characters loses its last
    /// one), so `char key[MPI_MAX_INFO_KEY]` is enough.
    fn MPI_Info_get_nthkey / PMPI_Info_get_nthkey(info: MPI_Info, n: c_int, key: *mut c_char) -> c_int {
        info_call("MPI_Info_get_nthkey", |t| {
            let i = t.get(info)?;
            if n < 0 {
                return fail(sys::MPI_ERR_ARG, format!("invalid key index {n} (negative)"));
            }
            if key.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as key");
            }
            let k = i.nthkey(n)?;
            // SAFETY: key has room for MPI_MAX_INFO_KEY chars (MPI's contract).
            unsafe { copy_cut(key, info::MAX_KEY, k) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Info_dup / PMPI_Info_dup(info: MPI_Info, newinfo: *mut MPI_Info) -> c_int {
        info_call("MPI_Info_dup", |t| {
            t.get(info)?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(newinfo, "newinfo") }?;
            *o = t.dup(info)?;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Info_free / PMPI_Info_free(info: *mut MPI_Info) -> c_int {
        info_call("MPI_Info_free", |t| {
            // SAFETY: null or a valid handle pointer (caller).
            let h = *unsafe { input(info, "info") }?;
            t.free(h)?;
            // SAFETY: read above, so valid for writing too (caller's contract).
            unsafe { info.write(sys::MPI_INFO_NULL) };
            Ok(())
        })
    }
}
