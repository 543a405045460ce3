/* Nonblocking collectives on an intercommunicator of 5 ranks (A = world
 * {0, 1}, B = {2, 3, 4}, as inter_results.c): each is run with its
 * blocking form on the same arguments and the results compared (the
 * blocking forms' values are checked by tests/intercomm.rs).
 * Lines: ok rank=W op=NAME  (equal results)
 *        FAIL rank=W op=NAME at=I nb=X b=Y
 *        done rank=W */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int W;

static void cmp(const char *op, const int *nb, const int *b, int n)
{
    for (int i = 0; i < n; i++)
        if (nb[i] != b[i]) {
            printf("FAIL rank=%d op=%s at=%d nb=%d b=%d\n", W, op, i, nb[i], b[i]);
            return;
        }
    printf("ok rank=%d op=%s\n", W, op);
}

#define FILL(buf, v) for (int i_ = 0; i_ < 64; i_++) (buf)[i_] = (v)

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &W);
    int inA = W < 2;
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, inA ? 0 : 1, W, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, inA ? 2 : 0, 7, &ic);
    int lr, rsize;
    MPI_Comm_rank(ic, &lr);
    MPI_Comm_remote_size(ic, &rsize);
    int s[64], a[64], b[64];
    MPI_Request q;
    for (int i = 0; i < 64; i++)
        s[i] = W * 100 + i;

    MPI_Ibarrier(ic, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    printf("ok rank=%d op=ibarrier\n", W);

    int rootA = inA ? (lr == 1 ? MPI_ROOT : MPI_PROC_NULL) : 1; /* A's rank 1 */
    int rootB = inA ? 2 : (lr == 2 ? MPI_ROOT : MPI_PROC_NULL); /* B's rank 2 */
    for (int k = 0; k < 2; k++) {
        int root = k ? rootB : rootA;
        char name[32];
        FILL(a, W < 2 && lr == 1 ? 7 : -1); FILL(b, W < 2 && lr == 1 ? 7 : -1);
        if (root == MPI_ROOT) for (int i = 0; i < 5; i++) a[i] = b[i] = 40 + i;
        MPI_Ibcast(a, 5, MPI_INT, root, ic, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Bcast(b, 5, MPI_INT, root, ic);
        snprintf(name, sizeof name, "ibcast%d", k); cmp(name, a, b, 5);

        FILL(a, -1); FILL(b, -1);
        MPI_Ireduce(s, a, 3, MPI_INT, MPI_SUM, root, ic, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Reduce(s, b, 3, MPI_INT, MPI_SUM, root, ic);
        snprintf(name, sizeof name, "ireduce%d", k); cmp(name, a, b, 3);

        for (int big = 0; big < 2; big++) {
            int cnt = big ? 700 : 2; /* 700 x 3 >= 2048: MPICH's long algorithms */
            int *ga = vt_malloc(sizeof(int) * 3 * 700), *gb = vt_malloc(sizeof(int) * 3 * 700);
            int *sv = vt_malloc(sizeof(int) * 3 * 700);
            for (int i = 0; i < 3 * 700; i++) sv[i] = W * 10000 + i, ga[i] = gb[i] = -1;
            MPI_Igather(sv, cnt, MPI_INT, ga, cnt, MPI_INT, root, ic, &q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            MPI_Gather(sv, cnt, MPI_INT, gb, cnt, MPI_INT, root, ic);
            snprintf(name, sizeof name, "igather%d_%d", k, big); cmp(name, ga, gb, 3 * cnt);
            for (int i = 0; i < 3 * 700; i++) ga[i] = gb[i] = -1;
            MPI_Iscatter(sv, cnt, MPI_INT, ga, cnt, MPI_INT, root, ic, &q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            MPI_Scatter(sv, cnt, MPI_INT, gb, cnt, MPI_INT, root, ic);
            snprintf(name, sizeof name, "iscatter%d_%d", k, big); cmp(name, ga, gb, cnt);
            free(ga); free(gb); free(sv);
        }

        int counts[3] = {1, 2, 3}, displs[3] = {0, 1, 3};
        FILL(a, -1); FILL(b, -1);
        MPI_Igatherv(s, lr + 1, MPI_INT, a, counts, displs, MPI_INT, root, ic, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Gatherv(s, lr + 1, MPI_INT, b, counts, displs, MPI_INT, root, ic);
        snprintf(name, sizeof name, "igatherv%d", k); cmp(name, a, b, 6);
        FILL(a, -1); FILL(b, -1);
        MPI_Iscatterv(s, counts, displs, MPI_INT, a, lr + 1, MPI_INT, root, ic, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Scatterv(s, counts, displs, MPI_INT, b, lr + 1, MPI_INT, root, ic);
        snprintf(name, sizeof name, "iscatterv%d", k); cmp(name, a, b, 3);
    }

    FILL(a, -1); FILL(b, -1);
    MPI_Iallreduce(s, a, 4, MPI_INT, MPI_SUM, ic, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Allreduce(s, b, 4, MPI_INT, MPI_SUM, ic);
    cmp("iallreduce", a, b, 4);

    FILL(a, -1); FILL(b, -1);
    MPI_Iallgather(s, 2, MPI_INT, a, 2, MPI_INT, ic, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Allgather(s, 2, MPI_INT, b, 2, MPI_INT, ic);
    cmp("iallgather", a, b, 2 * rsize);
    {
        int counts[3], displs[3], at = 0;
        for (int i = 0; i < rsize; i++) counts[i] = i + 1, displs[i] = at, at += i + 1;
        FILL(a, -1); FILL(b, -1);
        MPI_Iallgatherv(s, lr + 1, MPI_INT, a, counts, displs, MPI_INT, ic, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Allgatherv(s, lr + 1, MPI_INT, b, counts, displs, MPI_INT, ic);
        cmp("iallgatherv", a, b, at);
    }
    FILL(a, -1); FILL(b, -1);
    MPI_Ialltoall(s, 2, MPI_INT, a, 2, MPI_INT, ic, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Alltoall(s, 2, MPI_INT, b, 2, MPI_INT, ic);
    cmp("ialltoall", a, b, 2 * rsize);
    {
        int sc[3], sd[3], rc[3], rd[3], at = 0, rat = 0;
        for (int j = 0; j < rsize; j++) {
            sc[j] = j + 1, sd[j] = at, at += j + 1;
            rc[j] = lr + 1, rd[j] = rat, rat += lr + 1;
        }
        FILL(a, -1); FILL(b, -1);
        MPI_Ialltoallv(s, sc, sd, MPI_INT, a, rc, rd, MPI_INT, ic, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Alltoallv(s, sc, sd, MPI_INT, b, rc, rd, MPI_INT, ic);
        cmp("ialltoallv", a, b, rat);
        MPI_Datatype ts[3] = {MPI_INT, MPI_INT, MPI_INT};
        for (int j = 0; j < rsize; j++) sd[j] *= 4, rd[j] *= 4;
        FILL(a, -1); FILL(b, -1);
        MPI_Ialltoallw(s, sc, sd, ts, a, rc, rd, ts, ic, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Alltoallw(s, sc, sd, ts, b, rc, rd, ts, ic);
        cmp("ialltoallw", a, b, rat);
    }
    FILL(a, -1); FILL(b, -1);
    MPI_Ireduce_scatter_block(s, a, inA ? 3 : 2, MPI_INT, MPI_SUM, ic, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Reduce_scatter_block(s, b, inA ? 3 : 2, MPI_INT, MPI_SUM, ic);
    cmp("ireduce_scatter_block", a, b, inA ? 3 : 2);
    {
        int ca[2] = {2, 4}, cb[3] = {1, 2, 3};
        FILL(a, -1); FILL(b, -1);
        MPI_Ireduce_scatter(s, a, inA ? ca : cb, MPI_INT, MPI_SUM, ic, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Reduce_scatter(s, b, inA ? ca : cb, MPI_INT, MPI_SUM, ic);
        cmp("ireduce_scatter", a, b, inA ? ca[lr] : cb[lr]);
    }
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    printf("done rank=%d\n", W);
    MPI_Finalize();
    return 0;
}
