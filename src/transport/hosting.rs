//! The transport's side of the many-ranks mode (`mpirun
//! --ranks-per-process`): a host process runs a contiguous block of ranks
//! as user-level contexts on one thread.
//!
//! * A hosted rank that would sleep on its doorbell suspends its context
//!   instead: [`park_hook`] is set on the host's thread, and
//!   `Doorbell::wait_until` calls it.
//! * Whoever rings a suspended rank ([`Segment::ring`]) pushes it on its
//!   host's ready stack (a lock-free stack of ranks through their slots,
//!   its top in the slot of the host's first rank).
//! * The host takes the whole stack at once ([`take_ready`]). When none of
//!   its ranks can run it sleeps in the kernel on the stack's top word
//!   ([`wait_ready`]), after marking the empty stack [`SLEEPING`]; a pusher
//!   that replaces a marked top wakes it. From another process a push costs
//!   what ringing a sleeping rank costs; within the host it costs no system
//!   call (the host is awake).
//! * Core tokens are the host's business: hosted ports take none. A host
//!   owns its core, except when there are more hosts than cores: then the
//!   hosts share the job's tokens, each queued for one through its first
//!   rank's slot ([`join_tokens`]), holding one while a rank of its runs.
use super::futex;
use super::segment::Segment;
use std::cell::Cell;
use std::sync::atomic::Ordering;

/// The top word of an empty ready stack whose host sleeps on it.
const SLEEPING: u32 = 1 << 31;

thread_local! {
    /// Set on a host's thread: suspend the running rank until it is ready.
    static PARK: Cell<Option<fn()>> = const { Cell::new(None) };
    /// Set on a host's thread: let the host's other ready ranks run first.
    static YIELD: Cell<Option<fn()>> = const { Cell::new(None) };
}

/// Make the calling thread a host: `park` suspends the running rank until it
/// is ready again, `yield_` lets the host's other ready ranks run first.
pub fn set_hooks(park: fn(), yield_: fn()) {
    PARK.set(Some(park));
    YIELD.set(Some(yield_));
}

/// The calling thread's park hook, if it is a host.
pub fn park_hook() -> Option<fn()> {
    PARK.get()
}

/// Whether the calling thread is a host (its ranks take no core tokens).
pub fn is_host() -> bool {
    PARK.get().is_some()
}

/// On a host's thread: let the host's other ready ranks run first (a rank's
/// `MPI_Test` that found nothing). Elsewhere nothing.
pub fn yield_now() {
    if let Some(y) = YIELD.get() {
        y()
    }
}

impl Segment {
    /// Ring rank `j`'s doorbell; a suspended hosted rank is pushed on its
    /// host's ready stack and the host woken.
    pub fn ring(&self, j: u32) {
        if self.is_remote(j) {
            // its records here wait for the bridge
            self.ring_bridge();
            return;
        }
        let slot = self.slot(j);
        if !slot.bell.ring() {
            return;
        }
        let Some(first) = slot.host() else {
            return;
        };
        if slot.rq_queued.swap(1, Ordering::SeqCst) != 0 {
            return;
        }
        let hs = self.slot(first);
        let mut head = hs.rq_head.load(Ordering::SeqCst);
        loop {
            slot.rq_next.store(head & !SLEEPING, Ordering::Relaxed);
            match hs
                .rq_head
                .compare_exchange_weak(head, j + 1, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => break,
                Err(h) => head = h,
            }
        }
        if head == SLEEPING {
            futex::wake(&hs.rq_head, 1);
        }
    }

    /// Ranks `first..first + count` are run by one host process.
    pub fn assign_host(&self, first: u32, count: u32) {
        for r in first..first + count {
            self.slot(r).host.store(first + 1, Ordering::Release);
        }
    }
}

/// The host whose first rank is `first`: take every rank pushed on its ready
/// stack since the last call, appending them to `out` in the order they
/// were pushed.
pub fn take_ready(seg: &Segment, first: u32, out: &mut Vec<u32>) {
    let head = &seg.slot(first).rq_head;
    // (a read first: the swap would take the line from the other hosts'
    // ringers even when there is nothing to take)
    if head.load(Ordering::Relaxed) == 0 {
        return;
    }
    let mut top = head.swap(0, Ordering::SeqCst) & !SLEEPING;
    let start = out.len();
    while top != 0 {
        let r = top - 1;
        let s = seg.slot(r);
        top = s.rq_next.load(Ordering::Relaxed);
        s.rq_queued.store(0, Ordering::SeqCst);
        out.push(r);
    }
    out[start..].reverse();
}

/// The host whose first rank is `first`: sleep in the kernel until a rank
/// was pushed on its ready stack.
pub fn wait_ready(seg: &Segment, first: u32) {
    let top = &seg.slot(first).rq_head;
    loop {
        match top.compare_exchange(0, SLEEPING, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) | Err(SLEEPING) => futex::wait(top, SLEEPING),
            Err(_) => return,
        }
    }
}

/// The host whose first rank is `first` runs `rank` now (`None`: none).
/// The launcher names it when the host dies of a signal.
pub fn set_current(seg: &Segment, first: u32, rank: Option<u32>) {
    seg.slot(first)
        .host_current
        .store(rank.map_or(0, |r| r + 1), Ordering::Release);
}

/// More hosts than cores: the host whose first rank is `first` (process
/// `pid`) takes part in the job's core tokens through that rank's slot.
pub fn join_tokens(seg: &Segment, first: u32, pid: u32) {
    super::tokens::join_as_host(seg, first, pid)
}

/// A host that joined the tokens: wait for a core token.
pub fn take_token(seg: &Segment, first: u32) {
    super::tokens::acquire(seg, first)
}

/// A host that joined the tokens: give its core token back.
pub fn give_token(seg: &Segment, first: u32) {
    super::tokens::release(seg, first)
}

/// A host that joined the tokens: hand its token to a waiting host, if
/// any, and wait for one again.
pub fn yield_token(seg: &Segment, first: u32) {
    super::tokens::yield_(seg, first)
}
