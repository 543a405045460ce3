//! Error classes and codes the program adds (MPI_Add_error_class,
//! MPI_Add_error_code) and the strings it gives them (MPI_Add_error_string),
//! process-wide as the standard defines them (MPI_Error_class and
//! MPI_Error_string may be called at any time, without a communicator):
//! the rank's, in the many-ranks mode (`crate::ranks`).
//!
//! Classes and codes share one number space above MPI_ERR_LASTCODE, as
//! MPICH's (its dynamic classes and codes have bit 0x40000000 set): the
//! first value handed out is MPI_ERR_LASTCODE + 1, then each new class or
//! code takes the next value, and [`LAST_USED`] (the value of the
//! MPI_LASTUSEDCODE attribute of MPI_COMM_WORLD, which the standard wants
//! at least MPI_ERR_LASTCODE) follows; it starts at MPI_ERR_LASTCODE.
use crate::mpi::error::{fail, MpiResult};
use crate::ranks::local::RankLocal;
use crate::sys;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicI32, Ordering};

/// The largest error class or code in use (MPI_LASTUSEDCODE; the program
/// reads the attribute through a pointer to it).
pub static LAST_USED: RankLocal<AtomicI32> =
    RankLocal::new(|| AtomicI32::new(sys::MPI_ERR_LASTCODE));

/// The first value handed out.
const FIRST: c_int = sys::MPI_ERR_LASTCODE + 1;

struct Registry {
    /// Class of each value handed out, from FIRST (a class is its own).
    class_of: Vec<c_int>,
    strings: BTreeMap<c_int, String>,
}

static REGISTRY: RankLocal<Mutex<Registry>> = RankLocal::new(|| {
    parking_lot::const_mutex(Registry {
        class_of: Vec::new(),
        strings: BTreeMap::new(),
    })
});

impl Registry {
    fn added(&self, code: c_int) -> Option<c_int> {
        let i = usize::try_from(code.checked_sub(FIRST)?).ok()?;
        self.class_of.get(i).copied()
    }

    fn next(&mut self, class: Option<c_int>) -> MpiResult<c_int> {
        let v = FIRST
            .checked_add(self.class_of.len() as c_int)
            .map_or_else(
                || fail(sys::MPI_ERR_OTHER, "no more error classes or codes"),
                Ok,
            )?;
        self.class_of.push(class.unwrap_or(v));
        LAST_USED.get().store(v, Ordering::Release);
        Ok(v)
    }
}

/// The predefined classes of mpi.h (all but MPI_SUCCESS, and 54, unused).
fn predefined(code: c_int) -> bool {
    crate::mpi::error::error_string(code).is_some()
}

/// MPI_Add_error_class: a new class.
pub fn add_class() -> MpiResult<c_int> {
    REGISTRY.get().lock().next(None)
}

/// MPI_Add_error_code: a new code of `class` (a predefined class other
/// than MPI_SUCCESS, or one added by the program).
pub fn add_code(class: c_int) -> MpiResult<c_int> {
    let mut r = REGISTRY.get().lock();
    let is_class =
        (class != sys::MPI_SUCCESS && predefined(class)) || r.added(class) == Some(class);
    if !is_class {
        return fail(
            sys::MPI_ERR_ARG,
            format!("invalid error class {class} (not a predefined or added error class)"),
        );
    }
    r.next(Some(class))
}

/// MPI_Add_error_string: the text of an added class or code (replacing an
/// earlier one); predefined ones cannot be changed.
pub fn add_string(code: c_int, text: &str) -> MpiResult<()> {
    let mut r = REGISTRY.get().lock();
    if r.added(code).is_none() {
        let why = if predefined(code) || code == sys::MPI_SUCCESS {
            "a predefined error class, whose string cannot be changed"
        } else {
            "not an error class or code added with MPI_Add_error_class / MPI_Add_error_code"
        };
        return fail(sys::MPI_ERR_ARG, format!("error code {code} is {why}"));
    }
    let max = sys::MPI_MAX_ERROR_STRING as usize;
    if text.len() >= max {
        return fail(
            sys::MPI_ERR_ARG,
            format!(
                "error string of {} characters is too long (at most {} allowed)",
                text.len(),
                max - 1
            ),
        );
    }
    r.strings.insert(code, text.to_string());
    Ok(())
}

/// The class of an added class or code, None if `code` was not added.
pub fn class_of(code: c_int) -> Option<c_int> {
    REGISTRY.get().lock().added(code)
}

/// The string of an added class or code ("" until MPI_Add_error_string
/// sets one), None if `code` was not added.
pub fn string_of(code: c_int) -> Option<String> {
    let r = REGISTRY.get().lock();
    r.added(code)?;
    Some(r.strings.get(&code).cloned().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test: the registry is process-wide.
    #[test]
    fn classes_codes_and_strings() {
        let c1 = add_class().unwrap();
        assert!(c1 > sys::MPI_ERR_LASTCODE);
        assert_eq!(LAST_USED.get().load(Ordering::Acquire), c1);
        let k1 = add_code(c1).unwrap();
        assert_eq!(k1, c1 + 1);
        assert_eq!(LAST_USED.get().load(Ordering::Acquire), k1);
        let k2 = add_code(sys::MPI_ERR_ARG).unwrap();
        assert_eq!(class_of(c1), Some(c1));
        assert_eq!(class_of(k1), Some(c1));
        assert_eq!(class_of(k2), Some(sys::MPI_ERR_ARG));
        assert_eq!(class_of(k2 + 1), None);
        assert_eq!(string_of(k1).as_deref(), Some(""));
        add_string(k1, "my code").unwrap();
        add_string(k1, "my code, again").unwrap();
        assert_eq!(string_of(k1).as_deref(), Some("my code, again"));
        for bad in [sys::MPI_SUCCESS, sys::MPI_ERR_ARG, k2 + 1, -1] {
            assert_eq!(add_string(bad, "x").unwrap_err().class, sys::MPI_ERR_ARG);
        }
        assert_eq!(
            add_string(k1, &"x".repeat(512)).unwrap_err().class,
            sys::MPI_ERR_ARG
        );
        // codes are not classes; neither are MPI_SUCCESS and unknown values
        for bad in [k1, k2, sys::MPI_SUCCESS, 54, k2 + 1, -3] {
            assert_eq!(add_code(bad).unwrap_err().class, sys::MPI_ERR_ARG, "{bad}");
        }
    }
}
