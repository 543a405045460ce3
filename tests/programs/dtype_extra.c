/* Datatype extras (run with 2 ranks; rank 0 prints the checks, rank 1
 * receives a darray section). Every line is `case name=NAME ...`, checked
 * in tests/errhan_dtype.rs against values derived by hand:
 *   darray / hindexed_block maps: the global array holds a[i] = i, so
 *     packing one element of the type lists the indices it holds in
 *     type-map order (`map=i,j,...`), with lb / extent / size;
 *   external32 images as hex bytes;
 *   Fortran 90 types, MPI_Type_match_size, names, the new predefined types;
 *   MPI_*_x / MPI_*_c queries on an 8 GiB contiguous-of-contiguous type
 *     and a status describing 2^33 bytes. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

#define N 256
static int a[N];

static void print_map(const char *name, MPI_Datatype t)
{
    int size, pos = 0;
    MPI_Aint lb, ext;
    static int packed[N];
    MPI_Type_commit(&t);
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Pack(a, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD);
    printf("case name=%s lb=%ld extent=%ld size=%d map=", name, (long)lb, (long)ext, size);
    for (int i = 0; i < pos / 4; i++)
        printf(i ? ",%d" : "%d", packed[i]);
    printf("%s\n", pos ? "" : "-");
}

static MPI_Datatype darray(int size, int rank, int nd, const int *g, const int *d,
                           const int *darg, const int *p, int order, MPI_Datatype old)
{
    MPI_Datatype t;
    int rc = MPI_Type_create_darray(size, rank, nd, g, d, darg, p, order, old, &t);
    if (rc != MPI_SUCCESS) {
        printf("case name=darray_failed rc=%d\n", rc);
        return MPI_DATATYPE_NULL;
    }
    return t;
}

static void hex(const char *name, const unsigned char *b, MPI_Aint n)
{
    printf("case name=%s bytes=", name);
    for (MPI_Aint i = 0; i < n; i++)
        printf("%02x", b[i]);
    printf("\n");
}

static void darray_maps(void)
{
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, O = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;
    char name[64];
    /* 4 x 6 ints, block x block on a 2 x 3 grid, C and Fortran order */
    int g2[2] = {4, 6}, bb[2] = {B, B}, dd[2] = {D, D}, p23[2] = {2, 3};
    for (int r = 0; r < 6; r++) {
        sprintf(name, "bb_c_%d", r);
        print_map(name, darray(6, r, 2, g2, bb, dd, p23, MPI_ORDER_C, MPI_INT));
        sprintf(name, "bb_f_%d", r);
        print_map(name, darray(6, r, 2, g2, bb, dd, p23, MPI_ORDER_FORTRAN, MPI_INT));
    }
    /* 11 elements, cyclic(2) over 3 */
    int g1[1] = {11}, c1[1] = {C}, k2[1] = {2}, p3[1] = {3};
    for (int r = 0; r < 3; r++) {
        sprintf(name, "cyc2_%d", r);
        print_map(name, darray(3, r, 1, g1, c1, k2, p3, MPI_ORDER_C, MPI_INT));
    }
    /* 3 x 5: rows not distributed, columns cyclic(1) over 2, Fortran order */
    int g35[2] = {3, 5}, nc[2] = {O, C}, p12[2] = {1, 2};
    for (int r = 0; r < 2; r++) {
        sprintf(name, "none_cyc_f_%d", r);
        print_map(name, darray(2, r, 2, g35, nc, dd, p12, MPI_ORDER_FORTRAN, MPI_INT));
    }
    /* 2 x 3 x 4, [block, none, cyclic(2)] on 2 x 1 x 2, C order */
    int g3[3] = {2, 3, 4}, bnc[3] = {B, O, C}, d3[3] = {D, D, 2}, p3d[3] = {2, 1, 2};
    for (int r = 0; r < 4; r++) {
        sprintf(name, "mixed3_%d", r);
        print_map(name, darray(4, r, 3, g3, bnc, d3, p3d, MPI_ORDER_C, MPI_INT));
    }
    /* block(3) of 5 over 3: the last process holds nothing */
    int g5[1] = {5}, b1[1] = {B}, k3[1] = {3};
    print_map("block3_2", darray(3, 2, 1, g5, b1, k3, p3, MPI_ORDER_C, MPI_INT));
    /* envelope and contents */
    MPI_Datatype t = darray(6, 4, 2, g2, bb, dd, p23, MPI_ORDER_C, MPI_INT);
    int ni, na, nt, comb, ints[12];
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    MPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
    MPI_Type_get_contents(t, 12, 0, 1, ints, addrs, types);
    printf("case name=darray_envelope ni=%d na=%d nt=%d combiner=%d ints=", ni, na, nt, comb);
    for (int i = 0; i < ni; i++)
        printf(i ? ",%d" : "%d", ints[i]);
    printf(" type_is_int=%d\n", types[0] == MPI_INT);
    MPI_Type_free(&t);
    /* errors */
    int g9[1] = {9}, k4[1] = {4}, p2[1] = {2};
    int rc = MPI_Type_create_darray(2, 0, 1, g9, b1, k4, p2, MPI_ORDER_C, MPI_INT, &t);
    printf("case name=darray_small_blocks rc=%d\n", rc);
    rc = MPI_Type_create_darray(3, 0, 1, g9, b1, dd, p2, MPI_ORDER_C, MPI_INT, &t);
    printf("case name=darray_bad_grid rc=%d\n", rc);
}

