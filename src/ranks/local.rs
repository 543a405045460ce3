//! Per-rank storage for the library's own state ("rank-local" statics).
//!
//! In the default mode a process is one rank, and a [`RankLocal`] is a plain
//! process-wide static, shared by the process's threads. In the many-ranks
//! mode (`mpirun --ranks-per-process`), one host thread runs many ranks as
//! user-level contexts and switches between them inside MPI calls: every
//! rank then has its own [`Store`], and the host makes the running rank's
//! store current before it resumes it ([`enter`]). A [`PerThread`] value is
//! a thread-local in the default mode (each thread that calls MPI has its
//! own) and per rank in the many-ranks mode (where each rank has one thread).
//!
//! Values are created on first use in each store and live as long as the
//! process (a rank's store is never freed: a rank that finished keeps its
//! results until the host exits), so `get` hands out `&'static` references.

use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Most rank-local statics the library may declare.
const MAX_KEYS: usize = 64;

/// One rank's values, by key (null: not created yet).
pub struct Store {
    vals: [AtomicPtr<()>; MAX_KEYS],
    /// The rank this store belongs to (many-ranks mode), else `None`.
    rank: Option<u32>,
    /// The `dlopen` handle of the rank's own copy of the program (null:
    /// none, symbols of the program are looked up with `RTLD_DEFAULT`).
    program: AtomicPtr<c_void>,
}

impl Store {
    /// A store for `rank` (many-ranks mode), leaked: it lives as long as
    /// the process.
    pub fn leak_for(rank: u32) -> &'static Store {
        Box::leak(Box::new(Store::new(Some(rank))))
    }

    const fn new(rank: Option<u32>) -> Store {
        Store {
            vals: [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_KEYS],
            rank,
            program: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// The host loaded this rank's copy of the program as `handle` (what
    /// `dlopen` returned): the library looks the program's symbols up there
    /// (e.g. the Fortran COMMON blocks of `abi::fortran::commons`). Set it
    /// before the rank runs: lookups are made once per rank, on first use.
    pub fn set_program_handle(&self, handle: *mut c_void) {
        self.program.store(handle, Ordering::Release);
    }
}

/// The process's store (the default mode, and any thread of a host that is
/// not running a rank).
static PROCESS: Store = Store::new(None);
/// Creation of values (first use of a key in a store) is serialized.
static CREATING: Mutex<()> = Mutex::new(());
/// Keys handed out so far.
static NEXT_KEY: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The store of the rank this thread runs now (null: the process's).
    static CURRENT: Cell<*const Store> = const { Cell::new(std::ptr::null()) };
}

/// Set once, by a host process before its first rank runs: only then can a
/// thread have a rank's store current, so the default mode never reads the
/// thread-local [`CURRENT`] (a call into the dynamic linker in a shared
/// library).
static HOST_PROCESS: AtomicBool = AtomicBool::new(false);

/// Whether this process is a host of the many-ranks mode.
fn host_process() -> bool {
    HOST_PROCESS.load(Ordering::Relaxed)
}

fn current() -> &'static Store {
    if !host_process() {
        return &PROCESS;
    }
    let p = CURRENT.get();
    if p.is_null() {
        &PROCESS
    } else {
        // SAFETY: only `enter` sets CURRENT, from a `&'static Store`.
        unsafe { &*p }
    }
}

/// Make `store` the calling thread's current store (the host, before it
/// resumes a rank); `None` goes back to the process's. Returns the previous.
pub fn enter(store: Option<&'static Store>) -> Option<&'static Store> {
    if store.is_some() {
        HOST_PROCESS.store(true, Ordering::Relaxed);
    }
    let prev = CURRENT.replace(store.map_or(std::ptr::null(), |s| s as *const Store));
    // SAFETY: as in `current`.
    (!prev.is_null()).then(|| unsafe { &*prev })
}

/// The rank the calling thread runs in the many-ranks mode (`None` in the
/// default mode, where the rank comes from the environment).
pub fn hosted_rank() -> Option<u32> {
    current().rank
}

/// The `dlopen` handle of the running rank's copy of the program (many-ranks
/// mode, once the host set it); `None` in the default mode, where the
/// program is the process's executable (look it up with `RTLD_DEFAULT`).
pub fn program_handle() -> Option<*mut c_void> {
    let p = current().program.load(Ordering::Acquire);
    (!p.is_null()).then_some(p)
}

/// The program's command line as its ranks see it (`argv[0]` first): the
/// process's own in the default mode; in a host process (whose own
/// command line is `vaced-host PROGRAM ARGS...`), what the host gives its
/// ranks ([`set_program_args`]).
pub fn program_args() -> Vec<std::ffi::OsString> {
    match PROGRAM_ARGS.get() {
        Some(a) => a.clone(),
        None => std::env::args_os().collect(),
    }
}

/// Set by a host process before its ranks start.
pub fn set_program_args(args: Vec<std::ffi::OsString>) {
    let _ = PROGRAM_ARGS.set(args);
}

static PROGRAM_ARGS: std::sync::OnceLock<Vec<std::ffi::OsString>> = std::sync::OnceLock::new();

/// Whether the calling thread runs a rank of the many-ranks mode.
pub fn hosted() -> bool {
    host_process() && !CURRENT.get().is_null()
}

/// A static with one value per rank (see the module's documentation).
pub struct RankLocal<T: 'static> {
    /// Key + 1 (0: not assigned yet).
    key: AtomicUsize,
    init: fn() -> T,
}

