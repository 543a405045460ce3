//! Host transport: the job's shared-memory segment, per-rank inboxes with futex
//! doorbells, single-copy large transfers, core tokens, and the per-rank state
//! each rank publishes for the launcher.
//!
//! API contract (the p2p layer and the launcher rely on exactly this):
//! * [`Segment`]: `create(name, &SegmentConfig)` by the launcher, `attach(name)` by
//!   a rank, `unlink(name)`; `slot(rank)` gives the rank's published [`RankSlot`].
//! * [`Port`]: a rank's endpoint. `send(dest, parts)` appends one record (the
//!   concatenation of `parts`, at most `max_record()` bytes) to `dest`'s inbox and
//!   rings its doorbell; on a full inbox it moves its own incoming records to a
//!   private overflow queue and sleeps until space is freed (never deadlocks).
//!   `try_recv(out)` pops the next record (overflow first; `try_recv_split`
//!   pops it as a header and a payload); `wait_incoming()` sleeps until a
//!   record is there, giving the core token back while asleep (a holder
//!   *parks*: it is queued for a token by whoever sends to it or `poke`s it,
//!   and wakes once, token in hand; `prefer_next(rank)` names the peer to
//!   hand the token to first). `acquire_token` / `release_token` /
//!   `yield_token` manage the core token (FIFO hand-over but for that
//!   preference, at most `cores` holders).
//! * [`cma::pull`]: single-copy read of another rank's memory
//!   (`process_vm_readv`); [`spill`]: the shared-memory fallback.
//! * [`SendBuf`] / [`RecvBuf`]: user buffers handed down from the ABI.
//!
//! Also available: `Port::has_incoming` / `holds_token`; `Segment::job`,
//! `max_record`, `inbox_pending(rank)` (unread records in a rank's shared
//! inbox; a Blocked rank has no private overflow), `tokens_free`,
//! `token_waiters`; `RankSlot::set_abort_message` / `abort_message`;
//! `spill::remove_all(job)` for the launcher's cleanup. Dropping a `Port`
//! gives its core token back.
//!
//! Files: `segment` (layout, slots), `inbox` (the ring), `waiters` (senders
//! queued for space), `doorbell` and `futex` (sleeping and waking), `tokens`,
//! `shm` (shm_open/mmap plumbing), `cma`, `spill`, `buf`, `winshm` (the
//! memory of shared-memory windows).

pub mod buf;
pub mod cma;
pub mod cputime;
mod doorbell;
pub mod fatal;
pub mod flows;
mod futex;
pub mod hosting;
mod inbox;
pub mod jitter;
pub mod netwatch;
pub mod process;
pub mod remote;
pub mod segment;
mod shm;
pub mod spill;
pub mod streamfile;
#[cfg(test)]
mod tests;
pub mod threads;
mod tokens;
mod waiters;
pub mod winshm;

pub use buf::{RecvBuf, SendBuf};
pub use flows::{FlowEntry, FlowRecord};
pub use futex::naps as host_sleeps;
pub use segment::{RankResult, RankSlot, RankState, Segment, SegmentConfig};
pub use tokens::batch_policy;

use inbox::{rec_size, Inbox};
use std::collections::VecDeque;
use std::ffi::c_int;
use std::sync::atomic::{fence, AtomicU64, Ordering};

/// A rank's endpoint on the job's segment.
pub struct Port {
    seg: Segment,
    rank: u32,
    /// Records taken out of our inbox while we waited to send (they come
    /// before anything still in the inbox).
    overflow: VecDeque<Vec<u8>>,
    holds_token: bool,
    /// Scratch list of producers to wake.
    wake: Vec<u32>,
    /// Random host delays for testing (`VACED_HOST_JITTER=seed`).
    jitter: Option<jitter::Jitter>,
    /// The rank our next sleep waits for, if known ([`Port::prefer_next`]).
    prefer: Option<u32>,
    /// A rank of the many-ranks mode: its host holds the core, the port
    /// takes no token (see `hosting`).
    hosted: bool,
    /// The job's idle-end count just before our last [`Port::idle_begin`].
    idle_epoch: u64,
}

