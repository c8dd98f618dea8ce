/* SPDX-License-Identifier: MIT */
/* Wait states (depgraph_wait.c): an event whose remote edge binds waits remote_ready -
 * local_ready, of a kind (enum rt_wait_kind) and blamed on the ranks that made its source late.
 * The walk over the events (depgraph.c) finds them with ws_visit, inline here. Not installed. */
#ifndef RETIME_DEPGRAPH_WAIT_H
#define RETIME_DEPGRAPH_WAIT_H

#include "depgraph_group.h"
#include "depgraph_internal.h"

/* What a walk over the events adds up of one graph's wait states. */
struct ws_sums {
    rt_depgraph *g;                /* NULL: no wait states due */
    struct smap m;                 /* their rows */
    rt_time_ps total[RT_WAIT_COUNT];
    uint64_t count[RT_WAIT_COUNT];
    struct rt__dg_toks out;        /* blame walks that went on to ranks held elsewhere */
};

/** Walks the blame token @p tok on from a rank held here, adding to the rows @p m: WALK_DONE or
 *  WALK_HOP. */
int rt__dg_blame_walk(const rt_depgraph *g, struct smap *m, struct rt__dg_tok *tok, rt_error *err);
/** Adds a thread's sums @p src to @p dst: RT_OK or RT_ENOMEM. */
int rt__dg_ws_merge(struct ws_sums *dst, const struct ws_sums *src);
/** The blame walks that went on elsewhere, then the sums and rows over every process, into
 *  s->g's wait states (ws_sums_free after it all the same). Collective; @p rc: this process
 *  already failed. */
int rt__dg_ws_finish(struct ws_sums *s, int rc, rt_error *err);

static inline void ws_sums_free(struct ws_sums *s)
{
    free(s->m.v);
    free(s->out.v);
}

/* The part of [a, b] that [lo, hi] covers. */
static inline rt_time_ps overlap(rt_time_ps lo, rt_time_ps hi, rt_time_ps a, rt_time_ps b)
{
    lo = lo > a ? lo : a;
    hi = hi < b ? hi : b;
    return hi > lo ? hi - lo : 0;
}

/* The kind of the wait at event @p j (record @p x, walker @p w there) of a rank's events @p ev. */
static inline uint8_t wait_kind(const struct walker *w, const struct rt__dep_rec *x, const struct rt_event *ev,
                                uint64_t n, uint64_t j)
{
    const struct ctx *c = &w->c;
    const struct rt_event *e = &ev[j];
    if (src_kind(x) == RT_DEP_COLLECTIVE) {
        if (e->kind == RT_EV_COLL_END && e->ref < n && ev[e->ref].aux == RT_COLL_BARRIER)
            return RT_WAIT_BARRIER;
        if (e->kind == RT_EV_NBCOLL_END && e->aux == RT_COLL_BARRIER) /* an MPI_Ibarrier's wait */
            return RT_WAIT_BARRIER;
        return RT_WAIT_COLLECTIVE;
    }
    if (c->call_region != RT_NONE && c->call_region < w->nregions && w->wait_call[c->call_region])
        return RT_WAIT_WAITALL;
    if (e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV)
        return RT_WAIT_LATE_SENDER;
    return RT_WAIT_LATE_RECEIVER;
}

/* The wait, if any, at event (r, j) of s->g (@p e: its record there), and the walk that blames it. */
static inline int ws_visit(struct ws_sums *s, const struct walker *w, const struct rt_event *ev, uint64_t n,
                           uint32_t r, uint64_t j, const struct walk_rec *e, rt_error *err)
{
    const rt_depgraph *g = s->g;
    const struct rt__dep_rec *x = &e->x;
    /* A remote source on the rank itself (a rendezvous side that posted last) is its own
     * transfer, not a wait for another rank. */
    if (!remote_binds(x) || src_rank(x) == r || !src_ok(g, x))
        return RT_OK;
    uint32_t sr = src_rank(x);
    uint64_t sj = src_index(x);
    rt_time_ps wt = x->remote_ready - x->local_ready;
    uint8_t kind = wait_kind(w, x, ev, n, j);
    s->total[kind] += wt;
    s->count[kind]++;
    smap_add(&s->m, RT_GROUP_RANK, kind, r, RT_NONE, 0, wt, 1);
    smap_add(&s->m, RT_GROUP_CALLSITE, kind, w->c.callsite, w->c.call_region, 0, wt, 1);
    smap_add(&s->m, RT_GROUP_CAUSE, kind, sr, RT_NONE, 0, wt, 1);
    /* the remote edge into the waiting event is the walk's first step */
    rt_time_ps covered = overlap(x->src_t, x->remote_ready, x->local_ready, x->remote_ready);
    smap_add(&s->m, RT_GROUP_BLAME, kind, sr, RT_NONE, 0, covered, 0);
    struct rt__dg_tok tok = {.rank = sr, .kind = kind, .index = sj, .a = x->local_ready, .b = x->remote_ready,
                             .covered = covered};
    int to = held(g, sr) ? rt__dg_blame_walk(g, &s->m, &tok, err) : WALK_HOP;
    if (to == WALK_HOP && rt__dg_toks_push(&s->out, &tok))
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    return RT_OK;
}

#endif
