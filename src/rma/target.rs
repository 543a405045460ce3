//! The target side: what a rank does with the packets aimed at its windows
//! when it deals with them (inside its own MPI calls, at `ttemp`, see
//! [`crate::p2p::Active`]).
//!
//! * PUT: the data is copied into the window: done at `ttemp + b/Bmem`.
//! * ACCUMULATE: the operator is applied element by element into the window
//!   (the copy is timed as a PUT's; applying it is library work here).
//! * GET_ACCUMULATE / Fetch_and_op: the old data is taken, the operator
//!   applied as for ACCUMULATE, the old data answered as for a GET.
//!   COMPARE_AND_SWAP: the new value is stored if the old one equals the
//!   compare value; the old value is answered.
//! * DONE (end of a start/complete epoch): counted with the operations it
//!   announces towards the end of the exposure epoch (see `pscw`).
//! * GET: the response (the data, an eager message of `b` bytes) leaves at
//!   `ttemp`: `tr = ttemp + b/Bmem`, `ta = tr + L(b, h)`.
//! * LOCK: granted at `ttemp` when the lock is free (LOCK_GRANTED leaves
//!   then), else queued; UNLOCK releases it at `ttemp` and grants the queued
//!   requests it frees, in arrival order, at that time; with WANT_ACK it
//!   answers ACK. FLUSH answers ACK (everything before it was applied).
//! * Packets of a fence epoch are counted; the target's closing fence waits
//!   (a request completed by the handler) until it has dealt with as many as
//!   the fence's reduce-scatter told it to expect, and ends no earlier than
//!   the last was done.
use super::memory::WinMem;
use super::packet::{self, Packet};
use crate::engine::wire::Msg;
use crate::model::VTime;
use crate::mpi::op::{basic_of, kernel, Kernel, Predef};
use crate::p2p::{Active, Reply, ReqId, ACTIVE_CTX_BIT};
use crate::sys;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

/// A passive-target lock.
#[derive(Debug, Default)]
struct Lock {
    shared: u32,
    exclusive: bool,
    /// Requests not granted yet: (origin world rank, lock type).
    waiting: VecDeque<(u32, i32)>,
}

impl Lock {
    fn try_take(&mut self, ty: i32) -> bool {
        let ok = if ty == sys::MPI_LOCK_EXCLUSIVE {
            !self.exclusive && self.shared == 0
        } else {
            !self.exclusive
        };
        if ok {
            if ty == sys::MPI_LOCK_EXCLUSIVE {
                self.exclusive = true;
            } else {
                self.shared += 1;
            }
        }
        ok
    }
    fn release(&mut self) {
        if self.exclusive {
            self.exclusive = false;
        } else {
            self.shared = self.shared.saturating_sub(1);
        }
    }
}

/// One window as its target side sees it.
pub struct TargetWin {
    /// The window's memory (this rank's part).
    pub mem: WinMem,
    /// The window's context id.
    ctx: u32,
    lock: Lock,
    /// Fence-epoch packets dealt with and not yet accounted for by a fence.
    pub counted: u64,
    /// The closing fence in progress: its request, the packets it waits for,
    /// and the latest time one of them was done.
    pub fence: Option<(ReqId, u64)>,
    pub last_done: VTime,
    /// The exposure epoch (post / wait) in progress, if any.
    pub pscw: Pscw,
}

/// The target side of a post/start/complete/wait exposure epoch: it ends
/// once every origin's DONE and every operation DONE announced were dealt
/// with, no earlier than the last was done.
#[derive(Debug, Default)]
pub struct Pscw {
    /// The request MPI_Win_wait / Win_test wait for, and the origins.
    pub req: Option<(ReqId, u32)>,
    /// Inside MPI_Win_wait (its packets are then related to the wait).
    pub waiting: bool,
    origins_done: u32,
    expected: u64,
    counted: u64,
    last: VTime,
}

impl Pscw {
    /// If the epoch is over: its request and end, counters reset.
    pub fn finished(&mut self) -> Option<(ReqId, VTime)> {
        let (r, n) = self.req?;
        if self.origins_done < n || self.counted < self.expected {
            return None;
        }
        let end = self.last;
        *self = Pscw::default();
        Some((r, end))
    }
}

