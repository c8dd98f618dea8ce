/* SPDX-License-Identifier: MIT */
/*
 * Topology `crossbar` / `crossbar:N`: N nodes on one ideal, non-blocking switch; the only shared
 * resources are the nodes' NICs. The no-contention baseline (but at the NICs).
 *
 * Vertices: nodes 0..N-1, the switch N. Links: node n's injection link n (n -> N), its
 * ejection link N+n (N -> n). Route from s to d: [s, N+d]. Names: "n3>sw", "sw>n3".
 * Without N the crossbar has 2^31-1 nodes (so that its 2N links have 32-bit ids); nothing is
 * stored per node or link, so it costs no memory.
 */
#include <stdio.h>
#include <stdlib.h>

#include "topology_internal.h"

/* 2^31-1: 2N links and N+1 vertices stay below 2^32. */
#define XBAR_MAX_NODES 0x7fffffffu

static int xbar_create(const char *spec, const char *args, rt_topology **out, rt_error *err)
{
    uint64_t n = XBAR_MAX_NODES;
    if (args) {
        const char *p = args;
        int rc = rt__topo_number(&p, XBAR_MAX_NODES, &n);
        if (rc == -1 || *p)
            return rt__topo_error(err, RT_EINVAL, spec, "expected crossbar or crossbar:N (N nodes, 1..%u)",
                                  XBAR_MAX_NODES);
        if (rc == -2 || n == 0)
            return rt__topo_error(err, RT_ERANGE, spec, "the number of nodes must be 1..%u", XBAR_MAX_NODES);
    }
    rt_topology *t = calloc(1, sizeof *t);
    if (!t)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    t->nodes = (uint32_t)n;
    t->vertices = (uint32_t)n + 1;
    t->links = (uint32_t)(2 * n);
    t->max_route = 2;
    if (args)
        rt__topo_set_spec(t, "crossbar:%u", t->nodes);
    else
        rt__topo_set_spec(t, "crossbar");
    *out = t;
    return RT_OK;
}

static void xbar_link(const rt_topology *t, uint32_t link, struct rt_link_info *o)
{
    uint32_t n = t->nodes;
    if (link < n) {
        o->kind = RT_LINK_INJECT;
        o->from = link;
        o->to = n;
    } else {
        o->kind = RT_LINK_EJECT;
        o->from = n;
        o->to = link - n;
    }
}

static size_t xbar_link_name(const rt_topology *t, uint32_t link, char *buf, size_t n)
{
    int len = link < t->nodes ? snprintf(buf, n, "n%u>sw", link) : snprintf(buf, n, "sw>n%u", link - t->nodes);
    return len < 0 ? 0 : (size_t)len;
}

static uint32_t xbar_route(const rt_topology *t, uint32_t src, uint32_t dst, uint64_t salt, uint32_t *links)
{
    (void)salt;
    links[0] = src;
    links[1] = t->nodes + dst;
    return 2;
}

const struct rt__topo_ops rt__topo_crossbar = {"crossbar", xbar_create, xbar_link, xbar_link_name, xbar_route,
                                                NULL /* static routes only */};
