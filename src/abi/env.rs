//! Environment calls: MPI_Init / MPI_Init_thread / MPI_Finalize / MPI_Abort,
//! their queries, versions, the processor name, MPI_Wtime / MPI_Wtick (virtual
//! time), MPI_Pcontrol and the MPIX_Vaced_compute extension.
use crate::abi::buffers::{out, put_cstr};
use crate::abi::state::{self, anytime_error, call, lock, FINALIZED, RUNNING};
use crate::model::VTime;
use crate::mpi::error::{fail, MpiError};
use crate::mpi::World;
use crate::p2p::Endpoint;
use crate::sys::{self, MPI_Comm};
use std::os::raw::{c_char, c_int};
use std::sync::OnceLock;
use std::time::Instant;

/// The resolution MPI_Wtime claims (virtual time is kept in picoseconds).
const WTICK: f64 = 1e-9;

/// MPI_Get_library_version's text.
fn library_version() -> String {
    format!("vaced {} (VACED simulator)", env!("CARGO_PKG_VERSION"))
}

/// Attach this process to the job (`Endpoint::from_env`, which is the
/// start event: tV = 0) and set up the world, at thread level `level`: the
/// first of MPI_Init / MPI_Init_thread / MPI_Session_init does it. Exits
/// the process if the job cannot be joined (nothing to report an error to).
pub(crate) fn attach(name: &str, level: c_int) -> World {
    let ep = match Endpoint::from_env() {
        Ok(ep) => ep,
        Err(msg) => {
            eprintln!("vaced: {name}: {msg}");
            std::process::exit(1);
        }
    };
    // Forced collective algorithms (VACED_COLL_*, [collectives]) are
    // checked once, before the program can reach a collective.
    if let Err(msg) = crate::coll::select::validate(ep.model()) {
        let msg = format!("vaced: rank {}: {name}: {msg}", ep.rank());
        eprintln!("{msg}");
        let mut ep = ep;
        ep.abort(1, &msg);
    }
    let level = supported_level(&ep, level);
    if level == sys::MPI_THREAD_MULTIPLE {
        ep.enable_threads();
    }
    let mut w = World::new(ep, level);
    crate::abi::session::adopt_early_handlers(&mut w);
    w
}

/// The thread level provided for `level`: MPI_THREAD_SERIALIZED instead of
/// MPI_THREAD_MULTIPLE when the target models network contention (a rank
/// whose threads all wait keeps publishing its clock as the bound on what
/// it may send, and a transfer's window could then never close; the MPI
/// standard lets a library provide less than required).
///
/// A what-if run that replays the calls under other targets (see
/// `crate::replay`) provides at most MPI_THREAD_FUNNELED: its call log is
/// one thread's.
///
/// In the many-ranks mode (`crate::ranks`) at most MPI_THREAD_SERIALIZED:
/// a host thread runs many ranks, switching between them inside MPI calls,
/// so a rank has one thread only (the mode refuses programs that start
/// threads; one thread trivially serializes its calls), and the support
/// for MPI_THREAD_MULTIPLE (`transport::threads`) is the host process's,
/// not a rank's.
fn supported_level(ep: &Endpoint, level: c_int) -> c_int {
    if ep.is_recording() {
        level.min(sys::MPI_THREAD_FUNNELED)
    } else if crate::ranks::local::hosted() {
        level.min(sys::MPI_THREAD_SERIALIZED)
    } else if level == sys::MPI_THREAD_MULTIPLE && ep.model().contention_window().is_some() {
        sys::MPI_THREAD_SERIALIZED
    } else {
        level
    }
}

/// Raise the process's thread level to `level` if it is below (a later
/// initialization asks for more): the level provided, never lower than the
/// one the process has.
pub(crate) fn raise_thread_level(w: &mut World, level: c_int) -> c_int {
    let level = supported_level(&w.ep, level);
    if level > w.thread_level {
        if level == sys::MPI_THREAD_MULTIPLE {
            w.ep.enable_threads();
        }
        w.thread_level = level;
    }
    w.thread_level
}

