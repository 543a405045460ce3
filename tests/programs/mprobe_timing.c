/* Matched probes in virtual time, ranks 0 and 1. Rank 0: MPI_Send of
 * EAGER bytes (tag 1), then of RDV bytes (tag 2). Rank 1: computes C1,
 * MPI_Mprobe(0, 1), computes C2, MPI_Mrecv; MPI_Improbe(0, 2) (the REQ is
 * there), computes C3, MPI_Imrecv + MPI_Wait. Probing MPI_PROC_NULL gives
 * MPI_MESSAGE_NO_PROC and a null-process receive.
 *
 * usage: mprobe_timing EAGER RDV C1 C2 C3
 * Lines: mp rank=R op=send1|send2|probe1|mrecv1|probe2|mrecv2 t=<MPI_Wtime>
 * Statuses and data are checked (FAIL lines). */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 6) {
        if (rank == 0)
            printf("FAIL usage: mprobe_timing EAGER RDV C1 C2 C3\n");
        MPI_Finalize();
        return 2;
    }
    long b1 = atol(argv[1]), b2 = atol(argv[2]);
    double c1 = atof(argv[3]), c2 = atof(argv[4]), c3 = atof(argv[5]);
    unsigned char *x = vt_malloc(b1), *y = vt_malloc(b2);
    if (rank == 0) {
        vt_fill(x, b1, 11);
        vt_fill(y, b2, 22);
        MPI_Send(x, (int)b1, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        printf("mp rank=0 op=send1 t=%.17g\n", MPI_Wtime());
        MPI_Send(y, (int)b2, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        printf("mp rank=0 op=send2 t=%.17g\n", MPI_Wtime());
    } else if (rank == 1) {
        MPI_Message msg = MPI_MESSAGE_NULL;
        MPI_Status st;
        int count = -1, flag = 0;
        /* MPI_PROC_NULL: MPI_MESSAGE_NO_PROC, received at once */
        MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st);
        if (msg != MPI_MESSAGE_NO_PROC || st.MPI_SOURCE != MPI_PROC_NULL)
            printf("FAIL probe of MPI_PROC_NULL: msg=%#x source=%d\n", msg, st.MPI_SOURCE);
        MPI_Mrecv(NULL, 0, MPI_BYTE, &msg, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (msg != MPI_MESSAGE_NULL || st.MPI_SOURCE != MPI_PROC_NULL || count != 0)
            printf("FAIL receive of MPI_MESSAGE_NO_PROC\n");

        MPIX_Vaced_compute(c1);
        MPI_Mprobe(0, 1, MPI_COMM_WORLD, &msg, &st);
        printf("mp rank=1 op=probe1 t=%.17g\n", MPI_Wtime());
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (count != b1 || st.MPI_SOURCE != 0 || st.MPI_TAG != 1 || msg == MPI_MESSAGE_NULL)
            printf("FAIL probe1 count=%d source=%d tag=%d\n", count, st.MPI_SOURCE, st.MPI_TAG);
        /* the matched message is out of matching: no other receive sees it */
        MPI_Iprobe(0, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag)
            printf("FAIL a matched message is still visible to MPI_Iprobe\n");
        MPIX_Vaced_compute(c2);
        MPI_Mrecv(x, (int)b1, MPI_BYTE, &msg, &st);
        printf("mp rank=1 op=mrecv1 t=%.17g\n", MPI_Wtime());
        if (vt_check(x, b1, 11) >= 0 || msg != MPI_MESSAGE_NULL)
            printf("FAIL mrecv1 data\n");

        MPI_Improbe(0, 2, MPI_COMM_WORLD, &flag, &msg, &st);
        printf("mp rank=1 op=probe2 t=%.17g\n", MPI_Wtime());
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (!flag || count != b2 || st.MPI_TAG != 2)
            printf("FAIL probe2 flag=%d count=%d\n", flag, count);
        MPIX_Vaced_compute(c3);
        MPI_Request r;
        MPI_Imrecv(y, (int)b2, MPI_BYTE, &msg, &r);
        MPI_Wait(&r, &st);
        printf("mp rank=1 op=mrecv2 t=%.17g\n", MPI_Wtime());
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (vt_check(y, b2, 22) >= 0 || count != b2 || st.MPI_SOURCE != 0)
            printf("FAIL mrecv2 data or status (count=%d)\n", count);
    }
    free(x);
    free(y);
    MPI_Finalize();
    return 0;
}
