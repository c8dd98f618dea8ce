/* SPDX-License-Identifier: MIT */
/* What depgraph.c (the analyses) and depgraph_part.c (their distributed steps) share: the
 * graph's layout and the collective operations, which are no-ops when one process holds every
 * rank. Not installed. */
#ifndef RETIME_DEPGRAPH_INTERNAL_H
#define RETIME_DEPGRAPH_INTERNAL_H

#include "retime/depgraph.h"

#include <pthread.h>

/* One record per event, 32 bytes: the ready times through its two edges, its remote source
 * packed as kind (2 bits) | rank (24 bits) | index (38 bits), and that source's time. The event's
 * own time is not kept: it is max(local_ready, remote_ready) (rec_t), which the collector checks
 * as it stores. The source's time is copied in when the record is stored (the replay has just
 * written the source's record, so it is still in cache) or, for a source recorded later or held
 * by another process, by fill_sources once all records are in: the analyses that walk the
 * records in order then read no other event's record at a random place (what a cache and TLB
 * miss per edge cost them before). The collector holds only these; everything else (kinds,
 * regions, call sites) is read from the trace when a result is asked for. */
#define IDX_BITS 38
#define RANK_BITS 24
#define IDX_MASK ((1ull << IDX_BITS) - 1)
#define RANK_MASK ((1ull << RANK_BITS) - 1)
#define NO_RANK RANK_MASK
#define NO_TIME INT64_MIN /* a remote source's time that its process does not have */

struct rt__dep_rec {
    rt_time_ps src_t; /* the remote source's time; NO_TIME: none, or not filled in yet */
    rt_time_ps local_ready, remote_ready;
    uint64_t src;
};
_Static_assert(sizeof(struct rt__dep_rec) == 32, "a dependency record must stay 32 bytes");

/* The end of a set of records: the largest time, of equal ones the lowest rank, and on it the
 * last such event (what a scan in rank and event order finds); rank RT_NONE: no record yet. */
struct rt__end {
    uint32_t rank;
    uint64_t index;
    rt_time_ps t;
};

/* The times of remote sources held by other processes: open addressing, key = packed source + 1
 * (0: empty slot). */
struct rt__ghost {
    uint64_t key;
    rt_time_ps t;
};

struct rt_depgraph {
    const rt_trace *t;
    const struct rt_replay_part *part; /* NULL: this process holds every rank */
    uint32_t nranks, lo, hi;   /* the ranks held: [lo, hi) */
    uint64_t total;            /* events held */
    uint64_t *base, *n, *seen; /* per rank: first record, events (0 if not held), records received */
    struct rt__dep_rec *rec;   /* NULL in a measured graph: see measured_rec */
    /* a measured graph (rt_depgraph_measured) keeps per event only its remote source's time (tu,
     * 8 bytes, NO_TIME: none); its records are worked out from the trace's times and the
     * sources of the structure graph it was made with (shape), which must outlive it */
    const rt_depgraph *shape;
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
    int have_cp, have_ws;
    int complete_ok;           /* complete() or rt_depgraph_check() passed since the last record */
    struct rt_critical_path cp;
    struct rt_cp_segment *seg;
    struct rt_dep_share *cp_share;
    struct rt_wait_states ws;
    struct rt_dep_share *ws_share;
    struct rt__ghost *gh;
    pthread_t prefault;        /* maps the records' pages while the replay fills them (prefault_main) */
    int prefaulting;           /* the thread runs: joined by rt_depgraph_destroy */
    _Atomic int prefault_stop;
    uint64_t ngh, capgh;       /* capgh: 0 or a power of two */
};

static inline uint32_t src_kind(const struct rt__dep_rec *x) { return (uint32_t)(x->src >> 62); }
static inline uint32_t src_rank(const struct rt__dep_rec *x) { return (uint32_t)((x->src >> IDX_BITS) & RANK_MASK); }
static inline uint64_t src_index(const struct rt__dep_rec *x) { return x->src & IDX_MASK; }
static inline int remote_binds(const struct rt__dep_rec *x)
{
    return src_kind(x) != RT_DEP_NONE && x->remote_ready > x->local_ready; /* ties: local */
}
static inline int held(const rt_depgraph *g, uint32_t r) { return r >= g->lo && r < g->hi; }
/* The records whose sources are @p g's edges, in event order: its own, or a measured graph's
 * structure graph's (their times are not @p g's). */
