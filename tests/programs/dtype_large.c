/* Negative extents and the MPI-4 large-count (_c) calls (run with 2 ranks).
 *
 * Rank 0 sends three elements of an int resized to extent -4 (they lie
 * below the buffer pointer, last element first in memory) with MPI_Send_c;
 * rank 1 receives them as ints with MPI_Recv_c and back into the same
 * negative-extent layout. Both ranks print the bounds of MPICH's lbub types
 * and of { (LB,10) }, the size of a 12 GB contiguous type, the large-count
 * contents of an hindexed_c type, error classes of calls the standard
 * refuses, and the data of MPI_Bcast_c (a type whose true lb is not 0) and
 * MPI_Alltoallv_c.
 *
 * Prints
 *   val rank=R what=NAME value=V
 * and FAIL lines for wrong data. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int rank;

static void show(const char *what, long long v)
{
    printf("val rank=%d what=%s value=%lld\n", rank, what, v);
}

/* lb, extent, true lb and true extent of t, through the _c queries */
static void bounds(const char *name, MPI_Datatype t)
{
    MPI_Count lb, ext, tlb, text, size;
    char what[64];
    MPI_Type_get_extent_c(t, &lb, &ext);
    MPI_Type_get_true_extent_c(t, &tlb, &text);
    MPI_Type_size_c(t, &size);
    snprintf(what, sizeof what, "%s_lb", name);
    show(what, lb);
    snprintf(what, sizeof what, "%s_extent", name);
    show(what, ext);
    snprintf(what, sizeof what, "%s_true_lb", name);
    show(what, tlb);
    snprintf(what, sizeof what, "%s_true_extent", name);
    show(what, text);
    snprintf(what, sizeof what, "%s_size", name);
    show(what, size);
}

