/* Dynamic windows on any number of ranks: each rank attaches two arrays,
 * the addresses go round (MPI_Get_address + Allgather), every rank Puts
 * into its right neighbour's first array and Accumulates into its second
 * under a lock, Gets its left neighbour's first array with lock_all, and
 * checks the results; the flavor attributes; errors under
 * MPI_ERRORS_RETURN (attach on another flavor, detach of memory never
 * attached, overlapping attach). Prints "ok <rank>".
 *
 * With 2 ranks and the argument "time": the exact timing of a Put of P
 * bytes to a dynamic window under an exclusive lock while the target waits
 * in a barrier: prints "T rank t0 t1" (picoseconds).
 * With the argument "range": rank 0 Puts to memory rank 1 never attached
 * (the job must be aborted with MPI_ERR_RMA_RANGE). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64
#define P 80000

static long long ps(double t) { return (long long)(t * 1e12 + 0.5); }

static int errors = 0;
#define CHECK(c, ...) do { if (!(c)) { errors++; printf("FAIL " __VA_ARGS__); printf("\n"); } } while (0)

static void timing(int rank) {
    char *mem = calloc(P, 1), *src = malloc(P);
    for (int i = 0; i < P; i++) src[i] = (char)(i * 3);
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_attach(win, mem, P);
    MPI_Aint addr, addrs[2];
    MPI_Get_address(mem, &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), t1 = t0;
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(src, P, MPI_BYTE, 1, addrs[1], P, MPI_BYTE, win);
        MPI_Win_unlock(1, win);
        t1 = MPI_Wtime();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        for (int i = 0; i < P; i++)
            if (mem[i] != (char)(i * 3)) { printf("FAIL put at %d\n", i); break; }
    printf("T %d %lld %lld\n", rank, ps(t0), ps(t1));
    MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    free(mem);
    free(src);
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "range") == 0) {
        int x[4] = {1, 2, 3, 4}, *mem = calloc(4, sizeof(int)), *other = calloc(4, sizeof(int));
        MPI_Win win;
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_attach(win, mem, 4 * sizeof(int));
        MPI_Aint addr, addrs[2];
        MPI_Get_address(other, &addr); /* not attached */
        MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
        MPI_Win_fence(0, win);
        if (rank == 0) MPI_Put(x, 4, MPI_INT, 1, addrs[1], 4, MPI_INT, win);
        MPI_Win_fence(0, win);
        if (rank == 1) printf("FAIL the put to unattached memory went through\n");
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "time") == 0) {
        timing(rank);
        MPI_Finalize();
        return 0;
    }
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *a = calloc(N, sizeof(int)), *b = calloc(N, sizeof(int)), *got = calloc(N, sizeof(int));
    int src[N];
    for (int i = 0; i < N; i++) src[i] = rank * 1000 + i;

    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int *flavor, flag;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC, "flavor %d", *flavor);
    MPI_Aint *wsize;
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag);
    CHECK(flag && *wsize == 0, "size %ld", (long)*wsize);
    void *wbase;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &wbase, &flag);
    CHECK(flag && wbase == MPI_BOTTOM, "base %p", wbase);

    MPI_Win_attach(win, a, N * sizeof(int));
    MPI_Win_attach(win, b, N * sizeof(int));
    MPI_Aint mine[2], all[2 * 64];
    MPI_Get_address(a, &mine[0]);
    MPI_Get_address(b, &mine[1]);
    MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);

    /* Put into the right neighbour's a, Accumulate (sum) into its b[1..] */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(src, N, MPI_INT, right, all[2 * right], N, MPI_INT, win);
    MPI_Accumulate(src, N - 1, MPI_INT, right, MPI_Aint_add(all[2 * right + 1], sizeof(int)),
                   N - 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        CHECK(a[i] == left * 1000 + i, "a[%d] = %d on rank %d", i, a[i], rank);
    CHECK(b[0] == 0, "b[0] = %d", b[0]);
    for (int i = 1; i < N; i++)
        CHECK(b[i] == left * 1000 + i - 1, "b[%d] = %d on rank %d", i, b[i], rank);

    /* Get the left neighbour's a (which holds its left neighbour's data) */
    MPI_Win_lock_all(0, win);
    MPI_Get(got, N, MPI_INT, left, all[2 * left], N, MPI_INT, win);
    MPI_Win_flush(left, win);
    MPI_Win_unlock_all(win);
    int ll = (left + size - 1) % size;
    for (int i = 0; i < N; i++)
        CHECK(got[i] == ll * 1000 + i, "got[%d] = %d on rank %d", i, got[i], rank);
    MPI_Barrier(MPI_COMM_WORLD);

    /* long double: Accumulate (the target applies the C kernels) and
     * Fetch_and_op */
    long double *ld = calloc(2, sizeof(long double)), lsrc[2] = {rank + 0.25L, 2.0L}, lold;
    MPI_Aint lda, ldall[64];
    MPI_Win_attach(win, ld, 2 * sizeof(long double));
    MPI_Get_address(ld, &lda);
    MPI_Allgather(&lda, 1, MPI_AINT, ldall, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Accumulate(lsrc, 2, MPI_LONG_DOUBLE, right, ldall[right], 2, MPI_LONG_DOUBLE, MPI_SUM, win);
    MPI_Win_flush(right, win);
    MPI_Fetch_and_op(&lsrc[1], &lold, MPI_LONG_DOUBLE, right, ldall[right], MPI_PROD, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(lold == rank + 0.25L, "fetched long double %Lg", lold);
    CHECK(ld[0] == 2.0L * (left + 0.25L) && ld[1] == 2.0L, "long doubles %Lg %Lg", ld[0], ld[1]);
    MPI_Win_detach(win, ld);
    free(ld);

    /* errors */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int rc = MPI_Win_detach(win, got), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_ATTACH, "detach of unattached memory: class %d", cls);
    rc = MPI_Win_attach(win, a + 4, 4 * sizeof(int));
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_ATTACH, "overlapping attach: class %d", cls);
    MPI_Win_detach(win, a);
    MPI_Win_detach(win, b);
    MPI_Win_free(&win);

    MPI_Win w2;
    MPI_Win_create(a, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w2);
    MPI_Win_set_errhandler(w2, MPI_ERRORS_RETURN);
    rc = MPI_Win_attach(w2, b, sizeof(int));
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_FLAVOR, "attach on a created window: class %d", cls);
    MPI_Win_free(&w2);

    free(a);
    free(b);
    free(got);
    if (errors == 0) printf("ok %d\n", rank);
    MPI_Finalize();
    return 0;
}
