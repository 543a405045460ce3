/* Erroneous datatype calls (run with 2 ranks; rank 0 makes them).
 *
 * usage: dtype_errors return|fatal
 *   return: under MPI_ERRORS_RETURN, rank 0 prints for each call
 *             err name=NAME class=C
 *           then "done". Calls that must succeed print class=0.
 *   fatal:  under the default MPI_ERRORS_ARE_FATAL, rank 0 sends with an
 *           uncommitted datatype: the job must end there.
 * Rank 1 only waits for rank 0's last message. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static void err(const char *name, int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    printf("err name=%s class=%d\n", name, cls);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int fatal = argc > 1 && strcmp(argv[1], "fatal") == 0;
    if (rank == 1) {
        MPI_Recv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("done rank=1 x=%d\n", x);
        MPI_Finalize();
        return 0;
    }
    double buf[64] = {0};
    unsigned char packed[64];
    MPI_Datatype vec, freed, t, types[2];
    MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &vec); /* never committed */
    if (fatal) {
        MPI_Send(buf, 1, vec, 1, 0, MPI_COMM_WORLD);
        printf("err name=fatal_send_returned class=0\n");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_contiguous(2, MPI_INT, &freed);
    MPI_Type_commit(&freed);
    MPI_Datatype stale = freed;
    MPI_Type_free(&freed);
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Status st;
    int n = 0, pos;
    MPI_Aint lb, ext;

    /* communication with uncommitted, freed or null types */
    err("send_uncommitted", MPI_Send(buf, 1, vec, 1, 0, MPI_COMM_WORLD));
    err("recv_uncommitted", MPI_Recv(buf, 1, vec, 1, 0, MPI_COMM_WORLD, &st));
    err("isend_freed", MPI_Isend(buf, 1, stale, 1, 0, MPI_COMM_WORLD, &rq));
    err("irecv_freed", MPI_Irecv(buf, 1, stale, 1, 0, MPI_COMM_WORLD, &rq));
    err("send_null_type", MPI_Send(buf, 1, MPI_DATATYPE_NULL, 1, 0, MPI_COMM_WORLD));

    /* freeing */
    t = MPI_INT;
    err("free_predefined", MPI_Type_free(&t));
    t = stale;
    err("free_freed", MPI_Type_free(&t));
    err("commit_freed", MPI_Type_commit(&stale));
    err("commit_null", MPI_Type_commit(NULL));

    /* constructor arguments */
    int bl[2] = {1, -1}, d[2] = {0, 4};
    MPI_Aint ad[2] = {0, 8};
    err("contiguous_negative_count", MPI_Type_contiguous(-1, MPI_INT, &t));
    err("vector_negative_blocklength", MPI_Type_vector(2, -1, 2, MPI_INT, &t));
    err("indexed_negative_blocklength", MPI_Type_indexed(2, bl, d, MPI_INT, &t));
    err("indexed_null_array", MPI_Type_indexed(2, NULL, d, MPI_INT, &t));
    err("contiguous_freed_oldtype", MPI_Type_contiguous(2, stale, &t));
    types[0] = MPI_INT;
    types[1] = stale;
    int bl1[2] = {1, 1};
    err("struct_freed_member", MPI_Type_create_struct(2, bl1, ad, types, &t));
    types[1] = MPI_DOUBLE;
    err("struct_null_newtype", MPI_Type_create_struct(2, bl1, ad, types, NULL));
    int sizes[2] = {4, 5}, sub[2] = {2, 3}, bad_starts[2] = {3, 0}, starts[2] = {0, 0};
    err("subarray_bad_start",
        MPI_Type_create_subarray(2, sizes, sub, bad_starts, MPI_ORDER_C, MPI_INT, &t));
    err("subarray_bad_order", MPI_Type_create_subarray(2, sizes, sub, starts, 3, MPI_INT, &t));
    err("subarray_zero_ndims",
        MPI_Type_create_subarray(0, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t));
    /* (a negative extent is allowed: the freed old type is the error) */
    err("resized_freed_oldtype", MPI_Type_create_resized(stale, 0, -8, &t));

    /* queries: allowed on uncommitted types, not on freed ones */
    err("size_uncommitted", MPI_Type_size(vec, &n));
    printf("value name=size_uncommitted v=%d\n", n);
    err("size_freed", MPI_Type_size(stale, &n));
    err("extent_null_out", MPI_Type_get_extent(vec, &lb, NULL));
    err("extent_uncommitted", MPI_Type_get_extent(vec, &lb, &ext));
    printf("value name=extent_uncommitted v=%ld\n", (long)ext);
    err("contents_predefined", MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL));
    int ints[3];
    MPI_Datatype dts[1];
    err("contents_too_small", MPI_Type_get_contents(vec, 2, 0, 1, ints, NULL, dts));

    /* a status to ask about: 16 bytes from rank 0 to itself */
    MPI_Sendrecv(buf, 2, MPI_DOUBLE, 0, 5, buf + 8, 2, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, &st);
    err("get_count_uncommitted", MPI_Get_count(&st, vec, &n));
    printf("value name=get_count_uncommitted v=%d\n", n);
    err("get_elements_uncommitted", MPI_Get_elements(&st, vec, &n));
    err("get_elements_ignore", MPI_Get_elements(MPI_STATUS_IGNORE, MPI_DOUBLE, &n));

    /* packing */
    pos = 0;
    err("pack_uncommitted", MPI_Pack(buf, 1, vec, packed, 64, &pos, MPI_COMM_WORLD));
    err("pack_size_uncommitted", MPI_Pack_size(1, vec, MPI_COMM_WORLD, &n));
    err("pack_negative_count", MPI_Pack(buf, -1, MPI_DOUBLE, packed, 64, &pos, MPI_COMM_WORLD));
    pos = 60;
    err("pack_too_small", MPI_Pack(buf, 1, MPI_DOUBLE, packed, 64, &pos, MPI_COMM_WORLD));
    printf("value name=pack_too_small_position v=%d\n", pos);
    pos = 0;
    err("pack_invalid_comm", MPI_Pack(buf, 1, MPI_DOUBLE, packed, 64, &pos, MPI_COMM_NULL));
    pos = 60;
    err("unpack_too_short", MPI_Unpack(packed, 64, &pos, buf, 1, MPI_DOUBLE, MPI_COMM_WORLD));
    err("pack_null_position", MPI_Pack(buf, 1, MPI_DOUBLE, packed, 64, NULL, MPI_COMM_WORLD));
    MPI_Type_commit(&vec);
    pos = 0;
    err("pack_committed", MPI_Pack(buf, 1, vec, packed, 64, &pos, MPI_COMM_WORLD));
    printf("value name=pack_committed_position v=%d\n", pos);
    MPI_Type_free(&vec);

    x = 42;
    MPI_Send(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD);
    printf("done rank=0\n");
    MPI_Finalize();
    return 0;
}
