/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the dependency graph: hand-made records (critical path walk, tie rule, wait
 * states, the comparison's identity, contract violations), then replays of synthetic traces
 * with known answers (pipeline, fan-in with one late rank, binomial broadcast with a late inner
 * node, the 1D Shift), and the identity end(B) - end(A) = accumulated - slack on every stored
 * trace, noise-free against noisy replays with several seeds and against the measured timing.
 * Hockney with α = 2122 ns, β = 0.7595 ns/B: T(1000) = 2881.5 ns.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otf2_builder.h"
#include "retime/depgraph.h"
#include "retime/replay.h"
#include "test_util.h"
#include "stored_traces.h"

#define ALPHA 2122.0
#define BETA 0.7595
#define T_PS(m) ((int64_t)(ALPHA * 1000 + BETA * 1000 * (m) + 0.5))

static char tmp_root[256];
static int ntraces;

static tb_builder *new_trace(char *dir, size_t n, uint32_t ranks)
{
    snprintf(dir, n, "%s/t%d", tmp_root, ntraces++);
    return tb_create(dir, ranks);
}

static void options(struct rt_replay_options *o, double scale)
{
    struct rt_model_params p = {.alpha_ns = ALPHA, .beta_ns_per_byte = BETA};
    rt_error err = {0};
    rt_replay_options_default(o);
    CHECK_EQ_INT(rt_model_init(&o->model, "hockney", &p, &err), RT_OK);
    o->compute_scale = scale;
}

/* Replays @p t under @p o into a new graph, checks the engine's records against the contract
 * and the graph's end against the replay's. */
static rt_depgraph *replay_graph(const rt_trace *t, const struct rt_replay_options *o, struct rt_replay_result **resp)
{
    rt_depgraph *g = NULL;
    struct rt_replay_result *res = NULL;
    struct rt_replay_observer obs;
    rt_error err = {0};
    CHECK_EQ_INT(rt_depgraph_create(t, &g, &err), RT_OK);
    if (!g)
        return NULL;
    rt_depgraph_observer(g, &obs);
    CHECK_EQ_INT(rt_replay_run(t, o, &obs, &res, &err), RT_OK);
    int rc = rt_depgraph_check(g, &err);
    if (rc)
        fprintf(stderr, "contract: %s\n", err.msg);
    CHECK_EQ_INT(rc, RT_OK);
    if (res)
        CHECK_EQ_INT(rt_depgraph_end(g), res->predicted_ps);
    if (resp)
        *resp = res;
    else
        rt_replay_result_destroy(res);
    return g;
}

/* The critical path's length is the run's end; returns it. */
static const struct rt_critical_path *cp_of(rt_depgraph *g)
{
    const struct rt_critical_path *cp = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_depgraph_critical_path(g, &cp, &err), RT_OK);
    if (cp) {
        CHECK_EQ_INT(cp->length_ps, cp->end_ps);
        CHECK_EQ_INT(cp->end_ps, rt_depgraph_end(g));
        CHECK_EQ_INT(cp->activity_ps[RT_ACT_WAITING], 0);
        rt_time_ps sum = 0;
        for (int k = 0; k < RT_ACT_COUNT; k++)
            sum += cp->activity_ps[k];
        CHECK_EQ_INT(sum, cp->length_ps);
    }
    return cp;
}

/* Compares A and B and checks the identity to the ps. */
static struct rt_depgraph_diff *diff_of(rt_depgraph *a, rt_depgraph *b)
{
    struct rt_depgraph_diff *d = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_depgraph_compare(a, b, &d, &err), RT_OK);
    if (d) {
        CHECK_EQ_INT(d->residual, 0);
        CHECK_EQ_INT(d->end_b - d->end_a, d->accumulated - d->slack);
        CHECK(d->slack >= 0);
        CHECK_EQ_INT(d->injected, d->accumulated + d->absorbed);
    }
    return d;
}

/* Sum of a group's rows (value) in a share array, and the value of one id in it. */
static rt_time_ps group_value(const struct rt_dep_share *s, uint64_t n, uint8_t wait, uint8_t group, uint32_t id,
                              int field)
{
    rt_time_ps v = 0;
    for (uint64_t i = 0; i < n; i++)
        if (s[i].wait == wait && s[i].group == group && (id == RT_NONE - 1 || s[i].id == id))
            v += field ? s[i].value2 : s[i].value;
    return v;
}
#define ANY_ID (RT_NONE - 1)

/* The wait states of @p g, with what holds on any graph in one process: a wait [a, b] is blamed
 * whole (its blame walk covers [a, b] with edges that join end to end), so per kind the blame
 * rows sum to the total, and the waiting-rank and cause rows to the total and the count. */
