//! The engine's decisions, for a library that mirrors its traffic and
//! follows them: which message a wildcard-source receive takes
//! ([`vaced_eng_matched`]), which requests a test or a wait for any finds
//! complete ([`vaced_eng_testsome`], [`vaced_eng_waitsome`]), what a probe
//! finds ([`vaced_eng_probe`], [`vaced_eng_iprobe`], the matched probes).
//!
//! Timing rules: those of vaced's own library, to the call. A test is a
//! zero-length wait at the rank's virtual time; a wait for any ends at the
//! earliest completion; a wildcard receive or probe is decided by the
//! conservative rule (no message that could still arrive earlier). A
//! library whose own matching or completion order is the host's must give
//! its caller the engine's answer instead: post the wildcard receive with
//! the source the engine matched, report a test complete only when the
//! engine does, complete the request the engine names.
use super::{envelope, length, put, req_id, set_error, take_into, with, Api, EngStatus};
use crate::p2p::{ReqId, Status};
use crate::transport::RecvBuf;
use std::ffi::c_int;

/// `vaced_eng_matched`'s answer while no message is matched yet.
pub const NONE: c_int = -2;

/// The sender of the message matched to receive `req` (a wildcard-source
/// receive: once the engine decided it), [`NONE`] while none is, or -1.
#[no_mangle]
pub extern "C" fn vaced_eng_matched(req: i64) -> c_int {
    with("vaced_eng_matched", |a| {
        let Ok(r) = req_id(a, "vaced_eng_matched", req) else {
            return -1;
        };
        a.w.ep.matched_source(r).map_or(NONE, |s| s as c_int)
    })
    .unwrap_or(-1)
}

/// The `n` requests at `reqs`, or the reason one is none.
///
/// # Safety
/// `reqs` points to `n` readable handles (or `n` is 0).
unsafe fn request_list(a: &Api, what: &str, reqs: *const i64, n: c_int) -> Option<Vec<ReqId>> {
    let n = usize::try_from(n)
        .ok()
        .filter(|_| !reqs.is_null() || n == 0);
    let Some(n) = n else {
        set_error(&format!("{what}: no array of requests"));
        return None;
    };
    if n == 0 {
        return Some(Vec::new());
    }
    // SAFETY: n readable handles by the caller's contract.
    let hs = unsafe { std::slice::from_raw_parts(reqs, n) };
    hs.iter().map(|&h| req_id(a, what, h).ok()).collect()
}

/// Write the complete positions to `idx`; their count, or -1.
///
/// # Safety
/// `idx` has room for as many positions as there were requests.
unsafe fn put_positions(done: &[usize], idx: *mut c_int) -> c_int {
    for (k, &i) in done.iter().enumerate() {
        // SAFETY: at most n positions, and idx holds n (caller).
        unsafe { idx.add(k).write(i as c_int) };
    }
    done.len() as c_int
}

/// Test the `n` requests at `reqs` (`MPI_Test*`: a zero-length wait at the
/// rank's virtual time): the positions of those complete now go to `idx`,
/// earliest completion first; their count, or -1. Nothing is freed
/// ([`vaced_eng_take`] takes a complete request).
///
/// # Safety
/// `reqs` points to `n` readable handles and `idx` to room for `n` ints.
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_testsome(reqs: *const i64, n: c_int, idx: *mut c_int) -> c_int {
    with("vaced_eng_testsome", |a| {
        // SAFETY: the caller's contract.
        let Some(ids) = (unsafe { request_list(a, "vaced_eng_testsome", reqs, n) }) else {
            return -1;
        };
        let done = a.w.ep.test(&ids);
        // SAFETY: idx holds n ints (caller).
        unsafe { put_positions(&done, idx) }
    })
    .unwrap_or(-1)
}

/// Wait until one of the `n` requests at `reqs` is complete
/// (`MPI_Waitany` / `MPI_Waitsome`): the positions of those complete when
/// the wait ends go to `idx`, earliest completion first; their count (at
/// least 1), or -1. Nothing is freed.
///
/// # Safety
/// As [`vaced_eng_testsome`].
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_waitsome(reqs: *const i64, n: c_int, idx: *mut c_int) -> c_int {
    with("vaced_eng_waitsome", |a| {
        // SAFETY: the caller's contract.
        let Some(ids) = (unsafe { request_list(a, "vaced_eng_waitsome", reqs, n) }) else {
            return -1;
        };
        if ids.is_empty() {
            set_error("vaced_eng_waitsome: no request to wait for");
            return -1;
        }
        let done = a.w.ep.wait_any(&ids);
        // SAFETY: idx holds n ints (caller).
        unsafe { put_positions(&done, idx) }
    })
    .unwrap_or(-1)
}

/// Take complete request `req` (one a test or a wait for any found
/// complete): its outcome goes to `st` (may be null) and it is freed,
/// without a wait. 0, or -1 (also when it is not complete).
///
/// # Safety
/// `st` is null or points to a writable `vaced_eng_status`.
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_take(req: i64, st: *mut EngStatus) -> c_int {
    with("vaced_eng_take", |a| {
        let Ok(r) = req_id(a, "vaced_eng_take", req) else {
            return -1;
        };
        if !a.w.ep.is_done(r) {
            set_error(&format!("vaced_eng_take: request {req} is not complete"));
            return -1;
        }
        // SAFETY: the caller's contract.
        unsafe { take_into(a, r, st) };
        0
    })
    .unwrap_or(-1)
}

