//! Command-line parsing for `mpirun` / `mpiexec` / `vaced run`, with clap.
//!
//! [`RunArgs`] is the whole command line: one field per option (an option is
//! a field with its `#[arg]`), then the program and its arguments: everything
//! after the program is the program's own, options included. MPICH's
//! single-dash long options (`-np 4`, `-help`) are rewritten to two dashes
//! first ([`super::dashes`]); [`parse`] does both ([`parse_with`] for
//! another command). Usage errors are clap's,
//! printed by [`usage_error`] after the command's name, with exit status
//! [`super::EXIT_USAGE`].

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;
use clap::{Args, Command, FromArgMatches};
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use crate::timeline::Format;

/// What `mpirun` reads from the environment, how it ends, what it prints:
/// the end of `mpirun --help` (and `vaced run --help`).
pub const AFTER_HELP: &str = "\
Everything after PROGRAM is the program's own, options included; `--` may
come before PROGRAM.

Environment:
  VACED_TARGET=NAME|FILE  the target when --target is not given
                          (default: tianhe1a)
  VACED_PROGRESS=0        no live progress line, as --quiet
  MPIEXEC_TIMEOUT=S       end the job after S seconds of wall-clock time
                          (exit status 124), as MPICH's mpiexec reads it
  VACED_HOST_JITTER=SEED  inject random host delays (sends, wake-ups, start
                          order), to check that a prediction does not depend
                          on the host
  VACED_FORK=0            start every rank by exec (by default, rank 0 forks
                          the others from its loaded image when the program
                          is linked with vaced)
  VACED_COLL_<NAME>=ALG   force a collective's algorithm (also a
                          [collectives] table in the target file)
  VACED_RANKS_PER_PROCESS=K|auto
                          --ranks-per-process when it is not given

At the end of the job, on stderr: the predicted time on the target (the
largest final virtual time of any rank, and which rank), per-rank minimum,
average and maximum of computation, communication and waiting time, messages
and bytes sent, host sleeps, and the cost of the simulation (host wall and
CPU time, efficiency). --report writes the same figures as JSON.

What-if runs: with several --target, or --sweep KEY=V1,V2,... (any numeric
key of a target file, as in `vaced sweep`: network.latency=1us,2us,5us,
cpu.scale=0.5,1), the program runs once, under the first configuration,
each rank logging its MPI calls; each other configuration is then predicted
by replaying the logs with the same engine (computation measured once,
scaled per configuration). The report lists every configuration; a
deterministic program gets exactly what a run of its own would give. When
an outcome the program saw depends on time (MPI_ANY_SOURCE, Test*, Iprobe,
Waitany/some, Cancel) and comes out differently under a configuration, that
configuration is marked approximate with the count. Refused in a what-if
run (the job ends saying so): MPI_Comm_idup, one-sided communication,
MPI-IO, MPI calls from several threads.

Exit status: 0 when every rank finished; 2 for a bad command line or target;
127 when the program cannot be found or run; 124 past MPIEXEC_TIMEOUT. When a
rank crashes, calls MPI_Abort or returns without MPI_Finalize, the whole job
ends, the rank is named, and the status is its error code (128 + the signal
number for a signal).";

