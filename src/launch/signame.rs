//! Signal numbers to names (`SIGSEGV`) and short descriptions, for messages.

const NAMES: &[(i32, &str, &str)] = &[
    (libc::SIGHUP, "SIGHUP", "hangup"),
    (libc::SIGINT, "SIGINT", "interrupt"),
    (libc::SIGQUIT, "SIGQUIT", "quit"),
    (libc::SIGILL, "SIGILL", "illegal instruction"),
    (libc::SIGTRAP, "SIGTRAP", "trace/breakpoint trap"),
    (libc::SIGABRT, "SIGABRT", "aborted"),
    (libc::SIGBUS, "SIGBUS", "bus error"),
    (libc::SIGFPE, "SIGFPE", "floating-point exception"),
    (libc::SIGKILL, "SIGKILL", "killed"),
    (libc::SIGUSR1, "SIGUSR1", "user signal 1"),
    (libc::SIGSEGV, "SIGSEGV", "segmentation fault"),
    (libc::SIGUSR2, "SIGUSR2", "user signal 2"),
    (libc::SIGPIPE, "SIGPIPE", "broken pipe"),
    (libc::SIGALRM, "SIGALRM", "alarm clock"),
    (libc::SIGTERM, "SIGTERM", "terminated"),
    (libc::SIGSTKFLT, "SIGSTKFLT", "stack fault"),
    (libc::SIGCHLD, "SIGCHLD", "child exited"),
    (libc::SIGCONT, "SIGCONT", "continued"),
    (libc::SIGSTOP, "SIGSTOP", "stopped"),
    (libc::SIGTSTP, "SIGTSTP", "stopped at the terminal"),
    (libc::SIGTTIN, "SIGTTIN", "stopped on terminal input"),
    (libc::SIGTTOU, "SIGTTOU", "stopped on terminal output"),
    (libc::SIGURG, "SIGURG", "urgent I/O condition"),
    (libc::SIGXCPU, "SIGXCPU", "CPU time limit exceeded"),
    (libc::SIGXFSZ, "SIGXFSZ", "file size limit exceeded"),
    (libc::SIGVTALRM, "SIGVTALRM", "virtual timer expired"),
    (libc::SIGPROF, "SIGPROF", "profiling timer expired"),
    (libc::SIGWINCH, "SIGWINCH", "window changed"),
    (libc::SIGIO, "SIGIO", "I/O possible"),
    (libc::SIGPWR, "SIGPWR", "power failure"),
    (libc::SIGSYS, "SIGSYS", "bad system call"),
];

/// `SIGSEGV` for 11; `SIGRTMIN+n` for real-time signals; `signal N` otherwise.
pub fn name(sig: i32) -> String {
    if let Some((_, n, _)) = NAMES.iter().find(|(s, _, _)| *s == sig) {
        return (*n).to_string();
    }
    let (lo, hi) = (libc::SIGRTMIN(), libc::SIGRTMAX());
    if (lo..=hi).contains(&sig) {
        return format!("SIGRTMIN+{}", sig - lo);
    }
    format!("signal {sig}")
}

/// `SIGSEGV (segmentation fault)`, or just the name when there is no description.
pub fn describe(sig: i32) -> String {
    match NAMES.iter().find(|(s, _, _)| *s == sig) {
        Some((_, n, d)) => format!("{n} ({d})"),
        None => name(sig),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(name(11), "SIGSEGV");
        assert_eq!(name(9), "SIGKILL");
        assert_eq!(name(2), "SIGINT");
        assert_eq!(name(libc::SIGRTMIN() + 2), "SIGRTMIN+2");
        assert_eq!(name(0), "signal 0");
        assert_eq!(describe(11), "SIGSEGV (segmentation fault)");
        assert_eq!(describe(6), "SIGABRT (aborted)");
        assert_eq!(describe(libc::SIGRTMIN()), "SIGRTMIN+0");
    }
}
