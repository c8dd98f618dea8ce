/* SPDX-License-Identifier: MIT */
/* retime analyze's congestion attribution: which of the time the trace's messages lost sharing
 * links (a replay on a network) its critical path took (accumulated), and which it did not
 * (absorbed), per link and per kind of link. */
#ifndef RETIME_CONGESTION_H
#define RETIME_CONGESTION_H

#include <stdint.h>
#include <stdio.h>

#include "retime/depgraph.h"
#include "retime/network.h"
#include "retime/replay.h"

/* One row: a link, or a kind of link ("torus dim 1 +", "fat tree level 2 up", "NIC injection"). */
struct congestion_row {
    uint32_t link;          /* link rows: the link; kind rows: UINT32_MAX */
    char name[64];
    double accumulated_ps;  /* its delays on messages whose remote edge is on the critical path */
    double absorbed_ps;     /* its delays on the others */
    uint64_t messages;      /* messages that lost time on it */
};

struct congestion {
    double total_ps, accumulated_ps, absorbed_ps;
    uint64_t messages;       /* messages that lost time anywhere */
    struct congestion_row *links, *kinds; /* each sorted by accumulated, then absorbed, largest first */
    uint32_t nlinks, nkinds;
};

/* Attributes result @p res's contention records (a replay with record_contention on network
 * @p net) along the critical path of @p g, the graph of that same replay (critical path computed).
 * Returns 0, or -1 out of memory. */
int congestion_compute(const rt_network *net, const struct rt_replay_result *res, const rt_depgraph *g,
                       const rt_trace *t, struct congestion *c);
void congestion_free(struct congestion *c);
void congestion_text(FILE *f, const struct congestion *c, uint64_t top);
void congestion_json(FILE *f, const struct congestion *c, uint64_t top);

#endif
