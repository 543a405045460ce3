/* The same work in the Sessions model and in the world model (run at
 * cpu.scale = 0).
 *
 * usage: session_world session|multiple|world
 * session: MPI_Session_init, a group from "mpi://WORLD",
 *          MPI_Comm_create_from_group, MPI_Allreduce on it, MPI_Session_finalize
 *          (no MPI_Init);
 * multiple: the same with "thread_level" MPI_THREAD_MULTIPLE (the
 *          communicator is made by the nonblocking agreement and a wait);
 * world:   MPI_Init, the group of MPI_COMM_WORLD, MPI_Comm_create_group over
 *          MPI_COMM_WORLD, MPI_Allreduce on it, MPI_Finalize.
 * Lines: sw rank=R op=create t=T size=S rank_in=RC
 *        sw rank=R op=allreduce t=T sum=X */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

int main(int argc, char **argv)
{
    vt_setup();
    int multiple = argc > 1 && strcmp(argv[1], "multiple") == 0;
    int session_model = multiple || (argc > 1 && strcmp(argv[1], "session") == 0);
    MPI_Session s = MPI_SESSION_NULL;
    MPI_Group g;
    MPI_Comm c;
    int rank, size, rc;
    if (session_model) {
        MPI_Info info = MPI_INFO_NULL;
        if (multiple) {
            MPI_Info_create(&info);
            MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
        }
        rc = MPI_Session_init(info, MPI_ERRORS_RETURN, &s);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
        if (rc != MPI_SUCCESS)
            printf("FAIL MPI_Session_init returned %d\n", rc);
        MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
        MPI_Group_rank(g, &rank);
        rc = MPI_Comm_create_from_group(g, "org.vaced.test.session_world", MPI_INFO_NULL,
                                        MPI_ERRORS_RETURN, &c);
        if (rc != MPI_SUCCESS)
            printf("FAIL MPI_Comm_create_from_group returned %d\n", rc);
    } else {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_group(MPI_COMM_WORLD, &g);
        MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &c);
    }
    int crank;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &crank);
    printf("sw rank=%d op=create t=%.17g size=%d rank_in=%d\n", rank, MPI_Wtime(), size, crank);
    int sum = -1;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
    printf("sw rank=%d op=allreduce t=%.17g sum=%d\n", rank, MPI_Wtime(), sum);
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    if (session_model) {
        rc = MPI_Session_finalize(&s);
        if (rc != MPI_SUCCESS || s != MPI_SESSION_NULL)
            printf("FAIL MPI_Session_finalize returned %d\n", rc);
    } else {
        MPI_Finalize();
    }
    return 0;
}
