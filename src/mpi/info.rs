//! Info objects (MPI_Info): ordered (key, value) lists of strings, and the
//! rank's handle table that holds them (the process's, one rank per
//! process by default; see `crate::ranks`). The table lives outside the
//! rank's MPI state (`World`) because MPI-4 lets programs use info
//! objects before MPI_Init and after MPI_Finalize; other modules (windows,
//! files, communicators) take and return info objects through
//! [`with_infos`] and [`Info`].
//!
//! Semantics follow MPICH 4.0.2: keys keep the order in which they were
//! first set (setting a key again replaces its value in place); keys are 1
//! to MPI_MAX_INFO_KEY (255) characters (MPI_ERR_INFO_KEY otherwise),
//! values at most MPI_MAX_INFO_VAL (1024) (MPI_ERR_INFO_VALUE); deleting a
//! missing key is MPI_ERR_INFO_NOKEY; MPI_INFO_NULL where an info object is
//! needed is MPI_ERR_ARG, a freed or unknown handle MPI_ERR_INFO.
//! MPI_INFO_ENV is predefined (its entries are given by the ABI layer,
//! [`InfoTable::set_env`]) and cannot be modified or freed.
use crate::mpi::error::{fail, MpiResult};
use crate::ranks::local::RankLocal;
use crate::sys::{self, MPI_Info};
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

/// Longest key (characters, without the C terminator).
pub const MAX_KEY: usize = sys::MPI_MAX_INFO_KEY as usize;
/// Longest value.
pub const MAX_VAL: usize = sys::MPI_MAX_INFO_VAL as usize;

/// An info object: (key, value) pairs in the order the keys were first set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    entries: Vec<(String, String)>,
}

/// Check a key: 1 to MPI_MAX_INFO_KEY characters.
pub fn check_key(key: &str) -> MpiResult<()> {
    if key.is_empty() {
        return fail(sys::MPI_ERR_INFO_KEY, "empty info key");
    }
    if key.len() > MAX_KEY {
        return fail(
            sys::MPI_ERR_INFO_KEY,
            format!(
                "info key of {} characters (at most MPI_MAX_INFO_KEY = {MAX_KEY})",
                key.len()
            ),
        );
    }
    Ok(())
}

/// Check a value: at most MPI_MAX_INFO_VAL characters.
pub fn check_value(value: &str) -> MpiResult<()> {
    if value.len() > MAX_VAL {
        return fail(
            sys::MPI_ERR_INFO_VALUE,
            format!(
                "info value of {} characters (at most MPI_MAX_INFO_VAL = {MAX_VAL})",
                value.len()
            ),
        );
    }
    Ok(())
}

impl Info {
    pub fn new() -> Info {
        Info::default()
    }

    /// An info object holding `pairs` (set in order).
    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Info {
        let mut i = Info::new();
        for (k, v) in pairs {
            let (k, v) = (k.into(), v.into());
            i.put(k, v);
        }
        i
    }

