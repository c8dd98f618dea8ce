/* SPDX-License-Identifier: MIT */
/* The critical path: its end, the walk back from it along binding edges (which may hop between
 * processes), its segments in time order, and the sums and rows of its breakdown, which the walk
 * over the events adds up with cp_visit (depgraph_path.h). */
#include "depgraph_path.h"

#include <stdlib.h>
#include <string.h>

/* A segment of the path with its place in the walk (0: the last segment in time). */
struct seg_rec {
    uint64_t seq;
    struct rt_cp_segment s;
};

struct cp_walk {
    rt_depgraph *g;
    struct seg_rec *v;
    uint64_t n, cap;
    uint64_t limit; /* more steps than events: a cycle */
};

/* Walks the path back from (tok->rank, tok->index), the last event of a segment, while it stays
 * on ranks held here: marks the events, sums the length, records the segments it ends. */
static int cp_step(void *ctx, struct rt__dg_tok *tok, rt_error *err)
{
    struct cp_walk *w = ctx;
    rt_depgraph *g = w->g;
    struct rt_critical_path *cp = &g->cp;
    uint32_t r = tok->rank, seg_rank = r;
    uint64_t j = tok->index, seg_last = j;
    for (;; tok->steps++) {
        if (tok->steps > w->limit)
            return rt_error_set(err, RT_EINVAL, "%s: the dependency graph has a cycle through rank %u event %llu",
                                rt_trace_path(g->t), r, (unsigned long long)j);
        if (time_at(g, r, j) <= g->win_begin) { /* left the window: the open segment ends after j */
            if (seg_rank == r && seg_last > j) {
                struct seg_rec s;
                memset(&s, 0, sizeof s);
                s.seq = tok->seq++;
                s.s.rank = r;
                s.s.first = j + 1;
                s.s.last = seg_last;
                s.s.begin_ps = g->win_begin;
                s.s.end_ps = time_at(g, r, seg_last);
                if (rt__dg_grow((void **)&w->v, &w->cap, sizeof *w->v, w->n + 1))
                    return rt_error_set(err, RT_ENOMEM, "out of memory");
                w->v[w->n++] = s;
            }
            return WALK_DONE;
        }
        const struct rt__dep_rec xv = rec_at(g, r, j), *x = &xv;
        uint64_t gi = g->base[r] + j;
        g->onpath[gi >> 3] |= (uint8_t)(1u << (gi & 7));
        cp->events++;
        uint32_t nr = r;
        uint64_t nj = j;
        rt_time_ps from;
        int stop = 0;
        if (remote_binds(x)) {
            if (!src_ok(g, x))
                return rt__dg_check_held(g, err);
            nr = src_rank(x);
            nj = src_index(x);
            from = x->src_t;
            cp->length_ps += x->remote_ready - (from > g->win_begin ? from : g->win_begin);
        } else {
            from = t_prev(g, r, j);
            cp->length_ps += x->local_ready - (from > g->win_begin ? from : g->win_begin);
            stop = j == 0;
            nj = j - 1;
        }
        if (stop || nr != seg_rank) { /* the segment on seg_rank begins at event j */
            struct seg_rec s;
            memset(&s, 0, sizeof s); /* it may travel: no stray padding */
            s.seq = tok->seq++;
            s.s.rank = seg_rank;
            s.s.first = j;
            s.s.last = seg_last;
            s.s.begin_ps = stop ? 0 : from;
            s.s.end_ps = time_at(g, seg_rank, seg_last);
            if (rt__dg_grow((void **)&w->v, &w->cap, sizeof *w->v, w->n + 1))
                return rt_error_set(err, RT_ENOMEM, "out of memory");
            w->v[w->n++] = s;
            seg_rank = nr;
            seg_last = nj;
        }
        if (stop)
            return WALK_DONE;
        r = nr;
        j = nj;
        if (!held(g, r)) {
            tok->rank = r;
            tok->index = j;
            tok->steps++;
            return WALK_HOP;
        }
    }
}

/* Puts the segments in time order (the walk numbered them last first); at process 0 those of
 * every process. */
static int cp_segments(rt_depgraph *g, struct cp_walk *w, rt_error *err)
{
    struct rt_critical_path *cp = &g->cp;
    void *all = NULL;
    size_t len = w->n * sizeof *w->v;
    int rc = rt__dg_gather(&g->dp, w->v, len, &all, &len, RT_OK, err);
    if (rc)
        return rc;
    const struct seg_rec *v = g->dp.p ? all : w->v;
    uint64_t n = g->dp.p ? len / sizeof *v : w->n;
    free(g->seg);
    g->seg = malloc((n ? n : 1) * sizeof *g->seg);
    if (!g->seg)
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    for (uint64_t i = 0; !rc && i < n; i++) {
        if (v[i].seq >= n) {
            rc = rt_error_set(err, RT_EINVAL, "%s: critical path segment %llu of %llu", rt_trace_path(g->t),
                              (unsigned long long)v[i].seq, (unsigned long long)n);
            break;
        }
        g->seg[n - 1 - v[i].seq] = v[i].s;
    }
    free(all);
    cp->seg = g->seg;
    cp->nseg = rc ? 0 : n;
    return rt__dg_agree(&g->dp, rc, err);
}

