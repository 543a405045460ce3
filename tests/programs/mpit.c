/* The MPI tools interface: every control variable, performance variable,
 * category and enumeration listed with what MPI_T says of it; control
 * variables read; performance variables read around a known message
 * pattern, with session start / stop / reset / write semantics; MPI_T
 * before MPI_Init and after MPI_Finalize; error classes. Every line is
 * `TAG rank=R key=value ...` with TAG one of early, cvar, enum, pvar, cat,
 * stamp, pattern, semantics, err, late.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "vtest.h"

static int rank = -1;

static const char *dtname(MPI_Datatype d)
{
    if (d == MPI_INT) return "int";
    if (d == MPI_UNSIGNED_LONG_LONG) return "ull";
    if (d == MPI_DOUBLE) return "double";
    if (d == MPI_CHAR) return "char";
    return "?";
}

static void list(char *b, size_t cap, const int *v, int n)
{
    int at = 0;
    b[0] = 0;
    for (int i = 0; i < n; i++)
        at += snprintf(b + at, cap - at, "%s%d", i ? "," : "", v[i]);
}

static int pv(const char *name, int cls)
{
    int i = -1;
    int rc = MPI_T_pvar_get_index(name, cls, &i);
    if (rc != MPI_SUCCESS) {
        printf("FAIL pvar_get_index %s %d\n", name, rc);
        exit(1);
    }
    return i;
}

static unsigned long long rd(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = 12345;
    int rc = MPI_T_pvar_read(s, h, &v);
    if (rc != MPI_SUCCESS) {
        printf("FAIL pvar_read %d\n", rc);
        exit(1);
    }
    return v;
}

static MPI_T_pvar_handle alloc(MPI_T_pvar_session s, int idx)
{
    MPI_T_pvar_handle h;
    int count = -1;
    if (MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count) != MPI_SUCCESS || count != 1) {
        printf("FAIL pvar_handle_alloc %d\n", idx);
        exit(1);
    }
    return h;
}

static void print_cvars(const char *who)
{
    int n;
    MPI_T_cvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[64], desc[256], ename[64];
        int nl = sizeof name, dl = sizeof desc, verb, bind, scope, count, idx = -1;
        MPI_Datatype dt;
        MPI_T_enum et;
        MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &et, desc, &dl, &bind, &scope);
        MPI_T_cvar_get_index(name, &idx);
        if (idx != i || nl != (int)strlen(name) + 1 || dl != (int)strlen(desc) + 1 || dl < 10)
            printf("FAIL cvar %d index %d nl %d dl %d\n", i, idx, nl, dl);
        MPI_T_cvar_handle h;
        MPI_T_cvar_handle_alloc(i, NULL, &h, &count);
        char value[128];
        if (dt == MPI_INT) {
            int v;
            MPI_T_cvar_read(h, &v);
            snprintf(value, sizeof value, "%d", v);
            if (et != MPI_T_ENUM_NULL) {
                int en = sizeof ename, item;
                char iname[64];
                int il = sizeof iname;
                MPI_T_enum_get_info(et, &item, ename, &en);
                /* the item whose value is v */
                for (int k = 0; k < item; k++) {
                    int val;
                    il = sizeof iname;
                    MPI_T_enum_get_item(et, k, &val, iname, &il);
                    if (val == v)
                        snprintf(value, sizeof value, "%d:%s", v, iname);
                }
            }
        } else if (dt == MPI_UNSIGNED_LONG_LONG) {
            unsigned long long v;
            MPI_T_cvar_read(h, &v);
            snprintf(value, sizeof value, "%llu", v);
        } else if (dt == MPI_DOUBLE) {
            double v;
            MPI_T_cvar_read(h, &v);
            snprintf(value, sizeof value, "%g", v);
        } else {
            char v[128];
            MPI_T_cvar_read(h, v);
            snprintf(value, sizeof value, "%s", v);
        }
        int wrc = MPI_T_cvar_write(h, value);
        MPI_T_cvar_handle_free(&h);
        printf("cvar rank=%d i=%d name=%s dt=%s verbosity=%d scope=%d bind=%d enum=%s count=%d value=%s write=%d null=%d when=%s\n",
               rank, i, name, dtname(dt), verb, scope, bind,
               et == MPI_T_ENUM_NULL ? "-" : ename, count, value, wrc,
               h == MPI_T_CVAR_HANDLE_NULL, who);
    }
}