/// The windows of this rank, by context id (shared between the handler
/// the engine holds and the MPI calls).
#[derive(Default)]
pub struct Targets {
    pub wins: HashMap<u32, TargetWin>,
    bmem_model: Option<crate::model::Model>,
    /// An operation that reached memory the window does not expose (a
    /// dynamic window's unattached memory): the job is aborted with it at
    /// the end of the MPI call that dealt with it (MPI_ERR_RMA_RANGE).
    pub fatal: Option<String>,
}

impl Targets {
    pub fn add(&mut self, ctx: u32, mem: WinMem, model: &crate::model::Model) {
        self.bmem_model = Some(model.clone());
        self.wins.insert(
            ctx,
            TargetWin {
                mem,
                ctx,
                lock: Lock::default(),
                counted: 0,
                fence: None,
                last_done: VTime::ZERO,
                pscw: Pscw::default(),
            },
        );
    }

    fn header_bytes(&self) -> u64 {
        self.bmem_model.as_ref().map_or(0, |m| m.header_bytes)
    }

    fn copy_time(&self, b: u64) -> VTime {
        self.bmem_model
            .as_ref()
            .map_or(VTime::ZERO, |m| m.mem_time(b))
    }
}

/// The handler installed in the engine.
pub struct Handler(pub Rc<RefCell<Targets>>);

impl Active for Handler {
    fn related(&self, m: &Msg) -> bool {
        // A closing fence waits for the packets of its epoch.
        let t = self.0.borrow();
        let ctx = m.ctx & !ACTIVE_CTX_BIT;
        t.wins
            .get(&ctx)
            .is_some_and(|w| w.fence.is_some() || w.pscw.waiting)
    }

    fn handle(&mut self, m: Msg, t: VTime, out: &mut Vec<Reply>) {
        let ctx = m.ctx & !ACTIVE_CTX_BIT;
        let body = match &m.payload {
            crate::engine::wire::Payload::Inline(v) => v.as_slice(),
            _ => &[],
        };
        let p = Packet::decode(body);
        let mut targets = self.0.borrow_mut();
        let copy = targets.copy_time(p.data.len() as u64);
        let hb = targets.header_bytes();
        let Some(w) = targets.wins.get_mut(&ctx) else {
            if m.tag == packet::UNLOCK && p.flags & packet::WANT_ACK == 0 {
                // An UNLOCK without ACK may be dealt with after the window
                // was freed (its origin did not wait for it): nothing to do.
                return;
            }
            panic!(
                "vaced: a one-sided packet from rank {} reached a window that is gone",
                m.src
            );
        };
        let mut done = t;
        if !p.runs.is_empty() {
            if let Err(e) = w.mem.check(&p.runs) {
                // Nothing is applied; a response still goes back (zeros) so
                // that the origin does not wait for ever, and the job ends
                // at the end of this rank's MPI call.
                let what = match m.tag {
                    packet::PUT => "MPI_Put",
                    packet::GET => "MPI_Get",
                    packet::ACC => "MPI_Accumulate",
                    packet::GACC => "MPI_Get_accumulate / MPI_Fetch_and_op",
                    _ => "MPI_Compare_and_swap",
                };
                targets.fatal.get_or_insert(format!(
                    "{what} from rank {}: {e} [MPI_ERR_RMA_RANGE]",
                    m.src
                ));
                let w = targets.wins.get_mut(&ctx).expect("found above");
                if matches!(m.tag, packet::GET | packet::GACC | packet::CAS) {
                    let n: u64 = p.runs.iter().map(|r| r.1).sum();
                    out.push(Reply::Send {
                        dest: m.src,
                        ctx: w.ctx,
                        tag: p.arg,
                        vsize: n,
                        data: vec![0; n as usize],
                    });
                }
                count(w, &p, t, out);
                return;
            }
        }
        match m.tag {
            packet::PUT => {
                w.mem.scatter(&p.runs, &p.data);
                done = t + copy;
            }
            packet::ACC => {
                w.mem.accumulate(&p);
                done = t + copy;
            }
            packet::GET => {
                let data = w.mem.gather(&p.runs);
                out.push(Reply::Send {
                    dest: m.src,
                    ctx: w.ctx,
                    tag: p.arg,
                    vsize: data.len() as u64,
                    data,
                });
            }
            packet::GACC => {
                let old = w.mem.gather(&p.runs);
                if p.op != sys::MPI_NO_OP {
                    w.mem.accumulate(&p);
                }
                done = t + copy;
                out.push(Reply::Send {
                    dest: m.src,
                    ctx: w.ctx,
                    tag: p.arg,
                    vsize: old.len() as u64,
                    data: old,
                });
            }
            packet::CAS => {
                let old = w.mem.gather(&p.runs);
                let half = p.data.len() / 2;
                if old == p.data[half..] {
                    w.mem.scatter(&p.runs, &p.data[..half]);
                }
                out.push(Reply::Send {
                    dest: m.src,
                    ctx: w.ctx,
                    tag: p.arg,
                    vsize: old.len() as u64,
                    data: old,
                });
            }
            packet::LOCK => {
                if w.lock.waiting.is_empty() && w.lock.try_take(p.arg) {
                    out.push(granted(m.src, w.ctx, hb));
                } else {
                    w.lock.waiting.push_back((m.src, p.arg));
                }
            }
            packet::UNLOCK => {
                w.lock.release();
                if p.flags & packet::WANT_ACK != 0 {
                    out.push(ack(m.src, w.ctx, hb));
                }
                while let Some(&(o, ty)) = w.lock.waiting.front() {
                    if !w.lock.try_take(ty) {
                        break;
                    }
                    w.lock.waiting.pop_front();
                    out.push(granted(o, w.ctx, hb));
                }
            }
            packet::FLUSH => out.push(ack(m.src, w.ctx, hb)),
            packet::DONE => {
                w.pscw.origins_done += 1;
                w.pscw.expected += p.arg as u64;
                w.pscw.last = w.pscw.last.max(t);
            }
            k => panic!("vaced: unknown one-sided packet kind {k}"),
        }
        count(w, &p, done, out);
    }
}