impl Port {
    pub fn new(seg: Segment, rank: u32) -> Port {
        assert!(
            rank < seg.nranks(),
            "rank {rank} out of range (segment {} has {} ranks)",
            seg.name(),
            seg.nranks()
        );
        Port {
            seg,
            rank,
            overflow: VecDeque::new(),
            holds_token: false,
            wake: Vec::new(),
            jitter: jitter::Jitter::from_env(rank),
            prefer: None,
            hosted: hosting::is_host(),
            idle_epoch: 0,
        }
    }
    pub fn rank(&self) -> u32 {
        self.rank
    }
    pub fn segment(&self) -> &Segment {
        &self.seg
    }
    /// Largest record `send` accepts.
    pub fn max_record(&self) -> usize {
        self.seg.max_record()
    }
    /// Whether this port holds a core token.
    pub fn holds_token(&self) -> bool {
        self.holds_token
    }
    /// Append one record (concatenation of `parts`) to `dest`'s inbox.
    pub fn send(&mut self, dest: u32, parts: &[&[u8]]) -> bool {
        self.send_timed(dest, parts, None)
    }

    /// [`Port::send`] of a record that carries a message arriving at `ta_ps`
    /// on the target: the destination's inbox keeps the earliest such time
    /// until its consumer has taken everything (see [`Segment::unread_min`]).
    ///
    /// Returns false, the record dropped, when `dest` has finalized
    /// ([`Port::close`]): it reads nothing any more, and a record it will
    /// never take must not count in flight (the job would never look
    /// quiescent again).
    pub fn send_timed(&mut self, dest: u32, parts: &[&[u8]], ta_ps: Option<u64>) -> bool {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        assert!(
            len <= self.max_record(),
            "transport record of {len} bytes exceeds max_record {}",
            self.max_record()
        );
        if let Some(j) = &mut self.jitter {
            j.maybe_delay();
        }
        // Counted in flight before it can be seen (and received).
        self.seg.activity().fetch_add(1, Ordering::SeqCst);
        let need = rec_size(len);
        let mut gave_token = false;
        let mut dropped = false;
        loop {
            let inbox = self.seg.inbox(dest);
            {
                let _g = futex::lock(&inbox.hdr().lock);
                if self.seg.slot(dest).state() == RankState::Finalized {
                    waiters::remove(&self.seg, &inbox, self.rank);
                    dropped = true;
                    break;
                }
                if inbox.free_space() >= need {
                    waiters::remove(&self.seg, &inbox, self.rank);
                    if let Some(ta) = ta_ps {
                        inbox.note_arrival(ta);
                    }
                    inbox.write(parts, len);
                    break;
                }
                // Queue for space (keeping our place if still queued).
                if self
                    .seg
                    .slot(self.rank)
                    .space_waiting
                    .load(Ordering::Relaxed)
                    == 0
                {
                    waiters::push(&self.seg, &inbox, self.rank, need);
                }
            }
            // Full: give the core back and wait for space, moving whatever
            // reaches our own inbox aside so that nobody waits on us.
            if self.holds_token {
                give_back_token(&self.seg, self.rank, &mut self.holds_token);
                gave_token = true;
            }
            drain_own(&self.seg, self.rank, &mut self.overflow, &mut self.wake);
            // Sleep until there is room, records reach us, or the consumer
            // took us off its queue to wake us: then retry (another sender
            // may have been faster; then we queue again).
            let own = self.seg.inbox(self.rank);
            let me = self.seg.slot(self.rank);
            me.bell.wait_until(|| {
                inbox.free_space() >= need
                    || !own.is_empty()
                    || me.space_waiting.load(Ordering::Relaxed) == 0
            });
        }
        if dropped {
            self.seg.activity().fetch_sub(1, Ordering::SeqCst);
            if gave_token {
                self.acquire_token();
            }
            return false;
        }
        if ta_ps.is_some() {
            // The arrival was noted (a lower bound fell): announce it before
            // anything we do next can raise our own bound.
            self.seg.bump_generation();
        }
        self.wake(dest);
        if gave_token {
            self.acquire_token();
        }
        true
    }
    /// Finalizing: from now on records sent to us are dropped by their
    /// senders ([`Port::send_timed`]). Publishes [`RankState::Finalized`]
    /// (under our inbox lock, so no sender can write after it). Records
    /// already here stay for the caller to read (the last cancel requests
    /// are answered, the rest discarded) before it settles
    /// ([`Port::settle_unread`]).
    pub fn close(&mut self) {
        let own = self.seg.inbox(self.rank);
        let _g = futex::lock(&own.hdr().lock);
        self.seg.slot(self.rank).set_state(RankState::Finalized);
    }
    /// Pop the next incoming record into `out` (cleared first); false if none.
    /// Finding none, forget the noted arrivals ([`Port::settle_unread`]):
    /// the caller handles each record before asking for the next.
    pub fn try_recv(&mut self, out: &mut Vec<u8>) -> bool {
        if self.try_recv_keep(out) {
            return true;
        }
        self.settle_unread();
        false
    }
    /// [`Port::try_recv`] that leaves the noted arrivals alone.
    pub fn try_recv_keep(&mut self, out: &mut Vec<u8>) -> bool {
        self.try_recv_split(usize::MAX, out, &mut Vec::new())
    }
    /// [`Port::try_recv_keep`] that puts the record's first `n` bytes in
    /// `head` and the rest in `body` (each cleared first): a payload after a
    /// fixed-size header is copied out of the ring once, into a vector of
    /// its own.
    pub fn try_recv_split(&mut self, n: usize, head: &mut Vec<u8>, body: &mut Vec<u8>) -> bool {
        if let Some(mut rec) = self.overflow.pop_front() {
            *body = rec.split_off(n.min(rec.len()));
            *head = rec;
        } else {
            let own = self.seg.inbox(self.rank);
            if !own.pop_split(n, head, body) {
                return false;
            }
            space_freed(&self.seg, &own, &mut self.wake);
        }
        self.seg.activity().fetch_sub(1, Ordering::SeqCst);
        true
    }
    /// Everything read has been accounted for by the caller: forget the
    /// noted arrivals, unless a producer is writing right now. Returns the
    /// earliest arrival forgotten, if any (our bound rose).
    pub fn settle_unread(&mut self) -> Option<u64> {
        let own = self.seg.inbox(self.rank);
        let old = own.unread_min()?;
        if !self.overflow.is_empty() {
            return None;
        }
        let _g = futex::lock(&own.hdr().lock);
        if !own.is_empty() {
            return None;
        }
        let old = own.unread_min().unwrap_or(old);
        self.seg.bump_generation();
        own.clear_unread();
        Some(old)
    }
    /// Sleep until a record can be received or someone pokes us (our poke
    /// count is no longer `seen`); the core token is given back meanwhile.
    pub fn wait_poked(&mut self, seen: u32) {
        if self.has_incoming() || self.seg.slot(self.rank).pokes() != seen {
            return;
        }
        self.sleep(Some(seen));
    }
    /// Whether a record can be received now.
    pub fn has_incoming(&self) -> bool {
        !self.overflow.is_empty() || !self.seg.inbox(self.rank).is_empty()
    }
    /// Count this rank idle (asleep in a wait, nothing to do until a record
    /// arrives). Returns the job's activity as it is now that we are idle:
    /// [`Activity::quiescent`] means every rank is idle and nothing is in
    /// flight, which only the last rank to go idle can see.
    pub fn idle_begin(&mut self) -> Activity {
        self.idle_epoch = self.seg.idle_ends().load(Ordering::SeqCst);
        let v = self.seg.activity().fetch_add(1 << 32, Ordering::SeqCst) + (1 << 32);
        // this host may be quiet now: its bridge reports that
        self.seg.ring_bridge();
        Activity {
            word: v,
            nranks: self.seg.nranks(),
        }
    }
    /// No longer idle.
    pub fn idle_end(&mut self) {
        self.seg.activity().fetch_sub(1 << 32, Ordering::SeqCst);
        // After leaving the count, before changing anything we published
        // (see `quiet`).
        self.seg.idle_ends().fetch_add(1, Ordering::SeqCst);
    }
    /// After [`Port::idle_begin`] found the job quiescent: `read` what the
    /// ranks published, as it is while the job stays quiescent. `None`: a
    /// rank stopped being idle and the job is no longer quiescent.
    ///
    /// A rank still counts idle between its wake-up (by a poke, which is no
    /// record in flight) and its [`Port::idle_end`], and changes what it
    /// published only after that. So a quiescent count alone does not make
    /// a read consistent; an idle-end count that did not change from before
    /// the activity word was read until after `read` does. When it changed,
    /// the activity word is read anew, and if the job is quiescent again
    /// (the rank went idle again), so is `read`.
    pub fn quiet<T>(&mut self, mut read: impl FnMut(&Segment) -> T) -> Option<T> {
        if let Some(j) = &mut self.jitter {
            j.maybe_delay();
        }
        let seg = &self.seg;
        read_while_quiet(
            seg.idle_ends(),
            seg.activity(),
            seg.nranks(),
            self.idle_epoch,
            || read(seg),
        )
    }
    /// Name the rank whose record the next [`Port::wait_incoming`] waits
    /// for: if it waits for a core token, ours goes to it first.
    pub fn prefer_next(&mut self, rank: Option<u32>) {
        self.prefer = rank;
    }
    /// Sleep until a record can be received (token released while asleep).
    pub fn wait_incoming(&mut self) {
        if self.has_incoming() {
            self.prefer = None;
            return;
        }
        self.sleep(None);
    }
    /// Sleep until a record reaches our inbox or, with `pokes_seen`, our
    /// poke count is no longer that. Holding a core token, we park
    /// ([`tokens::park`]): the token goes to the next rank (the one we wait
    /// for first, if it is queued), and whoever wakes us queues us for a
    /// token, so that we wake once, token in hand. Without one we just
    /// sleep on our doorbell.
    fn sleep(&mut self, pokes_seen: Option<u32>) {
        let prefer = self
            .prefer
            .take()
            .filter(|&p| p != self.rank && p < self.seg.nranks());
        self.seg.slot(self.rank).set_state(RankState::Blocked);
        if let Some(hook) = IDLE_HOOK.get() {
            // another library's progress runs instead of sleeping (see
            // `set_idle_hook`); when it says it has nothing to do until
            // something reaches this rank (`set_quiet_hook`), the rank
            // sleeps until that or a record or a poke comes; otherwise the
            // core is offered to whoever else is ready between two rounds
            let quiet = QUIET_HOOK.get();
            let mut prefer = prefer;
            while !self.woken(pokes_seen) {
                hook();
                match quiet.map(|q| (q, q())) {
                    Some((q, QUIET)) if !self.woken(pokes_seen) => {
                        let cond = |p: &Port| p.woken(pokes_seen) || q() != QUIET;
                        self.sleep_until(prefer.take(), cond);
                    }
                    Some((q, QUIET_HERE)) if !self.woken(pokes_seen) => {
                        self.nap(|p| p.woken(pokes_seen) || q() != QUIET_HERE);
                    }
                    _ => self.offer_core(),
                }
            }
        } else {
            self.sleep_until(prefer, |p| p.woken(pokes_seen));
        }
        self.seg.slot(self.rank).set_state(RankState::Running);
    }
    /// A record is in our inbox, or (with `pokes_seen`) we were poked since.
    fn woken(&self, pokes_seen: Option<u32>) -> bool {
        !self.seg.inbox(self.rank).is_empty()
            || pokes_seen.is_some_and(|s| self.seg.slot(self.rank).pokes() != s)
    }
    /// Sleep until `cond(self)` holds. Holding a core token, we park
    /// ([`tokens::park`]): the token goes to the next rank (`prefer` first,
    /// if it is queued), and whoever wakes us ([`wake_rank`]) queues us for
    /// a token, so that we wake once, token in hand. Without one we just
    /// sleep on our doorbell.
    fn sleep_until(&mut self, prefer: Option<u32>, cond: impl Fn(&Port) -> bool) {
        let me = &*self;
        let ready = || cond(me);
        if self.holds_token {
            // A claim can be stale: a sender that read us parked, then
            // claimed us only after we had woken, taken its record and
            // parked again. Such a wake-up finds nothing: park again.
            let mut prefer = prefer;
            loop {
                tokens::park(&self.seg, self.rank, prefer.take(), ready);
                if ready() {
                    break;
                }
            }
        } else {
            self.seg.slot(self.rank).bell.wait_until(ready);
        }
        if let Some(j) = &mut self.jitter {
            j.maybe_delay();
        }
    }
    /// Hand our core token to a rank waiting for one, if any, and offer
    /// the CPU: a poll found nothing to do.
    fn offer_core(&mut self) {
        self.yield_token();
        std::thread::yield_now();
    }
    /// The other library's own wait (not the engine's) found nothing to
    /// do: if it says it has nothing to do until something reaches this
    /// rank (`set_quiet_hook`), sleep until then (rung by [`wake_rank`],
    /// the core token given away); otherwise offer the core. A record for
    /// the engine wakes us too: the caller stores what reached us before
    /// it waits again (`Core::absorb`), so that no sender waits on a full
    /// inbox for a rank that sits in that library's wait.
    pub fn idle_other(&mut self) {
        let Some((q, answer @ (QUIET | QUIET_HERE))) = QUIET_HOOK.get().map(|q| (q, q())) else {
            return self.offer_core();
        };
        self.seg.slot(self.rank).set_state(RankState::Blocked);
        if answer == QUIET {
            self.sleep_until(None, |p| q() != QUIET || p.has_incoming());
        } else {
            self.nap(|p| q() != QUIET_HERE || p.has_incoming());
        }
        self.seg.slot(self.rank).set_state(RankState::Running);
    }
    /// Sleep until `cond(self)` holds or one of the other library's
    /// sockets to other hosts is ready (they ring nobody: [`netwatch`]
    /// watches them), the core token given away meanwhile. A library that
    /// gave no socket table ([`netwatch::set_sockets_hook`]), or a process
    /// that cannot start the watcher, naps instead: [`NET_NAP`] at most, its
    /// progress then looking at the sockets itself.
    fn nap(&mut self, cond: impl Fn(&Port) -> bool) {
        let held = self.holds_token;
        self.release_token();
        let me = &*self;
        let bell = &self.seg.slot(self.rank).bell;
        let watch = netwatch::sockets()
            .and_then(|table| Some((netwatch::watch(&self.seg, self.rank).ok()?, table)));
        match watch {
            Some((w, table)) => {
                w.arm(table);
                bell.wait_until(|| w.fired() || cond(me));
                w.disarm();
            }
            None => bell.wait_until_for(|| cond(me), NET_NAP),
        }
        if held {
            self.acquire_token();
        }
    }
    /// A reason for rank `j` to wake was made true (a record in its inbox,
    /// a poke): queue it for a core token if it is parked, else ring it.
    pub fn wake(&self, j: u32) {
        wake_rank(&self.seg, j);
    }
    /// Tell rank `j` that a bound it waits on rose, and wake it.
    pub fn poke(&self, j: u32) {
        poke_rank(&self.seg, j);
    }
    pub fn acquire_token(&mut self) {
        if !self.holds_token && !self.hosted {
            tokens::acquire(&self.seg, self.rank);
            self.holds_token = true;
            TOKEN_HOLDER.store(self.rank, Ordering::Relaxed);
        }
    }
    pub fn release_token(&mut self) {
        give_back_token(&self.seg, self.rank, &mut self.holds_token);
    }
    /// Give the token to the next waiting rank, if any, and queue for it again.
    /// (Without a token, this acquires one.)
    pub fn yield_token(&mut self) {
        if self.hosted {
            hosting::yield_now();
        } else if self.holds_token {
            tokens::yield_(&self.seg, self.rank);
        } else {
            self.acquire_token();
        }
    }
}

