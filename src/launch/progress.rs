//! The live progress line on stderr during a long job: ranks finished, the
//! slowest and fastest virtual clock among the ranks still running (as they
//! publish them in their slots), host wall time. Drawn by the supervisor on
//! its tick (no thread of its own), from about a second into the job, about
//! four times a second, rewritten in place with `\r`; erased before the
//! report. Only on a terminal, and not with `--quiet` or `VACED_PROGRESS=0`.
//! Cut to the terminal's width (read with `terminal_size` at each drawing),
//! since `\r` cannot rewrite a line that wrapped.
//!
//! Not indicatif: what it would add here is its drawing, while the delay, the
//! period and the drawing on the supervisor's tick (no thread) stay ours; a
//! single line of text rewritten in place is this file.

use crate::report::human_secs;
use std::io::{self, IsTerminal, Write};
use std::time::{Duration, Instant};

/// Nothing is drawn during the first `DELAY` of a job (short jobs stay quiet).
pub const DELAY: Duration = Duration::from_secs(1);
/// Time between two drawings.
pub const PERIOD: Duration = Duration::from_millis(250);
/// `VACED_PROGRESS=0` turns the line off.
pub const ENV_PROGRESS: &str = "VACED_PROGRESS";

/// What one drawing shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    pub finished: u32,
    pub total: u32,
    /// Least and greatest virtual time (ps) among ranks not finished; `None`
    /// when every rank has finished.
    pub clocks: Option<(u64, u64)>,
    pub wall: Duration,
}

impl Snapshot {
    /// Gather from each rank's `(finished, virtual time in ps)`.
    pub fn gather(ranks: impl Iterator<Item = (bool, u64)>, wall: Duration) -> Snapshot {
        let (mut finished, mut total) = (0u32, 0u32);
        let mut clocks: Option<(u64, u64)> = None;
        for (done, t) in ranks {
            total += 1;
            if done {
                finished += 1;
            } else {
                clocks = Some(clocks.map_or((t, t), |(lo, hi)| (lo.min(t), hi.max(t))));
            }
        }
        Snapshot {
            finished,
            total,
            clocks,
            wall,
        }
    }

    /// The line, without `\r`.
    pub fn line(&self) -> String {
        let secs = |ps: u64| human_secs(ps as f64 * 1e-12);
        let clocks = match self.clocks {
            Some((lo, hi)) => format!("virtual time {} .. {}", secs(lo), secs(hi)),
            None => "virtual time -".to_string(),
        };
        format!(
            "{}/{} ranks finished, {clocks}, host wall {:.1} s",
            self.finished,
            self.total,
            self.wall.as_secs_f64()
        )
    }
}

/// The progress line of one job.
pub struct Progress {
    enabled: bool,
    began: Instant,
    next: Instant,
    /// Characters of the line on screen (0: nothing drawn).
    drawn: usize,
    /// The terminal's width in columns, when known.
    columns: fn() -> Option<usize>,
}

/// The width of the terminal on stderr.
fn stderr_columns() -> Option<usize> {
    terminal_size::terminal_size_of(io::stderr()).map(|(w, _)| usize::from(w.0))
}

impl Progress {
    /// A line for a job that began at `began`, shown if stderr is a terminal,
    /// `quiet` is off and `env` (`$VACED_PROGRESS`) is not "0".
    pub fn new(began: Instant, quiet: bool, env: Option<&str>) -> Progress {
        let enabled = !quiet && env != Some("0") && io::stderr().is_terminal();
        Progress {
            columns: stderr_columns,
            ..Progress::with(began, enabled)
        }
    }

    /// A line that is drawn (`enabled`) or not, whatever stderr is.
    pub fn with(began: Instant, enabled: bool) -> Progress {
        Progress {
            enabled,
            began,
            next: began + DELAY,
            drawn: 0,
            columns: || None,
        }
    }

