/* SPDX-License-Identifier: MIT */
/*
 * The core every collective algorithm runs on (coll_sim.c), and the algorithms' entry points
 * (algo_<operation>.c). An algorithm is a function that calls rt__cs_round_begin, then
 * rt__cs_message for each message of the round, then rt__cs_round_end, round after round; the
 * core either times the messages (rt__coll_run) or records them as the schedule the engine runs
 * on a network (rt__coll_schedule). An algorithm never sees which.
 *
 * A round orders each member's own messages, nothing more: a member that has no message in a
 * round does not wait for it. A member's sends of one round are posted one after the other (each
 * pays its CPU overhead after the one before, as a loop of MPI_Isend does); its receives of one
 * round complete independently, each at its delivery (a Waitall over MPI_Irecv).
 */
#ifndef RETIME_COLL_SIM_H
#define RETIME_COLL_SIM_H

#include "collective.h"
#include "coll_rules.h"

struct rt__cs_pending;
struct rt__cs_times {
    rt_bytes m;
    rt_time_ps o_send, o_recv, gap, wire, hold, handshake;
    int valid;
};

struct rt__cs {
    struct rt__coll_sched *emit; /* set: the algorithm's messages are recorded, not timed */
    struct rt__coll_member *m;   /* m[i].done is member i's clock during the run */
    rt_time_ps *next;            /* clocks at the end of the current round */
    rt_time_ps *post;            /* each member's CPU after its sends so far in the current round */
    uint32_t *next_origin;       /* and the members whose entries bound them (m[i].origin: now) */
    uint32_t *tx_origin, *rx_origin; /* whose entry each port's busy time goes back to (its own
                                        member's before the call): a message that waits for a port
                                        goes back to the message that held it */
    rt_bytes *pre;               /* pre[rel] = sum of the blocks of relative ranks < rel */
    uint64_t P, root;
    rt_bytes mmax;               /* the largest block */
    rt_bytes seg;                /* the segment size of segmented algorithms (0: one segment) */
    uint32_t fanout;             /* the fan-out of chain algorithms (0: 1) */
    const struct rt_coll_plan *plan; /* what is run (composite algorithms read their parts) */
    const struct rt_model *model;
    rt_bytes eager_limit;
    const struct rt__coll_noise *noise;
    uint64_t nmsg;                /* messages so far: the noise's key */
    struct rt__cs_times last;     /* the times of the last message's size */
    struct rt__cs_pending *pend;  /* the current round's messages, sending side done; then as many
                                     again as scratch for sorting them */
    size_t npend, cap;
    uint32_t *seen, round_no; /* seen[b] = round_no: b receives in this round already */
    int multi;                /* some member receives more than one message in this round */
    int failed;
};

void rt__cs_round_begin(struct rt__cs *s);
/* Member @p a sends @p m bytes to member @p b (communicator ranks) in the current round. */
void rt__cs_message(struct rt__cs *s, uint32_t a, uint32_t b, rt_bytes m);
void rt__cs_round_end(struct rt__cs *s);

/* The communicator rank of relative rank @p rel (rooted operations count from the root). */
static inline uint32_t rt__cs_phys(const struct rt__cs *s, uint64_t rel)
{
    return (uint32_t)((rel + s->root) % s->P);
}

/* Bytes of the @p n blocks of relative ranks lo, lo+1, ... (cyclically). */
static inline rt_bytes rt__cs_span(const struct rt__cs *s, uint64_t lo, uint64_t n)
{
    if (lo + n <= s->P)
        return s->pre[lo + n] - s->pre[lo];
    return s->pre[s->P] - s->pre[lo] + s->pre[lo + n - s->P];
}

static inline uint64_t rt__cs_ceil_div(uint64_t x, uint64_t k)
{
    return x / k + (x % k != 0);
}

/* The largest power of two <= @p P (P >= 1). */
static inline uint64_t rt__cs_pof2(uint64_t P)
{
    uint64_t p = 1;
    while (p * 2 <= P)
        p *= 2;
    return p;
}

/* Bytes of piece @p k when @p m bytes are cut into pieces of @p piece bytes (the last ones
 * shorter or empty). */
static inline rt_bytes rt__cs_piece(rt_bytes m, rt_bytes piece, uint64_t k)
{
    if (piece == 0 || k >= m / piece + (m % piece != 0))
        return 0;
    return m - k * piece < piece ? m - k * piece : piece;
}

/* Segmented algorithms cut a message into at most this many segments (larger ones then), so
 * that a schedule stays within O(P · 4096) messages whatever the size. */
#define RT_COLL_MAX_SEGMENTS 4096

/* The number of segments of @p m bytes, each *@p piece bytes (the last one shorter): one
 * segment when s->seg is 0 or not below @p m. */
static inline uint64_t rt__cs_segments(const struct rt__cs *s, rt_bytes m, rt_bytes *piece)
{
    rt_bytes seg = s->seg;
    if (seg == 0 || seg >= m) {
        *piece = m ? m : 1;
        return 1;
    }
    if (rt__cs_ceil_div(m, seg) > RT_COLL_MAX_SEGMENTS)
        seg = rt__cs_ceil_div(m, RT_COLL_MAX_SEGMENTS);
    *piece = seg;
    return rt__cs_ceil_div(m, seg);
}

/* ---------------------------------------------------------------- trees (algo_tree.c) */

/* A rooted tree over the relative ranks 0..P-1 (0 the root): parent[rel] (UINT32_MAX for the
 * root), the children of each node in the order it serves them, and each node's depth and
 * height (0 at a leaf). */
