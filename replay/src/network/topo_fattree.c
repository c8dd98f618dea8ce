/* SPDX-License-Identifier: MIT */
/*
 * Topology `fattree:XGFT(h;m1,...,mh;w1,...,wh)`: the extended generalized fat tree of Öhring
 * et al. as used by Hoefler, Schneider and Lumsdaine ("The impact of network noise at large-scale
 * communication performance", ../shared/papers/002, section 4); `fattree:N[,radix=K]` is a
 * full-bisection XGFT of K-port switches (K = 36 by default) with at least N nodes.
 *
 * Structure: level 0 holds the N = m1·...·mh nodes; a level-l vertex is the pair (A, B), A in
 * 0..N/M_l-1 (the subtree it serves: nodes A·M_l .. (A+1)·M_l-1), B in 0..W_l-1, with
 * M_l = m1·...·ml and W_l = w1·...·wl (M_0 = W_0 = 1). Vertex (A, B) of level l < h has the
 * w_{l+1} parents (A / m_{l+1}, B + W_l·c) of level l+1, c = 0..w_{l+1}-1; a level-l switch has
 * m_l children (node v is (v, 0) on level 0). So level l holds N/M_l·W_l vertices.
 * Vertex ids: nodes 0..N-1; then level 1, level 2, ... level h, vertex (A, B) of level l being
 * the (A·W_l + B)-th of its level. Name: "n3" for a node, "sw<l>.<A·W_l+B>" for a switch.
 * Links: for each boundary l = 0..h-1 a block of the E_l = N/M_l·W_{l+1} up links then a block
 * of E_l down links; the up link from level-l vertex i (index within its level) to its parent c
 * is block + i·w_{l+1} + c, the down link back is that + E_l. With w1 = 1 node v's injection
 * link is v and its ejection link N+v; with w1 > 1 a node has w1 of each. Names: "n3>sw1.0",
 * "sw1.0>n3" (NIC links), "sw1.0^sw2.3" (up), "sw2.3>sw1.0" (down).
 *
 * Routing: static D-mod-k (destination mod k), the destination-based routing of Zahavi et al.
 * for k-ary n-trees, generalized to XGFTs by Rodriguez et al., "Oblivious routing schemes in
 * extended generalized fat tree networks", CLUSTER 2009 (OpenSM's ftree engine is
 * destination-based in the same spirit; its port order on a real fabric may differ). From s
 * to d go up to the lowest level L with s / M_L = d / M_L (the nearest common ancestors);
 * going up from level l the parent taken is
 *     c_l = floor(d / W_l) mod w_{l+1},
 * so that the level-L switch reached has B = d mod W_L (the destinations spread evenly over the
 * top switches); going down, the route is unique. A route has 2L links (same leaf switch: 2),
 * at most 2h.
 *
 * Full-bisection default (fattree:N,radix=K, K even >= 4): N <= K is one switch, XGFT(1;N;1);
 * otherwise the smallest h >= 2 with (K/2)^(h-1)·K >= N and XGFT(h; K/2,...,K/2, m_h; 1, K/2,
 * ..., K/2), m_h = ceil(N / (K/2)^(h-1)) <= K: every switch below the top has K/2 ports down and
 * K/2 up, the top switches m_h <= K down. So nodes >= N (e.g. fattree:64 is XGFT(2;18,4;1,18),
 * 72 nodes; fattree:648 is XGFT(2;18,36;1,18)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology_internal.h"

#define MAX_H 8
#define DEFAULT_RADIX 36
#define MAX_RADIX 4096

struct topo_fattree {
    struct rt_topology base;
    uint32_t h;
    uint32_t m[MAX_H + 1], w[MAX_H + 1]; /* 1-based: m[1..h], w[1..h] */
    uint32_t M[MAX_H + 1], W[MAX_H + 1]; /* M_l = m1·...·ml, W_l = w1·...·wl; [0] = 1 */
    uint32_t V[MAX_H + 1];               /* vertices of level l */
    uint32_t vfirst[MAX_H + 1];          /* id of level l's first vertex */
    uint32_t E[MAX_H];                   /* links in one direction between levels l and l+1 */
    uint32_t lfirst[MAX_H];              /* id of boundary l's first up link */
};