impl<T: Send + Sync + 'static> RankLocal<T> {
    pub const fn new(init: fn() -> T) -> RankLocal<T> {
        RankLocal {
            key: AtomicUsize::new(0),
            init,
        }
    }

    fn key(&self) -> usize {
        let k = self.key.load(Ordering::Acquire);
        if k != 0 {
            return k - 1;
        }
        let _g = CREATING.lock().unwrap_or_else(|e| e.into_inner());
        let k = self.key.load(Ordering::Acquire);
        if k != 0 {
            return k - 1;
        }
        let k = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
        assert!(k < MAX_KEYS, "more than {MAX_KEYS} rank-local statics");
        self.key.store(k + 1, Ordering::Release);
        k
    }

    /// The current rank's value (created on its first use).
    pub fn get(&'static self) -> &'static T {
        let store = current();
        let key = self.key();
        let p = store.vals[key].load(Ordering::Acquire);
        if !p.is_null() {
            // SAFETY: the pointer was made below from a leaked `Box<T>` for
            // this key, and each key belongs to one `RankLocal<T>`.
            return unsafe { &*(p as *const T) };
        }
        let _g = CREATING.lock().unwrap_or_else(|e| e.into_inner());
        let p = store.vals[key].load(Ordering::Acquire);
        if !p.is_null() {
            // SAFETY: as above.
            return unsafe { &*(p as *const T) };
        }
        let v: &'static T = Box::leak(Box::new((self.init)()));
        store.vals[key].store(v as *const T as *mut (), Ordering::Release);
        v
    }
}

/// A cell per thread in the default mode, per rank in the many-ranks mode.
pub struct PerThread<T: Copy + 'static> {
    thread: &'static std::thread::LocalKey<Cell<T>>,
    rank: RankLocal<RankCell<T>>,
}

/// A `Cell` that a rank of the many-ranks mode owns.
pub struct RankCell<T>(Cell<T>);

// SAFETY: a RankCell is only reached through `PerThread` in the many-ranks
// mode, where a rank runs on its host's one thread only (programs that start
// threads are refused there), so its cell is never touched by two threads.
unsafe impl<T> Sync for RankCell<T> {}

impl<T: Copy + Send + 'static> PerThread<T> {
    /// `thread` is the default mode's thread-local; `init` makes a rank's
    /// first value (the same as the thread-local's).
    pub const fn new(
        thread: &'static std::thread::LocalKey<Cell<T>>,
        init: fn() -> RankCell<T>,
    ) -> Self {
        PerThread {
            thread,
            rank: RankLocal::new(init),
        }
    }

    pub fn get(&'static self) -> T {
        if hosted() {
            self.rank.get().0.get()
        } else {
            self.thread.with(|c| c.get())
        }
    }

    pub fn set(&'static self, v: T) {
        if hosted() {
            self.rank.get().0.set(v)
        } else {
            self.thread.with(|c| c.set(v))
        }
    }

    pub fn replace(&'static self, v: T) -> T {
        if hosted() {
            self.rank.get().0.replace(v)
        } else {
            self.thread.with(|c| c.replace(v))
        }
    }
}

impl<T> RankCell<T> {
    pub const fn new(v: T) -> RankCell<T> {
        RankCell(Cell::new(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static COUNTER: RankLocal<AtomicUsize> = RankLocal::new(|| AtomicUsize::new(7));

    thread_local! {
        static TL: Cell<u32> = const { Cell::new(1) };
    }
    static PT: PerThread<u32> = PerThread::new(&TL, || RankCell::new(1));

    #[test]
    fn each_rank_store_has_its_own_values() {
        let a = Store::leak_for(3);
        let b = Store::leak_for(4);
        let prev = enter(Some(a));
        assert_eq!(hosted_rank(), Some(3));
        COUNTER.get().fetch_add(1, Ordering::Relaxed);
        PT.set(10);
        enter(Some(b));
        assert_eq!(hosted_rank(), Some(4));
        assert_eq!(COUNTER.get().load(Ordering::Relaxed), 7);
        assert_eq!(PT.get(), 1);
        PT.set(20);
        enter(Some(a));
        assert_eq!(COUNTER.get().load(Ordering::Relaxed), 8);
        assert_eq!(PT.get(), 10);
        enter(prev);
        assert!(!hosted());
        assert_eq!(hosted_rank(), None);
        assert_eq!(PT.get(), 1);
    }
}
