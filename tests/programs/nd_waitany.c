/* MPI_Waitany over receives from several partners.
 *
 * usage: nd_waitany US_1 US_2 ... (one per rank 1..n-1)
 * rank j > 0: computes US_j microseconds, sends 8 bytes to rank 0.
 * rank 0: MPI_Irecv from each j, then MPI_Waitany n-1 times.
 * Lines: nd rank=0 op=any<k> src=S t=..., nd rank=R op=end t=... */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double v[64];
    MPI_Request r[64];
    if (n > 64 || argc != n) {
        if (rank == 0)
            printf("FAIL usage: nd_waitany US_1 .. US_{n-1} (n <= 64)\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) {
        for (int j = 1; j < n; j++)
            MPI_Irecv(&v[j], 1, MPI_DOUBLE, j, 0, MPI_COMM_WORLD, &r[j - 1]);
        for (int k = 0; k < n - 1; k++) {
            int idx;
            MPI_Status st;
            MPI_Waitany(n - 1, r, &idx, &st);
            printf("nd rank=0 op=any%d src=%d t=%.17g\n", k, st.MPI_SOURCE, MPI_Wtime());
            if (idx + 1 != st.MPI_SOURCE || v[idx + 1] != (double)st.MPI_SOURCE)
                printf("FAIL index %d source %d value %g\n", idx, st.MPI_SOURCE, v[idx + 1]);
        }
    } else {
        MPIX_Vaced_compute(atof(argv[rank]) * 1e-6);
        double x = rank;
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
    printf("nd rank=%d op=end t=%.17g\n", rank, MPI_Wtime());
    MPI_Finalize();
    return 0;
}
