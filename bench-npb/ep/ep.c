/* EP, the embarrassingly parallel kernel of NPB 3.3-MPI, written anew from
 * its specification (NAS reports 95-020, 02-007).
 *
 * 2^(M+1) uniform numbers from NPB's generator (a = 5^13, seed 271828183)
 * are taken as 2^M pairs in batches of 2^MK pairs (MK = 16); each rank
 * makes its share of the 2^(M-MK) batches, jumping to a batch's first
 * number by binary exponentiation of a. Pairs inside the unit circle
 * become Gaussian deviates (Marsaglia's polar method): their sums sx, sy
 * and their counts in the 10 square annuli max(|X|,|Y|) in [l, l+1). At the
 * end three MPI_Allreduce (SUM) combine sx, sy and the counts, and a fourth
 * (MAX) the ranks' times; sx and sy are checked against NPB's reference
 * values with relative tolerance 1e-8.
 *
 * Usage: mpirun -n P ./ep [CLASS]   (CLASS: S W A B C D E; the class is
 * taken from the command line, not compiled in as NPB does). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/npbclass.h"
#include "../common/randdp.h"
#include "../common/results.h"

#define MK 16
#define NK (1 << MK)
#define NQ 10
#define EPSILON 1.0e-8
#define MULT 1220703125.0 /* 5^13 */
#define SEED 271828183.0

static double x[2 * NK];

/* log2 of the number of pairs of a class, 0 if unknown. */
static int class_m(char cls)
{
    switch (cls) {
    case 'S': return 24;
    case 'W': return 25;
    case 'A': return 28;
    case 'B': return 30;
    case 'C': return 32;
    case 'D': return 36;
    case 'E': return 40;
    default: return 0;
    }
}

/* NPB's reference sums for 2^m pairs; returns 0 when there are none. */
static int reference_sums(int m, double *sx, double *sy)
{
    switch (m) {
    case 24: *sx = -3.247834652034740e+3; *sy = -6.958407078382297e+3; return 1;
    case 25: *sx = -2.863319731645753e+3; *sy = -6.320053679109499e+3; return 1;
    case 28: *sx = -4.295875165629892e+3; *sy = -1.580732573678431e+4; return 1;
    case 30: *sx = 4.033815542441498e+4; *sy = -2.660669192809235e+4; return 1;
    case 32: *sx = 4.764367927995374e+4; *sy = -8.084072988043731e+4; return 1;
    case 36: *sx = 1.982481200946593e+5; *sy = -1.020596636361769e+5; return 1;
    case 40: *sx = -5.319717441530e+05; *sy = -3.688834557731e+05; return 1;
    default: return 0;
    }
}

/* Seed of batch kk: SEED * an^kk (mod 2^46), an = a^(2 NK). */
static double batch_seed(long kk, double an)
{
    double t1 = SEED, t2 = an;
    for (;;) {
        long ik = kk / 2;
        if (2 * ik != kk)
            randlc(&t1, t2);
        if (ik == 0)
            return t1;
        randlc(&t2, t2);
        kk = ik;
    }
}

/* One batch: 2 NK uniforms from seed, Gaussian pairs tallied into q, sx, sy. */
static void batch(double seed, double *q, double *sx, double *sy)
{
    vranlc(2 * NK, &seed, MULT, x);
    for (int i = 0; i < NK; i++) {
        double x1 = 2.0 * x[2 * i] - 1.0;
        double x2 = 2.0 * x[2 * i + 1] - 1.0;
        double t1 = x1 * x1 + x2 * x2;
        if (t1 <= 1.0) {
            double t2 = sqrt(-2.0 * log(t1) / t1);
            double t3 = x1 * t2, t4 = x2 * t2;
            int l = (int)fmax(fabs(t3), fabs(t4));
            if (l < NQ)
                q[l] += 1.0;
            *sx += t3;
            *sy += t4;
        }
    }
}

