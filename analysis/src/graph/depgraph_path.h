/* SPDX-License-Identifier: MIT */
/* The critical path (depgraph_path.c): the walk back from the end that marks it, and its
 * breakdown, which the walk over the events (depgraph.c) adds up event by event with cp_visit,
 * inline here. Not installed. */
#ifndef RETIME_DEPGRAPH_PATH_H
#define RETIME_DEPGRAPH_PATH_H

#include "depgraph_group.h"
#include "depgraph_internal.h"

/* What a walk over the events adds up of one graph's critical path. */
struct cp_sums {
    rt_depgraph *g;               /* NULL: no path due */
    struct smap m;                /* its rows */
    rt_time_ps act[RT_ACT_COUNT]; /* its activities */
};

/** The critical path itself: its end, the walk back from it (marking g->onpath) and its
 *  segments. *@p breakdown = 1 when the path's breakdown is still to add (cp_visit over the
 *  events, then rt__dg_cp_finish); 0 when the graph has no events, and the path is complete as it
 *  is. Collective. */
int rt__dg_cp_path(rt_depgraph *g, int *breakdown, rt_error *err);
/** Adds a thread's sums @p src to @p dst. */
void rt__dg_cp_merge(struct cp_sums *dst, const struct cp_sums *src);
/** The path's sums and rows over every process, into s->g's path (cp_sums_free after it all the
 *  same). Collective; @p rc: this process already failed. */
int rt__dg_cp_finish(struct cp_sums *s, int rc, rt_error *err);

static inline void cp_sums_free(struct cp_sums *s) { free(s->m.v); }

/* Adds @p v1, @p v2 to the rows of every group the edge into event (r, j) belongs to. */
static inline void add_groups(struct smap *m, uint32_t r, const struct ctx *c, int remote, uint32_t size,
                              rt_time_ps v1, rt_time_ps v2)
{
    (void)remote;
    smap_add(m, RT_GROUP_RANK, 0, r, RT_NONE, 0, v1, v2);
    smap_add(m, RT_GROUP_CALLSITE, 0, c->callsite, c->call_region, 0, v1, v2);
    smap_add(m, RT_GROUP_REGION, 0, RT_NONE, c->region, c->region == RT_NONE ? 0 : c->instance, v1, v2);
    smap_add(m, RT_GROUP_SIZE, 0, size, RT_NONE, 0, v1, v2);
}

static inline int activity_of(const struct rt__dep_rec *x, int remote, const struct ctx *c)
{
    if (remote)
        return src_kind(x) == RT_DEP_COLLECTIVE ? RT_ACT_COLLECTIVE : RT_ACT_TRANSFER;
    return c->comm_call ? RT_ACT_OVERHEAD : RT_ACT_COMPUTE;
}

/* The breakdown of the path: the edge into event (r, j), if it is on the path, with the event's
 * context. */
static inline void cp_visit(struct cp_sums *s, const struct walker *w, const struct rt_event *ev, uint64_t n,
                            uint32_t r, uint64_t j)
{
    const rt_depgraph *g = s->g;
    if (!marked(g->onpath, g->base[r] + j))
        return;
    const struct rt__dep_rec xv = rec_at(g, r, j), *x = &xv;
    int rem = remote_binds(x);
    rt_time_ps from = rem ? x->src_t : t_prev(g, r, j), to = rem ? x->remote_ready : x->local_ready;
    if (from < g->win_begin) /* an edge across the window's begin counts from there */
        from = g->win_begin < to ? g->win_begin : to;
    rt_time_ps wgt = to - from;
    s->act[activity_of(x, rem, &w->c)] += wgt;
    add_groups(&s->m, r, &w->c, rem, rem ? size_bucket(rt__dg_edge_bytes(w, ev, n, j)) : RT_NONE, wgt, 0);
}

#endif
