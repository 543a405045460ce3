//! `vaced calibrate`: makes a target file that models this machine, with
//! `vaced-calibrate` (the `calibrate/` crate, linked with the machine's real
//! MPI through mpi-sys, run under the machine's own `mpirun`).
//!
//! It checks that an MPI is there (`$MPICC -show`, by default
//! `mpicc.mpich -show`: never vaced's own `mpicc`), builds vaced-calibrate
//! when its binary is missing or older than its sources, then prints the
//! command line to run, or with `--run` runs it under `mpirun.mpich` (or
//! `$MPIRUN`).
use super::wrappers::shell_quote;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// The end of `vaced calibrate --help`.
pub const AFTER_HELP: &str = "\
It checks for a system MPI (`$MPICC -show`; without one it says how to
install one), builds vaced-calibrate (calibrate/, linked with that MPI through
mpi-sys) when it is missing or older than its sources, and prints the command
that measures this machine and writes a target file, e.g.
  mpirun.mpich -n 2 .../vaced-calibrate --out host.toml
Across nodes, run it with your launcher and a host file, 2 ranks per node
(-n 4 for two nodes). It measures memcpy, ping-pong one-way times from 0 B to
4 MiB on-node and off-node and the per-message overheads, fits the
eager/rendezvous switch, latencies and bandwidths, and writes every value with
comments that give each measured figure and the fit's error.

Environment:
  MPICC       the MPI's C compiler wrapper (default: mpicc.mpich, never
              vaced's own mpicc)
  MPIRUN      the launcher for --run (default: mpirun.mpich)
  VACED_HOME  where calibrate/ is (default: vaced's source tree)";

/// `vaced calibrate`'s command line: its own options, then vaced-calibrate's
/// (passed on: see [`Args::calibrate_args`]).
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
#[command(args_override_self = true, after_help = AFTER_HELP)]
pub struct Args {
    /// Run it now under mpirun.mpich (or $MPIRUN) instead of printing the
    /// command
    #[arg(long)]
    pub run: bool,
    /// Ranks for --run, 2 or more (also -np N)
    #[arg(
        short = 'n',
        alias = "np",
        value_name = "N",
        default_value = "2",
        allow_hyphen_values = true,
        value_parser = ranks
    )]
    pub ranks: u32,
    /// The target file vaced-calibrate writes
    #[arg(long, value_name = "FILE", default_value = "host.toml")]
    pub out: PathBuf,
    /// The target's name [vaced-calibrate's default: this-host]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Few repetitions: a few seconds instead of up to a minute; noisier
    #[arg(long)]
    pub quick: bool,
    /// Ranks per target node [default: the ranks on rank 0's node in the run]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub node_ranks: Option<u32>,
    /// More arguments for vaced-calibrate (see vaced-calibrate --help)
    #[arg(last = true, value_name = "VACED-CALIBRATE ARGS", value_parser = clap::value_parser!(OsString))]
    pub rest: Vec<OsString>,
}

fn ranks(value: &str) -> Result<u32, String> {
    match value.parse::<u32>() {
        Ok(n) if n >= 2 => Ok(n),
        _ => Err("2 ranks or more".into()),
    }
}

impl Args {
    /// vaced-calibrate's arguments.
    pub fn calibrate_args(&self) -> Vec<OsString> {
        let mut v: Vec<OsString> = vec!["--out".into(), self.out.clone().into()];
        if let Some(n) = &self.name {
            v.extend(["--name".into(), n.into()]);
        }
        if self.quick {
            v.push("--quick".into());
        }
        if let Some(n) = self.node_ranks {
            v.extend(["--node-ranks".into(), n.to_string().into()]);
        }
        v.extend(self.rest.iter().cloned());
        v
    }
}

/// Environment variable `var` when set and not empty, else `default`.
fn env_or(var: &str, default: &str) -> OsString {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| default.into())
}

/// The MPI C compiler wrapper: `$MPICC`, else `mpicc.mpich`.
pub fn mpicc() -> OsString {
    env_or("MPICC", "mpicc.mpich")
}

