//! `vaced-calibrate`: measures this machine's MPI and writes a vaced target
//! file that models it. Run it with the machine's own launcher:
//!
//! ```sh
//! mpirun -n 2 vaced-calibrate --out host.toml                  # one node
//! mpirun -n 4 -ppn 2 -f hosts vaced-calibrate --out host.toml  # two nodes
//! ```
//!
//! Rank 0 measures memcpy alone, then a ping-pong with the lowest other rank
//! on its node (on-node) and with the lowest rank on another node
//! (off-node), and the per-message overheads on one of those pairs; every
//! other rank waits in a barrier. Rank 0 fits vaced's model (fit.rs) and
//! writes the target file with comments on every figure (target.rs).
mod fit;
mod measure;
mod target;

use clap::Parser;
use fit::{fit_pair, Costs};
use measure::{Effort, Layout, Mpi};
use std::path::PathBuf;
use target::{Calibration, Host, Origin, Section};

/// The largest ping-pong message.
const MAX_SIZE: u64 = 4 << 20;
/// The buffer sizes of the memcpy test; mem_bandwidth is that of MAX_SIZE
/// (the copies vaced charges to a message are of buffers as warm as the
/// ping-pong's, which a 64 MiB copy beyond the caches would not reflect).
const MEMCPY_SIZES: [u64; 3] = [256 << 10, MAX_SIZE, 64 << 20];
/// REQ and ACK size written to the target (not measured).
const HEADER_BYTES: u64 = 64;

#[derive(Parser, Debug)]
#[command(
    name = "vaced-calibrate",
    version,
    about = "Measure this machine's MPI and write a vaced target file (run it under mpirun, 2 ranks or more)"
)]
struct Cli {
    /// The target file to write (default: print it on stdout).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// The target's name.
    #[arg(long, default_value = "this-host")]
    name: String,
    /// Few repetitions: a few seconds instead of up to a minute; noisier.
    #[arg(long)]
    quick: bool,
    /// Ranks per target node (default: the ranks on rank 0's node in this run).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    node_ranks: Option<u32>,
}

/// What rank 0 measured.
struct Measured {
    memcpy: Vec<(u64, f64)>,
    on: Option<(i32, Vec<(u64, f64)>)>,
    off: Option<(i32, Vec<(u64, f64)>)>,
    o_send: f64,
    o_recv: f64,
    overhead_pair: (i32, i32),
}

/// Runs every test; rank 0 gets the figures, the other ranks None.
fn measure(mpi: &Mpi, layout: &Layout, e: &Effort) -> Option<Measured> {
    let me = mpi.rank;
    let (on, off) = (layout.on, layout.off);
    let sizes = measure::sizes(MAX_SIZE);

    let memcpy: Vec<(u64, f64)> = if me == 0 {
        MEMCPY_SIZES
            .iter()
            .map(|&b| (b, measure::memcpy_bandwidth(b as usize, e)))
            .collect()
    } else {
        Vec::new()
    };
    mpi.barrier();

    // The overheads run on the off-node pair when there is one.
    let overhead_peer = off.or(on).expect("at least 2 ranks");
    let (mut o_send, mut o_recv) = (0.0, 0.0);
    let mut pair = |peer: Option<i32>| -> Option<(i32, Vec<(u64, f64)>)> {
        let p = peer?;
        let mut times = Vec::new();
        if me == 0 || me == p {
            let other = if me == 0 { p } else { 0 };
            times = measure::pingpong(other, me == 0, &sizes, e);
            if p == overhead_peer {
                o_send = measure::send_overhead(other, me == 0, e);
                o_recv = measure::recv_overhead(other, me == 0, e);
            }
        }
        mpi.barrier();
        Some((p, times))
    };
    let on = pair(on);
    let off = pair(off);
    (me == 0).then_some(Measured {
        memcpy,
        on,
        off,
        o_send,
        o_recv,
        overhead_pair: (0, overhead_peer),
    })
}

