/* SPDX-License-Identifier: MIT */
/* The distributed analysis's collective steps (docs/distributed.md): agreement on failure,
 * reductions, the times of remote sources, gathering rows at process 0, and walks that hop
 * between processes. Each is called by every process in the same order, and returns at once
 * when one process holds every rank, so the analyses have one code path for both. What they
 * need of a graph comes through depgraph_part.h: this file knows the records' format, not the
 * graph's layout. */
#include "depgraph_part.h"

#include <stdlib.h>
#include <string.h>

static const char *path_of(const struct rt__dg_part *dp) { return rt_trace_path(dp->t); }

int rt__dg_part_init(struct rt__dg_part *dp, const rt_trace *t, const struct rt_replay_part *p, const uint64_t *n,
                     rt_error *err)
{
    *dp = (struct rt__dg_part){.t = t, .n = n, .nranks = rt_trace_ranks(t)};
    dp->hi = dp->nranks;
    if (!p)
        return RT_OK;
    int ok = p->nprocs > 0 && p->me < p->nprocs && p->first_rank && p->first_rank[0] == 0 &&
             p->first_rank[p->nprocs] == dp->nranks;
    for (uint32_t q = 0; ok && q < p->nprocs; q++)
        ok = p->first_rank[q] <= p->first_rank[q + 1];
    if (!ok)
        return rt_error_set(err, RT_EINVAL, "%s: the parts of a distributed analysis do not split the %u ranks",
                            rt_trace_path(t), dp->nranks);
    dp->p = p;
    dp->lo = p->first_rank[p->me];
    dp->hi = p->first_rank[p->me + 1];
    return RT_OK;
}

int rt__dg_agree(const struct rt__dg_part *dp, int rc, rt_error *err)
{
    const struct rt_replay_part *p = dp->p;
    if (!p)
        return rc;
    int64_t v = rc && rc != RT_EREMOTE ? (int64_t)p->me : INT64_MAX; /* the first real error */
    int prc = p->reduce(p->ud, &v, 1, 0);
    if (prc)
        return rc ? rc : rt_error_set(err, prc, "%s: distributed analysis: reduction failed", path_of(dp));
    if (v == INT64_MAX || v == (int64_t)p->me)
        return rc;
    return rt_error_set(err, RT_EREMOTE, "%s: stopped: process %lld of the distributed analysis failed", path_of(dp),
                        (long long)v);
}

int rt__dg_reduce(const struct rt__dg_part *dp, int64_t *v, size_t n, int sum, int rc, rt_error *err)
{
    const struct rt_replay_part *p = dp->p;
    if (!p)
        return rc;
    int prc = p->reduce(p->ud, v, n, sum);
    if (prc && !rc)
        rc = rt_error_set(err, prc, "%s: distributed analysis: reduction failed", path_of(dp));
    return rt__dg_agree(dp, rc, err);
}

/* The process holding rank @p r: the last one whose range starts at or before r (empty ranges
 * start there too, but a later process then starts there as well). */
