/* SPDX-License-Identifier: MIT */
/* The replay's work on a network before it starts (retime/replay.h, rt_replay_route_links): the
 * links its point-to-point messages' routes cross, for the work estimate (issue #47 item 1). It
 * reads the trace and asks the network, so it lives in the engine's layer, above both. */
#include <math.h>
#include <stdlib.h>

#include "map.h"
#include "retime/network.h"
#include "retime/replay.h"
#include "retime/topology.h"

double rt_replay_route_links(const rt_trace *t, const rt_network *net, double limit, uint32_t *longest,
                             uint32_t *from, uint32_t *to)
{
    *longest = 0;
    *from = *to = RT_NONE;
    const rt_topology *topo = rt_network_topology(net);
    double sum = 0;
    struct rt__map len; /* (source node, destination node) -> its route's links */
    rt__map_init(&len);
    uint32_t *links = malloc(((size_t)rt_topology_max_route(topo) + 1) * sizeof *links);
    if (!links)
        return HUGE_VAL;
    for (uint32_t r = 0; r < rt_trace_ranks(t) && sum <= limit; r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        uint32_t a = rt_network_node(net, r);
        for (uint64_t i = 0; i < n && sum <= limit; i++) {
            if (ev[i].kind != RT_EV_SEND && ev[i].kind != RT_EV_ISEND)
                continue;
            uint32_t size, comm = (uint32_t)rt_trace_payload(t, r, i).comm;
            const uint32_t *members = rt_trace_comm_defined(t, comm, &size);
            uint32_t dst = members ? (ev[i].ref < size ? members[ev[i].ref] : RT_NONE) : r;
            if (dst == RT_NONE || dst >= rt_trace_ranks(t))
                continue;
            uint32_t b = rt_network_node(net, dst);
            if (a == b) /* shared memory: no route */
                continue;
            uint64_t *k = rt__map_get(&len, a, b);
            if (!k) {
                uint32_t l = rt_topology_route(topo, a, b, 0, links);
                if (l > *longest) {
                    *longest = l;
                    *from = r;
                    *to = dst;
                }
                if (rt__map_put(&len, a, b, l)) {
                    sum = HUGE_VAL;
                    break;
                }
                k = rt__map_get(&len, a, b);
            }
            sum += (double)*k;
        }
    }
    free(links);
    rt__map_free(&len);
    return sum;
}

