//! The MPI object model: communicators, groups, datatypes, requests, status,
//! error handlers, and the per-process state that ties them to the p2p
//! endpoint. Safe code only: user memory is handled by `crate::abi`.
#![forbid(unsafe_code)]

pub mod agree;
pub mod attr;
pub mod backend;
pub mod bsend;
pub mod coll_args;
pub mod coll_calls;
pub mod comm;
pub mod comm_create;
pub mod context;
pub mod datatype;
pub mod dtype_table;
pub mod error;
#[cfg(test)]
mod fake;
pub mod group;
pub mod icoll_calls;
pub mod op;
pub mod pack;
pub mod request;
pub mod state;
pub mod status;
pub mod topo;
pub mod type_contents;
pub mod typemap;

pub use error::{MpiError, MpiResult};
pub use state::World;
