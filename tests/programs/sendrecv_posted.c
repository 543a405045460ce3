/* MPI_Sendrecv posts its receive before it starts its send (as MPICH's
 * MPIR_Sendrecv_impl does): run at cpu.scale = 0 on 2 ranks.
 *
 * usage: sendrecv_posted
 * Rank 0 sends 4 bytes with tag 2, computes 1 us, sends 4 bytes with tag 1
 * and receives 4 bytes with tag 3. Rank 1 receives tag 1 (the tag-2
 * message reaches it during that wait and is queued unexpected), then
 * MPI_Sendrecv: sends tag 3, receives tag 2 (already unexpected).
 * Lines: t rank=R op=end t=<MPI_Wtime at the end, %.17g>
 *        FAIL ... when a value is wrong. */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, a = 0, b = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int two = 2, one = 1;
        MPI_Send(&two, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        MPIX_Vaced_compute(1e-6);
        MPI_Send(&one, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(&a, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (a != 3)
            printf("FAIL rank=0 got %d\n", a);
    } else if (rank == 1) {
        int three = 3;
        MPI_Recv(&a, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&three, 1, MPI_INT, 0, 3, &b, 1, MPI_INT, 0, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (a != 1 || b != 2)
            printf("FAIL rank=1 got %d %d\n", a, b);
    }
    printf("t rank=%d op=end t=%.17g\n", rank, MPI_Wtime());
    MPI_Finalize();
    return 0;
}
