/* SPDX-License-Identifier: MIT */
/* The distributed analysis's collective steps (docs/distributed.md): agreement on failure,
 * reductions, the times of remote sources, gathering rows at process 0, and walks that hop
 * between processes. Each is called by every process in the same order, and returns at once
 * when one process holds every rank, so depgraph.c has one code path for both. */
#include "depgraph_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *path_of(const rt_depgraph *g) { return rt_trace_path(g->t); }

int rt__dg_agree(const rt_depgraph *g, int rc, rt_error *err)
{
    const struct rt_replay_part *p = g->part;
    if (!p)
        return rc;
    int64_t v = rc && rc != RT_EREMOTE ? (int64_t)p->me : INT64_MAX; /* the first real error */
    int prc = p->reduce(p->ud, &v, 1, 0);
    if (prc)
        return rc ? rc : rt_error_set(err, prc, "%s: distributed analysis: reduction failed", path_of(g));
    if (v == INT64_MAX || v == (int64_t)p->me)
        return rc;
    return rt_error_set(err, RT_EREMOTE, "%s: stopped: process %lld of the distributed analysis failed", path_of(g),
                        (long long)v);
}

int rt__dg_reduce(const rt_depgraph *g, int64_t *v, size_t n, int sum, int rc, rt_error *err)
{
    const struct rt_replay_part *p = g->part;
    if (!p)
        return rc;
    int prc = p->reduce(p->ud, v, n, sum);
    if (prc && !rc)
        rc = rt_error_set(err, prc, "%s: distributed analysis: reduction failed", path_of(g));
    return rt__dg_agree(g, rc, err);
}

/* The process holding rank @p r: the last one whose range starts at or before r (empty ranges
 * start there too, but a later process then starts there as well). */
static uint32_t owner(const rt_depgraph *g, uint32_t r)
{
    const struct rt_replay_part *p = g->part;
    uint32_t lo = 0, hi = p->nprocs;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->first_rank[mid] <= r)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int rt__dg_grow(void **p, uint64_t *cap, size_t elem, uint64_t need)
{
    if (need <= *cap)
        return 0;
    uint64_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    if (ncap > SIZE_MAX / elem)
        return -1;
    void *n = realloc(*p, ncap * elem);
    if (!n)
        return -1;
    *p = n;
    *cap = ncap;
    return 0;
}

/* The arrays of one exchange: per process what goes out and what came in. */
struct xchg {
    void **out, **in;
    size_t *outlen, *inlen;
};

static int xchg_init(struct xchg *x, uint32_t np)
{
    x->out = calloc(np, sizeof *x->out);
    x->in = calloc(np, sizeof *x->in);
    x->outlen = calloc(np, sizeof *x->outlen);
    x->inlen = calloc(np, sizeof *x->inlen);
    return x->out && x->in && x->outlen && x->inlen ? RT_OK : RT_ENOMEM;
}

static void xchg_free(struct xchg *x)
{
    free(x->out);
    free(x->in);
    free(x->outlen);
    free(x->inlen);
}

static int xchg_run(const rt_depgraph *g, struct xchg *x, rt_error *err)
{
    int rc = g->part->exchange(g->part->ud, x->out, x->outlen, x->in, x->inlen);
    return rc ? rt_error_set(err, rc, "%s: distributed analysis: exchange failed", path_of(g)) : RT_OK;
}

/* ------------------------------------------------------------------ ghosts */

static uint64_t ghost_key(uint32_t r, uint64_t j) { return ((uint64_t)r << IDX_BITS | j) + 1; }

static uint64_t ghost_home(uint64_t key, uint64_t cap)
{
    key *= 0x9E3779B97F4A7C15ull;
    return (key ^ key >> 29) & (cap - 1);
}

rt_time_ps rt__dg_ghost(const rt_depgraph *g, uint32_t r, uint64_t j)
{
    if (!g->capgh)
        return NO_TIME;
    uint64_t key = ghost_key(r, j);
    for (uint64_t h = ghost_home(key, g->capgh);; h = (h + 1) & (g->capgh - 1)) {
        if (g->gh[h].key == key)
            return g->gh[h].t;
        if (!g->gh[h].key)
            return NO_TIME;
    }
}

/* Inserts @p key with NO_TIME unless present; *fresh says whether it was new. */
static int ghost_put(rt_depgraph *g, uint64_t key, int *fresh)
{
    if ((g->ngh + 1) * 2 > g->capgh) {
        uint64_t ncap = g->capgh ? g->capgh * 2 : 64;
        struct rt__ghost *nv = calloc(ncap, sizeof *nv);
        if (!nv)
            return RT_ENOMEM;
        for (uint64_t i = 0; i < g->capgh; i++)
            if (g->gh[i].key) {
                uint64_t h = ghost_home(g->gh[i].key, ncap);
                while (nv[h].key)
                    h = (h + 1) & (ncap - 1);
                nv[h] = g->gh[i];
            }
        free(g->gh);
        g->gh = nv;
        g->capgh = ncap;
    }
    uint64_t h = ghost_home(key, g->capgh);
    while (g->gh[h].key && g->gh[h].key != key)
        h = (h + 1) & (g->capgh - 1);
    *fresh = !g->gh[h].key;
    if (*fresh) {
        g->gh[h] = (struct rt__ghost){key, NO_TIME};
        g->ngh++;
    }
    return RT_OK;
}

