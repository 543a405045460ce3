//! Core tokens: at most `cores` ranks run application code at once.
//!
//! A pool of free tokens and a queue of waiting ranks (an intrusive doubly
//! linked list through the ranks' slots, O(ranks) memory) under one futex
//! lock in the segment header. A released token goes straight to a waiter,
//! whose doorbell is rung; only when nobody waits does it return to the
//! pool, so `free > 0` implies an empty queue.
//!
//! Who gets a released token: the first in line, except that a rank going
//! to sleep for a message from one peer hands it to that peer if it waits
//! for a token (an exchange between the two then costs one host context
//! switch instead of two); at most [`MAX_DIRECTED`] such hand-overs pass the
//! head of the queue by in a row.
//!
//! Parking: a token holder that sleeps for a message gives its token back
//! and is *parked*. Whoever gives it a reason to wake (a record, a poke)
//! queues it for a token instead of waking it ([`claim_parked`]), and the
//! rank handing it a token later wakes it, on that rank's CPU. A rank thus
//! wakes once per wait, token in hand, and nobody is woken just to queue.
//! Ranks run under `SCHED_BATCH` ([`batch_policy`]), so a woken rank does not
//! preempt the one that woke it, which is about to sleep.
//!
//! Pinning: when the host lets the job use at least `cores` CPUs (and
//! `cores` <= [`MAX_PINNED`]), token `k` stands for one of them (see
//! [`TokenState::init`] for which), and a rank given token `k` is pinned to
//! that CPU (`sched_setaffinity`, by the rank handing the token over, before
//! waking it; only when the rank is not pinned there already). Otherwise the kernel may wake the new holder on
//! the CPU where the other holder runs, and one CPU idles while two ranks
//! share the other until the load balancer moves one (measured: 10–15 % of
//! the CPUs idle in a compute-bound 1024-rank job on 2 cores). A wake-up on
//! the waker's own CPU also costs far less than one across CPUs (measured on
//! this 2-vCPU VM with a two-process futex ping-pong: 3.4 µs against 30 µs
//! per hand-over).

use super::futex;
use super::segment::Segment;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

#[repr(C, align(64))]
pub struct TokenState {
    lock: AtomicU32,
    free: AtomicU32,
    /// First and last queued rank + 1 (0 = empty queue).
    head: AtomicU32,
    tail: AtomicU32,
    queued: AtomicU32,
    /// Bit k set: token k is free (with pinning only).
    free_ids: AtomicU64,
    /// Hand-overs in a row that passed the head of the queue by.
    directed: AtomicU32,
    /// CPU + 1 of token k (0: tokens are not pinned).
    cpu: [AtomicU32; MAX_PINNED],
}

/// Most tokens that can be pinned to CPUs.
pub const MAX_PINNED: usize = 64;

impl TokenState {
    /// Set up `cores` free tokens (at segment creation), pinned to `cores`
    /// of the CPUs this process may use when there are enough: consecutive
    /// ones from a place that depends on the creating process's id, so that
    /// jobs run side by side with fewer cores than the host has (a test
    /// suite's) do not all pile onto the first CPU.
    pub fn init(&self, cores: u32) {
        self.free.store(cores, Ordering::Relaxed);
        let cpus = allowed_cpus();
        if cores as usize <= MAX_PINNED && cpus.len() >= cores as usize {
            let start = std::process::id() as usize % cpus.len();
            let chosen = cpus.iter().cycle().skip(start).take(cores as usize);
            for (k, c) in chosen.enumerate() {
                self.cpu[k].store(c + 1, Ordering::Relaxed);
            }
            let all = if cores as usize == MAX_PINNED {
                u64::MAX
            } else {
                (1u64 << cores) - 1
            };
            self.free_ids.store(all, Ordering::Relaxed);
        }
    }
    /// Take a free token id (u32::MAX when tokens are not pinned: no ids).
    /// Caller holds the lock.
    fn take_id(&self) -> u32 {
        let ids = self.free_ids.load(Ordering::Relaxed);
        if ids == 0 {
            return u32::MAX;
        }
        let k = ids.trailing_zeros();
        self.free_ids.store(ids & !(1 << k), Ordering::Relaxed);
        k
    }
    /// Put token id `k` back. Caller holds the lock.
    fn put_id(&self, k: u32) {
        if (k as usize) < MAX_PINNED {
            self.free_ids.fetch_or(1 << k, Ordering::Relaxed);
        }
    }
    pub fn free(&self) -> u32 {
        self.free.load(Ordering::Acquire)
    }
    pub fn queued(&self) -> u32 {
        self.queued.load(Ordering::Acquire)
    }
    /// Whether some rank waits for a token (a hint, read without the lock).
    pub fn has_waiters(&self) -> bool {
        self.head.load(Ordering::Acquire) != 0
    }
}

