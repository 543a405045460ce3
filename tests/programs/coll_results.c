/* Result test of every collective call and of the reduction operators.
 *
 * usage: coll_results COUNT[:NAME,NAME...]...
 *
 * For each COUNT, every collective (or, after a colon, only those named:
 * barrier, bcast, reduce, allreduce, gather, gatherv, scatter, scatterv,
 * allgather, allgatherv, alltoall, alltoallv, alltoallw, reduce_scatter,
 * reduce_scatter_block, scan, reduce_local) runs on MPI_COMM_WORLD and on
 * MPI_COMM_SELF with data that depends on the ranks and positions, in its
 * plain form and with MPI_IN_PLACE wherever the standard allows it, with
 * MPI_INT and with padded pair types (MPI_SHORT_INT, MPI_DOUBLE_INT: packed
 * and unpacked around their gaps, which must stay untouched). COUNT is the
 * number of elements per rank (the v-variants vary it around COUNT). The
 * reductions cover predefined operators on several types (MAXLOC / MINLOC
 * with ties, long double, complex, C _Bool), a non-commutative user
 * operator (composition of affine maps, checked against the rank order the
 * standard requires) and a commutative one on a padded type.
 *
 * Every rank checks what it got against values it computes itself and
 * prints a FAIL line per mismatch (at most 10), then
 *   done rank=R checks=K colls=NAME,NAME,...
 * naming every MPI call it checked. */
#include <complex.h>
#include <mpi.h>
#include <stdarg.h>
#include <string.h>
#include "vtest.h"

static int wrank;
static long checks, fails;
static const char *seen[64];
static int nseen;

static void saw(const char *name)
{
    for (int i = 0; i < nseen; i++)
        if (strcmp(seen[i], name) == 0)
            return;
    seen[nseen++] = name;
}

/* One check: `ok`, else a FAIL line with the printf-style message. */
static void check(int ok, const char *call, const char *fmt, ...)
{
    saw(call);
    checks++;
    if (ok || fails++ >= 10)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("FAIL rank=%d %s: %s\n", wrank, call, msg);
}

/* ---- data ------------------------------------------------------------- */

static int V(int r, long k)
{
    return (int)(((long)r * 131 + k * 7) % 1001) - 500;
}

static int sumV(int lo, int hi, long k)
{
    int s = 0;
    for (int r = lo; r < hi; r++)
        s += V(r, k);
    return s;
}

/* Index of the first element where got != want (ints), or -1. */
static long diff(const int *got, const int *want, long n)
{
    for (long k = 0; k < n; k++)
        if (got[k] != want[k])
            return k;
    return -1;
}

static int *ints(long n, int fill)
{
    int *p = vt_malloc(n * sizeof(int));
    for (long k = 0; k < n; k++)
        p[k] = fill;
    return p;
}

/* MPI_SHORT_INT: {short; 2 bytes of padding; int}. The padding is set to
 * 0xEE and must stay so (the library unpacks around it). */
typedef struct {
    short s;
    int i;
} short_int;

static short_int *sis(long n)
{
    short_int *p = vt_malloc(n * sizeof *p);
    memset(p, 0xEE, n * sizeof *p);
    return p;
}

static void si_set(short_int *p, int v, int i)
{
    p->s = (short)v;
    p->i = i;
}

/* 1 if element p holds (v, i) and its padding is intact. */
static int si_is(const short_int *p, int v, int i)
{
    const unsigned char *b = (const unsigned char *)p;
    return p->s == (short)v && p->i == i && b[2] == 0xEE && b[3] == 0xEE;
}

/* Affine maps x -> a x + b, composed by the non-commutative user operator:
 * inout = in o inout, so a reduction over ranks lo..hi-1 is
 * A(lo) o A(lo+1) o ... o A(hi-1). Arithmetic wraps (unsigned). */
typedef struct {
    int a, b;
} aff;

static aff A(int r, long k)
{
    aff v = {r % 3 + 2, (int)(r * 7 + k)};
    return v;
}

static aff compose(aff x, aff y)
{
    aff z = {(int)((unsigned)x.a * (unsigned)y.a),
             (int)((unsigned)x.a * (unsigned)y.b + (unsigned)x.b)};
    return z;
}

static aff A_range(int lo, int hi, long k)
{
    aff acc = A(hi - 1, k);
    for (int r = hi - 2; r >= lo; r--)
        acc = compose(A(r, k), acc);
    return acc;
}

static int bad_datatype;

static void aff_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    aff *x = in, *y = inout;
    if (*dt != MPI_2INT)
        bad_datatype = 1;
    for (int i = 0; i < *len; i++)
        y[i] = compose(x[i], y[i]);
}

static long aff_diff(const aff *got, int lo, int hi, long n)
{
    for (long k = 0; k < n; k++) {
        aff w = A_range(lo, hi, k);
        if (got[k].a != w.a || got[k].b != w.b)
            return k;
    }
    return -1;
}

/* MPI_DOUBLE_INT {double; int; 4 bytes of padding}: summed by a commutative
 * user operator, which sees the elements in memory layout. */
typedef struct {
    double v;
    int i;
} double_int;