thread_local! {
    /// See [`set_idle_hook`].
    static IDLE_HOOK: std::cell::Cell<Option<extern "C" fn()>> =
        const { std::cell::Cell::new(None) };
    /// See [`set_quiet_hook`].
    static QUIET_HOOK: std::cell::Cell<Option<extern "C" fn() -> c_int>> =
        const { std::cell::Cell::new(None) };
}

/// A rank whose process also runs another library that moves the data
/// (`abi::engine_api`: MPICH's progress engine) must keep that library
/// going while the engine waits for a record, or each would wait for the
/// other: with `hook` set, the calling thread's port calls it in a loop
/// instead of sleeping (see [`set_quiet_hook`] for when it sleeps anyway).
/// `None`: sleep again.
pub fn set_idle_hook(hook: Option<extern "C" fn()>) {
    IDLE_HOOK.set(hook);
}

/// The other library's "nothing to do until something reaches this rank"
/// ([`QUIET`]): nothing of its own in progress, nothing in its incoming
/// queues. Then a rank waiting in the engine (between two runs of the idle
/// hook) or in the library's own wait ([`Port::idle_other`]) sleeps, its
/// core given away, until the hook says otherwise; the library's senders
/// ring the ranks they deliver to ([`ring_other`]). [`QUIET_HERE`]: so on
/// this host, but peers on other hosts deliver through sockets that ring
/// nobody: such waits sleep until rung or until one of those sockets is
/// ready ([`netwatch`]; without the library's socket table, they nap:
/// [`NET_NAP`] at most), the core given away. 0 or `None`: they poll,
/// offering the core between two rounds.
pub fn set_quiet_hook(hook: Option<extern "C" fn() -> c_int>) {
    QUIET_HOOK.set(hook);
}

