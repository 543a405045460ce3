//! Generator of the Fortran side of the ABI: `include/mpif.h` and
//! `include/mpi.f90` (the `mpi` module), written by build.rs from
//!
//! * the integer constants bindgen evaluated from include/mpi.h (its output,
//!   `mpi_sys.rs`), in the order and under the section titles of mpi.h, so
//!   no Fortran value is typed twice;
//! * the layout of `MPI_Status` (MPI_STATUS_SIZE, and the 1-based indices
//!   MPI_SOURCE / MPI_TAG / MPI_ERROR of its fields in a Fortran status);
//! * the binding table (`fortran!` blocks of src/abi/fortran/*.rs), for the
//!   explicit interfaces of the module and the check that every C function
//!   of mpi.h has a Fortran binding.
//!
//! `f08` (generator_f08.rs) writes include/mpi_f08.f90, the `mpi_f08`
//! module, from the same constants and tables.
//!
//! Plain std code: build.rs includes this file with `#[path]`, and the
//! crate's tests use it to check the generated files.
#![allow(dead_code)]

#[path = "generator_f08.rs"]
pub mod f08;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The special addresses of MPI: Fortran variables in COMMON blocks whose
/// storage the library defines (src/abi/fortran/commons.rs) and recognises
/// by address. (C name, COMMON block name, Fortran dimensions.)
pub const SPECIAL: [(&str, &str, &str); 6] = [
    ("MPI_BOTTOM", "MPIFCMB1", ""),
    ("MPI_IN_PLACE", "MPIFCMB2", ""),
    ("MPI_STATUS_IGNORE", "MPIFCMB3", "(MPI_STATUS_SIZE)"),
    ("MPI_STATUSES_IGNORE", "MPIFCMB4", "(MPI_STATUS_SIZE,1)"),
    // MPICH's block names for the weight markers of distributed graphs
    ("MPI_UNWEIGHTED", "MPIFCMB5", ""),
    ("MPI_WEIGHTS_EMPTY", "MPIFCMB9", ""),
];

/// Constants that are INTEGER(KIND=MPI_OFFSET_KIND) in Fortran (MPI_Offset
/// is 8 bytes), as MPICH declares them.
pub const OFFSET_CONSTANTS: &[&str] = &["MPI_DISPLACEMENT_CURRENT"];

/// C functions with no Fortran binding by design: the `_f2c` / `_c2f`
/// conversions exist for C code that receives Fortran handles, and the
/// tools interface (MPI_T_*) is C only in the standard.
pub fn c_only(name: &str) -> bool {
    name.ends_with("_f2c") || name.ends_with("_c2f") || name.starts_with("MPI_T_")
}

/// Constants of mpi.h that Fortran does not get: those of the tools
/// interface (C only), except its error classes, which MPI defines for
/// Fortran too.
pub fn c_only_constant(name: &str) -> bool {
    name.starts_with("MPI_T_") && !name.starts_with("MPI_T_ERR_")
}

