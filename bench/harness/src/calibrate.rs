//! `vaced-bench calibrate`: a target file that models this host, so that
//! vaced's predictions can be compared with real MPICH runs here (RE). A
//! ping-pong of our own (bench/harness/calibrate/pingpong.c) runs under the
//! system MPICH on 2 ranks; its one-way times and memcpy bandwidth are fitted
//! to vaced's message model and written as bench-npb/targets/this-host.toml.
//!
//! The fit, against vaced's inter-node message time
//! `b/Bmem + (b/Bnet + latency) + b/Bmem` (copy in, transfer, copy out):
//! * mem_bandwidth: the memcpy bandwidth (copies between user and message
//!   buffers);
//! * latency: the median one-way time of messages of 64 bytes or less;
//! * net_bandwidth: from the smallest per-byte time beyond the latency over
//!   messages of 256 KiB or more (noise on a shared host only adds time),
//!   less the two copies; if MPICH beats two copies (single-copy transfers)
//!   the whole per-byte time is charged to the network instead.
//!
//! One node of `host cores` ranks (levels = [{ ranks = cores, hops = 0 }]);
//! ranks beyond it are on other "nodes" one hop away with hop_latency 0, so
//! they pay the fitted latency (on this host they share memory, and an MPICH
//! run with more ranks than cores is oversubscribed).
use crate::env::{which, Env};
use crate::proc::{self, JobSpec};
use crate::target::{Level, Target};
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// The target file to write (default: bench-npb/targets/this-host.toml).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The target's name.
    #[arg(long, default_value = "this-host")]
    pub name: String,
}

#[derive(Debug, PartialEq)]
pub struct Samples {
    /// (bytes, one-way seconds)
    pub pingpong: Vec<(u64, f64)>,
    /// (bytes, seconds) of one memcpy
    pub memcpy: (u64, f64),
}

#[derive(Debug, PartialEq)]
pub struct Fit {
    pub latency: f64,
    pub mem_bandwidth: f64,
    pub net_bandwidth: f64,
    /// seconds per byte of a large message beyond the latency
    pub per_byte: f64,
    pub single_copy: bool,
}

pub fn parse_samples(text: &str) -> Result<Samples, String> {
    let mut pingpong = Vec::new();
    let mut memcpy = None;
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() != 3 || !matches!(f[0], "pingpong" | "memcpy") {
            continue;
        }
        let b: u64 = f[1]
            .parse()
            .map_err(|_| format!("pingpong output: bad size in `{l}`"))?;
        let t: f64 = f[2]
            .parse()
            .map_err(|_| format!("pingpong output: bad time in `{l}`"))?;
        if t.is_nan() || t <= 0.0 {
            return Err(format!("pingpong output: time not positive in `{l}`"));
        }
        if f[0] == "memcpy" {
            memcpy = Some((b, t));
        } else {
            pingpong.push((b, t));
        }
    }
    Ok(Samples {
        pingpong,
        memcpy: memcpy.ok_or("pingpong output: no `memcpy` line")?,
    })
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

pub fn fit(s: &Samples) -> Result<Fit, String> {
    let latency = median(
        s.pingpong
            .iter()
            .filter(|(b, _)| *b <= 64)
            .map(|(_, t)| *t)
            .collect(),
    )
    .ok_or("pingpong output: no message of 64 bytes or less")?;
    let mem_bandwidth = s.memcpy.0 as f64 / s.memcpy.1;
    let per_byte = s
        .pingpong
        .iter()
        .filter(|(b, _)| *b >= 256 * 1024)
        .map(|(b, t)| (t - latency) / *b as f64)
        .filter(|x| *x > 0.0)
        .reduce(f64::min)
        .ok_or("pingpong output: no message of 256 KiB or more slower than the latency")?;
    let net = per_byte - 2.0 / mem_bandwidth;
    let single_copy = net <= 0.0;
    Ok(Fit {
        latency,
        mem_bandwidth,
        net_bandwidth: if single_copy {
            1.0 / per_byte
        } else {
            1.0 / net
        },
        per_byte,
        single_copy,
    })
}

/// The target file for a fit.
pub fn target(name: &str, f: &Fit, host_cores: u32) -> Target {
    Target {
        name: name.into(),
        cpu_scale: 1.0,
        mem_bandwidth: f.mem_bandwidth,
        net_bandwidth: f.net_bandwidth,
        latency: f.latency,
        hop_latency: 0.0,
        eager_limit: 128 * 1024,
        header_bytes: 64,
        o_send: 0.0,
        o_recv: 0.0,
        levels: vec![Level {
            ranks: host_cores,
            hops: 0,
        }],
        default_hops: 1,
    }
}

