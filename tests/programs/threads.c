/* MPI_THREAD_MULTIPLE and nested calls (tests/threads.rs).
 *   threads query        thread levels, MPI_Query_thread, MPI_Is_thread_main
 *   threads blocked B C  rank 0: the main thread blocks in MPI_Recv from 1
 *                        while a second thread computes C s
 *                        (MPIX_Vaced_compute) and sends B bytes to rank 1,
 *                        which replies; prints "T rank=R op=end t=..."
 *   threads ring T I     T threads per rank, each I MPI_Sendrecv rounds
 *                        around the ring of ranks with its own tag
 *   threads op           MPI_Allreduce with a user operator that calls
 *                        MPI_Type_get_extent and MPI_Comm_rank
 *   threads errh         an error handler that calls MPI_Comm_rank
 *   threads colls I      two threads per rank, each on a duplicate of
 *                        MPI_COMM_WORLD of its own, I rounds of
 *                        MPI_Allreduce, MPI_Comm_dup + MPI_Bcast on the
 *                        copy, MPI_Comm_create (even ranks),
 *                        MPI_Comm_create_group (odd and even ranks), and
 *                        a put to the next rank
 *                        between two MPI_Win_fence on a window of the
 *                        thread's own; the threads
 *                        start in opposite orders on even and odd ranks (a
 *                        library that kept its lock while blocked in a
 *                        collective would deadlock); prints
 *                        "C rank=R thread=K sum=S ctx=N" (S: the sum of the
 *                        Allreduce results, N: the communicators it made)
 * Every rank prints "OK rank=R" at the end; "FAIL ..." on a wrong value. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, fails;

#define CHECK(c, ...)                                                  \
    do {                                                               \
        if (!(c)) {                                                    \
            printf("FAIL rank=%d line=%d: ", rank, __LINE__);          \
            printf(__VA_ARGS__);                                       \
            printf("\n");                                              \
            fails++;                                                   \
        }                                                              \
    } while (0)

static void *not_main(void *arg)
{
    int flag = -1, level = -1;
    MPI_Is_thread_main(&flag);
    MPI_Query_thread(&level);
    *(int *) arg = flag * 10 + level;
    return NULL;
}

static int bytes;
static double compute;

static void *sender(void *arg)
{
    char *buf = arg;
    MPIX_Vaced_compute(compute);
    MPI_Send(buf, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
    return NULL;
}

struct ring_arg {
    int id, iters;
};

static void *ringer(void *p)
{
    struct ring_arg *a = p;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < a->iters; i++) {
        int out[4] = { rank, a->id, i, 12345 }, in[4] = { -1, -1, -1, -1 };
        MPI_Status st;
        MPI_Sendrecv(out, 4, MPI_INT, right, a->id, in, 4, MPI_INT, left, a->id,
                     MPI_COMM_WORLD, &st);
        CHECK(in[0] == left && in[1] == a->id && in[2] == i && in[3] == 12345,
              "thread %d round %d got %d %d %d %d", a->id, i, in[0], in[1], in[2], in[3]);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == a->id, "status %d %d", st.MPI_SOURCE,
              st.MPI_TAG);
    }
    return NULL;
}

static int op_calls;

static void sum_with_queries(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    MPI_Aint lb = -1, extent = -1;
    int me = -1;
    int rc = MPI_Type_get_extent(*dt, &lb, &extent);
    CHECK(rc == MPI_SUCCESS && lb == 0 && extent == sizeof(int), "extent %ld %ld rc %d",
          (long) lb, (long) extent, rc);
    rc = MPI_Comm_rank(MPI_COMM_WORLD, &me);
    CHECK(rc == MPI_SUCCESS && me == rank, "rank in op %d rc %d", me, rc);
    for (int i = 0; i < *len; i++)
        ((int *) inout)[i] += ((int *) in)[i];
    op_calls++;
}

static int handled = -1, handled_code;

static void handler(MPI_Comm *comm, int *code, ...)
{
    int me = -1;
    MPI_Comm_rank(*comm, &me);
    handled = me;
    handled_code = *code;
}

/* "colls": a thread's rounds of collectives and constructors on comm. */
struct coll_arg {
    int id, iters;
    MPI_Comm comm;
    MPI_Win win;
    int *mem;
};

