/* A nonblocking collective racing a blocking one on the same communicator,
 * at cpu.scale = 0.
 *
 * usage: icoll_racing WORDS
 * Three times: MPI_Iallgatherv of WORDS unsigned per rank, then
 * MPI_Allgatherv of the same, then MPI_Wait. The blocking call's messages
 * and the schedule's arrive in an order that depends on the host: a later
 * round of the schedule may start inside MPI_Iallgatherv (its message was
 * already unexpected) or in a later call; the prediction must not depend
 * on which. Data are checked (FAIL lines); prints
 *   t rank=R op=end t=<MPI_Wtime, %.17g> */
#include <mpi.h>
#include <stdlib.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 4;
    unsigned *sb = vt_malloc(sizeof(unsigned) * n);
    unsigned *ra = vt_malloc(sizeof(unsigned) * n * size);
    unsigned *rb = vt_malloc(sizeof(unsigned) * n * size);
    int *c = vt_malloc(sizeof(int) * size), *d = vt_malloc(sizeof(int) * size);
    for (int j = 0; j < size; j++) {
        c[j] = n;
        d[j] = j * n;
    }
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < n; i++)
            sb[i] = (unsigned)(rank * 1000 + k * 10 + i);
        MPI_Request r;
        MPI_Iallgatherv(sb, n, MPI_UNSIGNED, ra, c, d, MPI_UNSIGNED, MPI_COMM_WORLD, &r);
        MPI_Allgatherv(sb, n, MPI_UNSIGNED, rb, c, d, MPI_UNSIGNED, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < n; i++) {
                unsigned want = (unsigned)(j * 1000 + k * 10 + i);
                if (ra[j * n + i] != want || rb[j * n + i] != want)
                    printf("FAIL rank=%d k=%d from=%d i=%d\n", rank, k, j, i);
            }
    }
    printf("t rank=%d op=end t=%.17g\n", rank, MPI_Wtime());
    MPI_Finalize();
    return 0;
}
