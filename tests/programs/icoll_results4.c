/* Results of MPI_Ireduce_scatter and MPI_Ireduce_scatter_block against
 * the blocking calls: every schedule (commutative short and long,
 * non-commutative with equal and unequal blocks), MPI_IN_PLACE.
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
    int scales[] = { 0, 1, 3, 700, 20000 };
    for (int k = 0; k < 5; k++) {
        int sc = scales[k];
        int *counts = malloc(size * sizeof(int)), total = 0;
        for (int j = 0; j < size; j++) {
            counts[j] = (j % 3) * sc + (j == 1 ? 0 : sc / 2);
            total += counts[j];
        }
        unsigned *in = vt_malloc(2 * (total + 1) * sizeof(unsigned));
        unsigned *a = vt_malloc(2 * (total + 1) * sizeof(unsigned));
        unsigned *b = vt_malloc(2 * (total + 1) * sizeof(unsigned));
        fill(in, 2 * total, k);
        MPI_Request r;
        int mine = counts[rank];
        /* unequal blocks: recursive halving / pairwise / recursive doubling */
        MPI_Op ops[2] = { MPI_SUM, MPI_MAX };
        for (int o = 0; o < 2; o++) {
            int *c2 = malloc(size * sizeof(int));
            for (int j = 0; j < size; j++)
                c2[j] = 2 * counts[j];
            memset(a, 0, 2 * (mine + 1) * sizeof(unsigned));
            memset(b, 0, 2 * (mine + 1) * sizeof(unsigned));
            MPI_Ireduce_scatter(in, a, c2, MPI_UNSIGNED, ops[o], MPI_COMM_WORLD, &r);
            MPI_Reduce_scatter(in, b, c2, MPI_UNSIGNED, ops[o], MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            same(a, b, 2 * mine * sizeof(unsigned), "ireduce_scatter builtin", sc);
            memcpy(a, in, 2 * total * sizeof(unsigned));
            MPI_Ireduce_scatter(MPI_IN_PLACE, a, c2, MPI_UNSIGNED, ops[o], MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            same(a, b, 2 * mine * sizeof(unsigned), "ireduce_scatter in place", sc);
            free(c2);
        }
        memset(a, 0, 2 * (mine + 1) * sizeof(unsigned));
        memset(b, 0, 2 * (mine + 1) * sizeof(unsigned));
        MPI_Ireduce_scatter(in, a, counts, pair, affine, MPI_COMM_WORLD, &r);
        MPI_Reduce_scatter(in, b, counts, pair, affine, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        same(a, b, 2 * mine * sizeof(unsigned), "ireduce_scatter affine", sc);
        /* equal blocks */
        int blk = sc + 1;
        unsigned *in2 = vt_malloc(2 * blk * size * sizeof(unsigned));
        fill(in2, 2 * blk * size, 40 + k);
        if (blk > total + 1) {
            free(a);
            free(b);
            a = vt_malloc(2 * blk * sizeof(unsigned));
            b = vt_malloc(2 * blk * sizeof(unsigned));
        }
        memset(a, 0, 2 * blk * sizeof(unsigned));
        memset(b, 0, 2 * blk * sizeof(unsigned));
        MPI_Ireduce_scatter_block(in2, a, blk, pair, affine, MPI_COMM_WORLD, &r);
        MPI_Reduce_scatter_block(in2, b, blk, pair, affine, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        same(a, b, 2 * blk * sizeof(unsigned), "ireduce_scatter_block affine", sc);
        MPI_Ireduce_scatter_block(in2, a, 2 * blk, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD, &r);
        MPI_Reduce_scatter_block(in2, b, 2 * blk, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        same(a, b, 2 * blk * sizeof(unsigned), "ireduce_scatter_block sum", sc);
        free(in2);
        free(in);
        free(a);
        free(b);
        free(counts);
    }
    MPI_Op_free(&affine);
    MPI_Type_free(&pair);
    printf("ok rank=%d checks=%d\n", rank, checks);
    MPI_Finalize();
    return 0;
}
