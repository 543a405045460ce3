/* Graph and distributed-graph topologies and neighbourhood collectives
 * (run on 6 ranks). Lists are comma separated ("-" when empty).
 *
 * Graph queries (the MPI standard's 4-node example, ranks 4 and 5 outside):
 *   graph rank=R topo=T nnodes=N nedges=E index=L edges=L   (members)
 *   gnb rank=R node=I count=C nbs=L                          (every node)
 *   gnull rank=R                                             (non-members)
 *   gmap rank=R graph=X cart=Y     MPI_Graph_map(4 nodes), MPI_Cart_map(2x2)
 * Distributed graphs:
 *   dg name=NAME rank=R topo=T in=N out=N weighted=W srcs=L sw=L dsts=L dw=L
 * Neighbourhood collectives on communicator NAME (cart1p: 1-D periodic;
 * cart2: 2x3 non-periodic; cart2p: 2 x 3 periodic in dim 0 of size 2, so
 * the same process is both neighbours; graph: the ring 0-1-...-5 as a
 * graph; adj: MPI_Dist_graph_create_adjacent; dgc: MPI_Dist_graph_create):
 *   nb name=NAME rank=R srcs=L dsts=L   (-1: MPI_PROC_NULL)
 *   ag / agv / a2a / a2av / a2aw name=NAME rank=R v=L
 * Errors (MPI_ERRORS_RETURN):
 *   err rank=R what=W rc=C
 */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int rank, size;

static void list(char *buf, size_t cap, const int *v, int n)
{
    int at = 0;
    buf[0] = '-';
    buf[1] = 0;
    for (int i = 0; i < n; i++)
        at += snprintf(buf + at, cap - at, "%s%d", i ? "," : "", v[i]);
}

/* The neighbours of `c` as the neighbourhood collectives see them. */
static void neighbours(MPI_Comm c, int *indeg, int *srcs, int *outdeg, int *dsts)
{
    int topo;
    MPI_Topo_test(c, &topo);
    if (topo == MPI_CART) {
        int nd;
        MPI_Cartdim_get(c, &nd);
        for (int d = 0; d < nd; d++) {
            MPI_Cart_shift(c, d, 1, &srcs[2 * d], &srcs[2 * d + 1]);
            dsts[2 * d] = srcs[2 * d];
            dsts[2 * d + 1] = srcs[2 * d + 1];
        }
        *indeg = *outdeg = 2 * nd;
    } else if (topo == MPI_GRAPH) {
        int r, n;
        MPI_Comm_rank(c, &r);
        MPI_Graph_neighbors_count(c, r, &n);
        MPI_Graph_neighbors(c, r, n, srcs);
        memcpy(dsts, srcs, n * sizeof(int));
        *indeg = *outdeg = n;
    } else {
        int w;
        MPI_Dist_graph_neighbors_count(c, indeg, outdeg, &w);
        MPI_Dist_graph_neighbors(c, *indeg, srcs, MPI_UNWEIGHTED, *outdeg, dsts, MPI_UNWEIGHTED);
    }
}

static void show(const char *tag, const char *name, const int *v, int n)
{
    char b[1024];
    list(b, sizeof b, v, n);
    printf("%s name=%s rank=%d v=%s\n", tag, name, rank, b);
}

