//! Generator of `include/mpi_f08.f90`, the `mpi_f08` module (MPI-3.1
//! section 17.2), from the same sources as the `mpi` module: the constants
//! of mpi.h (each handle constant with its C type, from its cast in
//! mpi.h), the binding table and the hand-written bindings (generator.rs).
//! A routine added to a `fortran!` table gets its mpi_f08 interface with no
//! more work.
//!
//! # Design
//!
//! The module holds types, constants and interfaces only (no module
//! procedures): every procedure it names is in libvaced, so a program
//! links nothing more than with the `mpi` module.
//!
//! * Handles are `TYPE, BIND(C)` with one `INTEGER :: MPI_VAL`, the C (and
//!   `mpi` module) handle; `TYPE(MPI_Status)` is `BIND(C)` with the fields
//!   of C's MPI_Status in C's order (MPI_SOURCE, MPI_TAG, MPI_ERROR public,
//!   the count private). Passed by reference, both have the memory of the
//!   `mpi` module's INTEGER handle and INTEGER status, so the library reads
//!   them as it reads those. `==` / `/=` compare handles (`f08.rs`; scalars: a BIND(C) function
//!   cannot be ELEMENTAL).
//! * Handle arguments are recognised by name ([`HANDLE_ARGS`]: the names
//!   the MPI standard gives them, and no other argument has); a handle
//!   constant by the type of its cast in mpi.h.
//! * A routine of the table gets a specific `MPI_X_f08` (and `PMPI_X_f08`)
//!   declared `BIND(C, NAME="mpi_x_f08")`, the twin that the `fortran!`
//!   macro defines for each line (macros.rs): choice buffers are
//!   `TYPE(*), DIMENSION(..)` and strings `CHARACTER(LEN=*)`, which gfortran
//!   passes as C descriptors (`cfi.rs`); IERROR is OPTIONAL (null when
//!   absent). The generic `MPI_X` names it.
//! * Fortran forbids procedure arguments in a `BIND(C)` interface: a
//!   routine that takes one (MPI_Op_create, the errhandler and keyval
//!   constructors, MPI_Grequest_start) is declared without BIND(C) under
//!   its own name, which gfortran links to the `mpi` module's binding
//!   (`mpi_op_create_`; same arguments by reference, hidden string lengths,
//!   null for an absent IERROR); its specific name is then `MPI_X` itself.
//!   Callbacks are `PROCEDURE(<abstract interface>)` of the standard.
//! * A hand-written binding without buffers, strings or procedures is
//!   declared `BIND(C)` with the label of its `mpi` binding; one with them
//!   like a routine taking a procedure. MPI_Buffer_detach has its own
//!   (`mpi_buffer_detach_f08`: its TYPE(C_PTR) gets the address).
//! * MPI_SUBARRAYS_SUPPORTED = .FALSE.: a buffer must be contiguous; the
//!   `_f08` binding refuses one that is not (an array section with a
//!   stride) with MPI_ERR_BUFFER. MPI_ASYNC_PROTECTS_NONBLOCKING = .FALSE.
//!   (gfortran does not): buffers of nonblocking, persistent and one-sided
//!   calls are ASYNCHRONOUS as the standard declares them.
//! * The routines that MPI-3.0 removed (MPI_ADDRESS, MPI_TYPE_EXTENT, ...)
//!   are not in the module ([`REMOVED`]).

