/* SPDX-License-Identifier: MIT */
/* The replay's work on a network before it starts (retime/replay.h, rt_replay_route_links): the
 * links its messages' routes cross, for the work estimate (issue #47 item 1): its point-to-point
 * messages', and for its collectives the routes between the members that their algorithms' usual
 * partners join. It
 * reads the trace and asks the network, so it lives in the engine's layer, above both. */
#include <math.h>
#include <stdlib.h>

#include "map.h"
#include "retime/network.h"
#include "retime/replay.h"
#include "retime/topology.h"

struct route_count {
    const rt_trace *t;
    const rt_network *net;
    const rt_topology *topo;
    struct rt__map len; /* (source node, destination node) -> its route's links */
    /* in front of it, the last pairs met, direct-mapped: a rank sends to a few partners over
     * and over, and this is cheaper than the map's lookup (an empty slot holds the pair 0, 0,
     * never looked up: a == b is no route) */
    struct { uint32_t a, b, len; } memo[256];
    uint32_t *links;
    double sum;
    uint32_t longest, from, to;
};

/* Adds the route from row @p r to row @p dst (none within a node: shared memory); -1 when out of
 * memory. */
static int count_pair(struct route_count *c, uint32_t r, uint32_t dst)
{
    uint32_t a = rt_network_node(c->net, r), b = rt_network_node(c->net, dst);
    if (a == b)
        return 0;
    uint32_t slot = (a * 31u + b) & 255u;
    if (c->memo[slot].a == a && c->memo[slot].b == b) {
        c->sum += (double)c->memo[slot].len;
        return 0;
    }
    uint64_t *k = rt__map_get(&c->len, a, b);
    if (!k) {
        uint32_t l = rt_topology_route(c->topo, a, b, 0, c->links);
        if (l > c->longest) {
            c->longest = l;
            c->from = r;
            c->to = dst;
        }
        if (rt__map_put(&c->len, a, b, l))
            return -1;
        k = rt__map_get(&c->len, a, b);
    }
    c->memo[slot].a = a;
    c->memo[slot].b = b;
    c->memo[slot].len = (uint32_t)*k;
    c->sum += (double)*k;
    return 0;
}

double rt_replay_route_links(const rt_trace *t, const rt_network *net, double limit, uint32_t *longest,
                             uint32_t *from, uint32_t *to)
{
    struct route_count c = {.t = t, .net = net, .topo = rt_network_topology(net), .from = RT_NONE, .to = RT_NONE};
    /* (communicator, row) -> the row's place in it, and above bit 32 one more than its
     * partners' links summed (0: not yet): each of its collectives on it adds the same */
    struct rt__map place;
    rt__map_init(&c.len);
    rt__map_init(&place);
    uint32_t ranks = rt_trace_ranks(t);
    c.links = malloc(((size_t)rt_topology_max_route(c.topo) + 1) * sizeof *c.links);
    if (!c.links)
        c.sum = HUGE_VAL;
    for (uint32_t r = 0; r < ranks && c.sum <= limit; r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t i = 0; i < n && c.sum <= limit; i++) {
            int coll = ev[i].kind == RT_EV_COLL_BEGIN || ev[i].kind == RT_EV_NBCOLL_BEGIN;
            if (ev[i].kind != RT_EV_SEND && ev[i].kind != RT_EV_ISEND && !coll)
                continue;
            uint32_t size, comm = (uint32_t)rt_trace_payload(t, r, i).comm;
            const uint32_t *members = rt_trace_comm_defined(t, comm, &size);
            int rc = 0;
            if (!coll) {
                uint32_t dst = members ? (ev[i].ref < size ? members[ev[i].ref] : RT_NONE) : r;
                if (dst != RT_NONE && dst < ranks)
                    rc = count_pair(&c, r, dst);
            } else if (members && size > 1) {
                /* A collective's messages are its algorithm's; as a measure, the partners of
                 * recursive doubling and of binomial trees: the members 1, 2, 4, ... places on
                 * (ceil(log2 P) messages per member, the routes between its members met). */
                uint64_t *k = rt__map_get(&place, comm, r);
                if (!k) {
                    uint32_t me = 0;
                    while (me < size && members[me] != r)
                        me++;
                    if (rt__map_put(&place, comm, r, me) || !(k = rt__map_get(&place, comm, r)))
                        rc = -1;
                }
                uint32_t me = k ? (uint32_t)*k : size;
                double links = k ? (double)((*k >> 32) - 1) : 0;
                if (k && *k >> 32 && c.sum + links <= limit) { /* (whole numbers: the same sum to the bit) */
                    c.sum += links;
                    continue;
                }
                double before = c.sum;
                for (uint32_t d = 1; !rc && me < size && d < size && c.sum <= limit; d <<= 1) {
                    uint32_t peer = members[(me + d) % size];
                    if (peer != RT_NONE && peer < ranks)
                        rc = count_pair(&c, r, peer);
                }
                if (!rc && k && c.sum <= limit && c.sum - before < (double)UINT32_MAX)
                    *k = (uint64_t)me | (uint64_t)(c.sum - before + 1) << 32;
            }
            if (rc) {
                c.sum = HUGE_VAL;
                break;
            }
        }
    }
    free(c.links);
    rt__map_free(&c.len);
    rt__map_free(&place);
    *longest = c.longest;
    *from = c.from;
    *to = c.to;
    return c.sum;
}
