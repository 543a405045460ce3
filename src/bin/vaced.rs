//! The `vaced` command (also `mpicc`, `mpicxx`, `mpic++`, `mpif77`, `mpif90`,
//! `mpifort`, `mpirun`, `mpiexec` when invoked under those names).

use clap::{CommandFactory, Parser, Subcommand};
use clap_complete::Shell;
use std::ffi::{c_int, c_void, OsString};
use std::path::Path;
use std::sync::atomic::{AtomicPtr, Ordering};
use vaced::launch::{self, args::RunArgs, calibrate, dashes, shellenv, wrappers};

/// The end of `vaced --help`: what the subcommands do not say.
const AFTER_HELP: &str = "\
Under the names mpicc, mpicxx, mpic++, mpif77, mpif90, mpifort (the links
`vaced env` makes) vaced is a compiler wrapper that behaves like MPICH's:
your compiler ($MPICH_CC or $VACED_CC, else cc; $MPICH_CXX / $VACED_CXX, else
c++; $MPICH_FC / $MPICH_F77 / $MPICH_F90 / $VACED_FC, else gfortran; or
-cc=, -cxx=, -fc=) with vaced's mpi.h, mpif.h, Fortran module and library;
-show, -compile-info and -link-info print what it would run. With gfortran 10
or later the Fortran wrappers add -fallow-argument-mismatch before your
arguments (-fno-allow-argument-mismatch turns the check back on). Under the
names mpirun and mpiexec it is `vaced run`.

Environment: VACED_HOME, where vaced's include/ and calibrate/ are (default:
vaced's source tree); `vaced run --help` gives mpirun's (VACED_TARGET,
VACED_PROGRESS, MPIEXEC_TIMEOUT...).

Example:
  eval \"$(vaced env)\"
  mpicc -O2 app.c -o app
  mpirun -n 256 --target tianhe1a --report app.json ./app args...";

/// Run real MPI programs on this host and predict their run time on a target
/// machine.
#[derive(Debug, Parser)]
#[command(
    name = "vaced",
    version,
    after_help = AFTER_HELP,
    subcommand_required = true,
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Print the shell line that puts mpicc, mpicxx, mpif77, mpif90, mpifort,
    /// mpirun and mpiexec on PATH: eval "$(vaced env)"
    Env {
        /// vaced's MPICH instead (mpich-patch/build.sh): its compiler
        /// wrappers, vaced's mpirun running programs through it, and
        /// $VACED_MPICH set to PREFIX (default: $VACED_MPICH, else
        /// target/mpich-vaced in vaced's source tree)
        #[arg(long, value_name = "PREFIX", num_args = 0..=1, require_equals = true)]
        mpich: Option<Option<std::path::PathBuf>>,
    },
    /// Run a program and predict its time on a target: the same as mpirun
    Run(RunArgs),
    /// (internal) One host's side of a job across hosts, started by the
    /// agent MPICH's launcher runs on each host: its segment, its bridge,
    /// and MPICH's proxy (COMMAND)
    #[command(hide = true)]
    HostSide {
        /// The host's index in the host list
        #[arg(long, value_name = "N")]
        host_index: u32,
        /// The launcher's registry
        #[arg(long, value_name = "HOST:PORT")]
        registry: String,
        /// MPICH's proxy and its arguments
        #[arg(last = true, required = true, value_name = "COMMAND")]
        command: Vec<OsString>,
    },
    /// (internal) The watchdog of a host's side: cleans up after a side
    /// killed without warning (its stdin: a pipe from the side)
    #[command(hide = true)]
    HostSideWatch {
        /// The host's segment
        #[arg(long, value_name = "NAME")]
        segment: String,
        /// When the side started (ns since the epoch)
        #[arg(long, value_name = "NS")]
        since_ns: u64,
    },
    /// The target machines: list the presets, show one, ranks' nodes and hops
    Target {
        #[command(subcommand)]
        command: TargetCmd,
    },
    /// Build vaced-calibrate with this machine's MPI and print (or --run) the
    /// command that measures it and writes a target file
    Calibrate(calibrate::Args),
    /// Draw SVG figures of an `mpirun --report` JSON file: per-rank stacked
    /// bars of computation, communication and waiting, and a summary
    #[command(after_help = vaced::plot::AFTER_HELP)]
    Plot {
        /// The report (`mpirun --report FILE.json`)
        #[arg(value_name = "REPORT.json")]
        report: std::path::PathBuf,
        /// Where to write the figures [default: the report's directory]
        #[arg(short = 'o', long = "out", value_name = "DIR")]
        out: Option<std::path::PathBuf>,
    },
    /// Run a program once per target configuration (--sweep KEY=V1,V2,...,
    /// --target A --target B; a single execution for all of them is
    /// planned) and fit its sensitivity to latency and bandwidth
    Sweep(vaced::sweep::SweepArgs),
    /// Print what every rank of a running job publishes (state, virtual
    /// clock, bounds, pending decision, what it waits for), for a job that
    /// seems stuck
    Inspect {
        /// The job's shared-memory segment, /vaced-JOB (the file /dev/shm/vaced-JOB)
        #[arg(value_name = "SEGMENT")]
        segment: String,
    },
    /// Print the shell completion script for vaced, e.g.
    /// vaced completions bash > ~/.local/share/bash-completion/completions/vaced
    Completions {
        /// The shell
        shell: Shell,
    },
}

