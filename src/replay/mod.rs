//! What-if runs from one execution (`mpirun --target A --target B`,
//! `--sweep KEY=V1,V2`): the program runs once, under the first
//! configuration, and every rank writes its call log (`p2p::record`); the
//! launcher then replays the logs under each other configuration with the
//! same engine (ranks as threads over an in-memory link, lengths instead of
//! data, no application code).
//!
//! Timing rules: the replay makes the engine calls the program made, in the
//! same order, with the same CPU clock readings, so the computation measured
//! once is scaled by each configuration's `cpu.scale`, and everything else
//! (Algorithms 1-3, the model's equations, conservative decisions) is the
//! same code as a run of its own. A deterministic program therefore gets,
//! for every configuration, exactly the prediction a separate run would give
//! (bit-identical at `cpu.scale = 0`). An outcome the program saw and that
//! depends on time (the source a wildcard receive got, MPI_Test*,
//! MPI_Waitany/some, MPI_Iprobe, MPI_Cancel) may come out differently under
//! another configuration: the replay counts those, follows the program's
//! path, and the configuration's prediction is reported as approximate.
//!
//! Why a replay and not one clock per configuration inside the run: the host
//! runs the program in one order, the first configuration's, and a second
//! configuration may need another (when every rank is blocked, the engine
//! acts on the earliest pending message of the whole job, and which one
//! that is depends on the configuration), so clocks carried along one
//! execution cannot be exact for every configuration; a replay runs each
//! configuration's own order.
mod rank;

use crate::model::Model;
use crate::p2p::memlink::{Shared, STOPPED};
use crate::transport::RankResult;
use std::path::Path;
use std::time::{Duration, Instant};

/// A configuration's replay.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Every rank's figures (empty if the replay failed).
    pub ranks: Vec<RankResult>,
    /// Outcomes the program saw that came out differently (0: exact).
    pub differing: u64,
    /// Why the replay could not finish, if it could not.
    pub failure: Option<String>,
    /// Host wall time of the replay.
    pub wall: Duration,
}

/// Thread stack of a replayed rank (the engine's calls are not deep).
const STACK: usize = 512 * 1024;

/// Replay the `nranks` call logs in `dir` under `model`.
pub fn replay(dir: &Path, nranks: u32, model: &Model) -> Outcome {
    let began = Instant::now();
    let slots = if model.contention_window().is_some() {
        crate::launch::job::FLOW_SLOTS
    } else {
        0
    };
    let shared = Shared::new(nranks, slots);
    let results: Vec<Result<rank::RankReplay, String>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..nranks)
            .map(|r| {
                let shared = shared.clone();
                std::thread::Builder::new()
                    .name(format!("replay-{r}"))
                    .stack_size(STACK)
                    .spawn_scoped(s, move || {
                        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            rank::replay_rank(dir, r, shared.clone(), model)
                        }));
                        let out = match run {
                            Ok(x) => x,
                            Err(p) => Err(panic_text(p)),
                        };
                        if out.is_err() {
                            shared.stop();
                        }
                        out
                    })
                    .unwrap_or_else(|e| panic!("cannot start a replay thread: {e}"))
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().unwrap_or_else(|p| Err(panic_text(p))))
            .collect()
    });
    let wall = began.elapsed();
    let failure = results
        .iter()
        .enumerate()
        .filter_map(|(r, x)| x.as_ref().err().map(|e| (r, e)))
        .find(|(_, e)| !e.contains(STOPPED))
        .map(|(r, e)| format!("rank {r}: {e}"));
    if let Some(f) = failure {
        let differing = results.iter().flatten().map(|x| x.differing).sum();
        return Outcome {
            ranks: Vec::new(),
            differing,
            failure: Some(f),
            wall,
        };
    }
    let ok: Vec<rank::RankReplay> = results.into_iter().flatten().collect();
    Outcome {
        differing: ok.iter().map(|x| x.differing).sum(),
        ranks: ok.into_iter().map(|x| x.result).collect(),
        failure: None,
        wall,
    }
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "the replay panicked".into())
        .trim_end()
        .to_string()
}
