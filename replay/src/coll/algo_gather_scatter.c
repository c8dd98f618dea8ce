/* SPDX-License-Identifier: MIT */
/*
 * Gather and scatter (and their v-variants: each rank's own block). Ranks relative to the root.
 *
 *  binomial  MPICH's tree (algo_bcast.c, algo_reduce.c): scatter sends down to rel + mask the
 *            blocks of its subtree [rel + mask, rel + 2·mask) ∩ [0, P); gather sends them up.
 *  linear    the root receives (gather) or sends (scatter) each block in turn, rel 1, 2, ...,
 *            one blocking call after the other.
 *  linear-sync  Open MPI's gather for long blocks: the root asks each rank in turn with an empty
 *            message, then receives its block.
 *  linear-nb Open MPI's scatter: the root posts all P-1 sends at once.
 */
#include "coll_sim.h"

void rt__alg_gather_binomial(struct rt__cs *s)
{
    rt__cs_binomial_up(s, 1);
}

void rt__alg_scatter_binomial(struct rt__cs *s)
{
    rt__cs_binomial_down(s, 1);
}

void rt__alg_gather_linear(struct rt__cs *s)
{
    for (uint64_t rel = 1; rel < s->P; rel++) {
        rt__cs_round_begin(s);
        rt__cs_message(s, rt__cs_phys(s, rel), rt__cs_phys(s, 0), s->m[rt__cs_phys(s, rel)].block);
        rt__cs_round_end(s);
    }
}

void rt__alg_scatter_linear(struct rt__cs *s)
{
    for (uint64_t rel = 1; rel < s->P; rel++) {
        rt__cs_round_begin(s);
        rt__cs_message(s, rt__cs_phys(s, 0), rt__cs_phys(s, rel), s->m[rt__cs_phys(s, rel)].block);
        rt__cs_round_end(s);
    }
}

void rt__alg_gather_linear_sync(struct rt__cs *s)
{
    for (uint64_t rel = 1; rel < s->P; rel++) {
        uint32_t r = rt__cs_phys(s, rel), root = rt__cs_phys(s, 0);
        rt__cs_round_begin(s);
        rt__cs_message(s, root, r, 0);
        rt__cs_round_end(s);
        rt__cs_round_begin(s);
        rt__cs_message(s, r, root, s->m[r].block);
        rt__cs_round_end(s);
    }
}

void rt__alg_scatter_linear_nb(struct rt__cs *s)
{
    rt__cs_round_begin(s);
    for (uint64_t rel = 1; rel < s->P; rel++)
        rt__cs_message(s, rt__cs_phys(s, 0), rt__cs_phys(s, rel), s->m[rt__cs_phys(s, rel)].block);
    rt__cs_round_end(s);
}
