//! MPI-4 Sessions at the C ABI: MPI_Session_init / MPI_Session_finalize,
//! the session and process-set queries, MPI_Group_from_session_pset,
//! MPI_Comm_create_from_group, session error handlers and the Fortran
//! handle conversions (the semantics are in `crate::mpi::session`).
//!
//! The process's connection to the job: the first of MPI_Init and
//! MPI_Session_init attaches it (`abi::env::attach`, the start event). It
//! stays attached while the world model or any session is active, and also
//! between sessions (a program may initialize a session again, and the
//! objects it created stay valid): a process that has ended every model
//! looks to the others like one that computes. It leaves the job when
//! MPI_Finalize ends the last model, or else when the process exits (an
//! `atexit` hook): its predicted time is then its virtual time as its last
//! MPI call left it. A process that exits with a session still active has
//! not finalized (the launcher reports it). Once it has left, a new session
//! is an error (MPI_ERR_OTHER).
//!
//! Errors of a call on a valid session go to the session's error handler;
//! MPI_Session_init's to the handler it is given; others to MPI_COMM_WORLD's
//! (MPI_ERRORS_ARE_FATAL unless the program changed it).
use crate::abi::buffers::{out, put_cstr};
use crate::abi::env::{attach, close, raise_thread_level};
use crate::abi::state::{self, call, lock, raise_through};
use crate::mpi::errhandler::{is_predefined, ObjKind, UserFn};
use crate::mpi::error::{code_class, fail, MpiError, MpiResult};
use crate::mpi::info::{with_infos, Info};
use crate::mpi::session::{parse_thread_level, pset, thread_level_name, Session, PSETS};
use crate::mpi::World;
use crate::ranks::local::RankLocal;
use crate::sys::{self, MPI_Comm, MPI_Errhandler, MPI_Group, MPI_Info, MPI_Session};
use parking_lot::Mutex;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::sync::Once;

/// Session error handlers created before the process joined the job (the
/// standard allows it, to hand one to the first MPI_Session_init): the
/// world adopts them, in order, when it is set up, so their handles are the
/// ones the error-handler table gives. The rank's (`crate::ranks`).
static EARLY: RankLocal<Mutex<Vec<UserFn>>> =
    RankLocal::new(|| parking_lot::const_mutex(Vec::new()));

/// First user error-handler handle (`mpi::errhandler`'s numbering).
const EH_BASE: u32 = 0x9400_0000;

/// The world takes the handlers created before it (see [`EARLY`]).
pub(crate) fn adopt_early_handlers(w: &mut World) {
    for f in EARLY.get().lock().drain(..) {
        // fresh table: cannot run out of handles here
        let _ = w.errhandlers.create(f);
    }
}

/// MPI_Errhandler_free while neither the world model nor a session is
/// active (MPI-4 allows it): on the world's table if the process has one,
/// else on the handlers created before it; an error returns its class.
///
/// # Safety
/// `errhandler` is null or valid for a read and a write.
pub(crate) unsafe fn errhandler_free_outside(errhandler: *mut MPI_Errhandler) -> c_int {
    // SAFETY: null or a valid handle pointer (caller).
    let eh = match unsafe { out(errhandler, "errhandler") } {
        Ok(eh) => eh,
        Err(e) => return e.class,
    };
    let r = match lock().0.as_mut() {
        Some(w) => w.errhandlers.free(*eh),
        None => {
            let early = (*eh as u32).wrapping_sub(EH_BASE) < EARLY.get().lock().len() as u32;
            if is_predefined(*eh) || early {
                Ok(())
            } else {
                fail(
                    sys::MPI_ERR_ARG,
                    format!("invalid error handler {:#x}", *eh),
                )
            }
        }
    };
    match r {
        Ok(()) => {
            *eh = sys::MPI_ERRHANDLER_NULL;
            sys::MPI_SUCCESS
        }
        Err(e) => e.class,
    }
}

