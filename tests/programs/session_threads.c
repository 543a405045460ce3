/* Sessions from several threads of each rank (MPI_THREAD_MULTIPLE through
 * the session's info): NT threads each start a session and create a
 * communicator from "mpi://WORLD" with its own string tag at the same
 * time; the main thread then runs an Allreduce on each, in order.
 *
 * usage: session_threads
 * Lines: st rank=R k=K size=S sum=X cmp=C   (C: MPI_Comm_compare of
 *        communicator K with communicator 0: MPI_CONGRUENT (1) but for K = 0,
 *        MPI_IDENT (0)) */
#include <mpi.h>
#include <pthread.h>
#include <string.h>
#include "vtest.h"

#define NT 3

static MPI_Session sessions[NT];
static MPI_Comm comms[NT];
static int errs[NT];
static int made;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn = PTHREAD_COND_INITIALIZER;

static void *make(void *p)
{
    int k = (int)(long)p;
    pthread_mutex_lock(&lock);
    while (made < k)
        pthread_cond_wait(&turn, &lock);
    pthread_mutex_unlock(&lock);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
    if (MPI_Session_init(info, MPI_ERRORS_RETURN, &sessions[k]) != MPI_SUCCESS)
        errs[k]++;
    MPI_Info_free(&info);
    MPI_Group g;
    char tag[32];
    snprintf(tag, sizeof tag, "thread %d", k);
    if (MPI_Group_from_session_pset(sessions[k], "mpi://WORLD", &g) != MPI_SUCCESS)
        errs[k]++;
    if (MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &comms[k]) !=
        MPI_SUCCESS)
        errs[k]++;
    MPI_Group_free(&g);
    pthread_mutex_lock(&lock);
    made++;
    pthread_cond_broadcast(&turn);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    vt_setup();
    pthread_t t[NT];
    for (int k = 0; k < NT; k++)
        pthread_create(&t[k], NULL, make, (void *)(long)k);
    for (int k = 0; k < NT; k++)
        pthread_join(t[k], NULL);
    for (int k = 0; k < NT; k++) {
        if (errs[k])
            printf("FAIL thread %d: %d errors\n", k, errs[k]);
        int rank, size, sum = -1, cmp = -1;
        MPI_Comm_rank(comms[k], &rank);
        MPI_Comm_size(comms[k], &size);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comms[k]);
        MPI_Comm_compare(comms[k], comms[0], &cmp);
        printf("st rank=%d k=%d size=%d sum=%d cmp=%d\n", rank, k, size, sum, cmp);
    }
    for (int k = 0; k < NT; k++) {
        MPI_Comm_free(&comms[k]);
        MPI_Session_finalize(&sessions[k]);
    }
    return 0;
}
