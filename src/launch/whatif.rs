//! What-if runs (`mpirun --target A --target B`, `--sweep KEY=V1,V2`): the
//! configurations and their target files, the directory the ranks write
//! their call logs to, the replays of the other configurations once the run
//! has ended (see `crate::replay`), and their part of the report.
use super::args::RunArgs;
use crate::report::{human_secs, to_json, JobInfo, Report};
use crate::sweep::config::{self, Base, Config};
use std::path::PathBuf;
use std::time::Duration;

/// The configurations of a what-if run and where their files are.
pub struct WhatIf {
    bases: Vec<Base>,
    pub configs: Vec<Config>,
    /// Holds config-NNN.toml and logs/.
    dir: PathBuf,
}

/// A configuration replayed after the run.
pub struct Replayed {
    pub label: String,
    pub outcome: crate::replay::Outcome,
}

/// What `a` asks for: `None` for a run with one target and no sweep (a
/// sweep of one value is a run of that one configuration).
pub fn plan(a: &RunArgs, job_id: &str) -> Result<Option<WhatIf>, String> {
    if a.targets.len() <= 1 && a.sweeps.is_empty() {
        return Ok(None);
    }
    let specs: Vec<String> = if a.targets.is_empty() {
        let env = std::env::var("VACED_TARGET").ok();
        vec![super::job::resolve_target(None, env.as_deref())]
    } else {
        a.targets.clone()
    };
    let bases = specs
        .iter()
        .map(|s| Base::load(s))
        .collect::<Result<Vec<_>, _>>()?;
    let configs = config::build(&bases, &a.sweeps)?;
    for c in &configs {
        let name = c.label(&bases);
        crate::coll::select::validate(&c.model).map_err(|e| format!("{name}: {e}"))?;
        c.model
            .topology
            .check_ranks(a.nranks)
            .map_err(|e| format!("{name}: {e}"))?;
    }
    let dir = std::env::temp_dir().join(format!("vaced-whatif-{job_id}"));
    let made = |e: std::io::Error| format!("cannot create {}: {e}", dir.display());
    std::fs::create_dir_all(dir.join("logs")).map_err(made)?;
    for (i, c) in configs.iter().enumerate() {
        let (path, _) = config::paths(&dir, i);
        std::fs::write(&path, &c.toml).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(Some(WhatIf {
        bases,
        configs,
        dir,
    }))
}

impl WhatIf {
    /// Several configurations (one is a plain run of that configuration).
    pub fn replays(&self) -> bool {
        self.configs.len() > 1
    }

    /// The target file the program runs under: the first configuration's.
    pub fn primary_target(&self) -> String {
        config::paths(&self.dir, 0).0.to_string_lossy().into_owned()
    }

    /// Where the ranks write their call logs.
    pub fn logs(&self) -> PathBuf {
        self.dir.join("logs")
    }

    pub fn label(&self, i: usize) -> String {
        self.configs[i].label(&self.bases)
    }

    /// Replay every configuration but the first, `threads` at a time; an
    /// interrupt (Ctrl-C...) among `signals` stops them: its number, then.
    pub fn replay_others(
        &self,
        nranks: u32,
        threads: u32,
        signals: &crate::transport::process::SignalSet,
        interrupts: &[i32],
    ) -> Result<Vec<Replayed>, i32> {
        let models: Vec<_> = self.configs[1..].iter().map(|c| c.model.clone()).collect();
        // a replay that fails says why in its outcome: no panic messages
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let stop = std::sync::atomic::AtomicBool::new(false);
        let mut caught = None;
        let outcomes = std::thread::scope(|s| {
            let h = s
                .spawn(|| crate::replay::replay_all(&self.logs(), nranks, &models, threads, &stop));
            while !h.is_finished() {
                // (10 ms: how late the launcher sees the replays end)
                if let Some(sig) = signals.wait(std::time::Duration::from_millis(10)) {
                    if interrupts.contains(&sig) && caught.is_none() {
                        caught = Some(sig);
                        stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            }
            h.join().expect("the replays do not panic")
        });
        std::panic::set_hook(hook);
        if let Some(sig) = caught {
            return Err(sig);
        }
        Ok(outcomes
            .into_iter()
            .enumerate()
            .map(|(i, outcome)| Replayed {
                label: self.label(i + 1),
                outcome,
            })
            .collect())
    }

    /// Remove the configurations' files and the logs.
    pub fn remove(&self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Replayed {
    /// Its report (host figures: the replay's), if it finished.
    pub fn report(&self, like: &JobInfo, target: &str) -> Option<Report> {
        if self.outcome.failure.is_some() {
            return None;
        }
        let info = JobInfo {
            target: target.to_string(),
            wall: self.outcome.wall,
            host_cpu: Duration::ZERO,
            startup: None,
            peak_memory: None,
            // replayed in the launcher, by no process of the job
            ranks_per_process: None,
            host_processes: None,
            ..like.clone()
        };
        Some(Report::new(info, self.outcome.ranks.clone()))
    }

    /// `exact`, `approximate: N outcomes ...` or `failed: ...`.
    pub fn verdict(&self) -> String {
        match (&self.outcome.failure, self.outcome.differing) {
            (Some(f), n) => {
                format!("failed ({n} timing-dependent outcomes came out differently before): {f}")
            }
            (None, 0) => "exact".into(),
            (None, n) => format!(
                "approximate: {n} timing-dependent outcome{} the program saw came out differently",
                if n == 1 { "" } else { "s" }
            ),
        }
    }
}

/// The what-if table for stderr: every configuration, its prediction, how
/// it compares with the first, and how it was obtained.
pub fn render_text(
    first_label: &str,
    first: &Report,
    others: &[(&Replayed, Option<Report>)],
) -> String {
    let mut out = format!(
        "\nwhat-if: {} configurations from one execution (#0 ran, the others were replayed)\n",
        others.len() + 1
    );
    out.push_str(&format!(
        "  {:>3}  {:>14}  {:>9}  {:>9}  configuration\n",
        "#", "predicted", "vs #0", "replay"
    ));
    let base = first.predicted.ps() as f64;
    out.push_str(&format!(
        "  {:>3}  {:>14}  {:>9}  {:>9}  {first_label}\n",
        0,
        human_secs(first.predicted.as_secs_f64()),
        "",
        "(ran)"
    ));
    for (i, (r, rep)) in others.iter().enumerate() {
        let (pred, rel) = match rep {
            Some(rep) => (
                human_secs(rep.predicted.as_secs_f64()),
                if base > 0.0 {
                    format!("{:+.1}%", (rep.predicted.ps() as f64 / base - 1.0) * 100.0)
                } else {
                    String::new()
                },
            ),
            None => ("-".into(), String::new()),
        };
        out.push_str(&format!(
            "  {:>3}  {:>14}  {:>9}  {:>9}  {}\n",
            i + 1,
            pred,
            rel,
            human_secs(r.outcome.wall.as_secs_f64()),
            r.label
        ));
        if r.outcome.differing > 0 || r.outcome.failure.is_some() {
            out.push_str(&format!("  {:>3}  {}\n", "", r.verdict()));
        }
    }
    out
}

/// The `configurations` array of the JSON report: the first is the run's
/// own report, each other its replay's, with its label and verdict.
pub fn to_json_array(
    first_label: &str,
    first: &Report,
    others: &[(&Replayed, Option<Report>)],
) -> serde_json::Value {
    let mut v = vec![serde_json::json!({
        "index": 0,
        "label": first_label,
        "replayed": false,
        "exact": true,
        "differing_outcomes": 0,
        "failure": null,
        "report": to_json(first),
    })];
    for (i, (r, rep)) in others.iter().enumerate() {
        v.push(serde_json::json!({
            "index": i + 1,
            "label": r.label,
            "replayed": true,
            "exact": r.outcome.failure.is_none() && r.outcome.differing == 0,
            "differing_outcomes": r.outcome.differing,
            "failure": r.outcome.failure,
            "replay_wall_s": r.outcome.wall.as_secs_f64(),
            "report": rep.as_ref().map(to_json),
        }));
    }
    serde_json::Value::Array(v)
}
