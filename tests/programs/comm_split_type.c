/* MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): the ranks on my target node.
 *
 * usage: comm_split_type
 * Lines: node rank=R newrank=X newsize=N got=W
 *   (key = -R: reversed order within the node; W: world rank received from
 *   the left neighbour in the node communicator)
 *        undef rank=R null=1|0   (split_type MPI_UNDEFINED gives MPI_COMM_NULL) */
#include <mpi.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm node, none;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &node);
    int r, n, got = -1;
    MPI_Comm_rank(node, &r);
    MPI_Comm_size(node, &n);
    MPI_Sendrecv(&rank, 1, MPI_INT, (r + 1) % n, 1, &got, 1, MPI_INT, (r + n - 1) % n, 1, node,
                 MPI_STATUS_IGNORE);
    printf("node rank=%d newrank=%d newsize=%d got=%d\n", rank, r, n, got);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &none);
    printf("undef rank=%d null=%d\n", rank, none == MPI_COMM_NULL);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
