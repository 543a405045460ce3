/* Intercommunicators on 5 ranks: group A = world ranks {0, 1}, group B =
 * {2, 3, 4}, joined by MPI_Intercomm_create (leaders: local rank 0 of each,
 * peer communicator MPI_COMM_WORLD).
 *
 * Lines (W = world rank; v = comma-separated ints, "-" when empty):
 *   info rank=W lsize= rsize= inter= lrank=
 *   p2p rank=W from= v=                  one per message received
 *   c rank=W op=NAME v=                  every collective, both root sides
 *   merge rank=W test=T size= newrank= members=
 *   dup rank=W inter= cmp= v=            a ping over the duplicate
 *   split rank=W lsize= rsize= lrank= remote=
 *   create rank=W null= lsize= rsize= remote=
 *   err rank=W call=NAME class=          MPI_ERRORS_RETURN on the intercomm
 *   attr rank=W key=NAME flag= v=
 *   rgroup rank=W members=
 *   done rank=W */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int W;

static void pr(const char *kind, const char *op, const int *v, int n)
{
    char buf[4096];
    int at = 0;
    buf[0] = 0;
    for (int i = 0; i < n && at < 4000; i++)
        at += snprintf(buf + at, sizeof buf - at, i ? ",%d" : "%d", v[i]);
    printf("%s rank=%d op=%s v=%s\n", kind, W, op, n ? buf : "-");
}

