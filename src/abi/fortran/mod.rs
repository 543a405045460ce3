//! The Fortran ABI: the `mpi_*_` / `pmpi_*_` symbols gfortran calls, thin
//! wrappers over the C entry points (`crate::sys::PMPI_*`, our own exported
//! symbols), and the C handle conversions (`MPI_Comm_f2c`, ...).
//!
//! * `macros`: the `fortran!` binding table macro (one line per routine);
//! * `kinds`: the argument kinds (by-reference INTEGERs, LOGICALs, status
//!   arrays, choice buffers, CHARACTER with hidden lengths);
//! * `commons`: the COMMON blocks of MPI_BOTTOM, MPI_IN_PLACE,
//!   MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, recognised by address;
//! * `env`, `p2p`, `comm`, `group`, `topo`, `dtype`, `coll`, `info`, `graph`,
//!   `errhan_dtype`, `p2p_more`, `icoll`, `rma`: the tables;
//!   `special`: the bindings written by hand; `sizeof`: MPI_SIZEOF's
//!   specific procedures; `attr`: attribute caching
//!   with Fortran callbacks (hand-written);
//! * `handles`: MPI_*_f2c / MPI_*_c2f;
//! * `generator`: generator of include/mpif.h and include/mpi.f90 (run by
//!   build.rs; here for the tests), and of include/mpi_f08.f90, the
//!   `mpi_f08` module (`generator_f08.rs`, whose doc describes its design);
//! * `f08`, `cfi`: what the mpi_f08 bindings need besides the `_f08` twin
//!   of every table line (macros.rs): C descriptors of buffers and strings,
//!   handle comparison, MPI_Buffer_detach.
//!
//! Adding a C function to mpi.h: add one line to a `fortran!` table (or a
//! new file with one, declared below); build.rs regenerates the module's
//! interfaces from it, and the tests fail until every C function has one.

#[macro_use]
mod macros;

pub mod attr;
pub mod cfi;
pub mod coll;
pub mod comm;
pub mod commons;
pub mod dtype;
pub mod env;
pub mod errhan_dtype;
pub mod f08;
pub mod graph;
pub mod group;
pub mod handles;
pub mod icoll;
pub mod info;
pub mod intercomm;
pub mod io;
pub mod kinds;
pub mod p2p;
pub mod p2p_more;
pub mod pcoll;
pub mod rma;
pub mod session;
pub mod sizeof;
pub mod special;
pub mod topo;

#[cfg(test)]
mod f08_tests;
#[cfg(test)]
mod generator;
#[cfg(test)]
mod tests;
