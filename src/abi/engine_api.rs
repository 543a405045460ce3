//! The engine for another MPI library: a C API (`include/vaced_engine.h`)
//! through which a library that moves the data and matches messages itself
//! (MPICH's CH3 device, patched: `mpich-patch/`) has vaced's engine time
//! every message, so that Algorithms 1-3, the early and unexpected queues,
//! conservative decisions and the model's equations are this crate's code,
//! not a second implementation.
//!
//! The calling library mirrors its point-to-point traffic: each send it
//! starts and each receive it posts is started here too, with its length
//! and no bytes (the engine's records carry lengths only, like a replay's,
//! `crate::replay`); each request whose completion its caller observes is
//! waited or tested here. The engine's records travel through the job's own
//! transport (the rank joins the job `mpirun` started, as `MPI_Init` does):
//! the library's matching and the engine's agree as long as they see the
//! same receives in the same order with specific sources; where the
//! outcome depends on timing (a wildcard receive, a test, a wait for any,
//! a probe), the library follows the engine's decision ([`decisions`]). A
//! nonblocking collective's schedule is handed over whole when it starts
//! ([`schedule`]) and runs in the engine as vaced's own do. One-sided
//! communication is mirrored call by call, not packet by packet: each
//! window, operation and synchronization is done again by vaced's own RMA
//! code on a window without memory ([`rma`]).
//! Neither library may
//! stop the other: while the engine waits for a record it runs the
//! library's progress ([`vaced_eng_set_idle`]), and the library should wait
//! in the engine before it waits on its own.
//!
//! Timing rules are those of vaced's own library: [`vaced_eng_init`] is the
//! start event (virtual time 0); the CPU time between [`vaced_eng_leave`]
//! and the next [`vaced_eng_enter`] is the rank's computation (scaled by
//! `cpu.scale`); sends, receives and waits cost what the model says; the
//! library's own work inside a call costs nothing. Calls are for one thread
//! (the library's MPI_THREAD_SINGLE / FUNNELED); enter and leave nest (only
//! the outermost pair charges the computation).
use crate::model::VTime;
use crate::mpi::World;
use crate::p2p::{Endpoint, ReqId, SendMode};
use crate::transport::{RecvBuf, SendBuf};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString};

mod decisions;
mod rma;
mod schedule;

/// A receive from any source, or with any tag (`VACED_ENG_ANY`).
pub const ANY: c_int = -1;

/// A completed request's outcome (`vaced_eng_status`).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct EngStatus {
    /// The sender's rank (receives), -1 for sends.
    pub source: c_int,
    pub tag: c_int,
    /// Bytes received (or sent).
    pub bytes: u64,
    /// Virtual time at which the request completed, in seconds.
    pub done: f64,
}

struct Api {
    /// The rank's engine inside vaced's own library state (its windows
    /// mirror the calling library's: [`rma`]).
    w: World,
    /// Nesting of enter / leave pairs.
    depth: u32,
    finalized: bool,
    /// The name of the MPI call being entered (see `vaced_eng_enter`).
    name: String,
    /// Messages a matched probe took and no receive has yet.
    matched: Vec<usize>,
}

thread_local! {
    static API: RefCell<Option<Api>> = const { RefCell::new(None) };
    static ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    ERROR.with(|e| *e.borrow_mut() = c);
}

/// Run `f` on the engine; without one (before init, after finalize), the
/// reason goes to [`vaced_eng_error`] and `None` is returned.
fn with<R>(what: &str, f: impl FnOnce(&mut Api) -> R) -> Option<R> {
    API.with(|a| {
        let Ok(mut a) = a.try_borrow_mut() else {
            set_error(&format!(
                "{what}: called while the engine runs (from the idle hook, vaced_eng_set_idle)"
            ));
            return None;
        };
        with_api(what, a.as_mut(), f)
    })
}

fn with_api<R>(what: &str, api: Option<&mut Api>, f: impl FnOnce(&mut Api) -> R) -> Option<R> {
    match api {
        Some(api) if !api.finalized => Some(f(api)),
        Some(_) => {
            set_error(&format!("{what}: called after vaced_eng_finalize"));
            None
        }
        None => {
            set_error(&format!("{what}: called before vaced_eng_init"));
            None
        }
    }
}

