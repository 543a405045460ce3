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

pub const USAGE: &str = "\
usage: vaced calibrate [--run] [-n N] [VACED-CALIBRATE ARGS...]

Builds vaced-calibrate (calibrate/, linked with this machine's MPI) and prints
the command that measures this machine and writes a target file, e.g.
  mpirun.mpich -n 2 .../vaced-calibrate --out host.toml
Across nodes, run it with your launcher and a host file, 2 ranks per node.

  --run        run it now under mpirun.mpich (or $MPIRUN)
  -n N         ranks for --run (default 2)
  ARGS         passed on: --out FILE (default host.toml), --quick, --name NAME,
               --node-ranks N (see vaced-calibrate --help)

The MPI is found through $MPICC -show (default mpicc.mpich).
";

/// The parsed command line.
#[derive(Debug, PartialEq, Eq)]
pub struct Args {
    pub run: bool,
    pub ranks: u32,
    /// For vaced-calibrate (with `--out host.toml` added when absent).
    pub rest: Vec<OsString>,
}

pub fn parse(args: &[OsString]) -> Result<Args, String> {
    let mut a = Args {
        run: false,
        ranks: 2,
        rest: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(x) = it.next() {
        match x.to_str() {
            Some("--run") => a.run = true,
            Some("-n" | "-np") => {
                let v = it.next().ok_or("`-n` needs a number of ranks")?;
                a.ranks = v
                    .to_str()
                    .and_then(|v| v.parse().ok())
                    .filter(|&n| n >= 2)
                    .ok_or_else(|| format!("`-n {}`: 2 ranks or more", v.to_string_lossy()))?;
            }
            _ => a.rest.push(x.clone()),
        }
    }
    let has_out = a.rest.iter().any(|x| {
        x.to_str()
            .is_some_and(|s| s == "--out" || s.starts_with("--out="))
    });
    let help = a
        .rest
        .iter()
        .any(|x| x == "--help" || x == "-h" || x == "--version" || x == "-V");
    if !has_out && !help {
        a.rest.push("--out".into());
        a.rest.push("host.toml".into());
    }
    Ok(a)
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
    c.extend(a.rest.iter().cloned());
    c
}

/// `vaced calibrate ARGS`: the exit status.
pub fn main(args: &[OsString]) -> i32 {
    let a = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("vaced calibrate: {e}\n\n{USAGE}");
            return super::EXIT_USAGE;
        }
    };
    if a.rest.iter().any(|x| x == "--help" || x == "-h") && !a.run {
        print!("{USAGE}");
        return 0;
    }
    let mpicc = mpicc();
    let exe = match check_mpi(&mpicc).and_then(|()| build(&mpicc)) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("vaced calibrate: {e}");
            return 1;
        }
    };
    let cmd = command(&mpirun(), &a, &exe);
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

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_and_adds_the_output() {
        assert_eq!(
            parse(&os(&["--quick"])).unwrap(),
            Args {
                run: false,
                ranks: 2,
                rest: os(&["--quick", "--out", "host.toml"])
            }
        );
        let a = parse(&os(&["--run", "-n", "4", "--out", "x.toml"])).unwrap();
        assert_eq!((a.run, a.ranks), (true, 4));
        assert_eq!(a.rest, os(&["--out", "x.toml"]));
        assert_eq!(
            parse(&os(&["--out=y.toml"])).unwrap().rest,
            os(&["--out=y.toml"])
        );
        assert_eq!(
            parse(&os(&["-n", "1"])).unwrap_err(),
            "`-n 1`: 2 ranks or more"
        );
        assert!(parse(&os(&["-n"])).is_err());
    }

    #[test]
    fn the_command_line() {
        let a = parse(&os(&["--quick"])).unwrap();
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
                "--quick",
                "--out",
                "host.toml"
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
