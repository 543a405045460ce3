/* Asks for MPI_THREAD_MULTIPLE and prints what is provided (and what
 * MPI_Query_thread says), by name:
 *   tl rank=R provided=NAME query=NAME */
#include <mpi.h>
#include "vtest.h"

static const char *name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    case MPI_THREAD_MULTIPLE: return "multiple";
    default: return "other";
    }
}

int main(int argc, char **argv)
{
    vt_setup();
    int provided = -1, query = -1, me;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Query_thread(&query);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    printf("tl rank=%d provided=%s query=%s\n", me, name(provided), name(query));
    MPI_Finalize();
    return 0;
}
