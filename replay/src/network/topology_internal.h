/* SPDX-License-Identifier: MIT */
/*
 * What the topology files share: the ops table each topology fills (one file per topology, one
 * registry line in topology.c), the common head of every topology object, and the spec parsing
 * helpers of topology.c.
 */
#ifndef RETIME_TOPOLOGY_INTERNAL_H
#define RETIME_TOPOLOGY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "retime/topology.h"
#include "sidefile.h" /* rt__quote, RT__QUOTE_SIZE */

/* The longest canonical spec: fattree:XGFT(8;...) with 16 ten-digit numbers fits. */
#define RT__TOPO_SPEC_MAX 224

/* Every topology object starts with this head; the topology's own fields follow it. */
struct rt_topology {
    const struct rt__topo_ops *ops; /* set by rt_topology_create() */
    uint32_t nodes, vertices, links, max_route;
    int adaptive;                  /* route_load picks among minimal routes by link load */
    char spec[RT__TOPO_SPEC_MAX];  /* canonical */
};

/* One topology kind. topology.c checks the arguments before it calls link, link_name and route:
 * link < links; src != dst, both < nodes. */
struct rt__topo_ops {
    const char *kind;   /* "torus": the part of the spec before ':' */
    /* Builds the topology from @p args, the text after "kind:" (NULL when the spec has no ':'):
     * a calloc'ed object that starts with struct rt_topology (freed with free()), head filled
     * (but ops). @p spec is the whole spec, for error messages (rt__topo_error). */
    int (*create)(const char *spec, const char *args, rt_topology **out, rt_error *err);
    void (*link)(const rt_topology *t, uint32_t link, struct rt_link_info *out);
    /* snprintf-like: the name's uncut length */
    size_t (*link_name)(const rt_topology *t, uint32_t link, char *buf, size_t n);
    uint32_t (*route)(const rt_topology *t, uint32_t src, uint32_t dst, uint64_t salt, uint32_t *links);
    /* Adaptive routing by link load (NULL: the kind has none); called only when t->adaptive. */
    uint32_t (*route_load)(const rt_topology *t, uint32_t src, uint32_t dst, rt_link_load_fn load, void *ctx,
                           uint32_t *links);
};

extern const struct rt__topo_ops rt__topo_crossbar;
extern const struct rt__topo_ops rt__topo_torus;
extern const struct rt__topo_ops rt__topo_mesh;
extern const struct rt__topo_ops rt__topo_fattree;
extern const struct rt__topo_ops rt__topo_dragonfly;

/* Most vertices (and links) a topology may have: ids are uint32_t, UINT32_MAX is never an id. */
#define RT__TOPO_MAX_IDS 0xfffffffeu

/* Sets @p err to "topology 'SPEC': <message>" (the spec quoted, at most 60 characters) and
 * returns @p code. */
int rt__topo_error(rt_error *err, int code, const char *spec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Reads a decimal number at *@p p (digits only) and moves *@p p past it.
 * @return 0 with *@p out set; -1 when there is no digit; -2 when it is above @p max (the digits
 *         are skipped all the same). */
int rt__topo_number(const char **p, uint64_t max, uint64_t *out);

/* Quotes src[0..len) for an error message (rt__quote: at most 60 characters, \xNN escapes) into
 * @p dst of RT__QUOTE_SIZE bytes; returns dst. */
const char *rt__topo_quote(char *dst, const char *src, size_t len);

/* printf into t->spec, the canonical spec. */
void rt__topo_set_spec(rt_topology *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