fn probe_status(s: Status) -> EngStatus {
    EngStatus {
        source: s.source,
        tag: s.tag,
        bytes: s.bytes,
        done: 0.0,
    }
}

/// `MPI_Probe`: wait until a message matching (`src`, `tag`, `ctx`) is
/// there (a wildcard decided conservatively); its sender, tag and length go
/// to `st`. 0, or -1.
///
/// # Safety
/// `st` is null or points to a writable `vaced_eng_status`.
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_probe(
    src: c_int,
    tag: c_int,
    ctx: u32,
    st: *mut EngStatus,
) -> c_int {
    with("vaced_eng_probe", |a| {
        let Some((src, tag)) = envelope(a, "vaced_eng_probe", src, tag) else {
            return -1;
        };
        let s = a.w.ep.probe(src, tag, ctx);
        // SAFETY: the caller's contract.
        unsafe { put(st, probe_status(s)) };
        0
    })
    .unwrap_or(-1)
}

/// `MPI_Iprobe`: 1 when a matching message is there at the rank's virtual
/// time (its outcome in `st`), 0 when none is, or -1.
///
/// # Safety
/// As [`vaced_eng_probe`].
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_iprobe(
    src: c_int,
    tag: c_int,
    ctx: u32,
    st: *mut EngStatus,
) -> c_int {
    with("vaced_eng_iprobe", |a| {
        let Some((src, tag)) = envelope(a, "vaced_eng_iprobe", src, tag) else {
            return -1;
        };
        match a.w.ep.iprobe(src, tag, ctx) {
            None => 0,
            Some(s) => {
                // SAFETY: the caller's contract.
                unsafe { put(st, probe_status(s)) };
                1
            }
        }
    })
    .unwrap_or(-1)
}

/// `MPI_Mprobe`: as [`vaced_eng_probe`], and the message leaves matching;
/// the handle of the matched message (for [`vaced_eng_mrecv`]), or -1.
///
/// # Safety
/// As [`vaced_eng_probe`].
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_mprobe(
    src: c_int,
    tag: c_int,
    ctx: u32,
    st: *mut EngStatus,
) -> i64 {
    with("vaced_eng_mprobe", |a| {
        let Some((src, tag)) = envelope(a, "vaced_eng_mprobe", src, tag) else {
            return -1;
        };
        let (s, m) = a.w.ep.mprobe(src, tag, ctx);
        a.matched.push(m);
        // SAFETY: the caller's contract.
        unsafe { put(st, probe_status(s)) };
        m as i64
    })
    .unwrap_or(-1)
}

/// `MPI_Improbe`: as [`vaced_eng_iprobe`]; when it finds one, the matched
/// message's handle goes to `msg`. 1, 0 or -1.
///
/// # Safety
/// As [`vaced_eng_probe`]; `msg` points to a writable `int64_t`.
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_improbe(
    src: c_int,
    tag: c_int,
    ctx: u32,
    msg: *mut i64,
    st: *mut EngStatus,
) -> c_int {
    with("vaced_eng_improbe", |a| {
        let Some((src, tag)) = envelope(a, "vaced_eng_improbe", src, tag) else {
            return -1;
        };
        if msg.is_null() {
            set_error("vaced_eng_improbe: no place for the message handle");
            return -1;
        }
        match a.w.ep.improbe(src, tag, ctx) {
            None => 0,
            Some((s, m)) => {
                a.matched.push(m);
                // SAFETY: the caller's contract (st may be null; msg is not).
                unsafe {
                    put(st, probe_status(s));
                    msg.write(m as i64);
                }
                1
            }
        }
    })
    .unwrap_or(-1)
}

/// `MPI_Mrecv` / `MPI_Imrecv` of matched message `msg` into a receive of
/// up to `bytes`: a request handle, or -1.
#[no_mangle]
pub extern "C" fn vaced_eng_mrecv(msg: i64, bytes: u64) -> i64 {
    with("vaced_eng_mrecv", |a| {
        let k = usize::try_from(msg)
            .ok()
            .and_then(|m| a.matched.iter().position(|&x| x == m));
        let Some(k) = k else {
            set_error(&format!("vaced_eng_mrecv: {msg} is not a matched message"));
            return -1;
        };
        let Some(len) = length("vaced_eng_mrecv", bytes) else {
            return -1;
        };
        let m = a.matched.swap_remove(k);
        i64::from(a.w.ep.mrecv(RecvBuf::phantom(len), m))
    })
    .unwrap_or(-1)
}

/// `MPI_Cancel` of receive `req`: 1 when no message was matched to it (it
/// is then complete, cancelled: [`vaced_eng_take`] takes it), 0 when one
/// was (it completes as usual), or -1.
#[no_mangle]
pub extern "C" fn vaced_eng_cancel(req: i64) -> c_int {
    with("vaced_eng_cancel", |a| {
        let Ok(r) = req_id(a, "vaced_eng_cancel", req) else {
            return -1;
        };
        c_int::from(a.w.ep.cancel(r))
    })
    .unwrap_or(-1)
}

/// The engine's progress without waiting (a test of no request): records
/// that came are handled (a rendezvous send's DATA goes out when its ACK
/// came). For a library whose own progress runs operations the engine
/// mirrors (a schedule of a nonblocking collective) outside any engine
/// call: their peers may wait for this rank's engine. 0, or -1.
#[no_mangle]
pub extern "C" fn vaced_eng_progress() -> c_int {
    with("vaced_eng_progress", |a| {
        a.w.ep.test(&[]);
        0
    })
    .unwrap_or(-1)
}
