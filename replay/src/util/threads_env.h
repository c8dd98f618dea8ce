/* SPDX-License-Identifier: MIT */
/* How many threads a pass may use: the reader's (RETIME_READ_THREADS) and the analysis's
 * (RETIME_ANALYZE_THREADS). Internal to the project's libraries: not installed. */
#ifndef RETIME_THREADS_ENV_H
#define RETIME_THREADS_ENV_H

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/** The thread count for a pass over @p events events: what environment variable @p name says
 *  (a positive integer), else the online CPUs from @p min_events events on and 1 below, at most
 *  @p max and at most @p units (the rows or ranks to split); at least 1. */
static inline uint32_t rt__threads_for(const char *name, uint64_t events, uint64_t min_events, uint32_t max,
                                       uint32_t units)
{
    long n = -1;
    const char *env = getenv(name);
    if (env && *env) {
        char *end;
        n = strtol(env, &end, 10);
        if (*end || n < 1)
            n = -1;
    }
    if (n < 0)
        n = events < min_events ? 1 : sysconf(_SC_NPROCESSORS_ONLN);
    if (n > (long)max)
        n = (long)max;
    if (n > (long)units)
        n = (long)units;
    return n < 1 ? 1 : (uint32_t)n;
}

#endif
