/* Failure mode: rank 2 dies of SIGSEGV while the others block in MPI_Recv
 * (from rank 2, which never sends). Needs at least 3 ranks.
 * With the argument "before-init": rank 2 dies before MPI_Init, the others
 * being inside it (its rank read from the launcher's environment:
 * VACED_RANK, or PMI_RANK under MPICH's). */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    if (argc > 1 && strcmp(argv[1], "before-init") == 0) {
        const char *r = getenv("VACED_RANK") ? getenv("VACED_RANK") : getenv("PMI_RANK");
        if (r != NULL && atoi(r) == 2) {
            usleep(300 * 1000); /* let the others enter MPI_Init */
            raise(SIGSEGV);
        }
    }
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
