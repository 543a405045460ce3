//! The figures a completed job hands to the report, and the one function that
//! turns them into the stderr table and the JSON file.

use super::memory::PeakMemory;
use crate::report::{render_text, to_json, write_json, JobInfo, Report};
use crate::transport::RankResult;
use std::io;
use std::path::Path;
use std::time::Duration;

/// Everything the launcher knows about a completed job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSummary {
    /// The target machine's name (`Model::name`).
    pub target: String,
    pub ranks: u32,
    /// Core tokens the ranks shared.
    pub cores: u32,
    /// From the start of spawning to the last rank's exit.
    pub wall: Duration,
    /// User + system CPU time of all ranks.
    pub host_cpu_ns: u64,
    /// From the start of spawning until every rank was started.
    pub startup: Duration,
    /// Peak memory of the whole job, if it could be measured.
    pub peak_memory: Option<PeakMemory>,
    /// `--sync fast`: timing-dependent outcomes were decided on host arrival.
    pub sync_fast: bool,
    /// `--ranks-per-process`: the most ranks a host process ran (`None`:
    /// one process per rank).
    pub ranks_per_process: Option<u32>,
    /// Processes that ran the ranks: one per rank, or the host processes.
    pub processes: u32,
    /// Every rank's result slot, by rank.
    pub results: Vec<RankResult>,
}

/// A what-if run's configurations: the label of the one that ran, and the
/// others, replayed.
pub struct WhatIfPart<'a> {
    pub first_label: String,
    pub replayed: &'a [super::whatif::Replayed],
}

/// Print the report to stderr and, with `json`, write it there; a what-if
/// run's configurations follow.
pub fn emit_report(
    s: &JobSummary,
    json: Option<&Path>,
    whatif: Option<WhatIfPart>,
) -> io::Result<()> {
    let info = JobInfo {
        target: s.target.clone(),
        cores: s.cores,
        // Operations whose outcome depends on timing (MPI_ANY_SOURCE, Test*,
        // Iprobe, Waitany/some): conservative decisions (exact, the default)
        // or host arrival (`--sync fast`, approximate).
        sync_mode: if s.sync_fast {
            "fast (approximate: decided on host arrival)"
        } else {
            "conservative (exact)"
        }
        .to_string(),
        wall: s.wall,
        host_cpu: Duration::from_nanos(s.host_cpu_ns),
        startup: Some(s.startup),
        peak_memory: s.peak_memory.map(|p| (p.bytes(), p.upper_bound())),
        ranks_per_process: s.ranks_per_process,
        host_processes: Some(s.processes),
    };
    let report = Report::new(info, s.results.clone());
    eprint!("{}", render_text(&report));
    let Some(w) = whatif else {
        if let Some(path) = json {
            write_json(&report, path)?;
        }
        return Ok(());
    };
    let others: Vec<_> = w
        .replayed
        .iter()
        .map(|r| (r, r.report(&report.job, &s.target)))
        .collect();
    eprint!(
        "{}",
        super::whatif::render_text(&w.first_label, &report, &others)
    );
    if let Some(path) = json {
        let mut doc = to_json(&report);
        doc["configurations"] = super::whatif::to_json_array(&w.first_label, &report, &others);
        let mut text = serde_json::to_string_pretty(&doc).map_err(io::Error::other)?;
        text.push('\n');
        std::fs::write(path, text)?;
    }
    Ok(())
}
