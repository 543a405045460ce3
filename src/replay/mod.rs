//! What-if runs from one execution (`mpirun --target A --target B`,
//! `--sweep KEY=V1,V2`): the program runs once, under the first
//! configuration, and every rank writes its call log (`p2p::record`); the
//! launcher then replays the logs under each other configuration with the
//! same engine (ranks as coroutines of one host thread over an in-memory
//! link, switched without a system call; lengths instead of data; no
//! application code), several configurations at once on the host's cores.
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
use crate::p2p::memlink::{Shared, Yielder, STOPPED};
use crate::transport::RankResult;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};
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

/// Stack of a replayed rank's coroutine (the engine's calls are not deep;
/// only the pages touched take memory).
const STACK: usize = 256 * 1024;

/// The failure of a replay that `stop` ended.
pub const INTERRUPTED: &str = "interrupted";

/// What the replays of one run share: its logs, its size, the flag that
/// stops them, and the stacks of the coroutines that have finished.
struct Job<'a> {
    dir: &'a Path,
    nranks: u32,
    stop: &'a std::sync::atomic::AtomicBool,
    stacks: Stacks,
}

/// Coroutine stacks to reuse: a configuration's ranks take those of the
/// configurations replayed before (no mapping, page faults and unmapping
/// for each rank of each configuration; an unmapping interrupts the other
/// threads of the process to flush their address translations).
#[derive(Default)]
struct Stacks(std::sync::Mutex<Vec<DefaultStack>>);

impl Stacks {
    fn take(&self) -> Result<DefaultStack, String> {
        match self.0.lock().unwrap().pop() {
            Some(s) => Ok(s),
            None => {
                DefaultStack::new(STACK).map_err(|e| format!("cannot allocate a replay stack: {e}"))
            }
        }
    }

    fn give(&self, s: Vec<DefaultStack>) {
        self.0.lock().unwrap().extend(s);
    }
}

/// Replay the `nranks` call logs in `dir` under each of `models`, at most
/// `threads` host threads in all: configurations side by side, each on one
/// thread or more (its ranks coroutines of those threads). Setting `stop`
/// ends them all soon, failed ([`INTERRUPTED`]).
pub fn replay_all(
    dir: &Path,
    nranks: u32,
    models: &[Model],
    threads: u32,
    stop: &std::sync::atomic::AtomicBool,
) -> Vec<Outcome> {
    // Configurations side by side, one thread each, as long as there are
    // enough of them for every thread; the last few (fewer than the
    // threads) then share the threads among them: seven on two cores are
    // three rounds of two, then one on both, not four rounds with one core
    // idle in the last.
    let threads = threads.max(1) as usize;
    let full = if models.len() > threads {
        models.len() / threads * threads
    } else {
        0
    };
    let job = Job {
        dir,
        nranks,
        stop,
        stacks: Stacks::default(),
    };
    let mut out = side_by_side(&job, &models[..full], threads);
    out.extend(side_by_side(&job, &models[full..], threads));
    out
}

/// [`replay_all`] of `models` in rounds of at most `threads` configurations
/// side by side, the threads shared among those of a round.
fn side_by_side(job: &Job, models: &[Model], threads: usize) -> Vec<Outcome> {
    if models.is_empty() {
        return Vec::new();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out: Vec<std::sync::Mutex<Option<Outcome>>> =
        models.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let workers = threads.min(models.len());
    let each = (threads / workers).max(1) as u32;
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(m) = models.get(i) else { break };
                let o = replay_until(job, m, each);
                *out[i].lock().unwrap() = Some(o);
            });
        }
    });
    out.into_iter()
        .map(|o| {
            o.into_inner()
                .unwrap()
                .expect("every configuration replayed")
        })
        .collect()
}

/// Replay the `nranks` call logs in `dir` under `model` on `threads` host
/// threads (rank r a coroutine of the thread `memlink::thread_of` gives).
pub fn replay_on(dir: &Path, nranks: u32, model: &Model, threads: u32) -> Outcome {
    let job = Job {
        dir,
        nranks,
        stop: &std::sync::atomic::AtomicBool::new(false),
        stacks: Stacks::default(),
    };
    replay_until(&job, model, threads)
}

