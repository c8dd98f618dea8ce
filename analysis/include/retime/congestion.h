/* SPDX-License-Identifier: MIT */
/**
 * @file congestion.h  Congestion on the critical path: which of the time a replay's messages lost
 * sharing links (a replay on a network) its critical path took (accumulated), and which it did
 * not (absorbed), per link and per kind of link.
 */
#ifndef RETIME_CONGESTION_H
#define RETIME_CONGESTION_H

#include <stdint.h>

#include "retime/depgraph.h"
#include "retime/network.h"
#include "retime/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One row: a link, or a kind of link ("torus dim 1 +", "fat tree level 2 up", "NIC injection"). */
struct rt_congestion_row {
    uint32_t link;          /**< link rows: the link; kind rows: UINT32_MAX */
    char name[64];
    double accumulated_ps;  /**< its delays on messages whose remote edge is on the critical path */
    double absorbed_ps;     /**< its delays on the others */
    uint64_t messages;      /**< messages that lost time on it */
};

/** The attribution of a replay's contention along its critical path. */
struct rt_congestion {
    double total_ps, accumulated_ps, absorbed_ps;
    uint64_t messages;                       /**< messages that lost time anywhere */
    struct rt_congestion_row *links, *kinds; /**< each sorted by accumulated, then absorbed, largest first */
    uint32_t nlinks, nkinds;
};

/**
 * Attributes result @p res's contention records (a replay with record_contention on network
 * @p net) along the critical path of @p g, the graph of that same replay of @p t (critical path
 * computed). In a distributed analysis (rt_depgraph_create_part) every process calls it with its
 * own result and graph: each finds the critical path's messages on its ranks, process 0 (which
 * holds the records) gets the attribution, the others an empty one.
 * @param out  receives the attribution, owned by the caller (rt_congestion_destroy)
 * @return RT_OK, RT_ENOMEM, RT_ECORRUPT (a collective's message on the path that process 0 did not
 *         number) or RT_EREMOTE (another process failed)
 */
int rt_congestion_create(const rt_network *net, const struct rt_replay_result *res, const rt_depgraph *g,
                         const rt_trace *t, struct rt_congestion **out, rt_error *err);
/** Frees an attribution; NULL is a no-op. */
void rt_congestion_destroy(struct rt_congestion *c);

#ifdef __cplusplus
}
#endif

#endif
