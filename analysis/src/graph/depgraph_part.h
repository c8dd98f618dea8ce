/* SPDX-License-Identifier: MIT */
/* The interface of a graph's distributed steps (depgraph_part.c, docs/distributed.md): which
 * ranks this process holds, the collective operations over the processes, the times of remote
 * sources fetched from the processes that hold them ("ghosts"), gathering at process 0, and
 * walks that hop between processes. A graph holds one struct rt__dg_part and passes it to every
 * step; what a step needs of the graph (its records, the time of one of its events, a walk's
 * step) is passed to it, so depgraph_part.c knows no graph's layout and the graph knows nothing
 * of the ghost table's. Every step is called by all processes in the same order and returns at
 * once when one process holds every rank (p == NULL), so the analyses have one code path for
 * both. Not installed. */
#ifndef RETIME_DEPGRAPH_PART_H
#define RETIME_DEPGRAPH_PART_H

#include "depgraph_rec.h"

struct rt__dg_ghosts; /* the fetched times: depgraph_part.c's own */

/* One process's share of a distributed analysis. The graph reads p, nranks, lo and hi (set by
 * rt__dg_part_init, never changed) as fields, not through calls: held() is on the walks' hot
 * path and must stay an inline compare. gh belongs to the steps. What stays shared with the
 * graph besides: the record format (depgraph_rec.h), because rt__dg_fetch reads the packed
 * remote source of every record (a callback per record would cost the fetch a call per event),
 * and the graph's per-rank event counts (n), by which the steps check what others ask for. */
struct rt__dg_part {
    const struct rt_replay_part *p; /* the processes; NULL: this one holds every rank */
    const rt_trace *t;              /* the trace, whose path the steps' errors name */
    uint32_t nranks, lo, hi;        /* the trace's ranks; those held here: [lo, hi) */
    const uint64_t *n;              /* per rank: its events held here (0 elsewhere); the graph's */
    struct rt__dg_ghosts *gh;       /* NULL until a fetch keeps a time */
};

/** Sets up @p dp for @p t's ranks split as @p p says (NULL: all here; @p p must outlive @p dp).
 *  @p n (one entry per rank of @p t) is the graph's count of events per rank, read by the steps
 *  from the first one on: it may be filled in after this call. RT_OK, or RT_EINVAL when @p p does
 *  not split the ranks (then @p dp holds them all and can only be freed). */
int rt__dg_part_init(struct rt__dg_part *dp, const rt_trace *t, const struct rt_replay_part *p, const uint64_t *n,
                     rt_error *err);
/** Frees what the steps kept (the ghosts). */
void rt__dg_part_free(struct rt__dg_part *dp);

/* Whether rank @p r is held here. */
static inline int rt__dg_held(const struct rt__dg_part *dp, uint32_t r) { return r >= dp->lo && r < dp->hi; }

/** Makes room for @p need elements of @p elem bytes in *@p p (capacity *@p cap, doubled from
 *  64): 0, or -1 when out of memory (*@p p unchanged). */
int rt__dg_grow(void **p, uint64_t *cap, size_t elem, uint64_t need);

/** The time of event (r, j) of a rank held elsewhere, as rt__dg_fetch got it; NO_TIME when it
 *  was not fetched or its process has no such event. */
rt_time_ps rt__dg_ghost(const struct rt__dg_part *dp, uint32_t r, uint64_t j);

/* ------------------------------------------------------------------ collective steps */

/** Agrees on failure: RT_OK if no process failed, the own @p rc at the lowest failing process,
 *  RT_EREMOTE (err set) at the others. */
int rt__dg_agree(const struct rt__dg_part *dp, int rc, rt_error *err);
/** Element-wise minimum (@p sum = 0) or sum over the processes, then rt__dg_agree(rc). */
int rt__dg_reduce(const struct rt__dg_part *dp, int64_t *v, size_t n, int sum, int rc, rt_error *err);

/* The time of event (r, j) of @p graph, a rank held here and j below its events. */
typedef rt_time_ps (*rt__dg_time_fn)(const void *graph, uint32_t r, uint64_t j);
/** Fetches into the ghosts the times of the remote sources held by other processes of the
 *  @p n1 records @p rec1, the @p n2 records @p rec2 and the @p n3 records @p rec3 (NULL, 0:
 *  none), and answers the other processes' questions with time_of(@p graph, r, j) (NO_TIME for
 *  an event not held here). Agrees. */
int rt__dg_fetch(struct rt__dg_part *dp, const struct rt__dep_rec *rec1, uint64_t n1, const struct rt__dep_rec *rec2,
                 uint64_t n2, const struct rt__dep_rec *rec3, uint64_t n3, rt__dg_time_fn time_of, const void *graph,
                 rt_error *err);
/** Sends @p len bytes of @p rows to process 0, which gets every process's in process order in
 *  *all (malloc'd, *alllen bytes; others: NULL, 0). Agrees (@p rc: this process failed). */
int rt__dg_gather(const struct rt__dg_part *dp, const void *rows, size_t len, void **all, size_t *alllen, int rc,
                  rt_error *err);

/* A walk back along binding edges that may cross processes. The steps read rank and index
 * (where it goes on) and carry the rest as it is. */
struct rt__dg_tok {
    uint32_t rank, kind;     /* where it goes on; kind: the walk's own (a wait kind) */
    uint64_t index, steps, seq;
    rt_time_ps a, b, covered;
};
enum { WALK_DONE, WALK_HOP }; /* WALK_HOP: the token moved to a rank held elsewhere */
/* Walks @p tok on from a rank held here: WALK_DONE, WALK_HOP, or an RT_E* code (negative). */
typedef int (*rt__dg_walk_fn)(void *ctx, struct rt__dg_tok *tok, rt_error *err);
struct rt__dg_toks {
    struct rt__dg_tok *v;
    uint64_t n, cap;
};
/** Appends a token (RT_OK or RT_ENOMEM). */
int rt__dg_toks_push(struct rt__dg_toks *q, const struct rt__dg_tok *tok);
/** Runs the walks in @p out (tokens that hopped to other processes) to their end, in rounds:
 *  each round every process sends the tokens that left it and walks the ones it received with
 *  fn(@p ctx, ...). Frees @p out's array. Agrees (@p rc: this process already failed). */
int rt__dg_walks(const struct rt__dg_part *dp, struct rt__dg_toks *out, rt__dg_walk_fn fn, void *ctx, int rc,
                 rt_error *err);

#endif
