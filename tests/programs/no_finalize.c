/* Failure mode: rank 3 returns from main without calling MPI_Finalize while
 * the others block in MPI_Recv (from rank 3, which never sends). */
#include <mpi.h>
#include <unistd.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 3) {
        usleep(200 * 1000);
        return 0;
    }
    MPI_Recv(&x, 1, MPI_INT, 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("FAIL rank=%d still running\n", rank);
    MPI_Finalize();
    return 0;
}