/// The Fortran interface of a binding written by hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandIface {
    /// A subroutine with these arguments (binding-table syntax) and IERROR.
    Sub(&'static str),
    /// A DOUBLE PRECISION function without arguments.
    DoubleFn,
    /// An INTEGER(KIND=MPI_ADDRESS_KIND) function with these arguments.
    AintFn(&'static str),
    /// No explicit interface (MPI_PCONTROL: programs pass extra arguments).
    Open,
}

/// Bindings written by hand in src/abi/fortran/special.rs, attr.rs, info.rs,
/// graph.rs, p2p_more.rs and rma.rs:
/// (Fortran symbol, C function it calls, interface). `Proc` arguments are
/// procedures (EXTERNAL).
pub const HAND_WRITTEN: &[(&str, &str, HandIface)] = &[
    ("mpi_init_", "PMPI_Init", HandIface::Sub("")),
    (
        "mpi_init_thread_",
        "PMPI_Init_thread",
        HandIface::Sub("required: Int, provided: IntOut"),
    ),
    ("mpi_wtime_", "PMPI_Wtime", HandIface::DoubleFn),
    ("mpi_wtick_", "PMPI_Wtick", HandIface::DoubleFn),
    ("mpi_pcontrol_", "PMPI_Pcontrol", HandIface::Open),
    (
        "mpi_buffer_detach_",
        "PMPI_Buffer_detach",
        HandIface::Sub("buffer_addr: Buf, size: IntOut"),
    ),
    (
        "mpi_aint_add_",
        "PMPI_Aint_add",
        HandIface::AintFn("base: Aint, disp: Aint"),
    ),
    (
        "mpi_aint_diff_",
        "PMPI_Aint_diff",
        HandIface::AintFn("addr1: Aint, addr2: Aint"),
    ),
    (
        "mpi_type_hvector_",
        "PMPI_Type_hvector",
        HandIface::Sub("count: Int, blocklength: Int, stride: Int, oldtype: Int, newtype: IntOut"),
    ),
    (
        "mpi_type_hindexed_",
        "PMPI_Type_hindexed",
        HandIface::Sub("count: Int, array_of_blocklengths: Ints, array_of_displacements: Ints, oldtype: Int, newtype: IntOut"),
    ),
    (
        "mpi_type_struct_",
        "PMPI_Type_struct",
        HandIface::Sub("count: Int, array_of_blocklengths: Ints, array_of_displacements: Ints, array_of_types: Ints, newtype: IntOut"),
    ),
    (
        "mpi_address_",
        "PMPI_Address",
        HandIface::Sub("location: Buf, address: IntOut"),
    ),
    (
        "mpi_type_extent_",
        "PMPI_Type_extent",
        HandIface::Sub("datatype: Int, extent: IntOut"),
    ),
    (
        "mpi_type_lb_",
        "PMPI_Type_lb",
        HandIface::Sub("datatype: Int, displacement: IntOut"),
    ),
    (
        "mpi_type_ub_",
        "PMPI_Type_ub",
        HandIface::Sub("datatype: Int, displacement: IntOut"),
    ),
    (
        "mpi_comm_create_keyval_",
        "PMPI_Comm_create_keyval",
        HandIface::Sub("comm_copy_attr_fn: Proc, comm_delete_attr_fn: Proc, comm_keyval: IntOut, extra_state: Aint"),
    ),
    (
        "mpi_grequest_start_",
        "PMPI_Grequest_start",
        HandIface::Sub("query_fn: Proc, free_fn: Proc, cancel_fn: Proc, extra_state: Aint, request: IntOut"),
    ),
    (
        "mpi_keyval_create_",
        "PMPI_Keyval_create",
        HandIface::Sub("copy_fn: Proc, delete_fn: Proc, keyval: IntOut, extra_state: Int"),
    ),
    (
        "mpi_comm_set_attr_",
        "PMPI_Comm_set_attr",
        HandIface::Sub("comm: Int, comm_keyval: Int, attribute_val: Aint"),
    ),
    (
        "mpi_attr_put_",
        "PMPI_Attr_put",
        HandIface::Sub("comm: Int, keyval: Int, attribute_val: Int"),
    ),
    (
        "mpi_win_get_attr_",
        "PMPI_Win_get_attr",
        HandIface::Sub("win: Int, win_keyval: Int, attribute_val: AintOut, flag: Flag"),
    ),
    (
        "mpi_type_create_keyval_",
        "PMPI_Type_create_keyval",
        HandIface::Sub("type_copy_attr_fn: Proc, type_delete_attr_fn: Proc, type_keyval: IntOut, extra_state: Aint"),
    ),
    (
        "mpi_win_create_keyval_",
        "PMPI_Win_create_keyval",
        HandIface::Sub("win_copy_attr_fn: Proc, win_delete_attr_fn: Proc, win_keyval: IntOut, extra_state: Aint"),
    ),
    (
        "mpi_type_set_attr_",
        "PMPI_Type_set_attr",
        HandIface::Sub("datatype: Int, type_keyval: Int, attribute_val: Aint"),
    ),
    (
        "mpi_win_set_attr_",
        "PMPI_Win_set_attr",
        HandIface::Sub("win: Int, win_keyval: Int, attribute_val: Aint"),
    ),
    (
        "mpi_type_get_attr_",
        "PMPI_Type_get_attr",
        HandIface::Sub("datatype: Int, type_keyval: Int, attribute_val: AintOut, flag: Flag"),
    ),
    (
        "mpi_comm_get_attr_",
        "PMPI_Comm_get_attr",
        HandIface::Sub("comm: Int, comm_keyval: Int, attribute_val: AintOut, flag: Flag"),
    ),
    (
        "mpi_attr_get_",
        "PMPI_Attr_get",
        HandIface::Sub("comm: Int, keyval: Int, attribute_val: IntOut, flag: Flag"),
    ),
    // io.rs
    (
        "mpi_register_datarep_",
        "PMPI_Register_datarep",
        HandIface::Sub("datarep: StrIn, read_conversion_fn: Proc, write_conversion_fn: Proc, dtype_file_extent_fn: Proc, extra_state: Aint"),
    ),
    // info.rs
    (
        "mpi_info_get_",
        "PMPI_Info_get",
        HandIface::Sub("info: Int, key: StrIn, valuelen: Int, value: StrOut, flag: Flag"),
    ),
    (
        "mpi_info_get_string_",
        "PMPI_Info_get_string",
        HandIface::Sub("info: Int, key: StrIn, buflen: IntOut, value: StrOut, flag: Flag"),
    ),
    (
        "mpi_info_create_env_",
        "PMPI_Info_create_env",
        HandIface::Sub("info: IntOut"),
    ),
    // session.rs
    (
        "mpi_session_get_nth_pset_",
        "PMPI_Session_get_nth_pset",
        HandIface::Sub("session: Int, info: Int, n: Int, pset_len: IntOut, pset_name: StrOut"),
    ),
    // graph.rs: weight arrays are declared like choice buffers (any rank),
    // so that the scalars MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY fit them
    (
        "mpi_dist_graph_create_",
        "PMPI_Dist_graph_create",
        HandIface::Sub("comm_old: Int, n: Int, sources: Ints, degrees: Ints, destinations: Ints, weights: Buf, info: Int, reorder: Logical, comm_dist_graph: IntOut"),
    ),
    (
        "mpi_dist_graph_create_adjacent_",
        "PMPI_Dist_graph_create_adjacent",
        HandIface::Sub("comm_old: Int, indegree: Int, sources: Ints, sourceweights: Buf, outdegree: Int, destinations: Ints, destweights: Buf, info: Int, reorder: Logical, comm_dist_graph: IntOut"),
    ),
    (
        "mpi_dist_graph_neighbors_",
        "PMPI_Dist_graph_neighbors",
        HandIface::Sub("comm: Int, maxindegree: Int, sources: Ints, sourceweights: Buf, maxoutdegree: Int, destinations: Ints, destweights: Buf"),
    ),
];

/// The predefined attribute callback procedures (src/abi/fortran/attr.rs):
/// Fortran name and arguments (all but IERROR). EXTERNAL in mpif.h, with
/// explicit interfaces in the module.
pub const PREDEFINED_PROCS: [(&str, &str); 12] = [
    ("MPI_COMM_NULL_COPY_FN", COPY_ARGS),
    ("MPI_COMM_NULL_DELETE_FN", DELETE_ARGS),
    ("MPI_COMM_DUP_FN", COPY_ARGS),
    ("MPI_TYPE_NULL_COPY_FN", COPY_ARGS),
    ("MPI_TYPE_NULL_DELETE_FN", DELETE_ARGS),
    ("MPI_TYPE_DUP_FN", COPY_ARGS),
    ("MPI_WIN_NULL_COPY_FN", COPY_ARGS),
    ("MPI_WIN_NULL_DELETE_FN", DELETE_ARGS),
    ("MPI_WIN_DUP_FN", COPY_ARGS),
    ("MPI_NULL_COPY_FN", COPY_ARGS_1),
    ("MPI_NULL_DELETE_FN", DELETE_ARGS_1),
    ("MPI_DUP_FN", COPY_ARGS_1),
];
const COPY_ARGS: &str = "oldcomm: Int, comm_keyval: Int, extra_state: Aint, \
    attribute_val_in: Aint, attribute_val_out: AintOut, flag: Flag";
const DELETE_ARGS: &str = "comm: Int, comm_keyval: Int, attribute_val: Aint, extra_state: Aint";
const COPY_ARGS_1: &str = "oldcomm: Int, keyval: Int, extra_state: Int, \
    attribute_val_in: Int, attribute_val_out: IntOut, flag: Flag";
const DELETE_ARGS_1: &str = "comm: Int, keyval: Int, attribute_val: Int, extra_state: Int";

/// The declaration of a choice buffer: gfortran's NO_ARG_CHECK lets it
/// take a variable or array of any type, kind and rank (as the buffers of
/// MPICH's `mpi` module built with gfortran), so programs need no
/// -fallow-argument-mismatch.
const CHOICE: &str = "type(*), dimension(*)";

/// How an argument kind of the binding table is declared in an explicit
/// interface.
fn declaration(kind: &str) -> Result<&'static str, String> {
    Ok(match kind {
        "Buf" => CHOICE,
        "Int" => "integer, intent(in)",
        "IntOut" | "Index" => "integer",
        "Ints" => "integer, dimension(*)",
        "Ranges" => "integer, dimension(3, *)",
        "Proc" | "UserFunction" => "external",
        "ErrhandlerFunction" | "FileErrhandlerFunction" => "external",
        "Offset" => "integer(kind=MPI_OFFSET_KIND), intent(in)",
        "OffsetOut" => "integer(kind=MPI_OFFSET_KIND)",
        "Logical" => "logical, intent(in)",
        "Flag" => "logical",
        "Logicals" => "logical, dimension(*)",
        "Double" => "double precision, intent(in)",
        "Aint" => "integer(kind=MPI_ADDRESS_KIND), intent(in)",
        "AintOut" => "integer(kind=MPI_ADDRESS_KIND)",
        "Aints" => "integer(kind=MPI_ADDRESS_KIND), dimension(*)",
        "Count" => "integer(kind=MPI_COUNT_KIND), intent(in)",
        "CountOut" => "integer(kind=MPI_COUNT_KIND)",
        "Status" => "integer, dimension(MPI_STATUS_SIZE)",
        "Statuses" => "integer, dimension(MPI_STATUS_SIZE, *)",
        "StrIn" => "character(len=*), intent(in)",
        "StrOut" => "character(len=*)",
        other => return Err(format!("unknown argument kind `{other}`")),
    })
}

