//! Start-up of the ranks by mpirun: a program linked with our library is
//! executed once and forks its other ranks; anything else is executed once
//! per rank (`VACED_FORK=0` forces that). Either way every rank must see the
//! same start: its own VACED_RANK, none of the launcher's start-up variables,
//! mpirun as its parent with death on its exit, no signal left blocked, stdin
//! for rank 0 only.

mod common;

use common::{program, vaced};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

/// The fields rank lines of `startenv` print, by rank.
fn run_startenv(n: u32, fork: bool) -> (u32, Vec<Vec<(String, String)>>) {
    let prog = program("startenv");
    let dir = common::scratch();
    let input = dir.join(format!("stdin-{fork}"));
    std::fs::write(&input, "hello\nsecond\n").unwrap();
    let mut cmd = Command::new(vaced());
    cmd.arg0("mpirun")
        .args(["-n", &n.to_string(), "--target"])
        .arg(common::exact_target())
        .arg(&prog)
        .env("VACED_FORK", if fork { "1" } else { "0" })
        .env_remove("LD_BIND_NOW")
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let launcher = child.id();
    let o = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{}\n{out}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut ranks = vec![Vec::new(); n as usize];
    for line in out.lines() {
        let mut words = line.split_whitespace();
        assert_eq!(words.next(), Some("rank"), "{line}");
        let r: usize = words.next().unwrap().parse().unwrap();
        ranks[r] = words
            .map(|w| {
                let (k, v) = w.split_once('=').unwrap();
                (k.to_string(), v.to_string())
            })
            .collect();
    }
    (launcher, ranks)
}

fn check_start(fork: bool) {
    const N: u32 = 5;
    let (launcher, ranks) = run_startenv(N, fork);
    for (r, fields) in ranks.iter().enumerate() {
        let stdin = if r == 0 { "hello" } else { "EOF" };
        let want = [
            ("env", r.to_string()),
            ("zygote", "-".to_string()),
            ("bindnow", "-".to_string()),
            ("ppid", launcher.to_string()),
            ("pdeath", SIGKILL.to_string()),
            ("usr2", "0".to_string()),
            ("stdin", stdin.to_string()),
        ];
        let got: Vec<(&str, &str)> = fields
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        for (k, v) in want {
            assert!(
                got.contains(&(k, v.as_str())),
                "rank {r}: want {k}={v} in {got:?}"
            );
        }
    }
    let addrs: Vec<&str> = ranks
        .iter()
        .map(|f| f.iter().find(|(k, _)| k == "getenv").unwrap().1.as_str())
        .collect();
    let same = addrs.iter().all(|a| *a == addrs[0]);
    if fork {
        assert!(same, "forked ranks share one image: {addrs:?}");
    } else if std::fs::read_to_string("/proc/sys/kernel/randomize_va_space")
        .is_ok_and(|s| s.trim() != "0")
    {
        assert!(!same, "executed ranks are laid out at random: {addrs:?}");
    }
}

const SIGKILL: i32 = 9;

#[test]
fn forked_ranks_start_like_executed_ones() {
    check_start(true);
}

#[test]
fn executed_ranks_start_with_their_environment() {
    check_start(false);
}
