/* Communicator info hints and MPI_Comm_create_group (run on 6 ranks).
 *   hints rank=R step=S v=B1B2B3B4 n=N bogus=F
 *       the four hints of MPI_Comm_get_info (no_any_tag, no_any_source,
 *       exact_length, allow_overtaking; 1 = "true"), their number, whether
 *       an unknown key came back
 *   group rank=R grank=G gsize=N sum=S    members of the group {4, 2, 0}
 *       (created while the odd ranks exchange on MPI_COMM_WORLD with the
 *       same tag), S = MPI_Allreduce of world ranks over it
 *   other rank=R got=X                    odd ranks: X received in the ring
 *   errors rank=R tag=C1 subgroup=C2 selfgroup=C3
 */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int rank;

static void show(const char *step, MPI_Comm c)
{
    static const char *keys[4] = { "mpi_assert_no_any_tag", "mpi_assert_no_any_source",
        "mpi_assert_exact_length", "mpi_assert_allow_overtaking"
    };
    MPI_Info got;
    MPI_Comm_get_info(c, &got);
    char v[MPI_MAX_INFO_VAL + 1], bits[5];
    int flag, n;
    for (int i = 0; i < 4; i++) {
        MPI_Info_get(got, keys[i], MPI_MAX_INFO_VAL, v, &flag);
        bits[i] = !flag ? '?' : strcmp(v, "true") == 0 ? '1' : strcmp(v, "false") == 0 ? '0' : 'x';
    }
    bits[4] = 0;
    MPI_Info_get_nkeys(got, &n);
    MPI_Info_get(got, "bogus", MPI_MAX_INFO_VAL, v, &flag);
    printf("hints rank=%d step=%s v=%s n=%d bogus=%d\n", rank, step, bits, n, flag);
    MPI_Info_free(&got);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* hints */
    MPI_Comm a, b, c, d, s;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    show("dup_world", a);
    MPI_Info in;
    MPI_Info_create(&in);
    MPI_Info_set(in, "mpi_assert_no_any_tag", "true");
    MPI_Info_set(in, "mpi_assert_allow_overtaking", "1");
    MPI_Info_set(in, "bogus", "true");
    MPI_Comm_set_info(a, in);
    show("set", a);
    MPI_Comm_dup(a, &b);
    show("dup_copies", b);
    MPI_Info_free(&in);
    MPI_Info_create(&in);
    MPI_Info_set(in, "mpi_assert_exact_length", "true");
    MPI_Comm_dup_with_info(a, in, &c);
    show("dup_with_info", c);
    MPI_Comm_dup_with_info(a, MPI_INFO_NULL, &d);
    show("dup_with_null", d);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, in, &s);
    show("split_type", s);
    MPI_Info_set(in, "mpi_assert_exact_length", "false");
    MPI_Comm_set_info(c, in);
    show("set_false", c);
    MPI_Info_free(&in);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Comm_free(&c);
    MPI_Comm_free(&d);
    MPI_Comm_free(&s);

    /* create_group over {4, 2, 0} while the odd ranks talk with the same tag */
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int members[3] = { 4, 2, 0 };
    MPI_Group_incl(world, 3, members, &g);
    if (rank % 2 == 0) {
        MPI_Comm gc;
        MPI_Comm_create_group(MPI_COMM_WORLD, g, 5, &gc);
        int gr, gs, sum;
        MPI_Comm_rank(gc, &gr);
        MPI_Comm_size(gc, &gs);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, gc);
        printf("group rank=%d grank=%d gsize=%d sum=%d\n", rank, gr, gs, sum);
        MPI_Comm_free(&gc);
    } else {
        int next = (rank + 2) % size, prev = (rank + size - 2) % size, got = -1;
        MPI_Sendrecv(&rank, 1, MPI_INT, next, 5, &got, 1, MPI_INT, prev, 5, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        printf("other rank=%d got=%d\n", rank, got);
    }

    /* errors */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm half, out = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 3, rank, &half);
    MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
    int c1 = MPI_Comm_create_group(MPI_COMM_WORLD, g, -1, &out);
    int c2 = MPI_Comm_create_group(half, g, 0, &out); /* {4,2,0} is not in either half */
    MPI_Group me;
    MPI_Comm_group(MPI_COMM_SELF, &me);
    int c3 = MPI_Comm_create_group(MPI_COMM_SELF, me, 0, &out);
    int ssize;
    MPI_Comm_size(out, &ssize);
    printf("errors rank=%d tag=%d subgroup=%d selfgroup=%d selfsize=%d\n", rank, c1, c2, c3,
           ssize);
    MPI_Comm_free(&out);
    MPI_Comm_free(&half);
    MPI_Group_free(&me);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
