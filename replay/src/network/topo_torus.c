/* SPDX-License-Identifier: MIT */
/*
 * Topologies `torus:K0xK1x...` (a k-ary n-cube with wrap-around links, as in Min, Ferguson and
 * Ould-Khaoua, "Analysis of adaptive wormhole-routed torus networks", ../shared/papers/004) and
 * `mesh:K0xK1x...` (the same without wrap-around): 1 to 6 dimensions, each K >= 2, at most 2^24
 * nodes, one node per router.
 *
 * Coordinates: node (and router) v has c_d = (v / (K0·...·K_{d-1})) mod K_d, dimension 0 the
 * fastest. Vertices: nodes 0..N-1, router of node v is N+v.
 * Links: node v's injection link v (v -> router v), its ejection link N+v (router v -> v); then
 * per dimension d, a block of the "+" links and a block of the "-" links. In a torus every
 * router has one "+" and one "-" link per dimension (a dimension of size 2 too: its two routers
 * are then joined by four directed links); in a mesh the routers at the high (low) end of a
 * dimension have no "+" ("-") link there. Within a block the link of router v is numbered
 *     (hi·J + j)·lo + (v mod lo),  lo = K0·...·K_{d-1},  hi = v / (lo·K_d),
 * j = c_d for "+" links and torus "-" links, j = c_d - 1 for mesh "-" links, J = K_d (torus) or
 * K_d - 1 (mesh): a mesh's blocks have no holes.
 * Names: "n5>r(1,1)", "r(1,1)>n5", and "r(1,2)+x" (from router (1,2) in the positive x
 * direction); the dimensions are x, y, z, u, v, w.
 *
 * Routing: dimension order (dimension 0 first, the deterministic routing of k-ary n-cubes and
 * the escape channels of Duato's algorithm in 004). On a torus each dimension goes the shorter
 * way round; exactly half way round (K even) goes the positive direction. So a route has at
 * most 2 + sum floor(K_d/2) links on a torus, 2 + sum (K_d - 1) on a mesh, and on a torus the
 * mean number of router-to-router hops per dimension over all pairs is K/4 (K even) or
 * (K - 1/K)/4 (K odd), 004's eq. (2).
 * `torus:...,adaptive` (and `mesh:...,adaptive`) routes minimally and adaptively: the same hops
 * per dimension in the same directions, in the order that the links' loads pick at each router
 * (torus_route_load below); the hop count, and so every bound above, is the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology_internal.h"

#define MAX_DIMS 6
#define MAX_NODES (1u << 24)

struct topo_torus {
    struct rt_topology base;
    int wrap;                   /* 1 torus, 0 mesh */
    uint32_t ndim;
    uint32_t k[MAX_DIMS];       /* size of each dimension */
    uint32_t lo[MAX_DIMS];      /* K0·...·K_{d-1}: the stride of dimension d */
    uint32_t j[MAX_DIMS];       /* J: K_d (torus) or K_d - 1 (mesh) */
    uint32_t per_dir[MAX_DIMS]; /* links in one direction of dimension d: N / K_d · J */
    uint32_t first[MAX_DIMS];   /* id of dimension d's first "+" link; its "-" links follow */
};

static const char dim_names[MAX_DIMS] = {'x', 'y', 'z', 'u', 'v', 'w'};