int main(int argc, char **argv)
{
    int rank, nprocs, from_argv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    char cls = npb_class(argc, argv, &from_argv);
    int m = class_m(cls);
    if (m == 0) {
        if (rank == 0)
            fprintf(stderr, "ep: unknown class `%s` (expected S, W, A, B, C, D or E)\n",
                    argc > 1 ? argv[1] : "");
        MPI_Finalize();
        return 1;
    }
    long nn = 1L << (m - MK); /* number of batches */
    long np = nn / nprocs, no_large = nn % nprocs;
    int np_add = rank < no_large;
    np += np_add;
    if (nn < nprocs) { /* some ranks would have no batch: refuse on every rank */
        if (rank == 0)
            fprintf(stderr, "ep: too many processes: %d for %ld batches of class %c\n",
                    nprocs, nn, cls);
        /* Every rank gets here; the barrier keeps another rank's abort
         * from ending the job before rank 0's message is out. */
        fflush(stderr);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    long k_offset = np_add ? rank * np - 1 : no_large * (np + 1) + (rank - no_large) * np - 1;

    if (rank == 0) {
        printf("\n\n NAS Parallel Benchmarks 3.3 -- EP Benchmark (vaced bench-npb)\n\n");
        printf(" Class %c (%s)\n", cls, from_argv ? "from the command line" : "compiled in");
        printf(" Number of random numbers generated: %15lld\n", 1LL << (m + 1));
        printf(" Number of active processes:         %15d\n\n", nprocs);
        fflush(stdout);
    }

    /* Touch the generator, the work array and the math functions before
     * timing, as NPB does. */
    double dum[3] = {1.0, 1.0, 1.0};
    vranlc(0, &dum[0], dum[1], &dum[2]);
    dum[0] = randlc(&dum[1], dum[2]);
    for (int i = 0; i < 2 * NK; i++)
        x[i] = -1.0e99;
    double mops = log(sqrt(fabs(fmax(1.0, 1.0))));

    MPI_Barrier(MPI_COMM_WORLD);
    double t_start = MPI_Wtime();

    double t1 = MULT;
    vranlc(0, &t1, MULT, x);
    t1 = MULT; /* an = a^(2 NK) = a^(2^(MK+1)) */
    for (int i = 0; i < MK + 1; i++)
        randlc(&t1, t1);
    double an = t1;

    double q[NQ] = {0}, sx = 0.0, sy = 0.0;
    for (long k = 1; k <= np; k++)
        batch(batch_seed(k_offset + k, an), q, &sx, &sy);

    double sum_sx, sum_sy, sum_q[NQ];
    MPI_Allreduce(&sx, &sum_sx, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&sy, &sum_sy, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(q, sum_q, NQ, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double gc = 0.0;
    for (int i = 0; i < NQ; i++)
        gc += sum_q[i];

    double tm_local = MPI_Wtime() - t_start, tm;
    MPI_Allreduce(&tm_local, &tm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    if (rank == 0) {
        double sx_ref, sy_ref;
        int verified = reference_sums(m, &sx_ref, &sy_ref);
        if (verified) {
            double sx_err = fabs((sum_sx - sx_ref) / sx_ref);
            double sy_err = fabs((sum_sy - sy_ref) / sy_ref);
            verified = sx_err <= EPSILON && sy_err <= EPSILON;
        }
        mops = ldexp(1.0, m + 1) / tm / 1.0e6;

        printf("EP Benchmark Results:\n\n");
        printf("CPU Time =%10.4f\n", tm);
        printf("N = 2^%5d\n", m);
        printf("No. Gaussian Pairs =%15.0f\n", gc);
        printf("Sums = %25.15e %25.15e\n", sum_sx, sum_sy);
        printf("Counts:\n");
        for (int i = 0; i < NQ; i++)
            printf("%3d%15.0f\n", i, sum_q[i]);

        char size[32];
        snprintf(size, sizeof size, "%lld", 1LL << (m + 1));
        npb_print_results("EP", cls, size, 0, nprocs, tm, mops,
                          "Random numbers generated", verified);
    }
    MPI_Finalize();
    return 0;
}
