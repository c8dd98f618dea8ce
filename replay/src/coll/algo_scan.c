/* SPDX-License-Identifier: MIT */
/*
 * Scan and exscan of the vector m (the largest block).
 *
 *  recdbl  recursive doubling in one direction (MPICH): round i, r sends its partial result to
 *          r + 2^i (if < P).
 *  linear  Open MPI's basic scan: r receives the prefix from r - 1, then sends its own on to
 *          r + 1.
 */
#include "coll_sim.h"

void rt__alg_scan_recdbl(struct rt__cs *s)
{
    for (uint64_t d = 1; d < s->P; d <<= 1) {
        rt__cs_round_begin(s);
        for (uint64_t r = 0; r + d < s->P; r++)
            rt__cs_message(s, (uint32_t)r, (uint32_t)(r + d), s->mmax);
        rt__cs_round_end(s);
    }
}

void rt__alg_scan_linear(struct rt__cs *s)
{
    for (uint64_t r = 0; r + 1 < s->P; r++) {
        rt__cs_round_begin(s);
        rt__cs_message(s, (uint32_t)r, (uint32_t)(r + 1), s->mmax);
        rt__cs_round_end(s);
    }
}
