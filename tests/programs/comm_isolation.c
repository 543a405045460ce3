/* Messages between the same two processes on different communicators do
 * not mix, and statuses give ranks of the receiving communicator.
 *
 * usage: comm_isolation   (at least 2 ranks)
 * W = MPI_COMM_WORLD, D = its dup, R = split of W reversing the ranks.
 * World rank 0 sends an int with tag 7 on D (100), R (200), W (300), in that
 * order; world rank 1 receives with MPI_ANY_SOURCE / MPI_ANY_TAG on W, then
 * R, then D. Then world rank 1 sends 300000 bytes (rendezvous) to world
 * rank 0 on R.
 * Lines: iso comm=W|R|D value=V source=S tag=T   (printed by world rank 1)
 *        big source=S count=C                   (printed by world rank 0) */
#include <mpi.h>
#include "vtest.h"

#define BIG 300000

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm d, r;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &r);
    int v;
    MPI_Status st;
    if (rank == 0) {
        v = 100;
        MPI_Send(&v, 1, MPI_INT, 1, 7, d);
        v = 200;
        MPI_Send(&v, 1, MPI_INT, size - 2, 7, r);
        v = 300;
        MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Comm comms[3] = {MPI_COMM_WORLD, r, d};
        const char *names[3] = {"W", "R", "D"};
        for (int i = 0; i < 3; i++) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[i], &st);
            printf("iso comm=%s value=%d source=%d tag=%d\n", names[i], v, st.MPI_SOURCE,
                   st.MPI_TAG);
        }
    }
    unsigned char *buf = vt_malloc(BIG);
    if (rank == 1) {
        vt_fill(buf, BIG, 55);
        MPI_Send(buf, BIG, MPI_BYTE, size - 1, 8, r);
    } else if (rank == 0) {
        MPI_Recv(buf, BIG, MPI_BYTE, MPI_ANY_SOURCE, 8, r, &st);
        int count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        printf("big source=%d count=%d\n", st.MPI_SOURCE, count);
        long bad = vt_check(buf, BIG, 55);
        if (bad >= 0)
            printf("FAIL big message differs at byte %ld\n", bad);
    }
    free(buf);
    MPI_Comm_free(&d);
    MPI_Comm_free(&r);
    MPI_Finalize();
    return 0;
}
