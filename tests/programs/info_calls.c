/* Info objects, exhaustively, on rank 0 (the other ranks only check
 * MPI_INFO_ENV). Every line is `info step=NAME ...` with return codes (rc,
 * MPI_ERRORS_RETURN on MPI_COMM_WORLD) and results; strings are printed
 * between brackets, long ones as their length and first/last character.
 * Info calls are made before MPI_Init and after MPI_Finalize too. */
#include <mpi.h>
#include <string.h>
#include "vtest.h"

static void keys(const char *step, MPI_Info info)
{
    int n, rc;
    char k[MPI_MAX_INFO_KEY];
    rc = MPI_Info_get_nkeys(info, &n);
    printf("info step=%s rc=%d nkeys=%d keys=", step, rc, n);
    for (int i = 0; i < n; i++) {
        MPI_Info_get_nthkey(info, i, k);
        char v[MPI_MAX_INFO_VAL + 1];
        int flag;
        MPI_Info_get(info, k, MPI_MAX_INFO_VAL, v, &flag);
        printf("%s[%s]=[%s]", i ? "," : "", k, v);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    vt_setup();
    int rc, flag, len;
    char v[MPI_MAX_INFO_VAL + 1];
    char big_key[300], big_val[1100];

    /* before MPI_Init */
    MPI_Info pre;
    rc = MPI_Info_create(&pre);
    int rc2 = MPI_Info_set(pre, "early", "bird");
    int rc3 = MPI_Info_set(pre, "", "x");

    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* MPI_INFO_ENV on every rank */
    char cmd[MPI_MAX_INFO_VAL + 1], mp[MPI_MAX_INFO_VAL + 1], tl[MPI_MAX_INFO_VAL + 1];
    int fc, fm, ft;
    MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, cmd, &fc);
    MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, mp, &fm);
    MPI_Info_get(MPI_INFO_ENV, "thread_level", MPI_MAX_INFO_VAL, tl, &ft);
    const char *base = strrchr(cmd, '/');
    printf("env rank=%d command=%s maxprocs=%s flags=%d%d%d\n", rank, base ? base + 1 : cmd, mp,
           fc, fm, ft);
    if (rank != 0) {
        MPI_Finalize();
        return 0;
    }
    printf("info step=pre rc=%d,%d,%d\n", rc, rc2, rc3);
    keys("pre", pre);
    MPI_Info_get(MPI_INFO_ENV, "argv", MPI_MAX_INFO_VAL, v, &flag);
    printf("info step=env_argv flag=%d v=[%s]\n", flag, v);
    MPI_Info_get(MPI_INFO_ENV, "soft", MPI_MAX_INFO_VAL, v, &flag);
    printf("info step=env_soft flag=%d\n", flag);
    MPI_Info envdup;
    int ne, nd;
    MPI_Info_create_env(argc, argv, &envdup);
    MPI_Info_get_nkeys(MPI_INFO_ENV, &ne);
    MPI_Info_get_nkeys(envdup, &nd);
    rc = MPI_Info_set(MPI_INFO_ENV, "x", "y");
    rc2 = MPI_Info_free(&envdup);
    printf("info step=env_dup same=%d set_rc=%d free_rc=%d null=%d\n", ne == nd, rc, rc2,
           envdup == MPI_INFO_NULL);

    /* order of keys, overwrite */
    MPI_Info info;
    MPI_Info_create(&info);
    keys("empty", info);
    MPI_Info_set(info, "b", "one");
    MPI_Info_set(info, "a", "two");
    MPI_Info_set(info, "c", "three");
    keys("set3", info);
    MPI_Info_set(info, "b", "four");
    keys("overwrite", info);
    /* blanks are part of C keys and values */
    MPI_Info_set(info, " a", "sp ");
    keys("blank", info);
    MPI_Info_delete(info, " a");

    /* delete */
    rc = MPI_Info_delete(info, "a");
    keys("delete", info);
    rc2 = MPI_Info_delete(info, "a");
    printf("info step=delete_rc rc=%d again=%d\n", rc, rc2);

    /* dup is deep */
    MPI_Info d;
    MPI_Info_dup(info, &d);
    MPI_Info_set(d, "z", "new");
    MPI_Info_set(d, "b", "changed");
    keys("dup", d);
    keys("orig", info);
    MPI_Info_free(&d);

    /* valuelen and get with short buffers */
    MPI_Info_set(info, "e", "");
    rc = MPI_Info_get_valuelen(info, "c", &len, &flag);
    printf("info step=valuelen rc=%d len=%d flag=%d\n", rc, len, flag);
    MPI_Info_get_valuelen(info, "e", &len, &flag);
    printf("info step=valuelen_empty len=%d flag=%d\n", len, flag);
    len = -7;
    MPI_Info_get_valuelen(info, "nope", &len, &flag);
    printf("info step=valuelen_missing len=%d flag=%d\n", len, flag);
    strcpy(v, "untouched");
    rc = MPI_Info_get(info, "nope", 20, v, &flag);
    printf("info step=get_missing rc=%d flag=%d v=[%s]\n", rc, flag, v);
    rc = MPI_Info_get(info, "c", 5, v, &flag);
    printf("info step=get_exact rc=%d flag=%d v=[%s]\n", rc, flag, v);
    rc = MPI_Info_get(info, "c", 3, v, &flag);
    printf("info step=get_short rc=%d flag=%d v=[%s]\n", rc, flag, v);
    rc = MPI_Info_get(info, "c", 0, v, &flag);
    printf("info step=get_zero rc=%d flag=%d v=[%s]\n", rc, flag, v);
    rc = MPI_Info_get(info, "c", -1, v, &flag);
    printf("info step=get_negative rc=%d\n", rc);

    /* MPI_Info_get_string */
    int buflen = 4;
    strcpy(v, "zzzzzz");
    rc = MPI_Info_get_string(info, "c", &buflen, v, &flag);
    printf("info step=gs_short rc=%d flag=%d buflen=%d v=[%s]\n", rc, flag, buflen, v);
    buflen = 0;
    strcpy(v, "keep");
    rc = MPI_Info_get_string(info, "c", &buflen, v, &flag);
    printf("info step=gs_zero rc=%d flag=%d buflen=%d v=[%s]\n", rc, flag, buflen, v);
    buflen = 100;
    rc = MPI_Info_get_string(info, "c", &buflen, v, &flag);
    printf("info step=gs_full rc=%d flag=%d buflen=%d v=[%s]\n", rc, flag, buflen, v);
    buflen = 9;
    rc = MPI_Info_get_string(info, "nope", &buflen, v, &flag);
    printf("info step=gs_missing rc=%d flag=%d buflen=%d\n", rc, flag, buflen);
    buflen = -1;
    rc = MPI_Info_get_string(info, "c", &buflen, v, &flag);
    printf("info step=gs_negative rc=%d\n", rc);

    /* lengths at the limits */
    memset(big_key, 'k', sizeof big_key);
    big_key[MPI_MAX_INFO_KEY] = 0;
    memset(big_val, 'v', sizeof big_val);
    big_val[MPI_MAX_INFO_VAL] = 0;
    MPI_Info lim;
    MPI_Info_create(&lim);
    rc = MPI_Info_set(lim, big_key, big_val);
    MPI_Info_get_valuelen(lim, big_key, &len, &flag);
    static char got[MPI_MAX_INFO_VAL + 1];
    rc2 = MPI_Info_get(lim, big_key, MPI_MAX_INFO_VAL, got, &flag);
    char k[MPI_MAX_INFO_KEY + 1];
    memset(k, '#', sizeof k);
    MPI_Info_get_nthkey(lim, 0, k);
    printf("info step=limits set=%d len=%d get=%d got=%d nthkey_len=%d\n", rc, len, rc2,
           (int)strlen(got), (int)strlen(k));
    big_key[MPI_MAX_INFO_KEY] = 'k';
    big_key[MPI_MAX_INFO_KEY + 1] = 0;
    rc = MPI_Info_set(lim, big_key, "x");
    big_val[MPI_MAX_INFO_VAL] = 'v';
    big_val[MPI_MAX_INFO_VAL + 1] = 0;
    rc2 = MPI_Info_set(lim, "k", big_val);
    rc3 = MPI_Info_set(lim, "", "x");
    int rc4 = MPI_Info_get(lim, big_key, 10, v, &flag);
    int rc5 = MPI_Info_delete(lim, "");
    printf("info step=too_long key=%d value=%d empty=%d get=%d delete=%d\n", rc, rc2, rc3, rc4,
           rc5);
    MPI_Info_free(&lim);

    /* handles */
    rc = MPI_Info_get_nthkey(info, 3, k);
    rc2 = MPI_Info_get_nthkey(info, -1, k);
    printf("info step=nthkey_range rc=%d neg=%d\n", rc, rc2);
    MPI_Info gone = info;
    MPI_Info_free(&info);
    rc = MPI_Info_get_nkeys(gone, &len);
    rc2 = MPI_Info_set(MPI_INFO_NULL, "a", "b");
    rc3 = MPI_Info_free(&gone);
    rc4 = MPI_Info_dup(MPI_INFO_NULL, &d);
    printf("info step=handles null=%d freed=%d info_null=%d refree=%d dupnull=%d\n",
           info == MPI_INFO_NULL, rc, rc2, rc3, rc4);

    MPI_Finalize();
    /* after MPI_Finalize */
    rc = MPI_Info_get(pre, "early", MPI_MAX_INFO_VAL, v, &flag);
    rc2 = MPI_Info_free(&pre);
    rc3 = MPI_Info_get_nkeys(MPI_INFO_NULL, &len);
    printf("info step=post rc=%d flag=%d v=[%s] free=%d null_rc=%d\n", rc, flag, v, rc2, rc3);
    return 0;
}