static void *collector(void *p)
{
    struct coll_arg *a = p;
    MPI_Group world, half;
    long sum = 0;
    int made = 0;
    /* the other thread of the rank goes first */
    if ((rank % 2 == 0) == (a->id == 1))
        usleep(20000);
    MPI_Comm_group(a->comm, &world);
    int first = rank % 2, n = (size - first + 1) / 2, ranks[64];
    for (int i = 0; i < n; i++)
        ranks[i] = first + 2 * i;
    MPI_Group_incl(world, n, ranks, &half);
    for (int it = 0; it < a->iters; it++) {
        int v = 10 * rank + a->id + it, r = -1;
        MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, a->comm);
        CHECK(r == 10 * size * (size - 1) / 2 + size * (a->id + it), "allreduce %d", r);
        sum += r;
        MPI_Comm dup, sub;
        MPI_Comm_dup(a->comm, &dup);
        int x = rank == 0 ? 1000 * a->id + it : -1;
        MPI_Bcast(&x, 1, MPI_INT, 0, dup);
        CHECK(x == 1000 * a->id + it, "bcast %d", x);
        made++;
        /* MPI_Comm_create: collective over the whole communicator */
        MPI_Group evens;
        int ev[64], ne = (size + 1) / 2;
        for (int i = 0; i < ne; i++)
            ev[i] = 2 * i;
        MPI_Group_incl(world, ne, ev, &evens);
        MPI_Comm_create(dup, evens, &sub);
        MPI_Group_free(&evens);
        CHECK((sub != MPI_COMM_NULL) == (rank % 2 == 0), "comm_create");
        if (sub != MPI_COMM_NULL) {
            int s = 0, one = 1;
            MPI_Allreduce(&one, &s, 1, MPI_INT, MPI_SUM, sub);
            CHECK(s == ne, "allreduce on the created communicator %d", s);
            MPI_Comm_free(&sub);
            made++;
        }
        /* MPI_Comm_create_group: only my half calls it */
        MPI_Comm_create_group(dup, half, 5 + a->id, &sub);
        int s = 0, one = 1;
        MPI_Allreduce(&one, &s, 1, MPI_INT, MPI_SUM, sub);
        CHECK(s == n, "allreduce on the group communicator %d", s);
        MPI_Comm_free(&sub);
        made++;
        MPI_Comm_free(&dup);
        /* one-sided: a put to the next rank between two fences */
        int val = 1000 * a->id + 10 * rank + it, left = (rank + size - 1) % size;
        MPI_Win_fence(0, a->win);
        MPI_Put(&val, 1, MPI_INT, (rank + 1) % size, rank, 1, MPI_INT, a->win);
        MPI_Win_fence(0, a->win);
        CHECK(a->mem[left] == 1000 * a->id + 10 * left + it, "fence: got %d", a->mem[left]);
    }
    MPI_Group_free(&half);
    MPI_Group_free(&world);
    printf("C rank=%d thread=%d sum=%ld ctx=%d\n", rank, a->id, sum, made);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    const char *mode = argc > 1 ? argv[1] : "query";
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);

    if (!strcmp(mode, "query")) {
        int level = -1, flag = -1, other = -1;
        MPI_Query_thread(&level);
        CHECK(level == MPI_THREAD_MULTIPLE, "query %d", level);
        MPI_Is_thread_main(&flag);
        CHECK(flag == 1, "main thread: is_thread_main %d", flag);
        pthread_t t;
        pthread_create(&t, NULL, not_main, &other);
        pthread_join(t, NULL);
        CHECK(other == MPI_THREAD_MULTIPLE, "other thread: %d", other);
    } else if (!strcmp(mode, "blocked")) {
        bytes = atoi(argv[2]);
        compute = atof(argv[3]);
        char *buf = calloc(bytes + 1, 1), *back = calloc(bytes + 1, 1);
        for (int i = 0; i < bytes; i++)
            buf[i] = (char) (i * 7 + 1);
        if (rank == 0) {
            pthread_t t;
            pthread_create(&t, NULL, sender, buf);
            MPI_Recv(back, bytes, MPI_BYTE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pthread_join(t, NULL);
            CHECK(memcmp(buf, back, bytes) == 0, "reply differs");
        } else if (rank == 1) {
            MPI_Recv(back, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(memcmp(buf, back, bytes) == 0, "message differs");
            MPI_Send(back, bytes, MPI_BYTE, 0, 8, MPI_COMM_WORLD);
        }
        printf("T rank=%d op=end t=%.17g\n", rank, MPI_Wtime());
        free(buf);
        free(back);
    } else if (!strcmp(mode, "ring")) {
        int nt = atoi(argv[2]), iters = atoi(argv[3]);
        pthread_t *ts = malloc(nt * sizeof *ts);
        struct ring_arg *as = malloc(nt * sizeof *as);
        for (int i = 0; i < nt; i++) {
            as[i].id = i;
            as[i].iters = iters;
            pthread_create(&ts[i], NULL, ringer, &as[i]);
        }
        for (int i = 0; i < nt; i++)
            pthread_join(ts[i], NULL);
        free(ts);
        free(as);
    } else if (!strcmp(mode, "op")) {
        MPI_Op op;
        MPI_Op_create(sum_with_queries, 1, &op);
        int v[3] = { rank, 1, 2 * rank }, r[3];
        MPI_Allreduce(v, r, 3, MPI_INT, op, MPI_COMM_WORLD);
        CHECK(r[0] == size * (size - 1) / 2 && r[1] == size && r[2] == size * (size - 1),
              "allreduce %d %d %d", r[0], r[1], r[2]);
        CHECK(size == 1 || op_calls > 0 || rank != 0, "op not called");
        int one = 5, out = 0;
        MPI_Reduce_local(&one, &out, 1, MPI_INT, op);
        CHECK(out == 5, "reduce_local %d", out);
        MPI_Op_free(&op);
    } else if (!strcmp(mode, "colls")) {
        int iters = atoi(argv[2]);
        pthread_t ts[2];
        struct coll_arg as[2];
        for (int i = 0; i < 2; i++) {
            as[i].id = i;
            as[i].iters = iters;
            MPI_Comm_dup(MPI_COMM_WORLD, &as[i].comm);
            MPI_Win_allocate(size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                             &as[i].mem, &as[i].win);
        }
        for (int i = 0; i < 2; i++)
            pthread_create(&ts[i], NULL, collector, &as[i]);
        for (int i = 0; i < 2; i++)
            pthread_join(ts[i], NULL);
        for (int i = 0; i < 2; i++) {
            MPI_Comm_free(&as[i].comm);
            MPI_Win_free(&as[i].win);
        }
    } else if (!strcmp(mode, "errh")) {
        MPI_Errhandler eh;
        MPI_Comm_create_errhandler(handler, &eh);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
        int x = 0;
        int rc = MPI_Send(&x, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_RANK, "class %d", cls);
        CHECK(handled == rank && handled_code == rc, "handler saw rank %d code %d", handled,
              handled_code);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Errhandler_free(&eh);
    }
    MPI_Finalize();
    if (!fails)
        printf("OK rank=%d\n", rank);
    return 0;
}