/// Run `f` on session `session`: an error goes to the session's handler
/// when the session is valid, else to MPI_COMM_WORLD's.
fn session_call(
    name: &str,
    session: MPI_Session,
    f: impl FnOnce(&mut World) -> MpiResult<()>,
) -> c_int {
    let mut rc = sys::MPI_SUCCESS;
    let r = call(name, sys::MPI_COMM_WORLD, |w| match f(w) {
        Ok(()) => Ok(()),
        Err(e) => match w.sessions.get(session) {
            Ok(s) => {
                let eh = s.errhandler;
                rc = raise_through(w, eh, session, name, &e);
                Ok(())
            }
            Err(_) => Err(e),
        },
    });
    if rc != sys::MPI_SUCCESS {
        rc
    } else {
        r
    }
}

/// An error with no world to raise it in (before the process joined the
/// job, or after it left): MPI_ERRORS_RETURN returns the class; any other
/// handler prints the error and ends the process.
fn early_error(name: &str, errhandler: MPI_Errhandler, e: MpiError) -> c_int {
    if errhandler == sys::MPI_ERRORS_RETURN {
        return e.class;
    }
    eprintln!(
        "vaced: {name}: {} [{}]",
        e.msg,
        crate::mpi::error::class_name(e.class).unwrap_or("MPI_ERR_OTHER")
    );
    std::process::exit(1)
}

/// A string argument (MPI_ERR_ARG if null).
///
/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn str_arg(p: *const c_char, what: &str) -> MpiResult<String> {
    if p.is_null() {
        return fail(sys::MPI_ERR_ARG, format!("null pointer passed as {what}"));
    }
    // SAFETY: non-null and NUL-terminated (caller).
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// An info argument that may be MPI_INFO_NULL: checked, then a copy.
fn info_arg(info: MPI_Info) -> MpiResult<Option<Info>> {
    if info == sys::MPI_INFO_NULL {
        return Ok(None);
    }
    with_infos(|t| t.get(info).cloned()).map(Some)
}

/// The thread level MPI_Session_init's info asks for ("thread_level";
/// MPI_THREAD_SINGLE without one).
fn requested_level(info: MPI_Info) -> MpiResult<c_int> {
    match info_arg(info)?.as_ref().and_then(|i| i.get("thread_level")) {
        Some(v) => parse_thread_level(v),
        None => Ok(sys::MPI_THREAD_SINGLE),
    }
}

/// At process exit: a process whose models have all ended leaves the job
/// (see the module's doc). One that still has a model active does not.
/// It acts on the calling thread's current rank state: in the many-ranks
/// mode (`crate::ranks`) the process's exit reaches none of the hosted
/// ranks (the host has to do this for each rank whose program ended, with
/// the rank's store entered).
extern "C" fn leave_at_exit() {
    close_left_open()
}

/// What the process's exit does for the calling rank (see
/// [`leave_at_exit`]); the many-ranks mode's host calls it in each rank's
/// context when its program ends.
pub fn close_left_open() {
    let Some(mut g) = state::try_lock() else {
        return;
    };
    if let Some(w) = g.0.as_mut() {
        if !w.ep_closed && !w.running() {
            close(w);
        }
    }
}

mpi_fn! {
    /// Starts a session; the first initialization of the process attaches
    /// it to the job. The session's info may ask for a "thread_level":
    /// the process's level is raised to it (never lowered).
    fn MPI_Session_init / PMPI_Session_init(info: MPI_Info, errhandler: MPI_Errhandler, session: *mut MPI_Session) -> c_int {
        let name = "MPI_Session_init";
        if state::nested_now() {
            // from a callback the library runs: `call` refuses it
            return call(name, sys::MPI_COMM_WORLD, |_| Ok(()));
        }
        let level = match requested_level(info) {
            Ok(l) => l,
            Err(e) => return early_error(name, errhandler, e),
        };
        if session.is_null() {
            let e = MpiError::new(sys::MPI_ERR_ARG, "null pointer passed as session");
            return early_error(name, errhandler, e);
        }
        let mut g = lock();
        if g.0.is_none() {
            let known = is_predefined(errhandler)
                || EARLY.get().lock().len() > (errhandler as u32).wrapping_sub(EH_BASE) as usize;
            if !known {
                drop(g);
                let e = MpiError::new(
                    sys::MPI_ERR_ARG,
                    format!("invalid error handler {errhandler:#x}"),
                );
                return early_error(name, errhandler, e);
            }
            g.0 = Some(attach(name, level));
            static HOOK: Once = Once::new();
            HOOK.call_once(|| {
                // SAFETY: registers a plain function with no arguments,
                // which runs once as the process exits.
                unsafe { libc::atexit(leave_at_exit) };
            });
        }
        let w = g.0.as_mut().expect("a world");
        if w.ep_closed {
            drop(g);
            let e = MpiError::new(
                sys::MPI_ERR_OTHER,
                "the process left the job at MPI_Finalize (no session was active): \
                 no session can start after that",
            );
            return early_error(name, errhandler, e);
        }
        crate::abi::threads::register();
        w.ep.enter_call(name);
        let r = w
            .errhandlers
            .check_for(errhandler, ObjKind::Session)
            .and_then(|()| w.sessions.insert(Session { errhandler }));
        let rc = match r {
            Ok(h) => {
                raise_thread_level(w, level);
                // SAFETY: checked non-null; the caller passes a valid handle pointer.
                unsafe { session.write(h) };
                sys::MPI_SUCCESS
            }
            Err(e) => raise_through(w, errhandler, sys::MPI_SESSION_NULL, name, &e),
        };
        w.ep.leave();
        state::refresh_active(w);
        drop(g);
        crate::abi::threads::released();
        state::run_pending();
        rc
    }
}

mpi_fn! {
    /// Ends the session and sets the handle to MPI_SESSION_NULL. Objects
    /// made from it stay valid. The last model to end leaves the process
    /// attached until it exits or starts a session again.
    fn MPI_Session_finalize / PMPI_Session_finalize(session: *mut MPI_Session) -> c_int {
        let name = "MPI_Session_finalize";
        if session.is_null() {
            return call(name, sys::MPI_COMM_WORLD, |_| {
                fail(sys::MPI_ERR_ARG, "null pointer passed as session")
            });
        }
        // SAFETY: checked non-null; the caller passes a valid handle pointer.
        let h = unsafe { session.read() };
        let rc = session_call(name, h, |w| {
            w.sessions.remove(h)?;
            state::refresh_active(w);
            Ok(())
        });
        if rc == sys::MPI_SUCCESS {
            // SAFETY: as above.
            unsafe { session.write(sys::MPI_SESSION_NULL) };
        }
        rc
    }
}

mpi_fn! {
    /// A new info object with the session's "thread_level" (the process's
    /// thread level).
    fn MPI_Session_get_info / PMPI_Session_get_info(session: MPI_Session, info_used: *mut MPI_Info) -> c_int {
        session_call("MPI_Session_get_info", session, |w| {
            w.sessions.get(session)?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(info_used, "info_used") }?;
            let info = Info::from_pairs([("thread_level", thread_level_name(w.thread_level))]);
            *o = with_infos(|t| t.insert(info));
            Ok(())
        })
    }
}