static void ws_of(rt_depgraph *g)
{
    const struct rt_wait_states *ws = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_depgraph_wait_states(g, &ws, &err), RT_OK);
    if (!ws)
        return;
    for (uint8_t k = 0; k < RT_WAIT_COUNT; k++) {
        CHECK_EQ_INT(group_value(ws->share, ws->nshare, k, RT_GROUP_BLAME, ANY_ID, 0), ws->total_ps[k]);
        CHECK_EQ_INT(group_value(ws->share, ws->nshare, k, RT_GROUP_CAUSE, ANY_ID, 0), ws->total_ps[k]);
        CHECK_EQ_INT(group_value(ws->share, ws->nshare, k, RT_GROUP_RANK, ANY_ID, 1), (rt_time_ps)ws->count[k]);
    }
}

/* The first (largest) row of a group, or NULL. */
static const struct rt_dep_share *group_top(const struct rt_dep_share *s, uint64_t n, uint8_t wait, uint8_t group)
{
    for (uint64_t i = 0; i < n; i++)
        if (s[i].wait == wait && s[i].group == group)
            return &s[i];
    return NULL;
}

/* Whether two results are the same to the last row (the one-walk analysis against the single calls). */
static int same_shares(const struct rt_dep_share *x, uint64_t nx, const struct rt_dep_share *y, uint64_t ny)
{
    if (nx != ny)
        return 0;
    for (uint64_t i = 0; i < nx; i++)
        if (x[i].group != y[i].group || x[i].wait != y[i].wait || x[i].id != y[i].id || x[i].region != y[i].region ||
            x[i].instance != y[i].instance || x[i].value != y[i].value || x[i].value2 != y[i].value2)
            return 0;
    return 1;
}

/* Whether two critical paths are the same; a missing one (its call failed, and said so) is not the
 * same as anything, so the failing case reports instead of crashing the program. */
static int same_cp(const struct rt_critical_path *x, const struct rt_critical_path *y)
{
    if (!x || !y)
        return 0;
    int same = x->end_ps == y->end_ps && x->length_ps == y->length_ps && x->end_rank == y->end_rank &&
               x->end_index == y->end_index && x->events == y->events && x->nseg == y->nseg &&
               memcmp(x->activity_ps, y->activity_ps, sizeof x->activity_ps) == 0 &&
               same_shares(x->share, x->nshare, y->share, y->nshare);
    for (uint64_t i = 0; same && i < x->nseg; i++)
        same = x->seg[i].rank == y->seg[i].rank && x->seg[i].first == y->seg[i].first &&
               x->seg[i].last == y->seg[i].last && x->seg[i].begin_ps == y->seg[i].begin_ps &&
               x->seg[i].end_ps == y->seg[i].end_ps;
    return same;
}

/* rt_depgraph_analyze on fresh graphs @p a2, @p b2 (B NULL: A alone), on 3 threads, gives what
 * the single calls gave on @p a, @p b on one (already compared, d: their comparison). */
static void check_one_walk(rt_depgraph *a, rt_depgraph *b, const struct rt_depgraph_diff *d, rt_depgraph *a2,
                           rt_depgraph *b2)
{
    rt_error err = {0};
    struct rt_depgraph_diff *d2 = NULL;
    const struct rt_critical_path *x = NULL, *y = NULL;
    const struct rt_wait_states *wx = NULL, *wy = NULL;
    rt_depgraph *wa = b ? b : a, *wa2 = b2 ? b2 : a2;
    /* on 3 threads (ranks split in 3 ranges), against the single calls on one */
    setenv("RETIME_ANALYZE_THREADS", "3", 1);
    CHECK_EQ_INT(rt_depgraph_analyze(a2, b2, b2 ? &d2 : NULL, &err), RT_OK);
    setenv("RETIME_ANALYZE_THREADS", "1", 1);
    CHECK_EQ_INT(rt_depgraph_critical_path(a, &x, &err), RT_OK);
    CHECK_EQ_INT(rt_depgraph_critical_path(a2, &y, &err), RT_OK);
    CHECK(same_cp(x, y));
    if (b) {
        x = y = NULL;
        CHECK_EQ_INT(rt_depgraph_critical_path(b, &x, &err), RT_OK);
        CHECK_EQ_INT(rt_depgraph_critical_path(b2, &y, &err), RT_OK);
        CHECK(same_cp(x, y));
    }
    CHECK_EQ_INT(rt_depgraph_wait_states(wa, &wx, &err), RT_OK);
    CHECK_EQ_INT(rt_depgraph_wait_states(wa2, &wy, &err), RT_OK);
    CHECK(wx && wy && memcmp(wx->total_ps, wy->total_ps, sizeof wx->total_ps) == 0 &&
          memcmp(wx->count, wy->count, sizeof wx->count) == 0 &&
          same_shares(wx->share, wx->nshare, wy->share, wy->nshare));
    if (d && d2)
        CHECK(d->end_a == d2->end_a && d->end_b == d2->end_b && d->accumulated == d2->accumulated &&
              d->slack == d2->slack && d->injected == d2->injected &&
              d->injected_negative == d2->injected_negative && d->absorbed == d2->absorbed &&
              d->residual == d2->residual && d->source_changed == d2->source_changed && d->edges == d2->edges &&
              same_shares(d->share, d->nshare, d2->share, d2->nshare));
    else
        CHECK(!b2 || (d && d2));
    rt_depgraph_diff_destroy(d2);
}

