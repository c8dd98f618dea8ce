/* SPDX-License-Identifier: MIT */
/*
 * Broadcasts of the whole message m (the largest block) from the root, and the binomial tree
 * they share with scatter. Ranks are relative to the root (rel = (rank - root) mod P).
 *
 *  binomial        MPICH's tree (Thakur, Rabenseifner & Gropp, "Optimization of Collective
 *                  Communication Operations in MPICH", IJHPCA 19(1), 2005): in round k, with
 *                  mask = 2^(q-1-k), q = ceil(log2 P), every rel that is a multiple of 2·mask
 *                  sends to rel + mask (if < P), one child after the other. With a segment size
 *                  or fanout 1, Open MPI's binomial tree instead (algo_tree.c: each node posts
 *                  its sends to all its children at once, the nearest first), in segments.
 *  scatter-recdbl  MPICH's long-message bcast on powers of two (Thakur et al. 2005, §4): the
 *                  root scatters m in P pieces of ceil(m/P) bytes down the binomial tree (a
 *                  subtree gets its pieces, empty subtrees nothing), then recursive doubling
 *                  collects them: in round i, rel exchanges the 2^i pieces it holds with
 *                  rel XOR 2^i. Not on a power of two: the ring collects them (scatter-ring).
 *  scatter-ring    the same scatter, then P-1 ring steps: in step i, rel sends piece
 *                  rel - i + 1 to rel + 1.
 *  pipeline        Open MPI: a chain 0 -> 1 -> ... -> P-1 in segments.
 *  chain           Open MPI: `fanout` chains of consecutive ranks under the root, in segments.
 *  binary          Open MPI: a binary tree (algo_tree.c) in segments.
 *  split-binary    Open MPI: the message's two halves go down the two subtrees of a binary tree
 *                  in segments (the left subtree, odd rel, carries the first ceil(m/2) bytes; the
 *                  right one, even rel, the rest); then rel and rel + 1 (odd rel) swap halves, and
 *                  a last odd rel without a partner gets the second half from the root. A message
 *                  of one byte (no halves) goes down the pipeline instead.
 *  knomial         Open MPI: a k-nomial tree of radix `fanout` (4 by default), in segments.
 *  linear          Open MPI: the root posts its P-1 sends of m at once (rel 1, 2, ...).
 */
#include "coll_sim.h"

void rt__cs_binomial_down(struct rt__cs *s, int subtrees)
{
    uint64_t top = 1;
    while (top < s->P)
        top <<= 1;
    for (uint64_t mask = top >> 1; mask > 0; mask >>= 1) {
        rt__cs_round_begin(s);
        for (uint64_t rel = 0; rel + mask < s->P; rel += 2 * mask) {
            uint64_t dst = rel + mask, n = s->P - dst < mask ? s->P - dst : mask;
            rt__cs_message(s, rt__cs_phys(s, rel), rt__cs_phys(s, dst), subtrees ? rt__cs_span(s, dst, n) : s->mmax);
        }
        rt__cs_round_end(s);
    }
}

void rt__alg_bcast_binomial(struct rt__cs *s)
{
    rt_bytes piece;
    if (rt__cs_segments(s, s->mmax, &piece) == 1 && s->fanout == 0)
        rt__cs_binomial_down(s, 0);
    else
        rt__cs_tree(s, RT_TREE_BMTREE, 1, 0);
}

void rt__alg_bcast_pipeline(struct rt__cs *s)
{
    rt__cs_tree(s, RT_TREE_CHAIN, 1, 0);
}

void rt__alg_bcast_chain(struct rt__cs *s)
{
    rt__cs_tree(s, RT_TREE_CHAIN, s->fanout, 0);
}

void rt__alg_bcast_binary(struct rt__cs *s)
{
    rt__cs_tree(s, RT_TREE_KARY, 2, 0);
}

void rt__alg_bcast_knomial(struct rt__cs *s)
{
    rt__cs_tree(s, RT_TREE_KNOMIAL, s->fanout ? s->fanout : 4, 0);
}

void rt__alg_bcast_linear(struct rt__cs *s)
{
    rt__cs_round_begin(s);
    for (uint64_t rel = 1; rel < s->P; rel++)
        rt__cs_message(s, rt__cs_phys(s, 0), rt__cs_phys(s, rel), s->mmax);
    rt__cs_round_end(s);
}