/// One argument of a binding: name and kind (`name: Kind[len]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    pub name: String,
    pub kind: String,
}

/// One line of a `fortran!` block: `mpi_x_ = PMPI_X(args) [then hook(...)];`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The Fortran symbol (`mpi_send_`).
    pub symbol: String,
    /// The C function called (`PMPI_Send`).
    pub c: String,
    pub args: Vec<Arg>,
}

impl Binding {
    /// The Fortran name (`MPI_SEND`).
    pub fn fortran_name(&self) -> String {
        self.symbol.trim_end_matches('_').to_ascii_uppercase()
    }
}

fn parse_args(spec: &str, what: &str) -> Result<Vec<Arg>, String> {
    let mut args = Vec::new();
    for a in spec.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        let (name, kind) = a
            .split_once(':')
            .ok_or_else(|| format!("{what}: argument `{a}` is not `name: Kind`"))?;
        let kind = kind.trim();
        let kind = kind.split_once('[').map_or(kind, |(k, _)| k).trim();
        declaration(kind).map_err(|e| format!("{what}: {e}"))?;
        args.push(Arg {
            name: name.trim().to_string(),
            kind: kind.to_string(),
        });
    }
    Ok(args)
}

/// Parses one binding line (already trimmed).
fn parse_binding(line: &str) -> Result<Binding, String> {
    let bad = || format!("cannot read binding line `{line}`");
    let (symbol, rest) = line.split_once('=').ok_or_else(bad)?;
    let symbol = symbol.trim();
    let rest = rest.trim().strip_suffix(';').ok_or_else(bad)?;
    let (c, rest) = rest.split_once('(').ok_or_else(bad)?;
    let close = rest.find(')').ok_or_else(bad)?;
    let tail = rest[close + 1..].trim();
    if !(tail.is_empty() || tail.starts_with("then ")) {
        return Err(bad());
    }
    let ident =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !ident(symbol) || !symbol.ends_with('_') || !ident(c.trim()) {
        return Err(bad());
    }
    Ok(Binding {
        symbol: symbol.to_string(),
        c: c.trim().to_string(),
        args: parse_args(&rest[..close], line)?,
    })
}