/* The window's end on the ranks held here (the end event with the latest time; *@p r RT_NONE:
 * none here) and its begin over all processes (g->win_begin). Collective. */
static int window_ends(rt_depgraph *g, uint32_t *r, uint64_t *j, rt_time_ps *end, rt_error *err)
{
    int64_t begin = INT64_MAX, sb = rt_window_begins_latest(g->win) ? -1 : 1; /* sb: the latest begin */
    *r = RT_NONE;
    *j = 0;
    *end = 0;
    for (uint32_t k = g->dp.lo; k < g->dp.hi; k++) {
        uint64_t b = rt_window_begin(g->win, k), e = rt_window_end(g->win, k);
        if (b >= g->n[k] || e >= g->n[k])
            continue;
        rt_time_ps tb = time_at(g, k, b), te = time_at(g, k, e);
        begin = sb * tb < begin ? sb * tb : begin;
        if (*r == RT_NONE || te > *end) {
            *r = k;
            *j = e;
            *end = te;
        }
    }
    int rc = rt__dg_reduce(&g->dp, &begin, 1, 0, RT_OK, err);
    if (rc)
        return rc;
    g->win_begin = begin == INT64_MAX ? INT64_MIN : sb * begin;
    return RT_OK;
}

int rt__dg_cp_path(rt_depgraph *g, int *breakdown, rt_error *err)
{
    struct rt_critical_path *cp = &g->cp;
    struct cp_walk cw = {.g = g};
    struct rt__dg_toks out = {0};
    *breakdown = 0;
    int rc = rt__dg_complete(g, err);
    if (rc)
        return rc;
    memset(cp, 0, sizeof *cp);
    free(g->onpath);
    g->onpath = calloc(g->total / 8 + 1, 1);
    if (!g->onpath)
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    /* the end on the ranks held here, kept as the records came (complete: every one is there) */
    uint32_t r = g->end.rank;
    uint64_t j = r == RT_NONE ? 0 : g->end.index;
    cp->end_ps = r == RT_NONE ? 0 : g->end.t;
    if (!rc && g->win && (rc = window_ends(g, &r, &j, &cp->end_ps, err)) != RT_OK)
        goto out;
    int64_t v[2] = {r == RT_NONE ? INT64_MAX : -cp->end_ps, (int64_t)g->total};
    if ((rc = rt__dg_reduce(&g->dp, v, 1, 0, rc, err)) || (rc = rt__dg_reduce(&g->dp, v + 1, 1, 1, rc, err)))
        goto out;
    int64_t at = r != RT_NONE && -cp->end_ps == v[0] ? (int64_t)((uint64_t)r << IDX_BITS | j) : INT64_MAX;
    if ((rc = rt__dg_reduce(&g->dp, &at, 1, 0, rc, err)))
        goto out;
    if (at == INT64_MAX) { /* no events */
        cp->end_ps = 0;
        cp->end_rank = RT_NONE;
        g->have_cp = 1;
        goto out;
    }
    cp->end_ps = -v[0];
    cp->end_rank = (uint32_t)((uint64_t)at >> IDX_BITS);
    cp->end_index = (uint64_t)at & IDX_MASK;
    cw.limit = (uint64_t)v[1];
    /* Walks back along binding edges from the end, hopping to the process of each rank it reaches. */
    if (held(g, cp->end_rank)) {
        struct rt__dg_tok tok = {.rank = cp->end_rank, .index = cp->end_index};
        rc = cp_step(&cw, &tok, err);
        if (rc == WALK_HOP)
            rc = rt__dg_toks_push(&out, &tok) ? rt_error_set(err, RT_ENOMEM, "out of memory") : RT_OK;
    }
    if ((rc = rt__dg_walks(&g->dp, &out, cp_step, &cw, rc, err)) || (rc = cp_segments(g, &cw, err)))
        goto out;
    *breakdown = 1;
out:
    free(cw.v);
    return rc;
}

void rt__dg_cp_merge(struct cp_sums *dst, const struct cp_sums *src)
{
    rt__dg_smap_merge(&dst->m, &src->m);
    for (int a = 0; a < RT_ACT_COUNT; a++)
        dst->act[a] += src->act[a];
}

int rt__dg_cp_finish(struct cp_sums *s, int rc, rt_error *err)
{
    rt_depgraph *g = s->g;
    struct rt_critical_path *cp = &g->cp;
    for (int a = 0; a < RT_ACT_COUNT; a++)
        cp->activity_ps[a] += s->act[a];
    int64_t v[RT_ACT_COUNT + 2];
    v[0] = cp->length_ps;
    v[1] = (int64_t)cp->events;
    memcpy(v + 2, cp->activity_ps, sizeof cp->activity_ps);
    if ((rc = rt__dg_reduce(&g->dp, v, RT_ACT_COUNT + 2, 1, rc, err)))
        return rc;
    cp->length_ps = v[0];
    cp->events = (uint64_t)v[1];
    memcpy(cp->activity_ps, v + 2, sizeof cp->activity_ps);
    free(g->cp_share);
    if ((rc = rt__dg_shares_finish(&g->dp, &s->m, 0, &g->cp_share, &cp->nshare, RT_OK, err)))
        return rc;
    cp->share = g->cp_share;
    g->have_cp = 1;
    return RT_OK;
}