static int parse(const char *spec, const char *args, int wrap, struct topo_torus *tt, rt_error *err)
{
    const char *kind = wrap ? "torus" : "mesh";
    char q[RT__QUOTE_SIZE];
    if (!args || !*args)
        return rt__topo_error(err, RT_EINVAL, spec, "expected %s:AxBx... (1 to %d dimensions, each >= 2)", kind,
                              MAX_DIMS);
    const char *p = args;
    uint64_t nodes = 1;
    for (uint32_t d = 0;; d++) {
        if (d == MAX_DIMS)
            return rt__topo_error(err, RT_EINVAL, spec, "more than %d dimensions", MAX_DIMS);
        uint64_t k;
        int rc = rt__topo_number(&p, MAX_NODES, &k);
        if (rc == -1) {
            if (!*p || *p == 'x' || *p == ',')
                return rt__topo_error(err, RT_EINVAL, spec, "dimension %u is missing (expected %s:AxBx...)", d + 1,
                                      kind);
            return rt__topo_error(err, RT_EINVAL, spec, "dimension %u: '%s' is not a number", d + 1,
                                  rt__topo_quote(q, p, strcspn(p, "x,")));
        }
        if (rc == -2)
            return rt__topo_error(err, RT_ERANGE, spec, "dimension %u is too large (at most %u nodes in all)", d + 1,
                                  MAX_NODES);
        if (k < 2)
            return rt__topo_error(err, RT_EINVAL, spec, "dimension %u is %u, must be >= 2", d + 1, (unsigned)k);
        nodes *= k;
        if (nodes > MAX_NODES)
            return rt__topo_error(err, RT_ERANGE, spec, "more than %u nodes", MAX_NODES);
        tt->k[d] = (uint32_t)k;
        tt->ndim = d + 1;
        if (*p == 'x') {
            p++;
            continue;
        }
        if (!*p)
            break;
        if (*p != ',')
            return rt__topo_error(err, RT_EINVAL, spec, "unexpected '%s' after dimension %u", rt__topo_quote(q, p, strlen(p)),
                                  d + 1);
        p++;
        if (strcmp(p, "adaptive") == 0) {
            tt->base.adaptive = 1;
            break;
        }
        return rt__topo_error(err, RT_EINVAL, spec, "unknown option '%s' (%s takes only 'adaptive')",
                              rt__topo_quote(q, p, strlen(p)), kind);
    }
    return RT_OK;
}

static int create(const char *spec, const char *args, int wrap, rt_topology **out, rt_error *err)
{
    struct topo_torus *tt = calloc(1, sizeof *tt);
    if (!tt)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    int rc = parse(spec, args, wrap, tt, err);
    if (rc) {
        free(tt);
        return rc;
    }
    tt->wrap = wrap;
    uint32_t n = 1, route = 2;
    for (uint32_t d = 0; d < tt->ndim; d++)
        n *= tt->k[d];
    /* n <= 2^24 and at most 2 + 2·6 links per node: every sum below stays far below 2^32. */
    uint32_t next = 2 * n, lo = 1;
    int len = snprintf(tt->base.spec, sizeof tt->base.spec, "%s:", wrap ? "torus" : "mesh");
    for (uint32_t d = 0; d < tt->ndim; d++) {
        uint32_t k = tt->k[d];
        tt->lo[d] = lo;
        tt->j[d] = wrap ? k : k - 1;
        tt->per_dir[d] = n / k * tt->j[d];
        tt->first[d] = next;
        next += 2 * tt->per_dir[d];
        route += wrap ? k / 2 : k - 1;
        lo *= k;
        len += snprintf(tt->base.spec + len, sizeof tt->base.spec - (size_t)len, "%s%u", d ? "x" : "", k);
    }
    if (tt->base.adaptive)
        snprintf(tt->base.spec + len, sizeof tt->base.spec - (size_t)len, ",adaptive");
    tt->base.nodes = n;
    tt->base.vertices = 2 * n;
    tt->base.links = next;
    tt->base.max_route = route;
    *out = &tt->base;
    return RT_OK;
}

static int torus_create(const char *spec, const char *args, rt_topology **out, rt_error *err)
{
    return create(spec, args, 1, out, err);
}

static int mesh_create(const char *spec, const char *args, rt_topology **out, rt_error *err)
{
    return create(spec, args, 0, out, err);
}

/* The id of router v's link in dimension d, direction + (pos) or -; the router has that link. */
static uint32_t net_link(const struct topo_torus *tt, uint32_t v, uint32_t d, int pos)
{
    uint32_t lo = tt->lo[d], k = tt->k[d];
    uint32_t c = v / lo % k, hi = v / lo / k;
    uint32_t j = (pos || tt->wrap) ? c : c - 1;
    return tt->first[d] + (pos ? 0 : tt->per_dir[d]) + (hi * tt->j[d] + j) * lo + v % lo;
}

