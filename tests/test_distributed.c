/* SPDX-License-Identifier: MIT */
/*
 * The distributed replay (struct rt_replay_part) against the replay by one process: on every
 * stored trace and the Score-P traces, split over 2, 3, 4 and 7 "processes" (threads swapping
 * their messages in memory, tests/support/part_threads.h), under Hockney, LogP-lite and all
 * three kinds of noise, every event's predicted time and every field of the result must be
 * bit-identical. Also: a part that has no ranks, a trace that deadlocks and an unmatched
 * receive give one error (at the lowest failing process) and RT_EREMOTE elsewhere.
 *
 * The distributed analysis (rt_depgraph_create_part) likewise: each thread runs what `retime
 * analyze` runs, against the model with noise and against the measured timestamps, and every
 * dependency record of its ranks, the critical paths, wait states, comparison and measured
 * info must equal the serial analysis's (the arrays on process 0, none elsewhere). A record
 * missing on two processes is reported by the lower one, RT_EREMOTE elsewhere.
 *
 * Non-blocking collectives (issue #50, item 2): random programs in which a rank is in several
 * collectives at once, on three overlapping communicators, some left open into the next phase,
 * beside blocking ones and ring exchanges, eager and rendezvous, with ranks late at random; the
 * same comparisons (check_nbcoll).
 *
 * Networks (issue #50, item 1; `test_distributed --networks`, its own ctest): the stored and
 * Score-P traces, two networks each in turn (RETIME_TEST_NET_ALL: all six), and random
 * point-to-point programs of 3 to 39 ranks (RETIME_TEST_NET_PROGRAMS, default 6) on six networks
 * (torus, fat tree with a random mapping and the fast model and hop latencies, an adaptive torus
 * with two ranks per node, packets and noise, crossbar-flow with shared injection, a dragonfly
 * with two ranks per node at a shared-memory latency below the model's (the look-ahead) and
 * background traffic, no contention), each process running its copy of the network: every
 * event's time, the result's fields, every link's use and the network's counts equal one
 * process's.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "retime/congestion.h"
#include "retime/depgraph.h"
#include "retime/network.h"
#include "retime/noise.h"
#include "retime/replay.h"
#include "retime/trace.h"
#include <otf2/otf2.h>

#include "otf2_builder.h"
#include "support/part_threads.h"
#include "test_util.h"
#include "stored_traces.h"

#define MAXP 7

/* Per rank, per event: the predicted time the observer saw (each thread writes its own ranks). */
struct times {
    rt_time_ps **t;
    uint32_t ranks;
};

static void on_event(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps predicted)
{
    (void)ev;
    struct times *x = ud;
    x->t[rank][index] = predicted;
}

static struct times times_new(const rt_trace *t)
{
    struct times x = {calloc(rt_trace_ranks(t), sizeof(rt_time_ps *)), rt_trace_ranks(t)};
    for (uint32_t r = 0; r < x.ranks; r++) {
        uint64_t n;
        rt_trace_events(t, r, &n);
        x.t[r] = calloc(n ? n : 1, sizeof(rt_time_ps));
        for (uint64_t i = 0; i < n; i++)
            x.t[r][i] = -1;
    }
    return x;
}

static void times_free(struct times *x)
{
    for (uint32_t r = 0; r < x->ranks; r++)
        free(x->t[r]);
    free(x->t);
}

static uint64_t compared_events;

/* Every event's predicted time of the replay in @p n parts (@p dist) against one process's
 * (@p serial); a failure names the first that differs. */
static void same_times(const char *path, const char *what, uint32_t n, const rt_trace *t, const struct times *serial,
                       const struct times *dist)
{
    uint64_t differ = 0, first_r = 0, first_i = 0;
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        uint64_t ne;
        rt_trace_events(t, r, &ne);
        for (uint64_t i = 0; i < ne; i++)
            if (dist->t[r][i] != serial->t[r][i] && differ++ == 0)
                first_r = r, first_i = i;
        compared_events += ne;
    }
    if (differ) {
        fprintf(stderr, "%s (%s, %u parts): %llu events differ, first rank %llu event %llu: %lld vs %lld ps\n", path,
                what, n, (unsigned long long)differ, (unsigned long long)first_r, (unsigned long long)first_i,
                (long long)dist->t[first_r][first_i], (long long)serial->t[first_r][first_i]);
        rt_test_failures++;
    }
}

static int same_result(const struct rt_replay_result *a, const struct rt_replay_result *b)
{
    int same = a->ranks == b->ranks && a->predicted_ps == b->predicted_ps && a->measured_ns == b->measured_ns &&
               a->events == b->events && a->messages == b->messages && a->rendezvous == b->rendezvous &&
               a->collectives == b->collectives && a->net_noise_ps == b->net_noise_ps &&
               a->os_noise_ps == b->os_noise_ps && a->burst_ps == b->burst_ps;
    for (uint32_t r = 0; same && r < a->ranks; r++)
        same = a->predicted_end_ps[r] == b->predicted_end_ps[r] && a->measured_end_ns[r] == b->measured_end_ns[r];
    return same;
}

static struct rt_replay_options variants[4];
static const char *variant_names[4] = {"hockney", "logp", "hockney+noise", "logp+noise, eager 1KiB"};

/* ------------------------------------------------------------------ distributed analysis */

/* A run that hangs is a collective call made by some processes only; the watchdog names it
 * instead of leaving ctest to time out. */
static char stage[600];

static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "test_distributed: no progress in 600 s (a collective call made by some processes only?): ";
    if (write(2, m, sizeof m - 1) < 0 || write(2, stage, strlen(stage)) < 0 || write(2, "\n", 1) < 0)
        _exit(2);
    _exit(1);
}

enum against { AGAINST_MODEL, AGAINST_MEASURED };

/* What `retime analyze` computes (cli/cmd_analyze.c), by one process of a distributed
 * analysis or, without a part, by one process holding every rank. */
struct analysis {
    rt_depgraph *a, *b;
    const struct rt_critical_path *cpa, *cpb;
    const struct rt_wait_states *ws;
    struct rt_depgraph_diff *d;
    struct rt_measured_info mi;
    rt_time_ps end_a, end_b;              /* rt_depgraph_end */
    rt_time_ps replay_a, replay_b;        /* the replays' predicted_ps (-1: not replayed) */
    struct rt_replay_result *res_b;       /* B's replay, for its congestion records (on a network) */
    struct rt_congestion *cg;             /* on a network, against the model: B's congestion */
    int rc;
    int stopped;                          /* another process failed: this one stopped with it */
    rt_error err;
    const char *step;                     /* the call that failed */
};

/* Whether every process got RT_OK. The processes agree after every collective call so that
 * one failing alone (a broken contract) stops all of them instead of leaving the others
 * waiting in the next call. */
static int all_ok(const struct rt_replay_part *part, int rc)
{
    if (!part)
        return rc == RT_OK;
    int64_t failed = rc != RT_OK;
    if (part->reduce(part->ud, &failed, 1, 1) != RT_OK)
        return 0;
    return failed == 0;
}

#define STEP(x, part, name, call)                       \
    do {                                                \
        (x)->step = (name);                             \
        (x)->rc = (call);                               \
        if (!all_ok((part), (x)->rc)) {                 \
            (x)->stopped = (x)->rc == RT_OK;            \
            return;                                     \
        }                                               \
    } while (0)

/* The replay of cli_replay_graph, feeding @p g; its check and end are steps of analyze. */
static int replay_graph(const rt_trace *t, const struct rt_replay_part *part, const struct rt_replay_options *opts,
                        rt_depgraph **g, rt_time_ps *predicted, struct rt_replay_result **keep, rt_error *err)
{
    struct rt_replay_options o = *opts;
    struct rt_replay_observer obs;
    struct rt_replay_result *res = NULL;
    o.part = part;
    o.record_contention = o.network != NULL; /* (as analyze --against model) */
    rt_depgraph_observer(*g, &obs);
    int rc = rt_replay_run(t, &o, &obs, &res, err);
    if (rc == RT_OK)
        *predicted = res->predicted_ps;
    if (keep)
        *keep = res;
    else
        rt_replay_result_destroy(res);
    return rc;
}

static int create_graph(const rt_trace *t, const struct rt_replay_part *part, rt_depgraph **g, rt_error *err)
{
    return part ? rt_depgraph_create_part(t, part, g, err) : rt_depgraph_create(t, g, err);
}

