//! Checks that the library's own state is the rank's in the many-ranks mode
//! (`crate::ranks::local`): two rank stores of one thread see separate
//! phases, info objects and error classes through the real entry points,
//! and each rank's Fortran special addresses are looked up in its own copy
//! of the program.
use super::env::{MPI_Finalized, MPI_Initialized};
use super::errors::MPI_Error_class;
use super::fortran::attr::{predefined, Predefined};
use super::fortran::commons::{address_of, special, Special};
use super::info::{MPI_Info_create, MPI_Info_get_nkeys, MPI_Info_set};
use super::state;
use crate::mpi::errcodes;
use crate::ranks::local::{enter, Store};
use crate::sys::{self, MPI_Info};
use std::ffi::CString;
use std::os::raw::{c_int, c_void};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

fn initialized() -> (c_int, c_int) {
    let (mut i, mut f) = (-1, -1);
    // SAFETY: valid int pointers.
    unsafe {
        assert_eq!(MPI_Initialized(&mut i), sys::MPI_SUCCESS);
        assert_eq!(MPI_Finalized(&mut f), sys::MPI_SUCCESS);
    }
    (i, f)
}

fn info_create() -> MPI_Info {
    let mut h = sys::MPI_INFO_NULL;
    // SAFETY: a valid handle pointer.
    assert_eq!(unsafe { MPI_Info_create(&mut h) }, sys::MPI_SUCCESS);
    h
}

/// (return code, keys) of MPI_Info_get_nkeys.
fn nkeys(h: MPI_Info) -> (c_int, c_int) {
    let mut n = -1;
    // SAFETY: a valid int pointer.
    let rc = unsafe { MPI_Info_get_nkeys(h, &mut n) };
    (rc, n)
}

/// (return code, class) of MPI_Error_class.
fn error_class(code: c_int) -> (c_int, c_int) {
    let mut c = -1;
    // SAFETY: a valid int pointer.
    let rc = unsafe { MPI_Error_class(code, &mut c) };
    (rc, c)
}

#[test]
fn two_ranks_have_separate_library_state() {
    let a = Store::leak_for(0);
    let b = Store::leak_for(1);
    let prev = enter(Some(a));

    // rank 0: an info object with one key, an error class, finalized
    let h = info_create();
    // SAFETY: NUL-terminated strings.
    let rc = unsafe { MPI_Info_set(h, c"key".as_ptr(), c"value".as_ptr()) };
    assert_eq!(rc, sys::MPI_SUCCESS);
    assert_eq!(nkeys(h), (sys::MPI_SUCCESS, 1));
    let class = errcodes::add_class().unwrap();
    assert_eq!(class, sys::MPI_ERR_LASTCODE + 1);
    assert_eq!(error_class(class), (sys::MPI_SUCCESS, class));
    assert_eq!(initialized(), (0, 0));
    state::set_phase(state::FINALIZED);
    assert_eq!(initialized(), (1, 1));
    let last_used_a = errcodes::LAST_USED.get() as *const _;

    // rank 1 starts fresh
    enter(Some(b));
    assert_eq!(initialized(), (0, 0));
    assert_eq!(nkeys(h).0, sys::MPI_ERR_INFO);
    assert_eq!(info_create(), h, "the first handle of a fresh table");
    assert_eq!(nkeys(h), (sys::MPI_SUCCESS, 0));
    assert_eq!(errcodes::class_of(class), None);
    assert_eq!(error_class(class).0, sys::MPI_ERR_ARG);
    assert_eq!(
        errcodes::LAST_USED.get().load(Ordering::Acquire),
        sys::MPI_ERR_LASTCODE
    );
    assert_ne!(errcodes::LAST_USED.get() as *const _, last_used_a);
    assert_eq!(errcodes::add_class().unwrap(), class, "numbered afresh");
    assert!(!state::active() && !state::nested_now());

    // rank 0 kept its own
    enter(Some(a));
    assert_eq!(initialized(), (1, 1));
    assert_eq!(nkeys(h), (sys::MPI_SUCCESS, 1));
    assert_eq!(error_class(class), (sys::MPI_SUCCESS, class));
    assert_eq!(errcodes::LAST_USED.get().load(Ordering::Acquire), class);
    enter(prev);
}