/// The bindings of the `fortran! { ... }` blocks of one source file. Every
/// line inside a block must be a binding, a comment or blank.
pub fn parse_bindings(source: &str) -> Result<Vec<Binding>, String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in source.lines().map(str::trim) {
        if !inside {
            inside = line == "fortran! {";
            continue;
        }
        if line == "}" {
            inside = false;
        } else if !(line.is_empty() || line.starts_with("//")) {
            out.push(parse_binding(line)?);
        }
    }
    if inside {
        return Err("unterminated `fortran! {` block".to_string());
    }
    Ok(out)
}

/// The C functions declared in mpi.h (MPI_ and MPIX_ names, not PMPI_).
pub fn c_functions(mpi_h: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in mpi_h.lines() {
        let starts_decl = line.starts_with(|c: char| c.is_ascii_alphabetic())
            && !line.starts_with("typedef")
            && !line.starts_with("extern");
        let Some(open) = line.find('(').filter(|_| starts_decl) else {
            continue;
        };
        let name = line[..open].rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        if let Some(name) = name.into_iter().next() {
            if name.starts_with("MPI_") || name.starts_with("MPIX_") {
                out.insert(name.to_string());
            }
        }
    }
    out
}

/// What bindgen produced: integer constants, the `MPI_Status` fields and
/// the integer typedefs.
#[derive(Debug, Default)]
pub struct Sys {
    pub ints: BTreeMap<String, i64>,
    pub status_fields: Vec<String>,
    pub typedef_bytes: BTreeMap<String, usize>,
}

