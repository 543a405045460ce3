/* IS, the integer sort kernel of NPB 3.3-MPI, written anew from its
 * specification (NAS report 95-020) and NPB's verification data.
 *
 * TOTAL_KEYS keys in [0, MAX_KEY) are made by NPB's generator (seed
 * 314159265, a = 5^13): key = (MAX_KEY / 4) * (r1 + r2 + r3 + r4) for four
 * consecutive uniforms, each rank making its contiguous block of
 * TOTAL_KEYS / P keys from a seed found by jumping ahead (find_my_seed).
 * Each of the 10 ranking iterations (after one untimed warm-up) alters two
 * keys, sorts the local keys into NUM_BUCKETS buckets, sums the bucket sizes
 * over all ranks (MPI_Allreduce), gives each rank a contiguous run of
 * buckets holding about TOTAL_KEYS / P keys, exchanges the send counts
 * (MPI_Alltoall) and the keys (MPI_Alltoallv), and ranks the received keys
 * by counting. Five test keys are checked against NPB's ranks every
 * iteration (partial verification); at the end the keys are sorted with the
 * final ranks and the order is checked inside each rank and across
 * neighbours (full verification).
 *
 * Usage: mpirun -n P ./is [CLASS]   (CLASS: S W A B C; P a power of two,
 * at most 128 for S and 1024 otherwise; the class is taken from the
 * command line, not compiled in as NPB does). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/npbclass.h"
#include "../common/randdp.h"
#include "../common/results.h"

#define MAX_ITERATIONS 10
#define TEST_ARRAY_SIZE 5
#define SEED 314159265.0
#define MULT 1220703125.0 /* 5^13 */

/* One problem class: sizes and NPB's partial verification data. */
struct is_class {
    char name;
    int total_keys_log2, max_key_log2, num_buckets_log2;
    long test_index[TEST_ARRAY_SIZE];
    long test_rank[TEST_ARRAY_SIZE];
};

static const struct is_class CLASSES[] = {
    {'S', 16, 11, 9, {48427, 17148, 23627, 62548, 4431}, {0, 18, 346, 64917, 65463}},
    {'W', 20, 16, 10, {357773, 934767, 875723, 898999, 404505},
     {1249, 11698, 1039987, 1043896, 1048018}},
    {'A', 23, 19, 10, {2112377, 662041, 5336171, 3642833, 4250760},
     {104, 17523, 123928, 8288932, 8388264}},
    {'B', 25, 21, 10, {41869, 812306, 5102857, 18232239, 26860214},
     {33422937, 10244, 59149, 33135281, 99}},
    {'C', 27, 23, 10, {44172927, 72999161, 74326391, 129606274, 21736814},
     {61147, 882988, 266290, 133997595, 133525895}},
};

/* The state of one rank. */
static const struct is_class *cl;
static int my_rank, comm_size;
static long total_keys, num_keys, buffer_size;
static int max_key, num_buckets, shift;
static int *key_array, *key_buff1, *key_buff2;
static int *bucket_size, *bucket_size_totals, *bucket_ptrs;
static int *bucket_first, *bucket_last; /* buckets of each rank */
static int *send_count, *recv_count, *send_displ, *recv_displ;
static int passed_verification;
/* Kept from the last iteration for the full verification. */
static int *last_counts, last_min_key;
static long last_local_keys;

/* Expected rank of test key i at an iteration, as NPB shifts it per class. */
static long expected_rank(int i, int iteration)
{
    long r = cl->test_rank[i];
    switch (cl->name) {
    case 'S':
    case 'C':
        return i <= 2 ? r + iteration : r - iteration;
    case 'W':
        return i < 2 ? r + (iteration - 2) : r - iteration;
    case 'A':
        return i <= 2 ? r + (iteration - 1) : r - (iteration - 1);
    case 'B':
        return (i == 1 || i == 2 || i == 4) ? r + iteration : r - iteration;
    default:
        return -1;
    }
}

/* The first number of rank kn's part of a sequence of nn numbers split
 * evenly over np ranks: SEED * a^(kn * nn / np) (mod 2^46). */
