//! Test support: ranks as threads over an in-memory link ([`MemLink`]), so
//! the engine and the algorithms above it can be tested without processes.
pub use super::memlink::MemLink;
use super::memlink::Shared;
use super::Core;
use crate::model::Model;
use std::sync::Arc;

/// tianhe1a with `cpu.scale = 0`.
pub fn model() -> Model {
    let mut m = Model::load("tianhe1a").unwrap();
    m.cpu_scale = 0.0;
    m
}

/// Run `n` ranks as threads; each returns its final virtual time in ps.
pub fn run<F>(n: u32, max_record: usize, f: F) -> Vec<u64>
where
    F: Fn(&mut Core<MemLink>) + Send + Sync + 'static,
{
    run_on(model(), 0, n, max_record, f)
}

/// [`run`] on target `model`, with `flow_slots` registry entries per rank.
pub fn run_on<F>(model: Model, flow_slots: u32, n: u32, max_record: usize, f: F) -> Vec<u64>
where
    F: Fn(&mut Core<MemLink>) + Send + Sync + 'static,
{
    run_logged(model, flow_slots, n, max_record, None, f)
}

/// [`run_on`], every rank writing its call log into `log_dir` if given
/// (see `p2p::record`), as MPI_Init to MPI_Finalize would.
pub fn run_logged<F>(
    model: Model,
    flow_slots: u32,
    n: u32,
    max_record: usize,
    log_dir: Option<&std::path::Path>,
    f: F,
) -> Vec<u64>
where
    F: Fn(&mut Core<MemLink>) + Send + Sync + 'static,
{
    let shared = Shared::new(n, flow_slots);
    let f = Arc::new(f);
    let hs: Vec<_> = (0..n)
        .map(|rank| {
            let link = MemLink::new(rank, shared.clone(), max_record);
            let f = f.clone();
            let model = model.clone();
            let log = log_dir.map(|d| super::record::path(d, rank));
            std::thread::spawn(move || {
                let mut c = Core::new(link, model);
                if let Some(p) = log {
                    c.start_recording(super::record::Recorder::create(&p).unwrap());
                }
                c.enter();
                f(&mut c);
                let t = c.vtime().ps();
                // Done: as MPI_Finalize, idle for good.
                c.drain_background();
                c.retire();
                t
            })
        })
        .collect();
    hs.into_iter().map(|h| h.join().unwrap()).collect()
}