static void di_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    double_int *x = in, *y = inout;
    if (*dt != MPI_DOUBLE_INT)
        bad_datatype = 1;
    for (int i = 0; i < *len; i++) {
        y[i].v += x[i].v;
        y[i].i += x[i].i;
    }
}

static MPI_Op op_aff, op_di;

/* ---- the v-layouts ----------------------------------------------------
 * Rank r's count in the v-variants: some ranks give nothing. Blocks are
 * placed in reverse rank order with one element of gap before each. */
static int vcount(int r, long c)
{
    return r % 3 == 1 ? 0 : (int)(c + r % 4);
}

static long vlayout(int np, long c, int *counts, int *displs)
{
    long pos = 0;
    for (int r = np - 1; r >= 0; r--) {
        pos += 1;
        counts[r] = vcount(r, c);
        displs[r] = (int)pos;
        pos += counts[r];
    }
    return pos;
}

/* ---- collectives --------------------------------------------------------- */

static void t_barrier(MPI_Comm comm)
{
    check(MPI_Barrier(comm) == MPI_SUCCESS, "MPI_Barrier", "failed");
}

static void t_bcast(MPI_Comm comm, int me, int np, long c)
{
    int root = (int)(c % np);
    int *b = ints(c, -7), *w = ints(c, 0);
    for (long k = 0; k < c; k++) {
        w[k] = V(root, k);
        if (me == root)
            b[k] = w[k];
    }
    MPI_Bcast(b, (int)c, MPI_INT, root, comm);
    long d = diff(b, w, c);
    check(d < 0, "MPI_Bcast", "count=%ld root=%d: element %ld is %d, expected %d", c, root, d,
          d < 0 ? 0 : b[d], d < 0 ? 0 : w[d]);
    short_int *p = sis(c);
    if (me == root)
        for (long k = 0; k < c; k++)
            si_set(&p[k], V(root, k), (int)k);
    MPI_Bcast(p, (int)c, MPI_SHORT_INT, root, comm);
    long bad = -1;
    for (long k = 0; k < c && bad < 0; k++)
        if (!si_is(&p[k], V(root, k), (int)k))
            bad = k;
    check(bad < 0, "MPI_Bcast", "MPI_SHORT_INT count=%ld: element %ld wrong", c, bad);
    free(b), free(w), free(p);
}

static void t_reduce(MPI_Comm comm, int me, int np, long c)
{
    int root = (int)((c / 2 + 1) % np);
    int *s = ints(c, 0), *r = ints(c, -7), *w = ints(c, 0);
    for (long k = 0; k < c; k++) {
        s[k] = V(me, k);
        w[k] = sumV(0, np, k);
    }
    MPI_Reduce(s, me == root ? r : NULL, (int)c, MPI_INT, MPI_SUM, root, comm);
    if (me == root) {
        long d = diff(r, w, c);
        check(d < 0, "MPI_Reduce", "SUM count=%ld root=%d: element %ld is %d, expected %d", c,
              root, d, d < 0 ? 0 : r[d], d < 0 ? 0 : w[d]);
        memcpy(r, s, c * sizeof(int));
        MPI_Reduce(MPI_IN_PLACE, r, (int)c, MPI_INT, MPI_SUM, root, comm);
        d = diff(r, w, c);
        check(d < 0, "MPI_Reduce", "in place, count=%ld: element %ld wrong", c, d);
    } else {
        MPI_Reduce(s, NULL, (int)c, MPI_INT, MPI_SUM, root, comm);
    }
    /* non-commutative, to a root that is not rank 0 */
    aff *x = vt_malloc((c + 1) * sizeof(aff)), *y = vt_malloc((c + 1) * sizeof(aff));
    for (long k = 0; k < c; k++)
        x[k] = A(me, k);
    int root2 = np - 1;
    MPI_Reduce(x, y, (int)c, MPI_2INT, op_aff, root2, comm);
    if (me == root2) {
        long d = aff_diff(y, 0, np, c);
        check(d < 0, "MPI_Reduce", "non-commutative op count=%ld root=%d: element %ld wrong", c,
              root2, d);
    }
    free(s), free(r), free(w), free(x), free(y);
}