static void hindexed_block_map(void)
{
    MPI_Aint disps[3] = {0, 20, 8};
    MPI_Datatype t;
    MPI_Type_create_hindexed_block(3, 2, disps, MPI_INT, &t);
    print_map("hindexed_block", t);
    int ni, na, nt, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
    printf("case name=hindexed_block_envelope ni=%d na=%d nt=%d combiner=%d\n", ni, na, nt, comb);
    MPI_Type_free(&t);
}

static void external32(void)
{
    unsigned char buf[64];
    MPI_Aint pos = 0, size;
    int ints[2] = {1, -2};
    MPI_Pack_external("external32", ints, 2, MPI_INT, buf, sizeof buf, &pos);
    hex("ext_ints", buf, pos);
    double d = 1.5;
    pos = 0;
    MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, buf, sizeof buf, &pos);
    hex("ext_double", buf, pos);
    long l = -3;
    pos = 0;
    MPI_Pack_external("external32", &l, 1, MPI_LONG, buf, sizeof buf, &pos);
    hex("ext_long", buf, pos);
    struct { char c; double d; int i[2]; short s; } s = {7, 2.0, {3, 4}, 5}, back;
    int bl[4] = {1, 1, 2, 1};
    MPI_Aint disp[4] = {0, 8, 16, 24};
    MPI_Datatype ty[4] = {MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT}, st;
    MPI_Type_create_struct(4, bl, disp, ty, &st);
    MPI_Type_commit(&st);
    MPI_Pack_external_size("external32", 1, st, &size);
    pos = 0;
    MPI_Pack_external("external32", &s, 1, st, buf, sizeof buf, &pos);
    printf("case name=ext_struct_size size=%ld pos=%ld\n", (long)size, (long)pos);
    hex("ext_struct", buf, pos);
    memset(&back, 0, sizeof back);
    MPI_Aint upos = 0;
    MPI_Unpack_external("external32", buf, pos, &upos, &back, 1, st);
    printf("case name=ext_roundtrip ok=%d upos=%ld\n",
           back.c == 7 && back.d == 2.0 && back.i[0] == 3 && back.i[1] == 4 && back.s == 5,
           (long)upos);
    MPI_Type_free(&st);
    pos = 0;
    int rc = MPI_Pack_external("native", ints, 2, MPI_INT, buf, sizeof buf, &pos);
    printf("case name=ext_native rc=%d\n", rc);
    pos = 0;
    rc = MPI_Pack_external("external32", ints, 2, MPI_INT, buf, 6, &pos);
    printf("case name=ext_too_small rc=%d\n", rc);
}

