/* SPDX-License-Identifier: MIT */
/* How the analyses group edges (depgraph_group.c): the breakdown rows, keyed by group, and the
 * context of an event (its call site, region instance, message size) that says which rows an
 * edge into it falls in. The walk over the events (depgraph.c) calls the per-event parts for
 * every event, so they are here, inline; the rest is in depgraph_group.c. Not installed. */
#ifndef RETIME_DEPGRAPH_GROUP_H
#define RETIME_DEPGRAPH_GROUP_H

#include "depgraph_part.h"

#include <stdlib.h>

/* ------------------------------------------------------------------ breakdown rows */

/* A growable set of breakdown rows keyed by (group, wait, id, region, instance). Consecutive
 * edges mostly fall in the same few rows of a group (one rank at a time, the call sites of one
 * loop iteration in turn, the same region instance for a run of events), so the last rows found
 * in each group are tried first. */
#define SMAP_RECENT 4
struct smap {
    struct rt_dep_share *v;
    uint64_t n, cap; /* cap: 0 or a power of two */
    struct rt_dep_share *last[RT_GROUP_COUNT][SMAP_RECENT]; /* the last rows found; NULL: none (reset when v moves) */
    uint8_t older[RT_GROUP_COUNT];                          /* the next one to replace */
    int oom;
};

/** The row for a key, created with zero values; NULL (and m->oom set) when out of memory. */
struct rt_dep_share *rt__dg_smap_find(struct smap *m, uint8_t group, uint8_t wait, uint32_t id, uint32_t region,
                                      uint64_t inst);
/** Adds every row of @p src to @p dst. */
void rt__dg_smap_merge(struct smap *dst, const struct smap *src);
/** The rows of every process summed and sorted (by value, or with @p abs_sum by |value| +
 *  |value2|; largest first): at process 0 (elsewhere *n = 0), or here when one process holds
 *  every rank. Frees the map. Collective; @p rc: this process already failed. */
int rt__dg_shares_finish(const struct rt__dg_part *dp, struct smap *m, int abs_sum, struct rt_dep_share **out,
                         uint64_t *n, int rc, rt_error *err);

static inline int skey_is(const struct rt_dep_share *e, uint8_t group, uint8_t wait, uint32_t id, uint32_t region,
                          uint64_t inst)
{
    return e->group == group && e->wait == wait && e->id == id && e->region == region && e->instance == inst;
}

/* rt__dg_smap_find after a look at the group's last rows, inline: most adds end there. */
static inline struct rt_dep_share *smap_get(struct smap *m, uint8_t group, uint8_t wait, uint32_t id, uint32_t region,
                                            uint64_t inst)
{
    if (group < RT_GROUP_COUNT)
        for (int k = 0; k < SMAP_RECENT; k++) {
            struct rt_dep_share *hit = m->last[group][k];
            if (hit && skey_is(hit, group, wait, id, region, inst))
                return hit;
        }
    return rt__dg_smap_find(m, group, wait, id, region, inst);
}

static inline void smap_add(struct smap *m, uint8_t group, uint8_t wait, uint32_t id, uint32_t region, uint64_t inst,
                     rt_time_ps v1, rt_time_ps v2)
{
    struct rt_dep_share *e = smap_get(m, group, wait, id, region, inst);
    if (e) {
        e->value += v1;
        e->value2 += v2;
    }
}

/* ------------------------------------------------------------------ event context */

/* Where an edge into an event lies: the state of its rank just before the event. */
struct ctx {
    uint32_t callsite, call_region; /* of the outermost MPI call (RT_NONE: outside calls) */
    int comm_call;                  /* that call moves data or synchronises */
    rt_bytes call_bytes;            /* bytes of the last send started in that call */
    uint32_t region;                /* innermost non-MPI region (RT_NONE: none) */
    uint64_t instance;              /* its outermost instance number on this rank */
};

struct frame {
    uint32_t region;
    uint64_t instance;
};

/* Keeps the context of one rank's events, walked in order (walker_apply after each). */
struct walker {
    const rt_trace *t;
    uint32_t r;                     /* the rank walked */
    uint32_t nregions;
    uint64_t *next_inst, *cur_inst; /* per region */
    uint32_t *depth;                /* per region: open instances */
    uint8_t *wait_call;             /* per region: an MPI_Wait* call (its waits are RT_WAIT_WAITALL) */
    struct frame *stack;
    uint64_t nstack, capstack;
    int mpi_depth;
    struct ctx c;
    const rt_scale *scale; /* sizes as a replay under it has them (NULL: as traced) */
};

/** @p p's bytes as the replay sizes them: times the factor of the walker's current call (for a
 *  receive under call-site rules its own call's, where the replay takes its send's). */
