/* Error handlers and error classes (run with 2 ranks; every rank runs it).
 *
 * usage: errhan checks|abort|fatal_call|timing
 *   checks:     prints `case name=NAME ...` lines (see tests/errhan_dtype.rs)
 *               and `done rank=R`.
 *   abort:      MPI_ERRORS_ABORT on MPI_COMM_WORLD, then a send to rank 99:
 *               the job must end there.
 *   fatal_call: MPI_Comm_call_errhandler on MPI_COMM_WORLD with its default
 *               MPI_ERRORS_ARE_FATAL and an added code: the job must end.
 *   timing:     rank 0 makes an erroneous send on MPI_COMM_WORLD whose
 *               handler adds 1 ms of computation (MPIX_Vaced_compute),
 *               then sends rank 1
 *               its 4-int section of a 4 x 6 BLOCK x BLOCK darray; prints
 *               `t rank=R op=err|send|recv t=<MPI_Wtime>`. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int calls, last_code;
static MPI_Comm last_comm;
static char last_text[MPI_MAX_ERROR_STRING];

/* Records its arguments and, to show that a handler may call MPI, the
 * error string of the code. */
static void handler(MPI_Comm *comm, int *code, ...)
{
    int len;
    calls++;
    last_comm = *comm;
    last_code = *code;
    MPI_Error_string(*code, last_text, &len);
}

/* Adds 1 ms of virtual computation: a handler's time is the program's. */
static void computing_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    MPIX_Vaced_compute(1e-3);
}

static const char *which(MPI_Comm c, MPI_Comm dup, MPI_Comm dup2)
{
    if (c == MPI_COMM_WORLD)
        return "world";
    if (c == dup)
        return "dup";
    if (c == dup2)
        return "dup2";
    return "other";
}

