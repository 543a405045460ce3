/* The many-ranks mode's host behaviours (tests/ranks_per_process.rs).
 * hosted globals   every rank changes a global and a static table, lets
 *                  the others run (a barrier, a ring of messages), and
 *                  checks that it still sees its own values; rank 0 prints
 *                  whether the globals were private.
 * hosted exit R C  rank R calls exit(C) after MPI_Finalize while the others
 *                  still exchange messages; the others finish.
 * hosted noinit C  every rank calls exit(C) before MPI_Init.
 * hosted thread R  rank R starts a thread after MPI_Init.
 * hosted fork R    rank R forks after MPI_Init. */
#include <mpi.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "vtest.h"

int counter = 100;
static int table[64];
static const char *greeting = "hello";

static void *idle(void *arg) { return arg; }

int main(int argc, char **argv)
{
    vt_setup();
    const char *what = argc > 1 ? argv[1] : "globals";
    int who = argc > 2 ? atoi(argv[2]) : 0;
    int code = argc > 3 ? atoi(argv[3]) : 0;
    if (!strcmp(what, "noinit"))
        exit(who);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strcmp(what, "globals")) {
        counter += rank;
        table[rank % 64] = rank + 1;
        if (rank % 2)
            greeting = "odd";
        MPI_Barrier(MPI_COMM_WORLD);
        int token = rank, next = (rank + 1) % size, prev = (rank + size - 1) % size;
        for (int lap = 0; lap < 3; lap++)
            MPI_Sendrecv_replace(&token, 1, MPI_INT, next, 0, prev, 0, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
        int set = 0;
        for (int k = 0; k < 64; k++)
            set += table[k] != 0;
        int ok = counter == 100 + rank && table[rank % 64] == rank + 1 && set == 1 &&
                 !strcmp(greeting, rank % 2 ? "odd" : "hello") &&
                 token == ((rank - 3) % size + size) % size;
        int all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (rank == 0)
            printf("globals %s ranks=%d\n", all ? "private" : "SHARED", size);
        MPI_Finalize();
        return 0;
    }
    if (!strcmp(what, "exit")) {
        MPI_Comm others;
        MPI_Comm_split(MPI_COMM_WORLD, rank == who ? MPI_UNDEFINED : 0, rank, &others);
        if (rank == who) {
            MPI_Finalize();
            exit(code);
        }
        int x = 1;
        for (int lap = 0; lap < 3; lap++)
            MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, others);
        printf("exit rank=%d went on x=%d\n", rank, x); /* 4^3 */
        MPI_Comm_free(&others);
        MPI_Finalize();
        return 0;
    }
    if (rank == who && !strcmp(what, "thread")) {
        pthread_t t;
        pthread_create(&t, NULL, idle, NULL);
        pthread_join(t, NULL);
        printf("FAIL rank=%d started a thread\n", rank);
    }
    if (rank == who && !strcmp(what, "fork")) {
        pid_t p = fork();
        if (p == 0)
            _exit(0);
        printf("FAIL rank=%d forked\n", rank);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