static void fortran90(void)
{
    MPI_Datatype r1, r2, r3, i1, c1, m;
    int size, ni, na, nt, comb, ints[2];
    MPI_Type_create_f90_real(10, 100, &r1);
    MPI_Type_create_f90_real(10, 100, &r2);
    MPI_Type_create_f90_real(6, MPI_UNDEFINED, &r3);
    MPI_Type_size(r1, &size);
    MPI_Type_get_envelope(r1, &ni, &na, &nt, &comb);
    MPI_Type_get_contents(r1, 2, 0, 0, ints, NULL, NULL);
    printf("case name=f90_real same=%d other=%d size=%d ni=%d na=%d nt=%d combiner=%d p=%d r=%d\n",
           r1 == r2, r1 != r3, size, ni, na, nt, comb, ints[0], ints[1]);
    MPI_Type_size(r3, &size);
    printf("case name=f90_real4 size=%d\n", size);
    MPI_Type_create_f90_integer(5, &i1);
    MPI_Type_size(i1, &size);
    MPI_Type_get_envelope(i1, &ni, &na, &nt, &comb);
    printf("case name=f90_integer size=%d ni=%d combiner=%d\n", size, ni, comb);
    MPI_Type_create_f90_complex(20, MPI_UNDEFINED, &c1);
    MPI_Type_size(c1, &size);
    MPI_Type_get_envelope(c1, &ni, &na, &nt, &comb);
    printf("case name=f90_complex size=%d combiner=%d\n", size, comb);
    /* a reduction on the REAL kind of (10, 100): REAL(8) */
    double x = 1.25, y = 2.5;
    MPI_Reduce_local(&x, &y, 1, r1, MPI_SUM);
    printf("case name=f90_sum y=%g\n", y);
    int rc = MPI_Type_free(&r1);
    printf("case name=f90_free rc=%d\n", rc);
    rc = MPI_Type_create_f90_real(40, MPI_UNDEFINED, &r3);
    printf("case name=f90_no_kind rc=%d\n", rc);
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m);
    printf("case name=match_real8 is_double_precision=%d\n", m == MPI_DOUBLE_PRECISION);
    MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 2, &m);
    printf("case name=match_int2 is_integer2=%d\n", m == MPI_INTEGER2);
    MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &m);
    printf("case name=match_complex16 is_double_complex=%d\n", m == MPI_DOUBLE_COMPLEX);
    rc = MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &m);
    printf("case name=match_none rc=%d\n", rc);
}

static void names_and_predefined(void)
{
    char n[MPI_MAX_OBJECT_NAME];
    int len, size;
    MPI_Datatype t;
    MPI_Type_get_name(MPI_DOUBLE, n, &len);
    printf("case name=name_double tname=%s len=%d\n", n, len);
    MPI_Type_get_name(MPI_CXX_DOUBLE_COMPLEX, n, &len);
    printf("case name=name_cxx tname=%s\n", n);
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_get_name(t, n, &len);
    printf("case name=name_derived len=%d\n", len);
    MPI_Type_set_name(t, "pair_of_ints");
    MPI_Type_get_name(t, n, &len);
    printf("case name=name_set tname=%s len=%d\n", n, len);
    MPI_Type_free(&t);
    MPI_Datatype types[9] = {MPI_REAL16, MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32,
                             MPI_INTEGER16, MPI_CXX_BOOL, MPI_CXX_FLOAT_COMPLEX,
                             MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX};
    printf("case name=predefined_sizes sizes=");
    for (int i = 0; i < 9; i++) {
        MPI_Type_size(types[i], &size);
        printf(i ? ",%d" : "%d", size);
    }
    printf("\n");
    /* the MPI-1 bound markers in a struct: { (LB,-4), 2 ints at 0, (UB,20) } */
    int mbl[3] = {1, 2, 1};
    MPI_Aint mdisp[3] = {-4, 0, 20}, mlb, mext;
    MPI_Datatype mty[3] = {MPI_LB, MPI_INT, MPI_UB}, ms;
    MPI_Type_get_name(MPI_UB, n, &len);
    MPI_Type_create_struct(3, mbl, mdisp, mty, &ms);
    MPI_Type_get_extent(ms, &mlb, &mext);
    MPI_Type_size(ms, &size);
    printf("case name=markers tname=%s lb=%ld extent=%ld size=%d\n", n, (long)mlb, (long)mext,
           size);
    MPI_Type_free(&ms);
    double z1[2] = {1, 2}, z2[2] = {10, 20};
    MPI_Reduce_local(z1, z2, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_PROD);
    printf("case name=cxx_complex_prod re=%g im=%g\n", z2[0], z2[1]);
    char q1[16] = {0}, q2[16] = {0};
    int rc = MPI_Reduce_local(q1, q2, 1, MPI_INTEGER16, MPI_SUM);
    printf("case name=integer16_sum rc=%d\n", rc);
}

