/* C shims for the parts of the MPI ABI that stable Rust cannot define:
 * C-variadic functions. Each forwards to a plain Rust entry point. */
#include <mpi.h>

extern int vaced_pcontrol(int level);

int PMPI_Pcontrol(const int level, ...) { return vaced_pcontrol(level); }
int MPI_Pcontrol(const int level, ...) { return PMPI_Pcontrol(level); }
