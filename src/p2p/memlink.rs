//! Ranks in one process over an in-memory [`Link`]: as threads (the engine's
//! unit tests, `p2p::testing`), or as coroutines of one thread (the replay
//! of a run under other targets, `crate::replay`): a rank with nothing to do
//! then suspends and [`Shared::next_ready`] says whom to resume, a switch
//! without a system call. The CPU clock reads whatever the owner set
//! ([`MemLink::set_cpu`]); [`Shared::stop`] ends every wait (the waiter
//! panics), so that one failing rank cannot leave the others blocked.
//! A replay's protocol messages go from engine to engine as they are,
//! neither encoded nor decoded ([`MemLink::carrying_messages`]).
use super::link::{Link, Next, Taken};
use crate::engine::wire::{Body, Msg, Payload};
use crate::model::VTime;
use crate::transport::{FlowEntry, FlowRecord};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

struct Inbox {
    q: Mutex<VecDeque<Item>>,
    cv: Condvar,
    early_min: AtomicU64,
    waiting_on: Mutex<String>,
    /// Earliest unread arrival (ps), u64::MAX: none.
    unread: AtomicU64,
    lower_bound: AtomicU64,
    /// Decision time + 1, 0: none.
    deciding: AtomicU64,
    pokes: AtomicU32,
    /// The rank is done: it reads nothing more (set under `q`'s lock).
    closed: AtomicBool,
    /// Its entries of the flow registry, and how many it used.
    flows: Vec<FlowEntry>,
    flow_used: AtomicU32,
    /// Flow window end + 1 it waits for, 0: none.
    resolving: AtomicU64,
}

/// What an inbox holds: a record ([`Link::send`]) or a message as it was
/// sent ([`Link::send_msg`]: no encoding, no decoding).
enum Item {
    Record(Vec<u8>),
    Msg(Msg),
}