/* ------------------------------------------------------------------ hand-made records */

static void feed(rt_depgraph *g, uint32_t r, uint64_t j, rt_time_ps lr, rt_time_ps rr, uint32_t sr, uint64_t sj,
                 int kind)
{
    struct rt_dep d = {lr, kind ? rr : INT64_MIN, sj, kind ? sr : RT_NONE, (uint8_t)kind, 0, RT_NONE};
    rt_time_ps t = kind && rr > lr ? rr : lr;
    rt_depgraph_on_dep(g, r, j, NULL, t, &d);
}

/* Rank 0: Enter MPI_Send, SEND, Leave; rank 1: Enter MPI_Recv, RECV, Leave. */
static rt_trace *two_rank_trace(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    tb_call_send(b, 0, 0, 10, "MPI_Send", 1, 0, 1000);
    tb_call_recv(b, 1, 0, 10, 0, 0, 1000);
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_trace_open(dir, &t, &err), RT_OK);
    return t;
}

/* A: the receive is posted at 50, the message sent at 100 arrives at 1100 (remote binds).
 * @p recv_post moves rank 1's Enter, @p transfer the message's time. @p receiver_first: rank 1's
 * records come before its source's (which the collector must fill in later). */
static rt_depgraph *handmade_fed(const rt_trace *t, rt_time_ps recv_post, rt_time_ps transfer, int receiver_first)
{
    rt_depgraph *g = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_depgraph_create(t, &g, &err), RT_OK);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == receiver_first) {
            feed(g, 0, 0, 0, 0, 0, 0, RT_DEP_NONE);
            feed(g, 0, 1, 100, 0, 0, 0, RT_DEP_NONE);
            feed(g, 0, 2, 200, 0, 0, 0, RT_DEP_NONE);
        } else {
            feed(g, 1, 0, recv_post, 0, 0, 0, RT_DEP_NONE);
            feed(g, 1, 1, recv_post, 100 + transfer, 0, 1, RT_DEP_MESSAGE);
            rt_time_ps t1 = recv_post > 100 + transfer ? recv_post : 100 + transfer;
            feed(g, 1, 2, t1, 0, 0, 0, RT_DEP_NONE);
        }
    }
    CHECK_EQ_INT(rt_depgraph_check(g, &err), RT_OK);
    return g;
}

static rt_depgraph *handmade(const rt_trace *t, rt_time_ps recv_post, rt_time_ps transfer)
{
    return handmade_fed(t, recv_post, transfer, 0);
}