/// Run a real MPI program on this host and predict its run time on a target
/// machine.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
#[command(args_override_self = true, after_help = AFTER_HELP)]
pub struct RunArgs {
    /// Number of ranks, each a process on this host unless
    /// --ranks-per-process (also -np N)
    #[arg(
        short = 'n',
        alias = "np",
        value_name = "N",
        allow_hyphen_values = true,
        default_value = "1",
        value_parser = ranks
    )]
    pub nranks: u32,
    /// Target machine: a preset name or a target file (TOML) [default:
    /// $VACED_TARGET, else tianhe1a]. Repeatable: one execution predicts
    /// every target (a what-if run, see below)
    #[arg(
        long = "target",
        value_name = "NAME|FILE",
        allow_hyphen_values = true,
        value_parser = non_empty
    )]
    pub targets: Vec<String>,
    /// A target key and its values (repeatable): one execution predicts
    /// every configuration (each target with every combination of values)
    #[arg(
        long = "sweep",
        value_name = "KEY=V1,V2,...",
        value_parser = crate::sweep::config::parse_sweep
    )]
    pub sweeps: Vec<crate::sweep::config::Sweep>,
    /// At most C ranks compute at the same time [default: the host's cores]
    #[arg(long, value_name = "C", allow_hyphen_values = true, value_parser = cores)]
    pub cores: Option<u32>,
    /// How timing-dependent operations (MPI_ANY_SOURCE, Test*, Iprobe,
    /// Waitany/some) are decided
    #[arg(
        long = "sync",
        value_name = "MODE",
        default_value = "exact",
        action = clap::ArgAction::Set,
        allow_hyphen_values = true,
        value_parser = sync_mode()
    )]
    pub sync_fast: bool,
    /// Also write the prediction report as JSON
    #[arg(long, value_name = "FILE.json", allow_hyphen_values = true, value_parser = non_empty_path)]
    pub report: Option<PathBuf>,
    /// Write the predicted execution (computation, MPI calls, messages, in
    /// virtual time) as a timeline
    #[arg(long, value_name = "FILE", allow_hyphen_values = true, value_parser = non_empty_path)]
    pub timeline: Option<PathBuf>,
    /// The timeline's format: Chrome/Perfetto trace-event JSON, or a Paraver
    /// trace (FILE.prv, .pcf, .row)
    #[arg(
        long,
        value_name = "FORMAT",
        default_value = "perfetto",
        requires = "timeline",
        value_parser = timeline_format()
    )]
    pub timeline_format: Format,
    /// Many ranks per process, a second execution mode: the ranks run as
    /// user-level contexts in a few host processes, each running a
    /// contiguous block of K ranks (`auto`: as many host processes as
    /// cores, the ranks split evenly). Default: one process per rank, or
    /// $VACED_RANKS_PER_PROCESS
    #[arg(
        long,
        value_name = "K|auto",
        allow_hyphen_values = true,
        value_parser = ranks_per_process
    )]
    pub ranks_per_process: Option<RanksPerProcess>,
    /// The program is built with vaced's MPICH (mpich-patch/build.sh): run
    /// it through MPICH's own launcher, PREFIX/bin/mpiexec.hydra (default
    /// PREFIX: $VACED_MPICH, else target/mpich-vaced in vaced's source
    /// tree); $VACED_MPICH alone also selects this
    #[arg(
        long,
        value_name = "PREFIX",
        num_args = 0..=1,
        require_equals = true,
        conflicts_with = "ranks_per_process"
    )]
    pub mpich: Option<Option<std::path::PathBuf>>,
    /// Run the ranks on several hosts (with --mpich): Hydra's host list,
    /// HOST:SLOTS,... (MPICH places the ranks: each host's slots in turn).
    /// Each host runs its ranks on a segment of its own, joined to the
    /// others by a bridge over TCP; the prediction does not depend on it
    #[arg(long, value_name = "LIST", conflicts_with = "hostfile")]
    pub hosts: Option<String>,
    /// --hosts from a file: one HOST[:SLOTS] per line, `#` comments
    #[arg(long, value_name = "FILE")]
    pub hostfile: Option<PathBuf>,
    /// How to run a command on a host, as ssh is run (`PROGRAM [OPTIONS]
    /// HOST COMMAND`) [default: $VACED_REMOTE_EXEC, else ssh]
    #[arg(long, value_name = "PROGRAM", allow_hyphen_values = true)]
    pub launcher_exec: Option<String>,
    /// No live progress line on stderr (ranks finished, slowest and fastest
    /// virtual clock, host wall; shown only when stderr is a terminal, after
    /// 1 s; VACED_PROGRESS=0 also turns it off)
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub cmd: Program,
}

/// `--ranks-per-process K|auto`: how many ranks each host process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RanksPerProcess {
    /// As many host processes as the job's cores (at most one per rank),
    /// the ranks split evenly.
    Auto,
    /// K ranks per host process (the last one fewer).
    Fixed(u32),
}

/// The end of a command line that runs a program (`mpirun`, `vaced sweep`):
/// the program, then its arguments (everything after it is its own, options
/// included).
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct Program {
    /// The program to run (a path, or a name looked up in PATH)
    #[arg(value_name = "PROGRAM", value_parser = clap::value_parser!(OsString))]
    pub program: OsString,
    /// The program's arguments
    #[arg(
        value_name = "ARGS",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_parser = clap::value_parser!(OsString)
    )]
    pub args: Vec<OsString>,
}

