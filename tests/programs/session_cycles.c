/* The Sessions model without MPI_Init (cpu.scale = 0): process sets, their
 * info, several sessions at once, a session initialized and finalized
 * again, thread levels, session error handlers.
 *
 * usage: session_cycles
 * Lines (R: world rank):
 *   pset rank=R n=N i=I name=NAME len=L size=S
 *   level rank=R first=NAME second=NAME
 *   self rank=R got=X size=S
 *   cycle rank=R i=I size=S sum=X t=T           (MPI_Wtime after the Allreduce)
 *   twice rank=R a=X b=Y                         (two sessions at once)
 *   err rank=R what=W class=C                    (MPI_ERRORS_RETURN)
 *   handler rank=R calls=K code=C same=1|0 got=EH_IS_OURS
 *   state rank=R initialized=I finalized=F */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static int calls, last_code;
static MPI_Session last_session;

static void on_error(MPI_Session *s, int *code, ...)
{
    calls++;
    last_code = *code;
    last_session = *s;
}

static int cls(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

int main(void)
{
    vt_setup();
    /* a session error handler made before MPI is initialized */
    MPI_Errhandler eh;
    int rc = MPI_Session_create_errhandler(on_error, &eh);
    if (rc != MPI_SUCCESS)
        printf("FAIL MPI_Session_create_errhandler returned %d\n", rc);

    MPI_Session s;
    MPI_Info req;
    MPI_Info_create(&req);
    MPI_Info_set(req, "thread_level", "MPI_THREAD_SERIALIZED");
    MPI_Session_init(req, MPI_ERRORS_RETURN, &s);
    MPI_Info_free(&req);
    MPI_Group wg;
    int rank;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &wg);
    MPI_Group_rank(wg, &rank);
    MPI_Group_free(&wg);

    int n;
    MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n);
    for (int i = 0; i < n; i++) {
        int len = 0;
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL);
        char name[MPI_MAX_PSET_NAME_LEN];
        int len2 = len;
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len2, name);
        MPI_Info info;
        char val[64];
        int flag = 0;
        MPI_Session_get_pset_info(s, name, &info);
        MPI_Info_get(info, "mpi_size", sizeof val - 1, val, &flag);
        MPI_Info_free(&info);
        printf("pset rank=%d n=%d i=%d name=%s len=%d size=%s\n", rank, n, i, name, len,
               flag ? val : "none");
    }

    /* the process's thread level: the first session's, kept by the second */
    MPI_Session s2;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2);
    char l1[64], l2[64];
    int f1 = 0, f2 = 0;
    MPI_Info i1, i2;
    MPI_Session_get_info(s, &i1);
    MPI_Session_get_info(s2, &i2);
    MPI_Info_get(i1, "thread_level", sizeof l1 - 1, l1, &f1);
    MPI_Info_get(i2, "thread_level", sizeof l2 - 1, l2, &f2);
    MPI_Info_free(&i1);
    MPI_Info_free(&i2);
    printf("level rank=%d first=%s second=%s\n", rank, f1 ? l1 : "none", f2 ? l2 : "none");

    /* two sessions at once: one communicator from each */
    MPI_Group g1, g2;
    MPI_Comm c1, c2;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g1);
    MPI_Group_from_session_pset(s2, "mpi://world", &g2);
    MPI_Comm_create_from_group(g1, "one", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c1);
    MPI_Comm_create_from_group(g2, "two", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c2);
    int a = -1, b = -1, one = 1;
    MPI_Allreduce(&rank, &a, 1, MPI_INT, MPI_SUM, c1);
    MPI_Allreduce(&one, &b, 1, MPI_INT, MPI_SUM, c2);
    printf("twice rank=%d a=%d b=%d\n", rank, a, b);
    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    MPI_Group_free(&g1);
    MPI_Group_free(&g2);

    /* mpi://SELF: a message to oneself */
    MPI_Group sg;
    MPI_Comm sc;
    MPI_Group_from_session_pset(s2, "mpi://SELF", &sg);
    MPI_Comm_create_from_group(sg, "self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc);
    MPI_Group_free(&sg);
    int got = -1, ssize;
    MPI_Comm_size(sc, &ssize);
    MPI_Sendrecv(&rank, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, 0, 5, sc, MPI_STATUS_IGNORE);
    printf("self rank=%d got=%d size=%d\n", rank, got, ssize);
    MPI_Comm_free(&sc);

    /* errors through the session's handler (MPI_ERRORS_RETURN) */
    char name[8];
    int len = sizeof name;
    rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &len, name);
    printf("err rank=%d what=nth class=%d\n", rank, cls(rc));
    MPI_Group bad;
    rc = MPI_Group_from_session_pset(s, "mpi://nowhere", &bad);
    printf("err rank=%d what=pset class=%d\n", rank, cls(rc));
    MPI_Session_finalize(&s2);

    /* a program's session handler */
    MPI_Session_set_errhandler(s, eh);
    MPI_Errhandler cur;
    MPI_Session_get_errhandler(s, &cur);
    rc = MPI_Session_call_errhandler(s, MPI_ERR_OTHER);
    printf("handler rank=%d calls=%d code=%d same=%d got=%d rc=%d\n", rank, calls, last_code,
           last_session == s, cur == eh, rc);
    MPI_Errhandler_free(&cur);
    MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
    MPI_Session_finalize(&s);
    MPI_Errhandler_free(&eh);

    /* a session initialized and finalized again, three times */
    for (int i = 0; i < 3; i++) {
        MPI_Session t;
        MPI_Group g;
        MPI_Comm c;
        MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &t);
        MPI_Group_from_session_pset(t, "mpi://WORLD", &g);
        MPI_Comm_create_from_group(g, "cycle", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
        int size, sum = -1;
        MPI_Comm_size(c, &size);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
        printf("cycle rank=%d i=%d size=%d sum=%d t=%.17g\n", rank, i, size, sum, MPI_Wtime());
        MPI_Comm_free(&c);
        MPI_Group_free(&g);
        MPI_Session_finalize(&t);
    }
    int ini = -1, fin = -1;
    MPI_Initialized(&ini);
    MPI_Finalized(&fin);
    printf("state rank=%d initialized=%d finalized=%d\n", rank, ini, fin);
    return 0;
}
