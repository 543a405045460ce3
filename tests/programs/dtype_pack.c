/* MPI_Pack / MPI_Unpack / MPI_Pack_size (run with 2 ranks). Rank 0 packs an
 * int, a struct record and two strided vectors of shorts into one buffer,
 * checks the packed bytes and sends them as MPI_PACKED; rank 1 unpacks them
 * with the same types and checks the values.
 *
 * Prints
 *   pack rank=R what=NAME value=V
 * for every size and position, and FAIL lines for wrong data. */
#include <mpi.h>
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

static void show(const char *what, long v)
{
    printf("pack rank=%d what=%s value=%ld\n", rank, what, v);
}

struct rec {
    char c;
    double d;
    int i[3];
    short s;
};

static MPI_Datatype rec_type(void)
{
    int bl[4] = {1, 1, 3, 1};
    MPI_Aint disp[4] = {0, 8, 16, 28};
    MPI_Datatype types[4] = {MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT}, t;
    MPI_Type_create_struct(4, bl, disp, types, &t);
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Datatype rt = rec_type(), sv, vec;
    MPI_Type_vector(3, 1, 2, MPI_SHORT, &sv);
    MPI_Type_commit(&sv);
    MPI_Type_vector(4, 2, 5, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);

    int sz;
    MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &sz);
    show("size_3_int", sz);
    MPI_Pack_size(2, rt, MPI_COMM_WORLD, &sz);
    show("size_2_rec", sz);
    MPI_Pack_size(1, vec, MPI_COMM_WORLD, &sz);
    show("size_1_vec", sz);
    MPI_Pack_size(5, MPI_DOUBLE_INT, MPI_COMM_WORLD, &sz);
    show("size_5_double_int", sz);
    MPI_Pack_size(0, rt, MPI_COMM_WORLD, &sz);
    show("size_0_rec", sz);

    unsigned char buf[100];
    int pos = 0;
    int x = 12345;
    struct rec r = {'q', 3.25, {7, 8, 9}, -5};
    short sh[12];
    for (int k = 0; k < 12; k++)
        sh[k] = (short)(k * 11);
    if (rank == 0) {
        memset(buf, 0, sizeof buf);
        MPI_Pack(&x, 1, MPI_INT, buf, 100, &pos, MPI_COMM_WORLD);
        show("pos_after_int", pos);
        MPI_Pack(&r, 1, rt, buf, 100, &pos, MPI_COMM_WORLD);
        show("pos_after_rec", pos);
        /* 2 vectors of 3 shorts with a stride of 2: sh[0, 2, 4], sh[5, 7, 9] */
        MPI_Pack(sh, 2, sv, buf, 100, &pos, MPI_COMM_WORLD);
        show("pos_after_vectors", pos);
        /* the packed bytes: the data in type-map order, no padding, no header */
        int xi;
        double d;
        int ii[3];
        short s, v[6];
        memcpy(&xi, buf, 4);
        memcpy(&d, buf + 5, 8);
        memcpy(ii, buf + 13, 12);
        memcpy(&s, buf + 25, 2);
        memcpy(v, buf + 27, 12);
        CHECK(xi == 12345 && buf[4] == 'q' && d == 3.25 && ii[0] == 7 && ii[2] == 9 && s == -5,
              "packed int and record");
        int want[6] = {0, 2, 4, 5, 7, 9};
        for (int k = 0; k < 6; k++)
            CHECK(v[k] == want[k] * 11, "packed short %d = %d", k, v[k]);
        MPI_Send(buf, pos, MPI_PACKED, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Status st;
        MPI_Recv(buf, 100, MPI_PACKED, 0, 1, MPI_COMM_WORLD, &st);
        int n;
        MPI_Get_count(&st, MPI_PACKED, &n);
        show("received", n);
        x = 0;
        memset(&r, 0, sizeof r);
        for (int k = 0; k < 12; k++)
            sh[k] = -1;
        MPI_Unpack(buf, n, &pos, &x, 1, MPI_INT, MPI_COMM_WORLD);
        show("pos_after_int", pos);
        MPI_Unpack(buf, n, &pos, &r, 1, rt, MPI_COMM_WORLD);
        show("pos_after_rec", pos);
        MPI_Unpack(buf, n, &pos, sh, 2, sv, MPI_COMM_WORLD);
        show("pos_after_vectors", pos);
        CHECK(x == 12345, "unpacked int %d", x);
        CHECK(r.c == 'q' && r.d == 3.25 && r.i[0] == 7 && r.i[1] == 8 && r.i[2] == 9 && r.s == -5,
              "unpacked record");
        for (int k = 0; k < 12; k++) {
            int in = k == 0 || k == 2 || k == 4 || k == 5 || k == 7 || k == 9;
            CHECK(sh[k] == (in ? k * 11 : -1), "unpacked sh[%d] = %d", k, sh[k]);
        }
    }
    if (fails == 0)
        printf("pack rank=%d what=checked value=1\n", rank);
    MPI_Type_free(&rt);
    MPI_Type_free(&sv);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return 0;
}
