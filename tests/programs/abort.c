/* Failure mode: rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) while the others
 * block in MPI_Recv (from rank 1, which never sends). */
#include <mpi.h>
#include <unistd.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        usleep(200 * 1000);
        MPI_Abort(MPI_COMM_WORLD, 7);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    printf("FAIL rank=%d still running\n", rank);
    MPI_Finalize();
    return 0;
}
