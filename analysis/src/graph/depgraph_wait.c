/* SPDX-License-Identifier: MIT */
/* Wait states: the blame walk of each wait (along the binding edges back from the event it
 * waited for, hopping between processes), and the sums and rows of the wait states over every
 * process. The walk over the events finds the waits with ws_visit (depgraph_wait.h). */
#include "depgraph_wait.h"

#define WALK_CAP 65536 /* steps of one wait's blame walk (see rt__dg_blame_walk) */

/* The blame rows a walk adds to: consecutive steps mostly blame the same rank (a run of local
 * edges), so each run is summed here and added to its row once (integers: the sums are the
 * same, and a row is made by its first step as before). */
struct blame_run {
    struct smap *m;
    uint8_t kind;
    uint32_t rank; /* RT_NONE: nothing summed yet */
    rt_time_ps v;
};

static void blame_flush(struct blame_run *u)
{
    if (u->rank != RT_NONE)
        smap_add(u->m, RT_GROUP_BLAME, u->kind, u->rank, RT_NONE, 0, u->v, 0);
    u->rank = RT_NONE;
}

static inline void blame_add(struct blame_run *u, uint32_t rank, rt_time_ps v)
{
    if (u->rank != rank) {
        blame_flush(u);
        u->rank = rank;
        u->v = 0;
    }
    u->v += v;
}

/* Blames the wait [a, b] of an event on the ranks of the critical path that ends at its remote
 * source: each rank gets the part of [a, b] its binding edges cover (a transfer counts for its
 * sender). The walk (tok: where it is, kind, a, b, covered so far) stops at time a, or after
 * WALK_CAP steps, when the rest goes to the rank it stopped on. */
int rt__dg_blame_walk(const rt_depgraph *g, struct smap *m, struct rt__dg_tok *tok, rt_error *err)
{
    uint32_t r = tok->rank;
    uint64_t j = tok->index;
    rt_time_ps a = tok->a, b = tok->b;
    struct blame_run u = {m, (uint8_t)tok->kind, RT_NONE, 0};
    int to = WALK_DONE;
    (void)err;
    for (; tok->steps < WALK_CAP; tok->steps++) {
        const struct rt__dep_rec xv = rec_at(g, r, j), *x = &xv;
        rt_time_ps t = rec_t(x);
        if (t <= a)
            goto out;
        if (remote_binds(x)) {
            uint32_t sr = src_rank(x);
            uint64_t sj = src_index(x);
            rt_time_ps o = overlap(x->src_t, t, a, b);
            blame_add(&u, sr, o);
            tok->covered += o;
            r = sr;
            j = sj;
            if (!held(g, r)) {
                tok->rank = r;
                tok->index = j;
                tok->steps++;
                to = WALK_HOP;
                goto out;
            }
        } else {
            rt_time_ps o = overlap(t_prev(g, r, j), t, a, b);
            blame_add(&u, r, o);
            tok->covered += o;
            if (j == 0)
                goto out;
            j--;
        }
    }
    blame_add(&u, r, b - a - tok->covered);
out:
    blame_flush(&u);
    return to;
}

/* Walks a blame token that came from another process (rt__dg_walks). */
static int blame_step(void *ctx, struct rt__dg_tok *tok, rt_error *err)
{
    struct ws_sums *s = ctx;
    return rt__dg_blame_walk(s->g, &s->m, tok, err);
}

int rt__dg_ws_merge(struct ws_sums *dst, const struct ws_sums *src)
{
    rt__dg_smap_merge(&dst->m, &src->m);
    for (int i = 0; i < RT_WAIT_COUNT; i++) {
        dst->total[i] += src->total[i];
        dst->count[i] += src->count[i];
    }
    for (uint64_t i = 0; i < src->out.n; i++)
        if (rt__dg_toks_push(&dst->out, &src->out.v[i]))
            return RT_ENOMEM;
    return RT_OK;
}

int rt__dg_ws_finish(struct ws_sums *s, int rc, rt_error *err)
{
    rt_depgraph *g = s->g;
    struct smap *m = &s->m;
    struct rt_wait_states *ws = &g->ws;
    for (int i = 0; i < RT_WAIT_COUNT; i++) {
        ws->total_ps[i] += s->total[i];
        ws->count[i] += s->count[i];
    }
    if ((rc = rt__dg_walks(&g->dp, &s->out, blame_step, s, rc, err)))
        return rc;
    int64_t v[2 * RT_WAIT_COUNT];
    for (int i = 0; i < RT_WAIT_COUNT; i++) {
        v[i] = ws->total_ps[i];
        v[RT_WAIT_COUNT + i] = (int64_t)ws->count[i];
    }
    if ((rc = rt__dg_reduce(&g->dp, v, 2 * RT_WAIT_COUNT, 1, rc, err)))
        return rc;
    for (int i = 0; i < RT_WAIT_COUNT; i++) {
        ws->total_ps[i] = v[i];
        ws->count[i] = (uint64_t)v[RT_WAIT_COUNT + i];
    }
    free(g->ws_share);
    if ((rc = rt__dg_shares_finish(&g->dp, m, 0, &g->ws_share, &ws->nshare, RT_OK, err)))
        return rc;
    ws->share = g->ws_share;
    g->have_ws = 1;
    return RT_OK;
}
