/* SPDX-License-Identifier: MIT */
/*
 * Trees over a communicator's relative ranks and the segmented pipelines that run over them
 * (Open MPI's generic tree broadcast and reduction: coll_base_bcast.c, coll_base_reduce.c; the
 * trees of coll_base_topo.c).
 *
 * Down (bcast): the message is cut into S segments of s->seg bytes (the last one shorter); a
 * node at depth d receives segment j from its parent in round j + d - 1 and sends it to each of
 * its children in round j + d, so that it forwards one segment while the next arrives.
 * Up (reduce): a node of height h (0 at a leaf) sends segment j to its parent in round j + h,
 * after it has received it from every child (each of smaller height).
 */
#include <stdlib.h>

#include "coll_sim.h"

void rt__cs_tree_free(struct rt__cs_tree *t)
{
    free(t->parent);
    free(t->child);
    free(t->first);
    free(t->depth);
    free(t->height);
    free(t->rank);
}

/* The k^l of node @p v's level l in the k-ary tree (level l holds k^l nodes). */
static uint64_t kary_width(uint64_t v, uint64_t k)
{
    uint64_t width = 1, below = 1; /* nodes on this level, nodes up to and including it */
    while (v >= below) {
        width *= k;
        below += width;
    }
    return width;
}

/* The parent of @p v >= 1 in a binomial tree or in chains. */
static uint64_t parent_of(int shape, uint64_t v, uint64_t P, uint64_t fanout)
{
    if (shape == RT_TREE_BMTREE) { /* clear the highest bit */
        uint64_t h = 1;
        while (h * 2 <= v)
            h *= 2;
        return v - h;
    }
    /* chains of consecutive ranks, the first (P-1) mod f of them one longer */
    uint64_t n = P - 1, len = n / fanout, extra = n % fanout, i = v - 1;
    uint64_t long_total = extra * (len + 1);
    uint64_t start = i < long_total ? i - i % (len + 1) : long_total + (i - long_total) / len * len;
    return i == start ? 0 : v - 1;
}

/* The k-nomial parent of @p v: v with its lowest non-zero base-k digit cleared. */
static uint64_t knomial_parent(uint64_t v, uint64_t k)
{
    uint64_t m = 1;
    while (v % (k * m) == 0)
        m *= k;
    return v / (k * m) * (k * m);
}

/* The in-order binary tree over ranks [lo, lo + n) whose root is lo + n - 1 (Open MPI's
 * build_in_order_bintree): the remaining ranks split into a lower part of floor(n/2) ranks and
 * an upper part, each rooted at its highest rank. Node v is rank P-1-v. */
static void in_order(uint32_t *parent, uint64_t P, uint64_t lo, uint64_t n)
{
    while (n > 1) {
        uint64_t top = lo + n - 1, low = n / 2, up = n - 1 - low;
        if (low) {
            parent[P - 1 - (lo + low - 1)] = (uint32_t)(P - 1 - top);
            in_order(parent, P, lo, low);
        }
        if (!up)
            return;
        parent[P - 1 - (top - 1)] = (uint32_t)(P - 1 - top); /* the upper part: iterate */
        lo += low;
        n = up;
    }
}

/* Open MPI's k-nomial tree serves a node's children child = parent + d·k^j by k^j descending,
 * then d ascending: the sort key of a child @p gap = d·k^j above its parent. */
static uint64_t knomial_key(uint64_t gap, uint64_t k, uint64_t P)
{
    uint64_t m = 1;
    while (gap % (k * m) == 0)
        m *= k;
    return (P / m) * k + gap / m; /* ascending: larger m first, then d ascending */
}

