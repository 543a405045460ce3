//! vaced-bench: the experiment harness of vaced.
//!
//! * `npb` (bench-npb/run): bench-npb kernels under vaced, the system MPICH
//!   and SimGrid's SMPI; predicted and real times, RE, slowdown, efficiency.
//!   With `--shaped`, MPICH for real across two emulated nodes (network
//!   namespaces joined by a shaped veth pair) against vaced (shaped.rs).
//! * `scale` (bench/scale): wall time, computation, efficiency, peak memory and
//!   start-up of large runs on this host, beside SMPI and oversubscribed MPICH.
//! * `whatif` (bench/whatif): the host cost of a what-if run (one execution,
//!   many target configurations) against a run with one target.
//! * `calibrate`: vaced-calibrate (calibrate/) under the system MPICH writes
//!   a target file that models this host (bench-npb/targets/this-host.toml).
mod calibrate;
mod case;
mod env;
mod kernels;
mod memory;
mod metrics;
mod netns;
mod npb;
mod npbout;
mod plot;
mod proc;
mod scale;
mod shaped;
mod smpi;
mod table;
mod target;
mod vreport;
mod whatif;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "vaced-bench",
    version,
    about = "Benchmarks of vaced: bench-npb/run, bench/scale, bench/whatif, calibrate"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// NPB kernels under vaced (and MPICH, SMPI): predicted vs real time.
    Npb(npb::NpbArgs),
    /// Scaling on this host: wall, computation, efficiency, memory, start-up.
    Scale(scale::ScaleArgs),
    /// Write a target file that models this host (vaced-calibrate under MPICH).
    Calibrate(calibrate::CalibrateArgs),
    /// Host cost of a what-if run (many configurations, one execution).
    Whatif(whatif::WhatIfArgs),
}

fn main() {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Npb(a) => npb::run(a),
        Cmd::Scale(a) => scale::run(a),
        Cmd::Calibrate(a) => calibrate::run(a),
        Cmd::Whatif(a) => whatif::run(a),
    };
    if let Err(e) = r {
        eprintln!("vaced-bench: {e}");
        std::process::exit(1);
    }
}
