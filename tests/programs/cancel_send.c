/* MPI_Cancel of sends (2 ranks).
 *
 * usage: cancel_send SCENARIO MODE SIZE
 *   unmatched: twice, rank 0 starts a send of SIZE bytes with tag 5 in MODE
 *     (isend, issend, irsend, ibsend, psend = MPI_Send_init + MPI_Start,
 *     pbsend = MPI_Bsend_init + MPI_Start), cancels it and waits: it must
 *     be cancelled. Rank 1 is blocked in MPI_Recv (tag 9) meanwhile; rank 0
 *     then sends it an int with tag 9, and rank 1 checks that no tag-5
 *     message is there. Room for one buffered message is attached: the
 *     second send needs the space the cancelled one held.
 *   matched: rank 0 starts the send, receives an int (tag 7) from rank 1
 *     once rank 1 has received the message, cancels and waits: it must not
 *     be cancelled. Then rank 0 sends an int (tag 8) that rank 1 receives.
 *   self: rank 0 sends to itself on MPI_COMM_SELF, cancels and waits: it
 *     must be cancelled, and no message is left. Rank 1 does nothing.
 * Lines: cx rank=R op=OP t=<MPI_Wtime, %.17g>; any problem prints FAIL. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static void start(const char *mode, unsigned char *buf, int n, int dest, MPI_Comm comm,
                  MPI_Request *rq, int *persistent)
{
    *persistent = 0;
    if (!strcmp(mode, "isend"))
        MPI_Isend(buf, n, MPI_BYTE, dest, 5, comm, rq);
    else if (!strcmp(mode, "issend"))
        MPI_Issend(buf, n, MPI_BYTE, dest, 5, comm, rq);
    else if (!strcmp(mode, "irsend"))
        MPI_Irsend(buf, n, MPI_BYTE, dest, 5, comm, rq);
    else if (!strcmp(mode, "ibsend"))
        MPI_Ibsend(buf, n, MPI_BYTE, dest, 5, comm, rq);
    else if (!strcmp(mode, "psend") || !strcmp(mode, "pbsend")) {
        if (mode[1] == 'b')
            MPI_Bsend_init(buf, n, MPI_BYTE, dest, 5, comm, rq);
        else
            MPI_Send_init(buf, n, MPI_BYTE, dest, 5, comm, rq);
        MPI_Start(rq);
        *persistent = 1;
    } else {
        printf("FAIL unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Wait for the cancelled request; report whether it was cancelled. */
static int finish(MPI_Request *rq, int persistent, int rank, const char *op)
{
    MPI_Status st;
    int flag = -1;
    MPI_Wait(rq, &st);
    MPI_Test_cancelled(&st, &flag);
    printf("cx rank=%d op=%s t=%.17g\n", rank, op, MPI_Wtime());
    if (persistent) {
        if (*rq == MPI_REQUEST_NULL)
            printf("FAIL rank=%d persistent request freed by MPI_Wait\n", rank);
        MPI_Request_free(rq);
    } else if (*rq != MPI_REQUEST_NULL) {
        printf("FAIL rank=%d request not freed by MPI_Wait\n", rank);
    }
    return flag;
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4 || size != 2) {
        if (rank == 0)
            printf("FAIL usage: cancel_send SCENARIO MODE SIZE (2 ranks)\n");
        MPI_Finalize();
        return 2;
    }
    const char *scen = argv[1], *mode = argv[2];
    int n = atoi(argv[3]);
    unsigned char *buf = vt_malloc(n);
    vt_fill(buf, n, 5);
    int persistent, x = 0;
    MPI_Request rq;
    MPI_Status st;
    /* room for one buffered message */
    int room = n + MPI_BSEND_OVERHEAD;
    void *bb = vt_malloc(room);
    MPI_Buffer_attach(bb, room);
    if (!strcmp(scen, "unmatched")) {
        if (rank == 0) {
            for (int i = 0; i < 2; i++) {
                char op[16];
                snprintf(op, sizeof op, "cancel%d", i);
                start(mode, buf, n, 1, MPI_COMM_WORLD, &rq, &persistent);
                MPI_Cancel(&rq);
                if (finish(&rq, persistent, rank, op) != 1)
                    printf("FAIL rank=0 %s of %d bytes not cancelled\n", mode, n);
            }
            MPI_Send(&x, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
            printf("cx rank=0 op=end t=%.17g\n", MPI_Wtime());
        } else {
            MPI_Recv(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &st);
            printf("cx rank=1 op=end t=%.17g\n", MPI_Wtime());
            int flag = 1;
            MPI_Iprobe(0, 5, MPI_COMM_WORLD, &flag, &st);
            if (flag)
                printf("FAIL rank=1 a cancelled message is there\n");
        }
    } else if (!strcmp(scen, "matched")) {
        if (rank == 0) {
            start(mode, buf, n, 1, MPI_COMM_WORLD, &rq, &persistent);
            MPI_Recv(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &st);
            MPI_Cancel(&rq);
            if (finish(&rq, persistent, rank, "cancel0") != 0)
                printf("FAIL rank=0 a matched %s was cancelled\n", mode);
            MPI_Send(&x, 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
            printf("cx rank=0 op=end t=%.17g\n", MPI_Wtime());
        } else {
            unsigned char *r = vt_malloc(n);
            MPI_Recv(r, n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st);
            if (vt_check(r, n, 5) >= 0)
                printf("FAIL rank=1 data differs\n");
            MPI_Send(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, &st);
            printf("cx rank=1 op=end t=%.17g\n", MPI_Wtime());
        }
    } else if (!strcmp(scen, "self")) {
        if (rank == 0) {
            start(mode, buf, n, 0, MPI_COMM_SELF, &rq, &persistent);
            MPI_Cancel(&rq);
            if (finish(&rq, persistent, rank, "cancel0") != 1)
                printf("FAIL rank=0 %s to self not cancelled\n", mode);
            int flag = 1;
            MPI_Iprobe(0, 5, MPI_COMM_SELF, &flag, &st);
            if (flag)
                printf("FAIL rank=0 a cancelled message to self is there\n");
        }
    } else {
        printf("FAIL unknown scenario %s\n", scen);
    }
    void *b2;
    int s2;
    MPI_Buffer_detach(&b2, &s2);
    if (b2 != bb || s2 != room)
        printf("FAIL rank=%d detached %d bytes\n", rank, s2);
    free(bb);
    free(buf);
    MPI_Finalize();
    return 0;
}
