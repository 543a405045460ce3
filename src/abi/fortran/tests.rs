//! Checks of the Fortran ABI that need no running job: the generated
//! files against mpi.h (values as the Rust compiler evaluates bindgen's
//! constants), fixed-form rules, binding coverage, argument kinds, and
//! bindings that work outside MPI_Init .. MPI_Finalize.
use super::commons::{address_of, block_names, Special};
use super::env::{mpi_error_string_, mpi_get_version_, mpi_initialized_};
use super::generator::{self, SPECIAL};
use super::kinds::{self, Arg};
use crate::abi::{MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUSES_IGNORE, MPI_STATUS_IGNORE};
use crate::sys::{self, MPI_Aint, MPI_Count, MPI_Fint, MPI_Offset, MPI_Status};
use std::collections::BTreeMap;
use std::mem::{offset_of, size_of};
use std::os::raw::{c_char, c_void};
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/fortran_sys_consts.rs"));

const SYS_RS: &str = include_str!(concat!(env!("OUT_DIR"), "/mpi_sys.rs"));

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// What build.rs generates now, from the files as they are.
fn generated() -> generator::Generated {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo("src/abi/fortran"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    let sources: Vec<String> = files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let sources: Vec<&str> = sources.iter().map(String::as_str).collect();
    generator::generate(&read("include/mpi.h"), SYS_RS, &sources).unwrap()
}

/// The Fortran-only constants and their values from the Rust types.
fn fortran_only() -> BTreeMap<&'static str, i64> {
    let index = |offset: usize| (offset / size_of::<MPI_Fint>()) as i64 + 1;
    BTreeMap::from([
        ("MPI_SOURCE", index(offset_of!(MPI_Status, MPI_SOURCE))),
        ("MPI_TAG", index(offset_of!(MPI_Status, MPI_TAG))),
        ("MPI_ERROR", index(offset_of!(MPI_Status, MPI_ERROR))),
        ("MPI_ADDRESS_KIND", size_of::<MPI_Aint>() as i64),
        ("MPI_OFFSET_KIND", size_of::<MPI_Offset>() as i64),
        ("MPI_COUNT_KIND", size_of::<MPI_Count>() as i64),
        ("MPI_INTEGER_KIND", size_of::<MPI_Fint>() as i64),
    ])
}

/// Checks `(name, value)` pairs read from a generated file against C.
fn check_values(file: &str, pairs: Vec<(String, i64)>) {
    let sys: BTreeMap<&str, i64> = SYS_INT_CONSTANTS.iter().copied().collect();
    let extra = fortran_only();
    let mut seen = BTreeMap::new();
    for (name, v) in &pairs {
        let expected = sys
            .get(name.as_str())
            .or_else(|| extra.get(name.as_str()))
            .unwrap_or_else(|| panic!("{file}: {name} is neither in mpi.h nor Fortran-only"));
        assert_eq!(v, expected, "{file}: {name}");
        assert!(
            seen.insert(name.clone(), *v).is_none(),
            "{file}: {name} twice"
        );
    }
    let fortran = |n: &&&str| !crate::abi::fortran::generator::c_only_constant(n);
    for name in sys.keys().filter(fortran).chain(extra.keys()) {
        assert!(seen.contains_key(*name), "{file}: {name} missing");
    }
}

#[test]
fn generated_files_are_current() {
    let g = generated();
    assert_eq!(
        read("include/mpif.h"),
        g.mpif_h,
        "include/mpif.h is stale: rebuild"
    );
    assert_eq!(
        read("include/mpi.f90"),
        g.mpi_f90,
        "include/mpi.f90 is stale: rebuild"
    );
}

#[test]
fn mpif_h_values_equal_the_c_values() {
    let text = read("include/mpif.h");
    let pairs = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("PARAMETER ("))
        .map(|p| {
            let (n, v) = p.trim_end_matches(')').split_once('=').unwrap();
            (n.to_string(), v.parse().unwrap())
        })
        .collect();
    check_values("mpif.h", pairs);
    // Spot checks against the C header's spelling.
    assert!(text.contains("      PARAMETER (MPI_STATUS_SIZE=5)\n"));
    assert!(text.contains("      PARAMETER (MPI_SOURCE=3)\n"));
    assert!(text.contains("      PARAMETER (MPI_TAG=4)\n"));
    assert!(text.contains("      PARAMETER (MPI_ERROR=5)\n"));
    assert!(text.contains("      PARAMETER (MPI_INTEGER=1275069538)\n"));
    assert!(text.contains("      PARAMETER (MPI_ANY_SOURCE=-2)\n"));
}

