/* MPI_Iprobe dispatch on tags.
 *
 * usage: nd_iprobe A_1 B_1 A_2 B_2 ... (microseconds, per rank 1..n-1)
 * rank j > 0: computes A_j us, sends 8 bytes with tag 1 ("work"), computes
 *             B_j us, sends 8 bytes with tag 2 ("done").
 * rank 0: until it has 2(n-1) messages: compute 4 us; MPI_Iprobe(ANY_SOURCE,
 *         ANY_TAG); if found, MPI_Recv from that source with that tag and
 *         dispatch on the tag.
 * Lines: nd rank=0 op=msg<k> src=S tag=T t=..., nd rank=R op=end t=... */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != 2 * n - 1) {
        if (rank == 0)
            printf("FAIL usage: nd_iprobe A_1 B_1 .. A_{n-1} B_{n-1}\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) {
        int works = 0, dones = 0;
        for (int k = 0; works + dones < 2 * (n - 1);) {
            MPIX_Vaced_compute(4e-6);
            int flag;
            MPI_Status st;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
            if (!flag)
                continue;
            double x;
            MPI_Recv(&x, 1, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            if (x != st.MPI_SOURCE * 10 + st.MPI_TAG)
                printf("FAIL value %g from %d tag %d\n", x, st.MPI_SOURCE, st.MPI_TAG);
            switch (st.MPI_TAG) {
            case 1: works++; break;
            case 2: dones++; break;
            default: printf("FAIL tag %d\n", st.MPI_TAG);
            }
            printf("nd rank=0 op=msg%d src=%d tag=%d t=%.17g\n", k++, st.MPI_SOURCE,
                   st.MPI_TAG, MPI_Wtime());
        }
    } else {
        for (int tag = 1; tag <= 2; tag++) {
            MPIX_Vaced_compute(atof(argv[2 * rank - 2 + tag]) * 1e-6);
            double x = rank * 10 + tag;
            MPI_Send(&x, 1, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD);
        }
    }
    printf("nd rank=%d op=end t=%.17g\n", rank, MPI_Wtime());
    MPI_Finalize();
    return 0;
}