static void print_enums(void)
{
    int n;
    MPI_T_cvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        MPI_T_enum et;
        MPI_T_cvar_get_info(i, NULL, NULL, NULL, NULL, &et, NULL, NULL, NULL, NULL);
        if (et == MPI_T_ENUM_NULL)
            continue;
        char ename[64], items[512];
        int en = sizeof ename, num, at = 0;
        MPI_T_enum_get_info(et, &num, ename, &en);
        items[0] = 0;
        for (int k = 0; k < num; k++) {
            char iname[64];
            int il = sizeof iname, val;
            MPI_T_enum_get_item(et, k, &val, iname, &il);
            at += snprintf(items + at, sizeof items - at, "%s%s=%d", k ? "," : "", iname, val);
        }
        printf("enum rank=%d name=%s n=%d items=%s\n", rank, ename, num, items);
    }
}

static void print_pvars(void)
{
    int n;
    MPI_T_pvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[64], desc[256];
        int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, atomic, idx = -1;
        MPI_Datatype dt;
        MPI_T_enum et;
        MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &et, desc, &dl, &bind, &ro, &cont, &atomic);
        MPI_T_pvar_get_index(name, cls, &idx);
        if (idx != i || dl < 10)
            printf("FAIL pvar %d index %d\n", i, idx);
        printf("pvar rank=%d i=%d name=%s class=%d dt=%s verbosity=%d bind=%d enum=%d readonly=%d continuous=%d atomic=%d\n",
               rank, i, name, cls, dtname(dt), verb, bind, et == MPI_T_ENUM_NULL, ro, cont, atomic);
    }
}

static void print_cats(void)
{
    int n, stamp = -1;
    MPI_T_category_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[64], desc[256], a[128], b[128], c[128];
        int nl = sizeof name, dl = sizeof desc, ncv, npv, ncat, idx = -1, v[64];
        MPI_T_category_get_info(i, name, &nl, desc, &dl, &ncv, &npv, &ncat);
        MPI_T_category_get_index(name, &idx);
        if (idx != i || dl < 10)
            printf("FAIL category %d index %d\n", i, idx);
        MPI_T_category_get_cvars(i, 64, v);
        list(a, sizeof a, v, ncv);
        MPI_T_category_get_pvars(i, 64, v);
        list(b, sizeof b, v, npv);
        MPI_T_category_get_categories(i, 64, v);
        list(c, sizeof c, v, ncat);
        printf("cat rank=%d i=%d name=%s cvars=%s pvars=%s cats=%s\n", rank, i, name, a, b, c);
    }
    MPI_T_category_changed(&stamp);
    printf("stamp rank=%d stamp=%d\n", rank, stamp);
}

