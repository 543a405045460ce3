/* Results of the nonblocking collectives against the blocking ones.
 *
 * usage: icoll_results [mpich]
 * For several sizes (binomial, scatter + allgather schedules) and roots:
 * MPI_Ibcast equals MPI_Bcast; three broadcasts and a barrier outstanding
 * at once on one communicator, completed in reverse order with MPI_Waitall
 * or one by one with MPI_Testany; a derived datatype (a strided vector);
 * MPI_Cancel of a collective request fails with MPI_ERR_REQUEST and a bad
 * root with MPI_ERR_ROOT. Prints "FAIL ..." lines on errors and
 * "ok rank=R checks=N" at the end. `mpich` leaves the cancel out: MPI
 * calls cancelling a collective request erroneous, and MPICH answers
 * MPI_ERR_INTERN (its own choice) where vaced's library answers
 * MPI_ERR_REQUEST. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int checks;

static void expect_pattern(const unsigned char *b, int n, unsigned seed, const char *what, int rank)
{
    long k = vt_check(b, n, seed);
    if (k >= 0)
        printf("FAIL rank=%d %s: byte %ld differs\n", rank, what, k);
    checks++;
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mpich = argc > 1 && strcmp(argv[1], "mpich") == 0;
    int sizes[] = { 0, 1, 8, 1000, 12288, 20000, 140000, 600000 };
    int nsizes = sizeof sizes / sizeof sizes[0];
    for (int i = 0; i < nsizes; i++) {
        int n = sizes[i];
        int root = (i * 7) % size;
        unsigned char *a = vt_malloc(n), *b = vt_malloc(n);
        vt_fill(a, n, rank == root ? 10 + i : 99);
        vt_fill(b, n, rank == root ? 10 + i : 98);
        MPI_Request r;
        MPI_Ibcast(a, n, MPI_BYTE, root, MPI_COMM_WORLD, &r);
        MPI_Bcast(b, n, MPI_BYTE, root, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        expect_pattern(a, n, 10 + i, "ibcast", rank);
        expect_pattern(b, n, 10 + i, "bcast", rank);
        free(a);
        free(b);
    }
    /* several outstanding, completed in another order */
    {
        int n[3] = { 100, 30000, 200000 };
        unsigned char *buf[3];
        MPI_Request r[4];
        for (int k = 0; k < 3; k++) {
            int root = (k + 1) % size;
            buf[k] = vt_malloc(n[k]);
            vt_fill(buf[k], n[k], rank == root ? 40 + k : 97);
            MPI_Ibcast(buf[k], n[k], MPI_BYTE, root, MPI_COMM_WORLD, &r[k]);
        }
        MPI_Ibarrier(MPI_COMM_WORLD, &r[3]);
        MPI_Request rev[4] = { r[3], r[2], r[1], r[0] };
        MPI_Status st[4];
        MPI_Waitall(4, rev, st);
        for (int k = 0; k < 4; k++)
            if (rev[k] != MPI_REQUEST_NULL)
                printf("FAIL rank=%d waitall left a request\n", rank);
        for (int k = 0; k < 3; k++) {
            expect_pattern(buf[k], n[k], 40 + k, "outstanding ibcast", rank);
            vt_fill(buf[k], n[k], rank == 0 ? 50 + k : 96);
            MPI_Ibcast(buf[k], n[k], MPI_BYTE, 0, MPI_COMM_WORLD, &r[k]);
        }
        MPI_Ibarrier(MPI_COMM_WORLD, &r[3]);
        int left = 4;
        while (left > 0) {
            int idx, flag;
            MPI_Testany(4, r, &idx, &flag, MPI_STATUS_IGNORE);
            if (flag && idx != MPI_UNDEFINED)
                left--;
            else /* polling takes time: at cpu.scale 0 only this advances tV */
                MPIX_Vaced_compute(1e-6);
        }
        for (int k = 0; k < 3; k++) {
            expect_pattern(buf[k], n[k], 50 + k, "testany ibcast", rank);
            free(buf[k]);
        }
    }
    /* a strided vector of ints */
    {
        MPI_Datatype vec;
        MPI_Type_vector(50, 2, 3, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        int a[150], b[150];
        for (int k = 0; k < 150; k++) {
            a[k] = rank == 1 % size ? k * 7 + 1 : -1;
            b[k] = -1;
        }
        memcpy(b, a, sizeof a);
        MPI_Request r;
        MPI_Ibcast(a, 1, vec, 1 % size, MPI_COMM_WORLD, &r);
        MPI_Bcast(b, 1, vec, 1 % size, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (int k = 0; k < 150; k++) {
            int want = (k % 3 == 2) ? (rank == 1 % size ? k * 7 + 1 : -1) : k * 7 + 1;
            if (a[k] != want || b[k] != want) {
                printf("FAIL rank=%d vector element %d: %d %d, want %d\n", rank, k, a[k], b[k], want);
                break;
            }
        }
        checks++;
        MPI_Type_free(&vec);
    }
    /* errors */
    {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int x = 0, cls = 0;
        MPI_Request r = MPI_REQUEST_NULL;
        int err = MPI_Ibcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD, &r);
        MPI_Error_class(err, &cls);
        if (cls != MPI_ERR_ROOT)
            printf("FAIL rank=%d bad root: class %d\n", rank, cls);
        err = MPI_Ibarrier(MPI_COMM_NULL, &r);
        MPI_Error_class(err, &cls);
        if (cls != MPI_ERR_COMM)
            printf("FAIL rank=%d null comm: class %d\n", rank, cls);
        MPI_Ibarrier(MPI_COMM_WORLD, &r);
        if (!mpich) {
            err = MPI_Cancel(&r);
            MPI_Error_class(err, &cls);
            if (cls != MPI_ERR_REQUEST)
                printf("FAIL rank=%d cancel: class %d\n", rank, cls);
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        checks += 3;
    }
    printf("ok rank=%d checks=%d\n", rank, checks);
    MPI_Finalize();
    return 0;
}