/// [`replay_on`], ended (failed) once `stop` is set.
fn replay_until(job: &Job, model: &Model, threads: u32) -> Outcome {
    let nranks = job.nranks;
    let began = Instant::now();
    let slots = if model.contention_window().is_some() {
        crate::launch::job::FLOW_SLOTS
    } else {
        0
    };
    let threads = threads.clamp(1, nranks.max(1));
    let shared = Shared::coroutines(nranks, slots, threads);
    let interrupted = std::sync::atomic::AtomicBool::new(false);
    let mut results: Vec<Option<Result<rank::RankReplay, String>>> =
        (0..nranks).map(|_| None).collect();
    let per_thread: Vec<ThreadOutcome> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let (shared, interrupted) = (shared.clone(), &interrupted);
                std::thread::Builder::new()
                    .name(format!("replay-{t}"))
                    .spawn_scoped(s, move || {
                        schedule(job, model, t, threads, &shared, interrupted)
                    })
                    .expect("a replay thread starts")
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().unwrap_or_else(|p| Err(panic_text(p))))
            .collect()
    });
    for part in per_thread {
        match part {
            Ok(v) => {
                for (r, x) in v {
                    results[r as usize] = Some(x);
                }
            }
            Err(e) => {
                return Outcome {
                    ranks: Vec::new(),
                    differing: 0,
                    failure: Some(e),
                    wall: began.elapsed(),
                }
            }
        }
    }
    let interrupted = interrupted.load(std::sync::atomic::Ordering::SeqCst);
    let wall = began.elapsed();
    const STALLED: &str = "the replay stalled: no rank could go on";
    let results: Vec<Result<rank::RankReplay, String>> = results
        .into_iter()
        .map(|x| x.unwrap_or_else(|| Err(STALLED.into())))
        .collect();
    let errors = || {
        results
            .iter()
            .enumerate()
            .filter_map(|(r, x)| x.as_ref().err().map(|e| (r, e)))
    };
    // a rank's own error, else (ranks only stopped) a stall
    let failure = if interrupted {
        Some(INTERRUPTED.to_string())
    } else {
        errors()
            .find(|(_, e)| !e.contains(STOPPED))
            .map(|(r, e)| format!("rank {r}: {e}"))
            .or_else(|| errors().next().map(|_| STALLED.to_string()))
    };
    let differing = results.iter().flatten().map(|x| x.differing).sum();
    if let Some(f) = failure {
        return Outcome {
            ranks: Vec::new(),
            differing,
            failure: Some(f),
            wall,
        };
    }
    Outcome {
        differing,
        ranks: results.into_iter().flatten().map(|x| x.result).collect(),
        failure: None,
        wall,
    }
}

/// A replayed rank's number and outcome.
type RankOutcome = (u32, Result<rank::RankReplay, String>);

/// What a scheduling thread gives: its ranks' outcomes (Err: it could not
/// start them).
type ThreadOutcome = Result<Vec<RankOutcome>, String>;

