//! Host process control for the launcher (signal masks, waitpid, kill,
//! rusage, parent-death signal, subreaper, fork and inherited descriptors for
//! start-up by forking), wrapped safely so that `launch` itself has no unsafe
//! code.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitStatus {
    /// `exit(code)`.
    Exited(i32),
    /// Killed by signal `sig`.
    Signaled { sig: i32, core: bool },
}

fn decode(status: libc::c_int) -> Option<WaitStatus> {
    if libc::WIFEXITED(status) {
        Some(WaitStatus::Exited(libc::WEXITSTATUS(status)))
    } else if libc::WIFSIGNALED(status) {
        Some(WaitStatus::Signaled {
            sig: libc::WTERMSIG(status),
            core: libc::WCOREDUMP(status),
        })
    } else {
        None // stopped / continued: not an end
    }
}

/// Peak resident sizes (KiB) of every child reaped here, summed.
static REAPED_MAXRSS_KIB: AtomicU64 = AtomicU64::new(0);

/// The peak resident set sizes of every child reaped through this module,
/// summed, in bytes: an upper bound on their peak memory together (pages
/// they shared count once per child, and their peaks need not coincide).
pub fn reaped_maxrss_sum() -> u64 {
    REAPED_MAXRSS_KIB
        .load(Ordering::Relaxed)
        .saturating_mul(1024)
}

fn waitpid(pid: libc::pid_t, flags: libc::c_int) -> io::Result<Option<(u32, WaitStatus)>> {
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: an all-zero rusage is a valid value of this plain C struct.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: wait4 only writes the status int and the rusage we own.
        let r = unsafe { libc::wait4(pid, &mut status, flags, &mut ru) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if r == 0 {
            return Ok(None);
        }
        match decode(status) {
            Some(s) => {
                REAPED_MAXRSS_KIB.fetch_add(ru.ru_maxrss.max(0) as u64, Ordering::Relaxed);
                return Ok(Some((r as u32, s)));
            }
            // A stop/continue report (not asked for, but harmless): look again.
            None => continue,
        }
    }
}

/// Reap one ended child of process group `pgid`, without blocking.
/// `Ok(None)`: none has ended yet; `Err(ECHILD)`: no child left in the group.
pub fn try_wait_group(pgid: u32) -> io::Result<Option<(u32, WaitStatus)>> {
    waitpid(-(pgid as libc::pid_t), libc::WNOHANG)
}

/// Wait for one child of process group `pgid` to end and reap it;
/// `Err(ECHILD)` once the group has no child of ours left.
pub fn wait_group(pgid: u32) -> io::Result<(u32, WaitStatus)> {
    match waitpid(-(pgid as libc::pid_t), 0)? {
        Some(x) => Ok(x),
        None => Err(io::Error::other("waitpid returned no status")),
    }
}

/// Does any process (zombies included) still belong to group `pgid`?
pub fn group_exists(pgid: u32) -> bool {
    // SAFETY: signal 0 only checks for existence; pgid > 1 is a single group.
    pgid > 1 && unsafe { libc::killpg(pgid as libc::pid_t, 0) } == 0
}

/// Become the reaper of our descendants' orphans (PR_SET_CHILD_SUBREAPER), so
/// a rank's own children that outlive it are still ours to kill and reap.
pub fn become_subreaper() {
    // SAFETY: prctl with integer arguments only; no memory is passed.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) };
}

/// Reap child `pid` if it has ended, without blocking.
pub fn try_wait_pid(pid: u32) -> io::Result<Option<WaitStatus>> {
    Ok(waitpid(pid as libc::pid_t, libc::WNOHANG)?.map(|(_, s)| s))
}

/// Wait for child `pid` to end and reap it.
pub fn wait_pid(pid: u32) -> io::Result<WaitStatus> {
    match waitpid(pid as libc::pid_t, 0)? {
        Some((_, s)) => Ok(s),
        None => Err(io::Error::other("waitpid returned no status")),
    }
}

/// Send `sig` to every process of group `pgid` (errors such as "no such group" ignored).
pub fn kill_group(pgid: u32, sig: i32) {
    if pgid > 1 {
        // SAFETY: killpg has no memory effects; pgid > 1 so it never targets
        // our own group (0) or every process (-1).
        unsafe { libc::killpg(pgid as libc::pid_t, sig) };
    }
}

