//! Producers waiting for space in a full inbox: an intrusive FIFO (head and
//! tail in the inbox header, links and the bytes each needs in the waiting
//! ranks' slots), changed only under the inbox's lock. A rank waits on one
//! inbox at a time, so one link per rank suffices (O(ranks) memory).
//!
//! The consumer wakes waiters in FIFO order only as far as the free space
//! covers their needs, so a crowd of senders to one rank is not woken a whole
//! crowd at a time for each record consumed.

use super::inbox::Inbox;
use super::segment::Segment;
use std::sync::atomic::Ordering;

/// Append `rank`, which needs `need` ring bytes, to `inbox`'s queue. Caller
/// holds the inbox lock; `rank` is on no queue.
pub fn push(seg: &Segment, inbox: &Inbox<'_>, rank: u32, need: u64) {
    let me = seg.slot(rank);
    debug_assert_eq!(me.space_waiting.load(Ordering::Relaxed), 0);
    let hdr = inbox.hdr();
    me.space_need.store(need, Ordering::Relaxed);
    me.space_next.store(0, Ordering::Relaxed);
    me.space_waiting.store(1, Ordering::Relaxed);
    match hdr.waiters_tail.load(Ordering::Relaxed) {
        0 => hdr.waiters.store(rank + 1, Ordering::SeqCst),
        last => seg
            .slot(last - 1)
            .space_next
            .store(rank + 1, Ordering::Relaxed),
    }
    hdr.waiters_tail.store(rank + 1, Ordering::SeqCst);
}

/// Take `rank` off `inbox`'s queue if it is on it. Caller holds the inbox
/// lock, and `rank` waited on this inbox if it is on any queue.
pub fn remove(seg: &Segment, inbox: &Inbox<'_>, rank: u32) {
    let me = seg.slot(rank);
    if me.space_waiting.load(Ordering::Relaxed) == 0 {
        return;
    }
    let hdr = inbox.hdr();
    let next = me.space_next.load(Ordering::Relaxed);
    let mut prev = 0;
    let mut cur = hdr.waiters.load(Ordering::Relaxed);
    while cur != rank + 1 {
        assert!(
            cur != 0,
            "rank {rank} marked waiting but not on the inbox's queue"
        );
        prev = cur;
        cur = seg.slot(cur - 1).space_next.load(Ordering::Relaxed);
    }
    match prev {
        0 => hdr.waiters.store(next, Ordering::Relaxed),
        p => seg.slot(p - 1).space_next.store(next, Ordering::Relaxed),
    }
    if next == 0 {
        hdr.waiters_tail.store(prev, Ordering::Relaxed);
    }
    me.space_waiting.store(0, Ordering::Relaxed);
}

/// Dequeue, in FIFO order, the waiters whose needs fit in `free` bytes
/// together (at least the first if it fits) into `out`, to be rung. Caller
/// holds the lock.
pub fn take_fitting(seg: &Segment, inbox: &Inbox<'_>, mut free: u64, out: &mut Vec<u32>) {
    let hdr = inbox.hdr();
    loop {
        let first = hdr.waiters.load(Ordering::Relaxed);
        if first == 0 {
            break;
        }
        let slot = seg.slot(first - 1);
        let need = slot.space_need.load(Ordering::Relaxed);
        if need > free {
            break;
        }
        free -= need;
        let next = slot.space_next.load(Ordering::Relaxed);
        hdr.waiters.store(next, Ordering::Relaxed);
        if next == 0 {
            hdr.waiters_tail.store(0, Ordering::Relaxed);
        }
        slot.space_waiting.store(0, Ordering::Relaxed);
        out.push(first - 1);
    }
}
