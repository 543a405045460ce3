/* Persistent exchange: ranks 0 and 1 each set up MPI_Recv_init from and
 * MPI_Send_init to the other, then ITERS times: rank 1 computes
 * COMPUTE_SECONDS (MPIX_Vaced_compute), both MPI_Startall {recv, send} and
 * MPI_Waitall. One size after the other, the requests freed between sizes.
 *
 * usage: persist COMPUTE_SECONDS ITERS SIZE...
 * Lines: px rank=R op=SIZE-IT t=<MPI_Wtime after the Waitall, %.17g>
 * Data, statuses and the handles (still allocated, inactive) are checked;
 * any problem prints a FAIL line. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4 || size != 2) {
        if (rank == 0)
            printf("FAIL usage: persist COMPUTE_SECONDS ITERS SIZE... (2 ranks)\n");
        MPI_Finalize();
        return 2;
    }
    double compute = atof(argv[1]);
    int iters = atoi(argv[2]);
    int other = 1 - rank;
    for (int a = 3; a < argc; a++) {
        long b = atol(argv[a]);
        unsigned char *sbuf = vt_malloc(b), *rbuf = vt_malloc(b);
        MPI_Request rq[2];
        MPI_Status st[2];
        MPI_Recv_init(rbuf, (int)b, MPI_BYTE, other, 7, MPI_COMM_WORLD, &rq[0]);
        MPI_Send_init(sbuf, (int)b, MPI_BYTE, other, 7, MPI_COMM_WORLD, &rq[1]);
        MPI_Request keep0 = rq[0], keep1 = rq[1];
        for (int it = 0; it < iters; it++) {
            if (rank == 1)
                MPIX_Vaced_compute(compute);
            /* the buffer is read at the Start, not at the init */
            vt_fill(sbuf, b, 1000u * (unsigned)rank + (unsigned)it);
            memset(rbuf, 0, b);
            MPI_Startall(2, rq);
            MPI_Waitall(2, rq, st);
            printf("px rank=%d op=%ld-%d t=%.17g\n", rank, b, it, MPI_Wtime());
            if (rq[0] != keep0 || rq[1] != keep1)
                printf("FAIL rank=%d persistent handles changed by MPI_Waitall\n", rank);
            int count = -1;
            MPI_Get_count(&st[0], MPI_BYTE, &count);
            if (count != b || st[0].MPI_SOURCE != other || st[0].MPI_TAG != 7)
                printf("FAIL rank=%d status count=%d source=%d tag=%d\n", rank, count,
                       st[0].MPI_SOURCE, st[0].MPI_TAG);
            long bad = vt_check(rbuf, b, 1000u * (unsigned)other + (unsigned)it);
            if (bad >= 0)
                printf("FAIL rank=%d size=%ld it=%d data differs at byte %ld\n", rank, b, it,
                       bad);
        }
        /* inactive: Wait returns at once with an empty status */
        MPI_Status e;
        e.MPI_SOURCE = 42;
        MPI_Wait(&rq[0], &e);
        if (rq[0] != keep0 || e.MPI_SOURCE != MPI_ANY_SOURCE || e.MPI_TAG != MPI_ANY_TAG)
            printf("FAIL rank=%d wait on an inactive persistent request\n", rank);
        MPI_Request_free(&rq[0]);
        MPI_Request_free(&rq[1]);
        if (rq[0] != MPI_REQUEST_NULL || rq[1] != MPI_REQUEST_NULL)
            printf("FAIL rank=%d MPI_Request_free left a handle\n", rank);
        free(sbuf);
        free(rbuf);
    }
    MPI_Finalize();
    return 0;
}
