//! Producers waiting for space in a full inbox: an intrusive singly linked
//! list (head in the inbox header, links in the waiting ranks' slots), changed
//! only under the inbox's lock. A rank waits on one inbox at a time, so one
//! link per rank suffices (O(ranks) memory).

use super::inbox::Inbox;
use super::segment::Segment;
use std::sync::atomic::Ordering;

/// Put `rank` on `inbox`'s list. Caller holds the inbox lock; `rank` is on
/// no list.
pub fn push(seg: &Segment, inbox: &Inbox<'_>, rank: u32) {
    let me = seg.slot(rank);
    debug_assert_eq!(me.space_waiting.load(Ordering::Relaxed), 0);
    me.space_next.store(
        inbox.hdr().waiters.load(Ordering::Relaxed),
        Ordering::Relaxed,
    );
    me.space_waiting.store(1, Ordering::Relaxed);
    inbox.hdr().waiters.store(rank + 1, Ordering::SeqCst);
}

/// Take `rank` off `inbox`'s list if it is still there. Caller holds the inbox
/// lock and `rank` waited on this inbox (if on any list).
pub fn remove(seg: &Segment, inbox: &Inbox<'_>, rank: u32) {
    let me = seg.slot(rank);
    if me.space_waiting.load(Ordering::Relaxed) == 0 {
        return;
    }
    let head = &inbox.hdr().waiters;
    let next = me.space_next.load(Ordering::Relaxed);
    if head.load(Ordering::Relaxed) == rank + 1 {
        head.store(next, Ordering::Relaxed);
    } else {
        let mut cur = head.load(Ordering::Relaxed);
        while cur != 0 {
            let link = &seg.slot(cur - 1).space_next;
            if link.load(Ordering::Relaxed) == rank + 1 {
                link.store(next, Ordering::Relaxed);
                break;
            }
            cur = link.load(Ordering::Relaxed);
        }
        assert!(
            cur != 0,
            "rank {rank} marked waiting but not on the inbox's list"
        );
    }
    me.space_waiting.store(0, Ordering::Relaxed);
}

/// Empty `inbox`'s list into `out` (ranks to ring). Caller holds the lock.
pub fn take_all(seg: &Segment, inbox: &Inbox<'_>, out: &mut Vec<u32>) {
    let mut cur = inbox.hdr().waiters.swap(0, Ordering::Relaxed);
    while cur != 0 {
        let slot = seg.slot(cur - 1);
        out.push(cur - 1);
        cur = slot.space_next.load(Ordering::Relaxed);
        slot.space_waiting.store(0, Ordering::Relaxed);
    }
}