int main(int argc, char **argv)
{
    vt_setup();
    int provided = -1, n = -1;
    /* before MPI_T_init_thread */
    int e1 = MPI_T_cvar_get_num(&n);
    int e2 = MPI_T_finalize();
    int i1 = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    int i2 = MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided);
    char rs[8];
    snprintf(rs, sizeof rs, "%s", getenv("VACED_RANK") ? getenv("VACED_RANK") : "0");
    rank = atoi(rs);
    printf("early rank=%d get_num=%d finalize=%d init=%d,%d provided=%d\n", rank, e1, e2, i1, i2, provided);

    /* everything is listed before MPI_Init too */
    print_cvars("pre");

    /* a session that spans MPI_Init .. MPI_Finalize */
    MPI_T_pvar_session whole;
    MPI_T_pvar_session_create(&whole);
    int ivt = pv("vaced_virtual_time_ps", MPI_T_PVAR_CLASS_TIMER);
    int imsg = pv("vaced_msgs_sent", MPI_T_PVAR_CLASS_COUNTER);
    int ibytes = pv("vaced_bytes_sent", MPI_T_PVAR_CLASS_COUNTER);
    int icomp = pv("vaced_compute_time_ps", MPI_T_PVAR_CLASS_TIMER);
    int icomm = pv("vaced_comm_time_ps", MPI_T_PVAR_CLASS_TIMER);
    int iwait = pv("vaced_wait_time_ps", MPI_T_PVAR_CLASS_TIMER);
    int idec = pv("vaced_decisions", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle wvt = alloc(whole, ivt), wmsg = alloc(whole, imsg);
    MPI_T_pvar_start(whole, MPI_T_PVAR_ALL_HANDLES);
    printf("semantics rank=%d step=pre_init vt=%llu msgs=%llu\n", rank, rd(whole, wvt), rd(whole, wmsg));

    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    print_cvars("running");
    print_enums();
    print_pvars();
    print_cats();

    /* the known pattern: rank 0 sends 100 bytes (eager), computes 1 us,
     * sends 200000 bytes (rendezvous) to rank 1, which then sends 8 bytes
     * back */
    MPI_T_pvar_session s;
    MPI_T_pvar_session_create(&s);
    MPI_T_pvar_handle hmsg = alloc(s, imsg), hbytes = alloc(s, ibytes), hvt = alloc(s, ivt),
        hcomm = alloc(s, icomm), hwait = alloc(s, iwait), hcomp = alloc(s, icomp),
        hdec = alloc(s, idec);
    double t0 = MPI_Wtime();
    MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES);
    static char buf[200000];
    if (rank == 0) {
        MPI_Send(buf, 100, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPIX_Vaced_compute(1e-6);
        MPI_Send(buf, 200000, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, 8, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(buf, 100, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(buf, 200000, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
    double t1 = MPI_Wtime();
    MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES);
    printf("pattern rank=%d t0=%.17g t1=%.17g msgs=%llu bytes=%llu vt=%llu comm=%llu wait=%llu compute=%llu decisions=%llu whole_vt=%llu\n",
           rank, t0, t1, rd(s, hmsg), rd(s, hbytes), rd(s, hvt), rd(s, hcomm), rd(s, hwait),
           rd(s, hcomp), rd(s, hdec), rd(whole, wvt));

    /* stopped handles do not count: more traffic, same values */
    MPI_Barrier(MPI_COMM_WORLD);
    printf("semantics rank=%d step=stopped msgs=%llu vt=%llu\n", rank, rd(s, hmsg), rd(s, hvt));

    /* start / stop / reset / write / readreset on the compute timer */
    MPI_T_pvar_reset(s, hcomp);
    MPI_T_pvar_start(s, hcomp);
    MPIX_Vaced_compute(1e-6);
    MPI_T_pvar_stop(s, hcomp);
    MPIX_Vaced_compute(2e-6);
    unsigned long long a = rd(s, hcomp);
    MPI_T_pvar_start(s, hcomp);
    MPI_T_pvar_start(s, hcomp); /* started already: nothing changes */
    MPIX_Vaced_compute(4e-6);
    unsigned long long b = rd(s, hcomp);
    MPI_T_pvar_reset(s, hcomp);
    MPIX_Vaced_compute(8e-6);
    unsigned long long c, d;
    MPI_T_pvar_readreset(s, hcomp, &c);
    d = rd(s, hcomp);
    unsigned long long w = 7000000;
    MPI_T_pvar_write(s, hcomp, &w);
    MPIX_Vaced_compute(16e-6);
    MPI_T_pvar_stop(s, hcomp);
    MPIX_Vaced_compute(32e-6);
    unsigned long long e = rd(s, hcomp);
    printf("semantics rank=%d step=compute stopped=%llu running=%llu readreset=%llu after=%llu written=%llu\n",
           rank, a, b, c, d, e);

    /* two sessions are independent */
    MPI_T_pvar_session s2;
    MPI_T_pvar_session_create(&s2);
    MPI_T_pvar_handle h2 = alloc(s2, icomp);
    MPI_T_pvar_start(s2, h2);
    MPIX_Vaced_compute(1e-6);
    printf("semantics rank=%d step=sessions s=%llu s2=%llu\n", rank, rd(s, hcomp), rd(s2, h2));

    /* errors */
    unsigned long long v;
    int cnt, idx, ival;
    char nm[16];
    int nl = sizeof nm;
    MPI_T_cvar_get_num(&n);
    printf("err rank=%d what=cvar_index_neg rc=%d\n", rank, MPI_T_cvar_get_info(-1, nm, &nl, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    printf("err rank=%d what=cvar_index_num rc=%d\n", rank, MPI_T_cvar_get_info(n, nm, &nl, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    MPI_T_pvar_get_num(&n);
    printf("err rank=%d what=pvar_index_num rc=%d\n", rank, MPI_T_pvar_handle_alloc(s, n, NULL, &h2, &cnt));
    MPI_T_category_get_num(&n);
    printf("err rank=%d what=cat_index_num rc=%d\n", rank, MPI_T_category_get_cvars(n, 1, &idx));
    printf("err rank=%d what=cvar_name rc=%d\n", rank, MPI_T_cvar_get_index("no_such_variable", &idx));
    printf("err rank=%d what=pvar_class rc=%d\n", rank, MPI_T_pvar_get_index("vaced_msgs_sent", MPI_T_PVAR_CLASS_TIMER, &idx));
    printf("err rank=%d what=cat_name rc=%d\n", rank, MPI_T_category_get_index("no_such_category", &idx));
    MPI_T_enum et;
    MPI_T_cvar_get_index("vaced_sync_mode", &idx);
    MPI_T_cvar_get_info(idx, NULL, NULL, NULL, NULL, &et, NULL, NULL, NULL, NULL);
    printf("err rank=%d what=enum_item rc=%d\n", rank, MPI_T_enum_get_item(et, 2, &ival, nm, &nl));
    printf("err rank=%d what=enum_null rc=%d\n", rank, MPI_T_enum_get_info(MPI_T_ENUM_NULL, &ival, nm, &nl));
    MPI_T_cvar_handle ch;
    MPI_T_cvar_handle_alloc(idx, NULL, &ch, &cnt);
    MPI_T_cvar_handle stale = ch;
    MPI_T_cvar_handle_free(&ch);
    printf("err rank=%d what=cvar_freed rc=%d\n", rank, MPI_T_cvar_read(stale, &ival));
    printf("err rank=%d what=readall rc=%d\n", rank, MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v));
    printf("err rank=%d what=other_session rc=%d\n", rank, MPI_T_pvar_read(s2, hcomp, &v));
    printf("err rank=%d what=null_handle rc=%d\n", rank, MPI_T_pvar_start(s, MPI_T_PVAR_HANDLE_NULL));
    MPI_T_pvar_session gone = s2;
    MPI_T_pvar_session_free(&s2);
    printf("err rank=%d what=session_freed rc=%d null=%d\n", rank, MPI_T_pvar_read(gone, h2, &v), s2 == MPI_T_PVAR_SESSION_NULL);
    printf("err rank=%d what=session_null rc=%d\n", rank, MPI_T_pvar_session_free(&s2));
    MPI_T_pvar_handle hf = hmsg;
    MPI_T_pvar_handle_free(s, &hf);
    printf("err rank=%d what=handle_freed rc=%d null=%d\n", rank, MPI_T_pvar_read(s, hmsg, &v), hf == MPI_T_PVAR_HANDLE_NULL);
    printf("err rank=%d what=init_level rc=%d\n", rank, MPI_T_init_thread(7, &provided));

    unsigned long long before = rd(whole, wvt);
    MPI_Finalize();

    /* after MPI_Finalize: the final values, frozen */
    unsigned long long m1 = rd(whole, wmsg), vt1 = rd(whole, wvt);
    MPI_T_pvar_stop(whole, wvt);
    printf("late rank=%d step=values vt=%llu before=%llu msgs=%llu stopped_vt=%llu\n", rank, vt1, before, m1, rd(whole, wvt));
    print_cvars("post");
    int f1 = MPI_T_finalize();
    int n1 = MPI_T_cvar_get_num(&n);
    int f2 = MPI_T_finalize();
    int n2 = MPI_T_cvar_get_num(&n);
    int f3 = MPI_T_finalize();
    /* initialized again: handles of before are gone */
    int i3 = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    int r3 = MPI_T_pvar_read(whole, wvt, &v);
    MPI_T_finalize();
    printf("late rank=%d step=end finalize=%d,%d,%d get_num=%d,%d reinit=%d stale_session=%d\n", rank, f1, f2, f3, n1, n2, i3, r3);
    (void)size;
    return 0;
}
