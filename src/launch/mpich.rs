//! The second front end: programs built with vaced's MPICH (MPICH 4.0.2
//! with vaced's engine in its CH3 device, built by `mpich-patch/build.sh`).
//! `mpirun --mpich` (or `$VACED_MPICH`) starts such a program through
//! MPICH's own launcher (Hydra's `mpiexec`, one process that starts every
//! rank) inside a vaced job: the ranks join it at the end of MPI_Init with
//! the rank MPICH gives them, and the launcher supervises `mpiexec` as one
//! host of every rank. `vaced env --mpich` puts MPICH's compiler wrappers
//! and vaced's launcher on PATH.
//!
//! MPICH chooses its collective algorithms itself (its `MPIR_CVAR_*`
//! settings apply); vaced's MPICH builds no node-aware communicators in a
//! vaced job (the patch to `MPIR_Comm_commit`), as they would follow this
//! host's nodes rather than the target's.
//!
//! With `--hosts` / `--hostfile` the ranks run on several hosts, MPICH's
//! launcher starting each host's proxy through vaced's agent (see
//! `super::across` and `crate::hosts`).
//!
//! `--cores` applies as for vaced's own library: the engine takes the
//! rank's core token at the end of MPI_Init and gives it away whenever the
//! rank sleeps or MPICH polls (see mpich-patch/README.md, "Waiting").
use super::hosts::Block;
use super::job::{JobSpec, ENV_RANK, ENV_SEGMENT};
use super::memory::JobCgroup;
use super::spawn::{start_each, SpawnStop, Spawned};
use crate::transport::process::{self as os, SignalSet};
use std::ffi::OsString;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The environment variable naming vaced's MPICH (its prefix); set, it
/// makes `mpirun` run programs through it (as `--mpich` does).
pub const ENV_MPICH: &str = "VACED_MPICH";

/// Where `mpich-patch/build.sh` installs by default, under `root` (vaced's
/// source tree, or `$VACED_HOME`).
pub fn default_prefix() -> PathBuf {
    let root = match std::env::var_os("VACED_HOME") {
        Some(h) if !h.is_empty() => PathBuf::from(h),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")),
    };
    root.join("target/mpich-vaced")
}

/// The prefix to use: `given` (`--mpich=PREFIX`), else `$VACED_MPICH`, else
/// the default.
pub fn prefix(given: Option<&Path>) -> PathBuf {
    match (given, std::env::var_os(ENV_MPICH)) {
        (Some(p), _) => p.to_path_buf(),
        (None, Some(p)) if !p.is_empty() => PathBuf::from(p),
        _ => default_prefix(),
    }
}

/// MPICH's launcher in `prefix`, or why there is none.
pub fn mpiexec(prefix: &Path) -> Result<PathBuf, String> {
    let exe = prefix.join("bin/mpiexec.hydra");
    if exe.is_file() {
        Ok(exe)
    } else {
        Err(format!(
            "vaced's MPICH is not built in {} (no bin/mpiexec.hydra): run mpich-patch/build.sh \
             (see mpich-patch/README.md), or name its prefix with --mpich=PREFIX or {ENV_MPICH}",
            prefix.display()
        ))
    }
}

/// MPICH's eager limits (CH3's, and nemesis' for shared memory, whose own
/// default is one queue cell, about 64 KiB), raised to the target's largest
/// eager limit `eager` unless the user set them: a send the engine times as
/// eager completes without its receiver, so CH3 must not hold it back in a
/// rendezvous. (Otherwise the sender waits in MPICH for a receive its peer
/// posts only later, its engine stands still, and a peer whose engine
/// waits on it never posts that receive: MPI_Allreduce of 512 KiB on 4
/// ranks hung, its reduce-scatter pieces being between 64 and 128 KiB.)
pub fn eager_env(eager: u64) -> Vec<(&'static str, String)> {
    // CH3 sends eagerly when the payload and its packet header fit
    // (`data_sz + sizeof(MPIDI_CH3_Pkt_eager_send_t) <= threshold`)
    let v = (eager.max(131_072) + 1024).min(i32::MAX as u64).to_string();
    [
        "MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE",
        "MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ",
    ]
    .into_iter()
    .filter(|k| std::env::var_os(k).is_none())
    .map(|k| (k, v.clone()))
    .collect()
}