mpi_fn! {
    /// The process sets of the session: "mpi://WORLD" and "mpi://SELF".
    fn MPI_Session_get_num_psets / PMPI_Session_get_num_psets(session: MPI_Session, info: MPI_Info, npset_names: *mut c_int) -> c_int {
        session_call("MPI_Session_get_num_psets", session, |w| {
            w.sessions.get(session)?;
            info_arg(info)?;
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(npset_names, "npset_names") }?;
            *o = PSETS.len() as c_int;
            Ok(())
        })
    }
}

mpi_fn! {
    /// The name of process set `n`. `*pset_len` 0: only its length (with
    /// the NUL) is returned; otherwise the name is copied, cut to
    /// `*pset_len - 1` characters, and `*pset_len` becomes its length.
    fn MPI_Session_get_nth_pset / PMPI_Session_get_nth_pset(session: MPI_Session, info: MPI_Info, n: c_int, pset_len: *mut c_int, pset_name: *mut c_char) -> c_int {
        session_call("MPI_Session_get_nth_pset", session, |w| {
            w.sessions.get(session)?;
            info_arg(info)?;
            let Some(p) = usize::try_from(n).ok().and_then(|i| PSETS.get(i)) else {
                return fail(
                    sys::MPI_ERR_ARG,
                    format!("invalid process set number {n} (the session has {})", PSETS.len()),
                );
            };
            // SAFETY: null or a valid int pointer (caller).
            let len = unsafe { out(pset_len, "pset_len") }?;
            if *len < 0 {
                return fail(sys::MPI_ERR_ARG, format!("invalid pset_len {}", *len));
            }
            if *len > 0 {
                if pset_name.is_null() {
                    return fail(sys::MPI_ERR_ARG, "null pointer passed as pset_name");
                }
                // SAFETY: the caller's pset_name holds *len characters.
                unsafe { put_cstr(pset_name, *len as usize, p) };
            }
            *len = p.len() as c_int + 1;
            Ok(())
        })
    }
}

