//! Another library's nonblocking collectives (MPICH's `MPIDU_Sched`) as
//! compound requests of the engine: the library hands over the whole
//! schedule when it starts it ([`vaced_eng_sched`]), with lengths only, and
//! the engine runs it in virtual time as it runs vaced's own nonblocking
//! collectives (`crate::coll::nonblocking`), while the library moves the
//! data at the host's pace, mirroring none of the schedule's sends and
//! receives one by one. A wait or test of the collective's request is one
//! on the handle returned.
//!
//! Timing rules (those of `crate::coll::nonblocking`, `p2p::compound`):
//! * steps up to the first that ends a round form round 0, started in the
//!   call at tV: its receives are posted, then its sends start one after
//!   the other, each at the end of the previous one's copy; the call's
//!   clock ends where the last of them ends its copy;
//! * round k + 1 starts when round k is complete (the latest completion of
//!   its sends and receives); the library's local steps (reductions,
//!   copies, callbacks) cost nothing;
//! * the request completes when the last round has.
//!
//! A send whose length the library learns only while the schedule runs
//! (MPICH's deferred sends: a count a callback computes from an earlier
//! receive's status) is given later with [`vaced_eng_sched_length`], which
//! may be called from inside the engine (from the idle hook). When the
//! engine reaches that send before the library gave its length, it runs
//! the library's progress (the idle hook) until it has.
use super::{set_error, with};
use crate::model::VTime;
use crate::p2p::{Core, Link, Poll, Progress, ReqId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_int;

/// A step's kind (`vaced_eng_step.kind`).
pub const STEP_SEND: c_int = 0;
pub const STEP_SSEND: c_int = 1;
pub const STEP_RECV: c_int = 2;
/// Local work of the library (costs nothing).
pub const STEP_LOCAL: c_int = 3;
/// A send's length given later (`VACED_ENG_DEFERRED`).
pub const DEFERRED: u64 = u64::MAX;

/// One entry of a schedule (`vaced_eng_step`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct EngStep {
    pub kind: c_int,
    /// The peer (a rank of the job), unused for local steps.
    pub peer: c_int,
    pub tag: c_int,
    pub ctx: u32,
    /// Bytes sent or at most received, or [`DEFERRED`] (sends).
    pub bytes: u64,
    /// Nonzero: the round ends here; later steps wait for every earlier one.
    pub barrier: c_int,
}

thread_local! {
    /// Lengths of deferred sends the library gave, by (schedule key, step).
    static LENGTHS: RefCell<HashMap<(u64, u32), u64>> = RefCell::new(HashMap::new());
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Send { sync: bool },
    Recv,
}

#[derive(Debug, Clone, Copy)]
struct Xfer {
    kind: Kind,
    peer: u32,
    tag: i32,
    ctx: u32,
    /// None: deferred.
    len: Option<usize>,
    /// Its index among the library's steps (the key of a deferred length).
    step: u32,
}

/// The schedule as the engine runs it: rounds of transfers.
struct Mirror {
    key: u64,
    rounds: Vec<Vec<Xfer>>,
    next: usize,
    live: Vec<ReqId>,
    started: bool,
    cursor: VTime,
    /// The cursor once round 0's sends have started (see `cursor()`).
    call_cursor: Option<VTime>,
}

impl Mirror {
    /// The length of deferred send `step`, once the library gave it.
    fn deferred(&self, step: u32) -> usize {
        loop {
            let got = LENGTHS.with(|l| l.borrow_mut().remove(&(self.key, step)));
            if let Some(b) = got {
                return b as usize;
            }
            if !crate::transport::run_idle_hook() {
                panic!(
                    "vaced: a schedule's deferred send (step {step}) has no length, and the \
                     library set no idle hook (vaced_eng_set_idle) that could give it"
                );
            }
        }
    }

    fn start_round<L: Link>(&mut self, core: &mut Core<L>) {
        let round = std::mem::take(&mut self.rounds[self.next]);
        self.next += 1;
        let t = self.cursor;
        for x in round.iter().filter(|x| matches!(x.kind, Kind::Recv)) {
            let len = x.len.unwrap_or(0);
            self.live
                .push(core.irecv_phantom_at(len, x.peer, x.tag, x.ctx, t));
        }
        for x in &round {
            let Kind::Send { sync } = x.kind else {
                continue;
            };
            let len = x.len.unwrap_or_else(|| self.deferred(x.step));
            let (r, tr) = core.isend_phantom_at(len, x.peer, x.tag, x.ctx, self.cursor, sync);
            self.cursor = tr;
            self.live.push(r);
        }
    }

