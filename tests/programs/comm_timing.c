/* Virtual cost of communicator constructors (run at cpu.scale = 0).
 *
 * usage: comm_timing
 * Lines: t rank=R op=dup|split|free t=<MPI_Wtime after the call, %.17g>
 * MPI_Comm_dup(MPI_COMM_WORLD) at t = 1 us, then MPI_Comm_split of the dup
 * (color 0, key R) at t = 2 us (every rank computes until then, so that
 * each constructor starts at the same time everywhere), then
 * MPI_Comm_free of both. Afterwards a ring on the split communicator
 * checks that it works (not timed). */
#include <mpi.h>
#include "vtest.h"

/* Compute (virtually) until `t` seconds. */
static void until(double t)
{
    MPIX_Vaced_compute(t - MPI_Wtime());
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm d, s;
    until(1e-6);
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    printf("t rank=%d op=dup t=%.17g\n", rank, MPI_Wtime());
    until(2e-6);
    MPI_Comm_split(d, 0, rank, &s);
    printf("t rank=%d op=split t=%.17g\n", rank, MPI_Wtime());
    MPI_Comm_free(&d);
    double t = MPI_Wtime();
    int r, n, got = -1;
    MPI_Comm_rank(s, &r);
    MPI_Comm_size(s, &n);
    MPI_Sendrecv(&rank, 1, MPI_INT, (r + 1) % n, 0, &got, 1, MPI_INT, (r + n - 1) % n, 0, s,
                 MPI_STATUS_IGNORE);
    if (got != (rank + n - 1) % n)
        printf("FAIL rank=%d got %d from the left neighbour\n", rank, got);
    MPI_Comm_free(&s);
    printf("t rank=%d op=free t=%.17g\n", rank, t);
    MPI_Finalize();
    return 0;
}