/// A value alone on its cache lines (128 bytes: a processor may fetch
/// lines in pairs). Ranks on two threads update the job's counters all the
/// time: a counter on the line of what the other thread reads (the inboxes'
/// address, the other counters) makes that thread fetch the line again
/// after each update.
#[repr(align(128))]
struct Padded<T>(T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// What the ranks of one in-memory job share.
pub struct Shared {
    boxes: Vec<Inbox>,
    /// (idle ranks << 32) | records in flight, as in the shared segment.
    activity: Padded<AtomicU64>,
    /// How many times a rank stopped being idle (see `Port::quiet`).
    idle_ends: Padded<AtomicU64>,
    generation: Padded<AtomicU64>,
    deciders: AtomicU32,
    stopped: AtomicBool,
    /// Coroutine mode: per scheduling thread (see [`thread_of`]), the ranks
    /// to resume and what it sleeps on; which ranks wait; how many threads
    /// are resuming a rank now.
    ready: Option<Vec<Padded<Queue>>>,
    waiting: Vec<AtomicBool>,
    running: Padded<AtomicU32>,
}

/// A scheduling thread's ranks to resume, and what it sleeps on.
type Queue = (Mutex<Ready>, Condvar);

/// A scheduling thread's ranks to resume, and whether it sleeps waiting
/// for one (coroutine mode).
struct Ready {
    q: VecDeque<u32>,
    asleep: bool,
}

impl Shared {
    /// A job of `n` ranks as threads, with `flow_slots` registry entries
    /// each.
    pub fn new(n: u32, flow_slots: u32) -> Arc<Shared> {
        Shared::build(n, flow_slots, 0)
    }

    /// A job of `n` ranks as coroutines of `threads` host threads (rank r
    /// on thread [`thread_of`]): every rank is ready to start.
    pub fn coroutines(n: u32, flow_slots: u32, threads: u32) -> Arc<Shared> {
        Shared::build(n, flow_slots, threads.max(1))
    }

    fn build(n: u32, flow_slots: u32, threads: u32) -> Arc<Shared> {
        Arc::new(Shared {
            boxes: (0..n)
                .map(|_| Inbox {
                    q: Mutex::new(VecDeque::new()),
                    cv: Condvar::new(),
                    early_min: AtomicU64::new(0),
                    waiting_on: Mutex::new(String::new()),
                    unread: AtomicU64::new(u64::MAX),
                    lower_bound: AtomicU64::new(0),
                    deciding: AtomicU64::new(0),
                    pokes: AtomicU32::new(0),
                    closed: AtomicBool::new(false),
                    flows: (0..flow_slots).map(|_| FlowEntry::default()).collect(),
                    flow_used: AtomicU32::new(0),
                    resolving: AtomicU64::new(0),
                })
                .collect(),
            activity: Padded(AtomicU64::new(0)),
            idle_ends: Padded(AtomicU64::new(0)),
            generation: Padded(AtomicU64::new(0)),
            deciders: AtomicU32::new(0),
            stopped: AtomicBool::new(false),
            ready: (threads > 0).then(|| {
                (0..threads)
                    .map(|t| {
                        let q = (0..n).filter(|&r| thread_of(r, n, threads) == t).collect();
                        let ready = Ready { q, asleep: false };
                        Padded((Mutex::new(ready), Condvar::new()))
                    })
                    .collect()
            }),
            waiting: (0..n).map(|_| AtomicBool::new(false)).collect(),
            running: Padded(AtomicU32::new(0)),
        })
    }

    /// Coroutine mode: the next rank scheduling thread `t` is to resume,
    /// waiting up to `patience` for one; None if none came. The rank counts
    /// as running from the moment it leaves the queue (under its lock, so
    /// that [`Shared::stalled`] never sees it in neither place) until
    /// [`Shared::resumed`].
    pub fn next_ready(&self, t: u32, patience: std::time::Duration) -> Option<u32> {
        let Padded((q, cv)) = &self.ready.as_ref()?[t as usize];
        let mut q = q.lock().unwrap();
        if q.q.is_empty() && !patience.is_zero() {
            q.asleep = true;
            q = cv.wait_timeout(q, patience).unwrap().0;
            q.asleep = false;
        }
        let r = q.q.pop_front()?;
        self.running.fetch_add(1, Ordering::SeqCst);
        Some(r)
    }

    /// Coroutine mode: the rank [`Shared::next_ready`] gave is back (it
    /// suspended or finished).
    pub fn resumed(&self) {
        self.running.fetch_sub(1, Ordering::SeqCst);
    }

    /// Coroutine mode: no rank runs and none is ready, yet some have not
    /// finished: nothing can wake them any more. (A rank moves from a queue
    /// to running under the queue's lock, so reading `running` again after
    /// the queues catches one taken meanwhile.)
    pub fn stalled(&self) -> bool {
        self.running.load(Ordering::SeqCst) == 0
            && self.ready.as_ref().is_some_and(|r| {
                r.iter()
                    .all(|Padded((q, _))| q.lock().unwrap().q.is_empty())
            })
            && self.running.load(Ordering::SeqCst) == 0
    }

    /// Rank `r` may have something to do now.
    fn wake(&self, r: u32) {
        let b = &self.boxes[r as usize];
        match &self.ready {
            None => b.cv.notify_all(),
            Some(groups) => {
                if self.waiting[r as usize].swap(false, Ordering::SeqCst) {
                    let n = self.boxes.len() as u32;
                    let Padded((q, cv)) = &groups[thread_of(r, n, groups.len() as u32) as usize];
                    let asleep = {
                        let mut q = q.lock().unwrap();
                        q.q.push_back(r);
                        q.asleep
                    };
                    // (a notification is a system call: only for a thread
                    // that sleeps; one that is about to finds the rank
                    // queued, both under the queue's lock)
                    if asleep {
                        cv.notify_one();
                    }
                }
            }
        }
    }

    /// Wake every rank: a rank that waits, or waits later, panics.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        for (r, b) in self.boxes.iter().enumerate() {
            let _q = b.q.lock().unwrap_or_else(|e| e.into_inner());
            self.wake(r as u32);
        }
        for Padded((_, cv)) in self.ready.iter().flatten() {
            cv.notify_all();
        }
    }
}

/// The scheduling thread of rank `r` of `n` in coroutine mode with
/// `threads` threads: the ranks in contiguous blocks (ranks that talk to
/// each other are often near: most messages then stay on one thread, with
/// no wake across threads).
pub fn thread_of(r: u32, n: u32, threads: u32) -> u32 {
    (r as u64 * threads as u64 / n.max(1) as u64) as u32
}

/// The panic message of a rank woken by [`Shared::stop`].
pub const STOPPED: &str = "stopped: another rank failed";

/// The coroutine a rank runs in (coroutine mode): where it suspends.
pub type Yielder = corosensei::Yielder<(), ()>;

/// A pointer to the rank's [`Yielder`].
struct YieldTo(*const Yielder);
// SAFETY: a coroutine runs, suspends and resumes on the one thread that
// created it, and its link (which holds this pointer) lives inside it.
unsafe impl Send for YieldTo {}

