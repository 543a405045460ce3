/* Exact timing of one-sided communication on 2 ranks (same node):
 * A: a Put of B bytes from rank 0 to rank 1 between a fence with
 *    MPI_MODE_NOPRECEDE and one with MPI_MODE_NOSUCCEED;
 * B: a Get of G bytes by rank 0 from rank 1 under an exclusive lock while
 *    rank 1 computes C seconds (the lock and the GET wait for rank 1's
 *    next MPI call).
 * Prints "A rank t0 t1" and "B rank t0 t1" in picoseconds. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define B 1048576
#define G 80000
#define C 0.001

static long long ps(double t) { return (long long)(t * 1e12 + 0.5); }

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *mem = calloc(B, 1), *src = malloc(B);
    for (int i = 0; i < B; i++) src[i] = (char)(i * 7 + rank);
    MPI_Win win;
    MPI_Win_create(mem, B, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    double a0 = MPI_Wtime();
    if (rank == 0) MPI_Put(src, B, MPI_BYTE, 1, 0, B, MPI_BYTE, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    double a1 = MPI_Wtime();
    if (rank == 1) {
        for (int i = 0; i < B; i++)
            if (mem[i] != (char)(i * 7)) { printf("bad put at %d\n", i); return 1; }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double b0 = MPI_Wtime(), b1 = b0;
    if (rank == 0) {
        char *got = malloc(G);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Get(got, G, MPI_BYTE, 1, 0, G, MPI_BYTE, win);
        MPI_Win_unlock(1, win);
        b1 = MPI_Wtime();
        if (memcmp(got, mem, 0) != 0 || got[5] != (char)(5 * 7)) { printf("bad get\n"); return 1; }
        free(got);
    } else {
        MPIX_Vaced_compute(C);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("A %d %lld %lld\n", rank, ps(a0), ps(a1));
    if (rank == 0) printf("B %d %lld %lld\n", rank, ps(b0), ps(b1));
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