/* The world ranks of the remote group of `ic`, gathered over it. */
static void remote_members(MPI_Comm ic, int *out, int *n)
{
    MPI_Comm_remote_size(ic, n);
    MPI_Allgather(&W, 1, MPI_INT, out, 1, MPI_INT, ic);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &W);
    int inA = W < 2;
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, inA ? 0 : 1, W, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, inA ? 2 : 0, 7, &ic);
    int lsize, rsize, flag, lr;
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Comm_test_inter(ic, &flag);
    MPI_Comm_rank(ic, &lr);
    printf("info rank=%d lsize=%d rsize=%d inter=%d lrank=%d\n", W, lsize, rsize, flag, lr);
    int v[64], r[4096], s[4096];

    /* point to point: W * 10 + j to remote rank j; ANY_SOURCE receives */
    MPI_Request rq[8];
    for (int j = 0; j < rsize; j++) {
        s[j] = W * 10 + j;
        MPI_Isend(&s[j], 1, MPI_INT, j, 5, ic, &rq[j]);
    }
    for (int j = 0; j < rsize; j++) {
        MPI_Status st;
        int x;
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 5, ic, &st);
        printf("p2p rank=%d from=%d v=%d\n", W, st.MPI_SOURCE, x);
    }
    MPI_Waitall(rsize, rq, MPI_STATUSES_IGNORE);

    /* Bcast from A's rank 1, then from B's rank 2 */
    for (int i = 0; i < 3; i++)
        v[i] = -1;
    if (inA && lr == 1)
        v[0] = 7, v[1] = 8, v[2] = 9;
    MPI_Bcast(v, 3, MPI_INT, inA ? (lr == 1 ? MPI_ROOT : MPI_PROC_NULL) : 1, ic);
    pr("c", "bcast_a", v, 3);
    v[0] = v[1] = -1;
    if (!inA && lr == 2)
        v[0] = 5, v[1] = 6;
    MPI_Bcast(v, 2, MPI_INT, inA ? 2 : (lr == 2 ? MPI_ROOT : MPI_PROC_NULL), ic);
    pr("c", "bcast_b", v, 2);
    MPI_Barrier(ic);

    /* Reduce: B's [W, 2W] to A's rank 0; A's [W, 2W] to B's rank 1 */
    s[0] = W, s[1] = 2 * W, r[0] = r[1] = -1;
    MPI_Reduce(s, r, 2, MPI_INT, MPI_SUM, inA ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic);
    pr("c", "reduce_a", r, 2);
    r[0] = r[1] = -1;
    MPI_Reduce(s, r, 2, MPI_INT, MPI_SUM, inA ? 1 : (lr == 1 ? MPI_ROOT : MPI_PROC_NULL), ic);
    pr("c", "reduce_b", r, 2);
    s[0] = W + 1;
    MPI_Allreduce(s, r, 1, MPI_INT, MPI_SUM, ic);
    pr("c", "allreduce", r, 1);

    /* Gather of [W, W*W] to A's rank 1; long gather (1024 ints each) to B's
     * rank 0 (MPICH's linear algorithm): sum of what arrived */
    s[0] = W, s[1] = W * W;
    for (int i = 0; i < 6; i++)
        r[i] = -1;
    MPI_Gather(s, 2, MPI_INT, r, 2, MPI_INT, inA ? (lr == 1 ? MPI_ROOT : MPI_PROC_NULL) : 1, ic);
    pr("c", "gather_a", r, inA && lr == 1 ? 6 : 0);
    for (int i = 0; i < 1024; i++)
        s[i] = W * 1000 + i;
    MPI_Gather(s, 1024, MPI_INT, r, 1024, MPI_INT, inA ? 0 : (lr == 0 ? MPI_ROOT : MPI_PROC_NULL), ic);
    if (!inA && lr == 0) {
        long sum = 0;
        for (int i = 0; i < 2048; i++)
            sum += r[i] * (long)(i + 1);
        printf("c rank=%d op=gather_long v=%ld\n", W, sum);
    }
    /* Gatherv to A's rank 0: B's rank i sends i + 1 copies of W */
    {
        int counts[3] = {1, 2, 3}, displs[3] = {0, 1, 3};
        for (int i = 0; i < lr + 1; i++)
            s[i] = W;
        for (int i = 0; i < 6; i++)
            r[i] = -1;
        MPI_Gatherv(s, inA ? 0 : lr + 1, MPI_INT, r, counts, displs, MPI_INT,
                    inA ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic);
        pr("c", "gatherv", r, inA && lr == 0 ? 6 : 0);
    }
    /* Scatter from B's rank 0 to A (2 ints each), Scatterv from A's rank 1
     * to B (i + 1 ints to B's rank i) */
    for (int i = 0; i < 4; i++)
        s[i] = 10 + i;
    r[0] = r[1] = -1;
    MPI_Scatter(s, 2, MPI_INT, r, 2, MPI_INT, inA ? 0 : (lr == 0 ? MPI_ROOT : MPI_PROC_NULL), ic);
    pr("c", "scatter", r, inA ? 2 : 0);
    {
        int counts[3] = {1, 2, 3}, displs[3] = {0, 1, 3};
        for (int i = 0; i < 6; i++)
            s[i] = 20 + i;
        for (int i = 0; i < 3; i++)
            r[i] = -1;
        MPI_Scatterv(s, counts, displs, MPI_INT, r, inA ? 0 : lr + 1, MPI_INT,
                     inA ? (lr == 1 ? MPI_ROOT : MPI_PROC_NULL) : 1, ic);
        pr("c", "scatterv", r, inA ? 0 : lr + 1);
    }

    /* Allgather(v) */
    MPI_Allgather(&W, 1, MPI_INT, r, 1, MPI_INT, ic);
    pr("c", "allgather", r, rsize);
    {
        int counts[3], displs[3], at = 0;
        for (int i = 0; i < rsize; i++)
            counts[i] = i + 1, displs[i] = at, at += i + 1;
        for (int i = 0; i < lr + 1; i++)
            s[i] = W;
        MPI_Allgatherv(s, lr + 1, MPI_INT, r, counts, displs, MPI_INT, ic);
        pr("c", "allgatherv", r, at);
    }

    /* Alltoall(v,w) */
    for (int j = 0; j < rsize; j++)
        s[j] = W * 10 + j;
    MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, ic);
    pr("c", "alltoall", r, rsize);
    {
        /* j + 1 ints of W * 10 + j to remote rank j; lr + 1 from each */
        int sc[3], sd[3], rc[3], rd[3], at = 0, rat = 0;
        for (int j = 0; j < rsize; j++) {
            sc[j] = j + 1, sd[j] = at;
            for (int k = 0; k < j + 1; k++)
                s[at++] = W * 10 + j;
            rc[j] = lr + 1, rd[j] = rat, rat += lr + 1;
        }
        MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, ic);
        pr("c", "alltoallv", r, rat);
        MPI_Datatype ts[3] = {MPI_INT, MPI_INT, MPI_INT};
        for (int j = 0; j < rsize; j++)
            sd[j] *= 4, rd[j] *= 4;
        for (int i = 0; i < rat; i++)
            r[i] = -1;
        MPI_Alltoallw(s, sc, sd, ts, r, rc, rd, ts, ic);
        pr("c", "alltoallw", r, rat);
    }

    /* Reduce_scatter(_block) over 6-int vectors */
    for (int i = 0; i < 6; i++)
        s[i] = W + i;
    MPI_Reduce_scatter_block(s, r, inA ? 3 : 2, MPI_INT, MPI_SUM, ic);
    pr("c", "reduce_scatter_block", r, inA ? 3 : 2);
    {
        int ca[2] = {2, 4}, cb[3] = {1, 2, 3};
        for (int i = 0; i < 6; i++)
            s[i] = W * i;
        MPI_Reduce_scatter(s, r, inA ? ca : cb, MPI_INT, MPI_SUM, ic);
        pr("c", "reduce_scatter", r, inA ? ca[lr] : cb[lr]);
    }

    /* Merges: A high / B low; both low; A low / B high */
    int highs[3][2] = {{1, 0}, {0, 0}, {0, 1}};
    for (int t = 0; t < 3; t++) {
        MPI_Comm m;
        MPI_Intercomm_merge(ic, highs[t][inA ? 0 : 1], &m);
        int size, nr;
        MPI_Comm_size(m, &size);
        MPI_Comm_rank(m, &nr);
        MPI_Allgather(&W, 1, MPI_INT, r, 1, MPI_INT, m);
        char name[32];
        snprintf(name, sizeof name, "merge%d", t);
        printf("merge rank=%d test=%d size=%d newrank=%d\n", W, t, size, nr);
        pr("c", name, r, size);
        MPI_Comm_free(&m);
    }

    /* Dup: a ping from each A rank to B's rank 0 over the duplicate */
    {
        MPI_Comm d;
        int cmp, fl;
        MPI_Comm_dup(ic, &d);
        MPI_Comm_test_inter(d, &fl);
        MPI_Comm_compare(ic, d, &cmp);
        int x = -1;
        if (inA)
            MPI_Send(&W, 1, MPI_INT, 0, 1, d);
        else if (lr == 0) {
            MPI_Recv(&x, 1, MPI_INT, 1, 1, d, MPI_STATUS_IGNORE);
            MPI_Recv(&x, 1, MPI_INT, 0, 1, d, MPI_STATUS_IGNORE);
        }
        printf("dup rank=%d inter=%d cmp=%d v=%d\n", W, fl, cmp, x);
        MPI_Comm_free(&d);
    }

    /* Split by W % 2, key -W */
    {
        MPI_Comm sp;
        MPI_Comm_split(ic, W % 2, -W, &sp);
        int a, b, c, n;
        MPI_Comm_size(sp, &a);
        MPI_Comm_remote_size(sp, &b);
        MPI_Comm_rank(sp, &c);
        remote_members(sp, r, &n);
        printf("split rank=%d lsize=%d rsize=%d lrank=%d\n", W, a, b, c);
        pr("c", "split_remote", r, n);
        MPI_Comm_free(&sp);
    }

    /* Create from the local group without its rank 0 */
    {
        MPI_Group g, sub;
        MPI_Comm cr;
        int zero = 0;
        MPI_Comm_group(ic, &g);
        MPI_Group_excl(g, 1, &zero, &sub);
        MPI_Comm_create(ic, sub, &cr);
        if (cr == MPI_COMM_NULL) {
            printf("create rank=%d null=1\n", W);
        } else {
            int a, n;
            MPI_Comm_size(cr, &a);
            remote_members(cr, r, &n);
            printf("create rank=%d null=0 lsize=%d rsize=%d\n", W, a, n);
            pr("c", "create_remote", r, n);
            MPI_Comm_free(&cr);
        }
        MPI_Group_free(&sub);
        MPI_Group_free(&g);
    }

    /* Errors */
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    {
        int cls, x = 1, y;
        cls = MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic);
        MPI_Error_class(cls, &cls);
        printf("err rank=%d call=scan class=%d\n", W, cls);
        cls = MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, ic);
        MPI_Error_class(cls, &cls);
        printf("err rank=%d call=exscan class=%d\n", W, cls);
        cls = MPI_Bcast(&x, 1, MPI_INT, 7, ic);
        MPI_Error_class(cls, &cls);
        printf("err rank=%d call=bcast_root class=%d\n", W, cls);
        int dims[1] = {lsize}, per[1] = {0};
        MPI_Comm cart;
        cls = MPI_Cart_create(ic, 1, dims, per, 0, &cart);
        MPI_Error_class(cls, &cls);
        printf("err rank=%d call=cart_create class=%d\n", W, cls);
        cls = MPI_Send(&x, 1, MPI_INT, rsize, 0, ic);
        MPI_Error_class(cls, &cls);
        printf("err rank=%d call=send_rank class=%d\n", W, cls);
        MPI_Comm m;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        cls = MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &m);
        MPI_Error_class(cls, &cls);
        printf("err rank=%d call=merge_intra class=%d\n", W, cls);
    }

    /* MPI_UNIVERSE_SIZE and MPI_APPNUM */
    {
        int *p, fl;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &p, &fl);
        printf("attr rank=%d key=universe flag=%d v=%d\n", W, fl, fl ? *p : -1);
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &p, &fl);
        printf("attr rank=%d key=appnum flag=%d v=%d\n", W, fl, fl ? *p : -1);
    }

    /* Remote group: world ranks of its members */
    {
        MPI_Group rg, wg;
        int n, idx[8], out[8];
        MPI_Comm_remote_group(ic, &rg);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_size(rg, &n);
        for (int i = 0; i < n; i++)
            idx[i] = i;
        MPI_Group_translate_ranks(rg, n, idx, wg, out);
        pr("c", "rgroup", out, n);
        MPI_Group_free(&rg);
        MPI_Group_free(&wg);
    }

    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    printf("done rank=%d\n", W);
    MPI_Finalize();
    return 0;
}
