//! `vaced-bench calibrate`: a target file that models this host, so that
//! vaced's predictions can be compared with real MPICH runs here (RE).
//!
//! A thin user of vaced-calibrate (calibrate/, see its README paragraph in
//! bench/README.md): `vaced calibrate --run` builds it with the system MPICH
//! and runs it under `mpirun.mpich -n 2`; it measures and fits, and writes
//! bench-npb/targets/this-host.toml with one node of the host's cores
//! (`--node-ranks`), which `vaced target show` then checks.
use crate::env::Env;
use crate::proc::run_tool;
use clap::Args;
use std::path::PathBuf;
use std::process::Command;

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// The target file to write (default: bench-npb/targets/this-host.toml).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The target's name.
    #[arg(long, default_value = "this-host")]
    pub name: String,
    /// vaced-calibrate's quick mode (a few seconds, noisier).
    #[arg(long)]
    pub quick: bool,
}

/// The arguments of `vaced calibrate` for a target file at `out`.
fn vaced_args(a: &CalibrateArgs, out: &str, node_ranks: u32) -> Vec<String> {
    let mut v: Vec<String> = ["calibrate", "--run", "-n", "2", "--out", out, "--name"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    v.push(a.name.clone());
    v.push("--node-ranks".into());
    v.push(node_ranks.to_string());
    if a.quick {
        v.push("--quick".into());
    }
    v
}

pub fn run(a: CalibrateArgs) -> Result<(), String> {
    let env = Env::discover()?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| env.repo.join("bench-npb/targets/this-host.toml"));
    if let Some(d) = out.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    let args = vaced_args(&a, &out.display().to_string(), env.host_cores);
    eprintln!("vaced-bench: {} {}", env.vaced.display(), args.join(" "));
    let st = Command::new(&env.vaced)
        .args(&args)
        .current_dir(&env.repo)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", env.vaced.display()))?;
    if !st.success() {
        return Err(format!("`vaced calibrate` failed ({st})"));
    }
    let shown = run_tool(
        &env.vaced,
        &["target", "show", &out.display().to_string()],
        &env.repo,
        &[],
    )
    .map_err(|e| format!("the written target does not load: {e}"))?;
    println!(
        "wrote {}; `vaced target show` reads it as:\n{shown}",
        out.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_vaced_calibrate_for_one_node_of_the_host_cores() {
        let a = CalibrateArgs {
            out: None,
            name: "this-host".into(),
            quick: true,
        };
        assert_eq!(
            vaced_args(&a, "/r/t.toml", 16).join(" "),
            "calibrate --run -n 2 --out /r/t.toml --name this-host --node-ranks 16 --quick"
        );
    }
}
