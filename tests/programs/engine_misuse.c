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
    show("finalize", vaced_eng_finalize());
    show("after", vaced_eng_wait(r, NULL));
    return 0;
}