/// Reads bindgen's output (`pub const X: ...c_int = V;`, `pub type X = ...;`,
/// `pub struct MPI_Status { pub f: c_int, ... }`).
pub fn parse_sys(sys_rs: &str) -> Result<Sys, String> {
    let mut sys = Sys::default();
    let mut in_status = false;
    for line in sys_rs.lines().map(str::trim) {
        if in_status {
            if line.starts_with('}') {
                in_status = false;
            } else if let Some(f) = line.strip_prefix("pub ") {
                let (name, ty) = f.split_once(':').ok_or(format!("bad field `{line}`"))?;
                if ty.trim().trim_end_matches(',') != "::std::os::raw::c_int" {
                    return Err(format!("MPI_Status field `{name}` is not an int"));
                }
                sys.status_fields.push(name.trim().to_string());
            }
        } else if line.starts_with("pub struct MPI_Status {") {
            in_status = true;
        } else if let Some(c) = line.strip_prefix("pub const ") {
            let (name, rest) = c.split_once(':').ok_or(format!("bad const `{line}`"))?;
            let (ty, value) = rest.split_once('=').ok_or(format!("bad const `{line}`"))?;
            let int_type = ty.trim().ends_with("c_int") || ty.trim().starts_with("MPI_");
            if let (true, Ok(v)) = (int_type, value.trim().trim_end_matches(';').parse()) {
                sys.ints.insert(name.trim().to_string(), v);
            }
        } else if let Some(t) = line.strip_prefix("pub type ") {
            let (name, ty) = t.split_once('=').ok_or(format!("bad type `{line}`"))?;
            let bytes = match ty.trim().trim_end_matches(';').rsplit("::").next() {
                Some("c_int" | "c_uint") => 4,
                Some("c_long" | "c_ulong") => std::mem::size_of::<std::os::raw::c_long>(),
                Some("c_longlong" | "c_ulonglong") => 8,
                _ => continue,
            };
            sys.typedef_bytes.insert(name.trim().to_string(), bytes);
        }
    }
    Ok(sys)
}

/// One entry of mpif.h / the module, in mpi.h order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Section(String),
    Const(String, i64),
}

/// The constants of mpi.h as Fortran sees them: every integer `#define`
/// with an MPI_ / MPIX_ name (value from bindgen), then the Fortran-only
/// ones (status indices, integer kinds). Pointer-valued defines are the
/// special addresses ([`SPECIAL`]); one not listed there is reported in
/// the second result (it needs a COMMON block).
pub fn constants(mpi_h: &str, sys: &Sys) -> Result<(Vec<Item>, Vec<String>), String> {
    let mut items = Vec::new();
    let mut unmapped = Vec::new();
    let mut seen = BTreeSet::new();
    for line in mpi_h.lines().map(str::trim) {
        if let Some(title) = line.strip_prefix("/* ----") {
            let title = title.trim_end_matches(['-', '*', '/', ' ']).trim();
            items.push(Item::Section(title.to_string()));
            continue;
        }
        let Some(def) = line.strip_prefix("#define ") else {
            continue;
        };
        let name_end = def
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(def.len());
        let (name, value) = def.split_at(name_end);
        // not an MPI name, or a function-like macro
        if !(name.starts_with("MPI_") || name.starts_with("MPIX_"))
            || value.starts_with('(')
            || c_only_constant(name)
        {
            continue;
        }
        // Predefined callback procedures (MPI_COMM_DUP_FN, ...) are C
        // function pointers; Fortran callers get procedures of their own
        // (bound with the Fortran callbacks, not as constants).
        if name.ends_with("_FN") {
            continue;
        }
        if !seen.insert(name.to_ascii_uppercase()) {
            return Err(format!(
                "mpi.h defines `{name}` twice (Fortran names ignore case)"
            ));
        }
        if let Some(&v) = sys.ints.get(name) {
            if i32::try_from(v).is_err() {
                return Err(format!("{name} = {v} does not fit a Fortran INTEGER"));
            }
            items.push(Item::Const(name.to_string(), v));
        } else if SPECIAL.iter().any(|s| s.0 == name) {
            // a COMMON block variable
        } else if value.contains("*)") {
            unmapped.push(name.to_string());
        } else {
            return Err(format!(
                "mpi.h defines `{name}` as `{}`, which bindgen did not evaluate to an integer",
                value.trim()
            ));
        }
    }
    // Sections without constants (prototypes only) are left out.
    let keep: Vec<bool> = (0..items.len())
        .map(|i| match items[i] {
            Item::Section(_) => matches!(items.get(i + 1), Some(Item::Const(..))),
            Item::Const(..) => true,
        })
        .collect();
    let mut keep = keep.into_iter();
    items.retain(|_| keep.next().unwrap());
    let n = sys.status_fields.len();
    match sys.ints.get("MPI_STATUS_SIZE") {
        Some(&s) if s == n as i64 => {}
        other => {
            return Err(format!(
                "MPI_STATUS_SIZE is {other:?} but MPI_Status has {n} int fields"
            ))
        }
    }
    items.push(Item::Section("Fortran only".to_string()));
    for field in ["MPI_SOURCE", "MPI_TAG", "MPI_ERROR"] {
        let i = sys
            .status_fields
            .iter()
            .position(|f| f == field)
            .ok_or(format!("MPI_Status has no field {field}"))?;
        items.push(Item::Const(field.to_string(), i as i64 + 1));
    }
    for (kind, ty) in [
        ("MPI_ADDRESS_KIND", "MPI_Aint"),
        ("MPI_OFFSET_KIND", "MPI_Offset"),
        ("MPI_COUNT_KIND", "MPI_Count"),
        ("MPI_INTEGER_KIND", "MPI_Fint"),
    ] {
        let b = sys
            .typedef_bytes
            .get(ty)
            .ok_or(format!("mpi.h has no integer typedef {ty}"))?;
        items.push(Item::Const(kind.to_string(), *b as i64));
    }
    Ok((items, unmapped))
}

