//! Many ranks per process (`mpirun --ranks-per-process`): a host process
//! loads one private copy of the program per rank (its own global and static
//! data), runs each rank as a user-level context with its own stack, and
//! switches between them only inside MPI calls, where a rank would otherwise
//! sleep on its doorbell. The engine, matching, protocol and conservative
//! decisions are the default mode's, unchanged: the mode changes the host,
//! never the prediction.
//!
//! Files: `local` (the library's per-rank statics).

pub mod local;
