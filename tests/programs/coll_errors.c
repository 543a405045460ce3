/* Erroneous collective calls.
 *
 * usage: coll_errors return
 *   MPI_ERRORS_RETURN on MPI_COMM_WORLD; every rank makes a list of
 *   erroneous calls (each one detected locally, on every rank, before any
 *   communication) and prints for each
 *     err case=NAME class=C
 *   then runs a correct MPI_Allreduce and prints
 *     after rank=R sum=S
 * usage: coll_errors fatal bcast|allreduce
 *   default handler (MPI_ERRORS_ARE_FATAL): rank 1 calls MPI_Bcast with root
 *   99, or MPI_Allreduce with MPI_MAXLOC on MPI_INT; the others wait in
 *   MPI_Barrier. The job must end, naming the call. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static void report(const char *name, int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    printf("err case=%s class=%d\n", name, cls);
}

static void nop(void *a, void *b, int *len, MPI_Datatype *dt)
{
    (void)a, (void)b, (void)len, (void)dt;
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int a[64] = {0}, b[64] = {0};
    MPI_Comm w = MPI_COMM_WORLD;

    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        if (rank == 1) {
            if (argc > 2 && strcmp(argv[2], "allreduce") == 0)
                MPI_Allreduce(a, b, 4, MPI_INT, MPI_MAXLOC, w);
            else
                MPI_Bcast(a, 4, MPI_INT, 99, w);
            printf("returned rank=1\n");
        }
        MPI_Barrier(w);
        MPI_Finalize();
        return 0;
    }

    MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN);
    int next = (rank + 1) % np;
    int counts[64], displs[64];
    for (int i = 0; i < np; i++)
        counts[i] = 1, displs[i] = i;
    counts[np - 1] = -2;

    report("bcast_count", MPI_Bcast(a, -1, MPI_INT, 0, w));
    report("bcast_type_null", MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, w));
    report("bcast_type_invalid", MPI_Bcast(a, 1, (MPI_Datatype)0x4c00ff77, 0, w));
    report("bcast_root", MPI_Bcast(a, 1, MPI_INT, np, w));
    report("bcast_root_negative", MPI_Bcast(a, 1, MPI_INT, -1, w));
    report("bcast_comm_null", MPI_Bcast(a, 1, MPI_INT, 0, MPI_COMM_NULL));
    report("bcast_buffer", MPI_Bcast(NULL, 1, MPI_INT, 0, w));
    report("barrier_comm", MPI_Barrier((MPI_Comm)12345));
    report("allreduce_op_null", MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, w));
    report("allreduce_maxloc_int", MPI_Allreduce(a, b, 1, MPI_INT, MPI_MAXLOC, w));
    report("allreduce_sum_2int", MPI_Allreduce(a, b, 1, MPI_2INT, MPI_SUM, w));
    report("allreduce_replace", MPI_Allreduce(a, b, 1, MPI_INT, MPI_REPLACE, w));
    report("allreduce_band_float", MPI_Allreduce(a, b, 1, MPI_FLOAT, MPI_BAND, w));
    report("allreduce_null_sendbuf", MPI_Allreduce(NULL, b, 1, MPI_INT, MPI_SUM, w));
    report("allreduce_aliased", MPI_Allreduce(a, a, 1, MPI_INT, MPI_SUM, w));
    report("allreduce_count", MPI_Allreduce(a, b, -3, MPI_INT, MPI_SUM, w));
    report("reduce_root_recvbuf", MPI_Reduce(a, NULL, 2, MPI_INT, MPI_SUM, rank, w));
    report("reduce_root", MPI_Reduce(a, b, 2, MPI_INT, MPI_SUM, np + 3, w));
    report("gather_in_place_nonroot",
           MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, next, w));
    report("gatherv_null_counts",
           MPI_Gatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, rank, w));
    report("scatter_recv_type",
           MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, rank, w));
    report("allgather_mismatch", MPI_Allgather(a, 2, MPI_INT, b, 1, MPI_INT, w));
    report("alltoallv_count", MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs,
                                            MPI_INT, w));
    report("reduce_scatter_block_op",
           MPI_Reduce_scatter_block(a, b, 1, MPI_DOUBLE, MPI_LXOR, w));
    report("scan_comm", MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL));
    report("reduce_local_count", MPI_Reduce_local(a, b, -1, MPI_INT, MPI_SUM));
    report("reduce_local_op", MPI_Reduce_local(a, b, 1, MPI_C_BOOL, MPI_SUM));
    MPI_Op sum = MPI_SUM, mine;
    report("op_free_predefined", MPI_Op_free(&sum));
    report("op_create_null", MPI_Op_create(NULL, 1, &mine));
    MPI_Op_create(nop, 1, &mine);
    MPI_Op copy = mine;
    MPI_Op_free(&mine);
    report("op_free_twice", MPI_Op_free(&copy));
    report("allreduce_freed_op", MPI_Allreduce(a, b, 1, MPI_INT, copy, w));

    int one = rank + 1, sum_out = 0;
    int rc = MPI_Allreduce(&one, &sum_out, 1, MPI_INT, MPI_SUM, w);
    printf("after rank=%d rc=%d sum=%d\n", rank, rc, sum_out);
    MPI_Finalize();
    return 0;
}