/// The generated files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    pub mpif_h: String,
    pub mpi_f90: String,
    /// include/mpi_f08.f90, the `mpi_f08` module (`f08`).
    pub mpi_f08_f90: String,
    /// Rust source: `SYS_INT_CONSTANTS`, every integer constant of mpi.h
    /// with its value as the Rust compiler sees it (for the tests).
    pub sys_table: String,
    /// Pointer constants of mpi.h without a Fortran counterpart.
    pub unmapped: Vec<String>,
    /// C functions of mpi.h without a Fortran binding.
    pub unbound: Vec<String>,
}

const MPIF_H_HEAD: &str = "\
! mpif.h -- MPI constants for Fortran programs (vaced).
!
! GENERATED from include/mpi.h by build.rs (with
! src/abi/fortran/generator.rs): do not edit; change mpi.h and rebuild.
!
! Valid in fixed and free form: declarations only, from column 7,
! within 72 columns, comments starting with '!'.
";

/// Appends a fixed-form-safe line (checked: at most 72 columns).
fn line72(out: &mut String, text: &str) -> Result<(), String> {
    if text.len() > 72 {
        return Err(format!("mpif.h line over 72 columns: `{text}`"));
    }
    out.push_str(text);
    out.push('\n');
    Ok(())
}

fn mpif_h(items: &[Item]) -> Result<String, String> {
    let mut o = String::new();
    for l in MPIF_H_HEAD.lines() {
        line72(&mut o, l)?;
    }
    for item in items {
        match item {
            Item::Section(t) => {
                o.push_str("!\n");
                line72(&mut o, &format!("! ---- {t}"))?;
            }
            Item::Const(n, v) => {
                let ty = if OFFSET_CONSTANTS.contains(&n.as_str()) {
                    "INTEGER*8"
                } else {
                    "INTEGER"
                };
                line72(&mut o, &format!("      {ty} {n}"))?;
                line72(&mut o, &format!("      PARAMETER ({n}={v})"))?;
            }
        }
    }
    o.push_str("!\n! ---- special addresses (recognised by the library)\n");
    for (name, _, dims) in SPECIAL {
        line72(&mut o, &format!("      INTEGER {name}{dims}"))?;
    }
    for (name, block, _) in SPECIAL {
        line72(&mut o, &format!("      COMMON /{block}/ {name}"))?;
    }
    // one SAVE per block: the list would not fit in 72 columns
    for (_, block, _) in SPECIAL {
        line72(&mut o, &format!("      SAVE /{block}/"))?;
    }
    o.push_str("!\n! ---- functions\n");
    line72(&mut o, "      DOUBLE PRECISION MPI_WTIME, MPI_WTICK")?;
    line72(&mut o, "      DOUBLE PRECISION PMPI_WTIME, PMPI_WTICK")?;
    line72(
        &mut o,
        "      EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK",
    )?;
    // MPI_AINT_ADD / MPI_AINT_DIFF are not declared: as with MPICH's
    // mpif.h, the program declares them (INTEGER(KIND=MPI_ADDRESS_KIND),
    // EXTERNAL); the `mpi` module has their interfaces.
    o.push_str("!\n! ---- predefined attribute callback procedures\n");
    for (name, _) in PREDEFINED_PROCS {
        line72(&mut o, &format!("      EXTERNAL {name}"))?;
    }
    Ok(o)
}

