/* SPDX-License-Identifier: MIT */
/*
 * Bursty background traffic: an interrupted Poisson process's two-state Markov chain
 * (004, section 2.1: the chain leaves state 1, "on", at rate sigma1 and state 2, "off", at
 * rate sigma2). A chain's switching times are drawn from its own random stream, so that its
 * state can be asked for at any time, in any order: up to the latest time asked for, a mark per
 * block of RT__BURST_BLOCK switches is kept (16 bytes), and the block a time falls in is drawn
 * again from its mark (issue #47: a switch every nanosecond kept 8 bytes each, 2.7 GB for a
 * 0.36 s trace; now 0.25 bytes per switch).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "noise_internal.h"
#include "retime/model.h"
#include "retime/units.h"

#define DOMAIN_BURST 0x4255525354ull /* "BURST" */

struct rt_burst {
    double leave_on, leave_off; /* sigma1, sigma2 [1/ns] */
    double latency, bandwidth;  /* factors during a burst */
    int per_rank;
};

static int rate(const char *spec, const char *args, const char *rkey, const char *tkey, double *out, rt_error *err)
{
    size_t n;
    const char *v = rt__noise_param(args, rkey, &n);
    char buf[64];
    rt_error e = {0};
    if (v) {
        if (n >= sizeof buf)
            return rt_error_set(err, RT_EINVAL, "burst '%s': value of %s too long", spec, rkey);
        memcpy(buf, v, n);
        buf[n] = '\0';
        if (rt_parse_rate_per_ns(buf, out, &e))
            return rt_error_set(err, RT_EUNIT, "burst '%s': %s: %s", spec, rkey, e.msg);
    } else {
        double mean;
        if (!rt__noise_param(args, tkey, &n))
            return rt_error_set(err, RT_EINVAL, "burst '%s': needs %s= (a rate) or %s= (a mean duration)", spec, rkey,
                                tkey);
        int rc = rt__noise_get("burst", spec, args, tkey, 1, &mean, err);
        if (rc)
            return rc;
        *out = mean > 0 ? 1.0 / mean : 0;
    }
    if (!(*out > 0) || !isfinite(*out))
        return rt_error_set(err, RT_ERANGE, "burst '%s': %s must be above 0", spec, rkey);
    if (v && rt__noise_param(args, tkey, &n))
        return rt_error_set(err, RT_EINVAL, "burst '%s': give %s= or %s=, not both", spec, rkey, tkey);
    return RT_OK;
}

int rt_burst_parse(const char *spec, rt_burst **out, rt_error *err)
{
    static const char *const keys[] = {"sigma1", "sigma2", "on", "off", "latency", "bandwidth", "scope", NULL};
    *out = NULL;
    if (!spec || strncmp(spec, "mmpp:", 5) != 0)
        return rt_error_set(err, RT_EINVAL, "burst '%s': expected mmpp:KEY=VALUE,...", spec ? spec : "");
    const char *args = spec + 5;
    struct rt_burst b = {.latency = 1, .bandwidth = 1};
    size_t n;
    int rc;
    if ((rc = rt__noise_only("burst", spec, args, keys, err)) || (rc = rate(spec, args, "sigma1", "on", &b.leave_on, err)) ||
        (rc = rate(spec, args, "sigma2", "off", &b.leave_off, err)))
        return rc;
    if (rt__noise_param(args, "latency", &n) && (rc = rt__noise_get("burst", spec, args, "latency", 0, &b.latency, err)))
        return rc;
    if (rt__noise_param(args, "bandwidth", &n) && (rc = rt__noise_get("burst", spec, args, "bandwidth", 0, &b.bandwidth, err)))
        return rc;
    if (!(b.latency > 0) || !(b.bandwidth > 0) || b.latency > 1e6 || b.bandwidth < 1e-6)
        return rt_error_set(err, RT_ERANGE, "burst '%s': latency and bandwidth factors must be above 0 (and sane)", spec);
    const char *sc = rt__noise_param(args, "scope", &n);
    if (sc && n == 4 && !strncmp(sc, "rank", 4))
        b.per_rank = 1;
    else if (sc && !(n == 6 && !strncmp(sc, "global", 6)))
        return rt_error_set(err, RT_EINVAL, "burst '%s': scope must be global or rank", spec);
    if (!(*out = malloc(sizeof **out)))
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    **out = b;
    return RT_OK;
}

void rt_burst_free(rt_burst *b)
{
    free(b);
}

double rt_burst_on_share(const rt_burst *b)
{
    return b->leave_off / (b->leave_on + b->leave_off);
}

double rt_burst_switch_rate(const rt_burst *b, uint32_t ranks)
{
    if (!b)
        return 0;
    /* 2 s1 s2 / (s1 + s2) per chain, one chain or one per rank */
    double hi = b->leave_on > b->leave_off ? b->leave_on : b->leave_off, lo = b->leave_on > b->leave_off ? b->leave_off : b->leave_on;
    double r = 2 * lo * (hi / (hi + lo)) * (b->per_rank ? (ranks ? ranks : 1) : 1);
    return isfinite(r) ? r : HUGE_VAL;
}