/// A request handle from C, or the reason it is none.
fn req_id(api: &Api, what: &str, r: i64) -> Result<ReqId, ()> {
    match ReqId::try_from(r) {
        Ok(id) if api.w.ep.is_request(id) => Ok(id),
        _ => {
            set_error(&format!("{what}: {r} is not an active request"));
            Err(())
        }
    }
}

/// Rank `r` from C, or the reason it is none of the job's.
fn peer(api: &Api, what: &str, r: c_int) -> Option<u32> {
    let n = api.w.ep.size();
    let p = u32::try_from(r).ok().filter(|&p| p < n);
    if p.is_none() {
        set_error(&format!("{what}: rank {r} is not one of the job's {n}"));
    }
    p
}

/// A receive's or probe's source and tag from C ([`ANY`]: any), or the
/// reason they are none.
fn envelope(api: &Api, what: &str, src: c_int, tag: c_int) -> Option<(Option<u32>, Option<i32>)> {
    let src = match src {
        ANY => None,
        s => Some(peer(api, what, s)?),
    };
    Some((src, (tag != ANY).then_some(tag)))
}

fn status_of(api: &Api, r: ReqId) -> EngStatus {
    let s = api.w.ep.status(r);
    EngStatus {
        source: s.source,
        tag: s.tag,
        bytes: s.bytes,
        done: api.w.ep.done_at(r).map_or(0.0, VTime::as_secs_f64),
    }
}

/// # Safety
/// `st` is null or points to a writable `vaced_eng_status`.
unsafe fn put(st: *mut EngStatus, v: EngStatus) {
    if !st.is_null() {
        // SAFETY: non-null and writable by the caller's contract.
        unsafe { st.write(v) };
    }
}

/// Complete request `r` leaves the engine: its outcome goes to `st`.
///
/// # Safety
/// As [`put`].
unsafe fn take_into(api: &mut Api, r: ReqId, st: *mut EngStatus) {
    let s = status_of(api, r);
    api.w.ep.free(r);
    // SAFETY: the caller's contract.
    unsafe { put(st, s) };
}

/// A message length from C, or the reason it is none.
fn length(what: &str, bytes: u64) -> Option<usize> {
    let len = usize::try_from(bytes).ok();
    if len.is_none() {
        set_error(&format!("{what}: {bytes} bytes"));
    }
    len
}

/// Join the job `mpirun` started as rank `VACED_RANK` (the start event:
/// virtual time 0). 0 on success; otherwise -1 and [`vaced_eng_error`]
/// says why.
#[no_mangle]
pub extern "C" fn vaced_eng_init() -> c_int {
    init(None)
}

/// [`vaced_eng_init`] as rank `rank` (a library launched by its own
/// process manager knows its rank; `VACED_RANK` is not set then).
#[no_mangle]
pub extern "C" fn vaced_eng_init_as(rank: c_int) -> c_int {
    match u32::try_from(rank) {
        Ok(r) => init(Some(r)),
        Err(_) => {
            set_error(&format!("vaced_eng_init_as: rank {rank}"));
            -1
        }
    }
}

fn init(rank: Option<u32>) -> c_int {
    if API.with(|a| a.borrow().is_some()) {
        set_error("vaced_eng_init: called twice");
        return -1;
    }
    match Endpoint::join_env(false, rank) {
        Ok(ep) => {
            // the library's own launcher, not vaced's, is the rank's parent
            ep.record_fatal_signals();
            ep.share_ring();
            API.with(|a| {
                *a.borrow_mut() = Some(Api {
                    w: World::new(ep, crate::sys::MPI_THREAD_SINGLE),
                    depth: 0,
                    finalized: false,
                    name: String::new(),
                    matched: Vec::new(),
                })
            });
            0
        }
        Err(e) => {
            set_error(&format!("vaced_eng_init: {e}"));
            -1
        }
    }
}