use super::{
    parse_args, Arg, Binding, HandIface, Item, Sys, HAND_WRITTEN, PREDEFINED_PROCS, SIZEOF_TYPES,
    SPECIAL,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The handle types of mpi_f08, by their C typedef names.
pub const HANDLE_TYPES: [&str; 11] = [
    "MPI_Comm",
    "MPI_Datatype",
    "MPI_Group",
    "MPI_Request",
    "MPI_Op",
    "MPI_Errhandler",
    "MPI_Info",
    "MPI_Win",
    "MPI_File",
    "MPI_Message",
    "MPI_Session",
];

/// Arguments that are handles, by the names the MPI standard gives them
/// (no argument of another kind has one of these names).
pub const HANDLE_ARGS: &[(&str, &str)] = &[
    ("comm", "MPI_Comm"),
    ("comm1", "MPI_Comm"),
    ("comm2", "MPI_Comm"),
    ("comm_old", "MPI_Comm"),
    ("comm_cart", "MPI_Comm"),
    ("comm_graph", "MPI_Comm"),
    ("comm_dist_graph", "MPI_Comm"),
    ("newcomm", "MPI_Comm"),
    ("oldcomm", "MPI_Comm"),
    ("intercomm", "MPI_Comm"),
    ("local_comm", "MPI_Comm"),
    ("peer_comm", "MPI_Comm"),
    ("newintercomm", "MPI_Comm"),
    ("newintracomm", "MPI_Comm"),
    ("parent", "MPI_Comm"),
    ("datatype", "MPI_Datatype"),
    ("sendtype", "MPI_Datatype"),
    ("recvtype", "MPI_Datatype"),
    ("sendtypes", "MPI_Datatype"),
    ("recvtypes", "MPI_Datatype"),
    ("oldtype", "MPI_Datatype"),
    ("newtype", "MPI_Datatype"),
    ("origin_datatype", "MPI_Datatype"),
    ("target_datatype", "MPI_Datatype"),
    ("result_datatype", "MPI_Datatype"),
    ("array_of_types", "MPI_Datatype"),
    ("array_of_datatypes", "MPI_Datatype"),
    ("etype", "MPI_Datatype"),
    ("filetype", "MPI_Datatype"),
    ("group", "MPI_Group"),
    ("group1", "MPI_Group"),
    ("group2", "MPI_Group"),
    ("newgroup", "MPI_Group"),
    ("local_group", "MPI_Group"),
    ("remote_group", "MPI_Group"),
    ("request", "MPI_Request"),
    ("array_of_requests", "MPI_Request"),
    ("op", "MPI_Op"),
    ("errhandler", "MPI_Errhandler"),
    ("info", "MPI_Info"),
    ("info_used", "MPI_Info"),
    ("newinfo", "MPI_Info"),
    ("array_of_info", "MPI_Info"),
    ("win", "MPI_Win"),
    ("oldwin", "MPI_Win"),
    ("fh", "MPI_File"),
    ("file", "MPI_File"),
    ("message", "MPI_Message"),
    ("session", "MPI_Session"),
];

/// The handle type of an argument, by its name.
pub fn handle_of(arg: &str) -> Option<&'static str> {
    HANDLE_ARGS.iter().find(|h| h.0 == arg).map(|h| h.1)
}

/// Routines MPI-3.0 removed: no mpi_f08 binding (the `mpi` module and
/// mpif.h keep them).
pub const REMOVED: [&str; 10] = [
    "MPI_ADDRESS",
    "MPI_ERRHANDLER_CREATE",
    "MPI_ERRHANDLER_GET",
    "MPI_ERRHANDLER_SET",
    "MPI_TYPE_EXTENT",
    "MPI_TYPE_HINDEXED",
    "MPI_TYPE_HVECTOR",
    "MPI_TYPE_LB",
    "MPI_TYPE_STRUCT",
    "MPI_TYPE_UB",
];

/// Hand-written bindings with an mpi_f08 binding of their own
/// (src/abi/fortran/f08.rs): Fortran name and binding label.
pub const F08_LABELS: [(&str, &str); 1] = [("MPI_BUFFER_DETACH", "mpi_buffer_detach_f08")];