/// Append `rank` to the queue. Caller holds the token lock.
fn enqueue(seg: &Segment, t: &TokenState, rank: u32) {
    let me = seg.slot(rank);
    me.tok_granted.store(0, Ordering::Relaxed);
    me.tok_next.store(0, Ordering::Relaxed);
    let last = t.tail.load(Ordering::Relaxed);
    me.tok_prev.store(last, Ordering::Relaxed);
    me.tok_queued.store(1, Ordering::Relaxed);
    match last {
        0 => t.head.store(rank + 1, Ordering::Release),
        last => seg
            .slot(last - 1)
            .tok_next
            .store(rank + 1, Ordering::Relaxed),
    }
    t.tail.store(rank + 1, Ordering::Relaxed);
    t.queued.fetch_add(1, Ordering::Release);
}

/// Take queued `w` off the queue and mark it granted token `id`. Caller
/// holds the token lock.
fn grant(seg: &Segment, t: &TokenState, w: u32, id: u32) {
    let me = seg.slot(w);
    let (prev, next) = (
        me.tok_prev.load(Ordering::Relaxed),
        me.tok_next.load(Ordering::Relaxed),
    );
    match prev {
        0 => t.head.store(next, Ordering::Release),
        p => seg.slot(p - 1).tok_next.store(next, Ordering::Relaxed),
    }
    match next {
        0 => t.tail.store(prev, Ordering::Relaxed),
        n => seg.slot(n - 1).tok_prev.store(prev, Ordering::Relaxed),
    }
    me.tok_queued.store(0, Ordering::Relaxed);
    t.queued.fetch_sub(1, Ordering::Release);
    me.tok_id.store(id, Ordering::Relaxed);
    me.tok_granted.store(1, Ordering::Release);
}

/// Most hand-overs in a row to a rank named by the releaser, past the head
/// of the queue, before the head is served anyway.
const MAX_DIRECTED: u32 = 32;

/// Pick who gets released token `id`, take it off the queue and mark it
/// granted: `prefer` if it is queued (the rank the releaser waits for: it
/// can run on at once, and an exchange between the two then costs one
/// switch instead of two), else the first in line. Caller holds the lock.
fn grant_next(seg: &Segment, t: &TokenState, prefer: Option<u32>, id: u32) -> Option<u32> {
    if let Some(p) = prefer {
        if seg.slot(p).tok_queued.load(Ordering::Relaxed) != 0
            && t.directed.load(Ordering::Relaxed) < MAX_DIRECTED
        {
            if t.head.load(Ordering::Relaxed) != p + 1 {
                t.directed.fetch_add(1, Ordering::Relaxed);
            }
            grant(seg, t, p, id);
            return Some(p);
        }
    }
    let first = t.head.load(Ordering::Relaxed);
    if first == 0 {
        return None;
    }
    t.directed.store(0, Ordering::Relaxed);
    grant(seg, t, first - 1, id);
    Some(first - 1)
}

