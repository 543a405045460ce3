//! The MPI state of the rank behind a mutex, the init/finalize phase (an
//! atomic, so MPI_Initialized / MPI_Finalized never block), and the one path
//! every MPI call takes: lock, check the phase, `enter`, work, `leave`, and
//! errors through the communicator's error handler (a program's handler
//! runs after the lock is released: it may call MPI).
//!
//! All of it is the rank's: in the many-ranks mode (`crate::ranks`) each
//! rank a host runs has its own state, phase and thread-locals
//! ([`RankLocal`], [`PerThread`]).
//!
//! Threads (see `abi::threads`): calls from several threads run one at a
//! time. Under MPI_THREAD_MULTIPLE a thread that finds the lock taken wakes
//! the holder (it may be asleep in a blocking wait, which then suspends and
//! lets it in), and blocking point-to-point calls run through [`call_mut`],
//! which parks the thread while its wait is suspended and runs it again
//! later. A call made by the thread that holds the lock (from a callback
//! the library runs, e.g. a user reduction operator) is *nested*: see
//! [`nested`].
use crate::abi::threads;
use crate::mpi::blocking;
use crate::mpi::errhandler::{Action, UserFn};
use crate::mpi::error::{fatal_message, MpiError, MpiResult};
use crate::mpi::World;
use crate::ranks::local::{PerThread, RankCell, RankLocal};
use crate::sys::{self, MPI_Comm};
use parking_lot::{Mutex, MutexGuard};
use std::cell::Cell;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// Holder of the world, so it can live in a static.
pub(crate) struct Global(pub(crate) Option<World>);

// SAFETY: the world holds raw user-buffer pointers inside the p2p endpoint
// (SendBuf / RecvBuf). They are only dereferenced by whichever thread holds
// STATE's lock, one thread at a time (under MPI_THREAD_MULTIPLE too: every
// call takes the lock), and MPI requires those buffers to stay valid for
// the process until their operation completes, whatever thread calls MPI.
unsafe impl Send for Global {}

static STATE: RankLocal<Mutex<Global>> = RankLocal::new(|| parking_lot::const_mutex(Global(None)));

pub(crate) const UNINIT: u8 = 0;
pub(crate) const RUNNING: u8 = 1;
pub(crate) const FINALIZED: u8 = 2;
static PHASE: RankLocal<AtomicU8> = RankLocal::new(|| AtomicU8::new(UNINIT));

pub(crate) fn phase() -> u8 {
    PHASE.get().load(Ordering::Acquire)
}

pub(crate) fn set_phase(p: u8) {
    PHASE.get().store(p, Ordering::Release)
}

/// Whether MPI runs (the world model or a session is active): the world's
/// [`World::running`], kept where MPI_Wtime and the calls that work at any
/// time read it without the lock.
static ACTIVE: RankLocal<AtomicBool> = RankLocal::new(|| AtomicBool::new(false));

pub(crate) fn active() -> bool {
    ACTIVE.get().load(Ordering::Acquire)
}

/// Publish whether `w` runs (after MPI_Init, MPI_Finalize, and a session's
/// init and finalize).
pub(crate) fn refresh_active(w: &World) {
    ACTIVE.get().store(w.running(), Ordering::Release)
}

pub(crate) fn lock() -> MutexGuard<'static, Global> {
    let state = STATE.get();
    if let Some(g) = state.try_lock() {
        return g;
    }
    if !threads::multi() {
        return state.lock();
    }
    // the holder may sleep in a blocking wait: wake it to let us in
    threads::want_begin();
    let g = state.lock();
    threads::want_end();
    g
}

/// The lock if it is free now (at process exit, where waiting could hang).
pub(crate) fn try_lock() -> Option<MutexGuard<'static, Global>> {
    STATE.get().try_lock()
}

/// A pointer to the world, as a value of [`HELD`].
#[derive(Clone, Copy)]
struct HeldWorld(*mut World);

// SAFETY: a HeldWorld is only dereferenced by the thread that armed it
// (HELD is a thread-local, or the rank's in the many-ranks mode, where a
// rank runs on its host's one thread), while it holds the lock it got the
// world from.
unsafe impl Send for HeldWorld {}

thread_local! {
    static HELD_THREAD: Cell<HeldWorld> = const { Cell::new(HeldWorld(std::ptr::null_mut())) };
}

