//! The prediction report built by the launcher once the job has ended: the
//! predicted target time, the per-rank breakdown (computation, communication,
//! waiting), the cost of the simulation on the host, the stderr table
//! (`render_text`) and the JSON file (`write_json`).
mod json;
mod stats;
mod text;

pub use json::{to_json, write_json};
pub use stats::Stats;
pub(crate) use text::human_bytes;
pub(crate) use text::human_secs;
pub use text::render_text;

use crate::model::VTime;
use crate::transport::RankResult;
use std::time::Duration;

/// What the launcher knows about the job besides the ranks' results.
#[derive(Debug, Clone, PartialEq)]
pub struct JobInfo {
    /// Name of the target machine (the model's `name`).
    pub target: String,
    /// Host cores the ranks ran on (core tokens).
    pub cores: u32,
    /// How non-deterministic operations were synchronised (e.g. `conservative`).
    pub sync_mode: String,
    /// Host wall time of the job.
    pub wall: Duration,
    /// Host CPU time of the whole job (all ranks, from rusage).
    pub host_cpu: Duration,
    /// Time from launch until every rank had started, if known.
    pub startup: Option<Duration>,
    /// Peak memory of the whole job in bytes, if measured, and whether that
    /// is only an upper bound (a sum of the ranks' peaks).
    pub peak_memory: Option<(u64, bool)>,
    /// The execution mode: `--ranks-per-process`'s largest block of ranks
    /// per host process, or `None` for one process per rank (the default).
    pub ranks_per_process: Option<u32>,
    /// How many processes ran the ranks (the host processes, or one per
    /// rank); `None` when none did (a what-if replay).
    pub host_processes: Option<u32>,
}

/// The finished report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub job: JobInfo,
    /// Every rank's figures, indexed by rank.
    pub ranks: Vec<RankResult>,
    /// The prediction: the largest final virtual time of any rank.
    pub predicted: VTime,
    /// The (lowest) rank with that virtual time.
    pub slowest_rank: u32,
    /// Per-rank virtual computation, communication and waiting time.
    pub compute: Stats,
    pub comm: Stats,
    pub wait: Stats,
    /// The application's own CPU time on the host, summed over ranks.
    pub app_cpu: Duration,
    /// Messages and bytes sent, summed over ranks.
    pub msgs_sent: u64,
    pub bytes_sent: u64,
    /// Conservative decisions, summed over ranks, and the host time ranks
    /// spent waiting for them (summed).
    pub decisions: u64,
    pub decide_wait: Duration,
    /// Times the ranks slept on the host, summed (each gave its core away).
    pub sleeps: u64,
    /// app_cpu / (cores x wall); `None` when cores or wall is zero.
    pub efficiency: Option<f64>,
    /// Host wall time / predicted time; `None` when the prediction is zero.
    pub slowdown: Option<f64>,
}

