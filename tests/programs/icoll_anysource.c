/* MPI_ANY_SOURCE receives decided while nonblocking collectives are in
 * progress, at cpu.scale = 0.
 *
 * usage: icoll_anysource
 * Every rank starts an MPI_Ibcast of 8 bytes from rank 1 and an
 * MPI_Ibarrier. Rank 0 then receives one message from every other rank
 * with MPI_ANY_SOURCE and prints, in order,
 *   got src=S t=T          (MPI_Wtime after the receive)
 * Rank r > 0 computes (virtually) c(r) = ((r * 37) % size) us, waits for
 * the broadcast (inner tree nodes forward it only then), prints
 *   sent rank=R t=T        (MPI_Wtime before its send to rank 0)
 * and sends. Everyone then waits for the barrier and prints
 *   t rank=R op=end t=T */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char buf[8];
    vt_fill(buf, 8, rank == 1 ? 3 : 4);
    MPI_Request r[2];
    MPI_Ibcast(buf, 8, MPI_BYTE, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Ibarrier(MPI_COMM_WORLD, &r[1]);
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            int v;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            printf("got src=%d t=%.17g\n", st.MPI_SOURCE, MPI_Wtime());
            if (v != st.MPI_SOURCE)
                printf("FAIL payload %d from %d\n", v, st.MPI_SOURCE);
        }
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    } else {
        MPIX_Vaced_compute(((rank * 37) % size) * 1e-6);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        printf("sent rank=%d t=%.17g\n", rank, MPI_Wtime());
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    if (vt_check(buf, 8, 3) >= 0)
        printf("FAIL rank=%d broadcast data\n", rank);
    printf("t rank=%d op=end t=%.17g\n", rank, MPI_Wtime());
    MPI_Finalize();
    return 0;
}
