/* MPI_Comm_idup on 4 ranks.
 * Lines: idup rank=W test=NAME size= rank= cmp= inter= sum= (sum: an allreduce
 *        of W + 1 over the new communicator; for the intercommunicator, the
 *        remote group's sum)
 *        pair rank=W right= left= cmp=   (pings over the overlapping pairs)
 *        info rank=W flag= v=            (the hint of idup_with_info)
 *        done rank=W
 * Tests: world (idup + Wait); two outstanding idups of the world (Waitall in
 * reverse order); overlapping pairs as MPICH's comm_idup_overlap (each rank
 * idups a pair communicator it shares with its right neighbour and one with
 * its left, in that order); an intercommunicator (groups {0, 1}, {2, 3});
 * MPI_Comm_idup_with_info; a blocking MPI_Comm_create_group while an idup is
 * in flight on some ranks and before it on the others. */
#include <mpi.h>
#include "vtest.h"

static int W;

static void report(const char *name, MPI_Comm c, MPI_Comm parent)
{
    int size, rank, cmp, sum, one = W + 1, inter;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    MPI_Comm_compare(parent, c, &cmp);
    MPI_Comm_test_inter(c, &inter);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
    printf("idup rank=%d test=%s size=%d rank=%d cmp=%d inter=%d sum=%d\n", W, name, size, rank,
           cmp, inter, sum);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int n;
    MPI_Comm_rank(MPI_COMM_WORLD, &W);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Request r[2];
    MPI_Comm a, b;

    MPI_Comm_idup(MPI_COMM_WORLD, &a, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    report("world", a, MPI_COMM_WORLD);
    MPI_Comm_free(&a);

    MPI_Comm_idup(MPI_COMM_WORLD, &a, &r[0]);
    MPI_Comm_idup(MPI_COMM_WORLD, &b, &r[1]);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    report("two_a", a, MPI_COMM_WORLD);
    report("two_b", b, MPI_COMM_WORLD);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);

    /* pair i = {i, i + 1 mod n} */
    MPI_Comm right = MPI_COMM_NULL, left = MPI_COMM_NULL, tmp;
    for (int i = 0; i < n; i++) {
        int color = (W == i || W == (i + 1) % n) ? 0 : MPI_UNDEFINED;
        MPI_Comm_split(MPI_COMM_WORLD, color, W == i ? 0 : 1, &tmp);
        if (W == i)
            right = tmp;
        else if (W == (i + 1) % n)
            left = tmp;
    }
    MPI_Comm_idup(right, &a, &r[0]);
    MPI_Comm_idup(left, &b, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    {
        /* a ping each way over both duplicates (a collective on one of them
         * would wait for the neighbour's collective on the other) */
        int from_right = -1, from_left = -1, cmp_r, cmp_l;
        MPI_Request q[4];
        MPI_Irecv(&from_right, 1, MPI_INT, 1, 0, a, &q[0]);
        MPI_Irecv(&from_left, 1, MPI_INT, 0, 0, b, &q[1]);
        MPI_Isend(&W, 1, MPI_INT, 1, 0, a, &q[2]);
        MPI_Isend(&W, 1, MPI_INT, 0, 0, b, &q[3]);
        MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
        MPI_Comm_compare(right, a, &cmp_r);
        MPI_Comm_compare(left, b, &cmp_l);
        printf("pair rank=%d right=%d left=%d cmp=%d,%d\n", W, from_right, from_left, cmp_r, cmp_l);
    }
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Comm_free(&right);
    MPI_Comm_free(&left);

    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, W < 2, W, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, W < 2 ? 2 : 0, 9, &ic);
    MPI_Comm_idup(ic, &a, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    report("inter", a, ic);
    MPI_Comm_free(&a);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &a, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Info_free(&info);
    MPI_Info got;
    char v[64];
    int flag;
    MPI_Comm_get_info(a, &got);
    MPI_Info_get_string(got, "mpi_assert_no_any_tag", &(int){64}, v, &flag);
    printf("info rank=%d flag=%d v=%s\n", W, flag, flag ? v : "-");
    MPI_Info_free(&got);
    report("with_info", a, MPI_COMM_WORLD);
    MPI_Comm_free(&a);
    {
        /* MPICH's comm_create_group_idup: a blocking constructor while an
         * idup is in flight, in opposite orders on even and odd ranks */
        MPI_Group wg;
        MPI_Comm gc;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        if (W % 2 == 0) {
            MPI_Comm_create_group(MPI_COMM_WORLD, wg, 0, &gc);
            MPI_Comm_idup(MPI_COMM_WORLD, &a, &r[0]);
        } else {
            MPI_Comm_idup(MPI_COMM_WORLD, &a, &r[0]);
            MPI_Comm_create_group(MPI_COMM_WORLD, wg, 0, &gc);
        }
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        report("mixed_idup", a, MPI_COMM_WORLD);
        report("mixed_group", gc, MPI_COMM_WORLD);
        MPI_Comm_free(&a);
        MPI_Comm_free(&gc);
        MPI_Group_free(&wg);
    }
    printf("done rank=%d\n", W);
    MPI_Finalize();
    return 0;
}