/// `--sync exact|fast`, read as "is it fast".
fn sync_mode() -> impl TypedValueParser<Value = bool> {
    PossibleValuesParser::new([
        PossibleValue::new("exact").help(
            "conservative decisions, the same whatever the host does (the earliest \
             virtual arrival wins)",
        ),
        PossibleValue::new("fast").help("decided on host arrival: quicker, approximate"),
    ])
    .map(|s| s == "fast")
}

/// `--timeline-format perfetto|paraver`.
fn timeline_format() -> impl TypedValueParser<Value = Format> {
    PossibleValuesParser::new([
        PossibleValue::new("perfetto")
            .help("Chrome / Perfetto trace-event JSON (ui.perfetto.dev, chrome://tracing)"),
        PossibleValue::new("paraver").help("a Paraver trace: .prv, .pcf and .row"),
    ])
    .map(|s| Format::parse(&s).expect("a listed format"))
}

/// A count of at least one `what`.
fn at_least_one(value: &str, what: &str) -> Result<u32, String> {
    match value.parse::<u32>() {
        Ok(0) => Err(format!("the number of {what} must be at least 1")),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("expected a whole number, got `{value}`")),
    }
}

fn ranks(value: &str) -> Result<u32, String> {
    at_least_one(value, "ranks")
}

fn cores(value: &str) -> Result<u32, String> {
    at_least_one(value, "cores")
}

/// `--ranks-per-process`'s value (also `$VACED_RANKS_PER_PROCESS`'s).
pub fn parse_ranks_per_process(value: &str) -> Result<RanksPerProcess, String> {
    ranks_per_process(value)
}

fn ranks_per_process(value: &str) -> Result<RanksPerProcess, String> {
    if value == "auto" {
        return Ok(RanksPerProcess::Auto);
    }
    match value.parse::<u32>() {
        Ok(0) => Err("the number of ranks per process must be at least 1 (or `auto`)".into()),
        Ok(k) => Ok(RanksPerProcess::Fixed(k)),
        Err(_) => Err(format!(
            "expected a whole number of ranks per process or `auto`, got `{value}`"
        )),
    }
}

fn non_empty(value: &str) -> Result<String, String> {
    if value.is_empty() {
        return Err("needs a non-empty value".into());
    }
    Ok(value.to_string())
}

fn non_empty_path(value: &str) -> Result<PathBuf, String> {
    if value.is_empty() {
        return Err("needs a file name".into());
    }
    Ok(PathBuf::from(value))
}

/// The launcher's clap command, `cmd` being the name it was called by.
pub fn command(cmd: &str) -> Command {
    RunArgs::augment_args(Command::new(cmd.to_string()))
        .about(
            "Run a real MPI program on this host and predict its run time on a target \
             machine (vaced's mpirun).",
        )
        .version(env!("CARGO_PKG_VERSION"))
}

/// Parse the arguments that follow the command name (`cmd`, for help and
/// messages). `Err` is clap's: help and version requests too (see
/// [`usage_error`]).
pub fn parse(cmd: &str, argv: &[OsString]) -> Result<RunArgs, clap::Error> {
    parse_with(command(cmd), argv)
}

/// Parse `argv` (after the command name) with the clap command `c`, MPICH's
/// single-dash long options first rewritten ([`super::dashes`]).
pub fn parse_with<T: FromArgMatches>(mut c: Command, argv: &[OsString]) -> Result<T, clap::Error> {
    let argv = super::dashes::single_dash_longs(&c, argv.iter().cloned()).argv;
    let name = OsString::from(c.get_name());
    let m = c.try_get_matches_from_mut(std::iter::once(name).chain(argv))?;
    T::from_arg_matches(&m).map_err(|e| e.format(&mut c))
}

/// Print clap's `e` (help, version or a usage error) as `cmd`'s, and return
/// the exit status: 0 for help and version, else [`super::EXIT_USAGE`]. A
/// usage error is `cmd: message` on stderr (clap's message: it names the bad
/// argument), then the usage line.
pub fn usage_error(cmd: &str, e: &clap::Error) -> i32 {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            0
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            super::EXIT_USAGE
        }
        _ => {
            let text = e.render().to_string();
            let text = text.strip_prefix("error: ").unwrap_or(&text);
            eprint!("{cmd}: {text}");
            super::EXIT_USAGE
        }
    }
}

