//! A rank's doorbell: the one futex word its owner sleeps on. Every reason to
//! wake a rank (a record arrived, inbox space was freed, a core token was
//! handed over) rings it; the owner re-checks its condition after each wake.
//!
//! Protocol (no lost wake-ups, no syscall when nobody sleeps): the owner reads
//! the sequence number, announces `sleeping`, re-checks its condition, then
//! `FUTEX_WAIT`s on the sequence number. A ringer first makes the condition
//! true, then checks `sleeping` and only if set bumps the sequence and wakes.
//! The two SeqCst fences (owner: after announcing, ringer: before checking)
//! make sure at least one side sees the other's store.
//!
//! Many-ranks mode (see `hosting`): a rank that is a user-level context of a
//! host process announces `sleeping = HOSTED` and suspends its context
//! instead of sleeping in the kernel; a ringer that sees `HOSTED` bumps the
//! sequence and tells its caller, who queues the rank on its host's ready
//! stack and rings the host ([`super::Segment::ring`]).

use super::futex;
use std::sync::atomic::{fence, AtomicU32, Ordering};

#[repr(C, align(64))]
pub struct Doorbell {
    seq: AtomicU32,
    sleeping: AtomicU32,
}

/// `sleeping` of an owner asleep in the kernel.
const ASLEEP: u32 = 1;
/// `sleeping` of a rank suspended as a user-level context.
const HOSTED: u32 = 2;

impl Doorbell {
    /// Sleep until `cond()` holds. Only the doorbell's owner calls this. A
    /// rank of the many-ranks mode suspends its context instead.
    pub fn wait_until(&self, cond: impl FnMut() -> bool) {
        self.wait(cond, None)
    }

    /// [`Doorbell::wait_until`] for at most `limit` (in the kernel, also
    /// for a rank of the many-ranks mode: this serves other libraries'
    /// waits, which that mode does not host).
    pub fn wait_until_for(&self, cond: impl FnMut() -> bool, limit: std::time::Duration) {
        self.wait(cond, Some(limit))
    }

    fn wait(&self, mut cond: impl FnMut() -> bool, limit: Option<std::time::Duration>) {
        let park = limit.is_none().then(super::hosting::park_hook).flatten();
        let end = limit.map(|l| std::time::Instant::now() + l);
        loop {
            if cond() {
                return;
            }
            let left = end.map(|e| e.saturating_duration_since(std::time::Instant::now()));
            if left.is_some_and(|l| l.is_zero()) {
                return;
            }
            let seq = self.seq.load(Ordering::SeqCst);
            let how = if park.is_some() { HOSTED } else { ASLEEP };
            self.sleeping.store(how, Ordering::SeqCst);
            fence(Ordering::SeqCst);
            if cond() {
                self.sleeping.store(0, Ordering::Relaxed);
                return;
            }
            match park {
                Some(park) => park(),
                None => futex::wait_limited(&self.seq, seq, left),
            }
            self.sleeping.store(0, Ordering::Relaxed);
        }
    }

    /// Wake the owner if it sleeps (call after making its condition true).
    /// True when the owner is a suspended context of a host process, which
    /// the caller must then wake (see [`super::Segment::ring`]).
    #[must_use]
    pub fn ring(&self) -> bool {
        fence(Ordering::SeqCst);
        match self.sleeping.load(Ordering::SeqCst) {
            0 => false,
            HOSTED => {
                self.seq.fetch_add(1, Ordering::SeqCst);
                true
            }
            _ => {
                self.seq.fetch_add(1, Ordering::SeqCst);
                futex::wake(&self.seq, i32::MAX);
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    #[test]
    fn no_lost_wakeups_between_threads() {
        // Ping-pong a counter through two doorbells many times; a lost wake-up
        // would hang the test.
        struct Shared {
            bells: [Doorbell; 2],
            turn: AtomicU64,
        }
        let s = Arc::new(Shared {
            bells: [
                Doorbell {
                    seq: AtomicU32::new(0),
                    sleeping: AtomicU32::new(0),
                },
                Doorbell {
                    seq: AtomicU32::new(0),
                    sleeping: AtomicU32::new(0),
                },
            ],
            turn: AtomicU64::new(0),
        });
        const ROUNDS: u64 = 20_000;
        let players: Vec<_> = (0..2u64)
            .map(|me| {
                let s = s.clone();
                std::thread::spawn(move || {
                    let mut mine = me;
                    while mine < 2 * ROUNDS {
                        s.bells[me as usize].wait_until(|| s.turn.load(Ordering::Acquire) == mine);
                        s.turn.store(mine + 1, Ordering::Release);
                        let _ = s.bells[1 - me as usize].ring();
                        mine += 2;
                    }
                })
            })
            .collect();
        for p in players {
            p.join().unwrap();
        }
        assert_eq!(s.turn.load(Ordering::Relaxed), 2 * ROUNDS);
    }
}