static void test_handmade(void)
{
    rt_trace *t = two_rank_trace();
    if (!t)
        return;
    rt_error err = {0};
    rt_depgraph *a = handmade(t, 50, 1000);
    const struct rt_critical_path *cp = cp_of(a);
    if (cp) {
        CHECK_EQ_INT(cp->end_ps, 1100);
        CHECK_EQ_INT(cp->end_rank, 1);
        CHECK_EQ_INT(cp->end_index, 2); /* ties on a rank: its last event */
        CHECK_EQ_INT(cp->events, 4);
        CHECK_EQ_INT(cp->nseg, 2);
        if (cp->nseg == 2) {
            CHECK_EQ_INT(cp->seg[0].rank, 0);
            CHECK_EQ_INT(cp->seg[0].first, 0);
            CHECK_EQ_INT(cp->seg[0].last, 1);
            CHECK_EQ_INT(cp->seg[0].begin_ps, 0);
            CHECK_EQ_INT(cp->seg[0].end_ps, 100);
            CHECK_EQ_INT(cp->seg[1].rank, 1);
            CHECK_EQ_INT(cp->seg[1].first, 1);
            CHECK_EQ_INT(cp->seg[1].begin_ps, 100);
            CHECK_EQ_INT(cp->seg[1].end_ps, 1100);
        }
        CHECK_EQ_INT(cp->activity_ps[RT_ACT_TRANSFER], 1000);
        CHECK_EQ_INT(cp->activity_ps[RT_ACT_OVERHEAD], 100); /* Enter .. SEND inside MPI_Send */
        CHECK_EQ_INT(cp->activity_ps[RT_ACT_COMPUTE], 0);
        CHECK_EQ_INT(group_value(cp->share, cp->nshare, 0, RT_GROUP_RANK, 0, 0), 100);
        CHECK_EQ_INT(group_value(cp->share, cp->nshare, 0, RT_GROUP_RANK, 1, 0), 1000);
        CHECK_EQ_INT(group_value(cp->share, cp->nshare, 0, RT_GROUP_SIZE, 10, 0), 1000); /* 512..1023 B */
    }
    const struct rt_wait_states *ws = NULL;
    CHECK_EQ_INT(rt_depgraph_wait_states(a, &ws, &err), RT_OK);
    if (ws) {
        CHECK_EQ_INT(ws->count[RT_WAIT_LATE_SENDER], 1);
        CHECK_EQ_INT(ws->total_ps[RT_WAIT_LATE_SENDER], 1050);
        CHECK_EQ_INT(group_value(ws->share, ws->nshare, RT_WAIT_LATE_SENDER, RT_GROUP_CAUSE, 0, 0), 1050);
        CHECK_EQ_INT(group_value(ws->share, ws->nshare, RT_WAIT_LATE_SENDER, RT_GROUP_BLAME, 0, 0), 1050);
        CHECK_EQ_INT(group_value(ws->share, ws->nshare, RT_WAIT_LATE_SENDER, RT_GROUP_RANK, 1, 1), 1);
    }

    /* A slower transfer on the path accumulates. */
    rt_depgraph *b = handmade(t, 50, 1500);
    struct rt_depgraph_diff *d = diff_of(a, b);
    if (d) {
        CHECK_EQ_INT(d->accumulated, 500);
        CHECK_EQ_INT(d->slack, 0);
        CHECK_EQ_INT(d->absorbed, 0);
    }
    rt_depgraph_diff_destroy(d);
    rt_depgraph_destroy(b);

    /* Against a receiver posted at 2000, the same delay is absorbed: it stays below the slack. */
    rt_depgraph *a2 = handmade(t, 2000, 1000), *b2 = handmade(t, 2000, 1500);
    d = diff_of(a2, b2);
    if (d) {
        CHECK_EQ_INT(d->end_b - d->end_a, 0);
        CHECK_EQ_INT(d->accumulated, 0);
        CHECK_EQ_INT(d->injected, 500);
        CHECK_EQ_INT(d->absorbed, 500);
    }
    rt_depgraph_diff_destroy(d);
    /* The same records with the message's source recorded after it: the same results. */
    rt_depgraph *late = handmade_fed(t, 50, 1000, 1), *early = handmade(t, 50, 1000);
    check_one_walk(early, NULL, NULL, late, NULL);
    rt_depgraph *late_b = handmade_fed(t, 50, 1000, 1);
    d = diff_of(late_b, a2);
    struct rt_depgraph_diff *d_early = diff_of(a, a2);
    if (d && d_early) {
        CHECK_EQ_INT(d->injected, d_early->injected);
        CHECK_EQ_INT(d->accumulated, d_early->accumulated);
        CHECK_EQ_INT(d->slack, d_early->slack);
    }
    rt_depgraph_diff_destroy(d_early);
    rt_depgraph_diff_destroy(d);
    rt_depgraph_destroy(late_b);
    rt_depgraph_destroy(early);
    rt_depgraph_destroy(late);
    /* Tie rule: remote_ready == local_ready binds the local edge. */
    rt_depgraph *tie = handmade(t, 1100, 1000);
    cp = cp_of(tie);
    if (cp)
        CHECK_EQ_INT(cp->nseg, 1);
    rt_depgraph_destroy(tie);
    rt_depgraph_destroy(a2);
    rt_depgraph_destroy(b2);

    /* A late receiver consumes slack: rank 1 posts at 1600 instead of 50 (δ 1550 on its first
     * edge, on B's path), the message's 1000 ps slack absorbs 1050 of it. */
    b = handmade(t, 1600, 1000);
    d = diff_of(a, b);
    if (d) {
        CHECK_EQ_INT(d->end_b - d->end_a, 500);
        CHECK_EQ_INT(d->accumulated, 1550);
        CHECK_EQ_INT(d->slack, 1050);
    }
    rt_depgraph_diff_destroy(d);
    rt_depgraph_destroy(b);
    rt_depgraph_destroy(a);

    /* Contract violations are named. */
    rt_depgraph *g = NULL;
    CHECK_EQ_INT(rt_depgraph_create(t, &g, &err), RT_OK);
    if (g) {
        feed(g, 0, 0, 0, 0, 0, 0, RT_DEP_NONE);
        CHECK_EQ_INT(rt_depgraph_check(g, &err), RT_EINVAL);
        CHECK_CONTAINS(err.msg, "rank 0: 1 dependency records for 3 events");
        feed(g, 0, 1, 100, 0, 0, 0, RT_DEP_NONE);
        feed(g, 0, 2, 200, 0, 0, 0, RT_DEP_NONE);
        feed(g, 1, 0, 50, 0, 0, 0, RT_DEP_NONE);
        struct rt_dep dep = {50, 1100, 1, 0, RT_DEP_MESSAGE, 0, RT_NONE};
        rt_depgraph_on_dep(g, 1, 1, NULL, 1000, &dep); /* t != max(50, 1100) */
        feed(g, 1, 2, 1100, 0, 0, 0, RT_DEP_NONE);
        CHECK_EQ_INT(rt_depgraph_check(g, &err), RT_EINVAL);
        CHECK_CONTAINS(err.msg, "rank 1 event 1: t 1000 ps != max(local_ready 50, remote_ready 1100)");
        const struct rt_critical_path *c2;
        CHECK_EQ_INT(rt_depgraph_critical_path(g, &c2, &err), RT_OK); /* complete: the walk still works */
        rt_depgraph_destroy(g);
    }
    g = NULL;
    CHECK_EQ_INT(rt_depgraph_create(t, &g, &err), RT_OK);
    if (g) {
        feed(g, 0, 0, 0, 0, 0, 0, RT_DEP_NONE);
        feed(g, 0, 1, 100, 0, 0, 0, RT_DEP_NONE);
        feed(g, 0, 2, 200, 0, 0, 0, RT_DEP_NONE);
        feed(g, 1, 0, 50, 0, 0, 0, RT_DEP_NONE);
        feed(g, 1, 1, 50, 150, 0, 2, RT_DEP_MESSAGE); /* source at 200 after remote_ready 150 */
        feed(g, 1, 2, 150, 0, 0, 0, RT_DEP_NONE);
        CHECK_EQ_INT(rt_depgraph_check(g, &err), RT_EINVAL);
        CHECK_CONTAINS(err.msg, "rank 1 event 1: remote source (rank 0, event 2) at 200 ps after remote_ready 150 ps");
        feed(g, 1, 5, 0, 0, 0, 0, RT_DEP_NONE); /* out of order */
        CHECK_EQ_INT(rt_depgraph_check(g, &err), RT_EINVAL);
        CHECK_CONTAINS(err.msg, "rank 1 event 5 out of program order");
        const struct rt_critical_path *c2;
        CHECK_EQ_INT(rt_depgraph_critical_path(g, &c2, &err), RT_EINVAL);
        rt_depgraph_destroy(g);
    }
    g = NULL;
    CHECK_EQ_INT(rt_depgraph_create(t, &g, &err), RT_OK);
    if (g) { /* a local edge from before the previous event's time, which its remote edge set */
        feed(g, 0, 0, 0, 0, 0, 0, RT_DEP_NONE);
        feed(g, 0, 1, 100, 0, 0, 0, RT_DEP_NONE);
        feed(g, 0, 2, 200, 0, 0, 0, RT_DEP_NONE);
        feed(g, 1, 0, 50, 0, 0, 0, RT_DEP_NONE);
        feed(g, 1, 1, 60, 1100, 0, 0, RT_DEP_MESSAGE); /* at 1100 */
        feed(g, 1, 2, 500, 0, 0, 0, RT_DEP_NONE);
        CHECK_EQ_INT(rt_depgraph_check(g, &err), RT_EINVAL);
        CHECK_CONTAINS(err.msg, "rank 1 event 2: local_ready 500 ps before the previous event's time 1100 ps");
        rt_depgraph_destroy(g);
    }
    rt_depgraph_destroy(NULL);
    rt_depgraph_diff_destroy(NULL);
    rt_trace_close(t);
}