/* Every neighbourhood collective on `c`. */
static void collectives(const char *name, MPI_Comm c)
{
    int in, out, srcs[32], dsts[32];
    neighbours(c, &in, srcs, &out, dsts);
    char a[512], b[512];
    list(a, sizeof a, srcs, in);
    list(b, sizeof b, dsts, out);
    printf("nb name=%s rank=%d srcs=%s dsts=%s\n", name, rank, a, b);

    int one = rank * 10 + 1, recv[64], send[64];
    for (int i = 0; i < 64; i++)
        recv[i] = -1;
    MPI_Neighbor_allgather(&one, 1, MPI_INT, recv, 1, MPI_INT, c);
    show("ag", name, recv, in);

    int counts[32], displs[32];
    for (int l = 0; l < in; l++) {
        counts[l] = 1;
        displs[l] = in - 1 - l;
        recv[l] = -1;
    }
    MPI_Neighbor_allgatherv(&one, 1, MPI_INT, recv, counts, displs, MPI_INT, c);
    show("agv", name, recv, in);

    for (int k = 0; k < out; k++)
        send[k] = rank * 100 + k;
    for (int l = 0; l < in; l++)
        recv[l] = -1;
    MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, c);
    show("a2a", name, recv, in);

    /* alltoallv: block k of the send buffer at out-1-k, received block l
     * at 2 l (the odd slots stay -1) */
    int scounts[32], sdispls[32], rcounts[32], rdispls[32];
    for (int k = 0; k < out; k++) {
        scounts[k] = 1;
        sdispls[k] = out - 1 - k;
        send[out - 1 - k] = rank * 100 + k;
    }
    for (int l = 0; l < 2 * in; l++)
        recv[l] = -1;
    for (int l = 0; l < in; l++) {
        rcounts[l] = 1;
        rdispls[l] = 2 * l;
    }
    MPI_Neighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, c);
    show("a2av", name, recv, 2 * in);

    /* alltoallw: as alltoall, byte displacements, one type per block */
    MPI_Aint sd[32], rd[32];
    MPI_Datatype st[32], rt[32];
    for (int k = 0; k < out; k++) {
        send[k] = rank * 100 + k;
        sd[k] = k * sizeof(int);
        st[k] = MPI_INT;
    }
    for (int l = 0; l < in; l++) {
        recv[l] = -1;
        rd[l] = l * sizeof(int);
        rt[l] = MPI_INT;
    }
    MPI_Neighbor_alltoallw(send, scounts, sd, st, recv, rcounts, rd, rt, c);
    show("a2aw", name, recv, in);
}

