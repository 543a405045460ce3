//! The agent (`vaced-hostexec`): what MPICH's launcher runs to start its
//! proxy on a host (`mpiexec -launcher ssh -launcher-exec vaced-hostexec`),
//! in place of `ssh`. Hydra runs it as it would run ssh, `[options] HOST
//! COMMAND`; it runs the real remote shell (`VACED_REMOTE_EXEC`, default
//! `ssh`) with the same options and host, and a command that starts this
//! host's side (`vaced host-side`, see `side`) around Hydra's.
//!
//! A host that is this machine (one of its addresses can be bound here) is
//! started without the remote shell when that is plain `ssh`: no ssh to
//! oneself is needed for the launcher's own host.
//!
//! The host's index is Hydra's proxy id (`--proxy-id N` in its command:
//! the hosts' order in the host list); the launcher's registry is reached
//! where Hydra's own control port is (`--control-port HOST:PORT`), at the
//! port in `VACED_REGISTRY_PORT`.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// The registry's port (set by the launcher for its mpiexec).
pub const ENV_REGISTRY_PORT: &str = "VACED_REGISTRY_PORT";
/// The vaced executable to run on the hosts.
pub const ENV_EXE: &str = "VACED_EXE";
/// The remote shell, as a command and its options (default `ssh`).
pub const ENV_REMOTE_EXEC: &str = "VACED_REMOTE_EXEC";
/// The name the agent is started under (its argv[0]).
pub const AGENT_ARGV0: &str = "vaced-hostexec";

/// Quote `s` for a POSIX shell.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The value after `key` among `words`.
fn after<'a>(words: &[&'a str], key: &str) -> Option<&'a str> {
    words
        .iter()
        .position(|w| w.trim_matches('"') == key)
        .and_then(|i| words.get(i + 1))
        .map(|w| w.trim_matches('"'))
}

/// Is `host` this machine: can one of its addresses be bound here?
pub fn is_this_host(host: &str) -> bool {
    use std::net::{ToSocketAddrs, UdpSocket};
    (host, 0)
        .to_socket_addrs()
        .map(|mut addrs| addrs.any(|a| UdpSocket::bind((a.ip(), 0)).is_ok()))
        .unwrap_or(false)
}

/// What to run for Hydra's `options host command` (argv, program first):
/// the remote shell `remote_exec`, or, for a host that `is_local` says is
/// this machine while the remote shell is plain `ssh`, the local shell.
pub fn remote_argv(
    hydra_args: &[String],
    remote_exec: &str,
    exe: &str,
    port: &str,
    is_local: impl Fn(&str) -> bool,
) -> Result<Vec<String>, String> {
    let first = hydra_args
        .iter()
        .position(|a| !a.starts_with('-'))
        .ok_or("no host among the arguments")?;
    let (options, rest) = hydra_args.split_at(first);
    let (host, command) = rest.split_first().expect("a host was found");
    if command.is_empty() {
        return Err(format!("no command to run on {host}"));
    }
    let line = command.join(" ");
    let words: Vec<&str> = line.split_whitespace().collect();
    let index = after(&words, "--proxy-id")
        .ok_or_else(|| format!("no --proxy-id in the command for {host}: {line}"))?;
    index
        .parse::<u32>()
        .map_err(|_| format!("--proxy-id {index} is not a number"))?;
    let control = after(&words, "--control-port")
        .ok_or_else(|| format!("no --control-port in the command for {host}: {line}"))?;
    let (control_host, _) = control
        .rsplit_once(':')
        .ok_or_else(|| format!("--control-port {control} is not HOST:PORT"))?;
    let side = format!(
        "{} host-side --host-index {index} --registry {control_host}:{port} -- {line}",
        quote(exe)
    );
    if remote_exec.trim() == "ssh" && is_local(host) {
        return Ok(vec!["/bin/sh".into(), "-c".into(), side]);
    }
    let mut argv: Vec<String> = remote_exec.split_whitespace().map(String::from).collect();
    if argv.is_empty() {
        return Err(format!("{ENV_REMOTE_EXEC} is empty"));
    }
    argv.extend(options.iter().cloned());
    argv.push(host.clone());
    argv.push(side);
    Ok(argv)
}

/// Run as the agent; returns only on failure.
pub fn main(args: &[OsString]) -> i32 {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let env = |k: &str| std::env::var(k).map_err(|_| format!("{k} is not set"));
    let argv = env(ENV_REGISTRY_PORT).and_then(|port| {
        let exe = env(ENV_EXE)?;
        let remote = std::env::var(ENV_REMOTE_EXEC).unwrap_or_else(|_| "ssh".into());
        remote_argv(&args, &remote, &exe, &port, is_this_host)
    });
    let argv = match argv {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{AGENT_ARGV0}: {e}");
            return 255;
        }
    };
    let e = Command::new(&argv[0]).args(&argv[1..]).exec();
    eprintln!("{AGENT_ARGV0}: cannot run {}: {e}", argv[0]);
    255
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hydras_ssh_line_becomes_the_host_sides() {
        // as mpiexec.hydra -launcher ssh -launcher-exec X runs X
        let hydra: Vec<String> = [
            "-x",
            "nodeb",
            "\"/p/bin/hydra_pmi_proxy\" --control-port vm:40109 --rmk user --proxy-id 1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let argv = remote_argv(&hydra, "ssh -p 22", "/opt/it's/vaced", "5000", |_| true).unwrap();
        assert_eq!(
            argv,
            vec![
                "ssh",
                "-p",
                "22",
                "-x",
                "nodeb",
                "'/opt/it'\\''s/vaced' host-side --host-index 1 --registry vm:5000 -- \
                 \"/p/bin/hydra_pmi_proxy\" --control-port vm:40109 --rmk user --proxy-id 1"
            ]
        );
        let e = remote_argv(&hydra[..2], "ssh", "v", "1", |_| false).unwrap_err();
        assert_eq!(e, "no command to run on nodeb");
        // this machine, plain ssh: the local shell runs the host's side
        let local = remote_argv(&hydra, "ssh", "/v", "5000", |h| h == "nodeb").unwrap();
        assert_eq!(
            local,
            vec![
                "/bin/sh",
                "-c",
                "'/v' host-side --host-index 1 --registry vm:5000 -- \
                 \"/p/bin/hydra_pmi_proxy\" --control-port vm:40109 --rmk user --proxy-id 1"
            ]
        );
        // another host, plain ssh: ssh
        let remote = remote_argv(&hydra, "ssh", "/v", "5000", |_| false).unwrap();
        assert_eq!(remote[..3], ["ssh", "-x", "nodeb"]);
    }

    #[test]
    fn this_machines_addresses_are_this_host_and_others_are_not() {
        assert!(is_this_host("127.0.0.1"));
        assert!(is_this_host("localhost"));
        assert!(is_this_host("127.0.0.2"));
        // TEST-NET-1 (RFC 5737): never a local address
        assert!(!is_this_host("192.0.2.1"));
    }
}
