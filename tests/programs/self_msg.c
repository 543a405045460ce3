/* Messages from each rank to itself: for each SIZE, four ways of moving
 * SIZE bytes from a rank to itself, each checked for its data:
 *   case 0: MPI_Isend, MPI_Recv, MPI_Wait (the message is there first)
 *   case 1: MPI_Irecv, MPI_Send, MPI_Wait (the receive is posted first)
 *   case 2: MPI_Sendrecv
 *   case 3: MPI_Send (eager sizes only: a blocking send to oneself with no
 *           receive posted completes only when the library buffers it),
 *           then MPI_Recv
 * After each call the rank prints
 *   sm rank=R size=S case=C op=<call> t=<MPI_Wtime, %.17g>
 * usage: self_msg EAGER_LIMIT SIZE... */
#include <mpi.h>
#include "vtest.h"

static void check(const unsigned char *buf, long size, unsigned seed, const MPI_Status *st,
                  int me, int c)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (count != size || st->MPI_SOURCE != me)
        printf("FAIL rank=%d size=%ld case=%d count=%d source=%d\n", me, size, c, count,
               st->MPI_SOURCE);
    long bad = vt_check(buf, size, seed);
    if (bad >= 0)
        printf("FAIL rank=%d size=%ld case=%d data differs at byte %ld\n", me, size, c, bad);
}

static void stamp(int me, long size, int c, const char *op)
{
    printf("sm rank=%d size=%ld case=%d op=%s t=%.17g\n", me, size, c, op, MPI_Wtime());
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc < 3) {
        printf("FAIL usage: self_msg EAGER_LIMIT SIZE...\n");
        MPI_Finalize();
        return 2;
    }
    long eager = atol(argv[1]);
    for (int i = 2; i < argc; i++) {
        long size = atol(argv[i]);
        unsigned char *out = vt_malloc(size), *in = vt_malloc(size);
        for (int c = 0; c < 4; c++) {
            if (c == 3 && size > eager)
                continue;
            unsigned seed = (unsigned)(size * 7 + c * 13 + me);
            vt_fill(out, size, seed);
            MPI_Request rq;
            MPI_Status st;
            int tag = c + 10 * i;
            if (c == 0) {
                MPI_Isend(out, (int)size, MPI_BYTE, me, tag, MPI_COMM_WORLD, &rq);
                stamp(me, size, c, "isend");
                MPI_Recv(in, (int)size, MPI_BYTE, me, tag, MPI_COMM_WORLD, &st);
                stamp(me, size, c, "recv");
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
                stamp(me, size, c, "wait");
            } else if (c == 1) {
                MPI_Irecv(in, (int)size, MPI_BYTE, me, tag, MPI_COMM_WORLD, &rq);
                stamp(me, size, c, "irecv");
                MPI_Send(out, (int)size, MPI_BYTE, me, tag, MPI_COMM_WORLD);
                stamp(me, size, c, "send");
                MPI_Wait(&rq, &st);
                stamp(me, size, c, "wait");
            } else if (c == 2) {
                MPI_Sendrecv(out, (int)size, MPI_BYTE, me, tag, in, (int)size, MPI_BYTE, me, tag,
                             MPI_COMM_WORLD, &st);
                stamp(me, size, c, "sendrecv");
            } else {
                MPI_Send(out, (int)size, MPI_BYTE, me, tag, MPI_COMM_WORLD);
                stamp(me, size, c, "send");
                MPI_Recv(in, (int)size, MPI_BYTE, me, tag, MPI_COMM_WORLD, &st);
                stamp(me, size, c, "recv");
            }
            check(in, size, seed, &st, me, c);
        }
        free(out);
        free(in);
    }
    MPI_Finalize();
    return 0;
}
