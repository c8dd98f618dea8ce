/* SPDX-License-Identifier: MIT */
/*
 * Checks the engine's dependency contract (struct rt_dep in replay.h) on one replay: every
 * event's time is max(local_ready, remote_ready); the local edge's weight is not negative; a
 * remote source exists and its time is not after remote_ready; walking back along the binding
 * edges from the last event ends at a rank's start after at most `events` steps, so the
 * binding edges form a path whose length is the run's end.
 */
#ifndef RETIME_TEST_DEP_CHECK_H
#define RETIME_TEST_DEP_CHECK_H

#include <stdlib.h>

#include "retime/replay.h"
#include "test_util.h"

struct dep_rec {
    rt_time_ps t;
    struct rt_dep d;
    int seen;
};

struct dep_check {
    struct dep_rec **rec; /* [rank][event] */
    uint64_t *n;
    uint32_t ranks;
    uint64_t violations;
};

static void dep_check_on_dep(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps t,
                             const struct rt_dep *d)
{
    struct dep_check *c = ud;
    (void)ev;
    if (rank >= c->ranks || index >= c->n[rank]) {
        c->violations++;
        return;
    }
    struct dep_rec *r = &c->rec[rank][index];
    r->t = t;
    r->d = *d;
    r->seen++;
}

/* Replays @p t under @p o with the checker as observer; returns the number of violations. */
static uint64_t dep_check_run(const rt_trace *t, const struct rt_replay_options *o)
{
    struct dep_check c = {0};
    c.ranks = rt_trace_ranks(t);
    c.rec = calloc(c.ranks, sizeof *c.rec);
    c.n = calloc(c.ranks, sizeof *c.n);
    for (uint32_t r = 0; r < c.ranks; r++) {
        rt_trace_events(t, r, &c.n[r]);
        c.rec[r] = calloc(c.n[r] ? c.n[r] : 1, sizeof **c.rec);
    }
    struct rt_replay_observer obs = {&c, NULL, dep_check_on_dep};
    struct rt_replay_result *res = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_replay_run(t, o, &obs, &res, &err), RT_OK);
    uint64_t total = 0;
    uint32_t lr = 0;
    uint64_t li = 0;
    rt_time_ps lt = INT64_MIN;
    for (uint32_t r = 0; res && r < c.ranks; r++)
        for (uint64_t i = 0; i < c.n[r]; i++) {
            const struct dep_rec *x = &c.rec[r][i];
            total++;
            rt_time_ps m = x->d.local_ready > x->d.remote_ready ? x->d.local_ready : x->d.remote_ready;
            int bad = x->seen != 1 || m != x->t || (i > 0 && x->d.local_ready < c.rec[r][i - 1].t) ||
                      (i == 0 && x->d.local_ready < 0);
            if (x->d.src_rank != RT_NONE) {
                bad |= x->d.src_rank >= c.ranks || x->d.src_index >= c.n[x->d.src_rank] ||
                       (x->d.src_rank == r && x->d.src_index >= i);
                if (!bad)
                    bad |= c.rec[x->d.src_rank][x->d.src_index].t > x->d.remote_ready;
            } else {
                bad |= x->d.remote_ready != INT64_MIN;
            }
            if (bad) {
                if (c.violations < 5)
                    fprintf(stderr, "dep violation: rank %u event %llu t=%lld local=%lld remote=%lld src=%u/%llu\n", r,
                            (unsigned long long)i, (long long)x->t, (long long)x->d.local_ready,
                            (long long)x->d.remote_ready, x->d.src_rank, (unsigned long long)x->d.src_index);
                c.violations++;
            }
            if (x->t > lt) {
                lt = x->t;
                lr = r;
                li = i;
            }
        }
    if (res && total) { /* walk back: remote when it binds strictly, local otherwise */
        CHECK_EQ_INT(lt, res->predicted_ps);
        uint64_t steps = 0;
        for (;;) {
            const struct dep_rec *x = &c.rec[lr][li];
            if (++steps > total) {
                c.violations++;
                break;
            }
            if (x->d.src_rank != RT_NONE && x->d.remote_ready > x->d.local_ready) {
                uint32_t sr = x->d.src_rank;
                li = x->d.src_index;
                lr = sr;
            } else if (li > 0) {
                li--;
            } else {
                break;
            }
        }
    }
    rt_replay_result_destroy(res);
    for (uint32_t r = 0; r < c.ranks; r++)
        free(c.rec[r]);
    free(c.rec);
    free(c.n);
    return c.violations;
}

#endif
