//! The host process: runs a block of ranks, each a copy of the program
//! (`loader`) on a stack of its own (a `corosensei` coroutine), on one
//! thread. A rank runs until, inside an MPI call, it would sleep on its
//! doorbell (it *parks*: `transport::hosting`'s hook suspends it), its
//! `MPI_Test` found nothing (it yields), or it ends (`main` returns, or
//! `exit` is called: the `vaced` executable that hosts us interposes `exit`
//! and calls [`vaced_rank_exit`]). The host then resumes the next ready rank
//! of its own, in the order they became ready; with none ready it sleeps in
//! the kernel on its own doorbell until a rank of its is rung.
//!
//! Timing is the default mode's: a rank's computation is the CPU time of
//! the host thread between its MPI calls, and a switch happens only inside
//! a call, so the CPU clock between two of a rank's calls counts its own
//! computation only.
//!
//! A rank that ends without MPI_Finalize ends its host at once with the
//! rank's status (the launcher names the rank: the host publishes it as
//! the rank it runs), as a rank process would end.
use super::loader::{Copy, Image};
use super::local::{self, Store};
use crate::transport::hosting;
use crate::transport::{RankState, Segment};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::cell::Cell;
use std::collections::VecDeque;
use std::ffi::{c_char, c_int, CString, OsString};
use std::os::unix::ffi::OsStrExt;

/// The environment variable that makes a `vaced` process a host: the
/// first of its ranks and how many (`<first>,<count>`).
pub const ENV_HOSTED: &str = "VACED_HOSTED";
/// The `argv[0]` the ranks get.
pub const ENV_HOST_ARGV0: &str = "VACED_HOST_ARGV0";

/// Why a rank's context gave the host its thread back.
enum Stop {
    /// It waits for its doorbell.
    Parked,
    /// It lets the others run first (it is still ready).
    Yielded,
    /// It called `exit` with this status.
    Exited(c_int),
}

type RankCo = Coroutine<(), Stop, c_int, DefaultStack>;

thread_local! {
    /// The running rank's yielder (null while the host itself runs).
    static YIELDER: Cell<*const Yielder<(), Stop>> = const { Cell::new(std::ptr::null()) };
}

fn suspend(why: Stop) {
    let y = YIELDER.get();
    assert!(!y.is_null(), "a rank suspended outside a rank context");
    // SAFETY: YIELDER is set by the running rank's coroutine to its own
    // yielder, which lives on that coroutine's stack while it runs (and is
    // reset by the host whenever a rank gives the thread back).
    let y = unsafe { &*y };
    y.suspend(why);
    YIELDER.set(y as *const _);
}

fn park() {
    suspend(Stop::Parked)
}

fn yield_now() {
    suspend(Stop::Yielded)
}

/// The hosting `vaced` executable's `exit`, while a host runs: a rank that
/// calls `exit` ends (its context is never resumed); anywhere else (the
/// host itself, or a rank whose job is being aborted) this returns and the
/// caller exits the process.
#[no_mangle]
pub extern "C" fn vaced_rank_exit(code: c_int) {
    if YIELDER.get().is_null() {
        return;
    }
    if let Some(r) = local::hosted_rank() {
        if let Some(seg) = HOST_SEG.get() {
            // SAFETY: set once by `run` to a segment it keeps alive.
            let seg = unsafe { &*seg };
            if seg.slot(r).state() == RankState::Aborted {
                return;
            }
        }
    }
    crate::abi::session::close_left_open();
    suspend(Stop::Exited(code));
    unreachable!("an exited rank was resumed");
}