/* ------------------------------------------------------------------ chains */

int rt__burst_state_init(struct rt__burst_state *st, const rt_burst *b, uint64_t seed, uint64_t run, uint32_t ranks)
{
    memset(st, 0, sizeof *st);
    st->burst = b;
    st->seed = seed;
    st->run = run;
    st->nchains = b->per_rank ? (ranks ? ranks : 1) : 1;
    st->chain = calloc(st->nchains, sizeof *st->chain);
    return st->chain ? RT_OK : RT_ENOMEM;
}

void rt__burst_state_free(struct rt__burst_state *st)
{
    for (uint32_t i = 0; st->chain && i < st->nchains; i++) {
        free(st->chain[i].mark);
        free(st->chain[i].blk);
    }
    free(st->chain);
    st->chain = NULL;
}

uint64_t rt__burst_state_memory(const struct rt__burst_state *st)
{
    uint64_t m = (uint64_t)st->nchains * sizeof *st->chain;
    for (uint32_t i = 0; st->chain && i < st->nchains; i++)
        m += st->chain[i].capmark * sizeof *st->chain[i].mark +
             (st->chain[i].blk ? RT__BURST_BLOCK * sizeof *st->chain[i].blk : 0);
    return m;
}

/* The switch after @p prev drawn from @p rng, with the chain in state @p on before it. */
static rt_time_ps next_switch(const rt_burst *b, uint64_t *rng, int on, rt_time_ps prev)
{
    double r = on ? b->leave_on : b->leave_off;
    rt_time_ps d = rt_ns_to_ps(-log(rt_rng_uniform(rng)) / r);
    return prev + (d > 0 ? d : 1);
}

int rt__burst_on(struct rt__burst_state *st, uint32_t sender, rt_time_ps t)
{
    const rt_burst *b = st->burst;
    const uint64_t K = RT__BURST_BLOCK;
    uint32_t id = b->per_rank ? sender : 0;
    if (id >= st->nchains)
        id = st->nchains - 1;
    struct rt__burst_chain *c = &st->chain[id];
    if (!c->started) {
        c->rng = rt_rng_stream(st->seed, st->run, rt_rng_stream(DOMAIN_BURST, b->per_rank ? id : UINT64_MAX, 0));
        c->on0 = rt_rng_uniform(&c->rng) < rt_burst_on_share(b); /* stationary at time 0 */
        c->cur = UINT64_MAX;
        c->started = 1;
    }
    while (c->n == 0 || c->last <= t) { /* make switches until one lies after t */
        if (c->n % K == 0) {            /* a block begins: its mark */
            if (c->nmark == c->capmark) {
                size_t ncap = c->capmark ? c->capmark * 2 : 16;
                struct rt__burst_mark *q = realloc(c->mark, ncap * sizeof *q);
                if (!q)
                    return -1;
                c->mark = q;
                c->capmark = ncap;
            }
            c->mark[c->nmark++] = (struct rt__burst_mark){c->last, c->rng};
        }
        c->last = next_switch(b, &c->rng, (c->on0 ^ (c->n & 1)) != 0, c->last);
        c->n++;
        if (c->cur == c->nmark - 1) /* the block held is the one growing: made again when asked for */
            c->cur = UINT64_MAX;
    }
    /* the block t falls in: the last whose switch before lies at or before t */
    size_t lo = 0, hi = c->nmark;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (c->mark[mid].before <= t)
            lo = mid;
        else
            hi = mid;
    }
    if (c->cur != lo) { /* drawn again from its mark */
        if (!c->blk && !(c->blk = malloc(K * sizeof *c->blk)))
            return -1;
        uint64_t rng = c->mark[lo].rng, first = lo * K;
        rt_time_ps prev = c->mark[lo].before;
        c->ncur = (uint32_t)(c->n - first < K ? c->n - first : K);
        for (uint32_t j = 0; j < c->ncur; j++)
            prev = c->blk[j] = next_switch(b, &rng, (c->on0 ^ ((first + j) & 1)) != 0, prev);
        c->cur = lo;
    }
    uint32_t a = 0, z = c->ncur; /* the block's switches at or before t */
    while (a < z) {
        uint32_t mid = (a + z) / 2;
        if (c->blk[mid] <= t)
            a = mid + 1;
        else
            z = mid;
    }
    return (c->on0 ^ ((lo * K + a) & 1)) != 0;
}

rt_time_ps rt__burst_wire(const rt_burst *b, rt_time_ps lat, rt_time_ps xfer)
{
    return (rt_time_ps)llround((double)lat * b->latency + (double)xfer / b->bandwidth);
}
