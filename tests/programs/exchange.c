/* Non-blocking exchange that overlaps computation: ranks 0 and PEER each
 * post MPI_Irecv from the other, start MPI_Isend to the other, compute for
 * COMPUTE_SECONDS (MPIX_Vaced_compute) and MPI_Waitall.
 *
 * usage: exchange PEER BYTES COMPUTE_SECONDS
 * Lines: ex rank=R op=start|waitall t=<MPI_Wtime, %.17g>
 * (op=start is printed right after MPI_Isend). Data are checked. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 4) {
        if (rank == 0)
            printf("FAIL usage: exchange PEER BYTES COMPUTE_SECONDS\n");
        MPI_Finalize();
        return 2;
    }
    int peer = atoi(argv[1]);
    long size = atol(argv[2]);
    double compute = atof(argv[3]);
    if (rank == 0 || rank == peer) {
        int other = rank == 0 ? peer : 0;
        unsigned char *sbuf = vt_malloc(size), *rbuf = vt_malloc(size);
        MPI_Request reqs[2];
        MPI_Status sts[2];
        vt_fill(sbuf, size, 777u + (unsigned)rank);
        memset(rbuf, 0, size);
        MPI_Irecv(rbuf, (int)size, MPI_BYTE, other, 9, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(sbuf, (int)size, MPI_BYTE, other, 9, MPI_COMM_WORLD, &reqs[1]);
        printf("ex rank=%d op=start t=%.17g\n", rank, MPI_Wtime());
        MPIX_Vaced_compute(compute);
        MPI_Waitall(2, reqs, sts);
        printf("ex rank=%d op=waitall t=%.17g\n", rank, MPI_Wtime());
        int count = -1;
        MPI_Get_count(&sts[0], MPI_BYTE, &count);
        if (count != size || sts[0].MPI_SOURCE != other || sts[0].MPI_TAG != 9)
            printf("FAIL rank=%d status count=%d source=%d tag=%d\n", rank, count,
                   sts[0].MPI_SOURCE, sts[0].MPI_TAG);
        long bad = vt_check(rbuf, size, 777u + (unsigned)other);
        if (bad >= 0)
            printf("FAIL rank=%d data differs at byte %ld\n", rank, bad);
        free(sbuf);
        free(rbuf);
    }
    MPI_Finalize();
    return 0;
}
