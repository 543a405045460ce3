/* Master/worker with MPI_ANY_SOURCE receives.
 *
 * usage: nd_master NTASKS
 * rank 0 hands task 0..NTASKS-1 out (one int, tag 2): first one to each
 * worker in rank order, then each new task to the worker whose result it
 * receives (MPI_Recv from MPI_ANY_SOURCE, tag 1); -1 stops a worker.
 * Worker w computes ((task*7 + w*3) % 5 + 1) * 10 us of virtual time per task
 * and sends back one int.
 * Lines: nd rank=0 op=got<k> src=S t=... (k-th result), and
 *        nd rank=R op=end t=... for every rank. */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int ntasks = argc > 1 ? atoi(argv[1]) : 10;
    if (rank == 0) {
        int next = 0;
        for (int w = 1; w < n; w++) {
            int task = next < ntasks ? next++ : -1;
            MPI_Send(&task, 1, MPI_INT, w, 2, MPI_COMM_WORLD);
        }
        int busy = 0;
        for (int w = 1; w < n; w++)
            busy += (w - 1) < ntasks;
        for (int k = 0; busy > 0; k++) {
            int res;
            MPI_Status st;
            MPI_Recv(&res, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
            printf("nd rank=0 op=got%d src=%d t=%.17g\n", k, st.MPI_SOURCE, MPI_Wtime());
            if (res != st.MPI_SOURCE * 1000 + res % 1000 || res / 1000 != st.MPI_SOURCE)
                printf("FAIL result %d from %d\n", res, st.MPI_SOURCE);
            int task = next < ntasks ? next++ : -1;
            if (task < 0)
                busy--;
            MPI_Send(&task, 1, MPI_INT, st.MPI_SOURCE, 2, MPI_COMM_WORLD);
        }
    } else {
        for (;;) {
            int task;
            MPI_Recv(&task, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (task < 0)
                break;
            MPIX_Vaced_compute(((task * 7 + rank * 3) % 5 + 1) * 10e-6);
            int res = rank * 1000 + task;
            MPI_Send(&res, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        }
    }
    printf("nd rank=%d op=end t=%.17g\n", rank, MPI_Wtime());
    MPI_Finalize();
    return 0;
}
