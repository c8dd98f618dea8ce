/* SPDX-License-Identifier: MIT */
/*
 * Allreduce of the vector m (the largest block).
 *
 *  recdbl, rabenseifner  MPICH's (Thakur et al. 2005, §4): with pof2 the largest power of two
 *                <= P and rem = P - pof2, the first 2·rem ranks pair up, odd ones send their
 *                vector to even ones first and get the result back at the end, so pof2 ranks
 *                remain. recdbl: log2(pof2) exchanges of the whole vector with rank XOR 2^i.
 *                rabenseifner: reduce-scatter by recursive halving (m/2, m/4, ..., m/pof2), then
 *                allgather by recursive doubling back (m/pof2, ..., m/2).
 *  ring          P-1 rounds of ceil(m/P) to the right neighbour (reduce-scatter), P-1 more
 *                (allgather).
 *  segmented-ring  Open MPI's ring for long vectors: the P blocks of ceil(m/P) are reduced in
 *                phases of at most one segment each (every phase a reduce-scatter ring of P-1
 *                rounds over its part of each block), then one allgather ring of whole blocks.
 *  reduce-bcast  a reduce to rank 0, then a bcast from it, each by the algorithm the rule set
 *                picks for a reduce and a bcast of m on the same ranks (Open MPI's
 *                "nonoverlapping"; binomial both when the plan names none).
 *  linear        Open MPI's basic linear: a linear reduce to rank 0, then a linear bcast.
 *
 * reduce_scatter (the vector variant, plan->reduce_scatter): each rank ends with its block of
 * b = ceil(m/P) bytes of the reduced vector of m, as the libraries run it:
 *  rabenseifner  recursive halving: the pre-step to pof2 ranks, exchanges of m/2, m/4, ...,
 *                m/pof2, then each rank that stood in for a second one sends it its block.
 *  ring          P-1 rounds of one block to the right neighbour.
 *  pairwise      MPICH's for long vectors: in round i, r sends the block of (r + i) mod P to it.
 *  reduce-bcast  Open MPI's nonoverlapping: a reduce of m to rank 0, then a linear scatter.
 * Other algorithms run as the allreduce of the vector (an upper bound).
 */
#include "coll_sim.h"

static void exchange(struct rt__cs *s, uint64_t pof2, uint64_t rem, uint64_t mask, rt_bytes m)
{
    rt__cs_round_begin(s);
    for (uint64_t nr = 0; nr < pof2; nr++)
        rt__cs_message(s, rt__cs_group_rank(nr, rem), rt__cs_group_rank(nr ^ mask, rem), m);
    rt__cs_round_end(s);
}

static void pre_step(struct rt__cs *s, uint64_t rem, rt_bytes m)
{
    if (!rem)
        return;
    rt__cs_round_begin(s);
    for (uint64_t i = 0; i < rem; i++)
        rt__cs_message(s, (uint32_t)(2 * i + 1), (uint32_t)(2 * i), m);
    rt__cs_round_end(s);
}

static void post_step(struct rt__cs *s, uint64_t rem, rt_bytes m)
{
    if (!rem)
        return;
    rt__cs_round_begin(s);
    for (uint64_t i = 0; i < rem; i++)
        rt__cs_message(s, (uint32_t)(2 * i), (uint32_t)(2 * i + 1), m);
    rt__cs_round_end(s);
}

void rt__cs_reduce_scatter_pof2(struct rt__cs *s, uint64_t pof2, uint64_t rem, rt_bytes m)
{
    pre_step(s, rem, m);
    for (uint64_t mask = 1; mask < pof2; mask <<= 1) /* m/2, m/4, ... */
        exchange(s, pof2, rem, mask, rt__cs_ceil_div(m, 2 * mask));
}

