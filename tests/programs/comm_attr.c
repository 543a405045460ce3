/* Attribute caching: copy and delete callbacks on dup / set / delete /
 * free, freed keyvals, predefined attributes, the deprecated MPI-1 calls,
 * callbacks that call MPI, failing callbacks, attributes deleted at
 * MPI_Finalize.
 *
 * usage: comm_attr   (any number of ranks)
 * Every callback prints, in the order it runs:
 *   ev rank=R step=S cb=copy|delete kv=K val=V
 * (K: the keyval's label, passed as its extra_state; V: the attribute
 * value, an integer stored as the pointer). The program prints results:
 *   res rank=R step=S what=W v=V
 * Steps are described in tests/comm.rs (attributes_and_callbacks). */
#include <mpi.h>
#include <stdint.h>
#include "vtest.h"

static int rank;
static const char *step = "start";

#define V(p) ((long)(intptr_t)(p))
#define P(v) ((void *)(intptr_t)(v))

static void res(const char *what, long v)
{
    printf("res rank=%d step=%s what=%s v=%ld\n", rank, step, what, v);
}

static int copy_plus(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)kv;
    printf("ev rank=%d step=%s cb=copy kv=%ld val=%ld\n", rank, step, V(extra), V(in));
    *(void **)out = P(V(in) + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_skip(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)kv, (void)out;
    printf("ev rank=%d step=%s cb=copy kv=%ld val=%ld\n", rank, step, V(extra), V(in));
    *flag = 0;
    return MPI_SUCCESS;
}

static int copy_fail(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)kv, (void)out, (void)flag;
    printf("ev rank=%d step=%s cb=copy kv=%ld val=%ld\n", rank, step, V(extra), V(in));
    return MPI_ERR_OTHER;
}

static int del(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c, (void)kv;
    printf("ev rank=%d step=%s cb=delete kv=%ld val=%ld\n", rank, step, V(extra), V(val));
    return MPI_SUCCESS;
}

/* Calls MPI on the communicator being freed. */
static int del_reentrant(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)kv;
    int r = -1, s = -1;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    printf("ev rank=%d step=%s cb=delete kv=%ld val=%ld\n", rank, step, V(extra), V(val));
    res("reentrant_rank", r);
    res("reentrant_size", s);
    return MPI_SUCCESS;
}

/* Fails the first time. */
static int del_fail_once(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c, (void)kv;
    static int calls;
    printf("ev rank=%d step=%s cb=delete kv=%ld val=%ld\n", rank, step, V(extra), V(val));
    return calls++ ? MPI_SUCCESS : MPI_ERR_OTHER;
}

