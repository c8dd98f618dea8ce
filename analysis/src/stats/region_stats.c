/* SPDX-License-Identifier: MIT */
/* Per-instance region durations: each rank keeps its own list, merged once at the end. */
#include "retime/region_stats.h"

#include <stdlib.h>
#include <string.h>

struct span {
    rt_time_ns measured;
    rt_time_ps predicted;
};

struct rank_spans {
    struct span *v;
    uint64_t n, cap;
    int depth;
    rt_time_ns enter_meas;
    rt_time_ps enter_pred;
};

struct rt_region_stats {
    uint32_t region, nranks;
    struct rank_spans *ranks;
    struct rt_region_instance *inst;
    uint64_t ninst;
    int oom;
};

int rt_region_stats_create(const rt_trace *trace, uint32_t region, rt_region_stats **out, rt_error *err)
{
    rt_region_stats *s = calloc(1, sizeof *s);
    uint32_t n = rt_trace_ranks(trace);
    if (!s || !(s->ranks = calloc(n ? n : 1, sizeof *s->ranks))) {
        free(s);
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    }
    s->region = region;
    s->nranks = n;
    *out = s;
    return RT_OK;
}

void rt_region_stats_destroy(rt_region_stats *s)
{
    if (!s)
        return;
    for (uint32_t r = 0; r < s->nranks; r++)
        free(s->ranks[r].v);
    free(s->ranks);
    free(s->inst);
    free(s);
}

void rt_region_stats_on_event(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev,
                              rt_time_ps predicted)
{
    rt_region_stats *s = ud;
    (void)index;
    if ((ev->kind != RT_EV_ENTER && ev->kind != RT_EV_LEAVE) || ev->ref != s->region || rank >= s->nranks)
        return;
    struct rank_spans *R = &s->ranks[rank];
    if (ev->kind == RT_EV_ENTER) {
        if (R->depth++ == 0) {
            R->enter_meas = ev->time;
            R->enter_pred = predicted;
        }
        return;
    }
    if (R->depth == 0 || --R->depth > 0)
        return; /* unbalanced or nested Leave: only outermost instances count */
    if (R->n == R->cap) {
        uint64_t ncap = R->cap ? R->cap * 2 : 16;
        struct span *nv = realloc(R->v, ncap * sizeof *nv);
        if (!nv) {
            s->oom = 1;
            return;
        }
        R->v = nv;
        R->cap = ncap;
    }
    R->v[R->n++] = (struct span){ev->time - R->enter_meas, predicted - R->enter_pred};
}

int rt_region_stats_instances(rt_region_stats *s, const struct rt_region_instance **inst, uint64_t *n,
                              rt_error *err)
{
    if (s->oom)
        return rt_error_set(err, RT_ENOMEM, "out of memory collecting region instances");
    uint64_t ninst = 0;
    for (uint32_t r = 0; r < s->nranks; r++)
        ninst = s->ranks[r].n > ninst ? s->ranks[r].n : ninst;
    free(s->inst);
    s->inst = calloc(ninst ? ninst : 1, sizeof *s->inst);
    if (!s->inst)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    for (uint64_t i = 0; i < ninst; i++) {
        struct rt_region_instance *in = &s->inst[i];
        double msum = 0, psum = 0;
        in->index = i;
        for (uint32_t r = 0; r < s->nranks; r++) {
            if (i >= s->ranks[r].n)
                continue;
            double m = (double)s->ranks[r].v[i].measured, p = (double)s->ranks[r].v[i].predicted / 1e3;
            msum += m;
            psum += p;
            in->measured_max_ns = in->ranks == 0 || m > in->measured_max_ns ? m : in->measured_max_ns;
            in->predicted_max_ns = in->ranks == 0 || p > in->predicted_max_ns ? p : in->predicted_max_ns;
            in->ranks++;
        }
        in->measured_mean_ns = msum / in->ranks;
        in->predicted_mean_ns = psum / in->ranks;
    }
    s->ninst = ninst;
    *inst = s->inst;
    *n = ninst;
    return RT_OK;
}
