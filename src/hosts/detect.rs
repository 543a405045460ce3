//! Finding the whole job quiescent across hosts (termination detection by
//! counting, in two waves, as in Mattern's four-counter method).
//!
//! A host is *quiet* when every rank on it is idle, nothing is in flight
//! on it, and its bridge has forwarded and acknowledged everything. A quiet
//! host stays quiet until a data frame reaches it (or it is told to act on
//! the job's next event): nothing else wakes its ranks. Each bridge sends
//! host 0 (the coordinator) a report each time it becomes quiet: a stamp
//! that changes whenever the host was active since, and its data frames
//! sent to and received from every other host.
//!
//! Once the latest reports of all hosts balance (for every pair, what one
//! sent is what the other received), the coordinator probes every host:
//! is it still as it reported? If all say yes, no frame was in flight and
//! no host was active between the reports and the probe, so the job is
//! quiescent: the coordinator says go, and the host of the job's next
//! event acts on it. A single wave would not do: a frame received after its
//! receiver's report can wake a host that then sends one received before
//! its receiver's report, and the counts balance.

/// A quiet host's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub stamp: u64,
    /// Data frames sent to each host (indexed by host).
    pub sent: Vec<u64>,
    /// Data frames received from each host.
    pub recv: Vec<u64>,
}

/// What the coordinator says to every host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Say {
    Probe(u64),
    Go(u64),
}

/// The coordinator's state.
pub struct Coordinator {
    latest: Vec<Option<Report>>,
    wave: u64,
    /// The wave being probed and each host's answer so far.
    answers: Option<Vec<Option<bool>>>,
}

impl Coordinator {
    pub fn new(nhosts: u32) -> Coordinator {
        Coordinator {
            latest: vec![None; nhosts as usize],
            wave: 0,
            answers: None,
        }
    }

    /// Host `h` became quiet: a wave starts if the reports balance (a new
    /// report ends the wave being probed: the host was active since).
    pub fn report(&mut self, h: u32, r: Report) -> Option<Say> {
        self.latest[h as usize] = Some(r);
        self.answers = None;
        if !self.balanced() {
            return None;
        }
        self.wave += 1;
        self.answers = Some(vec![None; self.latest.len()]);
        Some(Say::Probe(self.wave))
    }

    /// Host `h` answered the probe of `wave`.
    pub fn answer(&mut self, h: u32, wave: u64, still: bool) -> Option<Say> {
        if wave != self.wave {
            return None;
        }
        let answers = self.answers.as_mut()?;
        if !still {
            self.answers = None;
            return None;
        }
        answers[h as usize] = Some(true);
        if answers.iter().all(|a| *a == Some(true)) {
            self.answers = None;
            return Some(Say::Go(wave));
        }
        None
    }

    fn balanced(&self) -> bool {
        let Some(all) = self.latest.iter().cloned().collect::<Option<Vec<Report>>>() else {
            return false;
        };
        all.iter().enumerate().all(|(a, ra)| {
            all.iter()
                .enumerate()
                .all(|(b, rb)| a == b || ra.sent[b] == rb.recv[a])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(stamp: u64, sent: [u64; 2], recv: [u64; 2]) -> Report {
        Report {
            stamp,
            sent: sent.to_vec(),
            recv: recv.to_vec(),
        }
    }

    #[test]
    fn balanced_reports_start_a_wave_and_all_yes_says_go() {
        let mut c = Coordinator::new(2);
        assert_eq!(c.report(0, rep(1, [0, 3], [0, 2])), None);
        // host 1 has not received all of host 0's frames yet
        assert_eq!(c.report(1, rep(1, [2, 0], [2, 0])), None);
        assert_eq!(c.report(1, rep(2, [2, 0], [3, 0])), Some(Say::Probe(1)));
        assert_eq!(c.answer(0, 1, true), None);
        assert_eq!(c.answer(1, 1, true), Some(Say::Go(1)));
    }

    #[test]
    fn a_no_or_a_new_report_ends_the_wave() {
        let mut c = Coordinator::new(2);
        c.report(0, rep(1, [0, 0], [0, 0]));
        assert_eq!(c.report(1, rep(1, [0, 0], [0, 0])), Some(Say::Probe(1)));
        assert_eq!(c.answer(0, 1, false), None);
        assert_eq!(c.answer(1, 1, true), None);
        assert_eq!(c.report(0, rep(2, [0, 0], [0, 0])), Some(Say::Probe(2)));
        assert_eq!(c.answer(1, 2, true), None);
        // host 1 reported anew before host 0 answered: wave 2 is over
        assert_eq!(c.report(1, rep(3, [1, 0], [0, 0])), None);
        assert_eq!(c.answer(0, 2, true), None);
    }
}
