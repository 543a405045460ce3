/* Point-to-point with derived datatypes between ranks 0 and 1 (run with 2
 * ranks). Rank 0 sends, rank 1 receives and checks the data, element by
 * element, including the bytes a type must leave untouched.
 *
 * Prints, on the rank that ran the checks of a case:
 *   case name=NAME rank=R                      (all its checks passed)
 *   count name=NAME get_count=C get_elements=E elements_x=X
 * and a FAIL line for each failed check. */
#include <mpi.h>
#include <stddef.h>
#include <string.h>
#include "vtest.h"

static int rank, fails;

#define CHECK(cond, ...)                                       \
    do {                                                       \
        if (!(cond)) {                                         \
            fails++;                                           \
            printf("FAIL rank=%d line=%d: ", rank, __LINE__);  \
            printf(__VA_ARGS__);                               \
            printf("\n");                                      \
        }                                                      \
    } while (0)

static void pass(const char *name, int fails_before)
{
    if (fails == fails_before)
        printf("case name=%s rank=%d\n", name, rank);
}

static void counts(const char *name, MPI_Status *st, MPI_Datatype t)
{
    int c = -1, e = -1;
    MPI_Count x = -1;
    MPI_Get_count(st, t, &c);
    MPI_Get_elements(st, t, &e);
    MPI_Get_elements_x(st, t, &x);
    printf("count name=%s get_count=%d get_elements=%d elements_x=%lld\n", name, c, e,
           (long long)x);
}

/* ---- 1. vector: 2 elements of vector(4, 2, 5, double) ------------------ */
static void vector_case(MPI_Datatype vec)
{
    int f0 = fails;
    double a[40];
    MPI_Status st;
    MPI_Aint lb, ext;
    int size;
    MPI_Type_size(vec, &size);
    MPI_Type_get_extent(vec, &lb, &ext);
    CHECK(size == 64 && lb == 0 && ext == 136, "vector size %d lb %ld extent %ld", size,
          (long)lb, (long)ext);
    /* the doubles of the 2 elements, in packed order */
    int idx[16], n = 0;
    for (int e = 0; e < 2; e++)
        for (int b = 0; b < 4; b++)
            for (int k = 0; k < 2; k++)
                idx[n++] = e * 17 + b * 5 + k;
    if (rank == 0) {
        for (int i = 0; i < 40; i++)
            a[i] = i;
        MPI_Send(a, 2, vec, 1, 10, MPI_COMM_WORLD);
        MPI_Send(a, 2, vec, 1, 11, MPI_COMM_WORLD);
    } else {
        for (int i = 0; i < 40; i++)
            a[i] = -1;
        MPI_Recv(a, 2, vec, 0, 10, MPI_COMM_WORLD, &st);
        counts("vector", &st, vec);
        for (int i = 0, k = 0; i < 40; i++) {
            int in = k < 16 && idx[k] == i;
            CHECK(a[i] == (in ? i : -1), "vector a[%d] = %g", i, a[i]);
            k += in;
        }
        double c[16];
        MPI_Recv(c, 16, MPI_DOUBLE, 0, 11, MPI_COMM_WORLD, &st);
        for (int k = 0; k < 16; k++)
            CHECK(c[k] == idx[k], "vector packed order c[%d] = %g, want %d", k, c[k], idx[k]);
        pass("vector", f0);
    }
}

/* ---- 2. struct of mixed types ------------------------------------------ */
struct rec {
    char c;
    double d;
    int i[3];
    short s;
};

static MPI_Datatype rec_type(void)
{
    struct rec r;
    MPI_Aint base, disp[4];
    MPI_Get_address(&r, &base);
    MPI_Get_address(&r.c, &disp[0]);
    MPI_Get_address(&r.d, &disp[1]);
    MPI_Get_address(&r.i, &disp[2]);
    MPI_Get_address(&r.s, &disp[3]);
    for (int k = 0; k < 4; k++)
        disp[k] = MPI_Aint_diff(disp[k], base);
    int bl[4] = {1, 1, 3, 1};
    MPI_Datatype types[4] = {MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT}, t;
    MPI_Type_create_struct(4, bl, disp, types, &t);
    MPI_Type_commit(&t);
    return t;
}