static void t_allreduce(MPI_Comm comm, int me, int np, long c)
{
    const char *n = "MPI_Allreduce";
    long d;
    /* SUM on MPI_INT, then in place */
    int *s = ints(c, 0), *r = ints(c, -7), *w = ints(c, 0);
    for (long k = 0; k < c; k++) {
        s[k] = V(me, k);
        w[k] = sumV(0, np, k);
    }
    MPI_Allreduce(s, r, (int)c, MPI_INT, MPI_SUM, comm);
    d = diff(r, w, c);
    check(d < 0, n, "SUM count=%ld: element %ld is %d, expected %d", c, d, d < 0 ? 0 : r[d],
          d < 0 ? 0 : w[d]);
    memcpy(r, s, c * sizeof(int));
    MPI_Allreduce(MPI_IN_PLACE, r, (int)c, MPI_INT, MPI_SUM, comm);
    d = diff(r, w, c);
    check(d < 0, n, "SUM in place count=%ld: element %ld wrong", c, d);

    /* MAX on MPI_DOUBLE, in place */
    double *x = vt_malloc((c + 1) * sizeof(double));
    for (long k = 0; k < c; k++)
        x[k] = V(me, k) * 0.5;
    MPI_Allreduce(MPI_IN_PLACE, x, (int)c, MPI_DOUBLE, MPI_MAX, comm);
    d = -1;
    for (long k = 0; k < c && d < 0; k++) {
        double m = V(0, k) * 0.5;
        for (int q = 1; q < np; q++)
            if (V(q, k) * 0.5 > m)
                m = V(q, k) * 0.5;
        if (x[k] != m)
            d = k;
    }
    check(d < 0, n, "MAX on MPI_DOUBLE count=%ld: element %ld wrong", c, d);
    free(x);

    /* MAXLOC on MPI_DOUBLE_INT (padded): ties go to the smaller index */
    double_int *ds = vt_malloc((c + 1) * sizeof *ds), *dr = vt_malloc((c + 1) * sizeof *dr);
    memset(dr, 0xEE, (c + 1) * sizeof *dr);
    for (long k = 0; k < c; k++) {
        ds[k].v = (double)((me * 7 + k) % 5);
        ds[k].i = me;
    }
    MPI_Allreduce(ds, dr, (int)c, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    d = -1;
    for (long k = 0; k < c && d < 0; k++) {
        double m = -1;
        int at = -1;
        for (int q = 0; q < np; q++)
            if ((double)((q * 7 + k) % 5) > m)
                m = (double)((q * 7 + k) % 5), at = q;
        const unsigned char *pad = (const unsigned char *)&dr[k] + 12;
        if (dr[k].v != m || dr[k].i != at || pad[0] != 0xEE || pad[3] != 0xEE)
            d = k;
    }
    check(d < 0, n, "MAXLOC on MPI_DOUBLE_INT count=%ld: element %ld wrong", c, d);

    /* commutative user operator on MPI_DOUBLE_INT */
    MPI_Allreduce(ds, dr, (int)c, MPI_DOUBLE_INT, op_di, comm);
    d = -1;
    for (long k = 0; k < c && d < 0; k++) {
        double sv = 0;
        for (int q = 0; q < np; q++)
            sv += (double)((q * 7 + k) % 5);
        if (dr[k].v != sv || dr[k].i != np * (np - 1) / 2)
            d = k;
    }
    check(d < 0, n, "user op on MPI_DOUBLE_INT count=%ld: element %ld wrong", c, d);
    free(ds), free(dr);

    /* MINLOC on MPI_2INT: many ties; the index is not the rank */
    int *p = ints(2 * c + 2, 0), *pr = ints(2 * c + 2, -7);
    for (long k = 0; k < c; k++) {
        p[2 * k] = (int)((me * 3 + k) % 4);
        p[2 * k + 1] = np - 1 - me;
    }
    MPI_Allreduce(p, pr, (int)c, MPI_2INT, MPI_MINLOC, comm);
    d = -1;
    for (long k = 0; k < c && d < 0; k++) {
        int m = 99, at = 99;
        for (int q = 0; q < np; q++) {
            int v = (int)((q * 3 + k) % 4), i = np - 1 - q;
            if (v < m || (v == m && i < at))
                m = v, at = i;
        }
        if (pr[2 * k] != m || pr[2 * k + 1] != at)
            d = k;
    }
    check(d < 0, n, "MINLOC on MPI_2INT count=%ld: element %ld wrong", c, d);
    free(p), free(pr);

    /* SUM on MPI_LONG_DOUBLE (applied by C code inside the library) */
    long double *l = vt_malloc((c + 1) * sizeof(long double));
    for (long k = 0; k < c; k++)
        l[k] = (long double)V(me, k) + 0.25L;
    MPI_Allreduce(MPI_IN_PLACE, l, (int)c, MPI_LONG_DOUBLE, MPI_SUM, comm);
    d = -1;
    for (long k = 0; k < c && d < 0; k++)
        if (l[k] != (long double)sumV(0, np, k) + 0.25L * np)
            d = k;
    check(d < 0, n, "SUM on MPI_LONG_DOUBLE count=%ld: element %ld wrong", c, d);
    free(l);

    /* PROD on MPI_C_DOUBLE_COMPLEX: Gaussian integers, exact */
    double complex *z = vt_malloc((c + 1) * sizeof(double complex));
    for (long k = 0; k < c; k++)
        z[k] = (me + k) % 3 == 0 ? 1 + 1 * I : ((me + k) % 3 == 1 ? 0 + 1 * I : 1);
    MPI_Allreduce(MPI_IN_PLACE, z, (int)c, MPI_C_DOUBLE_COMPLEX, MPI_PROD, comm);
    d = -1;
    for (long k = 0; k < c && d < 0; k++) {
        double complex e = 1;
        for (int q = 0; q < np; q++)
            e *= (q + k) % 3 == 0 ? 1 + 1 * I : ((q + k) % 3 == 1 ? 0 + 1 * I : 1);
        if (z[k] != e)
            d = k;
    }
    check(d < 0, n, "PROD on MPI_C_DOUBLE_COMPLEX count=%ld: element %ld wrong", c, d);
    free(z);

    /* BXOR on MPI_UNSIGNED, LOR on MPI_C_BOOL */
    unsigned *u = vt_malloc((c + 1) * sizeof(unsigned));
    _Bool *b = vt_malloc(c + 1);
    for (long k = 0; k < c; k++) {
        u[k] = (unsigned)me * 2654435761u + (unsigned)k;
        b[k] = (me + k) % 5 == 0;
    }
    MPI_Allreduce(MPI_IN_PLACE, u, (int)c, MPI_UNSIGNED, MPI_BXOR, comm);
    MPI_Allreduce(MPI_IN_PLACE, b, (int)c, MPI_C_BOOL, MPI_LOR, comm);
    d = -1;
    for (long k = 0; k < c && d < 0; k++) {
        unsigned e = 0;
        _Bool any = 0;
        for (int q = 0; q < np; q++) {
            e ^= (unsigned)q * 2654435761u + (unsigned)k;
            any = any || (q + k) % 5 == 0;
        }
        if (u[k] != e || b[k] != any)
            d = k;
    }
    check(d < 0, n, "BXOR on MPI_UNSIGNED / LOR on MPI_C_BOOL count=%ld: element %ld wrong", c,
          d);
    free(u), free(b);

    /* non-commutative user operator, in place */
    aff *a = vt_malloc((c + 1) * sizeof(aff));
    for (long k = 0; k < c; k++)
        a[k] = A(me, k);
    MPI_Allreduce(MPI_IN_PLACE, a, (int)c, MPI_2INT, op_aff, comm);
    d = aff_diff(a, 0, np, c);
    check(d < 0, n, "non-commutative op count=%ld: element %ld wrong", c, d);
    free(a), free(s), free(r), free(w);
}

static void t_gather(MPI_Comm comm, int me, int np, long c)
{
    int root = np - 1 - (int)(c % np);
    int *s = ints(c, 0), *r = ints(np * c + 1, -7);
    for (long k = 0; k < c; k++)
        s[k] = V(me, k);
    MPI_Gather(s, (int)c, MPI_INT, r, (int)c, MPI_INT, root, comm);
    if (me == root) {
        long bad = -1;
        for (long k = 0; k < np * c && bad < 0; k++)
            if (r[k] != V((int)(k / c), k % c))
                bad = k;
        check(bad < 0 && r[np * c] == -7, "MPI_Gather", "count=%ld root=%d: element %ld wrong",
              c, root, bad);
        for (long k = 0; k < np * c; k++)
            r[k] = k / c == root ? V(root, k % c) : -7;
        MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, (int)c, MPI_INT, root, comm);
        bad = -1;
        for (long k = 0; k < np * c && bad < 0; k++)
            if (r[k] != V((int)(k / c), k % c))
                bad = k;
        check(bad < 0, "MPI_Gather", "in place count=%ld: element %ld wrong", c, bad);
    } else {
        MPI_Gather(s, (int)c, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, comm);
    }
    /* padded type */
    short_int *ps = sis(c + 1), *pr = sis(np * c + 1);
    for (long k = 0; k < c; k++)
        si_set(&ps[k], V(me, k), me);
    MPI_Gather(ps, (int)c, MPI_SHORT_INT, pr, (int)c, MPI_SHORT_INT, root, comm);
    if (me == root) {
        long bad = -1;
        for (long k = 0; k < np * c && bad < 0; k++)
            if (!si_is(&pr[k], V((int)(k / c), k % c), (int)(k / c)))
                bad = k;
        check(bad < 0, "MPI_Gather", "MPI_SHORT_INT count=%ld: element %ld wrong", c, bad);
    }
    free(s), free(r), free(ps), free(pr);
}