#[derive(Debug, Subcommand)]
enum TargetCmd {
    /// List the preset target machines
    List,
    /// Print a target's resolved configuration (TOML)
    Show {
        /// A preset name or a target file
        #[arg(value_name = "NAME|FILE")]
        target: String,
    },
    /// Print each rank's node and, from R0 to each other rank, hop(R0, Ri),
    /// the latency L(0) and the eager limit that pair uses (and, when the
    /// target models contention, the links a transfer crosses)
    Hops {
        /// A preset name or a target file
        #[arg(value_name = "NAME|FILE")]
        target: String,
        /// The first rank
        #[arg(value_name = "R0", value_parser = rank)]
        from: u32,
        /// The other ranks
        #[arg(value_name = "RI", required = true, value_parser = rank)]
        to: Vec<u32>,
    },
}

fn rank(value: &str) -> Result<u32, String> {
    value
        .parse()
        .map_err(|_| format!("`{value}` is not a rank number"))
}

fn main() {
    let mut argv = std::env::args_os();
    let argv0 = argv.next().unwrap_or_else(|| "vaced".into());
    let rest: Vec<OsString> = argv.collect();
    if vaced::ranks::entry::is_host(&argv0) {
        host(&rest);
    }
    let name = launch::args::command_name(&argv0);
    let code = if name == vaced::hosts::agent::AGENT_ARGV0 {
        vaced::hosts::agent::main(&rest)
    } else if let Some(w) = wrappers::Wrapper::from_name(&name) {
        wrappers::run(&name, w, &rest)
    } else if shellenv::LAUNCHER_NAMES.contains(&name.as_str()) {
        launch::mpirun(&name, &rest)
    } else {
        vaced(&rest)
    };
    std::process::exit(code);
}

/// Parse `vaced`'s arguments (after the command name): who speaks in
/// messages (`vaced target hops`) and the command line, or clap's error.
fn parse(args: &[OsString]) -> (String, Result<Cli, clap::Error>) {
    let mut cmd = Cli::command();
    let line = dashes::single_dash_longs(&cmd, args.iter().cloned());
    let who = std::iter::once("vaced".to_string())
        .chain(line.subcommands.iter().filter(|s| *s != "help").cloned())
        .collect::<Vec<_>>()
        .join(" ");
    let parsed = cmd
        .try_get_matches_from_mut(std::iter::once("vaced".into()).chain(line.argv))
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m))
        .map_err(|e| e.format(&mut cmd));
    (who, parsed)
}

