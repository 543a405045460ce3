//! The MPI tools information interface (MPI_T, MPI-3.1 chapter 14): the
//! registry of vaced's control variables (the target's settings, read-only),
//! performance variables (the rank's counters and virtual-time breakdown)
//! and categories, and the interface's own state: the reference count of
//! MPI_T_init_thread / MPI_T_finalize, cvar handles, pvar sessions and pvar
//! handles.
//!
//! Handles are opaque ids handed to C as pointer values (never
//! dereferenced); nothing here touches the network or virtual time: reading
//! a performance variable is local, it takes the values the abi layer reads
//! from the rank's engine ([`pvars::Snapshot`]).
//!
//! The registry does not change while a process runs (MPI_T_category_changed
//! always returns the same stamp). It is built at the first
//! MPI_T_init_thread from the target the job runs on (`VACED_TARGET`, as
//! MPI_Init reads it), so every variable can be queried before MPI_Init and
//! after MPI_Finalize.
pub mod categories;
pub mod cvars;
pub mod pvars;

use crate::model::Model;
use crate::ranks::local::RankLocal;
use crate::sys;
use std::collections::BTreeMap;
use std::os::raw::c_int;
use std::sync::{Mutex, MutexGuard, OnceLock};

/// An MPI_T error: one of the MPI_T_ERR_* classes (MPI_T calls return it
/// directly; error handlers do not apply to them).
pub type TResult<T> = Result<T, c_int>;

/// An enumeration (MPI_T_enum): its name and (name, value) items.
#[derive(Debug)]
pub struct EnumType {
    pub name: String,
    pub items: Vec<(String, c_int)>,
}

/// Everything MPI_T exposes, fixed for the life of the process.
#[derive(Debug)]
pub struct Registry {
    pub enums: Vec<EnumType>,
    pub cvars: Vec<cvars::Cvar>,
    pub pvars: Vec<pvars::Pvar>,
    pub categories: Vec<categories::Category>,
}

impl Registry {
    /// The registry of a process running on `model`, with the environment
    /// read through `env` (VACED_SYNC, VACED_COLL_*).
    pub fn new(model: &Model, env: impl Fn(&str) -> Option<String>) -> Registry {
        let mut enums = Vec::new();
        let cvars = cvars::all(model, &env, &mut enums);
        let pvars = pvars::all();
        let categories = categories::all(&cvars, &pvars);
        Registry {
            enums,
            cvars,
            pvars,
            categories,
        }
    }

    pub fn cvar(&self, i: c_int) -> TResult<&cvars::Cvar> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.cvars.get(i))
            .ok_or(sys::MPI_T_ERR_INVALID_INDEX)
    }
    pub fn pvar(&self, i: c_int) -> TResult<&pvars::Pvar> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.pvars.get(i))
            .ok_or(sys::MPI_T_ERR_INVALID_INDEX)
    }
    pub fn category(&self, i: c_int) -> TResult<&categories::Category> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.categories.get(i))
            .ok_or(sys::MPI_T_ERR_INVALID_INDEX)
    }
    /// The enumeration with handle `h` (see [`enum_handle`]).
    pub fn enum_type(&self, h: usize) -> TResult<&EnumType> {
        (h >= ENUM_BASE && (h - ENUM_BASE).is_multiple_of(HANDLE_STEP))
            .then(|| self.enums.get((h - ENUM_BASE) / HANDLE_STEP))
            .flatten()
            .ok_or(sys::MPI_T_ERR_INVALID_HANDLE)
    }
}

/// Handle values: multiples of HANDLE_STEP, so they look like (and are as
/// distinct as) aligned pointers; 0 is the null handle and 1 is
/// MPI_T_PVAR_ALL_HANDLES.
const HANDLE_STEP: usize = 16;
const ENUM_BASE: usize = 0x1000;
const FIRST_DYNAMIC: usize = 0x10_0000;

/// The handle of enumeration `i` of the registry.
pub fn enum_handle(i: usize) -> usize {
    ENUM_BASE + i * HANDLE_STEP
}

/// The value of MPI_T_PVAR_ALL_HANDLES.
pub const ALL_HANDLES: usize = 1;

/// The registry; None until the first MPI_T_init_thread. One for the
/// process, also in the many-ranks mode (`crate::ranks`): it describes the
/// job's target and settings (the environment's, which every rank of a
/// host shares), the same on every rank; the values of the performance
/// variables are read from the calling rank's engine.
static REGISTRY: OnceLock<Result<Registry, String>> = OnceLock::new();