/// The quiet hook's answers (see [`set_quiet_hook`]).
pub const QUIET: c_int = 1;
pub const QUIET_HERE: c_int = 2;
/// The longest nap of a wait whose library may get something from another
/// host unannounced and gave no socket table to watch (see
/// [`set_quiet_hook`]); the kernel's timer slack
/// (50 us by default) comes on top. Measured on CG class S, 16 ranks on two
/// hosts of this 2-core machine (mpich-patch/README.md, "Several hosts"):
/// 20 us (so about 70) beats polling in wall and CPU time; 200 us and 20 us
/// with 1 us of slack lose to it.
pub const NET_NAP: std::time::Duration = std::time::Duration::from_micros(20);

/// The job's segment for the other library's senders ([`ring_other`]):
/// they may run inside an engine call, so they do not go through a port.
static RING_SEGMENT: std::sync::OnceLock<Segment> = std::sync::OnceLock::new();

/// Keep the job's segment for [`ring_other`] (the first call counts).
pub fn set_ring_segment(seg: Segment) {
    let _ = RING_SEGMENT.set(seg);
}

/// The rank of this process whose port holds a core token (`u32::MAX`:
/// none), for [`offer_core_anywhere`].
static TOKEN_HOLDER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(u32::MAX);

/// [`Port::release_token`] on a port's fields (`holds`: its flag), for a
/// caller that holds a borrow of the port's segment: the token goes back
/// and [`TOKEN_HOLDER`] forgets it.
fn give_back_token(seg: &Segment, rank: u32, holds: &mut bool) {
    if *holds {
        TOKEN_HOLDER.store(u32::MAX, Ordering::Relaxed);
        tokens::release(seg, rank);
        *holds = false;
    }
}