fn vaced(args: &[OsString]) -> i32 {
    let (who, parsed) = parse(args);
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => return launch::args::usage_error(&who, &e),
    };
    match cli.command {
        Cmd::Run(a) => launch::run(&who, &a),
        Cmd::HostSide {
            host_index,
            registry,
            command,
        } => vaced::hosts::side::run(host_index, &registry, &command),
        Cmd::HostSideWatch { segment, since_ns } => vaced::hosts::watch::run(
            &segment,
            std::time::UNIX_EPOCH + std::time::Duration::from_nanos(since_ns),
        ),
        Cmd::Env { mpich } => env(mpich),
        Cmd::Target { command } => target(&who, command),
        Cmd::Inspect { segment } => inspect(&segment),
        Cmd::Calibrate(a) => calibrate::main(&a),
        Cmd::Sweep(a) => vaced::sweep::command(&who, &a),
        Cmd::Plot { report, out } => vaced::plot::command(&report, out.as_deref()),
        Cmd::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "vaced", &mut std::io::stdout());
            0
        }
    }
}

/// `vaced inspect /vaced-<job>`: print what every rank of a running job
/// publishes (a debugging aid for a job that seems stuck).
fn inspect(name: &str) -> i32 {
    match vaced::transport::Segment::attach(name) {
        Ok(seg) => {
            print!("{}", seg.describe());
            0
        }
        Err(e) => {
            eprintln!("vaced inspect: {e}");
            1
        }
    }
}

fn env(mpich: Option<Option<std::path::PathBuf>>) -> i32 {
    let exe = match std::env::current_exe().and_then(|e| e.canonicalize()) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("vaced env: cannot locate the vaced executable: {e}");
            return 1;
        }
    };
    if let Some(given) = mpich {
        let prefix = launch::mpich::prefix(given.as_deref());
        if let Err(e) = launch::mpich::mpiexec(&prefix) {
            eprintln!("vaced env: {e}");
            return 1;
        }
        return match launch::mpich::install_links(&exe, &prefix) {
            Ok(dir) => {
                println!("{}", launch::mpich::export_line(&dir, &prefix));
                0
            }
            Err(e) => {
                eprintln!("vaced env: cannot create the command links: {e}");
                1
            }
        };
    }
    match shellenv::install_links(&exe) {
        Ok(dir) => {
            println!("{}", shellenv::export_line(&dir));
            0
        }
        Err(e) => {
            eprintln!(
                "vaced env: cannot create the command links in {}: {e}",
                exe.parent()
                    .unwrap_or(Path::new("/"))
                    .join(shellenv::BIN_DIR)
                    .display()
            );
            1
        }
    }
}

/// `vaced target hops`: the node of each rank and, from the first rank to
/// each other, hop(x, y), L(0) (how long after it leaves a message lands)
/// and the pair's eager limit.
fn hops_table(m: &vaced::model::Model, ranks: &[u32]) -> String {
    use vaced::model::units::{format_size, format_time};
    let x = ranks[0];
    let mut out = format!("rank {x}: node {}\n", m.node_of(x));
    for &y in &ranks[1..] {
        out.push_str(&format!(
            "rank {y}: node {}, hop({x}, {y}) = {}, L(0) = {}, eager limit {}",
            m.node_of(y),
            m.hops(x, y),
            format_time(m.pair_latency(x, y)),
            format_size(m.eager_limit_for(x, y))
        ));
        if m.contention_window().is_some() {
            // the links a transfer from x to y shares (contention)
            let links: Vec<String> = m
                .topology
                .route(m.node_of(x), m.node_of(y))
                .iter()
                .map(|l| l.to_string())
                .collect();
            out.push_str(&format!(", links: {}", links.join(", ")));
        }
        out.push('\n');
    }
    out
}