void rt__alg_allreduce_recdbl(struct rt__cs *s)
{
    uint64_t pof2 = rt__cs_pof2(s->P), rem = s->P - pof2;
    pre_step(s, rem, s->mmax);
    for (uint64_t mask = 1; mask < pof2; mask <<= 1)
        exchange(s, pof2, rem, mask, s->mmax);
    post_step(s, rem, s->mmax);
}

/* The block each rank keeps of a reduce_scatter. */
static rt_bytes rs_block(const struct rt__cs *s)
{
    return rt__cs_ceil_div(s->mmax, s->P);
}

void rt__alg_allreduce_rabenseifner(struct rt__cs *s)
{
    uint64_t pof2 = rt__cs_pof2(s->P), rem = s->P - pof2;
    if (s->plan->reduce_scatter) { /* recursive halving, then the stand-ins pass the blocks on */
        rt__cs_reduce_scatter_pof2(s, pof2, rem, s->mmax);
        post_step(s, rem, rs_block(s));
        return;
    }
    rt__cs_reduce_scatter_pof2(s, pof2, rem, s->mmax);
    for (uint64_t mask = pof2 >> 1; mask > 0; mask >>= 1) /* allgather: ..., m/4, m/2 */
        exchange(s, pof2, rem, mask, rt__cs_ceil_div(s->mmax, 2 * mask));
    post_step(s, rem, s->mmax);
}

/* @p rounds rounds of @p bs bytes each to the right neighbour. */
static void ring(struct rt__cs *s, uint64_t rounds, rt_bytes bs)
{
    for (uint64_t k = 0; k < rounds; k++) {
        rt__cs_round_begin(s);
        for (uint64_t r = 0; r < s->P; r++)
            rt__cs_message(s, (uint32_t)r, (uint32_t)((r + 1) % s->P), bs);
        rt__cs_round_end(s);
    }
}

void rt__alg_allreduce_ring(struct rt__cs *s)
{
    ring(s, (s->plan->reduce_scatter ? 1 : 2) * (s->P - 1), rt__cs_ceil_div(s->mmax, s->P));
}

void rt__alg_allreduce_pairwise(struct rt__cs *s)
{
    if (!s->plan->reduce_scatter) { /* an allreduce has no pairwise schedule: recursive doubling */
        rt__alg_allreduce_recdbl(s);
        return;
    }
    for (uint64_t i = 1; i < s->P; i++) {
        rt__cs_round_begin(s);
        for (uint64_t r = 0; r < s->P; r++)
            rt__cs_message(s, (uint32_t)r, (uint32_t)((r + i) % s->P), rs_block(s));
        rt__cs_round_end(s);
    }
}

void rt__alg_allreduce_segmented_ring(struct rt__cs *s)
{
    rt_bytes block = rt__cs_ceil_div(s->mmax, s->P), piece;
    uint64_t phases = rt__cs_segments(s, block, &piece);
    rt_bytes part = rt__cs_ceil_div(block, phases); /* the phases share a block evenly */
    for (uint64_t ph = 0; ph < phases; ph++)
        ring(s, s->P - 1, rt__cs_piece(block, part, ph));
    ring(s, s->P - 1, block);
}

void rt__alg_allreduce_reduce_bcast(struct rt__cs *s)
{
    int red = s->plan->part[0] ? s->plan->part[0] : RT_ALGO_BINOMIAL;
    int bc = s->plan->part[1] ? s->plan->part[1] : RT_ALGO_BINOMIAL;
    rt__coll_algo_fn(RT_COLL_REDUCE, red)(s);
    if (s->plan->reduce_scatter) { /* the blocks from rank 0, one after the other */
        for (uint64_t r = 1; r < s->P; r++) {
            rt__cs_round_begin(s);
            rt__cs_message(s, 0, (uint32_t)r, rs_block(s));
            rt__cs_round_end(s);
        }
        return;
    }
    rt__coll_algo_fn(RT_COLL_BCAST, bc)(s);
}

void rt__alg_allreduce_linear(struct rt__cs *s)
{
    rt__alg_reduce_linear(s);
    rt__alg_bcast_linear(s);
}