const MPI_F90_HEAD: &str = "\
! mpi.f90 -- the `mpi` module of vaced (use mpi).
!
! GENERATED by build.rs (src/abi/fortran/generator.rs) from include/mpi.h and
! the binding table of src/abi/fortran/: do not edit. build.rs compiles
! it with the installed gfortran into target/<profile>/fmod/mpi.mod.
!
! As MPICH's module: explicit interfaces for the routines without choice
! buffers (routines with one are called without an interface, like
! mpif.h's, so a program may pass any buffer, and may define its own
! MPI_SEND for profiling), MPI_PCONTROL aside; the generic MPI_SIZEOF.
";

/// An interface body: the arguments, then IERROR.
fn interface(o: &mut String, name: &str, args: &[Arg]) -> Result<(), String> {
    let mut names: Vec<&str> = args.iter().map(|a| a.name.as_str()).collect();
    names.push("ierror");
    // Free form allows 132 columns: continue long argument lists.
    let mut line = format!("    subroutine {name}(");
    for (i, n) in names.iter().enumerate() {
        let sep = if i + 1 == names.len() { ")" } else { ", " };
        if line.len() + n.len() + sep.len() > 100 {
            let _ = writeln!(o, "{} &", line.trim_end());
            line = "        ".to_string();
        }
        line.push_str(n);
        line.push_str(sep);
    }
    let _ = writeln!(o, "{line}");
    let mut imports = BTreeSet::new();
    let mut decls = String::new();
    for a in args {
        let d = declaration(&a.kind)?;
        if d == CHOICE {
            let _ = writeln!(decls, "      !GCC$ ATTRIBUTES NO_ARG_CHECK :: {}", a.name);
        }
        for k in [
            "MPI_STATUS_SIZE",
            "MPI_ADDRESS_KIND",
            "MPI_COUNT_KIND",
            "MPI_OFFSET_KIND",
        ] {
            if d.contains(k) {
                imports.insert(k);
            }
        }
        let _ = writeln!(decls, "      {d} :: {}", a.name);
    }
    if !imports.is_empty() {
        let v: Vec<&str> = imports.into_iter().collect();
        let _ = writeln!(o, "      import :: {}", v.join(", "));
    }
    o.push_str(&decls);
    o.push_str("      integer :: ierror\n");
    let _ = writeln!(o, "    end subroutine {name}");
    Ok(())
}

/// The interface body of an INTEGER(KIND=MPI_ADDRESS_KIND) function.
fn aint_function(o: &mut String, name: &str, args: &[Arg]) -> Result<(), String> {
    let names: Vec<&str> = args.iter().map(|a| a.name.as_str()).collect();
    let _ = writeln!(
        o,
        "    integer(kind=MPI_ADDRESS_KIND) function {name}({})",
        names.join(", ")
    );
    o.push_str("      import :: MPI_ADDRESS_KIND\n");
    for a in args {
        let _ = writeln!(o, "      {} :: {}", declaration(&a.kind)?, a.name);
    }
    let _ = writeln!(o, "    end function {name}");
    Ok(())
}

fn mpi_f90(items: &[Item], bindings: &[Binding]) -> Result<String, String> {
    let mut o = String::from(MPI_F90_HEAD);
    o.push_str("module mpi\n  implicit none\n");
    for item in items {
        match item {
            Item::Section(t) => {
                let _ = write!(o, "\n  ! ---- {t}\n");
            }
            Item::Const(n, v) if OFFSET_CONSTANTS.contains(&n.as_str()) => {
                let _ = writeln!(o, "  integer(kind=8), parameter :: {n} = {v}");
            }
            Item::Const(n, v) => {
                let _ = writeln!(o, "  integer, parameter :: {n} = {v}");
            }
        }
    }
    o.push_str("\n  ! ---- special addresses (recognised by the library)\n");
    for (name, _, dims) in SPECIAL {
        let _ = writeln!(o, "  integer :: {name}{dims}");
    }
    for (name, block, _) in SPECIAL {
        let _ = writeln!(o, "  common /{block}/ {name}");
    }
    let blocks: Vec<String> = SPECIAL.iter().map(|s| format!("/{}/", s.1)).collect();
    let _ = writeln!(o, "  save {}", blocks.join(", "));

    o.push_str("\n  interface\n");
    let mut subs: BTreeMap<String, Vec<Arg>> = BTreeMap::new();
    for b in bindings {
        subs.insert(b.fortran_name(), b.args.clone());
    }
    for (symbol, _, iface) in HAND_WRITTEN {
        let name = symbol.trim_end_matches('_').to_ascii_uppercase();
        match iface {
            HandIface::Sub(spec) => {
                subs.insert(name, parse_args(spec, symbol)?);
            }
            HandIface::DoubleFn => {
                for n in [name.clone(), format!("P{name}")] {
                    let _ = writeln!(o, "    double precision function {n}()");
                    let _ = writeln!(o, "    end function {n}");
                }
            }
            HandIface::AintFn(spec) => {
                let args = parse_args(spec, symbol)?;
                for n in [name.clone(), format!("P{name}")] {
                    aint_function(&mut o, &n, &args)?;
                }
            }
            HandIface::Open => {}
        }
    }
    for (name, spec) in PREDEFINED_PROCS {
        interface(&mut o, name, &parse_args(spec, name)?)?;
    }
    for (name, args) in &subs {
        if args.iter().any(|a| declaration(&a.kind) == Ok(CHOICE)) {
            continue;
        }
        interface(&mut o, name, args)?;
        interface(&mut o, &format!("P{name}"), args)?;
    }
    o.push_str("  end interface\n");
    sizeof_interface(&mut o);
    o.push_str("end module mpi\n");
    Ok(o)
}

