/* SPDX-License-Identifier: MIT */
/* Growing a malloc'ed array by doubling: the engine's and the clock fix's tables. */
#ifndef RETIME_GROW_H
#define RETIME_GROW_H

#include <stdint.h>
#include <stdlib.h>

/* Makes room for @p need elements of @p elem bytes in *@p p (capacity *@p cap, doubled from 64);
 * 0, or -1 when out of memory or beyond 2^32 elements (*@p p unchanged). */
static inline int rt__grow(void **p, uint32_t *cap, size_t elem, uint32_t need)
{
    if (need <= *cap)
        return 0;
    uint32_t ncap = *cap ? *cap : 64;
    while (ncap < need) {
        if (ncap > UINT32_MAX / 2)
            return -1;
        ncap *= 2;
    }
    void *n = realloc(*p, (size_t)ncap * elem);
    if (!n)
        return -1;
    *p = n;
    *cap = ncap;
    return 0;
}

/* Room for one more element of @p elem bytes in *@p p of @p n elements (capacity *@p cap, doubled
 * from 256) for the result's records, which may outgrow 2^32: 0, or -1 when out of memory or at
 * 2^40 elements (*@p p unchanged). */
static inline int rt__grow_one64(void **p, uint64_t *cap, size_t elem, uint64_t n)
{
    if (n < *cap)
        return 0;
    uint64_t ncap = *cap ? 2 * *cap : 256;
    void *q = ncap < (1ull << 40) ? realloc(*p, (size_t)ncap * elem) : NULL;
    if (!q)
        return -1;
    *p = q;
    *cap = ncap;
    return 0;
}

#endif
