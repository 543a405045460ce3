/* Attributes on datatypes and windows: copy callbacks on MPI_Type_dup,
 * delete callbacks on set / delete / MPI_Type_free / MPI_Win_free (in the
 * reverse order of setting), attributes on a predefined type, keyvals of
 * one kind refused on the other, predefined window keyvals read-only, a
 * failing delete callback that leaves the type alone, Fortran-free.
 *
 * usage: obj_attr   (one rank)
 * Callbacks print `ev step=S cb=copy|delete kv=K val=V` (K: the keyval's
 * label, its extra_state); results are `res step=S what=W v=V`. */
#include <mpi.h>
#include <stdint.h>
#include "vtest.h"

static const char *step = "start";

#define V(p) ((long)(intptr_t)(p))
#define P(v) ((void *)(intptr_t)(v))

static void res(const char *what, long v)
{
    printf("res step=%s what=%s v=%ld\n", step, what, v);
}

static int copy_plus(MPI_Datatype t, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)kv;
    printf("ev step=%s cb=copy kv=%ld val=%ld\n", step, V(extra), V(in));
    *(void **)out = P(V(in) + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int del_type(MPI_Datatype t, int kv, void *val, void *extra)
{
    (void)kv;
    int size = -1;
    MPI_Type_size(t, &size); /* callbacks may call MPI */
    printf("ev step=%s cb=delete kv=%ld val=%ld\n", step, V(extra), V(val));
    res("size_in_delete", size);
    return MPI_SUCCESS;
}

static int del_fail_once(MPI_Datatype t, int kv, void *val, void *extra)
{
    (void)t, (void)kv;
    static int calls;
    printf("ev step=%s cb=delete kv=%ld val=%ld\n", step, V(extra), V(val));
    return calls++ ? MPI_SUCCESS : MPI_ERR_OTHER;
}

static int del_win(MPI_Win w, int kv, void *val, void *extra)
{
    (void)w, (void)kv;
    printf("ev step=%s cb=delete kv=%ld val=%ld\n", step, V(extra), V(val));
    return MPI_SUCCESS;
}

static void get_type(MPI_Datatype t, int kv, const char *what)
{
    void *v = P(-1);
    int flag = -1;
    int rc = MPI_Type_get_attr(t, kv, &v, &flag);
    res(what, rc == MPI_SUCCESS ? (flag ? V(v) : -1) : -100 - rc);
}

static int class_of(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int k1, k2, kf, kw;
    MPI_Type_create_keyval(copy_plus, del_type, &k1, P(1));
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, del_type, &k2, P(2));
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, del_fail_once, &kf, P(3));
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_win, &kw, P(4));

    MPI_Datatype t, t2;
    MPI_Type_contiguous(2, MPI_INT, &t);
    step = "set";
    MPI_Type_set_attr(t, k1, P(10));
    MPI_Type_set_attr(t, k2, P(20));
    get_type(t, k1, "k1");
    get_type(t, k2, "k2");

    step = "dup"; /* k1 copied with +1000, k2 not copied */
    MPI_Type_dup(t, &t2);
    get_type(t2, k1, "k1");
    get_type(t2, k2, "k2");

    step = "replace"; /* the old value's delete callback */
    MPI_Type_set_attr(t, k1, P(11));
    get_type(t, k1, "k1");

    step = "delete";
    MPI_Type_delete_attr(t, k2);
    get_type(t, k2, "k2");
    res("delete_again", MPI_Type_delete_attr(t, k2));

    step = "predefined_type";
    MPI_Type_set_attr(MPI_INT, k2, P(5));
    get_type(MPI_INT, k2, "k2");
    MPI_Type_delete_attr(MPI_INT, k2);

    step = "wrong_kind";
    res("win_keyval_on_type", class_of(MPI_Type_set_attr(t, kw, P(1))));
    res("comm_keyval_on_type", class_of(MPI_Type_set_attr(t, MPI_TAG_UB, P(1))));

    step = "free"; /* reverse order of setting: k1 then nothing else */
    MPI_Type_set_attr(t, kf, P(30));
    MPI_Type_free(&t2);
    res("failing_free", class_of(MPI_Type_free(&t)));
    res("still_there", t != MPI_DATATYPE_NULL);
    get_type(t, k1, "k1");
    MPI_Type_free(&t);
    res("freed", t == MPI_DATATYPE_NULL);

    step = "keyval_free";
    MPI_Type_free_keyval(&k2);
    res("invalid", k2 == MPI_KEYVAL_INVALID);
    MPI_Datatype t3;
    MPI_Type_contiguous(3, MPI_INT, &t3);
    res("freed_keyval", class_of(MPI_Type_set_attr(t3, k1 + 1, P(1))));
    MPI_Type_free(&t3);

    step = "window";
    int buf[4];
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_set_attr(win, kw, P(40));
    void *v;
    int flag;
    MPI_Win_get_attr(win, kw, &v, &flag);
    res("kw", flag ? V(v) : -1);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag);
    res("size", flag ? (long)*(MPI_Aint *)v : -1);
    res("set_predefined", class_of(MPI_Win_set_attr(win, MPI_WIN_BASE, P(1))));
    res("type_keyval_on_win", class_of(MPI_Win_set_attr(win, k1, P(1))));
    MPI_Win_free(&win);
    MPI_Win_free_keyval(&kw);
    MPI_Type_free_keyval(&k1);
    MPI_Type_free_keyval(&kf);
    step = "end";
    res("done", 1);
    MPI_Finalize();
    return 0;
}
