//! Reading the figures the harness needs from vaced's `--report F.json`
//! (written by src/report/json.rs).
use serde::Deserialize;

/// The subset of the JSON report the tables use.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct VacedReport {
    pub target: String,
    pub nranks: usize,
    pub cores: u32,
    pub predicted_s: f64,
    /// Exact prediction (integer picoseconds).
    pub predicted_ps: u64,
    pub host_wall_s: f64,
    pub host_cpu_s: f64,
    /// Total computation measured on the host's cores.
    pub app_cpu_s: f64,
    pub startup_s: Option<f64>,
    pub efficiency: Option<f64>,
    /// Messages sent, summed over ranks.
    #[serde(default)]
    pub msgs_sent: Option<u64>,
    /// The execution mode: the most ranks a host process ran, null for one
    /// process per rank.
    #[serde(default)]
    pub ranks_per_process: Option<u32>,
    /// Processes that ran the ranks.
    #[serde(default)]
    pub host_processes: Option<u32>,
}

impl VacedReport {
    /// Host CPU per message, microseconds: (the job's host CPU - the
    /// application's) / messages sent; None without messages.
    pub fn cpu_per_msg_us(&self) -> Option<f64> {
        let n = self.msgs_sent.filter(|n| *n > 0)?;
        Some((self.host_cpu_s - self.app_cpu_s) / n as f64 * 1e6)
    }
}

pub fn parse(text: &str) -> Result<VacedReport, String> {
    serde_json::from_str(text).map_err(|e| format!("vaced report: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_report_fields() {
        let text = r#"{"target":"tianhe1a","nranks":4,"cores":2,"sync_mode":"exact",
            "predicted_s":0.0123,"predicted_ps":12300000000,"slowest_rank":3,
            "compute_s":{"min":1,"avg":1,"max":1},"msgs_sent":6,"host_wall_s":0.5,
            "host_cpu_s":0.9,"app_cpu_s":0.8,"startup_s":0.0015,"efficiency":0.8,
            "ranks_per_process":2,"host_processes":2,"slowdown":40.6,"ranks":[]}"#;
        assert_eq!(
            parse(text).unwrap(),
            VacedReport {
                target: "tianhe1a".into(),
                nranks: 4,
                cores: 2,
                predicted_s: 0.0123,
                predicted_ps: 12_300_000_000,
                host_wall_s: 0.5,
                host_cpu_s: 0.9,
                app_cpu_s: 0.8,
                startup_s: Some(0.0015),
                efficiency: Some(0.8),
                msgs_sent: Some(6),
                ranks_per_process: Some(2),
                host_processes: Some(2),
            }
        );
        // (0.9 - 0.8) s / 6 messages
        assert_eq!(
            parse(text).unwrap().cpu_per_msg_us(),
            Some((0.9 - 0.8) / 6.0 * 1e6)
        );
    }

    #[test]
    fn null_figures_and_errors() {
        let text = r#"{"target":"t","nranks":1,"cores":1,"predicted_s":0,"predicted_ps":0,
            "host_wall_s":0,"host_cpu_s":0,"app_cpu_s":0,"startup_s":null,"efficiency":null}"#;
        let r = parse(text).unwrap();
        assert_eq!((r.startup_s, r.efficiency), (None, None));
        assert_eq!(
            (r.msgs_sent, r.ranks_per_process, r.host_processes),
            (None, None, None)
        );
        assert_eq!(r.cpu_per_msg_us(), None);
        let e = parse(r#"{"target":"t"}"#).unwrap_err();
        assert!(e.starts_with("vaced report: missing field `nranks`"), "{e}");
    }
}
