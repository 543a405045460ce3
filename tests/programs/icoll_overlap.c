/* Nonblocking collectives overlapping computation, at cpu.scale = 0.
 *
 * usage: icoll_overlap bcast|pbcast|barrier BYTES
 * Every rank starts the collective at virtual time 0 (MPI_Ibcast of BYTES
 * bytes from rank 0, the same as a persistent MPI_Bcast_init + MPI_Start
 * (pbcast), or MPI_Ibarrier), prints
 *   t rank=R op=start t=T     (MPI_Wtime after the starting call)
 * computes (virtually) c(r) = ((r * 37) % size + 1) * 10 us, waits, and
 * prints
 *   t rank=R op=wait t=T      (MPI_Wtime after MPI_Wait)
 * and checks the broadcast data. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int persistent = argc > 1 && strcmp(argv[1], "pbcast") == 0;
    int bcast = persistent || (argc > 1 && strcmp(argv[1], "bcast") == 0);
    int bytes = argc > 2 ? atoi(argv[2]) : 8;
    unsigned char *buf = malloc(bytes > 0 ? bytes : 1);
    vt_fill(buf, bytes, rank == 0 ? 5 : 6);
    MPI_Request req;
    if (persistent) {
        /* the init takes no virtual time: the Start at 0 */
        MPI_Bcast_init(buf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        MPI_Start(&req);
    } else if (bcast)
        MPI_Ibcast(buf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
    else
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
    printf("t rank=%d op=start t=%.17g\n", rank, MPI_Wtime());
    MPIX_Vaced_compute(((rank * 37) % size + 1) * 10e-6);
    MPI_Status st;
    MPI_Wait(&req, &st);
    printf("t rank=%d op=wait t=%.17g\n", rank, MPI_Wtime());
    if (persistent) {
        if (req == MPI_REQUEST_NULL)
            printf("FAIL rank=%d persistent request freed by MPI_Wait\n", rank);
        MPI_Request_free(&req);
    }
    if (req != MPI_REQUEST_NULL)
        printf("FAIL rank=%d request not freed\n", rank);
    if (bcast && vt_check(buf, bytes, 5) >= 0)
        printf("FAIL rank=%d broadcast data\n", rank);
    free(buf);
    MPI_Finalize();
    return 0;
}
