/* A send whose receiver is computing when the message (or its REQ) arrives.
 *
 * usage: late_receiver PEER MODE BYTES COMPUTE_SECONDS
 *   MODE = send (MPI_Send) or ssend (MPI_Ssend: always rendezvous)
 *
 * rank 0:    MPI_Send/MPI_Ssend of BYTES to PEER, prints op=send
 * rank PEER: MPI_Irecv, MPIX_Vaced_compute(COMPUTE_SECONDS), prints
 *            op=compute, MPI_Wait, prints op=wait, checks the data.
 * Lines: rc rank=R op=OP t=<MPI_Wtime, %.17g> */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 5) {
        if (rank == 0)
            printf("FAIL usage: late_receiver PEER send|ssend BYTES COMPUTE_SECONDS\n");
        MPI_Finalize();
        return 2;
    }
    int peer = atoi(argv[1]);
    int sync = strcmp(argv[2], "ssend") == 0;
    long size = atol(argv[3]);
    double compute = atof(argv[4]);
    unsigned seed = 12345u + (unsigned)size;
    unsigned char *buf = vt_malloc(size);
    if (rank == 0) {
        vt_fill(buf, size, seed);
        if (sync)
            MPI_Ssend(buf, (int)size, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
        else
            MPI_Send(buf, (int)size, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
        printf("rc rank=%d op=send t=%.17g\n", rank, MPI_Wtime());
    } else if (rank == peer) {
        MPI_Request req;
        MPI_Status st;
        memset(buf, 0, size);
        MPI_Irecv(buf, (int)size, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &req);
        MPIX_Vaced_compute(compute);
        printf("rc rank=%d op=compute t=%.17g\n", rank, MPI_Wtime());
        MPI_Wait(&req, &st);
        printf("rc rank=%d op=wait t=%.17g\n", rank, MPI_Wtime());
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (count != size || st.MPI_SOURCE != 0 || st.MPI_TAG != 5 || req != MPI_REQUEST_NULL)
            printf("FAIL rank=%d status count=%d source=%d tag=%d\n", rank, count, st.MPI_SOURCE,
                   st.MPI_TAG);
        long bad = vt_check(buf, size, seed);
        if (bad >= 0)
            printf("FAIL rank=%d data differs at byte %ld\n", rank, bad);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
