/* Failure mode: rank 2 dies of SIGSEGV while the others block in MPI_Recv
 * (from rank 2, which never sends). Needs at least 3 ranks. */
#include <mpi.h>
#include <signal.h>
#include <unistd.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 2) {
        usleep(200 * 1000); /* let the others block first */
        raise(SIGSEGV);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    printf("FAIL rank=%d still running\n", rank);
    MPI_Finalize();
    return 0;
}
