/* C shims for the parts of the MPI ABI that stable Rust cannot define:
 * the reduction operators on long double (below), called from src/abi/op.rs.
 *
 * MPI_Pcontrol (C-variadic) would belong here too, but a Rust cdylib
 * exports only the symbols Rust itself defines (its version script makes
 * every symbol of a linked C object local), so a C definition would
 * never be visible to programs. It is defined in src/abi/env.rs instead,
 * reading only its named argument, which every supported calling convention
 * passes the same way in a variadic call. */
#include <mpi.h>

/* The ABI's status layout, which src/mpi/status.rs relies on. */
_Static_assert(sizeof(MPI_Status) == 5 * sizeof(int), "MPI_Status is 5 ints");

/* ---- reductions on long double -----------------------------------------
 * Rust has no long double, so the predefined operators on MPI_LONG_DOUBLE,
 * MPI_C_LONG_DOUBLE_COMPLEX and MPI_LONG_DOUBLE_INT are applied here, on
 * packed data (src/mpi/op.rs resolves which): inout[i] = in[i] (op)
 * inout[i] for `count` elements. `kind` is 0 for long double (16 bytes),
 * 1 for complex long double (32 bytes), 2 for the packed MPI_LONG_DOUBLE_INT
 * pair (16 bytes of long double, then the int: 20 bytes). The data may be
 * unaligned: every value goes through memcpy. Returns 0, or -1 for an
 * operator this code does not apply (never reached: Rust checks first). */
#include <string.h>

static int ld_real(int op, const unsigned char *in, unsigned char *io, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        long double a, b;
        memcpy(&a, in + 16 * i, sizeof a);
        memcpy(&b, io + 16 * i, sizeof b);
        switch (op) {
        case MPI_MAX: b = b > a ? b : a; break;
        case MPI_MIN: b = b < a ? b : a; break;
        case MPI_SUM: b = a + b; break;
        case MPI_PROD: b = a * b; break;
        default: return -1;
        }
        memcpy(io + 16 * i, &b, sizeof b);
    }
    return 0;
}

static int ld_complex(int op, const unsigned char *in, unsigned char *io, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        long double p, q, r, s;
        memcpy(&p, in + 32 * i, sizeof p);
        memcpy(&q, in + 32 * i + 16, sizeof q);
        memcpy(&r, io + 32 * i, sizeof r);
        memcpy(&s, io + 32 * i + 16, sizeof s);
        long double re, im;
        switch (op) {
        case MPI_SUM: re = p + r; im = q + s; break;
        case MPI_PROD: re = p * r - q * s; im = p * s + q * r; break;
        default: return -1;
        }
        memcpy(io + 32 * i, &re, sizeof re);
        memcpy(io + 32 * i + 16, &im, sizeof im);
    }
    return 0;
}

/* MINLOC / MAXLOC: the larger (smaller) value wins, the smaller index on
 * equal values. */
static int ld_pair(int op, const unsigned char *in, unsigned char *io, size_t count)
{
    if (op != MPI_MAXLOC && op != MPI_MINLOC)
        return -1;
    for (size_t i = 0; i < count; i++) {
        long double a, b;
        int ia, ib;
        memcpy(&a, in + 20 * i, sizeof a);
        memcpy(&ia, in + 20 * i + 16, sizeof ia);
        memcpy(&b, io + 20 * i, sizeof b);
        memcpy(&ib, io + 20 * i + 16, sizeof ib);
        int take = a == b ? ia < ib : (op == MPI_MAXLOC ? a > b : a < b);
        if (take)
            memcpy(io + 20 * i, in + 20 * i, 20);
    }
    return 0;
}

int vaced_reduce_long_double(int op, int kind, const void *in, void *inout, size_t count)
{
    switch (kind) {
    case 0: return ld_real(op, in, inout, count);
    case 1: return ld_complex(op, in, inout, count);
    case 2: return ld_pair(op, in, inout, count);
    default: return -1;
    }
}
