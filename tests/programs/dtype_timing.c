/* Timing of a derived-datatype message (run with 2 ranks): rank 0 sends one
 * vector(1000, 1, 2, MPI_DOUBLE) (1000 doubles with a stride of 2: 8000
 * packed bytes) to rank 1, which receives it with the same type.
 *
 * Prints
 *   t rank=R op=send|recv t=<MPI_Wtime, %.17g>
 * and FAIL lines if the data are wrong. */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static double a[2000];
    MPI_Datatype vec;
    MPI_Type_vector(1000, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    if (rank == 0) {
        for (int i = 0; i < 2000; i++)
            a[i] = i;
        MPI_Send(a, 1, vec, 1, 0, MPI_COMM_WORLD);
        printf("t rank=0 op=send t=%.17g\n", MPI_Wtime());
    } else if (rank == 1) {
        for (int i = 0; i < 2000; i++)
            a[i] = -1;
        MPI_Status st;
        MPI_Recv(a, 1, vec, 0, 0, MPI_COMM_WORLD, &st);
        printf("t rank=1 op=recv t=%.17g\n", MPI_Wtime());
        int n = 0;
        MPI_Get_count(&st, MPI_BYTE, &n);
        if (n != 8000)
            printf("FAIL received %d bytes\n", n);
        for (int i = 0; i < 2000; i++)
            if (a[i] != (i % 2 == 0 ? i : -1)) {
                printf("FAIL a[%d] = %g\n", i, a[i]);
                break;
            }
    }
    MPI_Type_free(&vec);
    MPI_Finalize();
    return 0;
}
