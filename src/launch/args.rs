//! Command-line parsing for `mpirun` / `mpiexec` / `vaced run`.

use crate::timeline::Format;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::PathBuf;

/// What `mpirun` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunArgs {
    /// Number of ranks (`-n N` / `-np N`), at least 1.
    pub nranks: u32,
    /// `--target NAME|FILE`; `None` means `$VACED_TARGET`, else `tianhe1a`.
    pub target: Option<String>,
    /// `--cores C`; `None` means the host's available parallelism.
    pub cores: Option<u32>,
    /// `--report FILE.json`.
    pub report: Option<PathBuf>,
    /// `--sync fast`: decide timing-dependent operations on host arrival
    /// (approximate); default `--sync exact` (conservative decisions).
    pub sync_fast: bool,
    /// `--quiet` / `-q`: no live progress line.
    pub quiet: bool,
    /// `--timeline FILE`: write the predicted execution as a timeline.
    pub timeline: Option<PathBuf>,
    /// `--timeline-format perfetto|paraver` (default perfetto).
    pub timeline_format: Format,
    /// The program, as given.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
}

/// What the command line asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    Run(RunArgs),
    Help,
}

/// A bad command line; the message names the offending argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for UsageError {}

/// Usage text, `cmd` being the name the launcher was called by.
pub fn usage(cmd: &str) -> String {
    format!(
        "usage: {cmd} [-n N | -np N] [--target NAME|FILE] [--cores C] [--sync exact|fast] [--report FILE.json] [--timeline FILE [--timeline-format perfetto|paraver]] [--quiet] PROGRAM [ARGS...]\n\
         \n\
         \x20 -n, -np N          number of ranks (default 1)\n\
         \x20 --target NAME|FILE target machine: a preset name or a TOML file\n\
         \x20                    (default: $VACED_TARGET, else tianhe1a)\n\
         \x20 --cores C          host cores the ranks may use at once\n\
         \x20                    (default: the host's available parallelism)\n\
         \x20 --sync exact|fast  exact (default): MPI_ANY_SOURCE, Test*, Iprobe,\n\
         \x20                    Waitany/some decided conservatively, the same\n\
         \x20                    whatever the host does; fast: on host arrival\n\
         \x20                    (quicker, approximate)\n\
         \x20 --report FILE.json also write the prediction report as JSON\n\
         \x20 --timeline FILE    write the predicted execution (computation, MPI\n\
         \x20                    calls, messages, in virtual time) as a timeline\n\
         \x20 --timeline-format perfetto|paraver\n\
         \x20                    perfetto (default): Chrome/Perfetto JSON (opens in\n\
         \x20                    ui.perfetto.dev); paraver: FILE.prv, .pcf and .row\n\
         \x20 -q, --quiet        no live progress line on stderr (it is shown only\n\
         \x20                    on a terminal; VACED_PROGRESS=0 also turns it off)\n\
         \x20 -h, --help         show this help\n"
    )
}

/// Parse the arguments that follow the command name.
pub fn parse(argv: &[OsString]) -> Result<Parsed, UsageError> {
    let mut nranks: Option<u32> = None;
    let mut target = None;
    let mut cores = None;
    let mut report = None;
    let mut sync_fast = false;
    let mut quiet = false;
    let mut timeline = None;
    let mut timeline_format = None;
    let mut i = 0;
    while i < argv.len() {
        let arg = &argv[i];
        let Some(s) = arg.to_str().filter(|s| s.starts_with('-')) else {
            // The first non-option argument is the program; the rest is its own.
            if timeline_format.is_some() && timeline.is_none() {
                return Err(UsageError(
                    "`--timeline-format` needs `--timeline FILE`".into(),
                ));
            }
            let parsed = RunArgs {
                nranks: nranks.unwrap_or(1),
                target,
                cores,
                report,
                sync_fast,
                quiet,
                timeline,
                timeline_format: timeline_format.unwrap_or(Format::Perfetto),
                program: arg.clone(),
                args: argv[i + 1..].to_vec(),
            };
            return Ok(Parsed::Run(parsed));
        };
        let (name, inline) = match s.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (s, None),
        };
        if matches!(name, "-h" | "--help" | "-help") && inline.is_none() {
            return Ok(Parsed::Help);
        }
        if matches!(name, "-q" | "--quiet") && inline.is_none() {
            quiet = true;
            i += 1;
            continue;
        }
        if !matches!(
            name,
            "-n" | "-np"
                | "--n"
                | "--np"
                | "--target"
                | "--cores"
                | "--report"
                | "--sync"
                | "--timeline"
                | "--timeline-format"
        ) {
            if s == "--" {
                return Err(UsageError("missing program after `--`".into()));
            }
            return Err(UsageError(format!("unknown option `{s}`")));
        }
        let value = match inline {
            Some(v) => v,
            None => {
                i += 1;
                match argv.get(i) {
                    Some(v) => v
                        .to_str()
                        .ok_or_else(|| UsageError(format!("value of `{name}` is not valid UTF-8")))?
                        .to_string(),
                    None => return Err(UsageError(format!("option `{name}` needs a value"))),
                }
            }
        };
        match name {
            "-n" | "-np" | "--n" | "--np" => {
                let n = parse_count(name, &value)?;
                if n == 0 {
                    return Err(UsageError(format!(
                        "`{name} {value}`: the number of ranks must be at least 1"
                    )));
                }
                nranks = Some(n);
            }
            "--cores" => {
                let c = parse_count(name, &value)?;
                if c == 0 {
                    return Err(UsageError(format!(
                        "`--cores {value}`: the number of cores must be at least 1"
                    )));
                }
                cores = Some(c);
            }
            "--target" => {
                if value.is_empty() {
                    return Err(UsageError("`--target` needs a non-empty value".into()));
                }
                target = Some(value);
            }
            "--sync" => {
                sync_fast = match value.as_str() {
                    "exact" => false,
                    "fast" => true,
                    _ => {
                        return Err(UsageError(format!(
                            "`--sync {value}`: want `exact` or `fast`"
                        )))
                    }
                };
            }
            "--report" => {
                if value.is_empty() {
                    return Err(UsageError("`--report` needs a file name".into()));
                }
                report = Some(PathBuf::from(value));
            }
            "--timeline" => {
                if value.is_empty() {
                    return Err(UsageError("`--timeline` needs a file name".into()));
                }
                timeline = Some(PathBuf::from(value));
            }
            "--timeline-format" => {
                timeline_format = Some(Format::parse(&value).ok_or_else(|| {
                    UsageError(format!(
                        "`--timeline-format {value}`: want `perfetto` or `paraver`"
                    ))
                })?);
            }
            _ => unreachable!("option list checked above"),
        }
        i += 1;
    }
    Err(UsageError("missing program to run".into()))
}