static void ghost_set(rt_depgraph *g, uint64_t key, rt_time_ps t)
{
    uint64_t h = ghost_home(key, g->capgh);
    while (g->gh[h].key != key)
        h = (h + 1) & (g->capgh - 1);
    g->gh[h].t = t;
}

struct u64s {
    uint64_t *v;
    uint64_t n, cap;
};

/* Queues the remote source of @p x for its owner, once. */
static int want(rt_depgraph *g, const struct rt__dep_rec *x, struct u64s *ask)
{
    if (src_kind(x) == RT_DEP_NONE || held(g, src_rank(x)) || src_rank(x) >= g->nranks)
        return RT_OK;
    uint64_t key = ghost_key(src_rank(x), src_index(x));
    int fresh, rc = ghost_put(g, key, &fresh);
    if (rc || !fresh)
        return rc;
    struct u64s *q = &ask[owner(g, src_rank(x))];
    if (rt__dg_grow((void **)&q->v, &q->cap, sizeof *q->v, q->n + 1))
        return RT_ENOMEM;
    q->v[q->n++] = key;
    return RT_OK;
}

/* Two exchanges: the keys each process wants from each other one, then their times in the
 * same order (NO_TIME for an event its owner does not have: the asker's check names it). */
int rt__dg_fetch(rt_depgraph *g, const rt_depgraph *h, rt_error *err)
{
    const struct rt_replay_part *p = g->part;
    if (!p)
        return RT_OK;
    uint32_t np = p->nprocs;
    struct u64s *ask = calloc(np, sizeof *ask);
    struct xchg x;
    int64_t **ans = calloc(np, sizeof *ans);
    int rc = xchg_init(&x, np) == RT_OK && ask && ans ? RT_OK : RT_ENOMEM;
    for (uint64_t i = 0; !rc && i < g->total; i++)
        rc = want(g, &edges_of(g)[i], ask);
    for (uint64_t i = 0; !rc && h && i < h->total; i++)
        rc = want(g, &edges_of(h)[i], ask);
    if (rc)
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    if ((rc = rt__dg_agree(g, rc, err)))
        goto out;
    for (uint32_t q = 0; q < np; q++) {
        x.out[q] = ask[q].v;
        x.outlen[q] = ask[q].n * sizeof(uint64_t);
    }
    rc = xchg_run(g, &x, err);
    for (uint32_t q = 0; !rc && q < np; q++) { /* answers, read before the next exchange reuses in[] */
        size_t k = x.inlen[q] / sizeof(uint64_t);
        ans[q] = malloc((k ? k : 1) * sizeof **ans);
        if (!ans[q]) {
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
            break;
        }
        for (size_t i = 0; i < k; i++) {
            uint64_t key;
            memcpy(&key, (const char *)x.in[q] + i * sizeof key, sizeof key);
            uint32_t r = (uint32_t)((key - 1) >> IDX_BITS);
            uint64_t j = (key - 1) & IDX_MASK;
            ans[q][i] = held(g, r) && j < g->n[r] ? time_at(g, r, j) : NO_TIME;
        }
        x.out[q] = ans[q];
        x.outlen[q] = k * sizeof(int64_t);
    }
    if ((rc = rt__dg_agree(g, rc, err)))
        goto out;
    rc = xchg_run(g, &x, err);
    for (uint32_t q = 0; !rc && q < np; q++) {
        if (x.inlen[q] != ask[q].n * sizeof(int64_t)) {
            rc = rt_error_set(err, RT_EINVAL, "%s: distributed analysis: process %u answered %zu bytes for %llu times",
                              path_of(g), q, x.inlen[q], (unsigned long long)ask[q].n);
            break;
        }
        for (uint64_t i = 0; i < ask[q].n; i++) {
            int64_t t;
            memcpy(&t, (const char *)x.in[q] + i * sizeof t, sizeof t);
            ghost_set(g, ask[q].v[i], t);
        }
    }
    rc = rt__dg_agree(g, rc, err);
out:
    for (uint32_t q = 0; q < np; q++) {
        if (ask)
            free(ask[q].v);
        if (ans)
            free(ans[q]);
    }
    free(ask);
    free(ans);
    xchg_free(&x);
    return rc;
}

/* ------------------------------------------------------------------ gathering */