fn target(who: &str, command: TargetCmd) -> i32 {
    match command {
        TargetCmd::List => {
            for n in vaced::model::preset_names() {
                println!("{n}");
            }
            0
        }
        TargetCmd::Show { target } => {
            let spec = launch::job::resolve_target(Some(&target), None);
            match vaced::model::Model::load(&spec) {
                Ok(m) => {
                    print!("{}", m.to_toml());
                    0
                }
                Err(e) => {
                    eprintln!("{who}: {e}");
                    launch::EXIT_USAGE
                }
            }
        }
        TargetCmd::Hops { target, from, to } => {
            let spec = launch::job::resolve_target(Some(&target), None);
            let m = match vaced::model::Model::load(&spec) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("{who}: {e}");
                    return launch::EXIT_USAGE;
                }
            };
            let rs: Vec<u32> = std::iter::once(from).chain(to).collect();
            let max = *rs.iter().max().expect("R0 at least");
            if let Err(e) = m.topology.check_ranks(max + 1) {
                eprintln!("{who}: rank {max}: {e}");
                return launch::EXIT_USAGE;
            }
            print!("{}", hops_table(&m, &rs));
            0
        }
    }
}

/// A host process of the many-ranks mode (`mpirun --ranks-per-process`):
/// see `vaced::ranks`. Never returns.
fn host(rest: &[OsString]) -> ! {
    let Some(program) = rest.first() else {
        eprintln!("vaced-host: no program to run");
        std::process::exit(127);
    };
    // The ranks get the signal dispositions a program starts with, not
    // those Rust's start-up gave this executable (SIGPIPE ignored, SIGSEGV
    // and SIGBUS caught for its stack-overflow message).
    vaced::ranks::entry::default_signals();
    match vaced::ranks::entry::prepare(Path::new(program)) {
        Ok(start) => {
            RANK_EXIT.store(start.rank_exit as *mut c_void, Ordering::Release);
            RANK_REFUSE.store(start.rank_refuse as *mut c_void, Ordering::Release);
            std::process::exit((start.host_main)())
        }
        Err(e) => {
            eprintln!("vaced: host process: {e}");
            std::process::exit(127)
        }
    }
}

/// The library's `vaced_rank_exit` while this process hosts ranks.
static RANK_EXIT: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

/// `exit`, interposed for the ranks of a host process (this executable's
/// symbols come first for every library and program copy it loads): a rank
/// calling `exit` (or the Fortran runtime's STOP) ends that rank only; the
/// host itself, or any other `vaced` process, exits as usual.
#[no_mangle]
pub extern "C" fn exit(code: c_int) -> ! {
    let f = RANK_EXIT.load(Ordering::Acquire);
    if !f.is_null() {
        // SAFETY: RANK_EXIT is only ever the library's vaced_rank_exit.
        let f = unsafe { std::mem::transmute::<*mut c_void, extern "C" fn(c_int)>(f) };
        f(code);
    }
    real_exit(code)
}

/// The library's `vaced_rank_refuse` while this process hosts ranks.
static RANK_REFUSE: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

/// Whether a rank of a host process makes call `what` (then the job ends
/// there, naming it: see `vaced::ranks::host::vaced_rank_refuse`).
fn refuse_in_rank(what: &std::ffi::CStr) {
    let f = RANK_REFUSE.load(Ordering::Acquire);
    if !f.is_null() {
        // SAFETY: RANK_REFUSE is only ever the library's vaced_rank_refuse.
        // (it reads `what`, a C string)
        unsafe {
            let f = std::mem::transmute::<
                *mut c_void,
                unsafe extern "C" fn(*const std::ffi::c_char) -> c_int,
            >(f);
            f(what.as_ptr());
        }
    }
}

/// The next definition of `name` after this executable (libc's).
fn next_symbol(name: &std::ffi::CStr) -> *mut c_void {
    // SAFETY: dlsym with RTLD_NEXT and a C string.
    unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) }
}