/* @p one_walk: the results through rt_depgraph_analyze (as `retime analyze`), else one call each. */
static void analyze(const rt_trace *t, const struct rt_replay_part *part, const struct rt_replay_options *opts,
                    enum against against, int one_walk, struct analysis *x)
{
    memset(x, 0, sizeof *x);
    x->replay_a = x->replay_b = -1;
    /* --against model compares the noise-free model with the noisy one; --against measured the
     * model as given with the trace's own timestamps */
    struct rt_replay_options free_opts = rt_replay_options_noise_free(opts);
    STEP(x, part, "create A", create_graph(t, part, &x->a, &x->err));
    STEP(x, part, "replay A", replay_graph(t, part, against == AGAINST_MODEL ? &free_opts : opts, &x->a, &x->replay_a,
                                           NULL, &x->err));
    STEP(x, part, "check A", rt_depgraph_check(x->a, &x->err));
    x->end_a = rt_depgraph_end(x->a);
    if (against == AGAINST_MEASURED) {
        STEP(x, part, "measured B", rt_depgraph_measured(t, x->a, &x->b, &x->mi, &x->err));
    } else {
        STEP(x, part, "create B", create_graph(t, part, &x->b, &x->err));
        STEP(x, part, "replay B", replay_graph(t, part, opts, &x->b, &x->replay_b, &x->res_b, &x->err));
        STEP(x, part, "check B", rt_depgraph_check(x->b, &x->err));
    }
    x->end_b = rt_depgraph_end(x->b);
    if (one_walk)
        STEP(x, part, "analyze A B", rt_depgraph_analyze(x->a, x->b, &x->d, &x->err));
    STEP(x, part, "critical path A", rt_depgraph_critical_path(x->a, &x->cpa, &x->err));
    STEP(x, part, "critical path B", rt_depgraph_critical_path(x->b, &x->cpb, &x->err));
    STEP(x, part, "wait states B", rt_depgraph_wait_states(x->b, &x->ws, &x->err));
    if (!one_walk)
        STEP(x, part, "compare A B", rt_depgraph_compare(x->a, x->b, &x->d, &x->err));
    if (opts->network && against == AGAINST_MODEL)
        STEP(x, part, "congestion B", rt_congestion_create(opts->network, x->res_b, x->b, t, &x->cg, &x->err));
    x->step = NULL;
}

static void analysis_free(struct analysis *x)
{
    rt_congestion_destroy(x->cg);
    rt_replay_result_destroy(x->res_b);
    rt_depgraph_diff_destroy(x->d);
    rt_depgraph_destroy(x->b);
    rt_depgraph_destroy(x->a);
}

/* One process's findings, kept per thread (the CHECK macros count in a global) and printed by
 * the main thread. */