static void dg_show(const char *name, MPI_Comm c)
{
    int topo, in, out, w;
    MPI_Topo_test(c, &topo);
    MPI_Dist_graph_neighbors_count(c, &in, &out, &w);
    int s[32], sw[32], d[32], dw[32];
    for (int i = 0; i < 32; i++)
        sw[i] = dw[i] = -7;
    MPI_Dist_graph_neighbors(c, in, s, sw, out, d, dw);
    char a[256], b[256], e[256], f[256];
    list(a, sizeof a, s, in);
    list(b, sizeof b, sw, w ? in : 0);
    list(e, sizeof e, d, out);
    list(f, sizeof f, dw, w ? out : 0);
    printf("dg name=%s rank=%d topo=%d in=%d out=%d weighted=%d srcs=%s sw=%s dsts=%s dw=%s\n",
           name, rank, topo, in, out, w, a, b, e, f);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char a[256], b[256];

    /* the standard's example graph */
    int index[4] = { 2, 3, 4, 6 }, edges[6] = { 1, 3, 0, 3, 0, 2 };
    MPI_Comm g;
    MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &g);
    if (g == MPI_COMM_NULL) {
        printf("gnull rank=%d\n", rank);
    } else {
        int topo, nn, ne, ix[8], ed[16];
        MPI_Topo_test(g, &topo);
        MPI_Graphdims_get(g, &nn, &ne);
        MPI_Graph_get(g, 8, 16, ix, ed);
        list(a, sizeof a, ix, nn);
        list(b, sizeof b, ed, ne);
        printf("graph rank=%d topo=%d nnodes=%d nedges=%d index=%s edges=%s\n", rank, topo, nn, ne,
               a, b);
        for (int i = 0; i < nn; i++) {
            int cnt, nb[8];
            MPI_Graph_neighbors_count(g, i, &cnt);
            MPI_Graph_neighbors(g, i, 8, nb);
            list(a, sizeof a, nb, cnt);
            printf("gnb rank=%d node=%d count=%d nbs=%s\n", rank, i, cnt, a);
        }
        MPI_Comm gd;
        MPI_Comm_dup(g, &gd);
        collectives("graph4", gd);
        MPI_Comm_free(&gd);
        MPI_Comm_free(&g);
    }
    int gm, cm, dims[2] = { 2, 2 }, per[2] = { 0, 0 };
    MPI_Graph_map(MPI_COMM_WORLD, 4, index, edges, &gm);
    MPI_Cart_map(MPI_COMM_WORLD, 2, dims, per, &cm);
    printf("gmap rank=%d graph=%d cart=%d\n", rank, gm, cm);

    /* distributed graphs */
    MPI_Comm adj, dgc, dgu;
    {
        /* adjacent: in from r-1 and r-2, out to r+1 and r+2, weights */
        int s[2] = { (rank + size - 1) % size, (rank + size - 2) % size };
        int d[2] = { (rank + 1) % size, (rank + 2) % size };
        int sw[2] = { 1000 + s[0], 2000 + s[1] }, dw[2] = { 1000 + rank, 2000 + rank };
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, s, sw, 2, d, dw, MPI_INFO_NULL, 0, &adj);
        dg_show("adj", adj);
    }
    {
        /* rank 0 gives every edge r -> r+1 and r -> r+3 (weights 10 r + j) */
        int n = rank == 0 ? size : 0, src[16], deg[16], dst[32], w[32];
        for (int r = 0; r < n; r++) {
            src[r] = r;
            deg[r] = 2;
            dst[2 * r] = (r + 1) % size;
            dst[2 * r + 1] = (r + 3) % size;
            w[2 * r] = 10 * r;
            w[2 * r + 1] = 10 * r + 1;
        }
        MPI_Dist_graph_create(MPI_COMM_WORLD, n, src, deg, dst, n ? w : MPI_WEIGHTS_EMPTY,
                              MPI_INFO_NULL, 1, &dgc);
        dg_show("dgc", dgc);
    }
    {
        /* each rank gives its own out-edges to r+2 and r+5, unweighted */
        int src[1] = { rank }, deg[1] = { 2 }, dst[2] = { (rank + 2) % size, (rank + 5) % size };
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, src, deg, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                              &dgu);
        dg_show("dgu", dgu);
    }

    /* neighbourhood collectives */
    MPI_Comm c1, c2, c2p, ring;
    int d1[1] = { size }, p1[1] = { 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, d1, p1, 0, &c1);
    collectives("cart1p", c1);
    int d2[2] = { 2, 3 }, p2[2] = { 0, 0 }, p2p[2] = { 1, 0 };
    MPI_Cart_create(MPI_COMM_WORLD, 2, d2, p2, 0, &c2);
    collectives("cart2", c2);
    MPI_Cart_create(MPI_COMM_WORLD, 2, d2, p2p, 0, &c2p);
    collectives("cart2p", c2p);
    int rix[6], red[12];
    for (int r = 0; r < size; r++) {
        rix[r] = 2 * (r + 1);
        red[2 * r] = (r + size - 1) % size;
        red[2 * r + 1] = (r + 1) % size;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, rix, red, 1, &ring);
    collectives("ring", ring);
    collectives("adj", adj);
    collectives("dgc", dgc);
    collectives("dgu", dgu);

    /* errors */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(c1, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(dgc, MPI_ERRORS_RETURN);
    int x, y, z, ix[8], ed[16];
    printf("err rank=%d what=graph_on_cart rc=%d\n", rank, MPI_Graphdims_get(c1, &x, &y));
    printf("err rank=%d what=dist_on_graph rc=%d\n", rank,
           MPI_Dist_graph_neighbors_count(ring, &x, &y, &z));
    printf("err rank=%d what=graph_get_small rc=%d\n", rank, MPI_Graph_get(ring, 5, 12, ix, ed));
    printf("err rank=%d what=graph_nb_rank rc=%d\n", rank, MPI_Graph_neighbors_count(ring, 6, &x));
    printf("err rank=%d what=no_topology rc=%d\n", rank,
           MPI_Neighbor_allgather(&x, 1, MPI_INT, ed, 1, MPI_INT, MPI_COMM_WORLD));
    int bad_index[2] = { 2, 1 };
    MPI_Comm bad;
    printf("err rank=%d what=bad_index rc=%d\n", rank,
           MPI_Graph_create(MPI_COMM_WORLD, 2, bad_index, edges, 0, &bad));
    printf("err rank=%d what=too_many_nodes rc=%d\n", rank,
           MPI_Graph_create(MPI_COMM_WORLD, 7, rix, red, 0, &bad));
    int far[2] = { 6, 0 };
    printf("err rank=%d what=bad_dest rc=%d\n", rank,
           MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, far, MPI_UNWEIGHTED, 1, far,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &bad));
    printf("err rank=%d what=mixed_weights rc=%d\n", rank,
           MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, far + 1, MPI_UNWEIGHTED, 1, far + 1,
                                          ix, MPI_INFO_NULL, 0, &bad));
    printf("err rank=%d what=dist_small rc=%d\n", rank,
           MPI_Dist_graph_neighbors(dgc, 1, ix, MPI_UNWEIGHTED, 2, ed, MPI_UNWEIGHTED));
    MPI_Comm zero;
    MPI_Graph_create(MPI_COMM_WORLD, 0, rix, red, 0, &zero);
    printf("err rank=%d what=zero_nodes rc=%d\n", rank, zero == MPI_COMM_NULL);

    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    MPI_Comm_free(&c2p);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&adj);
    MPI_Comm_free(&dgc);
    MPI_Comm_free(&dgu);
    MPI_Finalize();
    return 0;
}