/// Start `program args` on `nranks` ranks through `mpiexec` (Hydra: every
/// rank on this host, or with `across` on its hosts), in the job's
/// environment (without `VACED_RANK`: MPICH
/// numbers the ranks) and MPICH's eager limits raised to the target's
/// (`eager`, see [`eager_env`]). The launcher supervises it as the host of
/// every rank.
#[allow(clippy::too_many_arguments)]
pub fn spawn(
    mpiexec: &Path,
    program: &Path,
    args: &[OsString],
    job: &JobSpec,
    eager: u64,
    across: Option<&super::across::Across>,
    stdin0: Stdio,
    signals: Option<&SignalSet>,
    cgroup: Option<&JobCgroup>,
) -> (Spawned, Option<SpawnStop>) {
    let all = Block {
        first: 0,
        count: job.nranks,
    };
    let mut out = Spawned {
        pids: Vec::with_capacity(1),
        hosts: vec![all],
        pgid: 0,
        began: Instant::now(),
        startup: Default::default(),
    };
    let mut stdin0 = Some(stdin0);
    let stop = start_each(
        &mut out,
        0..1,
        |_, pgid| {
            let mut cmd = Command::new(mpiexec);
            match across {
                None => {
                    cmd.args(["-launcher", "fork"]);
                }
                Some(x) => {
                    cmd.args(["-launcher", "ssh", "-launcher-exec"])
                        .arg(&x.agent)
                        .args(["-hosts", &x.list]);
                }
            }
            cmd.arg("-n")
                .arg(job.nranks.to_string())
                .arg(program)
                .args(args);
            cmd.envs(job.rank_env(0).into_iter().filter(|(k, _)| *k != ENV_RANK));
            cmd.envs(eager_env(eager));
            cmd.env_remove(ENV_RANK);
            if let Some(x) = across {
                // each host's side names its own segment
                cmd.env_remove(ENV_SEGMENT);
                cmd.envs(x.env.iter().map(|(k, v)| (*k, v)));
                // the host mpiexec runs on too gets its proxy through the
                // agent (Hydra would fork it there itself)
                cmd.env("HYDRA_LAUNCHER_AUTOFORK", "0");
            }
            cmd.process_group(pgid as i32)
                .stdin(stdin0.take().unwrap_or_else(Stdio::null));
            os::die_with_parent(&mut cmd);
            cmd
        },
        |_, error| SpawnStop::HostFailed {
            host: all,
            error: with_name(error, mpiexec),
        },
        signals,
        cgroup,
    );
    out.startup = out.began.elapsed();
    (out, stop)
}

fn with_name(e: io::Error, exe: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", exe.display()))
}

/// Links for `vaced env --mpich`: MPICH's compiler wrappers in `prefix`
/// under their names, and `exe` (vaced) as mpirun and mpiexec, in
/// `<dir of exe>/vaced-mpich-bin`; returns the directory.
pub fn install_links(exe: &Path, prefix: &Path) -> io::Result<PathBuf> {
    let wrappers = ["mpicc", "mpicxx", "mpic++", "mpif77", "mpif90", "mpifort"];
    let links = wrappers
        .iter()
        .map(|w| (*w, prefix.join("bin").join(w)))
        .chain(
            super::shellenv::LAUNCHER_NAMES
                .iter()
                .map(|l| (*l, exe.to_path_buf())),
        );
    super::shellenv::links_beside(exe, "vaced-mpich-bin", links)
}

/// The shell line of `vaced env --mpich`.
pub fn export_line(dir: &Path, prefix: &Path) -> String {
    format!(
        "export {ENV_MPICH}={}; {}",
        super::shellenv::quote(prefix),
        super::shellenv::export_line(dir)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_links_name_mpichs_wrappers_and_vaceds_launcher() {
        let d = std::env::temp_dir().join(format!("vaced-mpich-env-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let exe = d.join("vaced");
        std::fs::write(&exe, "").unwrap();
        let prefix = Path::new("/opt/vaced mpich");
        let bin = install_links(&exe, prefix).unwrap();
        assert_eq!(bin, d.join("vaced-mpich-bin"));
        let target = |n: &str| std::fs::read_link(bin.join(n)).unwrap();
        assert_eq!(target("mpicc"), prefix.join("bin/mpicc"));
        assert_eq!(target("mpif90"), prefix.join("bin/mpif90"));
        assert_eq!(target("mpirun"), exe);
        assert_eq!(target("mpiexec"), exe);
        // again: nothing changes; another prefix: the wrappers follow it
        assert_eq!(install_links(&exe, prefix).unwrap(), bin);
        install_links(&exe, Path::new("/p2")).unwrap();
        assert_eq!(target("mpicxx"), Path::new("/p2/bin/mpicxx"));
        assert_eq!(
            export_line(&bin, Path::new("/opt/a \"b\" $c")),
            format!(
                "export VACED_MPICH=\"/opt/a \\\"b\\\" \\$c\"; export PATH=\"{}:$PATH\"",
                bin.display()
            )
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn mpichs_eager_limits_cover_the_targets_with_a_packet_header() {
        let env = eager_env(262_144);
        for key in [
            "MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE",
            "MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ",
        ] {
            if std::env::var_os(key).is_none() {
                assert!(
                    env.contains(&(key, (262_144 + 1024).to_string())),
                    "{env:?}"
                );
            }
        }
        // never below MPICH's own CH3 default
        assert!(eager_env(1024)
            .iter()
            .all(|(_, v)| v == &(131_072 + 1024).to_string()));
    }

    #[test]
    fn a_prefix_without_mpiexec_says_how_to_build_one() {
        let e = mpiexec(Path::new("/nonexistent/p")).unwrap_err();
        assert!(
            e.starts_with("vaced's MPICH is not built in /nonexistent/p (no bin/mpiexec.hydra)"),
            "{e}"
        );
        assert_eq!(
            prefix(Some(Path::new("/given"))),
            PathBuf::from("/given"),
            "--mpich=PREFIX wins"
        );
    }
}