/// The other library polls (a spin loop of its own, inside an engine call
/// too): hand the core token this process's rank holds to a rank waiting
/// for one, if any, and take it back in turn; then offer the CPU. Without
/// this, a rank spinning with a token while the peer it waits for waits
/// for one would spin for ever.
pub fn offer_core_anywhere() {
    let holder = TOKEN_HOLDER.load(Ordering::Relaxed);
    if let Some(seg) = RING_SEGMENT.get().filter(|_| holder != u32::MAX) {
        tokens::yield_(seg, holder);
    }
    std::thread::yield_now();
}

/// The other library delivered something to rank `j` (its own shared
/// memory): wake it if it sleeps for that ([`Port::idle_other`], or the
/// engine's wait with a quiet hook). False without a segment
/// ([`set_ring_segment`]) or for a rank out of range.
pub fn ring_other(j: u32) -> bool {
    match RING_SEGMENT.get() {
        Some(seg) if j < seg.nranks() => {
            wake_rank(seg, j);
            true
        }
        _ => false,
    }
}

/// Run the hook of [`set_idle_hook`] once and offer the CPU: the engine
/// waits for something only the other library can give (see
/// `abi::engine_api::schedule`). False when there is no hook.
pub fn run_idle_hook() -> bool {
    match IDLE_HOOK.get() {
        Some(hook) => {
            hook();
            offer_core_anywhere();
            true
        }
        None => false,
    }
}