/* ------------------------------------------------------------------ known answers */

static rt_trace *open_dir(const char *dir)
{
    rt_trace *t = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_trace_open(dir, &t, &err), RT_OK);
    return t;
}

/* A pipeline 0 -> 1 -> 2 -> 3: rank i receives, computes 1 µs, sends 1000 B. Every message is
 * on the path, so all network noise accumulates and none is absorbed. */
static void test_pipeline(void)
{
    const uint32_t P = 4;
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, P);
    for (uint32_t r = 0; r < P; r++) {
        uint64_t t = 0;
        if (r > 0) {
            tb_call_recv(b, r, 0, 10, r - 1, 0, 1000);
            t = 10;
        }
        tb_enter(b, r, t, "work");
        tb_leave(b, r, t + 1000, "work");
        if (r + 1 < P)
            tb_call_send(b, r, t + 1000, t + 1010, "MPI_Send", r + 1, 0, 1000);
    }
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_dir(dir);
    if (!t)
        return;
    struct rt_replay_options o;
    options(&o, 1);
    rt_depgraph *a = replay_graph(t, &o, NULL);
    const struct rt_critical_path *cp = cp_of(a);
    if (cp) { /* every rank's 1 µs of compute plus three transfers (the last rank's Leave ends it) */
        CHECK_EQ_INT(cp->end_ps, 4 * 1000000 + 3 * T_PS(1000));
        CHECK_EQ_INT(cp->activity_ps[RT_ACT_TRANSFER], 3 * T_PS(1000));
    }
    rt_dist *noise = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_dist_parse("exp:mean=1us", &noise, &err), RT_OK);
    for (uint64_t seed = 1; seed <= 5; seed++) {
        struct rt_replay_options on = o;
        on.net_noise = noise;
        on.seed = seed;
        struct rt_replay_result *res = NULL;
        rt_depgraph *g = replay_graph(t, &on, &res);
        const struct rt_critical_path *cpb = cp_of(g);
        struct rt_depgraph_diff *d = diff_of(a, g);
        if (d && res && cpb) {
            CHECK_EQ_INT(d->accumulated, res->net_noise_ps); /* every delay accumulates */
            CHECK_EQ_INT(d->injected, res->net_noise_ps);
            CHECK_EQ_INT(d->absorbed, 0);
            CHECK_EQ_INT(d->slack, 0);
            CHECK_EQ_INT(d->end_b - d->end_a, res->net_noise_ps);
            CHECK_EQ_INT(cpb->nseg, P); /* the path runs down the pipeline */
            for (uint64_t i = 0; i < cpb->nseg; i++)
                CHECK_EQ_INT(cpb->seg[i].rank, i);
        }
        rt_depgraph_diff_destroy(d);
        rt_depgraph_destroy(g);
        rt_replay_result_destroy(res);
    }
    rt_dist_free(noise);
    rt_depgraph_destroy(a);
    rt_trace_close(t);
}