/// The world while this thread (the rank, in the many-ranks mode) holds the
/// lock in [`call`] (null otherwise): a call it makes meanwhile is nested.
static HELD: PerThread<HeldWorld> = PerThread::new(&HELD_THREAD, || {
    RankCell::new(HeldWorld(std::ptr::null_mut()))
});

/// Whether this thread holds the lock (a call from inside a callback the
/// library runs).
pub(crate) fn nested_now() -> bool {
    !HELD.get().0.is_null()
}

/// Arms [`HELD`] for the lifetime of a locked call.
struct Held;

impl Held {
    fn arm(w: &mut World) -> Held {
        HELD.set(HeldWorld(w as *mut World));
        Held
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD.set(HeldWorld(std::ptr::null_mut()));
    }
}

/// Calls that only read the state and change nothing outside their
/// output arguments: the ones a callback the library runs while it holds
/// its lock (a user reduction operator, a datatype conversion function)
/// may make (a nested call).
const NESTED_OK: &[&str] = &[
    "MPI_Comm_rank",
    "MPI_Comm_size",
    "MPI_Comm_get_name",
    "MPI_Comm_test_inter",
    "MPI_Comm_compare",
    "MPI_Query_thread",
    "MPI_Is_thread_main",
    "MPI_Get_processor_name",
    "MPI_Type_size",
    "MPI_Type_size_x",
    "MPI_Type_size_c",
    "MPI_Type_get_extent",
    "MPI_Type_get_extent_x",
    "MPI_Type_get_extent_c",
    "MPI_Type_get_true_extent",
    "MPI_Type_get_true_extent_x",
    "MPI_Type_get_true_extent_c",
    "MPI_Type_extent",
    "MPI_Type_lb",
    "MPI_Type_ub",
    "MPI_Type_get_envelope",
    "MPI_Type_get_envelope_c",
    "MPI_Type_get_contents",
    "MPI_Type_get_contents_c",
    "MPI_Type_get_name",
    "MPI_Group_size",
    "MPI_Group_rank",
    "MPI_Op_commutative",
    "MPI_Topo_test",
    "MPI_Cartdim_get",
    "MPI_Cart_get",
    "MPI_Cart_rank",
    "MPI_Cart_coords",
    "MPI_Get_count",
    "MPI_Get_elements",
    "MPI_Get_elements_x",
];

/// MPI_Wtime from inside a callback the library runs: the virtual time of
/// the call it interrupts (None when not nested).
pub(crate) fn nested_vtime() -> Option<crate::model::VTime> {
    let held = HELD.get().0;
    // SAFETY: as in `nested`; only read.
    (!held.is_null()).then(|| unsafe { (*held).ep.vtime() })
}

/// MPI_Abort from inside a callback the library runs (the standard allows
/// it in a user reduction operator): end the job now.
pub(crate) fn nested_abort(code: c_int, msg: &str) {
    let held = HELD.get().0;
    if !held.is_null() {
        // SAFETY: as in `nested`; the process exits in abort.
        unsafe { (*held).ep.abort(code, msg) }
    }
}

/// A call by the thread that holds the lock (from inside a callback the
/// library runs). A call that only reads the state runs on it at once,
/// without clock events (its time is the callback's, i.e. the program's
/// computation); any other fails with MPI_ERR_OTHER (it would change what
/// the interrupted call is working on, or wait for itself).
fn nested(
    held: *mut World,
    call: &str,
    comm: MPI_Comm,
    f: impl FnOnce(&mut World) -> MpiResult<()>,
) -> c_int {
    // SAFETY: `held` is the world this thread locked in an enclosing `call`
    // (HELD is armed only while that guard lives, and only this thread
    // reads it). That call is suspended inside a callback of the program,
    // which it runs without touching the world; the calls allowed here only
    // read it (NESTED_OK), so the enclosing call finds it unchanged.
    let w = unsafe { &mut *held };
    let r = if NESTED_OK.contains(&call) {
        f(w)
    } else {
        Err(MpiError::new(
            sys::MPI_ERR_OTHER,
            "called from inside a callback that MPI runs in the middle of another call              (e.g. a user reduction operator): only calls that query MPI objects may be              made there",
        ))
    };
    let rc = match r {
        Ok(()) => sys::MPI_SUCCESS,
        Err(e) => error(w, comm, call, e),
    };
    run_pending();
    rc
}

