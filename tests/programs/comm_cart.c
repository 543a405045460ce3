/* Cartesian topologies.
 *
 * usage: comm_cart REORDER NDIMS D1 P1 D2 P2 ...   (Di: size, Pi: periodic)
 * Every rank R of MPI_COMM_WORLD prints
 *   cart rank=R crank=C coords=LIST       (crank=-1: not in the grid)
 * and, in the grid:
 *   get rank=R ndims=N dims=LIST periods=LIST topo=T   (Cartdim_get,
 *                                          Cart_get, Topo_test)
 *   shift rank=R dim=D disp=K src=S dst=T  for K = 1 and -2 in each dim
 *   wrap rank=R v=X    Cart_rank of my coords moved by +size in periodic
 *                      dims (so X = C)
 *   nb rank=R dim=D got=W   world rank received from the source of a
 *                      disp=1 shift (MPI_Sendrecv; -1 for MPI_PROC_NULL)
 *   sub rank=R keep=K srank=S ssize=N scoords=LIST
 *      K = "first" (keep dim 0 only), "rest" (all but dim 0), "none"
 * LIST is comma separated, "-" when empty. Cart_coords of every grid rank
 * is checked against Cart_rank (FAIL lines). */
#include <mpi.h>
#include "vtest.h"

static int rank;

static void list(char *buf, size_t cap, const int *v, int n)
{
    int at = 0;
    buf[0] = '-';
    buf[1] = 0;
    for (int i = 0; i < n; i++)
        at += snprintf(buf + at, cap - at, "%s%d", i ? "," : "", v[i]);
}

static void sub(MPI_Comm cart, int nd, const char *keep, const int *remain)
{
    MPI_Comm s;
    MPI_Cart_sub(cart, remain, &s);
    if (s == MPI_COMM_NULL) {
        printf("sub rank=%d keep=%s srank=-1 ssize=0 scoords=null\n", rank, keep);
        return;
    }
    int sr, ss, sd, dims[8], per[8], co[8];
    MPI_Comm_rank(s, &sr);
    MPI_Comm_size(s, &ss);
    MPI_Cartdim_get(s, &sd);
    MPI_Cart_get(s, 8, dims, per, co);
    char b[256];
    list(b, sizeof b, co, sd);
    printf("sub rank=%d keep=%s srank=%d ssize=%d scoords=%s\n", rank, keep, sr, ss, b);
    (void)nd;
    MPI_Comm_free(&s);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int reorder = atoi(argv[1]), nd = atoi(argv[2]);
    int dims[8], periods[8];
    for (int i = 0; i < nd; i++) {
        dims[i] = atoi(argv[3 + 2 * i]);
        periods[i] = atoi(argv[4 + 2 * i]);
    }
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, reorder, &cart);
    char b1[256], b2[256], b3[256];
    if (cart == MPI_COMM_NULL) {
        printf("cart rank=%d crank=-1 coords=-\n", rank);
        MPI_Finalize();
        return 0;
    }
    int cr, co[8];
    MPI_Comm_rank(cart, &cr);
    MPI_Cart_coords(cart, cr, 8, co);
    list(b1, sizeof b1, co, nd);
    printf("cart rank=%d crank=%d coords=%s\n", rank, cr, b1);

    int n, gd[8], gp[8], gc[8], topo;
    MPI_Cartdim_get(cart, &n);
    MPI_Cart_get(cart, 8, gd, gp, gc);
    MPI_Topo_test(cart, &topo);
    list(b1, sizeof b1, gd, n);
    list(b2, sizeof b2, gp, n);
    printf("get rank=%d ndims=%d dims=%s periods=%s topo=%d\n", rank, n, b1, b2, topo);
    for (int i = 0; i < n; i++)
        if (gc[i] != co[i])
            printf("FAIL rank=%d Cart_get coords[%d]=%d, Cart_coords %d\n", rank, i, gc[i], co[i]);

    int size;
    MPI_Comm_size(cart, &size);
    for (int r = 0; r < size; r++) {
        int c[8], back;
        MPI_Cart_coords(cart, r, 8, c);
        MPI_Cart_rank(cart, c, &back);
        if (back != r) {
            list(b3, sizeof b3, c, nd);
            printf("FAIL rank=%d Cart_rank(Cart_coords(%d) = %s) = %d\n", rank, r, b3, back);
        }
    }

    for (int d = 0; d < nd; d++) {
        int disps[2] = {1, -2};
        for (int k = 0; k < 2; k++) {
            int s, t;
            MPI_Cart_shift(cart, d, disps[k], &s, &t);
            printf("shift rank=%d dim=%d disp=%d src=%d dst=%d\n", rank, d, disps[k], s, t);
        }
    }
    int moved[8];
    for (int d = 0; d < nd; d++)
        moved[d] = co[d] + (periods[d] ? 3 * dims[d] : 0);
    int x;
    MPI_Cart_rank(cart, moved, &x);
    printf("wrap rank=%d v=%d\n", rank, x);

    for (int d = 0; d < nd; d++) {
        int s, t, got = -1;
        MPI_Cart_shift(cart, d, 1, &s, &t);
        MPI_Sendrecv(&rank, 1, MPI_INT, t, d, &got, 1, MPI_INT, s, d, cart, MPI_STATUS_IGNORE);
        printf("nb rank=%d dim=%d got=%d\n", rank, d, got);
    }

    int remain[8];
    for (int d = 0; d < nd; d++)
        remain[d] = d == 0;
    sub(cart, nd, "first", remain);
    for (int d = 0; d < nd; d++)
        remain[d] = d != 0;
    sub(cart, nd, "rest", remain);
    for (int d = 0; d < nd; d++)
        remain[d] = 0;
    sub(cart, nd, "none", remain);

    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