mpi_fn! {
    /// A new info object with the process set's "mpi_size".
    fn MPI_Session_get_pset_info / PMPI_Session_get_pset_info(session: MPI_Session, pset_name: *const c_char, info: *mut MPI_Info) -> c_int {
        session_call("MPI_Session_get_pset_info", session, |w| {
            w.sessions.get(session)?;
            // SAFETY: null or a NUL-terminated string (caller).
            let name = unsafe { str_arg(pset_name, "pset_name") }?;
            let size = match pset(&name)? {
                "mpi://WORLD" => w.ep.size(),
                _ => 1,
            };
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(info, "info") }?;
            let i = Info::from_pairs([("mpi_size", size.to_string())]);
            *o = with_infos(|t| t.insert(i));
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Group_from_session_pset / PMPI_Group_from_session_pset(session: MPI_Session, pset_name: *const c_char, newgroup: *mut MPI_Group) -> c_int {
        session_call("MPI_Group_from_session_pset", session, |w| {
            w.sessions.get(session)?;
            // SAFETY: null or a NUL-terminated string (caller).
            let name = unsafe { str_arg(pset_name, "pset_name") }?;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(newgroup, "newgroup") }?;
            *o = w.group_from_pset(session, &name)?;
            Ok(())
        })
    }
}

mpi_fn! {
    /// Collective over the group's processes: see
    /// `World::comm_create_from_group`. Errors go to `errhandler` when it
    /// is a valid handler for a communicator. Under MPI_THREAD_MULTIPLE it
    /// runs as its nonblocking form and an MPI_Wait that other threads of
    /// the rank may interrupt.
    fn MPI_Comm_create_from_group / PMPI_Comm_create_from_group(group: MPI_Group, stringtag: *const c_char, info: MPI_Info, errhandler: MPI_Errhandler, newcomm: *mut MPI_Comm) -> c_int {
        let name = "MPI_Comm_create_from_group";
        let multi = crate::abi::threads::multi();
        let mut req = sys::MPI_REQUEST_NULL;
        let mut rc = sys::MPI_SUCCESS;
        let r = call(name, sys::MPI_COMM_WORLD, |w| {
            let r = (|| {
                // SAFETY: null or a NUL-terminated string (caller).
                let tag = unsafe { str_arg(stringtag, "stringtag") }?;
                info_arg(info)?;
                // SAFETY: null or a valid handle pointer (caller).
                let o = unsafe { out(newcomm, "newcomm") }?;
                if multi {
                    (*o, req) = w.comm_icreate_from_group(group, tag.as_bytes(), errhandler)?;
                } else {
                    *o = w.comm_create_from_group(group, tag.as_bytes(), errhandler)?;
                }
                Ok(())
            })();
            match r {
                Err(e) if w.errhandlers.check_for(errhandler, ObjKind::Comm).is_ok() => {
                    rc = raise_through(w, errhandler, sys::MPI_COMM_NULL, name, &e);
                    Ok(())
                }
                r => r,
            }
        });
        if rc != sys::MPI_SUCCESS {
            return rc;
        }
        if r != sys::MPI_SUCCESS || req == sys::MPI_REQUEST_NULL {
            return r;
        }
        // SAFETY: `req` is the live request just made; the status is ignored.
        let r = unsafe { crate::abi::wait::PMPI_Wait(&mut req, crate::abi::MPI_STATUS_IGNORE) };
        if r != sys::MPI_SUCCESS {
            return r;
        }
        // SAFETY: checked by the call above (a valid handle pointer).
        let made = unsafe { *newcomm };
        call(name, sys::MPI_COMM_WORLD, |w| w.announce(made))
    }
}

mpi_fn! {
    /// May be called before the process joined the job (to hand the
    /// handler to the first MPI_Session_init).
    fn MPI_Session_create_errhandler / PMPI_Session_create_errhandler(session_errhandler_fn: sys::MPI_Session_errhandler_function, errhandler: *mut MPI_Errhandler) -> c_int {
        let name = "MPI_Session_create_errhandler";
        let body = |w: Option<&mut World>| -> MpiResult<()> {
            if session_errhandler_fn.is_none() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as the handler function");
            }
            // SAFETY: null or a valid handle pointer (the caller's contract).
            let o = unsafe { out(errhandler, "errhandler") }?;
            let f = UserFn::Session(session_errhandler_fn);
            *o = match w {
                Some(w) => w.errhandlers.create(f)?,
                None => {
                    let mut early = EARLY.get().lock();
                    early.push(f);
                    (EH_BASE + early.len() as u32 - 1) as MPI_Errhandler
                }
            };
            Ok(())
        };
        let before = lock().0.is_none();
        if before {
            return match body(None) {
                Ok(()) => sys::MPI_SUCCESS,
                Err(e) => e.class,
            };
        }
        call(name, sys::MPI_COMM_WORLD, |w| body(Some(w)))
    }
}