/// Send `sig` to process `pid` (which must be an unreaped child of ours, so the
/// pid cannot have been reused).
pub fn kill_pid(pid: u32, sig: i32) {
    if pid > 1 {
        // SAFETY: kill has no memory effects; pid > 1 is a single process.
        unsafe { libc::kill(pid as libc::pid_t, sig) };
    }
}

/// Our own process id.
pub fn getpid() -> u32 {
    std::process::id()
}

/// User + system CPU time of all reaped children (and theirs), in nanoseconds.
pub fn children_cpu_ns() -> u64 {
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes only into `ru`, which we own.
    let r = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    if r != 0 {
        return 0;
    }
    let tv_ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1_000;
    tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime)
}

/// A set of signals that this thread keeps blocked so it can take them with
/// [`SignalSet::wait`] instead of through handlers.
pub struct SignalSet {
    set: libc::sigset_t,
}

impl SignalSet {
    /// Block `sigs` in the calling thread (threads it starts later inherit that).
    pub fn block(sigs: &[i32]) -> io::Result<SignalSet> {
        // SAFETY: an all-zero sigset_t is valid storage; sigemptyset initialises it.
        let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: `set` is our own sigset_t; sigemptyset/sigaddset only write it.
        unsafe { libc::sigemptyset(&mut set) };
        for &s in sigs {
            // SAFETY: as above.
            if unsafe { libc::sigaddset(&mut set, s) } != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        // SAFETY: pthread_sigmask reads `set`; the old mask is not wanted (null).
        let r = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        Ok(SignalSet { set })
    }

    /// Take one pending signal of the set, waiting at most `timeout`.
    pub fn wait(&self, timeout: Duration) -> Option<i32> {
        let ts = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        // SAFETY: sigtimedwait reads our set and timespec; the siginfo is not wanted.
        let r = unsafe { libc::sigtimedwait(&self.set, std::ptr::null_mut(), &ts) };
        (r > 0).then_some(r)
    }

    /// Take one pending signal of the set if there is one, without waiting.
    pub fn poll(&self) -> Option<i32> {
        self.wait(Duration::ZERO)
    }
}

/// Make a child spawned by `cmd` die with SIGKILL when this thread ends
/// (PR_SET_PDEATHSIG), and refuse to start if we are already gone.
/// Also restores SIGTTIN to its default action in the child.
pub fn die_with_parent(cmd: &mut Command) {
    let parent = getpid() as libc::pid_t;
    let hook = move || -> io::Result<()> {
        // SAFETY: only async-signal-safe calls (prctl, getppid, signal) between
        // fork and exec, touching no memory of the parent.
        unsafe {
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                return Err(io::Error::other("the launcher has exited"));
            }
            libc::signal(libc::SIGTTIN, libc::SIG_DFL);
        }
        Ok(())
    };
    // SAFETY: the hook above is async-signal-safe and allocation-free on its
    // success path, as pre_exec requires.
    unsafe { cmd.pre_exec(hook) };
}

/// Let `cmd`'s child keep `fd` open across exec (clear its close-on-exec flag
/// in the child only).
pub fn keep_fd_across_exec(cmd: &mut Command, fd: RawFd) {
    let hook = move || -> io::Result<()> {
        // SAFETY: fcntl is async-signal-safe and touches only the descriptor
        // table of the child.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags < 0 || libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    };
    // SAFETY: the hook above is async-signal-safe and allocation-free on its
    // success path, as pre_exec requires.
    unsafe { cmd.pre_exec(hook) };
}

/// Take ownership of descriptor `fd` inherited through exec (it is then
/// closed on exec again); `None` if no such descriptor is open.
pub fn adopt_fd(fd: RawFd) -> Option<OwnedFd> {
    if fd < 3 {
        return None;
    }
    // SAFETY: F_GETFD only queries the descriptor table.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
    if flags < 0 {
        return None;
    }
    // SAFETY: as above; setting FD_CLOEXEC on an open descriptor.
    unsafe { libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC) };
    // SAFETY: `fd` is open and was handed to this process to own (the
    // launcher gave it to us alone through the environment).
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Wait until `fd` is readable (data or end of file), at most `timeout`.
pub fn wait_readable(fd: &impl AsRawFd, timeout: Duration) -> io::Result<bool> {
    let mut p = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = timeout.as_millis().min(i32::MAX as u128) as libc::c_int;
    // SAFETY: poll reads and writes only the one pollfd we own.
    let r = unsafe { libc::poll(&mut p, 1, ms) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok(false);
        }
        return Err(e);
    }
    Ok(r > 0)
}