/// One scheduling thread `t` of `threads`: creates the coroutines of its
/// ranks (those `memlink::thread_of` gives `t`) and resumes whichever of
/// them is ready until they are all done; returns each one's outcome.
fn schedule(
    job: &Job,
    model: &Model,
    t: u32,
    threads: u32,
    shared: &std::sync::Arc<Shared>,
    interrupted: &std::sync::atomic::AtomicBool,
) -> ThreadOutcome {
    use std::sync::atomic::Ordering;
    let (nranks, stop) = (job.nranks, job.stop);
    type Co = Coroutine<(), (), Result<rank::RankReplay, String>>;
    // (a coroutine owns what it uses)
    let dir = std::sync::Arc::new(job.dir.to_path_buf());
    let model = std::sync::Arc::new(model.clone());
    let mine: Vec<u32> = (0..nranks)
        .filter(|&r| crate::p2p::memlink::thread_of(r, nranks, threads) == t)
        .collect();
    let mut ranks: Vec<Option<Co>> = Vec::with_capacity(mine.len());
    for &r in &mine {
        let stack = job.stacks.take()?;
        let shared = shared.clone();
        let (dir, model) = (dir.clone(), model.clone());
        ranks.push(Some(Coroutine::with_stack(
            stack,
            move |y: &Yielder, ()| {
                let link = rank::link(r, shared.clone()).in_coroutine(y);
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    rank::replay_rank(&dir, r, link, &model)
                }));
                let out = run.unwrap_or_else(|p| Err(panic_text(p)));
                if out.is_err() {
                    shared.stop();
                }
                out
            },
        )));
    }
    let mut out = Vec::with_capacity(mine.len());
    let mut done_stacks = Vec::with_capacity(mine.len());
    let patience = std::time::Duration::from_millis(20);
    let mut stop_sent = false;
    while out.len() < mine.len() {
        if stop.load(Ordering::Relaxed) && !interrupted.swap(true, Ordering::SeqCst) {
            shared.stop();
        }
        let Some(r) = shared.next_ready(t, patience) else {
            if shared.stalled() {
                if stop_sent {
                    // stopping woke nobody: give up on the ranks left
                    break;
                }
                // nothing can wake the ranks left: make them fail (they
                // wake and find the job stopped)
                shared.stop();
                stop_sent = true;
            }
            continue;
        };
        // (a block of consecutive ranks: index from its first)
        let k = (r - mine[0]) as usize;
        let Some(co) = ranks[k].as_mut() else {
            shared.resumed();
            continue;
        };
        let step = co.resume(());
        shared.resumed();
        if let CoroutineResult::Return(x) = step {
            out.push((r, x));
            if let Some(co) = ranks[k].take() {
                done_stacks.push(co.into_stack());
            }
        }
    }
    job.stacks.give(done_stacks);
    Ok(out)
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "the replay panicked".into())
        .trim_end()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::VTime;
    use crate::p2p::memlink::MemLink;
    use crate::p2p::testing::{model, run_logged};
    use crate::p2p::{Core, ReqId, SendMode};
    use crate::transport::{RecvBuf, SendBuf};

    /// Six ranks: a ring of eager and rendezvous messages, a wait on two
    /// requests at once, virtual computation, a blocking probe; nothing
    /// that depends on time.
    fn program(c: &mut Core<MemLink>) {
        let (me, n) = (c.rank(), c.size());
        let (right, left) = ((me + 1) % n, (me + n - 1) % n);
        for (round, size) in [64usize, 200_000, 3000].into_iter().enumerate() {
            c.compute(VTime::from_ps(1_000_000 * (me as u64 + 1)));
            let r = c.irecv_vec(size, Some(left), Some(round as i32), 0);
            let s = c.isend_vec(vec![7; size], right, round as i32, 0);
            c.wait_all(&[r, s]);
            c.take_vec(r);
            c.free(s);
        }
        // an all-to-all: receives, then sends, in a row (a batch each in
        // the log), eager and rendezvous
        let others: Vec<u32> = (1..n).map(|k| (me + k) % n).collect();
        let size = |a: u32, b: u32| 1000 + 60_000 * ((a + 2 * b) % 3) as usize;
        let mut rs: Vec<ReqId> = others
            .iter()
            .map(|&p| c.irecv_vec(size(p, me), Some(p), Some(5), 0))
            .collect();
        rs.extend(
            others
                .iter()
                .map(|&p| c.isend_vec(vec![3; size(me, p)], p, 5, 0)),
        );
        c.wait_all(&rs);
        for (k, &r) in rs.iter().enumerate() {
            if k < others.len() {
                c.take_vec(r);
            } else {
                c.free(r);
            }
        }
        let data = [1u8; 100];
        // SAFETY: `data` outlives the send, which completes below.
        let s = c.isend(
            unsafe { SendBuf::from_raw(data.as_ptr(), 100) },
            left,
            9,
            0,
            SendMode::Synchronous,
        );
        let st = c.probe(Some(right), Some(9), 0);
        assert_eq!(st.bytes, 100);
        let mut got = [0u8; 100];
        // SAFETY: `got` outlives the receive, which completes below.
        let r = c.irecv(
            unsafe { RecvBuf::from_raw(got.as_mut_ptr(), 100) },
            Some(right),
            Some(9),
            0,
        );
        c.wait_all(&[s, r]);
        c.free(s);
        c.free(r);
    }

    #[test]
    fn a_replay_predicts_what_a_run_on_its_target_does() {
        let dir = std::env::temp_dir().join(format!("vaced-replay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = model();
        let ran = run_logged(first.clone(), 0, 6, 4096, Some(&dir), program);
        // other memory and network speeds, two ranks a node, a lower
        // eager limit (the 3000-byte round becomes a rendezvous)
        let other = crate::model::Model::from_toml_str(
            r#"name = "other"
[cpu]
scale = 0
[network]
mem_bandwidth = "2 GB/s"
net_bandwidth = "4.16 GB/s"
latency = "2.5 us"
hop_latency = "0.6 us"
eager_limit = "1 KiB"
header_bytes = 64
[topology]
levels = [ { ranks = 2, hops = 0 } ]
default_hops = 4
"#,
            "test",
        )
        .unwrap();
        let own = run_logged(other.clone(), 0, 6, 4096, None, program);
        assert_ne!(own, ran, "the targets differ");
        for (m, want, threads) in [
            (&other, &own, 1),
            (&first, &ran, 1),
            (&other, &own, 2),
            (&other, &own, 4),
        ] {
            let out = replay_on(&dir, 6, m, threads);
            assert_eq!(out.failure, None);
            assert_eq!(out.differing, 0);
            let got: Vec<u64> = out.ranks.iter().map(|r| r.vtime_ps).collect();
            assert_eq!(&got, want);
        }
        // a log that is not there: the replay fails, naming it
        for threads in [1, 3] {
            let out = replay_on(&dir, 7, &first, threads);
            assert!(out.failure.unwrap().contains("rank 6"), "{threads} threads");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
