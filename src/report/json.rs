//! The JSON report (`--report FILE.json`): the summary plus every rank's
//! figures.
use super::{Report, Stats};
use serde::Serialize;
use std::io;
use std::path::Path;

#[derive(Serialize)]
struct MinAvgMax {
    min: f64,
    avg: f64,
    max: f64,
}

impl From<&Stats> for MinAvgMax {
    fn from(s: &Stats) -> Self {
        MinAvgMax {
            min: s.min_s(),
            avg: s.avg_s(),
            max: s.max_s(),
        }
    }
}

#[derive(Serialize)]
struct RankJson {
    rank: u32,
    vtime_s: f64,
    /// Exact final virtual time.
    vtime_ps: u64,
    compute_s: f64,
    comm_s: f64,
    wait_s: f64,
    host_cpu_s: f64,
    msgs_sent: u64,
    bytes_sent: u64,
    decisions: u64,
    decide_wait_s: f64,
    host_sleeps: u64,
}

#[derive(Serialize)]
struct ReportJson<'a> {
    target: &'a str,
    nranks: usize,
    cores: u32,
    sync_mode: &'a str,
    predicted_s: f64,
    predicted_ps: u64,
    slowest_rank: u32,
    compute_s: MinAvgMax,
    comm_s: MinAvgMax,
    wait_s: MinAvgMax,
    msgs_sent: u64,
    bytes_sent: u64,
    decisions: u64,
    decide_wait_s: f64,
    host_sleeps: u64,
    host_wall_s: f64,
    host_cpu_s: f64,
    app_cpu_s: f64,
    startup_s: Option<f64>,
    /// Bytes; `peak_memory_upper_bound`: only a bound (see the text report).
    peak_memory_bytes: Option<u64>,
    peak_memory_upper_bound: Option<bool>,
    /// The execution mode: the most ranks a host process ran
    /// (`--ranks-per-process`), `null` for one process per rank.
    ranks_per_process: Option<u32>,
    /// Processes that ran the ranks (`null` in a what-if replay).
    host_processes: Option<u32>,
    efficiency: Option<f64>,
    slowdown: Option<f64>,
    ranks: Vec<RankJson>,
}

fn ps_secs(ps: u64) -> f64 {
    ps as f64 / 1e12
}

/// The report as a JSON value.
pub fn to_json(r: &Report) -> serde_json::Value {
    let j = &r.job;
    let doc = ReportJson {
        target: &j.target,
        nranks: r.ranks.len(),
        cores: j.cores,
        sync_mode: &j.sync_mode,
        predicted_s: r.predicted.as_secs_f64(),
        predicted_ps: r.predicted.ps(),
        slowest_rank: r.slowest_rank,
        compute_s: (&r.compute).into(),
        comm_s: (&r.comm).into(),
        wait_s: (&r.wait).into(),
        msgs_sent: r.msgs_sent,
        bytes_sent: r.bytes_sent,
        decisions: r.decisions,
        decide_wait_s: r.decide_wait.as_secs_f64(),
        host_sleeps: r.sleeps,
        host_wall_s: j.wall.as_secs_f64(),
        host_cpu_s: j.host_cpu.as_secs_f64(),
        app_cpu_s: r.app_cpu.as_secs_f64(),
        startup_s: j.startup.map(|d| d.as_secs_f64()),
        peak_memory_bytes: j.peak_memory.map(|p| p.0),
        peak_memory_upper_bound: j.peak_memory.map(|p| p.1),
        ranks_per_process: j.ranks_per_process,
        host_processes: j.host_processes,
        efficiency: r.efficiency,
        slowdown: r.slowdown,
        ranks: r
            .ranks
            .iter()
            .enumerate()
            .map(|(i, x)| RankJson {
                rank: i as u32,
                vtime_s: ps_secs(x.vtime_ps),
                vtime_ps: x.vtime_ps,
                compute_s: ps_secs(x.compute_ps),
                comm_s: ps_secs(x.comm_ps),
                wait_s: ps_secs(x.wait_ps),
                host_cpu_s: x.host_cpu_ns as f64 / 1e9,
                msgs_sent: x.msgs_sent,
                bytes_sent: x.bytes_sent,
                decisions: x.decisions,
                decide_wait_s: x.decide_wait_ns as f64 / 1e9,
                host_sleeps: x.sleeps,
            })
            .collect(),
    };
    serde_json::to_value(doc).expect("the report serialises to JSON")
}

