/* Wildcard-source receives among specific ones (non-overtaking), and a
 * wildcard receive cancelled before anything matched it.
 *
 * usage: nd_wildcard_order C1 C2 (seconds of computation of ranks 1 and 2)
 * Ranks 1 and 2 compute C1 / C2, then each sends two ints on tag 1
 * (100*rank, then 100*rank + 1). Rank 0 posts, in order: a receive from any
 * source, one from rank 1, one from rank 2 (all tag 1), waits for all, then
 * receives the fourth message from any source. Then it posts a receive from
 * any source on tag 9, cancels it and checks that it was cancelled.
 * Lines: nd rank=0 op=w|s1|s2|last val=V src=S t=..., nd rank=0 op=cancel
 * ok=1 t=..., and nd rank=R op=end t=... for every rank. */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double c1 = argc > 2 ? atof(argv[1]) : 30e-6, c2 = argc > 2 ? atof(argv[2]) : 10e-6;
    if (rank == 0) {
        int v[3] = { -1, -1, -1 }, last = -1;
        MPI_Request r[3];
        MPI_Status st[3], s;
        MPI_Irecv(&v[0], 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&v[1], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Irecv(&v[2], 1, MPI_INT, 2, 1, MPI_COMM_WORLD, &r[2]);
        MPI_Waitall(3, r, st);
        const char *name[3] = { "w", "s1", "s2" };
        for (int k = 0; k < 3; k++)
            printf("nd rank=0 op=%s val=%d src=%d t=%.17g\n", name[k], v[k], st[k].MPI_SOURCE,
                   MPI_Wtime());
        MPI_Recv(&last, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &s);
        printf("nd rank=0 op=last val=%d src=%d t=%.17g\n", last, s.MPI_SOURCE, MPI_Wtime());
        /* every message went where MPI's matching rules send it */
        int seen = v[0] + v[1] + v[2] + last;
        if (seen != 100 + 101 + 200 + 201 || v[1] / 100 != 1 || v[2] / 100 != 2 ||
            v[0] / 100 != st[0].MPI_SOURCE || last / 100 != s.MPI_SOURCE)
            printf("FAIL values %d %d %d %d\n", v[0], v[1], v[2], last);
        int x, cancelled = 0;
        MPI_Request c;
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &c);
        MPI_Cancel(&c);
        MPI_Wait(&c, &s);
        MPI_Test_cancelled(&s, &cancelled);
        printf("nd rank=0 op=cancel ok=%d t=%.17g\n", cancelled, MPI_Wtime());
    } else if (rank <= 2) {
        MPIX_Vaced_compute(rank == 1 ? c1 : c2);
        for (int k = 0; k < 2; k++) {
            int val = 100 * rank + k;
            MPI_Send(&val, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("nd rank=%d op=end t=%.17g\n", rank, MPI_Wtime());
    MPI_Finalize();
    return 0;
}
