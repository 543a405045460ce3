//! The MPI tools interface entry points (MPI_T_*, C only): argument checks,
//! handle and string conversion over the registry and state of
//! [`crate::mpit`]. MPI_T calls return their MPI_T_ERR_* class directly
//! (error handlers do not apply) and work before MPI_Init and after
//! MPI_Finalize. Performance variables are read from this rank's engine
//! (counters, virtual clock and breakdown) at each call; reading them is
//! local: it charges the computation since the last MPI call like any call
//! does, and moves no message.
use crate::abi::state::{lock, phase, UNINIT};
use crate::mpit::pvars::{one_handle, Snapshot};
use crate::mpit::{self, categories, enum_handle, state, string_out, PvarHandle, State, TResult};
use crate::sys::MPI_T_pvar_session;
use crate::sys::{self, MPI_Datatype, MPI_T_cvar_handle, MPI_T_enum, MPI_T_pvar_handle};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};

/// Run an MPI_T call's body on the interface's state.
fn t_call(f: impl FnOnce(&mut State) -> TResult<()>) -> c_int {
    match f(&mut state()) {
        Ok(()) => sys::MPI_SUCCESS,
        Err(class) => class,
    }
}

/// The current raw values of the performance variables: zeros before
/// MPI_Init, the final ones after MPI_Finalize.
fn snapshot() -> Snapshot {
    if phase() == UNINIT {
        return Snapshot::default();
    }
    let mut g = lock();
    let Some(w) = g.0.as_mut() else {
        return Snapshot::default();
    };
    let running = w.running();
    if running {
        w.ep.enter_call("MPI_T_pvar");
    }
    let b = w.ep.breakdown();
    let s = Snapshot {
        msgs_sent: w.ep.counters.msgs_sent,
        bytes_sent: w.ep.counters.bytes_sent,
        decisions: w.ep.counters.decisions,
        vtime_ps: w.ep.vtime().ps(),
        compute_ps: b.compute.ps(),
        comm_ps: b.comm.ps(),
        wait_ps: b.wait.ps(),
    };
    if running {
        w.ep.leave();
    }
    s
}

const INVALID: c_int = sys::MPI_T_ERR_INVALID;

/// Store `v` at `p` unless it is null (optional outputs).
///
/// # Safety
/// `p` is null or valid for a write of T.
unsafe fn put<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: non-null and valid (contract).
        unsafe { p.write(v) };
    }
}

/// Store `v` at `p`, a required output.
///
/// # Safety
/// `p` is null or valid for a write of T.
unsafe fn put_req<T>(p: *mut T, v: T) -> TResult<()> {
    if p.is_null() {
        return Err(INVALID);
    }
    // SAFETY: non-null and valid (contract).
    unsafe { p.write(v) };
    Ok(())
}

/// An MPI_T string output: `len` is the buffer's size on input (nothing is
/// stored when it is null), the length with the terminator on output.
///
/// # Safety
/// `len` is null or a valid int; `buf` is null or holds `*len` chars.
unsafe fn put_str(buf: *mut c_char, len: *mut c_int, s: &str) {
    if len.is_null() {
        return;
    }
    // SAFETY: non-null int pointer (contract).
    let cap = unsafe { *len };
    let (n, l) = string_out(s, !buf.is_null(), cap);
    if let Some(n) = n {
        // SAFETY: n + 1 <= cap chars at buf (contract); distinct source.
        unsafe {
            std::ptr::copy_nonoverlapping(s.as_ptr() as *const c_char, buf, n);
            buf.add(n).write(0);
        }
    }
    // SAFETY: as above.
    unsafe { len.write(l) };
}

/// A name argument.
///
/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn name_in<'a>(p: *const c_char) -> TResult<&'a CStr> {
    if p.is_null() {
        return Err(INVALID);
    }
    // SAFETY: non-null, NUL-terminated (contract).
    Ok(unsafe { CStr::from_ptr(p) })
}

