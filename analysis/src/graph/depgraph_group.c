/* SPDX-License-Identifier: MIT */
/* How the analyses group edges: the breakdown rows (by rank, call site, region instance, message
 * size, wait kind, cause, blame), summed over the processes and sorted, and the event context
 * (call site, region instance, message size) that says which rows an edge falls in. The inline
 * per-event parts are in depgraph_group.h. */
#include "depgraph_group.h"

#include <string.h>

/* ------------------------------------------------------------------ breakdown rows */

static uint64_t skey_hash(uint8_t group, uint8_t wait, uint32_t id, uint32_t region, uint64_t inst)
{
    uint64_t h = (uint64_t)group << 56 ^ (uint64_t)wait << 48 ^ (uint64_t)id * 0x9E3779B97F4A7C15ull ^
                 ((uint64_t)region << 17 | region >> 15) ^ inst * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ h >> 29;
}

struct rt_dep_share *rt__dg_smap_find(struct smap *m, uint8_t group, uint8_t wait, uint32_t id, uint32_t region,
                                      uint64_t inst)
{
    if (m->n * 2 >= m->cap) {
        uint64_t ncap = m->cap ? m->cap * 2 : 64;
        struct rt_dep_share *nv = malloc(ncap * sizeof *nv);
        if (!nv) {
            m->oom = 1;
            return NULL;
        }
        for (uint64_t i = 0; i < ncap; i++)
            nv[i].group = 0xff; /* empty slot */
        for (uint64_t i = 0; i < m->cap; i++) {
            struct rt_dep_share *o = &m->v[i];
            if (o->group == 0xff)
                continue;
            uint64_t h = skey_hash(o->group, o->wait, o->id, o->region, o->instance) & (ncap - 1);
            while (nv[h].group != 0xff)
                h = (h + 1) & (ncap - 1);
            nv[h] = *o;
        }
        free(m->v);
        m->v = nv;
        m->cap = ncap;
        memset(m->last, 0, sizeof m->last);
    }
    uint64_t h = skey_hash(group, wait, id, region, inst) & (m->cap - 1);
    struct rt_dep_share *e = &m->v[h];
    while (e->group != 0xff && !skey_is(e, group, wait, id, region, inst)) {
        h = (h + 1) & (m->cap - 1);
        e = &m->v[h];
    }
    if (e->group == 0xff) {
        *e = (struct rt_dep_share){group, wait, id, region, inst, 0, 0};
        m->n++;
    }
    if (group < RT_GROUP_COUNT) {
        m->last[group][m->older[group]] = e;
        m->older[group] = (uint8_t)((m->older[group] + 1) % SMAP_RECENT);
    }
    return e;
}

static rt_time_ps absv(rt_time_ps x) { return x < 0 ? -x : x; }

static int share_cmp_by(const struct rt_dep_share *a, const struct rt_dep_share *b, int abs_sum)
{
    if (a->wait != b->wait)
        return a->wait < b->wait ? -1 : 1;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    rt_time_ps ka = abs_sum ? absv(a->value) + absv(a->value2) : a->value;
    rt_time_ps kb = abs_sum ? absv(b->value) + absv(b->value2) : b->value;
    if (ka != kb)
        return ka > kb ? -1 : 1;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    if (a->region != b->region)
        return a->region < b->region ? -1 : 1;
    return a->instance < b->instance ? -1 : a->instance > b->instance;
}

static int share_cmp(const void *a, const void *b) { return share_cmp_by(a, b, 0); }
static int share_cmp_abs(const void *a, const void *b) { return share_cmp_by(a, b, 1); }

/* Packs the rows into a sorted array (owned by the caller); the map is freed. */
static struct rt_dep_share *smap_finish(struct smap *m, uint64_t *n, int abs_sum)
{
    struct rt_dep_share *out = malloc((m->n ? m->n : 1) * sizeof *out);
    if (!out || m->oom) {
        free(out);
        free(m->v);
        return NULL;
    }
    uint64_t k = 0;
    for (uint64_t i = 0; i < m->cap; i++)
        if (m->v[i].group != 0xff)
            out[k++] = m->v[i];
    free(m->v);
    qsort(out, k, sizeof *out, abs_sum ? share_cmp_abs : share_cmp);
    *n = k;
    return out;
}

/* At process 0 the rows of every process are added into a map of their own (others' rows may
 * have keys this process has not), then sorted as one process's are. */
