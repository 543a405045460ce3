/* Functional checks of the point-to-point completion calls on 2 ranks:
 * MPI_Isendrecv / MPI_Isendrecv_replace, MPI_Request_get_status,
 * generalized requests, the status setters, persistent requests mixed
 * with other kinds in Waitany / Testall / Waitsome, and errors (under
 * MPI_ERRORS_RETURN). Each check prints `ok NAME` or `FAIL NAME: why`. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int rank, other;

#define CHECK(name, cond, ...)                                   \
    do {                                                         \
        if (cond)                                                \
            printf("ok %s rank=%d\n", name, rank);               \
        else {                                                   \
            printf("FAIL %s rank=%d: ", name, rank);             \
            printf(__VA_ARGS__);                                 \
            printf("\n");                                        \
        }                                                        \
    } while (0)

static int queried, freed, cancelled_with;

static int query_fn(void *extra, MPI_Status *st)
{
    queried++;
    st->MPI_SOURCE = *(int *)extra;
    st->MPI_TAG = 77;
    MPI_Status_set_cancelled(st, 0);
    MPI_Status_set_elements(st, MPI_INT, 5);
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    (void)extra;
    freed++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    cancelled_with = 10 + complete;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    other = 1 - rank;
    MPI_Status st;
    int count, flag, rc;

    /* Isendrecv: 1000 ints each way */
    {
        int sb[1000], rb[1000];
        for (int i = 0; i < 1000; i++)
            sb[i] = rank * 100000 + i, rb[i] = -1;
        MPI_Request r;
        MPI_Isendrecv(sb, 1000, MPI_INT, other, 3, rb, 1000, MPI_INT, other, 3, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        int bad = 0;
        for (int i = 0; i < 1000; i++)
            bad += rb[i] != other * 100000 + i;
        CHECK("isendrecv", r == MPI_REQUEST_NULL && !bad && count == 1000 && st.MPI_SOURCE == other && st.MPI_TAG == 3,
              "bad=%d count=%d source=%d tag=%d", bad, count, st.MPI_SOURCE, st.MPI_TAG);
    }
    /* Isendrecv_replace, rendezvous size, completed by Test polling */
    {
        long n = 100000;
        int *buf = vt_malloc(n * sizeof(int));
        for (long i = 0; i < n; i++)
            buf[i] = rank * 7 + (int)i;
        MPI_Request r;
        MPI_Isendrecv_replace(buf, (int)n, MPI_INT, other, 4, other, 4, MPI_COMM_WORLD, &r);
        flag = 0;
        while (!flag) { /* virtual time moves only by computation */
            MPIX_Vaced_compute(1e-6);
            MPI_Test(&r, &flag, &st);
        }
        long bad = 0;
        for (long i = 0; i < n; i++)
            bad += buf[i] != other * 7 + (int)i;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK("isendrecv_replace", !bad && count == n && st.MPI_SOURCE == other, "bad=%ld count=%d", bad, count);
        free(buf);
    }
    /* Request_get_status: does not free; a persistent receive stays usable */
    {
        int v = rank + 40, got = -1;
        MPI_Request rr, sr;
        MPI_Recv_init(&got, 1, MPI_INT, other, 5, MPI_COMM_WORLD, &rr);
        rc = MPI_Request_get_status(rr, &flag, &st);
        CHECK("get_status_inactive", rc == MPI_SUCCESS && flag && st.MPI_SOURCE == MPI_ANY_SOURCE, "rc=%d flag=%d", rc, flag);
        MPI_Start(&rr);
        rc = MPI_Start(&rr);
        CHECK("start_active_is_error", rc == MPI_ERR_REQUEST, "rc=%d", rc);
        MPI_Isend(&v, 1, MPI_INT, other, 5, MPI_COMM_WORLD, &sr);
        flag = 0;
        while (!flag) {
            MPIX_Vaced_compute(1e-6);
            MPI_Request_get_status(rr, &flag, &st);
        }
        CHECK("get_status_complete", rr != MPI_REQUEST_NULL && got == other + 40 && st.MPI_SOURCE == other && st.MPI_TAG == 5,
              "got=%d source=%d", got, st.MPI_SOURCE);
        MPI_Status st2;
        MPI_Wait(&rr, &st2);
        CHECK("wait_after_get_status", rr != MPI_REQUEST_NULL && st2.MPI_SOURCE == other, "source=%d", st2.MPI_SOURCE);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        MPI_Request_free(&rr);
        rc = MPI_Start(&sr); /* MPI_REQUEST_NULL */
        CHECK("start_null_is_error", rc == MPI_ERR_REQUEST, "rc=%d", rc);
    }
    /* generalized requests */
    {
        MPI_Request g;
        int extra = 1234;
        MPI_Grequest_start(query_fn, free_fn, cancel_fn, &extra, &g);
        MPI_Test(&g, &flag, &st);
        CHECK("greq_not_complete", !flag && queried == 0, "flag=%d queried=%d", flag, queried);
        rc = MPI_Wait(&g, &st);
        CHECK("greq_wait_incomplete_is_error", rc == MPI_ERR_REQUEST && g != MPI_REQUEST_NULL, "rc=%d", rc);
        MPI_Cancel(&g);
        CHECK("greq_cancel_callback", cancelled_with == 10, "cancelled_with=%d", cancelled_with);
        MPI_Grequest_complete(g);
        rc = MPI_Grequest_complete(g);
        CHECK("greq_complete_twice_is_error", rc == MPI_ERR_REQUEST, "rc=%d", rc);
        rc = MPI_Request_get_status(g, &flag, &st);
        CHECK("greq_get_status", rc == 0 && flag && st.MPI_SOURCE == 1234 && queried == 1 && freed == 0,
              "flag=%d source=%d queried=%d freed=%d", flag, st.MPI_SOURCE, queried, freed);
        MPI_Wait(&g, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        int elems = -1;
        MPI_Get_elements(&st, MPI_INT, &elems);
        CHECK("greq_wait", g == MPI_REQUEST_NULL && count == 5 && elems == 5 && st.MPI_TAG == 77 && freed == 1,
              "count=%d elems=%d tag=%d freed=%d", count, elems, st.MPI_TAG, freed);
        /* in a Waitall with a p2p receive */
        int x = 9, y = -1;
        MPI_Request rs[3];
        MPI_Grequest_start(query_fn, free_fn, cancel_fn, &extra, &rs[0]);
        MPI_Irecv(&y, 1, MPI_INT, other, 6, MPI_COMM_WORLD, &rs[1]);
        MPI_Isend(&x, 1, MPI_INT, other, 6, MPI_COMM_WORLD, &rs[2]);
        MPI_Grequest_complete(rs[0]);
        MPI_Status sts[3];
        MPI_Waitall(3, rs, sts);
        CHECK("greq_waitall", y == 9 && sts[0].MPI_TAG == 77 && sts[1].MPI_SOURCE == other && freed == 2,
              "y=%d tag=%d freed=%d", y, sts[0].MPI_TAG, freed);
    }
    /* status setters agree with Get_count / Get_elements(_x) and Test_cancelled */
    {
        MPI_Status s;
        MPI_Count big = ((MPI_Count)1 << 33) + 3, ex = 0;
        MPI_Status_set_elements_x(&s, MPI_BYTE, big);
        MPI_Get_elements_x(&s, MPI_BYTE, &ex);
        MPI_Get_count(&s, MPI_BYTE, &count);
        int c2;
        MPI_Status_set_cancelled(&s, 1);
        MPI_Test_cancelled(&s, &c2);
        MPI_Count ex2 = 0;
        MPI_Get_elements_x(&s, MPI_BYTE, &ex2);
        CHECK("status_setters", ex == big && count == MPI_UNDEFINED && c2 == 1 && ex2 == big,
              "ex=%lld count=%d cancelled=%d", (long long)ex, count, c2);
        MPI_Status_set_elements(&s, MPI_DOUBLE, 3);
        MPI_Get_count(&s, MPI_BYTE, &count);
        rc = MPI_Status_set_elements(&s, MPI_INT, -1);
        CHECK("status_set_elements", count == 24 && rc == MPI_ERR_COUNT, "count=%d rc=%d", count, rc);
    }
    /* a mix of kinds in Waitany / Waitsome: inactive persistent, null,
     * persistent active, plain */
    {
        int a = rank, b = -1, c = -1;
        MPI_Request rq[4];
        MPI_Recv_init(&b, 1, MPI_INT, other, 8, MPI_COMM_WORLD, &rq[0]);
        rq[1] = MPI_REQUEST_NULL;
        MPI_Send_init(&a, 1, MPI_INT, other, 8, MPI_COMM_WORLD, &rq[2]);
        MPI_Irecv(&c, 1, MPI_INT, other, 9, MPI_COMM_WORLD, &rq[3]);
        int idx = -5;
        /* only the plain receive can complete: its message comes after the barrier */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&a, 1, MPI_INT, other, 9, MPI_COMM_WORLD);
        MPI_Waitany(4, rq, &idx, &st);
        CHECK("waitany_mix", idx == 3 && c == other && rq[3] == MPI_REQUEST_NULL, "idx=%d c=%d", idx, c);
        MPI_Waitany(4, rq, &idx, &st);
        CHECK("waitany_all_inactive", idx == MPI_UNDEFINED, "idx=%d", idx);
        MPI_Startall(2, (MPI_Request[]){rq[0], rq[2]});
        int out = 0, ind[4];
        int done = 0;
        MPI_Status sts[4];
        while (done < 2) {
            MPI_Waitsome(4, rq, &out, ind, sts);
            done += out;
        }
        CHECK("waitsome_persistent", b == other && rq[0] != MPI_REQUEST_NULL && rq[2] != MPI_REQUEST_NULL, "b=%d", b);
        MPI_Request_free(&rq[0]);
        MPI_Request_free(&rq[2]);
    }
    /* cancel of a send the other rank's receive, posted before the cancel
     * request arrives, has matched: not cancelled, the data arrives */
    {
        int v = 10 + rank;
        MPI_Request r;
        MPI_Status st;
        MPI_Issend(&v, 1, MPI_INT, other, 10, MPI_COMM_WORLD, &r);
        rc = MPI_Cancel(&r);
        int w = -1, flag = -1;
        MPI_Recv(&w, 1, MPI_INT, other, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK("send_cancel_matched", rc == MPI_SUCCESS && flag == 0 && w == 10 + other,
              "rc=%d flag=%d w=%d", rc, flag, w);
    }
    MPI_Finalize();
    return 0;
}