struct rt__cs_tree {
    uint32_t *parent, *child, *first; /* children of rel: child[first[rel] .. first[rel + 1]) */
    uint32_t *depth, *height;
    uint32_t *rank; /* NULL: node v is relative rank v; else its communicator rank */
    uint32_t maxdepth;
};
/* BMTREE: Open MPI's binomial tree (a node's parent is its relative rank without the highest
 * bit; its children rel + 2^k above that bit, the smallest subtree first). CHAIN: the others in
 * @p fanout chains of consecutive ranks under the root, the longer chains first. BINARY: Open
 * MPI's k-ary tree for k = @p fanout (children of rel at level l: rel + i·k^l, i = 1..k).
 * KNOMIAL: Open MPI's k-nomial tree of radix @p fanout (children rel + d·k^j, the farthest
 * first). IN_ORDER_BINARY: Open MPI's in-order binary tree, rooted at communicator rank P-1
 * whatever the root (its node v is rank P-1-v: rank[] is set). */
enum { RT_TREE_BMTREE, RT_TREE_CHAIN, RT_TREE_KARY, RT_TREE_KNOMIAL, RT_TREE_IN_ORDER_BINARY };
int rt__cs_tree_build(struct rt__cs_tree *t, int shape, uint64_t P, uint32_t fanout);
void rt__cs_tree_free(struct rt__cs_tree *t);
/* The whole message down the tree in segments of s->seg (bcast), or up it (reduce). */
void rt__cs_tree_down(struct rt__cs *s, const struct rt__cs_tree *t, rt_bytes m);
void rt__cs_tree_up(struct rt__cs *s, const struct rt__cs_tree *t, rt_bytes m);
/* The whole message (the largest block) down (bcast) or @p up (reduce) a tree of @p shape. */
void rt__cs_tree(struct rt__cs *s, int shape, uint32_t fanout, int up);

/* MPICH's binomial tree (algo_bcast.c, algo_reduce.c): down sends the whole message (bcast) or
 * the receiver's subtree of blocks (@p subtrees: scatter); up the mirror image (reduce, gather). */
void rt__cs_binomial_down(struct rt__cs *s, int subtrees);
void rt__cs_binomial_up(struct rt__cs *s, int subtrees);

/* MPICH's allreduce groundwork (algo_allreduce.c): the member of rank @p nr of the group of pof2
 * (the first 2·rem ranks leave their odd halves behind), and the pre-step to that group followed
 * by the reduce-scatter by recursive halving (m/2, m/4, ..., m/pof2). */
static inline uint32_t rt__cs_group_rank(uint64_t nr, uint64_t rem)
{
    return (uint32_t)(nr < rem ? 2 * nr : nr + rem);
}
void rt__cs_reduce_scatter_pof2(struct rt__cs *s, uint64_t pof2, uint64_t rem, rt_bytes m);

/* ---------------------------------------------------------------- the algorithms */

void rt__alg_barrier_dissemination(struct rt__cs *s);
void rt__alg_barrier_recdbl(struct rt__cs *s);
void rt__alg_barrier_linear(struct rt__cs *s);
void rt__alg_barrier_double_ring(struct rt__cs *s);
void rt__alg_barrier_tree(struct rt__cs *s);
void rt__alg_other(struct rt__cs *s);

void rt__alg_bcast_binomial(struct rt__cs *s);
void rt__alg_bcast_scatter_recdbl(struct rt__cs *s);
void rt__alg_bcast_scatter_ring(struct rt__cs *s);
void rt__alg_bcast_pipeline(struct rt__cs *s);
void rt__alg_bcast_chain(struct rt__cs *s);
void rt__alg_bcast_binary(struct rt__cs *s);
void rt__alg_bcast_split_binary(struct rt__cs *s);
void rt__alg_bcast_linear(struct rt__cs *s);
void rt__alg_bcast_knomial(struct rt__cs *s);

void rt__alg_reduce_binomial(struct rt__cs *s);
void rt__alg_reduce_rabenseifner(struct rt__cs *s);
void rt__alg_reduce_pipeline(struct rt__cs *s);
void rt__alg_reduce_chain(struct rt__cs *s);
void rt__alg_reduce_binary(struct rt__cs *s);
void rt__alg_reduce_linear(struct rt__cs *s);
void rt__alg_reduce_in_order_binary(struct rt__cs *s);

void rt__alg_allreduce_recdbl(struct rt__cs *s);
void rt__alg_allreduce_rabenseifner(struct rt__cs *s);
void rt__alg_allreduce_ring(struct rt__cs *s);
void rt__alg_allreduce_segmented_ring(struct rt__cs *s);
void rt__alg_allreduce_reduce_bcast(struct rt__cs *s);
void rt__alg_allreduce_linear(struct rt__cs *s);
void rt__alg_allreduce_pairwise(struct rt__cs *s);

void rt__alg_allgather_bruck(struct rt__cs *s);
void rt__alg_allgather_recdbl(struct rt__cs *s);
void rt__alg_allgather_ring(struct rt__cs *s);
void rt__alg_allgather_neighbor(struct rt__cs *s);
void rt__alg_allgather_linear(struct rt__cs *s);

void rt__alg_alltoall_pairwise(struct rt__cs *s);
void rt__alg_alltoall_bruck(struct rt__cs *s);
void rt__alg_alltoall_all_at_once(struct rt__cs *s);
void rt__alg_alltoall_linear(struct rt__cs *s);

void rt__alg_gather_binomial(struct rt__cs *s);
void rt__alg_gather_linear(struct rt__cs *s);
void rt__alg_gather_linear_sync(struct rt__cs *s);
void rt__alg_scatter_binomial(struct rt__cs *s);
void rt__alg_scatter_linear(struct rt__cs *s);
void rt__alg_scatter_linear_nb(struct rt__cs *s);

void rt__alg_scan_recdbl(struct rt__cs *s);
void rt__alg_scan_linear(struct rt__cs *s);

#endif
