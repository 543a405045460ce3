//! Progress-interval history: the start and end of every waiting activity
//! (AWTstart[] / AWTend[] of the paper) and the handling-time rule of
//! Algorithm 3 (lines 1-13): a message is handled at its arrival time if a
//! waiting activity of this rank covered that moment, otherwise at the start of
//! the first waiting activity after it.
use crate::model::VTime;

#[derive(Debug, Default, Clone)]
pub struct History {
    /// Closed intervals, in order (starts non-decreasing).
    starts: Vec<VTime>,
    ends: Vec<VTime>,
    /// Start of the waiting activity in progress, if any.
    open: Option<VTime>,
}

impl History {
    pub fn new() -> History {
        History::default()
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
    fn first_wait_handles_earlier_arrivals_at_its_start() {
        let mut h = History::new();
        h.begin(t(100));
        assert_eq!(h.handling_time(t(40), t(100)), t(100));
    }
}
