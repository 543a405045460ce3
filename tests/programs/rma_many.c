/* Many small one-sided operations among every pair of ranks (a stress of
 * the engine's one-sided packets, e.g. through vaced's MPICH, where the
 * library's own waits must not block the packets' senders):
 * ITERS rounds of: under lock_all, each rank Puts K ints into every
 * target's slot for it, Accumulates 1 into every target's counter and
 * Gets every target's first int, flush_all, unlock_all, barrier; then a
 * fence epoch in which each rank Puts its rank into every target's last
 * slot. Checks the data; prints "ok <rank> <virtual end in ps>" per rank.
 * Arguments: ITERS K (default 20 8). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int iters = argc > 1 ? atoi(argv[1]) : 20, k = argc > 2 ? atoi(argv[2]) : 8;
    /* slots: n blocks of k ints (one per origin), a counter, n last ints */
    int len = n * k + 1 + n;
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(len * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < len; i++) mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    int *src = malloc(k * sizeof(int)), *got = malloc(n * sizeof(int)), one = 1;
    int bad = 0;
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < k; i++) src[i] = 1000 * rank + it;
        MPI_Win_lock_all(0, win);
        for (int d = 1; d <= n; d++) {
            int t = (rank + d) % n;
            MPI_Put(src, k, MPI_INT, t, rank * k, k, MPI_INT, win);
            MPI_Accumulate(&one, 1, MPI_INT, t, n * k, 1, MPI_INT, MPI_SUM, win);
            MPI_Get(&got[t], 1, MPI_INT, t, n * k + 1 + t, 1, MPI_INT, win);
        }
        MPI_Win_flush_all(win);
        MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int o = 0; o < n; o++)
            for (int i = 0; i < k; i++)
                if (mem[o * k + i] != 1000 * o + it) bad++;
        if (mem[n * k] != n * (it + 1)) bad++;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int t = 0; t < n; t++)
        MPI_Put(&rank, 1, MPI_INT, t, n * k + 1 + rank, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (int o = 0; o < n; o++)
        if (mem[n * k + 1 + o] != o) bad++;
    double t = MPI_Wtime();
    MPI_Win_free(&win);
    free(src);
    free(got);
    if (bad)
        printf("FAIL %d: %d wrong ints\n", rank, bad);
    else
        printf("ok %d %lld\n", rank, (long long)(t * 1e12 + 0.5));
    MPI_Finalize();
    return 0;
}