/// Proof that the process had a single thread when checked; whoever holds it
/// must start no thread while it forks with it (it is neither Send nor Sync).
pub struct SingleThreaded(std::marker::PhantomData<*const ()>);

impl SingleThreaded {
    /// `Err` if the process has more than one thread.
    pub fn check() -> io::Result<SingleThreaded> {
        let threads = thread_count()?;
        if threads != 1 {
            return Err(io::Error::other(format!(
                "cannot fork a process with {threads} threads"
            )));
        }
        Ok(SingleThreaded(std::marker::PhantomData))
    }

    /// Fork the calling process: `Ok(Some(pid))` in the parent, `Ok(None)` in
    /// the child (which is single-threaded too).
    pub fn fork(&self) -> io::Result<Option<u32>> {
        // SAFETY: the process has one thread (`self` proves it was checked
        // and no thread was started since), so the child is a complete copy
        // in which every lock is free; glibc's fork resets its own internal
        // state in the child.
        let pid = unsafe { libc::fork() };
        match pid {
            p if p < 0 => Err(io::Error::last_os_error()),
            0 => Ok(None),
            p => Ok(Some(p as u32)),
        }
    }
}

/// Threads of the calling process (from /proc/self/stat).
pub fn thread_count() -> io::Result<u32> {
    let s = std::fs::read_to_string("/proc/self/stat")?;
    s.rsplit(')')
        .next()
        .and_then(|rest| rest.split_whitespace().nth(17))
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| io::Error::other("cannot read the thread count in /proc/self/stat"))
}

/// End the calling process at once: no atexit handlers, no destructors, no
/// stdio flush (for a forked helper that must not run the program's exit code).
pub fn exit_now(code: i32) -> ! {
    // SAFETY: _exit never returns and touches no memory of ours.
    unsafe { libc::_exit(code) }
}

/// Our parent's process id.
pub fn parent_pid() -> u32 {
    // SAFETY: getppid has no arguments and cannot fail.
    unsafe { libc::getppid() as u32 }
}

/// The parent of process `pid` (from /proc), if it still runs.
pub fn parent_of(pid: u32) -> Option<u32> {
    stat_after_comm(pid)?.split(' ').nth(1)?.parse().ok()
}

/// Every process's pid (the numeric entries of /proc).
pub fn pids() -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .collect()
}

/// The processes whose parent is `pid` (from /proc).
pub fn children_of(pid: u32) -> Vec<u32> {
    pids()
        .into_iter()
        .filter(|&c| parent_of(c) == Some(pid))
        .collect()
}

/// Whether some entry (`NAME=VALUE`) of process `pid`'s environment, from
/// /proc, satisfies `want` (false if it cannot be read).
pub fn environ_has(pid: u32, want: impl FnMut(&[u8]) -> bool) -> bool {
    std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| env.split(|&c| c == 0).any(want))
}

/// Whether process `pid` still runs (from /proc; a zombie does not: its
/// memory is gone).
pub fn running(pid: u32) -> bool {
    stat_after_comm(pid)
        .and_then(|rest| rest.chars().next())
        .is_some_and(|state| state != 'Z' && state != 'X')
}

/// `/proc/PID/stat` after the command's closing parenthesis and its space
/// (`state ppid ...`); the command may hold spaces and parentheses.
fn stat_after_comm(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(stat.rsplit_once(") ")?.1.to_string())
}

/// Die with SIGKILL when our parent thread ends (PR_SET_PDEATHSIG); false if
/// our parent is no longer `parent` (it may have ended before the request).
pub fn die_with(parent: u32) -> bool {
    // SAFETY: prctl with integer arguments only.
    let r = unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        )
    };
    r == 0 && parent_pid() == parent
}

