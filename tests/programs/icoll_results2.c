/* Results of MPI_Ireduce, MPI_Iallreduce, MPI_Igather, MPI_Iscatter,
 * MPI_Iallgather and MPI_Ialltoall against the blocking calls: several counts (both schedules of each
 * reduction, eager and rendezvous messages), roots, MPI_SUM / MPI_MAX and
 * a user-defined non-commutative operator (composition of affine maps
 * x -> a x + b mod 2^32), MPI_IN_PLACE, a strided vector datatype.
 * Prints "FAIL ..." lines on errors and "ok rank=R checks=N" at the end.
 *
 * usage: icoll_results2 [mpich]
 * `mpich` leaves the strided vector out: MPICH refuses MPI_SUM on a
 * derived datatype (MPIR_SUM_check_dtype), which vaced's library applies
 * to the vector's integers. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int checks, rank, size;

/* inout = in o inout, for pairs (a, b) meaning x -> a x + b */
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

static void fill(unsigned *v, int n, int salt)
{
    for (int i = 0; i < n; i++)
        v[i] = (unsigned)(rank * 7919 + i * 31 + salt) * 2654435761u + 1;
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mpich = argc > 1 && strcmp(argv[1], "mpich") == 0;
    MPI_Op affine;
    MPI_Op_create(compose, 0, &affine);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    int counts[] = { 0, 1, 7, 300, 600, 5000, 40000 };
    for (int c = 0; c < 7; c++) {
        int n = counts[c];
        unsigned *in = vt_malloc(2 * n * sizeof(unsigned) + 8);
        unsigned *a = vt_malloc(2 * n * sizeof(unsigned) + 8);
        unsigned *b = vt_malloc(2 * n * sizeof(unsigned) + 8);
        MPI_Request r;
        int root = (c * 3) % size;
        fill(in, 2 * n, c);
        /* sums and maxima of unsigned ints */
        MPI_Op ops[2] = { MPI_SUM, MPI_MAX };
        for (int o = 0; o < 2; o++) {
            memset(a, 0, 2 * n * sizeof(unsigned));
            memset(b, 0, 2 * n * sizeof(unsigned));
            MPI_Iallreduce(in, a, 2 * n, MPI_UNSIGNED, ops[o], MPI_COMM_WORLD, &r);
            MPI_Allreduce(in, b, 2 * n, MPI_UNSIGNED, ops[o], MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            same(a, b, 2 * n * sizeof(unsigned), "iallreduce builtin", n);
            memset(a, 0, 2 * n * sizeof(unsigned));
            memset(b, 0, 2 * n * sizeof(unsigned));
            MPI_Ireduce(in, a, 2 * n, MPI_UNSIGNED, ops[o], root, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            MPI_Reduce(in, b, 2 * n, MPI_UNSIGNED, ops[o], root, MPI_COMM_WORLD);
            same(a, b, 2 * n * sizeof(unsigned), "ireduce builtin", n);
        }
        /* the non-commutative user operator */
        MPI_Iallreduce(in, a, n, pair, affine, MPI_COMM_WORLD, &r);
        MPI_Allreduce(in, b, n, pair, affine, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        same(a, b, 2 * n * sizeof(unsigned), "iallreduce affine", n);
        memset(a, 0, 2 * n * sizeof(unsigned));
        memset(b, 0, 2 * n * sizeof(unsigned));
        MPI_Ireduce(in, a, n, pair, affine, root, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Reduce(in, b, n, pair, affine, root, MPI_COMM_WORLD);
        same(a, b, 2 * n * sizeof(unsigned), "ireduce affine", n);
        /* in place */
        memcpy(a, in, 2 * n * sizeof(unsigned));
        MPI_Iallreduce(MPI_IN_PLACE, a, n, pair, affine, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Allreduce(in, b, n, pair, affine, MPI_COMM_WORLD);
        same(a, b, 2 * n * sizeof(unsigned), "iallreduce in place", n);
        memcpy(a, in, 2 * n * sizeof(unsigned));
        MPI_Ireduce(rank == root ? MPI_IN_PLACE : a, a, 2 * n, MPI_UNSIGNED, MPI_SUM, root, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Reduce(in, b, 2 * n, MPI_UNSIGNED, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank == root)
            same(a, b, 2 * n * sizeof(unsigned), "ireduce in place", n);
        /* gather and scatter of n unsigned per rank */
        unsigned *all = vt_malloc((size_t)size * 2 * n * sizeof(unsigned) + 8);
        unsigned *all2 = vt_malloc((size_t)size * 2 * n * sizeof(unsigned) + 8);
        memset(all, 0, (size_t)size * 2 * n * sizeof(unsigned));
        memset(all2, 0, (size_t)size * 2 * n * sizeof(unsigned));
        MPI_Igather(in, 2 * n, MPI_UNSIGNED, all, 2 * n, MPI_UNSIGNED, root, MPI_COMM_WORLD, &r);
        MPI_Gather(in, 2 * n, MPI_UNSIGNED, all2, 2 * n, MPI_UNSIGNED, root, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (rank == root)
            same(all, all2, (size_t)size * 2 * n * sizeof(unsigned), "igather", n);
        if (rank == root) {
            memcpy(all + (size_t)root * 2 * n, in, 2 * n * sizeof(unsigned));
            MPI_Igather(MPI_IN_PLACE, 2 * n, MPI_UNSIGNED, all, 2 * n, MPI_UNSIGNED, root, MPI_COMM_WORLD, &r);
        } else
            MPI_Igather(in, 2 * n, MPI_UNSIGNED, NULL, 0, MPI_UNSIGNED, root, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (rank == root)
            same(all, all2, (size_t)size * 2 * n * sizeof(unsigned), "igather in place", n);
        if (rank == root)
            fill(all, size * 2 * n, 99);
        memset(a, 0, 2 * n * sizeof(unsigned));
        memset(b, 0, 2 * n * sizeof(unsigned));
        MPI_Iscatter(all, 2 * n, MPI_UNSIGNED, a, 2 * n, MPI_UNSIGNED, root, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Scatter(all, 2 * n, MPI_UNSIGNED, b, 2 * n, MPI_UNSIGNED, root, MPI_COMM_WORLD);
        same(a, b, 2 * n * sizeof(unsigned), "iscatter", n);
        /* allgather and alltoall of n pairs per rank */
        unsigned *big = vt_malloc((size_t)size * 2 * n * sizeof(unsigned) + 8);
        size_t bytes = (size_t)size * 2 * n * sizeof(unsigned);
        memset(all, 0, bytes);
        memset(all2, 0, bytes);
        MPI_Iallgather(in, n, pair, all, n, pair, MPI_COMM_WORLD, &r);
        MPI_Allgather(in, n, pair, all2, n, pair, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        same(all, all2, bytes, "iallgather", n);
        memset(all, 0, bytes);
        memcpy(all + (size_t)rank * 2 * n, in, 2 * n * sizeof(unsigned));
        MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2 * n, MPI_UNSIGNED, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        same(all, all2, bytes, "iallgather in place", n);
        fill(big, size * 2 * n, 7);
        memset(all, 0, bytes);
        memset(all2, 0, bytes);
        MPI_Ialltoall(big, n, pair, all, n, pair, MPI_COMM_WORLD, &r);
        MPI_Alltoall(big, n, pair, all2, n, pair, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        same(all, all2, bytes, "ialltoall", n);
        memcpy(all, big, bytes);
        MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2 * n, MPI_UNSIGNED, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        same(all, all2, bytes, "ialltoall in place", n);
        free(big);
        free(all);
        free(all2);
        free(in);
        free(a);
        free(b);
    }
    /* a strided vector: every other int of 2 x 50 */
    if (!mpich) {
        MPI_Datatype vec;
        MPI_Type_vector(50, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        int in[100], a[100], b[100];
        for (int i = 0; i < 100; i++) {
            in[i] = rank * 100 + i;
            a[i] = b[i] = -5;
        }
        MPI_Request r;
        MPI_Iallreduce(in, a, 1, vec, MPI_SUM, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Allreduce(in, b, 1, vec, MPI_SUM, MPI_COMM_WORLD);
        same(a, b, sizeof a, "iallreduce vector", 0);
        MPI_Type_free(&vec);
    }
    MPI_Op_free(&affine);
    MPI_Type_free(&pair);
    printf("ok rank=%d checks=%d\n", rank, checks);
    MPI_Finalize();
    return 0;
}