/// The basename of the command (`mpirun`, `mpiexec`, `vaced run`...), for messages.
pub fn command_name(argv0: &OsStr) -> String {
    std::path::Path::new(argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "mpirun".into())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    fn run(v: &[&str]) -> RunArgs {
        parse("mpirun", &os(v)).unwrap()
    }

    fn err(v: &[&str]) -> clap::Error {
        parse("mpirun", &os(v)).unwrap_err()
    }

    fn msg(v: &[&str]) -> String {
        usage_msg(err(v), v)
    }

    /// The first line of usage error `e`'s message (for command line `v`),
    /// without clap's `error: `.
    pub(crate) fn usage_msg(e: clap::Error, v: &[&str]) -> String {
        assert_eq!(e.exit_code(), crate::launch::EXIT_USAGE, "{v:?}");
        let text = e.render().to_string();
        text.lines()
            .next()
            .unwrap()
            .trim_start_matches("error: ")
            .to_string()
    }

    #[test]
    fn the_command_is_well_formed() {
        command("mpirun").debug_assert();
    }

    #[test]
    fn full_command_line() {
        let r = run(&[
            "-n", "64", "--target", "tianhe1a", "--cores", "2", "--report", "out.json", "./app",
            "-x", "--target", "y",
        ]);
        assert_eq!(
            r,
            RunArgs {
                nranks: 64,
                targets: vec!["tianhe1a".into()],
                sweeps: vec![],
                cores: Some(2),
                report: Some(PathBuf::from("out.json")),
                timeline: None,
                timeline_format: Format::Perfetto,
                sync_fast: false,
                ranks_per_process: None,
                mpich: None,
                hosts: None,
                hostfile: None,
                launcher_exec: None,
                quiet: false,
                cmd: Program {
                    program: "./app".into(),
                    args: os(&["-x", "--target", "y"]),
                },
            }
        );
    }

    #[test]
    fn mpich_takes_an_optional_prefix() {
        assert_eq!(run(&["-n", "2", "p"]).mpich, None);
        assert_eq!(run(&["-n", "2", "--mpich", "p"]).mpich, Some(None));
        assert_eq!(
            run(&["-n", "2", "--mpich=/opt/m", "p"]).mpich,
            Some(Some(PathBuf::from("/opt/m")))
        );
        // without `=`, the next word is the program
        let r = run(&["-n", "2", "--mpich", "/opt/m", "p"]);
        assert_eq!(r.cmd.program, OsString::from("/opt/m"));
    }

    #[test]
    fn every_option_in_every_spelling() {
        let r = run(&["-np", "8", "--target=my.toml", "--cores=3", "prog"]);
        assert_eq!(r.nranks, 8);
        assert_eq!(r.targets.first().map(String::as_str), Some("my.toml"));
        assert_eq!(r.cores, Some(3));
        assert!(!r.sync_fast);
        assert_eq!(r.report, None);
        assert_eq!(r.cmd.program, OsString::from("prog"));
        assert!(r.cmd.args.is_empty());
        assert!(!r.quiet);
        assert!(run(&["--sync", "fast", "p"]).sync_fast);
        assert!(run(&["--sync=fast", "p"]).sync_fast);
        assert!(!run(&["--sync", "exact", "p"]).sync_fast);
        for n in [
            &["-n", "5", "p"][..],
            &["-n=5", "p"],
            &["-n5", "p"],
            &["-np", "5", "p"],
            &["-np=5", "p"],
            &["--np", "5", "p"],
            &["--np=5", "p"],
        ] {
            assert_eq!(run(n).nranks, 5, "{n:?}");
        }
        assert_eq!(run(&["--report=r.json", "p"]).report, Some("r.json".into()));
        assert_eq!(
            run(&["--report", "r.json", "p"]).report,
            Some("r.json".into())
        );
        assert_eq!(
            run(&["--target", "t", "p"])
                .targets
                .first()
                .map(String::as_str),
            Some("t")
        );
        assert_eq!(run(&["--cores", "7", "p"]).cores, Some(7));
        assert!(run(&["--quiet", "-n", "2", "p"]).quiet);
        assert!(run(&["-q", "p"]).quiet);
        assert!(run(&["-qn", "3", "p"]).quiet);
        assert_eq!(run(&["-qn", "3", "p"]).nranks, 3);
    }

    #[test]
    fn timeline_options() {
        let r = run(&["--timeline", "t.json", "p"]);
        assert_eq!(r.timeline, Some(PathBuf::from("t.json")));
        assert_eq!(r.timeline_format, Format::Perfetto);
        let r = run(&["--timeline-format=paraver", "--timeline=t", "p"]);
        assert_eq!(r.timeline, Some(PathBuf::from("t")));
        assert_eq!(r.timeline_format, Format::Paraver);
        assert_eq!(run(&["p"]).timeline, None);
        for bad in [
            &["--timeline", "t", "--timeline-format", "otf2", "p"][..],
            &["--timeline-format", "paraver", "p"],
            &["--timeline=", "p"],
        ] {
            let e = err(bad);
            assert_eq!(e.exit_code(), crate::launch::EXIT_USAGE, "{bad:?}");
            let e = e.render().to_string();
            assert!(e.contains("--timeline"), "{bad:?}: {e}");
        }
        assert!(msg(&["--timeline", "t", "--timeline-format", "otf2", "p"]).contains("otf2"));
    }

    #[test]
    fn defaults() {
        let r = run(&["/bin/true"]);
        assert_eq!(r.nranks, 1);
        assert!(r.targets.is_empty());
        assert_eq!(r.cores, None);
        assert_eq!(r.report, None);
        assert!(!r.sync_fast && !r.quiet);
    }

    #[test]
    fn ranks_per_process() {
        assert_eq!(run(&["p"]).ranks_per_process, None);
        assert_eq!(
            run(&["--ranks-per-process", "auto", "p"]).ranks_per_process,
            Some(RanksPerProcess::Auto)
        );
        assert_eq!(
            run(&["--ranks-per-process=16", "-n", "64", "p"]).ranks_per_process,
            Some(RanksPerProcess::Fixed(16))
        );
        assert_eq!(
            run(&["-ranks-per-process", "1", "p"]).ranks_per_process,
            Some(RanksPerProcess::Fixed(1))
        );
        assert_eq!(
            msg(&["--ranks-per-process", "0", "p"]),
            "invalid value '0' for '--ranks-per-process <K|auto>': the number of ranks per \
             process must be at least 1 (or `auto`)"
        );
        for bad in ["abc", "-2", "Auto", "1.5", ""] {
            assert_eq!(
                msg(&["--ranks-per-process", bad, "p"]),
                format!(
                    "invalid value '{bad}' for '--ranks-per-process <K|auto>': expected a whole \
                     number of ranks per process or `auto`, got `{bad}`"
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn later_option_wins() {
        assert_eq!(run(&["-n", "2", "-np", "7", "p"]).nranks, 7);
        assert!(!run(&["--sync", "fast", "--sync", "exact", "p"]).sync_fast);
    }

    /// Options stop at the program: what follows is the program's, even
    /// `-np`, `--help` and `--`, and even where it names one of ours.
    #[test]
    fn the_program_owns_what_follows_it() {
        let r = run(&["-np", "2", "./app", "-np", "4", "--help", "--", "-q", "x"]);
        assert_eq!(r.nranks, 2);
        assert!(!r.quiet);
        assert_eq!(r.cmd.program, OsString::from("./app"));
        assert_eq!(r.cmd.args, os(&["-np", "4", "--help", "--", "-q", "x"]));
        let r = run(&["--", "./app", "--cores", "3"]);
        assert_eq!(r.cmd.program, OsString::from("./app"));
        assert_eq!(r.cmd.args, os(&["--cores", "3"]));
        assert_eq!(r.cores, None);
        // A value that looks like an option name is still the value.
        let r = run(&["--target", "-np", "p"]);
        assert_eq!(r.targets.first().map(String::as_str), Some("-np"));
        assert_eq!(r.nranks, 1);
    }

    #[test]
    fn not_utf8_program_and_arguments_pass_through() {
        use std::os::unix::ffi::OsStringExt;
        let prog = OsString::from_vec(b"./a\xff".to_vec());
        let arg = OsString::from_vec(b"-\xfe".to_vec());
        let r = parse(
            "mpirun",
            &[OsString::from("-n"), "2".into(), prog.clone(), arg.clone()],
        )
        .unwrap();
        assert_eq!((r.cmd.program, r.cmd.args), (prog, vec![arg]));
    }

    #[test]
    fn help_and_version() {
        for h in [
            &["--help"][..],
            &["-h"],
            &["-help"],
            &["-n", "2", "-h", "p"],
        ] {
            assert_eq!(err(h).kind(), ErrorKind::DisplayHelp, "{h:?}");
        }
        assert_eq!(err(&["--version"]).kind(), ErrorKind::DisplayVersion);
        let help = command("mpirun")
            .term_width(0)
            .render_long_help()
            .to_string();
        assert!(
            help.contains("Usage: mpirun [OPTIONS] <PROGRAM> [ARGS]..."),
            "{help}"
        );
        // Everything README.md documents about mpirun.
        for s in [
            "-n <N>",
            "also -np N",
            "--target <NAME|FILE>",
            "$VACED_TARGET, else tianhe1a",
            "--cores <C>",
            "--sync <MODE>",
            "exact",
            "fast",
            "--report <FILE.json>",
            "-q, --quiet",
            "--ranks-per-process <K|auto>",
            "second execution mode",
            "VACED_PROGRESS=0",
            "MPIEXEC_TIMEOUT",
            "VACED_HOST_JITTER",
            "VACED_FORK=0",
            "VACED_COLL_<NAME>",
            "VACED_RANKS_PER_PROCESS",
            "Exit status",
        ] {
            assert!(help.contains(s), "`{s}` missing from\n{help}");
        }
        let usage = command("vaced run").render_usage().to_string();
        assert_eq!(usage, "Usage: vaced run [OPTIONS] <PROGRAM> [ARGS]...");
    }

    #[test]
    fn errors_name_the_bad_argument() {
        assert_eq!(
            msg(&["-n", "0", "p"]),
            "invalid value '0' for '-n <N>': the number of ranks must be at least 1"
        );
        assert_eq!(
            msg(&["-np", "four", "p"]),
            "invalid value 'four' for '-n <N>': expected a whole number, got `four`"
        );
        assert_eq!(
            msg(&["-n", "-3", "p"]),
            "invalid value '-3' for '-n <N>': expected a whole number, got `-3`"
        );
        assert_eq!(
            msg(&["--bogus", "p"]),
            "unexpected argument '--bogus' found"
        );
        assert_eq!(msg(&["-x", "p"]), "unexpected argument '-x' found");
        assert_eq!(
            msg(&["-n"]),
            "a value is required for '-n <N>' but none was supplied"
        );
        assert_eq!(
            msg(&["-n", "4"]),
            "the following required arguments were not provided:"
        );
        assert!(err(&["-n", "4"]).to_string().contains("<PROGRAM>"));
        assert_eq!(
            msg(&[]),
            "the following required arguments were not provided:"
        );
        assert_eq!(
            msg(&["--sync", "slow", "p"]),
            "invalid value 'slow' for '--sync <MODE>'"
        );
        assert!(err(&["--sync", "slow", "p"])
            .to_string()
            .contains("[possible values: exact, fast]"));
        assert_eq!(
            msg(&["--cores", "0", "p"]),
            "invalid value '0' for '--cores <C>': the number of cores must be at least 1"
        );
        assert_eq!(
            msg(&["--target=", "p"]),
            "invalid value '' for '--target <NAME|FILE>': needs a non-empty value"
        );
        assert_eq!(
            msg(&["--report=", "p"]),
            "invalid value '' for '--report <FILE.json>': needs a file name"
        );
        assert_eq!(
            msg(&["--quiet=1", "p"]),
            "unexpected value '1' for '--quiet' found; no more were expected"
        );
    }

    #[test]
    fn command_name_is_basename() {
        assert_eq!(command_name(OsStr::new("/a/b/mpiexec")), "mpiexec");
        assert_eq!(command_name(OsStr::new("mpirun")), "mpirun");
    }
}
