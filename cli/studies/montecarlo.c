/* SPDX-License-Identifier: MIT */
/* Monte Carlo replays: N noisy runs and the noise-free baseline on threads, and their statistics. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* sysconf */
#endif
#include "montecarlo.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "retime/region_stats.h"

/* Work item i: 0 is the noise-free baseline, i >= 1 is run i - 1. The baseline goes first so
 * that a trace that cannot be replayed at all fails with the plain replay's message. */
struct mc_job {
    const struct mc_config *cfg;
    struct mc_result *res;
    pthread_mutex_t lock;
    uint64_t next, items;
    int failed;            /* stop handing out items */
    uint64_t err_item;     /* lowest failing item so far (UINT64_MAX: none) */
    rt_error err;          /* its error */
};

/* One replay; fills @p out. The region collector is per replay: it is not thread-safe. */
static int replay_one(const struct mc_config *cfg, const struct rt_replay_options *o, struct mc_run *out,
                      struct rt_replay_result **keep, uint64_t *ninst_out, rt_error *err)
{
    rt_region_stats *rs = NULL;
    struct rt_replay_result *res = NULL;
    struct rt_replay_observer obs = {0};
    int rc;
    if (cfg->region != RT_NONE) {
        if ((rc = rt_region_stats_create(cfg->trace, cfg->region, &rs, err)))
            goto out;
        obs.ud = rs;
        obs.on_event = rt_region_stats_on_event;
    }
    if ((rc = rt_replay_run(cfg->trace, o, rs ? &obs : NULL, &res, err)))
        goto out;
    memset(out, 0, sizeof *out);
    out->predicted_ps = res->predicted_ps;
    out->net_noise_ps = res->net_noise_ps;
    out->os_noise_ps = res->os_noise_ps;
    out->burst_ps = res->burst_ps;
    if (rs) {
        const struct rt_region_instance *inst;
        uint64_t n;
        if ((rc = rt_region_stats_instances(rs, &inst, &n, err)))
            goto out;
        double sum = 0, max = 0;
        for (uint64_t i = 0; i < n; i++) {
            sum += inst[i].predicted_mean_ns;
            if (inst[i].predicted_max_ns > max)
                max = inst[i].predicted_max_ns;
        }
        out->region_mean_ns = n ? sum / (double)n : 0;
        out->region_max_ns = max;
        if (ninst_out)
            *ninst_out = n;
    }
    if (keep) {
        *keep = res;
        res = NULL;
    }
out:
    rt_replay_result_destroy(res);
    rt_region_stats_destroy(rs);
    return rc;
}

static void run_item(struct mc_job *j, uint64_t item)
{
    const struct mc_config *cfg = j->cfg;
    struct mc_result *res = j->res;
    rt_error err = {0};
    int rc;
    if (item == 0) {
        struct rt_replay_options o = rt_replay_options_noise_free(&cfg->opts);
        if (cfg->calm) /* no other jobs either */
            o.network = cfg->calm;
        struct rt_replay_result *full = NULL;
        rc = replay_one(cfg, &o, &res->baseline, &full, &res->region_instances, &err);
        if (rc == RT_OK) {
            res->ranks = full->ranks;
            res->events = full->events;
            res->messages = full->messages;
            res->collectives = full->collectives;
            res->measured_ns = full->measured_ns;
        }
        rt_replay_result_destroy(full);
    } else {
        if (cfg->nprocs > 1 && (item - 1) % cfg->nprocs != cfg->proc)
            return; /* another process's run */
        struct rt_replay_options o = cfg->opts;
        o.run = item - 1;
        rc = replay_one(cfg, &o, &res->run[item - 1], NULL, NULL, &err);
    }
    if (rc == RT_OK)
        return;
    pthread_mutex_lock(&j->lock);
    j->failed = 1;
    if (item < j->err_item) {
        j->err_item = item;
        j->err = err;
    }
    pthread_mutex_unlock(&j->lock);
}

/* Items are handed out in increasing order and none after a failure, so every item below the
 * first failure still runs and the lowest failing item is the same for any number of threads. */
static void *worker(void *ud)
{
    struct mc_job *j = ud;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        uint64_t item = j->next;
        int stop = j->failed || item >= j->items;
        if (!stop)
            j->next++;
        pthread_mutex_unlock(&j->lock);
        if (stop)
            return NULL;
        run_item(j, item);
        if (j->cfg->on_done)
            j->cfg->on_done(j->cfg->ud);
    }
}

