/* Ping-pong in pairs (0, 1), (2, 3), ... for the timeline tests: for each
 * SIZE in turn, REPS round trips of SIZE bytes with blocking MPI_Send /
 * MPI_Recv on MPI_COMM_WORLD, tag 100 * (index of SIZE) + rep. Before each
 * of its sends, rank r computes (r + 1) us (MPIX_Vaced_compute). A rank
 * without a partner (the last of an odd number) only calls MPI_Init,
 * MPI_Comm_rank, MPI_Comm_size and MPI_Finalize.
 *
 * usage: timeline_pingpong REPS SIZE...
 *
 * The data are checked: a mismatch prints a FAIL line. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void fill(unsigned char *b, long n, int seed)
{
    for (long i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 7 + seed);
}

static long differs(const unsigned char *b, long n, int seed)
{
    for (long i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 7 + seed))
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 3) {
        if (rank == 0)
            printf("FAIL usage: timeline_pingpong REPS SIZE...\n");
        MPI_Finalize();
        return 2;
    }
    int reps = atoi(argv[1]);
    int peer = rank ^ 1;
    if (peer < nranks) {
        long max = 1;
        for (int a = 2; a < argc; a++)
            if (atol(argv[a]) > max)
                max = atol(argv[a]);
        unsigned char *sbuf = malloc(max), *rbuf = malloc(max);
        double compute = 1e-6 * (rank + 1);
        for (int a = 2; a < argc; a++) {
            long size = atol(argv[a]);
            for (int rep = 0; rep < reps; rep++) {
                int tag = (a - 2) * 100 + rep;
                fill(sbuf, size, rank + tag);
                if (rank % 2 == 0) {
                    MPIX_Vaced_compute(compute);
                    MPI_Send(sbuf, (int)size, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
                    MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, tag, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, tag, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                    MPIX_Vaced_compute(compute);
                    MPI_Send(sbuf, (int)size, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
                }
                long bad = differs(rbuf, size, peer + tag);
                if (bad >= 0)
                    printf("FAIL rank=%d size=%ld rep=%d data differs at byte %ld\n", rank,
                           size, rep, bad);
            }
        }
        free(sbuf);
        free(rbuf);
    }
    MPI_Finalize();
    return 0;
}