/// MPI_Init and MPI_Init_thread: start the world model, attaching to the
/// job unless a session has already; the thread level provided.
fn init(name: &str, required: c_int) -> Result<c_int, c_int> {
    let mut g = lock();
    if let Some(w) = g.0.as_mut() {
        if w.world_init || w.ep_closed {
            let what = if w.finalized || w.ep_closed {
                "MPI_Init or MPI_Init_thread called after MPI_Finalize"
            } else {
                "MPI_Init or MPI_Init_thread called twice"
            };
            if !w.running() {
                eprintln!("vaced: rank {}: {name}: {what} [MPI_ERR_OTHER]", w.rank());
                std::process::exit(1);
            }
            let e = MpiError::new(sys::MPI_ERR_OTHER, what);
            let rc = state::error(w, sys::MPI_COMM_WORLD, name, e);
            drop(g);
            state::run_pending();
            return Err(rc);
        }
        // a session attached the process: the world model joins it
        w.ep.enter_call(name);
        let provided = raise_thread_level(w, required);
        w.world_init = true;
        w.main_thread = std::thread::current().id();
        w.ep.leave();
        state::refresh_active(w);
        crate::abi::threads::register();
        state::set_phase(RUNNING);
        return Ok(provided);
    }
    let mut w = attach(name, required);
    w.world_init = true;
    let provided = w.thread_level;
    state::refresh_active(&w);
    g.0 = Some(w);
    crate::abi::threads::register();
    state::set_phase(RUNNING);
    Ok(provided)
}

mpi_fn! {
    fn MPI_Init / PMPI_Init(_argc: *mut c_int, _argv: *mut *mut *mut c_char) -> c_int {
        match init("MPI_Init", sys::MPI_THREAD_SINGLE) {
            Ok(_) => sys::MPI_SUCCESS,
            Err(rc) => rc,
        }
    }
}

mpi_fn! {
    /// Provides min(required, MPI_THREAD_MULTIPLE) (a level below
    /// MPI_THREAD_SINGLE is raised to it): calls from several threads run
    /// one at a time, and under MULTIPLE a thread blocked in a
    /// point-to-point wait lets the others in (see `abi::state`).
    fn MPI_Init_thread / PMPI_Init_thread(
        _argc: *mut c_int,
        _argv: *mut *mut *mut c_char,
        required: c_int,
        provided: *mut c_int,
    ) -> c_int {
        if provided.is_null() {
            return anytime_error(
                "MPI_Init_thread",
                MpiError::new(sys::MPI_ERR_ARG, "null pointer passed as provided"),
            );
        }
        let level = required.clamp(sys::MPI_THREAD_SINGLE, sys::MPI_THREAD_MULTIPLE);
        match init("MPI_Init_thread", level) {
            Ok(p) => {
                // SAFETY: checked non-null; the caller passes a valid int pointer.
                unsafe { provided.write(p) };
                sys::MPI_SUCCESS
            }
            Err(rc) => rc,
        }
    }
}

mpi_fn! {
    fn MPI_Initialized / PMPI_Initialized(flag: *mut c_int) -> c_int {
        if flag.is_null() {
            return sys::MPI_ERR_ARG;
        }
        // SAFETY: checked non-null; the caller passes a valid int pointer.
        unsafe { flag.write((state::phase() != state::UNINIT) as c_int) };
        sys::MPI_SUCCESS
    }
}

mpi_fn! {
    fn MPI_Finalized / PMPI_Finalized(flag: *mut c_int) -> c_int {
        if flag.is_null() {
            return sys::MPI_ERR_ARG;
        }
        // SAFETY: checked non-null; the caller passes a valid int pointer.
        unsafe { flag.write((state::phase() == FINALIZED) as c_int) };
        sys::MPI_SUCCESS
    }
}

