/* vaced's engine for another MPI library (see mpich-patch/ and the Rust
 * module src/abi/engine_api.rs, whose documentation is the reference).
 *
 * A library that moves the data and matches messages itself mirrors its
 * point-to-point traffic here: every send it starts and every receive it
 * posts, with lengths only, and every wait or test its caller makes on
 * them. vaced's engine then times the program exactly as vaced's own MPI
 * library does (VACED Algorithms 1-3, the target model's equations).
 *
 * The rank must be started by vaced's mpirun. One thread calls the engine.
 * Every function that returns int returns -1 on failure; vaced_eng_error()
 * then says why. */
#ifndef VACED_ENGINE_H
#define VACED_ENGINE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A receive from any source, or with any tag. */
#define VACED_ENG_ANY (-1)

/* Send modes. */
#define VACED_ENG_STANDARD 0
#define VACED_ENG_SYNCHRONOUS 1
#define VACED_ENG_READY 2
#define VACED_ENG_BUFFERED 3

/* A completed request's outcome. */
typedef struct {
    int source;     /* the sender (receives), -1 for sends */
    int tag;
    uint64_t bytes; /* received (or sent) */
    double done;    /* virtual time of its completion, in seconds */
} vaced_eng_status;

/* Join the job (the start event: virtual time 0) as rank VACED_RANK, or as
 * `rank` (a library started by its own process manager). */
int vaced_eng_init(void);
int vaced_eng_init_as(int rank);
/* While the engine waits for a record, call `progress` in a loop instead of
 * sleeping (NULL: sleep): the library's own progress, which a peer may need
 * while this rank waits in the engine. Engine calls made from inside it
 * fail (-1). */
int vaced_eng_set_idle(void (*progress)(void));
/* The library's "nothing to do until something reaches this rank" (1):
 * nothing of its own in progress, nothing in its incoming queues (NULL:
 * never). With it, an engine wait sleeps between two runs of the idle hook
 * while it holds, and so does the library's own wait that calls
 * vaced_eng_idle(); the library then calls vaced_eng_ring(rank) after each
 * delivery to `rank`. 2: so on this host, but peers on other hosts deliver
 * through sockets that ring nobody: such waits sleep until rung or until
 * one of the sockets given by vaced_eng_set_sockets is ready (without
 * them, they nap: 20 us at most), the core given away. 0, or without it:
 * both poll, offering the CPU. */
int vaced_eng_set_quiet(int (*quiet)(void));
/* The library's sockets to other hosts: `sockets` stores a pointer to its
 * table of struct pollfd (the events its progress waits for set, negative
 * descriptors ignored) and returns the number of entries. The table is
 * copied at each wait whose quiet() answered 2, on the calling thread.
 * 1: such waits will sleep on them; 0: ignored (VACED_MPICH_WAIT=poll),
 * the waits poll. */
struct pollfd;
int vaced_eng_set_sockets(int (*sockets)(const struct pollfd **tbl));
/* The library's own wait found nothing to do: sleep while quiet() holds,
 * else offer the CPU. -1 without an engine (wait your own way). */
int vaced_eng_idle(void);
/* The library polls in a loop of its own: offer the core (the rank's core
 * token to a rank waiting for one, then the CPU). Any thread, any time. */
void vaced_eng_yield(void);
/* Wake `rank` if it sleeps for the library: it delivered something to it.
 * Any thread, inside engine calls too, also after vaced_eng_finalize. */
int vaced_eng_ring(int rank);
/* The library aborts the job with exit code `code` (MPI_Abort, or a fatal
 * error under MPI's default handler), `message` saying why (or NULL): the
 * launcher names this rank, the code and the message, whatever the
 * library's process manager kills first. The library then ends the job
 * its own way. Any thread, any time after init; -1 before. */
int vaced_eng_abort(int code, const char *message);
/* Why the last failing call failed. */
const char *vaced_eng_error(void);
int vaced_eng_rank(void);
int vaced_eng_size(void);

/* An MPI call begins (its name, or NULL) / ends: the CPU time in between
 * calls is the rank's computation. Pairs nest; the outermost counts. */
int vaced_eng_enter(const char *call);
int vaced_eng_leave(void);

/* Start a send / post a receive; a request handle, or -1. `ctx` tells
 * communicators apart (any number the library uses for matching). */
int64_t vaced_eng_isend(int dest, int tag, uint32_t ctx, uint64_t bytes, int mode);
int64_t vaced_eng_irecv(int src, int tag, uint32_t ctx, uint64_t bytes);

/* Wait for a request (0) / test it (1 complete, 0 not yet); a complete
 * request is freed and its outcome written to `st` (may be NULL). */
int vaced_eng_wait(int64_t req, vaced_eng_status *st);
int vaced_eng_test(int64_t req, vaced_eng_status *st);

/* The caller forgets a request (MPI_Request_free): it completes in the
 * background. */
int vaced_eng_detach(int64_t req);

/* The engine's decisions, which a library whose own matching or
 * completion order is the host's follows (src/abi/engine_api/decisions.rs):
 *
 * The sender of the message matched to receive `req` (a wildcard-source
 * receive: once the engine decided it), VACED_ENG_NONE while none is, or -1. */
#define VACED_ENG_NONE (-2)
int vaced_eng_matched(int64_t req);
/* Test the n requests at reqs (a zero-length wait) / wait until one is
 * complete: the positions of those complete go to idx (room for n),
 * earliest completion first; their count, or -1. Nothing is freed. */
int vaced_eng_testsome(const int64_t *reqs, int n, int *idx);
int vaced_eng_waitsome(const int64_t *reqs, int n, int *idx);
/* Take a complete request without waiting: outcome to st (may be NULL),
 * freed. 0, or -1 (also when it is not complete). */