pub struct MemLink {
    rank: u32,
    shared: Arc<Shared>,
    /// Coroutine mode: the coroutine to suspend when waiting.
    yielder: Option<YieldTo>,
    max_record: usize,
    cpu: u64,
    /// Receivers may copy large payloads straight from the sender's memory.
    single_copy: bool,
    /// Protocol messages go as they are, not as records.
    messages: bool,
    /// The idle-end count just before our last `idle_begin`.
    idle_epoch: u64,
}

impl MemLink {
    pub fn new(rank: u32, shared: Arc<Shared>, max_record: usize) -> MemLink {
        MemLink {
            rank,
            shared,
            max_record,
            cpu: 0,
            single_copy: true,
            messages: false,
            yielder: None,
            idle_epoch: 0,
        }
    }

    /// The least published (time, kind, rank), see `Link::next_event`.
    fn earliest(&self) -> Option<(VTime, u8, u32)> {
        (0..self.shared.boxes.len())
            .flat_map(|r| {
                let b = &self.shared.boxes[r];
                let e = b.early_min.load(Ordering::SeqCst);
                let d = b.deciding.load(Ordering::SeqCst);
                [
                    e.checked_sub(1).map(|t| (VTime::from_ps(t), 0, r as u32)),
                    d.checked_sub(1).map(|t| (VTime::from_ps(t), 1, r as u32)),
                ]
            })
            .flatten()
            .min()
    }

    /// Coroutine mode: the link of a rank running in the coroutine whose
    /// yielder is `y` (the link must not outlive that coroutine).
    pub fn in_coroutine(mut self, y: &Yielder) -> MemLink {
        assert!(
            self.shared.ready.is_some(),
            "a coroutine in a job of threads"
        );
        self.yielder = Some(YieldTo(y));
        self
    }

    /// Sleep until woken: give the thread back to the scheduler (coroutine
    /// mode) or wait on the inbox's condition variable.
    fn sleep<'a>(
        &self,
        b: &'a Inbox,
        q: std::sync::MutexGuard<'a, VecDeque<Item>>,
    ) -> std::sync::MutexGuard<'a, VecDeque<Item>> {
        if self.shared.stopped.load(Ordering::SeqCst) {
            // (not holding the inbox: a panic would poison it)
            drop(q);
            panic!("{STOPPED}");
        }
        let Some(y) = &self.yielder else {
            return b.cv.wait(q).unwrap();
        };
        self.shared.waiting[self.rank as usize].store(true, Ordering::SeqCst);
        drop(q);
        // SAFETY: the yielder belongs to the coroutine this code runs in
        // (see `in_coroutine`), which is alive while it runs.
        unsafe { (*y.0).suspend(()) };
        b.q.lock().unwrap()
    }

    /// Put `item` in `dest`'s inbox (see [`Link::send`]).
    fn deliver(&self, dest: u32, item: Item, ta: Option<VTime>) -> bool {
        let b = &self.shared.boxes[dest as usize];
        self.shared.activity.fetch_add(1, Ordering::SeqCst);
        {
            let mut q = b.q.lock().unwrap();
            if b.closed.load(Ordering::SeqCst) {
                self.shared.activity.fetch_sub(1, Ordering::SeqCst);
                return false;
            }
            if let Some(t) = ta {
                b.unread.fetch_min(t.ps(), Ordering::SeqCst);
            }
            q.push_back(item);
        }
        if ta.is_some() {
            self.shared.generation.fetch_add(1, Ordering::SeqCst);
        }
        self.shared.wake(dest);
        true
    }

    /// A link that carries protocol messages as they are, neither encoded
    /// nor decoded (a replay's: the engine's unit tests keep the records,
    /// whose path the real transport takes).
    pub fn carrying_messages(mut self) -> MemLink {
        self.messages = true;
        self
    }

    /// A link whose payloads always travel in records (a replay's sends
    /// have no memory to copy from).
    pub fn without_single_copy(mut self) -> MemLink {
        self.single_copy = false;
        self
    }

    /// What [`Link::cpu_now_ns`] reads from now on.
    pub fn set_cpu(&mut self, ns: u64) {
        self.cpu = ns;
    }

    /// Store a decision's (or a flow window's) time + 1 in `cell` (0: none),
    /// keeping the count of deciders.
    fn publish_wait(&self, cell: &AtomicU64, t: Option<VTime>) {
        let was = cell.swap(t.map_or(0, |t| t.ps() + 1), Ordering::SeqCst);
        match (was != 0, t.is_some()) {
            (false, true) => {
                self.shared.deciders.fetch_add(1, Ordering::SeqCst);
            }
            (true, false) => {
                self.shared.deciders.fetch_sub(1, Ordering::SeqCst);
            }
            _ => {}
        }
    }
}

