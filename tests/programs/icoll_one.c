/* One nonblocking collective on MPI_COMM_WORLD, for comparing its timing
 * between two libraries (vaced's own and vaced's MPICH).
 *
 * usage: icoll_one OP COUNT
 * OP: ibcast ireduce iallreduce igather iscatter iallgather ialltoall
 *     igatherv iscatterv iallgatherv ialltoallv ireduce_scatter_block
 *     ireduce_scatter iscan iexscan ibarrier
 * COUNT unsigned ints per block (per rank, per rank pair, or the vector);
 * root 1 (0 on one rank), MPI_SUM. Prints
 *   t rank=R start=T1 wait=T2
 * (MPI_Wtime after the starting call and after MPI_Wait). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: icoll_one OP COUNT\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *op = argv[1];
    int n = atoi(argv[2]);
    int root = size > 1 ? 1 : 0;
    unsigned *a = vt_malloc(((size_t)n * size + 1) * sizeof(unsigned));
    unsigned *b = vt_malloc(((size_t)n * size + 1) * sizeof(unsigned));
    int *cnt = malloc(size * sizeof(int)), *disp = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) {
        cnt[i] = n;
        disp[i] = i * n;
    }
    for (int i = 0; i < n * size; i++)
        a[i] = i + rank;
    MPI_Request r;
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_Datatype u = MPI_UNSIGNED;
    if (!strcmp(op, "ibcast"))
        MPI_Ibcast(a, n, u, root, c, &r);
    else if (!strcmp(op, "ireduce"))
        MPI_Ireduce(a, b, n, u, MPI_SUM, root, c, &r);
    else if (!strcmp(op, "iallreduce"))
        MPI_Iallreduce(a, b, n, u, MPI_SUM, c, &r);
    else if (!strcmp(op, "igather"))
        MPI_Igather(a, n, u, b, n, u, root, c, &r);
    else if (!strcmp(op, "iscatter"))
        MPI_Iscatter(a, n, u, b, n, u, root, c, &r);
    else if (!strcmp(op, "iallgather"))
        MPI_Iallgather(a, n, u, b, n, u, c, &r);
    else if (!strcmp(op, "ialltoall"))
        MPI_Ialltoall(a, n, u, b, n, u, c, &r);
    else if (!strcmp(op, "igatherv"))
        MPI_Igatherv(a, n, u, b, cnt, disp, u, root, c, &r);
    else if (!strcmp(op, "iscatterv"))
        MPI_Iscatterv(a, cnt, disp, u, b, n, u, root, c, &r);
    else if (!strcmp(op, "iallgatherv"))
        MPI_Iallgatherv(a, n, u, b, cnt, disp, u, c, &r);
    else if (!strcmp(op, "ialltoallv"))
        MPI_Ialltoallv(a, cnt, disp, u, b, cnt, disp, u, c, &r);
    else if (!strcmp(op, "ireduce_scatter_block"))
        MPI_Ireduce_scatter_block(a, b, n, u, MPI_SUM, c, &r);
    else if (!strcmp(op, "ireduce_scatter"))
        MPI_Ireduce_scatter(a, b, cnt, u, MPI_SUM, c, &r);
    else if (!strcmp(op, "iscan"))
        MPI_Iscan(a, b, n, u, MPI_SUM, c, &r);
    else if (!strcmp(op, "iexscan"))
        MPI_Iexscan(a, b, n, u, MPI_SUM, c, &r);
    else if (!strcmp(op, "ibarrier"))
        MPI_Ibarrier(c, &r);
    else {
        if (rank == 0)
            fprintf(stderr, "icoll_one: unknown OP %s\n", op);
        MPI_Abort(c, 2);
    }
    double t1 = MPI_Wtime();
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    printf("t rank=%d start=%.12f wait=%.12f\n", rank, t1, MPI_Wtime());
    free(a);
    free(b);
    free(cnt);
    free(disp);
    MPI_Finalize();
    return 0;
}