struct an_proc {
    uint64_t fails, compared;
    char msg[3][700];
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void fail(struct an_proc *o, const char *fmt, ...)
{
    if (o->fails < sizeof o->msg / sizeof *o->msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(o->msg[o->fails], sizeof o->msg[0], fmt, ap);
        va_end(ap);
    }
    o->fails++;
}

static void same_int(struct an_proc *o, const char *what, const char *field, long long got, long long want)
{
    if (got != want)
        fail(o, "%s %s: %lld, serial %lld", what, field, got, want);
}

#define SAME(o, what, x, r, f) same_int((o), (what), #f, (long long)(x)->f, (long long)(r)->f)

/* Every record of the process's own ranks equal to the serial graph's, and no record of others. */
static void same_events(struct an_proc *o, const char *what, const rt_trace *t, const struct rt_replay_part *part,
                        const rt_depgraph *g, const rt_depgraph *ref)
{
    uint32_t lo = part->first_rank[part->me], hi = part->first_rank[part->me + 1], ranks = rt_trace_ranks(t);
    uint64_t differ = 0;
    rt_error err = {0};
    for (uint32_t r = lo; r < hi; r++) {
        uint64_t n;
        rt_trace_events(t, r, &n);
        for (uint64_t j = 0; j < n; j++) {
            struct rt_dep_event e, s;
            int rc = rt_depgraph_event(g, r, j, &e, &err);
            if (rc != RT_OK || rt_depgraph_event(ref, r, j, &s, &err) != RT_OK) {
                if (differ++ == 0)
                    fail(o, "%s: rank %u event %llu: rt_depgraph_event: %s", what, r, (unsigned long long)j,
                         rc ? err.msg : "not in the serial graph");
                continue;
            }
            o->compared++;
            if (e.t == s.t && e.local_ready == s.local_ready && e.remote_ready == s.remote_ready &&
                e.src_index == s.src_index && e.src_rank == s.src_rank && e.kind == s.kind &&
                e.remote_binds == s.remote_binds && e.on_path == s.on_path)
                continue;
            if (differ++ == 0)
                fail(o,
                     "%s: rank %u event %llu: t %lld local_ready %lld remote_ready %lld src %u:%llu kind %u binds %u "
                     "on_path %u; serial t %lld local_ready %lld remote_ready %lld src %u:%llu kind %u binds %u on_path %u",
                     what, r, (unsigned long long)j, (long long)e.t, (long long)e.local_ready, (long long)e.remote_ready,
                     e.src_rank, (unsigned long long)e.src_index, e.kind, e.remote_binds, e.on_path, (long long)s.t,
                     (long long)s.local_ready, (long long)s.remote_ready, s.src_rank, (unsigned long long)s.src_index,
                     s.kind, s.remote_binds, s.on_path);
        }
    }
    if (differ > 1)
        fail(o, "%s: %llu records differ in all", what, (unsigned long long)differ);
    /* a rank of another process: the graph does not hold it */
    uint32_t other = hi < ranks ? hi : lo > 0 ? lo - 1 : RT_NONE;
    if (other != RT_NONE) {
        struct rt_dep_event e;
        same_int(o, what, "rt_depgraph_event of another process's rank", rt_depgraph_event(g, other, 0, &e, &err),
                 RT_ERANGE);
    }
}

static void same_shares(struct an_proc *o, const char *what, const struct rt_dep_share *s, uint64_t n,
                        const struct rt_dep_share *rs, uint64_t rn, int root)
{
    if (!root) { /* the arrays are process 0's */
        same_int(o, what, "nshare (not process 0)", (long long)n, 0);
        return;
    }
    if (n != rn) {
        fail(o, "%s: %llu shares, serial %llu", what, (unsigned long long)n, (unsigned long long)rn);
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        const struct rt_dep_share *a = &s[i], *b = &rs[i];
        if (a->group == b->group && a->wait == b->wait && a->id == b->id && a->region == b->region &&
            a->instance == b->instance && a->value == b->value && a->value2 == b->value2)
            continue;
        fail(o,
             "%s: share %llu of %llu: group %u wait %u id %u region %u instance %llu value %lld value2 %lld; serial "
             "group %u wait %u id %u region %u instance %llu value %lld value2 %lld",
             what, (unsigned long long)i, (unsigned long long)n, a->group, a->wait, a->id, a->region,
             (unsigned long long)a->instance, (long long)a->value, (long long)a->value2, b->group, b->wait, b->id,
             b->region, (unsigned long long)b->instance, (long long)b->value, (long long)b->value2);
        return;
    }
}

static void same_cp(struct an_proc *o, const char *what, const struct rt_critical_path *x,
                    const struct rt_critical_path *r, int root)
{
    SAME(o, what, x, r, end_ps);
    SAME(o, what, x, r, length_ps);
    SAME(o, what, x, r, end_rank);
    SAME(o, what, x, r, end_index);
    SAME(o, what, x, r, events);
    for (int k = 0; k < RT_ACT_COUNT; k++)
        if (x->activity_ps[k] != r->activity_ps[k])
            fail(o, "%s activity_ps[%s]: %lld, serial %lld", what, rt_activity_name(k), (long long)x->activity_ps[k],
                 (long long)r->activity_ps[k]);
    if (!root) {
        same_int(o, what, "nseg (not process 0)", (long long)x->nseg, 0);
    } else if (x->nseg != r->nseg) {
        fail(o, "%s: %llu segments, serial %llu", what, (unsigned long long)x->nseg, (unsigned long long)r->nseg);
    } else {
        for (uint64_t i = 0; i < x->nseg; i++) {
            const struct rt_cp_segment *a = &x->seg[i], *b = &r->seg[i];
            if (a->rank == b->rank && a->first == b->first && a->last == b->last && a->begin_ps == b->begin_ps &&
                a->end_ps == b->end_ps)
                continue;
            fail(o, "%s: segment %llu: rank %u events %llu-%llu %lld..%lld ps; serial rank %u events %llu-%llu %lld..%lld ps",
                 what, (unsigned long long)i, a->rank, (unsigned long long)a->first, (unsigned long long)a->last,
                 (long long)a->begin_ps, (long long)a->end_ps, b->rank, (unsigned long long)b->first,
                 (unsigned long long)b->last, (long long)b->begin_ps, (long long)b->end_ps);
            break;
        }
    }
    same_shares(o, what, x->share, x->nshare, r->share, r->nshare, root);
}

static void same_rows(struct an_proc *o, const char *what, const struct rt_congestion_row *x, uint32_t n,
                      const struct rt_congestion_row *r, uint32_t rn)
{
    if (n != rn) {
        fail(o, "congestion %s: %u rows, serial %u", what, n, rn);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (x[i].link == r[i].link && !strcmp(x[i].name, r[i].name) && x[i].accumulated_ps == r[i].accumulated_ps &&
            x[i].absorbed_ps == r[i].absorbed_ps && x[i].messages == r[i].messages)
            continue;
        fail(o, "congestion %s row %u: %s %.17g/%.17g ps, %llu messages; serial %s %.17g/%.17g ps, %llu", what, i,
             x[i].name, x[i].accumulated_ps, x[i].absorbed_ps, (unsigned long long)x[i].messages, r[i].name,
             r[i].accumulated_ps, r[i].absorbed_ps, (unsigned long long)r[i].messages);
        return;
    }
}

/* The congestion attribution: process 0's is the serial one, bit for bit; the others have none. */
static void same_congestion(struct an_proc *o, const struct rt_congestion *x, const struct rt_congestion *r, int root)
{
    static const struct rt_congestion none;
    if (!root)
        r = &none;
    if (x->total_ps != r->total_ps || x->accumulated_ps != r->accumulated_ps || x->absorbed_ps != r->absorbed_ps ||
        x->messages != r->messages)
        fail(o, "congestion: %.17g ps (%.17g on the path) over %llu messages, serial %.17g ps (%.17g) over %llu",
             x->total_ps, x->accumulated_ps, (unsigned long long)x->messages, r->total_ps, r->accumulated_ps,
             (unsigned long long)r->messages);
    same_rows(o, "links", x->links, x->nlinks, r->links, r->nlinks);
    same_rows(o, "kinds", x->kinds, x->nkinds, r->kinds, r->nkinds);
    o->compared += x->nlinks;
}

static void same_analysis(struct an_proc *o, const rt_trace *t, const struct rt_replay_part *part,
                          const struct analysis *x, const struct analysis *r, enum against against)
{
    int root = part->me == 0;
    SAME(o, "A", x, r, end_a);
    SAME(o, "B", x, r, end_b);
    if (x->end_a != x->replay_a)
        fail(o, "A: the graph ends at %lld ps, the replay at %lld ps", (long long)x->end_a, (long long)x->replay_a);
    if (against == AGAINST_MODEL && x->end_b != x->replay_b)
        fail(o, "B: the graph ends at %lld ps, the replay at %lld ps", (long long)x->end_b, (long long)x->replay_b);
    same_events(o, "graph A", t, part, x->a, r->a);
    same_events(o, "graph B", t, part, x->b, r->b);
    same_cp(o, "critical path A", x->cpa, r->cpa, root);
    same_cp(o, "critical path B", x->cpb, r->cpb, root);
    for (int k = 0; k < RT_WAIT_COUNT; k++) {
        if (x->ws->total_ps[k] != r->ws->total_ps[k] || x->ws->count[k] != r->ws->count[k])
            fail(o, "wait states %s: %lld ps in %llu, serial %lld ps in %llu", rt_wait_kind_name(k),
                 (long long)x->ws->total_ps[k], (unsigned long long)x->ws->count[k], (long long)r->ws->total_ps[k],
                 (unsigned long long)r->ws->count[k]);
    }
    same_shares(o, "wait states", x->ws->share, x->ws->nshare, r->ws->share, r->ws->nshare, root);
    SAME(o, "diff", x->d, r->d, end_a);
    SAME(o, "diff", x->d, r->d, end_b);
    SAME(o, "diff", x->d, r->d, accumulated);
    SAME(o, "diff", x->d, r->d, slack);
    SAME(o, "diff", x->d, r->d, injected);
    SAME(o, "diff", x->d, r->d, absorbed);
    SAME(o, "diff", x->d, r->d, residual);
    SAME(o, "diff", x->d, r->d, source_changed);
    SAME(o, "diff", x->d, r->d, edges);
    same_shares(o, "diff", x->d->share, x->d->nshare, r->d->share, r->d->nshare, root);
    if (r->cg)
        same_congestion(o, x->cg, r->cg, root);
    if (against == AGAINST_MEASURED) {
        SAME(o, "measured", &x->mi, &r->mi, violations);
        SAME(o, "measured", &x->mi, &r->mi, worst_ps);
        SAME(o, "measured", &x->mi, &r->mi, worst_rank);
        SAME(o, "measured", &x->mi, &r->mi, worst_index);
    }
}

struct an_job {
    const rt_trace *t;
    const struct rt_replay_options *opts;
    enum against against;
    int one_walk;
    const struct analysis *ref;
    struct an_proc out[MAXP];
};

static void an_thread(const struct rt_replay_part *part, void *arg)
{
    struct an_job *j = arg;
    struct an_proc *o = &j->out[part->me];
    struct analysis x;
    analyze(j->t, part, j->opts, j->against, j->one_walk, &x);
    if (x.stopped)
        fail(o, "%s: RT_OK here, stopped because another process failed", x.step);
    else if (x.rc != RT_OK)
        fail(o, "%s: %s: %s", x.step, rt_err_name(x.rc), x.err.msg);
    else
        same_analysis(o, j->t, part, &x, j->ref, j->against);
    analysis_free(&x);
}

/* The analyses compared: what they are against, and with which of the replay variants. */
static const struct {
    enum against against;
    int variant;
    const char *name;
} analyses[] = {
    {AGAINST_MODEL, 3, "--against model, logp+noise, eager 1KiB"},
    {AGAINST_MEASURED, 0, "--against measured, hockney"},
};
static uint64_t compared_records;

/* Runs the analysis in @p n parts and reports each process's differences from @p ref; returns
 * the records compared. */
static uint64_t check_analysis_parts(const char *path, const rt_trace *t, const struct rt_replay_options *opts,
                                     enum against against, const char *name, const struct analysis *ref, uint32_t n)
{
    /* 3 and 7 parts through rt_depgraph_analyze, 2 and 4 through the single calls; the serial
     * reference through the single calls */
    struct an_job j = {t, opts, against, n % 2, ref, {{0}}};
    snprintf(stage, sizeof stage, "%s: analysis %s in %u parts", path, name, n);
    alarm(600);
    CHECK_EQ_INT(pt_run_fn(t, n, an_thread, &j), 0);
    alarm(0);
    uint64_t compared = 0;
    for (uint32_t p = 0; p < n; p++) {
        const struct an_proc *o = &j.out[p];
        for (uint64_t m = 0; m < o->fails && m < sizeof o->msg / sizeof *o->msg; m++)
            fprintf(stderr, "%s (%s, %u parts): process %u: %s\n", path, name, n, p, o->msg[m]);
        if (o->fails > sizeof o->msg / sizeof *o->msg)
            fprintf(stderr, "%s (%s, %u parts): process %u: and %llu more\n", path, name, n, p,
                    (unsigned long long)(o->fails - sizeof o->msg / sizeof *o->msg));
        rt_test_failures += (int)(o->fails > 1000 ? 1000 : o->fails);
        compared += o->compared;
    }
    return compared;
}

/* The distributed analysis of @p t in 2, 3, 4 and 7 parts against the serial one. */
static void check_analysis(const char *path, const rt_trace *t)
{
    static const uint32_t parts[] = {2, 3, 4, MAXP};
    uint64_t compared = 0;
    int failures = rt_test_failures;
    for (int k = 0; k < (int)(sizeof analyses / sizeof *analyses); k++) {
        struct analysis ref;
        analyze(t, NULL, &variants[analyses[k].variant], analyses[k].against, 0, &ref);
        if (ref.rc != RT_OK) {
            fprintf(stderr, "%s (%s): serial %s: %s\n", path, analyses[k].name, ref.step, ref.err.msg);
            rt_test_failures++;
        } else {
            for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
                compared += check_analysis_parts(path, t, &variants[analyses[k].variant], analyses[k].against,
                                                 analyses[k].name, &ref, parts[i]);
        }
        analysis_free(&ref);
    }
    compared_records += compared;
    printf("%s: analysis %s in 2, 3, 4 and %u parts (%d kinds), %llu dependency records compared\n", path,
           rt_test_failures == failures ? "identical" : "DIFFERS", MAXP, (int)(sizeof analyses / sizeof *analyses),
           (unsigned long long)compared);
}

/* A record missing on processes 2 and 3 of 4: rt_depgraph_check and the critical path (which
 * checks first) report the serial error at process 2, RT_EREMOTE elsewhere. */
struct drop {
    const rt_trace *t;
    uint32_t rank[2]; /* whose last record is not collected */
    rt_depgraph *g;
    int rc[2];
    rt_error err[2];
};

static void drop_on_dep(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps predicted,
                        const struct rt_dep *dep)
{
    struct drop *d = ud;
    uint64_t n;
    rt_trace_events(d->t, rank, &n);
    if ((rank == d->rank[0] || rank == d->rank[1]) && index + 1 == n)
        return;
    rt_depgraph_on_dep(d->g, rank, index, ev, predicted, dep);
}

static void drop_run(const rt_trace *t, const struct rt_replay_part *part, struct drop *d)
{
    struct rt_replay_options o = variants[0];
    struct rt_replay_observer obs = {.ud = d, .on_dep = drop_on_dep};
    struct rt_replay_result *res = NULL;
    const struct rt_critical_path *cp;
    o.part = part;
    d->rc[0] = d->rc[1] = RT_ENOMEM;
    if (!all_ok(part, create_graph(t, part, &d->g, &d->err[0])))
        return;
    if (all_ok(part, rt_replay_run(t, &o, &obs, &res, &d->err[0]))) {
        d->rc[0] = rt_depgraph_check(d->g, &d->err[0]);
        d->rc[1] = rt_depgraph_critical_path(d->g, &cp, &d->err[1]);
    }
    rt_replay_result_destroy(res);
    rt_depgraph_destroy(d->g);
    d->g = NULL;
}

struct drop_job {
    const rt_trace *t;
    struct drop d[4];
};

static void drop_thread(const struct rt_replay_part *part, void *arg)
{
    struct drop_job *j = arg;
    drop_run(j->t, part, &j->d[part->me]);
}

static void check_missing_records(const char *path)
{
    rt_trace *t = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_trace_open(path, &t, &err), RT_OK);
    if (!t)
        return;
    CHECK(rt_trace_ranks(t) == 8); /* 2 ranks per process: ranks 5 and 7 on processes 2 and 3 */
    struct drop_job j = {.t = t};
    struct drop ref = {.t = t, .rank = {5, 7}};
    drop_run(t, NULL, &ref);
    for (int p = 0; p < 4; p++) {
        j.d[p].t = t;
        j.d[p].rank[0] = 5;
        j.d[p].rank[1] = 7;
    }
    snprintf(stage, sizeof stage, "%s: records missing on processes 2 and 3", path);
    alarm(600);
    CHECK_EQ_INT(pt_run_fn(t, 4, drop_thread, &j), 0);
    alarm(0);
    for (int c = 0; c < 2; c++) {
        CHECK(ref.rc[c] != RT_OK);
        for (int p = 0; p < 4; p++) {
            if (p == 2) {
                CHECK_EQ_INT(j.d[p].rc[c], ref.rc[c]);
                CHECK(strcmp(j.d[p].err[c].msg, ref.err[c].msg) == 0);
                if (strcmp(j.d[p].err[c].msg, ref.err[c].msg))
                    fprintf(stderr, "distributed: %s\nserial:      %s\n", j.d[p].err[c].msg, ref.err[c].msg);
            } else {
                CHECK_EQ_INT(j.d[p].rc[c], RT_EREMOTE);
            }
        }
        printf("records missing in 4 parts, %s, process 2: %s\n", c ? "critical path" : "check", j.d[2].err[c].msg);
    }
    rt_trace_close(t);
}

