//! `mpirun`: spawn the ranks, wire them to the job's segment, supervise them,
//! collect their results and clean up.
