//! Core tokens: at most `cores` ranks run application code at once.
//!
//! A pool of free tokens and a FIFO queue of waiting ranks (an intrusive list
//! through the ranks' slots, O(ranks) memory) under one futex lock in the
//! segment header. A released token goes straight to the first waiter, whose
//! doorbell is rung; only when nobody waits does it return to the pool, so
//! `free > 0` implies an empty queue.

use super::futex;
use super::segment::Segment;
use std::sync::atomic::{AtomicU32, Ordering};

#[repr(C, align(64))]
pub struct TokenState {
    lock: AtomicU32,
    free: AtomicU32,
    /// First and last queued rank + 1 (0 = empty queue).
    head: AtomicU32,
    tail: AtomicU32,
    queued: AtomicU32,
}

impl TokenState {
    /// Set up `cores` free tokens (at segment creation).
    pub fn init(&self, cores: u32) {
        self.free.store(cores, Ordering::Relaxed);
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

/// Take a free token, or queue (FIFO) and sleep until one is handed over.
pub fn acquire(seg: &Segment, rank: u32) {
    let t = seg.tokens();
    {
        let _g = futex::lock(&t.lock);
        let free = t.free.load(Ordering::Relaxed);
        if free > 0 {
            t.free.store(free - 1, Ordering::Release);
            return;
        }
        enqueue(seg, t, rank);
    }
    wait_granted(seg, rank);
}

/// Hand the token to the first waiter, or put it back in the pool.
pub fn release(seg: &Segment) {
    let t = seg.tokens();
    let woken = {
        let _g = futex::lock(&t.lock);
        let w = grant_first(seg, t);
        if w.is_none() {
            t.free.fetch_add(1, Ordering::Release);
        }
        w
    };
    if let Some(w) = woken {
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
    let woken = {
        let _g = futex::lock(&t.lock);
        let Some(w) = grant_first(seg, t) else {
            return;
        };
        enqueue(seg, t, rank);
        w
    };
    seg.slot(woken).bell.ring();
    wait_granted(seg, rank);
}
