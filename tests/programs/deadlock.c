/* A real deadlock: every rank receives from its right neighbour (with
 * argument `any`: from MPI_ANY_SOURCE) before anyone sends. vaced must detect it (every rank blocked, nothing in flight)
 * and end the job with a report of what each rank waits for. */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, nranks, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int any = argc > 1 && argv[1][0] == 'a';
    MPI_Recv(&x, 1, MPI_INT, any ? MPI_ANY_SOURCE : (rank + 1) % nranks, 7, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    printf("FAIL rank=%d received a message nobody sent\n", rank);
    MPI_Finalize();
    return 0;
}