impl Link for MemLink {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn size(&self) -> u32 {
        self.shared.boxes.len() as u32
    }
    fn max_record(&self) -> usize {
        self.max_record
    }
    fn send(&mut self, dest: u32, parts: &[&[u8]], ta: Option<VTime>) -> bool {
        self.deliver(dest, Item::Record(parts.concat()), ta)
    }
    fn send_msg(&mut self, dest: u32, m: &Msg, body: Body, ta: Option<VTime>) -> bool {
        if !self.messages {
            return super::link::send_records(self, dest, m, body, ta);
        }
        let payload = match body {
            Body::None => Payload::None,
            Body::Inline(b) => Payload::Inline(b.to_vec()),
            Body::Remote { pid, addr } => Payload::Remote { pid, addr },
        };
        let m = Msg {
            payload,
            ..m.clone()
        };
        self.deliver(dest, Item::Msg(m), ta)
    }
    fn take_msg(&mut self) -> Taken {
        let mut q = self.shared.boxes[self.rank as usize].q.lock().unwrap();
        match q.front() {
            None => Taken::Empty,
            Some(Item::Record(_)) => Taken::Records,
            Some(Item::Msg(_)) => {
                let Some(Item::Msg(m)) = q.pop_front() else {
                    unreachable!("the front is a message")
                };
                self.shared.activity.fetch_sub(1, Ordering::SeqCst);
                Taken::Msg(m)
            }
        }
    }
    fn close(&mut self) {
        let b = &self.shared.boxes[self.rank as usize];
        let _q = b.q.lock().unwrap();
        b.closed.store(true, Ordering::SeqCst);
    }
    fn settle_unread(&mut self) -> Option<VTime> {
        let b = &self.shared.boxes[self.rank as usize];
        let q = b.q.lock().unwrap();
        if !q.is_empty() || b.unread.load(Ordering::SeqCst) == u64::MAX {
            return None;
        }
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        let old = b.unread.swap(u64::MAX, Ordering::SeqCst);
        (old != u64::MAX).then(|| VTime::from_ps(old))
    }
    fn generation(&self) -> u64 {
        self.shared.generation.load(Ordering::SeqCst)
    }
    fn peer_bound(&self, j: u32) -> (Option<u64>, u64) {
        let b = &self.shared.boxes[j as usize];
        let u = b.unread.load(Ordering::SeqCst);
        (
            (u != u64::MAX).then_some(u),
            b.lower_bound.load(Ordering::SeqCst),
        )
    }
    fn publish_bound(&self, old: u64, new: u64) {
        let b = &self.shared.boxes[self.rank as usize];
        if new > old {
            self.shared.generation.fetch_add(1, Ordering::SeqCst);
            b.lower_bound.store(new, Ordering::SeqCst);
        } else if new < old {
            b.lower_bound.store(new, Ordering::SeqCst);
            self.shared.generation.fetch_add(1, Ordering::SeqCst);
        }
    }
    fn set_deciding(&self, t: Option<VTime>) {
        self.publish_wait(&self.shared.boxes[self.rank as usize].deciding, t);
    }
    fn deciding_at(&self, j: u32) -> Option<VTime> {
        let d = self.shared.boxes[j as usize]
            .deciding
            .load(Ordering::SeqCst);
        d.checked_sub(1).map(VTime::from_ps)
    }
    fn deciders(&self) -> u32 {
        self.shared.deciders.load(Ordering::SeqCst)
    }
    fn poke(&self, j: u32) {
        let b = &self.shared.boxes[j as usize];
        let _q = b.q.lock().unwrap();
        b.pokes.fetch_add(1, Ordering::SeqCst);
        self.shared.wake(j);
    }
    fn pokes(&self) -> u32 {
        self.shared.boxes[self.rank as usize]
            .pokes
            .load(Ordering::SeqCst)
    }
    fn wait_poked(&mut self, seen: u32) {
        let b = &self.shared.boxes[self.rank as usize];
        let mut q = b.q.lock().unwrap();
        while q.is_empty() && b.pokes.load(Ordering::SeqCst) == seen {
            q = self.sleep(b, q);
        }
    }
    fn try_recv(&mut self, out: &mut Vec<u8>) -> bool {
        let mut q = self.shared.boxes[self.rank as usize].q.lock().unwrap();
        if !matches!(q.front(), Some(Item::Record(_))) {
            return false;
        }
        let Some(Item::Record(r)) = q.pop_front() else {
            unreachable!("the front is a record")
        };
        *out = r;
        self.shared.activity.fetch_sub(1, Ordering::SeqCst);
        true
    }
    fn wait_incoming(&mut self) {
        let b = &self.shared.boxes[self.rank as usize];
        let mut q = b.q.lock().unwrap();
        while q.is_empty() {
            q = self.sleep(b, q);
        }
    }
    fn cpu_now_ns(&self) -> u64 {
        self.cpu
    }
    fn pull_pid(&self) -> Option<u32> {
        self.single_copy.then(std::process::id)
    }
    fn pull(&mut self, pid: u32, addr: u64, dst: &mut [u8]) -> Result<(), String> {
        crate::transport::cma::pull(pid, addr, dst).map_err(|e| e.to_string())
    }
    fn publish_vtime(&self, _t: VTime) {}
    fn yield_core(&mut self) {}
    fn publish_blocked(&self, early_min: Option<VTime>, waiting_on: &str) {
        let b = &self.shared.boxes[self.rank as usize];
        b.early_min
            .store(early_min.map_or(0, |t| t.ps() + 1), Ordering::SeqCst);
        *b.waiting_on.lock().unwrap() = waiting_on.to_string();
    }
    fn describes_waits(&self) -> bool {
        // a replay (coroutines) fails on a deadlock without a report
        self.yielder.is_none()
    }
    fn idle_begin(&mut self) -> bool {
        self.idle_epoch = self.shared.idle_ends.load(Ordering::SeqCst);
        let v = self.shared.activity.fetch_add(1 << 32, Ordering::SeqCst) + (1 << 32);
        crate::transport::Activity::of(v, self.shared.boxes.len() as u32).quiescent()
    }
    fn idle_end(&mut self) {
        self.shared.activity.fetch_sub(1 << 32, Ordering::SeqCst);
        self.shared.idle_ends.fetch_add(1, Ordering::SeqCst);
    }
    fn next_event(&mut self) -> Next {
        // Waking from a poke and `idle_end` are one step for a coroutine; a
        // thread (the engine's tests) still counts idle in between: the
        // same rule as `Port::quiet`.
        let sh = &self.shared;
        Next::of(crate::transport::read_while_quiet(
            &sh.idle_ends,
            &sh.activity,
            sh.boxes.len() as u32,
            self.idle_epoch,
            || self.earliest(),
        ))
    }
    fn flow_slots(&self) -> u32 {
        self.shared.boxes[0].flows.len() as u32
    }
    fn flow_write(&self, slot: u32, f: &FlowRecord) -> u64 {
        self.shared.boxes[self.rank as usize].flows[slot as usize].write(f)
    }
    fn flow_free(&self, slot: u32) {
        self.shared.boxes[self.rank as usize].flows[slot as usize].free()
    }
    fn flow_set_end(&self, slot: u32, end: VTime) {
        self.shared.boxes[self.rank as usize].flows[slot as usize].set_end(end.ps())
    }
    fn flow_read(&self, j: u32, slot: u32) -> Option<(u64, FlowRecord)> {
        self.shared.boxes[j as usize].flows[slot as usize].read()
    }
    fn flow_used(&self, j: u32) -> u32 {
        self.shared.boxes[j as usize]
            .flow_used
            .load(Ordering::SeqCst)
    }
    fn set_flow_used(&self, n: u32) {
        self.shared.boxes[self.rank as usize]
            .flow_used
            .store(n, Ordering::SeqCst)
    }
    fn flow_consume(&self, j: u32, slot: u32, seq: u64, end: VTime) {
        self.shared.boxes[j as usize].flows[slot as usize].consume(seq, end.ps())
    }
    fn flow_consumed(&self, slot: u32, seq: u64) -> bool {
        self.shared.boxes[self.rank as usize].flows[slot as usize].is_consumed(seq)
    }
    fn set_resolving(&self, t: Option<VTime>) {
        self.publish_wait(&self.shared.boxes[self.rank as usize].resolving, t);
    }
    fn resolving_at(&self, j: u32) -> Option<VTime> {
        let d = self.shared.boxes[j as usize]
            .resolving
            .load(Ordering::SeqCst);
        d.checked_sub(1).map(VTime::from_ps)
    }
    fn waiting_report(&self) -> Vec<Option<String>> {
        self.shared
            .boxes
            .iter()
            .map(|b| {
                (!b.closed.load(Ordering::SeqCst)).then(|| b.waiting_on.lock().unwrap().clone())
            })
            .collect()
    }
    fn deadlock(&mut self, report: &str) -> ! {
        panic!("{report}")
    }
    fn fail(&mut self, message: &str) -> ! {
        panic!("{message}")
    }
}