static uint32_t owner(const struct rt__dg_part *dp, uint32_t r)
{
    const struct rt_replay_part *p = dp->p;
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

static int xchg_run(const struct rt__dg_part *dp, struct xchg *x, rt_error *err)
{
    int rc = dp->p->exchange(dp->p->ud, x->out, x->outlen, x->in, x->inlen);
    return rc ? rt_error_set(err, rc, "%s: distributed analysis: exchange failed", path_of(dp)) : RT_OK;
}

/* ------------------------------------------------------------------ ghosts */

/* The times of remote sources held by other processes: open addressing, key = the source's
 * number (r << IDX_BITS | j) + 1 (0: empty slot). */
struct ghost {
    uint64_t key;
    rt_time_ps t;
};
struct rt__dg_ghosts {
    struct ghost *v;
    uint64_t n, cap; /* cap: 0 or a power of two */
};

void rt__dg_part_free(struct rt__dg_part *dp)
{
    if (dp->gh)
        free(dp->gh->v);
    free(dp->gh);
    dp->gh = NULL;
}

static uint64_t ghost_key(uint32_t r, uint64_t j) { return ((uint64_t)r << IDX_BITS | j) + 1; }

static uint64_t ghost_home(uint64_t key, uint64_t cap)
{
    key *= 0x9E3779B97F4A7C15ull;
    return (key ^ key >> 29) & (cap - 1);
}

rt_time_ps rt__dg_ghost(const struct rt__dg_part *dp, uint32_t r, uint64_t j)
{
    const struct rt__dg_ghosts *gh = dp->gh;
    if (!gh || !gh->cap)
        return NO_TIME;
    uint64_t key = ghost_key(r, j);
    for (uint64_t h = ghost_home(key, gh->cap);; h = (h + 1) & (gh->cap - 1)) {
        if (gh->v[h].key == key)
            return gh->v[h].t;
        if (!gh->v[h].key)
            return NO_TIME;
    }
}

/* Inserts @p key with NO_TIME unless present; *fresh says whether it was new. */
static int ghost_put(struct rt__dg_part *dp, uint64_t key, int *fresh)
{
    if (!dp->gh && !(dp->gh = calloc(1, sizeof *dp->gh)))
        return RT_ENOMEM;
    struct rt__dg_ghosts *gh = dp->gh;
    if ((gh->n + 1) * 2 > gh->cap) {
        uint64_t ncap = gh->cap ? gh->cap * 2 : 64;
        struct ghost *nv = calloc(ncap, sizeof *nv);
        if (!nv)
            return RT_ENOMEM;
        for (uint64_t i = 0; i < gh->cap; i++)
            if (gh->v[i].key) {
                uint64_t h = ghost_home(gh->v[i].key, ncap);
                while (nv[h].key)
                    h = (h + 1) & (ncap - 1);
                nv[h] = gh->v[i];
            }
        free(gh->v);
        gh->v = nv;
        gh->cap = ncap;
    }
    uint64_t h = ghost_home(key, gh->cap);
    while (gh->v[h].key && gh->v[h].key != key)
        h = (h + 1) & (gh->cap - 1);
    *fresh = !gh->v[h].key;
    if (*fresh) {
        gh->v[h] = (struct ghost){key, NO_TIME};
        gh->n++;
    }
    return RT_OK;
}

static void ghost_set(struct rt__dg_part *dp, uint64_t key, rt_time_ps t)
{
    struct rt__dg_ghosts *gh = dp->gh;
    uint64_t h = ghost_home(key, gh->cap);
    while (gh->v[h].key != key)
        h = (h + 1) & (gh->cap - 1);
    gh->v[h].t = t;
}

struct u64s {
    uint64_t *v;
    uint64_t n, cap;
};

/* Queues the remote source of @p x for its owner, once. */
static int want(struct rt__dg_part *dp, const struct rt__dep_rec *x, struct u64s *ask)
{
    if (src_kind(x) == RT_DEP_NONE || rt__dg_held(dp, src_rank(x)) || src_rank(x) >= dp->nranks)
        return RT_OK;
    uint64_t key = ghost_key(src_rank(x), src_index(x));
    int fresh, rc = ghost_put(dp, key, &fresh);
    if (rc || !fresh)
        return rc;
    struct u64s *q = &ask[owner(dp, src_rank(x))];
    if (rt__dg_grow((void **)&q->v, &q->cap, sizeof *q->v, q->n + 1))
        return RT_ENOMEM;
    q->v[q->n++] = key;
    return RT_OK;
}

/* Two exchanges: the keys each process wants from each other one, then their times in the
 * same order (NO_TIME for an event its owner does not have: the asker's check names it). */
int rt__dg_fetch(struct rt__dg_part *dp, const struct rt__dep_rec *rec1, uint64_t n1, const struct rt__dep_rec *rec2,
                 uint64_t n2, const struct rt__dep_rec *rec3, uint64_t n3, rt__dg_time_fn time_of, const void *graph,
                 rt_error *err)
{
    const struct rt_replay_part *p = dp->p;
    if (!p)
        return RT_OK;
    uint32_t np = p->nprocs;
    struct u64s *ask = calloc(np, sizeof *ask);
    struct xchg x;
    int64_t **ans = calloc(np, sizeof *ans);
    int rc = xchg_init(&x, np) == RT_OK && ask && ans ? RT_OK : RT_ENOMEM;
    for (uint64_t i = 0; !rc && i < n1; i++)
        rc = want(dp, &rec1[i], ask);
    for (uint64_t i = 0; !rc && i < n2; i++)
        rc = want(dp, &rec2[i], ask);
    for (uint64_t i = 0; !rc && i < n3; i++)
        rc = want(dp, &rec3[i], ask);
    if (rc)
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    if ((rc = rt__dg_agree(dp, rc, err)))
        goto out;
    for (uint32_t q = 0; q < np; q++) {
        x.out[q] = ask[q].v;
        x.outlen[q] = ask[q].n * sizeof(uint64_t);
    }
    rc = xchg_run(dp, &x, err);
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
            ans[q][i] = rt__dg_held(dp, r) && j < dp->n[r] ? time_of(graph, r, j) : NO_TIME;
        }
        x.out[q] = ans[q];
        x.outlen[q] = k * sizeof(int64_t);
    }
    if ((rc = rt__dg_agree(dp, rc, err)))
        goto out;
    rc = xchg_run(dp, &x, err);
    for (uint32_t q = 0; !rc && q < np; q++) {
        if (x.inlen[q] != ask[q].n * sizeof(int64_t)) {
            rc = rt_error_set(err, RT_EINVAL, "%s: distributed analysis: process %u answered %zu bytes for %llu times",
                              path_of(dp), q, x.inlen[q], (unsigned long long)ask[q].n);
            break;
        }
        for (uint64_t i = 0; i < ask[q].n; i++) {
            int64_t t;
            memcpy(&t, (const char *)x.in[q] + i * sizeof t, sizeof t);
            ghost_set(dp, ask[q].v[i], t);
        }
    }
    rc = rt__dg_agree(dp, rc, err);
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