int mc_run(const struct mc_config *cfg, struct mc_result *out, rt_error *err)
{
    struct mc_result res;
    struct mc_job j;
    pthread_t th[MC_MAX_JOBS];
    long started = 0;
    int rc = RT_OK;
    memset(&res, 0, sizeof res);
    memset(&j, 0, sizeof j);
    if (cfg->runs < 1 || cfg->runs > MC_MAX_RUNS)
        return rt_error_set(err, RT_EINVAL, "the number of runs must be from 1 to %u", MC_MAX_RUNS);
    if (cfg->jobs < 0 || cfg->jobs > MC_MAX_JOBS)
        return rt_error_set(err, RT_EINVAL, "the number of threads must be from 1 to %d", MC_MAX_JOBS);
    res.runs = cfg->runs;
    res.run = calloc(cfg->runs, sizeof *res.run);
    if (!res.run)
        return rt_error_set(err, RT_ENOMEM, "out of memory for %" PRIu64 " runs", cfg->runs);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long jobs = cfg->jobs ? cfg->jobs : (cores > 0 ? cores : 1);
    if (jobs > MC_MAX_JOBS)
        jobs = MC_MAX_JOBS;
    if ((uint64_t)jobs > cfg->runs + 1)
        jobs = (long)(cfg->runs + 1);
    j.cfg = cfg;
    j.res = &res;
    j.items = cfg->runs + 1;
    j.err_item = UINT64_MAX;
    pthread_mutex_init(&j.lock, NULL);
    for (; started < jobs - 1; started++)
        if (pthread_create(&th[started], NULL, worker, &j))
            break; /* fewer threads is fine: the calling thread works too */
    worker(&j);
    for (long i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&j.lock);
    res.jobs = started + 1;
    if (j.failed) {
        rc = j.err.code ? j.err.code : RT_EINVAL;
        const char *msg = j.err.msg[0] ? j.err.msg : rt_strerror(rc);
        if (j.err_item == 0)
            rt_error_set(err, rc, "%s", msg); /* what the plain replay says */
        else
            rt_error_set(err, rc, "run %" PRIu64 " of seed %" PRIu64 ": %s", j.err_item - 1, cfg->opts.seed, msg);
        mc_result_free(&res);
        return rc;
    }
    *out = res;
    return RT_OK;
}

void mc_result_free(struct mc_result *r)
{
    free(r->run);
    r->run = NULL;
}

double mc_value(const struct mc_result *r, const struct mc_run *run, enum mc_field field)
{
    if (!run)
        run = &r->baseline;
    switch (field) {
    case MC_PREDICTED_NS:
        return (double)run->predicted_ps / 1e3;
    case MC_SLOWDOWN:
        /* Both in ps: no noise gives exactly 1. A zero baseline (empty trace, or a model of
         * zero cost) has no finite slowdown unless the run is zero too. */
        if (r->baseline.predicted_ps == 0)
            return run->predicted_ps == 0 ? 1.0 : INFINITY;
        return (double)run->predicted_ps / (double)r->baseline.predicted_ps;
    case MC_REGION_MEAN_NS:
        return run->region_mean_ns;
    case MC_REGION_MAX_NS:
        return run->region_max_ns;
    case MC_NET_NS:
        return (double)run->net_noise_ps / 1e3;
    case MC_OS_NS:
        return (double)run->os_noise_ps / 1e3;
    case MC_BURST_NS:
        return (double)run->burst_ps / 1e3;
    default:
        return 0;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Type 7 quantile of the sorted x[0..n-1]. */
static double quantile(const double *x, size_t n, double p)
{
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)h;
    if (lo + 1 >= n)
        return x[n - 1];
    double f = h - (double)lo, a = x[lo], b = x[lo + 1];
    if (f == 0 || a == b)
        return a;
    double q = a + f * (b - a);
    return q < a ? a : q > b ? b : q; /* rounding never leaves the bracket */
}

void mc_stats(double *x, size_t n, struct mc_stats *s)
{
    memset(s, 0, sizeof *s);
    if (n == 0)
        return;
    double min = x[0], max = x[0];
    for (size_t i = 1; i < n; i++) {
        min = x[i] < min ? x[i] : min;
        max = x[i] > max ? x[i] : max;
    }
    /* Summing the excess over the minimum, in run order, keeps the mean exact for equal values
     * and independent of how runs were scheduled. */
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i] - min;
    double mean = isfinite(max) ? min + sum / (double)n : max;
    mean = mean < min ? min : mean > max ? max : mean; /* guards the last bit of rounding */
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    qsort(x, n, sizeof *x, cmp_double);
    s->min = min;
    s->max = max;
    s->mean = mean;
    s->median = quantile(x, n, 0.5);
    s->p95 = quantile(x, n, 0.95);
    s->sd = n > 1 && isfinite(ss) ? sqrt(ss / (double)(n - 1)) : 0;
}

void mc_stats_of(const struct mc_result *r, enum mc_field field, double *scratch, struct mc_stats *s)
{
    for (uint64_t i = 0; i < r->runs; i++)
        scratch[i] = mc_value(r, &r->run[i], field);
    mc_stats(scratch, (size_t)r->runs, s);
}
