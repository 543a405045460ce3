/* Partitioned communication (MPI-4), 2 ranks.
 *
 * usage: partitioned COMPUTE_SECONDS ITERS PARTS COUNT
 *   Rank 0 MPI_Psend_init's PARTS partitions of COUNT bytes to rank 1,
 *   rank 1 MPI_Precv_init's them. ITERS times: both MPI_Start; rank 0
 *   computes COMPUTE_SECONDS (MPIX_Vaced_compute) before marking each
 *   partition ready (MPI_Pready for the even ones, MPI_Pready_range of one
 *   for the odd ones; with PARTS >= 4 the last two go together through
 *   MPI_Pready_list after computing twice), then MPI_Wait; rank 1 just
 *   MPI_Wait's.
 *   Lines: pt rank=R op=IT t=<MPI_Wtime after the Wait, %.17g>
 * usage: partitioned check
 *   Functional checks; each prints "ok NAME rank=R" on both ranks.
 * Any problem prints a FAIL line. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int rank;

static void ok(const char *name)
{
    printf("ok %s rank=%d\n", name, rank);
}

static void expect_class(const char *name, int rc, int cls)
{
    int got = -1;
    MPI_Error_class(rc, &got);
    if (got != cls)
        printf("FAIL %s rank=%d: error class %d, expected %d\n", name, rank, got, cls);
    else
        ok(name);
}

static void timed(double compute, int iters, int parts, int count)
{
    long total = (long)parts * count;
    unsigned char *buf = vt_malloc(total);
    MPI_Request rq;
    if (rank == 0)
        MPI_Psend_init(buf, parts, count, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
    else
        MPI_Precv_init(buf, parts, count, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
    for (int it = 0; it < iters; it++) {
        if (rank == 0) {
            vt_fill(buf, total, 77u + (unsigned)it);
            MPI_Start(&rq);
            int p = 0;
            for (; p < parts - (parts >= 4 ? 2 : 0); p++) {
                MPIX_Vaced_compute(compute);
                if (p % 2 == 0)
                    MPI_Pready(p, rq);
                else
                    MPI_Pready_range(p, p, rq);
            }
            if (parts >= 4) {
                int last[2] = {parts - 1, parts - 2};
                MPIX_Vaced_compute(2 * compute);
                MPI_Pready_list(2, last, rq);
            }
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else {
            memset(buf, 0, total);
            MPI_Start(&rq);
            MPI_Status st;
            MPI_Wait(&rq, &st);
            long bad = vt_check(buf, total, 77u + (unsigned)it);
            if (bad >= 0)
                printf("FAIL rank=1 it=%d data differs at byte %ld\n", it, bad);
            int flag = 0;
            MPI_Parrived(rq, parts - 1, &flag);
            if (!flag)
                printf("FAIL rank=1 MPI_Parrived on a completed request says no\n");
        }
        printf("pt rank=%d op=%d t=%.17g\n", rank, it, MPI_Wtime());
    }
    MPI_Request_free(&rq);
    if (rq != MPI_REQUEST_NULL)
        printf("FAIL rank=%d MPI_Request_free left a handle\n", rank);
    free(buf);
}

static void checks(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int other = 1 - rank;
    int sbuf[8], rbuf[8], plain = -1, rc, flag;
    MPI_Request ps, pr;
    for (int i = 0; i < 8; i++)
        sbuf[i] = 100 * rank + i;

    /* A partitioned receive posted first does not take an ordinary send
     * with its tag; the ordinary receive posted after it does. */
    MPI_Psend_init(sbuf, 4, 2, MPI_INT, other, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &ps);
    MPI_Precv_init(rbuf, 4, 2, MPI_INT, other, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &pr);
    MPI_Start(&pr);
    MPI_Start(&ps);
    MPI_Sendrecv(&rank, 1, MPI_INT, other, 3, &plain, 1, MPI_INT, other, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (plain != other)
        printf("FAIL rank=%d ordinary receive got %d\n", rank, plain);
    else
        ok("ordinary_not_matched");

    /* Not all partitions ready: the send is active and not complete. */
    MPI_Pready_range(0, 2, ps);
    MPI_Test(&ps, &flag, MPI_STATUS_IGNORE);
    if (flag)
        printf("FAIL rank=%d partitioned send complete before its last partition\n", rank);
    else
        ok("test_before_last_partition");
    expect_class("pready_twice", MPI_Pready(1, ps), MPI_ERR_ARG);
    expect_class("pready_out_of_range", MPI_Pready(4, ps), MPI_ERR_ARG);
    expect_class("pready_range_reversed", MPI_Pready_range(3, 2, ps), MPI_ERR_ARG);
    expect_class("pready_on_receive", MPI_Pready(0, pr), MPI_ERR_REQUEST);
    expect_class("parrived_on_send", MPI_Parrived(ps, 0, &flag), MPI_ERR_REQUEST);
    expect_class("parrived_out_of_range", MPI_Parrived(pr, 4, &flag), MPI_ERR_ARG);
    expect_class("free_waiting_send", MPI_Request_free(&ps), MPI_ERR_REQUEST);
    expect_class("wait_waiting_send", MPI_Wait(&ps, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    int last = 3;
    MPI_Pready_list(1, &last, ps);
    MPI_Wait(&ps, MPI_STATUS_IGNORE);
    MPI_Wait(&pr, MPI_STATUS_IGNORE);
    int bad = 0;
    for (int i = 0; i < 8; i++)
        bad |= rbuf[i] != 100 * other + i;
    if (bad)
        printf("FAIL rank=%d partitioned data wrong\n", rank);
    else
        ok("data");
    expect_class("pready_inactive", MPI_Pready(0, ps), MPI_ERR_REQUEST);
    MPI_Parrived(pr, 0, &flag);
    if (!flag)
        printf("FAIL rank=%d MPI_Parrived on an inactive request says no\n", rank);
    else
        ok("parrived_inactive");
    flag = 0;
    MPI_Parrived(MPI_REQUEST_NULL, 0, &flag);
    if (!flag)
        printf("FAIL rank=%d MPI_Parrived on MPI_REQUEST_NULL says no\n", rank);
    else
        ok("parrived_null");
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);

    MPI_Request bad_rq;
    expect_class("precv_any_source",
                 MPI_Precv_init(rbuf, 1, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &bad_rq),
                 MPI_ERR_RANK);
    expect_class("precv_any_tag",
                 MPI_Precv_init(rbuf, 1, 1, MPI_INT, other, MPI_ANY_TAG, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &bad_rq),
                 MPI_ERR_TAG);
    expect_class("psend_no_partitions",
                 MPI_Psend_init(sbuf, 0, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &bad_rq),
                 MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || argc < 2 || (strcmp(argv[1], "check") != 0 && argc < 5)) {
        if (rank == 0)
            printf("FAIL usage: partitioned COMPUTE ITERS PARTS COUNT | check (2 ranks)\n");
        MPI_Finalize();
        return 2;
    }
    if (strcmp(argv[1], "check") == 0)
        checks();
    else
        timed(atof(argv[1]), atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    MPI_Finalize();
    return 0;
}
