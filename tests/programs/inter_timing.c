/* Virtual cost of MPI_Intercomm_create and of an intercommunicator
 * MPI_Bcast (run at cpu.scale = 0 on 4 ranks).
 *
 * usage: inter_timing BYTES
 * Groups A = world ranks {0, 1}, B = {2, 3} (MPI_Comm_split of the world,
 * after which every rank computes until 1 us, so that the next step starts
 * at the same time everywhere); MPI_Intercomm_create with local leader 0 and peer MPI_COMM_WORLD; then
 * an MPI_Bcast of BYTES bytes from A's rank 0 (MPI_ROOT; A's rank 1 passes
 * MPI_PROC_NULL) to B.
 * Lines: t rank=R op=start|create|bcast t=<MPI_Wtime after the step, %.17g>
 *        FAIL ... when B's data is wrong. */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    long b = argc > 1 ? atol(argv[1]) : 1000;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : 1, rank, &local);
    MPIX_Vaced_compute(1e-6 - MPI_Wtime());
    printf("t rank=%d op=start t=%.17g\n", rank, MPI_Wtime());
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank < 2 ? 2 : 0, 3, &ic);
    printf("t rank=%d op=create t=%.17g\n", rank, MPI_Wtime());
    unsigned char *buf = vt_malloc(b);
    if (rank == 0)
        vt_fill(buf, b, 11);
    int root = rank < 2 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(buf, (int)b, MPI_BYTE, root, ic);
    printf("t rank=%d op=bcast t=%.17g\n", rank, MPI_Wtime());
    if (rank >= 2 && vt_check(buf, b, 11) >= 0)
        printf("FAIL rank=%d bcast data wrong at byte %ld\n", rank, vt_check(buf, b, 11));
    free(buf);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
