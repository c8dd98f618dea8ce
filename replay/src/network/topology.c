/* SPDX-License-Identifier: MIT */
/* The topology registry (one line per topology), the spec parsing helpers the topology files
 * share, and the public functions, which check their arguments and dispatch through the ops. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sidefile.h"
#include "topology_internal.h"

static const struct rt__topo_ops *const registry[] = {
    &rt__topo_crossbar,
    &rt__topo_torus,
    &rt__topo_mesh,
    &rt__topo_fattree,
    &rt__topo_dragonfly,
};
#define NREG (sizeof registry / sizeof registry[0])

const char *rt_topology_kinds(void)
{
    return "crossbar, torus, mesh, fattree, dragonfly";
}

const char *rt__topo_quote(char *dst, const char *src, size_t len)
{
    return rt__quote(dst, RT__QUOTE_SIZE, src, len);
}

int rt__topo_error(rt_error *err, int code, const char *spec, const char *fmt, ...)
{
    char q[RT__QUOTE_SIZE], msg[sizeof err->msg];
    va_list ap;
    if (!err)
        return code;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rt_error_set(err, code, "topology '%s': %s", rt__topo_quote(q, spec, strlen(spec)), msg);
}

int rt__topo_number(const char **p, uint64_t max, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    int over = 0;
    if (*s < '0' || *s > '9')
        return -1;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        /* Saturate instead of wrapping, so that 99999999999999999999 is "too large", not small. */
        if (over || v > (UINT64_MAX - d) / 10)
            over = 1;
        else
            v = v * 10 + d;
    }
    *p = s;
    if (over || v > max)
        return -2;
    *out = v;
    return 0;
}

void rt__topo_set_spec(rt_topology *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->spec, sizeof t->spec, fmt, ap);
    va_end(ap);
}

int rt_topology_create(const char *spec, rt_topology **out, rt_error *err)
{
    *out = NULL;
    if (!spec || !*spec)
        return rt_error_set(err, RT_EINVAL, "topology '': empty topology spec (known kinds: %s)", rt_topology_kinds());
    const char *colon = strchr(spec, ':');
    size_t klen = colon ? (size_t)(colon - spec) : strlen(spec);
    for (size_t i = 0; i < NREG; i++) {
        const struct rt__topo_ops *ops = registry[i];
        if (strlen(ops->kind) != klen || memcmp(ops->kind, spec, klen) != 0)
            continue;
        rt_topology *t = NULL;
        int rc = ops->create(spec, colon ? colon + 1 : NULL, &t, err);
        if (rc)
            return rc;
        t->ops = ops;
        *out = t;
        return RT_OK;
    }
    char q[RT__QUOTE_SIZE];
    return rt__topo_error(err, RT_EINVAL, spec, "unknown kind '%s' (known: %s)", rt__topo_quote(q, spec, klen),
                          rt_topology_kinds());
}

void rt_topology_destroy(rt_topology *t)
{
    free(t);
}

const char *rt_topology_spec(const rt_topology *t) { return t->spec; }
const char *rt_topology_kind(const rt_topology *t) { return t->ops->kind; }
uint32_t rt_topology_nodes(const rt_topology *t) { return t->nodes; }
uint32_t rt_topology_vertices(const rt_topology *t) { return t->vertices; }
uint32_t rt_topology_links(const rt_topology *t) { return t->links; }
uint32_t rt_topology_max_route(const rt_topology *t) { return t->max_route; }

int rt_topology_link(const rt_topology *t, uint32_t link, struct rt_link_info *out)
{
    memset(out, 0, sizeof *out);
    if (link >= t->links)
        return RT_ERANGE;
    t->ops->link(t, link, out);
    return RT_OK;
}

size_t rt_topology_link_name(const rt_topology *t, uint32_t link, char *buf, size_t n)
{
    if (n)
        buf[0] = 0;
    if (link >= t->links)
        return 0;
    return t->ops->link_name(t, link, buf, n);
}

uint32_t rt_topology_route(const rt_topology *t, uint32_t src, uint32_t dst, uint64_t salt, uint32_t *links)
{
    return rt_topology_route_load(t, src, dst, salt, NULL, NULL, links);
}

int rt_topology_adaptive(const rt_topology *t) { return t->adaptive && t->ops->route_load; }

uint32_t rt_topology_route_load(const rt_topology *t, uint32_t src, uint32_t dst, uint64_t salt, rt_link_load_fn load,
                                void *ctx, uint32_t *links)
{
    if (src == dst || src >= t->nodes || dst >= t->nodes)
        return 0;
    if (!load || !rt_topology_adaptive(t))
        return t->ops->route(t, src, dst, salt, links);
    return t->ops->route_load(t, src, dst, load, ctx, links);
}