/// The abstract interfaces of the callbacks (MPI-3.1 17.2 and annex A.3).
const ABSTRACT_INTERFACES: &str = "\
  abstract interface
    subroutine MPI_User_function(invec, inoutvec, len, datatype)
      import
      type(c_ptr), value :: invec, inoutvec
      integer :: len
      type(MPI_Datatype) :: datatype
    end subroutine MPI_User_function
    subroutine MPI_Comm_copy_attr_function(oldcomm, comm_keyval, extra_state, &
        attribute_val_in, attribute_val_out, flag, ierror)
      import
      type(MPI_Comm) :: oldcomm
      integer :: comm_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine MPI_Comm_copy_attr_function
    subroutine MPI_Comm_delete_attr_function(comm, comm_keyval, attribute_val, extra_state, ierror)
      import
      type(MPI_Comm) :: comm
      integer :: comm_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine MPI_Comm_delete_attr_function
    subroutine MPI_Win_copy_attr_function(oldwin, win_keyval, extra_state, &
        attribute_val_in, attribute_val_out, flag, ierror)
      import
      type(MPI_Win) :: oldwin
      integer :: win_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine MPI_Win_copy_attr_function
    subroutine MPI_Win_delete_attr_function(win, win_keyval, attribute_val, extra_state, ierror)
      import
      type(MPI_Win) :: win
      integer :: win_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine MPI_Win_delete_attr_function
    subroutine MPI_Type_copy_attr_function(oldtype, type_keyval, extra_state, &
        attribute_val_in, attribute_val_out, flag, ierror)
      import
      type(MPI_Datatype) :: oldtype
      integer :: type_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine MPI_Type_copy_attr_function
    subroutine MPI_Type_delete_attr_function(datatype, type_keyval, attribute_val, extra_state, ierror)
      import
      type(MPI_Datatype) :: datatype
      integer :: type_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine MPI_Type_delete_attr_function
    subroutine MPI_Comm_errhandler_function(comm, error_code)
      import
      type(MPI_Comm) :: comm
      integer :: error_code
    end subroutine MPI_Comm_errhandler_function
    subroutine MPI_Win_errhandler_function(win, error_code)
      import
      type(MPI_Win) :: win
      integer :: error_code
    end subroutine MPI_Win_errhandler_function
    subroutine MPI_File_errhandler_function(file, error_code)
      import
      type(MPI_File) :: file
      integer :: error_code
    end subroutine MPI_File_errhandler_function
    subroutine MPI_Session_errhandler_function(session, error_code)
      import
      type(MPI_Session) :: session
      integer :: error_code
    end subroutine MPI_Session_errhandler_function
    subroutine MPI_Grequest_query_function(extra_state, status, ierror)
      import
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      type(MPI_Status) :: status
      integer :: ierror
    end subroutine MPI_Grequest_query_function
    subroutine MPI_Grequest_free_function(extra_state, ierror)
      import
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      integer :: ierror
    end subroutine MPI_Grequest_free_function
    subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)
      import
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      logical :: complete
      integer :: ierror
    end subroutine MPI_Grequest_cancel_function
    subroutine MPI_Datarep_extent_function(datatype, extent, extra_state, ierror)
      import
      type(MPI_Datatype) :: datatype
      integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
      integer :: ierror
    end subroutine MPI_Datarep_extent_function
    subroutine MPI_Datarep_conversion_function(userbuf, datatype, count, filebuf, &
        position, extra_state, ierror)
      import
      type(c_ptr), value :: userbuf, filebuf
      type(MPI_Datatype) :: datatype
      integer :: count, ierror
      integer(kind=MPI_OFFSET_KIND) :: position
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
    end subroutine MPI_Datarep_conversion_function
  end interface
";

/// The abstract interface of a procedure argument, by its name (`None`:
/// declared EXTERNAL; the MPI-1 MPI_KEYVAL_CREATE takes its callbacks so,
/// as programs pass it the MPI-2 predefined ones).
fn callback_interface(arg: &str) -> Option<&'static str> {
    Some(match arg {
        "user_fn" => "MPI_User_function",
        "comm_copy_attr_fn" => "MPI_Comm_copy_attr_function",
        "comm_delete_attr_fn" => "MPI_Comm_delete_attr_function",
        "win_copy_attr_fn" => "MPI_Win_copy_attr_function",
        "win_delete_attr_fn" => "MPI_Win_delete_attr_function",
        "type_copy_attr_fn" => "MPI_Type_copy_attr_function",
        "type_delete_attr_fn" => "MPI_Type_delete_attr_function",
        "comm_errhandler_fn" => "MPI_Comm_errhandler_function",
        "win_errhandler_fn" => "MPI_Win_errhandler_function",
        "file_errhandler_fn" => "MPI_File_errhandler_function",
        "session_errhandler_fn" => "MPI_Session_errhandler_function",
        "query_fn" => "MPI_Grequest_query_function",
        "free_fn" => "MPI_Grequest_free_function",
        "cancel_fn" => "MPI_Grequest_cancel_function",
        "read_conversion_fn" | "write_conversion_fn" => "MPI_Datarep_conversion_function",
        "dtype_file_extent_fn" => "MPI_Datarep_extent_function",
        _ => return None,
    })
}

