/* Nonblocking neighbourhood collectives on a periodic 1-D Cartesian ring
 * of N ranks (run at cpu.scale = 0).
 *
 * usage: ineighbor BYTES
 * Lines: nb rank=R op=NAME v=<ints received>          (results)
 *        t rank=R op=start|ialltoall t=<MPI_Wtime>     (timing: an
 *        MPI_Ineighbor_alltoall of BYTES bytes per neighbour, then MPI_Wait)
 *        FAIL ... when a nonblocking result differs from the blocking one. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int R;

static void pr(const char *op, const int *v, int n)
{
    printf("nb rank=%d op=%s v=", R, op);
    for (int i = 0; i < n; i++)
        printf(i ? ",%d" : "%d", v[i]);
    printf("\n");
}

static void same(const char *op, const int *a, const int *b, int n)
{
    if (memcmp(a, b, n * sizeof(int)))
        printf("FAIL rank=%d %s differs from the blocking form\n", R, op);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    long bytes = argc > 1 ? atol(argv[1]) : 1000;
    int n, period = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &period, 0, &ring);
    MPI_Comm_rank(ring, &R);
    MPI_Request q;
    int s[8], r[8], b[8];

    /* timing first, from a common start */
    unsigned char *sb = vt_malloc(2 * bytes), *rb = vt_malloc(2 * bytes);
    vt_fill(sb, 2 * bytes, R);
    MPI_Barrier(ring);
    printf("t rank=%d op=start t=%.17g\n", R, MPI_Wtime());
    MPI_Ineighbor_alltoall(sb, (int)bytes, MPI_BYTE, rb, (int)bytes, MPI_BYTE, ring, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    printf("t rank=%d op=ialltoall t=%.17g\n", R, MPI_Wtime());
    /* block 0 came from the left neighbour's block 1, block 1 from the
     * right neighbour's block 0 */
    int left = (R + n - 1) % n, right = (R + 1) % n;
    unsigned char *exp = vt_malloc(2 * bytes);
    vt_fill(exp, 2 * bytes, left);
    if (memcmp(rb, exp + bytes, bytes))
        printf("FAIL rank=%d ialltoall block 0\n", R);
    vt_fill(exp, 2 * bytes, right);
    if (memcmp(rb + bytes, exp, bytes))
        printf("FAIL rank=%d ialltoall block 1\n", R);

    s[0] = 10 * R;
    MPI_Ineighbor_allgather(s, 1, MPI_INT, r, 1, MPI_INT, ring, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Neighbor_allgather(s, 1, MPI_INT, b, 1, MPI_INT, ring);
    pr("allgather", r, 2);
    same("allgather", r, b, 2);

    int rc[2] = {1, 2}, rd[2] = {2, 0};
    s[0] = 10 * R + 1;
    memset(r, 0, sizeof r);
    MPI_Ineighbor_allgatherv(s, 1, MPI_INT, r, (int[]){1, 1}, rd, MPI_INT, ring, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    memset(b, 0, sizeof b);
    MPI_Neighbor_allgatherv(s, 1, MPI_INT, b, (int[]){1, 1}, rd, MPI_INT, ring);
    pr("allgatherv", r, 3);
    same("allgatherv", r, b, 3);

    s[0] = 10 * R, s[1] = 10 * R + 1;
    MPI_Ineighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, ring, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Neighbor_alltoall(s, 1, MPI_INT, b, 1, MPI_INT, ring);
    pr("alltoall", r, 2);
    same("alltoall", r, b, 2);

    /* 1 int to the left, 2 to the right; 2 from the left, 1 from the right */
    int sc[2] = {1, 2}, sd[2] = {0, 1};
    s[0] = 100 * R, s[1] = 100 * R + 1, s[2] = 100 * R + 2;
    int rc2[2] = {2, 1}, rd2[2] = {1, 0};
    memset(r, 0, sizeof r);
    MPI_Ineighbor_alltoallv(s, sc, sd, MPI_INT, r, rc2, rd2, MPI_INT, ring, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    memset(b, 0, sizeof b);
    MPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, b, rc2, rd2, MPI_INT, ring);
    pr("alltoallv", r, 3);
    same("alltoallv", r, b, 3);

    MPI_Aint sdw[2] = {0, 4}, rdw[2] = {4, 0};
    MPI_Datatype ts[2] = {MPI_INT, MPI_INT};
    memset(r, 0, sizeof r);
    MPI_Ineighbor_alltoallw(s, sc, sdw, ts, r, rc2, rdw, ts, ring, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    memset(b, 0, sizeof b);
    MPI_Neighbor_alltoallw(s, sc, sdw, ts, b, rc2, rdw, ts, ring);
    pr("alltoallw", r, 3);
    same("alltoallw", r, b, 3);
    (void)rc;

    free(sb);
    free(rb);
    free(exp);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
