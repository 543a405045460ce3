/* bench/percall/exchange.c: the engine's cost per message, without
 * computation. Every rank exchanges BYTES with its partner (rank ^ 1)
 * ROUNDS times.
 *
 * usage: exchange MODE ROUNDS BYTES
 *   MODE 0: MPI_Sendrecv (one MPI call per message)
 *   MODE 1: MPI_Irecv, MPI_Send, MPI_Wait (three calls per message, as in
 *           NPB CG's exchanges)
 * The number of ranks must be even. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4 || size % 2 != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: exchange MODE ROUNDS BYTES (an even number of ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int mode = atoi(argv[1]), rounds = atoi(argv[2]), bytes = atoi(argv[3]);
    char *out = malloc(bytes > 0 ? bytes : 1), *in = malloc(bytes > 0 ? bytes : 1);
    memset(out, rank, bytes);
    int partner = rank ^ 1;
    for (int i = 0; i < rounds; i++) {
        if (mode == 0) {
            MPI_Sendrecv(out, bytes, MPI_BYTE, partner, 1, in, bytes, MPI_BYTE, partner, 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Request r;
            MPI_Irecv(in, bytes, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &r);
            MPI_Send(out, bytes, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        if (bytes > 0 && in[0] != (char)partner) {
            printf("FAIL rank %d round %d: got %d from %d\n", rank, i, in[0], partner);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
