//! The short table printed on stderr at the end of a job.
use super::{Report, Stats};
use std::fmt::Write;
use std::time::Duration;

/// Seconds in a readable unit (s, ms, us or ns, chosen per value).
pub(crate) fn human_secs(s: f64) -> String {
    if s == 0.0 {
        "0 s".to_string()
    } else if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if s >= 1e-6 {
        format!("{:.3} us", s * 1e6)
    } else {
        format!("{:.3} ns", s * 1e9)
    }
}

fn human_duration(d: Duration) -> String {
    human_secs(d.as_secs_f64())
}

/// A byte count in B, KiB, MiB or GiB.
pub(crate) fn human_bytes(b: u64) -> String {
    const UNITS: &[(&str, u32)] = &[("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for &(u, sh) in UNITS {
        if b >= 1u64 << sh {
            return format!("{:.1} {u}", b as f64 / (1u64 << sh) as f64);
        }
    }
    format!("{b} B")
}

/// Exact seconds of a picosecond count, with all twelve decimals.
fn exact_secs(ps: u64) -> String {
    format!(
        "{}.{:012} s",
        ps / 1_000_000_000_000,
        ps % 1_000_000_000_000
    )
}

fn stats_row(out: &mut String, label: &str, s: &Stats) {
    let _ = writeln!(
        out,
        "  {label:<15}{:>12}{:>12}{:>12}",
        human_secs(s.min_s()),
        human_secs(s.avg_s()),
        human_secs(s.max_s())
    );
}

/// The report as an aligned table: the prediction first, then the per-rank
/// breakdown, then the cost of the simulation.
pub fn render_text(r: &Report) -> String {
    let j = &r.job;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "vaced: predicted time on {}: {}  ({}, rank {})",
        j.target,
        human_secs(r.predicted.as_secs_f64()),
        exact_secs(r.predicted.ps()),
        r.slowest_rank
    );
    let _ = writeln!(
        out,
        "  {:<15}{:>12}{:>12}{:>12}",
        "per rank", "min", "avg", "max"
    );
    stats_row(&mut out, "computation", &r.compute);
    stats_row(&mut out, "communication", &r.comm);
    stats_row(&mut out, "waiting", &r.wait);
    let _ = writeln!(
        out,
        "  {:<15}{} sent, {}",
        "messages",
        r.msgs_sent,
        human_bytes(r.bytes_sent)
    );
    let _ = writeln!(
        out,
        "  {:<15}{} taken conservatively, host time waiting for them {}",
        "decisions",
        r.decisions,
        human_duration(r.decide_wait)
    );
    let _ = writeln!(
        out,
        "  {:<15}{} (ranks gave their core away and slept on the host)",
        "host sleeps", r.sleeps
    );
    let startup = match j.startup {
        Some(d) => format!("  (start-up {})", human_duration(d)),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "  {:<15}{}{startup}",
        "host wall",
        human_duration(j.wall)
    );
    let _ = writeln!(
        out,
        "  {:<15}{}  (application {})",
        "host CPU",
        human_duration(j.host_cpu),
        human_duration(r.app_cpu)
    );
    if let Some((bytes, upper)) = j.peak_memory {
        let how = if !upper {
            "whole job"
        } else if j.ranks_per_process.is_some() {
            "at most: the host processes' peak resident sizes summed"
        } else {
            "at most: the ranks' peak resident sizes summed"
        };
        let per_rank = bytes / (r.ranks.len().max(1) as u64);
        let _ = writeln!(
            out,
            "  {:<15}{}  ({how}; {} per rank)",
            "peak memory",
            human_bytes(bytes),
            human_bytes(per_rank)
        );
    }
    let eff = match r.efficiency {
        Some(e) => format!("{:.1} %", e * 100.0),
        None => "n/a".to_string(),
    };
    let _ = writeln!(
        out,
        "  {:<15}{eff}  (application CPU / ({} cores x wall))",
        "efficiency", j.cores
    );
    if let Some(s) = r.slowdown {
        let _ = writeln!(out, "  {:<15}{s:.1} x  (host wall / predicted)", "slowdown");
    }
    let _ = writeln!(
        out,
        "  {:<15}{} on {} cores, sync {}",
        "ranks",
        r.ranks.len(),
        j.cores,
        j.sync_mode
    );
    if let (Some(k), Some(h)) = (j.ranks_per_process, j.host_processes) {
        let _ = writeln!(
            out,
            "  {:<15}{h} host process{}, up to {k} rank{} each{} (--ranks-per-process)",
            "processes",
            if h == 1 { "" } else { "es" },
            if k == 1 { "" } else { "s" },
            if h > j.cores {
                ", sharing the cores"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(out, "  {:<15}{}", "target", j.target);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample;

    #[test]
    fn readable_units() {
        assert_eq!(human_secs(0.0), "0 s");
        assert_eq!(human_secs(12.5), "12.500 s");
        assert_eq!(human_secs(0.0125), "12.500 ms");
        assert_eq!(human_secs(1.25e-6), "1.250 us");
        assert_eq!(human_secs(5e-10), "0.500 ns");
        assert_eq!(human_bytes(100), "100 B");
        assert_eq!(human_bytes(1_048_976), "1.0 MiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(exact_secs(5_000_000), "0.000005000000 s");
        assert_eq!(exact_secs(1_234_567_890_123_456), "1234.567890123456 s");
    }

    #[test]
    fn table() {
        let expected = "\
vaced: predicted time on tianhe1a: 5.000 us  (0.000005000000 s, rank 1)
  per rank                min         avg         max
  computation        1.000 us    2.000 us    3.000 us
  communication    500.000 ns    1.250 us    2.000 us
  waiting            1.000 us    1.000 us    1.000 us
  messages       6 sent, 1.0 MiB
  decisions      8 taken conservatively, host time waiting for them 2.000 us
  host sleeps    12 (ranks gave their core away and slept on the host)
  host wall      5.000 ms  (start-up 1.500 ms)
  host CPU       9.000 ms  (application 8.000 ms)
  peak memory    3.0 MiB  (whole job; 768.0 KiB per rank)
  efficiency     80.0 %  (application CPU / (2 cores x wall))
  slowdown       1000.0 x  (host wall / predicted)
  ranks          4 on 2 cores, sync conservative
  target         tianhe1a
";
        assert_eq!(render_text(&sample()), expected);
    }

    /// `--ranks-per-process`: one more line, and the memory bound says
    /// whose peaks were summed.
    #[test]
    fn many_ranks_mode_lines() {
        let mut r = sample();
        r.job.ranks_per_process = Some(3);
        r.job.host_processes = Some(2);
        r.job.peak_memory = Some((3 << 20, true));
        let text = render_text(&r);
        let tail: Vec<&str> = text.lines().rev().take(3).collect();
        assert_eq!(
            tail,
            [
                "  target         tianhe1a",
                "  processes      2 host processes, up to 3 ranks each (--ranks-per-process)",
                "  ranks          4 on 2 cores, sync conservative",
            ]
        );
        assert!(text.contains(
            "  peak memory    3.0 MiB  (at most: the host processes' peak resident sizes \
             summed; 768.0 KiB per rank)\n"
        ));
        r.job.ranks_per_process = Some(1);
        r.job.host_processes = Some(1);
        assert!(render_text(&r).contains(
            "  processes      1 host process, up to 1 rank each (--ranks-per-process)\n"
        ));
        // more hosts than cores: they share the core tokens
        r.job.ranks_per_process = Some(1);
        r.job.host_processes = Some(4);
        assert!(render_text(&r).contains(
            "  processes      4 host processes, up to 1 rank each, sharing the cores \
             (--ranks-per-process)\n"
        ));
    }
}