static void t_gatherv(MPI_Comm comm, int me, int np, long c)
{
    int root = (int)((c + 1) % np);
    int *counts = ints(np, 0), *displs = ints(np, 0);
    long total = vlayout(np, c, counts, displs);
    int mine = counts[me];
    int *s = ints(mine + 1, 0), *r = ints(total, -7);
    for (long k = 0; k < mine; k++)
        s[k] = V(me, k);
    for (int inplace = 0; inplace < 2; inplace++) {
        if (me == root) {
            for (long k = 0; k < total; k++)
                r[k] = -7;
            if (inplace)
                memcpy(r + displs[root], s, mine * sizeof(int));
            MPI_Gatherv(inplace ? MPI_IN_PLACE : s, mine, MPI_INT, r, counts, displs, MPI_INT,
                        root, comm);
            long bad = -1, at = 0;
            for (int q = np - 1; q >= 0 && bad < 0; q--) {
                if (r[at] != -7)
                    bad = at; /* the gap */
                at++;
                for (long k = 0; k < counts[q] && bad < 0; k++, at++)
                    if (r[at] != V(q, k))
                        bad = at;
            }
            check(bad < 0, "MPI_Gatherv", "%scount=%ld root=%d: element %ld wrong",
                  inplace ? "in place " : "", c, root, bad);
        } else {
            MPI_Gatherv(s, mine, MPI_INT, NULL, NULL, NULL, MPI_INT, root, comm);
        }
    }
    free(counts), free(displs), free(s), free(r);
}