/// The hosting executable's `pthread_create` and `fork`, while a host
/// runs: called from a rank, the job ends with the rank and the call named
/// (the mode runs every rank on its host's one thread, and a fork would
/// copy every rank of the host); anywhere else this returns 0 and the
/// caller goes on with the real call.
///
/// # Safety
/// `call` is a C string.
#[no_mangle]
pub unsafe extern "C" fn vaced_rank_refuse(call: *const c_char) -> c_int {
    if YIELDER.get().is_null() {
        return 0;
    }
    // SAFETY: the executable passes a C string literal.
    let call = unsafe { std::ffi::CStr::from_ptr(call) }.to_string_lossy();
    let msg = format!(
        "{call}: the program starts a thread or a process, which the many-ranks mode \
         (--ranks-per-process) cannot host (its ranks share one thread and one process); \
         run it with one process per rank"
    );
    let rank = local::hosted_rank();
    match (rank, HOST_SEG.get()) {
        (Some(r), Some(seg)) => {
            // SAFETY: as in `vaced_rank_exit`.
            let slot = unsafe { &*seg }.slot(r);
            slot.set_abort_message(&msg);
            slot.set_abort(1);
        }
        _ => eprintln!("vaced: {msg}"),
    }
    std::process::exit(1)
}

thread_local! {
    static HOST_SEG: Cell<Option<*const Segment>> = const { Cell::new(None) };
}

/// A rank's argv, leaked.
struct Argv(*mut *mut c_char);

extern "C" {
    /// The process's environment (POSIX).
    static mut environ: *mut *mut c_char;
}

/// A rank's own environment: the host's, with `VACED_RANK` set to the rank
/// (as a rank process has it), leaked. The host swaps `environ` on every
/// switch, so each rank's `getenv` / `setenv` see and change its own.
fn rank_environ(rank: u32) -> *mut *mut c_char {
    let var = crate::launch::job::ENV_RANK;
    let mut env: Vec<*mut c_char> = Vec::new();
    for (k, v) in std::env::vars_os() {
        if k == var {
            continue;
        }
        let mut kv = k.as_bytes().to_vec();
        kv.push(b'=');
        kv.extend_from_slice(v.as_bytes());
        if let Ok(c) = CString::new(kv) {
            env.push(c.into_raw());
        }
    }
    env.push(
        CString::new(format!("{var}={rank}"))
            .expect("no NUL")
            .into_raw(),
    );
    env.push(std::ptr::null_mut());
    Box::leak(env.into_boxed_slice()).as_mut_ptr()
}

struct Hosted {
    rank: u32,
    env: *mut *mut c_char,
    store: &'static Store,
    co: Option<RankCo>,
    queued: bool,
}

/// The host's entry, called by the `vaced` executable once it loaded the
/// program's libraries (through which it found us). Never returns: exits
/// the process with the ranks' status.
#[no_mangle]
pub extern "C" fn vaced_host_main() -> c_int {
    let status = run().unwrap_or_else(|e| {
        eprintln!("vaced: host process: {e}");
        127
    });
    // libc's exit, not std's: a rank that ended by calling exit left std's
    // own exit marked as running (it never returned).
    // SAFETY: exit runs the exit handlers and flushes stdio; it does not
    // return.
    unsafe { libc::exit(status) }
}

/// `<first>,<count>[,shared]` of [`ENV_HOSTED`]: the block of ranks, and
/// whether the host shares the job's core tokens with the other hosts
/// (there are more hosts than cores).
fn parse_block(spec: &str) -> Option<(u32, u32, bool)> {
    let mut parts = spec.split(',');
    let first = parts.next()?.parse().ok()?;
    let count = parts.next()?.parse().ok()?;
    let shared = match parts.next() {
        None => false,
        Some("shared") => true,
        Some(_) => return None,
    };
    (count > 0 && parts.next().is_none()).then_some((first, count, shared))
}

/// Where host process `pid` writes the program's copies while they load
/// (the launcher removes what a host killed meanwhile left there).
pub fn copies_dir_of(pid: u32, first: u32) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("vaced-host-{pid}-{first}"))
}

