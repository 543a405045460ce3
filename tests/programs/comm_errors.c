/* Error classes of the communicator, group, attribute and topology calls.
 *
 * usage: comm_errors return|fatal      (at least 2 ranks)
 *   return: MPI_ERRORS_RETURN on MPI_COMM_WORLD (inherited by the
 *           communicators made from it); every rank prints
 *             err rank=R call=NAME class=C
 *           for a list of erroneous calls (see tests/comm.rs).
 *   fatal:  a communicator duplicated while MPI_COMM_WORLD still had
 *           MPI_ERRORS_ARE_FATAL keeps it: rank 1 calls MPI_Cart_coords on
 *           it (not Cartesian) after setting MPI_ERRORS_RETURN on
 *           MPI_COMM_WORLD, and the job must end; the others wait for a
 *           message that never comes. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int rank;

static void err(const char *call, int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    printf("err rank=%d call=%s class=%d\n", rank, call, cls);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm early;
    MPI_Comm_dup(MPI_COMM_WORLD, &early);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        int c[4], x;
        if (rank == 1) {
            int rc = MPI_Cart_coords(early, 0, 4, c);
            printf("returned rank=%d rc=%d\n", rank, rc);
        } else {
            MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Finalize();
        return 0;
    }

    MPI_Comm x = MPI_COMM_NULL, w = MPI_COMM_WORLD, d, d0;
    int c[4], v, flag, res;
    err("Comm_dup_null", MPI_Comm_dup(MPI_COMM_NULL, &x));
    err("Comm_free_world", MPI_Comm_free(&w));
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    d0 = d;
    MPI_Comm_free(&d);
    err("Comm_size_freed", MPI_Comm_size(d0, &v));
    err("Send_freed", MPI_Send(&v, 1, MPI_INT, 0, 0, d0));
    err("Comm_free_freed", MPI_Comm_free(&d0));
    err("Comm_compare_null", MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &res));
    err("Comm_split_color", MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &x));
    err("Comm_split_type", MPI_Comm_split_type(MPI_COMM_WORLD, 99, 0, MPI_INFO_NULL, &x));

    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int twice[2] = {0, 0}, big = size, neg = -3;
    int stride0[1][3] = {{0, 1, 0}};
    err("Group_size_null", MPI_Group_size(MPI_GROUP_NULL, &v));
    err("Group_incl_dup", MPI_Group_incl(wg, 2, twice, &g));
    err("Group_incl_range", MPI_Group_incl(wg, 1, &big, &g));
    err("Group_excl_neg_n", MPI_Group_excl(wg, -1, &big, &g));
    err("Group_range_stride0", MPI_Group_range_incl(wg, 1, stride0, &g));
    err("Group_translate", MPI_Group_translate_ranks(wg, 1, &neg, wg, &v));
    MPI_Group_incl(wg, 1, twice, &g);
    MPI_Group g0 = g;
    MPI_Group_free(&g);
    err("Group_rank_freed", MPI_Group_rank(g0, &v));
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    err("Comm_create_not_subgroup", MPI_Comm_create(MPI_COMM_SELF, wg, &x));
    MPI_Group_free(&wg);

    int zero_dim[2] = {0, 2}, too_big = size + 1, per[2] = {0, 0};
    err("Cart_coords_world", MPI_Cart_coords(MPI_COMM_WORLD, 0, 4, c));
    err("Cart_shift_world", MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &v, &v));
    err("Cartdim_get_world", MPI_Cartdim_get(MPI_COMM_WORLD, &v));
    err("Cart_sub_world", MPI_Cart_sub(MPI_COMM_WORLD, per, &x));
    err("Cart_create_dim0", MPI_Cart_create(MPI_COMM_WORLD, 2, zero_dim, per, 0, &x));
    err("Cart_create_neg_ndims", MPI_Cart_create(MPI_COMM_WORLD, -1, zero_dim, per, 0, &x));
    err("Cart_create_too_big", MPI_Cart_create(MPI_COMM_WORLD, 1, &too_big, per, 0, &x));
    MPI_Comm line;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &size, per, 0, &line);
    err("Cart_rank_out", MPI_Cart_rank(line, &size, &v));
    err("Cart_coords_rank", MPI_Cart_coords(line, size, 4, c));
    err("Cart_coords_maxdims", MPI_Cart_coords(line, 0, 0, c));
    err("Cart_shift_dir", MPI_Cart_shift(line, 1, 1, &v, &v));
    MPI_Comm_free(&line);
    int d3[2] = {3, 0}, dneg[2] = {-1, 0};
    err("Dims_create_divide", MPI_Dims_create(7, 2, d3));
    err("Dims_create_negative", MPI_Dims_create(6, 2, dneg));
    err("Dims_create_nnodes", MPI_Dims_create(-1, 1, d3));

    int kv = 12345, inv = MPI_KEYVAL_INVALID;
    err("Comm_get_attr_bad", MPI_Comm_get_attr(MPI_COMM_WORLD, kv, &v, &flag));
    err("Comm_set_attr_invalid", MPI_Comm_set_attr(MPI_COMM_WORLD, inv, &v));
    err("Comm_free_keyval_invalid", MPI_Comm_free_keyval(&inv));

    /* the error handler of a communicator made from MPI_COMM_WORLD now */
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    err("inherited", MPI_Cartdim_get(d, &v));
    MPI_Comm_free(&d);
    MPI_Comm_free(&early);
    printf("done rank=%d\n", rank);
    MPI_Finalize();
    return 0;
}