static inline const struct rt__dep_rec *edges_of(const rt_depgraph *g) { return g->rec ? g->rec : g->shape->rec; }
/* The stored record of event (r, j) of a graph that stores them (not a measured one). */
static inline struct rt__dep_rec *R(const rt_depgraph *g, uint32_t r, uint64_t j) { return &g->rec[g->base[r] + j]; }
/* A record's event time: its binding edge's ready time (ties: local). */
static inline rt_time_ps rec_t(const struct rt__dep_rec *x)
{
    return remote_binds(x) ? x->remote_ready : x->local_ready;
}
/* The measured time of event (r, j) held here [ps since the earliest event]. */
static inline rt_time_ps ev_ps(const rt_depgraph *g, uint32_t r, uint64_t j)
{
    return (g->evs[r][j].time - g->first) * 1000;
}
/* A measured graph's record of event (r, j): with p the previous event and u the remote source,
 * both edges get the event's own gap c = t - max(t(u), t(p)) (local_ready = t(p) + c,
 * remote_ready = t(u) + c), or with t < t(u) (the clocks disagree) both are t. Its time (rec_t)
 * is always the measured t. */
static inline struct rt__dep_rec measured_rec(const rt_depgraph *g, uint32_t r, uint64_t j)
{
    rt_time_ps t = ev_ps(g, r, j), tp = j ? ev_ps(g, r, j - 1) : 0, tu = g->tu[g->base[r] + j];
    if (tp > t) /* the trace's own order is the truth on one rank */
        tp = t;
    struct rt__dep_rec x = {tu, t, INT64_MIN, R(g->shape, r, j)->src};
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
static inline int marked(const uint8_t *bits, uint64_t i) { return bits[i >> 3] >> (i & 7) & 1; }
/* Keeps the end as records come, in any order of ranks. */
static inline void note_end(struct rt__end *e, uint32_t r, uint64_t j, rt_time_ps t)
{
    if (e->rank == RT_NONE || t > e->t || (t == e->t && (r < e->rank || (r == e->rank && j > e->index))))
        *e = (struct rt__end){r, j, t};
}

/** Makes room for @p need elements of @p elem bytes in *@p p (capacity *@p cap, doubled from
 *  64): 0, or -1 when out of memory (*@p p unchanged). */
int rt__dg_grow(void **p, uint64_t *cap, size_t elem, uint64_t need);

/** The time of a remote source held by another process, as rt__dg_fetch got it; NO_TIME when
 *  it was not fetched or its process has no such event. */
rt_time_ps rt__dg_ghost(const rt_depgraph *g, uint32_t r, uint64_t j);

/* The time of event (r, j), held here or fetched. A record's own source's time is its src_t:
 * this is for other events. */
static inline rt_time_ps t_of(const rt_depgraph *g, uint32_t r, uint64_t j)
{
    return held(g, r) ? time_at(g, r, j) : rt__dg_ghost(g, r, j);
}

/* ------------------------------------------------------------------ collective steps
 * Every process calls these in the same order; with g->part == NULL they return at once. */

/** Agrees on failure: RT_OK if no process failed, the own @p rc at the lowest failing process,
 *  RT_EREMOTE (err set) at the others. */
int rt__dg_agree(const rt_depgraph *g, int rc, rt_error *err);
/** Element-wise minimum (@p sum = 0) or sum over the processes, then rt__dg_agree(rc). */
int rt__dg_reduce(const rt_depgraph *g, int64_t *v, size_t n, int sum, int rc, rt_error *err);
/** Fetches the times of every remote source of @p g's records and of @p h's (NULL: none; a
 *  graph of the same split) that another process holds, into @p g's ghosts. Agrees. */
int rt__dg_fetch(rt_depgraph *g, const rt_depgraph *h, rt_error *err);
/** Sends @p len bytes of @p rows to process 0, which gets every process's in process order in
 *  *all (malloc'd, *alllen bytes; others: NULL, 0). Agrees (@p rc: this process failed). */
int rt__dg_gather(const rt_depgraph *g, const void *rows, size_t len, void **all, size_t *alllen, int rc,
                  rt_error *err);

/* A walk back along binding edges that may cross processes. */
struct rt__dg_tok {
    uint32_t rank, kind;     /* where it goes on; kind: the walk's own (a wait kind) */
    uint64_t index, steps, seq;
    rt_time_ps a, b, covered;
};
enum { WALK_DONE, WALK_HOP }; /* WALK_HOP: the token moved to a rank held elsewhere */
/* Walks @p tok on from a rank held here: WALK_DONE, WALK_HOP, or an RT_E* code (negative). */
typedef int (*rt__dg_walk_fn)(rt_depgraph *g, void *ctx, struct rt__dg_tok *tok, rt_error *err);
struct rt__dg_toks {
    struct rt__dg_tok *v;
    uint64_t n, cap;
};
/** Appends a token (RT_OK or RT_ENOMEM). */
int rt__dg_toks_push(struct rt__dg_toks *q, const struct rt__dg_tok *tok);
/** Runs the walks in @p out (tokens that hopped to other processes) to their end, in rounds:
 *  each round every process sends the tokens that left it and walks the ones it received.
 *  Frees @p out's array. Agrees (@p rc: this process already failed). */
int rt__dg_walks(rt_depgraph *g, struct rt__dg_toks *out, rt__dg_walk_fn fn, void *ctx, int rc, rt_error *err);

#endif