/// A shared object standing for a rank's copy of a Fortran program that
/// names COMMON /MPIFCMB1/ (MPI_BOTTOM) and has its own address for
/// MPI_COMM_DUP_FN, built with the C compiler; its `dlopen` handle.
fn program_copy(tag: &str) -> *mut c_void {
    let dir = std::env::temp_dir().join(format!("vaced-rank-local-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("prog.c");
    let so: PathBuf = dir.join("prog.so");
    std::fs::write(&src, "int mpifcmb1_[1];\nvoid mpi_comm_dup_fn_(void) {}\n").unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let st = std::process::Command::new(cc)
        .args(["-shared", "-fPIC", "-o"])
        .arg(&so)
        .arg(&src)
        .status()
        .expect("the C compiler runs");
    assert!(st.success(), "building {}", so.display());
    let path = CString::new(so.to_str().unwrap()).unwrap();
    // SAFETY: dlopen of the object just built (no constructors); loaded
    // locally, so its symbols are not in the global scope.
    let h = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    assert!(!h.is_null(), "dlopen {}", so.display());
    let _ = std::fs::remove_dir_all(&dir);
    h
}

/// The address `sym` has in the object behind `h`.
fn symbol(h: *mut c_void, sym: &std::ffi::CStr) -> usize {
    // SAFETY: a live dlopen handle and a NUL-terminated name.
    let p = unsafe { libc::dlsym(h, sym.as_ptr()) };
    assert!(!p.is_null(), "{sym:?}");
    p as usize
}

#[test]
fn fortran_special_addresses_come_from_the_ranks_program_copy() {
    let h1 = program_copy("a");
    let h2 = program_copy("b");
    let (bottom1, bottom2) = (symbol(h1, c"mpifcmb1_"), symbol(h2, c"mpifcmb1_"));
    let (dup1, dup2) = (
        symbol(h1, c"mpi_comm_dup_fn_"),
        symbol(h2, c"mpi_comm_dup_fn_"),
    );
    assert_ne!(bottom1, bottom2, "two copies, two COMMON blocks");
    let a = Store::leak_for(0);
    let b = Store::leak_for(1);
    a.set_program_handle(h1);
    b.set_program_handle(h2);
    // a store without a program handle looks up in the global scope, which
    // does not see the copies: our own blocks
    let c = Store::leak_for(2);
    let prev = enter(Some(c));
    let own = address_of(Special::Bottom) as usize;
    assert!(own != bottom1 && own != bottom2);
    assert_eq!(special(bottom1 as *const c_void), None);
    assert_eq!(predefined(dup1), None);

    enter(Some(a));
    assert_eq!(address_of(Special::Bottom) as usize, bottom1);
    assert_eq!(special(bottom1 as *const c_void), Some(Special::Bottom));
    assert_eq!(special(bottom2 as *const c_void), None);
    assert_eq!(special(own as *const c_void), Some(Special::Bottom));
    assert_eq!(predefined(dup1), Some(Predefined::Dup));
    assert_eq!(predefined(dup2), None);

    enter(Some(b));
    assert_eq!(address_of(Special::Bottom) as usize, bottom2);
    assert_eq!(special(bottom2 as *const c_void), Some(Special::Bottom));
    assert_eq!(special(bottom1 as *const c_void), None);
    assert_eq!(predefined(dup2), Some(Predefined::Dup));
    assert_eq!(predefined(dup1), None);
    // a block the copy does not name is still ours
    let own_in_place = {
        enter(Some(c));
        address_of(Special::InPlace)
    };
    enter(Some(b));
    assert_eq!(address_of(Special::InPlace), own_in_place);
    enter(prev);
}
