/* NPB's linear congruential generator (see randdp.h).
 *
 * Both operands are below 2^46. Writing a = 2^23 a1 + a2 and
 * x = 2^23 x1 + x2 with all four halves below 2^23, the product modulo
 * 2^46 is 2^23 ((a1 x2 + a2 x1) mod 2^23) + a2 x2 (mod 2^46): every
 * intermediate stays below 2^53, so double precision holds it exactly. */
#include "randdp.h"

#define R23 (1.0 / 8388608.0)           /* 2^-23 */
#define T23 8388608.0                   /* 2^23 */
#define R46 (R23 * R23)                 /* 2^-46 */
#define T46 (T23 * T23)                 /* 2^46 */

/* Integer part of a non-negative double below 2^53. */
static double trunc_pos(double v)
{
    return (double)(long long)v;
}

/* Splits v (0 <= v < 2^46) into its high and low 23-bit halves. */
static void split23(double v, double *hi, double *lo)
{
    *hi = trunc_pos(R23 * v);
    *lo = v - T23 * *hi;
}

/* a * x mod 2^46 from the halves of a. */
static double mulmod46(double a1, double a2, double x)
{
    double x1, x2;
    split23(x, &x1, &x2);
    double mid = a1 * x2 + a2 * x1;           /* < 2^47 */
    double z = mid - T23 * trunc_pos(R23 * mid); /* mid mod 2^23 */
    double full = T23 * z + a2 * x2;          /* < 2^47 */
    return full - T46 * trunc_pos(R46 * full);   /* mod 2^46 */
}

double randlc(double *x, double a)
{
    double a1, a2;
    split23(a, &a1, &a2);
    *x = mulmod46(a1, a2, *x);
    return R46 * *x;
}

void vranlc(int n, double *x, double a, double *y)
{
    double a1, a2, v = *x;
    split23(a, &a1, &a2);
    for (int i = 0; i < n; i++) {
        v = mulmod46(a1, a2, v);
        y[i] = R46 * v;
    }
    *x = v;
}