/* Bytes of pieces [lo, lo + n) of the message cut in P pieces of @p piece bytes. */
static rt_bytes pieces(const struct rt__cs *s, rt_bytes piece, uint64_t lo, uint64_t n)
{
    rt_bytes m = s->mmax;
    if (lo >= s->P || lo * piece >= m)
        return 0;
    rt_bytes rest = m - lo * piece;
    return n * piece < rest ? n * piece : rest;
}

/* The root's binomial scatter of the message in P pieces (MPICH's scatter for bcast). */
static void scatter_pieces(struct rt__cs *s, rt_bytes piece)
{
    uint64_t top = 1;
    while (top < s->P)
        top <<= 1;
    for (uint64_t mask = top >> 1; mask > 0; mask >>= 1) {
        rt__cs_round_begin(s);
        for (uint64_t rel = 0; rel + mask < s->P; rel += 2 * mask) {
            rt_bytes b = pieces(s, piece, rel + mask, mask);
            if (b) /* a subtree past the message's end gets nothing */
                rt__cs_message(s, rt__cs_phys(s, rel), rt__cs_phys(s, rel + mask), b);
        }
        rt__cs_round_end(s);
    }
}

static void ring_pieces(struct rt__cs *s, rt_bytes piece)
{
    for (uint64_t i = 1; i < s->P; i++) {
        rt__cs_round_begin(s);
        for (uint64_t rel = 0; rel < s->P; rel++)
            rt__cs_message(s, rt__cs_phys(s, rel), rt__cs_phys(s, (rel + 1) % s->P),
                           pieces(s, piece, (rel + s->P - i + 1) % s->P, 1));
        rt__cs_round_end(s);
    }
}

void rt__alg_bcast_scatter_ring(struct rt__cs *s)
{
    rt_bytes piece = rt__cs_ceil_div(s->mmax, s->P);
    scatter_pieces(s, piece);
    ring_pieces(s, piece);
}

void rt__alg_bcast_scatter_recdbl(struct rt__cs *s)
{
    rt_bytes piece = rt__cs_ceil_div(s->mmax, s->P);
    scatter_pieces(s, piece);
    if (s->P & (s->P - 1)) {
        ring_pieces(s, piece);
        return;
    }
    for (uint64_t mask = 1; mask < s->P; mask <<= 1) {
        rt__cs_round_begin(s);
        for (uint64_t rel = 0; rel < s->P; rel++)
            rt__cs_message(s, rt__cs_phys(s, rel), rt__cs_phys(s, rel ^ mask), pieces(s, piece, rel & ~(mask - 1), mask));
        rt__cs_round_end(s);
    }
}

void rt__alg_bcast_split_binary(struct rt__cs *s)
{
    rt_bytes m = s->mmax, half[2] = {m - m / 2, m / 2};
    if (m < 2) { /* nothing to split */
        rt__alg_bcast_pipeline(s);
        return;
    }
    struct rt__cs_tree t;
    if (rt__cs_tree_build(&t, RT_TREE_KARY, s->P, 2)) {
        s->failed = RT_ENOMEM;
        return;
    }
    rt_bytes piece[2];
    uint64_t S[2] = {rt__cs_segments(s, half[0], &piece[0]), rt__cs_segments(s, half[1], &piece[1])};
    uint64_t rounds = (S[0] > S[1] ? S[0] : S[1]) + t.maxdepth - 1;
    for (uint64_t r = 0; r < rounds; r++) {
        rt__cs_round_begin(s);
        for (uint64_t v = 0; v < s->P; v++) {
            uint64_t d = t.depth[v];
            for (uint32_t c = t.first[v]; c < t.first[v + 1]; c++) {
                int h = (t.child[c] & 1) == 0; /* the half of the child's subtree */
                if (d <= r && r - d < S[h])
                    rt__cs_message(s, rt__cs_phys(s, v), rt__cs_phys(s, t.child[c]),
                                   rt__cs_piece(half[h], piece[h], r - d));
            }
        }
        rt__cs_round_end(s);
    }
    rt__cs_round_begin(s); /* the swap of halves */
    for (uint64_t v = 1; v < s->P; v += 2) {
        if (v + 1 < s->P) {
            rt__cs_message(s, rt__cs_phys(s, v), rt__cs_phys(s, v + 1), half[0]);
            rt__cs_message(s, rt__cs_phys(s, v + 1), rt__cs_phys(s, v), half[1]);
        } else {
            rt__cs_message(s, rt__cs_phys(s, 0), rt__cs_phys(s, v), half[1]);
        }
    }
    rt__cs_round_end(s);
    rt__cs_tree_free(&t);
}
