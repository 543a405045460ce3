//! The info hints of a window, as MPICH 4.0.2's CH3 keeps them
//! (`MPID_Win_set_info` / `MPID_Win_get_info`): MPI_Win_get_info reports
//! every key below with its current value, whatever the program gave;
//! other keys are dropped. Defaults: no_locks false, accumulate_ordering
//! "rar,raw,war,waw", accumulate_ops "same_op_no_op", alloc_shm true for
//! Win_allocate and Win_allocate_shared windows (false otherwise, always
//! false on a dynamic window), alloc_shared_noncontig, same_size and
//! same_disp_unit false. A value that is not one MPICH recognizes leaves the
//! key as it was; an accumulate_ordering token other than rar / raw / war /
//! waw (or "none") is MPI_ERR_ARG.
//!
//! vaced acts only on alloc_shared_noncontig (at MPI_Win_allocate_shared,
//! see `shared`); the others change no timing (accumulate ordering and
//! locks are what CH3 does by default).
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::info::Info;
use crate::sys;

const RAR: u8 = 1;
const RAW: u8 = 2;
const WAR: u8 = 4;
const WAW: u8 = 8;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WinHints {
    pub no_locks: bool,
    pub accumulate_ordering: u8,
    pub same_op: bool,
    pub alloc_shm: bool,
    pub alloc_shared_noncontig: bool,
    pub same_size: bool,
    pub same_disp_unit: bool,
    flavor: i32,
}

/// "true" / "false" as MPICH compares them (a prefix for some keys).
fn boolean(v: &str, prefix: bool) -> Option<bool> {
    let is = |w: &str| if prefix { v.starts_with(w) } else { v == w };
    if is("true") {
        Some(true)
    } else if is("false") {
        Some(false)
    } else {
        None
    }
}

impl WinHints {
    /// The hints of a new window of `flavor` given `info`.
    pub fn new(flavor: i32, info: &Info) -> MpiResult<WinHints> {
        let mut h = WinHints {
            no_locks: false,
            accumulate_ordering: RAR | RAW | WAR | WAW,
            same_op: false,
            alloc_shm: flavor == sys::MPI_WIN_FLAVOR_ALLOCATE
                || flavor == sys::MPI_WIN_FLAVOR_SHARED,
            alloc_shared_noncontig: false,
            same_size: false,
            same_disp_unit: false,
            flavor,
        };
        h.set(info)?;
        Ok(h)
    }

    /// MPI_Win_set_info: the keys `info` names change.
    pub fn set(&mut self, info: &Info) -> MpiResult<()> {
        let mut next = self.clone();
        if let Some(b) = info.get("no_locks").and_then(|v| boolean(v, true)) {
            next.no_locks = b;
        }
        if let Some(b) = info.get("alloc_shm").and_then(|v| boolean(v, false)) {
            next.alloc_shm = b;
        }
        if self.flavor == sys::MPI_WIN_FLAVOR_DYNAMIC {
            next.alloc_shm = false;
        }
        if let Some(b) = info
            .get("alloc_shared_noncontig")
            .and_then(|v| boolean(v, true))
        {
            next.alloc_shared_noncontig = b;
        }
        if let Some(v) = info.get("accumulate_ordering") {
            next.accumulate_ordering = if v.starts_with("none") {
                0
            } else {
                let mut o = 0;
                for t in v.split(',') {
                    o |= match t.get(..3) {
                        Some("rar") => RAR,
                        Some("raw") => RAW,
                        Some("war") => WAR,
                        Some("waw") => WAW,
                        _ => {
                            return fail(
                                sys::MPI_ERR_ARG,
                                format!(
                                    "invalid accumulate_ordering {v:?} (rar, raw, war, waw \
                                     separated by commas, or none)"
                                ),
                            )
                        }
                    };
                }
                o
            };
        }
        match info.get("accumulate_ops") {
            Some("same_op") => next.same_op = true,
            Some("same_op_no_op") => next.same_op = false,
            _ => {}
        }
        if let Some(b) = info.get("same_size").and_then(|v| boolean(v, false)) {
            next.same_size = b;
        }
        if let Some(b) = info.get("same_disp_unit").and_then(|v| boolean(v, false)) {
            next.same_disp_unit = b;
        }
        *self = next;
        Ok(())
    }

    /// MPI_Win_get_info: every key, in MPICH's order.
    pub fn to_info(&self) -> Info {
        let tf = |b: bool| if b { "true" } else { "false" };
        let ordering = if self.accumulate_ordering == 0 {
            "none".to_string()
        } else {
            [(RAR, "rar"), (RAW, "raw"), (WAR, "war"), (WAW, "waw")]
                .iter()
                .filter(|(bit, _)| self.accumulate_ordering & bit != 0)
                .map(|(_, s)| *s)
                .collect::<Vec<_>>()
                .join(",")
        };
        let ops = if self.same_op {
            "same_op"
        } else {
            "same_op_no_op"
        };
        Info::from_pairs([
            ("no_locks", tf(self.no_locks).to_string()),
            ("accumulate_ordering", ordering),
            ("accumulate_ops", ops.to_string()),
            ("alloc_shm", tf(self.alloc_shm).to_string()),
            (
                "alloc_shared_noncontig",
                tf(self.alloc_shared_noncontig).to_string(),
            ),
            ("same_size", tf(self.same_size).to_string()),
            ("same_disp_unit", tf(self.same_disp_unit).to_string()),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(h: &WinHints, k: &str) -> String {
        h.to_info().get(k).unwrap().to_string()
    }

    #[test]
    fn defaults_updates_and_errors() {
        let h = WinHints::new(sys::MPI_WIN_FLAVOR_CREATE, &Info::new()).unwrap();
        assert_eq!(h.to_info().nkeys(), 7);
        assert_eq!(get(&h, "accumulate_ordering"), "rar,raw,war,waw");
        assert_eq!(get(&h, "accumulate_ops"), "same_op_no_op");
        assert_eq!(get(&h, "alloc_shm"), "false");
        let a = WinHints::new(sys::MPI_WIN_FLAVOR_ALLOCATE, &Info::new()).unwrap();
        assert_eq!(get(&a, "alloc_shm"), "true");
        let mut h = h;
        let i = Info::from_pairs([
            ("no_locks", "true"),
            ("accumulate_ordering", "war,rar"),
            ("accumulate_ops", "same_op"),
            ("same_size", "maybe"),
            ("other", "x"),
        ]);
        h.set(&i).unwrap();
        assert_eq!(get(&h, "no_locks"), "true");
        assert_eq!(get(&h, "accumulate_ordering"), "rar,war");
        assert_eq!(get(&h, "accumulate_ops"), "same_op");
        assert_eq!(get(&h, "same_size"), "false");
        assert!(h.to_info().get("other").is_none());
        let bad = Info::from_pairs([("accumulate_ordering", "rar,xyz")]);
        assert_eq!(h.set(&bad).unwrap_err().class, sys::MPI_ERR_ARG);
        assert_eq!(get(&h, "accumulate_ordering"), "rar,war");
        h.set(&Info::from_pairs([("accumulate_ordering", "none")]))
            .unwrap();
        assert_eq!(get(&h, "accumulate_ordering"), "none");
    }
}
