/* MPI_Dims_create.
 *
 * usage: comm_dims NNODES NDIMS D1 D2 ...     (one rank)
 * Line: dims rc=RC v=LIST     (LIST: dims after the call, comma separated) */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* several cases per run: NNODES NDIMS D1..Dn, repeated */
    int at = 1;
    while (at + 1 < argc) {
        int nnodes = atoi(argv[at]), nd = atoi(argv[at + 1]);
        int dims[32];
        for (int i = 0; i < nd; i++)
            dims[i] = atoi(argv[at + 2 + i]);
        int rc = MPI_Dims_create(nnodes, nd, dims);
        printf("dims n=%d nd=%d rc=%d v=", nnodes, nd, rc);
        for (int i = 0; i < nd; i++)
            printf("%s%d", i ? "," : "", dims[i]);
        printf("%s\n", nd ? "" : "-");
        at += 2 + nd;
    }
    MPI_Finalize();
    return 0;
}
