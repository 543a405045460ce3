/* Helpers shared by the test programs: data patterns for integrity checks
 * and line-buffered output (so the lines of different ranks never mix). */
#ifndef VTEST_H
#define VTEST_H

#include <stdio.h>
#include <stdlib.h>

/* Byte k of the pattern identified by `seed`. */
static inline unsigned char vt_byte(long k, unsigned seed)
{
    unsigned x = (unsigned)k * 2654435761u + seed * 40503u + (unsigned)(k >> 9);
    return (unsigned char)(x >> 24);
}

static inline void vt_fill(unsigned char *buf, long n, unsigned seed)
{
    for (long k = 0; k < n; k++)
        buf[k] = vt_byte(k, seed);
}

/* Index of the first byte that differs from the pattern, or -1. */
static inline long vt_check(const unsigned char *buf, long n, unsigned seed)
{
    for (long k = 0; k < n; k++)
        if (buf[k] != vt_byte(k, seed))
            return k;
    return -1;
}

static inline void vt_setup(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
}

static inline void *vt_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        printf("FAIL malloc(%zu)\n", n);
        exit(3);
    }
    return p;
}

#endif
