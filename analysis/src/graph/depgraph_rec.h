/* SPDX-License-Identifier: MIT */
/* The per-event record of a dependency graph and the packing of its remote source: what the
 * graph stores (depgraph.c) and what its distributed steps read the remote sources from
 * (depgraph_part.c). Nothing here knows a graph; not installed. */
#ifndef RETIME_DEPGRAPH_REC_H
#define RETIME_DEPGRAPH_REC_H

#include "retime/depgraph.h"

/* One record per event, 32 bytes: the ready times through its two edges, its remote source
 * packed as kind (2 bits) | rank (24 bits) | index (38 bits), and that source's time. The event's
 * own time is not kept: it is max(local_ready, remote_ready) (rec_t), which the collector checks
 * as it stores. The source's time is copied in when the record is stored (the replay has just
 * written the source's record, so it is still in cache) or, for a source recorded later or held
 * by another process, by fill_sources once all records are in: the analyses that walk the
 * records in order then read no other event's record at a random place (what a cache and TLB
 * miss per edge cost them before). The collector holds only these; everything else (kinds,
 * regions, call sites) is read from the trace when a result is asked for. An event (rank r,
 * index j) is also named by one number, r << IDX_BITS | j, where it crosses processes or is
 * the lowest of a reduction. */
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

static inline uint32_t src_kind_of(uint64_t src) { return (uint32_t)(src >> 62); }
static inline uint32_t src_kind(const struct rt__dep_rec *x) { return src_kind_of(x->src); }
static inline uint32_t src_rank(const struct rt__dep_rec *x) { return (uint32_t)((x->src >> IDX_BITS) & RANK_MASK); }
static inline uint64_t src_index(const struct rt__dep_rec *x) { return x->src & IDX_MASK; }
static inline int remote_binds(const struct rt__dep_rec *x)
{
    return src_kind(x) != RT_DEP_NONE && x->remote_ready > x->local_ready; /* ties: local */
}
/* A record's event time: its binding edge's ready time (ties: local). */
static inline rt_time_ps rec_t(const struct rt__dep_rec *x)
{
    return remote_binds(x) ? x->remote_ready : x->local_ready;
}

#endif
