/* Timing of every collective algorithm at cpu.scale = 0, one case each.
 *
 * usage: mpirun -n 181 coll_timing_all   (with VACED_COLL_<NAME>=<algorithm>)
 * For each collective whose VACED_COLL_<NAME> variable is set, runs the case
 * of that algorithm (src/coll/tests/schedules.rs: the same sizes, buffers
 * and in-place use as the in-memory tests) once, on a communicator of the
 * case's size made of world ranks 0, 12, 24, ... (every pair 3 hops apart on
 * tianhe1a). Before each case every member computes (virtually) until
 * 10 ms x (case number + 1), so all start together; each member prints
 *   t coll=NAME algo=ALGO rank=R start=S end=E
 * with MPI_Wtime before and after the call (R: rank in the communicator).
 * Ranks outside every communicator only take part in MPI_Comm_split. */
#include <mpi.h>
#include <stdint.h>
#include <string.h>
#include "vtest.h"

static int wrank;
static int ncase;
static MPI_Comm comms[17]; /* by size: world ranks 0, 12, ..., 12 (n - 1) */

static void noncomm(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned char *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = (unsigned char)(a[i] * 3 + b[i]);
}

/* Starts a case on `n` ranks: the communicator (MPI_COMM_NULL if this rank
 * is not in it) after the common start time. */
static MPI_Comm begin(int n, double *start)
{
    double t = 0.01 * ++ncase;
    MPI_Comm c = comms[n];
    if (c == MPI_COMM_NULL)
        return c;
    double now = MPI_Wtime();
    if (now >= t)
        printf("FAIL case %d: rank %d already at %.17g s\n", ncase, wrank, now);
    else
        MPIX_Vaced_compute(t - now);
    *start = MPI_Wtime();
    return c;
}

static void end(MPI_Comm c, const char *coll, const char *algo, double start)
{
    double e = MPI_Wtime();
    int r;
    MPI_Comm_rank(c, &r);
    printf("t coll=%s algo=%s rank=%d start=%.17g end=%.17g\n", coll, algo, r, start, e);
}

/* The forced algorithm of `coll` (VACED_COLL_<COLL>), or NULL. */
static const char *forced(const char *upper)
{
    char var[64];
    snprintf(var, sizeof var, "VACED_COLL_%s", upper);
    return getenv(var);
}

