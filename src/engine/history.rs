//! Progress-interval history: the start and end of every waiting activity
//! (AWTstart[] / AWTend[] of the paper) and the handling-time rule of
//! Algorithm 3 (lines 1-13): a message is handled at its arrival time if a
//! waiting activity of this rank covered that moment, otherwise at the start of
//! the first waiting activity after it.
//!
//! The history only grows (a closed interval per wait or test), so a long run
//! would keep megabytes of it per rank: [`History::trim_before`] forgets the
//! intervals that end before the earliest arrival time any message can still
//! have (the caller works that out from the published bounds), and
//! [`History::wants_trim`] says when enough have piled up to be worth asking
//! (amortised: the threshold doubles while nothing can be forgotten).
use crate::model::VTime;

/// Closed intervals kept before a trim is worth trying (small in unit tests,
/// so that every engine test runs with trimming).
const TRIM_AT: usize = if cfg!(test) { 8 } else { 1024 };

#[derive(Debug, Clone)]
pub struct History {
    /// Closed intervals, in order (starts and ends non-decreasing: each
    /// waiting activity begins at or after the end of the previous one).
    starts: Vec<VTime>,
    ends: Vec<VTime>,
    /// Start of the waiting activity in progress, if any.
    open: Option<VTime>,
    /// Try to trim once this many closed intervals are kept.
    trim_at: usize,
}

impl Default for History {
    fn default() -> History {
        History {
            starts: Vec::new(),
            ends: Vec::new(),
            open: None,
            trim_at: TRIM_AT,
        }
    }
}

impl History {
    pub fn new() -> History {
        History::default()
    }

    /// Whether enough closed intervals are kept to look for ones to forget.
    pub fn wants_trim(&self) -> bool {
        self.starts.len() >= self.trim_at
    }

    /// Forget the closed intervals that end before `t`, when no message can
    /// arrive before `t` any more: for `ta >= t` they neither cover `ta` nor
    /// start after it, so [`History::handling_time`] is unchanged. Returns
    /// how many were forgotten.
    pub fn trim_before(&mut self, t: VTime) -> usize {
        let k = self.ends.partition_point(|&e| e < t);
        self.starts.drain(..k);
        self.ends.drain(..k);
        self.trim_at = TRIM_AT.max(2 * self.starts.len());
        if self.starts.capacity() > 4 * self.trim_at {
            self.starts.shrink_to(2 * self.trim_at);
            self.ends.shrink_to(2 * self.trim_at);
        }
        k
    }

    /// AWTstart[num] = t.
    pub fn begin(&mut self, t: VTime) {
        debug_assert!(self.open.is_none(), "nested waiting activity");
        self.open = Some(t);
    }

    /// AWTend[num] = t; num += 1.
    pub fn end(&mut self, t: VTime) {
        let s = self.open.take().expect("end without begin");
        debug_assert!(t >= s);
        debug_assert!(self.ends.last().is_none_or(|&e| e <= s));
        self.starts.push(s);
        self.ends.push(t);
    }

    pub fn current_start(&self) -> Option<VTime> {
        self.open
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// ttemp of Algorithm 3 for a message arriving at `ta`, during the open
    /// waiting activity (or, outside one, as if one began at `now`).
    pub fn handling_time(&self, ta: VTime, now: VTime) -> VTime {
        let cur = self.open.unwrap_or(now);
        if ta >= cur {
            return ta;
        }
        // Last closed interval that starts at or before ta.
        let i = self.starts.partition_point(|&s| s <= ta);
        if i == 0 {
            // No waiting activity began before ta: the first one after it.
            return self.starts.first().copied().unwrap_or(cur);
        }
        // A waiting activity covers its end: Algorithm 2 (lines 22-27) deals
        // with the early messages arriving at ta <= AWTend inside the wait, so
        // a message arriving exactly at AWTend must be handled there too when
        // the host delivers it later (Algorithm 3's strict `AWTend > ta`
        // would time it differently depending on the host).
        if self.ends[i - 1] >= ta {
            ta
        } else if i < self.starts.len() {
            self.starts[i]
        } else {
            cur
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn t(x: u64) -> VTime {
        VTime::from_ps(x)
    }
    #[test]
    fn algorithm3_cases() {
        let mut h = History::new();
        h.begin(t(10));
        h.end(t(20));
        h.begin(t(30));
        h.end(t(30)); // a test: zero-length
        h.begin(t(50));
        // in the current interval or later: ta itself
        assert_eq!(h.handling_time(t(55), t(50)), t(55));
        assert_eq!(h.handling_time(t(50), t(50)), t(50));
        // covered by [10, 20): ta
        assert_eq!(h.handling_time(t(15), t(50)), t(15));
        assert_eq!(h.handling_time(t(10), t(50)), t(10));
        // the end is covered (as lines 22-27 of Algorithm 2 cover it)
        assert_eq!(h.handling_time(t(20), t(50)), t(20));
        assert_eq!(h.handling_time(t(25), t(50)), t(30));
        // a zero-length interval (a test) covers its instant only
        assert_eq!(h.handling_time(t(30), t(50)), t(30));
        assert_eq!(h.handling_time(t(40), t(50)), t(50));
        // before every interval: first start
        assert_eq!(h.handling_time(t(5), t(50)), t(10));
    }
    #[test]
    fn trimming_keeps_every_later_answer() {
        let mut full = History::new();
        for k in 0..20u64 {
            full.begin(t(100 * k + 10));
            full.end(t(100 * k + 10 + (k % 3) * 20)); // some zero-length
        }
        full.begin(t(2500));
        for cut in [0, 5, 10, 555, 1030, 1050, 1999, 2500] {
            let mut h = full.clone();
            let gone = h.trim_before(t(cut));
            assert_eq!(h.len() + gone, full.len());
            for ta in cut..2600 {
                assert_eq!(
                    h.handling_time(t(ta), t(2500)),
                    full.handling_time(t(ta), t(2500)),
                    "cut {cut}, ta {ta}"
                );
            }
        }
        // Intervals ending before the cut go, one ending at it stays.
        let mut h = full.clone();
        assert_eq!(h.trim_before(t(1030)), 10);
        assert_eq!(h.trim_before(t(1030)), 0);
        assert_eq!(full.clone().trim_before(t(1031)), 11);
    }

    #[test]
    fn trim_threshold_doubles_while_nothing_goes() {
        let mut h = History::new();
        let mut k = 0u64;
        let mut close = |h: &mut History| {
            h.begin(t(k));
            h.end(t(k + 1));
            k += 2;
        };
        while !h.wants_trim() {
            close(&mut h);
        }
        assert_eq!(h.len(), TRIM_AT);
        assert_eq!(h.trim_before(t(0)), 0);
        assert!(!h.wants_trim());
        while !h.wants_trim() {
            close(&mut h);
        }
        assert_eq!(h.len(), 2 * TRIM_AT);
        assert_eq!(h.trim_before(t(u64::MAX)), 2 * TRIM_AT);
        assert!(h.is_empty());
        close(&mut h);
        assert!(!h.wants_trim());
    }

    #[test]
    fn first_wait_handles_earlier_arrivals_at_its_start() {
        let mut h = History::new();
        h.begin(t(100));
        assert_eq!(h.handling_time(t(40), t(100)), t(100));
    }
}
