/* SPDX-License-Identifier: MIT */
/*
 * Topology `dragonfly:g,a,p,h[,valiant]`: the dragonfly of Kim, Dally, Scott and Abts
 * ("Technology-driven, highly-scalable dragonfly topology", ISCA 2008): g groups of a routers,
 * p nodes per router, h global links per router; the routers of a group are joined all-to-all
 * by local links; g <= a·h + 1 so that every pair of groups has a global link.
 *
 * Vertices: nodes 0..N-1 (N = g·a·p), node v on router v / p; router i of group G is vertex
 * N + G·a + i, named "g<G>r<i>".
 * Global links (a relative, "palmtree"-like arrangement, cf. Camarero, Vallejo and Beivide,
 * "Topological characterization of Hamming and dragonfly networks", 2014): group G's global
 * port q = i·h + j (router i, its global port j) leads to group
 *     G + (q mod (g-1)) + 1  (mod g)
 * and arrives there at port q' = (q div (g-1))·(g-1) + (g-2 - q mod (g-1)), which leads back to
 * G: the two directions of one cable. Each pair of groups so has t = floor(a·h / (g-1)) cables;
 * the ports q >= t·(g-1) (when g-1 does not divide a·h) stay unconnected.
 * Links: node v's injection link v, ejection link N+v; then the local links, router i to
 * router j of group G being 2N + G·a·(a-1) + i·(a-1) + (j < i ? j : j-1); then the global links,
 * port q of group G leaving at 2N + g·a·(a-1) + G·t·(g-1) + q. Names: "n5>g1r2", "g1r2>n5",
 * "g1r2>g1r3" (local), "g1r2/1>g3r0" (global, leaving router 2 of group 1 by its port 1).
 *
 * Routing. Minimal: within a group [inject, local, eject] (no local link on the same router);
 * to another group local to the router of the cable, the global cable, local to the destination
 * router: at most 5 links. Of the t cables between two groups the route takes cable
 * k = d mod t (d the destination node): port q = k·(g-1) + ((Gd - Gs) mod g) - 1.
 * Valiant (`,valiant`; Valiant and Brebner's randomized routing, as Kim et al. apply it to the
 * dragonfly): a message to another group first goes minimally to the router where it enters an
 * intermediate group Gi, then minimally on to its destination (at most 7 links). Gi is drawn from the salt:
 * x = splitmix64(salt) mod (g-2) (splitmix64 = the output function of Steele et al.'s
 * SplitMix64 applied to salt + 0x9e3779b97f4a7c15), Gi the x-th group (from 0) other than the
 * source and destination groups. Traffic within a group, and every message when g < 3, is
 * routed minimally.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology_internal.h"

struct topo_dragonfly {
    struct rt_topology base;
    uint32_t g, a, p, h;
    int valiant;
    uint32_t t;          /* cables between each pair of groups */
    uint32_t ports;      /* connected global ports per group: t·(g-1) */
    uint32_t local0;     /* id of the first local link */
    uint32_t global0;    /* id of the first global link */
};

/* splitmix64's output function on the salt: a well-mixed, machine-independent choice. */
static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#define SYNTAX "expected dragonfly:g,a,p,h or dragonfly:g,a,p,h,valiant"

