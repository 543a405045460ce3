/* Prints, for each rank, what it was started with: its VACED_RANK, whether
 * the launcher's start-up variables leaked (VACED_ZYGOTE, LD_BIND_NOW), its
 * parent pid, its parent-death signal, whether SIGUSR2 is blocked, the first
 * line of its stdin (or EOF) and the address of a libc function (equal in
 * every rank when they were forked from one image, random under exec). */
#define _GNU_SOURCE
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static const char *env_or_dash(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "-";
}

int main(int argc, char **argv)
{
    int rank, pdeath = -1;
    char line[64] = "EOF";
    sigset_t blocked;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    prctl(PR_GET_PDEATHSIG, &pdeath);
    sigprocmask(SIG_BLOCK, NULL, &blocked);
    if (fgets(line, sizeof line, stdin))
        line[strcspn(line, "\n")] = 0;
    else
        strcpy(line, "EOF");
    printf("rank %d env=%s zygote=%s bindnow=%s ppid=%d pdeath=%d usr2=%d stdin=%s getenv=%p\n",
           rank, env_or_dash("VACED_RANK"), env_or_dash("VACED_ZYGOTE"),
           env_or_dash("LD_BIND_NOW"), (int)getppid(), pdeath,
           sigismember(&blocked, SIGUSR2), line, (void *)&getenv);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