/// While the engine waits for a record, call `progress` in a loop instead
/// of sleeping (null: sleep again). A library that moves the data itself
/// passes its progress engine: a peer may wait on it for data while this
/// rank waits in the engine. Engine calls from inside `progress` fail
/// (-1: a nested call), so `progress` must not start mirrored operations.
#[no_mangle]
pub extern "C" fn vaced_eng_set_idle(progress: Option<extern "C" fn()>) -> c_int {
    crate::transport::set_idle_hook(progress);
    0
}

/// The library's "nothing to do until something reaches this rank"
/// (non-zero): nothing of its own in progress, nothing in its incoming
/// queues (null: it never says so). With it, a rank whose engine waits
/// sleeps between two runs of the idle hook while it holds, and so does
/// the library's own wait ([`vaced_eng_idle`]); the library then rings
/// each rank it delivers to ([`vaced_eng_ring`]). Without it they poll,
/// offering the CPU between two rounds.
///
/// `VACED_MPICH_WAIT=poll` ignores the hook: every wait polls, as MPICH's
/// own progress engine does (to compare, or on a host with a core per rank).
#[no_mangle]
pub extern "C" fn vaced_eng_set_quiet(quiet: Option<extern "C" fn() -> c_int>) -> c_int {
    match std::env::var(ENV_WAIT).as_deref() {
        Ok("poll") => crate::transport::set_quiet_hook(None),
        Ok("sleep") | Err(_) => crate::transport::set_quiet_hook(quiet),
        Ok(other) => {
            set_error(&format!(
                "{ENV_WAIT}={other:?}: expected sleep (the default) or poll"
            ));
            return -1;
        }
    }
    0
}

/// The library's sockets to other hosts (`sockets` stores a pointer to its
/// table of `struct pollfd`, the events its progress waits for set,
/// negative descriptors ignored, and returns the number of entries; NULL:
/// none): a wait whose quiet hook answers 2 sleeps until one of them is
/// ready or the rank is rung, instead of napping. The table is copied at
/// each such wait, on the calling thread. 1: the waits will sleep on them;
/// 0: ignored, the waits poll (`VACED_MPICH_WAIT=poll`), and the library's
/// own polling had better look at its sockets.
#[no_mangle]
pub extern "C" fn vaced_eng_set_sockets(
    sockets: Option<crate::transport::netwatch::SocketsHook>,
) -> c_int {
    let polling = std::env::var(ENV_WAIT).as_deref() == Ok("poll");
    let hook = sockets.filter(|_| !polling);
    crate::transport::netwatch::set_sockets_hook(hook);
    hook.is_some() as c_int
}

/// How the calling library's waits wait (see [`vaced_eng_set_quiet`]).
pub const ENV_WAIT: &str = "VACED_MPICH_WAIT";

/// The library's own wait (not the engine's) found nothing to do: sleep
/// while the quiet hook ([`vaced_eng_set_quiet`]) holds, else offer the
/// CPU. -1 without an engine (before init, after finalize): the library
/// then waits its own way.
#[no_mangle]
pub extern "C" fn vaced_eng_idle() -> c_int {
    with("vaced_eng_idle", |a| a.w.ep.idle_other())
        .map(|()| 0)
        .unwrap_or(-1)
}

/// The library polls in a loop of its own: offer the core (its core token
/// to a rank waiting for one, then the CPU). Any thread, inside engine
/// calls too; without a token (before init, after finalize) it offers the
/// CPU only.
#[no_mangle]
pub extern "C" fn vaced_eng_yield() {
    crate::transport::offer_core_anywhere();
}

/// The library put something for rank `rank` in its own shared memory:
/// wake it if it sleeps for that. Any thread, inside engine calls too, and
/// after [`vaced_eng_finalize`] (a peer may still wait); -1 before init or
/// for a rank outside the job.
#[no_mangle]
pub extern "C" fn vaced_eng_ring(rank: c_int) -> c_int {
    match u32::try_from(rank) {
        Ok(r) if crate::transport::ring_other(r) => 0,
        _ => -1,
    }
}

