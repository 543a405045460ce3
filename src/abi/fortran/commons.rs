//! The storage of the COMMON blocks that hold Fortran's special addresses
//! (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE,
//! MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY; see
//! `generator::SPECIAL` and include/mpif.h), and their recognition: a Fortran
//! program passes the address of the variable, which the bindings turn
//! into the C marker.
//!
//! A program that names a COMMON block gets its own copy of it in the
//! executable (gfortran emits COMMON blocks as common symbols, which take
//! precedence over a shared library's definition), so the address that
//! Fortran code uses is the one the dynamic linker resolves first, found
//! with `dlsym(RTLD_DEFAULT, ...)`; our own definition is used when the
//! program never names the block.
//!
//! In the many-ranks mode (`crate::ranks`) every rank runs its own copy of
//! the program, with its own COMMON blocks, and this library is loaded once
//! for all of them: the addresses are the rank's, looked up in its copy
//! (`ranks::local::program_handle`, see [`program_symbol`]).
use crate::ranks::local::{program_handle, RankLocal};
use crate::sys::{MPI_Fint, MPI_STATUS_SIZE};
use std::cell::UnsafeCell;
use std::ffi::CStr;
use std::os::raw::c_void;
use std::sync::OnceLock;

/// `N` Fortran INTEGERs of a COMMON block, writable by the program.
#[repr(C)]
pub struct CommonBlock<const N: usize>(UnsafeCell<[MPI_Fint; N]>);

// SAFETY: the library never reads or writes the contents, only compares
// addresses; the program may write them (MPI forbids it, but that is its
// own memory).
unsafe impl<const N: usize> Sync for CommonBlock<N> {}

impl<const N: usize> CommonBlock<N> {
    const fn new() -> Self {
        CommonBlock(UnsafeCell::new([0; N]))
    }

    fn addr(&self) -> usize {
        self.0.get() as usize
    }
}

const STATUS: usize = MPI_STATUS_SIZE as usize;

/// `COMMON /MPIFCMB1/ MPI_BOTTOM`
#[no_mangle]
pub static mpifcmb1_: CommonBlock<1> = CommonBlock::new();
/// `COMMON /MPIFCMB2/ MPI_IN_PLACE`
#[no_mangle]
pub static mpifcmb2_: CommonBlock<1> = CommonBlock::new();
/// `COMMON /MPIFCMB3/ MPI_STATUS_IGNORE(MPI_STATUS_SIZE)`
#[no_mangle]
pub static mpifcmb3_: CommonBlock<STATUS> = CommonBlock::new();
/// `COMMON /MPIFCMB4/ MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)`
#[no_mangle]
pub static mpifcmb4_: CommonBlock<STATUS> = CommonBlock::new();

/// `COMMON /MPIFCMB5/ MPI_UNWEIGHTED`
#[no_mangle]
pub static mpifcmb5_: CommonBlock<1> = CommonBlock::new();
/// `COMMON /MPIFCMB9/ MPI_WEIGHTS_EMPTY`
#[no_mangle]
pub static mpifcmb9_: CommonBlock<1> = CommonBlock::new();

/// A Fortran special address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    Bottom,
    InPlace,
    StatusIgnore,
    StatusesIgnore,
    Unweighted,
    WeightsEmpty,
}

/// How many special addresses there are.
const N: usize = 6;

/// (symbol, our definition's address, meaning), in `generator::SPECIAL` order.
fn ours() -> [(&'static CStr, usize, Special); N] {
    [
        (c"mpifcmb1_", mpifcmb1_.addr(), Special::Bottom),
        (c"mpifcmb2_", mpifcmb2_.addr(), Special::InPlace),
        (c"mpifcmb3_", mpifcmb3_.addr(), Special::StatusIgnore),
        (c"mpifcmb4_", mpifcmb4_.addr(), Special::StatusesIgnore),
        (c"mpifcmb5_", mpifcmb5_.addr(), Special::Unweighted),
        (c"mpifcmb9_", mpifcmb9_.addr(), Special::WeightsEmpty),
    ]
}

/// The COMMON block names, lower case, for the consistency test.
pub fn block_names() -> [String; N] {
    ours().map(|(s, _, _)| s.to_string_lossy().trim_end_matches('_').to_string())
}

/// The address the running program resolves symbol `sym` to (null: none):
/// looked up in the global scope (`RTLD_DEFAULT`, the executable first) in the
/// default mode, in the rank's copy of the program and the objects it
/// loaded in the many-ranks mode (once the host has given its handle).
pub(crate) fn program_symbol(sym: &CStr) -> *mut c_void {
    let handle = program_handle().unwrap_or(libc::RTLD_DEFAULT);
    // SAFETY: dlsym with RTLD_DEFAULT or a handle dlopen returned (the
    // host keeps the rank's program loaded as long as the rank exists), and
    // a NUL-terminated name, only looks the symbol up.
    unsafe { libc::dlsym(handle, sym.as_ptr()) }
}

/// The addresses Fortran code uses for the blocks (see the module doc),
/// resolved once per rank.
fn resolved() -> &'static [(usize, Special); N] {
    static ADDRS: RankLocal<OnceLock<[(usize, Special); N]>> = RankLocal::new(OnceLock::new);
    ADDRS.get().get_or_init(|| {
        ours().map(|(sym, own, what)| {
            let p = program_symbol(sym);
            (if p.is_null() { own } else { p as usize }, what)
        })
    })
}

/// Which special address `p` is, if any.
pub fn special(p: *const c_void) -> Option<Special> {
    let a = p as usize;
    if a == 0 {
        return None;
    }
    resolved()
        .iter()
        .copied()
        .chain(ours().into_iter().map(|(_, own, w)| (own, w)))
        .find(|(addr, _)| *addr == a)
        .map(|(_, w)| w)
}

/// The address Fortran code uses for `what` (tests).
pub fn address_of(what: Special) -> *mut c_void {
    resolved()[what as usize].0 as *mut c_void
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_recognised_by_address() {
        for (i, what) in [
            Special::Bottom,
            Special::InPlace,
            Special::StatusIgnore,
            Special::StatusesIgnore,
            Special::Unweighted,
            Special::WeightsEmpty,
        ]
        .into_iter()
        .enumerate()
        {
            assert_eq!(special(address_of(what)), Some(what));
            assert_eq!(special(ours()[i].1 as *const c_void), Some(what));
        }
        let x = 0i32;
        assert_eq!(special(&x as *const i32 as *const c_void), None);
        assert_eq!(special(std::ptr::null()), None);
        // Blocks of one INTEGER, and of one status.
        assert_eq!(std::mem::size_of_val(&mpifcmb1_), 4);
        assert_eq!(std::mem::size_of_val(&mpifcmb3_), 4 * STATUS);
    }
}