static void struct_case(void)
{
    int f0 = fails;
    MPI_Datatype t = rec_type();
    MPI_Aint lb, ext;
    int size;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_size(t, &size);
    CHECK(lb == 0 && ext == (MPI_Aint)sizeof(struct rec) && size == 23,
          "struct lb %ld extent %ld (sizeof %zu) size %d", (long)lb, (long)ext,
          sizeof(struct rec), size);
    struct rec r[5];
    MPI_Status st;
    if (rank == 0) {
        for (int k = 0; k < 5; k++) {
            r[k].c = (char)('a' + k);
            r[k].d = k + 0.5;
            for (int j = 0; j < 3; j++)
                r[k].i[j] = 100 * k + j;
            r[k].s = (short)(-k);
        }
        MPI_Send(r, 5, t, 1, 20, MPI_COMM_WORLD);
        /* 2 records and 9 bytes: a char and a double of the third */
        unsigned char raw[55];
        memset(raw, 1, sizeof raw);
        MPI_Send(raw, 55, MPI_BYTE, 1, 21, MPI_COMM_WORLD);
    } else {
        memset(r, 0xee, sizeof r);
        MPI_Recv(r, 5, t, 0, 20, MPI_COMM_WORLD, &st);
        counts("struct", &st, t);
        for (int k = 0; k < 5; k++) {
            CHECK(r[k].c == 'a' + k && r[k].d == k + 0.5 && r[k].s == -k, "struct record %d", k);
            for (int j = 0; j < 3; j++)
                CHECK(r[k].i[j] == 100 * k + j, "struct record %d i[%d] = %d", k, j, r[k].i[j]);
            /* padding after c and after s is not written */
            unsigned char *p = (unsigned char *)&r[k];
            for (size_t b = 1; b < offsetof(struct rec, d); b++)
                CHECK(p[b] == 0xee, "struct record %d padding byte %zu written", k, b);
            for (size_t b = offsetof(struct rec, s) + 2; b < sizeof(struct rec); b++)
                CHECK(p[b] == 0xee, "struct record %d tail byte %zu written", k, b);
        }
        MPI_Recv(r, 5, t, 0, 21, MPI_COMM_WORLD, &st);
        counts("struct_partial", &st, t);
        pass("struct", f0);
    }
    MPI_Type_free(&t);
    CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free did not reset the handle");
}

/* ---- 3. subarrays of a 3-D array --------------------------------------- */
static void subarray_case(void)
{
    int f0 = fails;
    static double A[6][5][4];
    int sizes[3] = {6, 5, 4}, sub[3] = {3, 2, 2}, s0[3] = {1, 2, 1}, s1[3] = {2, 0, 2};
    MPI_Datatype ts, tr, tf;
    MPI_Type_create_subarray(3, sizes, sub, s0, MPI_ORDER_C, MPI_DOUBLE, &ts);
    MPI_Type_create_subarray(3, sizes, sub, s1, MPI_ORDER_C, MPI_DOUBLE, &tr);
    /* the same region as ts, described in Fortran order (dimensions reversed) */
    int fsizes[3] = {4, 5, 6}, fsub[3] = {2, 2, 3}, fs0[3] = {1, 2, 1};
    MPI_Type_create_subarray(3, fsizes, fsub, fs0, MPI_ORDER_FORTRAN, MPI_DOUBLE, &tf);
    MPI_Type_commit(&ts);
    MPI_Type_commit(&tr);
    MPI_Type_commit(&tf);
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(ts, &lb, &ext);
    MPI_Type_get_true_extent(ts, &tlb, &text);
    /* first element (1,2,1) = 29 doubles in, last (3,3,2) = 74 doubles in */
    CHECK(lb == 0 && ext == 6 * 5 * 4 * 8 && tlb == 29 * 8 && text == (74 - 29 + 1) * 8,
          "subarray lb %ld extent %ld true lb %ld true extent %ld", (long)lb, (long)ext,
          (long)tlb, (long)text);
    MPI_Status st;
    if (rank == 0) {
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 5; j++)
                for (int k = 0; k < 4; k++)
                    A[i][j][k] = i * 100 + j * 10 + k;
        MPI_Send(A, 1, ts, 1, 30, MPI_COMM_WORLD);
        MPI_Send(A, 1, tf, 1, 31, MPI_COMM_WORLD);
    } else {
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 5; j++)
                for (int k = 0; k < 4; k++)
                    A[i][j][k] = -1;
        MPI_Recv(A, 1, tr, 0, 30, MPI_COMM_WORLD, &st);
        counts("subarray", &st, tr);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 5; j++)
                for (int k = 0; k < 4; k++) {
                    int in = i >= 2 && i < 5 && j < 2 && k >= 2;
                    double want = in ? (i - 1) * 100 + (j + 2) * 10 + (k - 1) : -1;
                    CHECK(A[i][j][k] == want, "subarray B[%d][%d][%d] = %g, want %g", i, j, k,
                          A[i][j][k], want);
                }
        double c[12];
        MPI_Recv(c, 12, MPI_DOUBLE, 0, 31, MPI_COMM_WORLD, &st);
        int n = 0;
        for (int i = 1; i < 4; i++)
            for (int j = 2; j < 4; j++)
                for (int k = 1; k < 3; k++, n++)
                    CHECK(c[n] == i * 100 + j * 10 + k, "fortran subarray c[%d] = %g", n, c[n]);
        pass("subarray", f0);
    }
    MPI_Type_free(&ts);
    MPI_Type_free(&tr);
    MPI_Type_free(&tf);
}

