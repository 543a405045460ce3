//! Sleeping until another library's sockets to other hosts have something
//! for this rank, without polling them: the rank's waits across hosts
//! (the quiet hook's [`super::QUIET_HERE`]) hand the library's socket table
//! ([`set_sockets_hook`]) to a watcher thread of this process, which
//! blocks in `poll(2)` on them and rings the rank when one is ready.
//!
//! The handshake keeps the watcher from spinning on level-triggered
//! readiness: it rings only a rank that is *armed* (asleep for its
//! sockets) and disarms it in the same step (one compare-and-swap); a
//! socket still ready after that waits until the rank, having run the
//! library's progress, arms again. A new table (a connection made or
//! closed) interrupts the watcher's poll through an eventfd. The watcher
//! measures nothing and holds no core token; the rank's computation is
//! its own thread's CPU time, so the watcher is never charged to it.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::Segment;

/// The other library's socket table: it stores a pointer to its `pollfd`
/// table (the events its progress waits for set, negative descriptors
/// ignored) and returns the number of entries.
pub type SocketsHook = extern "C" fn(*mut *const libc::pollfd) -> c_int;

thread_local! {
    /// See [`set_sockets_hook`].
    static SOCKETS_HOOK: std::cell::Cell<Option<SocketsHook>> =
        const { std::cell::Cell::new(None) };
}

/// With `hook`, a wait across hosts sleeps until one of the library's
/// sockets is ready or the rank is rung, instead of napping ([`super::NET_NAP`]).
pub fn set_sockets_hook(hook: Option<SocketsHook>) {
    SOCKETS_HOOK.set(hook);
}

/// A copy of the calling thread's library's socket table, if it gave one.
pub(super) fn sockets() -> Option<Vec<libc::pollfd>> {
    let hook = SOCKETS_HOOK.get()?;
    let mut tbl: *const libc::pollfd = std::ptr::null();
    let n = usize::try_from(hook(&mut tbl)).ok()?;
    if n == 0 || tbl.is_null() {
        return Some(Vec::new());
    }
    // SAFETY: the hook's contract: `tbl` points to `n` initialized pollfd
    // entries, valid until the library's next progress on this thread,
    // which cannot run while we copy them.
    Some(unsafe { std::slice::from_raw_parts(tbl, n) }.to_vec())
}

/// The watcher of one process (one rank: the library is single-threaded).
pub(super) struct NetWatch {
    shared: Arc<Shared>,
    thread: std::thread::Thread,
}

struct Shared {
    /// The rank sleeps for its sockets; the watcher may ring it (once).
    armed: AtomicBool,
    /// The table to watch, and whether the watcher has yet to take it.
    table: Mutex<(Vec<libc::pollfd>, bool)>,
    /// Written when the table changes: interrupts the watcher's poll.
    interrupt: OwnedFd,
    seg: Segment,
    rank: u32,
}

static WATCH: OnceLock<Result<NetWatch, String>> = OnceLock::new();

/// This process's watcher for `rank` of `seg`, started on first use.
pub(super) fn watch(seg: &Segment, rank: u32) -> Result<&'static NetWatch, &'static str> {
    WATCH
        .get_or_init(|| NetWatch::start(seg.clone(), rank))
        .as_ref()
        .map_err(|e| e.as_str())
}

impl NetWatch {
    pub(super) fn start(seg: Segment, rank: u32) -> Result<NetWatch, String> {
        // SAFETY: eventfd takes no pointers; a non-negative result is a new
        // descriptor that we own.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(format!("eventfd: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: `fd` was just created and nothing else owns it.
        let interrupt = unsafe { OwnedFd::from_raw_fd(fd) };
        let shared = Arc::new(Shared {
            armed: AtomicBool::new(false),
            table: Mutex::new((Vec::new(), false)),
            interrupt,
            seg,
            rank,
        });
        let s = shared.clone();
        let handle = std::thread::Builder::new()
            .name("vaced-netwatch".into())
            .spawn(move || s.run())
            .map_err(|e| format!("starting the socket watcher: {e}"))?;
        Ok(NetWatch {
            shared,
            thread: handle.thread().clone(),
        })
    }

    /// The rank goes to sleep for `table`: the watcher rings it once one of
    /// them is ready ([`NetWatch::fired`] then holds).
    pub(super) fn arm(&self, table: Vec<libc::pollfd>) {
        {
            let mut t = self.shared.table.lock().unwrap_or_else(|e| e.into_inner());
            if !same_table(&t.0, &table) {
                *t = (table, true);
                self.shared.kick();
            }
        }
        self.shared.armed.store(true, Ordering::SeqCst);
        self.thread.unpark();
    }

    /// The watcher rang (disarmed) the rank since it last armed.
    pub(super) fn fired(&self) -> bool {
        !self.shared.armed.load(Ordering::SeqCst)
    }

    /// The rank woke (for any reason): the watcher must not ring it again
    /// until it arms.
    pub(super) fn disarm(&self) {
        self.shared.armed.store(false, Ordering::SeqCst);
    }
}

/// Same descriptors and events (`revents` aside).
fn same_table(a: &[libc::pollfd], b: &[libc::pollfd]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.fd == y.fd && x.events == y.events)
}

impl Shared {
    /// Interrupt the watcher's poll.
    fn kick(&self) {
        let one = 1u64.to_ne_bytes();
        // SAFETY: writes 8 bytes from a live buffer to our eventfd. A full
        // counter (EAGAIN) already interrupts: nothing is lost.
        unsafe { libc::write(self.interrupt.as_raw_fd(), one.as_ptr().cast(), 8) };
    }

    /// Empty the eventfd's counter.
    fn drain(&self) {
        let mut buf = [0u8; 8];
        // SAFETY: reads at most 8 bytes into a live buffer of 8; the
        // descriptor is non-blocking.
        unsafe { libc::read(self.interrupt.as_raw_fd(), buf.as_mut_ptr().cast(), 8) };
    }

    fn run(&self) {
        let mut fds: Vec<libc::pollfd> = Vec::new();
        loop {
            while !self.armed.load(Ordering::SeqCst) {
                std::thread::park();
            }
            {
                let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
                if t.1 || fds.is_empty() {
                    fds.clear();
                    fds.push(libc::pollfd {
                        fd: self.interrupt.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    });
                    fds.extend_from_slice(&t.0);
                    t.1 = false;
                }
            }
            // SAFETY: `fds` is a live array of `fds.len()` pollfd entries.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
            if n < 0 {
                // EINTR; anything else (ENOMEM) is tried again the same way
                continue;
            }
            if fds[0].revents != 0 {
                self.drain();
                if n == 1 {
                    continue;
                }
            }
            if self
                .armed
                .compare_exchange(true, false, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                super::wake_rank(&self.seg, self.rank);
            }
        }
    }
}