/* ------------------------------------------------------------------ distributed replay */

static void check_trace(const char *path, int first)
{
    (void)first;
    rt_trace *t = NULL;
    rt_error err = {0};
    if (rt_trace_open(path, &t, &err) != RT_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        rt_test_failures++;
        return;
    }
    uint32_t ranks = rt_trace_ranks(t);
    for (int v = 0; v < 4; v++) {
        struct times serial = times_new(t);
        struct rt_replay_observer obs = {.ud = &serial, .on_event = on_event};
        struct rt_replay_result *ref = NULL;
        int rc = rt_replay_run(t, &variants[v], &obs, &ref, &err);
        CHECK_EQ_INT(rc, RT_OK);
        if (rc) {
            fprintf(stderr, "%s (%s): %s\n", path, variant_names[v], err.msg);
            times_free(&serial);
            continue;
        }
        static const uint32_t parts[] = {2, 3, 4, MAXP};
        for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
            uint32_t n = parts[k];
            struct times dist = times_new(t);
            struct rt_replay_observer dobs = {.ud = &dist, .on_event = on_event};
            struct rt_replay_result *res[MAXP] = {0};
            int rcs[MAXP];
            rt_error errs[MAXP];
            CHECK_EQ_INT(pt_run(t, &variants[v], &dobs, n, res, rcs, errs), 0);
            for (uint32_t p = 0; p < n; p++) {
                if (rcs[p]) {
                    fprintf(stderr, "%s (%s, %u parts): part %u: %s\n", path, variant_names[v], n, p, errs[p].msg);
                    rt_test_failures++;
                } else if (!same_result(ref, res[p])) {
                    fprintf(stderr,
                            "%s (%s, %u parts): part %u: result differs: predicted %lld vs %lld ps, messages %llu vs "
                            "%llu, collectives %llu vs %llu, noise net %lld vs %lld, os %lld vs %lld, burst %lld vs %lld\n",
                            path, variant_names[v], n, p, (long long)res[p]->predicted_ps, (long long)ref->predicted_ps,
                            (unsigned long long)res[p]->messages, (unsigned long long)ref->messages,
                            (unsigned long long)res[p]->collectives, (unsigned long long)ref->collectives,
                            (long long)res[p]->net_noise_ps, (long long)ref->net_noise_ps,
                            (long long)res[p]->os_noise_ps, (long long)ref->os_noise_ps, (long long)res[p]->burst_ps,
                            (long long)ref->burst_ps);
                    rt_test_failures++;
                }
                rt_replay_result_destroy(res[p]);
            }
            same_times(path, variant_names[v], n, t, &serial, &dist);
            times_free(&dist);
        }
        rt_replay_result_destroy(ref);
        times_free(&serial);
    }
    printf("%s: %u ranks, identical in 2, 3, 4 and %u parts under %d models\n", path, ranks, MAXP, 4);
    check_analysis(path, t);
    rt_trace_close(t);
}

/* ------------------------------------------------------------------ non-blocking collectives */

