/* vaced-bench calibrate: a ping-pong between ranks 0 and 1 and a memcpy
 * bandwidth test, run under the system MPICH on this host.
 *
 *   mpirun.mpich -n 2 ./pingpong
 *
 * Rank 0 prints one line per message size, the one-way time (half the
 * fastest of up to 200 round trips; on a shared host the others are slowed
 * down by other processes):
 *   pingpong <bytes> <seconds>
 * and the copy bandwidth of memcpy between two large buffers (best of 10):
 *   memcpy <bytes> <seconds>
 * vaced-bench fits a latency and bandwidths to these (bench/harness/src/calibrate.rs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BYTES (4 << 20)
#define COPY_BYTES (32 << 20)
#define MAX_REPS 200

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong: needs exactly 2 ranks, not %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = malloc(MAX_BYTES);
    if (!buf) {
        fprintf(stderr, "pingpong: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(buf, 1, MAX_BYTES);
    int other = 1 - rank;
    double *rt = malloc(sizeof(double) * MAX_REPS);
    for (long bytes = 1; bytes <= MAX_BYTES; bytes *= 2) {
        long reps = (8L << 20) / bytes;
        if (reps > MAX_REPS)
            reps = MAX_REPS;
        if (reps < 10)
            reps = 10;
        MPI_Barrier(MPI_COMM_WORLD);
        for (long i = -2; i < reps; i++) { /* two warm-up round trips */
            double t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(buf, (int)bytes, MPI_BYTE, other, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)bytes, MPI_BYTE, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, (int)bytes, MPI_BYTE, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)bytes, MPI_BYTE, other, 0, MPI_COMM_WORLD);
            }
            if (i >= 0)
                rt[i] = MPI_Wtime() - t0;
        }
        /* the fastest round trip: on a shared host the others were slowed
         * down by other processes taking the cores */
        double best = rt[0];
        for (long i = 1; i < reps; i++)
            if (rt[i] < best)
                best = rt[i];
        if (rank == 0)
            printf("pingpong %ld %.9e\n", bytes, best / 2);
    }
    free(rt);
    if (rank == 0) {
        char *a = malloc(COPY_BYTES), *b = malloc(COPY_BYTES);
        if (!a || !b) {
            fprintf(stderr, "pingpong: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(a, 2, COPY_BYTES);
        memset(b, 3, COPY_BYTES);
        double best = 1e30;
        for (int i = 0; i < 10; i++) {
            double t0 = MPI_Wtime();
            memcpy(i % 2 ? a : b, i % 2 ? b : a, COPY_BYTES);
            double t = MPI_Wtime() - t0;
            if (t < best)
                best = t;
        }
        printf("memcpy %d %.9e\n", COPY_BYTES, best);
        free(a);
        free(b);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
