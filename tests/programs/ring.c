/* Rings over all ranks.
 *
 * usage: ring token LAPS WORDS   one token of WORDS ints goes LAPS times
 *                                around: rank 0 sends to 1, each rank
 *                                receives from its left neighbour (MPI_Recv)
 *                                and passes it on to its right (MPI_Send).
 *        ring shift ROUNDS WORDS every round, every rank MPI_Sendrecv's
 *                                WORDS ints to its right neighbour and
 *                                from its left one.
 * Each rank prints, after its last call:
 *   ring rank=R op=end t=<MPI_Wtime, %.17g>
 * The values are checked (FAIL lines). */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static void token_ring(int rank, int n, int laps, int words)
{
    int *tok = vt_malloc(sizeof(int) * words);
    int left = (rank + n - 1) % n, right = (rank + 1) % n;
    for (int lap = 0; lap < laps; lap++) {
        /* the token's value when rank r receives it: lap * n + r (rank 0
         * receives n at the end of lap 0, ...) */
        if (rank != 0) {
            MPI_Status st;
            MPI_Recv(tok, words, MPI_INT, left, lap, MPI_COMM_WORLD, &st);
            int expect = lap * n + rank;
            for (int j = 0; j < words; j++)
                if (tok[j] != expect + j) {
                    printf("FAIL rank=%d lap=%d word %d = %d, expected %d\n", rank, lap, j,
                           tok[j], expect + j);
                    break;
                }
            if (st.MPI_SOURCE != left || st.MPI_TAG != lap)
                printf("FAIL rank=%d lap=%d source=%d tag=%d\n", rank, lap, st.MPI_SOURCE,
                       st.MPI_TAG);
        } else {
            for (int j = 0; j < words; j++)
                tok[j] = lap * n + j;
        }
        for (int j = 0; j < words; j++)
            tok[j] += 1;
        MPI_Send(tok, words, MPI_INT, right, lap, MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Recv(tok, words, MPI_INT, left, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int j = 0; j < words; j++)
                if (tok[j] != (lap + 1) * n + j) {
                    printf("FAIL rank=0 lap=%d word %d = %d, expected %d\n", lap, j, tok[j],
                           (lap + 1) * n + j);
                    break;
                }
        }
    }
    free(tok);
}

static void shift_ring(int rank, int n, int rounds, int words)
{
    int *out = vt_malloc(sizeof(int) * words), *in = vt_malloc(sizeof(int) * words);
    int left = (rank + n - 1) % n, right = (rank + 1) % n;
    for (int r = 0; r < rounds; r++) {
        for (int j = 0; j < words; j++)
            out[j] = r * 1000003 + rank * 1009 + j;
        memset(in, 0xff, sizeof(int) * words);
        MPI_Status st;
        MPI_Sendrecv(out, words, MPI_INT, right, r, in, words, MPI_INT, left, r, MPI_COMM_WORLD,
                     &st);
        for (int j = 0; j < words; j++)
            if (in[j] != r * 1000003 + left * 1009 + j) {
                printf("FAIL rank=%d round=%d word %d = %d\n", rank, r, j, in[j]);
                break;
            }
        if (st.MPI_SOURCE != left || st.MPI_TAG != r)
            printf("FAIL rank=%d round=%d source=%d tag=%d\n", rank, r, st.MPI_SOURCE, st.MPI_TAG);
    }
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != 4 || n < 2) {
        if (rank == 0)
            printf("FAIL usage: ring token|shift LAPS|ROUNDS WORDS (at least 2 ranks)\n");
        MPI_Finalize();
        return 2;
    }
    int count = atoi(argv[2]), words = atoi(argv[3]);
    if (strcmp(argv[1], "token") == 0)
        token_ring(rank, n, count, words);
    else
        shift_ring(rank, n, count, words);
    printf("ring rank=%d op=end t=%.17g\n", rank, MPI_Wtime());
    MPI_Finalize();
    return 0;
}