/// A program's error handler to call once the state lock is released:
/// the function, the handle it receives and the error code.
#[derive(Clone, Copy)]
struct Pending {
    func: UserFn,
    handle: c_int,
    code: c_int,
}

thread_local! {
    static PENDING_THREAD: Cell<Option<Pending>> = const { Cell::new(None) };
}

/// The handler [`raise_through`] queued for [`run_pending`] (per thread, or
/// per rank in the many-ranks mode).
static PENDING: PerThread<Option<Pending>> =
    PerThread::new(&PENDING_THREAD, || RankCell::new(None));

/// Raise error code `code` through handler `eh` of object `handle`, from
/// `call`: under MPI_ERRORS_RETURN return the code; under
/// MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT print `e` and abort the job; a
/// program's handler is queued for [`run_pending`] (which the caller runs
/// once it has released the lock) and the code returned.
pub(crate) fn raise_through(
    w: &mut World,
    eh: sys::MPI_Errhandler,
    handle: c_int,
    call: &str,
    e: &MpiError,
) -> c_int {
    match w.errhandlers.action(eh) {
        Action::Return => e.class,
        Action::User(func) => {
            PENDING.set(Some(Pending {
                func,
                handle,
                code: e.class,
            }));
            e.class
        }
        Action::Fatal | Action::Abort => {
            let mut msg = fatal_message(w.rank(), call, e);
            if matches!(w.errhandlers.action(eh), Action::Abort) {
                msg.push_str(" (MPI_ERRORS_ABORT)");
            }
            eprintln!("{msg}");
            w.ep.abort(e.class, &msg)
        }
    }
}

/// Raise `e` from `call` through the error handler of the communicator that
/// owns the error (`e.comm`, else `comm`; MPI_COMM_WORLD's when that is
/// not a valid communicator): see [`raise_through`].
pub(crate) fn error(w: &mut World, comm: MPI_Comm, call: &str, e: MpiError) -> c_int {
    let comm = e.comm.unwrap_or(comm);
    let comm = if w.comms.get(comm).is_ok() {
        comm
    } else {
        sys::MPI_COMM_WORLD
    };
    let eh = w.errhandler_for(comm);
    raise_through(w, eh, comm, call, &e)
}

/// Call the program's error handler that [`error`] queued, if any. Only
/// without the state lock: the handler may call MPI.
pub(crate) fn run_pending() {
    let Some(p) = PENDING.replace(None) else {
        return;
    };
    let (mut handle, mut code) = (p.handle, p.code);
    match p.func {
        UserFn::Comm(Some(f)) => {
            // SAFETY: a handler the program registered with
            // MPI_Comm_create_errhandler, called as the standard specifies
            // (pointers to the communicator and the error code, which live
            // across the call; no further arguments, as MPICH).
            unsafe { f(&mut handle, &mut code) }
        }
        UserFn::Win(Some(f)) => {
            // SAFETY: a handler the program registered with
            // MPI_Win_create_errhandler, called with pointers to the window
            // and the error code, as for a communicator's.
            unsafe { f(&mut handle, &mut code) }
        }
        UserFn::File(Some(f)) => {
            // SAFETY: a handler the program registered with
            // MPI_File_create_errhandler, called as the standard specifies
            // (pointers to the file handle and the error code).
            unsafe { f(&mut handle, &mut code) }
        }
        UserFn::Session(Some(f)) => {
            // SAFETY: a handler the program registered with
            // MPI_Session_create_errhandler, called with pointers to the
            // session and the error code, as for a communicator's.
            unsafe { f(&mut handle, &mut code) }
        }
        UserFn::Comm(None) | UserFn::Win(None) | UserFn::File(None) | UserFn::Session(None) => {}
    }
}

