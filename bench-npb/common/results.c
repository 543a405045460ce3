/* NPB-style result block (see results.h). The layout follows NPB 3.3's
 * print_results; "Compiled procs" is left out since our kernels take the
 * process count from MPI_Comm_size, and "Time exact (s)" is our addition
 * (the timer value with all its digits, for comparisons with a simulator). */
#include <stdio.h>
#include "results.h"

void npb_print_results(const char *name, char cls, const char *size,
                       int niter, int nprocs, double t, double mops,
                       const char *optype, int verified)
{
    printf("\n\n %s Benchmark Completed.\n", name);
    printf(" Class           = %24c\n", cls);
    printf(" Size            = %24s\n", size);
    printf(" Iterations      = %24d\n", niter);
    printf(" Time in seconds = %24.2f\n", t);
    printf(" Time exact (s)  = %24.17g\n", t);
    printf(" Total processes = %24d\n", nprocs);
    printf(" Mop/s total     = %24.2f\n", mops);
    printf(" Mop/s/process   = %24.2f\n", mops / nprocs);
    printf(" Operation type  = %24s\n", optype);
    printf(" Verification    = %24s\n", verified ? "SUCCESSFUL" : "UNSUCCESSFUL");
    printf(" Version         = %24s\n", "3.3 (vaced bench-npb)");
    printf("\n");
    fflush(stdout);
}