static void t_scatter(MPI_Comm comm, int me, int np, long c)
{
    int root = (int)(c % np);
    int *s = ints(np * c + 1, 0), *r = ints(c + 1, -7);
    for (long k = 0; k < np * c; k++)
        s[k] = V((int)(k / c), k % c) + 1;
    MPI_Scatter(s, (int)c, MPI_INT, r, (int)c, MPI_INT, root, comm);
    long bad = -1;
    for (long k = 0; k < c && bad < 0; k++)
        if (r[k] != V(me, k) + 1)
            bad = k;
    check(bad < 0 && r[c] == -7, "MPI_Scatter", "count=%ld root=%d: element %ld wrong", c, root,
          bad);
    /* in place at the root: its block stays in the send buffer */
    if (me == root) {
        MPI_Scatter(s, (int)c, MPI_INT, MPI_IN_PLACE, (int)c, MPI_INT, root, comm);
        check(s[root * c] == V(root, 0) + 1 || c == 0, "MPI_Scatter", "in place changed sendbuf");
    } else {
        for (long k = 0; k < c; k++)
            r[k] = -7;
        MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, r, (int)c, MPI_INT, root, comm);
        bad = -1;
        for (long k = 0; k < c && bad < 0; k++)
            if (r[k] != V(me, k) + 1)
                bad = k;
        check(bad < 0, "MPI_Scatter", "with an in-place root count=%ld: element %ld wrong", c,
              bad);
    }
    free(s), free(r);
}

static void t_scatterv(MPI_Comm comm, int me, int np, long c)
{
    int root = np / 2;
    int *counts = ints(np, 0), *displs = ints(np, 0);
    long total = vlayout(np, c, counts, displs);
    int *s = ints(total, -1), *r = ints(counts[me] + 1, -7);
    for (int q = 0; q < np; q++)
        for (long k = 0; k < counts[q]; k++)
            s[displs[q] + k] = V(q, k) - 3;
    for (int inplace = 0; inplace < 2; inplace++) {
        int ip = inplace && me == root;
        MPI_Scatterv(s, counts, displs, MPI_INT, ip ? MPI_IN_PLACE : r, counts[me], MPI_INT, root,
                     comm);
        if (ip)
            continue;
        long bad = -1;
        for (long k = 0; k < counts[me] && bad < 0; k++)
            if (r[k] != V(me, k) - 3)
                bad = k;
        check(bad < 0 && r[counts[me]] == -7, "MPI_Scatterv",
              "%scount=%ld root=%d: element %ld wrong", inplace ? "in place " : "", c, root, bad);
        for (long k = 0; k < counts[me]; k++)
            r[k] = -7;
    }
    free(counts), free(displs), free(s), free(r);
}

static void t_allgather(MPI_Comm comm, int me, int np, long c)
{
    int *s = ints(c + 1, 0), *r = ints(np * c + 1, -7);
    for (long k = 0; k < c; k++)
        s[k] = V(me, k);
    for (int inplace = 0; inplace < 2; inplace++) {
        for (long k = 0; k < np * c; k++)
            r[k] = inplace && k / c == me ? s[k % c] : -7;
        MPI_Allgather(inplace ? MPI_IN_PLACE : s, (int)c, MPI_INT, r, (int)c, MPI_INT, comm);
        long bad = -1;
        for (long k = 0; k < np * c && bad < 0; k++)
            if (r[k] != V((int)(k / c), k % c))
                bad = k;
        check(bad < 0 && r[np * c] == -7, "MPI_Allgather", "%scount=%ld: element %ld wrong",
              inplace ? "in place " : "", c, bad);
    }
    short_int *ps = sis(c + 1), *pr = sis(np * c + 1);
    for (long k = 0; k < c; k++)
        si_set(&ps[k], V(me, k), (int)k);
    MPI_Allgather(ps, (int)c, MPI_SHORT_INT, pr, (int)c, MPI_SHORT_INT, comm);
    long bad = -1;
    for (long k = 0; k < np * c && bad < 0; k++)
        if (!si_is(&pr[k], V((int)(k / c), k % c), (int)(k % c)))
            bad = k;
    check(bad < 0, "MPI_Allgather", "MPI_SHORT_INT count=%ld: element %ld wrong", c, bad);
    free(s), free(r), free(ps), free(pr);
}

static void t_allgatherv(MPI_Comm comm, int me, int np, long c)
{
    int *counts = ints(np, 0), *displs = ints(np, 0);
    long total = vlayout(np, c, counts, displs);
    int *s = ints(counts[me] + 1, 0), *r = ints(total, -7);
    for (long k = 0; k < counts[me]; k++)
        s[k] = V(me, k) * 2;
    for (int inplace = 0; inplace < 2; inplace++) {
        for (long k = 0; k < total; k++)
            r[k] = -7;
        if (inplace)
            memcpy(r + displs[me], s, counts[me] * sizeof(int));
        MPI_Allgatherv(inplace ? MPI_IN_PLACE : s, counts[me], MPI_INT, r, counts, displs,
                       MPI_INT, comm);
        long bad = -1;
        for (int q = 0; q < np && bad < 0; q++) {
            if (r[displs[q] - 1] != -7)
                bad = displs[q] - 1;
            for (long k = 0; k < counts[q] && bad < 0; k++)
                if (r[displs[q] + k] != V(q, k) * 2)
                    bad = displs[q] + k;
        }
        check(bad < 0, "MPI_Allgatherv", "%scount=%ld: element %ld wrong",
              inplace ? "in place " : "", c, bad);
    }
    free(counts), free(displs), free(s), free(r);
}

