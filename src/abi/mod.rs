//! The exported C ABI: `MPI_*` / `PMPI_*` entry points. Argument checking,
//! handle translation and error classes; no logic beyond that (the MPI
//! semantics live in `crate::mpi`). Raw pointers are turned into Rust values
//! here and nowhere else.
//!
//! Every entry point is an `unsafe extern "C" fn` whose safety contract is the
//! MPI standard's for that call (valid pointers, buffers that live until their
//! operation completes).
#![deny(unsafe_op_in_unsafe_fn)]
#![allow(clippy::missing_safety_doc)]

#[macro_use]
mod macros;

pub mod attr;
mod buffers;
mod callbacks;
pub mod coll;
pub mod comm;
pub mod comm_idup;
pub mod comm_info;
pub mod comm_mgmt;
pub mod completion;
pub mod datatype;
pub mod dtype_ctor;
pub mod dtype_extra;
pub mod engine_api;
pub mod env;
pub mod errhandler;
pub mod errors;
pub mod fortran;
pub mod graph;
pub mod grequest;
pub mod group;
pub mod icoll;
pub mod ineighbor;
pub mod info;
mod inter_coll;
mod inter_icoll;
pub mod intercomm;
pub mod io;
pub mod io_data;
pub mod mpit;
pub mod mprobe;
pub mod neighbor;
pub mod obj_attr;
pub mod op;
pub mod p2p;
pub mod pack;
pub mod partitioned;
pub mod pcoll;
pub mod persistent;
#[cfg(test)]
mod rank_local_tests;
pub mod reduce;
pub mod rma;
// ---- RMA windows (dynamic, shared, error handlers) ----
pub mod rma_windows;
pub mod session;
mod state;
mod threads;
pub mod topo;
mod typed_mem;
mod userbuf;
pub mod wait;
pub mod win_errhandler;

use crate::sys::MPI_Status;
use std::os::raw::c_void;

// The pointer constants of include/mpi.h, which bindgen cannot translate.
/// `#define MPI_STATUS_IGNORE ((MPI_Status *)1)`
pub const MPI_STATUS_IGNORE: *mut MPI_Status = std::ptr::without_provenance_mut(1);
/// `#define MPI_STATUSES_IGNORE ((MPI_Status *)1)`
pub const MPI_STATUSES_IGNORE: *mut MPI_Status = std::ptr::without_provenance_mut(1);
/// `#define MPI_IN_PLACE ((void *)-1)`
pub const MPI_IN_PLACE: *mut c_void = std::ptr::without_provenance_mut(usize::MAX);
/// `#define MPI_BOTTOM ((void *)0)`
pub const MPI_BOTTOM: *mut c_void = std::ptr::null_mut();