    /// Set without checking (the library's own entries).
    fn put(&mut self, key: String, value: String) {
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// MPI_Info_set: a new key goes last, an existing one keeps its place.
    pub fn set(&mut self, key: &str, value: &str) -> MpiResult<()> {
        check_key(key)?;
        check_value(value)?;
        self.put(key.to_string(), value.to_string());
        Ok(())
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// MPI_Info_delete.
    pub fn delete(&mut self, key: &str) -> MpiResult<()> {
        check_key(key)?;
        match self.entries.iter().position(|(k, _)| k == key) {
            Some(i) => {
                self.entries.remove(i);
                Ok(())
            }
            None => fail(
                sys::MPI_ERR_INFO_NOKEY,
                format!("info key \"{key}\" is not set"),
            ),
        }
    }

    pub fn nkeys(&self) -> usize {
        self.entries.len()
    }

    /// MPI_Info_get_nthkey: MPI_ERR_ARG unless 0 <= n < nkeys.
    pub fn nthkey(&self, n: i32) -> MpiResult<&str> {
        match usize::try_from(n).ok().and_then(|i| self.entries.get(i)) {
            Some((k, _)) => Ok(k),
            None => fail(
                sys::MPI_ERR_ARG,
                format!(
                    "invalid key index {n} (the info object has {} keys)",
                    self.nkeys()
                ),
            ),
        }
    }

    /// The pairs, in order.
    pub fn entries(&self) -> &[(String, String)] {
        &self.entries
    }
}

/// User info handles count up from here (MPICH's pattern for info objects).
const FIRST_HANDLE: MPI_Info = 0x9c000000u32 as MPI_Info;

/// Info handles -> info objects.
#[derive(Debug)]
pub struct InfoTable {
    map: BTreeMap<MPI_Info, Info>,
    next: MPI_Info,
    env: Info,
}

impl Default for InfoTable {
    fn default() -> Self {
        Self::new()
    }
}

impl InfoTable {
    pub const fn new() -> InfoTable {
        InfoTable {
            map: BTreeMap::new(),
            next: FIRST_HANDLE,
            env: Info {
                entries: Vec::new(),
            },
        }
    }

    /// The info object behind `h` (MPI_INFO_ENV included).
    pub fn get(&self, h: MPI_Info) -> MpiResult<&Info> {
        if h == sys::MPI_INFO_ENV {
            return Ok(&self.env);
        }
        match self.map.get(&h) {
            Some(i) => Ok(i),
            None => fail(bad_class(h), bad_info(h)),
        }
    }

    /// The info object behind `h`, to modify (not MPI_INFO_ENV).
    pub fn get_mut(&mut self, h: MPI_Info) -> MpiResult<&mut Info> {
        if h == sys::MPI_INFO_ENV {
            return fail(
                sys::MPI_ERR_INFO,
                "MPI_INFO_ENV is predefined and cannot be modified",
            );
        }
        match self.map.get_mut(&h) {
            Some(i) => Ok(i),
            None => fail(bad_class(h), bad_info(h)),
        }
    }

    /// `h` as an optional info argument: None for MPI_INFO_NULL.
    pub fn get_or_null(&self, h: MPI_Info) -> MpiResult<Option<&Info>> {
        if h == sys::MPI_INFO_NULL {
            return Ok(None);
        }
        self.get(h).map(Some)
    }

    /// Register `info`; its new handle.
    pub fn insert(&mut self, info: Info) -> MPI_Info {
        let h = self.next;
        self.next += 1;
        self.map.insert(h, info);
        h
    }

    /// MPI_Info_dup.
    pub fn dup(&mut self, h: MPI_Info) -> MpiResult<MPI_Info> {
        let i = self.get(h)?.clone();
        Ok(self.insert(i))
    }

    /// MPI_Info_free.
    pub fn free(&mut self, h: MPI_Info) -> MpiResult<()> {
        if h == sys::MPI_INFO_ENV {
            return fail(
                sys::MPI_ERR_INFO,
                "MPI_INFO_ENV is predefined and cannot be freed",
            );
        }
        match self.map.remove(&h) {
            Some(_) => Ok(()),
            None => fail(bad_class(h), bad_info(h)),
        }
    }

    /// The entries of MPI_INFO_ENV (set by the ABI layer, which knows the
    /// process's environment).
    pub fn set_env(&mut self, env: Info) {
        self.env = env;
    }

    /// Live user info objects (tests).
    pub fn live(&self) -> usize {
        self.map.len()
    }
}

fn bad_class(h: MPI_Info) -> i32 {
    if h == sys::MPI_INFO_NULL {
        sys::MPI_ERR_ARG
    } else {
        sys::MPI_ERR_INFO
    }
}

fn bad_info(h: MPI_Info) -> String {
    if h == sys::MPI_INFO_NULL {
        "MPI_INFO_NULL is not a valid info object".to_string()
    } else {
        format!("invalid info handle {h:#x}")
    }
}

static INFOS: RankLocal<Mutex<InfoTable>> = RankLocal::new(|| Mutex::new(InfoTable::new()));

/// The rank's info table (the process's, one rank per process by default). Hold the guard briefly and never call into
/// the MPI state (or raise an MPI error) while holding it.
pub fn infos() -> MutexGuard<'static, InfoTable> {
    INFOS.get().lock().unwrap_or_else(|e| e.into_inner())
}

/// Run `f` on the rank's info table.
pub fn with_infos<T>(f: impl FnOnce(&mut InfoTable) -> T) -> T {
    f(&mut infos())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_overwrite_delete() {
        let mut i = Info::new();
        i.set("b", "1").unwrap();
        i.set("a", "2").unwrap();
        i.set("c", "3").unwrap();
        i.set("b", "4").unwrap();
        let keys: Vec<&str> = (0..3).map(|n| i.nthkey(n).unwrap()).collect();
        assert_eq!(keys, ["b", "a", "c"]);
        assert_eq!(i.get("b"), Some("4"));
        i.delete("a").unwrap();
        assert_eq!(i.nkeys(), 2);
        assert_eq!(i.nthkey(1).unwrap(), "c");
        let e = i.delete("a").unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_INFO_NOKEY);
        assert_eq!(e.msg, "info key \"a\" is not set");
        assert_eq!(i.nthkey(2).unwrap_err().class, sys::MPI_ERR_ARG);
        assert_eq!(i.nthkey(-1).unwrap_err().class, sys::MPI_ERR_ARG);
    }

