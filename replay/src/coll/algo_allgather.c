/* SPDX-License-Identifier: MIT */
/*
 * Allgather: every rank's block to every rank (allgatherv: each its own block).
 *
 *  bruck     Bruck's dissemination (Bruck, Ho, Kipnis, Upfal & Weathersby, "Efficient algorithms
 *            for all-to-all communications in multiport message-passing systems", IEEE TPDS
 *            8(11), 1997), for any P: round i sends the min(2^i, P - 2^i) blocks r holds to
 *            r - 2^i.
 *  recdbl    recursive doubling on a power of two: round i, r exchanges the 2^i blocks it holds
 *            (those of r with its low i bits cleared, onwards) with r XOR 2^i. Not on a power of
 *            two: bruck, as Open MPI does.
 *  ring      P-1 rounds, each passes on to r + 1 the block received in the round before.
 *  neighbor  Open MPI's neighbour exchange (Chen et al. 2005), on an even P (else ring): first
 *            even r and r + 1 swap their blocks, then in P/2 - 1 steps each rank passes the two
 *            blocks it received last to its other neighbour (r - 1 and r + 1 by turns).
 *  linear    every block to rank 0, then rank 0 sends all of them to every rank.
 */
#include <stdlib.h>

#include "coll_sim.h"

void rt__alg_allgather_bruck(struct rt__cs *s)
{
    for (uint64_t d = 1; d < s->P; d <<= 1) {
        uint64_t n = d < s->P - d ? d : s->P - d;
        rt__cs_round_begin(s);
        for (uint64_t r = 0; r < s->P; r++)
            rt__cs_message(s, (uint32_t)r, (uint32_t)((r + s->P - d) % s->P), rt__cs_span(s, r, n));
        rt__cs_round_end(s);
    }
}

void rt__alg_allgather_recdbl(struct rt__cs *s)
{
    if (s->P & (s->P - 1)) {
        rt__alg_allgather_bruck(s);
        return;
    }
    for (uint64_t mask = 1; mask < s->P; mask <<= 1) {
        rt__cs_round_begin(s);
        for (uint64_t r = 0; r < s->P; r++)
            rt__cs_message(s, (uint32_t)r, (uint32_t)(r ^ mask), rt__cs_span(s, r & ~(mask - 1), mask));
        rt__cs_round_end(s);
    }
}

void rt__alg_allgather_ring(struct rt__cs *s)
{
    for (uint64_t k = 0; k + 1 < s->P; k++) {
        rt__cs_round_begin(s);
        for (uint64_t r = 0; r < s->P; r++)
            rt__cs_message(s, (uint32_t)r, (uint32_t)((r + 1) % s->P), s->m[(r + s->P - k % s->P) % s->P].block);
        rt__cs_round_end(s);
    }
}

void rt__alg_allgather_neighbor(struct rt__cs *s)
{
    uint64_t P = s->P;
    if (P % 2) {
        rt__alg_allgather_ring(s);
        return;
    }
    /* pair[r]: the first of the two blocks r received last (both of them: pair[r], pair[r] + 1) */
    uint64_t *pair = malloc(2 * P * sizeof *pair), *next = pair ? pair + P : NULL;
    if (!pair) {
        s->failed = RT_ENOMEM;
        return;
    }
    rt__cs_round_begin(s);
    for (uint64_t r = 0; r < P; r++) {
        rt__cs_message(s, (uint32_t)r, (uint32_t)(r ^ 1), s->m[r].block);
        pair[r] = r & ~(uint64_t)1;
    }
    rt__cs_round_end(s);
    for (uint64_t step = 1; step < P / 2; step++) {
        rt__cs_round_begin(s);
        for (uint64_t r = 0; r < P; r++) {
            /* even ranks go left on odd steps, odd ranks right; the other way on even steps */
            int left = (r % 2 == 0) == (step % 2 == 1);
            uint64_t nb = left ? (r + P - 1) % P : (r + 1) % P;
            rt__cs_message(s, (uint32_t)r, (uint32_t)nb, rt__cs_span(s, pair[r], 2));
            next[nb] = pair[r];
        }
        rt__cs_round_end(s);
        for (uint64_t r = 0; r < P; r++)
            pair[r] = next[r];
    }
    free(pair);
}

void rt__alg_allgather_linear(struct rt__cs *s)
{
    rt__cs_round_begin(s);
    for (uint64_t r = 1; r < s->P; r++)
        rt__cs_message(s, (uint32_t)r, 0, s->m[r].block);
    rt__cs_round_end(s);
    rt__cs_round_begin(s);
    for (uint64_t r = 1; r < s->P; r++)
        rt__cs_message(s, 0, (uint32_t)r, s->pre[s->P]);
    rt__cs_round_end(s);
}