/* Decodes a network link: its dimension, direction and the routers at both ends. */
static void decode(const struct topo_torus *tt, uint32_t link, uint32_t *d_out, int *pos, uint32_t *from,
                   uint32_t *to)
{
    uint32_t d = 0;
    while (d + 1 < tt->ndim && link >= tt->first[d + 1])
        d++;
    uint32_t r = link - tt->first[d], lo = tt->lo[d], k = tt->k[d];
    *pos = r < tt->per_dir[d];
    if (!*pos)
        r -= tt->per_dir[d];
    uint32_t low = r % lo;
    r /= lo;
    uint32_t j = r % tt->j[d], hi = r / tt->j[d];
    uint32_t c = (*pos || tt->wrap) ? j : j + 1;
    uint32_t c2 = *pos ? (c + 1) % k : (c + k - 1) % k;
    *d_out = d;
    *from = (hi * k + c) * lo + low;
    *to = (hi * k + c2) * lo + low;
}

static void torus_link(const rt_topology *t, uint32_t link, struct rt_link_info *o)
{
    const struct topo_torus *tt = (const struct topo_torus *)t;
    uint32_t n = t->nodes;
    if (link < n) {
        o->kind = RT_LINK_INJECT;
        o->from = link;
        o->to = n + link;
    } else if (link < 2 * n) {
        o->kind = RT_LINK_EJECT;
        o->from = link;
        o->to = link - n;
    } else {
        uint32_t d, from, to;
        int pos;
        decode(tt, link, &d, &pos, &from, &to);
        o->kind = RT_LINK_NET;
        o->level = (uint8_t)d;
        o->up = (uint8_t)pos;
        o->from = n + from;
        o->to = n + to;
    }
}

/* "r(1,2)" for router v into buf; snprintf-like. */
static int router_name(const struct topo_torus *tt, uint32_t v, char *buf, size_t n)
{
    char tmp[96];
    int len = 0;
    for (uint32_t d = 0; d < tt->ndim; d++)
        len += snprintf(tmp + len, sizeof tmp - (size_t)len, "%s%u", d ? "," : "", v / tt->lo[d] % tt->k[d]);
    return snprintf(buf, n, "r(%s)", tmp);
}

static size_t torus_link_name(const rt_topology *t, uint32_t link, char *buf, size_t n)
{
    const struct topo_torus *tt = (const struct topo_torus *)t;
    uint32_t nodes = t->nodes;
    char r[128];
    int len;
    if (link < nodes) {
        router_name(tt, link, r, sizeof r);
        len = snprintf(buf, n, "n%u>%s", link, r);
    } else if (link < 2 * nodes) {
        router_name(tt, link - nodes, r, sizeof r);
        len = snprintf(buf, n, "%s>n%u", r, link - nodes);
    } else {
        uint32_t d, from, to;
        int pos;
        decode(tt, link, &d, &pos, &from, &to);
        router_name(tt, from, r, sizeof r);
        len = snprintf(buf, n, "%s%c%c", r, pos ? '+' : '-', dim_names[d]);
    }
    return len < 0 ? 0 : (size_t)len;
}

/* The router-to-router hops from coordinate cs to cd in dimension d and their direction (*pos):
 * on a torus the shorter way round, exactly half way round the positive way. */
static uint32_t coord_hops(const struct topo_torus *tt, uint32_t cs, uint32_t cd, uint32_t d, int *pos)
{
    if (tt->wrap) {
        uint32_t k = tt->k[d], delta = cd >= cs ? cd - cs : cd + k - cs; /* steps the positive way */
        *pos = 2 * delta <= k;
        return *pos ? delta : k - delta;
    }
    *pos = cd > cs;
    return *pos ? cd - cs : cs - cd;
}