/// The abstract interface of a predefined callback procedure, by its name.
fn predefined_interface(name: &str) -> Option<&'static str> {
    let copy = name.contains("COPY") || name.contains("DUP");
    let delete = name.contains("DELETE");
    let object = ["COMM", "WIN", "TYPE"]
        .into_iter()
        .find(|o| name.starts_with(&format!("MPI_{o}_")));
    Some(match (object, copy, delete) {
        (Some("COMM"), true, _) => "MPI_Comm_copy_attr_function",
        (Some("COMM"), _, true) => "MPI_Comm_delete_attr_function",
        (Some("WIN"), true, _) => "MPI_Win_copy_attr_function",
        (Some("WIN"), _, true) => "MPI_Win_delete_attr_function",
        (Some("TYPE"), true, _) => "MPI_Type_copy_attr_function",
        (Some("TYPE"), _, true) => "MPI_Type_delete_attr_function",
        _ if name.contains("CONVERSION") => "MPI_Datarep_conversion_function",
        _ => return None,
    })
}

/// The handle constants of mpi.h: name -> C type, from `((MPI_X)value)`.
pub fn handle_constants(mpi_h: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in mpi_h.lines().map(str::trim) {
        let Some(def) = line.strip_prefix("#define ") else {
            continue;
        };
        let Some((name, value)) = def.split_once(char::is_whitespace) else {
            continue;
        };
        let value = value.trim();
        if let Some(ty) = value
            .strip_prefix("((")
            .and_then(|v| v.split_once(')'))
            .map(|(t, _)| t.trim())
            .filter(|t| HANDLE_TYPES.contains(t))
        {
            out.insert(name.to_string(), ty.to_string());
        }
    }
    out
}

/// How a routine is declared in mpi_f08.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Form {
    /// `BIND(C, NAME=label)` specifics `MPI_X_f08` / `PMPI_X_f08`; the
    /// labels of the two.
    BindC(String, String),
    /// Without BIND(C), under the routine's own name (linked to the `mpi`
    /// binding).
    Plain,
}

/// One routine of the module.
#[derive(Debug, Clone)]
struct Routine {
    /// Mixed-case name (`MPI_Send`).
    name: String,
    args: Vec<Arg>,
    form: Form,
}

/// The name as the standard writes it: the C name without its `P`.
fn mixed_case(c: &str) -> String {
    c.strip_prefix('P').unwrap_or(c).to_string()
}

fn is_procedure(kind: &str) -> bool {
    matches!(
        kind,
        "Proc" | "UserFunction" | "ErrhandlerFunction" | "FileErrhandlerFunction"
    )
}

/// Is a choice buffer of this routine ASYNCHRONOUS (nonblocking,
/// persistent and one-sided calls, attached and window memory, addresses)?
fn asynchronous(routine: &Routine, arg: &str) -> bool {
    let has = |n: &str| routine.args.iter().any(|a| a.name == n);
    has("request")
        || has("win")
        || arg == "location"
        || matches!(
            routine.name.as_str(),
            "MPI_Buffer_attach" | "MPI_Free_mem" | "MPI_Win_create"
        )
}

/// Is a choice buffer only read (INTENT(IN))?
fn read_only(routine: &Routine, arg: &str) -> bool {
    let r = routine.name.to_ascii_lowercase();
    matches!(arg, "sendbuf" | "inbuf" | "origin_addr" | "compare_addr")
        || (arg == "buf" && r.contains("send") && !r.contains("recv"))
}

