/*
 * jacobi.c - the bundled vaced demo: 1-D heat diffusion on [0, 1] with the
 * explicit (Jacobi-style) update
 *
 *     u'[i] = u[i] + alpha * (u[i-1] - 2 u[i] + u[i+1]),   u(0) = u(1) = 0,
 *
 * on N interior points split into contiguous blocks over the ranks. Every
 * iteration exchanges one halo value with each neighbour (MPI_Sendrecv, with
 * MPI_PROC_NULL at the ends of the domain). Every REPORT iterations the
 * residual sum (u' - u)^2 is reduced to rank 0 by hand (MPI_Send / MPI_Recv).
 *
 * The initial profile is sin(pi x) + 0.5 sin(K pi x). Each sine mode is an
 * exact eigenvector of the discrete update, so after n iterations the exact
 * discrete solution is
 *
 *     lambda_1^n sin(pi x) + 0.5 lambda_K^n sin(K pi x),
 *     lambda_k = 1 - 4 alpha sin^2(k pi h / 2),   h = 1 / (N + 1),
 *
 * and the program verifies its result against it (max error reduced to
 * rank 0 by hand as well).
 *
 * usage: jacobi [N [ITERATIONS]]      (defaults: 400000 points, 1000 iterations)
 *
 * Only point-to-point MPI calls are used. The times it prints come from
 * MPI_Wtime, which under vaced is the predicted time on the target machine.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define REPORT 100
#define TAG_HALO_RIGHT 1
#define TAG_HALO_LEFT 2
#define TAG_SUM 3

static const double alpha = 0.25;

/* Sum (or max) of one double over all ranks, result on rank 0 only. */
static double reduce_to_root(double mine, int use_max, int rank, int nranks)
{
    if (rank != 0) {
        MPI_Send(&mine, 1, MPI_DOUBLE, 0, TAG_SUM, MPI_COMM_WORLD);
        return mine;
    }
    double acc = mine;
    for (int r = 1; r < nranks; r++) {
        double v;
        MPI_Recv(&v, 1, MPI_DOUBLE, r, TAG_SUM, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (use_max)
            acc = v > acc ? v : acc;
        else
            acc += v;
    }
    return acc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    long n = argc > 1 ? atol(argv[1]) : 400000;
    int iters = argc > 2 ? atoi(argv[2]) : 1000;
    if (n < nranks || iters < 1) {
        if (rank == 0)
            fprintf(stderr, "jacobi: need N >= number of ranks and ITERATIONS >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    /* This rank owns global points first .. first + len - 1 (0-based). */
    long base = n / nranks, extra = n % nranks;
    long len = base + (rank < extra ? 1 : 0);
    long first = rank * base + (rank < extra ? rank : extra);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < nranks - 1 ? rank + 1 : MPI_PROC_NULL;

    /* u[0] and u[len + 1] are the halo cells. */
    double *u = malloc(sizeof(double) * (len + 2));
    double *v = malloc(sizeof(double) * (len + 2));
    if (!u || !v) {
        fprintf(stderr, "jacobi: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    const double pi = acos(-1.0);
    const double h = 1.0 / (double)(n + 1);
    const long k = n / 4 > 1 ? n / 4 : 2; /* the high-frequency mode */
    for (long i = 1; i <= len; i++) {
        double x = (double)(first + i) * h;
        u[i] = sin(pi * x) + 0.5 * sin((double)k * pi * x);
    }
    u[0] = u[len + 1] = v[0] = v[len + 1] = 0.0;

    if (rank == 0)
        printf("jacobi: %ld points on %d ranks, %d iterations, alpha = %.2f\n", n, nranks, iters,
               alpha);

    double t0 = MPI_Wtime();
    double comm = 0.0;
    for (int it = 1; it <= iters; it++) {
        double tc = MPI_Wtime();
        /* halo exchange: my last point to the right, my first to the left */
        MPI_Sendrecv(&u[len], 1, MPI_DOUBLE, right, TAG_HALO_RIGHT, &u[0], 1, MPI_DOUBLE, left,
                     TAG_HALO_RIGHT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, TAG_HALO_LEFT, &u[len + 1], 1, MPI_DOUBLE, right,
                     TAG_HALO_LEFT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        comm += MPI_Wtime() - tc;

        double res = 0.0;
        for (long i = 1; i <= len; i++) {
            v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
            double d = v[i] - u[i];
            res += d * d;
        }
        double *t = u;
        u = v;
        v = t;

        if (it % REPORT == 0 || it == iters) {
            double total = reduce_to_root(res, 0, rank, nranks);
            if (rank == 0)
                printf("  iteration %5d  residual %.6e\n", it, sqrt(total));
        }
    }
    double t1 = MPI_Wtime();

    /* Verify against the exact discrete solution. */
    double l1 = 1.0 - 4.0 * alpha * pow(sin(pi * h / 2.0), 2.0);
    double lk = 1.0 - 4.0 * alpha * pow(sin((double)k * pi * h / 2.0), 2.0);
    double a1 = pow(l1, iters), ak = 0.5 * pow(lk, iters);
    double err = 0.0;
    for (long i = 1; i <= len; i++) {
        double x = (double)(first + i) * h;
        double e = fabs(u[i] - (a1 * sin(pi * x) + ak * sin((double)k * pi * x)));
        err = e > err ? e : err;
    }
    double maxerr = reduce_to_root(err, 1, rank, nranks);
    double my_time = t1 - t0;
    double slowest = reduce_to_root(my_time, 1, rank, nranks);
    double comm_max = reduce_to_root(comm, 1, rank, nranks);

    int ok = 1;
    if (rank == 0) {
        ok = maxerr < 1e-9;
        printf("jacobi: max error against the exact solution %.3e: %s\n", maxerr,
               ok ? "VERIFIED" : "FAILED");
        printf("jacobi: time in seconds = %.6f (slowest rank; halo exchange up to %.6f)\n", slowest,
               comm_max);
    }
    free(u);
    free(v);
    MPI_Finalize();
    return ok ? 0 : 1;
}