/// Copy an index list (at most `len` entries) to `out`.
///
/// # Safety
/// `out` is null or holds `len` ints.
unsafe fn put_indices(list: &[c_int], len: c_int, out: *mut c_int) -> TResult<()> {
    if len < 0 {
        return Err(INVALID);
    }
    let n = list.len().min(len as usize);
    if n > 0 && out.is_null() {
        return Err(INVALID);
    }
    for (i, &v) in list.iter().take(n).enumerate() {
        // SAFETY: i < n <= len ints at out (contract).
        unsafe { out.add(i).write(v) };
    }
    Ok(())
}

fn as_handle<T>(h: usize) -> *mut T {
    h as *mut T
}

/// The session a handle value names.
fn session(s: &State, h: MPI_T_pvar_session) -> TResult<usize> {
    let h = h as usize;
    if s.sessions.contains_key(&h) {
        Ok(h)
    } else {
        Err(sys::MPI_T_ERR_INVALID_SESSION)
    }
}

/// The pvar handles a call in `session` applies to: `h`, or all of the
/// session's with MPI_T_PVAR_ALL_HANDLES.
fn handles(s: &State, session: usize, h: MPI_T_pvar_handle) -> TResult<Vec<usize>> {
    let h = h as usize;
    if h == mpit::ALL_HANDLES {
        return Ok(s.sessions[&session].clone());
    }
    match s.pvar_handles.get(&h) {
        Some(p) if p.session == session => Ok(vec![h]),
        _ => Err(sys::MPI_T_ERR_INVALID_HANDLE),
    }
}

/// Apply `f` to the pvar handles `h` of `session`, with the variables'
/// current values.
fn on_handles(
    session_h: MPI_T_pvar_session,
    h: MPI_T_pvar_handle,
    f: impl Fn(&mut PvarHandle, u64),
) -> c_int {
    let snap = snapshot();
    t_call(|s| {
        s.registry()?;
        let se = session(s, session_h)?;
        for h in handles(s, se, h)? {
            let p = s.pvar_handles.get_mut(&h).expect("a live handle");
            f(p, snap.get(p.pvar));
        }
        Ok(())
    })
}

// ---- initialization -----------------------------------------------------