/// The declaration of argument `a` of `routine` in mpi_f08.
fn declaration(routine: &Routine, a: &Arg) -> Result<String, String> {
    let bind_c = matches!(routine.form, Form::BindC(..));
    let handle = handle_of(&a.name);
    let ty = |dflt: &str| handle.map_or(dflt.to_string(), |h| format!("type({h})"));
    Ok(match a.kind.as_str() {
        "Buf" if a.name == "baseptr" || a.name == "buffer_addr" => "type(c_ptr)".to_string(),
        "Buf" if a.name.ends_with("weights") => "integer, dimension(*)".to_string(),
        "Buf" if bind_c => {
            let mut d = "type(*), dimension(..)".to_string();
            if read_only(routine, &a.name) {
                d.push_str(", intent(in)");
            }
            if asynchronous(routine, &a.name) {
                d.push_str(", asynchronous");
            }
            d
        }
        "Buf" => "type(*), dimension(*)".to_string(),
        "Int" => format!("{}, intent(in)", ty("integer")),
        "IntOut" | "Index" => ty("integer"),
        "Ints" => format!("{}, dimension(*)", ty("integer")),
        "Ranges" => "integer, dimension(3, *)".to_string(),
        "Proc" | "UserFunction" | "ErrhandlerFunction" | "FileErrhandlerFunction" => {
            match callback_interface(&a.name) {
                Some(i) => format!("procedure({i})"),
                None => "external".to_string(),
            }
        }
        "Logical" => "logical, intent(in)".to_string(),
        "Flag" => "logical".to_string(),
        "Logicals" => "logical, dimension(*)".to_string(),
        "Double" => "double precision, intent(in)".to_string(),
        "Aint" => "integer(kind=MPI_ADDRESS_KIND), intent(in)".to_string(),
        "AintOut" => "integer(kind=MPI_ADDRESS_KIND)".to_string(),
        "Aints" => "integer(kind=MPI_ADDRESS_KIND), dimension(*)".to_string(),
        "Offset" => "integer(kind=MPI_OFFSET_KIND), intent(in)".to_string(),
        "OffsetOut" => "integer(kind=MPI_OFFSET_KIND)".to_string(),
        "Count" => "integer(kind=MPI_COUNT_KIND), intent(in)".to_string(),
        "CountOut" => "integer(kind=MPI_COUNT_KIND)".to_string(),
        "Status" => "type(MPI_Status)".to_string(),
        "Statuses" => "type(MPI_Status), dimension(*)".to_string(),
        "StrIn" => "character(len=*), intent(in)".to_string(),
        "StrOut" => "character(len=*)".to_string(),
        other => return Err(format!("{}: unknown argument kind `{other}`", routine.name)),
    })
}

/// `head(names...)` with free-form continuation lines.
fn signature(o: &mut String, head: &str, names: &[&str], tail: &str) {
    let mut line = format!("{head}(");
    for (i, n) in names.iter().enumerate() {
        let sep = if i + 1 == names.len() { "" } else { ", " };
        if line.len() + n.len() + sep.len() > 90 {
            let _ = writeln!(o, "{} &", line.trim_end());
            line = "        ".to_string();
        }
        line.push_str(n);
        line.push_str(sep);
    }
    line.push(')');
    if line.len() + tail.len() > 110 {
        let _ = writeln!(o, "{line} &");
        line = "        ".to_string();
    }
    line.push_str(tail);
    let _ = writeln!(o, "{}", line.trim_end());
}

/// The interface body of one specific procedure.
fn subroutine(
    o: &mut String,
    r: &Routine,
    specific: &str,
    label: Option<&str>,
) -> Result<(), String> {
    let mut names: Vec<&str> = r.args.iter().map(|a| a.name.as_str()).collect();
    names.push("ierror");
    let tail = label.map_or(String::new(), |l| format!(" bind(C, name=\"{l}\")"));
    signature(o, &format!("    subroutine {specific}"), &names, &tail);
    o.push_str("      import\n");
    for a in &r.args {
        let _ = writeln!(o, "      {} :: {}", declaration(r, a)?, a.name);
    }
    o.push_str("      integer, optional, intent(out) :: ierror\n");
    let _ = writeln!(o, "    end subroutine {specific}");
    Ok(())
}