/// An MPI call while neither the world model nor a session is active.
/// After MPI_Finalize (or a session's end) the handler of MPI_COMM_WORLD
/// still decides (a program's handler returns the class without being
/// called); before MPI_Init (no handler, no job to abort) the process
/// prints the error and exits, as MPICH does.
fn not_running(g: &mut Global, call: &str) -> c_int {
    let e = MpiError::new(
        sys::MPI_ERR_OTHER,
        match &g.0 {
            Some(w) if w.finalized => "called after MPI_Finalize",
            Some(_) => "called while neither MPI_Init nor a session is active",
            None => "called before MPI_Init or MPI_Session_init",
        },
    );
    if let Some(w) = g.0.as_ref() {
        // a program's handler is not called once MPI is finalized (it
        // could only fail again): the call returns the class
        let eh = w.errhandler_for(sys::MPI_COMM_WORLD);
        if matches!(w.errhandlers.action(eh), Action::Return | Action::User(_)) {
            return e.class;
        }
    }
    let who =
        g.0.as_ref()
            .map_or(String::new(), |w| format!("rank {}: ", w.rank()));
    eprintln!("vaced: {who}{call}: {} [MPI_ERR_OTHER]", e.msg);
    std::process::exit(1)
}

/// Run the body of MPI call `call` on communicator `comm` (MPI_COMM_WORLD
/// for calls without one).
pub(crate) fn call(
    call: &str,
    comm: MPI_Comm,
    f: impl FnOnce(&mut World) -> MpiResult<()>,
) -> c_int {
    let held = HELD.get().0;
    if !held.is_null() {
        return nested(held, call, comm, f);
    }
    let mut g = lock();
    if g.0.as_ref().is_none_or(|w| !w.running()) {
        return not_running(&mut g, call);
    }
    let w = g.0.as_mut().expect("running world");
    threads::register();
    let armed = Held::arm(w);
    w.ep.enter_call(call);
    crate::timeline::enter(call, || w.comms.get(comm).ok().map(|c| c.ctx), w.ep.vtime());
    let rc = match f(w) {
        Ok(()) => sys::MPI_SUCCESS,
        Err(e) => error(w, comm, call, e),
    };
    if let Some(m) = w.rma_fatal() {
        // a one-sided operation aimed at this rank failed (crate::rma::dynamic)
        let m = format!("vaced: rank {}: {call}, as a target of {m}", w.rank());
        eprintln!("{m}");
        w.ep.abort(sys::MPI_ERR_RMA_RANGE, &m)
    }
    crate::timeline::leave(w.ep.vtime());
    w.ep.leave();
    drop(armed);
    drop(g);
    threads::released();
    run_pending();
    rc
}

/// [`call`] for a blocking point-to-point call whose body may be run
/// again: under MPI_THREAD_MULTIPLE its waits may be suspended (the body
/// returns the `suspended` error, having kept what it started); the thread
/// then releases the lock, parks until another call has ended, and runs
/// the body again. Without MULTIPLE this is [`call`].
pub(crate) fn call_mut(
    call: &str,
    comm: MPI_Comm,
    mut f: impl FnMut(&mut World) -> MpiResult<()>,
) -> c_int {
    if !threads::multi() || nested_now() {
        return self::call(call, comm, f);
    }
    loop {
        let mut g = lock();
        if g.0.as_ref().is_none_or(|w| !w.running()) {
            return not_running(&mut g, call);
        }
        let w = g.0.as_mut().expect("running world");
        threads::register();
        let armed = Held::arm(w);
        w.ep.enter_call(call);
        crate::timeline::enter(call, || w.comms.get(comm).ok().map(|c| c.ctx), w.ep.vtime());
        w.ep.set_yielding(true);
        let r = f(w);
        w.ep.set_yielding(false);
        if let Err(e) = &r {
            if blocking::is_suspended(e) {
                crate::timeline::leave(w.ep.vtime());
                w.ep.leave();
                drop(armed);
                let seen = threads::suspend_begin();
                MutexGuard::unlock_fair(g);
                threads::suspend_end(seen);
                continue;
            }
        }
        let rc = match r {
            Ok(()) => sys::MPI_SUCCESS,
            Err(e) => error(w, comm, call, e),
        };
        crate::timeline::leave(w.ep.vtime());
        w.ep.leave();
        drop(armed);
        drop(g);
        threads::released();
        run_pending();
        return rc;
    }
}

/// Errors of the calls that work at any time (MPI_Error_string, ...): the
/// handler of MPI_COMM_WORLD while MPI runs, else just the class.
pub(crate) fn anytime_error(call: &str, e: MpiError) -> c_int {
    if !active() {
        return e.class;
    }
    let mut g = lock();
    let rc = match g.0.as_mut() {
        Some(w) if w.running() => error(w, sys::MPI_COMM_WORLD, call, e),
        _ => e.class,
    };
    drop(g);
    run_pending();
    rc
}