/* Reads "v1,v2,...," up to @p stop: the count in *n (values stored while n < MAX_H). */
static int parse_list(const char *spec, const char **pp, char stop, const char *what, uint32_t *vals, uint32_t *n,
                      rt_error *err)
{
    const char *p = *pp;
    char q[RT__QUOTE_SIZE];
    *n = 0;
    for (;;) {
        uint64_t v;
        int rc = rt__topo_number(&p, 0x7fffffffu, &v);
        if (rc == -1)
            return rt__topo_error(err, RT_EINVAL, spec, "%s%u: expected a number, found '%s'", what, *n + 1,
                                  rt__topo_quote(q, p, strlen(p)));
        if (rc == -2)
            return rt__topo_error(err, RT_ERANGE, spec, "%s%u is too large", what, *n + 1);
        if (v == 0)
            return rt__topo_error(err, RT_EINVAL, spec, "%s%u is 0, must be >= 1", what, *n + 1);
        if (*n < MAX_H)
            vals[*n + 1] = (uint32_t)v;
        ++*n;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p != stop)
            return rt__topo_error(err, RT_EINVAL, spec, "expected ',' or '%c' after %s%u, found '%s'", stop, what, *n,
                                  rt__topo_quote(q, p, strlen(p)));
        *pp = p + 1;
        return RT_OK;
    }
}

#define SYNTAX "expected fattree:XGFT(h;m1,...,mh;w1,...,wh), fattree:N or fattree:N,radix=K"

static int parse_xgft(const char *spec, const char *p, struct topo_fattree *ft, rt_error *err)
{
    char q[RT__QUOTE_SIZE];
    uint64_t h;
    uint32_t n;
    int rc = rt__topo_number(&p, MAX_H, &h);
    if (rc == -1)
        return rt__topo_error(err, RT_EINVAL, spec, SYNTAX);
    if (rc == -2 || h == 0)
        return rt__topo_error(err, RT_EINVAL, spec, "height h must be 1..%d", MAX_H);
    if (*p++ != ';')
        return rt__topo_error(err, RT_EINVAL, spec, "expected ';' after the height, " SYNTAX);
    ft->h = (uint32_t)h;
    if ((rc = parse_list(spec, &p, ';', "m", ft->m, &n, err)))
        return rc;
    if (n != h)
        return rt__topo_error(err, RT_EINVAL, spec, "height %u needs %u values m1..m%u, found %u", ft->h, ft->h, ft->h,
                              n);
    if ((rc = parse_list(spec, &p, ')', "w", ft->w, &n, err)))
        return rc;
    if (n != h)
        return rt__topo_error(err, RT_EINVAL, spec, "height %u needs %u values w1..w%u, found %u", ft->h, ft->h, ft->h,
                              n);
    if (*p)
        return rt__topo_error(err, RT_EINVAL, spec, "unexpected '%s' after ')'", rt__topo_quote(q, p, strlen(p)));
    return RT_OK;
}

/* fattree:N[,radix=K]: the full-bisection XGFT described at the top. */
static int parse_default(const char *spec, const char *p, struct topo_fattree *ft, rt_error *err)
{
    char q[RT__QUOTE_SIZE];
    uint64_t n, k = DEFAULT_RADIX;
    int rc = rt__topo_number(&p, 0x7fffffffu, &n);
    if (rc == -1)
        return rt__topo_error(err, RT_EINVAL, spec, SYNTAX);
    if (rc == -2 || n == 0)
        return rt__topo_error(err, RT_ERANGE, spec, "the number of nodes must be 1..%u", 0x7fffffffu);
    if (*p) {
        if (strncmp(p, ",radix=", 7) != 0)
            return rt__topo_error(err, RT_EINVAL, spec, "unexpected '%s' (expected fattree:N or fattree:N,radix=K)",
                                  rt__topo_quote(q, p, strlen(p)));
        p += 7;
        rc = rt__topo_number(&p, MAX_RADIX, &k);
        if (rc == -1 || *p)
            return rt__topo_error(err, RT_EINVAL, spec, "radix: expected a number, found '%s'",
                                  rt__topo_quote(q, p, strlen(p)));
        if (rc == -2 || k < 4 || k % 2)
            return rt__topo_error(err, RT_EINVAL, spec, "radix must be an even number of ports, 4..%u", MAX_RADIX);
    }
    if (n <= k) {
        ft->h = 1;
        ft->m[1] = (uint32_t)n;
        ft->w[1] = 1;
        return RT_OK;
    }
    uint64_t half = k / 2, below = half; /* below: nodes under one switch of level h-1 */
    uint32_t h = 2;
    while (below * k < n) {
        if (++h > MAX_H)
            return rt__topo_error(err, RT_ERANGE, spec, "%u nodes need more than %d levels of %u-port switches",
                                  (unsigned)n, MAX_H, (unsigned)k);
        below *= half;
    }
    ft->h = h;
    for (uint32_t l = 1; l < h; l++) {
        ft->m[l] = (uint32_t)half;
        ft->w[l + 1] = (uint32_t)half;
    }
    ft->w[1] = 1;
    ft->m[h] = (uint32_t)((n + below - 1) / below);
    return RT_OK;
}

