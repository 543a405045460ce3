/* An erroneous call: rank 1 calls MPI_Send to rank 99 (of 4).
 *
 * usage: bad_rank fatal|return
 *   fatal:  default error handler MPI_ERRORS_ARE_FATAL: the job must end.
 *   return: MPI_ERRORS_RETURN on MPI_COMM_WORLD: the call returns an error
 *           whose class (MPI_ERR_RANK) rank 1 prints as
 *             err rank=1 class=C ok=0|1
 *           then it carries on and tells the others it is done.
 * The other ranks wait in MPI_Recv for rank 1's "done" message. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, nranks, x = 42;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (rank == 1) {
        if (argc > 1 && strcmp(argv[1], "return") == 0)
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
        int cls = -1, len = 0;
        char msg[MPI_MAX_ERROR_STRING];
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, msg, &len);
        printf("err rank=1 class=%d ok=%d len=%d\n", cls, cls == MPI_ERR_RANK, len);
        printf("errstring %s\n", msg);
        for (int r = 0; r < nranks; r++)
            if (r != 1)
                MPI_Send(&x, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("done rank=%d x=%d\n", rank, x);
    }
    MPI_Finalize();
    return 0;
}