/// Sleep on `rank`'s doorbell until a token was handed to it.
fn wait_granted(seg: &Segment, rank: u32) {
    let me = seg.slot(rank);
    if seg.token_is_hosts(rank) {
        // a host process: on the grant word itself (the doorbell is its
        // first rank's)
        while me.tok_granted.load(Ordering::Acquire) == 0 {
            futex::wait(&me.tok_granted, 0);
        }
        return;
    }
    me.bell
        .wait_until(|| me.tok_granted.load(Ordering::Acquire) != 0);
}

/// Wake `w`, granted token `id` (marked under the lock): pin it to the
/// token's CPU first, so that it wakes there.
fn wake_granted(seg: &Segment, w: u32, id: u32) {
    pin(seg, w, id);
    let slot = seg.slot(w);
    if seg.token_is_hosts(w) {
        futex::wake(&slot.tok_granted, 1);
    } else {
        seg.ring(w);
    }
}

/// Many-ranks mode with more host processes than cores: the host process
/// whose first rank is `first` (and whose pid is `pid`) takes part in the
/// core tokens through that rank's slot, whose own port takes none. Call
/// before [`acquire`].
pub fn join_as_host(seg: &Segment, first: u32, pid: u32) {
    seg.slot(first).set_pid(pid);
    seg.set_hosts_share_tokens();
}

/// The CPUs this process may run on, in order (empty if unknown).
fn allowed_cpus() -> Vec<u32> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity writes at most
    // size_of::<cpu_set_t>() bytes into it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .map(|c| c as u32)
            .collect()
    }
}

/// Pin `rank` to the CPU of token `id` (if tokens are pinned and it is not
/// there already). Best effort: a failure leaves the kernel to place it.
fn pin(seg: &Segment, rank: u32, id: u32) {
    let t = seg.tokens();
    let Some(cpu) = t.cpu.get(id as usize).map(|c| c.load(Ordering::Relaxed)) else {
        return;
    };
    let slot = seg.slot(rank);
    let pid = slot.pid();
    if cpu == 0 || pid == 0 || slot.pinned_cpu.load(Ordering::Relaxed) == cpu {
        return;
    }
    // SAFETY: cpu_set_t is plain data, set up with CPU_ZERO/CPU_SET for one
    // CPU below CPU_SETSIZE; sched_setaffinity only reads it.
    let ok = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_ZERO(&mut set);
        libc::CPU_SET((cpu - 1) as usize, &mut set);
        libc::sched_setaffinity(
            pid as libc::pid_t,
            std::mem::size_of::<libc::cpu_set_t>(),
            &set,
        ) == 0
    };
    if ok {
        slot.pinned_cpu.store(cpu, Ordering::Relaxed);
    }
}

/// Put the calling process under `SCHED_BATCH`: a rank woken by a hand-over
/// then does not preempt the rank that woke it, which goes on to sleep at
/// once (one context switch per hand-over instead of two). Best effort.
pub fn batch_policy() {
    // SAFETY: sched_param is plain data; sched_setscheduler only reads it.
    unsafe {
        let p = libc::sched_param { sched_priority: 0 };
        libc::sched_setscheduler(0, libc::SCHED_BATCH, &p);
    }
}

/// Under the lock: give `rank` a free token (its id, pinned) or queue it
/// (None).
fn take_or_enqueue(seg: &Segment, rank: u32) -> Option<u32> {
    let t = seg.tokens();
    let _g = futex::lock(&t.lock);
    let free = t.free.load(Ordering::Relaxed);
    if free > 0 {
        t.free.store(free - 1, Ordering::Release);
        let id = t.take_id();
        seg.slot(rank).tok_id.store(id, Ordering::Relaxed);
        Some(id)
    } else {
        enqueue(seg, t, rank);
        None
    }
}

/// Take a free token, or queue (FIFO) and sleep until one is handed over.
pub fn acquire(seg: &Segment, rank: u32) {
    match take_or_enqueue(seg, rank) {
        Some(id) => pin(seg, rank, id),
        None => wait_granted(seg, rank),
    }
}