static int error_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* an int with lb 4 and ub 0: element i at -4 i bytes */
    MPI_Datatype rev;
    MPI_Type_create_resized(MPI_INT, 4, -4, &rev);
    MPI_Type_commit(&rev);
    bounds("rev", rev);

    /* MPICH's lbub: { (LB,6),4*(BYTE,0),(UB,-3) } and 3 of them */
    MPI_Datatype four, evil, evil3;
    MPI_Type_contiguous(4, MPI_BYTE, &four);
    MPI_Type_create_resized(four, 6, -9, &evil);
    MPI_Type_contiguous(3, evil, &evil3);
    bounds("evil", evil);
    bounds("evil3", evil3);

    /* { (LB,10) }: ub 0 */
    int one = 1;
    MPI_Aint ten = 10;
    MPI_Datatype lbt = MPI_LB, lbonly;
    MPI_Type_create_struct(1, &one, &ten, &lbt, &lbonly);
    bounds("lbonly", lbonly);

    /* point to point with _c calls and the negative extent */
    if (rank == 0) {
        int a[4] = {10, 11, 12, 13};
        MPI_Send_c(&a[3], 3, rev, 1, 1, MPI_COMM_WORLD);
        int b[4] = {20, 21, 22, 23};
        MPI_Ssend_c(b, 4, MPI_INT, 1, 2, MPI_COMM_WORLD);
    } else {
        int got[3] = {-1, -1, -1};
        MPI_Status st;
        MPI_Count n;
        MPI_Recv_c(got, 3, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
        MPI_Get_count_c(&st, MPI_INT, &n);
        show("recv_count", n);
        show("recv_0", got[0]);
        show("recv_1", got[1]);
        show("recv_2", got[2]);
        /* into the negative-extent layout: element 0 at out[3] */
        int out[5] = {-1, -1, -1, -1, -1};
        MPI_Request r;
        MPI_Irecv_c(&out[3], 4, rev, 0, 2, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, &st);
        MPI_Get_count_c(&st, rev, &n);
        show("rev_count", n);
        for (int i = 0; i < 5; i++) {
            char what[16];
            snprintf(what, sizeof what, "rev_out_%d", i);
            show(what, out[i]);
        }
    }

    /* a 12 GB type: its size needs the _c query */
    MPI_Datatype huge;
    MPI_Type_contiguous_c(3000000000LL, MPI_INT, &huge);
    MPI_Count hs;
    int is;
    MPI_Type_size_c(huge, &hs);
    MPI_Type_size(huge, &is);
    show("huge_size_c", hs);
    show("huge_size", is);

    /* large-count contents of an hindexed_c type */
    MPI_Count bls[2] = {2, 1}, disps[2] = {40, -8};
    MPI_Datatype hx;
    MPI_Type_create_hindexed_c(2, bls, disps, MPI_INT, &hx);
    MPI_Count ni, na, nc, nd;
    int comb;
    MPI_Type_get_envelope_c(hx, &ni, &na, &nc, &nd, &comb);
    show("hx_ni", ni);
    show("hx_na", na);
    show("hx_nc", nc);
    show("hx_nd", nd);
    show("hx_combiner_is_hindexed", comb == MPI_COMBINER_HINDEXED);
    MPI_Count counts[5];
    MPI_Datatype types[1];
    MPI_Type_get_contents_c(hx, 0, 0, 5, 1, NULL, NULL, counts, types);
    for (int i = 0; i < 5; i++) {
        char what[16];
        snprintf(what, sizeof what, "hx_count_%d", i);
        show(what, counts[i]);
    }
    show("hx_type_is_int", types[0] == MPI_INT);
    int ini, ina, ind;
    show("hx_int_envelope_class",
         error_class(MPI_Type_get_envelope(hx, &ini, &ina, &ind, &comb)));

    /* more bytes than the address space: MPI_ERR_COUNT, nothing sent */
    int x = 0;
    show("overflow_class",
         error_class(MPI_Send_c(&x, (MPI_Count)1 << 62, MPI_INT, 1 - rank, 3, MPI_COMM_WORLD)));
    show("negative_class",
         error_class(MPI_Send_c(&x, -1, MPI_INT, 1 - rank, 3, MPI_COMM_WORLD)));

    /* MPI_Bcast_c of ints 2 and 3 of the buffer (true lb 8) */
    int bl2 = 2, d2 = 2;
    MPI_Datatype mid;
    MPI_Type_indexed(1, &bl2, &d2, MPI_INT, &mid);
    MPI_Type_commit(&mid);
    int bb[5] = {-1, -1, -1, -1, -1};
    if (rank == 0) {
        bb[2] = 7;
        bb[3] = 8;
    }
    MPI_Bcast_c(bb, 1, mid, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 5; i++) {
        char what[16];
        snprintf(what, sizeof what, "bcast_%d", i);
        show(what, bb[i]);
    }

    /* MPI_Alltoallv_c: 1 int to rank 0 from offset 0, 2 to rank 1 from
     * offset 3; received at offsets 0 (from rank 0) and 4 (from rank 1) */
    int sb[6], rb[8];
    for (int i = 0; i < 6; i++)
        sb[i] = 100 * rank + i;
    for (int i = 0; i < 8; i++)
        rb[i] = -1;
    MPI_Count sc[2] = {1, 2}, rc[2];
    MPI_Aint sd[2] = {0, 3}, rd[2] = {0, 4};
    rc[0] = rank == 0 ? 1 : 2;
    rc[1] = rank == 0 ? 1 : 2;
    MPI_Alltoallv_c(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < 8; i++) {
        char what[16];
        snprintf(what, sizeof what, "a2av_%d", i);
        show(what, rb[i]);
    }

    /* the other large-count collectives: sums, and blocks by rank */
    int in[2] = {rank + 1, 10 * (rank + 1)}, sum[2] = {0, 0}, root_sum[2] = {-1, -1};
    MPI_Allreduce_c(in, sum, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_c(in, root_sum, 2, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD);
    show("allreduce_0", sum[0]);
    show("allreduce_1", sum[1]);
    show("reduce_0", root_sum[0]);
    int all[4] = {-1, -1, -1, -1}, gat[4] = {-1, -1, -1, -1}, sca[2] = {-1, -1}, a2a[4];
    MPI_Allgather_c(in, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    MPI_Gather_c(in, 2, MPI_INT, gat, 2, MPI_INT, 0, MPI_COMM_WORLD);
    int src[4] = {5, 6, 7, 8};
    MPI_Scatter_c(src, 2, MPI_INT, sca, 2, MPI_INT, 1, MPI_COMM_WORLD);
    int mine[4] = {rank, rank + 10, rank + 20, rank + 30};
    MPI_Alltoall_c(mine, 2, MPI_INT, a2a, 2, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++) {
        char what[16];
        snprintf(what, sizeof what, "allgather_%d", i);
        show(what, all[i]);
        snprintf(what, sizeof what, "gather_%d", i);
        show(what, gat[i]);
        snprintf(what, sizeof what, "alltoall_%d", i);
        show(what, a2a[i]);
    }
    show("scatter_0", sca[0]);
    show("scatter_1", sca[1]);
    /* each block fits the address space, the two blocks of the whole
       receive buffer do not: MPI_ERR_COUNT, nothing sent */
    char c = 0;
    show("allgather_overflow_class",
         error_class(MPI_Allgather_c(MPI_IN_PLACE, 0, MPI_CHAR, &c, (MPI_Count)1 << 62,
                                     MPI_CHAR, MPI_COMM_WORLD)));
    show("alltoall_overflow_class",
         error_class(MPI_Alltoall_c(MPI_IN_PLACE, 0, MPI_CHAR, &c, (MPI_Count)1 << 62,
                                    MPI_CHAR, MPI_COMM_WORLD)));

    MPI_Type_free(&rev);
    MPI_Type_free(&four);
    MPI_Type_free(&evil);
    MPI_Type_free(&evil3);
    MPI_Type_free(&lbonly);
    MPI_Type_free(&huge);
    MPI_Type_free(&hx);
    MPI_Type_free(&mid);
    MPI_Finalize();
    return 0;
}
