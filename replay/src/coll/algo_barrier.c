/* SPDX-License-Identifier: MIT */
/*
 * Barriers (0-byte messages), and the stand-in for operations no algorithm is known for.
 *
 *  dissemination  Hensgen, Finkel & Manber, "Two algorithms for barrier synchronization", IJPP
 *                 17(1), 1988: round i, r sends to (r + 2^i) mod P. MPICH's barrier; Open MPI's
 *                 "bruck" barrier is the same schedule (r sends to r + 2^i, receives from r - 2^i).
 *  recdbl         Open MPI's recursive doubling: with pof2 the largest power of two <= P, the
 *                 ranks >= pof2 first report to r - pof2, the pof2 ranks exchange with r XOR 2^i,
 *                 then the extra ranks are released by r - pof2.
 *  linear         every rank reports to rank 0, which then releases them all.
 *  double-ring    a token twice around the ring 0 -> 1 -> ... -> P-1 -> 0.
 *  tree           Open MPI: up the binomial tree to rank 0 (in round j, r with lowest bit j
 *                 reports to r - j), then down it again.
 *  other          (operations the reader maps to RT_COLL_OTHER) a rough stand-in: dissemination
 *                 rounds in which each rank sends the larger of its counts.
 */
#include "coll_sim.h"

static void dissemination(struct rt__cs *s, int sized)
{
    for (uint64_t d = 1; d < s->P; d <<= 1) {
        rt__cs_round_begin(s);
        for (uint64_t r = 0; r < s->P; r++)
            rt__cs_message(s, (uint32_t)r, (uint32_t)((r + d) % s->P), sized ? s->m[r].block : 0);
        rt__cs_round_end(s);
    }
}

void rt__alg_barrier_dissemination(struct rt__cs *s)
{
    dissemination(s, 0);
}

void rt__alg_other(struct rt__cs *s)
{
    dissemination(s, 1);
}

void rt__alg_barrier_recdbl(struct rt__cs *s)
{
    uint64_t pof2 = rt__cs_pof2(s->P), extra = s->P - pof2;
    if (extra) {
        rt__cs_round_begin(s);
        for (uint64_t r = pof2; r < s->P; r++)
            rt__cs_message(s, (uint32_t)r, (uint32_t)(r - pof2), 0);
        rt__cs_round_end(s);
    }
    for (uint64_t mask = 1; mask < pof2; mask <<= 1) {
        rt__cs_round_begin(s);
        for (uint64_t r = 0; r < pof2; r++)
            rt__cs_message(s, (uint32_t)r, (uint32_t)(r ^ mask), 0);
        rt__cs_round_end(s);
    }
    if (extra) {
        rt__cs_round_begin(s);
        for (uint64_t r = pof2; r < s->P; r++)
            rt__cs_message(s, (uint32_t)(r - pof2), (uint32_t)r, 0);
        rt__cs_round_end(s);
    }
}

void rt__alg_barrier_linear(struct rt__cs *s)
{
    rt__cs_round_begin(s);
    for (uint64_t r = 1; r < s->P; r++)
        rt__cs_message(s, (uint32_t)r, 0, 0);
    rt__cs_round_end(s);
    rt__cs_round_begin(s);
    for (uint64_t r = 1; r < s->P; r++)
        rt__cs_message(s, 0, (uint32_t)r, 0);
    rt__cs_round_end(s);
}

void rt__alg_barrier_double_ring(struct rt__cs *s)
{
    for (uint64_t k = 0; k < 2 * s->P; k++) {
        rt__cs_round_begin(s);
        rt__cs_message(s, (uint32_t)(k % s->P), (uint32_t)((k + 1) % s->P), 0);
        rt__cs_round_end(s);
    }
}

void rt__alg_barrier_tree(struct rt__cs *s)
{
    rt__cs_binomial_up(s, 0);
    rt__cs_binomial_down(s, 0);
}
