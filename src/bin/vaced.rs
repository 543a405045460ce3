//! The `vaced` command (also `mpicc`, `mpicxx`, `mpif77`, `mpif90`, `mpirun`,
//! `mpiexec` when invoked under those names).
fn main() {}
