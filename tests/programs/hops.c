/* Round trips of SIZE bytes between rank 0 and each PEER in turn (blocking
 * MPI_Send / MPI_Recv); the other ranks only call MPI_Init and MPI_Finalize.
 * After each receive the receiving rank prints
 *   hp rank=R peer=P op=recv t=<MPI_Wtime, %.17g>
 * (P: the peer of the round trip). usage: hops SIZE PEER... */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc < 3) {
        if (me == 0)
            printf("FAIL usage: hops SIZE PEER...\n");
        MPI_Finalize();
        return 2;
    }
    long size = atol(argv[1]);
    unsigned char *buf = vt_malloc(size);
    for (int i = 2; i < argc; i++) {
        int p = atoi(argv[i]);
        if (p <= 0 || p >= n) {
            if (me == 0)
                printf("FAIL peer %d out of range\n", p);
            continue;
        }
        unsigned seed = (unsigned)(p * 31 + i);
        MPI_Status st;
        if (me == 0) {
            vt_fill(buf, size, seed);
            MPI_Send(buf, (int)size, MPI_BYTE, p, i, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)size, MPI_BYTE, p, i, MPI_COMM_WORLD, &st);
            printf("hp rank=0 peer=%d op=recv t=%.17g\n", p, MPI_Wtime());
        } else if (me == p) {
            MPI_Recv(buf, (int)size, MPI_BYTE, 0, i, MPI_COMM_WORLD, &st);
            printf("hp rank=%d peer=%d op=recv t=%.17g\n", me, p, MPI_Wtime());
            MPI_Send(buf, (int)size, MPI_BYTE, 0, i, MPI_COMM_WORLD);
        } else {
            continue;
        }
        long bad = vt_check(buf, size, seed);
        if (bad >= 0)
            printf("FAIL rank=%d peer=%d data differs at byte %ld\n", me, p, bad);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
