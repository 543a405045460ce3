/* Flows into one node (the contention model's tests): rank k > 0 computes
 * D_k microseconds (MPIX_Vaced_compute), then sends SIZE_k bytes to rank 0
 * (MPI_Send) and prints
 *   fl rank=k op=send t=<MPI_Wtime, %.17g>
 * Rank 0 receives from ranks 1, 2, ... in turn (MPI_Recv) and prints after
 * each
 *   fl rank=0 op=recv from=k t=<MPI_Wtime>
 * usage: flows SIZE_1:D_1 SIZE_2:D_2 ... (one per rank from 1) */
#include <mpi.h>
#include "vtest.h"
#include <string.h>

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != n) {
        if (me == 0)
            printf("FAIL usage: flows SIZE:DELAY_US for each rank from 1 (%d)\n", n - 1);
        MPI_Finalize();
        return 2;
    }
    if (me > 0) {
        long size = atol(argv[me]);
        const char *colon = strchr(argv[me], ':');
        double delay = colon ? atof(colon + 1) : 0.0;
        unsigned char *buf = vt_malloc(size);
        vt_fill(buf, size, (unsigned)me);
        if (delay > 0)
            MPIX_Vaced_compute(delay * 1e-6);
        MPI_Send(buf, (int)size, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
        printf("fl rank=%d op=send t=%.17g\n", me, MPI_Wtime());
        free(buf);
    } else {
        for (int k = 1; k < n; k++) {
            long size = atol(argv[k]);
            unsigned char *buf = vt_malloc(size);
            MPI_Status st;
            MPI_Recv(buf, (int)size, MPI_BYTE, k, 7, MPI_COMM_WORLD, &st);
            printf("fl rank=0 op=recv from=%d t=%.17g\n", k, MPI_Wtime());
            long bad = vt_check(buf, size, (unsigned)k);
            if (bad >= 0)
                printf("FAIL from %d: data differs at byte %ld\n", k, bad);
            free(buf);
        }
    }
    MPI_Finalize();
    return 0;
}