int rt__dg_shares_finish(const struct rt__dg_part *dp, struct smap *m, int abs_sum, struct rt_dep_share **out,
                         uint64_t *n, int rc, rt_error *err)
{
    struct smap all = {0};
    void *got = NULL;
    size_t len = 0;
    *out = NULL;
    *n = 0;
    if (dp->p) { /* field by field into zeroed rows, so that no padding byte travels */
        struct rt_dep_share *rows = calloc(m->n ? m->n : 1, sizeof *rows);
        uint64_t k = 0;
        if (!rc && (!rows || m->oom))
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        for (uint64_t i = 0; !rc && i < m->cap; i++) {
            const struct rt_dep_share *e = &m->v[i];
            if (e->group == 0xff)
                continue;
            rows[k].group = e->group;
            rows[k].wait = e->wait;
            rows[k].id = e->id;
            rows[k].region = e->region;
            rows[k].instance = e->instance;
            rows[k].value = e->value;
            rows[k++].value2 = e->value2;
        }
        free(m->v);
        *m = (struct smap){0};
        rc = rt__dg_gather(dp, rows, k * sizeof *rows, &got, &len, rc, err);
        free(rows);
        if (rc)
            return rc;
        for (size_t i = 0; i < len / sizeof(struct rt_dep_share); i++) {
            const struct rt_dep_share *e = (const struct rt_dep_share *)got + i;
            smap_add(&all, e->group, e->wait, e->id, e->region, e->instance, e->value, e->value2);
        }
        free(got);
        m = &all;
    }
    if (!rc) {
        *out = smap_finish(m, n, abs_sum); /* frees the map's rows */
        m->v = NULL;
        if (!*out)
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    }
    free(m->v);
    m->v = NULL;
    return rt__dg_agree(dp, rc, err);
}

void rt__dg_smap_merge(struct smap *dst, const struct smap *src)
{
    for (uint64_t i = 0; i < src->cap; i++) {
        const struct rt_dep_share *e = &src->v[i];
        if (e->group != 0xff)
            smap_add(dst, e->group, e->wait, e->id, e->region, e->instance, e->value, e->value2);
    }
    dst->oom |= src->oom;
}

/* ------------------------------------------------------------------ event context */

int rt__dg_walker_init(struct walker *w, const rt_trace *t)
{
    memset(w, 0, sizeof *w);
    w->t = t;
    w->nregions = rt_trace_regions(t);
    size_t n = w->nregions ? w->nregions : 1;
    w->next_inst = calloc(n, sizeof *w->next_inst);
    w->cur_inst = calloc(n, sizeof *w->cur_inst);
    w->depth = calloc(n, sizeof *w->depth);
    w->wait_call = calloc(n, 1);
    if (!w->next_inst || !w->cur_inst || !w->depth || !w->wait_call)
        return RT_ENOMEM;
    for (uint32_t i = 0; i < w->nregions; i++) { /* (once, not a name compared per wait) */
        const char *name = rt_trace_region(t, i)->name;
        w->wait_call[i] = name && strncmp(name, "MPI_Wait", 8) == 0;
    }
    return RT_OK;
}

void rt__dg_walker_free(struct walker *w)
{
    free(w->next_inst);
    free(w->cur_inst);
    free(w->depth);
    free(w->wait_call);
    free(w->stack);
}

void rt__dg_walker_rank(struct walker *w, uint32_t r)
{
    w->r = r;
    memset(w->next_inst, 0, (w->nregions ? w->nregions : 1) * sizeof *w->next_inst);
    memset(w->depth, 0, (w->nregions ? w->nregions : 1) * sizeof *w->depth);
    w->nstack = 0;
    w->mpi_depth = 0;
    w->c = (struct ctx){RT_NONE, RT_NONE, 0, 0, RT_NONE, 0};
}

rt_bytes rt__dg_edge_bytes(const struct walker *w, const struct rt_event *ev, uint64_t n, uint64_t j)
{
    const struct rt_event *e = &ev[j];
    const struct ctx *c = &w->c;
    switch (e->kind) {
    case RT_EV_RECV:
        return rt__dg_scaled(w, rt_trace_payload(w->t, w->r, j));
    case RT_EV_IRECV:
    case RT_EV_ISEND_COMPLETE:
        return rt__dg_scaled(w, rt_trace_payload(w->t, w->r, e->ref < n ? e->ref : j));
    case RT_EV_COLL_END:
    case RT_EV_NBCOLL_END: {
        /* the size the program passed (a member's block), not the trace's byte convention: an
         * allreduce of 8 B on 8 ranks is 8 B here, though Score-P records 64 B each way */
        if (e->ref >= n)
            return rt__dg_scaled(w, rt_trace_payload(w->t, w->r, j));
        const struct rt_event *b = &ev[e->ref];
        struct rt_event_payload pb = rt_trace_payload(w->t, w->r, e->ref);
        const struct rt_comm *cm = rt_trace_comm(w->t, pb.comm);
        int op = (int)(e->kind == RT_EV_COLL_END ? b->aux : e->aux);
        uint32_t P = cm && cm->size ? cm->size : 1;
        struct rt_event_payload pe = rt_trace_payload(w->t, w->r, j);
        pe.comm = pb.comm;
        pb.bytes = rt__dg_scaled(w, pb);
        return rt_coll_call_bytes(op, (b->flags & RT_EVF_VECTOR) != 0, P, b->ref == w->r, pb.bytes,
                                  rt__dg_scaled(w, pe));
    }
    default:
        return c->call_bytes;
    }
}