mpi_fn! {
    /// The attributes of MPI_COMM_SELF and MPI_COMM_WORLD are deleted (their
    /// delete callbacks run), then the end event (`enter`), then p2p settles
    /// and publishes the results. No `leave`: the endpoint is closed. While
    /// a session is active the endpoint stays open (the world model ends,
    /// the process goes on in its sessions: see `abi::session`).
    fn MPI_Finalize / PMPI_Finalize() -> c_int {
        if state::phase() == RUNNING {
            crate::abi::callbacks::finalize_attributes();
        }
        let mut g = lock();
        let w = match g.0.as_mut() {
            Some(w) if w.world_init && !w.finalized && !w.ep_closed => w,
            Some(w) if w.running() => {
                let what = if w.world_init {
                    "MPI_Finalize called twice"
                } else {
                    "MPI_Finalize called without MPI_Init (only sessions are active)"
                };
                drop(g);
                return call("MPI_Finalize", sys::MPI_COMM_WORLD, |_| {
                    fail(sys::MPI_ERR_OTHER, what)
                });
            }
            _ => {
                drop(g);
                return call("MPI_Finalize", sys::MPI_COMM_WORLD, |_| Ok(()));
            }
        };
        w.ep.enter();
        let world = || w.comms.get(sys::MPI_COMM_WORLD).ok().map(|c| c.ctx);
        crate::timeline::enter("MPI_Finalize", world, w.ep.vtime());
        w.bsend.detach();
        w.finalized = true;
        if w.sessions.active() > 0 {
            crate::timeline::leave(w.ep.vtime());
            w.ep.leave();
        } else {
            close(w);
        }
        state::refresh_active(w);
        state::set_phase(FINALIZED);
        sys::MPI_SUCCESS
    }
}

/// Close the endpoint of a world no model uses any more: p2p settles and
/// publishes this rank's results (its time is `tV` as the last MPI call
/// left it).
pub(crate) fn close(w: &mut World) {
    w.ep.finalize();
    w.release_retired();
    w.ep_closed = true;
}

mpi_fn! {
    /// Ends the whole job; the launcher prints the message naming the rank and
    /// the code.
    fn MPI_Abort / PMPI_Abort(comm: MPI_Comm, errorcode: c_int) -> c_int {
        let msg = format!("it called MPI_Abort({}, {errorcode})", comm_name(comm));
        state::nested_abort(errorcode, &msg);
        let mut g = lock();
        match g.0.as_mut() {
            Some(w) if !w.ep_closed => w.ep.abort(errorcode, &msg),
            _ => {
                eprintln!(
                    "vaced: MPI_Abort(comm {comm:#x}, {errorcode}) called outside \
                     MPI_Init..MPI_Finalize"
                );
                std::process::exit(errorcode)
            }
        }
    }
}