#[test]
fn module_values_equal_the_c_values() {
    let text = read("include/mpi.f90");
    let pairs = text
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            l.strip_prefix("integer, parameter :: ")
                .or_else(|| l.strip_prefix("integer(kind=8), parameter :: "))
        })
        .map(|p| {
            let (n, v) = p.split_once(" = ").unwrap();
            (n.to_string(), v.parse().unwrap())
        })
        .collect();
    check_values("mpi.f90", pairs);
}

#[test]
fn mpif_h_suits_fixed_and_free_form() {
    for (i, line) in read("include/mpif.h").lines().enumerate() {
        let at = format!("mpif.h line {}: `{line}`", i + 1);
        assert!(line.len() <= 72, "{at}: over 72 columns");
        assert!(!line.contains('\t') && !line.contains('&'), "{at}");
        if !line.starts_with('!') {
            assert!(
                line.starts_with("      ") && line.as_bytes()[6].is_ascii_alphabetic(),
                "{at}: statements start in column 7"
            );
        }
    }
}

#[test]
fn special_addresses_are_common_blocks_of_the_library() {
    let text = read("include/mpif.h");
    let names = block_names();
    for (i, (var, block, _)) in SPECIAL.iter().enumerate() {
        assert_eq!(block.to_ascii_lowercase(), names[i], "{var}");
        assert!(
            text.contains(&format!("      COMMON /{block}/ {var}\n")),
            "{var}"
        );
    }
}

#[test]
fn every_c_function_has_a_fortran_binding() {
    let g = generated();
    assert!(
        g.unbound.is_empty(),
        "C functions without a Fortran binding: {:?}",
        g.unbound
    );
    assert!(
        g.unmapped.is_empty(),
        "pointer constants without a Fortran counterpart: {:?}",
        g.unmapped
    );
}

#[test]
fn module_interfaces() {
    let text = read("include/mpi.f90");
    for name in ["MPI_COMM_RANK", "PMPI_WAITALL", "MPI_INIT"] {
        assert!(text.contains(&format!("    subroutine {name}(")), "{name}");
    }
    // as in MPICH's module, no interface for a routine with a choice
    // buffer (a program may define its own MPI_SEND, pass any buffer)
    for name in [
        "MPI_SEND",
        "PMPI_SEND",
        "MPI_BUFFER_DETACH",
        "MPI_BUFFER_ATTACH",
    ] {
        assert!(!text.contains(&format!("    subroutine {name}(")), "{name}");
    }
    assert!(text.contains(
        "  interface MPI_SIZEOF\n    subroutine MPI_SIZEOF_I1(x, size, ierror)\n      \
         integer(kind=1) :: x\n      integer :: size, ierror\n    \
         end subroutine MPI_SIZEOF_I1\n    subroutine MPI_SIZEOF_I1V(x, size, ierror)\n      \
         integer(kind=1), dimension(*) :: x\n"
    ));
    assert!(text.contains("    double precision function MPI_WTIME()\n"));
    assert!(
        !text.contains("subroutine MPI_PCONTROL"),
        "MPI_PCONTROL has no interface"
    );
    assert!(text.contains(
        "    subroutine MPI_WAITALL(count, array_of_requests, array_of_statuses, ierror)\n      \
         import :: MPI_STATUS_SIZE\n      integer, intent(in) :: count\n      \
         integer, dimension(*) :: array_of_requests\n      \
         integer, dimension(MPI_STATUS_SIZE, *) :: array_of_statuses\n      \
         integer :: ierror\n    end subroutine MPI_WAITALL\n"
    ));
    // Procedure arguments, the predefined callback procedures, address
    // functions, ranges.
    assert!(text.contains(
        "    subroutine MPI_KEYVAL_CREATE(copy_fn, delete_fn, keyval, extra_state, ierror)\n      \
         external :: copy_fn\n      external :: delete_fn\n      integer :: keyval\n      \
         integer, intent(in) :: extra_state\n      integer :: ierror\n    \
         end subroutine MPI_KEYVAL_CREATE\n"
    ));
    assert!(text.contains(
        "    subroutine MPI_COMM_NULL_DELETE_FN(comm, comm_keyval, attribute_val, extra_state, \
         ierror)\n      import :: MPI_ADDRESS_KIND\n"
    ));
    assert!(
        !text.contains("PMPI_COMM_DUP_FN"),
        "no profiling twins of callbacks"
    );
    assert!(
        text.contains("    integer(kind=MPI_ADDRESS_KIND) function PMPI_AINT_DIFF(addr1, addr2)\n")
    );
    assert!(text.contains("      integer, dimension(3, *) :: ranges\n"));
    assert!(text.contains(
        "    subroutine MPI_OP_CREATE(user_fn, commute, op, ierror)\n      \
         external :: user_fn\n      logical, intent(in) :: commute\n"
    ));
    let mpif = read("include/mpif.h");
    for (name, _) in generator::PREDEFINED_PROCS {
        assert!(mpif.contains(&format!("      EXTERNAL {name}\n")), "{name}");
    }
    // as MPICH's mpif.h: the program declares MPI_AINT_ADD / _DIFF
    assert!(!mpif.contains("MPI_AINT_ADD"));
}