static int dragonfly_create(const char *spec, const char *args, rt_topology **out, rt_error *err)
{
    static const char *const names[4] = {"g (groups)", "a (routers per group)", "p (nodes per router)",
                                         "h (global links per router)"};
    char q[RT__QUOTE_SIZE];
    uint64_t v[4];
    int valiant = 0;
    if (!args || !*args)
        return rt__topo_error(err, RT_EINVAL, spec, SYNTAX);
    const char *p = args;
    uint32_t n = 0;
    for (;;) {
        if (*p >= '0' && *p <= '9') {
            if (n == 4)
                return rt__topo_error(err, RT_EINVAL, spec, "more than 4 numbers (%s)", SYNTAX);
            int rc = rt__topo_number(&p, 0x7fffffffu, &v[n]);
            if (rc == -2)
                return rt__topo_error(err, RT_ERANGE, spec, "%s is too large", names[n]);
            if (v[n] == 0)
                return rt__topo_error(err, RT_EINVAL, spec, "%s is 0, must be >= 1", names[n]);
            n++;
        } else if (n == 4 && strncmp(p, "valiant", 7) == 0 && (p[7] == 0 || p[7] == ',')) {
            valiant = 1;
            p += 7;
        } else if (n == 4 && strncmp(p, "minimal", 7) == 0 && (p[7] == 0 || p[7] == ',')) {
            valiant = 0;
            p += 7;
        } else if (n == 4) {
            return rt__topo_error(err, RT_EINVAL, spec, "unknown option '%s' (known: minimal, valiant)",
                                  rt__topo_quote(q, p, strcspn(p, ",")));
        } else {
            return rt__topo_error(err, RT_EINVAL, spec, "%s: expected a number, found '%s'", names[n],
                                  rt__topo_quote(q, p, strlen(p)));
        }
        if (!*p)
            break;
        if (*p != ',')
            return rt__topo_error(err, RT_EINVAL, spec, "unexpected '%s' (%s)", rt__topo_quote(q, p, strlen(p)), SYNTAX);
        p++;
    }
    if (n < 4)
        return rt__topo_error(err, RT_EINVAL, spec, "%s: found %u number%s, 4 expected", SYNTAX, n, n == 1 ? "" : "s");
    uint64_t g = v[0], a = v[1], pp = v[2], h = v[3];
    if (g - 1 > a * h)
        return rt__topo_error(err, RT_EINVAL, spec,
                              "%llu groups need at least %llu global links per group, a*h = %llu (g <= a*h + 1)",
                              (unsigned long long)g, (unsigned long long)(g - 1), (unsigned long long)(a * h));
    /* Sizes in 64 bits: every factor is below 2^31, and each product is checked before the next. */
    uint64_t routers = g * a, nodes = routers * pp;
    uint64_t t = g > 1 ? a * h / (g - 1) : 0;
    uint64_t local = routers * (a - 1), global = g * t * (g - 1);
    if (routers > RT__TOPO_MAX_IDS || nodes > RT__TOPO_MAX_IDS || nodes + routers > RT__TOPO_MAX_IDS ||
        local > RT__TOPO_MAX_IDS || global > RT__TOPO_MAX_IDS || 2 * nodes + local + global > RT__TOPO_MAX_IDS)
        return rt__topo_error(err, RT_ERANGE, spec, "too large: its vertices and links must have 32-bit ids");
    struct topo_dragonfly *df = calloc(1, sizeof *df);
    if (!df)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    df->g = (uint32_t)g;
    df->a = (uint32_t)a;
    df->p = (uint32_t)pp;
    df->h = (uint32_t)h;
    df->valiant = valiant;
    df->t = (uint32_t)t;
    df->ports = (uint32_t)(t * (g - 1));
    df->local0 = (uint32_t)(2 * nodes);
    df->global0 = (uint32_t)(2 * nodes + local);
    df->base.nodes = (uint32_t)nodes;
    df->base.vertices = (uint32_t)(nodes + routers);
    df->base.links = (uint32_t)(2 * nodes + local + global);
    /* The longest route: inject, a local hop where a group has a second router, per group
     * crossing a global cable and a local hop, eject. */
    uint32_t lh = a > 1, crossings = g < 2 ? 0 : (valiant && g >= 3) ? 2 : 1;
    df->base.max_route = 2 + lh + crossings * (1 + lh);
    rt__topo_set_spec(&df->base, "dragonfly:%u,%u,%u,%u%s", df->g, df->a, df->p, df->h, valiant ? ",valiant" : "");
    *out = &df->base;
    return RT_OK;
}

/* The global port q of group G: the group it leads to and the port it arrives at. */
static void peer(const struct topo_dragonfly *df, uint32_t G, uint32_t q, uint32_t *G2, uint32_t *q2)
{
    uint32_t g1 = df->g - 1, r = q % g1;
    *G2 = (G + r + 1) % df->g;
    *q2 = q / g1 * g1 + (g1 - 1 - r);
}

static uint32_t local_link(const struct topo_dragonfly *df, uint32_t G, uint32_t i, uint32_t j)
{
    return df->local0 + (G * df->a + i) * (df->a - 1) + (j < i ? j : j - 1);
}