/// Fits the figures into the target's sections.
fn calibration(
    cli: &Cli,
    mpi: &Mpi,
    layout: &Layout,
    e: &Effort,
    m: Measured,
) -> Result<Calibration, String> {
    let costs = Costs {
        mem_bandwidth: m
            .memcpy
            .iter()
            .find(|(b, _)| *b == MAX_SIZE)
            .expect("a memcpy of MAX_SIZE")
            .1,
        o_send: m.o_send,
        o_recv: m.o_recv,
        header_bytes: HEADER_BYTES,
    };
    let fitted = |pp: &Option<(i32, Vec<(u64, f64)>)>, on_node: bool| -> Result<_, String> {
        pp.as_ref()
            .map(|(p, t)| {
                fit_pair(t, &costs, on_node)
                    .map(|f| (*p, f))
                    .map_err(|e| format!("ranks 0 and {p}: {e}"))
            })
            .transpose()
    };
    let sec = |fit, origin, peer| Section {
        fit,
        origin,
        pair: (0, peer),
    };
    let (node, net) = match (fitted(&m.on, true)?, fitted(&m.off, false)?) {
        (Some((a, n)), Some((b, o))) => (sec(n, Origin::Measured, a), sec(o, Origin::Measured, b)),
        (Some((a, n)), None) => {
            // No second node: the on-node times with the off-node equations.
            let o = fitted(&m.on, false)?.expect("on-node pair").1;
            (sec(n, Origin::Measured, a), sec(o, Origin::FromOnNode, a))
        }
        (None, Some((b, o))) => (
            sec(o.clone(), Origin::FromOffNode, b),
            sec(o, Origin::Measured, b),
        ),
        (None, None) => unreachable!("2 ranks or more make a pair"),
    };
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let command: Vec<String> = std::env::args().collect();
    Ok(Calibration {
        name: cli.name.clone(),
        host: Host {
            hostname: mpi.processor_name(),
            library: mpi.library_version(),
            date: target::utc_date(unix),
            command: command.join(" "),
            ranks: mpi.size,
            nodes: layout.nodes,
        },
        costs,
        memcpy: m.memcpy,
        mem_bytes: MAX_SIZE,
        burst: (e.bursts, e.burst),
        overhead_pair: m.overhead_pair,
        net,
        node,
        node_ranks: cli.node_ranks.unwrap_or(layout.node0_ranks),
        node_ranks_origin: match (cli.node_ranks, layout.blocked) {
            (Some(_), _) => "--node-ranks".into(),
            (None, true) => "the ranks on rank 0's node in this run; --node-ranks sets it".into(),
            (None, false) => "the ranks on rank 0's node in this run, not ranks 0, 1, ... \
                though vaced puts consecutive ranks on a node"
                .into(),
        },
    })
}

fn run(cli: &Cli, mpi: &Mpi) -> Result<(), String> {
    if mpi.size < 2 {
        return Err("needs 2 ranks or more: mpirun -n 2 vaced-calibrate ...".into());
    }
    let e = if cli.quick {
        Effort::QUICK
    } else {
        Effort::FULL
    };
    let layout = Layout::new(&mpi.node_leaders());
    let Some(m) = measure(mpi, &layout, &e) else {
        return Ok(());
    };
    let cal = calibration(cli, mpi, &layout, &e, m)?;
    let text = target::to_toml(&cal);
    match &cli.out {
        Some(path) => {
            std::fs::write(path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
            let (n, o) = (&cal.node.fit.link, &cal.net.fit.link);
            eprintln!(
                "vaced-calibrate: wrote {}: on-node latency {} bandwidth {} eager_limit {} single_copy {}; \
                 off-node latency {} bandwidth {} eager_limit {}; RMS error {:.1} % / {:.1} %",
                path.display(),
                target::fmt_time(n.latency),
                target::fmt_bandwidth(n.bandwidth),
                target::fmt_size(n.eager_limit),
                n.single_copy,
                target::fmt_time(o.latency),
                target::fmt_bandwidth(o.bandwidth),
                target::fmt_size(o.eager_limit),
                cal.node.fit.rms * 100.0,
                cal.net.fit.rms * 100.0
            );
        }
        None => print!("{text}"),
    }
    Ok(())
}

fn main() {
    let cli = Cli::parse();
    let mpi = Mpi::init();
    let r = run(&cli, &mpi);
    let rank = mpi.rank;
    drop(mpi);
    if let Err(e) = r {
        if rank == 0 {
            eprintln!("vaced-calibrate: {e}");
        }
        std::process::exit(1);
    }
}