/* The same from router v to dst. */
static uint32_t dim_hops(const struct topo_torus *tt, uint32_t v, uint32_t dst, uint32_t d, int *pos)
{
    uint32_t k = tt->k[d], lo = tt->lo[d];
    return coord_hops(tt, v / lo % k, dst / lo % k, d, pos);
}

/* The router one hop from v in dimension d, direction pos. */
static uint32_t step(const struct topo_torus *tt, uint32_t v, uint32_t d, int pos)
{
    uint32_t k = tt->k[d], lo = tt->lo[d];
    uint32_t c = v / lo % k;
    uint32_t c2 = pos ? (c + 1 == k ? 0 : c + 1) : (c == 0 ? k - 1 : c - 1);
    return v - c * lo + c2 * lo;
}

/* Dimension order. In dimension d the coordinates below d are already dst's (low = dst mod lo)
 * and those above are still src's (hi), so the hops' links are net_link's numbers
 * first + (hi·J + j)·lo + low for consecutive j: a division per dimension instead of several per
 * hop (a route is computed for every message). */
static uint32_t torus_route(const rt_topology *t, uint32_t src, uint32_t dst, uint64_t salt, uint32_t *links)
{
    const struct topo_torus *tt = (const struct topo_torus *)t;
    (void)salt;
    uint32_t len = 0, hi = src, dhi = dst, low = 0;
    links[len++] = src;
    for (uint32_t d = 0; d < tt->ndim; d++) {
        uint32_t k = tt->k[d], lo = tt->lo[d];
        uint32_t c = hi % k, cd = dhi % k;
        hi /= k;
        dhi /= k;
        int pos;
        uint32_t hops = coord_hops(tt, c, cd, d, &pos);
        uint32_t base = tt->first[d] + (pos ? 0 : tt->per_dir[d]) + hi * tt->j[d] * lo + low;
        uint32_t shift = (pos || tt->wrap) ? 0 : 1; /* a mesh's "-" link of coordinate c is j = c - 1 */
        for (uint32_t i = 0; i < hops; i++) {
            links[len++] = base + (c - shift) * lo;
            c = pos ? (c + 1 == k ? 0 : c + 1) : (c == 0 ? k - 1 : c - 1);
        }
        low += cd * lo;
    }
    links[len++] = t->nodes + dst;
    return len;
}

/* Minimal adaptive routing: each dimension keeps dimension order's direction and hop count, and
 * at each router the next hop is, among the dimensions with hops left, the one whose link holds
 * the fewest flows (ties: the lowest dimension). With no load anywhere that is dimension order.
 * A real network needs escape channels to stay free of deadlock (Duato's algorithm, 004); the
 * flow model holds no buffers, so it needs none. */
static uint32_t torus_route_load(const rt_topology *t, uint32_t src, uint32_t dst, rt_link_load_fn load, void *ctx,
                                 uint32_t *links)
{
    const struct topo_torus *tt = (const struct topo_torus *)t;
    uint32_t hops[MAX_DIMS], len = 0, v = src;
    int pos[MAX_DIMS];
    for (uint32_t d = 0; d < tt->ndim; d++)
        hops[d] = dim_hops(tt, src, dst, d, &pos[d]);
    links[len++] = src;
    for (;;) {
        uint32_t best = MAX_DIMS, best_link = 0, best_load = 0;
        for (uint32_t d = 0; d < tt->ndim; d++) {
            if (!hops[d])
                continue;
            uint32_t l = net_link(tt, v, d, pos[d]), ld = load(ctx, l);
            if (best == MAX_DIMS || ld < best_load) {
                best = d;
                best_link = l;
                best_load = ld;
            }
        }
        if (best == MAX_DIMS)
            break;
        links[len++] = best_link;
        v = step(tt, v, best, pos[best]);
        hops[best]--;
    }
    links[len++] = t->nodes + dst;
    return len;
}

const struct rt__topo_ops rt__topo_torus = {"torus", torus_create, torus_link, torus_link_name, torus_route,
                                            torus_route_load};
const struct rt__topo_ops rt__topo_mesh = {"mesh", mesh_create, torus_link, torus_link_name, torus_route,
                                           torus_route_load};