#[test]
fn binding_lines_are_parsed_strictly() {
    let ok = "fortran! {\n    mpi_x_ = PMPI_X(a: Int, s: StrOut[s_len]) then h(a);\n}\n";
    let b = generator::parse_bindings(ok).unwrap();
    assert_eq!(b[0].fortran_name(), "MPI_X");
    assert_eq!(b[0].args[1].kind, "StrOut");
    let bad_kind = "fortran! {\n    mpi_x_ = PMPI_X(a: Integer);\n}\n";
    assert!(generator::parse_bindings(bad_kind)
        .unwrap_err()
        .contains("unknown argument kind `Integer`"));
    let garbage = "fortran! {\n    mpi_x_ PMPI_X(a: Int);\n}\n";
    assert!(generator::parse_bindings(garbage).is_err());
}

#[test]
fn buffers_translate_bottom_and_in_place() {
    let mut x = 5i32;
    let plain = &mut x as *mut i32 as *mut c_void;
    // SAFETY: addresses only; nothing is dereferenced.
    unsafe {
        assert_eq!(kinds::Buf::new(plain, 0).c(), plain);
        assert_eq!(
            kinds::Buf::new(address_of(Special::Bottom), 0).c(),
            MPI_BOTTOM
        );
        assert_eq!(
            kinds::Buf::new(address_of(Special::InPlace), 0).c(),
            MPI_IN_PLACE
        );
    }
}

#[test]
fn statuses_translate_the_ignore_markers() {
    let mut st = [0 as MPI_Fint; 5];
    let f = st.as_mut_ptr();
    let ignore = address_of(Special::StatusIgnore) as *mut MPI_Fint;
    let ignores = address_of(Special::StatusesIgnore) as *mut MPI_Fint;
    // SAFETY: addresses only; nothing is dereferenced.
    unsafe {
        assert_eq!(kinds::Status::new(f, 0).c(), f as *mut MPI_Status);
        assert_eq!(kinds::Status::new(ignore, 0).c(), MPI_STATUS_IGNORE);
        assert_eq!(kinds::Statuses::new(ignores, 0).c(), MPI_STATUSES_IGNORE);
        assert_eq!(kinds::Statuses::new(f, 0).c(), f as *mut MPI_Status);
    }
}

#[test]
fn strings_are_blank_padded_and_trimmed() {
    let mut f = *b"xxxxxxxx";
    // SAFETY: f has 8 characters, passed as the hidden length.
    unsafe {
        let mut s = kinds::StrOut::new(f.as_mut_ptr() as *mut c_char, 8);
        std::ptr::copy_nonoverlapping(c"abc".as_ptr(), s.c(), 4);
        s.finish();
    }
    assert_eq!(&f, b"abc     ");
    // SAFETY: as above, 4 characters.
    unsafe {
        let mut s = kinds::StrOut::new(f.as_mut_ptr() as *mut c_char, 4);
        std::ptr::copy_nonoverlapping(c"longer".as_ptr(), s.c(), 7);
        s.finish();
    }
    assert_eq!(&f, b"long    ");
    let src = b"  key one   ";
    // SAFETY: src has 12 characters.
    let mut s = unsafe { kinds::StrIn::new(src.as_ptr() as *const c_char, src.len()) };
    // SAFETY: StrIn's C string is NUL-terminated.
    let c = unsafe { std::ffi::CStr::from_ptr(s.c()) };
    assert_eq!(c.to_bytes(), b"key one");
}

