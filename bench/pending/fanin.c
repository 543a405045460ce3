/* Fan-in: every rank but 0 sends R small messages to rank 0, which
 * receives them source by source, highest source first: its unexpected
 * queue holds up to (n - 1) * R messages. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank, n, R = argc > 1 ? atoi(argv[1]) : 100;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long x = rank, sum = 0;
    if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int s = n - 1; s > 0; s--)
            for (int i = 0; i < R; i++) {
                MPI_Recv(&x, 1, MPI_LONG, s, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