/// [`Port::wake`] without a port (any thread of the process).
pub fn wake_rank(seg: &Segment, j: u32) {
    if !tokens::claim_parked(seg, j) {
        seg.ring(j);
    }
}

/// [`Port::poke`] without a port (any thread of the process).
pub fn poke_rank(seg: &Segment, j: u32) {
    seg.slot(j).add_poke();
    wake_rank(seg, j);
}

/// The rule of [`Port::quiet`] over any activity word and idle-end count
/// (the in-memory link's too): `read` while the job stays quiescent, the
/// idle-end count having been `before` when the activity word was read;
/// `None` once it is not quiescent.
pub fn read_while_quiet<T>(
    idle_ends: &AtomicU64,
    activity: &AtomicU64,
    nranks: u32,
    mut before: u64,
    mut read: impl FnMut() -> T,
) -> Option<T> {
    loop {
        let v = read();
        let after = idle_ends.load(Ordering::SeqCst);
        if after == before {
            return Some(v);
        }
        before = after;
        if !Activity::of(activity.load(Ordering::SeqCst), nranks).quiescent() {
            return None;
        }
    }
}

/// A snapshot of the job's activity word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Activity {
    word: u64,
    nranks: u32,
}

impl Activity {
    /// The activity `word` of a job of `nranks` ranks.
    pub fn of(word: u64, nranks: u32) -> Activity {
        Activity { word, nranks }
    }
    pub fn idle(&self) -> u32 {
        (self.word >> 32) as u32
    }
    pub fn in_flight(&self) -> u32 {
        self.word as u32
    }
    /// Every rank idle and no record in flight: nothing can happen any more
    /// unless an idle rank acts on what it holds.
    pub fn quiescent(&self) -> bool {
        self.idle() == self.nranks && self.in_flight() == 0
    }
}

/// Move everything in `rank`'s inbox to its overflow queue.
fn drain_own(seg: &Segment, rank: u32, overflow: &mut VecDeque<Vec<u8>>, wake: &mut Vec<u32>) {
    let own = seg.inbox(rank);
    let mut moved = false;
    loop {
        let mut rec = Vec::new();
        if !own.pop(&mut rec) {
            break;
        }
        overflow.push_back(rec);
        moved = true;
    }
    if moved {
        space_freed(seg, &own, wake);
    }
}

/// Records were consumed from `own`: wake the producers waiting for space.
fn space_freed(seg: &Segment, own: &Inbox<'_>, wake: &mut Vec<u32>) {
    // Pairs with the fence in a producer's doorbell wait: either we see it
    // queued, or it sees the space we freed.
    fence(Ordering::SeqCst);
    if own.hdr().waiters.load(Ordering::Relaxed) == 0 {
        return;
    }
    {
        let _g = futex::lock(&own.hdr().lock);
        waiters::take_fitting(seg, own, own.free_space(), wake);
    }
    for r in wake.drain(..) {
        seg.ring(r);
    }
}

impl Drop for Port {
    fn drop(&mut self) {
        self.release_token();
    }
}
