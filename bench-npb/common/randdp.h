/* NPB's portable pseudorandom generator: x_{k+1} = a * x_k (mod 2^46),
 * computed exactly in double precision by splitting the operands into
 * 23-bit halves (NAS report 95-020). Shared by EP and IS. */
#ifndef NPB_RANDDP_H
#define NPB_RANDDP_H

/* One step: *x = a * *x (mod 2^46); returns the new *x scaled to (0, 1). */
double randlc(double *x, double a);

/* n steps from *x with multiplier a: y[i] receives the i-th new value
 * scaled to (0, 1); *x is left at the last value (unchanged for n = 0). */
void vranlc(int n, double *x, double a, double *y);

#endif
