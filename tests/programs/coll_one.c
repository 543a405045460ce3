/* One collective on MPI_COMM_WORLD, alone, for comparing its timing
 * between two libraries (vaced's own and vaced's MPICH).
 *
 * usage: coll_one OP COUNT
 * OP: bcast reduce allreduce gather scatter allgather alltoall gatherv
 *     scatterv allgatherv alltoallv reduce_scatter_block reduce_scatter
 *     scan exscan barrier, or one of them with an `i` before: the
 *     nonblocking collective, waited for at once
 * COUNT unsigned ints per block (per rank, per rank pair, or the vector);
 * root 1 (0 on one rank), MPI_SUM. Prints
 *   t rank=R start=T1 wait=T2
 * (MPI_Wtime before a blocking call and after it; after a nonblocking
 * call's start and after its MPI_Wait). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vtest.h"

static unsigned *a, *b;
static int *cnt, *disp, n, root;

/* Start nonblocking collective `op` (without its `i`): 0 if unknown. */
static int start(const char *op, MPI_Request *rp)
{
    MPI_Request r;
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_Datatype u = MPI_UNSIGNED;
    if (!strcmp(op, "bcast"))
        MPI_Ibcast(a, n, u, root, c, &r);
    else if (!strcmp(op, "reduce"))
        MPI_Ireduce(a, b, n, u, MPI_SUM, root, c, &r);
    else if (!strcmp(op, "allreduce"))
        MPI_Iallreduce(a, b, n, u, MPI_SUM, c, &r);
    else if (!strcmp(op, "gather"))
        MPI_Igather(a, n, u, b, n, u, root, c, &r);
    else if (!strcmp(op, "scatter"))
        MPI_Iscatter(a, n, u, b, n, u, root, c, &r);
    else if (!strcmp(op, "allgather"))
        MPI_Iallgather(a, n, u, b, n, u, c, &r);
    else if (!strcmp(op, "alltoall"))
        MPI_Ialltoall(a, n, u, b, n, u, c, &r);
    else if (!strcmp(op, "gatherv"))
        MPI_Igatherv(a, n, u, b, cnt, disp, u, root, c, &r);
    else if (!strcmp(op, "scatterv"))
        MPI_Iscatterv(a, cnt, disp, u, b, n, u, root, c, &r);
    else if (!strcmp(op, "allgatherv"))
        MPI_Iallgatherv(a, n, u, b, cnt, disp, u, c, &r);
    else if (!strcmp(op, "alltoallv"))
        MPI_Ialltoallv(a, cnt, disp, u, b, cnt, disp, u, c, &r);
    else if (!strcmp(op, "reduce_scatter_block"))
        MPI_Ireduce_scatter_block(a, b, n, u, MPI_SUM, c, &r);
    else if (!strcmp(op, "reduce_scatter"))
        MPI_Ireduce_scatter(a, b, cnt, u, MPI_SUM, c, &r);
    else if (!strcmp(op, "scan"))
        MPI_Iscan(a, b, n, u, MPI_SUM, c, &r);
    else if (!strcmp(op, "exscan"))
        MPI_Iexscan(a, b, n, u, MPI_SUM, c, &r);
    else if (!strcmp(op, "barrier"))
        MPI_Ibarrier(c, &r);
    else
        return 0;
    *rp = r;
    return 1;
}

/* Run blocking collective `op`: 0 if unknown. */
static int run(const char *op)
{
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_Datatype u = MPI_UNSIGNED;
    if (!strcmp(op, "bcast"))
        MPI_Bcast(a, n, u, root, c);
    else if (!strcmp(op, "reduce"))
        MPI_Reduce(a, b, n, u, MPI_SUM, root, c);
    else if (!strcmp(op, "allreduce"))
        MPI_Allreduce(a, b, n, u, MPI_SUM, c);
    else if (!strcmp(op, "gather"))
        MPI_Gather(a, n, u, b, n, u, root, c);
    else if (!strcmp(op, "scatter"))
        MPI_Scatter(a, n, u, b, n, u, root, c);
    else if (!strcmp(op, "allgather"))
        MPI_Allgather(a, n, u, b, n, u, c);
    else if (!strcmp(op, "alltoall"))
        MPI_Alltoall(a, n, u, b, n, u, c);
    else if (!strcmp(op, "gatherv"))
        MPI_Gatherv(a, n, u, b, cnt, disp, u, root, c);
    else if (!strcmp(op, "scatterv"))
        MPI_Scatterv(a, cnt, disp, u, b, n, u, root, c);
    else if (!strcmp(op, "allgatherv"))
        MPI_Allgatherv(a, n, u, b, cnt, disp, u, c);
    else if (!strcmp(op, "alltoallv"))
        MPI_Alltoallv(a, cnt, disp, u, b, cnt, disp, u, c);
    else if (!strcmp(op, "reduce_scatter_block"))
        MPI_Reduce_scatter_block(a, b, n, u, MPI_SUM, c);
    else if (!strcmp(op, "reduce_scatter"))
        MPI_Reduce_scatter(a, b, cnt, u, MPI_SUM, c);
    else if (!strcmp(op, "scan"))
        MPI_Scan(a, b, n, u, MPI_SUM, c);
    else if (!strcmp(op, "exscan"))
        MPI_Exscan(a, b, n, u, MPI_SUM, c);
    else if (!strcmp(op, "barrier"))
        MPI_Barrier(c);
    else
        return 0;
    return 1;
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: coll_one OP COUNT\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *op = argv[1];
    n = atoi(argv[2]);
    root = size > 1 ? 1 : 0;
    a = vt_malloc(((size_t)n * size + 1) * sizeof(unsigned));
    b = vt_malloc(((size_t)n * size + 1) * sizeof(unsigned));
    cnt = malloc(size * sizeof(int));
    disp = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) {
        cnt[i] = n;
        disp[i] = i * n;
    }
    for (int i = 0; i < n * size; i++)
        a[i] = i + rank;
    double t1 = MPI_Wtime();
    int known;
    if (op[0] == 'i') {
        MPI_Request r;
        known = start(op + 1, &r);
        t1 = MPI_Wtime();
        if (known)
            MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
        known = run(op);
    }
    if (!known) {
        if (rank == 0)
            fprintf(stderr, "coll_one: unknown OP %s\n", op);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    printf("t rank=%d start=%.12f wait=%.12f\n", rank, t1, MPI_Wtime());
    free(a);
    free(b);
    free(cnt);
    free(disp);
    MPI_Finalize();
    return 0;
}