/// The types MPI_SIZEOF takes: (suffix of the specific procedures,
/// declaration, size in bytes). The specifics are external procedures of
/// the library (src/abi/fortran/sizeof.rs), one for a scalar and one for an
/// array (`_V`) of each.
pub const SIZEOF_TYPES: [(&str, &str, usize); 16] = [
    ("I1", "integer(kind=1)", 1),
    ("I2", "integer(kind=2)", 2),
    ("I4", "integer(kind=4)", 4),
    ("I8", "integer(kind=8)", 8),
    ("R4", "real(kind=4)", 4),
    ("R8", "real(kind=8)", 8),
    ("R10", "real(kind=10)", 16),
    ("R16", "real(kind=16)", 16),
    ("C4", "complex(kind=4)", 8),
    ("C8", "complex(kind=8)", 16),
    ("C16", "complex(kind=16)", 32),
    ("L1", "logical(kind=1)", 1),
    ("L2", "logical(kind=2)", 2),
    ("L4", "logical(kind=4)", 4),
    ("L8", "logical(kind=8)", 8),
    ("CH", "character", 1),
];

/// The generic MPI_SIZEOF(X, SIZE, IERROR) of the module.
fn sizeof_interface(o: &mut String) {
    o.push_str("\n  interface MPI_SIZEOF\n");
    for (suffix, decl, _) in SIZEOF_TYPES {
        for (v, dims) in [("", ""), ("V", ", dimension(*)")] {
            let name = format!("MPI_SIZEOF_{suffix}{v}");
            let _ = writeln!(o, "    subroutine {name}(x, size, ierror)");
            let _ = writeln!(o, "      {decl}{dims} :: x");
            o.push_str("      integer :: size, ierror\n");
            let _ = writeln!(o, "    end subroutine {name}");
        }
    }
    o.push_str("  end interface MPI_SIZEOF\n");
}

/// Generates everything from mpi.h, bindgen's output and the sources of
/// src/abi/fortran/ (the files with `fortran!` blocks).
pub fn generate(mpi_h: &str, sys_rs: &str, sources: &[&str]) -> Result<Generated, String> {
    let sys = parse_sys(sys_rs)?;
    let (items, unmapped) = constants(mpi_h, &sys)?;
    let mut bindings = Vec::new();
    for s in sources {
        bindings.extend(parse_bindings(s)?);
    }
    let mut bound: BTreeSet<String> = BTreeSet::new();
    for b in &bindings {
        bound.insert(b.c.trim_start_matches('P').to_string());
    }
    for (_, c, _) in HAND_WRITTEN {
        bound.insert(c.trim_start_matches('P').to_string());
    }
    let unbound = c_functions(mpi_h)
        .into_iter()
        .filter(|f| !c_only(f) && !bound.contains(f))
        .collect();
    let mut sys_table = String::from(
        "/// Every integer constant of mpi.h, as the Rust compiler evaluates\n\
         /// bindgen's constant (generated by build.rs).\n\
         pub(crate) const SYS_INT_CONSTANTS: &[(&str, i64)] = &[\n",
    );
    for name in sys.ints.keys() {
        let _ = writeln!(sys_table, "    (\"{name}\", crate::sys::{name} as i64),");
    }
    sys_table.push_str("];\n");
    Ok(Generated {
        mpif_h: mpif_h(&items)?,
        mpi_f90: mpi_f90(&items, &bindings)?,
        mpi_f08_f90: f08::mpi_f08(mpi_h, &sys, &items, &bindings)?,
        sys_table,
        unmapped,
        unbound,
    })
}