static int is(const char *a, const char *b)
{
    return strcmp(a, b) == 0;
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 181) {
        printf("FAIL needs 181 ranks, has %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int sizes[5] = {2, 3, 4, 5, 16};
    for (int i = 0; i < 17; i++)
        comms[i] = MPI_COMM_NULL;
    for (int k = 0; k < 5; k++) {
        int n = sizes[k];
        int in = wrank % 12 == 0 && wrank / 12 < n;
        MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, wrank, &comms[n]);
    }
    MPI_Op nc;
    MPI_Op_create(noncomm, 0, &nc);
    static unsigned char a[8192], b[8192];
    static uint64_t u[256], v[256];
    for (int i = 0; i < 8192; i++)
        a[i] = (unsigned char)(i * 7 + wrank);
    for (int i = 0; i < 256; i++)
        u[i] = (uint64_t)i + (uint64_t)wrank;
    double s = 0;
    const char *algo;
    MPI_Comm c;
    int r;

    if ((algo = forced("BARRIER")) && (c = begin(5, &s)) != MPI_COMM_NULL) {
        MPI_Barrier(c);
        end(c, "barrier", algo, s);
    }
    if ((algo = forced("BCAST"))) {
        int n = is(algo, "binomial") ? 16 : 2, len = n == 16 ? 1000 : 1999;
        if ((c = begin(n, &s)) != MPI_COMM_NULL) {
            MPI_Bcast(a, len, MPI_BYTE, 0, c);
            end(c, "bcast", algo, s);
        }
    }
    if ((algo = forced("REDUCE")) && (c = begin(4, &s)) != MPI_COMM_NULL) {
        int cnt = is(algo, "binomial") ? 100 : 8;
        MPI_Comm_rank(c, &r);
        MPI_Reduce(r == 0 ? MPI_IN_PLACE : (void *)u, u, cnt, MPI_UINT64_T, MPI_SUM, 0, c);
        end(c, "reduce", algo, s);
    }
    if ((algo = forced("ALLREDUCE")) && (c = begin(4, &s)) != MPI_COMM_NULL) {
        int cnt = is(algo, "recursive_doubling") ? 100 : 8;
        MPI_Allreduce(MPI_IN_PLACE, u, cnt, MPI_UINT64_T, MPI_SUM, c);
        end(c, "allreduce", algo, s);
    }
    if ((algo = forced("GATHER")) && (c = begin(4, &s)) != MPI_COMM_NULL) {
        MPI_Gather(a, 500, MPI_BYTE, b, 500, MPI_BYTE, 0, c);
        end(c, "gather", algo, s);
    }
    int vcounts[4] = {100, 300, 50, 700}, vdispls[4] = {0, 100, 400, 450};
    if ((algo = forced("GATHERV")) && (c = begin(4, &s)) != MPI_COMM_NULL) {
        MPI_Comm_rank(c, &r);
        MPI_Gatherv(a, vcounts[r], MPI_BYTE, b, vcounts, vdispls, MPI_BYTE, 0, c);
        end(c, "gatherv", algo, s);
    }
    if ((algo = forced("SCATTER")) && (c = begin(4, &s)) != MPI_COMM_NULL) {
        MPI_Scatter(a, 500, MPI_BYTE, b, 500, MPI_BYTE, 0, c);
        end(c, "scatter", algo, s);
    }
    if ((algo = forced("SCATTERV")) && (c = begin(4, &s)) != MPI_COMM_NULL) {
        MPI_Comm_rank(c, &r);
        MPI_Scatterv(a, vcounts, vdispls, MPI_BYTE, b, vcounts[r], MPI_BYTE, 0, c);
        end(c, "scatterv", algo, s);
    }
    if ((algo = forced("ALLGATHER"))) {
        int n = is(algo, "bruck") ? 5 : 4;
        if ((c = begin(n, &s)) != MPI_COMM_NULL) {
            MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 500, MPI_BYTE, c);
            end(c, "allgather", algo, s);
        }
    }
    if ((algo = forced("ALLGATHERV"))) {
        int n = is(algo, "recursive_doubling") ? 4 : 3;
        /* 400, 600, 200, 800 bytes as MPI_INTs */
        int counts[4] = {100, 150, 50, 200}, displs[4] = {0, 100, 250, 300};
        if ((c = begin(n, &s)) != MPI_COMM_NULL) {
            MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, counts, displs, MPI_INT, c);
            end(c, "allgatherv", algo, s);
        }
    }
    if ((algo = forced("ALLTOALL"))) {
        int n = 4, blk = 500;
        if (is(algo, "bruck"))
            n = 5, blk = 100;
        if (is(algo, "pairwise_sendrecv_replace"))
            n = 2;
        if ((c = begin(n, &s)) != MPI_COMM_NULL) {
            if (n == 2)
                MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, blk, MPI_BYTE, c);
            else
                MPI_Alltoall(a, blk, MPI_BYTE, b, blk, MPI_BYTE, c);
            end(c, "alltoall", algo, s);
        }
    }
    if ((algo = forced("ALLTOALLV"))) {
        int n = is(algo, "scattered") ? 3 : 2;
        if ((c = begin(n, &s)) != MPI_COMM_NULL) {
            int counts[4], displs[4], d = 0;
            MPI_Comm_rank(c, &r);
            for (int j = 0; j < n; j++) {
                counts[j] = 100 * (1 + (r + j) % 3);
                displs[j] = d;
                d += counts[j];
            }
            if (n == 2)
                MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, counts, displs,
                              MPI_BYTE, c);
            else
                MPI_Alltoallv(a, counts, displs, MPI_BYTE, b, counts, displs, MPI_BYTE, c);
            end(c, "alltoallv", algo, s);
        }
    }
    /* Reduce_scatter(_block): blocks of 2 u64 (MPI_SUM) for recursive
     * halving and pairwise (3 ranks), of 2 bytes of a non-commutative
     * operator for the others. */
    const char *rs_names[2] = {"REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK"};
    for (int blk = 0; blk < 2; blk++) {
        if (!(algo = forced(rs_names[blk])))
            continue;
        int n = is(algo, "pairwise") ? 3 : 4;
        int sum = is(algo, "recursive_halving") || is(algo, "pairwise");
        if ((c = begin(n, &s)) == MPI_COMM_NULL)
            continue;
        int counts[4] = {2, 2, 2, 2};
        void *sb = sum ? (void *)u : (void *)a, *rb = sum ? (void *)v : (void *)b;
        MPI_Datatype t = sum ? MPI_UINT64_T : MPI_BYTE;
        MPI_Op op = sum ? MPI_SUM : nc;
        if (blk)
            MPI_Reduce_scatter_block(sb, rb, 2, t, op, c);
        else
            MPI_Reduce_scatter(sb, rb, counts, t, op, c);
        end(c, blk ? "reduce_scatter_block" : "reduce_scatter", algo, s);
    }
    if ((algo = forced("SCAN")) && (c = begin(4, &s)) != MPI_COMM_NULL) {
        MPI_Scan(MPI_IN_PLACE, u, 100, MPI_UINT64_T, MPI_SUM, c);
        end(c, "scan", algo, s);
    }
    if ((algo = forced("EXSCAN")) && (c = begin(4, &s)) != MPI_COMM_NULL) {
        MPI_Exscan(u, v, 100, MPI_UINT64_T, MPI_SUM, c);
        end(c, "exscan", algo, s);
    }
    for (int i = 0; i < 17; i++)
        if (comms[i] != MPI_COMM_NULL)
            MPI_Comm_free(&comms[i]);
    MPI_Op_free(&nc);
    MPI_Finalize();
    return 0;
}
