/* Timing of MPI_Comm_create_group. usage: group_timing START (4 ranks)
 * Every rank aligns its clock at START seconds; ranks 1 and 2 create a
 * communicator of the group {1, 2} while ranks 0 and 3 exchange 8 bytes
 * with MPI_Sendrecv on MPI_COMM_WORLD (with the same tag). Each prints
 *   gt rank=R t0=T0 t1=T1 size=S      (S: size of the new communicator, 0
 *                                      for the non-members) */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double start = atof(argv[1]);
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int members[2] = { 1, 2 };
    MPI_Group_incl(world, 2, members, &g);
    MPIX_Vaced_compute(start - MPI_Wtime());
    double t0 = MPI_Wtime(), t1;
    if (rank == 1 || rank == 2) {
        MPI_Comm c;
        MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &c);
        t1 = MPI_Wtime();
        MPI_Comm_size(c, &size);
        MPI_Comm_free(&c);
    } else {
        double x = rank, y = -1;
        int peer = 3 - rank;
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, peer, 7, &y, 1, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        t1 = MPI_Wtime();
        if (y != peer)
            printf("FAIL rank=%d got %g\n", rank, y);
    }
    printf("gt rank=%d t0=%.17g t1=%.17g size=%d\n", rank, t0, t1, size);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
