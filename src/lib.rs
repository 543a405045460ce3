//! vaced: a VACED (virtual-actual combined execution-driven) simulator.
//!
//! A real MPI program linked against this library runs on a small host while its
//! communication is timed by a model of a large target machine. See DESIGN.md.
//!
//! Layers (each only calls the one below it):
//! `abi` -> `mpi` / `coll` -> `p2p` -> `engine` -> `transport`, with `model`
//! (the target machine) used by the engine and the launcher, and `launch` /
//! `report` making up the `mpirun` side. `ranks` is the host side of the
//! many-ranks mode (`mpirun --ranks-per-process`): program copies, rank
//! contexts and the library's per-rank state.

pub mod abi;
pub mod coll;
pub mod engine;
pub mod hosts;
pub mod io;
pub mod launch;
pub mod model;
pub mod mpi;
pub mod mpit;
pub mod p2p;
pub mod plot;
pub mod ranks;
pub mod replay;
pub mod report;
pub mod rma;
pub mod sweep;
pub mod sys;
pub mod timeline;
pub mod transport;