int vaced_eng_take(int64_t req, vaced_eng_status *st);
/* MPI_Probe (0) / MPI_Iprobe (1 found, 0 not): the message's sender, tag
 * and length go to st. */
int vaced_eng_probe(int src, int tag, uint32_t ctx, vaced_eng_status *st);
int vaced_eng_iprobe(int src, int tag, uint32_t ctx, vaced_eng_status *st);
/* MPI_Mprobe (the matched message's handle, or -1) / MPI_Improbe (1 found,
 * its handle in *msg; 0 not), and the receive of a matched message of up to
 * `bytes` (a request handle, or -1). */
int64_t vaced_eng_mprobe(int src, int tag, uint32_t ctx, vaced_eng_status *st);
int vaced_eng_improbe(int src, int tag, uint32_t ctx, int64_t *msg, vaced_eng_status *st);
int64_t vaced_eng_mrecv(int64_t msg, uint64_t bytes);
/* MPI_Cancel of a receive: 1 when no message was matched to it (complete,
 * cancelled: take it), 0 when one was, or -1. */
int vaced_eng_cancel(int64_t req);
/* The engine's progress without waiting (records that came are handled):
 * for the library's own progress loops that run mirrored operations. */
int vaced_eng_progress(void);

/* A nonblocking collective's schedule (src/abi/engine_api/schedule.rs),
 * handed over whole when the library starts it: the engine runs its rounds
 * in virtual time as vaced's own nonblocking collectives, and the library
 * mirrors none of its sends and receives one by one. One step per entry
 * of the library's schedule; `barrier` ends a round (later steps wait for
 * every earlier one). */
#define VACED_ENG_STEP_SEND 0
#define VACED_ENG_STEP_SSEND 1
#define VACED_ENG_STEP_RECV 2
#define VACED_ENG_STEP_LOCAL 3 /* the library's local work: costs nothing */
/* A send's length the library gives later (vaced_eng_sched_length). */
#define VACED_ENG_DEFERRED UINT64_MAX
typedef struct {
    int kind;
    int peer;       /* a rank of the job */
    int tag;
    uint32_t ctx;
    uint64_t bytes; /* sent, at most received, or VACED_ENG_DEFERRED */
    int barrier;
} vaced_eng_step;
/* Start the schedule of n steps; `key` names it (unique among this rank's
 * schedules not yet complete). A request handle, or -1. */
int64_t vaced_eng_sched(uint64_t key, const vaced_eng_step *steps, int n);
/* The length of deferred send `step` (its index) of schedule `key`, once
 * the library knows it; may be called from the idle hook. Until it is
 * given, an engine that reaches the send runs the idle hook. */
int vaced_eng_sched_length(uint64_t key, int step, uint64_t bytes);

/* One-sided communication (src/abi/engine_api/rma.rs): the library's
 * windows, operations and synchronizations done again by vaced's own RMA
 * code on windows without memory, once the library's own call succeeded;
 * the library's internal messages inside these calls are not mirrored.
 * Ranks are world ranks (windows: the window's ranks in order), targets
 * window ranks. Each returns 0, an MPI error class (> 0) where vaced's own
 * library would have failed (the reason in vaced_eng_error), or -1 without
 * an engine. */
#define VACED_ENG_RMA_PUT 0
#define VACED_ENG_RMA_GET 1
#define VACED_ENG_RMA_ACC 2
#define VACED_ENG_RMA_GET_ACC 3
#define VACED_ENG_RMA_GET_ACC_NO_OP 4
#define VACED_ENG_RMA_FETCH_AND_OP 5
#define VACED_ENG_RMA_COMPARE_AND_SWAP 6
/* Collective; `ctx` is the window communicator's context id (16 bits),
 * `flavor` MPI_WIN_FLAVOR_CREATE, _ALLOCATE, _DYNAMIC or _SHARED. The mirror's
 * handle (>= 0) or -1. */
int vaced_eng_win_create(uint32_t ctx, const int *ranks, int n, int me, uint64_t size,
                         int disp_unit, int flavor);
int vaced_eng_win_free(int win);
/* `bytes` at displacement `disp` (target's units) of window rank `target`;
 * Compare_and_swap: one element's bytes. */
int vaced_eng_rma(int win, int kind, int target, int64_t disp, uint64_t bytes);
/* MPI_R*: *req becomes -2 when the request is complete at once
 * (PUT-like), else the engine request (GET-like: the response) to wait
 * for. */
int vaced_eng_rma_request(int win, int kind, int target, int64_t disp, uint64_t bytes,
                          int64_t *req);
int vaced_eng_win_fence(int win, int assert);
int vaced_eng_win_lock(int win, int lock_type, int target, int assert);
int vaced_eng_win_unlock(int win, int target);
int vaced_eng_win_lock_all(int win, int assert);
int vaced_eng_win_unlock_all(int win);
/* `target` < 0: all targets; `local`: MPI_Win_flush_local(_all). */
int vaced_eng_win_flush(int win, int target, int local);
int vaced_eng_win_sync(int win);
int vaced_eng_win_post(int win, const int *ranks, int n, int assert);
int vaced_eng_win_start(int win, const int *ranks, int n, int assert);
int vaced_eng_win_complete(int win);
/* MPI_Win_wait (`block`) or MPI_Win_test: *done (if not NULL) says whether
 * the exposure epoch ended. */
int vaced_eng_win_wait(int win, int block, int *done);

/* MPI_Wtime: the virtual time in seconds. */
double vaced_eng_wtime(void);
/* MPIX_Vaced_compute: `seconds` of target computation. */
int vaced_eng_compute(double seconds);
/* MPI_Finalize: publish the rank's results. */
int vaced_eng_finalize(void);

#ifdef __cplusplus
}
#endif

#endif