/* ---- 4. resized column type: strided access ---------------------------- */
static void resized_case(void)
{
    int f0 = fails;
    int M[4][6];
    MPI_Datatype col, colr;
    MPI_Type_vector(4, 1, 6, MPI_INT, &col);
    MPI_Type_create_resized(col, 0, sizeof(int), &colr);
    MPI_Type_commit(&colr);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(colr, &lb, &ext);
    CHECK(lb == 0 && ext == sizeof(int), "resized lb %ld extent %ld", (long)lb, (long)ext);
    MPI_Status st;
    if (rank == 0) {
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 6; c++)
                M[r][c] = r * 10 + c;
        /* columns 1, 2, 3 */
        MPI_Send(&M[0][1], 3, colr, 1, 40, MPI_COMM_WORLD);
        MPI_Send(&M[0][1], 3, colr, 1, 41, MPI_COMM_WORLD);
    } else {
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 6; c++)
                M[r][c] = -1;
        /* into columns 2, 3, 4 */
        MPI_Recv(&M[0][2], 3, colr, 0, 40, MPI_COMM_WORLD, &st);
        counts("resized", &st, colr);
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 6; c++) {
                int want = c >= 2 && c < 5 ? r * 10 + c - 1 : -1;
                CHECK(M[r][c] == want, "resized M[%d][%d] = %d, want %d", r, c, M[r][c], want);
            }
        int v[12];
        MPI_Recv(v, 12, MPI_INT, 0, 41, MPI_COMM_WORLD, &st);
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 4; r++)
                CHECK(v[c * 4 + r] == r * 10 + c + 1, "column-major v[%d] = %d", c * 4 + r,
                      v[c * 4 + r]);
        pass("resized", f0);
    }
    MPI_Type_free(&col);
    MPI_Type_free(&colr);
}