int main(int argc, char **argv)
{
    vt_setup();
    MPI_Init(&argc, &argv);
    int rank, x = 0, rc, cls;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "checks";

    if (strcmp(mode, "abort") == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ABORT);
        if (rank == 0)
            MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
        printf("returned rank=%d\n", rank);
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "timing") == 0) {
        /* on MPI_COMM_WORLD: nothing before costs time */
        MPI_Comm dup = MPI_COMM_WORLD;
        MPI_Errhandler eh;
        MPI_Comm_create_errhandler(computing_handler, &eh);
        MPI_Comm_set_errhandler(dup, eh);
        int g[2] = {4, 6}, d[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
            k[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p[2] = {2, 3};
        int a[24], got[4];
        for (int i = 0; i < 24; i++)
            a[i] = i;
        MPI_Datatype sect;
        MPI_Type_create_darray(6, 1, 2, g, d, k, p, MPI_ORDER_C, MPI_INT, &sect);
        MPI_Type_commit(&sect);
        if (rank == 0) {
            MPI_Send(&x, 1, MPI_INT, 99, 0, dup);
            printf("t rank=0 op=err t=%.17g\n", MPI_Wtime());
            MPI_Send(a, 1, sect, 1, 0, dup);
            printf("t rank=0 op=send t=%.17g\n", MPI_Wtime());
        } else {
            MPI_Recv(got, 4, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
            printf("t rank=1 op=recv t=%.17g\n", MPI_Wtime());
            if (got[0] != 2 || got[1] != 3 || got[2] != 8 || got[3] != 9)
                printf("FAIL section %d %d %d %d\n", got[0], got[1], got[2], got[3]);
        }
        MPI_Type_free(&sect);
        MPI_Errhandler_free(&eh);
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "fatal_call") == 0) {
        int c, k;
        MPI_Add_error_class(&c);
        MPI_Add_error_code(c, &k);
        MPI_Add_error_string(k, "my fatal code");
        if (rank == 1)
            MPI_Comm_call_errhandler(MPI_COMM_WORLD, k);
        MPI_Barrier(MPI_COMM_WORLD);
        printf("returned rank=%d\n", rank);
        MPI_Finalize();
        return 0;
    }

    MPI_Comm dup, dup2;
    MPI_Errhandler eh, got;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(dup, eh);

    /* an erroneous call on the communicator calls the handler */
    rc = MPI_Send(&x, 1, MPI_INT, 99, 0, dup);
    printf("case name=send_bad_rank rc=%d calls=%d comm=%s code=%d text=%s\n", rc, calls,
           which(last_comm, dup, MPI_COMM_NULL), last_code,
           strcmp(last_text, "Invalid rank") == 0 ? "ok" : last_text);

    /* a dup inherits the handler; the handler gets the dup */
    MPI_Comm_dup(dup, &dup2);
    rc = MPI_Recv(&x, -1, MPI_INT, 0, 0, dup2, MPI_STATUS_IGNORE);
    printf("case name=dup_inherits rc=%d calls=%d comm=%s code=%d\n", rc, calls,
           which(last_comm, dup, dup2), last_code);

    /* MPI_Comm_get_errhandler gives the handle; freeing both references
     * leaves the handler attached */
    MPI_Comm_get_errhandler(dup, &got);
    printf("case name=get same=%d\n", got == eh);
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&eh);
    printf("case name=free null=%d\n", eh == MPI_ERRHANDLER_NULL && got == MPI_ERRHANDLER_NULL);
    rc = MPI_Send(&x, 1, MPI_INT, 0, -5, dup);
    printf("case name=after_free rc=%d calls=%d comm=%s code=%d\n", rc, calls,
           which(last_comm, dup, dup2), last_code);

    /* MPI_Comm_call_errhandler with an added code */
    int myclass, mycode, attr_flag, *lastused;
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Add_error_class(&myclass);
    MPI_Error_string(myclass, text, &len);
    printf("case name=class_string len=%d empty=%d\n", len, text[0] == 0);
    MPI_Add_error_code(myclass, &mycode);
    MPI_Add_error_string(mycode, "my own error");
    MPI_Error_class(mycode, &cls);
    MPI_Error_string(mycode, text, &len);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &attr_flag);
    printf("case name=added class=%d code=%d class_of_code_ok=%d text_ok=%d len=%d "
           "lastused=%d flag=%d\n",
           myclass, mycode, cls == myclass, strcmp(text, "my own error") == 0, len, *lastused,
           attr_flag);
    int argcode;
    MPI_Add_error_code(MPI_ERR_ARG, &argcode);
    MPI_Error_class(argcode, &cls);
    printf("case name=code_of_predefined code=%d class=%d\n", argcode, cls);
    rc = MPI_Comm_call_errhandler(dup2, mycode);
    printf("case name=call_errhandler rc=%d calls=%d comm=%s code=%d text=%s\n", rc, calls,
           which(last_comm, dup, dup2), last_code,
           strcmp(last_text, "my own error") == 0 ? "ok" : last_text);

    /* under MPI_ERRORS_RETURN the handler is not called */
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    rc = MPI_Send(&x, 1, MPI_INT, 99, 0, dup);
    printf("case name=errors_return rc=%d calls=%d\n", rc, calls);
    rc = MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER);
    printf("case name=call_errors_return rc=%d calls=%d\n", rc, calls);

    /* errors of calls without a valid communicator go to MPI_COMM_WORLD's
     * handler, which gets MPI_COMM_WORLD */
    MPI_Errhandler weh;
    MPI_Comm_create_errhandler(handler, &weh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, weh);
    rc = MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
    printf("case name=null_comm rc=%d calls=%d comm=%s code=%d\n", rc, calls,
           which(last_comm, dup, dup2), last_code);
    MPI_Datatype t;
    rc = MPI_Type_contiguous(-1, MPI_INT, &t);
    printf("case name=type_error rc=%d calls=%d comm=%s code=%d\n", rc, calls,
           which(last_comm, dup, dup2), last_code);

    /* errors of these calls themselves */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler freed = weh;
    MPI_Errhandler_free(&weh);
    rc = MPI_Comm_set_errhandler(dup, freed);
    printf("case name=set_freed rc=%d\n", rc);
    rc = MPI_Comm_set_errhandler(dup, MPI_ERRHANDLER_NULL);
    printf("case name=set_null rc=%d\n", rc);
    rc = MPI_Add_error_code(mycode, &x);
    printf("case name=code_of_code rc=%d\n", rc);
    rc = MPI_Add_error_string(MPI_ERR_RANK, "no");
    printf("case name=string_of_predefined rc=%d\n", rc);
    rc = MPI_Error_class(mycode + 1000, &cls);
    printf("case name=class_of_unknown rc=%d\n", rc);
    rc = MPI_Comm_call_errhandler(dup, mycode + 1000);
    printf("case name=call_unknown_code rc=%d calls=%d\n", rc, calls);

    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup);
    printf("done rank=%d\n", rank);
    MPI_Finalize();
    return 0;
}