mpi_fn! {
    fn MPI_T_init_thread / PMPI_T_init_thread(required: c_int, provided: *mut c_int) -> c_int {
        t_call(|s| {
            if !(sys::MPI_THREAD_SINGLE..=sys::MPI_THREAD_MULTIPLE).contains(&required) {
                return Err(INVALID);
            }
            if provided.is_null() {
                return Err(INVALID);
            }
            s.init()?;
            // The interface's state is behind a lock: any level is safe,
            // but in the many-ranks mode a rank has no threads of its own
            // (at most MPI_THREAD_SERIALIZED, as MPI_Init_thread).
            let level = if crate::ranks::local::hosted() {
                required.min(sys::MPI_THREAD_SERIALIZED)
            } else {
                required
            };
            // SAFETY: checked non-null int pointer (caller).
            unsafe { provided.write(level) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_finalize / PMPI_T_finalize() -> c_int {
        t_call(|s| s.finalize())
    }
}

// ---- enumerations -------------------------------------------------------

mpi_fn! {
    fn MPI_T_enum_get_info / PMPI_T_enum_get_info(enumtype: MPI_T_enum, num: *mut c_int, name: *mut c_char, name_len: *mut c_int) -> c_int {
        t_call(|s| {
            let e = s.registry()?.enum_type(enumtype as usize)?;
            // SAFETY: valid or null pointers (caller).
            unsafe {
                put_req(num, e.items.len() as c_int)?;
                put_str(name, name_len, &e.name);
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_enum_get_item / PMPI_T_enum_get_item(enumtype: MPI_T_enum, index: c_int, value: *mut c_int, name: *mut c_char, name_len: *mut c_int) -> c_int {
        t_call(|s| {
            let e = s.registry()?.enum_type(enumtype as usize)?;
            let (n, v) = usize::try_from(index)
                .ok()
                .and_then(|i| e.items.get(i))
                .ok_or(sys::MPI_T_ERR_INVALID_ITEM)?;
            // SAFETY: valid or null pointers (caller).
            unsafe {
                put_req(value, *v)?;
                put_str(name, name_len, n);
            }
            Ok(())
        })
    }
}

// ---- control variables --------------------------------------------------

mpi_fn! {
    fn MPI_T_cvar_get_num / PMPI_T_cvar_get_num(num_cvar: *mut c_int) -> c_int {
        t_call(|s| {
            let n = s.registry()?.cvars.len() as c_int;
            // SAFETY: valid or null int pointer (caller).
            unsafe { put_req(num_cvar, n) }
        })
    }
}

mpi_fn! {
    fn MPI_T_cvar_get_info / PMPI_T_cvar_get_info(cvar_index: c_int, name: *mut c_char, name_len: *mut c_int, verbosity: *mut c_int, datatype: *mut MPI_Datatype, enumtype: *mut MPI_T_enum, desc: *mut c_char, desc_len: *mut c_int, bind: *mut c_int, scope: *mut c_int) -> c_int {
        t_call(|s| {
            let c = s.registry()?.cvar(cvar_index)?;
            // SAFETY: valid or null pointers (caller).
            unsafe {
                put_str(name, name_len, &c.name);
                put(verbosity, c.verbosity);
                put(datatype, c.value.datatype());
                put(enumtype, as_handle(c.enumtype.map_or(0, enum_handle)));
                put_str(desc, desc_len, &c.desc);
                put(bind, c.bind());
                put(scope, c.scope());
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_cvar_get_index / PMPI_T_cvar_get_index(name: *const c_char, cvar_index: *mut c_int) -> c_int {
        t_call(|s| {
            let r = s.registry()?;
            // SAFETY: a C string (caller).
            let n = unsafe { name_in(name) }?;
            let i = r
                .cvars
                .iter()
                .position(|c| c.name.as_bytes() == n.to_bytes())
                .ok_or(sys::MPI_T_ERR_INVALID_NAME)?;
            // SAFETY: valid or null int pointer (caller).
            unsafe { put_req(cvar_index, i as c_int) }
        })
    }
}

mpi_fn! {
    fn MPI_T_cvar_handle_alloc / PMPI_T_cvar_handle_alloc(cvar_index: c_int, obj_handle: *mut c_void, handle: *mut MPI_T_cvar_handle, count: *mut c_int) -> c_int {
        let _ = obj_handle; // every variable is bound to no object
        t_call(|s| {
            let c = s.registry()?.cvar(cvar_index)?;
            if handle.is_null() || count.is_null() {
                return Err(INVALID);
            }
            let h = s.new_handle();
            s.cvar_handles.insert(h, cvar_index as usize);
            // SAFETY: checked non-null (caller's valid pointers).
            unsafe {
                handle.write(as_handle(h));
                count.write(c.value.count());
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_cvar_handle_free / PMPI_T_cvar_handle_free(handle: *mut MPI_T_cvar_handle) -> c_int {
        t_call(|s| {
            s.registry()?;
            if handle.is_null() {
                return Err(INVALID);
            }
            // SAFETY: checked non-null (caller's valid pointer).
            let h = unsafe { *handle } as usize;
            s.cvar_handles
                .remove(&h)
                .ok_or(sys::MPI_T_ERR_INVALID_HANDLE)?;
            // SAFETY: as above.
            unsafe { handle.write(std::ptr::null_mut()) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_cvar_read / PMPI_T_cvar_read(handle: MPI_T_cvar_handle, buf: *mut c_void) -> c_int {
        t_call(|s| {
            let r = s.registry()?;
            let i = *s
                .cvar_handles
                .get(&(handle as usize))
                .ok_or(sys::MPI_T_ERR_INVALID_HANDLE)?;
            if buf.is_null() {
                return Err(INVALID);
            }
            let b = r.cvars[i].value.bytes();
            // SAFETY: MPI requires buf to hold count elements of the
            // variable's datatype, which is b.len() bytes.
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), buf as *mut u8, b.len()) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_cvar_write / PMPI_T_cvar_write(handle: MPI_T_cvar_handle, buf: *const c_void) -> c_int {
        let _ = buf;
        t_call(|s| {
            s.registry()?;
            if !s.cvar_handles.contains_key(&(handle as usize)) {
                return Err(sys::MPI_T_ERR_INVALID_HANDLE);
            }
            // Every control variable is MPI_T_SCOPE_CONSTANT.
            Err(sys::MPI_T_ERR_CVAR_SET_NEVER)
        })
    }
}

// ---- performance variables ------------------------------------------------

mpi_fn! {
    fn MPI_T_pvar_get_num / PMPI_T_pvar_get_num(num_pvar: *mut c_int) -> c_int {
        t_call(|s| {
            let n = s.registry()?.pvars.len() as c_int;
            // SAFETY: valid or null int pointer (caller).
            unsafe { put_req(num_pvar, n) }
        })
    }
}

mpi_fn! {
    fn MPI_T_pvar_get_info / PMPI_T_pvar_get_info(pvar_index: c_int, name: *mut c_char, name_len: *mut c_int, verbosity: *mut c_int, var_class: *mut c_int, datatype: *mut MPI_Datatype, enumtype: *mut MPI_T_enum, desc: *mut c_char, desc_len: *mut c_int, bind: *mut c_int, readonly: *mut c_int, continuous: *mut c_int, atomic: *mut c_int) -> c_int {
        use crate::mpit::pvars::Pvar;
        t_call(|s| {
            let p = s.registry()?.pvar(pvar_index)?;
            // SAFETY: valid or null pointers (caller).
            unsafe {
                put_str(name, name_len, p.name);
                put(verbosity, p.verbosity);
                put(var_class, p.class);
                put(datatype, p.datatype());
                put(enumtype, std::ptr::null_mut());
                put_str(desc, desc_len, p.desc);
                put(bind, p.bind());
                put(readonly, Pvar::READONLY as c_int);
                put(continuous, Pvar::CONTINUOUS as c_int);
                put(atomic, Pvar::ATOMIC as c_int);
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_pvar_get_index / PMPI_T_pvar_get_index(name: *const c_char, var_class: c_int, pvar_index: *mut c_int) -> c_int {
        t_call(|s| {
            let r = s.registry()?;
            // SAFETY: a C string (caller).
            let n = unsafe { name_in(name) }?;
            let i = r
                .pvars
                .iter()
                .position(|p| p.name.as_bytes() == n.to_bytes() && p.class == var_class)
                .ok_or(sys::MPI_T_ERR_INVALID_NAME)?;
            // SAFETY: valid or null int pointer (caller).
            unsafe { put_req(pvar_index, i as c_int) }
        })
    }
}

mpi_fn! {
    fn MPI_T_pvar_session_create / PMPI_T_pvar_session_create(session: *mut MPI_T_pvar_session) -> c_int {
        t_call(|s| {
            s.registry()?;
            if session.is_null() {
                return Err(INVALID);
            }
            let h = s.new_handle();
            s.sessions.insert(h, Vec::new());
            // SAFETY: checked non-null (caller's valid pointer).
            unsafe { session.write(as_handle(h)) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_pvar_session_free / PMPI_T_pvar_session_free(session: *mut MPI_T_pvar_session) -> c_int {
        t_call(|s| {
            s.registry()?;
            if session.is_null() {
                return Err(INVALID);
            }
            // SAFETY: checked non-null (caller's valid pointer).
            let se = self::session(s, unsafe { *session })?;
            for h in s.sessions.remove(&se).unwrap_or_default() {
                s.pvar_handles.remove(&h);
            }
            // SAFETY: as above.
            unsafe { session.write(std::ptr::null_mut()) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_pvar_handle_alloc / PMPI_T_pvar_handle_alloc(session: MPI_T_pvar_session, pvar_index: c_int, obj_handle: *mut c_void, handle: *mut MPI_T_pvar_handle, count: *mut c_int) -> c_int {
        let _ = obj_handle; // every variable is bound to no object
        t_call(|s| {
            s.registry()?.pvar(pvar_index)?;
            let se = self::session(s, session)?;
            if handle.is_null() || count.is_null() {
                return Err(INVALID);
            }
            let h = s.new_handle();
            s.pvar_handles.insert(
                h,
                PvarHandle {
                    session: se,
                    pvar: pvar_index as usize,
                    running: false,
                    acc: 0,
                    base: 0,
                },
            );
            s.sessions.get_mut(&se).expect("live session").push(h);
            // SAFETY: checked non-null (caller's valid pointers).
            unsafe {
                handle.write(as_handle(h));
                count.write(1);
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_pvar_handle_free / PMPI_T_pvar_handle_free(session: MPI_T_pvar_session, handle: *mut MPI_T_pvar_handle) -> c_int {
        t_call(|s| {
            s.registry()?;
            let se = self::session(s, session)?;
            if handle.is_null() {
                return Err(INVALID);
            }
            // SAFETY: checked non-null (caller's valid pointer).
            let h = unsafe { *handle } as usize;
            match s.pvar_handles.get(&h) {
                Some(p) if p.session == se => {}
                _ => return Err(sys::MPI_T_ERR_INVALID_HANDLE),
            }
            s.pvar_handles.remove(&h);
            s.sessions.get_mut(&se).expect("live session").retain(|&x| x != h);
            // SAFETY: as above.
            unsafe { handle.write(std::ptr::null_mut()) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_pvar_start / PMPI_T_pvar_start(session: MPI_T_pvar_session, handle: MPI_T_pvar_handle) -> c_int {
        on_handles(session, handle, |p, now| p.start(now))
    }
}

mpi_fn! {
    fn MPI_T_pvar_stop / PMPI_T_pvar_stop(session: MPI_T_pvar_session, handle: MPI_T_pvar_handle) -> c_int {
        on_handles(session, handle, |p, now| p.stop(now))
    }
}

mpi_fn! {
    fn MPI_T_pvar_reset / PMPI_T_pvar_reset(session: MPI_T_pvar_session, handle: MPI_T_pvar_handle) -> c_int {
        on_handles(session, handle, |p, now| p.write(now, 0))
    }
}

/// MPI_T_pvar_read / readreset / write on one handle.
fn one(
    session_h: MPI_T_pvar_session,
    h: MPI_T_pvar_handle,
    buf: bool,
    f: impl FnOnce(&mut PvarHandle, u64) -> TResult<()>,
) -> c_int {
    let snap = snapshot();
    t_call(|s| {
        s.registry()?;
        let se = session(s, session_h)?;
        let h = one_handle(h as usize)?;
        if !buf {
            return Err(INVALID);
        }
        match s.pvar_handles.get_mut(&h) {
            Some(p) if p.session == se => {
                let now = snap.get(p.pvar);
                f(p, now)
            }
            _ => Err(sys::MPI_T_ERR_INVALID_HANDLE),
        }
    })
}

mpi_fn! {
    fn MPI_T_pvar_read / PMPI_T_pvar_read(session: MPI_T_pvar_session, handle: MPI_T_pvar_handle, buf: *mut c_void) -> c_int {
        one(session, handle, !buf.is_null(), |p, now| {
            // SAFETY: buf holds one unsigned long long (the variable's
            // datatype and count; caller).
            unsafe { (buf as *mut u64).write_unaligned(p.value(now)) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_pvar_readreset / PMPI_T_pvar_readreset(session: MPI_T_pvar_session, handle: MPI_T_pvar_handle, buf: *mut c_void) -> c_int {
        one(session, handle, !buf.is_null(), |p, now| {
            // SAFETY: as in MPI_T_pvar_read.
            unsafe { (buf as *mut u64).write_unaligned(p.value(now)) };
            p.write(now, 0);
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_pvar_write / PMPI_T_pvar_write(session: MPI_T_pvar_session, handle: MPI_T_pvar_handle, buf: *const c_void) -> c_int {
        one(session, handle, !buf.is_null(), |p, now| {
            // SAFETY: buf holds one unsigned long long (caller).
            let v = unsafe { (buf as *const u64).read_unaligned() };
            p.write(now, v);
            Ok(())
        })
    }
}

// ---- categories ---------------------------------------------------------

mpi_fn! {
    fn MPI_T_category_get_num / PMPI_T_category_get_num(num_cat: *mut c_int) -> c_int {
        t_call(|s| {
            let n = s.registry()?.categories.len() as c_int;
            // SAFETY: valid or null int pointer (caller).
            unsafe { put_req(num_cat, n) }
        })
    }
}

mpi_fn! {
    fn MPI_T_category_get_info / PMPI_T_category_get_info(cat_index: c_int, name: *mut c_char, name_len: *mut c_int, desc: *mut c_char, desc_len: *mut c_int, num_cvars: *mut c_int, num_pvars: *mut c_int, num_categories: *mut c_int) -> c_int {
        t_call(|s| {
            let c = s.registry()?.category(cat_index)?;
            // SAFETY: valid or null pointers (caller).
            unsafe {
                put_str(name, name_len, c.name);
                put_str(desc, desc_len, c.desc);
                put(num_cvars, c.cvars.len() as c_int);
                put(num_pvars, c.pvars.len() as c_int);
                put(num_categories, c.categories.len() as c_int);
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_T_category_get_index / PMPI_T_category_get_index(name: *const c_char, cat_index: *mut c_int) -> c_int {
        t_call(|s| {
            let r = s.registry()?;
            // SAFETY: a C string (caller).
            let n = unsafe { name_in(name) }?;
            let i = r
                .categories
                .iter()
                .position(|c| c.name.as_bytes() == n.to_bytes())
                .ok_or(sys::MPI_T_ERR_INVALID_NAME)?;
            // SAFETY: valid or null int pointer (caller).
            unsafe { put_req(cat_index, i as c_int) }
        })
    }
}

mpi_fn! {
    fn MPI_T_category_get_cvars / PMPI_T_category_get_cvars(cat_index: c_int, len: c_int, indices: *mut c_int) -> c_int {
        t_call(|s| {
            let c = s.registry()?.category(cat_index)?;
            // SAFETY: len ints at indices (caller).
            unsafe { put_indices(&c.cvars, len, indices) }
        })
    }
}

mpi_fn! {
    fn MPI_T_category_get_pvars / PMPI_T_category_get_pvars(cat_index: c_int, len: c_int, indices: *mut c_int) -> c_int {
        t_call(|s| {
            let c = s.registry()?.category(cat_index)?;
            // SAFETY: len ints at indices (caller).
            unsafe { put_indices(&c.pvars, len, indices) }
        })
    }
}

mpi_fn! {
    fn MPI_T_category_get_categories / PMPI_T_category_get_categories(cat_index: c_int, len: c_int, indices: *mut c_int) -> c_int {
        t_call(|s| {
            let c = s.registry()?.category(cat_index)?;
            // SAFETY: len ints at indices (caller).
            unsafe { put_indices(&c.categories, len, indices) }
        })
    }
}

mpi_fn! {
    fn MPI_T_category_changed / PMPI_T_category_changed(stamp: *mut c_int) -> c_int {
        t_call(|s| {
            s.registry()?;
            // SAFETY: valid or null int pointer (caller).
            unsafe { put_req(stamp, categories::STAMP) }
        })
    }
}
