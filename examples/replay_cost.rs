//! What one what-if configuration costs, from saved call logs: the logs
//! decoded alone, then replayed on one host thread under a target (what
//! `mpirun --sweep` does for each configuration but the first). Prints
//! both per logged call, REPEAT times (default 3). With CONFIGS, the
//! logs are instead replayed as a what-if run replays its configurations
//! (`replay::replay_all`: CONFIGS copies of TARGET on THREADS threads),
//! and each configuration's wall time and the total are printed.
//!
//! usage: replay_cost DIR NRANKS TARGET [REPEAT] [THREADS] [CONFIGS]
//!
//! DIR holds `0.log` .. `NRANKS-1.log`, the call logs of one run. A what-if
//! run keeps them in `$TMPDIR/vaced-whatif-*/logs` while it replays and
//! removes them at its end; copy them meanwhile, e.g.
//!
//! ```sh
//! mpirun -n 64 --target T --sweep network.latency=1us,2us,3us,4us,5us,6us,7us,8us \
//!     PROG ARGS > out 2>&1 &
//! until grep -q EXPECTED-OUTPUT out; do sleep 0.05; done; sleep 0.3
//! cp -r /tmp/vaced-whatif-*/logs /tmp/logs
//! cargo run --release --example replay_cost -- /tmp/logs 64 T
//! ```
use std::path::Path;
use std::time::Instant;
use vaced::model::Model;
use vaced::p2p::record::{self, Reader};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 4 {
        eprintln!("usage: replay_cost DIR NRANKS TARGET [REPEAT] [THREADS]");
        std::process::exit(2);
    }
    let dir = Path::new(&a[1]);
    let nranks: u32 = a[2].parse().expect("NRANKS: a number");
    let model = Model::load(&a[3]).unwrap_or_else(|e| panic!("{}: {e}", a[3]));
    let repeat: u32 = a.get(4).map_or(3, |s| s.parse().expect("REPEAT: a number"));
    let threads: u32 = a
        .get(5)
        .map_or(1, |s| s.parse().expect("THREADS: a number"));
    if let Some(k) = a.get(6) {
        let k: usize = k.parse().expect("CONFIGS: a number");
        let models = vec![model; k];
        let stop = std::sync::atomic::AtomicBool::new(false);
        for _ in 0..repeat {
            let t = Instant::now();
            let out = vaced::replay::replay_all(dir, nranks, &models, threads, &stop);
            let total = t.elapsed().as_secs_f64();
            let each: Vec<String> = out
                .iter()
                .map(|o| match &o.failure {
                    Some(f) => panic!("a replay failed: {f}"),
                    None => format!("{:.1}", o.wall.as_secs_f64() * 1e3),
                })
                .collect();
            println!(
                "{k} configurations on {threads} threads: {:.1} ms; each (ms): {}",
                total * 1e3,
                each.join(" ")
            );
        }
        return;
    }
    for _ in 0..repeat {
        let t = Instant::now();
        let mut calls = 0u64;
        for r in 0..nranks {
            let mut log = Reader::open(&record::path(dir, r)).unwrap();
            while let Some(c) = log.next_lent().unwrap() {
                calls += 1;
                std::hint::black_box(c);
            }
        }
        let decode = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let o = vaced::replay::replay_on(dir, nranks, &model, threads);
        let replay = t.elapsed().as_secs_f64();
        if let Some(f) = o.failure {
            panic!("the replay failed: {f}");
        }
        println!(
            "{calls} calls: decoding {:.1} ms ({:.1} ns/call); replay {:.1} ms ({:.1} ns/call)",
            decode * 1e3,
            decode * 1e9 / calls as f64,
            replay * 1e3,
            replay * 1e9 / calls as f64
        );
    }
}