/* ---- 5. indexed family, negative displacements ------------------------- */
static void indexed_case(void)
{
    int f0 = fails;
    int base[20], *p = &base[10];
    MPI_Datatype th, ti, tb, thb;
    int hbl[3] = {2, 1, 3};
    MPI_Aint hd[3] = {-40, 0, 12};
    MPI_Type_create_hindexed(3, hbl, hd, MPI_INT, &th);
    int ibl[2] = {1, 2}, idisp[2] = {5, -3};
    MPI_Type_indexed(2, ibl, idisp, MPI_INT, &ti);
    int bd[3] = {4, 0, -6};
    MPI_Type_create_indexed_block(3, 2, bd, MPI_INT, &tb);
    MPI_Aint hbd[2] = {8, -4};
    MPI_Type_create_hindexed_block(2, 1, hbd, MPI_INT, &thb);
    MPI_Datatype all[4] = {th, ti, tb, thb};
    for (int k = 0; k < 4; k++)
        MPI_Type_commit(&all[k]);
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(th, &lb, &ext);
    MPI_Type_get_true_extent(th, &tlb, &text);
    CHECK(lb == -40 && ext == 64 && tlb == -40 && text == 64, "hindexed lb %ld extent %ld",
          (long)lb, (long)ext);
    MPI_Type_get_extent(ti, &lb, &ext);
    CHECK(lb == -12 && ext == 36, "indexed lb %ld extent %ld", (long)lb, (long)ext);
    int want[4][6] = {{0, 1, 10, 13, 14, 15}, {15, 7, 8}, {14, 15, 10, 11, 4, 5}, {12, 9}};
    int n[4] = {6, 3, 6, 2};
    MPI_Status st;
    if (rank == 0) {
        for (int i = 0; i < 20; i++)
            base[i] = i;
        for (int k = 0; k < 4; k++)
            MPI_Send(p, 1, all[k], 1, 50 + k, MPI_COMM_WORLD);
        MPI_Send(p, 1, tb, 1, 54, MPI_COMM_WORLD);
    } else {
        for (int k = 0; k < 4; k++) {
            int got[6];
            MPI_Recv(got, 6, MPI_INT, 0, 50 + k, MPI_COMM_WORLD, &st);
            int c;
            MPI_Get_count(&st, MPI_INT, &c);
            CHECK(c == n[k], "indexed case %d: %d ints", k, c);
            for (int i = 0; i < n[k]; i++)
                CHECK(got[i] == want[k][i], "indexed case %d: got[%d] = %d, want %d", k, i, got[i],
                      want[k][i]);
        }
        /* receive with the indexed-block type itself, around the middle */
        for (int i = 0; i < 20; i++)
            base[i] = -1;
        MPI_Recv(p, 1, tb, 0, 54, MPI_COMM_WORLD, &st);
        for (int i = 0; i < 20; i++) {
            int w = (i == 14 || i == 15 || i == 10 || i == 11 || i == 4 || i == 5) ? i : -1;
            CHECK(base[i] == w, "indexed_block receive base[%d] = %d", i, base[i]);
        }
        pass("indexed", f0);
    }
    for (int k = 0; k < 4; k++)
        MPI_Type_free(&all[k]);
}

