/* SPDX-License-Identifier: MIT */
/*
 * Reductions of the whole vector m (the largest block) to the root. Ranks are relative to the
 * root.
 *
 *  binomial      MPICH's tree upwards: in round i every rel with rel mod 2^(i+1) = 2^i sends to
 *                rel - 2^i. With a segment size, Open MPI's binomial tree in segments.
 *  rabenseifner  MPICH's reduce-scatter + gather (Rabenseifner 2004; Thakur et al. 2005): the
 *                allreduce's pre-step to pof2 ranks (algo_allreduce.c) and its reduce-scatter by
 *                recursive halving, then a binomial gather of the pieces to the root's group
 *                member (2^i pieces of m/pof2 in round i); a root outside the group gets the
 *                result from the member that stood in for it.
 *  pipeline      Open MPI: a chain P-1 -> ... -> 1 -> 0 in segments.
 *  chain         Open MPI: `fanout` chains of consecutive ranks, in segments.
 *  binary        Open MPI: a binary tree upwards, in segments.
 *  in-order-binary  Open MPI: a binary tree rooted at rank P-1 whatever the root, each subtree
 *                over a range of consecutive ranks (algo_tree.c); then rank P-1 sends the result
 *                to the root if it is another rank.
 *  linear        Open MPI: the root receives every vector in turn, from rank P-1 down to 0.
 */
#include "coll_sim.h"

void rt__cs_binomial_up(struct rt__cs *s, int subtrees)
{
    for (uint64_t mask = 1; mask < s->P; mask <<= 1) {
        rt__cs_round_begin(s);
        for (uint64_t rel = mask; rel < s->P; rel += 2 * mask) {
            uint64_t n = s->P - rel < mask ? s->P - rel : mask;
            rt__cs_message(s, rt__cs_phys(s, rel), rt__cs_phys(s, rel - mask), subtrees ? rt__cs_span(s, rel, n) : s->mmax);
        }
        rt__cs_round_end(s);
    }
}


void rt__alg_reduce_binomial(struct rt__cs *s)
{
    rt_bytes piece;
    if (rt__cs_segments(s, s->mmax, &piece) == 1)
        rt__cs_binomial_up(s, 0);
    else
        rt__cs_tree(s, RT_TREE_BMTREE, 1, 1);
}

void rt__alg_reduce_pipeline(struct rt__cs *s)
{
    rt__cs_tree(s, RT_TREE_CHAIN, 1, 1);
}

void rt__alg_reduce_chain(struct rt__cs *s)
{
    rt__cs_tree(s, RT_TREE_CHAIN, s->fanout, 1);
}

void rt__alg_reduce_binary(struct rt__cs *s)
{
    rt__cs_tree(s, RT_TREE_KARY, 2, 1);
}

void rt__alg_reduce_linear(struct rt__cs *s)
{
    for (uint64_t r = s->P; r-- > 0;) {
        if (r == s->root)
            continue;
        rt__cs_round_begin(s);
        rt__cs_message(s, (uint32_t)r, (uint32_t)s->root, s->mmax);
        rt__cs_round_end(s);
    }
}

void rt__alg_reduce_in_order_binary(struct rt__cs *s)
{
    rt__cs_tree(s, RT_TREE_IN_ORDER_BINARY, 2, 1);
    if (s->root != s->P - 1) {
        rt__cs_round_begin(s);
        rt__cs_message(s, (uint32_t)(s->P - 1), (uint32_t)s->root, s->mmax);
        rt__cs_round_end(s);
    }
}

void rt__alg_reduce_rabenseifner(struct rt__cs *s)
{
    uint64_t pof2 = rt__cs_pof2(s->P), rem = s->P - pof2, m = s->mmax, root = s->root;
    rt__cs_reduce_scatter_pof2(s, pof2, rem, m);
    /* the root's stand-in in the group: itself, or the even rank its odd self reported to */
    uint64_t stand_in = root < 2 * rem && (root & 1) ? root - 1 : root;
    uint64_t nroot = stand_in < 2 * rem ? stand_in / 2 : stand_in - rem;
    for (uint64_t mask = 1; mask < pof2; mask <<= 1) {
        rt__cs_round_begin(s);
        for (uint64_t nr = 0; nr < pof2; nr++) {
            uint64_t rel = nr ^ nroot;
            if ((rel & (2 * mask - 1)) == mask)
                rt__cs_message(s, rt__cs_group_rank(nr, rem), rt__cs_group_rank(nr ^ mask, rem),
                               rt__cs_ceil_div(m, pof2 / mask));
        }
        rt__cs_round_end(s);
    }
    if (stand_in != root) {
        rt__cs_round_begin(s);
        rt__cs_message(s, (uint32_t)stand_in, (uint32_t)root, m);
        rt__cs_round_end(s);
    }
}
