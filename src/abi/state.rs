//! The process-wide MPI state behind a mutex, the init/finalize phase (an
//! atomic, so MPI_Initialized / MPI_Finalized never block), and the one path
//! every MPI call takes: lock, check the phase, `enter`, work, `leave`, and
//! errors through the communicator's error handler (a program's handler
//! runs after the lock is released: it may call MPI).
use crate::mpi::errhandler::{Action, UserFn};
use crate::mpi::error::{fatal_message, MpiError, MpiResult};
use crate::mpi::World;
use crate::sys::{self, MPI_Comm};
use parking_lot::{Mutex, MutexGuard};
use std::cell::Cell;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicU8, Ordering};

/// Holder of the world, so it can live in a static.
pub(crate) struct Global(pub(crate) Option<World>);

// SAFETY: the world holds raw user-buffer pointers inside the p2p endpoint
// (SendBuf / RecvBuf). They are only dereferenced by whichever thread holds
// STATE's lock, one thread at a time (at most MPI_THREAD_SERIALIZED is
// provided), and MPI requires those buffers to stay valid for the process
// until their operation completes, whatever thread calls MPI.
unsafe impl Send for Global {}

static STATE: Mutex<Global> = parking_lot::const_mutex(Global(None));

pub(crate) const UNINIT: u8 = 0;
pub(crate) const RUNNING: u8 = 1;
pub(crate) const FINALIZED: u8 = 2;
static PHASE: AtomicU8 = AtomicU8::new(UNINIT);

pub(crate) fn phase() -> u8 {
    PHASE.load(Ordering::Acquire)
}

pub(crate) fn set_phase(p: u8) {
    PHASE.store(p, Ordering::Release)
}

pub(crate) fn lock() -> MutexGuard<'static, Global> {
    STATE.lock()
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
    static PENDING: Cell<Option<Pending>> = const { Cell::new(None) };
}

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
    let Some(p) = PENDING.take() else {
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
        UserFn::Comm(None) | UserFn::Win(None) | UserFn::File(None) => {}
    }
}

/// An MPI call outside MPI_Init .. MPI_Finalize. After MPI_Finalize the
/// handler of MPI_COMM_WORLD still decides (a program's handler returns
/// the class without being called); before MPI_Init (no handler, no
/// job to abort) the process prints the error and exits, as MPICH does.
fn not_running(g: &mut Global, call: &str) -> c_int {
    let e = MpiError::new(
        sys::MPI_ERR_OTHER,
        match g.0 {
            Some(_) => "called after MPI_Finalize",
            None => "called before MPI_Init",
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
    let mut g = lock();
    if g.0.as_ref().is_none_or(|w| w.finalized) {
        return not_running(&mut g, call);
    }
    let w = g.0.as_mut().expect("running world");
    w.ep.enter_call(call);
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
    w.ep.leave();
    drop(g);
    run_pending();
    rc
}

/// Errors of the calls that work at any time (MPI_Error_string, ...): the
/// handler of MPI_COMM_WORLD while MPI runs, else just the class.
pub(crate) fn anytime_error(call: &str, e: MpiError) -> c_int {
    if phase() != RUNNING {
        return e.class;
    }
    let mut g = lock();
    let rc = match g.0.as_mut() {
        Some(w) if !w.finalized => error(w, sys::MPI_COMM_WORLD, call, e),
        _ => e.class,
    };
    drop(g);
    run_pending();
    rc
}
