/* Timing of two collectives at cpu.scale = 0.
 *
 * usage: coll_timing
 * Rank r first computes (virtually) skew(r) = ((r * 37) % size) us, then
 * calls MPI_Barrier, then MPI_Bcast of 8 bytes from rank 0, and prints
 *   t rank=R op=barrier t=T      (MPI_Wtime after the barrier)
 *   t rank=R op=bcast t=T        (MPI_Wtime after the broadcast)
 * and checks the broadcast data. */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPIX_Vaced_compute(((rank * 37) % size) * 1e-6);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("t rank=%d op=barrier t=%.17g\n", rank, MPI_Wtime());
    unsigned char buf[8];
    vt_fill(buf, 8, rank == 0 ? 5 : 6);
    MPI_Bcast(buf, 8, MPI_BYTE, 0, MPI_COMM_WORLD);
    printf("t rank=%d op=bcast t=%.17g\n", rank, MPI_Wtime());
    if (vt_check(buf, 8, 5) >= 0)
        printf("FAIL rank=%d broadcast data\n", rank);
    MPI_Finalize();
    return 0;
}
