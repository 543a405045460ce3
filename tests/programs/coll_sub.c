/* Every collective on sub-communicators from MPI_Comm_split, with derived
 * datatypes in the data, with and without MPI_IN_PLACE.
 *
 * usage: coll_sub COUNT
 * MPI_COMM_WORLD is split three ways: by parity (key = world rank), by
 * rank % 3 with key = -rank (reversed order) and as a whole with key =
 * size - rank (reversed world). On each sub-communicator every collective
 * runs with two derived datatypes:
 *   vec: MPI_Type_vector(2, 1, 2, MPI_DOUBLE): values (a, b) at bytes 0 and
 *        16 of a 24-byte element, bytes 8..16 a hole;
 *   st:  MPI_Type_create_struct of { int a; double b; }: bytes 4..8 padding.
 * Reductions use MPI_SUM on vec (a predefined operator on a homogeneous
 * derived type) and a user operator summing both fields on st. Blocks hold
 * COUNT elements (vector variants a few more). Every element received is
 * checked, and every hole and every byte outside the received data must
 * keep its sentinel. Each rank prints
 *   FAIL ...                                  (for each wrong value)
 *   done rank=R checks=K fails=F colls=MPI_Barrier,MPI_Bcast,...
 */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

#define SENT 0xA5

typedef struct {
    const char *name;
    MPI_Datatype dt;
    MPI_Op sum;
    long ext;
    int kind; /* 0: vec, 1: st */
} T;

typedef struct {
    int a;
    double b;
} S;

static long checks, fails;
static const char *ctx = "";
static char colls[1024];

static void seen(const char *name)
{
    if (!strstr(colls, name)) {
        if (colls[0])
            strcat(colls, ",");
        strcat(colls, name);
    }
}

static void sum_st(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    S *x = in, *y = inout;
    for (int k = 0; k < *len; k++) {
        y[k].a += x[k].a;
        y[k].b += x[k].b;
    }
}

static char *alloc(const T *t, long n)
{
    char *p = vt_malloc((size_t)(n * t->ext));
    memset(p, SENT, (size_t)(n * t->ext));
    return p;
}

/* The value of element e sent by sub-rank j of the sub-communicator of
 * colour `col`; b is always -2a. */
static long val(int col, int j, long e)
{
    return col * 1000000L + j * 10000L + e + 1;
}

static void put(const T *t, char *buf, long idx, long a)
{
    char *p = buf + idx * t->ext;
    double b = -2.0 * (double)a;
    if (t->kind == 0) {
        double da = (double)a;
        memcpy(p, &da, 8);
        memcpy(p + 16, &b, 8);
    } else {
        int ia = (int)a;
        memcpy(p, &ia, 4);
        memcpy(p + 8, &b, 8);
    }
}

static void fill(const T *t, char *buf, long at, long n, int col, int j, long e0)
{
    for (long k = 0; k < n; k++)
        put(t, buf, at + k, val(col, j, e0 + k));
}

static int holes_ok(const T *t, const char *p)
{
    const char *h = t->kind == 0 ? p + 8 : p + 4;
    int len = t->kind == 0 ? 8 : 4;
    for (int i = 0; i < len; i++)
        if ((unsigned char)h[i] != SENT)
            return 0;
    return 1;
}

/* Elements at..at+n of buf hold sum over j in [j0, j1) of val(col, j, e0+k). */
static void expect_sum(const T *t, const char *buf, long at, long n, int col, int j0, int j1,
                       long e0, const char *what)
{
    for (long k = 0; k < n; k++) {
        long a = 0;
        for (int j = j0; j < j1; j++)
            a += val(col, j, e0 + k);
        const char *p = buf + (at + k) * t->ext;
        long ga;
        double gb;
        if (t->kind == 0) {
            double d;
            memcpy(&d, p, 8);
            ga = (long)d;
            memcpy(&gb, p + 16, 8);
        } else {
            int i;
            memcpy(&i, p, 4);
            ga = i;
            memcpy(&gb, p + 8, 8);
        }
        checks++;
        if (ga != a || gb != -2.0 * (double)a || !holes_ok(t, p)) {
            fails++;
            printf("FAIL %s %s %s element %ld: got (%ld, %g) want (%ld, %g)%s\n", ctx,
                   t->name, what, at + k, ga, gb, a, -2.0 * (double)a,
                   holes_ok(t, p) ? "" : " (hole overwritten)");
            return;
        }
    }
}