static void large_queries(void)
{
    MPI_Datatype c1, c2;
    int size;
    MPI_Count sx, sc, lb, ext, tlb, text, n;
    MPI_Type_contiguous(1 << 20, MPI_DOUBLE, &c1);
    MPI_Type_contiguous(1 << 10, c1, &c2);
    MPI_Type_commit(&c2);
    MPI_Type_size(c2, &size);
    MPI_Type_size_x(c2, &sx);
    MPI_Type_size_c(c2, &sc);
    printf("case name=large_size size=%d size_x=%lld size_c=%lld\n", size, sx, sc);
    MPI_Type_get_extent_x(c2, &lb, &ext);
    MPI_Type_get_true_extent_x(c2, &tlb, &text);
    printf("case name=large_extent_x lb=%lld extent=%lld true_lb=%lld true_extent=%lld\n", lb,
           ext, tlb, text);
    MPI_Type_get_extent_c(c2, &lb, &ext);
    MPI_Type_get_true_extent_c(c2, &tlb, &text);
    printf("case name=large_extent_c lb=%lld extent=%lld true_lb=%lld true_extent=%lld\n", lb,
           ext, tlb, text);
    /* a status for 2^33 bytes (the count fields of vaced's MPI_Status) */
    MPI_Status st;
    long long bytes = 1LL << 33;
    st.count_lo = (int)(bytes & 0xffffffff);
    st.count_hi_and_cancelled = (int)((bytes >> 32) << 1);
    int cnt;
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    MPI_Get_count_c(&st, MPI_BYTE, &n);
    printf("case name=large_count get_count=%d count_c=%lld", cnt, n);
    MPI_Get_count_c(&st, c2, &n);
    printf(" count_c_type=%lld", n);
    MPI_Get_elements_x(&st, c2, &n);
    printf(" elements_x=%lld", n);
    MPI_Get_elements_c(&st, MPI_BYTE, &n);
    printf(" elements_c=%lld\n", n);
    MPI_Type_free(&c1);
    MPI_Type_free(&c2);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < N; i++)
        a[i] = i;
    /* rank 0 sends rank 1 its block x block section of the 4 x 6 array
     * (as rank 1 of the 2 x 3 grid: rows 0..2, columns 2..4) */
    int g2[2] = {4, 6}, bb[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
        dd[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p23[2] = {2, 3};
    MPI_Datatype sect = darray(6, 1, 2, g2, bb, dd, p23, MPI_ORDER_C, MPI_INT);
    MPI_Type_commit(&sect);
    if (rank == 0) {
        MPI_Send(a, 1, sect, 1, 0, MPI_COMM_WORLD);
    } else {
        int got[4], count;
        MPI_Status st;
        MPI_Recv(got, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        printf("section count=%d values=%d,%d,%d,%d\n", count, got[0], got[1], got[2], got[3]);
    }
    MPI_Type_free(&sect);
    if (rank == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        darray_maps();
        hindexed_block_map();
        external32();
        fortran90();
        names_and_predefined();
        large_queries();
    }
    printf("done rank=%d\n", rank);
    MPI_Finalize();
    return 0;
}
