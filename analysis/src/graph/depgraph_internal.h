/* SPDX-License-Identifier: MIT */
/* The graph's layout and its record accessors: what the files of the graph and its analyses
 * share (depgraph.c, depgraph_path.c, depgraph_wait.c, depgraph_diff.c). The records' own format
 * (struct rt__dep_rec) is in depgraph_rec.h; the distributed steps (depgraph_part.h) see neither
 * this layout nor these accessors. Not installed. */
#ifndef RETIME_DEPGRAPH_INTERNAL_H
#define RETIME_DEPGRAPH_INTERNAL_H

#include "depgraph_part.h"
#include "depgraph_rec.h"

#include <pthread.h>

/* The end of a set of records: the largest time, of equal ones the lowest rank, and on it the
 * last such event (what a scan in rank and event order finds); rank RT_NONE: no record yet. */
struct rt__end {
    uint32_t rank;
    uint64_t index;
    rt_time_ps t;
};

struct rt_depgraph {
    const rt_trace *t;
    struct rt__dg_part dp;     /* the ranks held ([dp.lo, dp.hi) of dp.nranks), the processes
                                  (dp.p, NULL: one) and the fetched times: the distributed steps' */
    uint64_t total;            /* events held */
    uint64_t *base, *n, *seen; /* per rank: first record, events (0 if not held), records received */
    struct rt__dep_rec *rec;   /* NULL in a measured graph: see measured_rec */
    /* a measured graph (rt_depgraph_measured) keeps per event only its remote source's time (tu,
     * 8 bytes, NO_TIME: none); its records are worked out from the trace's times and the
     * sources of the structure graph it was made with (shape), which must outlive it */
    const rt_depgraph *shape;
    /* a replay's graph: the collective leaves whose measured binder (struct rt_dep.msrc_*) is not
     * the model's source, keyed by event (r << IDX_BITS | j), sorted by key once complete; a
     * measured graph made from it takes these sources (mbind_src) */
    struct rt__mbind {
        uint64_t key, src;
    } *mbind;
    size_t nmbind, capmbind;
    int mbind_sorted, mbind_nomem;
    struct rt__dep_rec *mbind_rec; /* once sorted: their sources as records, for rt__dg_fetch */
    const struct rt_event **evs; /* per rank held: its events */
    int64_t first;             /* the earliest event of all ranks [ns]: time 0 */
    rt_time_ps *tu;
    int disorder;              /* a record came out of program order or out of range */
    uint32_t disorder_rank;
    uint64_t disorder_index;
    int bad_t;                 /* a record whose time was not max(local_ready, remote_ready): the first in
                                  rank and event order, for rt_depgraph_check */
    uint32_t bad_rank;
    uint64_t bad_index;
    rt_time_ps bad_time;
    uint64_t unfilled;         /* records with a remote source whose time is not in yet */
    struct rt__end end;        /* of the records so far (note_end) */
    uint8_t *onpath;           /* one bit per event held: on the critical path */
    const rt_window *win;      /* the measured window the critical path covers (NULL: the whole run) */
    const rt_scale *scale;     /* the replay's --scale-bytes: the size groups take its sizes (NULL: none) */
    rt_time_ps win_begin;      /* its begin on this graph's clock (INT64_MIN: none): the path's
                                  edges are clipped there */
    int have_cp, have_ws;
    int complete_ok;           /* rt__dg_complete or rt_depgraph_check passed since the last record */
    struct rt_critical_path cp;
    struct rt_cp_segment *seg;
    struct rt_dep_share *cp_share;
    struct rt_wait_states ws;
    struct rt_dep_share *ws_share;
    pthread_t prefault;        /* maps the records' pages while the replay fills them (prefault_main) */
    int prefaulting;           /* the thread runs: joined by rt_depgraph_destroy */
    _Atomic int prefault_stop;
};

static inline int held(const rt_depgraph *g, uint32_t r) { return rt__dg_held(&g->dp, r); }
/* The records whose sources are @p g's edges, in event order: its own, or a measured graph's
 * structure graph's (their times are not @p g's). */
static inline const struct rt__dep_rec *edges_of(const rt_depgraph *g) { return g->rec ? g->rec : g->shape->rec; }
/* The stored record of event (r, j) of a graph that stores them (not a measured one). */
static inline struct rt__dep_rec *R(const rt_depgraph *g, uint32_t r, uint64_t j) { return &g->rec[g->base[r] + j]; }
/* The measured time of event (r, j) held here [ps since the earliest event]. */
static inline rt_time_ps ev_ps(const rt_depgraph *g, uint32_t r, uint64_t j)
{
    return (g->evs[r][j].time - g->first) * 1000;
}
/* The remote source of event (r, j) in the measured timing (@p src: its source in the structure
 * graph @p s): the structure graph's, but for a collective's leave the member whose measured
 * entry binds it (a binary search in s->mbind). */