/* ---- 6. MPI_BOTTOM with absolute addresses ----------------------------- */
static void bottom_case(void)
{
    int f0 = fails;
    int x = 0;
    double y = 0;
    MPI_Aint disp[2];
    MPI_Get_address(&x, &disp[0]);
    MPI_Address(&y, &disp[1]);
    CHECK(MPI_Aint_diff(MPI_Aint_add(disp[0], 16), disp[0]) == 16 && disp[0] == (MPI_Aint)&x,
          "address arithmetic");
    int bl[2] = {1, 1};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t;
    MPI_Type_struct(2, bl, disp, types, &t);
    MPI_Type_commit(&t);
    if (rank == 0) {
        x = 7;
        y = 2.5;
        MPI_Send(MPI_BOTTOM, 1, t, 1, 60, MPI_COMM_WORLD);
    } else {
        MPI_Recv(MPI_BOTTOM, 1, t, 0, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(x == 7 && y == 2.5, "MPI_BOTTOM receive x %d y %g", x, y);
        pass("bottom", f0);
    }
    MPI_Type_free(&t);
}

/* ---- 7. non-blocking and Sendrecv_replace with a vector ---------------- */
static void nonblocking_case(MPI_Datatype vec)
{
    int f0 = fails;
    double a[40];
    int other = 1 - rank;
    MPI_Request rq;
    MPI_Status st;
    for (int i = 0; i < 40; i++)
        a[i] = rank == 0 ? i : -1;
    if (rank == 0)
        MPI_Isend(a, 2, vec, 1, 70, MPI_COMM_WORLD, &rq);
    else
        MPI_Irecv(a, 2, vec, 0, 70, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    if (rank == 1) {
        for (int i = 0; i < 40; i++) {
            int in = (i % 17) % 5 < 2 && (i % 17) < 17 && i < 34;
            CHECK(a[i] == (in ? i : -1), "irecv a[%d] = %g", i, a[i]);
        }
    }
    /* exchange: rank r sends 1000 r + i and gets 1000 (1 - r) + i */
    for (int i = 0; i < 40; i++)
        a[i] = 1000 * rank + i;
    MPI_Sendrecv_replace(a, 1, vec, other, 71, other, 71, MPI_COMM_WORLD, &st);
    for (int i = 0; i < 40; i++) {
        int in = i < 17 && i % 5 < 2;
        double want = in ? 1000 * other + i : 1000 * rank + i;
        CHECK(a[i] == want, "sendrecv_replace a[%d] = %g, want %g", i, a[i], want);
    }
    pass("nonblocking", f0);
}

/* ---- 8. types built from freed types; dup -------------------------------- */
static void lifetime_case(MPI_Datatype vec)
{
    int f0 = fails;
    MPI_Datatype b, c, d;
    MPI_Type_vector(2, 1, 2, MPI_INT, &b);
    MPI_Type_contiguous(3, b, &c);
    MPI_Type_free(&b);
    MPI_Type_commit(&c);
    MPI_Type_dup(vec, &d); /* committed like vec */
    int arr[12];
    double a[40], got[16];
    if (rank == 0) {
        for (int i = 0; i < 12; i++)
            arr[i] = i;
        for (int i = 0; i < 40; i++)
            a[i] = i;
        MPI_Send(arr, 1, c, 1, 80, MPI_COMM_WORLD);
        MPI_Send(a, 2, d, 1, 81, MPI_COMM_WORLD);
    } else {
        int want[6] = {0, 2, 3, 5, 6, 8};
        MPI_Recv(arr, 6, MPI_INT, 0, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 6; i++)
            CHECK(arr[i] == want[i], "freed base: arr[%d] = %d", i, arr[i]);
        MPI_Recv(got, 16, MPI_DOUBLE, 0, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(got[0] == 0 && got[2] == 5 && got[15] == 33, "dup data %g %g %g", got[0], got[2],
              got[15]);
        pass("lifetime", f0);
    }
    /* the decoder: c is contiguous(3, <vector>) */
    int ni, na, nd, comb, ints[3];
    MPI_Aint aints[1];
    MPI_Datatype types[1];
    MPI_Type_get_envelope(c, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_CONTIGUOUS && ni == 1 && na == 0 && nd == 1, "envelope of c");
    MPI_Type_get_contents(c, 3, 1, 1, ints, aints, types);
    CHECK(ints[0] == 3, "contents of c: count %d", ints[0]);
    MPI_Datatype inner = types[0]; /* a new handle for the freed vector */
    MPI_Type_get_envelope(inner, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && nd == 1, "envelope of the freed vector");
    MPI_Type_get_contents(inner, 3, 1, 1, ints, aints, types);
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && types[0] == MPI_INT,
          "contents of the vector");
    MPI_Type_free(&inner);
    MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "envelope of MPI_INT");
    MPI_Type_get_envelope(d, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_DUP && nd == 1, "envelope of a dup");
    MPI_Type_free(&c);
    MPI_Type_free(&d);
    if (rank == 0)
        pass("decoder", f0);
}

/* ---- 9. MPI_Get_count / MPI_Get_elements corner cases -------------------- */
static void elements_case(void)
{
    int f0 = fails;
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_DOUBLE, &two);
    MPI_Type_commit(&two);
    double d[4] = {1, 2, 3, 4};
    MPI_Status st;
    if (rank == 0) {
        MPI_Send(d, 3, MPI_DOUBLE, 1, 90, MPI_COMM_WORLD);
        MPI_Send(d, 6, MPI_BYTE, 1, 91, MPI_COMM_WORLD);
        MPI_Send(d, 0, MPI_BYTE, 1, 92, MPI_COMM_WORLD);
    } else {
        MPI_Recv(d, 2, two, 0, 90, MPI_COMM_WORLD, &st);
        counts("two_doubles_of_three", &st, two);
        MPI_Recv(d, 2, MPI_INT, 0, 91, MPI_COMM_WORLD, &st);
        counts("six_bytes_as_int", &st, MPI_INT);
        MPI_Recv(d, 2, two, 0, 92, MPI_COMM_WORLD, &st);
        counts("empty", &st, two);
        pass("elements", f0);
    }
    MPI_Type_free(&two);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Datatype vec;
    MPI_Type_vector(4, 2, 5, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    if (rank < 2) {
        vector_case(vec);
        struct_case();
        subarray_case();
        resized_case();
        indexed_case();
        bottom_case();
        nonblocking_case(vec);
        lifetime_case(vec);
        elements_case();
    }
    MPI_Type_free(&vec);
    MPI_Finalize();
    return 0;
}