/* What rank i sends rank j at position k in the all-to-alls. */
static int W(int i, int j, long k)
{
    return (int)((i * 1009L + j * 31L + k * 7L) % 100003L);
}

static void t_alltoall(MPI_Comm comm, int me, int np, long c)
{
    int *s = ints(np * c + 1, 0), *r = ints(np * c + 1, -7);
    for (int j = 0; j < np; j++)
        for (long k = 0; k < c; k++)
            s[j * c + k] = W(me, j, k);
    for (int inplace = 0; inplace < 2; inplace++) {
        if (inplace)
            memcpy(r, s, np * c * sizeof(int));
        MPI_Alltoall(inplace ? MPI_IN_PLACE : s, (int)c, MPI_INT, r, (int)c, MPI_INT, comm);
        long bad = -1;
        for (long k = 0; k < np * c && bad < 0; k++)
            if (r[k] != W((int)(k / c), me, k % c))
                bad = k;
        check(bad < 0 && r[np * c] == -7, "MPI_Alltoall", "%scount=%ld: element %ld wrong",
              inplace ? "in place " : "", c, bad);
    }
    free(s), free(r);
}

/* Alltoallv counts: rank i sends a(i, j) ints to rank j; symmetric for the
 * in-place form. Blocks in reverse order with a gap of 2. */
static int a_cnt(int i, int j, long c, int sym)
{
    return (int)(c / 2 + (sym ? (i + j) % 3 : (i + 2 * j) % 3));
}

static long a_layout(int np, int me, long c, int sym, int send, int *cnt, int *dsp)
{
    long pos = 0;
    for (int j = np - 1; j >= 0; j--) {
        pos += 2;
        cnt[j] = send ? a_cnt(me, j, c, sym) : a_cnt(j, me, c, sym);
        dsp[j] = (int)pos;
        pos += cnt[j];
    }
    return pos;
}

static void t_alltoallv(MPI_Comm comm, int me, int np, long c)
{
    int *sc = ints(np, 0), *sd = ints(np, 0), *rc = ints(np, 0), *rd = ints(np, 0);
    for (int inplace = 0; inplace < 2; inplace++) {
        long st = a_layout(np, me, c, inplace, 1, sc, sd);
        long rt = a_layout(np, me, c, inplace, 0, rc, rd);
        int *s = ints(st, -1), *r = ints(rt, -7);
        int *src = inplace ? r : s;
        int *sdsp = inplace ? rd : sd, *scnt = inplace ? rc : sc;
        for (int j = 0; j < np; j++)
            for (long k = 0; k < scnt[j]; k++)
                src[sdsp[j] + k] = W(me, j, k);
        MPI_Alltoallv(inplace ? MPI_IN_PLACE : s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
        long bad = -1;
        for (int j = 0; j < np && bad < 0; j++) {
            if (r[rd[j] - 1] != -7 || r[rd[j] - 2] != -7)
                bad = rd[j] - 1;
            for (long k = 0; k < rc[j] && bad < 0; k++)
                if (r[rd[j] + k] != W(j, me, k))
                    bad = rd[j] + k;
        }
        check(bad < 0, "MPI_Alltoallv", "%scount=%ld: element %ld wrong",
              inplace ? "in place " : "", c, bad);
        free(s), free(r);
    }
    free(sc), free(sd), free(rc), free(rd);
}

/* Alltoallw: the pair (i, j) exchanges MPI_INT when i + j is even, else
 * MPI_SHORT_INT (padded); displacements in bytes, blocks in reverse order
 * with 8 bytes of gap. */
static void t_alltoallw(MPI_Comm comm, int me, int np, long c)
{
    int *sc = ints(np, 0), *sd = ints(np, 0), *rc = ints(np, 0), *rd = ints(np, 0);
    MPI_Datatype *types = vt_malloc(np * sizeof(MPI_Datatype));
    for (int inplace = 0; inplace < 2; inplace++) {
        long sb = 0, rb = 0;
        for (int j = np - 1; j >= 0; j--) {
            types[j] = (me + j) % 2 == 0 ? MPI_INT : MPI_SHORT_INT;
            long ext = (me + j) % 2 == 0 ? sizeof(int) : sizeof(short_int);
            sc[j] = a_cnt(me, j, c, inplace);
            rc[j] = a_cnt(j, me, c, inplace);
            sb += 8, rb += 8;
            sd[j] = (int)sb, rd[j] = (int)rb;
            sb += sc[j] * ext, rb += rc[j] * ext;
        }
        unsigned char *s = vt_malloc(sb + 8), *r = vt_malloc(rb + 8);
        memset(s, 0xEE, sb + 8), memset(r, 0xEE, rb + 8);
        unsigned char *src = inplace ? r : s;
        int *scnt = inplace ? rc : sc, *sdsp = inplace ? rd : sd;
        for (int j = 0; j < np; j++)
            for (long k = 0; k < scnt[j]; k++) {
                if (types[j] == MPI_INT)
                    ((int *)(src + sdsp[j]))[k] = W(me, j, k);
                else
                    si_set((short_int *)(src + sdsp[j]) + k, W(me, j, k), (int)k);
            }
        MPI_Alltoallw(inplace ? MPI_IN_PLACE : s, sc, sd, types, r, rc, rd, types, comm);
        long bad = -1;
        for (int j = 0; j < np && bad < 0; j++) {
            if (r[rd[j] - 1] != 0xEE)
                bad = rd[j] - 1;
            for (long k = 0; k < rc[j] && bad < 0; k++) {
                int ok = types[j] == MPI_INT
                             ? ((int *)(r + rd[j]))[k] == W(j, me, k)
                             : si_is((short_int *)(r + rd[j]) + k, W(j, me, k), (int)k);
                if (!ok)
                    bad = rd[j] + k;
            }
        }
        check(bad < 0, "MPI_Alltoallw", "%scount=%ld: byte %ld wrong",
              inplace ? "in place " : "", c, bad);
        free(s), free(r);
    }
    free(sc), free(sd), free(rc), free(rd), free(types);
}

static void t_reduce_scatter(MPI_Comm comm, int me, int np, long c)
{
    int *counts = ints(np, 0);
    long total = 0, off = 0;
    for (int q = 0; q < np; q++) {
        counts[q] = (int)(c + q % 2);
        if (q < me)
            off += counts[q];
        total += counts[q];
    }
    int *s = ints(total + 1, 0), *r = ints(total + 1, -7);
    for (long k = 0; k < total; k++)
        s[k] = V(me, k);
    for (int inplace = 0; inplace < 2; inplace++) {
        if (inplace)
            memcpy(r, s, total * sizeof(int));
        MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : s, r, counts, MPI_INT, MPI_SUM, comm);
        long bad = -1;
        for (long k = 0; k < counts[me] && bad < 0; k++)
            if (r[k] != sumV(0, np, off + k))
                bad = k;
        check(bad < 0, "MPI_Reduce_scatter", "%scount=%ld: element %ld wrong",
              inplace ? "in place " : "", c, bad);
    }
    /* non-commutative, irregular counts */
    long atotal = 0, aoff = 0;
    for (int q = 0; q < np; q++) {
        counts[q] = (int)(c / 2 + q % 3);
        if (q < me)
            aoff += counts[q];
        atotal += counts[q];
    }
    aff *x = vt_malloc((atotal + 1) * sizeof(aff)), *y = vt_malloc((atotal + 1) * sizeof(aff));
    for (long k = 0; k < atotal; k++)
        x[k] = A(me, k);
    MPI_Reduce_scatter(x, y, counts, MPI_2INT, op_aff, comm);
    long bad = -1;
    for (long k = 0; k < counts[me] && bad < 0; k++) {
        aff w = A_range(0, np, aoff + k);
        if (y[k].a != w.a || y[k].b != w.b)
            bad = k;
    }
    check(bad < 0, "MPI_Reduce_scatter", "non-commutative op count=%ld: element %ld wrong", c,
          bad);
    free(counts), free(s), free(r), free(x), free(y);
}

