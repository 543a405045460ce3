/* NPB-style result block printed by rank 0 at the end of every kernel. */
#ifndef NPB_RESULTS_H
#define NPB_RESULTS_H

/* Prints the "<name> Benchmark Completed." block: class, size (already
 * formatted), iterations, time in seconds (2 decimals, as NPB; then the
 * same time to the last bit on a line of our own, "Time exact (s)"),
 * process count, Mop/s, operation type and SUCCESSFUL / UNSUCCESSFUL. */
void npb_print_results(const char *name, char cls, const char *size,
                       int niter, int nprocs, double t, double mops,
                       const char *optype, int verified);

#endif
