/* pingpong.c's schedule through vaced's engine API (include/vaced_engine.h)
 * instead of MPI: what a library that moves the data itself (mpich-patch/)
 * asks the engine, with lengths only. Prints pingpong.c's lines; its
 * predictions must be pingpong.c's to the picosecond.
 *
 * usage: engine_pingpong PEER REPS SIZE... */
#include <stdio.h>
#include <stdlib.h>
#include <vaced_engine.h>

#define CHECK(x)                                                                  \
    do {                                                                          \
        if ((x) < 0) {                                                            \
            printf("FAIL %s: %s\n", #x, vaced_eng_error());                       \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

/* MPI_Send / MPI_Recv as vaced's library makes them: one call, a request
 * started and waited for. */
static void eng_send(int dest, int tag, long size)
{
    CHECK(vaced_eng_enter("MPI_Send"));
    int64_t r = vaced_eng_isend(dest, tag, 0, (uint64_t)size, VACED_ENG_STANDARD);
    CHECK(r);
    CHECK(vaced_eng_wait(r, NULL));
    CHECK(vaced_eng_leave());
}

static void eng_recv(int src, int tag, long size, int me)
{
    vaced_eng_status st;
    CHECK(vaced_eng_enter("MPI_Recv"));
    int64_t r = vaced_eng_irecv(src, tag, 0, (uint64_t)size);
    CHECK(r);
    CHECK(vaced_eng_wait(r, &st));
    CHECK(vaced_eng_leave());
    if (st.source != src || st.tag != tag || st.bytes != (uint64_t)size)
        printf("FAIL rank=%d status source=%d tag=%d bytes=%llu\n", me, st.source, st.tag,
               (unsigned long long)st.bytes);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (vaced_eng_init() != 0) {
        printf("FAIL vaced_eng_init: %s\n", vaced_eng_error());
        return 1;
    }
    int rank = vaced_eng_rank(), nranks = vaced_eng_size();
    int peer = argc > 1 ? atoi(argv[1]) : 0, reps = argc > 2 ? atoi(argv[2]) : 0;
    if (argc < 4 || peer <= 0 || peer >= nranks) {
        if (rank == 0)
            printf("FAIL usage: engine_pingpong PEER REPS SIZE...\n");
        vaced_eng_finalize();
        return 2;
    }
    if (rank == 0 || rank == peer) {
        int other = rank == 0 ? peer : 0;
        for (int a = 3; a < argc; a++) {
            long size = atol(argv[a]);
            for (int rep = 0; rep < reps; rep++) {
                int tag = a * 100 + rep;
                if (rank == 0) {
                    eng_send(other, tag, size);
                    printf("pp rank=%d size=%ld rep=%d op=send t=%.17g\n", rank, size, rep,
                           vaced_eng_wtime());
                    eng_recv(other, tag, size, rank);
                    printf("pp rank=%d size=%ld rep=%d op=recv t=%.17g\n", rank, size, rep,
                           vaced_eng_wtime());
                } else {
                    eng_recv(other, tag, size, rank);
                    printf("pp rank=%d size=%ld rep=%d op=recv t=%.17g\n", rank, size, rep,
                           vaced_eng_wtime());
                    eng_send(other, tag, size);
                    printf("pp rank=%d size=%ld rep=%d op=send t=%.17g\n", rank, size, rep,
                           vaced_eng_wtime());
                }
            }
        }
    }
    CHECK(vaced_eng_finalize());
    return 0;
}
