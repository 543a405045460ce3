/* Sends to itself, received with MPI_ANY_SOURCE.
 *
 * Every rank r: MPI_Isend 8 bytes to r+1 (mod n), tag 1; computes 1 us;
 * MPI_Isend 8 bytes to itself, tag 2; then two MPI_Recv(MPI_ANY_SOURCE,
 * MPI_ANY_TAG); then MPI_Waitall on its sends.
 * Lines: nd rank=R op=recv<k> src=S tag=T t=..., nd rank=R op=end t=... */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double out[2] = {rank * 10 + 1, rank * 10 + 2}, in;
    MPI_Request r[2];
    MPI_Isend(&out[0], 1, MPI_DOUBLE, (rank + 1) % n, 1, MPI_COMM_WORLD, &r[0]);
    MPIX_Vaced_compute(1e-6);
    MPI_Isend(&out[1], 1, MPI_DOUBLE, rank, 2, MPI_COMM_WORLD, &r[1]);
    for (int k = 0; k < 2; k++) {
        MPI_Status st;
        MPI_Recv(&in, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (in != st.MPI_SOURCE * 10 + st.MPI_TAG)
            printf("FAIL value %g from %d tag %d\n", in, st.MPI_SOURCE, st.MPI_TAG);
        printf("nd rank=%d op=recv%d src=%d tag=%d t=%.17g\n", rank, k, st.MPI_SOURCE,
               st.MPI_TAG, MPI_Wtime());
    }
    MPI_Status sts[2];
    MPI_Waitall(2, r, sts);
    printf("nd rank=%d op=end t=%.17g\n", rank, MPI_Wtime());
    MPI_Finalize();
    return 0;
}