/// `pthread_create`, refused for the ranks of a host process.
///
/// # Safety
/// As libc's `pthread_create`.
#[no_mangle]
pub unsafe extern "C" fn pthread_create(
    thread: *mut libc::pthread_t,
    attr: *const libc::pthread_attr_t,
    start: extern "C" fn(*mut c_void) -> *mut c_void,
    arg: *mut c_void,
) -> c_int {
    refuse_in_rank(c"pthread_create");
    type F = unsafe extern "C" fn(
        *mut libc::pthread_t,
        *const libc::pthread_attr_t,
        extern "C" fn(*mut c_void) -> *mut c_void,
        *mut c_void,
    ) -> c_int;
    let p = next_symbol(c"pthread_create");
    if p.is_null() {
        return libc::EAGAIN;
    }
    // SAFETY: libc's pthread_create has this signature; the arguments are
    // the caller's.
    unsafe { std::mem::transmute::<*mut c_void, F>(p)(thread, attr, start, arg) }
}

/// `fork`, refused for the ranks of a host process.
#[no_mangle]
pub extern "C" fn fork() -> libc::pid_t {
    refuse_in_rank(c"fork");
    let p = next_symbol(c"fork");
    if p.is_null() {
        return -1;
    }
    // SAFETY: libc's fork has this signature.
    unsafe { std::mem::transmute::<*mut c_void, extern "C" fn() -> libc::pid_t>(p)() }
}