/// Build (once) the registry of this process's target.
fn registry_init() -> TResult<&'static Registry> {
    REGISTRY
        .get_or_init(|| {
            let spec = std::env::var("VACED_TARGET").unwrap_or_else(|_| "tianhe1a".to_string());
            let model = Model::load(&spec).map_err(|e| e.to_string())?;
            Ok(Registry::new(&model, |v| std::env::var(v).ok()))
        })
        .as_ref()
        .map_err(|_| sys::MPI_T_ERR_CANNOT_INIT)
}

/// A pvar handle: which variable, in which session, and its session-local
/// value (accumulated over the intervals it was started, see
/// [`pvars`]).
#[derive(Debug)]
pub struct PvarHandle {
    pub session: usize,
    pub pvar: usize,
    pub running: bool,
    /// Value accumulated over finished intervals (or written).
    pub acc: u64,
    /// The variable's raw value when the current interval began.
    pub base: u64,
}

/// The interface's state: reference count and live handles.
#[derive(Debug, Default)]
pub struct State {
    pub refcount: u32,
    next: usize,
    /// cvar handle -> cvar index.
    pub cvar_handles: BTreeMap<usize, usize>,
    /// session -> its pvar handles, in allocation order.
    pub sessions: BTreeMap<usize, Vec<usize>>,
    pub pvar_handles: BTreeMap<usize, PvarHandle>,
}

impl State {
    /// A fresh handle value, never reused in this process.
    pub fn new_handle(&mut self) -> usize {
        if self.next < FIRST_DYNAMIC {
            self.next = FIRST_DYNAMIC;
        }
        let h = self.next;
        self.next += HANDLE_STEP;
        h
    }

    /// The registry, once MPI_T is initialized.
    pub fn registry(&self) -> TResult<&'static Registry> {
        if self.refcount == 0 {
            return Err(sys::MPI_T_ERR_NOT_INITIALIZED);
        }
        registry_init()
    }

    /// MPI_T_init_thread (counted).
    pub fn init(&mut self) -> TResult<()> {
        registry_init()?;
        self.refcount += 1;
        Ok(())
    }

    /// MPI_T_finalize: the last one frees every handle and session.
    pub fn finalize(&mut self) -> TResult<()> {
        if self.refcount == 0 {
            return Err(sys::MPI_T_ERR_NOT_INITIALIZED);
        }
        self.refcount -= 1;
        if self.refcount == 0 {
            self.cvar_handles.clear();
            self.sessions.clear();
            self.pvar_handles.clear();
        }
        Ok(())
    }
}

/// The rank's MPI_T state (its initializations, sessions and handles).
static STATE: RankLocal<Mutex<State>> = RankLocal::new(|| {
    Mutex::new(State {
        refcount: 0,
        next: 0,
        cvar_handles: BTreeMap::new(),
        sessions: BTreeMap::new(),
        pvar_handles: BTreeMap::new(),
    })
});

/// The interface's state (MPI_T calls may come from any thread).
pub fn state() -> MutexGuard<'static, State> {
    STATE.get().lock().unwrap_or_else(|p| p.into_inner())
}

/// Copy `s` into a C string buffer the MPI_T way: `len` is the buffer size
/// on input; with no buffer or a size of 0 only the length is returned.
/// Returns (bytes to copy, excluding the terminator, or None) and the
/// length to store (characters copied + 1, or the full length + 1).
pub fn string_out(s: &str, has_buf: bool, len: c_int) -> (Option<usize>, c_int) {
    if !has_buf || len <= 0 {
        return (None, s.len() as c_int + 1);
    }
    let n = s.len().min(len as usize - 1);
    (Some(n), n as c_int + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_cut_and_counted_with_the_terminator() {
        assert_eq!(string_out("abc", false, 10), (None, 4));
        assert_eq!(string_out("abc", true, 0), (None, 4));
        assert_eq!(string_out("abc", true, 10), (Some(3), 4));
        assert_eq!(string_out("abc", true, 2), (Some(1), 2));
    }

    #[test]
    fn refcounted_init_and_finalize() {
        let mut s = State::default();
        assert_eq!(s.registry().unwrap_err(), sys::MPI_T_ERR_NOT_INITIALIZED);
        assert_eq!(s.finalize(), Err(sys::MPI_T_ERR_NOT_INITIALIZED));
        s.init().unwrap();
        s.init().unwrap();
        let h = s.new_handle();
        s.cvar_handles.insert(h, 0);
        s.finalize().unwrap();
        assert_eq!(s.cvar_handles.len(), 1, "still initialized once");
        s.finalize().unwrap();
        assert!(s.cvar_handles.is_empty());
        assert!(s.registry().is_err());
    }
}
