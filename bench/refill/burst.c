/* bench/refill: the cost of refilling the caches after a host switch.
 *
 *   burst ITERS W
 *
 * Each rank, ITERS times: sums a private array of W doubles (its working
 * set, 8 W bytes), then MPI_Sendrecv of 8 bytes with both ring neighbours.
 * Rank 0 prints the slowest rank's MPI_Wtime span and the sum. Alone, a
 * rank keeps its array in its caches; among many ranks on few host cores,
 * each exchange puts it to sleep and others run on its core, so each sum
 * starts cold: the difference, per iteration, is the refill cost vaced
 * charges as computation (bench/refill/run prints it). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc < 3) {
        if (r == 0)
            fprintf(stderr, "usage: burst ITERS W\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int iters = atoi(argv[1]);
    long w = atol(argv[2]);
    double *a = malloc((w > 0 ? w : 1) * sizeof(double));
    if (!a)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (long i = 0; i < w; i++)
        a[i] = (double)i;
    double s = 0, x = 1, y;
    double t = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        for (long i = 0; i < w; i++)
            s += a[i] * 1.0000001;
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, (r + 1) % n, 0, &y, 1, MPI_DOUBLE, (r + n - 1) % n, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    t = MPI_Wtime() - t;
    double tm;
    MPI_Reduce(&t, &tm, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (r == 0)
        printf("%.6f %g\n", tm, s);
    free(a);
    MPI_Finalize();
    return 0;
}
