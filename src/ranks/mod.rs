//! Many ranks per process (`mpirun --ranks-per-process`): a host process
//! loads one private copy of the program per rank (its own global and static
//! data), runs each rank as a user-level context with its own stack, and
//! switches between them only inside MPI calls, where a rank would otherwise
//! sleep on its doorbell. The engine, matching, protocol and conservative
//! decisions are the default mode's, unchanged: the mode changes the host,
//! never the prediction.
//!
//! Timing: a rank's computation is the host thread's CPU time between the
//! rank's exit from one MPI call and its entry into the next (no other rank
//! runs in between, since switches happen inside calls only); the time a
//! host spends running other ranks while one waits is that rank's waiting,
//! timed by the engine in virtual time as in the default mode.
//!
//! Files: `local` (the library's per-rank statics), `loader` (one copy
//! of the program per rank), `host` (the host process: contexts and their
//! scheduling), `entry` (the `vaced` executable starting a host).

pub mod entry;
pub mod host;
pub mod loader;
pub mod local;
