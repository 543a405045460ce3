//! End-to-end tests of the `vaced` command's launcher side with plain (non-MPI)
//! programs: argument and target errors, crashes, exits without MPI_Finalize,
//! Ctrl-C, the compiler wrappers and `vaced env`.
//!
//! Tests that create a job need the transport's `Segment`; they are ignored
//! until it is merged.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const VACED: &str = env!("CARGO_BIN_EXE_vaced");

/// A bound that only catches hangs: promptness (well under a second) is
/// measured by benchmarks, not asserted where a busy machine could flake.
const HANG_GUARD_S: u64 = 10;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vaced-launch-it-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `vaced run ARGS...`
fn vaced_run(args: &[&str]) -> Command {
    let mut c = Command::new(VACED);
    c.arg("run").args(args).env_remove("VACED_TARGET");
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The /dev/shm files of jobs started by launcher `pid`.
fn shm_files_of(pid: u32) -> Vec<String> {
    let prefix = format!("vaced-{pid}-");
    std::fs::read_dir("/dev/shm")
        .map(|rd| {
            rd.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.starts_with(&prefix))
                .collect()
        })
        .unwrap_or_default()
}

/// The shell command with which a rank records its pid in `dir/pid.R`:
/// written to a hidden temporary file and renamed into place, so that a
/// `pid.R` that exists is complete (a rank killed between creating the file
/// and writing it would otherwise leave it empty).
fn write_pid(dir: &Path) -> String {
    format!(
        "echo $$ > {0}/.tmp.$VACED_RANK && mv {0}/.tmp.$VACED_RANK {0}/pid.$VACED_RANK",
        dir.display()
    )
}

/// How many ranks have recorded their pid in `dir`.
fn pids_written(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().starts_with("pid."))
        })
        .count()
}

/// Pids the ranks wrote to `dir/pid.R`.
fn rank_pids(dir: &Path, n: u32) -> Vec<u32> {
    (0..n)
        .map(|r| {
            std::fs::read_to_string(dir.join(format!("pid.{r}")))
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        })
        .collect()
}

/// Is `pid` a live process (not gone, not a zombie waiting for init)?
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => {
            s.rsplit(')')
                .next()
                .and_then(|t| t.split_whitespace().next())
                != Some("Z")
        }
        Err(_) => false,
    }
}

fn wait_for(mut cond: impl FnMut() -> bool, limit: Duration) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    cond()
}

