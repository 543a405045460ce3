//! Core tokens: at most `cores` ranks run application code at once.
//!
//! A pool of free tokens and a FIFO queue of waiting ranks (an intrusive list
//! through the ranks' slots, O(ranks) memory) under one futex lock in the
//! segment header. A released token goes straight to the first waiter, whose
//! doorbell is rung; only when nobody waits does it return to the pool, so
//! `free > 0` implies an empty queue.
//!
//! Pinning: when the host lets the job use at least `cores` CPUs (and
//! `cores` <= [`MAX_PINNED`]), token `k` stands for the `k`-th of them, and a
//! rank given token `k` is pinned to that CPU (`sched_setaffinity`, by the
//! rank handing the token over, before waking it; only when the rank is not
//! pinned there already). Otherwise the kernel may wake the new holder on
//! the CPU where the other holder runs, and one CPU idles while two ranks
//! share the other until the load balancer moves one (measured: 10–15 % of
//! the CPUs idle in a compute-bound 1024-rank job on 2 cores).

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
    /// CPU + 1 of token k (0: tokens are not pinned).
    cpu: [AtomicU32; MAX_PINNED],
}

/// Most tokens that can be pinned to CPUs.
pub const MAX_PINNED: usize = 64;

impl TokenState {
    /// Set up `cores` free tokens (at segment creation), pinned to the
    /// first `cores` CPUs this process may use when there are enough.
    pub fn init(&self, cores: u32) {
        self.free.store(cores, Ordering::Relaxed);
        let cpus = allowed_cpus();
        if cores as usize <= MAX_PINNED && cpus.len() >= cores as usize {
            for (k, c) in cpus.iter().take(cores as usize).enumerate() {
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
    match t.tail.load(Ordering::Relaxed) {
        0 => t.head.store(rank + 1, Ordering::Release),
        last => seg
            .slot(last - 1)
            .tok_next
            .store(rank + 1, Ordering::Relaxed),
    }
    t.tail.store(rank + 1, Ordering::Relaxed);
    t.queued.fetch_add(1, Ordering::Release);
}

/// Pop the first waiter and mark it granted. Caller holds the token lock.
fn grant_first(seg: &Segment, t: &TokenState) -> Option<u32> {
    let first = t.head.load(Ordering::Relaxed);
    if first == 0 {
        return None;
    }
    let w = first - 1;
    let next = seg.slot(w).tok_next.load(Ordering::Relaxed);
    t.head.store(next, Ordering::Release);
    if next == 0 {
        t.tail.store(0, Ordering::Relaxed);
    }
    t.queued.fetch_sub(1, Ordering::Release);
    seg.slot(w).tok_granted.store(1, Ordering::Release);
    Some(w)
}

/// Sleep on `rank`'s doorbell until a token was handed to it.
fn wait_granted(seg: &Segment, rank: u32) {
    let me = seg.slot(rank);
    me.bell
        .wait_until(|| me.tok_granted.load(Ordering::Acquire) != 0);
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

/// Take a free token, or queue (FIFO) and sleep until one is handed over.
pub fn acquire(seg: &Segment, rank: u32) {
    let t = seg.tokens();
    let id = {
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
    };
    match id {
        Some(id) => pin(seg, rank, id),
        None => wait_granted(seg, rank),
    }
}

/// Hand `rank`'s token to the first waiter, or put it back in the pool.
pub fn release(seg: &Segment, rank: u32) {
    let t = seg.tokens();
    let id = seg.slot(rank).tok_id.load(Ordering::Relaxed);
    let woken = {
        let _g = futex::lock(&t.lock);
        let w = grant_first(seg, t);
        match w {
            Some(w) => seg.slot(w).tok_id.store(id, Ordering::Relaxed),
            None => {
                t.put_id(id);
                t.free.fetch_add(1, Ordering::Release);
            }
        }
        w
    };
    if let Some(w) = woken {
        pin(seg, w, id);
        seg.slot(w).bell.ring();
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
        let Some(w) = grant_first(seg, t) else {
            return;
        };
        seg.slot(w).tok_id.store(id, Ordering::Relaxed);
        enqueue(seg, t, rank);
        w
    };
    pin(seg, woken, id);
    seg.slot(woken).bell.ring();
    wait_granted(seg, rank);
}
