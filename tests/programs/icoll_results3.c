/* Results of MPI_Iscan, MPI_Iexscan, MPI_Igatherv, MPI_Iscatterv,
 * MPI_Iallgatherv, MPI_Ialltoallv and MPI_Ialltoallw against the blocking
 * calls: several scales (every schedule), blocks of different sizes (some
 * empty), MPI_IN_PLACE, a user-defined non-commutative operator.
 * Prints "FAIL ..." lines on errors and "ok rank=R checks=N" at the end. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int checks, rank, size;

static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    unsigned *p = in, *q = inout;
    for (int i = 0; i < *len; i++) {
        unsigned a = p[2 * i] * q[2 * i];
        unsigned b = p[2 * i] * q[2 * i + 1] + p[2 * i + 1];
        q[2 * i] = a;
        q[2 * i + 1] = b;
    }
    (void)dt;
}

static void same(const void *a, const void *b, size_t n, const char *what, int arg)
{
    if (memcmp(a, b, n) != 0)
        printf("FAIL rank=%d %s (%d)\n", rank, what, arg);
    checks++;
}

static void fill(unsigned *v, long n, int salt)
{
    for (long i = 0; i < n; i++)
        v[i] = (unsigned)(rank * 7919 + i * 31 + salt) * 2654435761u + 1;
}

/* elements rank r sends to rank j at scale k */
static int cnt(int r, int j, int k)
{
    int c = ((r * 3 + j * 5) % 4) * k;
    return (r + j) % 5 == 1 ? 0 : c + k / 2;
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op affine;
    MPI_Op_create(compose, 0, &affine);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    int scales[] = { 0, 1, 5, 300, 9000 };
    for (int k = 0; k < 5; k++) {
        int sc = scales[k];
        MPI_Request r;
        /* scans */
        {
            int n = sc + 1;
            unsigned *in = vt_malloc(2 * n * sizeof(unsigned)), *a = vt_malloc(2 * n * sizeof(unsigned)),
                     *b = vt_malloc(2 * n * sizeof(unsigned));
            fill(in, 2 * n, k);
            MPI_Iscan(in, a, n, pair, affine, MPI_COMM_WORLD, &r);
            MPI_Scan(in, b, n, pair, affine, MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            same(a, b, 2 * n * sizeof(unsigned), "iscan affine", n);
            memcpy(a, in, 2 * n * sizeof(unsigned));
            MPI_Iscan(MPI_IN_PLACE, a, 2 * n, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            MPI_Scan(in, b, 2 * n, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD);
            same(a, b, 2 * n * sizeof(unsigned), "iscan in place", n);
            memset(a, 0, 2 * n * sizeof(unsigned));
            memset(b, 0, 2 * n * sizeof(unsigned));
            MPI_Iexscan(in, a, n, pair, affine, MPI_COMM_WORLD, &r);
            MPI_Exscan(in, b, n, pair, affine, MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (rank > 0)
                same(a, b, 2 * n * sizeof(unsigned), "iexscan affine", n);
            free(in);
            free(a);
            free(b);
        }
        /* v-collectives: rank r's block for j has cnt(r, j, sc) unsigned */
        int *scount = malloc(size * sizeof(int)), *sdisp = malloc(size * sizeof(int));
        int *rcount = malloc(size * sizeof(int)), *rdisp = malloc(size * sizeof(int));
        int stot = 0, rtot = 0;
        for (int j = 0; j < size; j++) {
            scount[j] = cnt(rank, j, sc);
            sdisp[j] = stot + j; /* gaps between blocks */
            stot += scount[j] + j;
            rcount[j] = cnt(j, rank, sc);
            rdisp[j] = rtot + 1;
            rtot += rcount[j] + 1;
        }
        unsigned *sb = vt_malloc((stot + 1) * sizeof(unsigned)), *ra = vt_malloc((rtot + 1) * sizeof(unsigned)),
                 *rb = vt_malloc((rtot + 1) * sizeof(unsigned));
        fill(sb, stot, 50 + k);
        memset(ra, 0, rtot * sizeof(unsigned));
        memset(rb, 0, rtot * sizeof(unsigned));
        MPI_Ialltoallv(sb, scount, sdisp, MPI_UNSIGNED, ra, rcount, rdisp, MPI_UNSIGNED, MPI_COMM_WORLD, &r);
        MPI_Alltoallv(sb, scount, sdisp, MPI_UNSIGNED, rb, rcount, rdisp, MPI_UNSIGNED, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        same(ra, rb, rtot * sizeof(unsigned), "ialltoallv", sc);
        {
            MPI_Datatype *types = malloc(size * sizeof(MPI_Datatype));
            int *sbytes = malloc(size * sizeof(int)), *rbytes = malloc(size * sizeof(int));
            for (int j = 0; j < size; j++) {
                types[j] = MPI_UNSIGNED;
                sbytes[j] = sdisp[j] * (int)sizeof(unsigned);
                rbytes[j] = rdisp[j] * (int)sizeof(unsigned);
            }
            memset(ra, 0, rtot * sizeof(unsigned));
            MPI_Ialltoallw(sb, scount, sbytes, types, ra, rcount, rbytes, types, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            same(ra, rb, rtot * sizeof(unsigned), "ialltoallw", sc);
            free(types);
            free(sbytes);
            free(rbytes);
        }
        /* in place: symmetric counts */
        {
            int *c2 = malloc(size * sizeof(int)), *d2 = malloc(size * sizeof(int)), t2 = 0;
            for (int j = 0; j < size; j++) {
                c2[j] = cnt(rank, j, sc) + cnt(j, rank, sc);
                d2[j] = t2;
                t2 += c2[j];
            }
            unsigned *x = vt_malloc((t2 + 1) * sizeof(unsigned)), *y = vt_malloc((t2 + 1) * sizeof(unsigned));
            fill(x, t2, 70 + k);
            memset(y, 0, t2 * sizeof(unsigned));
            MPI_Alltoallv(x, c2, d2, MPI_UNSIGNED, y, c2, d2, MPI_UNSIGNED, MPI_COMM_WORLD);
            MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, x, c2, d2, MPI_UNSIGNED, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            same(x, y, t2 * sizeof(unsigned), "ialltoallv in place", sc);
            free(x);
            free(y);
            free(c2);
            free(d2);
        }
        /* gatherv / scatterv / allgatherv: rank j contributes cnt(j, root, sc) */
        int root = k % size;
        int mine = cnt(rank, root, sc);
        for (int j = 0; j < size; j++) {
            rcount[j] = cnt(j, root, sc);
            rdisp[j] = (j == 0 ? 0 : rdisp[j - 1] + rcount[j - 1] + 2);
        }
        int gtot = rdisp[size - 1] + rcount[size - 1];
        unsigned *ga = vt_malloc((gtot + 1) * sizeof(unsigned)), *gb = vt_malloc((gtot + 1) * sizeof(unsigned));
        memset(ga, 0, gtot * sizeof(unsigned));
        memset(gb, 0, gtot * sizeof(unsigned));
        MPI_Igatherv(sb, mine, MPI_UNSIGNED, ga, rcount, rdisp, MPI_UNSIGNED, root, MPI_COMM_WORLD, &r);
        MPI_Gatherv(sb, mine, MPI_UNSIGNED, gb, rcount, rdisp, MPI_UNSIGNED, root, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (rank == root)
            same(ga, gb, gtot * sizeof(unsigned), "igatherv", sc);
        memset(ga, 0, gtot * sizeof(unsigned));
        MPI_Iallgatherv(sb, mine, MPI_UNSIGNED, ga, rcount, rdisp, MPI_UNSIGNED, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        memset(gb, 0, gtot * sizeof(unsigned));
        MPI_Allgatherv(sb, mine, MPI_UNSIGNED, gb, rcount, rdisp, MPI_UNSIGNED, MPI_COMM_WORLD);
        same(ga, gb, gtot * sizeof(unsigned), "iallgatherv", sc);
        memset(ga, 0, gtot * sizeof(unsigned));
        memcpy(ga + rdisp[rank], sb, mine * sizeof(unsigned));
        MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ga, rcount, rdisp, MPI_UNSIGNED, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        same(ga, gb, gtot * sizeof(unsigned), "iallgatherv in place", sc);
        /* scatterv back from the gathered buffer */
        memset(ra, 0, (mine + 1) * sizeof(unsigned));
        memset(rb, 0, (mine + 1) * sizeof(unsigned));
        MPI_Iscatterv(gb, rcount, rdisp, MPI_UNSIGNED, ra, mine, MPI_UNSIGNED, root, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Scatterv(gb, rcount, rdisp, MPI_UNSIGNED, rb, mine, MPI_UNSIGNED, root, MPI_COMM_WORLD);
        same(ra, rb, mine * sizeof(unsigned), "iscatterv", sc);
        same(ra, sb, mine * sizeof(unsigned), "iscatterv data", sc);
        free(ga);
        free(gb);
        free(sb);
        free(ra);
        free(rb);
        free(scount);
        free(sdisp);
        free(rcount);
        free(rdisp);
    }
    MPI_Op_free(&affine);
    MPI_Type_free(&pair);
    printf("ok rank=%d checks=%d\n", rank, checks);
    MPI_Finalize();
    return 0;
}
