/* Ping-pong between rank 0 and rank PEER: for each SIZE in turn, REPS round
 * trips of SIZE bytes with blocking MPI_Send / MPI_Recv. The other ranks only
 * call MPI_Init and MPI_Finalize.
 *
 * usage: pingpong PEER REPS SIZE...
 *
 * After each call, the two ranks print
 *   pp rank=R size=S rep=I op=send|recv t=<MPI_Wtime, %.17g>
 * The data are checked: rank 0 sends pattern (S, I, 0), PEER checks it and
 * answers with pattern (S, I, PEER); a mismatch prints a FAIL line. */
#include <mpi.h>
#include "vtest.h"

static unsigned seed_of(long size, int rep, int rank)
{
    return (unsigned)(size * 31 + rep * 7 + rank * 1000003);
}

static void check_recv(const unsigned char *buf, long size, int rep, int from,
                       int tag, const MPI_Status *st, int me)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (count != size || st->MPI_SOURCE != from || st->MPI_TAG != tag)
        printf("FAIL rank=%d size=%ld rep=%d status count=%d source=%d tag=%d\n", me, size,
               rep, count, st->MPI_SOURCE, st->MPI_TAG);
    long bad = vt_check(buf, size, seed_of(size, rep, from));
    if (bad >= 0)
        printf("FAIL rank=%d size=%ld rep=%d data differs at byte %ld\n", me, size, rep, bad);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 4) {
        if (rank == 0)
            printf("FAIL usage: pingpong PEER REPS SIZE...\n");
        MPI_Finalize();
        return 2;
    }
    int peer = atoi(argv[1]);
    int reps = atoi(argv[2]);
    if (peer <= 0 || peer >= nranks) {
        if (rank == 0)
            printf("FAIL peer %d out of range for %d ranks\n", peer, nranks);
        MPI_Finalize();
        return 2;
    }
    if (rank == 0 || rank == peer) {
        long max = 0;
        for (int a = 3; a < argc; a++)
            if (atol(argv[a]) > max)
                max = atol(argv[a]);
        unsigned char *sbuf = vt_malloc(max), *rbuf = vt_malloc(max);
        int other = rank == 0 ? peer : 0;
        for (int a = 3; a < argc; a++) {
            long size = atol(argv[a]);
            for (int rep = 0; rep < reps; rep++) {
                int tag = a * 100 + rep;
                MPI_Status st;
                vt_fill(sbuf, size, seed_of(size, rep, rank));
                if (rank == 0) {
                    MPI_Send(sbuf, (int)size, MPI_BYTE, other, tag, MPI_COMM_WORLD);
                    printf("pp rank=%d size=%ld rep=%d op=send t=%.17g\n", rank, size, rep, MPI_Wtime());
                    MPI_Recv(rbuf, (int)size, MPI_BYTE, other, tag, MPI_COMM_WORLD, &st);
                    printf("pp rank=%d size=%ld rep=%d op=recv t=%.17g\n", rank, size, rep, MPI_Wtime());
                } else {
                    MPI_Recv(rbuf, (int)size, MPI_BYTE, other, tag, MPI_COMM_WORLD, &st);
                    printf("pp rank=%d size=%ld rep=%d op=recv t=%.17g\n", rank, size, rep, MPI_Wtime());
                    MPI_Send(sbuf, (int)size, MPI_BYTE, other, tag, MPI_COMM_WORLD);
                    printf("pp rank=%d size=%ld rep=%d op=send t=%.17g\n", rank, size, rep, MPI_Wtime());
                }
                check_recv(rbuf, size, rep, other, tag, &st, rank);
            }
        }
        free(sbuf);
        free(rbuf);
    }
    MPI_Finalize();
    return 0;
}