    /// The same, drawn on a terminal `columns()` wide.
    pub fn with_columns(began: Instant, enabled: bool, columns: fn() -> Option<usize>) -> Progress {
        Progress {
            columns,
            ..Progress::with(began, enabled)
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Whether a drawing is due at `now`.
    pub fn due(&self, now: Instant) -> bool {
        self.enabled && now >= self.next
    }

    /// How long the supervisor may sleep before the next drawing is due
    /// (`None`: never).
    pub fn until_due(&self, now: Instant) -> Option<Duration> {
        self.enabled
            .then(|| self.next.saturating_duration_since(now))
    }

    /// Draw `snap` on `out` if due at `now` (ranks read by the caller only
    /// then: see [`Progress::due`]).
    pub fn draw(&mut self, out: &mut impl Write, now: Instant, snap: &Snapshot) {
        if !self.due(now) {
            return;
        }
        let mut line = snap.line();
        // Short of the last column, so that the line never wraps.
        if let Some(w) = (self.columns)() {
            if let Some((cut, _)) = line.char_indices().nth(w.saturating_sub(1)) {
                line.truncate(cut);
            }
        }
        // Pad over what a longer previous line left.
        let pad = self.drawn.saturating_sub(line.len());
        let _ = write!(out, "\r{line}{:pad$}", "");
        let _ = out.flush();
        self.drawn = line.len();
        self.next = now + PERIOD;
    }

    /// Remove the line, if one is drawn (before the report or an error).
    pub fn erase(&mut self, out: &mut impl Write) {
        if self.drawn > 0 {
            let _ = write!(out, "\r{:w$}\r", "", w = self.drawn);
            let _ = out.flush();
            self.drawn = 0;
        }
    }

    /// When the job began.
    pub fn began(&self) -> Instant {
        self.began
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_of_the_ranks() {
        let ranks = [
            (true, 50),
            (false, 2_000_000),
            (false, 1_500_000_000),
            (true, 9),
        ];
        let s = Snapshot::gather(ranks.into_iter(), Duration::from_millis(3300));
        assert_eq!(
            s,
            Snapshot {
                finished: 2,
                total: 4,
                clocks: Some((2_000_000, 1_500_000_000)),
                wall: Duration::from_millis(3300),
            }
        );
        assert_eq!(
            s.line(),
            "2/4 ranks finished, virtual time 2.000 us .. 1.500 ms, host wall 3.3 s"
        );
        let done = Snapshot::gather([(true, 1)].into_iter(), Duration::from_secs(2));
        assert_eq!(
            done.line(),
            "1/1 ranks finished, virtual time -, host wall 2.0 s"
        );
    }

    #[test]
    fn drawn_after_the_delay_at_the_period_and_erased() {
        let t0 = Instant::now();
        let mut p = Progress::with(t0, true);
        let mut out = Vec::new();
        let long = Snapshot::gather([(false, 1_000_000_000_000)].into_iter(), DELAY);
        let short = Snapshot::gather([(true, 0)].into_iter(), DELAY);
        p.draw(&mut out, t0 + DELAY / 2, &long);
        assert!(out.is_empty(), "nothing before the delay");
        assert_eq!(p.until_due(t0), Some(DELAY));
        p.draw(&mut out, t0 + DELAY, &long);
        let first = format!("\r{}", long.line());
        assert_eq!(String::from_utf8_lossy(&out), first);
        p.draw(&mut out, t0 + DELAY + PERIOD / 2, &short);
        assert_eq!(String::from_utf8_lossy(&out), first, "not yet due");
        p.draw(&mut out, t0 + DELAY + PERIOD, &short);
        let pad = long.line().len() - short.line().len();
        let second = format!("\r{}{}", short.line(), " ".repeat(pad));
        assert_eq!(String::from_utf8_lossy(&out), format!("{first}{second}"));
        out.clear();
        p.erase(&mut out);
        let w = short.line().len();
        assert_eq!(
            String::from_utf8_lossy(&out),
            format!("\r{}\r", " ".repeat(w))
        );
        out.clear();
        p.erase(&mut out);
        assert!(out.is_empty(), "erased once");
    }

    #[test]
    fn cut_to_the_terminal_width() {
        let t0 = Instant::now();
        let mut p = Progress::with_columns(t0, true, || Some(12));
        let mut out = Vec::new();
        let s = Snapshot::gather([(false, 1)].into_iter(), DELAY);
        p.draw(&mut out, t0 + DELAY, &s);
        assert_eq!(String::from_utf8_lossy(&out), "\r0/1 ranks f");
        out.clear();
        p.erase(&mut out);
        assert_eq!(
            String::from_utf8_lossy(&out),
            format!("\r{}\r", " ".repeat(11))
        );
    }

    #[test]
    fn off_stays_silent() {
        let t0 = Instant::now();
        let mut p = Progress::with(t0, false);
        let mut out = Vec::new();
        let s = Snapshot::gather([(false, 1)].into_iter(), DELAY);
        p.draw(&mut out, t0 + 10 * DELAY, &s);
        p.erase(&mut out);
        assert!(out.is_empty());
        assert_eq!(p.until_due(t0), None);
        assert!(!Progress::new(t0, true, None).enabled());
        assert!(!Progress::new(t0, false, Some("0")).enabled());
    }
}
