/* A job that never ends by itself: rank 0 sleeps in application code (so the
 * job is never quiescent, and no deadlock is detected) while every other rank
 * waits for it in MPI_Recv; used to interrupt a running job (Ctrl-C). */
#include <mpi.h>
#include <unistd.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, nranks, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (rank == 0)
        for (;;)
            sleep(1000);
    MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("FAIL rank=%d received a message nobody sent\n", rank);
    MPI_Finalize();
    return 0;
}
