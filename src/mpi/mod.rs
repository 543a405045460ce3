//! The MPI object model: communicators, groups, datatypes, requests, status,
//! error handlers.
