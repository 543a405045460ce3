/* A polling loop of MPI_Test between computations.
 *
 * usage: nd_testpoll SEND_AFTER_US [HOST_DELAY_MS]
 * rank 1: computes SEND_AFTER_US of virtual time (after sleeping
 *         HOST_DELAY_MS on the host, which costs no virtual time), sends 8
 *         bytes to rank 0, then receives 8 bytes back.
 * rank 0: MPI_Irecv from rank 1, then { compute 5 us; MPI_Test } until done,
 *         then sends 8 bytes back.
 * Lines: nd rank=0 op=polls n=N t=..., nd rank=R op=end t=... */
#include <mpi.h>
#include <unistd.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double after = (argc > 1 ? atof(argv[1]) : 23) * 1e-6;
    int delay_ms = argc > 2 ? atoi(argv[2]) : 0;
    double x = 1.5;
    if (rank == 0) {
        MPI_Request r;
        MPI_Irecv(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r);
        int flag = 0, polls = 0;
        while (!flag) {
            MPIX_Vaced_compute(5e-6);
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            polls++;
        }
        printf("nd rank=0 op=polls n=%d t=%.17g\n", polls, MPI_Wtime());
        MPI_Send(&x, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        if (delay_ms > 0)
            usleep(delay_ms * 1000);
        MPIX_Vaced_compute(after);
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    printf("nd rank=%d op=end t=%.17g\n", rank, MPI_Wtime());
    MPI_Finalize();
    return 0;
}
