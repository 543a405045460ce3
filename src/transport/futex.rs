//! Futex primitives on words in shared memory: wait/wake across processes and a
//! small sleeping lock (no spinning beyond a few tries).
//!
//! The futexes are shared (not `FUTEX_PRIVATE_FLAG`): the words live in a
//! `MAP_SHARED` mapping that each process maps at its own address, and the
//! kernel keys shared futexes by the underlying page.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// How many times this process went to sleep (futex waits and deliberate
/// host delays): the CPU-time estimate of [`super::cputime`] is valid only
/// across a stretch with none.
static NAPS: AtomicU64 = AtomicU64::new(0);

/// Times this process may have slept so far (see [`NAPS`]).
pub fn naps() -> u64 {
    NAPS.load(Ordering::Relaxed)
}

/// Count a sleep that is not a futex wait (a deliberate host delay).
pub fn note_nap() {
    NAPS.fetch_add(1, Ordering::Relaxed);
}

/// Sleep while `*word == expected` (returns at once if it differs). May return
/// spuriously (signals, wake-ups meant for someone else): callers re-check.
pub fn wait(word: &AtomicU32, expected: u32) {
    wait_limited(word, expected, None)
}

/// [`wait`] for at most `limit` (None: no limit).
pub fn wait_limited(word: &AtomicU32, expected: u32, limit: Option<std::time::Duration>) {
    note_nap();
    let ts = limit.map(|l| libc::timespec {
        tv_sec: l.as_secs() as libc::time_t,
        tv_nsec: l.subsec_nanos() as libc::c_long,
    });
    let timeout = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `word` is a valid, aligned u32 and `timeout` null ("no
    // timeout") or a valid relative timespec, for the duration of the call;
    // FUTEX_WAIT only reads them.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            expected,
            timeout,
        );
    }
}

/// Wake up to `n` sleepers on `word`.
pub fn wake(word: &AtomicU32, n: i32) {
    // SAFETY: `word` is a valid, aligned u32; FUTEX_WAKE does not access memory
    // beyond using its address as the key.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE, n);
    }
}

/// Tries of the uncontended compare-and-swap before sleeping.
const SPIN_TRIES: u32 = 4;

/// A held lock on a shared-memory word; released on drop.
pub struct Guard<'a> {
    word: &'a AtomicU32,
}

/// Take the mutex whose state is `word`: 0 free, 1 held, 2 held with
/// (possible) sleepers (Drepper, "Futexes are tricky", mutex #2).
pub fn lock(word: &AtomicU32) -> Guard<'_> {
    for _ in 0..SPIN_TRIES {
        if word
            .compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            return Guard { word };
        }
        std::hint::spin_loop();
    }
    // Contended: mark "held with sleepers" and sleep until we take it.
    while word.swap(2, Ordering::Acquire) != 0 {
        wait(word, 2);
    }
    Guard { word }
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        if self.word.swap(0, Ordering::Release) == 2 {
            wake(self.word, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn lock_serialises_threads() {
        // A non-atomic read-modify-write under the lock loses no increments.
        let word = Arc::new(AtomicU32::new(0));
        let count = Arc::new(AtomicU32::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (word, count) = (word.clone(), count.clone());
                std::thread::spawn(move || {
                    for _ in 0..20_000 {
                        let _g = lock(&word);
                        let v = count.load(Ordering::Relaxed);
                        count.store(v + 1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(count.load(Ordering::Relaxed), 80_000);
        assert_eq!(word.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn wait_returns_when_value_differs() {
        let word = AtomicU32::new(5);
        wait(&word, 4); // would sleep forever if the value were not compared
        assert_eq!(word.load(Ordering::Relaxed), 5);
    }
}
