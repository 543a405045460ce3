/* Shared-memory windows on the ranks of one node (any count up to 12):
 * MPI_Win_allocate_shared with a different size per rank (rank 1: none),
 * MPI_Win_shared_query's sizes, units and addresses (contiguous parts;
 * page-aligned ones with alloc_shared_noncontig), loads and stores seen
 * across ranks, Put / Get / Accumulate / Fetch_and_op / Compare_and_swap
 * and request-based operations (complete at once) on the shared memory.
 * Prints "ok <rank>". With more than 12 ranks (two nodes of tianhe1a),
 * MPI_Win_allocate_shared on MPI_COMM_WORLD must fail with
 * MPI_ERR_RMA_SHARED: prints "multi-node refused <rank>".
 *
 * With the argument "abort": rank 0 aborts the job while a shared window
 * exists (its object must not outlive the job).
 * With 2 ranks and the argument "time": each rank prints "S rank t0 t1 t2"
 * (picoseconds): t0..t1 a Put and a Get of P bytes, a Fetch_and_op and a
 * Compare_and_swap of one int under lock_all(MPI_MODE_NOCHECK); t1..t2 an
 * exclusive lock of rank 1 (waiting in a barrier), a Put of P bytes and
 * the unlock. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P 80000

static long long ps(double t) { return (long long)(t * 1e12 + 0.5); }

static int errors = 0;
#define CHECK(c, ...) do { if (!(c)) { errors++; printf("FAIL " __VA_ARGS__); printf("\n"); } } while (0)

static void timing(int rank) {
    char *base, *src = malloc(P), *dst = malloc(P);
    for (int i = 0; i < P; i++) src[i] = (char)(i * 5);
    MPI_Win win;
    MPI_Win_allocate_shared(P, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), t1 = t0, t2 = t0;
    if (rank == 0) {
        int one = 1, old, cmp = 0, neu = 7;
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        MPI_Put(src, P, MPI_BYTE, 1, 0, P, MPI_BYTE, win);
        MPI_Get(dst, P, MPI_BYTE, 1, 0, P, MPI_BYTE, win);
        MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
        MPI_Compare_and_swap(&neu, &cmp, &old, MPI_INT, 0, 4, win);
        MPI_Win_unlock_all(win);
        t1 = MPI_Wtime();
        if (memcmp(src, dst, P) != 0) printf("FAIL get after put\n");
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(src, P, MPI_BYTE, 1, 0, P, MPI_BYTE, win);
        MPI_Win_unlock(1, win);
        t2 = MPI_Wtime();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        for (int i = 0; i < P; i++)
            if (base[i] != (char)(i * 5)) { printf("FAIL put at %d\n", i); break; }
    printf("S %d %lld %lld %lld\n", rank, ps(t0), ps(t1), ps(t2));
    MPI_Win_free(&win);
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "abort") == 0) {
        /* the job dies with the window's object in place */
        char *b;
        MPI_Win w;
        MPI_Win_allocate_shared(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w);
        b[0] = 1;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Barrier(MPI_COMM_WORLD);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "time") == 0) {
        timing(rank);
        MPI_Finalize();
        return 0;
    }
    if (size > 12) {
        MPI_Win w;
        int *p, cls;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Win_allocate_shared(16, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &w);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_RMA_SHARED, "allocate_shared over two nodes: class %d", cls);
        if (errors == 0) printf("multi-node refused %d\n", rank);
        MPI_Finalize();
        return 0;
    }
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int n;
    MPI_Comm_size(node, &n);
    CHECK(n == size, "node of %d ranks", n);
    int me_elems = rank == 1 ? 0 : 4 * (rank + 1);
    int *mine;
    MPI_Win win;
    MPI_Win_allocate_shared(me_elems * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win);

    int *flavor, flag;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED, "flavor %d", *flavor);
    void *wbase;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &wbase, &flag);
    CHECK(wbase == mine, "MPI_WIN_BASE %p, base %p", wbase, (void *)mine);

    int **base = malloc(n * sizeof(int *));
    int *elems = malloc(n * sizeof(int));
    for (int r = 0; r < n; r++) {
        MPI_Aint sz;
        int du;
        MPI_Win_shared_query(win, r, &sz, &du, &base[r]);
        elems[r] = r == 1 ? 0 : 4 * (r + 1);
        CHECK(sz == elems[r] * (MPI_Aint)sizeof(int), "size of %d: %ld", r, (long)sz);
        CHECK(du == sizeof(int), "unit of %d: %d", r, du);
        if (r == 1)
            CHECK(base[r] == NULL, "rank 1 has no memory: base %p", (void *)base[r]);
        else if (r > 1)
            CHECK(base[r] == base[r - 2 + (r > 2)] + elems[r - 2 + (r > 2)],
                  "rank %d's part is not after rank %d's", r, r - 2 + (r > 2));
    }
    CHECK(base[rank] == mine, "query of myself");
    {
        MPI_Aint sz;
        int du;
        int *p;
        MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p);
        CHECK(p == base[0] && sz == 4 * (MPI_Aint)sizeof(int), "MPI_PROC_NULL query");
    }

    /* stores seen by loads of the other ranks */
    MPI_Win_fence(0, win);
    for (int i = 0; i < me_elems; i++) mine[i] = rank * 100 + i;
    MPI_Win_fence(0, win);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < elems[r]; i++)
            CHECK(base[r][i] == r * 100 + i, "load of rank %d [%d]: %d", r, i, base[r][i]);

    /* Put into rank 0's part, displacement = my rank; then Get it all */
    MPI_Win_fence(0, win);
    int v = 1000 + rank;
    if (rank < 4) MPI_Put(&v, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    int got[4];
    MPI_Get(got, 4, MPI_INT, 0, 0, 4, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 4; i++) {
        int want = i < n ? 1000 + i : i;
        CHECK(got[i] == want && base[0][i] == want, "rank 0 [%d]: got %d, load %d, want %d",
              i, got[i], base[0][i], want);
    }

    /* atomics on rank 0's part: [0] counter, [1] fetch-and-add, [2] CAS */
    MPI_Win_fence(0, win);
    if (rank == 0) {
        base[0][0] = 0;
        base[0][1] = 0;
        base[0][2] = -1;
    }
    MPI_Win_fence(0, win);
    MPI_Win_lock_all(0, win);
    int one = 1, old, minus = -1;
    for (int k = 0; k < 10; k++) MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 1, MPI_SUM, win);
    int cas;
    MPI_Compare_and_swap(&rank, &minus, &cas, MPI_INT, 0, 2, win);
    MPI_Request req;
    int rg = -5, tflag;
    MPI_Rget(&rg, 1, MPI_INT, 0, 3, 1, MPI_INT, win, &req);
    MPI_Test(&req, &tflag, MPI_STATUS_IGNORE);
    CHECK(tflag, "an Rget on a shared window is complete at once");
    MPI_Win_unlock_all(win);
    MPI_Barrier(node);
    CHECK(base[0][0] == 10 * n, "accumulated %d", base[0][0]);
    CHECK(base[0][1] == n, "fetched and added %d", base[0][1]);
    int olds[12], cass[12];
    MPI_Allgather(&old, 1, MPI_INT, olds, 1, MPI_INT, node);
    MPI_Allgather(&cas, 1, MPI_INT, cass, 1, MPI_INT, node);
    int seen = 0, winners = 0;
    for (int r = 0; r < n; r++) {
        if (olds[r] >= 0 && olds[r] < n) seen |= 1 << olds[r];
        if (cass[r] == -1) {
            winners++;
            CHECK(base[0][2] == r, "CAS winner %d, value %d", r, base[0][2]);
        }
    }
    CHECK(seen == (1 << n) - 1, "fetch_and_op results are not 0..n-1");
    CHECK(winners == 1, "%d CAS winners", winners);
    MPI_Win_free(&win);

    /* alloc_shared_noncontig: each part on a page of its own */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    char *c0, *cr;
    MPI_Win_allocate_shared(10, 1, info, node, &cr, &win);
    MPI_Info_free(&info);
    MPI_Aint sz;
    int du;
    MPI_Win_shared_query(win, 0, &sz, &du, &c0);
    CHECK((cr - c0) == 4096 * rank, "noncontig part of %d at +%ld", rank, (long)(cr - c0));
    MPI_Win_free(&win);

    free(base);
    free(elems);
    MPI_Comm_free(&node);
    if (errors == 0) printf("ok %d\n", rank);
    MPI_Finalize();
    return 0;
}