/// [`RankSlot::parked`](super::segment::RankSlot): not parked.
const UNPARKED: u32 = 0;
/// Parked, nobody has claimed it yet.
const PARKED: u32 = 1;
/// Parked and claimed: queued for a token (or handed one), so further
/// reasons to wake need no action until it runs.
const CLAIMED: u32 = 2;

/// Park: `rank` gives its token back (to `prefer` if it waits for one) and
/// sleeps until it is handed one again. Whoever claims it
/// ([`claim_parked`]) queues it for that token. `woken()` says whether a
/// reason to wake came before we slept; then we try to take our claim back
/// ourselves.
pub fn park(seg: &Segment, rank: u32, prefer: Option<u32>, woken: impl Fn() -> bool) {
    let me = seg.slot(rank);
    me.tok_granted.store(0, Ordering::Relaxed);
    me.parked.store(PARKED, Ordering::SeqCst);
    release_to(seg, rank, prefer);
    // Pairs with the fence in `claim_parked`: either the waker sees us
    // parked, or we see the reason it made true.
    std::sync::atomic::fence(Ordering::SeqCst);
    if woken()
        && me
            .parked
            .compare_exchange(PARKED, UNPARKED, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    {
        acquire(seg, rank);
    } else {
        wait_granted(seg, rank);
        // Whatever reached us while claimed is there for us to see now.
        me.parked.store(UNPARKED, Ordering::SeqCst);
    }
}

/// Give `rank` a reason to wake (made true by the caller before). If it is
/// parked, the first to claim it queues it for a token (or hands it a free
/// one and wakes it); once claimed, nothing more is needed (it will look
/// at everything when it runs). Returns false if it is not parked: then
/// ring its doorbell instead. A claim can land on a later parking than the
/// one we saw (the rank woke meanwhile, read our record and parked again):
/// it then wakes for nothing, and its caller parks again.
pub fn claim_parked(seg: &Segment, rank: u32) -> bool {
    std::sync::atomic::fence(Ordering::SeqCst);
    let slot = seg.slot(rank);
    match slot.parked.load(Ordering::SeqCst) {
        UNPARKED => return false,
        CLAIMED => return true,
        _ => {}
    }
    if let Err(now) =
        slot.parked
            .compare_exchange(PARKED, CLAIMED, Ordering::SeqCst, Ordering::SeqCst)
    {
        return now == CLAIMED;
    }
    if let Some(id) = take_or_enqueue(seg, rank) {
        slot.tok_granted.store(1, Ordering::Release);
        wake_granted(seg, rank, id);
    }
    true
}

/// Hand `rank`'s token to the first waiter, or put it back in the pool.
pub fn release(seg: &Segment, rank: u32) {
    release_to(seg, rank, None)
}

/// [`release`], handing the token to `prefer` if it waits for one (see
/// [`grant_next`]).
fn release_to(seg: &Segment, rank: u32, prefer: Option<u32>) {
    let t = seg.tokens();
    let id = seg.slot(rank).tok_id.load(Ordering::Relaxed);
    let woken = {
        let _g = futex::lock(&t.lock);
        let w = grant_next(seg, t, prefer, id);
        if w.is_none() {
            t.put_id(id);
            t.free.fetch_add(1, Ordering::Release);
        }
        w
    };
    if let Some(w) = woken {
        wake_granted(seg, w, id);
    }
}

/// If someone waits: hand the token over, queue at the back and sleep until
/// it comes back. Otherwise keep it (no lock, no syscall).
pub fn yield_(seg: &Segment, rank: u32) {
    let t = seg.tokens();
    if !t.has_waiters() {
        return;
    }
    let id = seg.slot(rank).tok_id.load(Ordering::Relaxed);
    let woken = {
        let _g = futex::lock(&t.lock);
        let Some(w) = grant_next(seg, t, None, id) else {
            return;
        };
        enqueue(seg, t, rank);
        w
    };
    wake_granted(seg, woken, id);
    wait_granted(seg, rank);
}
