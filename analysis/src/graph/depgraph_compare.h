/* SPDX-License-Identifier: MIT */
/* The comparison of two timings (depgraph_compare.c): how the deviations δ = w_B - w_A of every
 * edge were accumulated on B's critical path or absorbed off it. The walk over the events
 * (depgraph.c) adds up each event's edges with cmp_visit, inline here. Not installed. */
#ifndef RETIME_DEPGRAPH_COMPARE_H
#define RETIME_DEPGRAPH_COMPARE_H

#include "depgraph_group.h"
#include "depgraph_internal.h"

/* What a walk over the events adds up of the comparison of a and b. The comparison's rows are
 * summed here first (integers: the order of the additions does not matter) and added to its map
 * once per run of events in the same call site, once per run in the same region instance, once
 * per rank and once per walk (the size rows), instead of a map look-up per edge. */
struct cmp_sums {
    const rt_depgraph *a, *b;      /* NULL: no comparison due */
    struct rt_depgraph_diff *d;    /* its scalars */
    struct smap m;                 /* its rows */
    rt_time_ps len_a_cpb;          /* len_A(B's critical path) */
    rt_time_ps rank_on, rank_off;  /* the rank's row, added after its events */
    struct cmp_run {
        int open;                  /* an event added to it: its row exists */
        uint32_t id, region;
        uint64_t instance;
        rt_time_ps on, off;
    } run[2];                      /* the call-site row, the region row */
    rt_time_ps size_v[SIZE_ROWS][2]; /* per size row (size_row): on, off */
    uint8_t size_used[SIZE_ROWS];
};

/** Adds the size rows' values to the map (once per walk, after the last rank). */
void rt__dg_cmp_sizes_flush(struct cmp_sums *k);
/** Adds a thread's sums @p src to @p dst. */
void rt__dg_cmp_merge(struct cmp_sums *dst, const struct cmp_sums *src);
/** The comparison's sums and rows over every process, into k->d; both critical paths are
 *  complete (cmp_sums_free after it all the same). Collective; @p rc: this process already
 *  failed. */
int rt__dg_cmp_finish(struct cmp_sums *k, int rc, rt_error *err);

static inline void cmp_sums_free(struct cmp_sums *k) { free(k->m.v); }

/* Adds run @p i's values to its row and closes it. */
static inline void cmp_run_flush(struct cmp_sums *k, int i)
{
    static const uint8_t group[2] = {RT_GROUP_CALLSITE, RT_GROUP_REGION};
    struct cmp_run *u = &k->run[i];
    if (!u->open)
        return;
    smap_add(&k->m, group[i], 0, u->id, u->region, u->instance, u->on, u->off);
    u->open = 0;
}

/* Adds an event's values to run @p i, for row (id, region, instance). */
static inline void cmp_run_add(struct cmp_sums *k, int i, uint32_t id, uint32_t region, uint64_t inst, rt_time_ps on,
                               rt_time_ps off)
{
    struct cmp_run *u = &k->run[i];
    if (u->open && (u->id != id || u->region != region || u->instance != inst))
        cmp_run_flush(k, i);
    if (!u->open)
        *u = (struct cmp_run){1, id, region, inst, 0, 0};
    u->on += on;
    u->off += off;
}

/* A rank's events begin. */
static inline void cmp_rank_begin(struct cmp_sums *k) { k->rank_on = k->rank_off = 0; }

/* Rank @p r's events (at least one) are over: its runs and its row are added. */
static inline void cmp_rank_end(struct cmp_sums *k, uint32_t r)
{
    cmp_run_flush(k, 0);
    cmp_run_flush(k, 1);
    smap_add(&k->m, RT_GROUP_RANK, 0, r, RT_NONE, 0, k->rank_on, k->rank_off);
}

/* The edges into event (r, j) in both timings (@p ea, @p eb: its records in A and B): δ = w_B -
 * w_A per edge, on or off B's path. */
static inline void cmp_visit(struct cmp_sums *k, const struct walker *w, const struct rt_event *ev, uint64_t n,
                             uint32_t r, uint64_t j, const struct walk_rec *ea, const struct walk_rec *eb)
{
    const rt_depgraph *A = k->a, *B = k->b;
    struct rt_depgraph_diff *d = k->d;
    const struct rt__dep_rec *a = &ea->x, *b = &eb->x;
    int on = marked(B->onpath, B->base[r] + j), brem = remote_binds(b);
    int arem = src_kind(a) != RT_DEP_NONE, hasb = src_kind(b) != RT_DEP_NONE;
    uint32_t size = RT_NONE;
    /* The edges into the event share its rank, call site and region rows: their values are
     * summed first and added once (integers: the order does not matter); the size rows differ
     * (none for the local edge). on[0..1]/off[0..1]: local, remote. */
    rt_time_ps on_v[2] = {0, 0}, off_v[2] = {0, 0};
    int any_remote = 0;
    /* local edge */
    rt_time_ps wa = a->local_ready - ea->tp, wb = b->local_ready - eb->tp;
    rt_time_ps dl = wb - wa;
    d->edges++;
    if (on && !brem) {
        k->len_a_cpb += wa;
        on_v[0] = dl;
    } else {
        off_v[0] = dl;
    }
    d->injected += dl;
    d->injected_negative += dl < 0 ? dl : 0;
    if (hasb || arem)
        size = size_bucket(rt__dg_edge_bytes(w, ev, n, j));
    /* B's remote edge */
    if (hasb) {
        uint32_t sr = src_rank(b);
        uint64_t sj = src_index(b);
        rt_time_ps wbr = b->remote_ready - b->src_t, war;
        if (arem && src_rank(a) == sr && src_index(a) == sj)
            war = a->remote_ready - a->src_t;
        else
            war = rec_t(a) - t_of(A, sr, sj); /* tight in A */
        rt_time_ps dr = wbr - war;
        d->edges++;
        d->injected += dr;
        d->injected_negative += dr < 0 ? dr : 0;
        any_remote = 1;
        if (on && brem) {
            k->len_a_cpb += war;
            on_v[1] += dr;
        } else {
            off_v[1] += dr;
        }
    }
    /* A's remote edge where B has another source (or none): off B's path */
    if (arem && !(hasb && src_rank(a) == src_rank(b) && src_index(a) == src_index(b))) {
        uint32_t sr = src_rank(a);
        uint64_t sj = src_index(a);
        rt_time_ps da = (rec_t(b) - t_of(B, sr, sj)) - (a->remote_ready - a->src_t);
        d->source_changed++;
        d->edges++;
        d->injected += da;
        d->injected_negative += da < 0 ? da : 0;
        any_remote = 1;
        off_v[1] += da;
    } else if (hasb && !arem) {
        d->source_changed++;
    }
    rt_time_ps on_all = on_v[0] + on_v[1], off_all = off_v[0] + off_v[1];
    k->rank_on += on_all;
    k->rank_off += off_all;
    cmp_run_add(k, 0, w->c.callsite, w->c.call_region, 0, on_all, off_all);
    cmp_run_add(k, 1, RT_NONE, w->c.region, w->c.region == RT_NONE ? 0 : w->c.instance, on_all, off_all);
    uint32_t local = size_row(RT_NONE);
    k->size_v[local][0] += on_v[0];
    k->size_v[local][1] += off_v[0];
    k->size_used[local] = 1;
    if (any_remote) {
        uint32_t i = size_row(size);
        k->size_v[i][0] += on_v[1];
        k->size_v[i][1] += off_v[1];
        k->size_used[i] = 1;
    }
}

#endif