/* Fan-in: rank 0 posts three receives and waits for all; ranks 1 and 2 send after 100 ns,
 * rank 3 after 50 µs. Detours on the early ranks are absorbed; on the late rank they
 * accumulate. Rank 0's wait is a wait at Waitall for rank 3. */
static void test_fan_in(void)
{
    const uint32_t P = 4;
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, P);
    uint64_t now = 0;
    for (uint32_t s = 1; s < P; s++) {
        tb_enter(b, 0, now, "MPI_Irecv");
        tb_irecv_request(b, 0, now, s);
        tb_leave(b, 0, now += 10, "MPI_Irecv");
    }
    tb_enter(b, 0, now, "MPI_Waitall");
    for (uint32_t s = 1; s < P; s++)
        tb_irecv(b, 0, now += 10, s, 0, 1000, s);
    tb_leave(b, 0, now += 10, "MPI_Waitall");
    for (uint32_t s = 1; s < P; s++) {
        uint64_t late = s == 3 ? 50000 : 100;
        tb_enter(b, s, 0, "work");
        tb_leave(b, s, late, "work");
        tb_call_send(b, s, late, late + 10, "MPI_Send", 0, 0, 1000);
    }
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_dir(dir);
    if (!t)
        return;
    struct rt_replay_options o;
    options(&o, 1);
    rt_depgraph *a = replay_graph(t, &o, NULL);
    const struct rt_critical_path *cp = cp_of(a);
    if (cp) {
        CHECK_EQ_INT(cp->end_ps, 50000000 + T_PS(1000));
        CHECK_EQ_INT(cp->nseg, 2);
        if (cp->nseg == 2) {
            CHECK_EQ_INT(cp->seg[0].rank, 3);
            CHECK_EQ_INT(cp->seg[1].rank, 0);
        }
    }
    const struct rt_wait_states *ws = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_depgraph_wait_states(a, &ws, &err), RT_OK);
    if (ws) {
        CHECK_EQ_INT(ws->count[RT_WAIT_LATE_SENDER], 0);
        CHECK(ws->count[RT_WAIT_WAITALL] >= 1);
        const struct rt_dep_share *top = group_top(ws->share, ws->nshare, RT_WAIT_WAITALL, RT_GROUP_CAUSE);
        CHECK(top && top->id == 3);
        top = group_top(ws->share, ws->nshare, RT_WAIT_WAITALL, RT_GROUP_BLAME);
        CHECK(top && top->id == 3);
    }
    for (int late = 0; late <= 1; late++) {
        rt_os_noise *os = NULL;
        CHECK_EQ_INT(rt_os_noise_add(&os,
                                     late ? "periodic:period=10us,duration=1us,phase=aligned,ranks=3"
                                          : "periodic:period=10us,duration=1us,phase=aligned,ranks=1-2",
                                     &err),
                     RT_OK);
        struct rt_replay_options on = o;
        on.os_noise = os;
        struct rt_replay_result *res = NULL;
        rt_depgraph *g = replay_graph(t, &on, &res);
        cp_of(g);
        struct rt_depgraph_diff *d = diff_of(a, g);
        if (d && res) {
            CHECK(res->os_noise_ps > 0);
            CHECK(d->injected > 0);
            if (late) { /* rank 3's detours while it computes are all on the path */
                CHECK(d->accumulated > 0);
                CHECK_EQ_INT(d->end_b - d->end_a, d->accumulated);
                CHECK_EQ_INT(group_value(d->share, d->nshare, 0, RT_GROUP_RANK, 3, 0), d->accumulated);
                CHECK_EQ_INT(d->accumulated, res->os_noise_ps); /* its detours all fall before its send */
            } else {
                CHECK_EQ_INT(d->accumulated, 0);
                CHECK_EQ_INT(d->end_b, d->end_a);
                CHECK_EQ_INT(d->absorbed, d->injected);
            }
        }
        rt_depgraph_diff_destroy(d);
        rt_depgraph_destroy(g);
        rt_replay_result_destroy(res);
        rt_os_noise_free(os);
    }
    rt_depgraph_destroy(a);
    rt_trace_close(t);
}