/// Writes the JSON report to `path` (pretty-printed, newline-terminated).
pub fn write_json(r: &Report, path: impl AsRef<Path>) -> io::Result<()> {
    let mut text = serde_json::to_string_pretty(&to_json(r)).map_err(io::Error::other)?;
    text.push('\n');
    std::fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample;
    use serde_json::{json, Value};

    #[test]
    fn file_parses_back() {
        let r = sample();
        let path =
            std::env::temp_dir().join(format!("vaced-report-test-{}.json", std::process::id()));
        write_json(&r, &path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["target"], "tianhe1a");
        assert_eq!(v["nranks"], 4);
        assert_eq!(v["cores"], 2);
        assert_eq!(v["sync_mode"], "conservative");
        assert_eq!(v["predicted_s"], 5e-6);
        assert_eq!(v["predicted_ps"], 5_000_000);
        assert_eq!(v["slowest_rank"], 1);
        assert_eq!(
            v["compute_s"],
            json!({"min": 1e-6, "avg": 2e-6, "max": 3e-6})
        );
        assert_eq!(
            v["comm_s"],
            json!({"min": 0.5e-6, "avg": 1.25e-6, "max": 2e-6})
        );
        assert_eq!(v["wait_s"], json!({"min": 1e-6, "avg": 1e-6, "max": 1e-6}));
        assert_eq!(v["msgs_sent"], 6);
        assert_eq!(v["bytes_sent"], 1_048_976);
        assert_eq!(v["decisions"], 8);
        assert_eq!(v["decide_wait_s"], 2e-6);
        assert_eq!(v["host_sleeps"], 12);
        assert_eq!(v["host_wall_s"], 0.005);
        assert_eq!(v["host_cpu_s"], 0.009);
        assert_eq!(v["app_cpu_s"], 0.008);
        assert_eq!(v["startup_s"], 0.0015);
        assert_eq!(v["peak_memory_bytes"], 3 << 20);
        assert_eq!(v["peak_memory_upper_bound"], false);
        assert_eq!(v["ranks_per_process"], Value::Null);
        assert_eq!(v["host_processes"], 4);
        assert_eq!(v["efficiency"], 0.8);
        assert_eq!(v["slowdown"], 1000.0);
        let ranks = v["ranks"].as_array().unwrap();
        assert_eq!(ranks.len(), 4);
        assert_eq!(
            ranks[1],
            json!({
                "rank": 1, "vtime_s": 5e-6, "vtime_ps": 5_000_000, "compute_s": 3e-6,
                "comm_s": 1e-6, "wait_s": 1e-6, "host_cpu_s": 0.003,
                "msgs_sent": 1, "bytes_sent": 1_048_576,
                "decisions": 2, "decide_wait_s": 5e-7, "host_sleeps": 3
            })
        );
        let vt: Vec<u64> = ranks
            .iter()
            .map(|x| x["vtime_ps"].as_u64().unwrap())
            .collect();
        assert_eq!(vt, [4_000_000, 5_000_000, 3_500_000, 5_000_000]);
    }

    #[test]
    fn missing_figures_are_null() {
        let mut r = sample();
        r.job.startup = None;
        r.job.peak_memory = None;
        r.efficiency = None;
        let v = to_json(&r);
        assert_eq!(v["startup_s"], Value::Null);
        assert_eq!(v["peak_memory_bytes"], Value::Null);
        assert_eq!(v["peak_memory_upper_bound"], Value::Null);
        assert_eq!(v["efficiency"], Value::Null);
    }

    #[test]
    fn execution_mode() {
        let mut r = sample();
        r.job.ranks_per_process = Some(3);
        r.job.host_processes = Some(2);
        let v = to_json(&r);
        assert_eq!(v["ranks_per_process"], 3);
        assert_eq!(v["host_processes"], 2);
        r.job.ranks_per_process = None;
        r.job.host_processes = None;
        let v = to_json(&r);
        assert_eq!(v["ranks_per_process"], Value::Null);
        assert_eq!(v["host_processes"], Value::Null);
    }
}