static double find_my_seed(int kn, int np, long nn)
{
    long nq = nn / np;
    int mq = 0;
    while (nq > 1) {
        nq /= 2;
        mq++;
    }
    double an = MULT;
    for (int i = 0; i < mq; i++)
        randlc(&an, an);
    double t1 = SEED, t2 = an;
    long kk = kn;
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

static void create_seq(double seed)
{
    double k = max_key / 4;
    for (long i = 0; i < num_keys; i++) {
        double x = randlc(&seed, MULT);
        x += randlc(&seed, MULT);
        x += randlc(&seed, MULT);
        x += randlc(&seed, MULT);
        key_array[i] = (int)(k * x);
    }
}

static void *xcalloc(size_t n, size_t size, const char *what)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "is: rank %d: out of memory for %s (%zu x %zu bytes)\n",
                my_rank, what, n, size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* One ranking iteration. */
static void rank_keys(int iteration)
{
    int nb = num_buckets;

    if (my_rank == 0) {
        key_array[iteration] = iteration;
        key_array[iteration + MAX_ITERATIONS] = max_key - iteration;
    }
    memset(bucket_size, 0, (nb + TEST_ARRAY_SIZE) * sizeof(int));

    /* The test keys ride along in the top of bucket_size. */
    for (int i = 0; i < TEST_ARRAY_SIZE; i++)
        if (cl->test_index[i] / num_keys == my_rank)
            bucket_size[nb + i] = key_array[cl->test_index[i] % num_keys];

    for (long i = 0; i < num_keys; i++)
        bucket_size[key_array[i] >> shift]++;
    bucket_ptrs[0] = 0;
    for (int i = 1; i < nb; i++)
        bucket_ptrs[i] = bucket_ptrs[i - 1] + bucket_size[i - 1];
    for (long i = 0; i < num_keys; i++) {
        int key = key_array[i];
        key_buff1[bucket_ptrs[key >> shift]++] = key;
    }

    MPI_Allreduce(bucket_size, bucket_size_totals, nb + TEST_ARRAY_SIZE, MPI_INT,
                  MPI_SUM, MPI_COMM_WORLD);

    /* Rank j gets the buckets that bring the running total past
     * (j + 1) * num_keys. */
    long total = 0;
    int local = 0, j = 0;
    send_displ[0] = 0;
    bucket_first[0] = 0;
    for (int i = 0; i < nb; i++) {
        total += bucket_size_totals[i];
        local += bucket_size[i];
        if (total >= (long)(j + 1) * num_keys) {
            send_count[j] = local;
            if (j != 0) {
                send_displ[j] = send_displ[j - 1] + send_count[j - 1];
                bucket_first[j] = bucket_last[j - 1] + 1;
            }
            bucket_last[j++] = i;
            local = 0;
        }
    }
    /* Ranks left without buckets (possible when P nears NUM_BUCKETS). */
    for (; j < comm_size; j++) {
        send_count[j] = 0;
        send_displ[j] = j ? send_displ[j - 1] + send_count[j - 1] : 0;
        bucket_first[j] = 1;
        bucket_last[j] = 0;
    }

    MPI_Alltoall(send_count, 1, MPI_INT, recv_count, 1, MPI_INT, MPI_COMM_WORLD);
    recv_displ[0] = 0;
    for (int i = 1; i < comm_size; i++)
        recv_displ[i] = recv_displ[i - 1] + recv_count[i - 1];
    long received = (long)recv_displ[comm_size - 1] + recv_count[comm_size - 1];
    if (received > buffer_size) {
        fprintf(stderr, "is: rank %d receives %ld keys, more than its buffer of %ld\n",
                my_rank, received, buffer_size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Alltoallv(key_buff1, send_count, send_displ, MPI_INT, key_buff2, recv_count,
                  recv_displ, MPI_INT, MPI_COMM_WORLD);

    /* Rank the received keys by counting, over this rank's key range. */
    int min_key = bucket_first[my_rank] << shift;
    int max_key_val = ((bucket_last[my_rank] + 1) << shift) - 1;
    long range = (long)max_key_val - min_key + 1;
    if (range > 0)
        memset(key_buff1, 0, range * sizeof(int));
    long lesser = 0; /* keys on lower ranks */
    for (int k = 0; k < my_rank; k++)
        for (int i = bucket_first[k]; i <= bucket_last[k]; i++)
            lesser += bucket_size_totals[i];
    long mine = 0;
    for (int i = bucket_first[my_rank]; i <= bucket_last[my_rank]; i++)
        mine += bucket_size_totals[i];
    int *count = key_buff1 - min_key;
    for (long i = 0; i < mine; i++)
        count[key_buff2[i]]++;
    for (long i = min_key; i < max_key_val; i++)
        count[i + 1] += count[i];

    /* Partial verification: the rank of a test key is the number of keys
     * below it. */
    for (int i = 0; i < TEST_ARRAY_SIZE; i++) {
        int k = bucket_size_totals[nb + i];
        if (min_key <= k && k <= max_key_val) {
            long key_rank = (k > min_key ? count[k - 1] : 0) + lesser;
            if (key_rank == expected_rank(i, iteration))
                passed_verification++;
            else
                printf("Failed partial verification: iteration %d, processor %d, "
                       "test key %d\n", iteration, my_rank, i);
        }
    }

    if (iteration == MAX_ITERATIONS) {
        last_counts = count;
        last_min_key = min_key;
        last_local_keys = mine;
    }
}

/* Sorts this rank's keys with the last ranks and checks the order, also
 * against the largest key of the rank below. */
static void full_verify(void)
{
    for (long i = 0; i < last_local_keys; i++)
        key_array[--last_counts[key_buff2[i]]] = key_buff2[i];
    long last = last_local_keys < 1 ? 0 : last_local_keys - 1;

    int below = 0;
    MPI_Request req;
    if (my_rank > 0)
        MPI_Irecv(&below, 1, MPI_INT, my_rank - 1, 1000, MPI_COMM_WORLD, &req);
    if (my_rank < comm_size - 1)
        MPI_Send(&key_array[last], 1, MPI_INT, my_rank + 1, 1000, MPI_COMM_WORLD);
    if (my_rank > 0)
        MPI_Wait(&req, MPI_STATUS_IGNORE);

    long wrong = 0;
    if (my_rank > 0 && last_local_keys > 0 && below > key_array[0])
        wrong++;
    for (long i = 1; i < last_local_keys; i++)
        if (key_array[i - 1] > key_array[i])
            wrong++;
    if (wrong != 0)
        printf("Processor %d:  Full_verify: number of keys out of sort: %ld\n", my_rank,
               wrong);
    else
        passed_verification++;
}

int main(int argc, char **argv)
{
    int from_argv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &comm_size);

    char name = npb_class(argc, argv, &from_argv);
    cl = NULL;
    for (size_t i = 0; i < sizeof CLASSES / sizeof CLASSES[0]; i++)
        if (CLASSES[i].name == name)
            cl = &CLASSES[i];
    if (!cl) {
        if (my_rank == 0)
            fprintf(stderr, "is: unknown class `%s` (expected S, W, A, B or C)\n",
                    argc > 1 ? argv[1] : "");
        MPI_Finalize();
        return 1;
    }
    int max_procs = cl->name == 'S' ? 128 : 1024;
    if ((comm_size & (comm_size - 1)) != 0 || comm_size > max_procs) {
        if (my_rank == 0)
            fprintf(stderr, "is: class %c needs a power of two processes, at most %d "
                    "(got %d)\n", cl->name, max_procs, comm_size);
        MPI_Finalize();
        return 1;
    }

    total_keys = 1L << cl->total_keys_log2;
    max_key = 1 << cl->max_key_log2;
    num_buckets = 1 << cl->num_buckets_log2;
    shift = cl->max_key_log2 - cl->num_buckets_log2;
    num_keys = total_keys / comm_size;
    /* NPB's buffer sizes: the end ranks of the roughly Gaussian key
     * distribution receive more than the average. */
    buffer_size = comm_size < 256 ? 3 * num_keys / 2
                : comm_size < 512 ? 5 * num_keys / 2
                : comm_size < 1024 ? 4 * num_keys : 13 * num_keys / 2;
    long buff1_size = buffer_size > max_key ? buffer_size : max_key;

    key_array = xcalloc(buffer_size, sizeof(int), "key_array");
    key_buff1 = xcalloc(buff1_size, sizeof(int), "key_buff1");
    key_buff2 = xcalloc(buffer_size, sizeof(int), "key_buff2");
    bucket_size = xcalloc(num_buckets + TEST_ARRAY_SIZE, sizeof(int), "bucket_size");
    bucket_size_totals = xcalloc(num_buckets + TEST_ARRAY_SIZE, sizeof(int), "bucket totals");
    bucket_ptrs = xcalloc(num_buckets, sizeof(int), "bucket_ptrs");
    bucket_first = xcalloc(comm_size, sizeof(int), "bucket_first");
    bucket_last = xcalloc(comm_size, sizeof(int), "bucket_last");
    send_count = xcalloc(comm_size, sizeof(int), "send_count");
    recv_count = xcalloc(comm_size, sizeof(int), "recv_count");
    send_displ = xcalloc(comm_size, sizeof(int), "send_displ");
    recv_displ = xcalloc(comm_size, sizeof(int), "recv_displ");

    if (my_rank == 0) {
        printf("\n\n NAS Parallel Benchmarks 3.3 -- IS Benchmark (vaced bench-npb)\n\n");
        printf(" Class %c (%s)\n", cl->name, from_argv ? "from the command line" : "compiled in");
        printf(" Size:  %ld  (class %c)\n", total_keys, cl->name);
        printf(" Iterations:   %d\n", MAX_ITERATIONS);
        printf(" Number of processes:     %d\n", comm_size);
        fflush(stdout);
    }

    create_seq(find_my_seed(my_rank, comm_size, 4 * total_keys));

    /* One untimed iteration to touch all data and code. */
    rank_keys(1);
    passed_verification = 0;
    if (my_rank == 0 && cl->name != 'S')
        printf("\n   iteration\n");

    double t_start = MPI_Wtime();
    for (int it = 1; it <= MAX_ITERATIONS; it++) {
        if (my_rank == 0 && cl->name != 'S') {
            printf("        %d\n", it);
            fflush(stdout);
        }
        rank_keys(it);
    }
    double t_local = MPI_Wtime() - t_start, maxtime = 0.0;
    MPI_Reduce(&t_local, &maxtime, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    full_verify();

    int passed = 0;
    MPI_Reduce(&passed_verification, &passed, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

    if (my_rank == 0) {
        int verified = passed == TEST_ARRAY_SIZE * MAX_ITERATIONS + comm_size;
        char size[32];
        snprintf(size, sizeof size, "%ld", total_keys);
        npb_print_results("IS", cl->name, size, MAX_ITERATIONS, comm_size, maxtime,
                          (double)MAX_ITERATIONS * total_keys / maxtime / 1.0e6,
                          "keys ranked", verified);
    }
    MPI_Finalize();
    return 0;
}