/// The library aborts the job with exit code `code` (MPI_Abort, or a fatal
/// error under MPI's default handler), `message` saying why (NULL: none):
/// recorded for the launcher, which names this rank, its code and the
/// message whatever the library's process manager kills first. The library
/// goes on to end the job its own way. Any thread, inside engine calls and
/// after vaced_eng_finalize too; -1 before init.
///
/// # Safety
/// `message` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_abort(code: c_int, message: *const c_char) -> c_int {
    let msg = if message.is_null() {
        String::new()
    } else {
        // SAFETY: the caller passes a NUL-terminated string (or NULL,
        // handled above), valid for the call.
        unsafe { CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned()
    };
    if crate::transport::fatal::record_abort(code, msg.trim_end()) {
        0
    } else {
        set_error("vaced_eng_abort: called before vaced_eng_init");
        -1
    }
}

/// Why the last call that failed did (a C string owned by the engine, valid
/// until the next failure).
#[no_mangle]
pub extern "C" fn vaced_eng_error() -> *const c_char {
    ERROR.with(|e| e.borrow().as_ptr())
}

/// This rank, or -1 before init.
#[no_mangle]
pub extern "C" fn vaced_eng_rank() -> c_int {
    with("vaced_eng_rank", |a| a.w.ep.rank() as c_int).unwrap_or(-1)
}

/// The job's ranks, or -1 before init.
#[no_mangle]
pub extern "C" fn vaced_eng_size() -> c_int {
    with("vaced_eng_size", |a| a.w.ep.size() as c_int).unwrap_or(-1)
}

/// An MPI call begins (`call`: its name, for deadlock reports, or null):
/// the computation since the last call is charged.
///
/// # Safety
/// `call` is null or a C string.
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_enter(call: *const c_char) -> c_int {
    with("vaced_eng_enter", |a| {
        a.depth += 1;
        if a.depth > 1 {
            return;
        }
        if call.is_null() {
            return a.w.ep.enter();
        }
        // SAFETY: a C string by the caller's contract.
        let n = unsafe { CStr::from_ptr(call) }.to_string_lossy();
        // MPICH's bindings are `internal_Send` for MPI_Send (the name is
        // made in a buffer kept for it: this runs at every MPI call)
        match n.strip_prefix("internal_") {
            Some(rest) => {
                a.name.clear();
                a.name.push_str("MPI_");
                a.name.push_str(rest);
                a.w.ep.enter_call(&a.name);
            }
            None => a.w.ep.enter_call(&n),
        }
    })
    .map_or(-1, |_| 0)
}

/// The MPI call that began last ends.
#[no_mangle]
pub extern "C" fn vaced_eng_leave() -> c_int {
    with("vaced_eng_leave", |a| {
        if a.depth == 0 {
            set_error("vaced_eng_leave: no call to leave");
            return -1;
        }
        a.depth -= 1;
        if a.depth == 0 {
            a.w.ep.leave();
        }
        0
    })
    .unwrap_or(-1)
}

/// Start a send of `bytes` to `dest` (`mode`: 0 standard, 1 synchronous, 2
/// ready, 3 buffered). The request handle, or -1.
#[no_mangle]
pub extern "C" fn vaced_eng_isend(
    dest: c_int,
    tag: c_int,
    ctx: u32,
    bytes: u64,
    mode: c_int,
) -> i64 {
    with("vaced_eng_isend", |a| {
        let mode = match mode {
            0 => SendMode::Standard,
            1 => SendMode::Synchronous,
            2 => SendMode::Ready,
            3 => SendMode::Buffered,
            _ => {
                set_error(&format!("vaced_eng_isend: mode {mode} is none of 0-3"));
                return -1;
            }
        };
        let Some(dest) = peer(a, "vaced_eng_isend", dest) else {
            return -1;
        };
        let Some(len) = length("vaced_eng_isend", bytes) else {
            return -1;
        };
        i64::from(a.w.ep.isend(SendBuf::phantom(len), dest, tag, ctx, mode))
    })
    .unwrap_or(-1)
}

