/* C shims for the parts of the MPI ABI that stable Rust cannot define.
 *
 * Currently none. MPI_Pcontrol (C-variadic) would belong here, but a Rust
 * cdylib exports only the symbols Rust itself defines (its version script
 * makes every symbol of a linked C object local), so a C definition would
 * never be visible to programs. It is defined in src/abi/env.rs instead,
 * reading only its named argument, which every supported calling convention
 * passes the same way in a variadic call. */
#include <mpi.h>

/* The ABI's status layout, which src/mpi/status.rs relies on. */
_Static_assert(sizeof(MPI_Status) == 5 * sizeof(int), "MPI_Status is 5 ints");
