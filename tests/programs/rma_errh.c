/* Window error handlers: MPI_Win_create_errhandler / set / get / call,
 * the handler called with the window and the error class of a failing
 * window call, then the call returning it; a communicator's handler cannot
 * go on a window; windows start with MPI_ERRORS_ARE_FATAL; shared_query on
 * a window that shares nothing. Prints "ok <rank>" and each handler call as
 * "handler <rank> <class>". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int errors = 0;
#define CHECK(c, ...) do { if (!(c)) { errors++; printf("FAIL " __VA_ARGS__); printf("\n"); } } while (0)

static MPI_Win expected;
static int calls = 0, last = 0;

static void on_win(MPI_Win *win, int *code, ...) {
    int rank, cls;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Error_class(*code, &cls);
    CHECK(*win == expected, "handler got window %d, not %d", *win, expected);
    calls++;
    last = *code;
    printf("handler %d %d\n", rank, cls);
}

static void on_comm(MPI_Comm *comm, int *code, ...) { (void)comm; (void)code; }

int main(int argc, char **argv) {
    int rank, size, buf[4] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    expected = win;

    MPI_Errhandler eh, got, ceh;
    MPI_Win_get_errhandler(win, &got);
    CHECK(got == MPI_ERRORS_ARE_FATAL, "a new window's handler is %d", got);
    MPI_Win_create_errhandler(on_win, &eh);
    MPI_Win_set_errhandler(win, eh);
    MPI_Win_get_errhandler(win, &got);
    CHECK(got == eh, "get_errhandler %d, set %d", got, eh);
    MPI_Errhandler_free(&got);

    /* a failing call: the handler runs, then the call returns the class */
    MPI_Win_fence(0, win);
    int rc = MPI_Put(buf, 1, MPI_INT, size, 0, 1, MPI_INT, win), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "Put to rank %d: class %d", size, cls);
    CHECK(calls == 1 && last == rc, "handler calls %d, code %d", calls, last);
    rc = MPI_Win_shared_query(win, 0, NULL, NULL, NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_FLAVOR, "shared_query: class %d", cls);
    rc = MPI_Win_lock(12345, 0, 0, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_LOCKTYPE, "lock type: class %d", cls);
    CHECK(calls == 3, "handler calls %d", calls);
    MPI_Win_fence(0, win);

    /* MPI_Win_call_errhandler with a code of the program's */
    int myclass, mycode;
    MPI_Add_error_class(&myclass);
    MPI_Add_error_code(myclass, &mycode);
    rc = MPI_Win_call_errhandler(win, mycode);
    CHECK(rc == MPI_SUCCESS && calls == 4 && last == mycode, "call_errhandler: rc %d, calls %d, code %d",
          rc, calls, last);

    /* a communicator's handler is not a window's */
    MPI_Comm_create_errhandler(on_comm, &ceh);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    rc = MPI_Win_set_errhandler(win, ceh);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "a communicator's handler on a window: class %d", cls);
    rc = MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    CHECK(rc == MPI_SUCCESS, "call_errhandler under MPI_ERRORS_RETURN: %d", rc);
    CHECK(calls == 4, "handler calls %d", calls);
    MPI_Errhandler_free(&ceh);
    MPI_Errhandler_free(&eh);
    MPI_Win_free(&win);
    if (errors == 0) printf("ok %d\n", rank);
    MPI_Finalize();
    return 0;
}
