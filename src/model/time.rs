//! Virtual time: integer picoseconds, and the one rounding helper every
//! transfer time goes through.
use serde::Serialize;
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point or span of virtual (target) time, in picoseconds.
#[derive(Copy, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct VTime(u64);

impl VTime {
    pub const ZERO: VTime = VTime(0);
    pub const MAX: VTime = VTime(u64::MAX);

    pub const fn from_ps(ps: u64) -> VTime {
        VTime(ps)
    }
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// Nearest picosecond to `secs` (negative or NaN gives zero).
    pub fn from_secs_f64(secs: f64) -> VTime {
        if secs.is_nan() || secs <= 0.0 {
            return VTime(0);
        }
        VTime((secs * 1e12).round() as u64)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e12
    }
    pub fn saturating_sub(self, other: VTime) -> VTime {
        VTime(self.0.saturating_sub(other.0))
    }
}

impl Add for VTime {
    type Output = VTime;
    fn add(self, o: VTime) -> VTime {
        VTime(self.0 + o.0)
    }
}
impl AddAssign for VTime {
    fn add_assign(&mut self, o: VTime) {
        self.0 += o.0;
    }
}
impl Sub for VTime {
    type Output = VTime;
    fn sub(self, o: VTime) -> VTime {
        VTime(self.0 - o.0)
    }
}
impl fmt::Debug for VTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ps", self.0)
    }
}
impl fmt::Display for VTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9} s", self.as_secs_f64())
    }
}

/// Time to move `bytes` at `bytes_per_sec`, rounded to the nearest picosecond
/// (ties away from zero). The single rounding rule of the model.
pub fn transfer_time(bytes: u64, bytes_per_sec: u64) -> VTime {
    shared_transfer_time(bytes, bytes_per_sec, 1, 1)
}

/// Time to move `bytes` at `m / n` of `bytes_per_sec` (a share of a link,
/// see `model::contention`): `bytes * n / (bytes_per_sec * m)` seconds, by
/// the same rounding rule.
pub fn shared_transfer_time(bytes: u64, bytes_per_sec: u64, n: u64, m: u64) -> VTime {
    assert!(bytes_per_sec > 0 && m > 0, "bandwidth must be positive");
    let num = bytes as u128 * 1_000_000_000_000u128 * n as u128;
    let bw = bytes_per_sec as u128 * m as u128;
    VTime(((num * 2 + bw) / (bw * 2)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn transfer_rounds_to_nearest_ps() {
        // 8 B at 6.38 GB/s = 1.253918495... ns -> 1254 ps
        assert_eq!(transfer_time(8, 6_380_000_000).ps(), 1254);
        assert_eq!(transfer_time(0, 6_380_000_000).ps(), 0);
        // 1 B at 3e12 B/s = 0.333 ps -> 0; at 2e12 = 0.5 ps -> 1 (ties up)
        assert_eq!(transfer_time(1, 3_000_000_000_000).ps(), 0);
        assert_eq!(transfer_time(1, 2_000_000_000_000).ps(), 1);
    }
}