#[test]
fn logicals_and_indices() {
    let mut flag: MPI_Fint = 77;
    // SAFETY: flag is a valid INTEGER-sized LOGICAL.
    unsafe {
        let mut k = kinds::Flag::new(&mut flag, 0);
        *k.c() = 5;
        k.finish();
    }
    assert_eq!(flag, 1, ".true. is 1");
    // SAFETY: as above.
    unsafe {
        let k = kinds::Flag::new(&mut flag, 0);
        k.finish();
    }
    assert_eq!(flag, 0);
    let t: MPI_Fint = -1;
    // SAFETY: t is a valid LOGICAL.
    assert_eq!(unsafe { kinds::Logical::new(&t, 0) }.c(), 1);

    let mut idx: MPI_Fint = 0;
    for (c, f) in [(0, 1), (4, 5), (sys::MPI_UNDEFINED, sys::MPI_UNDEFINED)] {
        // SAFETY: idx is a valid INTEGER.
        unsafe {
            let mut k = kinds::Index::new(&mut idx, 0);
            *k.c() = c;
            k.finish();
        }
        assert_eq!(idx, f);
    }
    let mut out: MPI_Fint = 2;
    let mut ind: [MPI_Fint; 3] = [3, 0, 9];
    // SAFETY: outcount 2 within an array of 3.
    unsafe { kinds::indices_to_fortran(&mut out, ind.as_mut_ptr()) };
    assert_eq!(ind, [4, 1, 9]);
    out = sys::MPI_UNDEFINED;
    // SAFETY: nothing is written for MPI_UNDEFINED.
    unsafe { kinds::indices_to_fortran(&mut out, ind.as_mut_ptr()) };
    assert_eq!(ind, [4, 1, 9]);
}

#[test]
fn bindings_that_work_before_mpi_init() {
    let mut ierr: MPI_Fint = -7;
    let mut flag: MPI_Fint = 9;
    // SAFETY: valid LOGICAL and INTEGER.
    unsafe { mpi_initialized_(&mut flag, &mut ierr) };
    assert_eq!((flag, ierr), (0, sys::MPI_SUCCESS));

    let (mut v, mut sv) = (0, 0);
    // SAFETY: valid INTEGERs.
    unsafe { mpi_get_version_(&mut v, &mut sv, &mut ierr) };
    assert_eq!((v, sv, ierr), (sys::MPI_VERSION, sys::MPI_SUBVERSION, 0));

    let code = sys::MPI_ERR_TRUNCATE;
    let text = crate::mpi::error::error_string(code).unwrap();
    let mut s = [b'?'; 200];
    let mut len: MPI_Fint = 0;
    // SAFETY: s has 200 characters, passed as the hidden length.
    unsafe {
        mpi_error_string_(
            &code,
            s.as_mut_ptr() as *mut c_char,
            &mut len,
            &mut ierr,
            s.len(),
        )
    };
    assert_eq!((len as usize, ierr), (text.len(), 0));
    assert_eq!(&s[..text.len()], text.as_bytes());
    assert!(s[text.len()..].iter().all(|&b| b == b' '));
}

#[test]
fn sizeof_specifics_match_the_generated_interface() {
    let ours: Vec<(String, i32)> = super::sizeof::SIZES
        .iter()
        .map(|(n, s)| (n.trim_end_matches('_').to_string(), *s))
        .collect();
    let generated: Vec<(String, i32)> = generator::SIZEOF_TYPES
        .iter()
        .map(|(suffix, _, size)| {
            (
                format!("mpi_sizeof_{}", suffix.to_ascii_lowercase()),
                *size as i32,
            )
        })
        .collect();
    assert_eq!(ours, generated);
}
