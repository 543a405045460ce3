//! The MPI object model: communicators, groups, datatypes, requests, status,
//! error handlers, and the per-process state that ties them to the p2p
//! endpoint. Safe code only: user memory is handled by `crate::abi`.
#![forbid(unsafe_code)]

pub mod agree;
pub mod attr;
pub mod backend;
pub mod blocking;
pub mod bound_markers;
pub mod bsend;
pub mod coll_args;
pub mod coll_calls;
pub mod comm;
pub mod comm_create;
pub mod comm_group;
pub mod comm_idup;
pub mod comm_info;
#[cfg(test)]
mod completion_tests;
pub mod context;
pub mod darray;
pub mod datatype;
pub mod dist_graph;
pub mod dtype_table;
pub mod errcodes;
pub mod errhandler;
pub mod error;
pub mod external32;
pub mod f90types;
#[cfg(test)]
mod fake;
pub mod graph;
pub mod grequest;
pub mod group;
pub mod icoll_calls;
pub mod ineighbor_calls;
pub mod info;
pub mod inter_coll_calls;
pub mod inter_icoll_calls;
pub mod intercomm;
pub mod isendrecv;
pub mod message;
pub mod neighbor_calls;
pub mod obj_attr;
pub mod op;
pub mod pack;
pub mod partitioned;
pub mod persistent;
pub mod request;
pub mod request_status;
pub mod session;
pub mod state;
pub mod status;
pub mod topo;
pub mod type_contents;
pub mod type_names;
pub mod typemap;

pub use error::{MpiError, MpiResult};
pub use state::World;