static void t_reduce_scatter_block(MPI_Comm comm, int me, int np, long c)
{
    int *s = ints(np * c + 1, 0), *r = ints(np * c + 1, -7);
    for (long k = 0; k < np * c; k++)
        s[k] = V(me, k);
    for (int inplace = 0; inplace < 2; inplace++) {
        if (inplace)
            memcpy(r, s, np * c * sizeof(int));
        MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : s, r, (int)c, MPI_INT, MPI_SUM, comm);
        long bad = -1;
        for (long k = 0; k < c && bad < 0; k++)
            if (r[k] != sumV(0, np, me * c + k))
                bad = k;
        check(bad < 0, "MPI_Reduce_scatter_block", "%scount=%ld: element %ld wrong",
              inplace ? "in place " : "", c, bad);
    }
    aff *x = vt_malloc((np * c + 1) * sizeof(aff)), *y = vt_malloc((c + 1) * sizeof(aff));
    for (long k = 0; k < np * c; k++)
        x[k] = A(me, k);
    MPI_Reduce_scatter_block(x, y, (int)c, MPI_2INT, op_aff, comm);
    long bad = -1;
    for (long k = 0; k < c && bad < 0; k++) {
        aff w = A_range(0, np, me * c + k);
        if (y[k].a != w.a || y[k].b != w.b)
            bad = k;
    }
    check(bad < 0, "MPI_Reduce_scatter_block", "non-commutative op count=%ld: element %ld wrong",
          c, bad);
    free(s), free(r), free(x), free(y);
}