fn spawn_captured(mut c: Command) -> Child {
    c.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

// ---------------------------------------------------------------- no job needed

#[test]
fn zero_ranks_is_a_usage_error() {
    let o = vaced_run(&["-n", "0", "/bin/true"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.starts_with(
            "vaced run: invalid value '0' for '-n <N>': the number of ranks must be at least 1\n"
        ),
        "{e}"
    );
}

/// `mpirun ARGS...` (the vaced binary under that name).
fn mpirun(args: &[&str]) -> Command {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new(VACED);
    c.arg0("mpirun").args(args).env_remove("VACED_TARGET");
    c
}

#[test]
fn bad_ranks_per_process_is_a_usage_error() {
    for (k, why) in [
        (
            "0",
            "the number of ranks per process must be at least 1 (or `auto`)",
        ),
        (
            "abc",
            "expected a whole number of ranks per process or `auto`, got `abc`",
        ),
    ] {
        let o = mpirun(&["-n", "4", "--ranks-per-process", k, "/bin/true"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{k}");
        let e = stderr(&o);
        assert!(
            e.starts_with(&format!(
                "mpirun: invalid value '{k}' for '--ranks-per-process <K|auto>': {why}\n"
            )),
            "{e}"
        );
    }
}

/// `--mpich` naming no built MPICH is refused before anything is created;
/// with `--ranks-per-process` it is a usage error.
#[test]
fn mpich_without_a_built_mpich_is_refused() {
    let mut c = mpirun(&["-n", "2", "--mpich=/nonexistent/mpich", "/bin/true"]);
    let child = c.stderr(Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "mpirun: vaced's MPICH is not built in /nonexistent/mpich (no bin/mpiexec.hydra): run \
         mpich-patch/build.sh (see mpich-patch/README.md), or name its prefix with \
         --mpich=PREFIX or VACED_MPICH\n"
    );
    assert!(shm_files_of(pid).is_empty());
    let o = vaced_run(&[
        "-n",
        "2",
        "--mpich",
        "--ranks-per-process",
        "2",
        "/bin/true",
    ])
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
}

#[test]
fn unknown_option_is_a_usage_error() {
    let o = vaced_run(&["-n", "2", "--frobnicate", "/bin/true"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.starts_with("vaced run: unexpected argument '--frobnicate' found\n"),
        "{e}"
    );
    assert!(e.contains("\nUsage: vaced run "), "{e}");
}

#[test]
fn missing_program_is_reported_before_spawning() {
    let o = vaced_run(&["-n", "4", "./no/such/program"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(127));
    assert_eq!(
        stderr(&o),
        "vaced run: program `./no/such/program` not found\n"
    );
    let o = vaced_run(&["-n", "4", "no-such-program-xyz"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(127));
    assert!(stderr(&o).starts_with("vaced run: program `no-such-program-xyz` not found in PATH"));
}

#[test]
fn non_executable_program_is_reported() {
    let d = scratch("noexec");
    let f = d.join("data.txt");
    std::fs::write(&f, "x").unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
    let o = vaced_run(&["-n", "2", f.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(127));
    assert_eq!(
        stderr(&o),
        format!("vaced run: program `{}` is not executable\n", f.display())
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn unknown_target_is_reported_before_spawning() {
    let d = scratch("badtarget");
    let marker = d.join("ran");
    let script = format!("touch {}", marker.display());
    let o = vaced_run(&[
        "-n",
        "2",
        "--target",
        "nosuchmachine",
        "/bin/sh",
        "-c",
        &script,
    ])
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.starts_with("vaced run: invalid target: "), "{e}");
    assert!(e.contains("nosuchmachine"), "{e}");
    assert!(!marker.exists(), "a rank ran despite the bad target");
    // The same through $VACED_TARGET.
    let o = vaced_run(&["-n", "2", "/bin/sh", "-c", &script])
        .env("VACED_TARGET", "nosuchmachine")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nosuchmachine"));
    assert!(!marker.exists());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn malformed_target_file_is_reported_before_spawning() {
    let d = scratch("badfile");
    let f = d.join("broken.toml");
    std::fs::write(&f, "name = \"x\"\n[network]\nmem_bandwidth = \n").unwrap();
    let child = spawn_captured(vaced_run(&[
        "-n",
        "2",
        "--target",
        f.to_str().unwrap(),
        "/bin/true",
    ]));
    let launcher = child.id();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.starts_with(&format!(
            "vaced run: invalid target: {}",
            f.canonicalize().unwrap().display()
        )),
        "{e}"
    );
    assert!(shm_files_of(launcher).is_empty());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn help_and_version() {
    let o = Command::new(VACED).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("vaced {}\n", env!("CARGO_PKG_VERSION"))
    );
    let o = Command::new(VACED).arg("--help").output().unwrap();
    assert!(o.status.success());
    let help = String::from_utf8_lossy(&o.stdout);
    for sub in [
        "env",
        "run",
        "target",
        "calibrate",
        "inspect",
        "completions",
    ] {
        assert!(help.contains(&format!("\n  {sub} ")), "{sub}: {help}");
    }
    assert!(help.contains("Usage: vaced <COMMAND>"), "{help}");
    let o = Command::new(VACED).arg("frob").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("vaced: unrecognized subcommand 'frob'\n"));
    // No command: the help, on stderr, as a usage error.
    let o = Command::new(VACED).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Usage: vaced <COMMAND>"));
    for h in ["--help", "-help"] {
        let o = vaced_run(&[h]).output().unwrap();
        assert!(o.status.success());
        let help = String::from_utf8_lossy(&o.stdout);
        assert!(
            help.contains("Usage: vaced run [OPTIONS] <PROGRAM> [ARGS]..."),
            "{help}"
        );
        assert!(help.contains("(also -np N)") && help.contains("VACED_TARGET"));
    }
}

/// `vaced completions SHELL` prints a script that knows the subcommands and
/// their options.
#[test]
fn shell_completions() {
    for shell in ["bash", "zsh", "fish"] {
        let o = Command::new(VACED)
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = String::from_utf8_lossy(&o.stdout);
        for word in ["calibrate", "target", "hops", "sync", "node-ranks", "exact"] {
            assert!(script.contains(word), "{shell}: `{word}` missing");
        }
    }
    let o = Command::new(VACED)
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("vaced completions: invalid value 'tcsh' for '<SHELL>'"));
}

#[test]
fn target_list_and_show() {
    let o = Command::new(VACED)
        .args(["target", "list"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout)
        .lines()
        .any(|l| l == "tianhe1a"));
    let o = Command::new(VACED)
        .args(["target", "show", "tianhe1a"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("name = \"tianhe1a\""));
    let o = Command::new(VACED)
        .args(["target", "show", "nosuch"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("vaced target show: ") && stderr(&o).contains("nosuch"));
}

#[test]
fn target_hops() {
    let o = Command::new(VACED)
        .args(["target", "hops", "tianhe1a", "0", "11", "12", "192"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // l(h) = 15 us + h 0.6 us: 16.8 us at 3 hops, 18 us at 5
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "rank 0: node 0\n\
         rank 11: node 0, hop(0, 11) = 0, L(0) = 0 s, eager limit 128 KiB\n\
         rank 12: node 1, hop(0, 12) = 3, L(0) = 16.8 us, eager limit 128 KiB\n\
         rank 192: node 16, hop(0, 192) = 5, L(0) = 18 us, eager limit 128 KiB\n"
    );
    let o = Command::new(VACED)
        .args(["target", "hops", "tianhe1a", "0", "x"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`x` is not a rank number"),
        "{}",
        stderr(&o)
    );
}

/// `vaced env` makes the links; the wrappers answer by their names.
#[test]
fn env_links_and_wrappers() {
    let o = Command::new(VACED).arg("env").output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let exe = Path::new(VACED).canonicalize().unwrap();
    let bin = exe.parent().unwrap().join("vaced-bin");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("export PATH=\"{}:$PATH\"\n", bin.display())
    );
    for name in [
        "mpicc", "mpicxx", "mpic++", "mpif77", "mpif90", "mpifort", "mpirun", "mpiexec",
    ] {
        assert_eq!(std::fs::read_link(bin.join(name)).unwrap(), exe, "{name}");
    }
    // Idempotent.
    let again = Command::new(VACED).arg("env").output().unwrap();
    assert_eq!(again.stdout, o.stdout);

    let libdir = exe.parent().unwrap().display().to_string();
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let show = Command::new(bin.join("mpicc"))
        .arg("-show")
        .env_remove("MPICH_CC")
        .env_remove("VACED_CC")
        .env_remove("VACED_HOME")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&show.stdout),
        format!(
            "cc -I{} -L{libdir} -Wl,-rpath,{libdir} -Wl,--export-dynamic-symbol=main -lvaced\n",
            include.display()
        )
    );
    let info = Command::new(bin.join("mpif90"))
        .args(["-compile-info", "-O2"])
        .env("MPICH_F90", "myfc")
        .env("VACED_HOME", "/opt/v")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&info.stdout),
        "myfc -O2 -I/opt/v/include\n"
    );
    // mpirun by its own name.
    let o = Command::new(bin.join("mpirun"))
        .args(["-n", "0", "x"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("mpirun: invalid value '0' for '-n <N>'"),
        "{}",
        stderr(&o)
    );
    // MPICH's `-np`, and what follows the program is the program's.
    let o = Command::new(bin.join("mpirun"))
        .args(["-np", "3", "--target", "nosuch", "x", "-np", "2"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("mpirun: invalid target: "),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("nosuch"));
}

/// mpicc really compiles and links against libvaced.so, and passes the
/// compiler's exit status through.
#[test]
fn mpicc_compiles_links_and_passes_status() {
    let o = Command::new(VACED).arg("env").output().unwrap();
    assert!(o.status.success());
    let exe = Path::new(VACED).canonicalize().unwrap();
    let mpicc = exe.parent().unwrap().join("vaced-bin/mpicc");
    if !exe.parent().unwrap().join("libvaced.so").exists() {
        // cargo builds the cdylib with the library; nothing to link against otherwise.
        panic!("libvaced.so is missing next to {}", exe.display());
    }
    let d = scratch("mpicc");
    let src = d.join("hello.c");
    std::fs::write(
        &src,
        "#include <mpi.h>\n#include <stdio.h>\nint main(void) { printf(\"%d\\n\", MPI_SUCCESS); return 0; }\n",
    )
    .unwrap();
    let out = d.join("hello");
    let st = Command::new(&mpicc)
        .env_remove("MPICH_CC")
        .env_remove("VACED_HOME")
        .args([src.as_os_str(), OsStr::new("-o"), out.as_os_str()])
        .status()
        .unwrap();
    assert!(st.success());
    let run = Command::new(&out).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), "0\n");
    let bad = d.join("bad.c");
    std::fs::write(&bad, "int main(void) { return syntax error; }\n").unwrap();
    let o = Command::new(&mpicc)
        .args([bad.as_os_str(), OsStr::new("-c")])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let o = Command::new(&mpicc)
        .arg("-c")
        .arg(&src)
        .env("MPICH_CC", "/no/such/compiler")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(127));
    assert!(stderr(&o).starts_with("mpicc: cannot run the compiler `/no/such/compiler`: "));
    std::fs::remove_dir_all(&d).unwrap();
}

// ---------------------------------------------------------------- jobs

/// One rank crashes: the job ends at once, naming the rank and SIGSEGV; every
/// rank is gone and nothing is left in /dev/shm.
#[test]
fn crash_names_rank_and_signal() {
    let d = scratch("crash");
    let script = format!(
        "{1}; if [ $VACED_RANK = 2 ]; then while [ $(ls {0} | wc -l) -lt 4 ]; do sleep 0.01; done; kill -SEGV $$; fi; exec sleep 30",
        d.display(),
        write_pid(&d)
    );
    let t = Instant::now();
    let child = spawn_captured(vaced_run(&["-n", "4", "/bin/sh", "-c", &script]));
    let launcher = child.id();
    let o = child.wait_with_output().unwrap();
    let took = t.elapsed();
    let pids = rank_pids(&d, 4);
    let e = stderr(&o);
    assert_eq!(
        e,
        format!(
            "vaced run: rank 2 (pid {}) was killed by signal SIGSEGV (segmentation fault); the job was aborted\n",
            pids[2]
        )
    );
    assert_eq!(o.status.code(), Some(139));
    assert!(took < Duration::from_secs(HANG_GUARD_S), "took {took:?}");
    for pid in pids {
        assert!(!alive(pid), "rank pid {pid} survived");
    }
    assert!(
        shm_files_of(launcher).is_empty(),
        "{:?}",
        shm_files_of(launcher)
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn every_rank_crashing_is_one_message() {
    let child = spawn_captured(vaced_run(&["-n", "4", "/bin/sh", "-c", "kill -SEGV $$"]));
    let launcher = child.id();
    let o = child.wait_with_output().unwrap();
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.starts_with("vaced run: rank "), "{e}");
    assert!(
        e.ends_with(" was killed by signal SIGSEGV (segmentation fault); the job was aborted\n"),
        "{e}"
    );
    assert_eq!(o.status.code(), Some(139));
    assert!(shm_files_of(launcher).is_empty());
}

#[test]
fn exit_without_finalize() {
    let child = spawn_captured(vaced_run(&["-n", "4", "/bin/true"]));
    let launcher = child.id();
    let o = child.wait_with_output().unwrap();
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.ends_with(" exited with status 0 without calling MPI_Finalize; the job was aborted\n"),
        "{e}"
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(shm_files_of(launcher).is_empty());

    let d = scratch("exit3");
    let script = format!(
        // Rank 1 fails only once rank 0 has written its pid file (else the
        // launcher may kill rank 0 before it could, and the test would race).
        "{1}; if [ $VACED_RANK = 1 ]; then \
         while [ ! -s {0}/pid.0 ]; do sleep 0.01; done; exit 3; fi; exec sleep 30",
        d.display(),
        write_pid(&d)
    );
    let o = vaced_run(&["-np", "2", "/bin/sh", "-c", &script])
        .output()
        .unwrap();
    let pids = rank_pids(&d, 2);
    assert_eq!(
        stderr(&o),
        format!(
            "vaced run: rank 1 (pid {}) exited with status 3 without calling MPI_Finalize; the job was aborted\n",
            pids[1]
        )
    );
    assert_eq!(o.status.code(), Some(3));
    assert!(!alive(pids[0]));
    std::fs::remove_dir_all(&d).unwrap();
}

/// `-np N` sets the ranks; the words after the program are the program's,
/// options of mpirun's own included.
#[test]
fn program_gets_what_follows_it() {
    let d = scratch("progargs");
    // Each rank writes the job size and its arguments; rank 1 then exits with
    // status 4 once rank 0 has written (rank 0 sleeps until it is killed).
    let script = format!(
        "printf '%s\\n' \"$VACED_SIZE\" \"$@\" > {0}/.a.$VACED_RANK && mv {0}/.a.$VACED_RANK {0}/args.$VACED_RANK; \
         if [ $VACED_RANK = 1 ]; then while [ ! -s {0}/args.0 ]; do sleep 0.01; done; exit 4; fi; \
         exec sleep 30",
        d.display()
    );
    let o = vaced_run(&[
        "-np", "2", "-q", "/bin/sh", "-c", &script, "sh", "-np", "4", "--help", "--", "-q",
    ])
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    for r in 0..2 {
        assert_eq!(
            std::fs::read_to_string(d.join(format!("args.{r}"))).unwrap(),
            "2\n-np\n4\n--help\n--\n-q\n"
        );
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// Ctrl-C on the launcher kills every rank, removes the segment, exits 130.
#[test]
fn interrupt_kills_the_job() {
    let d = scratch("sigint");
    let script = format!("{}; exec sleep 30", write_pid(&d));
    let child = spawn_captured(vaced_run(&["-n", "8", "/bin/sh", "-c", &script]));
    let launcher = child.id();
    assert!(wait_for(|| pids_written(&d) == 8, Duration::from_secs(10)));
    let pids = rank_pids(&d, 8);
    assert!(
        !shm_files_of(launcher).is_empty(),
        "the segment exists while running"
    );
    Command::new("kill")
        .args(["-INT", &launcher.to_string()])
        .status()
        .unwrap();
    let t = Instant::now();
    let o = child.wait_with_output().unwrap();
    assert!(
        t.elapsed() < Duration::from_secs(HANG_GUARD_S),
        "took {:?}",
        t.elapsed()
    );
    assert_eq!(
        stderr(&o),
        "vaced run: interrupted by SIGINT; all ranks were killed\n"
    );
    assert_eq!(o.status.code(), Some(130));
    for pid in pids {
        assert!(!alive(pid), "rank pid {pid} survived");
    }
    assert!(shm_files_of(launcher).is_empty());
    std::fs::remove_dir_all(&d).unwrap();
}

/// A launcher killed outright (SIGKILL, no cleanup possible) still takes its
/// ranks with it.
#[test]
fn ranks_die_with_the_launcher() {
    let d = scratch("sigkill");
    let script = format!("{}; exec sleep 30", write_pid(&d));
    let mut child = spawn_captured(vaced_run(&["-n", "4", "/bin/sh", "-c", &script]));
    let launcher = child.id();
    assert!(wait_for(|| pids_written(&d) == 4, Duration::from_secs(10)));
    let pids = rank_pids(&d, 4);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(wait_for(
        || pids.iter().all(|&p| !alive(p)),
        Duration::from_secs(2)
    ));
    // Nobody was left to remove the segment: do it for the next tests.
    for f in shm_files_of(launcher) {
        std::fs::remove_file(Path::new("/dev/shm").join(f)).unwrap();
    }
    std::fs::remove_dir_all(&d).unwrap();
}
