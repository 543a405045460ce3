/* Group operations, MPI_Comm_create, MPI_Comm_compare, names.
 *
 * usage: comm_groups   (any number of ranks n)
 * With W = the group of MPI_COMM_WORLD, E = the even ranks, O = the odd
 * ranks, RE = the even ranks in decreasing order, each rank prints
 *   grp rank=R op=OP v=LIST     LIST: world ranks of the members, comma
 *                               separated ("-" when empty)
 * for OP in incl (ranks n-1, 0), excl (rank 0), evens (range_incl
 * (0, n-1, 2)), odds (range_excl of the same), union (O u E), revevens
 * (range_incl (last even, 0, -2)), inter_re_w (RE n W), inter_w_re (W n RE),
 * diff (W - E), commgroup (group of the communicator built by
 * MPI_Comm_create(W, RE), "null" for non-members), and
 *   val rank=R op=OP v=INT
 * for the integers: size_e, rank_e (MPI_Group_rank of E), cmp_e_re,
 * cmp_e_o, cmp_w_w, empty (incl of no rank is MPI_GROUP_EMPTY), crank and
 * csize (rank / size in the created communicator, -1 for non-members),
 * ring (world rank received from the left neighbour in it), ccmp_ident
 * (W vs W), ccmp_dup (W vs its dup), ccmp_rev (W vs split reversing it),
 * ccmp_created (W vs the created one, members only), inter (test_inter),
 * and the translations
 *   tr rank=R op=e_o v=LIST     E -> O of E's ranks and MPI_PROC_NULL
 *   tr rank=R op=w_re v=LIST    W -> RE of all ranks
 *   name rank=R op=world|dup|named v=NAME   ("-" when empty) */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int rank, size;
static MPI_Group world;

static void list(const char *tag, const char *op, const int *v, int n)
{
    char buf[4096];
    int at = 0;
    buf[0] = '-';
    buf[1] = 0;
    for (int i = 0; i < n; i++)
        at += snprintf(buf + at, sizeof buf - at, "%s%d", i ? "," : "", v[i]);
    printf("%s rank=%d op=%s v=%s\n", tag, rank, op, buf);
}

static void members(const char *op, MPI_Group g)
{
    int n;
    MPI_Group_size(g, &n);
    int *in = vt_malloc(sizeof(int) * n), *out = vt_malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++)
        in[i] = i;
    MPI_Group_translate_ranks(g, n, in, world, out);
    list("grp", op, out, n);
    free(in);
    free(out);
}

static void val(const char *op, int v)
{
    printf("val rank=%d op=%s v=%d\n", rank, op, v);
}

static void name(const char *op, MPI_Comm c)
{
    char s[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_Comm_get_name(c, s, &len);
    if ((int)strlen(s) != len)
        printf("FAIL rank=%d MPI_Comm_get_name length %d for \"%s\"\n", rank, len, s);
    printf("name rank=%d op=%s v=%s\n", rank, op, len ? s : "-");
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world);

    MPI_Group g, e, o, re, u;
    int two[2] = {size - 1, 0};
    MPI_Group_incl(world, size >= 2 ? 2 : 1, two, &g);
    members("incl", g);
    MPI_Group_free(&g);
    int zero = 0;
    MPI_Group_excl(world, 1, &zero, &g);
    members("excl", g);
    MPI_Group_free(&g);
    int evens[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(world, 1, evens, &e);
    members("evens", e);
    MPI_Group_range_excl(world, 1, evens, &o);
    members("odds", o);
    MPI_Group_union(o, e, &u);
    members("union", u);
    int last_even = (size - 1) / 2 * 2;
    int rev[1][3] = {{last_even, 0, -2}};
    MPI_Group_range_incl(world, 1, rev, &re);
    members("revevens", re);
    MPI_Group_intersection(re, world, &g);
    members("inter_re_w", g);
    MPI_Group_free(&g);
    MPI_Group_intersection(world, re, &g);
    members("inter_w_re", g);
    MPI_Group_free(&g);
    MPI_Group_difference(world, e, &g);
    members("diff", g);
    MPI_Group_free(&g);

    int n;
    MPI_Group_size(e, &n);
    val("size_e", n);
    int r;
    MPI_Group_rank(e, &r);
    val("rank_e", r);
    int c;
    MPI_Group_compare(e, re, &c);
    val("cmp_e_re", c);
    MPI_Group_compare(e, o, &c);
    val("cmp_e_o", c);
    MPI_Group_compare(world, world, &c);
    val("cmp_w_w", c);
    MPI_Group_incl(world, 0, NULL, &g);
    val("empty", g == MPI_GROUP_EMPTY);
    MPI_Group_free(&g);

    int *in = vt_malloc(sizeof(int) * (size + 1)), *out = vt_malloc(sizeof(int) * (size + 1));
    for (int i = 0; i < n; i++)
        in[i] = i;
    in[n] = MPI_PROC_NULL;
    MPI_Group_translate_ranks(e, n + 1, in, o, out);
    list("tr", "e_o", out, n + 1);
    for (int i = 0; i < size; i++)
        in[i] = i;
    MPI_Group_translate_ranks(world, size, in, re, out);
    list("tr", "w_re", out, size);
    free(in);
    free(out);

    MPI_Comm created;
    MPI_Comm_create(MPI_COMM_WORLD, re, &created);
    if (created == MPI_COMM_NULL) {
        printf("grp rank=%d op=commgroup v=null\n", rank);
        val("crank", -1);
        val("csize", -1);
    } else {
        MPI_Group cg;
        MPI_Comm_group(created, &cg);
        members("commgroup", cg);
        MPI_Group_free(&cg);
        int cr, cs, got = -5;
        MPI_Comm_rank(created, &cr);
        MPI_Comm_size(created, &cs);
        val("crank", cr);
        val("csize", cs);
        MPI_Sendrecv(&rank, 1, MPI_INT, (cr + 1) % cs, 0, &got, 1, MPI_INT, (cr + cs - 1) % cs,
                     0, created, MPI_STATUS_IGNORE);
        val("ring", got);
        MPI_Comm_compare(MPI_COMM_WORLD, created, &c);
        val("ccmp_created", c);
    }

    MPI_Comm dup, revc;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, 5, -rank, &revc);
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &c);
    val("ccmp_ident", c);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &c);
    val("ccmp_dup", c);
    MPI_Comm_compare(MPI_COMM_WORLD, revc, &c);
    val("ccmp_rev", c);
    int flag = -1;
    MPI_Comm_test_inter(dup, &flag);
    val("inter", flag);

    name("world", MPI_COMM_WORLD);
    name("dup", dup);
    MPI_Comm_set_name(dup, "my_duplicate");
    name("named", dup);

    MPI_Comm_free(&dup);
    MPI_Comm_free(&revc);
    if (created != MPI_COMM_NULL)
        MPI_Comm_free(&created);
    MPI_Group_free(&e);
    MPI_Group_free(&o);
    MPI_Group_free(&re);
    MPI_Group_free(&u);
    MPI_Group_free(&world);
    if (world != MPI_GROUP_NULL)
        printf("FAIL rank=%d MPI_Group_free did not set MPI_GROUP_NULL\n", rank);
    MPI_Finalize();
    return 0;
}
