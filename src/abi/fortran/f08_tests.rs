//! Checks of the `mpi_f08` module (include/mpi_f08.f90) and of the
//! `_f08` argument kinds that need no running job: the file is what the
//! generator writes now, its constants have C's values and handle types,
//! interfaces as the standard declares them, every routine of the tables
//! in it, and descriptors read as gfortran passes them.
use super::cfi::{CfiDesc, CfiDim};
use super::commons::{address_of, Special};
use super::generator::{self, f08};
use super::kinds::{self, Arg};
use crate::abi::MPI_IN_PLACE;
use std::collections::BTreeMap;
use std::os::raw::{c_char, c_void};
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/fortran_sys_consts.rs"));

const SYS_RS: &str = include_str!(concat!(env!("OUT_DIR"), "/mpi_sys.rs"));

fn read(path: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The sources of src/abi/fortran/ as build.rs reads them.
fn sources() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/abi/fortran");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

fn module() -> String {
    read("include/mpi_f08.f90")
}

#[test]
fn generated_module_is_current() {
    let sources = sources();
    let sources: Vec<&str> = sources.iter().map(String::as_str).collect();
    let g = generator::generate(&read("include/mpi.h"), SYS_RS, &sources).unwrap();
    assert!(
        module() == g.mpi_f08_f90,
        "include/mpi_f08.f90 is stale: rebuild"
    );
}

#[test]
fn constants_have_the_c_values_and_handle_types() {
    let text = module();
    let sys: BTreeMap<&str, i64> = SYS_INT_CONSTANTS.iter().copied().collect();
    let handles = f08::handle_constants(&read("include/mpi.h"));
    let mut typed = 0;
    for line in text.lines().map(str::trim) {
        if let Some(p) = line.strip_prefix("integer, parameter :: ") {
            let (n, v) = p.split_once(" = ").unwrap();
            assert!(!handles.contains_key(n), "{n} is a handle");
            if let Some(&c) = sys.get(n) {
                assert_eq!(v.parse::<i64>().unwrap(), c, "{n}");
            }
        } else if let Some(p) = line.strip_prefix("type(") {
            let Some((t, rest)) = p.split_once("), parameter :: ") else {
                continue;
            };
            let (n, v) = rest.split_once(" = ").unwrap();
            assert_eq!(handles.get(n).map(String::as_str), Some(t), "{n}");
            let v = v.strip_prefix(&format!("{t}(")).unwrap();
            let v: i64 = v.strip_suffix(')').unwrap().parse().unwrap();
            assert_eq!(v, sys[n], "{n}");
            typed += 1;
        }
    }
    assert_eq!(
        typed,
        handles
            .keys()
            .filter(|n| !generator::c_only_constant(n))
            .count()
    );
    for line in [
        "  type(MPI_Comm), parameter :: MPI_COMM_WORLD = MPI_Comm(1140850688)\n",
        "  type(MPI_Datatype), parameter :: MPI_INTEGER = MPI_Datatype(1275069538)\n",
        "  type(MPI_Op), parameter :: MPI_SUM = MPI_Op(1476395011)\n",
        "  type(MPI_Request), parameter :: MPI_REQUEST_NULL = MPI_Request(738197504)\n",
        "  integer, parameter :: MPI_ANY_SOURCE = -2\n",
        "  integer, parameter :: MPI_STATUS_SIZE = 5\n",
        "  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .false.\n",
        "  logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false.\n",
    ] {
        assert!(text.contains(line), "{line}");
    }
}

#[test]
fn handle_and_status_types_have_the_c_layout() {
    let text = module();
    for t in f08::HANDLE_TYPES {
        assert!(
            text.contains(&format!(
                "  type, bind(C) :: {t}\n    integer :: MPI_VAL\n  end type {t}\n"
            )),
            "{t}"
        );
    }
    // the fields of C's MPI_Status, in its order; the count private
    assert!(text.contains(
        "  type, bind(C) :: MPI_Status\n    integer, private :: count_lo\n    \
         integer, private :: count_hi_and_cancelled\n    integer :: MPI_SOURCE\n    \
         integer :: MPI_TAG\n    integer :: MPI_ERROR\n  end type MPI_Status\n"
    ));
    assert!(text.contains("  type(MPI_Status) :: MPI_STATUS_IGNORE\n"));
    assert!(text.contains("  type(MPI_Status) :: MPI_STATUSES_IGNORE(1)\n"));
    assert!(text.contains("  common /MPIFCMB3/ MPI_STATUS_IGNORE\n"));
    assert!(text.contains("  common /MPIFCMB2/ MPI_IN_PLACE\n"));
    assert!(text.contains("  integer :: MPI_UNWEIGHTED(1)\n"));
    assert!(text.contains(
        "    logical function vaced_f08_comm_eq(a, b) bind(C, name=\"vaced_f08_comm_eq\")\n      \
         import\n      type(MPI_Comm), intent(in) :: a, b\n"
    ));
}

#[test]
fn interfaces_as_the_standard_declares_them() {
    let text = module();
    for body in [
        // choice buffers: assumed rank, INTENT(IN) for sends, ASYNCHRONOUS
        // for nonblocking calls; handles typed; IERROR optional
        "  interface MPI_Send\n    subroutine MPI_Send_f08(buf, count, datatype, dest, tag, comm, \
         ierror) bind(C, name=\"mpi_send_f08\")\n      import\n      \
         type(*), dimension(..), intent(in) :: buf\n      integer, intent(in) :: count\n      \
         type(MPI_Datatype), intent(in) :: datatype\n      integer, intent(in) :: dest\n      \
         integer, intent(in) :: tag\n      type(MPI_Comm), intent(in) :: comm\n      \
         integer, optional, intent(out) :: ierror\n    end subroutine MPI_Send_f08\n  \
         end interface MPI_Send\n",
        "      type(*), dimension(..), asynchronous :: buf\n      integer, intent(in) :: count\n      \
         type(MPI_Datatype), intent(in) :: datatype\n      integer, intent(in) :: source\n",
        "  interface PMPI_Waitall\n    subroutine PMPI_Waitall_f08(count, array_of_requests, \
         array_of_statuses, ierror) &\n         bind(C, name=\"pmpi_waitall_f08\")\n      import\n      \
         integer, intent(in) :: count\n      type(MPI_Request), dimension(*) :: array_of_requests\n      \
         type(MPI_Status), dimension(*) :: array_of_statuses\n",
        // procedure arguments: no BIND(C), the routine's own name
        "  interface MPI_Op_create\n    subroutine MPI_Op_create(user_fn, commute, op, ierror)\n      \
         import\n      procedure(MPI_User_function) :: user_fn\n      \
         logical, intent(in) :: commute\n      type(MPI_Op) :: op\n",
        "    subroutine MPI_Comm_create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, &\n        \
         comm_keyval, extra_state, ierror)\n      import\n      \
         procedure(MPI_Comm_copy_attr_function) :: comm_copy_attr_fn\n",
        // strings
        "    subroutine MPI_Comm_get_name_f08(comm, comm_name, resultlen, ierror) \
         bind(C, name=\"mpi_comm_get_name_f08\")\n      import\n      \
         type(MPI_Comm), intent(in) :: comm\n      character(len=*) :: comm_name\n",
        // hand-written bindings
        "    subroutine MPI_Init_f08(ierror) bind(C, name=\"mpi_init_\")\n",
        "    double precision function MPI_Wtime_f08() bind(C, name=\"mpi_wtime_\")\n",
        "    subroutine MPI_Pcontrol_f08(level) bind(C, name=\"mpi_pcontrol_\")\n",
        "    subroutine MPI_Buffer_detach_f08(buffer_addr, size, ierror) \
         bind(C, name=\"mpi_buffer_detach_f08\")\n      import\n      \
         type(c_ptr) :: buffer_addr\n",
        "      integer(kind=MPI_ADDRESS_KIND), intent(in) :: size\n      \
         type(MPI_Info), intent(in) :: info\n      type(c_ptr) :: baseptr\n",
        "    subroutine MPI_Get_address_f08(location, address, ierror) \
         bind(C, name=\"mpi_get_address_f08\")\n      import\n      \
         type(*), dimension(..), asynchronous :: location\n",
        "      integer, dimension(*) :: sourceweights\n",
        "  procedure(MPI_Comm_copy_attr_function) :: MPI_COMM_DUP_FN\n",
    ] {
        assert!(text.contains(body), "not in mpi_f08.f90:\n{body}");
    }
    for removed in f08::REMOVED {
        let generic = format!("interface {removed}\n");
        assert!(
            !text.to_ascii_uppercase().contains(&generic),
            "{removed} was removed from MPI"
        );
    }
}

/// Every routine of the tables has its generic and specific, MPI_ and
/// PMPI_; every argument named like a handle is typed.
#[test]
fn every_routine_of_the_tables_is_in_the_module() {
    let text = module();
    let upper = text.to_ascii_uppercase();
    for s in sources() {
        for b in generator::parse_bindings(&s).unwrap() {
            let name = b.fortran_name();
            if f08::REMOVED.contains(&name.as_str()) {
                continue;
            }
            for p in ["", "P"] {
                assert!(
                    upper.contains(&format!("  INTERFACE {p}{name}\n")),
                    "no generic {p}{name}"
                );
            }
            for a in &b.args {
                if let Some(t) = f08::handle_of(&a.name) {
                    assert!(
                        matches!(a.kind.as_str(), "Int" | "IntOut" | "Ints"),
                        "{name}: {} is a handle of kind {}",
                        a.name,
                        a.kind
                    );
                    assert!(text.contains(&format!("type({t})")));
                }
            }
        }
    }
}

/// Integer arguments whose names look like handles but are not (the
/// standard's names): a new argument named like a handle and missing from
/// `HANDLE_ARGS` would be an INTEGER in mpi_f08 by mistake.
#[test]
fn handle_names_are_known() {
    const INTEGERS: [&str; 8] = [
        "comm_keyval",
        "win_keyval",
        "type_keyval",
        "lock_type",
        "split_type",
        "typeclass",
        "max_datatypes",
        "num_datatypes",
    ];
    let looks = [
        "comm", "type", "group", "request", "info", "win", "op", "errh", "file", "fh", "message",
    ];
    for s in sources() {
        for b in generator::parse_bindings(&s).unwrap() {
            for a in b.args.iter().filter(|a| a.kind.starts_with("Int")) {
                let n = a.name.as_str();
                if looks.iter().any(|l| n.contains(l))
                    && f08::handle_of(n).is_none()
                    && !INTEGERS.contains(&n)
                    && n != "required"
                {
                    panic!(
                        "{}: argument `{n}` looks like a handle: add it to HANDLE_ARGS in \
                         src/abi/fortran/generator_f08.rs (or to INTEGERS here)",
                        b.fortran_name()
                    );
                }
            }
        }
    }
}

/// A descriptor with room for `N` dimensions, as gfortran builds one.
#[repr(C)]
struct Desc<const N: usize> {
    head: CfiDesc,
    dims: [CfiDim; N],
}

fn desc<const N: usize>(base: *mut c_void, elem_len: usize, dims: [(isize, isize); N]) -> Desc<N> {
    Desc {
        head: CfiDesc {
            base_addr: base,
            elem_len,
            version: 1,
            rank: N as i8,
            attribute: 2,
            type_: 0,
            dim: [],
        },
        dims: dims.map(|(extent, sm)| CfiDim {
            lower_bound: 0,
            extent,
            sm,
        }),
    }
}

#[test]
fn buffers_come_from_descriptors() {
    let mut data = [0i32; 10];
    let base = data.as_mut_ptr() as *mut c_void;
    // SAFETY: each descriptor is followed by its dimensions.
    unsafe {
        let whole = desc(base, 4, [(10, 4)]);
        let mut b = kinds::Buf::new_f08(&whole.head);
        assert_eq!(b.c(), base);
        assert!(!b.noncontiguous());
        let strided = desc(base, 4, [(5, 8)]);
        let b = kinds::Buf::new_f08(&strided.head);
        assert!(b.noncontiguous());
        // MPI_GET_ADDRESS takes any section
        assert!(!kinds::Location::new_f08(&strided.head).noncontiguous());
        let in_place = desc(address_of(Special::InPlace) as *mut c_void, 4, []);
        assert_eq!(kinds::Buf::new_f08(&in_place.head).c(), MPI_IN_PLACE);
        // baseptr: the TYPE(C_PTR) itself
        assert_eq!(kinds::BufAddr::new_f08(base).c(), base);
    }
}

#[test]
fn strings_come_from_descriptors() {
    let mut text = *b"  key  ";
    let d = desc(text.as_mut_ptr() as *mut c_void, text.len(), []);
    // SAFETY: a scalar string descriptor of 7 characters.
    unsafe {
        let mut s = kinds::StrIn::new_f08(&d.head);
        let c = std::ffi::CStr::from_ptr(s.c());
        assert_eq!(c.to_bytes(), b"key");
        let mut out = kinds::StrOut::new_f08(&d.head);
        let p = out.c();
        p.copy_from_nonoverlapping(c"ab".as_ptr() as *const c_char, 3);
        out.finish();
    }
    assert_eq!(&text, b"ab     ");
}