fn run() -> Result<c_int, String> {
    let spec = std::env::var(ENV_HOSTED).map_err(|_| format!("{ENV_HOSTED} is not set"))?;
    let (first, count, shared) = parse_block(&spec)
        .ok_or_else(|| format!("{ENV_HOSTED}={spec:?}: want <first>,<count>[,shared]"))?;
    let argv0 = std::env::var_os(ENV_HOST_ARGV0);
    // Nothing the ranks start may see these.
    std::env::remove_var(ENV_HOSTED);
    std::env::remove_var(ENV_HOST_ARGV0);
    let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if args.is_empty() {
        return Err("no program to run".into());
    }
    let program = std::path::PathBuf::from(args.remove(0));
    let argv0 = argv0.unwrap_or_else(|| program.clone().into_os_string());
    let seg_name = std::env::var("VACED_SEGMENT").map_err(|_| "VACED_SEGMENT is not set")?;
    let seg = Segment::attach(&seg_name)
        .map_err(|e| format!("cannot attach to the job's segment {seg_name}: {e}"))?;
    if first
        .checked_add(count)
        .is_none_or(|end| end > seg.nranks())
    {
        return Err(format!(
            "{ENV_HOSTED}={spec}: the job has {} ranks",
            seg.nranks()
        ));
    }
    let seg: &'static Segment = Box::leak(Box::new(seg));
    HOST_SEG.set(Some(seg as *const Segment));

    let dir = copies_dir_of(std::process::id(), first);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let copies: Result<Vec<Copy>, String> = Image::open(&program).and_then(|image| {
        (first..first + count)
            .map(|r| image.load(&dir, r))
            .collect()
    });
    let _ = std::fs::remove_dir_all(&dir);
    let copies = copies?;

    local::set_program_args(
        std::iter::once(argv0.clone())
            .chain(args.iter().cloned())
            .collect(),
    );
    let stack_size = rank_stack_size();
    let mut ranks = Vec::with_capacity(count as usize);
    for (i, copy) in copies.into_iter().enumerate() {
        let rank = first + i as u32;
        // The rank's own argv (main may change it), NULL-terminated, kept
        // for the life of the process: runtimes keep pointers into it (the
        // Fortran runtime's command line is the last rank's to start).
        let mut argv: Vec<*mut c_char> = Vec::with_capacity(args.len() + 2);
        for a in std::iter::once(&argv0).chain(&args) {
            let c = CString::new(a.as_bytes())
                .map_err(|_| format!("an argument holds a NUL byte: {a:?}"))?;
            argv.push(c.into_raw());
        }
        let argc = argv.len() as c_int;
        argv.push(std::ptr::null_mut());
        let argv = Argv(Box::leak(argv.into_boxed_slice()).as_mut_ptr());
        let stack = DefaultStack::new(stack_size)
            .map_err(|e| format!("cannot allocate rank {rank}'s stack: {e}"))?;
        let main = copy.main;
        let co = Coroutine::with_stack(stack, move |y: &Yielder<(), Stop>, ()| {
            YIELDER.set(y as *const _);
            let argv = argv;
            // SAFETY: main is the copy's entry point with C's signature;
            // argv is a leaked, NULL-terminated array of C strings, and
            // environ the rank's own (the host set it before resuming).
            let code = unsafe { main(argc, argv.0, environ) };
            // what the process's exit would do for this rank
            crate::abi::session::close_left_open();
            code
        });
        let store = Store::leak_for(rank);
        // The library finds the Fortran COMMON blocks and callbacks the
        // program defines in the rank's own copy.
        store.set_program_handle(copy.handle);
        ranks.push(Hosted {
            rank,
            env: rank_environ(rank),
            store,
            co: Some(co),
            queued: true,
        });
    }
    hosting::set_hooks(park, yield_now);
    let tokens = shared.then(|| HostToken::take(seg, first));
    let status = schedule(seg, first, tokens.as_ref(), &mut ranks);
    // Ranks still suspended (the host ends early when a rank ended without
    // MPI_Finalize) keep their stacks: dropping a coroutine would unwind
    // through the program's frames. The process exits next.
    std::mem::forget(ranks);
    status
}

/// A host's core token, when hosts share the job's tokens (more hosts than
/// cores): held while one of its ranks runs, given back while none can.
/// Its place in the token queue is its first rank's slot (a hosted rank's
/// port takes no token of its own).
struct HostToken<'a> {
    seg: &'a Segment,
    first: u32,
}

impl<'a> HostToken<'a> {
    /// Join the token queue and wait for a token.
    fn take(seg: &'a Segment, first: u32) -> HostToken<'a> {
        hosting::join_tokens(seg, first, std::process::id());
        hosting::take_token(seg, first);
        HostToken { seg, first }
    }
    /// No rank can run: give the token back, sleep until one can, take a
    /// token again.
    fn idle(&self) {
        hosting::give_token(self.seg, self.first);
        hosting::wait_ready(self.seg, self.first);
        hosting::take_token(self.seg, self.first);
    }
    /// A rank let the others run first: so does the host, if another host
    /// waits for a token.
    fn yield_(&self) {
        hosting::yield_token(self.seg, self.first);
    }
}

impl Drop for HostToken<'_> {
    fn drop(&mut self) {
        hosting::give_token(self.seg, self.first);
    }
}