static inline uint64_t mbind_of(const rt_depgraph *s, uint32_t r, uint64_t j, uint64_t src)
{
    if (src_kind_of(src) != RT_DEP_COLLECTIVE || !s->nmbind)
        return src;
    uint64_t key = (uint64_t)r << IDX_BITS | j;
    size_t lo = 0, hi = s->nmbind;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->mbind[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nmbind && s->mbind[lo].key == key ? s->mbind[lo].src : src;
}
static inline uint64_t mbind_src(const rt_depgraph *s, uint32_t r, uint64_t j) { return mbind_of(s, r, j, R(s, r, j)->src); }

/* A measured graph's record of an event from its parts: its time t, the previous event's tp, the
 * remote source u's time tu and the source @p src. Both edges get the event's own gap
 * c = t - max(tu, tp) (local_ready = tp + c, remote_ready = tu + c), or with t < tu (the clocks
 * disagree) both are t. Its time (rec_t) is always the measured t. */
static inline struct rt__dep_rec measured_from(rt_time_ps t, rt_time_ps tp, rt_time_ps tu, uint64_t src)
{
    if (tp > t) /* the trace's own order is the truth on one rank */
        tp = t;
    struct rt__dep_rec x = {tu, t, INT64_MIN, src};
    if (src_kind(&x) == RT_DEP_NONE)
        return x;
    if (t < tu) {
        x.remote_ready = t; /* a tie: the local edge binds */
        return x;
    }
    rt_time_ps c = t - (tu > tp ? tu : tp);
    x.local_ready = tp + c;
    x.remote_ready = tu + c;
    return x;
}

static inline struct rt__dep_rec measured_rec(const rt_depgraph *g, uint32_t r, uint64_t j)
{
    return measured_from(ev_ps(g, r, j), j ? ev_ps(g, r, j - 1) : 0, g->tu[g->base[r] + j], mbind_src(g->shape, r, j));
}
/* The record of event (r, j) held here, stored or measured. */
static inline struct rt__dep_rec rec_at(const rt_depgraph *g, uint32_t r, uint64_t j)
{
    return g->rec ? *R(g, r, j) : measured_rec(g, r, j);
}
/* The time of event (r, j) held here. */
static inline rt_time_ps time_at(const rt_depgraph *g, uint32_t r, uint64_t j)
{
    return g->rec ? rec_t(R(g, r, j)) : ev_ps(g, r, j);
}
static inline rt_time_ps t_prev(const rt_depgraph *g, uint32_t r, uint64_t j) { return j ? time_at(g, r, j - 1) : 0; }
/* Event (r, j)'s record in a graph as the walk over the events in order has it: worked out once
 * per graph and event for every result that reads it (a measured graph's records are computed,
 * not stored), with t_prev carried from the event before (rec_t of its record is its time). */
struct walk_rec {
    struct rt__dep_rec x;
    rt_time_ps tp; /* t_prev(g, r, j) */
};

/* One rank's records of a graph, for a walk over its events in order: the per-rank look-ups of
 * rec_at done once per rank. */
struct rank_recs {
    const rt_depgraph *g;
    uint32_t r;
    const struct rt__dep_rec *rec;  /* a stored graph's: the rank's first record (NULL: measured) */
    const struct rt__dep_rec *srec; /* a measured graph's: its structure graph's first record of the rank */
    const struct rt_event *ev;      /* a measured graph's: the rank's events, their times ... */
    rt_time_ps first;               /* ... from this one [ns] */
    const rt_time_ps *tu;           /* ... and its remote sources' times */
};

static inline void rank_recs_of(struct rank_recs *v, const rt_depgraph *g, uint32_t r)
{
    *v = (struct rank_recs){.g = g, .r = r, .rec = g->rec ? R(g, r, 0) : NULL};
    if (!g->rec) {
        v->srec = R(g->shape, r, 0);
        v->ev = g->evs[r];
        v->first = g->first;
        v->tu = g->tu + g->base[r];
    }
}

/* rec_at(v->g, v->r, j), @p tp being t_prev(v->g, v->r, j) (a walk carries it). */
static inline struct rt__dep_rec rank_rec(const struct rank_recs *v, uint64_t j, rt_time_ps tp)
{
    if (v->rec)
        return v->rec[j];
    return measured_from((v->ev[j].time - v->first) * 1000, tp, v->tu[j], mbind_of(v->g->shape, v->r, j, v->srec[j].src));
}
static inline int marked(const uint8_t *bits, uint64_t i) { return bits[i >> 3] >> (i & 7) & 1; }
/* Keeps the end as records come, in any order of ranks. */
static inline void note_end(struct rt__end *e, uint32_t r, uint64_t j, rt_time_ps t)
{
    if (e->rank == RT_NONE || t > e->t || (t == e->t && (r < e->rank || (r == e->rank && j > e->index))))
        *e = (struct rt__end){r, j, t};
}

/* The time of event (r, j), held here or fetched. A record's own source's time is its src_t:
 * this is for other events. */
static inline rt_time_ps t_of(const rt_depgraph *g, uint32_t r, uint64_t j)
{
    return held(g, r) ? time_at(g, r, j) : rt__dg_ghost(&g->dp, r, j);
}

/* Whether a record's remote source (if any) is an event of the graph: held here, or fetched
 * from the process that holds it. */
static inline int src_ok(const rt_depgraph *g, const struct rt__dep_rec *x)
{
    if (src_kind(x) == RT_DEP_NONE)
        return 1;
    uint32_t r = src_rank(x);
    if (r >= g->dp.nranks)
        return 0;
    return held(g, r) ? src_index(x) < g->n[r] : rt__dg_ghost(&g->dp, r, src_index(x)) != NO_TIME;
}

/* ------------------------------------------------------------------ depgraph.c's, for the analyses */

/** What every result needs (depgraph.c): all records there, every remote source an event, the
 *  times of those held elsewhere fetched. Collective; RT_OK at once after it passed, until a new
 *  record comes. */
int rt__dg_complete(rt_depgraph *g, rt_error *err);
/** The observer's contract on the ranks held here (rt_depgraph_check's words): RT_OK or
 *  RT_EINVAL naming the first offending event. Not collective. */
int rt__dg_check_held(const rt_depgraph *g, rt_error *err);

#endif