/* Binomial bcast of 1000 B from rank 0 on 8 ranks (0 -> 4 -> 6 -> 7); rank 4 enters 10 µs
 * late and rank 7 computes 1 µs afterwards. The path ends on rank 7 and runs through the
 * deepest branch from the late inner node: rank 4's entry, then 2T of collective (4 -> 6 -> 7). */
static void test_bcast(void)
{
    const uint32_t P = 8;
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, P);
    for (uint32_t r = 0; r < P; r++) {
        uint64_t t0 = 0;
        if (r == 4) {
            tb_enter(b, r, 0, "work");
            tb_leave(b, r, t0 = 10000, "work");
        }
        tb_collective(b, r, t0, t0 + 100, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 0, r == 0 ? P * 1000 : 0, 1000);
        if (r == 7) {
            tb_enter(b, r, t0 + 100, "work");
            tb_leave(b, r, t0 + 1100, "work");
        }
    }
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_dir(dir);
    if (!t)
        return;
    struct rt_replay_options o;
    options(&o, 1);
    rt_depgraph *g = replay_graph(t, &o, NULL);
    const struct rt_critical_path *cp = cp_of(g);
    if (cp) {
        CHECK_EQ_INT(cp->end_ps, 10000000 + 2 * T_PS(1000) + 1000000);
        CHECK_EQ_INT(cp->end_rank, 7);
        CHECK_EQ_INT(cp->activity_ps[RT_ACT_COLLECTIVE], 2 * T_PS(1000));
        CHECK_EQ_INT(cp->activity_ps[RT_ACT_COMPUTE], 11000000);
        CHECK_EQ_INT(cp->nseg, 2);
        if (cp->nseg == 2) {
            CHECK_EQ_INT(cp->seg[0].rank, 4);
            CHECK_EQ_INT(cp->seg[0].end_ps, 10000000);
            CHECK_EQ_INT(cp->seg[1].rank, 7);
        }
    }
    rt_depgraph_destroy(g);
    rt_trace_close(t);
}

/* The 1D Shift with MPI_Ssend (even ranks send first): with communication only, the path moves
 * with the data, from ring neighbour to ring neighbour. */
static void test_shift(void)
{
    const uint32_t P = 8;
    const int k = 2, iters = 3;
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, P);
    uint64_t now[8] = {0};
    for (int it = 0; it < iters; it++) {
        for (uint32_t r = 0; r < P; r++)
            tb_enter(b, r, now[r] += 100, "shift_iteration");
        for (int dir_ = 0; dir_ < 2; dir_++)
            for (int h = 0; h < k; h++)
                for (int phase = 0; phase < 2; phase++)
                    for (uint32_t r = 0; r < P; r++) {
                        uint32_t to = dir_ == 0 ? (r + 1) % P : (r + P - 1) % P;
                        uint32_t from = dir_ == 0 ? (r + P - 1) % P : (r + 1) % P;
                        uint64_t t0 = now[r] += 10, t1 = now[r] += 3000;
                        if ((int)(r % 2) == phase)
                            tb_call_send(b, r, t0, t1, "MPI_Ssend", to, (uint32_t)dir_, 1000);
                        else
                            tb_call_recv(b, r, t0, t1, from, (uint32_t)dir_, 1000);
                    }
        for (uint32_t r = 0; r < P; r++)
            tb_leave(b, r, now[r] += 100, "shift_iteration");
    }
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_dir(dir);
    if (!t)
        return;
    struct rt_replay_options o;
    options(&o, 0);
    rt_depgraph *g = replay_graph(t, &o, NULL);
    const struct rt_critical_path *cp = cp_of(g);
    if (cp) {
        CHECK_EQ_INT(cp->end_ps, iters * 4 * k * T_PS(1000));
        CHECK(cp->nseg >= 2);
        for (uint64_t i = 1; i < cp->nseg; i++) {
            uint32_t a = cp->seg[i - 1].rank, c = cp->seg[i].rank;
            CHECK(a != c);
            CHECK((a + 1) % P == c || (c + 1) % P == a);
        }
        CHECK_EQ_INT(cp->activity_ps[RT_ACT_TRANSFER], cp->end_ps);
        /* every iteration's share is on the path: 4k·T each */
        for (uint64_t i = 0; i < cp->nshare; i++)
            if (cp->share[i].group == RT_GROUP_REGION)
                CHECK_EQ_INT(cp->share[i].value, cp->share[i].region == RT_NONE ? 0 : 4 * k * T_PS(1000));
    }
    rt_depgraph_destroy(g);
    rt_trace_close(t);
}

/* ------------------------------------------------------------------ stored traces */

