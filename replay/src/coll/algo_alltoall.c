/* SPDX-License-Identifier: MIT */
/*
 * Alltoall: a block from every rank to every rank (alltoallv: each rank's own block).
 *
 *  pairwise     round i = 1..P-1, r sends one block to (r + i) mod P and receives one from
 *               (r - i) mod P.
 *  bruck        Bruck et al. 1997: round k (d = 2^k) r sends to (r + d) mod P the blocks whose
 *               index has bit k set: ceil(log2 P) rounds of about P/2 blocks.
 *  all-at-once  MPICH's isend/irecv: r posts its P-1 sends to (r + i) mod P at once, in rounds of
 *               at most 32 (MPICH's throttle, MPIR_CVAR_ALLTOALL_THROTTLE).
 *  linear       Open MPI's basic linear: all P-1 sends posted at once, no throttle.
 */
#include "coll_sim.h"

void rt__alg_alltoall_pairwise(struct rt__cs *s)
{
    for (uint64_t i = 1; i < s->P; i++) {
        rt__cs_round_begin(s);
        for (uint64_t r = 0; r < s->P; r++)
            rt__cs_message(s, (uint32_t)r, (uint32_t)((r + i) % s->P), s->m[r].block);
        rt__cs_round_end(s);
    }
}

void rt__alg_alltoall_bruck(struct rt__cs *s)
{
    for (uint64_t d = 1; d < s->P; d <<= 1) {
        uint64_t n = 0; /* block indices j < P with bit d set */
        for (uint64_t j = d; j < s->P; j += 2 * d)
            n += s->P - j < d ? s->P - j : d;
        rt__cs_round_begin(s);
        for (uint64_t r = 0; r < s->P; r++)
            rt__cs_message(s, (uint32_t)r, (uint32_t)((r + d) % s->P), n * s->m[r].block);
        rt__cs_round_end(s);
    }
}

static void at_once(struct rt__cs *s, uint64_t throttle)
{
    for (uint64_t lo = 1; lo < s->P; lo += throttle) {
        rt__cs_round_begin(s);
        for (uint64_t r = 0; r < s->P; r++)
            for (uint64_t i = lo; i < s->P && i < lo + throttle; i++)
                rt__cs_message(s, (uint32_t)r, (uint32_t)((r + i) % s->P), s->m[r].block);
        rt__cs_round_end(s);
    }
}

void rt__alg_alltoall_all_at_once(struct rt__cs *s)
{
    at_once(s, 32);
}

void rt__alg_alltoall_linear(struct rt__cs *s)
{
    at_once(s, s->P);
}