static inline rt_bytes rt__dg_scaled(const struct walker *w, struct rt_event_payload p)
{
    if (!w->scale)
        return p.bytes;
    rt_bytes b = rt_scale_apply(rt_scale_factor(w->scale, p.comm, w->c.callsite), p.bytes);
    return b == UINT64_MAX ? RT_MAX_BYTES : b;
}

/** A walker of @p t's events: RT_OK or RT_ENOMEM (then rt__dg_walker_free it all the same). */
int rt__dg_walker_init(struct walker *w, const rt_trace *t);
void rt__dg_walker_free(struct walker *w);
/** Starts rank @p r's events. */
void rt__dg_walker_rank(struct walker *w, uint32_t r);
/** Bytes carried by the remote edge into event @p j of the walker's rank (@p ev, @p n: its events). */
rt_bytes rt__dg_edge_bytes(const struct walker *w, const struct rt_event *ev, uint64_t n, uint64_t j);

/* Whether the MPI call entered at @p j moves data or synchronises (as the engine decides). */
static inline int call_communicates(const struct rt_event *ev, uint64_t n, uint64_t j)
{
    int depth = 1;
    for (uint64_t k = j + 1; k < n; k++) {
        const struct rt_event *e = &ev[k];
        if (e->flags & RT_EVF_MPI) {
            depth += e->kind == RT_EV_ENTER ? 1 : e->kind == RT_EV_LEAVE ? -1 : 0;
            if (depth == 0)
                return 0;
        }
        switch (e->kind) {
        case RT_EV_SEND: case RT_EV_ISEND: case RT_EV_RECV: case RT_EV_IRECV_REQUEST: case RT_EV_COLL_BEGIN:
        case RT_EV_NBCOLL_BEGIN:
            if (!(e->flags & RT_EVF_CANCELLED))
                return 1;
            break;
        case RT_EV_ISEND_COMPLETE: case RT_EV_IRECV: case RT_EV_COLL_END: case RT_EV_NBCOLL_END:
            return 1;
        default:
            break;
        }
    }
    return 0;
}

/* Applies event @p j to the context (after the event has been visited). */
static inline int walker_apply(struct walker *w, const struct rt_event *ev, uint64_t n, uint64_t j)
{
    const struct rt_event *e = &ev[j];
    if (e->kind == RT_EV_ENTER && (e->flags & RT_EVF_MPI)) {
        if (w->mpi_depth++ == 0) {
            w->c.callsite = e->aux;
            w->c.call_region = e->ref;
            w->c.comm_call = call_communicates(ev, n, j);
            w->c.call_bytes = 0;
        }
    } else if (e->kind == RT_EV_LEAVE && (e->flags & RT_EVF_MPI)) {
        if (w->mpi_depth > 0 && --w->mpi_depth == 0) {
            w->c.callsite = w->c.call_region = RT_NONE;
            w->c.comm_call = 0;
        }
    } else if (e->kind == RT_EV_ENTER && e->ref < w->nregions) {
        if (w->nstack == w->capstack) {
            uint64_t ncap = w->capstack ? w->capstack * 2 : 16;
            struct frame *ns = realloc(w->stack, ncap * sizeof *ns);
            if (!ns)
                return RT_ENOMEM;
            w->stack = ns;
            w->capstack = ncap;
        }
        if (w->depth[e->ref]++ == 0)
            w->cur_inst[e->ref] = w->next_inst[e->ref]++;
        w->stack[w->nstack++] = (struct frame){e->ref, w->cur_inst[e->ref]};
    } else if (e->kind == RT_EV_LEAVE && e->ref < w->nregions) {
        uint64_t k = w->nstack;
        while (k > 0 && w->stack[k - 1].region != e->ref)
            k--;
        if (k > 0) { /* pops the region and anything left open inside it */
            for (uint64_t i = k - 1; i < w->nstack; i++)
                if (w->depth[w->stack[i].region])
                    w->depth[w->stack[i].region]--;
            w->nstack = k - 1;
        }
    } else if ((e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND) && w->mpi_depth > 0) {
        w->c.call_bytes = rt__dg_scaled(w, rt_trace_payload(w->t, w->r, j));
    }
    w->c.region = w->nstack ? w->stack[w->nstack - 1].region : RT_NONE;
    w->c.instance = w->nstack ? w->stack[w->nstack - 1].instance : 0;
    return RT_OK;
}

/* The size group's id of a message of @p b bytes: 0 for 0 B, else b for [2^(b-1), 2^b) B. */
static inline uint32_t size_bucket(rt_bytes b)
{
    return b ? 64u - (uint32_t)__builtin_clzll((unsigned long long)b) : 0; /* (b's bit length) */
}

/* The size rows a walk sums before it adds them: one per bucket (0..64), the last for RT_NONE. */
#define SIZE_ROWS 66
static inline uint32_t size_row(uint32_t bucket) { return bucket == RT_NONE ? SIZE_ROWS - 1 : bucket; }

#endif