static void get(MPI_Comm c, int kv, const char *what)
{
    void *v = P(-7);
    int flag = -1;
    int rc = MPI_Comm_get_attr(c, kv, &v, &flag);
    if (rc != MPI_SUCCESS) {
        res(what, -1000 - rc);
        return;
    }
    res(what, flag ? V(v) : -1);
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int kv1, kv2, kv3, kv4;
    MPI_Comm_create_keyval(copy_plus, del, &kv1, P(1));
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &kv2, P(2));
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kv3, P(3));
    MPI_Comm_create_keyval(copy_skip, del, &kv4, P(4));
    MPI_Comm c, d;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_attr(c, kv1, P(1));
    MPI_Comm_set_attr(c, kv2, P(2));
    MPI_Comm_set_attr(c, kv3, P(3));
    MPI_Comm_set_attr(c, kv4, P(4));

    step = "dup";
    MPI_Comm_dup(c, &d);
    get(d, kv1, "d_kv1");
    get(d, kv2, "d_kv2");
    get(d, kv3, "d_kv3");
    get(d, kv4, "d_kv4");
    get(c, kv1, "c_kv1");

    step = "replace";
    MPI_Comm_set_attr(c, kv1, P(5));
    get(c, kv1, "c_kv1");

    step = "delete";
    res("rc", MPI_Comm_delete_attr(c, kv2));
    get(c, kv2, "c_kv2");
    res("rc_again", MPI_Comm_delete_attr(c, kv2));

    step = "free_keyval";
    int old_kv1 = kv1;
    res("rc", MPI_Comm_free_keyval(&kv1));
    res("invalid", kv1 == MPI_KEYVAL_INVALID);
    get(c, old_kv1, "c_kv1");
    res("rc_set", MPI_Comm_set_attr(c, old_kv1, P(9)));

    step = "free_d";
    res("rc", MPI_Comm_free(&d));
    res("null", d == MPI_COMM_NULL);

    step = "free_c";
    res("rc", MPI_Comm_free(&c));

    step = "predefined";
    int *p, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag);
    res("tag_ub", flag ? *p : -1);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &p, &flag);
    res("host", flag ? *p : -1000);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &p, &flag);
    res("io", flag ? *p : -1000);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag);
    res("wtime_is_global", flag ? *p : -1);
    MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag);
    res("attr_get_tag_ub", flag ? *p : -1);
    res("rc_set", MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, P(1)));
    res("rc_delete", MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB));
    int tag_ub = MPI_TAG_UB;
    res("rc_free", MPI_Comm_free_keyval(&tag_ub));

    step = "deprecated";
    int kv5;
    MPI_Comm e;
    MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &kv5, P(5));
    MPI_Attr_put(MPI_COMM_WORLD, kv5, P(77));
    MPI_Comm_dup(MPI_COMM_WORLD, &e);
    void *v;
    MPI_Attr_get(e, kv5, &v, &flag);
    res("e_kv5", flag ? V(v) : -1);
    res("rc_delete", MPI_Attr_delete(e, kv5));
    MPI_Attr_get(e, kv5, &v, &flag);
    res("e_kv5_after", flag ? V(v) : -1);
    MPI_Attr_delete(MPI_COMM_WORLD, kv5);
    MPI_Keyval_free(&kv5);
    res("invalid", kv5 == MPI_KEYVAL_INVALID);
    MPI_Comm_free(&e);

    step = "reentrant";
    int kv6;
    MPI_Comm f;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_reentrant, &kv6, P(6));
    MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &f);
    MPI_Comm_set_attr(f, kv6, P(60));
    MPI_Comm_free(&f);
    MPI_Comm_free_keyval(&kv6);

    step = "failing";
    int kv10, kv11;
    MPI_Comm g, h = MPI_COMM_NULL;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_fail_once, &kv10, P(10));
    MPI_Comm_create_keyval(copy_fail, MPI_COMM_NULL_DELETE_FN, &kv11, P(11));
    MPI_Comm_dup(MPI_COMM_WORLD, &g);
    MPI_Comm_set_attr(g, kv10, P(100));
    MPI_Comm_set_attr(g, kv11, P(110));
    res("rc_dup", MPI_Comm_dup(g, &h));
    res("h_null", h == MPI_COMM_NULL);
    MPI_Comm g0 = g;
    res("rc_free", MPI_Comm_free(&g));
    res("still_there", g == g0);
    res("rc_free_again", MPI_Comm_free(&g));
    MPI_Comm_free_keyval(&kv10);
    MPI_Comm_free_keyval(&kv11);

    step = "finalize";
    int kv7, kv8, kv9;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &kv7, P(7));
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &kv8, P(8));
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &kv9, P(9));
    MPI_Comm_set_attr(MPI_COMM_WORLD, kv9, P(90));
    MPI_Comm_set_attr(MPI_COMM_SELF, kv7, P(70));
    MPI_Comm_set_attr(MPI_COMM_SELF, kv8, P(80));
    MPI_Comm_free_keyval(&kv8);
    res("before", 1);
    MPI_Finalize();
    printf("res rank=%d step=after what=done v=1\n", rank);
    return 0;
}