int rt__cs_tree_build(struct rt__cs_tree *t, int shape, uint64_t P, uint32_t fanout)
{
    uint64_t f = fanout ? fanout : 1;
    if (shape == RT_TREE_KNOMIAL && f < 2)
        f = 2;
    if (shape == RT_TREE_CHAIN && f > P - 1)
        f = P > 1 ? P - 1 : 1;
    t->parent = malloc(P * sizeof *t->parent);
    t->child = malloc(P * sizeof *t->child);
    t->first = calloc(P + 1, sizeof *t->first);
    t->depth = calloc(P, sizeof *t->depth);
    t->height = calloc(P, sizeof *t->height);
    t->rank = NULL;
    t->maxdepth = 0;
    if (shape == RT_TREE_IN_ORDER_BINARY && (t->rank = malloc(P * sizeof *t->rank)) != NULL)
        for (uint64_t v = 0; v < P; v++)
            t->rank[v] = (uint32_t)(P - 1 - v);
    if (!t->parent || !t->child || !t->first || !t->depth || !t->height ||
        (shape == RT_TREE_IN_ORDER_BINARY && !t->rank)) {
        rt__cs_tree_free(t);
        return RT_ENOMEM;
    }
    t->parent[0] = UINT32_MAX;
    if (shape == RT_TREE_KARY) { /* node v's children: v + i·k^l, i = 1..k */
        for (uint64_t v = 0; v < P; v++) {
            uint64_t w = kary_width(v, f);
            for (uint64_t i = 1; i <= f && v + i * w < P; i++)
                t->parent[v + i * w] = (uint32_t)v;
        }
    } else if (shape == RT_TREE_KNOMIAL) {
        for (uint64_t v = 1; v < P; v++)
            t->parent[v] = (uint32_t)knomial_parent(v, f);
    } else if (shape == RT_TREE_IN_ORDER_BINARY) {
        in_order(t->parent, P, 0, P);
    } else {
        for (uint64_t v = 1; v < P; v++)
            t->parent[v] = (uint32_t)parent_of(shape, v, P, f);
    }
    for (uint64_t v = 1; v < P; v++)
        t->first[t->parent[v] + 1]++;
    for (uint64_t v = 0; v < P; v++)
        t->first[v + 1] += t->first[v];
    /* children in increasing rank: the order Open MPI's trees serve them (parents < children) */
    uint32_t *fill = t->depth; /* borrowed as cursors, reset below */
    for (uint64_t v = 0; v < P; v++)
        fill[v] = t->first[v];
    for (uint64_t v = 1; v < P; v++)
        t->child[fill[t->parent[v]]++] = (uint32_t)v;
    if (shape == RT_TREE_KNOMIAL) /* insertion sort of each node's few children */
        for (uint64_t v = 0; v < P; v++)
            for (uint32_t i = t->first[v] + 1; i < t->first[v + 1]; i++)
                for (uint32_t j = i; j > t->first[v] &&
                                     knomial_key(t->child[j - 1] - v, f, P) > knomial_key(t->child[j] - v, f, P);
                     j--) {
                    uint32_t x = t->child[j];
                    t->child[j] = t->child[j - 1];
                    t->child[j - 1] = x;
                }
    t->depth[0] = 0;
    for (uint64_t v = 1; v < P; v++) {
        t->depth[v] = t->depth[t->parent[v]] + 1;
        if (t->depth[v] > t->maxdepth)
            t->maxdepth = t->depth[v];
    }
    for (uint64_t v = P; v-- > 1;) {
        uint32_t h = t->height[v] + 1, p = t->parent[v];
        if (h > t->height[p])
            t->height[p] = h;
    }
    return RT_OK;
}

static uint32_t rank_of(const struct rt__cs *s, const struct rt__cs_tree *t, uint64_t v)
{
    return t->rank ? t->rank[v] : rt__cs_phys(s, v);
}

void rt__cs_tree_down(struct rt__cs *s, const struct rt__cs_tree *t, rt_bytes m)
{
    rt_bytes piece;
    uint64_t S = rt__cs_segments(s, m, &piece);
    for (uint64_t r = 0; r + 1 < S + t->maxdepth; r++) {
        rt__cs_round_begin(s);
        for (uint64_t v = 0; v < s->P; v++) {
            uint64_t d = t->depth[v];
            if (d > r || r - d >= S)
                continue;
            for (uint32_t c = t->first[v]; c < t->first[v + 1]; c++)
                rt__cs_message(s, rank_of(s, t, v), rank_of(s, t, t->child[c]), rt__cs_piece(m, piece, r - d));
        }
        rt__cs_round_end(s);
    }
}

void rt__cs_tree_up(struct rt__cs *s, const struct rt__cs_tree *t, rt_bytes m)
{
    rt_bytes piece;
    uint64_t S = rt__cs_segments(s, m, &piece);
    for (uint64_t r = 0; r + 1 < S + t->height[0]; r++) {
        rt__cs_round_begin(s);
        for (uint64_t v = 1; v < s->P; v++) {
            uint64_t h = t->height[v];
            if (h > r || r - h >= S)
                continue;
            rt__cs_message(s, rank_of(s, t, v), rank_of(s, t, t->parent[v]), rt__cs_piece(m, piece, r - h));
        }
        rt__cs_round_end(s);
    }
}

void rt__cs_tree(struct rt__cs *s, int shape, uint32_t fanout, int up)
{
    struct rt__cs_tree t;
    if (rt__cs_tree_build(&t, shape, s->P, fanout)) {
        s->failed = RT_ENOMEM;
        return;
    }
    if (up)
        rt__cs_tree_up(s, &t, s->mmax);
    else
        rt__cs_tree_down(s, &t, s->mmax);
    rt__cs_tree_free(&t);
}