static void identity_on(const char *path)
{
    rt_trace *t = open_dir(path);
    if (!t)
        return;
    rt_error err = {0};
    rt_dist *net = NULL;
    rt_os_noise *os = NULL;
    rt_burst *burst = NULL;
    CHECK_EQ_INT(rt_dist_parse("lognormal:median=500ns,sigma=1", &net, &err), RT_OK);
    CHECK_EQ_INT(rt_os_noise_add(&os, "poisson:interval=20us,duration=2us", &err), RT_OK);
    CHECK_EQ_INT(rt_burst_parse("mmpp:on=50us,off=200us,latency=3,bandwidth=0.5", &burst, &err), RT_OK);
    for (int scale = 0; scale <= 1; scale++) {
        struct rt_replay_options o;
        options(&o, scale);
        rt_depgraph *a = replay_graph(t, &o, NULL);
        cp_of(a);
        for (uint64_t seed = 1; seed <= 3; seed++)
            for (int which = 0; which < 3; which++) {
                struct rt_replay_options on = o;
                on.seed = seed;
                on.net_noise = which == 0 || which == 2 ? net : NULL;
                on.os_noise = which >= 1 ? os : NULL;
                on.net_burst = which == 2 ? burst : NULL;
                int before = rt_test_failures;
                rt_depgraph *b = replay_graph(t, &on, NULL);
                cp_of(b);
                ws_of(b);
                struct rt_depgraph_diff *d = diff_of(a, b);
                if (seed == 1) { /* the same results in one walk */
                    rt_depgraph *a2 = replay_graph(t, &o, NULL), *b2 = replay_graph(t, &on, NULL);
                    if (a2 && b2)
                        check_one_walk(a, b, d, a2, b2);
                    rt_depgraph_destroy(b2);
                    rt_depgraph_destroy(a2);
                }
                if (rt_test_failures != before)
                    fprintf(stderr, "%s scale %d seed %llu noise %d\n", path, scale, (unsigned long long)seed, which);
                rt_depgraph_diff_destroy(d);
                rt_depgraph_destroy(b);
            }
        /* model against measured: the identity holds too; clock skew is counted, not fatal */
        rt_depgraph *m = NULL;
        struct rt_measured_info mi, mi_refused;
        CHECK_EQ_INT(rt_depgraph_measured(t, a, &m, &mi, &err), RT_OK);
        if (m) {
            rt_depgraph *mm = NULL; /* a measured timing has no stored edges to build another on */
            CHECK_EQ_INT(rt_depgraph_measured(t, m, &mm, &mi_refused, &err), RT_EINVAL);
            CHECK(mm == NULL);
            const struct rt_critical_path *cpm = cp_of(m);
            ws_of(m);
            if (cpm)
                CHECK_EQ_INT(cpm->end_ps, (rt_time_ps)rt_trace_stats(t)->span_ns * 1000);
            struct rt_depgraph_diff *d = diff_of(a, m);
            rt_depgraph *a2 = replay_graph(t, &o, NULL), *m2 = NULL;
            struct rt_measured_info mi2;
            setenv("RETIME_ANALYZE_THREADS", "3", 1); /* the measured graph on 3 threads too */
            CHECK_EQ_INT(rt_depgraph_measured(t, a2, &m2, &mi2, &err), RT_OK);
            setenv("RETIME_ANALYZE_THREADS", "1", 1);
            if (m2) {
                CHECK(mi2.violations == mi.violations && mi2.worst_ps == mi.worst_ps &&
                      mi2.worst_rank == mi.worst_rank && mi2.worst_index == mi.worst_index);
                check_one_walk(a, m, d, a2, m2);
            }
            rt_depgraph *a3 = replay_graph(t, &o, NULL); /* one timing alone */
            if (a3)
                check_one_walk(a, NULL, NULL, a3, NULL);
            rt_depgraph_destroy(a3);
            rt_depgraph_destroy(m2);
            rt_depgraph_destroy(a2);
            rt_depgraph_diff_destroy(d);
        }
        rt_depgraph_destroy(m);
        rt_depgraph_destroy(a);
    }
    rt_burst_free(burst);
    rt_os_noise_free(os);
    rt_dist_free(net);
    rt_trace_close(t);
}

static void identity_each(const char *path, int first)
{
    (void)first;
    identity_on(path);
}

static void test_stored_traces(void)
{
    rt_test_on_traces(RT_TRACES_DIR, RT_EXT_TRACES_DIR, identity_each);
}

int main(void)
{
    setenv("RETIME_ANALYZE_THREADS", "1", 1); /* check_one_walk's one walk runs on 3 */
    snprintf(tmp_root, sizeof tmp_root, "/tmp/retime-test-depgraph-XXXXXX");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    test_handmade();
    test_pipeline();
    test_fan_in();
    test_bcast();
    test_shift();
    test_stored_traces();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", tmp_root);
    TEST_MAIN_END();
}
