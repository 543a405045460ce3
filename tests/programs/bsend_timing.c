/* Buffered sends in virtual time, ranks 0 and 1.
 *
 * usage: bsend_timing SMALL LARGE C (bytes, bytes, seconds)
 * Rank 0 attaches a buffer, then: MPI_Bsend of SMALL bytes (tag 1) and of
 * LARGE bytes (tag 2), an MPI_Ibsend of SMALL bytes (tag 3) waited for
 * after C seconds of computation, and MPI_Buffer_detach (which waits until
 * the buffered messages are out). Rank 1 computes C seconds, then receives
 * tags 1, 2 and 3. Lines: b rank=R op=NAME t=... after each call. */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 4) {
        printf("FAIL usage: bsend_timing SMALL LARGE C\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int small = atoi(argv[1]), large = atoi(argv[2]);
    double c = atof(argv[3]);
    char *a = calloc(1, (size_t)small), *b = calloc(1, (size_t)large);
    if (rank == 0) {
        int size = 2 * small + large + 3 * MPI_BSEND_OVERHEAD;
        void *buf = malloc((size_t)size);
        MPI_Buffer_attach(buf, size);
        MPI_Bsend(a, small, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        printf("b rank=0 op=bsend_small t=%.17g\n", MPI_Wtime());
        MPI_Bsend(b, large, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        printf("b rank=0 op=bsend_large t=%.17g\n", MPI_Wtime());
        MPI_Request r;
        MPI_Ibsend(a, small, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &r);
        MPIX_Vaced_compute(c);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        printf("b rank=0 op=ibsend t=%.17g\n", MPI_Wtime());
        void *back;
        int n;
        MPI_Buffer_detach(&back, &n);
        printf("b rank=0 op=detach t=%.17g\n", MPI_Wtime());
        free(buf);
    } else if (rank == 1) {
        MPIX_Vaced_compute(c);
        MPI_Recv(a, small, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("b rank=1 op=recv_small t=%.17g\n", MPI_Wtime());
        MPI_Recv(b, large, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("b rank=1 op=recv_large t=%.17g\n", MPI_Wtime());
        MPI_Recv(a, small, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("b rank=1 op=recv_ibsend t=%.17g\n", MPI_Wtime());
    }
    MPI_Finalize();
    return 0;
}