static int fattree_create(const char *spec, const char *args, rt_topology **out, rt_error *err)
{
    if (!args || !*args)
        return rt__topo_error(err, RT_EINVAL, spec, SYNTAX);
    struct topo_fattree *ft = calloc(1, sizeof *ft);
    if (!ft)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    int rc;
    if (strncmp(args, "XGFT(", 5) == 0 || strncmp(args, "xgft(", 5) == 0)
        rc = parse_xgft(spec, args + 5, ft, err);
    else
        rc = parse_default(spec, args, ft, err);
    if (rc)
        goto fail;

    /* Sizes in 64 bits, each checked against 32-bit ids before it is stored. */
    uint32_t h = ft->h;
    uint64_t M = 1, W = 1;
    ft->M[0] = ft->W[0] = 1;
    for (uint32_t l = 1; l <= h; l++) {
        M *= ft->m[l];
        W *= ft->w[l];
        if (M > 0x7fffffffu || W > 0x7fffffffu) {
            rc = rt__topo_error(err, RT_ERANGE, spec, "%s is above 2^31", M > 0x7fffffffu ? "the number of nodes"
                                                                                         : "w1·...·wh");
            goto fail;
        }
        ft->M[l] = (uint32_t)M;
        ft->W[l] = (uint32_t)W;
    }
    uint32_t n = ft->M[h];
    uint64_t V[MAX_H + 1], E[MAX_H + 1] = {0}, vertices = 0, links = 0;
    for (uint32_t l = 0; l <= h; l++) {
        /* Each below 2^62 (both factors below 2^31); capped so that the sums cannot wrap. */
        V[l] = (uint64_t)(n / ft->M[l]) * ft->W[l];
        vertices += V[l] > RT__TOPO_MAX_IDS ? (uint64_t)RT__TOPO_MAX_IDS + 1 : V[l];
        if (l < h) {
            E[l] = (uint64_t)(n / ft->M[l]) * ft->W[l + 1];
            links += 2 * (E[l] > RT__TOPO_MAX_IDS ? (uint64_t)RT__TOPO_MAX_IDS + 1 : E[l]);
        }
    }
    if (vertices > RT__TOPO_MAX_IDS || links > RT__TOPO_MAX_IDS) {
        rc = rt__topo_error(err, RT_ERANGE, spec, "too large: %llu vertices and %llu links do not have 32-bit ids",
                            (unsigned long long)vertices, (unsigned long long)links);
        goto fail;
    }
    vertices = links = 0;
    for (uint32_t l = 0; l <= h; l++) {
        ft->vfirst[l] = (uint32_t)vertices;
        ft->V[l] = (uint32_t)V[l];
        vertices += V[l];
        if (l < h) {
            ft->lfirst[l] = (uint32_t)links;
            ft->E[l] = (uint32_t)E[l];
            links += 2 * E[l];
        }
    }
    ft->base.nodes = n;
    ft->base.vertices = (uint32_t)vertices;
    ft->base.links = (uint32_t)links;
    ft->base.max_route = 2 * h;

    char ms[96] = "", ws[96] = "";
    int lm = 0, lw = 0;
    for (uint32_t l = 1; l <= h; l++) {
        lm += snprintf(ms + lm, sizeof ms - (size_t)lm, "%s%u", l > 1 ? "," : "", ft->m[l]);
        lw += snprintf(ws + lw, sizeof ws - (size_t)lw, "%s%u", l > 1 ? "," : "", ft->w[l]);
    }
    rt__topo_set_spec(&ft->base, "fattree:XGFT(%u;%s;%s)", h, ms, ws);
    *out = &ft->base;
    return RT_OK;
fail:
    free(ft);
    return rc;
}