static void expect(const T *t, const char *buf, long at, long n, int col, int j, long e0,
                   const char *what)
{
    expect_sum(t, buf, at, n, col, j, j + 1, e0, what);
}

/* Elements at..at+n of buf were not written. */
static void untouched(const T *t, const char *buf, long at, long n, const char *what)
{
    checks++;
    for (long i = at * t->ext; i < (at + n) * t->ext; i++)
        if ((unsigned char)buf[i] != SENT) {
            fails++;
            printf("FAIL %s %s %s: byte %ld written\n", ctx, t->name, what, i);
            return;
        }
}

/* Counts and displacements (in elements, one-element gaps) of the v-variants. */
static void vcounts(int n, int cnt, int *counts, int *displs, long *total)
{
    long d = 0;
    for (int j = 0; j < n; j++) {
        counts[j] = cnt + j % 3;
        displs[j] = (int)d + 1;
        d += counts[j] + 1;
    }
    *total = d + 1;
}

static void run_all(MPI_Comm c, int col, const T *t, const T *other, int cnt)
{
    int n, r;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &r);
    int root = n / 2, last = n - 1;
    int counts[64], displs[64];
    long vtotal;
    vcounts(n, cnt, counts, displs, &vtotal);
    char *s, *x;

    MPI_Barrier(c);
    seen("MPI_Barrier");

    /* Bcast from the last rank */
    x = alloc(t, cnt);
    if (r == last)
        fill(t, x, 0, cnt, col, last, 0);
    MPI_Bcast(x, cnt, t->dt, last, c);
    expect(t, x, 0, cnt, col, last, 0, "bcast");
    free(x);
    seen("MPI_Bcast");

    /* Gather, in place, Gatherv */
    for (int ip = 0; ip < 2; ip++) {
        s = alloc(t, cnt);
        fill(t, s, 0, cnt, col, r, 0);
        x = alloc(t, (long)n * cnt);
        if (ip && r == root)
            fill(t, x, (long)root * cnt, cnt, col, root, 0);
        MPI_Gather(ip && r == root ? MPI_IN_PLACE : s, cnt, t->dt, x, cnt, t->dt, root, c);
        if (r == root)
            for (int j = 0; j < n; j++)
                expect(t, x, (long)j * cnt, cnt, col, j, 0, ip ? "gather in place" : "gather");
        free(s), free(x);
    }
    s = alloc(t, counts[r]);
    fill(t, s, 0, counts[r], col, r, 0);
    x = alloc(t, vtotal);
    MPI_Gatherv(s, counts[r], t->dt, x, counts, displs, t->dt, root, c);
    if (r == root)
        for (int j = 0; j < n; j++) {
            expect(t, x, displs[j], counts[j], col, j, 0, "gatherv");
            untouched(t, x, displs[j] - 1, 1, "gatherv gap");
        }
    free(s), free(x);
    seen("MPI_Gather"), seen("MPI_Gatherv");

    /* Scatter, in place, Scatterv */
    for (int ip = 0; ip < 2; ip++) {
        s = alloc(t, (long)n * cnt);
        if (r == root)
            fill(t, s, 0, (long)n * cnt, col, root, 0);
        x = alloc(t, cnt);
        MPI_Scatter(s, cnt, t->dt, ip && r == root ? MPI_IN_PLACE : x, cnt, t->dt, root, c);
        if (ip && r == root) {
            expect(t, s, 0, (long)n * cnt, col, root, 0, "scatter in place (sendbuf)");
            untouched(t, x, 0, cnt, "scatter in place (recvbuf)");
        } else {
            expect(t, x, 0, cnt, col, root, (long)r * cnt, "scatter");
        }
        free(s), free(x);
    }
    s = alloc(t, vtotal);
    if (r == root)
        for (int j = 0; j < n; j++)
            fill(t, s, displs[j], counts[j], col, root, (long)j * 100);
    x = alloc(t, counts[r] + 1);
    MPI_Scatterv(s, counts, displs, t->dt, x, counts[r], t->dt, root, c);
    expect(t, x, 0, counts[r], col, root, (long)r * 100, "scatterv");
    untouched(t, x, counts[r], 1, "scatterv beyond");
    free(s), free(x);
    seen("MPI_Scatter"), seen("MPI_Scatterv");

    /* Allgather, in place, Allgatherv, in place */
    for (int ip = 0; ip < 2; ip++) {
        s = alloc(t, cnt);
        fill(t, s, 0, cnt, col, r, 0);
        x = alloc(t, (long)n * cnt);
        if (ip)
            fill(t, x, (long)r * cnt, cnt, col, r, 0);
        MPI_Allgather(ip ? MPI_IN_PLACE : s, cnt, t->dt, x, cnt, t->dt, c);
        for (int j = 0; j < n; j++)
            expect(t, x, (long)j * cnt, cnt, col, j, 0, ip ? "allgather in place" : "allgather");
        free(s), free(x);
        s = alloc(t, counts[r]);
        fill(t, s, 0, counts[r], col, r, 0);
        x = alloc(t, vtotal);
        if (ip)
            fill(t, x, displs[r], counts[r], col, r, 0);
        MPI_Allgatherv(ip ? MPI_IN_PLACE : s, counts[r], t->dt, x, counts, displs, t->dt, c);
        for (int j = 0; j < n; j++) {
            expect(t, x, displs[j], counts[j], col, j, 0,
                   ip ? "allgatherv in place" : "allgatherv");
            untouched(t, x, displs[j] - 1, 1, "allgatherv gap");
        }
        free(s), free(x);
    }
    seen("MPI_Allgather"), seen("MPI_Allgatherv");

    /* Alltoall, in place: block for d holds val(col, r, d * cnt + i) */
    for (int ip = 0; ip < 2; ip++) {
        s = alloc(t, (long)n * cnt);
        fill(t, s, 0, (long)n * cnt, col, r, 0);
        x = alloc(t, (long)n * cnt);
        if (ip)
            fill(t, x, 0, (long)n * cnt, col, r, 0);
        MPI_Alltoall(ip ? MPI_IN_PLACE : s, cnt, t->dt, x, cnt, t->dt, c);
        for (int j = 0; j < n; j++)
            expect(t, x, (long)j * cnt, cnt, col, j, (long)r * cnt,
                   ip ? "alltoall in place" : "alltoall");
        free(s), free(x);
    }
    seen("MPI_Alltoall");

    /* Alltoallv: cnt + (s + 2d) % 3 elements from s to d, one-element gaps */
    {
        int sc[64], sd[64], rc[64], rd[64];
        long st = 0, rt = 0;
        for (int j = 0; j < n; j++) {
            sc[j] = cnt + (r + 2 * j) % 3, sd[j] = (int)st + 1, st += sc[j] + 1;
            rc[j] = cnt + (j + 2 * r) % 3, rd[j] = (int)rt + 1, rt += rc[j] + 1;
        }
        s = alloc(t, st + 1);
        for (int j = 0; j < n; j++)
            fill(t, s, sd[j], sc[j], col, r, (long)j * 100);
        x = alloc(t, rt + 1);
        MPI_Alltoallv(s, sc, sd, t->dt, x, rc, rd, t->dt, c);
        for (int j = 0; j < n; j++) {
            expect(t, x, rd[j], rc[j], col, j, (long)r * 100, "alltoallv");
            untouched(t, x, rd[j] - 1, 1, "alltoallv gap");
        }
        free(s), free(x);
    }
    seen("MPI_Alltoallv");

    /* Alltoallw: between s and d the type is t when s + d is even, else
     * `other`; blocks of cnt elements at byte displacements with gaps of one
     * element of 32 bytes. */
    {
        int sc[64], sd[64], rc[64], rd[64];
        MPI_Datatype tys[64];
        long tot = 0;
        for (int j = 0; j < n; j++) {
            const T *u = (r + j) % 2 ? other : t;
            tys[j] = u->dt;
            sc[j] = rc[j] = cnt;
            sd[j] = rd[j] = (int)tot + 32;
            tot += 32 + cnt * u->ext;
        }
        tot += 32;
        s = vt_malloc((size_t)tot);
        x = vt_malloc((size_t)tot);
        memset(s, SENT, (size_t)tot);
        memset(x, SENT, (size_t)tot);
        for (int j = 0; j < n; j++) {
            const T *u = (r + j) % 2 ? other : t;
            fill(u, s + sd[j], 0, cnt, col, r, (long)j * cnt);
        }
        MPI_Alltoallw(s, sc, sd, tys, x, rc, rd, tys, c);
        for (int j = 0; j < n; j++) {
            const T *u = (r + j) % 2 ? other : t;
            expect(u, x + rd[j], 0, cnt, col, j, (long)r * cnt, "alltoallw");
            checks++;
            for (int g = 0; g < 32; g++)
                if ((unsigned char)x[rd[j] - 32 + g] != SENT) {
                    fails++;
                    printf("FAIL %s %s alltoallw gap before block %d written\n", ctx, t->name,
                           j);
                    break;
                }
        }
        free(s), free(x);
    }
    seen("MPI_Alltoallw");

    /* Reduce (in place at the root), Allreduce (in place) */
    for (int ip = 0; ip < 2; ip++) {
        s = alloc(t, cnt);
        fill(t, s, 0, cnt, col, r, 0);
        x = alloc(t, cnt);
        if (ip && r == root)
            fill(t, x, 0, cnt, col, r, 0);
        MPI_Reduce(ip && r == root ? MPI_IN_PLACE : s, x, cnt, t->dt, t->sum, root, c);
        if (r == root)
            expect_sum(t, x, 0, cnt, col, 0, n, 0, ip ? "reduce in place" : "reduce");
        free(x);
        x = alloc(t, cnt);
        if (ip)
            fill(t, x, 0, cnt, col, r, 0);
        MPI_Allreduce(ip ? MPI_IN_PLACE : s, x, cnt, t->dt, t->sum, c);
        expect_sum(t, x, 0, cnt, col, 0, n, 0, ip ? "allreduce in place" : "allreduce");
        free(s), free(x);
    }
    seen("MPI_Reduce"), seen("MPI_Allreduce");

    /* Reduce_scatter (cnt + j % 2 elements to j), Reduce_scatter_block;
     * both in place */
    {
        int rc[64];
        long tot = 0, off = 0;
        for (int j = 0; j < n; j++) {
            rc[j] = cnt + j % 2;
            if (j < r)
                off += rc[j];
            tot += rc[j];
        }
        for (int ip = 0; ip < 2; ip++) {
            s = alloc(t, tot);
            fill(t, s, 0, tot, col, r, 0);
            x = alloc(t, ip ? tot : rc[r]);
            if (ip)
                fill(t, x, 0, tot, col, r, 0);
            MPI_Reduce_scatter(ip ? MPI_IN_PLACE : s, x, rc, t->dt, t->sum, c);
            expect_sum(t, x, 0, rc[r], col, 0, n, off,
                       ip ? "reduce_scatter in place" : "reduce_scatter");
            free(s), free(x);
            s = alloc(t, (long)n * cnt);
            fill(t, s, 0, (long)n * cnt, col, r, 0);
            x = alloc(t, ip ? (long)n * cnt : cnt);
            if (ip)
                fill(t, x, 0, (long)n * cnt, col, r, 0);
            MPI_Reduce_scatter_block(ip ? MPI_IN_PLACE : s, x, cnt, t->dt, t->sum, c);
            expect_sum(t, x, 0, cnt, col, 0, n, (long)r * cnt,
                       ip ? "reduce_scatter_block in place" : "reduce_scatter_block");
            free(s), free(x);
        }
    }
    seen("MPI_Reduce_scatter"), seen("MPI_Reduce_scatter_block");

    /* Scan, Exscan, in place */
    for (int ip = 0; ip < 2; ip++) {
        s = alloc(t, cnt);
        fill(t, s, 0, cnt, col, r, 0);
        x = alloc(t, cnt);
        if (ip)
            fill(t, x, 0, cnt, col, r, 0);
        MPI_Scan(ip ? MPI_IN_PLACE : s, x, cnt, t->dt, t->sum, c);
        expect_sum(t, x, 0, cnt, col, 0, r + 1, 0, ip ? "scan in place" : "scan");
        free(x);
        x = alloc(t, cnt);
        if (ip)
            fill(t, x, 0, cnt, col, r, 0);
        MPI_Exscan(ip ? MPI_IN_PLACE : s, x, cnt, t->dt, t->sum, c);
        if (r > 0)
            expect_sum(t, x, 0, cnt, col, 0, r, 0, ip ? "exscan in place" : "exscan");
        free(s), free(x);
    }
    seen("MPI_Scan"), seen("MPI_Exscan");
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int cnt = argc > 1 ? atoi(argv[1]) : 2;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    T vec = {"vec", MPI_DATATYPE_NULL, MPI_SUM, 24, 0};
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &vec.dt);
    MPI_Type_commit(&vec.dt);
    T st = {"st", MPI_DATATYPE_NULL, MPI_OP_NULL, (long)sizeof(S), 1};
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype members[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, members, &st.dt);
    MPI_Type_commit(&st.dt);
    MPI_Op_create(sum_st, 1, &st.sum);

    MPI_Aint lb, ext;
    MPI_Type_get_extent(vec.dt, &lb, &ext);
    if (ext != 24 || sizeof(S) != 16)
        printf("FAIL extents %ld %zu\n", (long)ext, sizeof(S)), fails++;
    MPI_Type_get_extent(st.dt, &lb, &ext);
    if (ext != 16)
        printf("FAIL struct extent %ld\n", (long)ext), fails++;

    /* (colour, key, expected sub-rank) of each split */
    const char *names[3] = {"parity", "mod3_reversed", "world_reversed"};
    int color[3] = {rank % 2, rank % 3, 0};
    int key[3] = {rank, -rank, size - rank};
    int want[3] = {rank / 2, (size - 1 - rank) / 3, size - 1 - rank};
    for (int k = 0; k < 3; k++) {
        MPI_Comm c;
        MPI_Comm_split(MPI_COMM_WORLD, color[k], key[k], &c);
        int r;
        MPI_Comm_rank(c, &r);
        checks++;
        if (r != want[k])
            printf("FAIL split %s: rank %d got sub-rank %d want %d\n", names[k], rank, r,
                   want[k]),
                fails++;
        ctx = names[k];
        run_all(c, color[k], &vec, &st, cnt);
        run_all(c, color[k], &st, &vec, cnt);
        MPI_Comm_free(&c);
    }
    MPI_Type_free(&vec.dt);
    MPI_Type_free(&st.dt);
    MPI_Op_free(&st.sum);
    printf("done rank=%d checks=%ld fails=%ld colls=%s\n", rank, checks, fails, colls);
    MPI_Finalize();
    return 0;
}