/// The launcher: `$MPIRUN`, else `mpirun.mpich`.
pub fn mpirun() -> OsString {
    env_or("MPIRUN", "mpirun.mpich")
}

/// Checks that `mpicc -show` works; the error says how to get an MPI.
pub fn check_mpi(mpicc: &OsStr) -> Result<(), String> {
    let why = match Command::new(mpicc).arg("-show").output() {
        Ok(o) if o.status.success() => return Ok(()),
        Ok(o) => format!(
            "`{} -show` failed ({}): {}",
            mpicc.to_string_lossy(),
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => format!("cannot run `{} -show`: {e}", mpicc.to_string_lossy()),
    };
    Err(format!(
        "no system MPI found: {why}\n\
         vaced-calibrate measures the machine's own MPI; install one, e.g.\n  \
         sudo apt-get install mpich libmpich-dev\n\
         or set MPICC to your MPI's C compiler wrapper (and MPIRUN to its launcher)."
    ))
}

/// The newest modification time of the crate's sources.
fn newest_source(crate_dir: &Path) -> std::io::Result<SystemTime> {
    let mut newest = SystemTime::UNIX_EPOCH;
    let mut files = vec![crate_dir.join("Cargo.toml"), crate_dir.join("Cargo.lock")];
    for e in std::fs::read_dir(crate_dir.join("src"))? {
        files.push(e?.path());
    }
    for f in files {
        newest = newest.max(std::fs::metadata(&f)?.modified()?);
    }
    Ok(newest)
}

/// Whether the binary is missing or older than a source file.
pub fn stale(exe: &Path, crate_dir: &Path) -> bool {
    let built = std::fs::metadata(exe).and_then(|m| m.modified());
    match (built, newest_source(crate_dir)) {
        (Ok(b), Ok(s)) => b < s,
        _ => true,
    }
}

/// The calibrate crate: `$VACED_HOME/calibrate`, else the source tree's.
fn crate_dir() -> PathBuf {
    match std::env::var_os("VACED_HOME") {
        Some(h) if !h.is_empty() => PathBuf::from(h).join("calibrate"),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("calibrate"),
    }
}

/// Builds vaced-calibrate if needed and returns its path.
fn build(mpicc: &OsStr) -> Result<PathBuf, String> {
    let dir = crate_dir();
    let exe = dir.join("target/release/vaced-calibrate");
    if !stale(&exe, &dir) {
        return Ok(exe);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = dir.join("Cargo.toml");
    eprintln!(
        "vaced calibrate: MPICC={} cargo build --release --manifest-path {}",
        mpicc.to_string_lossy(),
        manifest.display()
    );
    let st = Command::new(&cargo)
        .args(["build", "--release", "--manifest-path"])
        .arg(&manifest)
        .env("MPICC", mpicc)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", cargo.to_string_lossy()))?;
    if !st.success() {
        return Err(format!("building {} failed ({st})", manifest.display()));
    }
    Ok(exe)
}

/// The launcher's command line.
pub fn command(mpirun: &OsStr, a: &Args, exe: &Path) -> Vec<OsString> {
    let mut c: Vec<OsString> = vec![
        mpirun.into(),
        "-n".into(),
        a.ranks.to_string().into(),
        exe.into(),
    ];
    c.extend(a.calibrate_args());
    c
}

/// `vaced calibrate`: the exit status.
pub fn main(a: &Args) -> i32 {
    let mpicc = mpicc();
    let exe = match check_mpi(&mpicc).and_then(|()| build(&mpicc)) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("vaced calibrate: {e}");
            return 1;
        }
    };
    let cmd = command(&mpirun(), a, &exe);
    if !a.run {
        let line: Vec<String> = cmd.iter().map(|w| shell_quote(w)).collect();
        println!("{}", line.join(" "));
        return 0;
    }
    match Command::new(&cmd[0]).args(&cmd[1..]).status() {
        Ok(s) => s.code().unwrap_or(1),
        Err(e) => {
            eprintln!(
                "vaced calibrate: cannot run {}: {e}",
                cmd[0].to_string_lossy()
            );
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::args::tests::{os, usage_msg};

    fn parse(v: &[&str]) -> Result<Args, clap::Error> {
        use clap::Args as _;
        let c = Args::augment_args(clap::Command::new("vaced calibrate"));
        crate::launch::args::parse_with(c, &os(v))
    }

    fn msg(v: &[&str]) -> String {
        usage_msg(parse(v).unwrap_err(), v)
    }

    #[test]
    fn parses_every_option() {
        let a = parse(&[]).unwrap();
        assert_eq!(
            a,
            Args {
                run: false,
                ranks: 2,
                out: "host.toml".into(),
                name: None,
                quick: false,
                node_ranks: None,
                rest: vec![],
            }
        );
        assert_eq!(a.calibrate_args(), os(&["--out", "host.toml"]));
        let a = parse(&[
            "--quick",
            "--run",
            "-np",
            "4",
            "--out=x.toml",
            "--name",
            "n1",
            "--node-ranks",
            "8",
            "--",
            "--extra",
            "-n",
            "3",
        ])
        .unwrap();
        assert_eq!((a.run, a.ranks), (true, 4));
        assert_eq!(
            a.calibrate_args(),
            os(&[
                "--out",
                "x.toml",
                "--name",
                "n1",
                "--quick",
                "--node-ranks",
                "8",
                "--extra",
                "-n",
                "3"
            ])
        );
        assert_eq!(parse(&["-n", "3"]).unwrap().ranks, 3);
        assert_eq!(parse(&["-n", "2", "-n", "5"]).unwrap().ranks, 5);
    }

    #[test]
    fn errors_name_the_bad_argument() {
        assert_eq!(
            msg(&["-n", "1"]),
            "invalid value '1' for '-n <N>': 2 ranks or more"
        );
        assert_eq!(
            msg(&["-np", "x"]),
            "invalid value 'x' for '-n <N>': 2 ranks or more"
        );
        assert_eq!(
            msg(&["-n"]),
            "a value is required for '-n <N>' but none was supplied"
        );
        assert_eq!(
            msg(&["--node-ranks", "0"]),
            "invalid value '0' for '--node-ranks <N>': 0 is not in 1..=4294967295"
        );
        assert_eq!(msg(&["--bogus"]), "unexpected argument '--bogus' found");
    }

    #[test]
    fn the_command_line() {
        let a = parse(&["--quick"]).unwrap();
        let c = command(
            OsStr::new("mpirun.mpich"),
            &a,
            Path::new("/r/vaced-calibrate"),
        );
        assert_eq!(
            c,
            os(&[
                "mpirun.mpich",
                "-n",
                "2",
                "/r/vaced-calibrate",
                "--out",
                "host.toml",
                "--quick",
            ])
        );
    }

    #[test]
    fn no_mpi_says_how_to_install_one() {
        let e = check_mpi(OsStr::new("/nonexistent/mpicc")).unwrap_err();
        assert!(e.starts_with("no system MPI found: cannot run `/nonexistent/mpicc -show`"));
        assert!(e.contains("apt-get install mpich libmpich-dev"), "{e}");
        let e = check_mpi(OsStr::new("false")).unwrap_err();
        assert!(e.contains("`false -show` failed"), "{e}");
    }

    #[test]
    fn stale_when_missing_or_older() {
        let dir = std::env::temp_dir().join(format!("vaced-calib-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        for f in ["Cargo.toml", "Cargo.lock", "src/main.rs"] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        let exe = dir.join("exe");
        assert!(stale(&exe, &dir));
        std::fs::write(&exe, "").unwrap();
        let past = SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(dir.join("src/main.rs"))
            .unwrap()
            .set_modified(past)
            .unwrap();
        for f in ["Cargo.toml", "Cargo.lock"] {
            std::fs::File::options()
                .write(true)
                .open(dir.join(f))
                .unwrap()
                .set_modified(past)
                .unwrap();
        }
        assert!(!stale(&exe, &dir));
        std::fs::File::options()
            .write(true)
            .open(&exe)
            .unwrap()
            .set_modified(past - std::time::Duration::from_secs(60))
            .unwrap();
        assert!(stale(&exe, &dir));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
