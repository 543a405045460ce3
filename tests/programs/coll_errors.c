/* Erroneous collective calls.
 *
 * usage: coll_errors return
 *   MPI_ERRORS_RETURN on MPI_COMM_WORLD; every rank makes a list of
 *   erroneous calls (each one detected locally, on every rank, before any
 *   communication) and prints for each
 *     err case=NAME class=C
 *   then runs a correct MPI_Allreduce and prints
 *     after rank=R sum=S
 * usage: coll_errors fatal bcast|allreduce|uncommitted|freed|send|comm
 *   default handler (MPI_ERRORS_ARE_FATAL): rank 1 calls MPI_Bcast with root
 *   99, MPI_Allreduce with MPI_MAXLOC on MPI_INT, MPI_Gather with an
 *   uncommitted vector type, MPI_Allgather with a freed one, MPI_Send with an
 *   uncommitted one, or MPI_Alltoall on a freed communicator; the others wait
 *   in MPI_Barrier. The job must end, naming the call. */
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
        const char *which = argc > 2 ? argv[2] : "bcast";
        MPI_Datatype vec, gone;
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
        MPI_Type_contiguous(2, MPI_INT, &gone);
        MPI_Type_commit(&gone);
        MPI_Datatype gone_copy = gone;
        MPI_Type_free(&gone);
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_SELF, &dup);
        MPI_Comm dup_copy = dup;
        MPI_Comm_free(&dup);
        if (rank == 1) {
            if (strcmp(which, "allreduce") == 0)
                MPI_Allreduce(a, b, 4, MPI_INT, MPI_MAXLOC, w);
            else if (strcmp(which, "uncommitted") == 0)
                MPI_Gather(a, 1, vec, b, 1, vec, 0, w);
            else if (strcmp(which, "freed") == 0)
                MPI_Allgather(a, 1, gone_copy, b, 1, MPI_INT, w);
            else if (strcmp(which, "send") == 0)
                MPI_Send(a, 1, vec, 0, 0, w);
            else if (strcmp(which, "comm") == 0)
                MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, dup_copy);
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

    /* derived datatypes: uncommitted, freed, heterogeneous */
    MPI_Datatype vec, freed, mixed, fvec;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);                 /* never committed */
    MPI_Type_contiguous(2, MPI_INT, &freed);
    MPI_Type_commit(&freed);
    MPI_Datatype freed_copy = freed;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype members[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(2, bl, disp, members, &mixed);
    MPI_Type_commit(&mixed);
    MPI_Type_vector(2, 1, 2, MPI_FLOAT, &fvec);
    MPI_Type_commit(&fvec);
    /* freed last: the next type created would reuse its handle (as in MPICH) */
    MPI_Type_free(&freed);
    report("bcast_uncommitted", MPI_Bcast(a, 1, vec, 0, w));
    report("allreduce_uncommitted", MPI_Allreduce(a, b, 1, vec, MPI_SUM, w));
    report("gather_freed", MPI_Gather(a, 1, freed_copy, b, 1, MPI_INT, 0, w));
    report("alltoall_recv_uncommitted", MPI_Alltoall(a, 1, MPI_INT, b, 1, vec, w));
    int ones[64];
    for (int i = 0; i < np; i++)
        ones[i] = 1;
    report("scatterv_freed",
           MPI_Scatterv(a, ones, displs, freed_copy, b, 1, MPI_INT, rank, w));
    report("reduce_heterogeneous", MPI_Reduce(a, b, 1, mixed, MPI_SUM, 0, w));
    report("allreduce_vector_band_float", MPI_Allreduce(a, b, 1, fvec, MPI_BAND, w));
    report("scan_derived_count", MPI_Scan(a, b, -1, fvec, MPI_SUM, w));
    report("bcast_derived_root", MPI_Bcast(a, 1, fvec, -5, w));
    MPI_Comm dup;
    MPI_Comm_dup(w, &dup);
    MPI_Comm dup_copy = dup;
    MPI_Comm_free(&dup);
    report("allgather_freed_comm", MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_INT, dup_copy));
    report("alltoallw_comm_null", MPI_Alltoallw(a, counts, displs, members, b, counts, displs,
                                                members, MPI_COMM_NULL));
    /* point-to-point with derived datatypes */
    MPI_Request req;
    MPI_Status st;
    report("send_uncommitted", MPI_Send(a, 1, vec, next, 0, w));
    report("isend_freed", MPI_Isend(a, 1, freed_copy, next, 0, w, &req));
    report("recv_uncommitted", MPI_Recv(b, 1, vec, next, 0, w, &st));
    report("irecv_freed", MPI_Irecv(b, 1, freed_copy, next, 0, w, &req));
    report("send_derived_count", MPI_Send(a, -2, fvec, next, 0, w));
    report("sendrecv_uncommitted",
           MPI_Sendrecv(a, 1, fvec, next, 0, b, 1, vec, next, 0, w, &st));
    report("send_freed_comm", MPI_Send(a, 1, fvec, next, 0, dup_copy));
    MPI_Type_free(&vec);
    MPI_Type_free(&mixed);
    MPI_Type_free(&fvec);

    int one = rank + 1, sum_out = 0;
    int rc = MPI_Allreduce(&one, &sum_out, 1, MPI_INT, MPI_SUM, w);
    printf("after rank=%d rc=%d sum=%d\n", rank, rc, sum_out);
    MPI_Finalize();
    return 0;
}