pub fn run(a: CalibrateArgs) -> Result<(), String> {
    let env = Env::discover()?;
    let mpicc = which("mpicc.mpich").ok_or("mpicc.mpich is not on PATH")?;
    let mpirun = which("mpirun.mpich").ok_or("mpirun.mpich is not on PATH")?;
    let work = env.repo.join("target/vaced-bench");
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let src = env.repo.join("bench/harness/calibrate/pingpong.c");
    let exe = work.join("pingpong");
    eprintln!(
        "vaced-bench: building {} with {}",
        src.display(),
        mpicc.display()
    );
    proc::run_tool(
        &mpicc,
        &[
            "-O2",
            &src.display().to_string(),
            "-o",
            &exe.display().to_string(),
        ],
        &env.repo,
        &[],
    )?;
    eprintln!(
        "vaced-bench: mpirun.mpich -n 2 {} (about 30 s)",
        exe.display()
    );
    let spec = JobSpec {
        program: mpirun,
        args: vec!["-n".into(), "2".into(), exe.into()],
        cwd: work.clone(),
        env: Vec::new(),
        stdout: work.join("pingpong.out"),
        stderr: work.join("pingpong.err"),
        timeout: Duration::from_secs(600),
        memory: false,
    };
    let j = proc::run(&spec).map_err(|e| e.to_string())?;
    if !j.exit.ok() {
        return Err(format!(
            "pingpong: {} (see {})",
            j.exit.describe(spec.timeout),
            spec.stderr.display()
        ));
    }
    let text = std::fs::read_to_string(&spec.stdout)
        .map_err(|e| format!("{}: {e}", spec.stdout.display()))?;
    let s = parse_samples(&text)?;
    let f = fit(&s)?;
    let t = target(&a.name, &f, env.host_cores);
    let mut comment = format!(
        "This host ({} cores, {}), fitted by `vaced-bench calibrate` (bench/harness/src/calibrate.rs)\n\
         from an MPICH ping-pong on 2 ranks and a memcpy test (one-way seconds):\n",
        env.host_cores,
        Env::cpu_model()
    );
    for (b, t) in &s.pingpong {
        comment.push_str(&format!("  {b:>8} B  {t:.4e} s\n"));
    }
    comment.push_str(&format!(
        "memcpy {} B in {:.4e} s. latency = median one-way time up to 64 B; mem_bandwidth = memcpy;\n\
         per-byte time of large messages {:.4e} s/B{}.\n\
         One node of {} ranks; further ranks are one hop away (hop_latency 0) and pay the latency.",
        s.memcpy.0,
        s.memcpy.1,
        f.per_byte,
        if f.single_copy {
            " (MPICH beats two copies: all of it charged to net_bandwidth)"
        } else {
            " = 2 / mem_bandwidth + 1 / net_bandwidth"
        },
        env.host_cores
    ));
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| env.repo.join("bench-npb/targets/this-host.toml"));
    if let Some(d) = out.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    std::fs::write(&out, t.to_toml(&comment)).map_err(|e| format!("{}: {e}", out.display()))?;
    let shown = proc::run_tool(
        &env.vaced,
        &["target", "show", &out.display().to_string()],
        &env.repo,
        &[],
    )
    .map_err(|e| format!("the written target does not load: {e}"))?;
    println!("{}", t.to_toml(&comment));
    println!(
        "wrote {}; `vaced target show` reads it as:\n{shown}",
        out.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = "pingpong 1 5.0e-07\npingpong 2 6.0e-07\npingpong 64 7.0e-07\npingpong 128 9.0e-07\n\
        pingpong 262144 2.0e-02\npingpong 524288 2.6220e-04\npingpong 1048576 5.0e-04\nmemcpy 1000000 1.0e-04\n";

    #[test]
    fn parses_the_output() {
        let s = parse_samples(OUT).unwrap();
        assert_eq!(s.pingpong.len(), 7);
        assert_eq!(s.pingpong[4], (262144, 2.0e-02));
        assert_eq!(s.memcpy, (1000000, 1.0e-04));
        assert_eq!(
            parse_samples("pingpong 1 1e-6\n").unwrap_err(),
            "pingpong output: no `memcpy` line"
        );
        assert_eq!(
            parse_samples("pingpong x 1e-6\n").unwrap_err(),
            "pingpong output: bad size in `pingpong x 1e-6`"
        );
    }

    #[test]
    fn fits_latency_and_bandwidths() {
        let f = fit(&parse_samples(OUT).unwrap()).unwrap();
        assert_eq!(f.latency, 6.0e-07);
        assert_eq!(f.mem_bandwidth, 1e10);
        // per byte: min of (2e-2 - 6e-7)/262144, (2.622e-4 - 6e-7)/524288, (5e-4 - 6e-7)/1048576
        let pb = (5.0e-04 - 6.0e-07) / 1048576.0;
        assert_eq!(f.per_byte, pb);
        assert!(!f.single_copy);
        assert_eq!(f.net_bandwidth, 1.0 / (pb - 2.0 / 1e10));
    }

    #[test]
    fn single_copy_mpich() {
        let s = Samples {
            pingpong: vec![(8, 1e-6), (1 << 20, 1e-6 + 1e-4)],
            memcpy: (1 << 20, 1e-4),
        };
        let f = fit(&s).unwrap();
        assert!(f.single_copy);
        assert_eq!(f.net_bandwidth, 1.0 / (1e-4 / (1 << 20) as f64));
        let t = target("this-host", &f, 2);
        assert_eq!(t.levels, vec![Level { ranks: 2, hops: 0 }]);
        assert_eq!((t.default_hops, t.hop_latency, t.latency), (1, 0.0, 1e-6));
    }
}