    /// The round in flight is complete: the next may start at the time
    /// returned.
    fn end_round<L: Link>(&mut self, core: &mut Core<L>) -> VTime {
        let mut t = self.cursor;
        for r in std::mem::take(&mut self.live) {
            t = t.max(core.done_at(r).expect("complete request"));
            core.free(r);
        }
        t
    }
}

impl<L: Link> Progress<L> for Mirror {
    fn poll(&mut self, core: &mut Core<L>) -> Poll {
        let mut moved = false;
        loop {
            if self.started {
                if !self.live.iter().all(|&r| core.is_done(r)) {
                    return if moved { Poll::Moved } else { Poll::Idle };
                }
                self.cursor = self.end_round(core);
            } else {
                self.started = true;
                self.cursor = core.vtime();
            }
            if self.next == self.rounds.len() {
                return Poll::Done(self.cursor);
            }
            self.start_round(core);
            if self.call_cursor.is_none() {
                self.call_cursor = Some(self.cursor);
            }
            moved = true;
        }
    }

    fn live(&self) -> &[ReqId] {
        &self.live
    }

    /// Where the starting call's own sends end their copy (later rounds
    /// progress in the background, as in `crate::coll::nonblocking`).
    fn cursor(&self) -> VTime {
        self.call_cursor.unwrap_or(self.cursor)
    }
}

/// The rounds of transfers of `steps`, or the reason they are none.
fn rounds(steps: &[EngStep], size: u32) -> Result<Vec<Vec<Xfer>>, String> {
    let mut rounds = vec![Vec::new()];
    for (i, s) in steps.iter().enumerate() {
        let kind = match s.kind {
            STEP_SEND => Some(Kind::Send { sync: false }),
            STEP_SSEND => Some(Kind::Send { sync: true }),
            STEP_RECV => Some(Kind::Recv),
            STEP_LOCAL => None,
            k => return Err(format!("step {i}: kind {k} is none of 0-3")),
        };
        if let Some(kind) = kind {
            let peer = u32::try_from(s.peer)
                .ok()
                .filter(|&p| p < size)
                .ok_or_else(|| format!("step {i}: peer {} is not a rank of the job", s.peer))?;
            let len = if s.bytes == DEFERRED {
                if !matches!(kind, Kind::Send { .. }) {
                    return Err(format!("step {i}: only a send's length can be deferred"));
                }
                None
            } else {
                Some(usize::try_from(s.bytes).map_err(|_| {
                    format!(
                        "step {i}: {} bytes is more than this host can address",
                        s.bytes
                    )
                })?)
            };
            rounds.last_mut().expect("a round").push(Xfer {
                kind,
                peer,
                tag: s.tag,
                ctx: s.ctx,
                len,
                step: i as u32,
            });
        }
        if s.barrier != 0 {
            rounds.push(Vec::new());
        }
    }
    rounds.retain(|r| !r.is_empty());
    Ok(rounds)
}

/// Start the schedule of `n` steps at `steps` (a nonblocking collective
/// the library starts now); `key` names it in [`vaced_eng_sched_length`]
/// (unique among the schedules of this rank not yet complete). A request
/// handle (wait or test it as any), or -1.
///
/// # Safety
/// `steps` points to `n` readable steps (or `n` is 0).
#[no_mangle]
pub unsafe extern "C" fn vaced_eng_sched(key: u64, steps: *const EngStep, n: c_int) -> i64 {
    with("vaced_eng_sched", |a| {
        let steps: &[EngStep] = match usize::try_from(n) {
            Ok(0) => &[],
            // SAFETY: n readable steps by the caller's contract.
            Ok(n) if !steps.is_null() => unsafe { std::slice::from_raw_parts(steps, n) },
            _ => {
                set_error(&format!("vaced_eng_sched: no array of {n} steps"));
                return -1;
            }
        };
        let rounds = match rounds(steps, a.w.ep.size()) {
            Ok(r) => r,
            Err(e) => {
                set_error(&format!("vaced_eng_sched: {e}"));
                return -1;
            }
        };
        let m = Mirror {
            key,
            rounds,
            next: 0,
            live: Vec::new(),
            started: false,
            cursor: VTime::ZERO,
            call_cursor: None,
        };
        i64::from(a.w.ep.start_compound(Box::new(m)))
    })
    .unwrap_or(-1)
}

/// The length of deferred send `step` of schedule `key`, now that the
/// library knows it. May be called from inside the engine (the idle hook).
/// 0, or -1.
#[no_mangle]
pub extern "C" fn vaced_eng_sched_length(key: u64, step: c_int, bytes: u64) -> c_int {
    let Ok(step) = u32::try_from(step) else {
        set_error(&format!("vaced_eng_sched_length: step {step} is negative"));
        return -1;
    };
    LENGTHS.with(|l| l.borrow_mut().insert((key, step), bytes));
    0
}