/// The routines of the module: the table, then the hand-written ones.
fn routines(bindings: &[Binding]) -> Result<Vec<Routine>, String> {
    let mut out: BTreeMap<String, Routine> = BTreeMap::new();
    for b in bindings {
        let name = mixed_case(&b.c);
        let form = if b.args.iter().any(|a| is_procedure(&a.kind)) {
            Form::Plain
        } else {
            Form::BindC(format!("{}f08", b.symbol), format!("p{}f08", b.symbol))
        };
        out.insert(
            name.to_ascii_uppercase(),
            Routine {
                name,
                args: b.args.clone(),
                form,
            },
        );
    }
    for (symbol, c, iface) in HAND_WRITTEN {
        let HandIface::Sub(spec) = iface else {
            continue;
        };
        let args = parse_args(spec, symbol)?;
        let name = mixed_case(c);
        let upper = name.to_ascii_uppercase();
        let own = F08_LABELS.iter().find(|l| l.0 == upper);
        let plain = args.iter().any(|a| {
            is_procedure(&a.kind)
                || a.kind.starts_with("Str")
                || (a.kind == "Buf" && !a.name.ends_with("weights"))
        });
        let form = match own {
            Some((_, label)) => Form::BindC(label.to_string(), format!("p{label}")),
            None if plain => Form::Plain,
            None => Form::BindC(symbol.to_string(), format!("p{symbol}")),
        };
        out.insert(upper, Routine { name, args, form });
    }
    Ok(out
        .into_values()
        .filter(|r| !REMOVED.contains(&r.name.to_ascii_uppercase().as_str()))
        .collect())
}

/// The generic interface (and its PMPI twin) of one routine.
fn generic(o: &mut String, r: &Routine) -> Result<(), String> {
    for prefix in ["", "P"] {
        let generic = format!("{prefix}{}", r.name);
        let _ = writeln!(o, "  interface {generic}");
        match &r.form {
            Form::BindC(label, plabel) => {
                let l = if prefix.is_empty() { label } else { plabel };
                subroutine(o, r, &format!("{generic}_f08"), Some(l))?;
            }
            Form::Plain => subroutine(o, r, &generic, None)?,
        }
        let _ = writeln!(o, "  end interface {generic}");
    }
    Ok(())
}

/// The functions of the hand-written bindings (MPI_Wtime, MPI_Aint_add...)
/// and MPI_Pcontrol, as BIND(C) specifics of their `mpi` bindings.
fn functions(o: &mut String) -> Result<(), String> {
    for (symbol, c, iface) in HAND_WRITTEN {
        let name = mixed_case(c);
        for prefix in ["", "P"] {
            let generic = format!("{prefix}{name}");
            let specific = format!("{generic}_f08");
            let label = format!("{}{symbol}", prefix.to_ascii_lowercase());
            let bind = format!(" bind(C, name=\"{label}\")");
            match iface {
                HandIface::Sub(_) => continue,
                HandIface::DoubleFn => {
                    let _ = writeln!(o, "  interface {generic}");
                    let _ = writeln!(o, "    double precision function {specific}(){bind}");
                    let _ = writeln!(o, "    end function {specific}");
                }
                HandIface::AintFn(spec) => {
                    let args = parse_args(spec, symbol)?;
                    let names: Vec<&str> = args.iter().map(|a| a.name.as_str()).collect();
                    let _ = writeln!(o, "  interface {generic}");
                    signature(
                        o,
                        &format!("    integer(kind=MPI_ADDRESS_KIND) function {specific}"),
                        &names,
                        &bind,
                    );
                    o.push_str("      import\n");
                    for a in &args {
                        if a.kind != "Aint" {
                            return Err(format!(
                                "{symbol}: argument kind {} in a function",
                                a.kind
                            ));
                        }
                        let _ = writeln!(
                            o,
                            "      integer(kind=MPI_ADDRESS_KIND), intent(in) :: {}",
                            a.name
                        );
                    }
                    let _ = writeln!(o, "    end function {specific}");
                }
                // MPI_Pcontrol(level): no IERROR in any binding
                HandIface::Open => {
                    let _ = writeln!(o, "  interface {generic}");
                    let _ = writeln!(o, "    subroutine {specific}(level){bind}");
                    o.push_str("      integer, intent(in) :: level\n");
                    let _ = writeln!(o, "    end subroutine {specific}");
                }
            }
            let _ = writeln!(o, "  end interface {generic}");
        }
    }
    Ok(())
}

