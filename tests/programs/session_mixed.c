/* The Sessions model mixed with the world model (cpu.scale = 0): a session
 * started before MPI_Init outlives MPI_Finalize.
 *
 * usage: session_mixed
 * Lines: mixed rank=R provided=P level=NAME world=X after=Y initialized=I finalized=F
 *   X: an Allreduce of the ranks on the session's communicator while the
 *      world model runs, Y: the same after MPI_Finalize;
 *   P: MPI_Init_thread's provided level (asked: MPI_THREAD_SINGLE; the
 *      session asked for MPI_THREAD_FUNNELED first);
 *   I, F: MPI_Initialized / MPI_Finalized after MPI_Finalize.
 *
 * usage: session_mixed late
 * MPI_Init, MPI_Finalize with no session active (the process leaves the
 * job), then MPI_Session_init with MPI_ERRORS_RETURN:
 *   late class=C session_null=1|0 */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    if (argc > 1 && strcmp(argv[1], "late") == 0) {
        MPI_Init(&argc, &argv);
        MPI_Finalize();
        MPI_Session s = MPI_SESSION_NULL;
        int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
        printf("late class=%d session_null=%d\n", rc, s == MPI_SESSION_NULL);
        return 0;
    }
    MPI_Session s;
    MPI_Info req;
    MPI_Info_create(&req);
    MPI_Info_set(req, "thread_level", "MPI_THREAD_FUNNELED");
    MPI_Session_init(req, MPI_ERRORS_RETURN, &s);
    MPI_Info_free(&req);
    int provided = -1, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Group g;
    MPI_Comm c;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm_create_from_group(g, "mixed", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    MPI_Group_free(&g);
    int x = -1, y = -1;
    MPI_Allreduce(&rank, &x, 1, MPI_INT, MPI_SUM, c);
    MPI_Finalize();
    MPI_Allreduce(&rank, &y, 1, MPI_INT, MPI_SUM, c);
    int ini = -1, fin = -1;
    MPI_Initialized(&ini);
    MPI_Finalized(&fin);
    MPI_Info info;
    char level[64];
    int flag = 0;
    MPI_Session_get_info(s, &info);
    MPI_Info_get(info, "thread_level", sizeof level - 1, level, &flag);
    MPI_Info_free(&info);
    MPI_Comm_free(&c);
    int rc = MPI_Session_finalize(&s);
    if (rc != MPI_SUCCESS)
        printf("FAIL MPI_Session_finalize returned %d\n", rc);
    printf("mixed rank=%d provided=%d level=%s world=%d after=%d initialized=%d finalized=%d\n",
           rank, provided, flag ? level : "none", x, y, ini, fin);
    return 0;
}