/// libc's own `exit`.
fn real_exit(code: c_int) -> ! {
    let p = next_symbol(c"exit");
    // SAFETY: the next definition of `exit` after this executable is
    // libc's, with the same signature.
    unsafe {
        if p.is_null() {
            libc::_exit(code);
        }
        let f = std::mem::transmute::<*mut c_void, extern "C" fn(c_int) -> !>(p);
        f(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(v: &[&str]) -> (String, Result<Cli, clap::Error>) {
        parse(&v.iter().map(OsString::from).collect::<Vec<_>>())
    }

    fn ok(v: &[&str]) -> Cmd {
        cli(v).1.unwrap().command
    }

    /// `who` and the first line of the error, without clap's `error: `.
    fn err(v: &[&str]) -> (String, String) {
        let (who, r) = cli(v);
        let e = r.unwrap_err();
        let text = e.render().to_string();
        let first = text.lines().next().unwrap();
        (who, first.trim_start_matches("error: ").to_string())
    }

    #[test]
    fn the_command_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn subcommands_and_their_arguments() {
        assert!(matches!(ok(&["env"]), Cmd::Env { mpich: None }));
        assert!(matches!(
            ok(&["env", "--mpich"]),
            Cmd::Env { mpich: Some(None) }
        ));
        let Cmd::Run(r) = ok(&["run", "-np", "4", "--sync=fast", "./a", "-np", "1"]) else {
            panic!("not run")
        };
        assert_eq!((r.nranks, r.sync_fast), (4, true));
        assert_eq!(r.cmd.args, ["-np", "1"].map(OsString::from));
        assert!(matches!(
            ok(&["target", "list"]),
            Cmd::Target {
                command: TargetCmd::List
            }
        ));
        let Cmd::Target {
            command: TargetCmd::Show { target },
        } = ok(&["target", "show", "x.toml"])
        else {
            panic!("not show")
        };
        assert_eq!(target, "x.toml");
        let Cmd::Target {
            command: TargetCmd::Hops { target, from, to },
        } = ok(&["target", "hops", "tianhe1a", "0", "11", "12"])
        else {
            panic!("not hops")
        };
        assert_eq!((target.as_str(), from, to), ("tianhe1a", 0, vec![11, 12]));
        let Cmd::Inspect { segment } = ok(&["inspect", "/vaced-1-2"]) else {
            panic!("not inspect")
        };
        assert_eq!(segment, "/vaced-1-2");
        let Cmd::Calibrate(a) = ok(&["calibrate", "--run", "-np", "4", "--quick"]) else {
            panic!("not calibrate")
        };
        assert_eq!((a.run, a.ranks, a.quick), (true, 4, true));
        let Cmd::Completions { shell } = ok(&["completions", "zsh"]) else {
            panic!("not completions")
        };
        assert_eq!(shell, Shell::Zsh);
    }

    #[test]
    fn errors_name_the_subcommand_and_the_bad_argument() {
        let e = |who: &str, msg: &str| (who.to_string(), msg.to_string());
        assert_eq!(err(&["frob"]), e("vaced", "unrecognized subcommand 'frob'"));
        assert_eq!(
            err(&["env", "x"]),
            e("vaced env", "unexpected argument 'x' found")
        );
        assert_eq!(
            err(&["target", "hops", "t", "0", "x"]),
            e(
                "vaced target hops",
                "invalid value 'x' for '<RI>...': `x` is not a rank number"
            )
        );
        assert_eq!(
            err(&["target", "hops", "t", "0"]),
            e(
                "vaced target hops",
                "the following required arguments were not provided:"
            )
        );
        assert_eq!(
            err(&["target", "show", "a", "b"]),
            e("vaced target show", "unexpected argument 'b' found")
        );
        assert_eq!(
            err(&["target", "nope"]),
            e("vaced target", "unrecognized subcommand 'nope'")
        );
        assert_eq!(
            err(&["run", "--cores", "0", "p"]),
            e(
                "vaced run",
                "invalid value '0' for '--cores <C>': the number of cores must be at least 1"
            )
        );
        assert_eq!(
            err(&["calibrate", "-n", "1"]),
            e(
                "vaced calibrate",
                "invalid value '1' for '-n <N>': 2 ranks or more"
            )
        );
        assert_eq!(
            err(&["completions", "tcsh"]),
            e("vaced completions", "invalid value 'tcsh' for '<SHELL>'")
        );
        assert_eq!(err(&["--version"]).0, "vaced");
        assert_eq!(
            cli(&["--version"]).1.unwrap_err().kind(),
            clap::error::ErrorKind::DisplayVersion
        );
    }

    /// `vaced --help` and the subcommands' help say what README.md says
    /// about them.
    #[test]
    fn help_documents_what_the_readme_does() {
        let help = |path: &[&str]| {
            let mut c = Cli::command().term_width(0);
            c.build();
            let mut c = &mut c;
            for p in path {
                c = c.find_subcommand_mut(p).unwrap();
            }
            c.render_long_help().to_string()
        };
        let top = help(&[]);
        for s in [
            "eval \"$(vaced env)\"",
            "mpicc, mpicxx, mpif77, mpif90, mpifort",
            "Same as mpirun",
            "list the presets",
            "-show, -compile-info and -link-info",
            "-fallow-argument-mismatch",
            "MPICH_CC",
            "VACED_HOME",
            "completion",
            "seems stuck",
        ] {
            assert!(
                top.to_lowercase().contains(&s.to_lowercase()),
                "`{s}` missing:\n{top}"
            );
        }
        let hops = help(&["target", "hops"]);
        assert!(hops.contains("hop(R0, Ri), the latency L(0) and the eager limit"));
        let cal = help(&["calibrate"]);
        for s in [
            "--run",
            "mpirun.mpich",
            "MPIRUN",
            "MPICC",
            "--quick",
            "--node-ranks",
            "--out <FILE>",
            "--name <NAME>",
            "2 ranks per node",
        ] {
            assert!(cal.contains(s), "`{s}` missing:\n{cal}");
        }
        let run = help(&["run"]);
        for s in [
            "(also -np N)",
            "VACED_TARGET",
            "VACED_PROGRESS=0",
            "MPIEXEC_TIMEOUT",
        ] {
            assert!(run.contains(s), "`{s}` missing:\n{run}");
        }
        assert!(help(&["inspect"]).contains("/dev/shm/vaced-JOB"));
    }
}
