/* Fan-in: every rank but 0 sends R (argv[1], default 100) 8-byte messages
 * to rank 0, which receives them source by source, highest source first
 * (or, with argv[2] "any", with MPI_ANY_SOURCE and MPI_ANY_TAG): its queue
 * of unmatched messages holds up to (n - 1) * R of them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    int rank, n, R = argc > 1 ? atoi(argv[1]) : 100;
    int any = argc > 2 && strcmp(argv[2], "any") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long x = rank, sum = 0;
    if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int s = n - 1; s > 0; s--)
            for (int i = 0; i < R; i++) {
                MPI_Recv(&x, 1, MPI_LONG, any ? MPI_ANY_SOURCE : s, any ? MPI_ANY_TAG : i,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                sum += x;
            }
        printf("sum %ld\n", sum);
    } else {
        for (int i = 0; i < R; i++)
            MPI_Send(&x, 1, MPI_LONG, 0, i, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
