//! TEMPORARY stand-ins for interfaces that other branches are implementing
//! (model loader and presets, the rank slot's abort message, the report), so
//! this branch builds on its own. DELETE THIS FILE when merging `model`,
//! `transport` and `report`, then:
//! * `pending::preset_names()` in src/bin/vaced.rs -> `vaced::model::presets::preset_names()`;
//! * `summary::emit_report` -> build a `crate::report::Report` (see there).
//!
//! `Model::load`, `Model::to_toml` and `RankSlot::abort_message` are defined
//! here as inherent methods so callers already use their final names.

use super::summary::JobSummary;
use crate::model::{ConfigError, Level, Model, VTime};
use crate::transport::RankSlot;
use std::io;
use std::path::Path;

/// Stand-in for `crate::model::presets::preset_names()`.
pub fn preset_names() -> Vec<&'static str> {
    vec!["tianhe1a"]
}

impl Model {
    /// Stand-in for the real loader: knows only the `tianhe1a` preset.
    pub fn load(spec: &str) -> Result<Model, ConfigError> {
        if spec == "tianhe1a" {
            return Ok(Model {
                name: "tianhe1a".into(),
                cpu_scale: 1.0,
                mem_bandwidth: 6_380_000_000,
                net_bandwidth: 4_160_000_000,
                latency: VTime::from_ps(15_000_000),
                hop_latency: VTime::from_ps(600_000),
                eager_limit: 128 * 1024,
                header_bytes: 64,
                o_send: VTime::from_ps(0),
                o_recv: VTime::from_ps(0),
                levels: vec![
                    Level { ranks: 12, hops: 0 },
                    Level {
                        ranks: 192,
                        hops: 3,
                    },
                ],
                default_hops: 5,
            });
        }
        if Path::new(spec).exists() {
            return Err(ConfigError {
                origin: spec.into(),
                key: String::new(),
                message: "target files need the model loader (not merged in this branch)".into(),
            });
        }
        Err(ConfigError {
            origin: format!("preset {spec}"),
            key: String::new(),
            message: format!(
                "no preset or file named `{spec}` (presets: {})",
                preset_names().join(", ")
            ),
        })
    }

    /// Stand-in for the real TOML writer.
    pub fn to_toml(&self) -> String {
        format!(
            "name = \"{}\"\n# (full TOML needs the model branch)\n",
            self.name
        )
    }
}

impl RankSlot {
    /// Stand-in: the transport branch stores MPI_Abort's message in the slot.
    pub fn abort_message(&self) -> Option<String> {
        None
    }
}

/// Stand-in for `crate::report::render_text`.
pub fn render_text(s: &JobSummary) -> String {
    let predicted = s.results.iter().map(|r| r.vtime_ps).max().unwrap_or(0);
    format!(
        "vaced: target {}: predicted time {:.9} s ({} ranks)\n\
         vaced: host wall {:.3} s, host CPU {:.3} s, {} cores, start-up {:.3} s\n",
        s.target,
        predicted as f64 * 1e-12,
        s.ranks,
        s.wall.as_secs_f64(),
        s.host_cpu_ns as f64 * 1e-9,
        s.cores,
        s.startup.as_secs_f64(),
    )
}

/// Stand-in for `crate::report::write_json`.
pub fn write_json(s: &JobSummary, path: &Path) -> io::Result<()> {
    let v = serde_json::json!({
        "target": s.target,
        "ranks": s.ranks,
        "cores": s.cores,
        "wall_s": s.wall.as_secs_f64(),
        "host_cpu_s": s.host_cpu_ns as f64 * 1e-9,
        "startup_s": s.startup.as_secs_f64(),
        "vtime_ps": s.results.iter().map(|r| r.vtime_ps).collect::<Vec<_>>(),
    });
    std::fs::write(path, serde_json::to_string_pretty(&v)? + "\n")
}
