/* MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): the ranks on my target node.
 *
 * usage: comm_split_type
 * Lines: node rank=R newrank=X newsize=N got=W
 *   (key = -R: reversed order within the node; W: world rank received from
 *   the left neighbour in the node communicator)
 *        undef rank=R null=1|0   (split_type MPI_UNDEFINED gives MPI_COMM_NULL)
 *        hw rank=R guided=N unguided=N resource=S inner=1|0
 *   (MPI-4: the sizes of the MPI_COMM_TYPE_HW_GUIDED split with
 *   "mpi_shared_memory" and of the MPI_COMM_TYPE_HW_UNGUIDED split of
 *   MPI_COMM_WORLD, the resource type the latter writes in its info; inner:
 *   the unguided split of the node communicator is MPI_COMM_NULL) */
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

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
    MPI_Comm g, u, inner;
    int gn = -1, un = -1, flag = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &g);
    MPI_Comm_size(g, &gn);
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, info, &u);
    MPI_Comm_size(u, &un);
    char res[64] = "none";
    MPI_Info_get(info, "mpi_hw_resource_type", 63, res, &flag);
    MPI_Comm_split_type(node, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &inner);
    printf("hw rank=%d guided=%d unguided=%d resource=%s inner=%d\n", rank, gn, un, res,
           inner == MPI_COMM_NULL);
    MPI_Info_free(&info);
    MPI_Comm_free(&g);
    MPI_Comm_free(&u);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