static uint64_t nb_rng;
static uint32_t nb_rand(uint32_t n) /* xorshift64*: the same programs on every run */
{
    nb_rng ^= nb_rng >> 12;
    nb_rng ^= nb_rng << 25;
    nb_rng ^= nb_rng >> 27;
    return (uint32_t)((nb_rng * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

/* One random program of @p P ranks and @p phases phases at @p path. Every phase, each rank (after
 * a random gap, now and then a long one) first posts the phase's non-blocking collectives of the
 * communicators it is in (world, the even ranks, the first half: which ones, their operation and
 * size drawn per phase and communicator), then a ring exchange (Irecv, Isend, then Waitall or a
 * blocking receive; eager or rendezvous), maybe a blocking collective on one communicator, and
 * last waits for its open requests in a random order, leaving some open into the next phase:
 * so a rank is in several collectives at once, whose last entries come in another order than
 * its entries. Every wait comes after all of the phase's posts, so the program cannot deadlock. */
static void nb_program(const char *path, uint32_t P, uint32_t phases, int blocking_only)
{
    tb_builder *b = tb_create(path, P);
    uint32_t evens[64], half[64], ne = 0, nh = 0;
    for (uint32_t r = 0; r < P; r += 2)
        evens[ne++] = r;
    for (uint32_t r = 0; r < (P + 1) / 2; r++)
        half[nh++] = r;
    uint32_t comm[3] = {0, tb_comm(b, "evens", ne, evens), tb_comm(b, "half", nh, half)}, size[3] = {P, ne, nh};
    uint64_t now[64] = {0}, req[64][16], nreq[64] = {0}; /* open requests per rank: id << 8 | slot of nb[] */
    struct nbc {
        int op;
        uint32_t comm, size, root;
        uint64_t bytes;
    } nb[3 * 8]; /* up to 8 phases */
    uint32_t nnb = 0;
    for (uint32_t ph = 0; ph < phases; ph++) {
        uint32_t posted[3] = {0, 0, 0};
        for (int c = 0; c < 3 && ph < 8; c++) { /* the phase's collectives, the same for every member */
            if (nb_rand(4) == 0)
                continue;
            static const int ops[3] = {OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_COLLECTIVE_OP_BARRIER, OTF2_COLLECTIVE_OP_BCAST};
            int op = ops[nb_rand(3)];
            nb[nnb] = (struct nbc){op, comm[c], size[c], op == OTF2_COLLECTIVE_OP_BCAST ? nb_rand(size[c]) : OTF2_UNDEFINED_UINT32,
                                   op == OTF2_COLLECTIVE_OP_BARRIER ? 0 : nb_rand(2) ? 800 : 90000};
            posted[c] = ++nnb;
        }
        int blocking = (int)nb_rand(4) - 1; /* -1: none, else the communicator */
        uint64_t ring = nb_rand(2) ? 1000 : 100000;
        int rblock = (int)nb_rand(2);
        for (uint32_t r = 0; r < P; r++) {
            now[r] += 200 + nb_rand(3000) + (nb_rand(6) == 0 ? 40000 : 0);
            int member[3] = {1, r % 2 == 0, r < (P + 1) / 2};
            for (int c = 0; c < 3; c++) {
                if (!posted[c] || !member[c])
                    continue;
                uint32_t k = posted[c] - 1;
                uint64_t id = ((uint64_t)ph << 8 | (uint64_t)c) + 1;
                static const char *names[] = {"MPI_Iallreduce", "MPI_Ibarrier", "MPI_Ibcast"};
                int which = nb[k].op == OTF2_COLLECTIVE_OP_ALLREDUCE ? 0 : nb[k].op == OTF2_COLLECTIVE_OP_BARRIER ? 1 : 2;
                if (blocking_only) { /* the same collectives, each a blocking call where it is posted */
                    static const char *bn[] = {"MPI_Allreduce", "MPI_Barrier", "MPI_Bcast"};
                    uint32_t cr = nb[k].comm == 0 ? r : nb[k].comm == comm[1] ? r / 2 : r;
                    uint64_t sent = nb[k].bytes * nb[k].size, recv = nb[k].bytes * nb[k].size;
                    if (nb[k].op == OTF2_COLLECTIVE_OP_BCAST) {
                        sent = cr == nb[k].root ? nb[k].bytes * nb[k].size : 0;
                        recv = cr == nb[k].root ? 0 : nb[k].bytes;
                    }
                    tb_collective_on(b, r, now[r], now[r] + 500, bn[which], nb[k].op, nb[k].comm, nb[k].root, sent, recv);
                    now[r] += 600;
                    continue;
                }
                tb_nbcoll_call(b, r, now[r], now[r] + 50, names[which], id);
                now[r] += 100;
                req[r][nreq[r]++] = id << 8 | k;
            }
            uint32_t L = (r + P - 1) % P, R = (r + 1) % P;
            uint64_t q = 1000000 + ph * 4;
            tb_enter(b, r, now[r] += 10, "MPI_Irecv");
            tb_irecv_request(b, r, now[r], q);
            tb_leave(b, r, now[r] += 10, "MPI_Irecv");
            tb_enter(b, r, now[r] += 10, "MPI_Isend");
            tb_isend(b, r, now[r], R, 3, ring, q + 1);
            tb_leave(b, r, now[r] += 10, "MPI_Isend");
            now[r] += nb_rand(2000);
            if (rblock) { /* the receive's wait alone first, then the send's */
                tb_enter(b, r, now[r] += 10, "MPI_Wait");
                tb_irecv(b, r, now[r] += 3000, L, 3, ring, q);
                tb_leave(b, r, now[r] += 10, "MPI_Wait");
                tb_enter(b, r, now[r] += 10, "MPI_Wait");
                tb_isend_complete(b, r, now[r] += 10, q + 1);
                tb_leave(b, r, now[r] += 10, "MPI_Wait");
            } else {
                tb_enter(b, r, now[r] += 10, "MPI_Waitall");
                tb_irecv(b, r, now[r] += 3000, L, 3, ring, q);
                tb_isend_complete(b, r, now[r] += 10, q + 1);
                tb_leave(b, r, now[r] += 10, "MPI_Waitall");
            }
            if (blocking >= 0 && member[blocking]) {
                now[r] += nb_rand(1500);
                tb_collective_on(b, r, now[r], now[r] + 2000, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, comm[blocking],
                                 OTF2_UNDEFINED_UINT32, 64 * (uint64_t)size[blocking], 64 * (uint64_t)size[blocking]);
                now[r] += 2100;
            }
            for (uint64_t i = nreq[r]; i > 1; i--) { /* a random order of the waits */
                uint32_t k = nb_rand((uint32_t)i);
                uint64_t x = req[r][i - 1];
                req[r][i - 1] = req[r][k];
                req[r][k] = x;
            }
            uint64_t keep = 0;
            for (uint64_t i = 0; i < nreq[r]; i++) {
                uint64_t id = req[r][i] >> 8;
                const struct nbc *c = &nb[req[r][i] & 0xff];
                if (ph + 1 < phases && (id >> 8) == ph && nb_rand(3) == 0) { /* open into the next phase */
                    req[r][keep++] = req[r][i];
                    continue;
                }
                uint32_t cr = c->comm == 0 ? r : c->comm == comm[1] ? r / 2 : r; /* r's rank in the communicator */
                uint64_t sent = c->bytes * c->size, recv = c->bytes * c->size;
                if (c->op == OTF2_COLLECTIVE_OP_BCAST) {
                    sent = cr == c->root ? c->bytes * c->size : 0;
                    recv = cr == c->root ? 0 : c->bytes;
                }
                now[r] += nb_rand(2500);
                tb_nbcoll_wait(b, r, now[r], now[r] + 500, c->op, c->comm, c->root, sent, recv, id);
                now[r] += 600;
            }
            nreq[r] = keep;
        }
    }
    CHECK_EQ_INT(tb_close(b), 0);
}

/* Search program @p k of @p kind (bit 0: blocking collectives only; bit 1: 9 to 39 ranks and 3 to
 * 8 phases, else 3 to 8 ranks and 2 to 4 phases), written in @p dir and compared as the stored
 * traces are; 1 when it differs. */
static int search_program(const char *dir, long k, int kind)
{
    char path[256];
    snprintf(path, sizeof path, "%s/search%ld-%d", dir, k, kind);
    nb_rng = 0x1234567ull * (uint64_t)(k + 1) + (kind & 2 ? 77 : 0);
    uint32_t P = kind & 2 ? 9 + (uint32_t)k % 31 : 3 + (uint32_t)k % 6;
    uint32_t phases = kind & 2 ? 3 + (uint32_t)(k / 31) % 6 : 2 + (uint32_t)(k / 6) % 3;
    int before = rt_test_failures;
    nb_program(path, P, phases, kind & 1);
    check_trace(path, 0);
    if (rt_test_failures == before)
        return 0;
    printf("search program %ld (kind %d, %u ranks, %u phases) differs\n", k, kind, P, phases);
    return 1;
}

/* Random programs (nb_program), each compared as the stored traces are (check_trace): 3 to 39
 * ranks (some fewer than the parts' 7, some more than 32), 3 to 8 phases; half of them with the
 * collectives non-blocking, half with the same collectives blocking. Then programs of a search of
 * 1,600 (RETIME_TEST_PROGRAMS=400 runs it): five that the distributed replay got wrong before it
 * took entries in the serial engine's order (a rooted collective's early leavers, woken below its
 * time), and three that it gets wrong without the bound of a collective not yet entered on the
 * arrivals (engine_remote.c, entry_bound). */
static void check_nbcoll(void)
{
    char dir[] = "/tmp/retime-dist-nb-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    static const uint32_t ranks[] = {5, 9, 12, 33, 3, 7, 17, 39, 6, 13};
    for (uint32_t k = 0; k < 20; k++) {
        char path[256];
        snprintf(path, sizeof path, "%s/nb%u", dir, k);
        nb_rng = 0x9E3779B97F4A7C15ull * (k + 1);
        nb_program(path, ranks[k % 10], 3 + k % 6, (int)(k & 1));
        check_trace(path, 0);
    }
    static const struct {
        long k;
        int kind;
    } found[] = {{12, 1}, {178, 1}, {300, 1}, {316, 1}, {381, 1}, {9, 0}, {46, 1}, {6, 3}};
    for (size_t i = 0; i < sizeof found / sizeof *found; i++)
        search_program(dir, found[i].k, found[i].kind);
    const char *more = getenv("RETIME_TEST_PROGRAMS"); /* N: the search's first N of each kind */
    long differ = 0, n = more ? atol(more) : 0;
    for (long k = 0; k < n; k++)
        for (int kind = 0; kind < 4; kind++)
            differ += search_program(dir, k, kind);
    if (n)
        printf("%ld of %ld search programs differ\n", differ, 4 * n);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

/* ------------------------------------------------------------------ networks */

/* One random point-to-point program of @p P ranks and @p phases phases at @p path. Each phase,
 * every rank (after a random gap) exchanges with two ranks at random distances: Irecv, Irecv,
 * Isend, Isend, Waitall; or MPI_Sendrecv with one; or Irecv, a blocking MPI_Send, Wait. Sizes
 * from 0 bytes to rendezvous ones, so flows of many sizes share links at once. */
static void p2p_program(const char *path, uint32_t P, uint32_t phases)
{
    tb_builder *b = tb_create(path, P);
    uint64_t now[64] = {0};
    static const uint64_t sizes[] = {0, 64, 1000, 8192, 30000, 100000};
    for (uint32_t ph = 0; ph < phases; ph++) {
        uint32_t s1 = 1 + nb_rand(P - 1), s2 = 1 + nb_rand(P - 1), style = nb_rand(3);
        uint64_t m1 = sizes[nb_rand(6)], m2 = sizes[nb_rand(6)];
        uint32_t tag = ph * 2;
        for (uint32_t r = 0; r < P; r++) {
            uint32_t d1 = (r + s1) % P, f1 = (r + P - s1) % P, d2 = (r + s2) % P, f2 = (r + P - s2) % P;
            uint64_t q = 2000000 + (uint64_t)ph * 8;
            now[r] += 100 + nb_rand(4000) + (nb_rand(5) == 0 ? 30000 : 0);
            if (style == 0) {
                tb_enter(b, r, now[r] += 10, "MPI_Irecv");
                tb_irecv_request(b, r, now[r], q);
                tb_leave(b, r, now[r] += 10, "MPI_Irecv");
                tb_enter(b, r, now[r] += 10, "MPI_Irecv");
                tb_irecv_request(b, r, now[r], q + 1);
                tb_leave(b, r, now[r] += 10, "MPI_Irecv");
                tb_enter(b, r, now[r] += 10, "MPI_Isend");
                tb_isend(b, r, now[r], d1, tag, m1, q + 2);
                tb_leave(b, r, now[r] += 10, "MPI_Isend");
                tb_enter(b, r, now[r] += 10, "MPI_Isend");
                tb_isend(b, r, now[r], d2, tag + 1, m2, q + 3);
                tb_leave(b, r, now[r] += 10, "MPI_Isend");
                now[r] += nb_rand(3000);
                tb_enter(b, r, now[r] += 10, "MPI_Waitall");
                tb_irecv(b, r, now[r] += 2000, f1, tag, m1, q);
                tb_irecv(b, r, now[r] += 10, f2, tag + 1, m2, q + 1);
                tb_isend_complete(b, r, now[r] += 10, q + 2);
                tb_isend_complete(b, r, now[r] += 10, q + 3);
                tb_leave(b, r, now[r] += 10, "MPI_Waitall");
            } else if (style == 1) {
                tb_enter(b, r, now[r] += 10, "MPI_Sendrecv");
                tb_send(b, r, now[r] += 10, d1, tag, m1);
                tb_recv(b, r, now[r] += 3000, f1, tag, m1);
                tb_leave(b, r, now[r] += 10, "MPI_Sendrecv");
            } else {
                tb_enter(b, r, now[r] += 10, "MPI_Irecv");
                tb_irecv_request(b, r, now[r], q);
                tb_leave(b, r, now[r] += 10, "MPI_Irecv");
                tb_call_send(b, r, now[r] + 10, now[r] + 2000, "MPI_Send", d2, tag + 1, m2);
                now[r] += 2010;
                tb_enter(b, r, now[r] += 10, "MPI_Wait");
                tb_irecv(b, r, now[r] += 2000, f2, tag + 1, m2, q);
                tb_leave(b, r, now[r] += 10, "MPI_Wait");
            }
        }
    }
    CHECK_EQ_INT(tb_close(b), 0);
}

/* Whether the networks' results of @p a and @p b are the same: every link's use, the counts. */
static int same_network(const struct rt_replay_result *a, const struct rt_replay_result *b)
{
    int same = a->nlinks == b->nlinks && a->contention_ps == b->contention_ps && a->routed == b->routed &&
               a->local == b->local && a->net_recomputed == b->net_recomputed;
    for (uint32_t i = 0; same && i < a->nlinks; i++) {
        const struct rt_link_use *x = &a->links[i], *y = &b->links[i];
        same = x->link == y->link && x->max_flows == y->max_flows && x->flows == y->flows && x->bytes == y->bytes &&
               x->busy_ps == y->busy_ps && x->delay_ps == y->delay_ps && x->bg_flows == y->bg_flows &&
               x->bg_bytes == y->bg_bytes;
    }
    return same;
}

/* The networks the distributed replay is compared on: each a topology with what goes with it. */
static const struct {
    const char *name, *topology, *mapping, *perturb;
    uint32_t per_node;
    double hop_ns, packet_bytes;
    int contention, logp, noisy, shared;
    double shm_alpha_ns; /* 0: the model's (a faster one on a node sets the look-ahead under it) */
} nets[] = {
    {"torus, exact", "torus:4x4x4", NULL, NULL, 1, 0, 0, RT_CONTENTION_EXACT, 0, 0, 0, 0},
    {"fat tree, random mapping, fast, hop latency", "fattree:64", "random:3", NULL, 1, 50, 0, RT_CONTENTION_FAST, 1, 0, 0, 0},
    {"adaptive torus, 2 per node, noise, packets", "torus:4x4x4,adaptive", "random:1", NULL, 2, 0, 2048,
     RT_CONTENTION_EXACT, 1, 1, 0, 0},
    {"crossbar-flow, shared injection", "crossbar-flow", NULL, NULL, 1, 0, 0, RT_CONTENTION_EXACT, 0, 0, 1, 0},
    {"dragonfly, 2 per node at 300 ns, background traffic", "dragonfly:4,4,4,2", NULL,
     "ratio=0.1,pattern=uniform,size=1KiB,interval=200us", 2, 20, 0, RT_CONTENTION_EXACT, 1, 0, 0, 300},
    {"torus, no contention", "torus:4x4x4", "random:2", NULL, 1, 0, 0, RT_CONTENTION_NONE, 0, 0, 0, 0},
};

/* Replays @p path on the networks of nets[] whose bits are set in @p which, by one process and (with
 * @p replays) in 2, 3, 4 and 7 parts, then analyzes it in one of those, on every other network (or,
 * without @p replays, on each: its graphs hold every event's time, so it checks the replay too). */
static void check_network_trace(const char *path, unsigned which, const struct rt_replay_options *hockney,
                                const struct rt_replay_options *logp, int replays)
{
    static const uint32_t parts[] = {2, 3, 4, MAXP};
    rt_trace *t = NULL;
    rt_error err = {0};
    if (rt_trace_open(path, &t, &err) != RT_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        rt_test_failures++;
        return;
    }
    uint32_t ranks = rt_trace_ranks(t);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned nnets = 0;
    for (size_t v = 0; v < sizeof nets / sizeof *nets; v++) {
        if (!(which >> v & 1))
            continue;
        nnets++;
        struct rt_network_params np;
        rt_network_params_default(&np);
        np.topology = nets[v].topology;
        np.mapping = nets[v].mapping;
        np.perturb = nets[v].perturb;
        np.ranks_per_node = nets[v].per_node;
        np.hop_latency_ns = nets[v].hop_ns;
        np.packet_bytes = nets[v].packet_bytes;
        np.contention = nets[v].contention;
        if (nets[v].shm_alpha_ns > 0)
            np.shm_alpha_ns = nets[v].shm_alpha_ns;
        rt_network *net = NULL;
        if (rt_network_create(&np, ranks, &net, &err) != RT_OK) {
            fprintf(stderr, "%s (%s): %s\n", path, nets[v].name, err.msg);
            rt_test_failures++;
            continue;
        }
        struct rt_replay_options o = nets[v].logp ? *logp : *hockney;
        o.network = net;
        o.injection = nets[v].shared ? RT_INJECT_SHARED : RT_INJECT_IN_ORDER;
        if (!nets[v].noisy)
            o.net_noise = NULL, o.os_noise = NULL, o.net_burst = NULL;
        o.seed = 7;
        struct times serial = times_new(t);
        struct rt_replay_observer obs = {.ud = &serial, .on_event = on_event};
        struct rt_replay_result *ref = NULL;
        int rc = rt_replay_run(t, &o, &obs, &ref, &err);
        CHECK_EQ_INT(rc, RT_OK);
        if (rc) {
            fprintf(stderr, "%s (%s): %s\n", path, nets[v].name, err.msg);
            times_free(&serial);
            rt_network_destroy(net);
            continue;
        }
        for (size_t k = 0; replays && k < sizeof parts / sizeof *parts; k++) {
            uint32_t n = parts[k];
            struct times dist = times_new(t);
            struct rt_replay_observer dobs = {.ud = &dist, .on_event = on_event};
            struct rt_replay_result *res[MAXP] = {0};
            int rcs[MAXP];
            rt_error errs[MAXP];
            snprintf(stage, sizeof stage, "%s on %s in %u parts", path, nets[v].name, n);
            /* in 3 and 7 parts a rank asks for the counts of its next collective and one more
             * only, so that most entries wait for them (coll_counts.c) */
            pt_counts_ahead = k % 2 ? 1 : 0;
            alarm(600);
            CHECK_EQ_INT(pt_run(t, &o, &dobs, n, res, rcs, errs), 0);
            alarm(0);
            pt_counts_ahead = 0;
            for (uint32_t p = 0; p < n; p++) {
                if (rcs[p]) {
                    fprintf(stderr, "%s (%s, %u parts): part %u: %s\n", path, nets[v].name, n, p, errs[p].msg);
                    rt_test_failures++;
                } else if (!same_result(ref, res[p]) || !same_network(ref, res[p])) {
                    fprintf(stderr, "%s (%s, %u parts): part %u: result differs: predicted %lld vs %lld ps, "
                            "links %u vs %u, contention %lld vs %lld ps\n", path, nets[v].name, n, p,
                            (long long)res[p]->predicted_ps, (long long)ref->predicted_ps, res[p]->nlinks, ref->nlinks,
                            (long long)res[p]->contention_ps, (long long)ref->contention_ps);
                    rt_test_failures++;
                }
                rt_replay_result_destroy(res[p]);
            }
            same_times(path, nets[v].name, n, t, &serial, &dist);
            times_free(&dist);
        }
        /* analyze --against model on the network: the graphs, paths, wait states, comparison and
         * the congestion attribution (process 0 makes the records from its copy); in one of the
         * part counts, each in turn (an analysis in 7 threads on two cores takes minutes) */
        static unsigned an_turn, an_every;
        if (!replays || an_every++ % 2 == 0) { /* (every other network, when the replays were compared) */
            struct analysis an;
            analyze(t, NULL, &o, AGAINST_MODEL, 0, &an);
            if (an.rc != RT_OK) {
                fprintf(stderr, "%s (%s): serial analysis: %s: %s\n", path, nets[v].name, an.step, an.err.msg);
                rt_test_failures++;
            } else {
                compared_records += check_analysis_parts(path, t, &o, AGAINST_MODEL, nets[v].name, &an,
                                                         parts[an_turn++ % (sizeof parts / sizeof *parts)]);
            }
            analysis_free(&an);
        }
        rt_replay_result_destroy(ref);
        times_free(&serial);
        rt_network_destroy(net);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("  %s: %.1f s\n", nets[v].name, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
        fflush(stdout);
        t0 = t1;
    }
    printf("%s: %u ranks, %s on %u networks\n", path, ranks,
           replays ? "replayed in 2, 3, 4 and 7 parts (analyzed on every other one)" : "analyzed", nnets);
    rt_trace_close(t);
}

/* Collectives whose root runs far ahead of the other members (issue #50, item 4): rank 0 of 9
 * broadcasts 200 eager messages back to back while the others compute between them, then rank 4
 * of a sub-communicator of 5 broadcasts 60 rendezvous ones, then all reduce. Under mpirun a
 * member's process gets messages of instances far beyond any its own ranks have asked counts
 * for: their sender's process must have sent them (coll_counts.c). */
static void bcast_ahead_program(const char *path)
{
    enum { P = 9 };
    tb_builder *b = tb_create(path, P);
    static const uint32_t sub[] = {8, 6, 4, 2, 0};
    uint32_t c5 = tb_comm(b, "evens", 5, sub);
    for (uint32_t r = 0; r < P; r++) {
        uint64_t now = 1000;
        for (int k = 0; k < 200; k++) {
            now += r == 0 ? 10 : 40000;
            tb_collective(b, r, now, now + 100, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 0, r == 0 ? 64 : 0, r == 0 ? 0 : 64);
            now += 100;
        }
        for (int k = 0; r % 2 == 0 && k < 60; k++) {
            now += r == 0 ? 10 : 25000 * (r / 2);
            tb_collective_on(b, r, now, now + 100, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, c5, 4, r == 0 ? 200000 : 0,
                             r == 0 ? 0 : 200000);
            now += 100;
        }
        tb_collective(b, r, now + 10, now + 200, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, 8, 8);
    }
    CHECK_EQ_INT(tb_close(b), 0);
}

/* Two messages to rank 5 of 8, two ranks per node (the dragonfly of nets[]: LogP, shared memory
 * at 300 ns, below the model's latency): rank 7's from another node, and rank 4's from its own
 * node, sent d later in phase k (d = 50 ns x k, 0 to 3 µs), so that in some phase the shared-memory
 * message arrives first though it is sent after the other one is known. In 3 parts ranks 4 and 5
 * are on two processes: the receive port's order needs the network's look-ahead no longer than the
 * shared-memory latency (engine_net.c rt__eng_net_lookahead). */
static void shm_race_program(const char *path)
{
    enum { P = 8, PHASES = 61 };
    tb_builder *b = tb_create(path, P);
    for (uint32_t k = 0; k < PHASES; k++) {
        uint64_t base = 1000 + (uint64_t)k * 100000, d = (uint64_t)k * 50;
        tb_call_send(b, 7, base, base + 100, "MPI_Send", 5, 2 * k, 8);
        tb_call_send(b, 4, base + d, base + d + 100, "MPI_Send", 5, 2 * k + 1, 8);
        tb_call_recv(b, 5, base - 500, base + 5000, 4, 2 * k + 1, 8);
        tb_call_recv(b, 5, base + 5100, base + 6000, 7, 2 * k, 8);
    }
    for (uint32_t r = 0; r < P; r++)
        if (r != 4 && r != 5 && r != 7) {
            tb_enter(b, r, 100, "compute");
            tb_leave(b, r, 200, "compute");
        }
    CHECK_EQ_INT(tb_close(b), 0);
}

/* Random point-to-point programs of 3 to 39 ranks on every network (issue #50, item 1). */
static void check_networks(const struct rt_replay_options *hockney, const struct rt_replay_options *logp)
{
    char dir[] = "/tmp/retime-dist-net-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    static const uint32_t ranks[] = {6, 33, 3, 13, 39, 8};
    long n = getenv("RETIME_TEST_NET_PROGRAMS") ? atol(getenv("RETIME_TEST_NET_PROGRAMS")) : 6;
    for (long k = 0; k < n; k++) {
        char path[256];
        snprintf(path, sizeof path, "%s/p2p%ld", dir, k);
        nb_rng = 0xD1B54A32D192ED03ull * (uint64_t)(k + 1);
        p2p_program(path, k < 6 ? ranks[k] : 3 + (uint32_t)(k * 7 % 37), 2 + (uint32_t)(k % 5));
        check_network_trace(path, ~0u, &variants[0], &variants[3], 1);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

/* The stored traces on two networks each, in turn (RETIME_TEST_NET_ALL: on all of them; the
 * 64-rank ones take 10-20 s per network on two cores): every network meets collectives. */
static void check_network_stored(const char *path, int first)
{
    (void)first;
    static unsigned turn;
    unsigned n = sizeof nets / sizeof *nets, which = 1u << (turn % n) | 1u << ((turn + 3) % n);
    turn++;
    check_network_trace(path, getenv("RETIME_TEST_NET_ALL") ? ~0u : which, &variants[0], &variants[3], 1);
}

/* A part without ranks (more parts than ranks) and broken traces split over processes. */
static void check_edges(void)
{
    char dir[] = "/tmp/retime-dist-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    /* 2 ranks, one exchange each way and a barrier, in 3 parts: part 2 has no rank */
    snprintf(path, sizeof path, "%s/ok", dir);
    tb_builder *b = tb_create(path, 2);
    for (uint32_t r = 0; r < 2; r++) {
        tb_enter(b, r, 0, "MPI_Sendrecv");
        tb_send(b, r, 100, 1 - r, 0, 100);
        tb_recv(b, r, 200, 1 - r, 0, 100);
        tb_leave(b, r, 300, "MPI_Sendrecv");
        tb_collective(b, r, 400, 500, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    }
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_trace_open(path, &t, &err), RT_OK);
    if (t) {
        struct rt_replay_result *ref = NULL, *res[MAXP] = {0};
        int rcs[MAXP];
        rt_error errs[MAXP];
        CHECK_EQ_INT(rt_replay_run(t, &variants[0], NULL, &ref, &err), RT_OK);
        CHECK_EQ_INT(pt_run(t, &variants[0], NULL, 3, res, rcs, errs), 0);
        for (uint32_t p = 0; p < 3; p++) {
            CHECK_EQ_INT(rcs[p], RT_OK);
            CHECK(res[p] && ref && same_result(ref, res[p]));
            rt_replay_result_destroy(res[p]);
        }
        rt_replay_result_destroy(ref);
        check_analysis("2 ranks (parts without ranks)", t);
        rt_trace_close(t);
    }
    /* Broken traces: each process layout must report what the serial replay reports, at the
     * process that finds it (the lowest one when several do), and RT_EREMOTE elsewhere. */
    static const char *names[] = {"deadlock", "unmatched", "size-from-rank-1", "collective-mismatch"};
    static const int finder[] = {0, 0, 1, 0}; /* the process whose ranks show the problem */
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        b = tb_create(path, 2);
        if (k == 0 || k == 1) { /* both ranks receive first; or rank 1 never sends */
            for (uint32_t r = 0; r < 2; r++) {
                if (k == 1 && r == 1) {
                    tb_enter(b, 1, 0, "compute");
                    tb_leave(b, 1, 50, "compute");
                    continue;
                }
                tb_call_recv(b, r, 0, 200, 1 - r, 0, 100);
            }
        } else if (k == 2) { /* rank 1 sends 100 bytes, rank 0 receives 200: found where rank 1 is */
            tb_call_recv(b, 0, 0, 200, 1, 0, 200);
            tb_call_send(b, 1, 100, 300, "MPI_Send", 0, 0, 100);
        } else { /* a barrier meets an allreduce */
            tb_collective(b, 0, 0, 100, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
            tb_collective(b, 1, 50, 100, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, 8, 8);
        }
        CHECK_EQ_INT(tb_close(b), 0);
        t = NULL;
        CHECK_EQ_INT(rt_trace_open(path, &t, &err), RT_OK);
        if (!t)
            continue;
        struct rt_replay_result *ref = NULL, *res[MAXP] = {0};
        int rcs[MAXP];
        rt_error errs[MAXP];
        int src = rt_replay_run(t, &variants[0], NULL, &ref, &err);
        CHECK(src != RT_OK);
        CHECK_EQ_INT(pt_run(t, &variants[0], NULL, 2, res, rcs, errs), 0);
        int f = finder[k], o = 1 - finder[k];
        CHECK_EQ_INT(rcs[f], src);
        CHECK(strcmp(errs[f].msg, err.msg) == 0);
        if (strcmp(errs[f].msg, err.msg))
            fprintf(stderr, "distributed: %s\nserial:      %s\n", errs[f].msg, err.msg);
        CHECK_EQ_INT(rcs[o], RT_EREMOTE);
        printf("%s in 2 parts, process %d: %s\n", names[k], f, errs[f].msg);
        rt_trace_close(t);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

int main(int argc, char **argv)
{
    /* --networks: the networks alone (ctest test_distributed_networks, beside this one) */
    int networks = argc > 1 && strcmp(argv[1], "--networks") == 0;
    signal(SIGALRM, on_alarm);
    rt_error err = {0};
    struct rt_model_params hp = {.alpha_ns = 2122, .beta_ns_per_byte = 0.76};
    struct rt_model_params lp = {.L_ns = 1000, .o_s_ns = 300, .o_r_ns = 500, .g_ns = 700, .G_ns_per_byte = 0.76};
    rt_dist *net = NULL;
    rt_os_noise *os = NULL;
    rt_burst *burst = NULL;
    CHECK_EQ_INT(rt_dist_parse("exp:mean=500ns", &net, &err), RT_OK);
    CHECK_EQ_INT(rt_os_noise_add(&os, "poisson:interval=200us,duration=exp:mean=10us", &err), RT_OK);
    CHECK_EQ_INT(rt_os_noise_add(&os, "periodic:period=1ms,duration=25us", &err), RT_OK);
    CHECK_EQ_INT(rt_burst_parse("mmpp:on=5us,off=20us,latency=3,bandwidth=0.5,scope=rank", &burst, &err), RT_OK);
    for (int v = 0; v < 4; v++) {
        rt_replay_options_default(&variants[v]);
        CHECK_EQ_INT(rt_model_init(&variants[v].model, v % 2 ? "logp" : "hockney", v % 2 ? &lp : &hp, &err), RT_OK);
    }
    for (int v = 2; v < 4; v++) {
        variants[v].net_noise = net;
        variants[v].os_noise = os;
        variants[v].net_burst = burst;
        variants[v].seed = 42;
        variants[v].run = 3;
    }
    variants[3].eager_limit = 1024;
    variants[3].compute_scale = 0.5;
    if (networks && getenv("RETIME_TEST_NET_TRACE")) { /* one trace on every network (a failure's search) */
        check_network_trace(getenv("RETIME_TEST_NET_TRACE"), ~0u, &variants[0], &variants[3], 1);
    } else if (networks) {
        rt_test_on_traces(RT_TRACES_DIR, RT_EXT_TRACES_DIR, check_network_stored);
        /* collectives' messages finishing at one time at a member, taken in another order by
         * the processes: the origin of the lower message goes on (coll_exec.c cx_complete) */
        check_network_trace(RT_TRACES_DIR "/collbench/collbench-p16", 1u << 0, &variants[0], &variants[3], 0);
        check_networks(&variants[0], &variants[3]);
        char dir[] = "/tmp/retime-dist-ahead-XXXXXX", path[300], cmd[340];
        CHECK(mkdtemp(dir) != NULL);
        snprintf(path, sizeof path, "%s/bcast-ahead", dir);
        bcast_ahead_program(path);
        check_network_trace(path, 1u << 0 | 1u << 4, &variants[0], &variants[3], 1);
        snprintf(path, sizeof path, "%s/shm-race", dir);
        shm_race_program(path);
        check_network_trace(path, 1u << 4, &variants[0], &variants[3], 1);
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        CHECK_EQ_INT(system(cmd), 0);
    } else {
        rt_test_on_traces(RT_TRACES_DIR, RT_EXT_TRACES_DIR, check_trace);
        check_edges();
        check_nbcoll();
        check_missing_records(RT_TRACES_DIR "/shift1d-isend-p8-k2-m1000");
    }
    printf("%llu event times compared\n", (unsigned long long)compared_events);
    printf("%llu dependency records compared\n", (unsigned long long)compared_records);
    rt_dist_free(net);
    rt_os_noise_free(os);
    rt_burst_free(burst);
    if (rt_test_failures)
        fprintf(stderr, "%d check(s) failed\n", rt_test_failures);
    return rt_test_failures ? 1 : 0;
}