int rt__dg_gather(const rt_depgraph *g, const void *rows, size_t len, void **all, size_t *alllen, int rc,
                  rt_error *err)
{
    const struct rt_replay_part *p = g->part;
    *all = NULL;
    *alllen = 0;
    if (!p)
        return rc;
    uint32_t np = p->nprocs;
    struct xchg x;
    if (xchg_init(&x, np) && !rc)
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    if ((rc = rt__dg_agree(g, rc, err)))
        goto out;
    x.out[0] = (void *)rows;
    x.outlen[0] = len;
    rc = xchg_run(g, &x, err);
    if (!rc && p->me == 0) {
        size_t total = 0;
        for (uint32_t q = 0; q < np; q++)
            total += x.inlen[q];
        char *buf = malloc(total ? total : 1);
        if (!buf) {
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        } else {
            size_t at = 0;
            for (uint32_t q = 0; q < np; q++) {
                if (x.inlen[q])
                    memcpy(buf + at, x.in[q], x.inlen[q]);
                at += x.inlen[q];
            }
            *all = buf;
            *alllen = total;
        }
    }
    rc = rt__dg_agree(g, rc, err);
    if (rc) {
        free(*all);
        *all = NULL;
        *alllen = 0;
    }
out:
    xchg_free(&x);
    return rc;
}

/* ------------------------------------------------------------------ walks */

int rt__dg_toks_push(struct rt__dg_toks *q, const struct rt__dg_tok *tok)
{
    if (rt__dg_grow((void **)&q->v, &q->cap, sizeof *q->v, q->n + 1))
        return RT_ENOMEM;
    q->v[q->n++] = *tok;
    return RT_OK;
}

/* Runs the walks in rounds of one reduction (tokens on their way, failures) and one exchange:
 * each process sends the tokens that left it and walks the ones it received. */
int rt__dg_walks(rt_depgraph *g, struct rt__dg_toks *out, rt__dg_walk_fn fn, void *ctx, int rc, rt_error *err)
{
    const struct rt_replay_part *p = g->part;
    if (!p) { /* every walk stayed here */
        free(out->v);
        *out = (struct rt__dg_toks){0};
        return rc;
    }
    uint32_t np = p->nprocs;
    struct rt__dg_toks *by = calloc(np, sizeof *by), got = {0};
    struct xchg x;
    if ((xchg_init(&x, np) || !by) && !rc)
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    for (;;) {
        for (uint32_t k = 0; !rc && k < np; k++)
            by[k].n = 0;
        for (uint64_t i = 0; !rc && i < out->n; i++)
            if (rt__dg_toks_push(&by[owner(g, out->v[i].rank)], &out->v[i]))
                rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        int64_t v[2] = {(int64_t)out->n, rc != RT_OK}; /* none on its way anywhere: the walks are over */
        out->n = 0;
        int prc = p->reduce(p->ud, v, 2, 1);
        if (prc && !rc)
            rc = rt_error_set(err, prc, "%s: distributed analysis: reduction failed", path_of(g));
        if (v[1] || prc) { /* every process saw it: they agree on who reports */
            rc = rt__dg_agree(g, rc, err);
            break;
        }
        if (v[0] == 0)
            break;
        for (uint32_t k = 0; k < np; k++) {
            x.out[k] = by[k].v;
            x.outlen[k] = by[k].n * sizeof *by[k].v;
        }
        rc = xchg_run(g, &x, err);
        got.n = 0;
        for (uint32_t k = 0; !rc && k < np; k++)
            for (size_t i = 0; !rc && i < x.inlen[k] / sizeof(struct rt__dg_tok); i++) {
                struct rt__dg_tok t;
                memcpy(&t, (const char *)x.in[k] + i * sizeof t, sizeof t);
                if (!held(g, t.rank) || t.index >= g->n[t.rank])
                    rc = rt_error_set(err, RT_EINVAL, "%s: distributed analysis: a walk reached rank %u event %llu, "
                                      "which this process does not hold", path_of(g), t.rank, (unsigned long long)t.index);
                else if (rt__dg_toks_push(&got, &t))
                    rc = rt_error_set(err, RT_ENOMEM, "out of memory");
            }
        for (uint64_t i = 0; !rc && i < got.n; i++) {
            struct rt__dg_tok t = got.v[i];
            int w = fn(g, ctx, &t, err);
            if (w == WALK_HOP)
                w = rt__dg_toks_push(out, &t) ? rt_error_set(err, RT_ENOMEM, "out of memory") : RT_OK;
            rc = w == WALK_DONE ? RT_OK : w;
        }
    }
    for (uint32_t k = 0; by && k < np; k++)
        free(by[k].v);
    free(by);
    free(got.v);
    xchg_free(&x);
    free(out->v);
    *out = (struct rt__dg_toks){0};
    return rc;
}