const HEAD: &str = "\
! mpi_f08.f90 -- the `mpi_f08` module of vaced (use mpi_f08), MPI-3.1 17.2.
!
! GENERATED by build.rs (src/abi/fortran/generator_f08.rs) from include/mpi.h
! and the binding tables of src/abi/fortran/: do not edit. build.rs compiles
! it with the installed gfortran into target/<profile>/fmod/mpi_f08.mod.
!
! Types, constants and interfaces only: every procedure is in libvaced.
! Handles are BIND(C) types with one INTEGER (MPI_VAL), TYPE(MPI_Status)
! has C's layout; choice buffers are TYPE(*), DIMENSION(..) and must be
! contiguous (MPI_SUBARRAYS_SUPPORTED = .FALSE.: a section with a stride
! fails with MPI_ERR_BUFFER); IERROR is OPTIONAL.
";

/// Generates the module.
pub fn mpi_f08(
    mpi_h: &str,
    sys: &Sys,
    items: &[Item],
    bindings: &[Binding],
) -> Result<String, String> {
    let handles = handle_constants(mpi_h);
    let mut o = String::from(HEAD);
    o.push_str("module mpi_f08\n");
    o.push_str("  use, intrinsic :: iso_c_binding, only: c_ptr\n");
    o.push_str("  implicit none\n");
    o.push_str("  private :: c_ptr\n");

    o.push_str("\n  ! ---- handle types\n");
    for t in HANDLE_TYPES {
        let _ = writeln!(
            o,
            "  type, bind(C) :: {t}\n    integer :: MPI_VAL\n  end type {t}"
        );
    }
    o.push_str("  type, bind(C) :: MPI_Status\n");
    let public = ["MPI_SOURCE", "MPI_TAG", "MPI_ERROR"];
    for f in &sys.status_fields {
        let private = if public.contains(&f.as_str()) {
            ""
        } else {
            ", private"
        };
        let _ = writeln!(o, "    integer{private} :: {f}");
    }
    o.push_str("  end type MPI_Status\n");

    for item in items {
        match item {
            Item::Section(t) => {
                let _ = write!(o, "\n  ! ---- {t}\n");
            }
            Item::Const(n, v) => match handles.get(n) {
                Some(t) => {
                    let _ = writeln!(o, "  type({t}), parameter :: {n} = {t}({v})");
                }
                None => {
                    let _ = writeln!(o, "  integer, parameter :: {n} = {v}");
                }
            },
        }
    }
    o.push_str("  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .false.\n");
    o.push_str("  logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false.\n");

    o.push_str("\n  ! ---- special addresses (recognised by the library)\n");
    for (name, _, dims) in SPECIAL {
        let decl = match name {
            "MPI_STATUS_IGNORE" => "type(MPI_Status) :: MPI_STATUS_IGNORE".to_string(),
            "MPI_STATUSES_IGNORE" => "type(MPI_Status) :: MPI_STATUSES_IGNORE(1)".to_string(),
            // arrays in mpi_f08 (INTEGER :: sourceweights(*))
            "MPI_UNWEIGHTED" | "MPI_WEIGHTS_EMPTY" => format!("integer :: {name}(1)"),
            _ => format!("integer :: {name}{dims}"),
        };
        let _ = writeln!(o, "  {decl}");
    }
    for (name, block, _) in SPECIAL {
        let _ = writeln!(o, "  common /{block}/ {name}");
    }
    let blocks: Vec<String> = SPECIAL.iter().map(|s| format!("/{}/", s.1)).collect();
    let _ = writeln!(o, "  save {}", blocks.join(", "));

    o.push('\n');
    o.push_str(ABSTRACT_INTERFACES);

    o.push_str("\n  ! ---- predefined callback procedures\n");
    let mut explicit = Vec::new();
    for (name, spec) in PREDEFINED_PROCS {
        match predefined_interface(name) {
            Some(i) => {
                let _ = writeln!(o, "  procedure({i}) :: {name}");
            }
            None => explicit.push((name, parse_args(spec, name)?)),
        }
    }
    if !explicit.is_empty() {
        o.push_str("  interface\n");
        for (name, args) in explicit {
            let r = Routine {
                name: name.to_string(),
                args,
                form: Form::Plain,
            };
            // the MPI-1 callbacks: INTEGER arguments (no handle types)
            let names: Vec<&str> = r.args.iter().map(|a| a.name.as_str()).collect();
            let mut all = names.clone();
            all.push("ierror");
            signature(&mut o, &format!("    subroutine {name}"), &all, "");
            o.push_str("      import\n");
            for a in &r.args {
                let d = match a.kind.as_str() {
                    "Flag" | "Logical" => "logical",
                    "Aint" | "AintOut" => "integer(kind=MPI_ADDRESS_KIND)",
                    "Offset" | "OffsetOut" => "integer(kind=MPI_OFFSET_KIND)",
                    _ => "integer",
                };
                let _ = writeln!(o, "      {d} :: {}", a.name);
            }
            o.push_str("      integer :: ierror\n");
            let _ = writeln!(o, "    end subroutine {name}");
        }
        o.push_str("  end interface\n");
    }

    o.push_str("\n  ! ---- == and /= of handles\n");
    for (op, suffix) in [("==", "eq"), ("/=", "ne")] {
        let _ = writeln!(o, "  interface operator({op})");
        for t in HANDLE_TYPES {
            let f = format!(
                "vaced_f08_{}_{suffix}",
                t.trim_start_matches("MPI_").to_ascii_lowercase()
            );
            let _ = writeln!(o, "    logical function {f}(a, b) bind(C, name=\"{f}\")");
            o.push_str("      import\n");
            let _ = writeln!(o, "      type({t}), intent(in) :: a, b");
            let _ = writeln!(o, "    end function {f}");
        }
        let _ = writeln!(o, "  end interface operator({op})");
    }
    let mut private = Vec::new();
    for suffix in ["eq", "ne"] {
        for t in HANDLE_TYPES {
            private.push(format!(
                "vaced_f08_{}_{suffix}",
                t.trim_start_matches("MPI_").to_ascii_lowercase()
            ));
        }
    }
    for chunk in private.chunks(4) {
        let _ = writeln!(o, "  private :: {}", chunk.join(", "));
    }

    o.push_str("\n  ! ---- routines\n");
    functions(&mut o)?;
    for r in routines(bindings)? {
        generic(&mut o, &r)?;
    }
    // MPI_Sizeof: the `mpi` module's specifics (src/abi/fortran/sizeof.rs)
    o.push_str("  interface MPI_Sizeof\n");
    for (suffix, decl, _) in SIZEOF_TYPES {
        for (v, dims) in [("", ""), ("V", ", dimension(*)")] {
            let name = format!("MPI_SIZEOF_{suffix}{v}");
            let _ = writeln!(o, "    subroutine {name}(x, size, ierror)");
            let _ = writeln!(o, "      {decl}{dims} :: x");
            o.push_str("      integer :: size\n      integer, optional :: ierror\n");
            let _ = writeln!(o, "    end subroutine {name}");
        }
    }
    o.push_str("  end interface MPI_Sizeof\n");
    o.push_str("end module mpi_f08\n");
    Ok(o)
}
