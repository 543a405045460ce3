/* Functional one-sided communication on any number of ranks: Put, Get and
 * Accumulate under fences, exclusive and shared locks, lock_all with
 * flush, Win_allocate; errors (MPI_ERR_RMA_SYNC, MPI_ERR_RMA_RANGE,
 * MPI_ERR_WIN) under MPI_ERRORS_RETURN. Prints "FAIL ..." on a wrong
 * result, "ok N" at the end on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL rank %d: ", rank); printf(__VA_ARGS__); printf("\n"); fails++; } } while (0)

int main(int argc, char **argv) {
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int *mem = calloc(n + 9, sizeof(int));
    /* slots: 0..n-1 puts, n acc sum, n+1 lock counter, n+2 max, n+3 pscw,
     * n+4 fetch-and-op counter, n+5 compare-and-swap, n+6 get_accumulate,
     * n+7 request-based */
    MPI_Win win;
    MPI_Win_create(mem, (n + 9) * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (rank + 1) % n, left = (rank + n - 1) % n;

    /* fence: every rank puts its rank + 100 into slot `rank` of its right neighbour */
    MPI_Win_fence(0, win);
    int v = rank + 100;
    MPI_Put(&v, 1, MPI_INT, right, rank, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(mem[left] == left + 100, "put: mem[%d] = %d", left, mem[left]);

    /* fence: get the left neighbour's slot (written above by its left) */
    int got = -1;
    MPI_Get(&got, 1, MPI_INT, left, (left + n - 1) % n, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(got == (left + n - 1) % n + 100, "get: %d", got);

    /* fence: everyone adds rank+1 into slot n of rank 0 */
    int a = rank + 1;
    MPI_Accumulate(&a, 1, MPI_INT, 0, n, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 0) CHECK(mem[n] == n * (n + 1) / 2, "acc: %d", mem[n]);
    MPI_Barrier(MPI_COMM_WORLD);

    /* exclusive locks: each rank increments slot n+1 of rank 0 with get + put */
    for (int r = 0; r < n; r++) {
        if (r == rank) {
            int x;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            MPI_Get(&x, 1, MPI_INT, 0, n + 1, 1, MPI_INT, win);
            MPI_Win_flush(0, win);
            x += 10;
            MPI_Put(&x, 1, MPI_INT, 0, n + 1, 1, MPI_INT, win);
            MPI_Win_unlock(0, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) CHECK(mem[n + 1] == 10 * n, "lock get/put: %d", mem[n + 1]);

    /* shared locks: accumulate MPI_MAX into slot n+2 of the last rank */
    MPI_Win_lock(MPI_LOCK_SHARED, n - 1, 0, win);
    int m = 1000 + rank;
    MPI_Accumulate(&m, 1, MPI_INT, n - 1, n + 2, 1, MPI_INT, MPI_MAX, win);
    MPI_Win_unlock(n - 1, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == n - 1) CHECK(mem[n + 2] == 1000 + n - 1, "max: %d", mem[n + 2]);

    /* lock_all: read every rank's slot n+1.. via Get + flush_local_all */
    MPI_Win_lock_all(0, win);
    int *all = malloc(n * sizeof(int));
    for (int r = 0; r < n; r++) MPI_Get(&all[r], 1, MPI_INT, r, (r + n - 1) % n, 1, MPI_INT, win);
    MPI_Win_flush_local_all(win);
    for (int r = 0; r < n; r++) CHECK(all[r] == (r + n - 1) % n + 100, "lock_all get %d: %d", r, all[r]);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* post/start/complete/wait: each rank exposes to its left neighbour
     * and accesses its right one (put into slot n+3, get slot n+1) */
    {
        MPI_Group wg, lg, rg;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_incl(wg, 1, &left, &lg);
        MPI_Group_incl(wg, 1, &right, &rg);
        MPI_Win_post(lg, 0, win);
        MPI_Win_start(rg, 0, win);
        int p = 7000 + rank, q = -1;
        MPI_Put(&p, 1, MPI_INT, right, n + 3, 1, MPI_INT, win);
        MPI_Get(&q, 1, MPI_INT, right, n + 2, 1, MPI_INT, win);
        MPI_Win_complete(win);
        int flag = 0;
        if (rank % 2) {
            while (!flag) { MPI_Win_test(win, &flag); if (!flag) MPIX_Vaced_compute(1e-6); }
        } else {
            MPI_Win_wait(win);
        }
        CHECK(mem[n + 3] == 7000 + left, "pscw put: %d", mem[n + 3]);
        CHECK(q == (right == n - 1 ? 1000 + n - 1 : 0), "pscw get: %d", q);
        /* again with MPI_MODE_NOCHECK on start (the target posted first) */
        MPI_Win_post(lg, 0, win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_start(rg, MPI_MODE_NOCHECK, win);
        p = 8000 + rank;
        MPI_Accumulate(&p, 1, MPI_INT, right, n + 3, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        CHECK(mem[n + 3] == 15000 + 2 * left, "pscw acc: %d", mem[n + 3]);
        int rc = 0, cls;
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        rc = MPI_Win_complete(win);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_RMA_SYNC, "complete without start: %d", cls);
        MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL);
        MPI_Group_free(&wg);
        MPI_Group_free(&lg);
        MPI_Group_free(&rg);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* atomics under lock_all: a fetch-and-add ticket each, one CAS winner,
     * get_accumulate with MPI_REPLACE then MPI_NO_OP */
    {
        int one = 1, ticket = -1, mine = rank + 1, zero = 0, old = -1;
        MPI_Win_lock_all(0, win);
        MPI_Fetch_and_op(&one, &ticket, MPI_INT, 0, n + 4, MPI_SUM, win);
        MPI_Compare_and_swap(&mine, &zero, &old, MPI_INT, 0, n + 5, win);
        MPI_Win_flush(0, win);
        MPI_Win_unlock_all(win);
        int *tickets = malloc(n * sizeof(int)), *olds = malloc(n * sizeof(int));
        MPI_Allgather(&ticket, 1, MPI_INT, tickets, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Allgather(&old, 1, MPI_INT, olds, 1, MPI_INT, MPI_COMM_WORLD);
        int seen = 0, winners = 0, winner = -1;
        for (int r = 0; r < n; r++) {
            CHECK(tickets[r] >= 0 && tickets[r] < n, "ticket %d", tickets[r]);
            seen |= 1 << tickets[r];
            if (olds[r] == 0) { winners++; winner = r; }
        }
        CHECK(seen == (1 << n) - 1, "tickets not distinct: %x", seen);
        CHECK(winners == 1, "cas winners %d", winners);
        for (int r = 0; r < n; r++)
            if (r != winner) CHECK(olds[r] == winner + 1, "cas old %d", olds[r]);
        if (rank == 0) CHECK(mem[n + 4] == n && mem[n + 5] == winner + 1, "fop/cas target %d %d", mem[n + 4], mem[n + 5]);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int r = 0; r < n; r++) {
            if (r == rank) {
                int val[2] = {rank, -rank}, prev[2] = {-9, -9}, now[2];
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, n - 1, 0, win);
                MPI_Get_accumulate(val, 2, MPI_INT, prev, 2, MPI_INT, n - 1, n + 6, 2, MPI_INT, MPI_REPLACE, win);
                MPI_Get_accumulate(NULL, 0, MPI_INT, now, 2, MPI_INT, n - 1, n + 6, 2, MPI_INT, MPI_NO_OP, win);
                MPI_Win_unlock(n - 1, win);
                CHECK(prev[0] == (rank ? rank - 1 : 0) && prev[1] == (rank ? 1 - rank : 0), "gacc prev %d %d", prev[0], prev[1]);
                CHECK(now[0] == rank && now[1] == -rank, "gacc now %d %d", now[0], now[1]);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        free(tickets);
        free(olds);
    }

    /* request-based operations (passive-target epochs only, as MPI
     * requires): Rput + Rget under a lock, Raccumulate and Rget_accumulate
     * under lock_all */
    {
        MPI_Request rq[2];
        int v = 500 + rank, back = -1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
        MPI_Rput(&v, 1, MPI_INT, right, n + 7, 1, MPI_INT, win, &rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        MPI_Win_flush(right, win);
        MPI_Rget(&back, 1, MPI_INT, right, n + 7, 1, MPI_INT, win, &rq[1]);
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        MPI_Win_unlock(right, win);
        CHECK(back == 500 + rank, "rget after rput: %d", back);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(mem[n + 7] == 500 + left, "rput: %d", mem[n + 7]);
        int two = 2, prev = -1;
        MPI_Win_lock_all(0, win);
        MPI_Raccumulate(&two, 1, MPI_INT, right, n + 7, 1, MPI_INT, MPI_SUM, win, &rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock_all(0, win);
        MPI_Rget_accumulate(&two, 1, MPI_INT, &prev, 1, MPI_INT, right, n + 7, 1, MPI_INT, MPI_PROD, win, &rq[1]);
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(prev == 502 + rank, "rget_accumulate prev %d", prev);
        CHECK(mem[n + 7] == 2 * (502 + left), "rget_accumulate target %d", mem[n + 7]);
    }

    /* Win_allocate + a derived target type (every other int) */
    int *base;
    MPI_Win w2;
    MPI_Win_allocate(2 * n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w2);
    for (int i = 0; i < 2 * n; i++) base[i] = -1;
    MPI_Datatype every_other;
    MPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int *src = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) src[i] = rank * 1000 + i;
    MPI_Win_fence(0, w2);
    MPI_Put(src, n, MPI_INT, right, 0, 1, every_other, w2);
    MPI_Win_fence(0, w2);
    for (int i = 0; i < 2 * n; i++)
        CHECK(base[i] == (i % 2 ? -1 : left * 1000 + i / 2), "vector put [%d] = %d", i, base[i]);
    MPI_Group g, wg;
    int cmp;
    MPI_Win_get_group(w2, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "group %d", cmp);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);

    /* attributes, names, info */
    {
        void *b; MPI_Aint *sz; int *du, *fl, *model, flag, len;
        MPI_Win_get_attr(w2, MPI_WIN_BASE, &b, &flag);
        CHECK(flag && b == base, "base attr");
        MPI_Win_get_attr(w2, MPI_WIN_SIZE, &sz, &flag);
        CHECK(flag && *sz == (MPI_Aint)(2 * n * sizeof(int)), "size attr %ld", (long)*sz);
        MPI_Win_get_attr(w2, MPI_WIN_DISP_UNIT, &du, &flag);
        CHECK(flag && *du == (int)sizeof(int), "disp attr %d", *du);
        MPI_Win_get_attr(w2, MPI_WIN_CREATE_FLAVOR, &fl, &flag);
        CHECK(flag && *fl == MPI_WIN_FLAVOR_ALLOCATE, "flavor %d", *fl);
        MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag);
        CHECK(flag && *fl == MPI_WIN_FLAVOR_CREATE, "flavor %d", *fl);
        MPI_Win_get_attr(w2, MPI_WIN_MODEL, &model, &flag);
        CHECK(flag && *model == MPI_WIN_UNIFIED, "model %d", *model);
        char name[MPI_MAX_OBJECT_NAME];
        MPI_Win_get_name(w2, name, &len);
        CHECK(len == 0, "default name length %d", len);
        MPI_Win_set_name(w2, "halo");
        MPI_Win_get_name(w2, name, &len);
        CHECK(len == 4 && name[0] == 'h', "name %s", name);
        MPI_Info in, out;
        char val[16];
        MPI_Info_create(&in);
        MPI_Info_set(in, "no_locks", "true");
        MPI_Win_set_info(w2, in);
        MPI_Win_get_info(w2, &out);
        MPI_Info_get(out, "no_locks", 15, val, &flag);
        CHECK(flag && val[0] == 't', "info");
        MPI_Info_free(&in);
        MPI_Info_free(&out);
    }

    /* errors */
    MPI_Win_set_errhandler(w2, MPI_ERRORS_RETURN);
    MPI_Errhandler eh;
    MPI_Win_get_errhandler(w2, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "errhandler");
    int rc, cls;
    rc = MPI_Put(src, 1, MPI_INT, right, 2 * n, 1, MPI_INT, w2);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "range: class %d", cls);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w2);
    rc = MPI_Put(src, 1, MPI_INT, right, 0, 1, MPI_INT, w2);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC, "sync: class %d", cls);
    rc = MPI_Win_unlock(right, w2);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC, "unlock: class %d", cls);
    MPI_Win_free(&w2);
    CHECK(w2 == MPI_WIN_NULL, "free sets MPI_WIN_NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Win_fence(0, w2);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_WIN, "win null: class %d", cls);

    MPI_Win_free(&win);
    int total;
    MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("ok %d\n", total);
    MPI_Finalize();
    return 0;
}