/// Post a receive of up to `bytes` from `src` with `tag` (either
/// [`ANY`]). The request handle, or -1.
#[no_mangle]
pub extern "C" fn vaced_eng_irecv(src: c_int, tag: c_int, ctx: u32, bytes: u64) -> i64 {
    with("vaced_eng_irecv", |a| {
        let Some((src, tag)) = envelope(a, "vaced_eng_irecv", src, tag) else {
            return -1;
        };
        let Some(len) = length("vaced_eng_irecv", bytes) else {
            return -1;
        };
        i64::from(a.w.ep.irecv(RecvBuf::phantom(len), src, tag, ctx))
    })
    .unwrap_or(-1)
}

/// Wait for request `req` (the clock moves to its completion if that is
/// later) and free it; its outcome goes to `st` (may be null). 0, or -1.
///
/// # Safety
/// `st` is null or points to a writable `vaced_eng_status`.
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_wait(req: i64, st: *mut EngStatus) -> c_int {
    with("vaced_eng_wait", |a| {
        let Ok(r) = req_id(a, "vaced_eng_wait", req) else {
            return -1;
        };
        a.w.ep.wait_all(&[r]);
        // SAFETY: the caller's contract.
        unsafe { take_into(a, r, st) };
        0
    })
    .unwrap_or(-1)
}

/// Test request `req`: 1 (complete, freed, outcome in `st`), 0 (not yet),
/// or -1.
///
/// # Safety
/// `st` is null or points to a writable `vaced_eng_status`.
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_test(req: i64, st: *mut EngStatus) -> c_int {
    with("vaced_eng_test", |a| {
        let Ok(r) = req_id(a, "vaced_eng_test", req) else {
            return -1;
        };
        if a.w.ep.test(&[r]).is_empty() {
            return 0;
        }
        // SAFETY: the caller's contract.
        unsafe { take_into(a, r, st) };
        1
    })
    .unwrap_or(-1)
}

/// The caller forgets request `req` (`MPI_Request_free`, or a request the
/// library destroys without its completion being observed): the engine
/// completes it in the background. 0, or -1.
#[no_mangle]
pub extern "C" fn vaced_eng_detach(req: i64) -> c_int {
    with("vaced_eng_detach", |a| {
        let Ok(r) = req_id(a, "vaced_eng_detach", req) else {
            return -1;
        };
        a.w.ep.detach(r);
        0
    })
    .unwrap_or(-1)
}

/// The rank's virtual time in seconds, as the MPI call `MPI_Wtime` reads
/// it (the computation since the last call is charged first).
#[no_mangle]
pub extern "C" fn vaced_eng_wtime() -> f64 {
    with("vaced_eng_wtime", |a| {
        if a.depth > 0 {
            return a.w.ep.vtime().as_secs_f64();
        }
        a.w.ep.enter();
        let t = a.w.ep.vtime();
        a.w.ep.leave();
        t.as_secs_f64()
    })
    .unwrap_or(0.0)
}

/// `seconds` of computation on the target, whatever the host measures
/// (`MPIX_Vaced_compute`). 0, or -1.
#[no_mangle]
pub extern "C" fn vaced_eng_compute(seconds: f64) -> c_int {
    with("vaced_eng_compute", |a| {
        if !seconds.is_finite() || seconds < 0.0 {
            set_error(&format!(
                "vaced_eng_compute: invalid computation time {seconds} s (must be finite and >= 0)"
            ));
            return -1;
        }
        if a.depth == 0 {
            a.w.ep.enter();
        }
        a.w.ep.compute(VTime::from_secs_f64(seconds));
        if a.depth == 0 {
            a.w.ep.leave();
        }
        0
    })
    .unwrap_or(-1)
}

/// The rank is done (`MPI_Finalize`): its results are published for the
/// launcher's report. 0, or -1.
#[no_mangle]
pub extern "C" fn vaced_eng_finalize() -> c_int {
    with("vaced_eng_finalize", |a| {
        if a.depth == 0 {
            a.w.ep.enter_call("MPI_Finalize");
        }
        a.w.ep.finalize();
        a.finalized = true;
        0
    })
    .unwrap_or(-1)
}
