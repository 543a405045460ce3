//! Chaos for testing: with `VACED_HOST_JITTER=<seed>`, random host-side
//! delays (seeded per rank) before sends and after wake-ups, so that tests
//! see many host orders. Predictions must not change.
use std::time::Duration;

/// A seeded source of short random sleeps.
pub struct Jitter {
    state: u64,
}

/// The seed from `VACED_HOST_JITTER`, if set to a number.
pub fn seed_from_env() -> Option<u64> {
    std::env::var("VACED_HOST_JITTER").ok()?.trim().parse().ok()
}

impl Jitter {
    pub fn new(seed: u64, stream: u64) -> Jitter {
        let mut j = Jitter {
            state: seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x2545_F491_4F6C_DD1D,
        };
        j.next_u64();
        j
    }
    /// A jitter for `rank` when `VACED_HOST_JITTER` is set.
    pub fn from_env(rank: u32) -> Option<Jitter> {
        seed_from_env().map(|s| Jitter::new(s, rank as u64 + 1))
    }
    /// xorshift64*.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state.max(1);
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// One time in four, sleep up to 300 us (yield otherwise, one time in four).
    pub fn maybe_delay(&mut self) {
        match self.below(4) {
            0 => {
                super::futex::note_nap();
                std::thread::sleep(Duration::from_micros(self.below(300)))
            }
            1 => {
                super::futex::note_nap();
                std::thread::yield_now()
            }
            _ => {}
        }
    }
}
