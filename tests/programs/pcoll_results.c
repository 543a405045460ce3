/* Persistent collectives (MPI-4): each MPI_Start runs the collective on the
 * buffers' contents at that moment, MPI_Wait leaves the request inactive
 * (restartable), MPI_Startall starts several, a Wait on an inactive one
 * returns at once, MPI_Request_free frees it; argument errors come at the
 * init call; persistent collectives match by the order of their init
 * calls, so ranks may start them in different orders.
 *
 * usage: pcoll_results   (any number of ranks)
 * Prints `ok rank=R` when every check passed, `FAIL ...` lines otherwise. */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, size, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int in[3], out[3];
    MPI_Request ar;
    MPI_Allreduce_init(in, out, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ar);
    for (int round = 0; round < 3; round++) {
        for (int k = 0; k < 3; k++)
            in[k] = (rank + 1) * (round + 1) + k;
        MPI_Start(&ar);
        MPI_Wait(&ar, MPI_STATUS_IGNORE);
        for (int k = 0; k < 3; k++) {
            int want = (round + 1) * size * (size + 1) / 2 + k * size;
            if (out[k] != want) {
                printf("FAIL rank=%d allreduce round=%d k=%d got=%d want=%d\n", rank, round, k,
                       out[k], want);
                errs++;
            }
        }
        if (ar == MPI_REQUEST_NULL) {
            printf("FAIL rank=%d the persistent request was freed\n", rank);
            return 1;
        }
    }
    /* an inactive persistent request completes at once */
    int flag = 0;
    MPI_Test(&ar, &flag, MPI_STATUS_IGNORE);
    if (!flag) {
        printf("FAIL rank=%d test on an inactive request\n", rank);
        errs++;
    }

    int root = size - 1, v = -1;
    MPI_Request two[2];
    MPI_Bcast_init(&v, 1, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &two[0]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &two[1]);
    for (int round = 0; round < 2; round++) {
        if (rank == root)
            v = 100 + round;
        MPI_Startall(2, two);
        MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
        if (v != 100 + round) {
            printf("FAIL rank=%d bcast round=%d got=%d\n", rank, round, v);
            errs++;
        }
    }
    /* started in another order on rank 0 than on the others */
    if (rank == root)
        v = 7;
    if (rank == 0) {
        MPI_Start(&two[1]);
        MPI_Start(&two[0]);
    } else {
        MPI_Start(&two[0]);
        MPI_Start(&two[1]);
    }
    MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
    if (v != 7) {
        printf("FAIL rank=%d bcast started out of order got=%d\n", rank, v);
        errs++;
    }
    /* starting an active request is an error */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Start(&two[1]);
    int rc = MPI_Start(&two[1]), cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_REQUEST) {
        printf("FAIL rank=%d second start class=%d\n", rank, cls);
        errs++;
    }
    MPI_Wait(&two[1], MPI_STATUS_IGNORE);

    /* gather with a persistent request, then free it */
    int *all = vt_malloc(sizeof(int) * size), mine = rank * 7;
    MPI_Request g;
    MPI_Gather_init(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &g);
    MPI_Start(&g);
    MPI_Wait(&g, MPI_STATUS_IGNORE);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            if (all[r] != r * 7) {
                printf("FAIL rank=0 gather r=%d got=%d\n", r, all[r]);
                errs++;
            }

    /* errors come at the init call */
    MPI_Request bad;
    rc = MPI_Bcast_init(&v, -1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bad);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_COUNT) {
        printf("FAIL rank=%d negative count class=%d\n", rank, cls);
        errs++;
    }
    rc = MPI_Bcast_init(&v, 1, MPI_INT, size, MPI_COMM_WORLD, MPI_INFO_NULL, &bad);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_ROOT) {
        printf("FAIL rank=%d bad root class=%d\n", rank, cls);
        errs++;
    }

    MPI_Request_free(&ar);
    MPI_Request_free(&two[0]);
    MPI_Request_free(&two[1]);
    MPI_Request_free(&g);
    if (ar != MPI_REQUEST_NULL || g != MPI_REQUEST_NULL) {
        printf("FAIL rank=%d request_free\n", rank);
        errs++;
    }
    free(all);
    if (!errs)
        printf("ok rank=%d\n", rank);
    MPI_Finalize();
    return 0;
}