    #[test]
    fn limits() {
        let mut i = Info::new();
        let k255 = "k".repeat(255);
        let v1024 = "v".repeat(1024);
        i.set(&k255, &v1024).unwrap();
        assert_eq!(i.get(&k255).unwrap().len(), 1024);
        let e = i.set(&"k".repeat(256), "x").unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_INFO_KEY);
        assert_eq!(
            e.msg,
            "info key of 256 characters (at most MPI_MAX_INFO_KEY = 255)"
        );
        assert_eq!(i.set("", "x").unwrap_err().class, sys::MPI_ERR_INFO_KEY);
        let e = i.set("k", &"v".repeat(1025)).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_INFO_VALUE);
        i.set("empty", "").unwrap();
        assert_eq!(i.get("empty"), Some(""));
    }

    #[test]
    fn table_handles() {
        let mut t = InfoTable::new();
        let a = t.insert(Info::from_pairs([("x", "1")]));
        assert_eq!(a, FIRST_HANDLE);
        let b = t.dup(a).unwrap();
        t.get_mut(b).unwrap().set("y", "2").unwrap();
        assert_eq!(t.get(a).unwrap().nkeys(), 1);
        assert_eq!(t.get(b).unwrap().nkeys(), 2);
        t.free(a).unwrap();
        assert_eq!(t.get(a).unwrap_err().class, sys::MPI_ERR_INFO);
        assert_eq!(t.free(a).unwrap_err().class, sys::MPI_ERR_INFO);
        assert_eq!(
            t.get(sys::MPI_INFO_NULL).unwrap_err().class,
            sys::MPI_ERR_ARG
        );
        assert!(t.get_or_null(sys::MPI_INFO_NULL).unwrap().is_none());
        t.set_env(Info::from_pairs([("command", "./a.out")]));
        assert_eq!(
            t.get(sys::MPI_INFO_ENV).unwrap().get("command"),
            Some("./a.out")
        );
        assert_eq!(
            t.get_mut(sys::MPI_INFO_ENV).unwrap_err().class,
            sys::MPI_ERR_INFO
        );
        assert_eq!(
            t.free(sys::MPI_INFO_ENV).unwrap_err().class,
            sys::MPI_ERR_INFO
        );
        assert_eq!(t.live(), 1);
    }
}