int rt__dg_gather(const struct rt__dg_part *dp, const void *rows, size_t len, void **all, size_t *alllen, int rc,
                  rt_error *err)
{
    const struct rt_replay_part *p = dp->p;
    *all = NULL;
    *alllen = 0;
    if (!p)
        return rc;
    uint32_t np = p->nprocs;
    struct xchg x;
    if (xchg_init(&x, np) && !rc)
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    if ((rc = rt__dg_agree(dp, rc, err)))
        goto out;
    x.out[0] = (void *)rows;
    x.outlen[0] = len;
    rc = xchg_run(dp, &x, err);
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
    rc = rt__dg_agree(dp, rc, err);
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
int rt__dg_walks(const struct rt__dg_part *dp, struct rt__dg_toks *out, rt__dg_walk_fn fn, void *ctx, int rc,
                 rt_error *err)
{
    const struct rt_replay_part *p = dp->p;
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
            if (rt__dg_toks_push(&by[owner(dp, out->v[i].rank)], &out->v[i]))
                rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        int64_t v[2] = {(int64_t)out->n, rc != RT_OK}; /* none on its way anywhere: the walks are over */
        out->n = 0;
        int prc = p->reduce(p->ud, v, 2, 1);
        if (prc && !rc)
            rc = rt_error_set(err, prc, "%s: distributed analysis: reduction failed", path_of(dp));
        if (v[1] || prc) { /* every process saw it: they agree on who reports */
            rc = rt__dg_agree(dp, rc, err);
            break;
        }
        if (v[0] == 0)
            break;
        for (uint32_t k = 0; k < np; k++) {
            x.out[k] = by[k].v;
            x.outlen[k] = by[k].n * sizeof *by[k].v;
        }
        rc = xchg_run(dp, &x, err);
        got.n = 0;
        for (uint32_t k = 0; !rc && k < np; k++)
            for (size_t i = 0; !rc && i < x.inlen[k] / sizeof(struct rt__dg_tok); i++) {
                struct rt__dg_tok t;
                memcpy(&t, (const char *)x.in[k] + i * sizeof t, sizeof t);
                if (!rt__dg_held(dp, t.rank) || t.index >= dp->n[t.rank])
                    rc = rt_error_set(err, RT_EINVAL, "%s: distributed analysis: a walk reached rank %u event %llu, "
                                      "which this process does not hold", path_of(dp), t.rank, (unsigned long long)t.index);
                else if (rt__dg_toks_push(&got, &t))
                    rc = rt_error_set(err, RT_ENOMEM, "out of memory");
            }
        for (uint64_t i = 0; !rc && i < got.n; i++) {
            struct rt__dg_tok t = got.v[i];
            int w = fn(ctx, &t, err);
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
