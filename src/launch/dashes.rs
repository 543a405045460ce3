//! MPICH's launcher takes long options after a single dash (`mpiexec -np 4`,
//! `-help`); clap reads `-np` as `-n p`. [`single_dash_longs`] rewrites such
//! words to two dashes before clap sees them, from the clap command itself
//! (so a new option or subcommand needs nothing here), and only where an
//! option may stand: not in an option's value, nor from the first positional
//! argument that is not a subcommand (the program, whose arguments are its
//! own), nor after `--`.

use clap::Command;
use std::ffi::OsString;

/// A command line for clap, and the subcommands it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewritten {
    /// The arguments, without the command name.
    pub argv: Vec<OsString>,
    /// The subcommands named on the way (`["target", "hops"]`), for messages.
    pub subcommands: Vec<String>,
}

/// `argv` (without the command name) with `-NAME` and `-NAME=VALUE` written
/// `--NAME...` wherever NAME (two letters or more) is the long name or an
/// alias of an option of `cmd`, or of the subcommand named before it.
pub fn single_dash_longs(cmd: &Command, argv: impl IntoIterator<Item = OsString>) -> Rewritten {
    let mut cmd = cmd.clone();
    cmd.build();
    let mut cmd = &cmd;
    let mut subcommands = Vec::new();
    let mut out = Vec::new();
    let mut argv = argv.into_iter();
    while let Some(word) = argv.next() {
        let Some(s) = word.to_str() else {
            // Not UTF-8: no option of ours; a positional ends the options.
            out.push(word);
            break;
        };
        if s == "--" {
            out.push(word);
            break;
        }
        let takes_value = if let Some(long) = s.strip_prefix("--") {
            let (name, inline) = split_value(long);
            long_takes_value(cmd, name) && !inline
        } else if let Some(rest) = s.strip_prefix('-').filter(|r| !r.is_empty()) {
            let (name, inline) = split_value(rest);
            if name.chars().count() > 1 && is_long(cmd, name) {
                out.push(format!("-{s}").into());
                if long_takes_value(cmd, name) && !inline {
                    out.extend(argv.next());
                }
                continue;
            }
            shorts_take_next_value(cmd, rest)
        } else if let Some(sub) = cmd.find_subcommand(s) {
            cmd = sub;
            subcommands.push(sub.get_name().to_string());
            false
        } else {
            // The first positional (the program): the rest is its own.
            out.push(word);
            break;
        };
        out.push(word);
        if takes_value {
            out.extend(argv.next());
        }
    }
    out.extend(argv);
    Rewritten {
        argv: out,
        subcommands,
    }
}

/// `NAME=VALUE` as (`NAME`, true), `NAME` as (`NAME`, false).
fn split_value(s: &str) -> (&str, bool) {
    match s.split_once('=') {
        Some((name, _)) => (name, true),
        None => (s, false),
    }
}

fn is_long(cmd: &Command, name: &str) -> bool {
    cmd.get_arguments().any(|a| {
        a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|v| v.contains(&name))
    })
}

fn long_takes_value(cmd: &Command, name: &str) -> bool {
    cmd.get_arguments().any(|a| {
        (a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|v| v.contains(&name)))
            && a.get_action().takes_values()
    })
}

/// Whether a cluster of short options (`qn` of `-qn`) ends with one that
/// takes its value from the next word (`-qn 4`, not `-qn4`).
fn shorts_take_next_value(cmd: &Command, cluster: &str) -> bool {
    let mut chars = cluster.chars();
    while let Some(c) = chars.next() {
        let Some(arg) = cmd.get_arguments().find(|a| {
            a.get_short() == Some(c) || a.get_all_short_aliases().is_some_and(|v| v.contains(&c))
        }) else {
            return false;
        };
        if arg.get_action().takes_values() {
            return chars.as_str().is_empty();
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Arg, ArgAction};

    fn cmd() -> Command {
        Command::new("t")
            .arg(Arg::new("n").short('n').alias("np"))
            .arg(Arg::new("target").long("target"))
            .arg(
                Arg::new("quiet")
                    .short('q')
                    .long("quiet")
                    .action(ArgAction::SetTrue),
            )
            .arg(Arg::new("prog"))
            .subcommand(Command::new("sub").arg(Arg::new("ranks").long("ranks")))
    }

    fn rewrite(v: &[&str]) -> Vec<String> {
        single_dash_longs(&cmd(), v.iter().map(OsString::from))
            .argv
            .into_iter()
            .map(|s| s.into_string().unwrap())
            .collect()
    }

    #[test]
    fn single_dash_long_names_get_two() {
        assert_eq!(rewrite(&["-np", "4", "p"]), ["--np", "4", "p"]);
        assert_eq!(rewrite(&["-np=4", "p"]), ["--np=4", "p"]);
        assert_eq!(
            rewrite(&["-target", "x", "-quiet", "p"]),
            ["--target", "x", "--quiet", "p"]
        );
        assert_eq!(rewrite(&["-help"]), ["--help"]);
        assert_eq!(rewrite(&["sub", "-ranks", "3"]), ["sub", "--ranks", "3"]);
        let r = single_dash_longs(&cmd(), ["-q", "sub", "x", "sub"].map(OsString::from));
        assert_eq!(r.subcommands, ["sub"]);
    }

    #[test]
    fn only_where_an_option_may_stand() {
        // The program's arguments, after `--`, values of options.
        assert_eq!(rewrite(&["p", "-np", "4"]), ["p", "-np", "4"]);
        assert_eq!(rewrite(&["-n", "2", "p", "-np"]), ["-n", "2", "p", "-np"]);
        assert_eq!(rewrite(&["--", "-np", "4"]), ["--", "-np", "4"]);
        assert_eq!(
            rewrite(&["--target", "-np", "-np", "2"]),
            ["--target", "-np", "--np", "2"]
        );
        assert_eq!(rewrite(&["-qn", "-np", "p"]), ["-qn", "-np", "p"]);
        assert_eq!(
            rewrite(&["-qn4", "-np", "1", "p"]),
            ["-qn4", "--np", "1", "p"]
        );
        assert_eq!(
            rewrite(&["-target=-np", "-np", "1"]),
            ["--target=-np", "--np", "1"]
        );
        // Not options of ours: left for clap to name.
        assert_eq!(rewrite(&["-nq", "-bogus", "p"]), ["-nq", "-bogus", "p"]);
        assert_eq!(rewrite(&["-ranks", "2"]), ["-ranks", "2"]);
    }
}