static void dragonfly_link(const rt_topology *t, uint32_t link, struct rt_link_info *o)
{
    const struct topo_dragonfly *df = (const struct topo_dragonfly *)t;
    uint32_t n = t->nodes;
    if (link < n) {
        o->kind = RT_LINK_INJECT;
        o->from = link;
        o->to = n + link / df->p;
    } else if (link < 2 * n) {
        o->kind = RT_LINK_EJECT;
        o->from = n + (link - n) / df->p;
        o->to = link - n;
    } else if (link < df->global0) {
        uint32_t r = link - df->local0, ri = r / (df->a - 1), jj = r % (df->a - 1);
        uint32_t i = ri % df->a;
        o->kind = RT_LINK_NET;
        o->from = n + ri;
        o->to = n + (ri - i) + (jj < i ? jj : jj + 1);
    } else {
        uint32_t r = link - df->global0, G = r / df->ports, q = r % df->ports, G2, q2;
        peer(df, G, q, &G2, &q2);
        o->kind = RT_LINK_NET;
        o->level = 1;
        o->from = n + G * df->a + q / df->h;
        o->to = n + G2 * df->a + q2 / df->h;
    }
}

static size_t dragonfly_link_name(const rt_topology *t, uint32_t link, char *buf, size_t n)
{
    const struct topo_dragonfly *df = (const struct topo_dragonfly *)t;
    struct rt_link_info li = {0};
    uint32_t nodes = t->nodes, a = df->a;
    int len;
    dragonfly_link(t, link, &li);
    if (li.kind == RT_LINK_INJECT) {
        uint32_t r = li.to - nodes;
        len = snprintf(buf, n, "n%u>g%ur%u", li.from, r / a, r % a);
    } else if (li.kind == RT_LINK_EJECT) {
        uint32_t r = li.from - nodes;
        len = snprintf(buf, n, "g%ur%u>n%u", r / a, r % a, li.to);
    } else {
        uint32_t r1 = li.from - nodes, r2 = li.to - nodes;
        if (li.level == 0)
            len = snprintf(buf, n, "g%ur%u>g%ur%u", r1 / a, r1 % a, r2 / a, r2 % a);
        else
            len = snprintf(buf, n, "g%ur%u/%u>g%ur%u", r1 / a, r1 % a, (link - df->global0) % df->ports % df->h, r2 / a,
                           r2 % a);
    }
    return len < 0 ? 0 : (size_t)len;
}

/* Takes a message at router *i of group *G minimally into group Gt (unless it is there): a
 * local hop to the router of the cable (k = dst mod t), the cable; appends the links to
 * links[len..], leaves *G, *i at the router where it arrives, and returns the new length. */
static uint32_t hop_to_group(const struct topo_dragonfly *df, uint32_t *G, uint32_t *i, uint32_t Gt, uint32_t dst,
                             uint32_t *links, uint32_t len)
{
    if (*G == Gt)
        return len;
    uint32_t k = dst % df->t, q = k * (df->g - 1) + (Gt + df->g - *G) % df->g - 1, G2, q2;
    uint32_t gw = q / df->h;
    if (gw != *i)
        links[len++] = local_link(df, *G, *i, gw);
    links[len++] = df->global0 + *G * df->ports + q;
    peer(df, *G, q, &G2, &q2);
    *G = G2;
    *i = q2 / df->h;
    return len;
}

static uint32_t dragonfly_route(const rt_topology *t, uint32_t src, uint32_t dst, uint64_t salt, uint32_t *links)
{
    const struct topo_dragonfly *df = (const struct topo_dragonfly *)t;
    uint32_t a = df->a, rs = src / df->p, rd = dst / df->p;
    uint32_t Gs = rs / a, Gd = rd / a;
    uint32_t len = 0;
    links[len++] = src;
    uint32_t G = Gs, i = rs % a;
    if (df->valiant && Gs != Gd && df->g >= 3) {
        uint32_t x = (uint32_t)(mix64(salt) % (df->g - 2));
        uint32_t lo = Gs < Gd ? Gs : Gd, hi = Gs < Gd ? Gd : Gs;
        uint32_t Gi = x >= lo ? x + 1 : x;
        if (Gi >= hi)
            Gi++;
        len = hop_to_group(df, &G, &i, Gi, dst, links, len);
    }
    len = hop_to_group(df, &G, &i, Gd, dst, links, len);
    if (i != rd % a)
        links[len++] = local_link(df, G, i, rd % a);
    links[len++] = t->nodes + dst;
    return len;
}

const struct rt__topo_ops rt__topo_dragonfly = {"dragonfly", dragonfly_create, dragonfly_link, dragonfly_link_name,
                                                dragonfly_route, NULL /* static routes only */};