mpi_fn! {
    fn MPI_Query_thread / PMPI_Query_thread(provided: *mut c_int) -> c_int {
        call("MPI_Query_thread", sys::MPI_COMM_WORLD, |w| {
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(provided, "provided") }?;
            *o = w.thread_level;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Is_thread_main / PMPI_Is_thread_main(flag: *mut c_int) -> c_int {
        call("MPI_Is_thread_main", sys::MPI_COMM_WORLD, |w| {
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(flag, "flag") }?;
            *o = (std::thread::current().id() == w.main_thread) as c_int;
            Ok(())
        })
    }
}

/// The host name (gethostname), "localhost" if it cannot be read.
pub(crate) fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: buf is writable for its whole length, which we pass.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut c_char, buf.len()) };
    if rc != 0 {
        return "localhost".to_string();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

mpi_fn! {
    /// `HOST-nodeN`, N being the target node this rank runs on in the model:
    /// programs that group ranks by processor name see the target's nodes.
    fn MPI_Get_processor_name / PMPI_Get_processor_name(name: *mut c_char, resultlen: *mut c_int) -> c_int {
        call("MPI_Get_processor_name", sys::MPI_COMM_WORLD, |w| {
            if name.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as name");
            }
            // SAFETY: null or a valid int pointer (caller).
            let len = unsafe { out(resultlen, "resultlen") }?;
            let node = w.ep.model().node_of(w.rank());
            let text = format!("{}-node{}", host_name(), node);
            // SAFETY: MPI requires name to hold MPI_MAX_PROCESSOR_NAME chars.
            *len = unsafe { put_cstr(name, sys::MPI_MAX_PROCESSOR_NAME as usize, &text) };
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Get_version / PMPI_Get_version(version: *mut c_int, subversion: *mut c_int) -> c_int {
        if version.is_null() || subversion.is_null() {
            let e = MpiError::new(sys::MPI_ERR_ARG, "null pointer passed as version or subversion");
            return anytime_error("MPI_Get_version", e);
        }
        // SAFETY: checked non-null; the caller passes valid int pointers.
        unsafe {
            version.write(sys::MPI_VERSION);
            subversion.write(sys::MPI_SUBVERSION);
        }
        sys::MPI_SUCCESS
    }
}

mpi_fn! {
    fn MPI_Get_library_version / PMPI_Get_library_version(version: *mut c_char, resultlen: *mut c_int) -> c_int {
        if version.is_null() || resultlen.is_null() {
            let e = MpiError::new(sys::MPI_ERR_ARG, "null pointer passed as version or resultlen");
            return anytime_error("MPI_Get_library_version", e);
        }
        let cap = sys::MPI_MAX_LIBRARY_VERSION_STRING as usize;
        // SAFETY: MPI requires version to hold MPI_MAX_LIBRARY_VERSION_STRING
        // chars; resultlen checked non-null.
        unsafe { resultlen.write(put_cstr(version, cap, &library_version())) };
        sys::MPI_SUCCESS
    }
}

/// Host monotonic seconds (MPI_Wtime outside MPI_Init..MPI_Finalize).
fn host_seconds() -> f64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64()
}

mpi_fn! {
    /// Virtual time in seconds while MPI runs (computation since the last call
    /// included, via `enter`); host monotonic time outside.
    fn MPI_Wtime / PMPI_Wtime() -> f64 {
        if state::active() {
            if let Some(t) = state::nested_vtime() {
                return t.as_secs_f64();
            }
            let mut g = lock();
            if let Some(w) = g.0.as_mut().filter(|w| w.running()) {
                w.ep.enter();
                let t = w.ep.vtime();
                w.ep.leave();
                return t.as_secs_f64();
            }
        }
        host_seconds()
    }
}

mpi_fn! {
    fn MPI_Wtick / PMPI_Wtick() -> f64 {
        WTICK
    }
}

/// MPI_Pcontrol's body. Stable Rust cannot define C-variadic functions and a
/// cdylib does not export symbols of linked C objects, so MPI_Pcontrol is
/// defined below with only its named argument (on every supported ABI the
/// named argument of a variadic call is passed exactly as in a plain call);
/// profiling levels have no effect.
#[no_mangle]
pub extern "C" fn vaced_pcontrol(_level: c_int) -> c_int {
    sys::MPI_SUCCESS
}

/// `int PMPI_Pcontrol(const int level, ...)`: see [`vaced_pcontrol`].
///
/// # Safety
/// None beyond the C call itself.
#[no_mangle]
pub unsafe extern "C" fn PMPI_Pcontrol(level: c_int) -> c_int {
    vaced_pcontrol(level)
}

/// `int MPI_Pcontrol(const int level, ...)`: forwards to [`PMPI_Pcontrol`].
///
/// # Safety
/// None beyond the C call itself.
#[no_mangle]
pub unsafe extern "C" fn MPI_Pcontrol(level: c_int) -> c_int {
    // SAFETY: PMPI_Pcontrol has no preconditions.
    unsafe { PMPI_Pcontrol(level) }
}

mpi_fn! {
    /// Adds `seconds` of computation to this rank's virtual time.
    fn MPIX_Vaced_compute / PMPIX_Vaced_compute(seconds: f64) -> c_int {
        call("MPIX_Vaced_compute", sys::MPI_COMM_WORLD, |w| {
            if !seconds.is_finite() || seconds < 0.0 {
                return fail(
                    sys::MPI_ERR_ARG,
                    format!("invalid computation time {seconds} s (must be finite and >= 0)"),
                );
            }
            w.ep.compute(VTime::from_secs_f64(seconds));
            Ok(())
        })
    }
}

/// A communicator as a program would name it.
fn comm_name(comm: MPI_Comm) -> String {
    match comm {
        sys::MPI_COMM_WORLD => "MPI_COMM_WORLD".to_string(),
        sys::MPI_COMM_SELF => "MPI_COMM_SELF".to_string(),
        c => format!("communicator {c:#x}"),
    }
}
