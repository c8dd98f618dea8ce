/* SPDX-License-Identifier: MIT */
/*
 * A distributed replay in one process: N threads, each a "process" of struct rt_replay_part,
 * swapping their messages through shared memory. Lets the tests check the distributed engine
 * and analysis against the serial ones on every stored trace without MPI. Include after
 * <pthread.h>.
 */
#ifndef RETIME_PART_THREADS_H
#define RETIME_PART_THREADS_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retime/replay.h"

struct pt_hub {
    uint32_t n;
    pthread_barrier_t bar;
    void **box;       /* n * n: box[from * n + to] */
    size_t *boxlen;
    int64_t **vals;   /* per process: its reduce operand */
};

/* What one thread runs: @p part is its process (part->me its index), valid during the call. */
typedef void (*pt_fn)(const struct rt_replay_part *part, void *arg);
/* rt_replay_part.counts_ahead of the parts pt_run makes (0: the default) */
static uint32_t pt_counts_ahead;

struct pt_node {
    struct pt_hub *hub;
    uint32_t me;
    void **in;        /* per sender: a copy of what it sent this round */
    size_t *incap;
    struct rt_replay_part part;
    pt_fn fn;
    void *arg;
};

static int pt_exchange(void *ud, void *const *out, const size_t *outlen, void **in, size_t *inlen)
{
    struct pt_node *x = ud;
    struct pt_hub *h = x->hub;
    for (uint32_t p = 0; p < h->n; p++) {
        h->box[(size_t)x->me * h->n + p] = out[p];
        h->boxlen[(size_t)x->me * h->n + p] = outlen[p];
    }
    pthread_barrier_wait(&h->bar);
    int rc = RT_OK;
    for (uint32_t p = 0; p < h->n; p++) { /* copy: the sender reuses its buffers next round */
        size_t len = h->boxlen[(size_t)p * h->n + x->me];
        if (len > x->incap[p]) {
            void *b = realloc(x->in[p], len);
            if (!b) {
                rc = RT_ENOMEM;
                len = 0;
            } else {
                x->in[p] = b;
                x->incap[p] = len;
            }
        }
        if (len)
            memcpy(x->in[p], h->box[(size_t)p * h->n + x->me], len);
        in[p] = x->in[p];
        inlen[p] = len;
    }
    pthread_barrier_wait(&h->bar);
    return rc;
}

static int pt_reduce(void *ud, int64_t *v, size_t n, int sum)
{
    struct pt_node *x = ud;
    struct pt_hub *h = x->hub;
    int64_t *acc = malloc((n ? n : 1) * sizeof *acc);
    h->vals[x->me] = v;
    pthread_barrier_wait(&h->bar);
    if (acc)
        for (size_t i = 0; i < n; i++) {
            int64_t a = h->vals[0][i];
            for (uint32_t p = 1; p < h->n; p++)
                a = sum ? a + h->vals[p][i] : (h->vals[p][i] < a ? h->vals[p][i] : a);
            acc[i] = a;
        }
    pthread_barrier_wait(&h->bar);
    if (acc)
        memcpy(v, acc, n * sizeof *v);
    free(acc);
    return acc ? RT_OK : RT_ENOMEM;
}

static void *pt_main(void *arg)
{
    struct pt_node *x = arg;
    x->fn(&x->part, x->arg);
    return NULL;
}

/* Runs @p fn(part, @p arg) in @p n threads, the processes of one distributed run of @p trace
 * (ranks split as evenly as possible), and returns when all are done: 0, or -1 when out of
 * memory (it aborts when a thread cannot be started). Every thread gets the same @p arg and
 * tells itself apart by part->me; the parts live until the threads are done, so whatever holds
 * one (a graph) must be freed in @p fn. */
static int pt_run_fn(const rt_trace *trace, uint32_t n, pt_fn fn, void *arg)
{
    struct pt_hub h = {.n = n};
    struct pt_node *nodes = calloc(n, sizeof *nodes);
    pthread_t *th = calloc(n, sizeof *th);
    uint32_t *first = calloc(n + 1, sizeof *first), ranks = rt_trace_ranks(trace);
    h.box = calloc((size_t)n * n, sizeof *h.box);
    h.boxlen = calloc((size_t)n * n, sizeof *h.boxlen);
    h.vals = calloc(n, sizeof *h.vals);
    int rc = -1;
    if (!n || !nodes || !th || !first || !h.box || !h.boxlen || !h.vals)
        goto out;
    for (uint32_t p = 0; p <= n; p++)
        first[p] = (uint32_t)((uint64_t)ranks * p / n);
    for (uint32_t p = 0; p < n; p++) {
        nodes[p].in = calloc(n, sizeof *nodes[p].in);
        nodes[p].incap = calloc(n, sizeof *nodes[p].incap);
        if (!nodes[p].in || !nodes[p].incap)
            goto out;
    }
    pthread_barrier_init(&h.bar, NULL, n);
    uint32_t started = 0;
    for (uint32_t p = 0; p < n; p++) {
        struct pt_node *x = &nodes[p];
        x->hub = &h;
        x->me = p;
        x->part = (struct rt_replay_part){n, p, first, x, pt_exchange, pt_reduce, pt_counts_ahead};
        x->fn = fn;
        x->arg = arg;
        if (pthread_create(&th[p], NULL, pt_main, x))
            break;
        started++;
    }
    if (started < n) { /* the started ones wait at their first barrier for ever */
        fprintf(stderr, "part_threads: cannot start thread %u of %u\n", started, n);
        abort();
    }
    for (uint32_t p = 0; p < n; p++)
        pthread_join(th[p], NULL);
    pthread_barrier_destroy(&h.bar);
    rc = 0;
out:
    for (uint32_t p = 0; nodes && p < n; p++) {
        for (uint32_t q = 0; nodes[p].in && q < n; q++)
            free(nodes[p].in[q]);
        free(nodes[p].in);
        free(nodes[p].incap);
    }
    free(h.box);
    free(h.boxlen);
    free(h.vals);
    free(first);
    free(th);
    free(nodes);
    return rc;
}

/* pt_run's replay, one thread's share. */
struct pt_replay {
    const rt_trace *trace;
    const struct rt_replay_options *opts;
    const struct rt_replay_observer *obs;
    struct rt_replay_result **res;
    int *rcs;
    rt_error *errs;
};

static void pt_replay_one(const struct rt_replay_part *part, void *arg)
{
    struct pt_replay *r = arg;
    struct rt_replay_options o = *r->opts;
    o.part = part;
    r->res[part->me] = NULL;
    r->errs[part->me] = (rt_error){0};
    r->rcs[part->me] = rt_replay_run(r->trace, &o, r->obs, &r->res[part->me], &r->errs[part->me]);
}

/* Replays @p trace split into @p n parts (ranks split as evenly as possible), one thread each;
 * res[p], err[p] and the return codes per part. @p obs is called from every thread. */
static int pt_run(const rt_trace *trace, const struct rt_replay_options *opts, const struct rt_replay_observer *obs,
                  uint32_t n, struct rt_replay_result **res, int *rcs, rt_error *errs)
{
    struct pt_replay r = {trace, opts, obs, res, rcs, errs};
    return pt_run_fn(trace, n, pt_replay_one, &r);
}

#endif
