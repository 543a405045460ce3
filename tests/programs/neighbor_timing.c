/* Timing of MPI_Neighbor_alltoall on a 1-D periodic Cartesian grid of
 * all ranks. usage: neighbor_timing BYTES START
 * Every rank aligns its clock at START seconds (MPIX_Vaced_compute), then
 * runs one MPI_Neighbor_alltoall of BYTES bytes per block and prints
 *   nt rank=R t0=T0 t1=T1
 * (MPI_Wtime before and after, %.17g). The data is checked (FAIL lines). */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long b = atol(argv[1]);
    double start = atof(argv[2]);
    int dims[1] = { size }, periods[1] = { 1 };
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    int left, right;
    MPI_Cart_shift(cart, 0, 1, &left, &right);
    unsigned char *send = vt_malloc(2 * b), *recv = vt_malloc(2 * b);
    vt_fill(send, b, 10 * rank);         /* to the left neighbour */
    vt_fill(send + b, b, 10 * rank + 1); /* to the right neighbour */
    MPIX_Vaced_compute(start - MPI_Wtime());
    double t0 = MPI_Wtime();
    MPI_Neighbor_alltoall(send, (int)b, MPI_BYTE, recv, (int)b, MPI_BYTE, cart);
    double t1 = MPI_Wtime();
    /* block 0 from the left neighbour: what it sent to its right one */
    if (vt_check(recv, b, 10 * left + 1) >= 0 || vt_check(recv + b, b, 10 * right) >= 0)
        printf("FAIL rank=%d wrong data\n", rank);
    printf("nt rank=%d t0=%.17g t1=%.17g\n", rank, t0, t1);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