/// Sleep until our parent `parent` has exited and we have been handed to our
/// reaper (the kernel reparents us before it sends the parent-death signal,
/// which is what we wait for). Returns at once if `parent` is already gone.
/// The signal mask and the parent-death signal are left as they were found
/// (the latter cleared).
///
/// The signal is SIGURG, whose default action is to ignore it: the kernel
/// reparents us and then sends it, so we may see the new parent, stop
/// waiting and unblock the signal before it is sent; a late SIGUSR2 (used
/// before) then killed the rank (seen once in tests/failures.rs).
pub fn wait_parent_exit(parent: u32) -> io::Result<()> {
    const SIG: i32 = libc::SIGURG;
    // SAFETY: all-zero sigset_t values are valid storage, initialised below.
    let (mut set, mut old): (libc::sigset_t, libc::sigset_t) =
        unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
    // SAFETY: the sigset functions write only `set`; pthread_sigmask reads
    // `set` and writes `old`, both ours.
    let r = unsafe {
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, SIG);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old)
    };
    if r != 0 {
        return Err(io::Error::from_raw_os_error(r));
    }
    // SAFETY: prctl with integer arguments only.
    let armed = unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, SIG as libc::c_ulong, 0, 0, 0) };
    let result = if armed != 0 {
        Err(io::Error::last_os_error())
    } else {
        // Armed before this check: if the parent is still there, its exit
        // will send the signal.
        while parent_pid() == parent {
            // SAFETY: sigwaitinfo reads `set`; the siginfo is not wanted.
            let got = unsafe { libc::sigwaitinfo(&set, std::ptr::null_mut()) };
            if got == SIG {
                break;
            }
        }
        Ok(())
    };
    // SAFETY: as above; restoring the mask we saved, after taking a
    // pending SIG (a zero timeout: sigtimedwait only reads `set` and `zero`).
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, 0 as libc::c_ulong, 0, 0, 0);
        let zero = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        libc::sigtimedwait(&set, std::ptr::null_mut(), &zero);
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
    }
    result
}

/// Have `cmd`'s child write `bytes` to `fd` before exec (e.g. "0" to a
/// cgroup's `cgroup.procs`, which moves the writer there); the spawn fails
/// if the write does.
pub fn write_at_exec(cmd: &mut Command, fd: RawFd, bytes: &'static [u8]) {
    let hook = move || -> io::Result<()> {
        // SAFETY: write is async-signal-safe; `bytes` is static memory.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n != bytes.len() as isize {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    };
    // SAFETY: the hook above is async-signal-safe and allocation-free on its
    // success path, as pre_exec requires.
    unsafe { cmd.pre_exec(hook) };
}

/// Make `fd` our standard input (dup2 onto descriptor 0).
pub fn set_stdin(fd: &impl AsRawFd) -> io::Result<()> {
    // SAFETY: dup2 only changes our descriptor table; descriptor 0 is ours to
    // replace (nothing in this process holds it as an owned handle).
    if unsafe { libc::dup2(fd.as_raw_fd(), 0) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Let reads of a background terminal fail with EIO instead of stopping us.
pub fn ignore_sigttin() {
    // SAFETY: setting a signal's disposition to SIG_IGN installs no handler code.
    unsafe { libc::signal(libc::SIGTTIN, libc::SIG_IGN) };
}

/// A child's exit status as a shell gives it: its exit code, or 128 plus
/// the signal that killed it.
pub fn shell_status(status: &std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_parent_is_read_from_proc() {
        assert_eq!(parent_of(getpid()), Some(parent_pid()));
        assert_eq!(parent_of(u32::MAX), None);
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        assert!(children_of(getpid()).contains(&child.id()));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!children_of(getpid()).contains(&child.id()));
    }

    // The children are reaped by our own wait_pid, which clippy cannot see.
    #[test]
    #[allow(clippy::zombie_processes)]
    fn waits_decode_exit_codes_and_signals() {
        let c = Command::new("/bin/sh")
            .args(["-c", "exit 7"])
            .spawn()
            .unwrap();
        assert_eq!(wait_pid(c.id()).unwrap(), WaitStatus::Exited(7));
        let c = Command::new("/bin/sh")
            .args(["-c", "kill -TERM $$"])
            .spawn()
            .unwrap();
        assert_eq!(
            wait_pid(c.id()).unwrap(),
            WaitStatus::Signaled {
                sig: libc::SIGTERM,
                core: false
            }
        );
    }

    #[test]
    #[allow(clippy::zombie_processes)]
    fn try_wait_does_not_block() {
        let c = Command::new("/bin/sleep").arg("5").spawn().unwrap();
        assert_eq!(try_wait_pid(c.id()).unwrap(), None);
        kill_pid(c.id(), libc::SIGKILL);
        assert_eq!(
            wait_pid(c.id()).unwrap(),
            WaitStatus::Signaled {
                sig: libc::SIGKILL,
                core: false
            }
        );
    }
}