static void t_scans(MPI_Comm comm, int me, int np, long c)
{
    int *s = ints(c + 1, 0), *r = ints(c + 1, -7);
    for (long k = 0; k < c; k++)
        s[k] = V(me, k);
    for (int inplace = 0; inplace < 2; inplace++) {
        if (inplace)
            memcpy(r, s, c * sizeof(int));
        MPI_Scan(inplace ? MPI_IN_PLACE : s, r, (int)c, MPI_INT, MPI_SUM, comm);
        long bad = -1;
        for (long k = 0; k < c && bad < 0; k++)
            if (r[k] != sumV(0, me + 1, k))
                bad = k;
        check(bad < 0, "MPI_Scan", "%scount=%ld: element %ld wrong", inplace ? "in place " : "",
              c, bad);
        /* Exscan: rank 0's receive buffer is left alone */
        for (long k = 0; k < c; k++)
            r[k] = inplace && me > 0 ? s[k] : -7;
        if (inplace && me == 0)
            memcpy(r, s, c * sizeof(int));
        MPI_Exscan(inplace ? MPI_IN_PLACE : s, r, (int)c, MPI_INT, MPI_SUM, comm);
        bad = -1;
        for (long k = 0; k < c && bad < 0; k++)
            if (r[k] != (me == 0 ? (inplace ? s[k] : -7) : sumV(0, me, k)))
                bad = k;
        check(bad < 0, "MPI_Exscan", "%scount=%ld: element %ld wrong", inplace ? "in place " : "",
              c, bad);
    }
    aff *x = vt_malloc((c + 1) * sizeof(aff)), *y = vt_malloc((c + 1) * sizeof(aff));
    for (long k = 0; k < c; k++)
        x[k] = A(me, k);
    MPI_Scan(x, y, (int)c, MPI_2INT, op_aff, comm);
    long d = aff_diff(y, 0, me + 1, c);
    check(d < 0, "MPI_Scan", "non-commutative op count=%ld: element %ld wrong", c, d);
    MPI_Exscan(x, y, (int)c, MPI_2INT, op_aff, comm);
    if (me > 0) {
        d = aff_diff(y, 0, me, c);
        check(d < 0, "MPI_Exscan", "non-commutative op count=%ld: element %ld wrong", c, d);
    }
    free(s), free(r), free(x), free(y);
}

static void t_reduce_local(long c)
{
    aff *x = vt_malloc((c + 1) * sizeof(aff)), *y = vt_malloc((c + 1) * sizeof(aff));
    for (long k = 0; k < c; k++)
        x[k] = A(3, k), y[k] = A(4, k);
    MPI_Reduce_local(x, y, (int)c, MPI_2INT, op_aff);
    check(aff_diff(y, 3, 5, c) < 0, "MPI_Reduce_local", "non-commutative op count=%ld", c);
    int *a = ints(c + 1, 5), *b = ints(c + 1, 9);
    MPI_Reduce_local(a, b, (int)c, MPI_INT, MPI_MIN);
    long bad = -1;
    for (long k = 0; k < c && bad < 0; k++)
        if (b[k] != 5 || a[k] != 5)
            bad = k;
    check(bad < 0, "MPI_Reduce_local", "MIN count=%ld: element %ld wrong", c, bad);
    free(x), free(y), free(a), free(b);
}

/* The collectives to run for the current COUNT: NULL for all, else a
 * comma-separated list. */
static const char *only;

static int want(const char *name)
{
    if (!only)
        return 1;
    size_t n = strlen(name);
    for (const char *p = only; (p = strstr(p, name)) != NULL; p += n)
        if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
            return 1;
    return 0;
}

static void all_on(MPI_Comm comm, long c)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    if (want("barrier"))
        t_barrier(comm);
    if (want("bcast"))
        t_bcast(comm, me, np, c);
    if (want("reduce"))
        t_reduce(comm, me, np, c);
    if (want("allreduce"))
        t_allreduce(comm, me, np, c);
    if (want("gather"))
        t_gather(comm, me, np, c);
    if (want("gatherv"))
        t_gatherv(comm, me, np, c);
    if (want("scatter"))
        t_scatter(comm, me, np, c);
    if (want("scatterv"))
        t_scatterv(comm, me, np, c);
    if (want("allgather"))
        t_allgather(comm, me, np, c);
    if (want("allgatherv"))
        t_allgatherv(comm, me, np, c);
    if (want("alltoall"))
        t_alltoall(comm, me, np, c);
    if (want("alltoallv"))
        t_alltoallv(comm, me, np, c);
    if (want("alltoallw"))
        t_alltoallw(comm, me, np, c);
    if (want("reduce_scatter"))
        t_reduce_scatter(comm, me, np, c);
    if (want("reduce_scatter_block"))
        t_reduce_scatter_block(comm, me, np, c);
    if (want("scan"))
        t_scans(comm, me, np, c);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Op_create(aff_op, 0, &op_aff);
    MPI_Op_create(di_sum, 1, &op_di);
    int commute = -1;
    MPI_Op_commutative(op_aff, &commute);
    check(commute == 0, "MPI_Op_commutative", "affine op: %d", commute);
    MPI_Op_commutative(op_di, &commute);
    check(commute == 1, "MPI_Op_commutative", "sum op: %d", commute);
    for (int a = 1; a < argc; a++) {
        char *colon = strchr(argv[a], ':');
        only = colon ? colon + 1 : NULL;
        long c = atol(argv[a]);
        all_on(MPI_COMM_WORLD, c);
        all_on(MPI_COMM_SELF, c);
        if (want("reduce_local"))
            t_reduce_local(c);
    }
    check(!bad_datatype, "MPI_Op_create", "a user function got the wrong datatype");
    MPI_Op_free(&op_aff);
    MPI_Op_free(&op_di);
    check(op_aff == MPI_OP_NULL && op_di == MPI_OP_NULL, "MPI_Op_free", "handles not nulled");
    printf("done rank=%d checks=%ld colls=", wrank, checks);
    for (int i = 0; i < nseen; i++)
        printf("%s%s", i ? "," : "", seen[i]);
    printf("\n");
    MPI_Finalize();
    return 0;
}
