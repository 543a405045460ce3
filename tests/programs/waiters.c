/* waiters ROUNDS: ranks 0 and 1 ping-pong ROUNDS times while every other
 * rank waits in MPI_Recv for rank 0's last message (each tells rank 0 it
 * is about to wait before the ping-pong starts). Through vaced's MPICH the
 * waiting ranks sleep (their report's host_sleeps) unless
 * VACED_MPICH_WAIT=poll; the prediction is the same either way. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 1000, x = 0, ready;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int r = 2; r < size; r++)
            MPI_Recv(&ready, 1, MPI_INT, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank > 1) {
        MPI_Send(&rank, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
    if (rank < 2) {
        for (int i = 0; i < rounds; i++) {
            if (rank == 0) {
                MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                x++;
                MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
            }
        }
        if (rank == 0)
            for (int r = 2; r < size; r++)
                MPI_Send(&x, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    printf("rank %d x=%d %s\n", rank, x, x == rounds ? "ok" : "FAIL");
    MPI_Finalize();
    return 0;
}