/* Decodes a link: the boundary l (lower end on level l), direction, lower vertex index i (in its
 * level) and parent choice c. */
static void decode(const struct topo_fattree *ft, uint32_t link, uint32_t *l_out, int *up, uint32_t *i, uint32_t *c)
{
    uint32_t l = 0;
    while (l + 1 < ft->h && link >= ft->lfirst[l + 1])
        l++;
    uint32_t r = link - ft->lfirst[l];
    *up = r < ft->E[l];
    if (!*up)
        r -= ft->E[l];
    *l_out = l;
    *i = r / ft->w[l + 1];
    *c = r % ft->w[l + 1];
}

/* The index (in level l+1) of the parent c of vertex i of level l. */
static uint32_t parent(const struct topo_fattree *ft, uint32_t l, uint32_t i, uint32_t c)
{
    uint32_t A = i / ft->W[l], B = i % ft->W[l];
    return A / ft->m[l + 1] * ft->W[l + 1] + B + ft->W[l] * c;
}

static void fattree_link(const rt_topology *t, uint32_t link, struct rt_link_info *o)
{
    const struct topo_fattree *ft = (const struct topo_fattree *)t;
    uint32_t l, i, c;
    int up;
    decode(ft, link, &l, &up, &i, &c);
    uint32_t lower = ft->vfirst[l] + i, upper = ft->vfirst[l + 1] + parent(ft, l, i, c);
    o->kind = l ? RT_LINK_NET : up ? RT_LINK_INJECT : RT_LINK_EJECT;
    o->level = (uint8_t)(l ? l + 1 : 0);
    o->up = (uint8_t)up;
    o->from = up ? lower : upper;
    o->to = up ? upper : lower;
}

static int vertex_name(uint32_t l, uint32_t i, char *buf, size_t n)
{
    return l ? snprintf(buf, n, "sw%u.%u", l, i) : snprintf(buf, n, "n%u", i);
}

static size_t fattree_link_name(const rt_topology *t, uint32_t link, char *buf, size_t n)
{
    const struct topo_fattree *ft = (const struct topo_fattree *)t;
    uint32_t l, i, c;
    int up;
    char lo[32], hi[32];
    decode(ft, link, &l, &up, &i, &c);
    vertex_name(l, i, lo, sizeof lo);
    vertex_name(l + 1, parent(ft, l, i, c), hi, sizeof hi);
    int len = up ? snprintf(buf, n, "%s%c%s", lo, l ? '^' : '>', hi) : snprintf(buf, n, "%s>%s", hi, lo);
    return len < 0 ? 0 : (size_t)len;
}

static uint32_t fattree_route(const rt_topology *t, uint32_t src, uint32_t dst, uint64_t salt, uint32_t *links)
{
    const struct topo_fattree *ft = (const struct topo_fattree *)t;
    (void)salt;
    uint32_t L = 1;
    while (src / ft->M[L] != dst / ft->M[L])
        L++;
    /* Up: D-mod-k, c_l = floor(d / W_l) mod w_{l+1}. */
    uint32_t len = 0, i = src;
    for (uint32_t l = 0; l < L; l++) {
        uint32_t c = dst / ft->W[l] % ft->w[l + 1];
        links[len++] = ft->lfirst[l] + i * ft->w[l + 1] + c;
        i = parent(ft, l, i, c);
    }
    /* Down: unique. The child (on level l-1) is on d's side, A = d / M_{l-1}; its B is the
     * switch's B without the top digit, and that digit is the parent choice c of the link. */
    uint32_t B = i % ft->W[L];
    for (uint32_t l = L; l >= 1; l--) {
        uint32_t c = B / ft->W[l - 1], Bc = B % ft->W[l - 1];
        uint32_t ic = dst / ft->M[l - 1] * ft->W[l - 1] + Bc;
        links[len++] = ft->lfirst[l - 1] + ft->E[l - 1] + ic * ft->w[l] + c;
        B = Bc;
    }
    return len;
}

const struct rt__topo_ops rt__topo_fattree = {"fattree", fattree_create, fattree_link, fattree_link_name,
                                              fattree_route, NULL /* static routes only */};
