/* vaced's engine API misused: each call fails with the reason (one rank).
 * Prints "<what>: <return value> [<vaced_eng_error()>]" lines. */
#include <stdio.h>
#include <vaced_engine.h>

static void show(const char *what, long rc)
{
    if (rc < 0)
        printf("%s: %ld %s\n", what, rc, vaced_eng_error());
    else
        printf("%s: %ld\n", what, rc);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    show("before init", vaced_eng_isend(0, 1, 0, 8, VACED_ENG_STANDARD));
    show("init", vaced_eng_init());
    show("twice", vaced_eng_init());
    show("bad dest", vaced_eng_isend(5, 1, 0, 8, VACED_ENG_STANDARD));
    show("bad mode", vaced_eng_isend(0, 1, 0, 8, 9));
    show("bad request", vaced_eng_wait(77, NULL));
    show("leave without enter", vaced_eng_leave());
    show("bad compute", vaced_eng_compute(-1.0));
    /* a message to oneself: receive posted, then the send */
    vaced_eng_enter("MPI_Sendrecv");
    int64_t r = vaced_eng_irecv(VACED_ENG_ANY, VACED_ENG_ANY, 0, 8);
    int64_t s = vaced_eng_isend(0, 3, 0, 8, VACED_ENG_STANDARD);
    vaced_eng_status st;
    vaced_eng_wait(s, NULL);
    int rc = vaced_eng_test(r, &st);
    if (rc == 0)
        rc = vaced_eng_wait(r, &st) == 0;
    vaced_eng_leave();
    printf("self: %d source=%d tag=%d bytes=%llu\n", rc, st.source, st.tag,
           (unsigned long long)st.bytes);
    /* schedules: bad steps; one to oneself whose send's length comes
     * first through vaced_eng_sched_length */
    vaced_eng_step bad_kind[] = { { 7, 0, 1, 0, 8, 0 } };
    show("bad step kind", vaced_eng_sched(1, bad_kind, 1));
    vaced_eng_step bad_peer[] = { { VACED_ENG_STEP_SEND, 3, 1, 0, 8, 0 } };
    show("bad step peer", vaced_eng_sched(1, bad_peer, 1));
    vaced_eng_step bad_defer[] = { { VACED_ENG_STEP_RECV, 0, 1, 0, VACED_ENG_DEFERRED, 0 } };
    show("deferred receive", vaced_eng_sched(1, bad_defer, 1));
    vaced_eng_step self_steps[] = {
        { VACED_ENG_STEP_RECV, 0, 5, 9, 16, 0 },
        { VACED_ENG_STEP_SEND, 0, 5, 9, VACED_ENG_DEFERRED, 1 },
        { VACED_ENG_STEP_LOCAL, 0, 0, 0, 0, 1 },
        { VACED_ENG_STEP_SEND, 0, 6, 9, 4, 0 },
        { VACED_ENG_STEP_RECV, 0, 6, 9, 4, 1 },
    };
    vaced_eng_enter("MPI_Ibcast");
    show("deferred length", vaced_eng_sched_length(2, 1, 16));
    int64_t sc = vaced_eng_sched(2, self_steps, 5);
    vaced_eng_leave();
    vaced_eng_enter("MPI_Wait");
    rc = vaced_eng_wait(sc, &st);
    vaced_eng_leave();
    printf("schedule: %d\n", rc);
    show("finalize", vaced_eng_finalize());
    show("after", vaced_eng_wait(r, NULL));
    return 0;
}