impl Report {
    /// Builds the report from the ranks' results (index = rank).
    pub fn new(job: JobInfo, ranks: Vec<RankResult>) -> Report {
        let mut predicted = 0u64;
        let mut slowest_rank = 0u32;
        for (i, r) in ranks.iter().enumerate() {
            if r.vtime_ps > predicted {
                predicted = r.vtime_ps;
                slowest_rank = i as u32;
            }
        }
        let app_cpu_ns: u128 = ranks.iter().map(|r| r.host_cpu_ns as u128).sum();
        let app_cpu = Duration::from_nanos(u64::try_from(app_cpu_ns).unwrap_or(u64::MAX));
        let denom = job.cores as f64 * job.wall.as_nanos() as f64;
        let efficiency = (denom > 0.0).then(|| app_cpu_ns as f64 / denom);
        let slowdown = (predicted > 0).then(|| job.wall.as_nanos() as f64 * 1e3 / predicted as f64);
        Report {
            predicted: VTime::from_ps(predicted),
            slowest_rank,
            compute: Stats::of(ranks.iter().map(|r| r.compute_ps)),
            comm: Stats::of(ranks.iter().map(|r| r.comm_ps)),
            wait: Stats::of(ranks.iter().map(|r| r.wait_ps)),
            app_cpu,
            msgs_sent: ranks
                .iter()
                .map(|r| r.msgs_sent)
                .fold(0, u64::saturating_add),
            bytes_sent: ranks
                .iter()
                .map(|r| r.bytes_sent)
                .fold(0, u64::saturating_add),
            decisions: ranks
                .iter()
                .map(|r| r.decisions)
                .fold(0, u64::saturating_add),
            sleeps: ranks.iter().map(|r| r.sleeps).fold(0, u64::saturating_add),
            decide_wait: Duration::from_nanos(
                ranks
                    .iter()
                    .map(|r| r.decide_wait_ns)
                    .fold(0, u64::saturating_add),
            ),
            efficiency,
            slowdown,
            job,
            ranks,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Four ranks with figures chosen so that every statistic is easy to
    /// compute by hand (see `figures_by_hand`).
    pub(crate) fn sample() -> Report {
        let rank = |vtime_ps, compute_ps, comm_ps, host_cpu_ns, msgs_sent, bytes_sent| RankResult {
            vtime_ps,
            compute_ps,
            comm_ps,
            wait_ps: 1_000_000,
            host_cpu_ns,
            msgs_sent,
            bytes_sent,
            decisions: 2,
            decide_wait_ns: 500,
            sleeps: 3,
        };
        Report::new(
            JobInfo {
                target: "tianhe1a".into(),
                cores: 2,
                sync_mode: "conservative".into(),
                wall: Duration::from_millis(5),
                host_cpu: Duration::from_millis(9),
                startup: Some(Duration::from_micros(1500)),
                peak_memory: Some((3 << 20, false)),
                ranks_per_process: None,
                host_processes: Some(4),
            },
            vec![
                rank(4_000_000, 1_000_000, 2_000_000, 1_000_000, 3, 300),
                rank(5_000_000, 3_000_000, 1_000_000, 3_000_000, 1, 1_048_576),
                rank(3_500_000, 2_000_000, 500_000, 2_000_000, 0, 0),
                rank(5_000_000, 2_000_000, 1_500_000, 2_000_000, 2, 100),
            ],
        )
    }

    #[test]
    fn figures_by_hand() {
        let r = sample();
        // max vtime is 5 us, first reached by rank 1
        assert_eq!(r.predicted, VTime::from_ps(5_000_000));
        assert_eq!(r.slowest_rank, 1);
        // compute 1, 3, 2, 2 us: min 1, avg 8/4 = 2, max 3
        assert_eq!(
            (r.compute.min_s(), r.compute.avg_s(), r.compute.max_s()),
            (1e-6, 2e-6, 3e-6)
        );
        // comm 2, 1, 0.5, 1.5 us: min 0.5, avg 5/4 = 1.25, max 2
        assert_eq!(
            (r.comm.min_s(), r.comm.avg_s(), r.comm.max_s()),
            (0.5e-6, 1.25e-6, 2e-6)
        );
        assert_eq!(
            (r.wait.min_s(), r.wait.avg_s(), r.wait.max_s()),
            (1e-6, 1e-6, 1e-6)
        );
        // application CPU 1 + 3 + 2 + 2 = 8 ms; efficiency 8 ms / (2 cores x 5 ms) = 0.8
        assert_eq!(r.app_cpu, Duration::from_millis(8));
        assert_eq!(r.efficiency, Some(0.8));
        // 5 ms of host wall for 5 us of target time
        assert_eq!(r.slowdown, Some(1000.0));
        assert_eq!((r.msgs_sent, r.bytes_sent), (6, 1_048_976));
    }

    #[test]
    fn degenerate_inputs() {
        let mut job = sample().job;
        job.wall = Duration::ZERO;
        let r = Report::new(job, vec![]);
        assert_eq!(r.predicted, VTime::ZERO);
        assert_eq!(r.efficiency, None);
        assert_eq!(r.slowdown, None);
        assert_eq!(
            (r.compute.min_s(), r.compute.avg_s(), r.compute.max_s()),
            (0.0, 0.0, 0.0)
        );
    }
}