/// Run the ranks until every one has ended; the host's exit status.
fn schedule(
    seg: &Segment,
    first: u32,
    token: Option<&HostToken>,
    ranks: &mut [Hosted],
) -> Result<c_int, String> {
    let mut runq: VecDeque<usize> = (0..ranks.len()).collect();
    let mut ready = Vec::new();
    let mut left = ranks.len();
    let mut status: Option<(u32, c_int)> = None;
    while left > 0 {
        ready.clear();
        hosting::take_ready(seg, first, &mut ready);
        for &r in &ready {
            let h = &mut ranks[(r - first) as usize];
            if h.co.is_some() && !h.queued {
                h.queued = true;
                runq.push_back((r - first) as usize);
            }
        }
        let Some(i) = runq.pop_front() else {
            hosting::set_current(seg, first, None);
            match token {
                Some(t) => t.idle(),
                None => hosting::wait_ready(seg, first),
            }
            continue;
        };
        let h = &mut ranks[i];
        h.queued = false;
        let Some(co) = h.co.as_mut() else {
            continue;
        };
        hosting::set_current(seg, first, Some(h.rank));
        local::enter(Some(h.store));
        // SAFETY: the host is the process's only thread; `environ` is
        // swapped between whole environments (the rank may have replaced
        // its own with setenv: it is taken back after the switch).
        let host_env = unsafe { std::mem::replace(&mut *std::ptr::addr_of_mut!(environ), h.env) };
        let step = co.resume(());
        // SAFETY: as above.
        h.env = unsafe { std::mem::replace(&mut *std::ptr::addr_of_mut!(environ), host_env) };
        YIELDER.set(std::ptr::null());
        local::enter(None);
        let code = match step {
            CoroutineResult::Yield(Stop::Parked) => continue,
            CoroutineResult::Yield(Stop::Yielded) => {
                h.queued = true;
                runq.push_back(i);
                if let Some(t) = token {
                    t.yield_();
                }
                continue;
            }
            CoroutineResult::Yield(Stop::Exited(c)) => {
                // Its stack holds the frames of `exit`'s caller: never
                // resumed, never unwound.
                std::mem::forget(h.co.take());
                c
            }
            CoroutineResult::Return(c) => {
                h.co = None;
                c
            }
        };
        left -= 1;
        if seg.slot(h.rank).state() != RankState::Finalized {
            // Ended without MPI_Finalize: the job cannot go on.
            return Ok(code);
        }
        if code != 0 && status.is_none() {
            status = Some((h.rank, code));
        }
    }
    match status {
        Some((rank, code)) => {
            hosting::set_current(seg, first, Some(rank));
            Ok(code)
        }
        None => {
            hosting::set_current(seg, first, None);
            Ok(0)
        }
    }
}

/// Each rank's stack: the size the program's main thread would get (the
/// soft stack limit; 8 MiB when unlimited or unknown).
fn rank_stack_size() -> usize {
    const DEFAULT: usize = 8 << 20;
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into `lim`.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut lim) };
    if rc != 0 || lim.rlim_cur == libc::RLIM_INFINITY || lim.rlim_cur == 0 {
        DEFAULT
    } else {
        (lim.rlim_cur as usize).clamp(256 << 10, 1 << 30)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_parse() {
        assert_eq!(parse_block("0,4"), Some((0, 4, false)));
        assert_eq!(parse_block("512,512"), Some((512, 512, false)));
        assert_eq!(parse_block("8,4,shared"), Some((8, 4, true)));
        assert_eq!(parse_block("8,4,other"), None);
        assert_eq!(parse_block("8,4,shared,x"), None);
        assert_eq!(parse_block("3,0"), None);
        assert_eq!(parse_block("3"), None);
        assert_eq!(parse_block("a,2"), None);
    }
}