/// Account for a dealt-with packet in the fence or exposure epoch it
/// belongs to (`done`: when its work was done).
fn count(w: &mut TargetWin, p: &Packet, done: VTime, out: &mut Vec<Reply>) {
    if p.flags & packet::PSCW != 0 {
        w.pscw.counted += 1;
        w.pscw.last = w.pscw.last.max(done);
    }
    if let Some((r, end)) = w.pscw.finished() {
        out.push(Reply::Complete(r, end));
    }
    if p.flags & packet::COUNTED != 0 {
        w.counted += 1;
        w.last_done = w.last_done.max(done);
        if let Some((r, need)) = w.fence {
            if w.counted >= need {
                out.push(Reply::Complete(r, w.last_done));
                w.fence = None;
            }
        }
    }
}

fn granted(dest: u32, ctx: u32, vsize: u64) -> Reply {
    Reply::Send {
        dest,
        ctx,
        tag: packet::LOCK_GRANTED,
        vsize,
        data: Vec::new(),
    }
}

fn ack(dest: u32, ctx: u32, vsize: u64) -> Reply {
    Reply::Send {
        dest,
        ctx,
        tag: packet::ACK,
        vsize,
        data: Vec::new(),
    }
}

/// `inout = in (op) inout` on whole packed elements.
pub type AccKernel = Box<dyn Fn(&[u8], &mut [u8])>;

/// The kernel of a predefined operator on a basic type (checked at the
/// origin: only those reach a target; long double ones through the C
/// kernels the ABI registered when it checked the operation).
pub fn acc_kernel(op: i32, dtype: i32) -> AccKernel {
    let p = Predef::from_handle(op).expect("checked at the origin");
    let (b, _) = basic_of(dtype).expect("checked at the origin");
    match kernel(p, b) {
        Some(Kernel::Native(f)) => Box::new(f),
        Some(Kernel::LongDouble(o, kind)) => {
            let f = crate::mpi::op::long_double_kernel()
                .expect("vaced: long double kernels not registered (checked at the origin)");
            Box::new(move |a: &[u8], b: &mut [u8]| f(o, kind, a, b))
        }
        None => panic!("vaced: accumulate operator without a kernel (checked at the origin)"),
    }
}