fn parse_count(name: &str, value: &str) -> Result<u32, UsageError> {
    value.parse::<u32>().map_err(|_| {
        UsageError(format!(
            "`{name} {value}`: expected a whole number, got `{value}`"
        ))
    })
}

/// The basename of the command (`mpirun`, `mpiexec`, `vaced run`...), for messages.
pub fn command_name(argv0: &OsStr) -> String {
    std::path::Path::new(argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "mpirun".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    fn run(v: &[&str]) -> RunArgs {
        match parse(&os(v)).unwrap() {
            Parsed::Run(r) => r,
            Parsed::Help => panic!("unexpected help"),
        }
    }

    fn err(v: &[&str]) -> String {
        parse(&os(v)).unwrap_err().0
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
                target: Some("tianhe1a".into()),
                cores: Some(2),
                report: Some(PathBuf::from("out.json")),
                sync_fast: false,
                quiet: false,
                timeline: None,
                timeline_format: Format::Perfetto,
                program: "./app".into(),
                args: os(&["-x", "--target", "y"]),
            }
        );
    }

    #[test]
    fn np_and_inline_values() {
        let r = run(&["-np", "8", "--target=my.toml", "--cores=3", "prog"]);
        assert_eq!(r.nranks, 8);
        assert_eq!(r.target.as_deref(), Some("my.toml"));
        assert_eq!(r.cores, Some(3));
        assert!(!r.sync_fast);
        let f = run(&["--sync", "fast", "p"]);
        assert!(f.sync_fast);
        assert_eq!(r.report, None);
        assert_eq!(r.program, OsString::from("prog"));
        assert!(r.args.is_empty());
        assert_eq!(run(&["-n=5", "p"]).nranks, 5);
        assert_eq!(run(&["--report=r.json", "p"]).report, Some("r.json".into()));
        assert!(!r.quiet);
        assert!(run(&["--quiet", "-n", "2", "p"]).quiet);
        assert!(run(&["-q", "p"]).quiet);
        assert_eq!(err(&["--quiet=1", "p"]), "unknown option `--quiet=1`");
    }

    #[test]
    fn defaults() {
        let r = run(&["/bin/true"]);
        assert_eq!(r.nranks, 1);
        assert_eq!(r.target, None);
        assert_eq!(r.cores, None);
    }

    #[test]
    fn later_option_wins() {
        assert_eq!(run(&["-n", "2", "-np", "7", "p"]).nranks, 7);
    }

    #[test]
    fn help() {
        assert_eq!(parse(&os(&["--help"])).unwrap(), Parsed::Help);
        assert_eq!(parse(&os(&["-n", "2", "-h", "p"])).unwrap(), Parsed::Help);
        assert!(usage("mpirun").starts_with("usage: mpirun [-n N | -np N]"));
    }

    #[test]
    fn errors_name_the_bad_argument() {
        assert_eq!(
            err(&["-n", "0", "p"]),
            "`-n 0`: the number of ranks must be at least 1"
        );
        assert_eq!(
            err(&["-np", "four", "p"]),
            "`-np four`: expected a whole number, got `four`"
        );
        assert_eq!(
            err(&["-n", "-3", "p"]),
            "`-n -3`: expected a whole number, got `-3`"
        );
        assert_eq!(err(&["--bogus", "p"]), "unknown option `--bogus`");
        assert_eq!(err(&["-n"]), "option `-n` needs a value");
        assert_eq!(err(&["-n", "4"]), "missing program to run");
        assert_eq!(err(&[]), "missing program to run");
        assert_eq!(
            err(&["--sync", "slow", "p"]),
            "`--sync slow`: want `exact` or `fast`"
        );
        assert_eq!(
            err(&["--cores", "0", "p"]),
            "`--cores 0`: the number of cores must be at least 1"
        );
        assert_eq!(
            err(&["--target=", "p"]),
            "`--target` needs a non-empty value"
        );
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
        assert_eq!(
            err(&["--timeline", "t", "--timeline-format", "otf2", "p"]),
            "`--timeline-format otf2`: want `perfetto` or `paraver`"
        );
        assert_eq!(
            err(&["--timeline-format", "paraver", "p"]),
            "`--timeline-format` needs `--timeline FILE`"
        );
        assert_eq!(err(&["--timeline=", "p"]), "`--timeline` needs a file name");
        assert_eq!(err(&["--timeline"]), "option `--timeline` needs a value");
    }

    #[test]
    fn command_name_is_basename() {
        assert_eq!(command_name(OsStr::new("/a/b/mpiexec")), "mpiexec");
        assert_eq!(command_name(OsStr::new("mpirun")), "mpirun");
    }
}