mpi_fn! {
    fn MPI_Session_set_errhandler / PMPI_Session_set_errhandler(session: MPI_Session, errhandler: MPI_Errhandler) -> c_int {
        session_call("MPI_Session_set_errhandler", session, |w| {
            w.sessions.get(session)?;
            w.errhandlers.check_for(errhandler, ObjKind::Session)?;
            w.sessions.get_mut(session)?.errhandler = errhandler;
            Ok(())
        })
    }
}

mpi_fn! {
    /// The program gets a new reference to the handler (free it with
    /// MPI_Errhandler_free).
    fn MPI_Session_get_errhandler / PMPI_Session_get_errhandler(session: MPI_Session, errhandler: *mut MPI_Errhandler) -> c_int {
        session_call("MPI_Session_get_errhandler", session, |w| {
            let eh = w.sessions.get(session)?.errhandler;
            // SAFETY: null or a valid handle pointer (caller).
            let o = unsafe { out(errhandler, "errhandler") }?;
            w.errhandlers.add_ref(eh);
            *o = eh;
            Ok(())
        })
    }
}

mpi_fn! {
    /// Invokes the session's handler with `errorcode`: MPI_SUCCESS once a
    /// program's handler (or MPI_ERRORS_RETURN) returns, as MPICH does for
    /// the other objects; MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT abort the
    /// job. An invalid session or error code is an error of this call.
    fn MPI_Session_call_errhandler / PMPI_Session_call_errhandler(session: MPI_Session, errorcode: c_int) -> c_int {
        let name = "MPI_Session_call_errhandler";
        session_call(name, session, |w| {
            let eh = w.sessions.get(session)?.errhandler;
            if code_class(errorcode).is_none() || errorcode == sys::MPI_SUCCESS {
                return fail(sys::MPI_ERR_ARG, format!("invalid error code {errorcode}"));
            }
            let e = MpiError::new(
                errorcode,
                format!("the program raised error code {errorcode} on this session"),
            );
            // a program's handler runs once the lock is released
            raise_through(w, eh, session, name, &e);
            Ok(())
        })
    }
}

mpi_fn! {
    /// Session handles are the same in C and Fortran.
    fn MPI_Session_c2f / PMPI_Session_c2f(session: MPI_Session) -> sys::MPI_Fint {
        session
    }
}

mpi_fn! {
    /// The identity (see MPI_Session_c2f).
    fn MPI_Session_f2c / PMPI_Session_f2c(session: sys::MPI_Fint) -> MPI_Session {
        session
    }
}
